"""What the families' batch kernels share (docs/kernel.md).

A family's kernel (``Family.kernel``: ``cardshop.klunker.kernel``,
``cardshop.wuhltisch.kernel``) plays whole games of its bots in code compiled with
numba, exactly the games of its reference engine. This package holds what does not
depend on a family's rules:

* the seeded chance of :mod:`cardshop.core.chance` compiled with numba
  (:mod:`cardshop.kernels.chance`, imported only when a kernel runs);
* the checks every kernel makes before it plays (:func:`why_not`, :func:`check_range`);
* :class:`Outcomes`, games' outcomes kept as the kernel's arrays until they are read
  as :class:`OutcomeRow` tuples, and :func:`seating`;
* :func:`run`, which calls a kernel's compiled ``play`` (announcing a first compile)
  and plays again with more room when the recorded histories did not fit.

Importing this package imports neither numba nor numpy.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

from cardshop.core import (
    MASTER_SEED_LIMIT,
    SetupError,
    VariantBase,
    VariantError,
    check_players,
    check_seed,
)

__all__ = [
    "MAX_SEED_TEXT",
    "TERMINATIONS",
    "OutcomeRow",
    "Outcomes",
    "available",
    "check_call",
    "check_range",
    "play_games",
    "run",
    "seat_bot_codes",
    "seating",
    "why_not",
    "winners_of",
]

MAX_SEED_TEXT = 200
"""The longest ``repr`` of a simulation's master seed a kernel takes (a bound on the
hashed text; longer seeds play on the reference engine)."""

_announced: set[str] = set()


def available() -> bool:
    """Whether numba is installed (the ``kernel`` extra)."""
    return importlib.util.find_spec("numba") is not None


def why_not(
    bots: Sequence[object], playable: Sequence[str], house: Sequence[str], seed: int
) -> str | None:
    """Why a kernel that plays the bots ``playable`` cannot play games of these
    ``bots`` from master ``seed`` on a variant with the house rules ``house`` (the
    keys it does not play), or ``None`` when it can."""
    for spec in bots:
        if not isinstance(spec, str) or spec.strip() not in playable:
            shown = spec if isinstance(spec, str) else getattr(spec, "__name__", repr(spec))
            names = ", ".join(playable[:-1]) + f" and {playable[-1]}"
            return (
                f"the kernel plays the bots {names} only, not {shown!r} "
                "(other bots, bot options and bot functions run on the reference engine)"
            )
    if house:
        return (
            f"the kernel cannot play {', '.join(house)} (a house rule of this variant); "
            "the reference engine will"
        )
    try:
        check_seed(seed, "seed", MASTER_SEED_LIMIT)  # never a bool: True is no 1 here
    except SetupError as exc:
        return str(exc)
    if len(repr(seed)) > MAX_SEED_TEXT:
        return f"the kernel takes int seeds of at most {MAX_SEED_TEXT} digits"
    if not available():
        return 'numba is not installed: python -m pip install ".[kernel]" in a clone of cardshop'
    return None


_CHECKED: set[str] = set()
"""The content hashes of variants :func:`check_call` found valid (a few per process)."""


def check_call(variant: VariantBase, players: int, bots: Sequence[object], why: str | None) -> None:
    """Raise unless a kernel can play games of ``variant`` at ``players`` with
    ``bots``: :class:`~cardshop.SetupError` with ``why``, what the kernel's
    ``unavailable`` said (``None``: nothing against it), or for a player count the
    variant is not played by, or a number of bots that is neither one nor one per seat;
    :class:`~cardshop.VariantError` for a variant its family finds invalid (its
    ``semantic_errors``, which a variant built with ``model_validate`` has not been
    checked for: the reference engine refuses it when it deals, and a kernel, whose
    compiled code takes its rules on trust, must not play it)."""
    if why is not None:
        raise SetupError(f"the kernel cannot play these games: {why}")
    if variant.content_hash not in _CHECKED:
        problems = variant.semantic_errors()
        if problems:
            path, reason = problems[0]
            raise VariantError(reason, source=f"<variant {variant.name}>", path=path)
        if len(_CHECKED) >= 256:
            _CHECKED.clear()
        _CHECKED.add(variant.content_hash)
    check_players(variant, players)
    if len(bots) not in (1, players):
        raise SetupError(
            f"give one bot for every seat or one per seat: {players} seats, {len(bots)} bots"
        )


def check_range(start: object, stop: object, most: int) -> None:
    """Raise :class:`~cardshop.SetupError` unless ``0 <= start <= stop`` are ints with
    at most ``most`` games between them."""
    if not (isinstance(start, int) and isinstance(stop, int) and 0 <= start <= stop):
        raise SetupError(f"games {start!r}..{stop!r}: need 0 <= start <= stop")
    if stop - start > most:
        raise SetupError(
            f"games {start}..{stop}: at most {most:,} games in one call, not {stop - start:,}"
        )


def seat_bot_codes(bots: Sequence[object], players: int, playable: Sequence[str]) -> Any:
    """Each seat's bot (before rotation) as its index in ``playable`` (int64)."""
    import numpy as np

    specs = [str(b).strip() for b in bots]
    full = specs * players if len(specs) == 1 else specs
    return np.array([playable.index(b) for b in full], dtype=np.int64)


