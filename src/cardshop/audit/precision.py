"""Audits that stop when they know: play until the intervals are narrow enough.

:func:`audit_to_precision` carries an audit out with more and more
games per player count until the 95% interval of every requested measure, at every
player count, has a half-width of at most ``precision`` (in the measure's unit: 0.02 is
two percentage points of a share), or the game cap is reached. Games are seeded by
their number, so each run plays the games of the one before and more: the final
report is exactly that of ``run_audit(..., games=N)`` for the ``N`` it reports. The
next count is estimated from the widest interval (a half-width shrinks as one over the
square root of the games), with 10% to spare and at least half again the games; the
state machine runs only in the last run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from cardshop.audit.errors import AuditError
from cardshop.audit.plan import AuditPlan, plan_audit
from cardshop.audit.report import AuditReport
from cardshop.audit.run import Say, carry_out

__all__ = ["DEFAULT_MEASURES", "audit_to_precision", "half_widths", "precision_reached"]

DEFAULT_MEASURES = ("win_share_*",)
"""Measures checked by default: the win share of every position (``*``: any suffix)."""
FIRST_GAMES = 100
"""Games per player count of the first run (by default)."""


def _wanted(names: Sequence[str], available: Sequence[str]) -> list[str]:
    out = []
    for name in names:
        if name.endswith("*"):
            out += [a for a in available if a.startswith(name[:-1])]
        elif name in available:
            out.append(name)
    return out


def half_widths(report: AuditReport, measures: Sequence[str]) -> dict[tuple[int, str], float]:
    """The half-width of each requested measure's 95% interval, by (players, measure)
    (infinite when the measure has no interval yet)."""
    out = {}
    for pc in report.player_counts:
        for key in _wanted(measures, list(pc.measures)):
            m = pc.measures[key]
            out[(pc.players, key)] = (
                math.inf if m.low is None or m.high is None else (m.high - m.low) / 2
            )
    return out


def precision_reached(report: AuditReport, precision: float, measures: Sequence[str]) -> bool:
    """Whether every requested measure's half-width is at most ``precision``."""
    widths = half_widths(report, measures)
    return bool(widths) and all(w <= precision for w in widths.values())


def audit_to_precision(
    variant: AuditPlan | Any,
    precision: float,
    *,
    measures: Sequence[str] | None = None,
    max_games: int = 100_000,
    examples: int = 50,
    progress: Say | None = None,
    first_games: int = FIRST_GAMES,
    **options: Any,
) -> AuditReport:
    """Audit ``variant`` with as many games as ``precision`` needs, at most ``max_games``
    per player count (see the module docstring). ``measures``: ids, a trailing ``*``
    matching any suffix (default :data:`DEFAULT_MEASURES`); ``options`` are
    :func:`~cardshop.audit.run_audit`'s; the first run plays ``first_games``. The report's
    ``games`` says how many were played. ``variant`` may be an audit's plan already
    made, whose ``games`` is then the cap and ``examples`` the state machine's.
    """
    if not isinstance(precision, (int, float)) or not precision > 0 or math.isinf(precision):
        raise AuditError(f"precision must be a number above 0, not {precision!r}")
    if not isinstance(variant, AuditPlan) and max_games < 1:
        raise AuditError(f"the game cap must be at least 1, not {max_games}")
    if isinstance(variant, AuditPlan):
        plan = variant
    else:
        plan = plan_audit(variant, games=max_games, examples=examples, **options)
    if plan.games < 1:
        raise AuditError(f"the game cap must be at least 1, not {plan.games}")
    wanted = tuple(measures or DEFAULT_MEASURES)
    first = min(max(1, first_games), plan.games)
    report = _to_precision(plan, precision, wanted, progress, first)
    if plan.examples:  # the state machine too, in the last run only
        return carry_out(plan.with_games(report.games), progress)
    return report


def _to_precision(
    plan: AuditPlan, precision: float, wanted: Sequence[str], progress: Say | None, games: int
) -> AuditReport:
    """Play more and more games (no state machine) until the precision is reached or the
    cap: the report of the last run."""
    say = progress or (lambda _line: None)
    while True:
        report = carry_out(plan.with_games(games, examples=0), progress)
        widths = half_widths(report, wanted)
        if not widths:
            raise AuditError(
                f"none of the measures {', '.join(wanted)} applies to these games "
                "(docs/measures.md lists the measure ids)"
            )
        widest = max(widths.values())
        say(
            f"precision: widest half-width {widest:.4f} after {games:,} games "
            f"(wanted {precision:g})"
        )
        if widest <= precision or games >= plan.games:
            return report
        need = games * (widest / precision) ** 2 * 1.1 if math.isfinite(widest) else 2 * games
        games = min(plan.games, max(math.ceil(need), math.ceil(1.5 * games)))


def precision_summary(
    report: AuditReport, precision: float, measures: Sequence[str] | None = None
) -> str:
    """One line: how many games the audit took and whether the precision was reached."""
    wanted = tuple(measures or DEFAULT_MEASURES)
    widths = half_widths(report, wanted)
    widest = max(widths.values(), default=math.inf)
    reached = "reached" if widest <= precision else "not reached (the game cap came first)"
    return (
        f"precision {precision:g} {reached}: {report.games:,} games per player count, "
        f"widest 95% half-width {widest:.4f} ({', '.join(wanted)})"
    )
