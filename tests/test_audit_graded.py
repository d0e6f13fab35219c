"""The audit's graded ladder (``cardshop audit --graded``, ``run_audit(graded=...)``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cardshop import SetupError
from cardshop.audit import AuditError, report_schema, run_audit
from cardshop.ladder.depth import default_rungs

TINY: dict[str, Any] = {"games": 6, "players": [3], "examples": 0, "workers": 1}


@pytest.fixture(scope="module")
def graded_data() -> dict[str, Any]:
    report = run_audit("klunker-en", graded="random,greedy", **TINY)
    return {"text": report.to_text(), "md": report.to_markdown(), "json": report.to_dict()}


def test_the_report_has_a_graded_skill_section(graded_data: dict[str, Any]) -> None:
    text, md = str(graded_data["text"]), str(graded_data["md"])
    assert "Graded skill" in text
    assert "greedy > random" in text
    assert "The graded ladder holds" in text or "does not hold" in text
    assert "--graded random,greedy" in text  # the command that reproduces it
    assert "### Graded skill" in md
    assert "`greedy` > `random`" in md


def test_the_json_holds_the_graded_result_and_validates(graded_data: dict[str, Any]) -> None:
    data = graded_data["json"]
    jsonschema.validate(data, report_schema())
    (graded,) = data["variants"][0]["graded"]
    assert graded["players"] == 3
    assert graded["deals"] == 2
    assert graded["rungs"] == ["random", "greedy"]
    (step,) = graded["steps"]
    assert (step["weaker"], step["stronger"], step["games"]) == ("random", "greedy", 6)
    assert step["win_low"] <= step["win_share"] <= step["win_high"]
    assert graded["holds"] == step["significant"]
    broken = json.loads(json.dumps(data))
    del broken["variants"][0]["graded"][0]["holds"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, report_schema())


def test_the_html_report_shows_the_graded_skill(graded_data: dict[str, Any]) -> None:
    pytest.importorskip("plotly")
    from cardshop.report import render_html

    page = render_html(graded_data["json"])
    section = page.split("<section id=graded>")[1].split("</section>")[0]
    assert "Graded skill" in section
    assert "greedy &gt; random" in section
    assert "The graded ladder <strong>" in section


def test_the_default_audit_has_no_graded_key() -> None:
    data = run_audit("klunker-en", **TINY).to_dict()
    assert "graded" not in data["variants"][0]
    assert "Graded skill" not in run_audit("klunker-en", **TINY).to_text()


def test_default_takes_the_ladders_default_rungs() -> None:
    report = run_audit("klunker-en", graded="default", games=3, players=[3], examples=0)
    assert list(report.graded[0].rungs) == default_rungs("klunker-en")


def test_an_unknown_rung_is_an_error_before_any_game() -> None:
    lines: list[str] = []
    with pytest.raises(SetupError, match="no-such-bot"):
        run_audit("klunker-en", graded="random,no-such-bot", progress=lines.append, **TINY)
    assert lines == []
    with pytest.raises(AuditError, match="graded and precision"):
        run_audit("klunker-en", graded="random,greedy", precision=0.5, **TINY)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardshop", "audit", *args],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: the audit takes a second or two
        check=False,
    )


def test_the_command_line_option(tmp_path: Path) -> None:
    proc = _cli(
        *("klunker-en", "--players", "3", "--games", "6", "--examples", "0"),
        *("--graded", "random,greedy", "--json", "--quiet"),
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["variants"][0]["graded"][0]["rungs"] == ["random", "greedy"]
    bad = _cli("klunker-en", "--players", "3", "--games", "6", "--graded", "random,nobody")
    assert bad.returncode == 2
    assert "nobody" in bad.stderr
    assert "audit: 3 players" not in bad.stderr
    saved = tmp_path / "games.jsonl"
    done = _cli(
        *("klunker-en", "--players", "3", "--games", "3", "--examples", "0", "-q"),
        *("--save-games", str(saved)),
    )
    assert done.returncode == 0, done.stderr
    refused = _cli("--from-games", str(saved), "--graded", "random,greedy")
    assert refused.returncode == 2
    assert "--from-games plays none" in " ".join(refused.stderr.split())
