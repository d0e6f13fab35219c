"""Two variants weighed together: the keys that differ, then their paired audit.

:func:`compare_variants` (``cardshop compare A B``, and ``cardshop audit A B``) lists
the key paths that differ (:func:`cardshop.variantdiff.diff_variants`), then audits
both variants on the same seeds and bots (:func:`~cardshop.audit.compare.run_comparison`)
and compares every measure, each seat's mean score among them, as the difference
B - A with its 95% interval.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardshop.audit.compare import ComparisonReport, run_comparison
from cardshop.audit.errors import AuditInterrupted
from cardshop.audit.report import AuditReport, PlayerCountReport
from cardshop.core.frontdoor import resolve
from cardshop.core.variant import VariantBase
from cardshop.measures import Difference, Measure, compare
from cardshop.support.stats import Z95, mean_ci
from cardshop.variantdiff import Change, changes_text, diff_variants

__all__ = ["PairedComparison", "compare_variants", "seat_means"]


def seat_means(pc: PlayerCountReport) -> dict[str, Measure]:
    """Each seat's mean final score over the games of one player count, with its 95%
    interval, by id ``mean_score_seat_<seat>``."""
    out: dict[str, Measure] = {}
    for seat in range(pc.players):
        scores = [float(g.scores[seat]) for g in pc.summaries if g.replay == 0]
        if not scores:
            continue
        mean, half = mean_ci(scores)
        bounded = half != float("inf")
        out[f"mean_score_seat_{seat}"] = Measure(
            f"mean_score_seat_{seat}",
            f"Mean score, seat {seat}",
            mean,
            mean - half if bounded else None,
            mean + half if bounded else None,
            "points",
            f"mean final score of seat {seat}",
            "normal",
            se=half / Z95,
        )
    return out


@dataclass(frozen=True, slots=True)
class PairedComparison(ComparisonReport):
    """A :class:`ComparisonReport` headed by the keys that differ (``changes``; None
    when the variants were not at hand, as for saved games), with each seat's mean
    score in both variants and its difference (``seats``, per player count)."""

    changes: tuple[Change, ...] | None = None
    seats: tuple[tuple[int, Mapping[str, Difference]], ...] = ()

    @classmethod
    def of(cls, a: AuditReport, b: AuditReport) -> PairedComparison:
        return cls.paired(a, b, None)

    @classmethod
    def paired(
        cls, a: AuditReport, b: AuditReport, changes: tuple[Change, ...] | None
    ) -> PairedComparison:
        """Compare two reports at the player counts they share, and their seats' mean
        scores; ``changes`` heads the report."""
        base = ComparisonReport.of(a, b)
        counts_a = {pc.players: pc for pc in a.player_counts}
        counts_b = {pc.players: pc for pc in b.player_counts}
        seats = tuple(
            (n, compare(seat_means(counts_a[n]), seat_means(counts_b[n])))
            for n, _ in base.differences
        )
        return cls(a, b, base.differences, changes, seats)

    def _seat_lines(self) -> list[str]:
        out = ["", "Mean score per seat, B-A with its 95% interval (* the interval excludes 0):"]
        for n, diffs in self.seats:
            out.append(f"  {n} players:")
            for seat, d in enumerate(diffs.values()):
                mark = "*" if d.significant else " "
                out.append(f"    {mark} seat {seat}  A {d.a:>8.2f}  B {d.b:>8.2f}  B-A {d.text()}")
        return out

    def to_text(self) -> str:
        """The keys that differ, the comparison's head, each seat's mean score, then
        every measure side by side (:meth:`ComparisonReport.to_text`)."""
        lines = ComparisonReport.to_text(self).split("\n")
        head = len(self._head())
        changes = [] if self.changes is None else [self._changes(), ""]
        return "\n".join([*changes, *lines[:head], *self._seat_lines(), *lines[head:]])

    def _changes(self) -> str:
        return changes_text(list(self.changes or ()), self.a.variant, self.b.variant)

    def to_markdown(self) -> str:
        out = [ComparisonReport.to_markdown(self), "", "### Mean score per seat", ""]
        out += ["| Players | Seat | A | B | B - A (95% CI) |", "| --- | --- | --- | --- | --- |"]
        for n, diffs in self.seats:
            for seat, d in enumerate(diffs.values()):
                diff = f"**{d.text()}**" if d.significant else d.text()
                out.append(f"| {n} | {seat} | {d.a:.2f} | {d.b:.2f} | {diff} |")
        if self.changes is not None:
            out += ["", "### Keys that differ", ""]
            out += [f"- `{c.text()}`: {c.meaning}" for c in self.changes] or ["None."]
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        """The comparison's JSON, with ``diff`` (the keys that differ, if known) and
        ``mean_score_by_seat`` (per player count, each seat's difference)."""
        data = ComparisonReport.to_dict(self)
        if self.changes is not None:
            data["diff"] = [c.to_dict() for c in self.changes]
        data["mean_score_by_seat"] = [
            {"players": n, "seats": [d.to_dict() for d in diffs.values()]}
            for n, diffs in self.seats
        ]
        return data


def compare_variants(
    a: VariantBase | str | Path,
    b: VariantBase | str | Path,
    *,
    players: Collection[int] | None = None,
    progress: Callable[[str], None] | None = None,
    **options: Any,
) -> PairedComparison:
    """The keys that differ from ``a`` to ``b``, then both audited on the same seeds
    and bots, every measure and each seat's mean score compared (``b - a`` with its
    95% interval). ``options`` are those of :func:`~cardshop.audit.run_audit` (games,
    seed, bots, examples, workers, ...). Variants of two families raise a
    :class:`~cardshop.SetupError` before any game is played.
    """
    sa, sb = resolve(a), resolve(b)
    changes = tuple(diff_variants(sa.variant, sb.variant))
    try:
        report = run_comparison(a, b, players=players, progress=progress, **options)
    except AuditInterrupted as stop:
        if isinstance(stop.report, ComparisonReport):
            partial = PairedComparison.paired(stop.report.a, stop.report.b, changes)
            raise AuditInterrupted(partial) from stop
        raise
    return PairedComparison.paired(report.a, report.b, changes)
