"""The audit report dict, checked and read into plain typed records.

The report is a JSON-able dict (``AuditReport.to_dict()``, ``cardshop audit --json``;
schema ``cardshop-audit/2``). It may come from a file, so it is read as hostile: every
key the page uses is checked for its type, strings and lists are bounded, numbers must
be finite, and the first problem raises :class:`ReportError` naming its key path
(``variants[0].player_counts[1].charts.drama[3]``). Keys the page does not use are
ignored and never walked.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from cardshop.core.errors import (
    CardshopError,
    format_path,
)

__all__ = [
    "SCHEMAS",
    "Branch",
    "Charts",
    "Comparison",
    "Difference",
    "Measure",
    "PlayerCount",
    "Rate",
    "Report",
    "ReportError",
    "VariantReport",
    "read_report",
]

SCHEMAS = frozenset({"cardshop-audit/2"})
"""The report schemas this renderer reads."""

MAX_TEXT = 10_000  # characters of one string
MAX_VARIANTS = 2
MAX_PLAYER_COUNTS = 32
MAX_MEASURES = 256
MAX_SEATS = 64
MAX_BOTS = 64
MAX_INVARIANTS = 1_000
MAX_WARNINGS = 1_000
MAX_CHECK_GAMES = 1_000_000  # a player count's games checked in debug mode
MAX_BINS = 1_000
MAX_ACTION_COUNTS = 100_000  # distinct numbers of legal actions in a branching histogram
MAX_NUMBERS = 2_000_000  # numbers in all chart series of one report together

Path = tuple[str | int, ...]


class ReportError(CardshopError, ValueError):
    """An audit report cannot be rendered: a key is missing or malformed, or the
    ``report`` extra (plotly) is not installed. Nothing is written."""


# --------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure's figure: its value and 95% interval (``None`` where none applies)."""

    label: str
    value: float | None
    low: float | None
    high: float | None
    unit: str
    meaning: str


@dataclass(frozen=True, slots=True)
class Rate:
    """A win rate with its interval, of a seat or a bot (``key``)."""

    key: str
    rate: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class Branch:
    """Mean legal actions per decision in one bin of game progress."""

    progress: float
    mean: float
    low: float | None
    high: float | None


@dataclass(frozen=True, slots=True)
class Charts:
    """The raw series the charts are drawn from."""

    scores_by_seat: tuple[tuple[int, tuple[float, ...]], ...]
    rounds: tuple[float, ...]
    decisions: tuple[float, ...]
    ticks: tuple[float, ...] | None
    win_rate_by_seat: tuple[Rate, ...]
    win_rate_by_bot: tuple[Rate, ...]
    lead_changes: tuple[float, ...]
    drama: tuple[float, ...]
    branching: tuple[Branch, ...]
    branching_histogram: tuple[tuple[int, int], ...] = ()
    """(legal actions, decisions that had that many), by legal actions; () if absent."""


@dataclass(frozen=True, slots=True)
class PlayerCount:
    players: int
    games: int
    measures: tuple[tuple[str, Measure], ...]
    charts: Charts


@dataclass(frozen=True, slots=True)
class Invariant:
    name: str
    held: bool
    detail: str


@dataclass(frozen=True, slots=True)
class GradedStep:
    """One step of a graded ladder: the stronger bot's win share against the weaker."""

    weaker: str
    stronger: str
    games: int
    win_share: float
    win_low: float
    win_high: float
    fair: float
    significant: bool


@dataclass(frozen=True, slots=True)
class Graded:
    """The graded ladder of one player count (``--graded``)."""

    players: int
    deals: int
    rungs: tuple[str, ...]
    steps: tuple[GradedStep, ...]
    holds: bool


@dataclass(frozen=True, slots=True)
class VariantReport:
    variant: str
    family: str
    title: str
    bots: tuple[str, ...]
    invariants: tuple[Invariant, ...]
    player_counts: tuple[PlayerCount, ...]
    length_unit: str = "round"
    """What the family counts a game's length in (a round, a turn): the charts' words."""
    warnings: tuple[str, ...] = ()
    """The variant's warnings, shown; () in a report of an earlier version."""
    replays: int = 1
    """How many times each simulated game's deal was played (2 or more: the luck
    measures); 1 in a report of an earlier version."""
    graded: tuple[Graded, ...] = ()
    """The graded ladder of each player count; () without ``--graded``."""
    checked: str = ""
    """Which simulated games were played in debug mode, in words (empty in a report
    of an earlier version, and where every game was)."""


