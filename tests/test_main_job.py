"""The README's main job: a seeded game of a built-in variant, printed move by move."""

from __future__ import annotations

import re
import subprocess
import sys


def demo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardshop", "demo", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,  # a hang guard: a demo takes seconds, this is 100 times that
    )


def test_demo_prints_every_move_and_the_final_scores() -> None:
    proc = demo("klunker-en", "--players", "4", "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    moves = re.findall(r"^  (fill|store|purchase|sell)\s+seat (\d): (.+)$", out, re.M)
    assert len(moves) > 50
    assert {seat for _, seat, _ in moves} == {"0", "1", "2", "3"}
    assert "Round 1" in out
    scores = re.findall(r"^  seat (\d): score (\d+) \(rank (\d)\)", out, re.M)
    assert sorted(seat for seat, _, _ in scores) == ["0", "1", "2", "3"]
    assert "winner" in out
    assert demo("klunker-en", "--players", "4", "--seed", "1").stdout == out
    assert demo("klunker-en", "--players", "4", "--seed", "2").stdout != out


def test_demo_user_error_is_one_paragraph_exit_2() -> None:
    proc = demo("klunker-en", "--players", "9")
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("cardshop: error:")
    assert "3 to 5 players" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    missing = demo("no-such-variant")
    assert missing.returncode == 2
    assert "unknown variant 'no-such-variant'" in missing.stderr
