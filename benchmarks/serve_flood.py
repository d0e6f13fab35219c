"""How ``cardshop serve`` answers everyone else while junk floods in and bots search.

Starts ``cardshop serve`` in a subprocess on 127.0.0.1 (a fresh SQLite file in a
temporary folder) and opens ``--quiet-tables`` Klunker tables whose clients only
ping (one ping every ``--every`` seconds each, timed from sending ``ping`` to
receiving its ``pong``). It measures those pings twice, ``--seconds`` each: first
with nothing else running, then with, at the same time, ``--search-tables`` Wühltisch
tables of two ISMCTS bots searching ``--budget`` a decision (the server's bot budget
is set to it) on a clock of 50 ticks a second, and ``--flooders`` clients sending junk
as fast as their connections take it: text that is not JSON, binary frames, unknown
message types, oversized messages and frames over the WebSocket limit (which close
the connection; the flooder connects again). It prints one JSON object: for each
phase, pings sent and answered and their round trip at p50/p99/max in milliseconds;
the junk frames sent and the steps the search tables played::

    python benchmarks/serve_flood.py --seconds 20

Nothing leaves the machine: the server listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from _serve import START_GUARD, http, served
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

JUNK: list[str | bytes] = [
    "not json at all",
    b"\x00\x01\x02binary",
    json.dumps({"type": "dance"}),
    json.dumps({"type": "act", "action": "look", "step": "0"}),
    "[" * 5000,
    "y" * 20_000,  # over the protocol's 16 KiB: refused with an error
    "z" * 1_100_000,  # over the WebSocket limit: the connection is closed
]


@dataclass
class Phase:
    sent: int = 0
    round_trips: list[float] = field(default_factory=list)


@dataclass
class Flood:
    frames: int = 0
    connections: int = 0


async def pinger(url: str, phase: Phase, stop: float, every: float) -> None:
    async with connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello"}))
        while time.monotonic() < stop:
            sent = time.monotonic()
            await ws.send(json.dumps({"type": "ping"}))
            phase.sent += 1
            while True:  # states may come first
                message = json.loads(await ws.recv())
                if message["type"] == "pong":
                    phase.round_trips.append(time.monotonic() - sent)
                    break
            await asyncio.sleep(max(0.0, sent + every - time.monotonic()))


async def flooder(url: str, flood: Flood, stop: float) -> None:
    n = 0
    while time.monotonic() < stop:
        try:
            async with connect(url, max_size=None) as ws:
                flood.connections += 1
                await ws.send(json.dumps({"type": "hello"}))
                while time.monotonic() < stop:
                    await ws.send(JUNK[n % len(JUNK)])
                    n += 1
                    flood.frames += 1
                    await asyncio.sleep(0)
        except (ConnectionClosed, InvalidHandshake, OSError):
            await asyncio.sleep(0.01)


async def measure(ws_base: str, quiet: list[str], stop: float, every: float, phase: Phase) -> None:
    await asyncio.gather(*(pinger(f"{ws_base}ws/{t}", phase, stop, every) for t in quiet))


def _summary(phase: Phase) -> dict[str, Any]:
    trips = sorted(phase.round_trips)
    cuts = statistics.quantiles(trips, n=100, method="inclusive") if len(trips) >= 2 else trips * 99
    return {
        "pings_sent": phase.sent,
        "pongs": len(trips),
        "round_trip_ms": {
            "p50": round(1000 * statistics.median(trips), 2) if trips else None,
            "p99": round(1000 * cuts[98], 2) if trips else None,
            "max": round(1000 * trips[-1], 2) if trips else None,
        },
    }


async def run(args: argparse.Namespace, base: str) -> dict[str, Any]:
    ws_base = base.replace("http://", "ws://")
    quiet = []
    for i in range(args.quiet_tables):
        table = await asyncio.to_thread(
            http, base + "api/tables", {"variant": "klunker-en", "seats": ["human"] * 3, "seed": i}
        )
        quiet.append(table["id"])
    calm = Phase()
    stop = time.monotonic() + args.seconds
    await asyncio.wait_for(
        measure(ws_base, quiet, stop, args.every, calm), timeout=args.seconds + START_GUARD
    )
    searching = []
    bot = f"ismcts:{args.budget}"
    for i in range(args.search_tables):
        table = await asyncio.to_thread(
            http,
            base + "api/tables",
            {"variant": "wuhltisch", "seats": [bot, bot], "seed": i, "ticks_per_second": 50},
        )
        searching.append(table["id"])
    loaded, flood = Phase(), Flood()
    stop = time.monotonic() + args.seconds
    targets = quiet + searching
    floods = [flooder(f"{ws_base}ws/{targets[i % len(targets)]}", flood, stop)
              for i in range(args.flooders)]  # fmt: skip
    await asyncio.wait_for(
        asyncio.gather(measure(ws_base, quiet, stop, args.every, loaded), *floods),
        timeout=args.seconds + START_GUARD,
    )
    tables = {t["id"]: t for t in (await asyncio.to_thread(http, base + "api/tables"))["tables"]}
    return {
        "quiet_tables": len(quiet),
        "search_tables": len(searching),
        "bot": bot,
        "flooders": args.flooders,
        "seconds_per_phase": args.seconds,
        "ping_every_s": args.every,
        "calm": _summary(calm),
        "loaded": _summary(loaded),
        "junk_frames_sent": flood.frames,
        "flood_connections": flood.connections,
        "search_steps": sum(tables[t]["step"] for t in searching),
        "stopped_tables": [t["id"] for t in tables.values() if t["error"]],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quiet-tables", type=int, default=10)
    parser.add_argument("--search-tables", type=int, default=1)
    parser.add_argument("--budget", default="1s", help="each bot's ISMCTS budget")
    parser.add_argument("--flooders", type=int, default=5)
    parser.add_argument("--every", type=float, default=0.1, help="seconds between pings")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    args = parser.parse_args()
    if not (0 < args.seconds <= 300 and 1 <= args.quiet_tables <= 100):
        parser.error("at most 300 seconds a phase and 1 to 100 quiet tables")
    if not (0 <= args.search_tables <= 20 and 0 <= args.flooders <= 100 and args.every >= 0.06):
        parser.error("at most 20 search tables and 100 flooders; pings at most every 0.06 s")
    options = ["--max-bot-budget", args.budget, "--max-tables-per-client", "0"]
    report = served(options, lambda base: asyncio.run(run(args, base)))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
