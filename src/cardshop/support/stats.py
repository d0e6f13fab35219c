"""The confidence intervals of the reports: one method for each kind of estimate.

* A proportion (a win rate, the share of capped games): the Wilson score interval,
  which stays inside [0, 1] and does not collapse to a point at 0 or 1 successes.
* A mean (a score): the mean plus or minus 1.96 standard errors.

Both are 95% intervals. ``cardshop.audit`` and ``cardshop.simulation`` use these
functions, so the command line reports one kind of interval for one kind of number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Z95", "Interval", "mean_ci", "wilson"]

Z95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


@dataclass(frozen=True, slots=True)
class Interval:
    """An estimate with its 95% confidence interval ``[low, high]``."""

    estimate: float
    low: float
    high: float

    def __str__(self) -> str:
        """As a percentage: ``25.0% [24.6, 25.4]`` (the interval in percent too)."""
        return f"{100 * self.estimate:.1f}% [{100 * self.low:.1f}, {100 * self.high:.1f}]"

    def to_dict(self) -> dict[str, float]:
        return {
            "estimate": round(self.estimate, 6),
            "low": round(self.low, 6),
            "high": round(self.high, 6),
        }


def wilson(successes: float, trials: int, z: float = Z95) -> Interval:
    """The Wilson score interval of ``successes`` out of ``trials``.

    ``successes`` may be fractional (a win shared by two seats counts one half to
    each). With no trials the interval is the whole of [0, 1].
    """
    if trials <= 0:
        return Interval(0.0, 0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes {successes} is not within 0..{trials}")
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    # The ends are exact at none and at all successes (centre - half is 0 there only up
    # to rounding), so that the estimate is never outside its own interval.
    if successes == 0:
        return Interval(0.0, 0.0, min(1.0, centre + half))
    if successes == trials:
        return Interval(1.0, 1.0 - wilson(0, trials, z).high, 1.0)
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(values: Sequence[float]) -> tuple[float, float]:
    """Mean and half-width of its 95% confidence interval (normal approximation).

    No values: ``(nan, nan)``; one value: an infinite half-width.
    """
    n = len(values)
    if n == 0:
        return (math.nan, math.nan)
    mean = sum(values) / n
    if n == 1:
        return (mean, math.inf)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return (mean, Z95 * math.sqrt(var / n))
