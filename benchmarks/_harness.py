"""Timing helpers for the benchmark suite: warm-up, calibration, median of repeats.

Every figure is measured the same way: one warm-up run that also calibrates how much
work fills the time budget of a repeat, then ``repeats`` runs of exactly that work
(the same seeds, the same states), and the median of the per-run rates. The spread
(min and max of the repeats) is kept so that a reader can see how noisy a machine was.

Time is the CPU time of this process (:data:`CLOCK`, ``time.process_time``), not wall
time: on a small shared machine other processes take turns on the cores, which
inflates wall time but hardly CPU time. Only the multi-process ``simulate()`` figures
use wall time.
"""

from __future__ import annotations

import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CLOCK", "Budget", "Rate", "measure_per_call", "measure_rate"]

CLOCK = time.process_time
"""The clock of every single-process figure: CPU seconds of this process."""


@dataclass(frozen=True)
class Budget:
    """How long to measure: seconds of work per repeat, and how many repeats."""

    seconds: float
    repeats: int


@dataclass(frozen=True)
class Rate:
    """Units of work per second over repeats: the median and the spread."""

    median: float
    low: float
    high: float
    units_per_run: int

    def as_dict(self) -> dict[str, float | int]:
        return {
            "median": self.median,
            "min": self.low,
            "max": self.high,
            "units_per_run": self.units_per_run,
        }


def measure_rate(run: Callable[[int], int | tuple[int, float]], budget: Budget) -> Rate:
    """Measure ``run(size)`` as units of work per second.

    ``run`` returns the units done, or ``(units, seconds)`` when it times itself (to
    leave out preparation it must do afresh each time). ``size`` is how many items of
    work to do (games, passes over a list of states); the warm-up doubles it until one
    run takes a tenth of the budget, then sizes the repeats to fill the budget. Each
    repeat does the same work.
    """

    def timed(size: int) -> tuple[int, float]:
        start = CLOCK()
        done = run(size)
        elapsed = CLOCK() - start
        if isinstance(done, tuple):
            return done
        return done, elapsed

    size = 1
    while True:
        _, elapsed = timed(size)
        if elapsed >= budget.seconds / 10 or size >= 1 << 24:
            break
        size *= 2
    size = max(1, round(size * budget.seconds / max(elapsed, 1e-9)))
    rates = []
    units = 0
    for _ in range(budget.repeats):
        units, elapsed = timed(size)
        rates.append(units / max(elapsed, 1e-9))
    return Rate(statistics.median(rates), min(rates), max(rates), units)


def measure_per_call(
    run: Callable[[int], int | tuple[int, float]], budget: Budget
) -> dict[str, float | int]:
    """Microseconds per call of ``run(size) -> calls made``: median, min and max."""
    rate = measure_rate(run, budget)
    return {
        "us": 1e6 / rate.median,
        "us_min": 1e6 / rate.high,
        "us_max": 1e6 / rate.low,
        "calls_per_run": rate.units_per_run,
    }


def cpu_model() -> str:
    """The processor's model name (Linux's /proc/cpuinfo), for the machine line of a
    benchmark's report."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
