"""The luck measure: replayed deals, the variance decomposition, audits and tuning.

A planted case: two variants of the tiny test family, one where the deal decides
(the cards are worth powers of two, and a game ends after one step: the secret cards
dealt decide) and one where it cannot matter (every card is worth 1: only how many
cards a seat takes counts, which is the bots' choice).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import tinyfamily
from cardshop.audit import AuditReport, report_schema, run_audit
from cardshop.audit.errors import AuditError
from cardshop.core.actions import Action
from cardshop.core.errors import SetupError
from cardshop.core.loader import variant_from_data
from cardshop.core.variant import VariantBase
from cardshop.measures import (
    IDENTICAL_REPLAYS,
    compare,
    decompose,
    dump_games,
    luck,
    luck_interval,
    measure_all,
    outcome_summaries,
)
from cardshop.simulation import bot_seed, game_seed, simulate
from cardshop.tuning.racing import estimate, z_of
from cardshop.tuning.spec import TuneError, load_spec
from dask_support import DASK, loopback_cluster

LUCKY = {
    "family": "tinymarket",
    "name": "tiny-lucky",
    "title": "Tiny market: the deal decides",
    "players": {"min": 2, "max": 4},
    "dynamics": "sequential",
    "cards": [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
    "market": 1,
    "step_cap": 1,
}
CHOSEN = {
    "family": "tinymarket",
    "name": "tiny-chosen",
    "title": "Tiny market: every card alike",
    "players": {"min": 2, "max": 4},
    "dynamics": "sequential",
    "cards": [1] * 12,
    "market": 3,
}


@pytest.fixture(autouse=True)
def _tiny() -> None:
    tinyfamily.register()


def _variant(data: dict[str, Any]) -> VariantBase:
    return variant_from_data(data)


# ------------------------------------------------------------ the decomposition


def _synthetic(
    rng: random.Random, deals: int, replays: int, seats: int, between: float, within: float
) -> list[list[list[float]]]:
    out = []
    for _ in range(deals):
        means = [rng.gauss(0, between**0.5) for _ in range(seats)]
        out.append([[m + rng.gauss(0, within**0.5) for m in means] for _ in range(replays)])
    return out


@pytest.mark.parametrize(("between", "within"), [(1.0, 3.0), (3.0, 1.0), (1.0, 1.0)])
def test_the_interval_holds_the_known_share_of_synthetic_data(
    between: float, within: float
) -> None:
    truth = between / (between + within)
    rng = random.Random(11)
    groups = _synthetic(rng, 150, 4, 3, between, within)
    found, shares, interval = luck_interval(groups, seed=3)
    assert interval is not None
    assert interval[0] <= truth <= interval[1]
    assert found.share is not None
    assert abs(found.share - truth) < 0.1
    assert len(shares) == 1000
    assert list(shares) == sorted(shares)


def test_the_interval_covers_the_truth_in_most_data_sets() -> None:
    truth = 0.25
    held = 0
    for k in range(20):
        groups = _synthetic(random.Random(100 + k), 60, 3, 2, 1.0, 3.0)
        _, _, interval = luck_interval(groups, seed=k, resamples=300)
        assert interval is not None
        held += interval[0] <= truth <= interval[1]
    assert held >= 16  # a 95% interval: 19 of 20 expected, 16 or fewer has chance < 2%


def test_the_decomposition_is_the_anova_estimate_and_clipped() -> None:
    # Two deals, two replays, one seat: means 1 and 3, the replays 1 apart.
    found = decompose([[[0.5], [1.5]], [[2.5], [3.5]]])
    # MSB = 2 * ((1 - 2)^2 + (3 - 2)^2) / 1 = 4; MSW = 4 * 0.25 / 2 = 0.5
    assert found.share == pytest.approx((4 - 0.5) / (4 + 0.5))
    assert found.between == pytest.approx((4 - 0.5) / 2)
    assert found.within == pytest.approx(0.5)
    # Deal means closer than the replays' spread allows: clipped to 0.
    assert decompose([[[0.0], [2.0]], [[0.1], [2.1]]]).share == 0.0
    # One deal, or no deal played twice: not defined.
    assert decompose([[[0.0], [1.0]]]).share is None
    assert decompose([[[0.0]], [[1.0]]]).share is None
    # Every replay alike: the deal explains everything, and the replays were identical.
    alike = decompose([[[1.0], [1.0]], [[2.0], [2.0]]])
    assert alike.share == 1.0
    assert alike.identical


# ---------------------------------------------------------------- replaying


def test_simulate_without_repeats_plays_the_games_of_before() -> None:
    sim = simulate("klunker-en", 3, 6, bots=["random"], seed=5, workers=1)
    replayed = simulate("klunker-en", 3, 6, bots=["random"], seed=5, workers=1, repeats=1)
    assert sim.outcomes == replayed.outcomes
    assert [o.seed for o in sim] == [game_seed(5, i) for i in range(6)]
    # Replay 0 of each deal is the game of that number without replays.
    three = simulate("klunker-en", 3, 12, bots=["random"], seed=5, workers=1, repeats=2)
    firsts = [o for o in three if o.game % 2 == 0]
    assert [o.scores for o in firsts] == [o.scores for o in sim]
    assert [o.seed for o in three] == [game_seed(5, i // 2) for i in range(12)]
    assert bot_seed(5, 1, 0) == bot_seed(5, 1, 0, 0) != bot_seed(5, 1, 0, 1)


def test_replays_share_the_deal_and_differ_by_the_bots_choices() -> None:
    sim = simulate(_variant(LUCKY), 3, 40, bots="random", seed=2, workers=1, repeats=4)
    assert sim.engine == "reference"
    assert sim.repeats == 4
    by_deal: dict[int, set[tuple[int, ...]]] = {}
    for o in sim:
        by_deal.setdefault(o.seed, set()).add(o.scores)
    assert len(by_deal) == 10
    assert any(len(scores) > 1 for scores in by_deal.values())


def test_replays_on_processes_are_the_games_played_here() -> None:
    here = simulate("klunker-en", 3, 8, bots="random", seed=1, workers=1, repeats=2)
    pool = simulate("klunker-en", 3, 8, bots="random", seed=1, workers=2, repeats=2)
    assert here.outcomes == pool.outcomes


@DASK
def test_replays_on_a_dask_cluster_are_the_games_played_here() -> None:
    bots = ["greedy", "random", "random"]
    here = simulate("klunker-en", 3, 8, bots=bots, seed=2, workers=1, repeats=2, rotate=True)
    with loopback_cluster() as (_cluster, client):
        there = simulate(
            "klunker-en", 3, 8, bots=bots, seed=2, executor=client, repeats=2, rotate=True
        )
    assert there.outcomes == here.outcomes
    # With rotation, the seats turn per deal: every replay of a deal has the same seats.
    seats = [o.bots for o in here]
    assert seats[::2] == seats[1::2]
    assert len(set(seats)) == 3


def test_the_kernel_cannot_replay_deals_and_auto_bypasses_it() -> None:
    auto = simulate("klunker-en", 3, 600, bots="random", seed=1, workers=1, repeats=2)
    assert auto.engine == "reference"
    assert "replayed deals" in auto.engine_note

    with pytest.raises(SetupError, match="cannot replay deals"):
        simulate("klunker-en", 3, 4, bots="random", engine="kernel", repeats=2)
    for bad in (0, 101, True, 1.5):
        with pytest.raises(SetupError, match=r"repeats must be a whole number 1\.\.100"):
            simulate("klunker-en", 3, 4, bots="random", repeats=bad)  # type: ignore[arg-type]


# ------------------------------------------------------------ the planted case


def _planted(data: dict[str, Any]) -> dict[str, Any]:
    sim = simulate(_variant(data), 3, 400, bots="random", seed=7, workers=1, repeats=4)
    return luck(outcome_summaries(sim), seed=7)


def test_the_planted_luck_is_told_from_the_planted_choice() -> None:
    lucky, chosen = _planted(LUCKY), _planted(CHOSEN)
    for key in ("luck", "luck_score"):
        a, b = lucky[key], chosen[key]
        assert a.low is not None
        assert a.high is not None
        assert b.low is not None
        assert b.high is not None
        assert a.value > 0.7
        assert b.value < 0.1
        assert a.low > b.high  # the intervals do not overlap
        assert a.low <= a.value <= a.high
        assert b.low <= b.value <= b.high
    difference = compare({"luck": chosen["luck"]}, {"luck": lucky["luck"]})["luck"]
    assert difference.significant
    assert difference.low is not None
    assert difference.low > 0.5


def _first(variant: VariantBase, seed: int) -> Any:
    class First:
        name = "first"

        def choose(self, observation: Any, legal: Any) -> Action:
            first: Action = legal[0]
            return first

    return First()


def test_deterministic_bots_make_identical_replays_and_the_measure_says_so() -> None:
    sim = simulate(_variant(CHOSEN), 3, 20, bots=[_first], seed=1, workers=1, repeats=3)
    found = luck(outcome_summaries(sim))
    assert set(found) == {"luck", "luck_score"}
    for m in found.values():
        assert m.meaning == IDENTICAL_REPLAYS
        assert m.low is None
        assert m.high is None
    z = z_of(0.95)
    assert estimate("luck", outcome_summaries(sim), z) is None


def test_without_replays_there_is_no_luck_measure_and_replays_change_no_other() -> None:
    sim = simulate(_variant(CHOSEN), 3, 30, bots="random", seed=4, workers=1)
    plain = measure_all(outcome_summaries(sim))
    assert "luck" not in plain
    assert "luck_score" not in plain
    replayed = simulate(_variant(CHOSEN), 3, 90, bots="random", seed=4, workers=1, repeats=3)
    with_luck = measure_all(outcome_summaries(replayed))
    assert "luck" in with_luck
    assert list(with_luck)[-2:] == ["luck", "luck_score"]
    assert {k: m for k, m in with_luck.items() if not k.startswith("luck")} == plain


# --------------------------------------------------------------------- audits


def test_an_audit_with_replays_adds_luck_and_keeps_every_other_figure(tmp_path: Path) -> None:
    options: dict[str, Any] = {"games": 12, "players": [3], "examples": 0, "workers": 1}
    plain = run_audit(_variant(LUCKY), **options)
    report = run_audit(_variant(LUCKY), replays=3, **options)
    (a,), (b,) = plain.player_counts, report.player_counts
    assert b.games == a.games == 12
    assert len(b.summaries) == 36
    assert "luck" in b.measures
    assert "luck" not in a.measures
    assert {k: m for k, m in b.measures.items() if not k.startswith("luck")} == dict(a.measures)
    assert b.charts == a.charts
    data = report.to_dict()
    import jsonschema  # type: ignore[import-untyped]

    jsonschema.validate(data, report_schema())
    assert data["variants"][0]["replays"] == 3
    assert "--replays 3" in report.command()
    assert "Replays: each simulated game's deal was played 3 times" in report.to_text()
    assert "Luck: the deal's share (wins)" in report.to_markdown()
    # The saved games carry the replays: the report comes back from them.
    from cardshop.audit import report_from_games

    saved = tmp_path / "games.jsonl"
    saved.write_text(dump_games([report.games_section()]))
    again = report_from_games(saved)
    assert isinstance(again, AuditReport)
    (c,) = again.player_counts
    assert c.measures == b.measures
    assert again.replays == 3
    # A file without replays is written as before (no replay key).
    assert '"replay"' not in dump_games([plain.games_section()])


def test_an_audit_refuses_bad_replays() -> None:
    for bad in (0, 101):
        with pytest.raises(AuditError, match=r"replays must be a whole number 1\.\.100"):
            run_audit("klunker-en", games=2, examples=0, replays=bad)
    with pytest.raises(AuditError, match="replays and precision"):
        run_audit("klunker-en", games=2, examples=0, replays=2, precision=0.1)


def test_the_audit_command_with_replays_in_a_subprocess(tmp_path: Path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "cardshop",
            "audit",
            "klunker-en",
            "--games",
            "6",
            "--players",
            "3",
            "--examples",
            "0",
            "--workers",
            "1",
            "--replays",
            "2",
            "--json",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    (count,) = data["variants"][0]["player_counts"]
    assert count["games"] == 6
    assert {"luck", "luck_score"} <= set(count["measures"])
    assert data["variants"][0]["replays"] == 2
    bad = subprocess.run(
        [sys.executable, "-m", "cardshop", "audit", "klunker-en", "--replays", "0"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert bad.returncode == 2
    assert "replays must be a whole number 1..100" in bad.stderr


# --------------------------------------------------------------------- tuning


def _spec(**more: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "base": "klunker-en",
        "knobs": [{"path": "hand_size", "low": 3, "high": 6}],
        "objectives": [{"measure": "luck", "direction": "minimize"}],
        "players": [3],
        "budget": {"batch": 40, "batches": 1, "games": 400},
    }
    spec.update(more)
    return spec


def test_the_tune_spec_takes_luck_with_replays_and_says_what_is_wrong() -> None:
    loaded = load_spec(_spec(replays=4))
    assert loaded.spec.replays == 4
    assert not loaded.needs_trace
    with pytest.raises(TuneError, match="give replays: 2 or more"):
        load_spec(_spec())
    with pytest.raises(TuneError, match="no objective is one of them"):
        load_spec(_spec(replays=2, objectives=[{"measure": "rounds", "direction": "minimize"}]))
    with pytest.raises(TuneError, match="multiple of replays"):
        load_spec(_spec(replays=3))
    with pytest.raises(TuneError, match="replays"):
        load_spec(_spec(replays=0))


def test_racing_estimates_luck_at_other_levels_and_other_measures_on_first_games() -> None:
    sim = simulate(_variant(LUCKY), 3, 120, bots="random", seed=3, workers=1, repeats=4)
    games = outcome_summaries(sim)
    wide, narrow = estimate("luck", games, z_of(0.999)), estimate("luck", games, z_of(0.9))
    assert wide is not None
    assert narrow is not None
    assert wide.low is not None
    assert narrow.low is not None
    assert wide.high is not None
    assert narrow.high is not None
    assert wide.low <= narrow.low <= narrow.value <= narrow.high <= wide.high
    firsts = [g for g in games if g.replay == 0]
    assert estimate("rounds", games, 1.96) == estimate("rounds", firsts, 1.96)


# ------------------------------------------------------ deterministic bots


@pytest.fixture
def first_legal(monkeypatch: pytest.MonkeyPatch) -> str:
    """A bot that always takes the first legal action, known by name for this test."""
    from cardshop import bots

    def make(variant: VariantBase, seed: int, option: str | None) -> Any:
        return _first(variant, seed)

    monkeypatch.setitem(bots.BOTS, "first-legal", make)
    return "first-legal"


def test_an_audit_of_deterministic_bots_says_the_replays_were_identical(first_legal: str) -> None:
    report = run_audit(
        _variant(CHOSEN), games=6, players=[3], examples=0, workers=1, replays=2, bots=first_legal
    )
    (count,) = report.player_counts
    assert count.measures["luck"].meaning == IDENTICAL_REPLAYS
    assert count.measures["luck"].low is None
    assert "none: all replays identical (deterministic bots)" in report.to_text()
    assert IDENTICAL_REPLAYS in json.dumps(report.to_dict())


def _tiny_spec(tmp_path: Path, bots: str, **more: Any) -> dict[str, Any]:
    import yaml

    base = tmp_path / "tiny-lucky.yaml"
    base.write_text(yaml.safe_dump(LUCKY))
    spec: dict[str, Any] = {
        "base": str(base),
        "knobs": [{"path": "step_cap", "low": 1, "high": 3}],
        "objectives": [{"measure": "luck", "direction": "maximize"}],
        "bots": [bots],
        "players": [3],
        "replays": 4,
        "budget": {"batch": 40, "batches": 1, "games": 400, "trials": 2},
        "seed": 1,
    }
    spec.update(more)
    return spec


def test_tuning_towards_luck_plays_replayed_deals(tmp_path: Path) -> None:
    from cardshop.tuning import tune

    result = tune(_tiny_spec(tmp_path, "random"), storage=None, workers=1)
    before = result.before[3]["luck"]
    assert before.low is not None
    assert 0 <= before.low <= before.value <= (before.high or 0) <= 1
    assert "luck" in result.after[3]


def test_tuning_luck_with_deterministic_bots_is_refused(tmp_path: Path, first_legal: str) -> None:
    from cardshop.tuning import tune

    with pytest.raises(TuneError, match="cannot be separated with deterministic bots"):
        tune(_tiny_spec(tmp_path, first_legal), storage=None, workers=1)


def test_the_html_report_shows_luck_and_identical_replays(first_legal: str) -> None:
    pytest.importorskip("plotly")
    from cardshop.report import render_html

    options: dict[str, Any] = {"games": 6, "players": [3], "examples": 0, "workers": 1}
    page = render_html(run_audit(_variant(LUCKY), replays=2, **options).to_dict())
    assert 'data-measure="luck"' in page
    assert "played 2 times by the same bots" in page
    alike = run_audit(_variant(CHOSEN), replays=2, bots=first_legal, **options).to_dict()
    row = render_html(alike).split('data-measure="luck"')[1].split("</tr>")[0]
    assert "<td class=num>none</td>" in row


def test_a_comparison_with_replays_compares_the_luck() -> None:
    from cardshop.audit.paired import compare_variants

    report = compare_variants(
        _variant(CHOSEN),
        _variant(LUCKY),
        games=40,
        players=[3],
        examples=0,
        workers=1,
        replays=4,
    )
    data = report.to_dict()
    import jsonschema

    jsonschema.validate(data, report_schema())
    (count,) = data["comparison"]["player_counts"]
    difference = count["measures"]["luck"]
    assert difference["significant"]
    assert difference["low"] > 0
    assert all(v["replays"] == 4 for v in data["variants"])
