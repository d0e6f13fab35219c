"""Line-ups, paired deals and rotations: the games of a ladder, played and checkpointed."""

from __future__ import annotations

import itertools
import json
import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from cardshop.bots import bot_names, make_bot
from cardshop.core.chance import MASTER_SEED_LIMIT, check_seed, derive_seed
from cardshop.core.errors import CardshopError, SetupError
from cardshop.core.loader import variant_from_data
from cardshop.core.variant import VariantBase
from cardshop.simulation import (
    as_executor,
    executor_slots,
    game_seed,
    play_game,
    process_pool,
    stop_workers,
)
from cardshop.support.files import read_text_bounded

__all__ = [
    "MAX_BOTS",
    "MAX_DEALS",
    "MAX_GAMES",
    "MAX_LINEUPS",
    "MIN_BOTS",
    "CheckpointError",
    "LadderGame",
    "lineups",
    "rotated",
]

MIN_BOTS = 2
MAX_BOTS = 12
"""A ladder ranks 2 to 12 bots."""
MAX_LINEUPS = 1_000
"""The most line-ups of one ladder (12 bots at 5 seats make 792)."""
MAX_DEALS = 100_000
"""The most deals of one ladder."""
MAX_GAMES = 2_000_000
"""The most games of one ladder: line-ups x deals x seats."""
MAX_CHECKPOINT_BYTES = 512 * 1024 * 1024
"""The largest checkpoint file read back."""
CHECKPOINT_SCHEMA = "cardshop-ladder-checkpoint/1"


class CheckpointError(CardshopError, ValueError):
    """A checkpoint file cannot be used: another ladder's, or damaged."""


@dataclass(frozen=True, slots=True)
class LadderGame:
    """One game of a ladder: which line-up, deal and rotation, the game's seed (the
    same for every line-up and rotation of a deal), the bot of each seat (its index
    in the ladder's bots) and each seat's finishing rank (1 is first) and score."""

    lineup: int
    deal: int
    rotation: int
    seed: int
    seats: tuple[int, ...]
    ranks: tuple[int, ...]
    scores: tuple[int, ...]

    def to_list(self) -> list[Any]:
        """Compact JSON form: ``[lineup, deal, rotation, seed, seats, ranks, scores]``."""
        return [
            self.lineup,
            self.deal,
            self.rotation,
            self.seed,
            list(self.seats),
            list(self.ranks),
            list(self.scores),
        ]

    @classmethod
    def from_list(cls, data: object, bots: int, players: int) -> LadderGame:
        """Inverse of :meth:`to_list`, checked (a ``ValueError`` says what is wrong)."""
        if not isinstance(data, list) or len(data) != 7:
            raise ValueError("a game is a list of 7 items")
        ints = [_int(x) for x in data[:4]]
        seats, ranks, scores = (_ints(x, players) for x in data[4:])
        if ints[0] < 0 or ints[1] < 0 or not 0 <= ints[2] < players or ints[3] < 0:
            raise ValueError("a game's line-up, deal, rotation or seed is out of range")
        if any(not 0 <= b < bots for b in seats) or any(not 1 <= r <= players for r in ranks):
            raise ValueError("a game's seats name an unknown bot or its ranks are out of range")
        return cls(ints[0], ints[1], ints[2], ints[3], seats, ranks, scores)


def _int(x: object) -> int:
    if not isinstance(x, int) or isinstance(x, bool) or abs(x) > 2**64:
        raise ValueError(f"expected a whole number, got {type(x).__name__}")
    return x


def _ints(x: object, n: int) -> tuple[int, ...]:
    if not isinstance(x, list) or len(x) != n:
        raise ValueError(f"expected a list of {n} whole numbers")
    return tuple(_int(v) for v in x)


def lineups(bots: int, players: int) -> list[tuple[int, ...]]:
    """The line-ups of a ladder of ``bots`` bots at ``players`` seats: bot indices by seat.

    With at least as many bots as seats, every set of ``players`` bots (in the order
    of the bots); with fewer, for each ordered pair (a, b) of different bots one seat
    a and every other seat b. Raises :class:`SetupError` past :data:`MAX_LINEUPS`.
    """
    if bots >= players:
        count = math.comb(bots, players)
        if count > MAX_LINEUPS:
            raise SetupError(
                f"{bots} bots at {players} seats make {count:,} line-ups (every set of "
                f"{players} bots); at most {MAX_LINEUPS:,}: rank fewer bots"
            )
        return list(itertools.combinations(range(bots), players))
    return [(a,) + (b,) * (players - 1) for a in range(bots) for b in range(bots) if a != b]


def rotated(lineup: Sequence[int], rotation: int) -> tuple[int, ...]:
    """The seats of ``lineup`` turned ``rotation`` places: seat s plays the bot that
    seat s - rotation plays in the line-up, so over all rotations every bot of the
    line-up plays every seat once."""
    n = len(lineup)
    return tuple(lineup[(s - rotation) % n] for s in range(n))


