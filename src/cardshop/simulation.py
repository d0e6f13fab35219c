"""Many games played by bots, on local processes, any executor, or a Dask cluster.

::

    import cardshop
    sim = cardshop.simulate("klunker-en", players=4, games=1000,
                            bots=["greedy", "random"], seed=7, rotate=True)
    sim.summary()            # per bot: games, mean score, win share, 95% intervals
    sim.to_table()           # dict of columns: pandas.DataFrame(sim.to_table())

Game ``i`` is set up with the seed ``derive_seed(seed, "game", i)`` and the bot in
seat ``s`` with ``derive_seed(seed, "bot", i, s)``. Each game depends on nothing
else, so the results are the same for any number of workers and any executor.
"""

from __future__ import annotations

import itertools
import math
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, overload

from cardshop._core import Action, Seat, derive_seed
from cardshop._errors import CardshopError, SetupError
from cardshop._loader import load_variant, variant_from_data
from cardshop._stats import mean_ci, wilson
from cardshop.bots import Bot, make_bot
from cardshop.klunker.events import Event
from cardshop.klunker.game import Game
from cardshop.klunker.variant import Variant

__all__ = [
    "BotSpec",
    "BotSummary",
    "GameOutcome",
    "SimulationResult",
    "WorkerLostError",
    "game_seed",
    "play_game",
    "simulate",
]

BotSpec = str | Callable[[Variant, int], Bot]
"""A bot for a simulation: a name for :func:`cardshop.bots.make_bot` (``"greedy"``,
``"ismcts:300"``), or a function ``(variant, seed) -> Bot``, picklable when games run
in other processes (a module-level function or class)."""


def game_seed(seed: int, game: int) -> int:
    """The seed of game number ``game`` (from 0) of a simulation with master ``seed``."""
    return derive_seed(seed, "game", game)


def bot_seed(seed: int, game: int, seat: Seat) -> int:
    """The seed of the bot in ``seat`` of game number ``game``."""
    return derive_seed(seed, "bot", game, seat)


def play_game(
    variant: Variant | str | Path,
    players: int,
    bots: Sequence[Bot],
    seed: int | None = None,
    first_player: Seat | None = None,
    on_action: Callable[[Game, Seat, Action, list[Event]], None] | None = None,
) -> Game:
    """Play one game with one bot per seat; return the finished game.

    Each bot sees only ``game.observation(seat)`` and the legal actions. A bot that
    returns an illegal action makes ``apply`` raise :class:`~cardshop.IllegalActionError`.
    ``on_action(game, seat, action, events)`` is called after every action.
    """
    game = Game(load_variant(variant), players, seed, first_player)
    if len(bots) != players:
        raise SetupError(f"play_game needs one bot per seat: {players} seats, {len(bots)} bots")
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        legal = game.legal_actions()
        action = bots[seat].choose(game.observation(seat), legal)
        events = game.apply(action)
        if on_action is not None:
            on_action(game, seat, action, events)
    return game


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """One simulated game: its setup, the bots by seat, and how it ended."""

    game: int
    seed: int
    first_player: Seat
    bots: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[Seat, ...]
    rounds: int
    decisions: int
    termination: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data (tuples as lists)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameOutcome:
        """Inverse of :meth:`to_dict`."""
        return cls(
            game=int(data["game"]),
            seed=int(data["seed"]),
            first_player=int(data["first_player"]),
            bots=tuple(str(b) for b in data["bots"]),
            scores=tuple(int(x) for x in data["scores"]),
            ranks=tuple(int(x) for x in data["ranks"]),
            winners=tuple(int(x) for x in data["winners"]),
            rounds=int(data["rounds"]),
            decisions=int(data["decisions"]),
            termination=str(data["termination"]),
        )

    def win_share(self, seat: Seat) -> float:
        """1/k if ``seat`` is one of k tied winners, else 0."""
        return 1.0 / len(self.winners) if seat in self.winners else 0.0


