"""cardshop audit's measures end to end: saved games, comparisons, JSON schema, errors.

Commands run as real processes (``python -m cardshop``); the reports are checked
against the shipped JSON Schema.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import cardshop as cardshop_lib
from cardshop.audit import (
    AuditError,
    AuditReport,
    ComparisonReport,
    report_from_games,
    report_schema,
    run_audit,
    run_comparison,
)

ROOT = Path(__file__).parent.parent
GENTLE = str(ROOT / "docs" / "examples" / "klunker-gentle.yaml")
TWO_PLAYERS = "extends: wuhltisch\nname: wuhltisch-two\nplayers: {min: 2, max: 2}\n"
MANY_PLAYERS = "extends: wuhltisch\nname: wuhltisch-many\nplayers: {min: 3, max: 5}\n"
SHORT_WUHLTISCH = "extends: wuhltisch\nname: wuhltisch-short\nrounds: 2\n"
SMALL = ["--players", "3", "--games", "4", "--examples", "0", "--seed", "4", "--quiet"]


def cardshop(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardshop", *args],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: a command takes seconds, this is 100 times that
        check=False,
        cwd=cwd,
    )


def one_paragraph(stderr: str) -> str:
    text = stderr.strip()
    assert text.startswith("cardshop: error:"), stderr
    assert "Traceback" not in text
    assert "\n\n" not in text
    return " ".join(text.split())


def test_saved_games_give_the_same_report_again(tmp_path: Path) -> None:
    saved = tmp_path / "games.jsonl"
    first = cardshop("audit", "klunker-en", *SMALL, "--json", "--save-games", str(saved))
    assert first.returncode == 0, first.stderr
    again = cardshop("audit", "--from-games", str(saved), "--json")
    assert again.returncode == 0, again.stderr
    a, b = json.loads(first.stdout), json.loads(again.stdout)
    for report in (a, b):
        jsonschema.validate(report, report_schema())
    (va,), (vb,) = a["variants"], b["variants"]
    for pa, pb in zip(va["player_counts"], vb["player_counts"], strict=True):
        assert pa["measures"] == pb["measures"]
        assert pa["charts"] == pb["charts"]
    assert vb["invariants"] == []  # not checked again
    assert b["command"] == f"cardshop audit --from-games {saved}"
    assert len(saved.read_text().splitlines()) == 1 + 4  # the header and each game
    text = cardshop("audit", "--from-games", str(saved))
    assert text.returncode == 0
    assert "Invariants: not checked" in text.stdout
    assert "Balance across seats" in text.stdout


def test_two_variants_are_compared_on_the_same_seeds(tmp_path: Path) -> None:
    saved = tmp_path / "both.jsonl"
    proc = cardshop("audit", "klunker-en", GENTLE, *SMALL, "--json", "--save-games", str(saved))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    jsonschema.validate(report, report_schema())
    assert [v["variant"] for v in report["variants"]] == ["klunker-en", GENTLE]
    comparison = report["comparison"]
    assert (comparison["a"], comparison["b"]) == ("klunker-en", GENTLE)
    (count,) = comparison["player_counts"]
    a = report["variants"][0]["player_counts"][0]["measures"]
    b = report["variants"][1]["player_counts"][0]["measures"]
    assert set(count["measures"]) == set(a) & set(b)
    for key, d in count["measures"].items():
        assert (d["a"], d["b"]) == (a[key]["value"], b[key]["value"])
        assert d["difference"] == pytest.approx(d["b"] - d["a"], abs=1e-5)
        excludes = d["low"] is not None and (d["low"] > 0 or d["high"] < 0)
        assert d["significant"] is excludes
    # The same seeds: each game of A starts as the game of B with its number.
    sections = [line for line in saved.read_text().splitlines() if '"format"' in line]
    assert len(sections) == 2
    seeds = [json.loads(line)["seed"] for line in saved.read_text().splitlines()]
    assert seeds[1:5] == seeds[6:10]
    again = report_from_games(saved)
    assert isinstance(again, ComparisonReport)
    assert again.to_dict()["comparison"] == comparison
    markdown = cardshop("audit", "--from-games", str(saved), "--markdown")
    assert markdown.stdout.startswith("## Comparison of `klunker-en` (A) and `klunker-gentle` (B)")
    assert "| Measure | A | B | B - A (95% CI) |" in markdown.stdout


def test_comparison_as_a_library_function() -> None:
    report = run_comparison("klunker-en", GENTLE, games=4, players=[3], examples=0, seed=2)
    assert isinstance(report, ComparisonReport)
    assert report.a.name == "klunker-en"
    assert report.b.name == "klunker-gentle"
    ((players, diffs),) = report.differences
    assert players == 3
    assert diffs["rounds"].difference == pytest.approx(
        report.b.player_counts[0].measures["rounds"].value
        - report.a.player_counts[0].measures["rounds"].value
    )
    text = report.to_text()
    assert "B-A" in text
    assert text.rstrip().endswith("Result: ok")
    # Variants that share no player count, or of two families, cannot be compared.
    two = cardshop_lib.parse_variant(TWO_PLAYERS)
    many = cardshop_lib.parse_variant(MANY_PLAYERS)
    with pytest.raises(AuditError, match="share no player count"):
        run_comparison(two, many, games=1, examples=0)
    with pytest.raises(AuditError, match="wuhltisch-two a wuhltisch variant: only variants of one"):
        run_comparison("klunker-en", two, games=1, examples=0)
    with pytest.raises(AuditError, match="compared at 3 to 5 players, not 2, 6"):
        run_comparison("klunker-en", "klunker-es", players=[2, 3, 6], games=1, examples=0)


@pytest.mark.parametrize(
    ("variant", "players", "ticks"),
    [("klunker-es", 3, False), ("wuhltisch", 2, True), ("reglamentacja", 3, False)],
)
def test_the_measures_of_every_family(variant: str, players: int, ticks: bool) -> None:
    rules = cardshop_lib.parse_variant(SHORT_WUHLTISCH) if variant == "wuhltisch" else variant
    games = 2 if variant.startswith("klunker") else 1  # the others' games are long
    report = run_audit(rules, games=games, players=[players], examples=0, seed=3, check_every=1000)
    assert isinstance(report, AuditReport)
    data = report.to_dict()
    jsonschema.validate(data, report_schema())
    (pc,) = data["variants"][0]["player_counts"]
    measures: dict[str, Any] = pc["measures"]
    for key in ("balance", "ties", "completion", "capped", "rounds", "decisions", "branching",
                "forced_share", "lead_changes", "drama", "score_spread"):  # fmt: skip
        assert key in measures, key
    assert ("ticks" in measures) is ticks
    assert (pc["charts"]["length"]["ticks"] is not None) is ticks
    assert len(pc["charts"]["lead_changes"]) == games
    assert pc["charts"]["branching"]
    text = report.to_text()
    assert "measures (95% intervals" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["klunker-en", "klunker-es", "wuhltisch"], "one variant, or two to compare, not 3"),
        (["klunker-en", "--from-games", "x.jsonl"], "name no variant with it"),
        ([], "name a variant to audit"),
        (["--from-games", "a", "--save-games", "b"], "do not go together"),
        (["--from-games", "missing.jsonl"], "missing.jsonl: cannot read the saved games"),
        (["--from-games", "bad.jsonl"], "bad.jsonl:1: not JSON"),
        (["two.yaml", "many.yaml", "--games", "1"], "share no player count"),
        (["missing.yaml"], "missing.yaml: invalid variant: file not found"),
        (["klunker-en", "missing.yaml"], "missing.yaml: invalid variant: file not found"),
        (["klunker-en", "reglamentacja", "--games", "1"], "only variants of one family"),
        (
            ["klunker-es", "klunker-en", "--players", "6", "--games", "1"],
            "can be compared at 3 to 5 players, not 6",
        ),
        (["klunker-en", "--players", "9", "--games", "1"], "3 to 5 players, not 9"),
        (["klunker-en", "--html", "nowhere/r.html"], "--html nowhere/r.html: cannot write there"),
        (["klunker-en", "--html", "."], "--html .: cannot write there: it is a folder"),
        (["klunker-en", "--save-games", "no/g.jsonl"], "--save-games no/g.jsonl: cannot write"),
    ],
)
def test_user_errors_exit_2_in_one_paragraph(args: list[str], message: str, tmp_path: Path) -> None:
    """Refused before any game is played (an output path is tried first, then the
    default 1000 games a player count would take minutes)."""
    (tmp_path / "bad.jsonl").write_text("{oops\n")
    (tmp_path / "two.yaml").write_text(TWO_PLAYERS)
    (tmp_path / "many.yaml").write_text(MANY_PLAYERS)
    proc = cardshop("audit", *args, "--examples", "0", "-q", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert message in one_paragraph(proc.stderr)
    assert proc.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "many.yaml", "two.yaml"]


BLOCK_REPORT = """
import sys
sys.modules["plotly"] = None  # as if the report extra were not installed
from cardshop.__main__ import main
sys.exit(main(sys.argv[1:]))
"""


def test_html_without_the_report_extra_is_a_clear_error(tmp_path: Path) -> None:
    """Checked before any game is played: the message names the extra to install."""
    out = tmp_path / "report.html"
    proc = subprocess.run(
        [sys.executable, "-c", BLOCK_REPORT, "audit", "klunker-en", *SMALL, "--html", str(out)],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: it fails before any game
        check=False,
    )
    assert proc.returncode == 2
    message = one_paragraph(proc.stderr)
    assert 'python -m pip install ".[report]" in a clone of cardshop' in message
    assert "audit:" not in proc.stderr  # no game was played
    assert not out.exists()