def check_bots(variant: VariantBase, bots: Sequence[str]) -> tuple[str, ...]:
    """The bot specs, checked: 2..12 distinct texts that :func:`make_bot` knows."""
    if isinstance(bots, str):
        bots = [b.strip() for b in bots.split(",")]
    specs = tuple(bots)
    if not MIN_BOTS <= len(specs) <= MAX_BOTS:
        raise SetupError(f"a ladder ranks {MIN_BOTS} to {MAX_BOTS} bots, not {len(specs)}")
    for spec in specs:
        if not isinstance(spec, str) or not spec:
            raise SetupError(f"a ladder's bots are names such as 'greedy', not {spec!r}")
        try:
            make_bot(spec, variant, 0)
        except SetupError as exc:
            known = ", ".join(bot_names(variant))
            reason = str(exc) if known in str(exc) else f"{exc} (its bots: {known})"
            raise SetupError(f"the ladder cannot use the bot {spec!r}: {reason}") from None
    twice = sorted({s for s in specs if specs.count(s) > 1})
    if twice:
        raise SetupError(f"each bot may be named once in a ladder; named twice: {', '.join(twice)}")
    return specs


@dataclass(frozen=True, slots=True)
class Job:
    """Everything a worker needs to play cells of a ladder: plain, picklable data."""

    variant_data: dict[str, Any]
    variant_hash: str
    players: int
    seed: int
    bots: tuple[str, ...]
    lineups: tuple[tuple[int, ...], ...]


_VARIANTS: dict[str, VariantBase] = {}


def _variant(job: Job) -> VariantBase:
    variant = _VARIANTS.get(job.variant_hash)
    if variant is None:
        variant = variant_from_data(job.variant_data, source="<ladder>")
        _VARIANTS[job.variant_hash] = variant
    return variant


def play_cell(job: Job, lineup: int, deal: int) -> list[LadderGame]:
    """Deal ``deal`` played once per rotation by line-up ``lineup``.

    Every rotation and every line-up plays the deal from the same game seed,
    :func:`cardshop.simulation.game_seed` of the ladder's seed and the deal number;
    the bot of seat s has the seed ``derive_seed(seed, "ladder-bot", deal, rotation, s)``.
    """
    variant = _variant(job)
    seed = game_seed(job.seed, deal)
    out = []
    for rotation in range(job.players):
        seats = rotated(job.lineups[lineup], rotation)
        bots = [
            make_bot(job.bots[b], variant, derive_seed(job.seed, "ladder-bot", deal, rotation, s))
            for s, b in enumerate(seats)
        ]
        game = play_game(variant, job.players, bots, seed=seed)
        if game.seed != seed:  # pragma: no cover - the engine keeps the seed it is given
            raise CardshopError(f"deal {deal} was played from seed {game.seed}, not {seed}")
        result = game.result()
        out.append(
            LadderGame(
                lineup,
                deal,
                rotation,
                seed,
                seats,
                tuple(result.ranks),
                tuple(result.scores),
            )
        )
    return out


def play_cells(job: Job, cells: Sequence[tuple[int, int]]) -> list[list[LadderGame]]:
    """Play cells (line-up, deal) in a worker; the games of each, in order."""
    return [play_cell(job, lineup, deal) for lineup, deal in cells]


# ----------------------------------------------------------------------- checkpoint


def header(job: Job, variant: VariantBase) -> dict[str, Any]:
    """The first line of a checkpoint: what the ladder is. The number of deals is not
    part of it: deal d is the same in a ladder of any length, so a rerun with more
    deals plays only the new ones."""
    return {
        "schema": CHECKPOINT_SCHEMA,
        "family": variant.family,
        "variant": variant.name,
        "variant_hash": job.variant_hash,
        "players": job.players,
        "bots": list(job.bots),
        "seed": job.seed,
    }


