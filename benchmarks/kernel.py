"""The Klunker batch kernel's speed: decisions per second per core, and simulate's
scaling from one worker to two (docs/kernel.md).

    python benchmarks/kernel.py                  # klunker-en, 4 players, random bots
    python benchmarks/kernel.py --games 400000 --variant klunker-es --players 6

Needs the ``kernel`` extra (numba). The first run compiles the kernel (a minute or
two; it is cached on disk), so the script warms it up before measuring.

* **kernel decisions/s per core**: ``kernel.play_arrays`` (no Python objects per game),
  CPU time of this process, median of the repeats;
* **kernel with outcomes**: ``kernel.play``, which also builds a ``GameOutcome`` per game;
* **simulate 1 vs 2 workers**: ``simulate(engine="kernel")`` wall time for the same
  games with ``workers=1`` and ``workers=2`` (the kernel runs without the GIL, so the
  two workers are threads of this process; their start is included), and their ratio
  (the median of ``--repeats`` pairs, one worker then two in each). The
  result keeps the kernel's rows and makes the ``GameOutcome`` objects when first
  read; the time of that first read is printed apart. On a machine shared with other
  work the ratio falls short of what two free cores give; the load average is printed
  with it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from cardshop import load_variant, simulate
from cardshop.klunker import kernel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="klunker-en")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--bots", default="random")
    parser.add_argument("--games", type=int, default=200_000, help="games for simulate()")
    parser.add_argument("--batch", type=int, default=20_000, help="games per kernel repeat")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    variant = load_variant(args.variant)
    bots = tuple(args.bots.split(","))
    kernel.play_arrays(variant, args.players, bots, 0, 0, 10)  # compile or load the cache

    rates = []
    with_outcomes = []
    for r in range(args.repeats):
        start = r * args.batch
        t0 = time.process_time()
        table, _ = kernel.play_arrays(variant, args.players, bots, 1, start, start + args.batch)
        t1 = time.process_time()
        rates.append(int(table[:, 2].sum()) / (t1 - t0))
        t0 = time.process_time()
        outcomes = list(kernel.play(variant, args.players, bots, 1, start, start + args.batch))
        t1 = time.process_time()
        with_outcomes.append(sum(o.decisions for o in outcomes) / (t1 - t0))
    print(f"{args.variant} {args.players}p bots={args.bots}, {os.cpu_count()} CPUs")
    print(
        f"kernel decisions/s per core: {statistics.median(rates):,.0f} "
        f"(min {min(rates):,.0f}, max {max(rates):,.0f}, {args.repeats} x {args.batch:,} games)"
    )
    print(f"kernel with GameOutcome objects: {statistics.median(with_outcomes):,.0f} decisions/s")

    ratios = []
    for _ in range(args.repeats):  # in turns, so that both see the same machine
        walls = {}
        for workers in (1, 2):
            t0 = time.perf_counter()
            sim = simulate(
                variant, args.players, args.games, bots, seed=2, workers=workers, engine="kernel"
            )
            walls[workers] = time.perf_counter() - t0
            t0 = time.perf_counter()
            decisions = sum(o.decisions for o in sim.outcomes)
            reading = time.perf_counter() - t0
            print(
                f"simulate workers={workers}: {args.games:,} games in {walls[workers]:.2f} s "
                f"wall, {decisions / walls[workers]:,.0f} decisions/s; reading them as "
                f"GameOutcome objects {reading:.2f} s more"
            )
        ratios.append(walls[1] / walls[2])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"simulate 2 workers / 1 worker: {statistics.median(ratios):.2f}x, median of "
        f"{len(ratios)} ({', '.join(f'{r:.2f}' for r in ratios)}; load average {load:.2f})"
    )


if __name__ == "__main__":
    main()
