"""Many games played by bots, on local processes, any executor, or a Dask cluster.

::

    import cardshop
    sim = cardshop.simulate("klunker-en", players=4, games=1000,
                            bots=["greedy", "random"], seed=7, rotate=True)
    sim.summary()            # per bot: games, mean score, win share, 95% intervals
    sim.to_table()           # dict of columns: pandas.DataFrame(sim.to_table())

Any family plays here, turn-based or simultaneous: games advance only through
:mod:`cardshop.driver`, bots come from :func:`cardshop.bots.make_bot` (or a factory),
and outcomes are read from the core :class:`~cardshop.core.game.Result`.

Game ``i`` is set up with the seed ``derive_seed(seed, "game", i)`` and the bot in
seat ``s`` with ``derive_seed(seed, "bot", i, s)``. Each game depends on nothing
else, so the results are the same for any number of workers and any executor.

Replayed deals (``repeats=R``): game ``i`` is replay ``i % R`` of deal ``i // R``. Every
replay of a deal is set up with the deal's seed ``derive_seed(seed, "game", i // R)``
and has the same bots in the same seats; replay 0's bots have the seeds of game
``i // R`` without replays, a later replay ``r``'s ``derive_seed(seed, "bot", i // R, s,
"replay", r)``. What differs between replays is the bots' choices only: the share of
the outcomes' variance that the deal explains is the luck measure (docs/measures.md).

A family may offer a kernel (``Family.kernel``, docs/kernel.md): compiled code that
plays the same games as the reference engine, outcome for outcome, for some bots.
``engine="auto"`` uses it when it can play the games asked for and the reference
engine otherwise; ``"kernel"`` insists on it; ``"reference"`` never uses it.
"""

from __future__ import annotations

import gc
import importlib
import itertools
import math
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from cardshop import driver
from cardshop.bots import Bot, make_bot, seat_bots
from cardshop.core.actions import (
    Action,
    Seat,
)
from cardshop.core.chance import (
    MASTER_SEED_LIMIT,
    check_seed,
    derive_seed,
)
from cardshop.core.errors import (
    CardshopError,
    SetupError,
)
from cardshop.core.frontdoor import new_game, resolve
from cardshop.core.game import (
    Event,
    Game,
    check_players,
)
from cardshop.core.loader import (
    variant_from_data,
)
from cardshop.core.registry import get_family
from cardshop.core.variant import VariantBase
from cardshop.support.stats import (
    mean_ci,
    wilson,
)

__all__ = [
    "AUTO_KERNEL_GAMES",
    "ENGINES",
    "MAX_GAMES",
    "BotSpec",
    "BotSummary",
    "GameOutcome",
    "SimulationResult",
    "WorkerLostError",
    "as_executor",
    "executor_slots",
    "game_seed",
    "play_game",
    "process_pool",
    "simulate",
    "stop_workers",
]

MAX_GAMES = 10_000_000
"""The most games one simulation plays: hours of the kernel, days of the reference
engine, and a gigabyte or more of outcomes kept in memory."""

ENGINES = ("auto", "kernel", "reference")
"""The engines :func:`simulate` takes: the family's kernel when it can (``auto``),
the kernel or an error (``kernel``), or the reference engine always."""

BotSpec = str | Callable[[VariantBase, int], Bot]
"""A bot for a simulation: a name for :func:`cardshop.bots.make_bot` (``"random"``,
``"ismcts:300"``, a family's own such as Klunker's ``"greedy"``), or a function
``(variant, seed) -> Bot``, picklable when games run in other processes (a
module-level function or class)."""


def game_seed(seed: int, game: int) -> int:
    """The seed of game number ``game`` (from 0) of a simulation with master ``seed``."""
    return derive_seed(seed, "game", game)


def bot_seed(seed: int, game: int, seat: Seat, replay: int = 0) -> int:
    """The seed of the bot in ``seat`` of game number ``game`` (with replayed deals:
    deal ``game``, and replay ``replay`` of it; replay 0 is the game without replays)."""
    if replay == 0:
        return derive_seed(seed, "bot", game, seat)
    return derive_seed(seed, "bot", game, seat, "replay", replay)


MAX_REPEATS = 100
"""The most times :func:`simulate` plays one deal (``repeats``)."""