def read_checkpoint(
    path: Path, expected: Mapping[str, Any], lineups: int, players: int, deals: int
) -> dict[tuple[int, int], list[LadderGame]]:
    """The cells of the first ``deals`` deals that a checkpoint holds (a damaged last
    line, cut by a stop, is ignored).

    Raises :class:`CheckpointError` if its header is not ``expected`` or a line is
    malformed.
    """
    text = read_text_bounded(
        path,
        MAX_CHECKPOINT_BYTES,
        CheckpointError,
        what="the ladder checkpoint",
        kind="a ladder checkpoint is",
        too_large="the ladder checkpoint",
    )
    lines = text.split("\n")
    complete = lines[:-1]  # the text after the last newline is a line cut short
    if not complete:
        return {}
    try:
        head = json.loads(complete[0])
    except ValueError:
        raise CheckpointError(f"{path}: the first line is not a ladder checkpoint header") from None
    if head != dict(expected):
        differ = sorted(
            k
            for k in set(expected) | (set(head) if isinstance(head, dict) else set())
            if not isinstance(head, dict) or head.get(k) != expected.get(k)
        )
        raise CheckpointError(
            f"{path} is the checkpoint of another ladder (it differs in: "
            f"{', '.join(differ)}); rerun with the arguments it was made with, or name "
            "another --checkpoint file"
        )
    bots = len(expected["bots"])
    cells: dict[tuple[int, int], list[LadderGame]] = {}
    for number, line in enumerate(complete[1:], start=2):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            games = [LadderGame.from_list(g, bots, players) for g in data]
            if len(games) != players:
                raise ValueError(f"a cell has {players} games")
            cell = (games[0].lineup, games[0].deal)
            if not (0 <= cell[0] < lineups and 0 <= cell[1] <= MAX_DEALS):
                raise ValueError("the cell's line-up or deal is out of range")
            if any((g.lineup, g.deal, g.rotation) != (*cell, r) for r, g in enumerate(games)):
                raise ValueError("a cell's games are not one deal's rotations")
        except (ValueError, TypeError, RecursionError) as exc:
            raise CheckpointError(f"{path}, line {number}: not a ladder cell: {exc}") from None
        if cell[1] < deals:
            cells[cell] = games
    return cells


class Checkpoint:
    """An open checkpoint: each finished cell appended as one line, flushed."""

    def __init__(self, path: Path, head: Mapping[str, Any], fresh: bool) -> None:
        self.path = path
        try:
            if fresh:
                self._file: IO[str] = open(path, "w", encoding="utf-8")  # noqa: SIM115
                self._file.write(json.dumps(dict(head), separators=(",", ":")) + "\n")
            else:
                self._file = open(path, "r+", encoding="utf-8")  # noqa: SIM115
                data = self._file.read()
                cut = data.rfind("\n") + 1
                self._file.seek(0)
                self._file.truncate(len(data[:cut].encode("utf-8")))
                self._file.seek(0, os.SEEK_END)
            self._file.flush()
        except OSError as exc:
            raise CheckpointError(
                f"{path}: cannot write the ladder checkpoint: {exc.strerror or exc}"
            ) from None

    def add(self, games: Sequence[LadderGame]) -> None:
        line = json.dumps([g.to_list() for g in games], separators=(",", ":"))
        self._file.write(line + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


# -------------------------------------------------------------------------- running


def play(
    job: Job,
    todo: Sequence[tuple[int, int]],
    done: Callable[[list[LadderGame]], None],
    workers: int | None,
    executor: Executor | Any | None,
) -> None:
    """Play the cells ``todo``; ``done(games)`` gets each cell's games as it ends.

    ``workers=1`` (or one cell) plays here; otherwise a process pool of ``workers``
    (default: one per CPU) or the caller's executor (a Dask client works). Anything
    raised (Ctrl-C included) stops a pool of our own before it propagates.
    """
    if not todo:
        return
    if executor is None and (workers == 1 or len(todo) == 1):
        for lineup, deal in todo:
            done(play_cell(job, lineup, deal))
        return
    own = executor is None
    slots = min(workers or os.cpu_count() or 1, len(todo)) if own else executor_slots(executor)
    size = max(1, min(20, math.ceil(len(todo) / (4 * slots))))
    chunks = (todo[i : i + size] for i in range(0, len(todo), size))
    pool = process_pool(slots) if own else as_executor(executor)
    try:
        _drain(job, pool, chunks, slots, done)
    except BaseException:
        if own:
            stop_workers(pool)
        raise
    if own:
        pool.shutdown(wait=True)


def _drain(
    job: Job,
    pool: Executor,
    chunks: Iterator[Sequence[tuple[int, int]]],
    slots: int,
    done: Callable[[list[LadderGame]], None],
) -> None:
    pending: set[Future[list[list[LadderGame]]]] = set()
    try:
        for chunk in itertools.islice(chunks, 2 * slots):
            pending.add(pool.submit(play_cells, job, list(chunk)))
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                for cell in future.result():
                    done(cell)
            for chunk in itertools.islice(chunks, len(finished)):
                pending.add(pool.submit(play_cells, job, list(chunk)))
    except BaseException:
        for future in pending:
            future.cancel()
        raise


def check_counts(deals: object, seed: object, lineup_count: int, players: int) -> int:
    """The number of deals, checked with the seed and the total of games."""
    check_seed(seed, "seed", MASTER_SEED_LIMIT)
    if not isinstance(deals, int) or isinstance(deals, bool) or not 1 <= deals <= MAX_DEALS:
        raise SetupError(f"deals must be a whole number 1..{MAX_DEALS:,}, not {deals!r}")
    games = lineup_count * deals * players
    if games > MAX_GAMES:
        raise SetupError(
            f"{lineup_count:,} line-ups x {deals:,} deals x {players} rotations make "
            f"{games:,} games; at most {MAX_GAMES:,}: fewer deals or fewer bots"
        )
    return deals
