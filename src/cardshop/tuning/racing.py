"""Racing: play a candidate in batches, and drop it once it cannot beat the best.

Every objective is a *loss* to make small: for a target, the distance of ``m`` from
it beyond the tolerance (0 anywhere inside ``target +- tolerance``: every value there is
good enough, and the other objectives decide); ``m`` to minimize, ``-m`` to maximize;
``m`` being a measure's true value on the candidate (its worst player count when there
are several). After each batch the candidate's
measures get intervals of level ``1 - a`` with ``a = alpha / (K * M)``: ``K`` the most
batches a candidate plays, ``M`` the number of (objective, player count) pairs. A lower
bound of each loss follows (the distance from the target to the interval, ...), and
the candidate is **dropped** when, for some candidate of the Pareto front so far (one
objective: the best so far), every objective's lower bound is at least that candidate's
loss, and one is above it.

The error rate: an interval of level ``1 - a`` misses the true value with probability
at most ``a`` (asymptotically), and the loss's lower bound can exceed the true loss
only when the interval misses. A candidate that is in truth better than a front
candidate in some objective, or as good in all, can then be dropped only through such
a miss, at one of
at most ``K * M`` looks: its chance of a **false drop is at most alpha** (Bonferroni
over the looks; the front's losses are taken as measured, from the games they were
played). A candidate much worse than the front is dropped after its first batch or
two. tests/test_tune.py checks both on synthetic games.

Per-game figures: the measures of :func:`cardshop.measures.measure_all` that are
shares or means over games (win shares, first-player advantage, ties, completion,
rounds, lead changes, the skill gap, ...) are computed here from running sums, so a
look costs little; their 95% intervals equal the audit's (the Wilson interval for
shares, the normal interval for means). Balance, branching and forced decisions are
taken from :func:`~cardshop.measures.measure_all` itself (a bootstrap band, or a
cluster-robust ratio), at the level asked. The luck measures (games played with
replayed deals) are :func:`cardshop.measures.luck`'s, their interval the percentile
interval of its bootstrap over deals at the level asked; every other measure is taken
over the first game of each deal only (``replay`` 0), as in an audit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from cardshop.measures import (
    LUCK_MEASURES,
    GameSummary,
    Measure,
    balance_interval,
    bot_groups,
    decisive_point,
    lead_changes,
    luck,
    margin,
    measure_all,
    percentile_interval,
    worst_deficit,
)
from cardshop.support.stats import wilson

__all__ = ["Estimate", "Goal", "Race", "estimate", "loss", "loss_lower_bound", "z_of"]


@dataclass(frozen=True, slots=True)
class Estimate:
    """A measure's value with an interval at some level (``low``/``high`` None: none)."""

    value: float
    low: float | None
    high: float | None

    @property
    def half_width(self) -> float:
        if self.low is None or self.high is None:
            return math.inf
        return (self.high - self.low) / 2


def z_of(level: float) -> float:
    """The normal quantile of a two-sided interval of ``level`` (0.95 -> 1.96)."""
    return NormalDist().inv_cdf(1 - (1 - level) / 2)


def _share(successes: float, trials: float, z: float, offset: float = 0.0) -> Estimate | None:
    if trials <= 0:
        return None
    iv = wilson(min(successes, trials), round(trials), z)
    return Estimate(iv.estimate - offset, iv.low - offset, iv.high - offset)


def _mean(values: Sequence[float], z: float) -> Estimate | None:
    n = len(values)
    if n == 0:
        return None
    mean = math.fsum(values) / n
    if n < 2:
        return Estimate(mean, None, None)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return Estimate(mean, mean - half, mean + half)


def _position_share(s: GameSummary, position: int) -> float:
    return sum(1 / len(s.winners) for w in s.winners if s.position(w) == position)