@dataclass(frozen=True, slots=True)
class BotSummary:
    """How one bot did over all seats it played, with 95% confidence intervals.

    ``seats`` counts seat-games (a bot in two seats of one game counts twice).
    The win share is a proportion: its interval ``[win_low, win_high]`` is the Wilson
    score interval (a win shared by k winners counts 1/k). The mean score's interval
    is the mean plus or minus ``score_ci`` (1.96 standard errors).
    """

    bot: str
    seats: int
    mean_score: float
    score_ci: float
    win_share: float
    win_low: float
    win_high: float
    mean_rank: float

    @property
    def win_interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of the win share."""
        return (self.win_low, self.win_high)

    @property
    def score_interval(self) -> tuple[float, float]:
        """The 95% interval of the mean score."""
        return (self.mean_score - self.score_ci, self.mean_score + self.score_ci)


class SimulationResult(Sequence[GameOutcome]):
    """The outcomes of a simulation, in game order, with tables and a summary."""

    def __init__(
        self,
        variant: Variant,
        players: int,
        seed: int,
        outcomes: Sequence[GameOutcome],
    ) -> None:
        self.variant = variant
        self.players = players
        self.seed = seed
        self.outcomes: list[GameOutcome] = list(outcomes)

    @overload
    def __getitem__(self, index: int) -> GameOutcome: ...

    @overload
    def __getitem__(self, index: slice) -> list[GameOutcome]: ...

    def __getitem__(self, index: int | slice) -> GameOutcome | list[GameOutcome]:
        return self.outcomes[index]

    def __len__(self) -> int:
        return len(self.outcomes)

    def __iter__(self) -> Iterator[GameOutcome]:
        return iter(self.outcomes)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SimulationResult):
            return NotImplemented
        return (
            self.variant.content_hash == other.variant.content_hash
            and self.players == other.players
            and self.outcomes == other.outcomes
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<SimulationResult {self.variant.name} players={self.players} "
            f"seed={self.seed} games={len(self)}>"
        )

    def to_rows(self) -> list[dict[str, Any]]:
        """One flat dict per game: ``pandas.DataFrame(sim.to_rows())``.

        Keys: game, seed, first_player, rounds, decisions, termination, winners (seats
        joined by spaces), and per seat ``s``: bot_s, score_s, rank_s, win_s (share).
        """
        rows = []
        for o in self.outcomes:
            row: dict[str, Any] = {
                "game": o.game,
                "seed": o.seed,
                "first_player": o.first_player,
                "rounds": o.rounds,
                "decisions": o.decisions,
                "termination": o.termination,
                "winners": " ".join(map(str, o.winners)),
            }
            for s in range(self.players):
                row[f"bot_{s}"] = o.bots[s]
                row[f"score_{s}"] = o.scores[s]
                row[f"rank_{s}"] = o.ranks[s]
                row[f"win_{s}"] = o.win_share(s)
            rows.append(row)
        return rows

    def columns(self) -> list[str]:
        """The column names of :meth:`to_table` and :meth:`to_rows`, in order."""
        head = ["game", "seed", "first_player", "rounds", "decisions", "termination", "winners"]
        for s in range(self.players):
            head += [f"bot_{s}", f"score_{s}", f"rank_{s}", f"win_{s}"]
        return head

    def to_table(self) -> dict[str, list[Any]]:
        """The games as columns (a dict of equal-length lists): ``pandas.DataFrame(...)``."""
        rows = self.to_rows()
        return {name: [row[name] for row in rows] for name in self.columns()}

    def seat_rows(self) -> list[dict[str, Any]]:
        """One dict per game and seat (long format): game, seat, bot, score, rank, win."""
        return [
            {
                "game": o.game,
                "seat": s,
                "bot": o.bots[s],
                "score": o.scores[s],
                "rank": o.ranks[s],
                "win": o.win_share(s),
            }
            for o in self.outcomes
            for s in range(self.players)
        ]

    def summary(self) -> list[BotSummary]:
        """Per bot (by name), over every seat it played, best win share first."""
        by_bot: dict[str, list[dict[str, Any]]] = {}
        for row in self.seat_rows():
            by_bot.setdefault(row["bot"], []).append(row)
        out = []
        for bot, rows in by_bot.items():
            score, score_ci = mean_ci([r["score"] for r in rows])
            # Shared wins are fractions: sum them exactly before the interval.
            wins = math.fsum(r["win"] for r in rows)
            win = wilson(min(wins, len(rows)), len(rows))
            rank = sum(r["rank"] for r in rows) / len(rows)
            out.append(
                BotSummary(bot, len(rows), score, score_ci, win.estimate, win.low, win.high, rank)
            )
        return sorted(out, key=lambda b: (-b.win_share, b.bot))

    def terminations(self) -> dict[str, int]:
        """How many games ended each way (``finished``, ``capped``)."""
        out: dict[str, int] = {}
        for o in self.outcomes:
            out[o.termination] = out.get(o.termination, 0) + 1
        return out


# ------------------------------------------------------------------------- running

_VARIANTS: dict[str, Variant] = {}


@dataclass(frozen=True, slots=True)
class _Job:
    """Everything a worker needs to play some games: plain, picklable data."""

    variant_data: dict[str, Any]
    variant_hash: str
    players: int
    seed: int
    specs: tuple[BotSpec, ...]
    rotate: bool


def _variant_of(job: _Job) -> Variant:
    variant = _VARIANTS.get(job.variant_hash)
    if variant is None:
        variant = variant_from_data(job.variant_data, source="<simulation>")
        _VARIANTS[job.variant_hash] = variant
    return variant


def seat_specs(specs: Sequence[BotSpec], players: int, game: int, rotate: bool) -> list[BotSpec]:
    """The bot spec of each seat in game number ``game``.

    One spec plays every seat; ``players`` specs play seat by seat. With ``rotate``
    the specs turn one seat per game, so that every spec plays every seat equally.
    """
    full = list(specs) * players if len(specs) == 1 else list(specs)
    if rotate:
        shift = game % players
        full = full[-shift:] + full[:-shift] if shift else full
    return full


def _build(spec: BotSpec, variant: Variant, seed: int) -> Bot:
    if isinstance(spec, str):
        return make_bot(spec, variant, seed)
    return spec(variant, seed)


def _play_one(job: _Job, index: int) -> GameOutcome:
    variant = _variant_of(job)
    specs = seat_specs(job.specs, job.players, index, job.rotate)
    bots = [_build(spec, variant, bot_seed(job.seed, index, s)) for s, spec in enumerate(specs)]
    game = play_game(variant, job.players, bots, game_seed(job.seed, index))
    result = game.result()
    return GameOutcome(
        game=index,
        seed=game.seed,
        first_player=game.first_player,
        bots=tuple(bot.name for bot in bots),
        scores=result.scores,
        ranks=result.ranks,
        winners=result.winners,
        rounds=result.rounds,
        decisions=len(game.history),
        termination=result.termination.value,
    )


def _play_chunk(job: _Job, indices: Sequence[int]) -> list[GameOutcome]:
    """Play games by index (runs in a worker)."""
    return [_play_one(job, i) for i in indices]


MAX_CHUNK = 500
"""The most games in one task by default: progress stays smooth and a lost worker
loses little."""


class WorkerLostError(CardshopError, RuntimeError):
    """A worker process of the pool died (killed, or out of memory) during a simulation.

    ``played`` games were finished and ``lost`` were not; the pool is stopped.
    """

    def __init__(self, message: str, played: int, lost: int) -> None:
        super().__init__(message)
        self.played = played
        self.lost = lost


def _worker_signals() -> None:
    """Worker setup: the parent handles Ctrl-C (and stops the workers); SIGTERM kills."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _process_pool(workers: int) -> Executor:
    from concurrent.futures import ProcessPoolExecutor  # imported only when used

    return ProcessPoolExecutor(max_workers=workers, initializer=_worker_signals)