def _play(
    variant: VariantBase | str | Path,
    players: int,
    bots: Sequence[Bot],
    seed: int | None,
    first_player: Seat | None,
    on_step: Callable[[Game, driver.Step], None] | None,
) -> tuple[Game, int]:
    """Play one game to its end through the driver; the game and its number of steps."""
    if len(bots) != players:
        raise SetupError(f"play_game needs one bot per seat: {players} seats, {len(bots)} bots")
    game = new_game(variant, players, seed, first_player)
    if on_step is None:
        return game, driver.run_until(game, bots, _never)

    def each(step: driver.Step) -> None:
        on_step(game, step)

    return game, driver.run_until(game, bots, _never, on_step=each)


def _never(game: Game) -> bool:
    return False


def play_game(
    variant: VariantBase | str | Path,
    players: int,
    bots: Sequence[Bot],
    seed: int | None = None,
    first_player: Seat | None = None,
    on_action: Callable[[Game, Seat, Action, list[Event]], None] | None = None,
    *,
    on_step: Callable[[Game, driver.Step], None] | None = None,
) -> Game:
    """Play one game of any family with one bot per seat; return the finished game.

    The game advances through :func:`cardshop.driver.run_until`: in every step each
    acting seat's bot sees only ``game.observation(seat)`` and that seat's legal
    actions (in a simultaneous tick, no bot sees the others' choices). A bot that
    returns an illegal action makes the game raise
    :class:`~cardshop.IllegalActionError`. ``first_player`` is for families that let
    the first seat be chosen (Klunker); others raise :class:`~cardshop.SetupError`.

    ``on_step(game, step)`` is called after every step (a :class:`cardshop.driver.Step`:
    its number, the action of each seat that acted, the events).
    ``on_action(game, seat, action, events)`` is called after every action; in a
    simultaneous step it is called once per acting seat in seat order, and the step's
    events go with the last of these calls (the others get ``[]``).
    """
    if on_action is None:
        return _play(variant, players, bots, seed, first_player, on_step)[0]
    act = on_action

    def both(game: Game, step: driver.Step) -> None:
        last = len(step.actions) - 1
        for i, (seat, action) in enumerate(sorted(step.actions.items())):
            act(game, seat, action, step.events if i == last else [])
        if on_step is not None:
            on_step(game, step)

    return _play(variant, players, bots, seed, first_player, both)[0]


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """One simulated game: its setup, the bots by seat, and how it ended.

    ``first_player`` is the seat that started, for families that choose one (Klunker),
    else ``None``. ``rounds``, ``termination``, ``scores``, ``ranks`` and ``winners``
    are the game's :class:`~cardshop.core.game.Result`; ``details`` its further counts
    (ticks, trades, ...: the family's own). ``decisions`` counts the actions applied
    (``len(game.moves)``) and ``steps`` the driver's steps: equal in a turn-based
    game, while a simultaneous tick is one step of several decisions.
    """

    game: int
    seed: int
    first_player: Seat | None
    bots: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[Seat, ...]
    rounds: int
    decisions: int
    termination: str
    steps: int = 0
    details: Mapping[str, int] = field(default_factory=dict, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data (tuples as lists, ``details`` as a mapping)."""
        return {
            "game": self.game,
            "seed": self.seed,
            "first_player": self.first_player,
            "bots": list(self.bots),
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "winners": list(self.winners),
            "rounds": self.rounds,
            "decisions": self.decisions,
            "termination": self.termination,
            "steps": self.steps,
            "details": dict(self.details),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameOutcome:
        """Inverse of :meth:`to_dict` (``steps`` and ``details`` may be missing)."""
        first = data["first_player"]
        return cls(
            game=int(data["game"]),
            seed=int(data["seed"]),
            first_player=None if first is None else int(first),
            bots=tuple(str(b) for b in data["bots"]),
            scores=tuple(int(x) for x in data["scores"]),
            ranks=tuple(int(x) for x in data["ranks"]),
            winners=tuple(int(x) for x in data["winners"]),
            rounds=int(data["rounds"]),
            decisions=int(data["decisions"]),
            termination=str(data["termination"]),
            steps=int(data.get("steps", 0)),
            details={str(k): int(v) for k, v in dict(data.get("details") or {}).items()},
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
    """The outcomes of a simulation, in game order, with tables and a summary.

    ``engine`` says which engine played the games (``"kernel"`` or ``"reference"``)
    and ``engine_note`` why the reference engine played them when the kernel was
    not used (empty otherwise). Neither is part of equality: both engines give the
    same outcomes.
    """

    def __init__(
        self,
        variant: VariantBase,
        players: int,
        seed: int,
        outcomes: Sequence[GameOutcome],
        *,
        engine: str = "reference",
        engine_note: str = "",
        repeats: int = 1,
    ) -> None:
        self.repeats = repeats
        """How many times each deal was played (game ``i`` is replay ``i % repeats`` of
        deal ``i // repeats``; 1: every game a deal of its own)."""
        self.variant = variant
        self.players = players
        self.seed = seed
        self._outcomes: list[GameOutcome] | None = list(outcomes)
        self._rows: list[Sequence[Any]] = []
        self._count = len(self._outcomes)
        self.engine = engine
        self.engine_note = engine_note

    @classmethod
    def _from_rows(
        cls,
        variant: VariantBase,
        players: int,
        seed: int,
        chunks: Sequence[Sequence[Any]],
        *,
        engine: str,
        engine_note: str,
    ) -> SimulationResult:
        """A result whose outcomes are a kernel's rows (chunks of them, in game order),
        made into :class:`GameOutcome` objects when first read: a simulation on the
        kernel then costs the calling process hardly anything per game (docs/kernel.md)."""
        made = cls(variant, players, seed, (), engine=engine, engine_note=engine_note)
        made._outcomes = None
        made._rows = list(chunks)
        made._count = sum(len(c) for c in made._rows)
        return made

    @property
    def outcomes(self) -> list[GameOutcome]:
        """The games' outcomes in game order."""
        if self._outcomes is None:
            made: list[GameOutcome] = []
            # Hundreds of thousands of new objects, none in a cycle: the cyclic garbage
            # collector would run over and over on them for nothing (it doubles the time).
            paused = gc.isenabled()
            gc.disable()
            try:
                for chunk in self._rows:
                    made.extend(_as_outcomes(chunk))
            finally:
                if paused:
                    gc.enable()
            self._outcomes = made
            self._rows = []
        return self._outcomes

    @overload
    def __getitem__(self, index: int) -> GameOutcome: ...

    @overload
    def __getitem__(self, index: slice) -> list[GameOutcome]: ...

    def __getitem__(self, index: int | slice) -> GameOutcome | list[GameOutcome]:
        return self.outcomes[index]

    def __len__(self) -> int:
        return self._count

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
            f"<SimulationResult {self.variant.family}/{self.variant.name} "
            f"players={self.players} "
            f"seed={self.seed} games={len(self)}>"
        )

    @property
    def family(self) -> str:
        """The family of the variant played."""
        return self.variant.family

    def detail_columns(self) -> list[str]:
        """The names of the family's result details (``ticks``, ...) in any outcome,
        sorted: the last columns of :meth:`to_table`. A detail whose name is already
        a column gets the prefix ``detail_``."""
        keys = sorted({key for o in self.outcomes for key in o.details})
        return [f"detail_{key}" if key in self._base_columns() else key for key in keys]

    def _base_columns(self) -> list[str]:
        head = ["game", "seed", "first_player", "rounds", "decisions", "steps"]
        head += ["termination", "winners"]
        for s in range(self.players):
            head += [f"bot_{s}", f"score_{s}", f"rank_{s}", f"win_{s}"]
        return head

    def to_rows(self) -> list[dict[str, Any]]:
        """One flat dict per game: ``pandas.DataFrame(sim.to_rows())``.

        Keys (:meth:`columns`): game, seed, first_player (empty for families that do
        not choose one), rounds, decisions (actions applied), steps (driver steps: a
        simultaneous tick is one), termination, winners (seats joined by spaces), per
        seat ``s``: bot_s, score_s, rank_s, win_s (share); then the family's result
        details (:meth:`detail_columns`; 0 where a game did not report one).
        """
        base = set(self._base_columns())
        details = sorted({key for o in self.outcomes for key in o.details})
        rows = []
        for o in self.outcomes:
            row: dict[str, Any] = {
                "game": o.game,
                "seed": o.seed,
                "first_player": o.first_player,
                "rounds": o.rounds,
                "decisions": o.decisions,
                "steps": o.steps,
                "termination": o.termination,
                "winners": " ".join(map(str, o.winners)),
            }
            for s in range(self.players):
                row[f"bot_{s}"] = o.bots[s]
                row[f"score_{s}"] = o.scores[s]
                row[f"rank_{s}"] = o.ranks[s]
                row[f"win_{s}"] = o.win_share(s)
            for key in details:
                row[f"detail_{key}" if key in base else key] = o.details.get(key, 0)
            rows.append(row)
        return rows

    def columns(self) -> list[str]:
        """The column names of :meth:`to_table` and :meth:`to_rows`, in order."""
        return self._base_columns() + self.detail_columns()

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

_VARIANTS: dict[str, VariantBase] = {}
_SET_UP: set[Callable[[], object]] = set()
_set_up_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class _Job:
    """Everything a worker needs to play some games: plain, picklable data."""

    variant_data: dict[str, Any]
    variant_hash: str
    players: int
    seed: int
    specs: tuple[BotSpec, ...]
    rotate: bool
    family: str
    setup: Callable[[], object] | None = None
    kernel: str | None = None  # the family's kernel module, when it plays the games
    repeats: int = 1  # game i is replay i % repeats of deal i // repeats


def _set_up(job: _Job) -> None:
    """Run the job's ``setup`` once in this process (before its first game here)."""
    if job.setup is None or job.setup in _SET_UP:
        return
    with _set_up_lock:
        if job.setup not in _SET_UP:
            job.setup()
            _SET_UP.add(job.setup)


def _variant_of(job: _Job) -> VariantBase:
    variant = _VARIANTS.get(job.variant_hash)
    if variant is None:
        try:
            get_family(job.family)
        except SetupError:
            raise SetupError(
                f"the family {job.family!r} is not registered in the process that plays "
                f"the games (pid {os.getpid()}): a family registered at run time with "
                "register_family must be registered in every worker too; pass "
                "simulate(setup=...) a function that registers it, or install the family "
                "with a 'cardshop.families' entry point (docs/simulation.md)"
            ) from None
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


def _build(spec: BotSpec, variant: VariantBase, seed: int) -> Bot:
    if isinstance(spec, str):
        return make_bot(spec, variant, seed)
    return spec(variant, seed)


def _play_one(job: _Job, index: int) -> GameOutcome:
    variant = _variant_of(job)
    deal, replay = divmod(index, job.repeats)
    specs = seat_specs(job.specs, job.players, deal, job.rotate)
    bots = [
        _build(spec, variant, bot_seed(job.seed, deal, s, replay)) for s, spec in enumerate(specs)
    ]
    game, steps = _play(variant, job.players, bots, game_seed(job.seed, deal), None, None)
    result = game.result()
    first = (game.setup_options() or {}).get("first_player")  # for families that have one
    return GameOutcome(
        game=index,
        seed=game.seed,
        first_player=first if isinstance(first, int) else None,
        bots=tuple(bot.name for bot in bots),
        scores=tuple(result.scores),
        ranks=tuple(result.ranks),
        winners=tuple(result.winners),
        rounds=result.rounds,
        decisions=len(game.moves),
        termination=result.termination.value,
        steps=steps,
        details=dict(result.details),
    )


def _as_outcomes(played: Sequence[Any]) -> list[GameOutcome]:
    """Outcome objects of played games: a kernel reports each as a row of their fields."""
    return [p if isinstance(p, GameOutcome) else GameOutcome(*p) for p in played]


def _play_chunk(job: _Job, indices: range) -> Sequence[Any]:
    """Play games by index (runs in a worker): outcomes, or a kernel's rows of them."""
    _set_up(job)
    if job.kernel is not None:
        module: Any = importlib.import_module(job.kernel)
        played: Sequence[Any] = module.play(
            _variant_of(job),
            job.players,
            job.specs,
            job.seed,
            indices.start,
            indices.stop,
            rotate=job.rotate,
        )
        return played
    return [_play_one(job, i) for i in indices]


def kernel_note(
    variant: VariantBase, players: int, specs: Sequence[BotSpec], seed: int
) -> tuple[str | None, str]:
    """The module of the family's kernel if it can play these games, and why not if
    it cannot: ``(module, "")`` or ``(None, reason)``."""
    family = get_family(variant.family)
    if family.kernel is None:
        return None, f"the {family.name} family has no kernel"
    module: Any = importlib.import_module(family.kernel)
    why: str | None = module.unavailable(variant, players, tuple(specs), seed)
    return (family.kernel, "") if why is None else (None, why)


AUTO_KERNEL_GAMES = 500
"""``engine="auto"`` uses a kernel for this many games or more: starting one (importing
numba and loading the compiled code, about 1.5 s of CPU in every process) costs more
than it saves on fewer games."""

KERNEL_CHUNK = 5_000
"""The most games in one task when the kernel plays them (about a seventh of a second
for klunker-en: short enough that the workers finish together; with 20,000, two
workers on 200,000 games ran 1.7x to 1.9x of one, with 5,000 1.95x to 2.0x)."""


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


def _forking() -> bool:
    """Whether this process's new worker processes are forked (they inherit its memory)."""
    return multiprocessing.get_context().get_start_method() == "fork"


def _prepare_kernel(kernel: str, variant: VariantBase, players: int, *, threads: bool) -> None:
    """Before simulate's own workers start: load the kernel's compiled code here (its
    optional ``prepare(variant, players)``). Threads share it and forked processes
    inherit it, instead of each loading it (about 1.5 s of CPU for Klunker's).
    Spawned processes inherit nothing: there it would only cost this process time.

    The first run compiles the kernel (a minute): that happens here, in a thread of
    its own, so that a stop (Ctrl-C, or a signal the caller turned into an exception)
    is raised in this thread's wait and never inside the compiler, which it would
    leave broken; the process may then exit without waiting for the compiler."""
    if not threads and not _forking():
        return
    prepare = getattr(importlib.import_module(kernel), "prepare", None)
    if callable(prepare):
        _aside(lambda: prepare(variant, players), "cardshop-kernel-load")


def _aside(call: Callable[[], object], name: str) -> None:
    """Run ``call`` in a daemon thread and wait for it; raise what it raised."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # passed on to the waiting thread
            raised.append(exc)

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    # Short waits: a signal's handler runs in this thread between two of them, even
    # when the system delivered the signal to the other thread.
    while thread.is_alive():
        thread.join(0.05)
    if raised:
        raise raised[0]


def _kernel_chunk(job: _Job) -> int:
    """The most games in one of a kernel's tasks: what its module's ``chunk_games``
    says for these games (a family whose games are long: Wühltisch's random ones), or
    :data:`KERNEL_CHUNK`. A task runs without a pause, so its length is how long a stop
    or a progress report waits."""
    assert job.kernel is not None
    chunk_games = getattr(importlib.import_module(job.kernel), "chunk_games", None)
    if chunk_games is None:
        return KERNEL_CHUNK
    return max(1, min(KERNEL_CHUNK, int(chunk_games(job.players, job.specs))))


def _releases_gil(kernel: str) -> bool:
    """Whether the kernel module says that its ``play`` runs without the GIL
    (``RELEASES_GIL = True``): its workers are then threads of this process."""
    return getattr(importlib.import_module(kernel), "RELEASES_GIL", False) is True


def _thread_pool(workers: int) -> Executor:
    from concurrent.futures import ThreadPoolExecutor  # imported only when used

    return ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cardshop-kernel")


def process_pool(workers: int) -> Executor:
    """A pool of ``workers`` processes as simulate makes its own (a worker ignores
    Ctrl-C, which the calling process handles)."""
    from concurrent.futures import ProcessPoolExecutor  # imported only when used

    return ProcessPoolExecutor(max_workers=workers, initializer=_worker_signals)


def stop_workers(pool: Executor) -> None:
    """Stop simulate's own pool now: cancel what waits, terminate the running worker
    processes and wait until they are gone (a pool of threads lets each finish its
    task: a kernel's chunk is short)."""
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14+
    if callable(terminate):
        terminate()
        pool.shutdown(wait=True)
        return
    # Taken before the shutdown below: on Python 3.11 to 3.13 ``shutdown(wait=False)``
    # forgets the pool's processes and its manager thread, which would then be left
    # to finish their tasks (minutes, for some families' chunks).
    processes: list[Any] = list((getattr(pool, "_processes", None) or {}).values())
    manager: threading.Thread | None = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(5)
        if process.is_alive():  # pragma: no cover - a worker that ignores SIGTERM
            process.kill()
            process.join()
    if manager is not None:
        manager.join()  # it sees its workers gone and ends
    pool.shutdown(wait=True)  # a thread pool: its threads end their running tasks


def executor_slots(executor: Any) -> int:
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


def as_executor(executor: Any) -> Executor:
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


def _shown(value: object) -> str:
    """``repr(value)`` cut to 40 characters (an int too long to print is described)."""
    try:
        text = repr(value)
    except ValueError:  # an int past Python's digit limit
        return "a number of more than 4300 digits"
    return text if len(text) <= 40 else f"{text[:40]}... ({len(text)} characters)"


def check_arguments(
    variant: VariantBase,
    players: int,
    games: int,
    bots: Sequence[BotSpec] | str,
    workers: int | None,
) -> tuple[BotSpec, ...]:
    """Check the arguments of :func:`simulate` (raising :class:`SetupError`); return the bots."""
    check_players(variant, players)
    if not isinstance(games, int) or isinstance(games, bool) or not 0 <= games <= MAX_GAMES:
        raise SetupError(f"games must be a whole number 0..{MAX_GAMES:,}, not {_shown(games)}")
    given = bots.split(",") if isinstance(bots, str) else list(bots)
    full = seat_bots(given, players)  # fewer bots than seats repeat in order
    specs: tuple[BotSpec, ...] = tuple(full[:1] if len(given) == 1 else full)
    for spec in specs:  # fail fast, here, on an unknown bot name or bad option
        if isinstance(spec, str):
            make_bot(spec, variant, 0)
    if workers is not None and workers < 1:
        raise SetupError(f"workers must be at least 1, not {workers}")
    return specs


def simulate(
    variant: VariantBase | str | Path,
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
    setup: Callable[[], object] | None = None,
    engine: str = "auto",
    repeats: int = 1,
) -> SimulationResult:
    """Play ``games`` games of ``variant`` (any family) with bots; return their outcomes.

    ``bots``: one spec for every seat, or one per seat (a name as in
    :func:`cardshop.bots.make_bot`, or a function ``(variant, seed) -> Bot``); a
    comma-separated text like ``"greedy,random"`` works too. Fewer specs than seats
    are repeated in order, as on the command line (:func:`cardshop.bots.seat_bots`:
    ``"greedy,random"`` at 4 players is greedy, random, greedy, random). At most
    :data:`MAX_GAMES` games. ``rotate`` turns the
    seats one place per game so that every bot plays every seat equally often.

    Where the games run: ``workers=1`` plays them in this process; otherwise a
    process pool of ``workers`` processes (default: one per CPU; never more than
    there are games), or ``workers`` threads of this process when a kernel that runs
    without the GIL plays them (docs/kernel.md). ``executor`` takes over: any
    :class:`concurrent.futures.Executor` (its size is its own), or a
    ``dask.distributed.Client`` for a cluster.
    ``chunk_size`` games go in one task (default: about four tasks per worker, at
    most :data:`MAX_CHUNK`). Tasks are made as they are sent, a few per worker
    ahead, so any number of games takes little memory beyond the outcomes.
    ``progress(n)`` is called in this process with the number of games just finished.
    ``setup()``, a picklable function (defined at module level), runs once in every
    process that plays games, before its first game: register a family there that
    has no ``cardshop.families`` entry point (one registered at run time only in the
    calling process is unknown to spawned workers and to a cluster's).

    Faults: if a worker process of the pool dies, the pool is stopped and
    :class:`WorkerLostError` says how many games were played and lost. Any other
    exception while games run (an error in a game, ``KeyboardInterrupt``) stops the
    pool's processes before it propagates, so none is left behind.

    ``engine``: ``"auto"`` (default) plays the games with the family's kernel when
    it has one that can play them (Klunker: random and greedy bots; Wühltisch:
    random, baseline and greedy; docs/kernel.md)
    and there are at least :data:`AUTO_KERNEL_GAMES` of them, and on the reference
    engine otherwise; ``"kernel"`` raises :class:`SetupError`
    saying why when the kernel cannot; ``"reference"`` never uses a kernel. Both
    engines give the same outcomes; :attr:`SimulationResult.engine` says which ran.

    ``repeats``: play each deal this many times (1..:data:`MAX_REPEATS`; default 1, every
    game a deal of its own). Game ``i`` is then replay ``i % repeats`` of deal
    ``i // repeats``: the deal's game seed, the same bots in the same seats (with
    ``rotate``, the seats turn per deal), the bots seeded anew for each replay
    (:func:`bot_seed`); its outcome's ``seed`` is the deal's. Replays are played on the
    reference engine (``engine="auto"`` chooses it; ``"kernel"`` raises
    :class:`SetupError`): a kernel seeds its bots in its own way.

    The results do not depend on where the games ran (see the module docstring).
    ``seed`` is an int, not a bool, within :data:`~cardshop.core.MASTER_SEED_LIMIT`
    (:func:`~cardshop.core.check_seed`; a :class:`SetupError` otherwise).
    """
    run = _plan(
        variant,
        players,
        games,
        bots,
        seed,
        workers,
        rotate,
        chunk_size,
        setup,
        engine,
        progress,
        repeats,
    )
    if executor is None and (workers == 1 or games <= 1):
        _play_here(run, chunk_size)
    else:
        _play_on_pool(run, workers, executor, chunk_size)
    return run.result()


@dataclass(slots=True)
class _Run:
    """A simulation under way: its job, and the games it has played so far."""

    job: _Job
    variant: VariantBase
    games: int
    note: str
    """Why this engine plays the games (:attr:`SimulationResult.engine_note`)."""
    progress: Callable[[int], None] | None
    outcomes: list[GameOutcome] = field(default_factory=list)
    chunks: list[tuple[int, Sequence[Any]]] = field(default_factory=list)
    """A kernel's rows of outcomes: (first game, rows)."""

    def add(self, start: int, played: Sequence[Any]) -> None:
        """Games ``start, start + 1, ...`` played (outcomes, or a kernel's rows)."""
        if self.job.kernel is not None:
            self.chunks.append((start, played))
        else:
            self.outcomes.extend(_as_outcomes(played))
        if self.progress is not None:
            self.progress(len(played))

    def played(self) -> int:
        return len(self.outcomes) + sum(len(c) for _, c in self.chunks)

    def result(self) -> SimulationResult:
        job, used = self.job, "reference" if self.job.kernel is None else "kernel"
        if job.kernel is not None:
            self.chunks.sort(key=lambda chunk: chunk[0])
            rows = [c for _, c in self.chunks]
            return SimulationResult._from_rows(
                self.variant, job.players, job.seed, rows, engine=used, engine_note=self.note
            )
        self.outcomes.sort(key=lambda o: o.game)
        return SimulationResult(
            self.variant,
            job.players,
            job.seed,
            self.outcomes,
            engine=used,
            engine_note=self.note,
            repeats=job.repeats,
        )


def _plan(
    variant: VariantBase | str | Path,
    players: int,
    games: int,
    bots: Sequence[BotSpec] | str,
    seed: int,
    workers: int | None,
    rotate: bool,
    chunk_size: int | None,
    setup: Callable[[], object] | None,
    engine: str,
    progress: Callable[[int], None] | None,
    repeats: int = 1,
) -> _Run:
    """The simulation :func:`simulate` was asked for, every argument checked and the
    engine chosen, before any game is played."""
    if engine not in ENGINES:
        raise SetupError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    seed = check_seed(seed, "seed", MASTER_SEED_LIMIT)  # never a bool: both engines agree
    var = resolve(variant).variant
    specs = check_arguments(var, players, games, bots, workers)
    if not isinstance(repeats, int) or isinstance(repeats, bool) or not 1 <= repeats <= MAX_REPEATS:
        raise SetupError(
            f"repeats must be a whole number 1..{MAX_REPEATS} (the times each deal is "
            f"played), not {_shown(repeats)}"
        )
    if repeats > 1 and engine == "kernel":
        raise SetupError(
            "engine 'kernel' cannot replay deals (repeats above 1): the kernel seeds its "
            "bots in its own way; use engine 'auto' or 'reference'"
        )
    if repeats > 1:
        kernel, note = None, "replayed deals are played on the reference engine"
    else:
        kernel, note = _choose_engine(var, players, games, specs, seed, engine)
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise SetupError(f"chunk_size must be at least 1, not {chunk_size!r}")
    if setup is not None and not callable(setup):
        raise SetupError(f"setup must be a function, not {type(setup).__name__}")
    job = _Job(
        var.to_data(),
        var.content_hash,
        players,
        seed,
        specs,
        rotate,
        var.family,
        setup,
        kernel,
        repeats,
    )
    return _Run(job, var, games, note, progress)


def _choose_engine(
    variant: VariantBase,
    players: int,
    games: int,
    specs: Sequence[BotSpec],
    seed: int,
    engine: str,
) -> tuple[str | None, str]:
    """The kernel's module that plays the games (None: the reference engine), and why."""
    if engine == "reference":
        return None, "the reference engine was asked for"
    if engine == "auto" and games < AUTO_KERNEL_GAMES:
        return None, f"fewer than {AUTO_KERNEL_GAMES} games: the kernel's start would cost more"
    kernel, note = kernel_note(variant, players, specs, seed)
    if kernel is None and engine == "kernel":
        raise SetupError(
            f"engine 'kernel' cannot play these games of {variant.name}: {note}; use "
            "engine 'auto' to fall back to the reference engine"
        )
    return kernel, note


def _play_here(run: _Run, chunk_size: int | None) -> None:
    """Play the games in this process, in order."""
    job, games = run.job, run.games
    if games:
        _set_up(job)
    if job.kernel is None:
        for i in range(games):
            run.add(i, [_play_one(job, i)])
        return
    if games:
        _prepare_kernel(job.kernel, run.variant, job.players, threads=True)
    step = chunk_size or _kernel_chunk(job)
    for start in range(0, games, step):
        run.add(start, _play_chunk(job, range(start, min(start + step, games))))


def _play_on_pool(
    run: _Run, workers: int | None, executor: Executor | Any | None, chunk_size: int | None
) -> None:
    """Play the games in chunks on the caller's executor, or on a pool of our own
    (processes, or threads for a kernel that releases the GIL), a few chunks a worker
    ahead; a pool of our own is stopped if anything goes wrong."""
    job, games, kernel = run.job, run.games, run.job.kernel
    own_pool = executor is None
    slots = min(workers or os.cpu_count() or 1, games) if own_pool else executor_slots(executor)
    most = MAX_CHUNK if kernel is None else _kernel_chunk(job)
    size = chunk_size or max(1, min(most, math.ceil(games / (4 * slots))))
    if own_pool:
        slots = min(slots, math.ceil(games / size))  # no idle workers
    # Chunks are made as they are sent, never all at once: ``games`` may be huge.
    ranges = (range(start, min(start + size, games)) for start in range(0, games, size))
    threads = own_pool and kernel is not None and _releases_gil(kernel)
    if own_pool and kernel is not None:
        _prepare_kernel(kernel, run.variant, job.players, threads=threads)
    if not own_pool:
        pool = as_executor(executor)
    else:
        pool = _thread_pool(slots) if threads else process_pool(slots)
    try:
        _drain(run, pool, ranges, slots, freeze=own_pool and not threads and _forking())
    except BrokenProcessPool:
        if own_pool:
            stop_workers(pool)
        played = run.played()
        raise WorkerLostError(
            f"a worker process died (killed, or out of memory) during the simulation: "
            f"{played:,} of {games:,} games were played and {games - played:,} lost",
            played=played,
            lost=games - played,
        ) from None
    except BaseException:
        # An error in a game, Ctrl-C, or a signal turned into an exception: stop now.
        if own_pool:
            stop_workers(pool)
        raise
    if own_pool:
        pool.shutdown(wait=True)


def _drain(run: _Run, pool: Executor, ranges: Iterator[range], slots: int, *, freeze: bool) -> None:
    """Send the chunks to ``pool``, two a slot ahead, and take their games as they end
    (the chunks still waiting are cancelled if anything goes wrong)."""
    pending: set[Future[Sequence[Any]]] = set()
    starts: dict[Future[Sequence[Any]], int] = {}

    def submit(chunk: range) -> None:
        future = pool.submit(_play_chunk, run.job, chunk)
        starts[future] = chunk.start
        pending.add(future)

    try:
        # A forked pool starts its processes at the first submission. The objects this
        # process holds then are frozen for that moment, so that the workers' garbage
        # collections never walk them (nor copy the pages they touch): a caller holding
        # the 200,000 outcomes of an earlier simulation made two workers 1.76x of one
        # instead of 1.9x and more.
        if freeze:
            gc.freeze()
        try:
            for chunk in itertools.islice(ranges, 2 * slots):
                submit(chunk)
        finally:
            if freeze:
                gc.unfreeze()
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                run.add(starts.pop(future), future.result())
            for chunk in itertools.islice(ranges, len(done)):
                submit(chunk)
    except BaseException:
        for future in pending:
            future.cancel()
        raise