def _from_measure(m: Measure, z: float) -> Estimate:
    """An estimate at another level from an audit measure's own interval data."""
    if m.method == "bootstrap" and m.replicates:
        level = 2 * NormalDist().cdf(z) - 1 if math.isfinite(z) else 1.0
        return Estimate(m.value, *balance_interval(m.value, m.replicates, level))
    if m.method in ("normal", "ratio") and math.isfinite(m.se):
        return Estimate(m.value, m.value - z * m.se, m.value + z * m.se)
    return Estimate(m.value, m.low, m.high)


def estimate(
    measure: str, summaries: Sequence[GameSummary], z: float, *, seed: int = 0
) -> Estimate | None:
    """``measure`` of games of one player count with an interval of quantile ``z``
    (None: the measure does not apply to these games)."""
    if not summaries:
        return None
    if measure in LUCK_MEASURES:
        found = luck(summaries, seed=seed).get(measure)
        if found is None or found.low is None or not found.replicates:
            return None  # no replayed deal, or every replay alike: no estimate
        level = 2 * NormalDist().cdf(z) - 1 if math.isfinite(z) else 1.0
        return Estimate(found.value, *percentile_interval(found.replicates, level))
    summaries = [s for s in summaries if s.replay == 0]  # replays count for luck only
    if not summaries:
        return None
    n = summaries[0].players
    games = len(summaries)
    if measure == "first_player_advantage":
        if any(s.first_player is None for s in summaries):
            return None
        return _share(sum(_position_share(s, 0) for s in summaries), games, z, 1 / n)
    if measure.startswith("win_share_"):
        p = int(measure.rsplit("_", 1)[1])
        return _share(sum(_position_share(s, p) for s in summaries), games, z) if p < n else None
    if measure in ("skill_gap_win_rate", "skill_gap_score"):
        return _skill(measure, summaries, z)
    if measure == "ties":
        return _share(sum(len(s.winners) > 1 for s in summaries), games, z)
    if measure in ("completion", "capped"):
        capped = sum(s.capped for s in summaries)
        return _share(games - capped if measure == "completion" else capped, games, z)
    if measure == "rounds":
        return _mean([s.rounds for s in summaries], z)
    if measure == "decisions":
        return _mean([s.decisions for s in summaries], z)
    if measure == "ticks":
        if any(s.ticks is None for s in summaries):
            return None
        return _mean([float(s.ticks or 0) for s in summaries], z)
    if measure == "score_spread":
        return _mean([max(s.scores) - min(s.scores) for s in summaries], z)
    if measure == "winning_margin":
        return _mean([margin(s) for s in summaries], z) if n > 1 else None
    tracked = [s for s in summaries if s.round_scores]
    if measure == "lead_changes":
        return _mean([lead_changes(s) for s in tracked], z)
    if measure == "drama":
        return _share(sum(worst_deficit(s) > 0 for s in tracked), len(tracked), z)
    if measure == "drama_depth":
        return _mean([d for d in map(worst_deficit, tracked) if d > 0], z)
    if measure == "decisiveness":
        return _mean([d for d in map(decisive_point, tracked) if d is not None], z)
    found = measure_all(summaries, seed=seed).get(measure)
    return None if found is None else _from_measure(found, z)


def _skill(measure: str, summaries: Sequence[GameSummary], z: float) -> Estimate | None:
    groups = bot_groups(summaries)
    if groups is None:
        return None
    strong, weak = groups
    bots = summaries[0].bots
    strong_seats = [s for s in range(len(bots)) if bots[s] == strong]
    weak_seats = [s for s in range(len(bots)) if bots[s] in weak]
    if measure == "skill_gap_win_rate":
        wins = sum(1 / len(g.winners) for g in summaries for w in g.winners if w in strong_seats)
        return _share(wins, len(summaries) * len(strong_seats), z)
    diffs = [
        math.fsum(g.scores[s] for s in strong_seats) / len(strong_seats)
        - math.fsum(g.scores[s] for s in weak_seats) / len(weak_seats)
        for g in summaries
    ]
    return _mean(diffs, z)