def _stop_workers(pool: Executor) -> None:
    """Stop a process pool now: cancel what waits, terminate the running workers."""
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14+
    if callable(terminate):
        terminate()
        return
    pool.shutdown(wait=False, cancel_futures=True)
    processes: dict[int, Any] = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        if process.is_alive():
            process.terminate()
    for process in list(processes.values()):
        process.join(5)
        if process.is_alive():  # pragma: no cover - a worker that ignores SIGTERM
            process.kill()
            process.join()
    pool.shutdown(wait=True)


def _slots(executor: Any) -> int:
    """How many tasks an executor runs at once (a guess when it does not say)."""
    nthreads = getattr(executor, "nthreads", None)
    if callable(nthreads):  # a dask.distributed Client: threads of all its workers
        try:
            threads: dict[Any, int] = nthreads()
            return max(1, sum(threads.values()))
        except Exception:  # a guess only; the run itself reports errors
            return os.cpu_count() or 1
    size = getattr(executor, "_max_workers", None)  # concurrent.futures pools
    return size if isinstance(size, int) and size > 0 else os.cpu_count() or 1


def _as_executor(executor: Any) -> Executor:
    """A concurrent.futures executor from an executor or a ``distributed.Client``."""
    if isinstance(executor, Executor):
        return executor
    get = getattr(executor, "get_executor", None)
    if callable(get):  # a dask.distributed Client
        ex = get(pure=False)
        assert isinstance(ex, Executor)
        return ex
    raise SetupError(
        f"executor must be a concurrent.futures.Executor or a dask.distributed Client, "
        f"not {type(executor).__name__}"
    )


