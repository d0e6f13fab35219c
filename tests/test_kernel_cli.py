"""``cardshop simulate --engine``: the kernel and the reference engine write the same
games; a kernel that cannot play them is one paragraph and exit 2 (real processes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba", reason="the kernel extra (numba) is not installed")


def cardshop(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardshop", *args],
        capture_output=True,
        text=True,
        timeout=1800,  # a hang guard: seconds, a minute when the kernel compiles first
        check=False,
    )


def test_both_engines_write_the_same_games(tmp_path: Path) -> None:
    games = {}
    for engine in ("kernel", "reference"):
        out = tmp_path / f"{engine}.json"
        proc = cardshop(
            "simulate", "klunker-en", "-p", "3", "-n", "60", "-b", "greedy,random",
            "-s", "5", "-w", "1", "-q", "--engine", engine, "--json", str(out),
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert f"engine: {engine}" in proc.stdout
        games[engine] = json.loads(out.read_text())["games"]
    assert len(games["kernel"]) == 60
    assert games["kernel"] == games["reference"]


def test_auto_says_why_it_used_the_reference_engine() -> None:
    proc = cardshop("simulate", "klunker-en", "-p", "3", "-n", "3", "-w", "1", "-q")
    assert proc.returncode == 0, proc.stderr
    assert "engine: reference (fewer than 500 games" in proc.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["klunker-en", "-b", "thrifty", "--engine", "kernel"], "not 'thrifty'"),
        (["reglamentacja", "-p", "3", "-b", "ismcts:5", "--engine", "kernel"], "not 'ismcts:5'"),
        (["wuhltisch", "-p", "2", "-b", "ismcts:5", "--engine", "kernel"], "not 'ismcts:5'"),
        (["klunker-en", "--engine", "turbo"], "--engine must be one of auto, kernel, reference"),
    ],
)
def test_an_engine_that_cannot_play_is_a_user_error(args: list[str], fragment: str) -> None:
    proc = cardshop("simulate", *args, "-n", "5", "-q")
    assert proc.returncode == 2
    text = proc.stderr.strip()
    assert text.startswith("cardshop: error: ")
    assert "Traceback" not in text
    assert "\n\n" not in text
    assert fragment in text