# --------------------------------------------------------------------- losses


Goal = tuple[float | None, str | None, float]
"""An objective as the statistics see it: ``(target, direction, tolerance)``."""


def loss(value: float, goal: Goal) -> float:
    """The loss of a measured value: its distance to the target beyond the tolerance
    (0 inside it), or the value signed by the direction."""
    target, direction, tolerance = goal
    if target is not None:
        return max(0.0, abs(value - target) - tolerance)
    return -value if direction == "maximize" else value


def loss_lower_bound(e: Estimate, goal: Goal) -> float:
    """The least loss the interval of ``e`` allows (``-inf`` without an interval)."""
    target, direction, tolerance = goal
    if e.low is None or e.high is None:
        return -math.inf
    if target is not None:
        if e.low <= target <= e.high:
            return 0.0
        return max(0.0, min(abs(e.low - target), abs(e.high - target)) - tolerance)
    return -e.high if direction == "maximize" else e.low


@dataclass(frozen=True, slots=True)
class Race:
    """The sequential test of the module docstring: ``looks`` batches at most,
    ``pairs`` (objective, player count) intervals at each."""

    alpha: float
    looks: int
    pairs: int

    @property
    def z(self) -> float:
        """The quantile of each look's intervals (level ``1 - alpha / (looks * pairs)``)."""
        return z_of(1 - self.alpha / (self.looks * self.pairs))

    @staticmethod
    def dominated(lower: Sequence[float], front: Sequence[Sequence[float]]) -> bool:
        """Whether some front member's losses are at most these lower bounds, and below
        one of them: the candidate is then worse in truth, unless an interval missed."""
        return any(
            all(lo >= f for lo, f in zip(lower, member, strict=True))
            and any(lo > f for lo, f in zip(lower, member, strict=True))
            for member in front
        )

    def drop(
        self,
        estimates: Mapping[tuple[int, int], Estimate],
        goals: Sequence[Goal],
        counts: Sequence[int],
        front: Sequence[Sequence[float]],
    ) -> bool:
        """Whether to drop a candidate: ``estimates[(objective, players)]`` at :attr:`z`."""
        lower = [
            max(
                loss_lower_bound(estimates[(j, n)], goal) if (j, n) in estimates else -math.inf
                for n in counts
            )
            for j, goal in enumerate(goals)
        ]
        return self.dominated(lower, front)


CONTEXT = ("first_player_advantage", "completion", "rounds", "ties", "score_spread")
"""Measures every report shows beside the objectives (when they apply)."""


def report_measures(
    ids: Sequence[str], summaries: Sequence[GameSummary], *, seed: int = 0
) -> dict[str, Measure]:
    """The measures ``ids`` (and :data:`CONTEXT`, and the win shares) of games of one
    player count, with the audit's 95% intervals.

    Labels, units and meanings are the audit's (:func:`cardshop.measures.measure_all`
    on the first games); the values and intervals are :func:`estimate`'s over all of
    them, which equal the audit's without its cost per game (its bootstrap of balance).
    """
    if not summaries:
        return {}
    n = summaries[0].players
    wanted = list(dict.fromkeys([*ids, *CONTEXT, *(f"win_share_{p}" for p in range(n))]))
    labels = measure_all(summaries[:100], seed=seed)
    lucky = luck(summaries, seed=seed) if any(k in LUCK_MEASURES for k in wanted) else {}
    z = z_of(0.95)
    out = {}
    for key in wanted:
        if key in LUCK_MEASURES:  # the audit's figure over every game (a bootstrap)
            if key in lucky:
                out[key] = lucky[key]
            continue
        meta = labels.get(key)
        e = estimate(key, summaries, z, seed=seed)
        if meta is None or e is None:
            continue
        out[key] = Measure(
            key, meta.label, e.value, e.low, e.high, meta.unit, meta.meaning, meta.method
        )
    return out
