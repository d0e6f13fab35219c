"""cardshop audit: the report, its statistics, and the faults it must catch.

Fixtures: tests/fixtures/never-ends.yaml (games that only the round cap stops) and
an engine fault injected here (a sale that drops a card).
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import cardshop
import tinyfamily
from cardshop.audit import (
    AuditError,
    AuditInterrupted,
    AuditReport,
    Distribution,
    report_schema,
    run_audit,
    wilson,
)
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
    import cardshop.simulation
    import cardshop.support.stats

    assert wilson is cardshop.support.stats.wilson
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


def test_a_variant_s_warnings_are_shown_and_do_not_fail_the_audit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Warnings (a setting that cannot matter) are in the text, the Markdown, the JSON
    (valid by its schema) and the HTML, with the file, line and key; the audit passes."""
    path = tmp_path / "warned.yaml"
    path.write_text("extends: klunker-en\nname: warned\nwindow_cap: 200\n")
    warning = f"{path}:3:13: warning at window_cap: a cap of 200 is never reached"
    args = [str(path), "--players", "3", "--games", "4", "--examples", "0", "-q"]
    assert run(["audit", *args]) == 0
    text = capsys.readouterr().out
    assert f"Variant warnings (shown; they do not fail the audit):\n  {warning}" in text
    assert text.rstrip().endswith("Result: ok")
    assert run(["audit", *args, "--markdown"]) == 0
    assert f"- {warning}" in capsys.readouterr().out
    code, report = audit_json(capsys, *args)
    assert code == 0
    assert report["ok"] is True
    assert [w.split(" the deck")[0] for w in report["warnings"]] == [warning + ":"]
    html = tmp_path / "report.html"
    assert run(["audit", *args, "--html", str(html)]) == 0
    assert f"<li>{warning}" in html.read_text(encoding="utf-8")
    capsys.readouterr()
    # a comparison shows each side's
    assert run(["audit", "klunker-en", *args]) == 0
    assert f"B: variant warning (shown; it does not fail the audit): {warning}" in (
        capsys.readouterr().out
    )
    # a variant without warnings says nothing of them
    assert run(["audit", "klunker-en", *args[1:]]) == 0
    assert "warning" not in capsys.readouterr().out.lower()


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


@pytest.mark.pure_only
@pytest.mark.usefixtures("sale_drops_a_card")
def test_the_state_machine_beside_the_games_gives_the_report_of_one_after_the_other() -> None:
    """With worker processes the state machine runs in one of them while the games are
    played; when it finds a violation, the games are played again without it, so the
    report is the one of the state machine and then the games, in one process."""
    variant = cardshop.load_variant(SMALL)
    lines: list[str] = []
    apart = run_audit(variant, games=6, examples=20, seed=1, workers=2, progress=lines.append)
    alone = run_audit(variant, games=6, examples=20, seed=1, workers=1)
    assert not apart.ok
    assert any(f.found_by == "state machine (shrunk)" for f in apart.violations)
    assert any(line.startswith("state machine found a violation") for line in lines)
    assert apart.to_dict() == alone.to_dict()


def test_the_state_machine_beside_the_games_when_everything_holds() -> None:
    """Nothing found: the games played beside the state machine are the report's."""
    variant = cardshop.load_variant(SMALL)
    lines: list[str] = []
    apart = run_audit(variant, games=6, examples=10, seed=2, workers=2, progress=lines.append)
    alone = run_audit(variant, games=6, examples=10, seed=2, workers=1)
    assert apart.ok
    assert lines[0].startswith("state machine: 10 examples")
    assert not any("found a violation" in line for line in lines)
    assert apart.to_dict() == alone.to_dict()


