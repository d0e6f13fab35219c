"""``benchmarks/envs.py --quick`` runs end to end and reports every subject (no timing
is checked: a quick run's figures mean nothing)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("benchmarks-envs-smoke")

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "envs.py"
CLASSIC = ("pettingzoo tictactoe_v3", "pettingzoo connect_four_v3")

# The variants the benchmark's own process knows (this one may know more: a test may
# have registered a family here), with their fewest players and whether their family
# offers factored actions.
INSTALLED = """
import json, cardshop
from cardshop.core.registry import get_family
print(json.dumps([
    [name, variant.players.min, get_family(variant.family).factored is not None]
    for name in cardshop.builtin_variants()
    for variant in [cardshop.load_variant(name)]
]))
"""


def test_quick_run_measures_every_variant_both_ways_and_the_classic_games(tmp_path: Path) -> None:
    out = tmp_path / "envs.json"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: the quick run takes about 15 s of wall time
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["machine"]["cpu"]
    rows = {(r["subject"], r["api"]): r for r in report["rows"]}
    installed = subprocess.run(
        [sys.executable, "-c", INSTALLED],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard
        check=True,
    )
    for name, fewest, factored in json.loads(installed.stdout):
        label = f"cardshop {name} {fewest}p"
        labels = [label]
        if factored:
            labels.append(f"{label} factored")
        for subject in labels:
            for api in ("AEC", "Parallel"):
                row = rows[(subject, api)]
                assert row["median"] > 0
                assert row["steps_per_game"] > 0
    have_pygame = importlib.util.find_spec("pygame") is not None
    for subject in CLASSIC:
        for api in ("AEC", "Parallel"):
            row = rows[(subject, api)]
            if have_pygame:
                assert row["median"] > 0
            else:
                assert "pygame" in row["skipped"]
    assert f"wrote {out}" in done.stdout


def test_bad_budgets_are_usage_errors() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--seconds", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard: it ends at once
        check=False,
    )
    assert done.returncode == 2
    assert "--seconds must be" in done.stderr
