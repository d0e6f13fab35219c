"""The win-rate matrix objective: how often each bot beats each other bot.

A spec's objective ``{measure: win_rate_matrix, bots: [b0, b1, ...], target: T}``
(docs/tuning.md, "A target win-rate matrix") asks for a matrix of win rates between
bots of graded strength, as the balancing competitions of general game frameworks
score a variant. ``M[i][j]`` is the win share of **one seat** of ``bots[i]`` against
the other seats, all played by ``bots[j]`` (a tie shares the win among the tied):

* the *line-up* ``(i, j)`` is played by :func:`cardshop.simulate` with the bots
  ``[bots[i], bots[j], ..., bots[j]]`` and ``rotate=True``, so that in game ``g`` the
  lone seat is seat ``g % n``: over every ``n`` games it plays every seat once;
* every line-up of a batch is played on the same seed as the batch's other games, so
  game ``g`` of every line-up is the same deal (paired deals: the matrix's entries
  differ by the bots, not by the cards);
* entries of ``T`` that are ``null`` (the diagonal, typically) are not targeted, and
  their line-ups are not played.

The objective's value is the **mean absolute deviation** of the measured entries from
the target over the targeted entries, ``D = mean |M[i][j] - T[i][j]|``, in units of a
share (0.05 is five points on average). Its interval is the normal interval of the
deal-wise mean: with the signs ``s_ij`` of the measured deviations held fixed, ``D``
is the mean over deals ``g`` of ``d_g = mean_ij s_ij (x_ijg - T_ij)`` (``x_ijg`` the
lone seat's win share in game ``g`` of line-up ``(i, j)``), and the standard error of
that mean takes the pairing of the deals into account. An entry whose true value is
its target still adds its noise to ``D`` (about 0.8 standard errors of the entry), so
a tolerance of a few points is the way to say "near enough". Racing and the targets
use ``D`` as a measure with target 0 and the objective's tolerance.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from cardshop.measures import GameSummary, Measure
from cardshop.support.stats import wilson
from cardshop.tuning.racing import Estimate, z_of

__all__ = [
    "MATRIX",
    "MAX_BOTS",
    "Lineup",
    "deviation",
    "lone_shares",
    "matrix_data",
    "matrix_measure",
    "measured_matrix",
    "targeted",
]

MATRIX = "win_rate_matrix"
"""The measure id of the win-rate matrix objective."""
MAX_BOTS = 6
"""Most bots of a matrix (a matrix of 6 bots plays 30 line-ups per batch)."""

Lineup = tuple[int, int, int, int]
"""A line-up's games as a candidate keeps them: (objective, players, i, j)."""


def targeted(target: Sequence[Sequence[float | int | None]]) -> list[tuple[int, int]]:
    """The entries ``(i, j)`` of a target matrix that are not null: the line-ups played."""
    return [(i, j) for i, row in enumerate(target) for j, t in enumerate(row) if t is not None]


def lineup_bots(bots: Sequence[str], i: int, j: int, players: int) -> list[str]:
    """The seats' bots of line-up ``(i, j)`` before rotation: one ``bots[i]``, then ``bots[j]``."""
    return [bots[i]] + [bots[j]] * (players - 1)


def lone_shares(games: Sequence[GameSummary]) -> list[float]:
    """The lone seat's win share in each game of a line-up (game ``g``: seat ``g % n``)."""
    out = []
    for g, s in enumerate(games):
        seat = g % s.players
        out.append(1 / len(s.winners) if seat in s.winners else 0.0)
    return out


def _entry(games: Sequence[GameSummary], z: float) -> Estimate | None:
    x = lone_shares(games)
    if not x:
        return None
    iv = wilson(min(math.fsum(x), len(x)), len(x), z)
    return Estimate(iv.estimate, iv.low, iv.high)


def measured_matrix(
    games: Mapping[tuple[int, int], Sequence[GameSummary]], size: int, z: float
) -> list[list[Estimate | None]]:
    """Each entry's win share with its Wilson interval (None: not played)."""
    return [[_entry(games.get((i, j), ()), z) for j in range(size)] for i in range(size)]


