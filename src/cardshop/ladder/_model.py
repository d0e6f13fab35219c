"""The ladder's statistics: Plackett-Luce ratings, the win-rate matrix, bootstrap
intervals over deals and the significant non-transitive cycles.

Needs the ``ladder`` extra (choix, numpy, scipy); imported only when a ladder is fitted.
"""

from __future__ import annotations

import importlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardshop.core.chance import derive_seed
from cardshop.core.errors import CardshopError, SetupError

__all__ = [
    "ELO",
    "INSTALL",
    "VIRTUAL_GAMES",
    "Fit",
    "cycles",
    "fit",
    "need_library",
    "rankings",
    "strengths",
]

INSTALL = 'python -m pip install ".[ladder]" in a clone of cardshop'

ELO = 400 / math.log(10)
"""Rating points per unit of log-strength: a difference of D points means that the
stronger bot finishes ahead of the weaker with the probability 1 / (1 + 10^(-D/400))."""

VIRTUAL_GAMES = 1
"""Regularization: every pair of bots is given this many virtual two-player games won
by each of the two, so that a bot that always wins still has a finite rating."""

Ranking = tuple[int, ...]


def need_library(name: str) -> Any:
    """The module ``name`` of the ``ladder`` extra, or a :class:`SetupError` naming the extra."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise SetupError(
            f"a ladder's ratings need the 'ladder' extra ({name} is not installed): {INSTALL}"
        ) from None


def rankings(
    seats: Sequence[int], ranks: Sequence[int], seed: int, *labels: int | str
) -> list[Ranking]:
    """What one game tells the Plackett-Luce model, as rankings of bots (best first).

    A game whose seats hold different bots is its finishing order. A game in which a
    bot holds several seats enters as the pairwise results of the seats of different
    bots (under Plackett-Luce, the chance that a finishes ahead of b in any game is
    that of a two-player game between them, so each pair is a fair composite
    likelihood term). Seats of equal rank (a tie) are put in a random order, seeded by
    ``seed`` and ``labels``, the same each time the game is read.
    """
    rng = random.Random(derive_seed(seed, "ladder-ties", *labels))
    keys = [(rank, rng.random(), seat) for seat, rank in enumerate(ranks)]
    order = [seats[seat] for _, _, seat in sorted(keys)]
    if len(set(order)) == len(order):
        return [tuple(order)]
    out: list[Ranking] = []
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            if a != b:
                out.append((a, b))
    return out


def _virtual(n: int) -> list[Ranking]:
    pairs: list[Ranking] = []
    for a in range(n):
        for b in range(a + 1, n):
            pairs += [(a, b), (b, a)]
    return pairs * VIRTUAL_GAMES


def strengths(n: int, data: Sequence[Ranking]) -> list[float]:
    """Log-strengths (mean 0) by maximum likelihood, with the virtual games."""
    choix = need_library("choix")
    try:
        params = choix.ilsr_rankings(n, [*data, *_virtual(n)], max_iter=10_000, tol=1e-10)
    except RuntimeError as exc:  # pragma: no cover - the virtual games make it converge
        raise CardshopError(f"the Plackett-Luce fit did not converge: {exc}") from None
    values = [float(x) for x in params]
    mean = sum(values) / n
    return [v - mean for v in values]


@dataclass(frozen=True, slots=True)
class Fit:
    """Ratings and the win-rate matrix with their bootstrap intervals (95%)."""

    ratings: list[float]
    rating_low: list[float]
    rating_high: list[float]
    wins: list[list[float | None]]
    win_low: list[list[float | None]]
    win_high: list[list[float | None]]
    games: list[list[int]]


def fit(
    n: int,
    deals: Sequence[Sequence[tuple[Sequence[int], Sequence[int], tuple[int, ...]]]],
    seed: int,
    resamples: int,
) -> Fit:
    """Fit ``n`` bots from games grouped by deal: each game is (seats, ranks, labels).

    Intervals: ``resamples`` bootstrap resamples of the deals (drawn with replacement,
    seeded by ``seed``), each refitted; the 2.5th and 97.5th percentiles.
    """
    np = need_library("numpy")
    need_library("scipy")
    data = [
        [r for seats, ranks, labels in games for r in rankings(seats, ranks, seed, *labels)]
        for games in deals
    ]
    sums = np.zeros((len(deals), n, n))
    counts = np.zeros((len(deals), n, n))
    for d, games in enumerate(deals):
        for seats, ranks, _ in games:
            present = sorted(set(seats))
            for a in present:
                for b in present:
                    if a == b:
                        continue
                    pairs = [
                        1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
                        for i, x in enumerate(seats)
                        if x == a
                        for j, y in enumerate(seats)
                        if y == b
                    ]
                    sums[d, a, b] += sum(pairs) / len(pairs)
                    counts[d, a, b] += 1
    point = strengths(n, [r for rs in data for r in rs])
    rng = np.random.default_rng(derive_seed(seed, "ladder-bootstrap"))
    boot_ratings = []
    boot_wins = []
    total_count = counts.sum(axis=0)
    for _ in range(resamples):
        picks = rng.integers(0, len(deals), len(deals))
        boot_ratings.append(strengths(n, [r for d in picks for r in data[int(d)]]))
        weight = np.bincount(picks, minlength=len(deals)).astype(float)
        s = np.tensordot(weight, sums, axes=1)
        c = np.tensordot(weight, counts, axes=1)
        boot_wins.append(np.where(c > 0, s / np.where(c > 0, c, 1), 0.0))
    r = np.array(boot_ratings) if resamples else np.array([point])
    m = np.where(total_count > 0, sums.sum(axis=0) / np.where(total_count > 0, total_count, 1), 0.0)
    w = np.array(boot_wins) if resamples else np.array([m])

    def cell(a: int, b: int, value: Any) -> float | None:
        return None if a == b or total_count[a, b] == 0 else float(value)

    w_low, w_high = np.percentile(w, 2.5, axis=0), np.percentile(w, 97.5, axis=0)
    return Fit(
        ratings=[ELO * x for x in point],
        rating_low=[ELO * float(x) for x in np.percentile(r, 2.5, axis=0)],
        rating_high=[ELO * float(x) for x in np.percentile(r, 97.5, axis=0)],
        wins=[[cell(a, b, m[a, b]) for b in range(n)] for a in range(n)],
        win_low=[[cell(a, b, w_low[a, b]) for b in range(n)] for a in range(n)],
        win_high=[[cell(a, b, w_high[a, b]) for b in range(n)] for a in range(n)],
        games=[[int(total_count[a, b]) for b in range(n)] for a in range(n)],
    )


def beats(low: Sequence[Sequence[float | None]], a: int, b: int) -> bool:
    """Whether a finishes ahead of b significantly: the interval of M[a][b] lies above 1/2."""
    value = low[a][b]
    return value is not None and value > 0.5


def cycles(low: Sequence[Sequence[float | None]]) -> list[tuple[int, int, int]]:
    """Every cycle a > b > c > a of significant steps, each once (its smallest bot first)."""
    n = len(low)
    out = []
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(a + 1, n):
                if b != c and beats(low, a, b) and beats(low, b, c) and beats(low, c, a):
                    out.append((a, b, c))
    return out
