"""A rating ladder: any number of bots, paired deals, Plackett-Luce ratings (docs/ladder.md).

::

    from cardshop.ladder import run_ladder
    ladder = run_ladder("klunker-en", ["random", "greedy", "ismcts:10"], deals=20)
    print(ladder.to_text())

The games: with at least as many bots as seats every set of ``players`` bots is a
line-up, otherwise every ordered pair (a, b) of bots with one seat a and the other
seats b. Every line-up plays the same deals (deal d is set up from the same seed in
every line-up, the seed ``simulate`` gives its game d), and each deal once per
rotation of the seats, so every bot of a line-up plays every seat of every deal once.

The model: Plackett-Luce on each game's finishing order, fitted by maximum
likelihood (the ``choix`` library), ratings in Elo-like points with 95% intervals
from a bootstrap over the deals; a win-rate matrix and its significant
non-transitive cycles. Needs the ``ladder`` extra.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from cardshop.core.errors import SetupError
from cardshop.core.frontdoor import resolve
from cardshop.core.game import check_players
from cardshop.core.variant import VariantBase
from cardshop.ladder._model import ELO, VIRTUAL_GAMES, cycles, fit, need_library
from cardshop.ladder._play import (
    MAX_BOTS,
    MAX_DEALS,
    MAX_GAMES,
    MAX_LINEUPS,
    Checkpoint,
    CheckpointError,
    Job,
    LadderGame,
    check_bots,
    check_counts,
    header,
    lineups,
    play,
    read_checkpoint,
    rotated,
)
from cardshop.ladder._result import SCHEMA, LadderError, LadderResult

__all__ = [
    "ELO",
    "MAX_BOTS",
    "MAX_DEALS",
    "MAX_GAMES",
    "MAX_LINEUPS",
    "MAX_RESAMPLES",
    "SCHEMA",
    "VIRTUAL_GAMES",
    "CheckpointError",
    "LadderError",
    "LadderGame",
    "LadderResult",
    "count_games",
    "lineups",
    "rotated",
    "run_ladder",
]

MAX_RESAMPLES = 10_000
"""The most bootstrap resamples."""

for _name in ("CheckpointError", "LadderError", "LadderGame", "LadderResult"):
    globals()[_name].__module__ = __name__  # documented as cardshop.ladder.X
del _name


def _prepare(
    variant: VariantBase | str | Path,
    bots: Sequence[str] | str,
    players: int | None,
    deals: int,
    seed: int,
    engine: str = "auto",
) -> tuple[VariantBase, int, tuple[str, ...], list[tuple[int, ...]]]:
    """The variant, seats, bots and line-ups of a ladder, every argument checked."""
    if engine not in ("auto", "kernel", "reference"):
        raise SetupError(f"engine must be one of auto, kernel, reference, not {engine!r}")
    if engine == "kernel":
        raise SetupError(
            "engine 'kernel' cannot play a ladder: a ladder plays each deal from one seed "
            "once per rotation of the seats, and a kernel numbers its games from a master "
            "seed; use engine 'auto' or 'reference' (the reference engine plays)"
        )
    var = resolve(variant).variant
    count = var.players.min if players is None else check_players(var, players)
    specs = check_bots(var, bots)
    table = lineups(len(specs), count)
    check_counts(deals, seed, len(table), count)
    return var, count, specs, table


def count_games(
    variant: VariantBase | str | Path,
    bots: Sequence[str] | str,
    *,
    players: int | None = None,
    deals: int = 100,
    seed: int = 0,
) -> int:
    """The number of games :func:`run_ladder` plays with these arguments, which are
    checked as it checks them (a :class:`SetupError` says what is wrong)."""
    _, count, _, table = _prepare(variant, bots, players, deals, seed)
    return len(table) * deals * count


def run_ladder(
    variant: VariantBase | str | Path,
    bots: Sequence[str] | str,
    *,
    players: int | None = None,
    deals: int = 100,
    seed: int = 0,
    workers: int | None = None,
    executor: Executor | Any | None = None,
    progress: Callable[[int], None] | None = None,
    checkpoint: Path | str | None = None,
    engine: str = "auto",
    resamples: int = 200,
) -> LadderResult:
    """Rank ``bots`` (2 to 12 specs of :func:`cardshop.bots.make_bot`) on ``variant``.

    ``players``: the seats of every game (default: the variant's smallest count).
    ``deals`` deals are played by every line-up, once per rotation of the seats.
    ``workers``/``executor`` as in :func:`cardshop.simulate` (a Dask client works);
    the results are the same wherever the games run. ``progress(n)`` is called with
    the number of games just finished. ``checkpoint``: a JSON Lines file to which
    every finished deal of a line-up is appended; a rerun with the same arguments
    plays only what it lacks (with more deals, only the new deals), and one with
    other arguments is refused (:class:`CheckpointError`). A stop (Ctrl-C)
    propagates after the workers are stopped; the checkpoint keeps what was played.

    ``engine``: ``"auto"`` or ``"reference"``: the ladder plays every deal from one
    seed for all its rotations, which the families' kernels (numbered games from a
    master seed) do not do, so the reference engine plays; ``"kernel"`` is refused.
    ``resamples``: bootstrap resamples of the deals for the 95% intervals.
    """
    var, count, specs, table = _prepare(variant, bots, players, deals, seed, engine)
    if (
        not isinstance(resamples, int)
        or isinstance(resamples, bool)
        or not 0 <= resamples <= MAX_RESAMPLES
    ):
        raise SetupError(
            f"resamples must be a whole number 0..{MAX_RESAMPLES:,}, not {resamples!r}"
        )
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise SetupError(f"workers must be at least 1, not {workers!r}")
    for module in ("choix", "numpy", "scipy"):  # the fit's, checked before any game
        need_library(module)
    job = Job(var.to_data(), var.content_hash, count, seed, specs, tuple(table))
    head = header(job, var)
    cells: dict[tuple[int, int], list[LadderGame]] = {}
    book: Checkpoint | None = None
    if checkpoint is not None:
        path = Path(checkpoint)
        fresh = not path.exists() or path.stat().st_size == 0
        if not fresh:
            cells = read_checkpoint(path, head, len(table), count, deals)
        book = Checkpoint(path, head, fresh)
    todo = [(i, d) for d in range(deals) for i in range(len(table)) if (i, d) not in cells]
    start = time.perf_counter()

    def done(games: list[LadderGame]) -> None:
        cells[(games[0].lineup, games[0].deal)] = games
        if book is not None:
            book.add(games)
        if progress is not None:
            progress(len(games))

    try:
        if progress is not None and cells:
            progress(sum(len(g) for g in cells.values()))
        play(job, todo, done, workers, executor)
    finally:
        if book is not None:
            book.close()
    games = [g for key in sorted(cells) for g in cells[key]]
    by_deal: list[list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]] = [
        [] for _ in range(deals)
    ]
    for g in sorted(games, key=lambda g: (g.deal, g.lineup, g.rotation)):
        by_deal[g.deal].append((g.seats, g.ranks, (g.lineup, g.deal, g.rotation)))
    model = fit(len(specs), by_deal, seed, resamples)
    return LadderResult(
        family=var.family,
        variant=var.name,
        variant_hash=var.content_hash,
        players=count,
        bots=specs,
        deals=deals,
        seed=seed,
        resamples=resamples,
        lineups=tuple(table),
        played=len(games),
        ratings=model.ratings,
        rating_low=model.rating_low,
        rating_high=model.rating_high,
        wins=model.wins,
        win_low=model.win_low,
        win_high=model.win_high,
        pair_games=model.games,
        cycles=cycles(model.win_low),
        games=sorted(games, key=lambda g: (g.deal, g.lineup, g.rotation)),
        seconds=time.perf_counter() - start,
    )