def run(
    play: Any, args: Sequence[Any], hist_size: int, logger: logging.Logger, message: str
) -> tuple[int, Any]:
    """Call a kernel's compiled ``play(*args, hist)``; ``(its result, hist)``.

    ``hist`` is an int64 array of ``hist_size`` for the recorded actions; a result
    below 0 says they did not fit, and the games are played again with four times the
    room. A call that must compile (numba's cache has no machine code for it) logs
    ``message`` at ``INFO`` on ``logger``, once a process."""
    import numpy as np

    from cardshop.kernels.chance import compiling

    loaded = bool(play.overloads)  # compiled, or read from the cache, here
    while True:
        hist = np.zeros(hist_size, dtype=np.int64)

        def announce() -> None:
            if message not in _announced:
                _announced.add(message)
                logger.info(message)

        watch = contextlib.nullcontext() if loaded else compiling(announce)
        with watch:
            done = int(play(*args, hist))
        loaded = True
        if done >= 0:
            return done, hist
        hist_size *= 4


def play_games(
    play: Any,
    rules: Sequence[Any],
    variant: VariantBase,
    players: int,
    bots: Sequence[object],
    seed: int,
    start: int,
    stop: int,
    rotate: bool,
    record: bool,
    layout: tuple[Sequence[str], int, int],
    logger: logging.Logger,
    message: str,
) -> tuple[Any, Any, Any, Any]:
    """Games ``start .. stop-1`` of a simulation on a kernel whose compiled ``play``
    takes ``(*rules, games of a match (0: none), players, the bytes of repr(seed),
    start, count, each seat's bot, rotate, record, table, seeds, history lengths,
    history)`` (Wühltisch's and Reglamentacja's). ``layout`` is the kernel's bots,
    its table's columns and the room for one game's history. Returns the table, the
    games' seeds, their history lengths and the history, through :func:`run`."""
    import numpy as np

    playable, width, room = layout
    count = stop - start
    out = np.zeros((count, width), dtype=np.int64)
    seeds = np.zeros(count, dtype=np.uint64)
    lengths = np.zeros(count, dtype=np.int64)
    text = np.frombuffer(repr(seed).encode(), dtype=np.uint8).copy()
    match = variant.match
    games = players * match.games_per_player if match is not None else 0
    args = (
        *rules, games, players, text, start, count, seat_bot_codes(bots, players, playable),
        rotate, record, out, seeds, lengths,
    )  # fmt: skip
    _, hist = run(play, args, room * count if record else 1, logger, message)
    return out, seeds, lengths, hist


def seating(bots: tuple[str, ...], players: int, game: int, rotate: bool) -> tuple[str, ...]:
    """Each seat's bot in game ``game``: one bot everywhere, or one per seat turning
    one seat per game with ``rotate`` (as ``cardshop.simulation.seat_specs``)."""
    full = bots * players if len(bots) == 1 else bots
    shift = game % players if rotate else 0
    return full[-shift:] + full[:-shift] if shift else full


class OutcomeRow(NamedTuple):
    """One game as a kernel reports it: the fields of
    :class:`cardshop.simulation.GameOutcome`, in order (the simulation makes the
    objects; a family package stays below the tools)."""

    game: int
    seed: int
    first_player: int | None
    bots: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    rounds: int
    decisions: int
    termination: str
    steps: int
    details: dict[str, int]


RowMaker = Callable[["Outcomes"], list[Any]]
"""A family's reading of its kernel's table: the :class:`OutcomeRow` of every game of
an :class:`Outcomes` (a module-level function, so that the outcomes pickle)."""


TERMINATIONS = ("", "finished", "capped")
"""A game's termination by the code of a kernel's table (1 finished, 2 capped)."""


class Outcomes(Sequence[Any]):
    """Games' outcomes kept as a kernel's arrays; :class:`OutcomeRow` tuples are made
    (by the family's ``rows``) when the sequence is read. It pickles as the arrays (a
    few bytes per game), so a worker process sends its games back cheaply and the
    caller makes the objects. ``match_games`` is the games of a match (0: none), which
    a match's ``details`` count. Made by :meth:`of`."""

    def __init__(
        self,
        players: int,
        bots: Sequence[object],
        start: int,
        rotate: bool,
        table: Any,
        seeds: Any,
        rows: RowMaker,
        match_games: int = 0,
    ) -> None:
        self.players = players
        self.bots = tuple(str(b).strip() for b in bots)
        self.start = start
        self.rotate = rotate
        self.table = table
        self.seeds = seeds
        self.rows = rows
        self.match_games = match_games
        self._made: list[Any] | None = None

    @classmethod
    def of(
        cls,
        variant: VariantBase,
        players: int,
        bots: Sequence[object],
        start: int,
        rotate: bool,
        table: Any,
        seeds: Any,
        rows: RowMaker,
    ) -> Outcomes:
        """The outcomes of games ``start, start + 1, ...`` of ``variant`` at ``players``
        (a match's games counted from the variant's ``match``)."""
        match = variant.match
        games = players * match.games_per_player if match is not None else 0
        return cls(players, bots, start, rotate, table, seeds, rows, games)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_made"] = None
        return state

    def __len__(self) -> int:
        return len(self.seeds)

    def __getitem__(self, index: Any) -> Any:
        return self._objects()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._objects())

    def _objects(self) -> list[Any]:
        if self._made is None:
            self._made = self.rows(self)
        return self._made

    def seated(self) -> Iterator[tuple[int, int, list[int], tuple[str, ...]]]:
        """``(game, seed, table row, each seat's bot)`` of every game, in order."""
        by_shift: dict[int, tuple[str, ...]] = {}
        players = self.players
        for i, (row, game_seed) in enumerate(
            zip(self.table.tolist(), self.seeds.tolist(), strict=True)
        ):
            game = self.start + i
            shift = game % players if self.rotate else 0
            seats = by_shift.get(shift)
            if seats is None:
                seats = by_shift[shift] = seating(self.bots, players, game, self.rotate)
            yield game, game_seed, row, seats


def winners_of(ranks: tuple[int, ...]) -> tuple[int, ...]:
    """The seats of rank 1."""
    return tuple([s for s, r in enumerate(ranks) if r == 1])