@pytest.mark.parametrize("workers", [1, 2])
def test_without_hypothesis_the_state_machine_is_refused_before_any_game(
    monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """The state machine needs hypothesis: without it the audit says so before it plays
    a game, whether the state machine would run here or in a worker beside the games."""
    monkeypatch.setitem(sys.modules, "hypothesis", None)  # `import hypothesis` fails
    lines: list[str] = []
    with pytest.raises(AuditError, match=r"needs hypothesis.*--examples 0"):
        run_audit(SMALL, games=4, examples=5, workers=workers, progress=lines.append)
    assert not any("players:" in line for line in lines)


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
        timeout=900,  # a hang guard: the audit takes seconds, this is 100 times that
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
    assert f"reached the step cap of {variant.step_cap}" in text  # the tiny family's unit
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
    original = tinyfamily.TinyGame._play

    def losing(self: tinyfamily.TinyGame, actions: dict[int, Any]) -> list[Any]:
        events = original(self, actions)
        if any(isinstance(e, tinyfamily.Clashed) for e in events):
            self.discard.pop()
        return events

    monkeypatch.setattr(tinyfamily.TinyGame, "_play", losing)
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


# ------------------------------------------------------- progress, stop, partial


def test_each_game_is_reported_as_played_per_player_count() -> None:
    calls: list[tuple[int, int]] = []
    report = run_audit(
        "klunker-en", games=3, players=[3, 4], examples=0, played=lambda n, d: calls.append((n, d))
    )
    assert calls == [(3, 1), (3, 2), (3, 3), (4, 1), (4, 2), (4, 3)]
    assert not report.partial
    assert report.to_dict()["partial"] is False


class _Halt(KeyboardInterrupt):
    pass


def _halt_at(players: int, game: int) -> Any:
    def played(n: int, done: int) -> None:
        if (n, done) == (players, game):
            raise _Halt

    return played


def test_a_stopped_audit_gives_what_it_had_as_a_partial_report() -> None:
    with pytest.raises(AuditInterrupted) as info:
        run_audit("klunker-en", games=4, players=[3, 4], examples=0, played=_halt_at(4, 2))
    assert isinstance(info.value.__cause__, _Halt)
    report = info.value.report
    assert isinstance(report, AuditReport)
    assert report.partial
    assert [(pc.players, pc.games) for pc in report.player_counts] == [(3, 4), (4, 2)]
    whole = run_audit("klunker-en", games=4, players=[3], examples=0)
    assert report.player_counts[0] == whole.player_counts[0]  # the same games, all of them
    data = report.to_dict()
    jsonschema.validate(data, report_schema())
    assert data["partial"] is True
    assert "PARTIAL REPORT" in report.to_text()
    assert "2 with 4 players" in report.to_text()
    assert "PARTIAL REPORT" in report.to_markdown()


def test_an_error_raised_while_a_stop_is_requested_stops_the_audit() -> None:
    """A stop that lands in a library may come back wrapped in that library's error
    (pydantic's serializers wrap any exception): while a stop is requested, the error
    is the stop and the partial report is kept; otherwise it is an error."""
    from cardshop.support.stopping import clear_stop, request_stop

    def wrapped_at(game: int, *, stop: bool) -> Any:
        def played(n: int, done: int) -> None:
            if done == game:
                if stop:
                    request_stop(15)
                raise RuntimeError("Error calling function `_dump`: Stopped: 15")

        return played

    with pytest.raises(RuntimeError):
        run_audit("klunker-en", games=4, players=[3], examples=0, played=wrapped_at(2, stop=False))
    try:
        with pytest.raises(AuditInterrupted) as info:
            run_audit(
                "klunker-en", games=4, players=[3], examples=0, played=wrapped_at(2, stop=True)
            )
    finally:
        clear_stop()
    assert isinstance(info.value.__cause__, RuntimeError)
    report = info.value.report
    assert isinstance(report, AuditReport)
    assert report.partial
    assert [(pc.players, pc.games) for pc in report.player_counts] == [(3, 2)]


def test_a_stopped_comparison_is_partial_where_it_stopped() -> None:
    from cardshop.audit import ComparisonReport, run_comparison

    def halt_after(games: int) -> Any:
        calls: list[int] = []

        def played(n: int, done: int) -> None:
            calls.append(done)
            if len(calls) == games:
                raise _Halt

        return played

    options: dict[str, Any] = {"games": 3, "players": [3], "examples": 0}
    with pytest.raises(AuditInterrupted) as info:  # in A: A's partial report
        run_comparison("klunker-en", "klunker-es", played=halt_after(2), **options)
    alone = info.value.report
    assert isinstance(alone, AuditReport)
    assert alone.partial
    assert alone.variant == "klunker-en"
    with pytest.raises(AuditInterrupted) as info:  # in B: the comparison so far
        run_comparison("klunker-en", "klunker-es", played=halt_after(5), **options)
    report = info.value.report
    assert isinstance(report, ComparisonReport)
    assert (report.partial, report.a.partial, report.b.partial) == (True, False, True)
    assert [pc.games for pc in report.b.player_counts] == [2]
    data = report.to_dict()
    jsonschema.validate(data, report_schema())
    assert data["partial"] is True
    assert "B: PARTIAL REPORT" in report.to_text()


def test_saved_games_are_written_whole_or_not_at_all(tmp_path: Path) -> None:
    """A write that fails half-way (a file size limit here) leaves the old file."""
    target = tmp_path / "games.jsonl"
    target.write_text("old\n")
    code = (
        "import resource, signal, sys\n"
        "from cardshop.audit import run_audit\n"
        "report = run_audit('klunker-en', games=30, players=[3], examples=0)\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
        "try:\n"
        f"    report.save_games({str(target)!r})\n"
        "except OSError as exc:\n"
        "    print('failed', exc.errno)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=900
    )  # a hang guard: thirty games take a second or two
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("failed"), done.stdout
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.jsonl"]


def test_the_command_shows_games_played_of_the_total(tmp_path: Path) -> None:
    """Not a terminal: a plain line at each tenth of a player count's games."""
    proc = subprocess.run(
        [sys.executable, "-m", "cardshop", "audit", "klunker-en", "--players", "3",
         "--players", "4", "--games", "20", "--examples", "0", "--json"],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip  # a hang guard: forty games take seconds
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    for n in (3, 4):
        assert [line for line in lines if line.startswith(f"audit: {n} players: ")] == [
            f"audit: {n} players: 20 games",
            *(f"audit: {n} players: {k} of 20 games" for k in range(2, 21, 2)),
        ]


STOP_GUARD = 120
"""Seconds a stopped audit may take to end, a guard against a hang only: it ends within
a game (a fraction of a second here), while the audit asked for would take hours."""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_first_signal_stops_an_audit_with_a_partial_report(
    sig: signal.Signals, tmp_path: Path
) -> None:
    """One Ctrl-C (or SIGTERM) after the state machine ran (its garbage collector hook
    is where a Ctrl-C used to be lost): exit 128 + signal, the report so far marked
    partial, on stdout and in the HTML page, and no saved-games file."""
    pytest.importorskip("hypothesis")
    page = tmp_path / "report.html"
    saved = tmp_path / "games.jsonl"
    args = ["--players", "3", "--games", "2000", "--examples", "3", "--json"]
    args += ["--save-games", str(saved)]
    if importlib.util.find_spec("plotly") is not None:
        args += ["--html", str(page)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardshop", "audit", "klunker-en", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:  # up to the first progress line: a tenth of the games played
        seen.append(line)
        if line.startswith("audit: 3 players: ") and " of 2000 games" in line:
            break
    proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=STOP_GUARD)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"the audit still ran {STOP_GUARD} s after one {sig.name}")
    err = "".join(seen) + err
    assert proc.returncode == 128 + sig, err
    assert "Traceback" not in err
    assert "Exception ignored" not in err
    last = err.strip().splitlines()[-1]
    assert re.fullmatch(
        rf"cardshop: stopped by {sig.name} after [\d,]+ games; the report is partial; "
        "no --save-games file was written",
        last,
    ), last
    data = json.loads(out)
    jsonschema.validate(data, report_schema())
    assert data["partial"] is True
    (variant,) = data["variants"]
    (count,) = variant["player_counts"]
    assert 0 < count["games"] < 1_000_000
    assert not saved.exists()
    if page.exists():
        assert "Partial report:" in page.read_text()


@pytest.mark.pure_only
def test_an_audit_reads_a_games_moves_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A game builds its moves anew at each reading: an audit that read them at every
    step made a long game quadratic (a Wühltisch round played to its tick cap took a
    minute). The checks read them at doubling intervals and once at the end."""
    from cardshop.wuhltisch.game import WuhltischGame

    counts = {"moves": 0, "steps": 0}
    moves, apply_joint = WuhltischGame.moves, WuhltischGame.apply_joint

    def read(game: WuhltischGame) -> Any:
        counts["moves"] += 1
        return moves.fget(game)  # type: ignore[attr-defined]

    def step(game: WuhltischGame, actions: Any) -> Any:
        counts["steps"] += 1
        return apply_joint(game, actions)

    monkeypatch.setattr(WuhltischGame, "moves", property(read))
    monkeypatch.setattr(WuhltischGame, "apply_joint", step)
    report = run_audit(
        cardshop.load_variant("wuhltisch"), games=2, players=[2], examples=0, workers=1
    )
    assert report.ok, report.to_text()
    assert counts["steps"] > 200
    assert counts["moves"] < counts["steps"] / 10, counts
