"""Two variants audited on the same seeds and bots, and reports from saved games."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardshop.audit.errors import AuditError, AuditInterrupted
from cardshop.audit.plan import plan_audit
from cardshop.audit.report import (
    AuditReport,
    summarise,
)
from cardshop.audit.run import carry_out
from cardshop.core.errors import SetupError
from cardshop.core.frontdoor import resolve
from cardshop.core.registry import get_family
from cardshop.core.variant import VariantBase
from cardshop.measures import (
    Difference,
    GamesSection,
    GameSummary,
    compare,
    read_games,
    write_games,
)

__all__ = ["ComparisonReport", "report_from_games", "run_comparison"]


# ---------------------------------------------------------------- comparison


@dataclass(frozen=True, slots=True)
class ComparisonReport:
    """Two variants audited on the same seeds and bots, measure by measure.

    ``differences`` holds, for each player count both were audited at, every measure
    of both as :class:`cardshop.measures.Difference` (``b - a``, with its interval).
    """

    a: AuditReport
    b: AuditReport
    differences: tuple[tuple[int, Mapping[str, Difference]], ...]

    @classmethod
    def of(cls, a: AuditReport, b: AuditReport) -> ComparisonReport:
        """Compare two reports at the player counts they share."""
        theirs = {pc.players: pc for pc in b.player_counts}
        pairs = tuple(
            (pc.players, compare(pc.measures, theirs[pc.players].measures))
            for pc in a.player_counts
            if pc.players in theirs
        )
        return cls(a, b, pairs)

    @property
    def ok(self) -> bool:
        return self.a.ok and self.b.ok

    @property
    def partial(self) -> bool:
        """Whether the audit of either variant was stopped before its end."""
        return self.a.partial or self.b.partial

    def command(self) -> str:
        if self.a.source:
            return self.a.command()
        first = self.a.command()
        return first.replace(
            f"audit {self.a.variant} ", f"audit {self.a.variant} {self.b.variant} ", 1
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data in the versioned report format, with the comparison."""
        data = self.a.to_dict()
        data["command"] = self.command()
        data["ok"] = self.ok
        data["partial"] = self.partial
        data["variants"] = [self.a.variant_dict(), self.b.variant_dict()]
        data["comparison"] = {
            "a": self.a.variant,
            "b": self.b.variant,
            "player_counts": [
                {"players": n, "measures": {k: d.to_dict() for k, d in diffs.items()}}
                for n, diffs in self.differences
            ],
        }
        return data

    def games_sections(self) -> list[GamesSection]:
        return [self.a.games_section(), self.b.games_section()]

    def save_games(self, path: str | Path) -> None:
        """Write both variants' game summaries to one file (two sections)."""
        write_games(self.games_sections(), path)

    def _head(self) -> list[str]:
        out = [f"Comparison of {self.a.name} (A) and {self.b.name} (B)", self.command(), ""]
        for tag, r in (("A", self.a), ("B", self.b)):
            held = (
                "not checked"
                if r.source
                else (
                    "all held"
                    if not r.violations
                    else "VIOLATED: " + ", ".join(f.name for f in r.violations)
                )
            )
            capped = sum(pc.capped for pc in r.player_counts)
            total = sum(pc.games for pc in r.player_counts)
            out.append(
                f"{tag}: {r.variant} ({r.title or r.name}), hash {r.content_hash[:12]}; "
                f"invariants {held}; {capped} of {total} games capped"
            )
        out += [
            f"{tag}: {r.partial_text()}" for tag, r in (("A", self.a), ("B", self.b)) if r.partial
        ]
        out += [
            f"{tag}: variant warning (shown; it does not fail the audit): {warning}"
            for tag, r in (("A", self.a), ("B", self.b))
            for warning in r.warnings
        ]
        return out

    def to_text(self) -> str:
        """Side by side for a terminal; ``*`` marks a difference whose interval excludes 0."""
        out = self._head()
        for n, diffs in self.differences:
            games = next(pc.games for pc in self.a.player_counts if pc.players == n)
            out += ["", f"{n} players: {games} games each (bots: {self.a.policy})"]
            if not diffs:
                continue
            width = max(len(d.label) for d in diffs.values())
            for d in diffs.values():
                mark = "*" if d.significant else " "
                a = _value_text(d.a, d.unit)
                b = _value_text(d.b, d.unit)
                out.append(f"  {mark} {d.label:<{width}}  A {a:>8}  B {b:>8}  B-A {d.text()}")
        out += [
            "",
            "* the 95% interval of the difference B-A excludes 0",
            "Result: " + ("ok" if self.ok else "FAILED"),
        ]
        return "\n".join(out)

    def to_markdown(self) -> str:
        """Side by side as Markdown; significant differences in bold."""
        out = [f"## Comparison of `{self.a.name}` (A) and `{self.b.name}` (B)", ""]
        out += ["```", self.command(), "```", ""]
        out += [f"- {line}" for line in self._head()[3:]]
        for n, diffs in self.differences:
            out += ["", f"### {n} players", ""]
            out += ["| Measure | A | B | B - A (95% CI) |", "| --- | --- | --- | --- |"]
            for d in diffs.values():
                diff = f"**{d.text()}**" if d.significant else d.text()
                out.append(
                    f"| {d.label} | {_value_text(d.a, d.unit)} | {_value_text(d.b, d.unit)} "
                    f"| {diff} |"
                )
        out += ["", "Bold: the 95% interval of the difference excludes 0."]
        return "\n".join(out)