def check_arguments(
    variant: Variant,
    players: int,
    games: int,
    bots: Sequence[BotSpec] | str,
    workers: int | None,
) -> tuple[BotSpec, ...]:
    """Check the arguments of :func:`simulate` (raising :class:`SetupError`); return the bots."""
    rules = variant.rules
    if not isinstance(players, int) or not rules.min_players <= players <= rules.max_players:
        raise SetupError(
            f"{variant.name} is played by {rules.min_players} to {rules.max_players} players, "
            f"not {players!r}"
        )
    if not isinstance(games, int) or games < 0:
        raise SetupError(f"games must be a whole number >= 0, not {games!r}")
    specs: tuple[BotSpec, ...] = (
        tuple(s.strip() for s in bots.split(",")) if isinstance(bots, str) else tuple(bots)
    )
    if len(specs) not in (1, players):
        raise SetupError(
            f"give one bot for every seat or one per seat: {players} seats, {len(specs)} bots"
        )
    for spec in specs:  # fail fast, here, on an unknown bot name or bad option
        if isinstance(spec, str):
            make_bot(spec, variant, 0)
    if workers is not None and workers < 1:
        raise SetupError(f"workers must be at least 1, not {workers}")
    return specs


def simulate(
    variant: Variant | str | Path,
    players: int,
    games: int,
    bots: Sequence[BotSpec] | str = ("random",),
    seed: int = 0,
    workers: int | None = None,
    executor: Executor | Any | None = None,
    *,
    rotate: bool = False,
    chunk_size: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> SimulationResult:
    """Play ``games`` games of ``variant`` with bots; return their outcomes.

    ``bots``: one spec for every seat, or one per seat (a name as in
    :func:`cardshop.bots.make_bot`, or a function ``(variant, seed) -> Bot``); a
    comma-separated text like ``"greedy,random"`` works too. ``rotate`` turns the
    seats one place per game so that every bot plays every seat equally often.

    Where the games run: ``workers=1`` plays them in this process; otherwise a
    process pool of ``workers`` processes (default: one per CPU; never more than
    there are games). ``executor`` takes over: any :class:`concurrent.futures.Executor`
    (its size is its own), or a ``dask.distributed.Client`` for a cluster.
    ``chunk_size`` games go in one task (default: about four tasks per worker, at
    most :data:`MAX_CHUNK`). Tasks are made as they are sent, a few per worker
    ahead, so any number of games takes little memory beyond the outcomes.
    ``progress(n)`` is called in this process with the number of games just finished.

    Faults: if a worker process of the pool dies, the pool is stopped and
    :class:`WorkerLostError` says how many games were played and lost. Any other
    exception while games run (an error in a game, ``KeyboardInterrupt``) stops the
    pool's processes before it propagates, so none is left behind.

    The results do not depend on where the games ran (see the module docstring).
    """
    var = load_variant(variant)
    specs = check_arguments(var, players, games, bots, workers)
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise SetupError(f"chunk_size must be at least 1, not {chunk_size!r}")
    job = _Job(var.to_data(), var.content_hash, players, seed, specs, rotate)
    outcomes: list[GameOutcome] = []
    if executor is None and (workers == 1 or games <= 1):
        for i in range(games):
            outcomes.append(_play_one(job, i))
            if progress is not None:
                progress(1)
        return SimulationResult(var, players, seed, outcomes)

    own_pool = executor is None
    slots = min(workers or os.cpu_count() or 1, games) if own_pool else _slots(executor)
    size = chunk_size or max(1, min(MAX_CHUNK, math.ceil(games / (4 * slots))))
    if own_pool:
        slots = min(slots, math.ceil(games / size))  # no idle processes
    # Chunks are made as they are sent, never all at once: ``games`` may be huge.
    chunks = (range(start, min(start + size, games)) for start in range(0, games, size))
    pool = _process_pool(slots) if own_pool else _as_executor(executor)
    pending: set[Future[list[GameOutcome]]] = set()
    try:
        for chunk in itertools.islice(chunks, 2 * slots):
            pending.add(pool.submit(_play_chunk, job, chunk))
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                played = future.result()
                outcomes.extend(played)
                if progress is not None:
                    progress(len(played))
            for chunk in itertools.islice(chunks, len(done)):
                pending.add(pool.submit(_play_chunk, job, chunk))
    except BrokenProcessPool:
        if own_pool:
            _stop_workers(pool)
        lost = games - len(outcomes)
        raise WorkerLostError(
            f"a worker process died (killed, or out of memory) during the simulation: "
            f"{len(outcomes):,} of {games:,} games were played and {lost:,} lost",
            played=len(outcomes),
            lost=lost,
        ) from None
    except BaseException:
        # An error in a game, Ctrl-C, or a signal turned into an exception: stop now.
        for future in pending:
            future.cancel()
        if own_pool:
            _stop_workers(pool)
        raise
    if own_pool:
        pool.shutdown(wait=True)
    outcomes.sort(key=lambda o: o.game)
    return SimulationResult(var, players, seed, outcomes)
