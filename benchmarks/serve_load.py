"""A load test of ``cardshop serve`` on loopback: many tables, bots and simulated clients.

Starts ``cardshop serve`` in a subprocess on 127.0.0.1 (a fresh SQLite file in a
temporary folder), opens ``--turn-tables`` Klunker tables (one simulated person and two
greedy bots each) and ``--tick-tables`` Wühltisch tables (three greedy bots on a clock of
``--tps`` ticks a second, a one-round variant sent as YAML), then runs at once: one
client per person seat that plays a random legal action as soon as its turn comes,
``--watchers`` spectators per Wühltisch table, and ``--hostile`` clients that send
malformed, out-of-place and unauthorised messages all along. It stops by itself after
``--seconds`` (or when every game is over) and prints one JSON object: tables, actions
applied per second (every seat's, bots' included), the person's latency per action
(sending ``act`` to receiving the state that follows it) at p50/p99, and the hostile
messages sent and refused::

    python benchmarks/serve_load.py --turn-tables 40 --tick-tables 20 --seconds 20

Nothing leaves the machine: the server listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from _serve import http, served
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from cardshop.serve.app import RATE

WUHLTISCH = """\
extends: wuhltisch
name: wuhltisch-load
title: Wühltisch, one round (load test)
rounds: 1
round_ticks: 400
"""
PACE = 1.25 / RATE
"""The least time between two actions of one simulated person: within the server's
limit on messages a second, as any person's client is (a fast machine would otherwise
have its clients answer faster than a person could, and be refused for it)."""


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    messages: int = 0
    unexpected_errors: list[str] = field(default_factory=list)
    hostile_sent: int = 0
    hostile_refused: int = 0
    finished: int = 0


async def person(url: str, token: str, stats: Stats, stop: float, seed: int) -> None:
    rng = random.Random(seed)
    sent_at: float | None = None
    sent_step = -1
    last_sent = 0.0
    async with connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        last_sent = time.monotonic()
        while time.monotonic() < stop:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=max(0.01, stop - time.monotonic()))
            except TimeoutError:
                break
            now = time.monotonic()
            stats.messages += 1
            message = json.loads(raw)
            if message["type"] == "error":
                stats.unexpected_errors.append(message["message"])
                sent_at = None
                continue
            if message["type"] != "state":
                continue
            if sent_at is not None and message["step"] > sent_step:
                stats.latencies.append(now - sent_at)
                sent_at = None
            if message["over"]:
                stats.finished += 1
                return
            if sent_at is None and message["legal"] is not None:
                action = rng.choice(message["legal"]["actions"])
                await asyncio.sleep(max(0.0, last_sent + PACE - time.monotonic()))
                sent_step, sent_at = message["step"], time.monotonic()
                last_sent = sent_at
                await ws.send(json.dumps({"type": "act", "action": action, "step": sent_step}))


async def watcher(url: str, stats: Stats, stop: float) -> None:
    async with connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello"}))
        while time.monotonic() < stop:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=max(0.01, stop - time.monotonic()))
            except TimeoutError:
                break
            stats.messages += 1
            if json.loads(raw).get("over"):
                return


HOSTILE = [
    "not json",
    "[]",
    json.dumps({"type": "act", "action": "look"}),  # a spectator acts
    json.dumps({"type": "act", "action": "look", "seat": 0}),
    json.dumps({"type": "hello", "token": "x"}),
    json.dumps({"type": "legal"}),
    "z" * 20_000,
]


async def hostile(url: str, stats: Stats, stop: float) -> None:
    async with connect(url, max_size=None) as ws:  # a made-up token: refused, closed
        await ws.send(json.dumps({"type": "hello", "token": "made-up-token"}))
        stats.hostile_sent += 1
        try:
            while True:
                if json.loads(await ws.recv()).get("type") == "error":
                    stats.hostile_refused += 1
        except ConnectionClosed:
            pass
    async with connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "hello"}))
        i = 0
        pending = 0
        while time.monotonic() < stop:
            await ws.send(HOSTILE[i % len(HOSTILE)])
            i += 1
            stats.hostile_sent += 1
            pending += 1
            await asyncio.sleep(0.1)
            while True:
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=0.001)
                except TimeoutError:
                    break
                if json.loads(raw).get("type") == "error":
                    stats.hostile_refused += 1
                    pending -= 1
        deadline = time.monotonic() + 5
        while pending > 0 and time.monotonic() < deadline:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=1)
            except TimeoutError:
                break
            if json.loads(raw).get("type") == "error":
                stats.hostile_refused += 1
                pending -= 1


async def run(args: argparse.Namespace, base: str) -> dict[str, Any]:
    ws_base = base.replace("http://", "ws://")
    turn, tick = [], []
    for i in range(args.turn_tables):
        table = await asyncio.to_thread(
            http,
            base + "api/tables",
            {"variant": "klunker-en", "seats": ["human", "greedy", "greedy"], "seed": i,
             "bot_delay": 0},
        )  # fmt: skip
        claim = await asyncio.to_thread(http, base + f"api/tables/{table['id']}/claim", {"seat": 0})
        turn.append((table["id"], claim["token"]))
    for i in range(args.tick_tables):
        table = await asyncio.to_thread(
            http,
            base + "api/tables",
            {"variant_yaml": WUHLTISCH, "seats": ["greedy"] * 3, "seed": i,
             "ticks_per_second": args.tps},
        )  # fmt: skip
        tick.append(table["id"])
    stats = Stats()
    started = time.monotonic()
    stop = started + args.seconds
    tasks = [person(f"{ws_base}ws/{t}", token, stats, stop, n) for n, (t, token) in
             enumerate(turn)]  # fmt: skip
    tasks += [watcher(f"{ws_base}ws/{t}", stats, stop) for t in tick for _ in range(args.watchers)]
    targets = [t for t, _ in turn] + tick
    tasks += [hostile(f"{ws_base}ws/{targets[i % len(targets)]}", stats, stop)
              for i in range(args.hostile)]  # fmt: skip
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=args.seconds + 30)
    elapsed = time.monotonic() - started
    tables = {t["id"]: t for t in (await asyncio.to_thread(http, base + "api/tables"))["tables"]}
    actions = sum(tables[t]["step"] for t, _ in turn) + sum(3 * tables[t]["step"] for t in tick)
    lat = sorted(stats.latencies)
    cuts = statistics.quantiles(lat, n=100) if len(lat) >= 2 else lat * 99
    return {
        "tables": len(turn) + len(tick),
        "turn_tables": len(turn),
        "tick_tables": len(tick),
        "ticks_per_second": args.tps,
        "clients": len(tasks),
        "seconds": round(elapsed, 2),
        "actions": actions,
        "actions_per_second": round(actions / elapsed, 1),
        "person_actions": len(lat),
        "latency_ms": {
            "p50": round(1000 * statistics.median(lat), 2) if lat else None,
            "p99": round(1000 * cuts[98], 2) if lat else None,
            "max": round(1000 * lat[-1], 2) if lat else None,
        },
        "messages_received": stats.messages,
        "games_finished": stats.finished + sum(1 for t in tick if tables[t]["over"]),
        "hostile_sent": stats.hostile_sent,
        "hostile_refused": stats.hostile_refused,
        "unexpected_errors": stats.unexpected_errors[:10],
        "stopped_tables": [t for t in tables.values() if t["error"]],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turn-tables", type=int, default=40)
    parser.add_argument("--tick-tables", type=int, default=20)
    parser.add_argument("--tps", type=float, default=10.0)
    parser.add_argument("--watchers", type=int, default=2)
    parser.add_argument("--hostile", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    if not (0 < args.seconds <= 300 and 0 <= args.turn_tables + args.tick_tables <= 1000):
        parser.error("at most 300 seconds and 1000 tables")
    options = ["--max-tables-per-client", "0"]  # every table is opened from here
    report = served(options, lambda base: asyncio.run(run(args, base)))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
