"""The load tests of ``cardshop serve`` (benchmarks/serve_load.py, serve_flood.py) run end
to end, small: a real server subprocess on 127.0.0.1, many tables, bots, people,
spectators and hostile clients at once; junk frames and searching bots beside tables
whose clients ping. No timing is checked: every person's action and every ping is
answered, every hostile message is refused, no table stops and the server logs no
error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.xdist_group("serve-load"), pytest.mark.build_independent]

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "serve_load.py"
FLOOD = SCRIPT.with_name("serve_flood.py")


def test_many_tables_bots_and_clients_at_once() -> None:
    command = [sys.executable, str(SCRIPT), "--turn-tables", "8", "--tick-tables", "4",
               "--tps", "20", "--watchers", "2", "--hostile", "3", "--seconds", "4"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)  # hang guard; ~10 s
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["tables"] == 12
    assert report["clients"] == 8 + 4 * 2 + 3
    assert report["person_actions"] > 0
    assert report["actions"] >= report["person_actions"]
    assert report["latency_ms"]["p50"] <= report["latency_ms"]["p99"] <= report["latency_ms"]["max"]
    assert report["hostile_sent"] > 3
    assert report["hostile_refused"] == report["hostile_sent"]
    assert report["unexpected_errors"] == []
    assert report["stopped_tables"] == []
    assert report["server_errors"] == ""


def test_junk_and_searching_bots_beside_tables_that_ping() -> None:
    command = [sys.executable, str(FLOOD), "--quiet-tables", "3", "--search-tables", "1",
               "--budget", "0.2s", "--flooders", "3", "--seconds", "3"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)  # hang guard
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    for phase in ("calm", "loaded"):
        figures = report[phase]
        assert figures["pings_sent"] >= 3
        assert figures["pongs"] == figures["pings_sent"]  # every ping answered
        trip = figures["round_trip_ms"]
        assert trip["p50"] <= trip["p99"] <= trip["max"]
    assert report["junk_frames_sent"] > 0
    assert report["flood_connections"] > 3  # oversized frames closed connections
    assert report["search_steps"] >= 1  # the bots searched, and played on
    assert report["stopped_tables"] == []
    assert report["server_errors"] == ""