@dataclass(frozen=True, slots=True)
class Difference:
    label: str
    a: float | None
    b: float | None
    difference: float | None
    low: float | None
    high: float | None
    significant: bool
    unit: str | None = None


@dataclass(frozen=True, slots=True)
class Comparison:
    a: str
    b: str
    player_counts: tuple[tuple[int, tuple[tuple[str, Difference], ...]], ...]


@dataclass(frozen=True, slots=True)
class Report:
    schema: str
    version: str
    seed: int
    games: int
    variants: tuple[VariantReport, ...]
    comparison: Comparison | None
    partial: bool = False
    """The audit was stopped before its end: the games are those played until then."""

    def units(self) -> dict[str, str]:
        """The unit of each measure id (the first variant that has it decides)."""
        out: dict[str, str] = {}
        for variant in self.variants:
            for count in variant.player_counts:
                for key, measure in count.measures:
                    out.setdefault(key, measure.unit)
        return out


# --------------------------------------------------------------------- reading


class _Reader:
    """Checks values at key paths; counts the numbers read against the bound."""

    def __init__(self) -> None:
        self.numbers = 0

    @staticmethod
    def fail(path: Path, message: str) -> NoReturn:
        raise ReportError(f"malformed audit report at {format_path(path)}: {message}")

    @staticmethod
    def kind(value: object) -> str:
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "a boolean"
        if isinstance(value, int | float):
            return "a number"
        if isinstance(value, str):
            return "a string"
        if isinstance(value, Mapping):
            return "an object"
        if isinstance(value, Sequence):
            return "a list"
        return type(value).__name__

    def obj(self, value: object, path: Path) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            self.fail(path, f"expected an object, got {self.kind(value)}")
        return value

    def key(self, obj: Mapping[str, Any], key: str, path: Path) -> Any:
        if key not in obj:
            self.fail(path, f"the key {key!r} is missing")
        return obj[key]

    def list(self, value: object, path: Path, most: int) -> Sequence[Any]:
        if isinstance(value, str | bytes) or not isinstance(value, Sequence):
            self.fail(path, f"expected a list, got {self.kind(value)}")
        if len(value) > most:
            self.fail(path, f"{len(value)} items, more than the {most} a report may have")
        return value

    def text(self, value: object, path: Path) -> str:
        if not isinstance(value, str):
            self.fail(path, f"expected a string, got {self.kind(value)}")
        if len(value) > MAX_TEXT:
            self.fail(path, f"a string of {len(value)} characters, more than {MAX_TEXT}")
        return value

    def flag(self, value: object, path: Path) -> bool:
        if not isinstance(value, bool):
            self.fail(path, f"expected true or false, got {self.kind(value)}")
        return value

    def number(self, value: object, path: Path) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(path, f"expected a number, got {self.kind(value)}")
        number = float(value)
        if not math.isfinite(number):
            self.fail(path, f"expected a finite number, got {value!r}")
        return number

    def maybe(self, value: object, path: Path) -> float | None:
        return None if value is None else self.number(value, path)

    def integer(self, value: object, path: Path, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(path, f"expected a whole number, got {self.kind(value)}")
        if not low <= value <= high:
            self.fail(path, f"{value} is outside {low}..{high}")
        return value

    def series(self, value: object, path: Path) -> tuple[float, ...]:
        items = self.list(value, path, MAX_NUMBERS)
        self.numbers += len(items)
        if self.numbers > MAX_NUMBERS:
            self.fail(path, f"the chart series hold more than {MAX_NUMBERS} numbers in all")
        return tuple(self.number(x, (*path, i)) for i, x in enumerate(items))


def read_report(report: object) -> Report:
    """``report`` checked and read; :class:`ReportError` names the first bad key."""
    r = _Reader()
    top = r.obj(report, ())
    schema = r.text(r.key(top, "schema", ()), ("schema",))
    if schema not in SCHEMAS:
        r.fail(
            ("schema",),
            f"{schema!r} is not a schema this renderer reads ({', '.join(sorted(SCHEMAS))})",
        )
    version = r.text(r.key(top, "cardshop", ()), ("cardshop",))
    seed = r.integer(r.key(top, "seed", ()), ("seed",), -(2**63), 2**64)
    games = r.integer(r.key(top, "games", ()), ("games",), 0, 2**63)
    raw_variants = r.list(r.key(top, "variants", ()), ("variants",), MAX_VARIANTS)
    if not raw_variants:
        r.fail(("variants",), "no variant: a report has one (audit) or two (comparison)")
    variants = tuple(_variant(r, v, ("variants", i)) for i, v in enumerate(raw_variants))
    raw_comparison = top.get("comparison")
    comparison = None if raw_comparison is None else _comparison(r, raw_comparison)
    partial = r.flag(top.get("partial", False), ("partial",))
    return Report(schema, version, seed, games, variants, comparison, partial)


def _variant(r: _Reader, value: object, path: Path) -> VariantReport:
    v = r.obj(value, path)

    def text(key: str) -> str:
        return r.text(r.key(v, key, path), (*path, key))

    bots = r.list(r.key(v, "bots", path), (*path, "bots"), MAX_SEATS)
    invariants = []
    raw_inv = r.list(r.key(v, "invariants", path), (*path, "invariants"), MAX_INVARIANTS)
    for i, item in enumerate(raw_inv):
        ip = (*path, "invariants", i)
        inv = r.obj(item, ip)
        detail = inv.get("detail")
        invariants.append(
            Invariant(
                name=r.text(r.key(inv, "name", ip), (*ip, "name")),
                held=r.flag(r.key(inv, "held", ip), (*ip, "held")),
                detail="" if detail is None else r.text(detail, (*ip, "detail")),
            )
        )
    counts = r.list(r.key(v, "player_counts", path), (*path, "player_counts"), MAX_PLAYER_COUNTS)
    player_counts = tuple(
        _player_count(r, c, (*path, "player_counts", i)) for i, c in enumerate(counts)
    )
    seen: set[int] = set()
    for i, count in enumerate(player_counts):
        if count.players in seen:
            r.fail((*path, "player_counts", i, "players"), f"{count.players} players twice")
        seen.add(count.players)
    unit = v.get("length_unit", "round")  # a report of an earlier version has none
    checked = v.get("check_games")  # None: every game (or an earlier version)
    if checked is not None:
        checked = r.integer(checked, (*path, "check_games"), 0, MAX_CHECK_GAMES)
    warnings = r.list(v.get("warnings", []), (*path, "warnings"), MAX_WARNINGS)
    return VariantReport(
        variant=text("variant"),
        family=text("family"),
        title=text("title"),
        bots=tuple(r.text(b, (*path, "bots", i)) for i, b in enumerate(bots)),
        invariants=tuple(invariants),
        player_counts=player_counts,
        length_unit=r.text(unit, (*path, "length_unit")),
        warnings=tuple(r.text(w, (*path, "warnings", i)) for i, w in enumerate(warnings)),
        replays=r.integer(v.get("replays", 1), (*path, "replays"), 1, 100),
        graded=tuple(
            _graded(r, g, (*path, "graded", i))
            for i, g in enumerate(r.list(v.get("graded", []), (*path, "graded"), MAX_PLAYER_COUNTS))
        ),
        checked=_checked_words(checked, player_counts),
    )


def _checked_words(checked: int | None, counts: tuple[PlayerCount, ...]) -> str:
    """The report's words for which games were checked (empty: every one)."""
    if checked is None or all(pc.games <= checked for pc in counts):
        return ""
    return f"invariants checked in the first {checked:,} games of each player count"


def _graded(r: _Reader, value: object, path: Path) -> Graded:
    g = r.obj(value, path)
    rungs = r.list(r.key(g, "rungs", path), (*path, "rungs"), MAX_BOTS)
    raw_steps = r.list(r.key(g, "steps", path), (*path, "steps"), MAX_BOTS)
    steps = []
    for i, item in enumerate(raw_steps):
        sp = (*path, "steps", i)
        st = r.obj(item, sp)

        def num(key: str, st: Mapping[str, Any] = st, sp: Path = sp) -> float:
            return r.number(r.key(st, key, sp), (*sp, key))

        steps.append(
            GradedStep(
                weaker=r.text(r.key(st, "weaker", sp), (*sp, "weaker")),
                stronger=r.text(r.key(st, "stronger", sp), (*sp, "stronger")),
                games=r.integer(r.key(st, "games", sp), (*sp, "games"), 0, 2**63),
                win_share=num("win_share"),
                win_low=num("win_low"),
                win_high=num("win_high"),
                fair=num("fair"),
                significant=r.flag(r.key(st, "significant", sp), (*sp, "significant")),
            )
        )
    return Graded(
        players=r.integer(r.key(g, "players", path), (*path, "players"), 1, MAX_SEATS),
        deals=r.integer(r.key(g, "deals", path), (*path, "deals"), 1, 2**63),
        rungs=tuple(r.text(b, (*path, "rungs", i)) for i, b in enumerate(rungs)),
        steps=tuple(steps),
        holds=r.flag(r.key(g, "holds", path), (*path, "holds")),
    )


def _player_count(r: _Reader, value: object, path: Path) -> PlayerCount:
    c = r.obj(value, path)
    players = r.integer(r.key(c, "players", path), (*path, "players"), 1, MAX_SEATS)
    games = r.integer(r.key(c, "games", path), (*path, "games"), 0, 2**63)
    raw = r.obj(r.key(c, "measures", path), (*path, "measures"))
    if len(raw) > MAX_MEASURES:
        r.fail((*path, "measures"), f"{len(raw)} measures, more than {MAX_MEASURES}")
    measures = []
    for key, item in raw.items():
        mp = (*path, "measures", r.text(key, (*path, "measures")))
        m = r.obj(item, mp)
        measures.append(
            (
                key,
                Measure(
                    label=r.text(r.key(m, "label", mp), (*mp, "label")),
                    value=r.maybe(r.key(m, "value", mp), (*mp, "value")),
                    low=r.maybe(m.get("low"), (*mp, "low")),
                    high=r.maybe(m.get("high"), (*mp, "high")),
                    unit=r.text(r.key(m, "unit", mp), (*mp, "unit")),
                    meaning=r.text(r.key(m, "meaning", mp), (*mp, "meaning")),
                ),
            )
        )
    charts = _charts(r, r.key(c, "charts", path), (*path, "charts"))
    return PlayerCount(players, games, tuple(measures), charts)


def _charts(r: _Reader, value: object, path: Path) -> Charts:
    c = r.obj(value, path)
    sp = (*path, "scores_by_seat")
    raw_scores = r.obj(r.key(c, "scores_by_seat", path), sp)
    if len(raw_scores) > MAX_SEATS:
        r.fail(sp, f"{len(raw_scores)} seats, more than {MAX_SEATS}")
    scores = []
    for key, series in raw_scores.items():
        if isinstance(key, int) and not isinstance(key, bool):
            seat = key
        elif isinstance(key, str) and key.isdigit() and len(key) <= 3:
            seat = int(key)
        else:
            r.fail(sp, f"the seat {str(key)[:40]!r} is not a seat number")
        scores.append((seat, r.series(series, (*sp, str(key)))))
    scores.sort()

    lp = (*path, "length")
    length = r.obj(r.key(c, "length", path), lp)
    ticks_raw = length.get("ticks")
    ticks = None if ticks_raw is None else r.series(ticks_raw, (*lp, "ticks"))

    def rates(key: str, name: str, most: int) -> tuple[Rate, ...]:
        kp = (*path, key)
        out = []
        for i, item in enumerate(r.list(r.key(c, key, path), kp, most)):
            ip = (*kp, i)
            d = r.obj(item, ip)
            raw_name = r.key(d, name, ip)
            if name == "seat":
                label = f"seat {r.integer(raw_name, (*ip, name), 0, MAX_SEATS)}"
            else:
                label = r.text(raw_name, (*ip, name))
            out.append(
                Rate(
                    key=label,
                    rate=r.number(r.key(d, "rate", ip), (*ip, "rate")),
                    low=r.number(r.key(d, "low", ip), (*ip, "low")),
                    high=r.number(r.key(d, "high", ip), (*ip, "high")),
                )
            )
        return tuple(out)

    bp = (*path, "branching")
    branching = []
    for i, item in enumerate(r.list(r.key(c, "branching", path), bp, MAX_BINS)):
        ip = (*bp, i)
        d = r.obj(item, ip)
        branching.append(
            Branch(
                progress=r.number(r.key(d, "progress", ip), (*ip, "progress")),
                mean=r.number(r.key(d, "mean", ip), (*ip, "mean")),
                low=r.maybe(d.get("low"), (*ip, "low")),
                high=r.maybe(d.get("high"), (*ip, "high")),
            )
        )
    hp = (*path, "branching_histogram")
    histogram = []
    raw_histogram = r.list(c.get("branching_histogram", []), hp, MAX_ACTION_COUNTS)
    r.numbers += 2 * len(raw_histogram)
    if r.numbers > MAX_NUMBERS:
        r.fail(hp, f"the chart series hold more than {MAX_NUMBERS} numbers in all")
    for i, item in enumerate(raw_histogram):
        ip = (*hp, i)
        d = r.obj(item, ip)
        histogram.append(
            (
                r.integer(r.key(d, "actions", ip), (*ip, "actions"), 1, 2**53),
                r.integer(r.key(d, "decisions", ip), (*ip, "decisions"), 0, 2**53),
            )
        )
    return Charts(
        scores_by_seat=tuple(scores),
        rounds=r.series(r.key(length, "rounds", lp), (*lp, "rounds")),
        decisions=r.series(r.key(length, "decisions", lp), (*lp, "decisions")),
        ticks=ticks,
        win_rate_by_seat=rates("win_rate_by_seat", "seat", MAX_SEATS),
        win_rate_by_bot=rates("win_rate_by_bot", "bot", MAX_BOTS),
        lead_changes=r.series(r.key(c, "lead_changes", path), (*path, "lead_changes")),
        drama=r.series(r.key(c, "drama", path), (*path, "drama")),
        branching=tuple(branching),
        branching_histogram=tuple(sorted(histogram)),
    )


def _comparison(r: _Reader, value: object) -> Comparison:
    path: Path = ("comparison",)
    c = r.obj(value, path)
    counts = []
    cp = (*path, "player_counts")
    for i, item in enumerate(r.list(r.key(c, "player_counts", path), cp, MAX_PLAYER_COUNTS)):
        ip = (*cp, i)
        d = r.obj(item, ip)
        players = r.integer(r.key(d, "players", ip), (*ip, "players"), 1, MAX_SEATS)
        raw = r.obj(r.key(d, "measures", ip), (*ip, "measures"))
        if len(raw) > MAX_MEASURES:
            r.fail((*ip, "measures"), f"{len(raw)} measures, more than {MAX_MEASURES}")
        diffs = []
        for key, m_raw in raw.items():
            mp = (*ip, "measures", r.text(key, (*ip, "measures")))
            m = r.obj(m_raw, mp)
            diffs.append(
                (
                    key,
                    Difference(
                        label=r.text(r.key(m, "label", mp), (*mp, "label")),
                        a=r.maybe(r.key(m, "a", mp), (*mp, "a")),
                        b=r.maybe(r.key(m, "b", mp), (*mp, "b")),
                        difference=r.maybe(r.key(m, "difference", mp), (*mp, "difference")),
                        low=r.maybe(m.get("low"), (*mp, "low")),
                        high=r.maybe(m.get("high"), (*mp, "high")),
                        significant=r.flag(r.key(m, "significant", mp), (*mp, "significant")),
                        unit=None if m.get("unit") is None else r.text(m["unit"], (*mp, "unit")),
                    ),
                )
            )
        counts.append((players, tuple(diffs)))
    return Comparison(
        a=r.text(r.key(c, "a", path), (*path, "a")),
        b=r.text(r.key(c, "b", path), (*path, "b")),
        player_counts=tuple(counts),
    )