def _value_text(value: float, unit: str) -> str:
    if unit == "share":
        return f"{100 * value:.1f}%"
    return f"{value:.3f}" if unit == "ratio" else f"{value:.2f}"


def run_comparison(
    a: VariantBase | str | Path,
    b: VariantBase | str | Path,
    *,
    players: Collection[int] | None = None,
    progress: Callable[[str], None] | None = None,
    **options: Any,
) -> ComparisonReport:
    """Audit two variants on the same seeds and bots and compare their measures.

    ``players`` defaults to the player counts both variants allow; ``options`` are
    those of :func:`run_audit` (games, seed, examples, bots, ...), the same for both.
    Both variants must be of one family (the same bots, comparable rounds) and allow
    every player count asked for; either problem raises :class:`AuditError` before
    any game is played.
    """
    sa, sb = resolve(a), resolve(b)
    va, vb = sa.variant, sb.variant
    if va.family != vb.family:
        raise AuditError(
            f"{va.name} is a {va.family} variant and {vb.name} a {vb.family} variant: "
            "only variants of one family can be compared (the same bots on the same "
            "seeds); audit each one on its own"
        )
    low = max(va.players.min, vb.players.min)
    high = min(va.players.max, vb.players.max)
    if low > high:
        raise AuditError(
            f"{va.name} ({va.players.min}-{va.players.max} players) and {vb.name} "
            f"({vb.players.min}-{vb.players.max}) share no player count to compare"
        )
    if players is None:
        players = range(low, high + 1)
    bad = sorted({n for n in players if not low <= n <= high})
    if bad:
        raise AuditError(
            f"{va.name} ({va.players.min}-{va.players.max} players) and {vb.name} "
            f"({vb.players.min}-{vb.players.max}) can be compared at {low} to {high} "
            f"players, not {', '.join(map(str, bad))}"
        )
    say = progress or (lambda _line: None)
    played = options.pop("played", None)
    plans = [plan_audit(subject, players=players, **options) for subject in (sa, sb)]
    reports: list[AuditReport] = []
    for tag, plan in zip("AB", plans, strict=True):

        def tell(line: str, tag: str = tag, name: str = plan.subject.variant.name) -> None:
            say(f"{tag} ({name}): {line}")

        try:
            reports.append(carry_out(plan, tell, played))
        except AuditInterrupted as stop:
            if reports and isinstance(stop.report, AuditReport):  # stopped in B
                raise AuditInterrupted(ComparisonReport.of(reports[0], stop.report)) from stop
            raise  # stopped in A: its partial report is all there is
    return ComparisonReport.of(reports[0], reports[1])


def _length_unit(family: str) -> str:
    """The unit of length of the family named (a round unless it says otherwise, and for
    a family not registered in this process)."""
    try:
        return get_family(family).length_unit
    except SetupError:
        return "round"


def report_from_games(path: str | Path) -> AuditReport | ComparisonReport:
    """The report of games saved with ``--save-games`` (:meth:`AuditReport.save_games`).

    The measures are computed again from the summaries; no game is played and the
    invariants are not checked again (the report lists none). One section gives an
    :class:`AuditReport`, two a :class:`ComparisonReport`.
    """
    sections = read_games(path)
    families = [section.header["family"] for section in sections]
    if len(set(families)) > 1:
        raise AuditError(
            f"{str(path)[:200]}: its two sections are of the families "
            f"{families[0][:60]!r} and {families[1][:60]!r}; only variants of one family "
            "are compared"
        )
    reports = []
    for section in sections:
        h = section.header
        by_count: dict[int, list[GameSummary]] = {n: [] for n in h["players"]}
        for g in section.games:
            by_count[g.players].append(g)
        seats = h["bots"]
        for n, games in by_count.items():
            want = tuple(seats[s % len(seats)] for s in range(n))
            if any(g.bots != want for g in games):
                raise AuditError(
                    f"{str(path)[:200]}: the games of {n} players in section {h['variant']!r} "
                    f"were not all played by the header's bots {seats}"
                )
        unit = _length_unit(h["family"])
        round_cap = h.get("round_cap")
        reports.append(
            AuditReport(
                variant=h["variant"],
                name=h["name"],
                title=h["title"],
                content_hash=h["content_hash"],
                round_cap=round_cap,
                seed=h["seed"],
                games=h["games"],
                examples=0,
                max_cap_share=float(h.get("max_cap_share", 0.0)),
                cap_policy=h.get("cap_policy", "fail"),
                policy=",".join(seats),
                invariants=(),
                player_counts=tuple(
                    summarise(n, games, 0, h["seed"], unit) for n, games in by_count.items()
                ),
                family=h["family"],
                source=str(path),
                length_unit=unit,
                length_cap=round_cap if unit == "round" else None,
                replays=h.get("replays", 1),
            )
        )
    if len(reports) == 1:
        return reports[0]
    return ComparisonReport.of(reports[0], reports[1])
