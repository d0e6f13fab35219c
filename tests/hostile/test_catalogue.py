"""The catalogue in docs/security.md matches the hostile cases, so the docs cannot drift;
and the child runner reports a command line as the real command would."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hostile._cases import CASES, KINDS, Cli, catalogue_table
from hostile._harness import run_in_children

ROOT = Path(__file__).resolve().parents[2]
HEADING = "## What cardshop refuses"


def documented_table() -> str:
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    assert HEADING in text, f"docs/security.md has no {HEADING!r} section"
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    lines = section.splitlines()
    start = lines.index("| input kind | cases | outcome |")
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return "\n".join(lines[start:end]) + "\n"


def test_docs_catalogue_matches_the_cases() -> None:
    assert documented_table() == catalogue_table(), (
        "docs/security.md's table differs from the suite; paste the output of "
        "`python tests/hostile/_cases.py`:\n" + catalogue_table()
    )


def test_the_suite_covers_every_kind_with_enough_cases() -> None:
    assert len(CASES) >= 150
    for kind in KINDS:
        assert sum(c.kind == kind for c in CASES) >= 5, kind


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("unknown-command", ["nosuch"]),
        ("demo-players-text", ["demo", "--players", "abc"]),
        ("validate-dev-null", ["validate", "/dev/null"]),
    ],
)
def test_a_forked_command_line_answers_as_the_real_command(
    name: str, argv: list[str], tmp_path: Path
) -> None:
    """The runner's ``python -m cardshop`` in a fork gives the exit code and stderr of
    a real ``python -m cardshop`` process."""
    (case,) = [c for c in CASES if c.kind == "command line" and c.name == name]
    assert case.make(tmp_path) == Cli(argv)
    forked = run_in_children([case.id], tmp_path)[case.id]
    real = subprocess.run(
        [sys.executable, "-m", "cardshop", *argv],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: a case takes about a second
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
        check=False,
    )
    assert forked["status"] == "exited"
    assert forked["code"] == real.returncode
    assert forked["stderr"] == real.stderr
