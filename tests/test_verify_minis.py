"""``cardshop verify`` on the mini variant of every built-in family, from the command
line as a user runs it: the minis ship with cardshop, and every check holds on every
state the search reaches (the whole state space for Wühltisch's; a budget of states
for the larger two, whose complete runs docs/verify.md records)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cardshop.core import load_variant
from cardshop.verify import mini_variants

BUDGET = {"klunker-mini": 3000, "reglamentacja-mini": 3000, "wuhltisch-mini": None}


def test_every_built_in_family_has_a_mini_variant_that_is_not_a_built_in_name() -> None:
    # cardshop's own names, read in a fresh process (a test may have registered a family
    # of its own in this one)
    listed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import cardshop, json; print(json.dumps(cardshop.builtin_variants()))",
        ],
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard
        check=True,
    )
    names = json.loads(listed.stdout)
    minis = mini_variants()
    families = {load_variant(path).family for path in minis.values()}
    assert families == {load_variant(name).family for name in names}
    assert not set(minis) & set(names)
    assert set(BUDGET) <= set(minis)


@pytest.mark.parametrize("name", sorted(BUDGET))
def test_a_mini_variant_verifies_from_the_command_line(name: str, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    budget = BUDGET[name]
    args = ["verify", name, "--json", str(out)]
    if budget is not None:
        args += ["--max-states", str(budget)]
    done = subprocess.run(
        [sys.executable, "-m", "cardshop", *args],
        capture_output=True,
        text=True,
        timeout=1800,  # a hang guard: a run takes well under a minute
    )
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text())
    assert data["faults"] == []
    assert data["deals"] > 1
    assert data["chance_outcomes"] >= data["generated"]
    if budget is None:
        assert data["complete"]
        assert data["termination"] == "every line of play ends"
    else:
        assert not data["complete"]
        assert data["states"] >= budget
        assert data["exhaustive_to"] >= 1
        assert f"exhaustive to depth {data['exhaustive_to']}" in done.stdout
