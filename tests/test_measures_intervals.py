"""Every printed figure lies inside its printed interval: the audit's measures, their
differences in a comparison, and the tuner's estimates at any level.

The game sets drawn here include nearly fair ones (every position wins about as often),
where balance, a maximum minus a minimum, is estimated with a bias: its resamples
spread the win shares further apart than the games did, so a percentile interval of
resampled balances sat below the figure (an audit printed 0.987 [0.883, 0.983]).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardshop.measures import GameSummary, compare, measure_all
from cardshop.support.stats import wilson
from cardshop.tuning.racing import estimate, report_measures, z_of

pytestmark = pytest.mark.build_independent


@st.composite
def game_sets(draw: st.DrawFn) -> list[GameSummary]:
    """Games of 2..5 players: how many each position wins (nearly equal counts, or any),
    a few shared wins, a first player or none, random lengths, scores and decisions."""
    n = draw(st.integers(2, 5))
    has_first = draw(st.booleans())
    if draw(st.booleans()):
        base = draw(st.integers(0, 80))
        wins = [base + draw(st.integers(0, 3)) for _ in range(n)]
    else:
        wins = [draw(st.integers(0, 60)) for _ in range(n)]
    shared = draw(st.integers(0, 4))
    if sum(wins) + shared == 0:
        wins[0] = 1
    outcomes = [(k,) for k in range(n) for _ in range(wins[k])] + [(0, 1)] * shared
    order = draw(st.permutations(range(len(outcomes))))
    rng = draw(st.randoms(use_true_random=False))
    games = []
    for i, index in enumerate(order):
        positions = outcomes[index]
        first = i % n if has_first else None
        seats = tuple(sorted((p + (first or 0)) % n for p in positions))
        scores = tuple(10 if s in seats else rng.randrange(10) for s in range(n))
        ranks = tuple(1 if s in seats else 1 + sum(x > scores[s] for x in scores) for s in range(n))
        legal = tuple(rng.choice((1, 1, 2, 3, 5)) for _ in range(rng.randrange(1, 6)))
        games.append(
            GameSummary(
                players=n,
                bots=("random",) * n,
                scores=scores,
                ranks=ranks,
                winners=seats,
                termination="capped" if rng.random() < 0.1 else "finished",
                rounds=rng.randrange(1, 30),
                steps=len(legal),
                legal=legal,
                round_scores=(scores,),
                first_player=first,
            )
        )
    return games


def _inside(value: float, low: float | None, high: float | None) -> bool:
    return low is None or high is None or low <= value <= high


@given(game_sets(), st.integers(0, 2**32))
def test_every_measure_lies_inside_its_interval(games: list[GameSummary], seed: int) -> None:
    for key, m in measure_all(games, seed=seed).items():
        assert _inside(m.value, m.low, m.high), (key, m.text(), m.value, m.low, m.high)


@given(game_sets(), st.integers(0, 3))
def test_every_difference_lies_inside_its_interval(games: list[GameSummary], cut: int) -> None:
    """Two sets of the same player count (the games split in two)."""
    half = max(1, len(games) // (2 + cut))
    a, b = games[:half], games[half:] or games[:half]
    for key, d in compare(measure_all(a), measure_all(b)).items():
        assert _inside(d.difference, d.low, d.high), (key, d.text(), d.low, d.high)


@given(game_sets(), st.sampled_from([0.5, 0.95, 0.999]))
def test_the_tuners_estimates_lie_inside_their_intervals(
    games: list[GameSummary], level: float
) -> None:
    z = z_of(level)
    for key in [*measure_all(games), "win_share_0", "skill_gap_win_rate"]:
        e = estimate(key, games, z)
        if e is not None:
            assert _inside(e.value, e.low, e.high), (key, level, e)
    for key, m in report_measures(["balance"], games).items():
        assert _inside(m.value, m.low, m.high), (key, m.text())


def test_a_share_of_none_or_all_lies_inside_its_wilson_interval() -> None:
    for trials in range(1, 400):
        for successes in (0, trials):
            iv = wilson(successes, trials)
            assert iv.low <= successes / trials <= iv.high, (successes, trials, iv)
