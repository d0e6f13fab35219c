"""`cardshop audit wuhltisch` passes at every player count, run as a real command.

Greedy players keep it short (a random game lasts some ten thousand ticks): one game
per player count and one state machine run; the full audit and its findings are in
docs/audits.md."""

from __future__ import annotations

import json
import subprocess
import sys


def test_the_audit_command_passes_for_2_to_5_players() -> None:
    counts = ["--players", "2", "--players", "3", "--players", "4", "--players", "5"]
    proc = subprocess.run(
        [sys.executable, "-m", "cardshop", "audit", "wuhltisch", *counts, "--games", "1",
         "--examples", "1", "--bots", "greedy", "--check-every", "50", "--seed", "0",
         "--json", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] is True
    (variant,) = report["variants"]
    assert variant["family"] == "wuhltisch"
    held = {inv["name"]: inv["held"] for inv in variant["invariants"]}
    assert {"conservation", "hand-size", "score-bounds", "caller-rule"} <= set(held)
    assert all(held.values())
    assert [pc["players"] for pc in variant["player_counts"]] == [2, 3, 4, 5]
    for pc in variant["player_counts"]:
        assert pc["games"] == 1
        assert pc["unfinished"] == 0
        assert pc["capped"] == 0
        assert pc["rounds"]["mean"] == 4
        assert pc["ticks"]["mean"] > 0