def deviation(
    games: Mapping[tuple[int, int], Sequence[GameSummary]],
    target: Sequence[Sequence[float | int | None]],
    z: float,
) -> Estimate | None:
    """The mean absolute deviation from ``target`` with its paired-deal interval of
    quantile ``z`` (None: a targeted line-up has no games)."""
    cells = targeted(target)
    shares = [lone_shares(games.get(cell, ())) for cell in cells]
    if not cells or any(not x for x in shares):
        return None
    deals = min(len(x) for x in shares)
    shares = [x[:deals] for x in shares]
    goals = [float(target[i][j] or 0.0) for i, j in cells]
    means = [math.fsum(x) / deals for x in shares]
    signs = [1.0 if m >= t else -1.0 for m, t in zip(means, goals, strict=True)]
    value = math.fsum(abs(m - t) for m, t in zip(means, goals, strict=True)) / len(cells)
    if deals < 2:
        return Estimate(value, None, None)
    per_deal = [
        math.fsum(s * (x[g] - t) for s, x, t in zip(signs, shares, goals, strict=True)) / len(cells)
        for g in range(deals)
    ]
    mean = math.fsum(per_deal) / deals
    var = math.fsum((d - mean) ** 2 for d in per_deal) / (deals - 1)
    half = z * math.sqrt(var / deals)
    return Estimate(value, max(0.0, value - half), value + half)


LABEL = "win-rate matrix: mean |measured - target|"
MEANING = (
    "The mean absolute deviation of the bots' win-rate matrix (one seat of the row's "
    "bot against the column's bot in every other seat) from the target's entries."
)


def matrix_measure(
    games: Mapping[tuple[int, int], Sequence[GameSummary]],
    target: Sequence[Sequence[float | int | None]],
) -> Measure | None:
    """The deviation as a report measure, with its 95% interval."""
    e = deviation(games, target, z_of(0.95))
    if e is None:
        return None
    return Measure(MATRIX, LABEL, e.value, e.low, e.high, "share", MEANING, "normal")


def matrix_data(
    games: Mapping[tuple[int, int], Sequence[GameSummary]],
    bots: Sequence[str],
    target: Sequence[Sequence[float | int | None]],
) -> dict[str, Any]:
    """JSON-ready: the bots, the target, the measured matrix with 95% intervals (null
    where untargeted), the games per line-up and the deviation."""
    z = z_of(0.95)
    played = [
        [e if target[i][j] is not None else None for j, e in enumerate(row)]
        for i, row in enumerate(measured_matrix(games, len(bots), z))
    ]
    dev = deviation(games, target, z)
    return {
        "bots": list(bots),
        "target": [list(row) for row in target],
        "measured": [[_figures(e) for e in row] for row in played],
        "games_per_lineup": min((len(v) for v in games.values()), default=0),
        "deviation": _figures(dev),
    }


def _figures(e: Estimate | None) -> dict[str, float | None] | None:
    if e is None:
        return None

    def r(x: float | None) -> float | None:
        return None if x is None else round(x, 6)

    return {"value": r(e.value), "low": r(e.low), "high": r(e.high)}


def matrix_text(data: Mapping[str, Any], indent: str = "") -> list[str]:
    """The target and the measured matrix side by side, one line per row bot."""
    bots = list(data["bots"])
    width = max(8, *(len(b) for b in bots))
    head = f"{indent}{'':<{width}}  " + " ".join(f"{b:>{width}}" for b in bots)
    lines = [
        f"{indent}entries target|measured: one seat of the row's bot against the column's bot",
        head,
    ]
    for i, bot in enumerate(bots):
        cells = []
        for j in range(len(bots)):
            t = data["target"][i][j]
            m = data["measured"][i][j]
            if t is None:
                cells.append(f"{'-':>{width}}")
            elif m is None:
                cells.append(f"{t:.2f}|?".rjust(width))
            else:
                cells.append(f"{t:.2f}|{m['value']:.2f}".rjust(width))
        lines.append(f"{indent}{bot:<{width}}  " + " ".join(cells))
    dev = data.get("deviation")
    if dev is not None:
        low, high = dev["low"], dev["high"]
        band = "" if low is None or high is None else f" [{low:.3f}, {high:.3f}]"
        lines.append(
            f"{indent}mean |measured - target| {dev['value']:.3f}{band} over "
            f"{data['games_per_lineup']:,} games per line-up"
        )
    return lines
