"""A family installed from elsewhere is first class, through the command line as users run it.

The tests' tiny family is installed into a folder of its own, as a distribution with an
entry point in the group ``cardshop.families`` and its two variant files in its package
(``Family.variants``): nothing of cardshop names it. Each command runs in a real
subprocess with that folder on ``PYTHONPATH``, and must find the family's variants by
name, as it finds cardshop's own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TINY = Path(__file__).parent / "tinyfamily"
GUARD = 600  # seconds; each command takes about a second: a guard against hangs only


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plugin")
    shutil.copytree(TINY, root / "tinyfamily", ignore=shutil.ignore_patterns("__pycache__"))
    dist = root / "tinymarket-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tinymarket\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[cardshop.families]\ntinymarket = tinyfamily:FAMILY\n")
    return root


def run(plugin: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(p for p in (str(plugin), os.environ.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, "-m", "cardshop", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=GUARD,
        env={**os.environ, "PYTHONPATH": path},
        cwd=plugin.parent,  # not the repository: nothing is found by relative path
        check=False,
    )


def test_variants_lists_the_familys_named_variants(plugin: Path) -> None:
    done = run(plugin, "variants")
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line.split()[1] for line in done.stdout.splitlines()[:-1]}
    assert lines["tiny-seq"] == "tinymarket"
    assert lines["tiny-sim"] == "tinymarket"
    assert lines["klunker-en"] == "klunker"
    assert "tinymarket (sequential)" in done.stdout.splitlines()[-1]


def test_demo_show_and_simulate_find_the_variant_by_name(plugin: Path) -> None:
    demo = run(plugin, "demo", "tiny-seq", "--players", "2", "--seed", "1")
    assert demo.returncode == 0, demo.stderr
    assert "winners" in demo.stdout
    show = run(plugin, "show", "tiny-sim")
    assert show.returncode == 0, show.stderr
    assert "tinymarket" in show.stdout
    simulate = run(plugin, "simulate", "tiny-sim", "--players", "2", "--games", "12")
    assert simulate.returncode == 0, simulate.stderr
    assert "finished 12" in simulate.stdout


def test_play_seats_random_bots_for_a_family_without_a_greedy_one(plugin: Path) -> None:
    done = run(plugin, "play", "tiny-seq", "--players", "2", "--seed", "1", stdin="quit\n")
    assert done.returncode == 0, done.stderr
    assert "you are seat 0" in done.stdout
    assert "greedy" not in done.stderr


def test_load_variant_and_positions_know_the_name(plugin: Path) -> None:
    path = os.pathsep.join(p for p in (str(plugin), os.environ.get("PYTHONPATH", "")) if p)
    code = (
        "import cardshop\n"
        "v = cardshop.load_variant('tiny-seq')\n"
        "g = cardshop.new_game('tiny-seq', players=3, seed=2)\n"
        "again = cardshop.Game.from_position({**g.to_position(), 'variant': 'tiny-seq'})\n"
        "print(v.family, again.variant.name, again.to_dict() == g.to_dict())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=GUARD,
        env={**os.environ, "PYTHONPATH": path},
        cwd=plugin.parent,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["tinymarket", "tiny-seq", "True"]
