"""cardshop audit: the report, its statistics, and the faults it must catch.

Fixtures: tests/fixtures/never-ends.yaml (games that only the round cap stops) and
an engine fault injected here (a sale that drops a card).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import cardshop
import tinyfamily
from cardshop.audit import AuditReport, Distribution, report_schema, run_audit, wilson
from cardshop.cli import run
from cardshop.invariants import CheckedGame, InvariantViolation, invariant_names, invariants_of
from cardshop.klunker.events import Sold

FIXTURES = Path(__file__).parent / "fixtures"
NEVER_ENDS = str(FIXTURES / "never-ends.yaml")
SMALL = FIXTURES / "small.yaml"
INVARIANTS = invariant_names(invariants_of("klunker"))
TINY = Path(__file__).parent / "tinyfamily"


def audit_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    """The report's JSON, checked against its schema: its one variant's entry, with the
    top-level ``ok`` and ``command``."""
    code = run(["audit", *args, "--json", "--quiet"])
    out = capsys.readouterr().out
    data = json.loads(out)
    jsonschema.validate(data, report_schema())
    (variant,) = data["variants"]
    return code, {**variant, "ok": data["ok"], "command": data["command"]}


# ----------------------------------------------------------------- statistics


def test_one_interval_function_serves_audit_and_simulation() -> None:
    import cardshop._stats
    import cardshop.simulation

    assert wilson is cardshop._stats.wilson
    assert cardshop.simulation.wilson is wilson
    assert "cardshop.audit" not in cardshop.simulation.__dict__


def test_wilson_interval_matches_known_values() -> None:
    # Reference values of the 95% Wilson score interval.
    half = wilson(5, 10)
    assert (round(half.low, 4), round(half.high, 4)) == (0.2366, 0.7634)
    none = wilson(0, 10)
    assert none.low == 0.0
    assert round(none.high, 4) == 0.2775
    assert wilson(10, 10).high == 1.0
    assert round(wilson(10, 10).low, 4) == 0.7225
    assert (wilson(0, 0).low, wilson(0, 0).high) == (0.0, 1.0)
    shared = wilson(2.5, 10)  # a shared win counts a fraction
    assert shared.estimate == 0.25
    assert shared.low < 0.25 < shared.high
    with pytest.raises(ValueError, match="successes"):
        wilson(11, 10)


def test_distribution_summary() -> None:
    d = Distribution.of([4, 1, 3, 2])
    assert (d.mean, d.min, d.median, d.max) == (2.5, 1.0, 2.5, 4.0)
    assert math.isclose(d.sd, 1.2909944, rel_tol=1e-6)
    assert (d.p10, d.p90) == (1.0, 4.0)
    assert Distribution.of([]).mean == 0.0


# ------------------------------------------------------------ a clean variant


def test_audit_of_a_builtin_holds_and_reports_the_games(capsys: pytest.CaptureFixture[str]) -> None:
    """SETUP-2 gives each seat the first start at random: win rates add up to 1."""
    code, report = audit_json(
        capsys, "klunker-en", "--games", "40", "--examples", "3", "--seed", "7"
    )
    assert code == 0
    assert report["ok"] is True
    assert [f["name"] for f in report["invariants"]] == list(INVARIANTS)
    assert all(f["held"] and f["counterexample"] is None for f in report["invariants"])
    assert [pc["players"] for pc in report["player_counts"]] == [3, 4, 5]
    for pc in report["player_counts"]:
        assert pc["games"] == 40
        assert pc["capped"] == 0
        assert pc["cap_share"]["high"] > 0  # 0 of 40 still leaves an upper bound
        for key in ("win_rate_by_seat", "win_rate_by_position"):
            rates = pc[key]
            assert len(rates) == pc["players"]
            assert math.isclose(sum(r["estimate"] for r in rates), 1.0, abs_tol=1e-4)
            assert all(r["low"] <= r["estimate"] <= r["high"] for r in rates)
        assert 1 <= pc["rounds"]["min"] <= pc["rounds"]["median"] <= pc["rounds"]["max"] < 200
        assert pc["decisions"]["mean"] > pc["rounds"]["mean"]
        assert pc["steps"] == pc["decisions"]  # one action a step in a turn-based game
        assert pc["ticks"] is None  # Klunker reports no ticks
        assert pc["scores"]["mean"] * pc["players"] == pytest.approx(
            sum(pc["mean_score_by_position"]), abs=1e-3
        )
    assert report["command"].startswith("cardshop audit klunker-en --games 40")


def test_the_same_seed_gives_the_same_report() -> None:
    # a match variant: the series' seeds must be as reproducible as a single game's
    options: dict[str, Any] = {"games": 4, "players": [3], "examples": 0, "check_every": 1000}
    first = run_audit("klunker-zh", seed=3, **options)
    again = run_audit("klunker-zh", seed=3, **options)
    other = run_audit("klunker-zh", seed=4, **options)
    assert first.to_dict() == again.to_dict()
    assert first.to_dict() != other.to_dict()


def test_text_and_markdown_reports(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["audit", "klunker-es", "--players", "6", "--games", "10", "--examples", "0", "-q"]
    assert run(args) == 0
    text = capsys.readouterr().out
    assert "held      conservation" in text
    assert "6 players: 10 games" in text
    assert "first start player" in text
    assert "±" not in text  # every spread is labelled: a standard deviation or an interval
    assert re.search(r"rounds: +mean \d+\.\d \(sd \d+\.\d\), median", text)
    assert "win rate by seat (95% Wilson interval):" in text
    assert text.rstrip().endswith("Result: ok")
    assert run([*args, "--markdown"]) == 0
    markdown = capsys.readouterr().out
    assert markdown.startswith("## Audit of `klunker-es`")
    assert "| `hidden_information` | CARD-2 | held |" in markdown
    assert "| 6 | 10 |" in markdown
    assert "±" not in markdown
    assert "Rounds: mean (sd)" in markdown


# ------------------------------------------------------------- caught faults


def test_a_variant_that_never_ends_fails_the_audit(capsys: pytest.CaptureFixture[str]) -> None:
    """TERM-1: every game of the fixture reaches the round cap; the audit says so."""
    code, report = audit_json(capsys, NEVER_ENDS, "--games", "15", "--examples", "2")
    assert code == 1
    assert report["ok"] is False
    assert report["games_end"] is False
    assert all(f["held"] for f in report["invariants"])  # the engine is right; the rules loop
    for pc in report["player_counts"]:
        assert pc["capped"] == pc["games"] == 15
        assert pc["cap_share"]["estimate"] == 1.0
        assert pc["rounds"]["max"] == report["round_cap"] == 12
    # Allowing every game to be capped makes it pass: the cap share is the finding.
    code, report = audit_json(
        capsys, NEVER_ENDS, "--games", "5", "--examples", "0", "--max-cap-share", "1"
    )
    assert code == 0


@pytest.mark.pure_only
@pytest.mark.usefixtures("sale_drops_a_card")
def test_an_injected_sale_fault_is_caught_by_conservation(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """CARD-1: cardshop audit exits 1 with a counterexample that replays the fault."""
    code, report = audit_json(
        capsys, "klunker-en", "--players", "4", "--games", "5", "--examples", "0"
    )
    assert code == 1
    found = {f["name"]: f for f in report["invariants"]}
    assert found["conservation"]["held"] is False
    assert found["conservation"]["found_by"].startswith("simulated game")
    example = found["conservation"]["counterexample"]
    assert "in no zone" in example["detail"]
    # The actions replay to the violation, at their last action.
    game = cardshop.replay(
        example["variant"],
        example["players"],
        example["seed"],
        example["first_player"],
        example["actions"][:-1],
    )
    checked = CheckedGame(game)
    with pytest.raises(InvariantViolation) as info:
        checked.apply(example["actions"][-1])
    assert info.value.invariant == "conservation"


@pytest.mark.pure_only
@pytest.mark.usefixtures("sale_drops_a_card")
def test_the_state_machine_shrinks_what_it_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    report = run_audit(cardshop.load_variant(SMALL), games=3, examples=20, seed=1)
    assert not report.ok
    # The first fault found is shrunk; the faults it then causes are found unshrunk.
    (finding,) = [f for f in report.violations if f.found_by == "state machine (shrunk)"]
    assert finding.name == "conservation"
    example = finding.counterexample
    assert example is not None
    # Shrunk to a short game that ends with the faulty sale.
    assert len(example.actions) <= 20
    variant = cardshop.load_variant(SMALL)
    game = cardshop.replay(
        variant, example.players, example.seed, example.first_player, example.actions[:-1]
    )
    assert any(isinstance(e, Sold) and e.discarded for e in game.apply(example.actions[-1]))
    text = report.to_text()
    assert "VIOLATED  conservation" in text
    assert "cardshop.replay(" in text
    assert "Result: FAILED" in text
    assert "Counterexample for `conservation`" in report.to_markdown()


# ---------------------------------------------------------------- user errors


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such-variant"], "unknown variant"),
        (["klunker-en", "--players", "6"], "3 to 5 players"),
        (["klunker-en", "--games", "-1"], "games"),
        (["klunker-en", "--json", "--markdown"], "one of --json and --markdown"),
        (["klunker-en", "--bots", "nope"], "unknown bot 'nope'"),
        ([str(TINY / "tiny-seq.yaml"), "--bots", "thrifty"], "unknown bot 'thrifty'"),
        ([str(FIXTURES / "missing.yaml")], "file not found"),
    ],
)
def test_user_errors_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    tinyfamily.register()
    assert run(["audit", *args, "-q"]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_without_hypothesis_the_state_machine_is_a_user_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # as if it were not installed
    assert run(["audit", "klunker-en", "--players", "3", "--games", "2", "-q"]) == 2
    assert 'python -m pip install ".[testing]" in a clone of cardshop' in capsys.readouterr().err
    code = run(["audit", "klunker-en", "--players", "3", "--games", "2", "--examples", "0", "-q"])
    assert code == 0


def test_audit_runs_as_a_command() -> None:
    """The installed entry point, in a real process: exit code and JSON on stdout."""
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "cardshop", "audit", "klunker-zh", "--players", "3"),
            *("--games", "5", "--examples", "1", "--json", "--quiet"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["schema"] == "cardshop-audit/2"
    assert data["variants"][0]["name"] == "klunker-zh"
    assert data["variants"][0]["player_counts"][0]["games"] == 5


def test_the_thrifty_policy_makes_games_last(capsys: pytest.CaptureFixture[str]) -> None:
    """END-2, END-3: holding cards back makes the taxed, reshuffled games longer."""
    common = ["klunker-es", "--players", "6", "--games", "8", "--examples", "0"]
    code, thrifty = audit_json(capsys, *common, "--policy", "thrifty")
    assert code == 0
    code, plain = audit_json(capsys, *common)
    assert code == 0
    assert thrifty["policy"] == "thrifty"
    assert thrifty["bots"] == ["thrifty"]
    assert thrifty["command"].endswith("--bots thrifty")
    rounds = thrifty["player_counts"][0]["rounds"]["mean"]
    assert rounds > 2 * plain["player_counts"][0]["rounds"]["mean"]


def test_report_type_is_exported() -> None:
    report = run_audit("klunker-en", games=2, players=[3], examples=0)
    assert isinstance(report, AuditReport)
    assert report.ok
    assert json.loads(json.dumps(report.to_dict()))["seed"] == 0


# ------------------------------------------------------------------ any family


@pytest.mark.parametrize("name", ["tiny-seq", "tiny-sim"])
def test_the_audit_runs_on_a_family_it_does_not_know(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The tiny family, registered at run time, goes through the whole audit."""
    tinyfamily.register()
    path = str(TINY / f"{name}.yaml")
    code, report = audit_json(capsys, path, "--games", "20", "--examples", "3", "--seed", "2")
    assert code == 0, report
    assert report["family"] == "tinymarket"
    assert report["round_cap"] is None
    names = [f["name"] for f in report["invariants"]]
    assert names == ["acting", "legal_actions", "determinism", "result", "conservation"]
    assert all(f["held"] for f in report["invariants"])
    variant = cardshop.load_variant(path)
    assert [pc["players"] for pc in report["player_counts"]] == list(
        range(variant.players.min, variant.players.max + 1)
    )
    for pc in report["player_counts"]:
        assert pc["games"] == 20
        for key in ("win_rate_by_seat", "win_rate_by_position"):
            assert math.isclose(sum(r["estimate"] for r in pc[key]), 1.0, abs_tol=1e-4)
        # A tiny game counts its steps as its length; in a tick every seat decides.
        assert pc["rounds"] == pc["steps"]
        if name == "tiny-sim":
            assert pc["decisions"]["mean"] == pytest.approx(pc["steps"]["mean"] * pc["players"])
        else:
            assert pc["decisions"] == pc["steps"]
    assert run(["audit", path, "--games", "3", "--examples", "0", "-q"]) == 0
    text = capsys.readouterr().out
    assert "reached the variant's cap" in text
    assert "held      conservation" in text
    # The tiny games have no first player: no table by position, which would only
    # repeat the table by seat (a Klunker audit has one: test_text_and_markdown_reports).
    assert "win rate by seat" in text
    assert "first start player" not in text
    assert run(["audit", path, "--games", "3", "--examples", "0", "--markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "Win rate by seat" in markdown
    assert "first start player" not in markdown


def test_a_fault_of_a_simultaneous_family_is_caught_with_ticks_that_replay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tinyfamily.register()
    original = tinyfamily.TinyGame._resolve

    def losing(self: tinyfamily.TinyGame, actions: dict[int, Any]) -> list[Any]:
        events = original(self, actions)
        if any(isinstance(e, tinyfamily.Clashed) for e in events):
            self.discard.pop()
        return events

    monkeypatch.setattr(tinyfamily.TinyGame, "_resolve", losing)
    path = str(TINY / "tiny-sim.yaml")
    report = run_audit(path, games=30, players=[3], examples=0, seed=1)
    assert not report.ok
    (finding,) = report.violations
    assert finding.name == "conservation"
    example = finding.counterexample
    assert example is not None
    game = cardshop.replay(example.variant, example.players, example.seed, None, example.actions)
    assert tinyfamily.conservation(game) is not None


def test_bots_are_chosen_by_name_seat_by_seat() -> None:
    """Family bots (Klunker's greedy) play beside generic ones, one name per seat in turn."""
    report = run_audit("klunker-en", games=20, players=[3], examples=0, bots=["greedy", "random"])
    assert report.ok
    assert report.bots == ("greedy", "random")
    assert report.command().endswith("--bots greedy --bots random")
    # Seats 0 and 2 play greedy and seat 1 random: greedy wins more.
    rates = report.player_counts[0].win_rate_by_seat
    assert rates[0].estimate + rates[2].estimate > 2 * rates[1].estimate
