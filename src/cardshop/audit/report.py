"""The audit's report: what was checked and measured, as text, Markdown and JSON.

:class:`AuditReport` holds, per player count, a :class:`PlayerCountReport` that
:func:`summarise` makes from the summaries of the games played (the measures of
:mod:`cardshop.measures`), and every invariant as an :class:`InvariantFinding`.
"""

from __future__ import annotations

import dataclasses
import math
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardshop.invariants import (
    Counterexample,
)
from cardshop.ladder.depth import GradedResult
from cardshop.measures import (
    GamesSection,
    GameSummary,
    Measure,
    charts,
    measure_all,
    write_games,
)
from cardshop.support.about import VERSION
from cardshop.support.stats import (
    Interval,
    wilson,
)

__all__ = [
    "REPORT_SCHEMA",
    "AuditReport",
    "Distribution",
    "InvariantFinding",
    "PlayerCountReport",
    "report_schema",
    "summarise",
]

REPORT_SCHEMA = "cardshop-audit/2"
"""The ``schema`` value of a report's JSON (src/cardshop/schemas/audit-report.schema.json)."""


# ------------------------------------------------------------------ statistics


@dataclass(frozen=True, slots=True)
class Distribution:
    """Summary of a sample: mean, standard deviation and order statistics."""

    mean: float
    sd: float
    min: float
    p10: float
    median: float
    p90: float
    max: float

    @classmethod
    def of(cls, values: Sequence[float]) -> Distribution:
        if not values:
            return cls(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        ordered = sorted(values)
        n = len(ordered)

        def rank(q: float) -> float:  # nearest-rank percentile
            return float(ordered[max(0, math.ceil(q * n) - 1)])

        sd = statistics.stdev(ordered) if n > 1 else 0.0
        return cls(
            statistics.fmean(ordered),
            sd,
            float(ordered[0]),
            rank(0.1),
            float(statistics.median(ordered)),
            rank(0.9),
            float(ordered[-1]),
        )

    def __str__(self) -> str:
        return (
            f"mean {self.mean:.1f} (sd {self.sd:.1f}), median {self.median:g} "
            f"(10%-90%: {self.p10:g}-{self.p90:g}; range {self.min:g}-{self.max:g})"
        )

    def to_dict(self) -> dict[str, float]:
        return {
            "mean": round(self.mean, 4),
            "sd": round(self.sd, 4),
            "min": self.min,
            "p10": self.p10,
            "median": self.median,
            "p90": self.p90,
            "max": self.max,
        }


# ---------------------------------------------------------------- the report


@dataclass(frozen=True, slots=True)
class InvariantFinding:
    """Whether one invariant held; if not, how to reproduce the violation."""

    name: str
    clauses: tuple[str, ...]
    summary: str
    held: bool
    counterexample: Counterexample | None = None
    found_by: str = ""  # "state machine" (shrunk) or "simulated game <i>"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "clauses": list(self.clauses),
            "summary": self.summary,
            "held": self.held,
            "detail": self.summary if self.counterexample is None else self.counterexample.detail,
            "found_by": self.found_by or None,
            "counterexample": None
            if self.counterexample is None
            else self.counterexample.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class PlayerCountReport:
    """What the simulated games of one player count looked like."""

    players: int
    games: int
    capped: int
    cap_share: Interval
    rounds: Distribution
    decisions: Distribution
    win_rate_by_seat: tuple[Interval, ...]
    win_rate_by_position: tuple[Interval, ...]
    """Index 0 is the first start player, 1 the seat after it clockwise, ..."""
    scores: Distribution
    mean_score_by_position: tuple[float, ...]
    shared_wins: int
    unfinished: int = 0
    """Games stopped by an engine fault (not counted in the statistics)."""
    steps: Distribution | None = None
    """Steps per game (turns, or ticks of a simultaneous game)."""
    ticks: Distribution | None = None
    """Ticks per game, when the family reports them (``Result.details["ticks"]``)."""
    summaries: tuple[GameSummary, ...] = ()
    """One summary per finished game: what the measures are computed from."""
    measures: Mapping[str, Measure] = field(default_factory=dict)
    """The game-quality measures by id (:func:`cardshop.measures.measure_all`)."""
    charts: Mapping[str, Any] = field(default_factory=dict)
    """The series the report's charts are drawn from (:func:`cardshop.measures.charts`)."""

    @property
    def has_first_player(self) -> bool:
        """Whether its games have a first player (a simultaneous family's have none:
        there, a position from the first player is just the seat)."""
        return any(s.first_player is not None for s in self.summaries)

    def to_dict(self) -> dict[str, Any]:
        """The report contract's entry of a player count, and the older figures."""
        return {
            "players": self.players,
            "games": self.games,
            "measures": {k: m.to_dict() for k, m in self.measures.items()},
            "charts": dict(self.charts),
            "capped": self.capped,
            "cap_share": self.cap_share.to_dict(),
            "rounds": self.rounds.to_dict(),
            "decisions": self.decisions.to_dict(),
            "steps": None if self.steps is None else self.steps.to_dict(),
            "ticks": None if self.ticks is None else self.ticks.to_dict(),
            "win_rate_by_seat": [i.to_dict() for i in self.win_rate_by_seat],
            "win_rate_by_position": [i.to_dict() for i in self.win_rate_by_position],
            "scores": self.scores.to_dict(),
            "mean_score_by_position": [round(x, 4) for x in self.mean_score_by_position],
            "shared_wins": self.shared_wins,
            "unfinished": self.unfinished,
        }


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The result of :func:`run_audit`; ``ok`` is false if anything failed."""

    variant: str
    name: str
    title: str
    content_hash: str
    round_cap: int | None
    """The variant's ``round_cap``, for families that have one."""
    seed: int
    games: int
    examples: int
    max_cap_share: float
    policy: str
    """The bots' names, joined by commas (one name: every seat plays that bot)."""
    invariants: tuple[InvariantFinding, ...]
    player_counts: tuple[PlayerCountReport, ...]
    family: str = ""
    source: str = ""
    """The saved-games file the report was computed from (empty: games played now)."""
    partial: bool = False
    """Whether the audit was stopped before its end: the report holds the games played
    until then (each player count's ``games``) and the invariants found violated."""
    cap_policy: str = "fail"
    """``"fail"``: more than ``max_cap_share`` capped games fail the audit; ``"report"``:
    capped games are a statistic only (the rules allow them)."""
    check_every: int = 10
    """The thorough checks ran after every ``check_every``-th step of a simulated game."""
    check_games: int | None = None
    """The simulated games of each player count played in debug mode (the first
    ones; the others were played and measured only); ``None``: every game."""
    defaults: tuple[str, ...] = ()
    """The options taken from the family's audit defaults (:class:`cardshop.core.AuditDefaults`),
    not given by the caller: some of ``bots``, ``games``, ``check_every``,
    ``check_games``, ``cap_policy``."""
    defaults_note: str = ""
    """The family's reason for its audit defaults."""
    length_unit: str = "round"
    """What the family counts a game's length in (:attr:`cardshop.core.Family.length_unit`:
    a round, a turn), in the singular: the report's words for the length of a game."""
    length_cap: int | None = None
    """The variant's cap on a game's length in :attr:`length_unit` (its key
    ``<length_unit>_cap``: Klunker's ``round_cap``, Reglamentacja's ``turn_cap``), for
    families that have one."""
    warnings: tuple[str, ...] = ()
    """The variant's warnings (:func:`cardshop.variant_warnings`: settings that cannot
    matter, edits of ``extends`` that may not say what was meant), each as the file,
    line, key and reason. They are shown; they never fail the audit."""
    replays: int = 1
    """How many times each simulated game's deal was played (the same bots in the same
    seats, seeded anew): 2 or more adds the luck measures; every other figure is taken
    over the first game of each deal, as without replays."""
    graded: tuple[GradedResult, ...] = ()
    """The graded ladder of each player count (``--graded``); empty without it."""

    @property
    def bots(self) -> tuple[str, ...]:
        """The bot of each seat in turn (seat ``s`` plays ``bots[s % len(bots)]``)."""
        return tuple(self.policy.split(","))

    @property
    def violations(self) -> tuple[InvariantFinding, ...]:
        return tuple(f for f in self.invariants if not f.held)

    @property
    def games_end(self) -> bool:
        """Whether the share of games that hit the round cap is within ``max_cap_share``."""
        return all(
            pc.games == 0 or pc.capped / pc.games <= self.max_cap_share for pc in self.player_counts
        )

    @property
    def ok(self) -> bool:
        return not self.violations and (self.cap_policy == "report" or self.games_end)

    def defaults_text(self) -> str:
        """Which options came from the family's audit defaults, in a sentence (empty
        when every option was given)."""
        if not self.defaults:
            return ""
        values = {
            "bots": f"bots {self.policy}",
            "games": f"{self.games} games per player count",
            "check_every": f"thorough checks every {self.check_every} steps",
            "check_games": (
                "every game checked"
                if self.check_games is None
                else f"the first {self.check_games} games of each player count checked"
            ),
            "cap_policy": f"cap policy {self.cap_policy}",
        }
        used = ", ".join(values[name] for name in self.defaults if name in values)
        note = f" ({self.defaults_note})" if self.defaults_note else ""
        return f"{self.family} audit defaults used: {used}{note}"

    def command(self) -> str:
        """The command line that reproduces this report."""
        if self.source:
            return f"cardshop audit --from-games {self.source}"
        players = " ".join(f"--players {pc.players}" for pc in self.player_counts)
        parts = [f"cardshop audit {self.variant} --games {self.games}"]
        if players:
            parts.append(players)
        parts.append(f"--seed {self.seed} --examples {self.examples}")
        if self.max_cap_share:
            parts.append(f"--max-cap-share {self.max_cap_share:g}")
        if self.policy != "random":
            parts.append(" ".join(f"--bots {name}" for name in self.bots))
        if self.cap_policy != "fail":
            parts.append(f"--cap-policy {self.cap_policy}")
        if self.replays > 1:
            parts.append(f"--replays {self.replays}")
        if self.graded:
            parts.append(f"--graded {','.join(self.graded[0].rungs)}")
        if "check_games" not in self.defaults and not self.source:  # given, not a default
            checked = "all" if self.check_games is None else self.check_games
            parts.append(f"--check-games {checked}")
        return " ".join(parts)

    @property
    def sampled(self) -> bool:
        """Whether only some of the simulated games were played in debug mode."""
        return not self.source and self.check_games is not None and self.check_games < self.games

    def checked_text(self) -> str:
        """Which simulated games were played in debug mode, in words."""
        if not self.sampled:
            return "every simulated game in debug mode"
        checked = self.check_games
        assert checked is not None
        return (
            f"the first {checked:,} simulated games of each player count in debug mode, "
            f"the other {self.games - checked:,} played and measured only"
        )

    def variant_dict(self) -> dict[str, Any]:
        """This variant's entry of the report's ``variants`` (docs/measures.md)."""
        return {
            "variant": self.variant,
            "family": self.family,
            "title": self.title,
            "name": self.name,
            "content_hash": self.content_hash,
            "round_cap": self.round_cap,
            "length_unit": self.length_unit,
            "length_cap": self.length_cap,
            "bots": list(self.bots),
            "policy": self.policy,
            "examples": self.examples,
            "max_cap_share": self.max_cap_share,
            "cap_policy": self.cap_policy,
            "check_every": self.check_every,
            "check_games": self.check_games,
            "replays": self.replays,
            "defaults": list(self.defaults),
            "defaults_note": self.defaults_note or None,
            "command": self.command(),
            "source": self.source or None,
            "ok": self.ok,
            "games_end": self.games_end,
            "warnings": list(self.warnings),
            "invariants": [f.to_dict() for f in self.invariants],
            "player_counts": [pc.to_dict() for pc in self.player_counts],
            **({"graded": [g.to_dict() for g in self.graded]} if self.graded else {}),
        }

    def graded_text(self) -> list[str]:
        """The "Graded skill" section for a terminal (empty without a graded ladder)."""
        if not self.graded:
            return []
        out = ["", "Graded skill (one seat of the stronger bot against the weaker in the others):"]
        for g in self.graded:
            out += ["  " + line for line in g.to_text().splitlines()]
        return out

    def graded_markdown(self) -> list[str]:
        """The "Graded skill" section in Markdown (empty without a graded ladder)."""
        if not self.graded:
            return []
        out = ["", "### Graded skill", ""]
        for g in self.graded:
            out += [g.to_markdown("####").rstrip("\n"), ""]
        return out[:-1]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data in the versioned report format (:data:`REPORT_SCHEMA`)."""
        return {
            "schema": REPORT_SCHEMA,
            "cardshop": VERSION,
            "seed": self.seed,
            "games": self.games,
            "command": self.command(),
            "ok": self.ok,
            "partial": self.partial,
            "variants": [self.variant_dict()],
            "comparison": None,
        }

    def games_section(self) -> GamesSection:
        """The summaries of the report's games, with what the report needs of its settings."""
        header = {
            "variant": self.variant,
            "name": self.name,
            "family": self.family,
            "title": self.title,
            "content_hash": self.content_hash,
            "round_cap": self.round_cap,
            "seed": self.seed,
            "games": self.games,
            "bots": list(self.bots),
            "players": [pc.players for pc in self.player_counts],
            "max_cap_share": self.max_cap_share,
            "cap_policy": self.cap_policy,
            "cardshop": VERSION,
        }
        if self.replays > 1:
            header["replays"] = self.replays
        games = [g for pc in self.player_counts for g in pc.summaries]
        return GamesSection(header, games)

    def save_games(self, path: str | Path) -> None:
        """Write the game summaries (``--save-games``); :func:`report_from_games` reads them."""
        write_games([self.games_section()], path)

    # ------------------------------------------------------------------ text

    def _violation_lines(self, finding: InvariantFinding, indent: str) -> list[str]:
        example = finding.counterexample
        lines = []
        if example is None:
            return [f"{indent}{finding.found_by}: no replayable setup"]
        lines.append(f"{indent}{example.detail}")
        lines.append(
            f"{indent}found by {finding.found_by}; {len(example.actions)} action(s) from setup:"
        )
        lines += [f"{indent}  {line}" for line in example.to_code().splitlines()]
        return lines

    def _termination_word(self) -> str:
        if self.cap_policy == "report":
            return "reported; the rules allow capped games"
        return "ok" if self.games_end else "FAILED"

    def _cap_text(self) -> str:
        if self.length_cap is None:
            return "the variant's cap"
        return f"the {self.length_unit} cap of {self.length_cap}"

    def _lengths(self) -> str:
        """The family's unit of length in the plural: ``rounds``, ``turns``."""
        return f"{self.length_unit}s"

    def partial_text(self) -> str:
        """What a partial report holds, in a sentence (empty for a whole report)."""
        if not self.partial:
            return ""
        played = ", ".join(f"{pc.games} with {pc.players} players" for pc in self.player_counts)
        return (
            f"PARTIAL REPORT: the audit was stopped before its end; games played: "
            f"{played or 'none'} (of {self.games} per player count)"
        )

    def replays_text(self) -> str:
        """What replays mean for the report, in two sentences."""
        return (
            f"Replays: each simulated game's deal was played {self.replays} times by the "
            "same bots in the same seats, seeded anew; the luck measures read every "
            "replay, every other figure the first game of each deal."
        )

    def to_text(self) -> str:
        """The report for a terminal."""
        out = [
            f"Audit of {self.name} ({self.title or self.name}), "
            f"variant hash {self.content_hash[:12]}",
            f"{self.command()}",
            "",
        ]
        if self.partial:
            out += [self.partial_text(), ""]
        if self.defaults:
            out += [self.defaults_text(), ""]
        if self.replays > 1:
            out += [self.replays_text(), ""]
        if self.warnings:
            out.append("Variant warnings (shown; they do not fail the audit):")
            out += [f"  {warning}" for warning in self.warnings]
            out.append("")
        if self.source:
            out.append(
                f"Invariants: not checked (the measures of the games saved in {self.source})"
            )
        else:
            out.append(
                f"Invariants (state machine: {self.examples} examples; {self.checked_text()})"
            )
        width = max(len(f.name) for f in self.invariants) if self.invariants else 0
        for f in self.invariants:
            mark = "held    " if f.held else "VIOLATED"
            clauses = f" [{', '.join(f.clauses)}]" if f.clauses else ""
            out.append(f"  {mark}  {f.name:<{width}}  {f.summary}{clauses}")
            if not f.held:
                out += self._violation_lines(f, " " * (width + 14))
        out.append("")
        total_capped = sum(pc.capped for pc in self.player_counts)
        total = sum(pc.games for pc in self.player_counts)
        if self.cap_policy == "report":
            out.append(
                f"Termination: reported {total_capped} of {total} simulated games reached "
                f"{self._cap_text()} (cap policy report: the rules allow it)"
            )
        else:
            verdict = "ok  " if self.games_end else "FAIL"
            out.append(
                f"Termination: {verdict} {total_capped} of {total} simulated games reached "
                f"{self._cap_text()} (allowed share: {self.max_cap_share:.1%})"
            )
        for pc in self.player_counts:
            out += ["", f"{pc.players} players: {pc.games} games (bots: {self.policy})"]
            out.append(f"  capped:     {pc.capped} games, {pc.cap_share} (95% Wilson interval)")
            out.append(f"  {self._lengths() + ':':<11} {pc.rounds}")
            if pc.steps is not None:
                out.append(f"  steps:      {pc.steps}")
            if pc.ticks is not None:
                out.append(f"  ticks:      {pc.ticks}")
            out.append(f"  decisions:  {pc.decisions}")
            out.append(f"  scores:     {pc.scores}")
            out.append(f"  shared wins: {pc.shared_wins} games")
            if pc.unfinished:
                out.append(f"  unfinished: {pc.unfinished} games stopped by an engine fault")
            out.append("  win rate by seat (95% Wilson interval):")
            for seat, rate in enumerate(pc.win_rate_by_seat):
                out.append(f"    seat {seat}: {rate}")
            if pc.has_first_player:
                out.append(
                    "  win rate by position from the first start player "
                    "(95% Wilson interval; mean score):"
                )
                for pos, rate in enumerate(pc.win_rate_by_position):
                    label = "first start player" if pos == 0 else f"+{pos} clockwise"
                    out.append(f"    {label:<18} {rate}  ({pc.mean_score_by_position[pos]:.2f})")
            rates = _bot_rates(pc)
            if rates:
                out.append("  win rate per seat of each bot (95% Wilson interval):")
                width = max(len(name) for name, _ in rates)
                out += [f"    {name:<{width}}  {rate}" for name, rate in rates]
            out += _measure_lines(pc.measures)
        out += self.graded_text()
        out += ["", "Result: " + ("ok" if self.ok else "FAILED")]
        return "\n".join(out)

    def to_markdown(self) -> str:
        """The report as Markdown (for docs and issue reports)."""
        out = [
            f"## Audit of `{self.name}` ({self.title or self.name})",
            "",
            f"Variant hash `{self.content_hash[:12]}`. Reproduce with:",
            "",
            "```",
            self.command(),
            "```",
            "",
            *([f"**{self.partial_text()}**", ""] if self.partial else []),
            *([self.defaults_text() + ".", ""] if self.defaults else []),
            *([self.replays_text(), ""] if self.replays > 1 else []),
            *(
                ["Variant warnings (shown; they do not fail the audit):", ""]
                + [f"- {warning}" for warning in self.warnings]
                + [""]
                if self.warnings
                else []
            ),
            "### Invariants",
            "",
            *([self.checked_text().capitalize() + ".", ""] if self.sampled else []),
            "| Invariant | Clauses | Result |",
            "| --- | --- | --- |",
        ]
        for f in self.invariants:
            result = "held" if f.held else f"**violated** ({f.found_by})"
            out.append(f"| `{f.name}` | {', '.join(f.clauses)} | {result} |")
        for f in self.violations:
            out += ["", f"Counterexample for `{f.name}`:", ""]
            if f.counterexample is None:
                out.append("(no replayable setup)")
            else:
                out += [f.counterexample.detail, "", "```python", f.counterexample.to_code(), "```"]
        total_capped = sum(pc.capped for pc in self.player_counts)
        total = sum(pc.games for pc in self.player_counts)
        out += [
            "",
            "### Games",
            "",
            f"Bots `{self.policy}`; {total_capped} of {total} games reached "
            f"{self._cap_text()} (termination: {self._termination_word()}).",
            "",
            f"| Players | Games | Capped (95% CI) | {self._lengths().capitalize()}: mean (sd) "
            "| median (10%-90%) | max "
            "| Decisions: mean (sd) | Score: mean (sd) | Shared wins |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for pc in self.player_counts:
            r, d, s = pc.rounds, pc.decisions, pc.scores
            out.append(
                f"| {pc.players} | {pc.games} | {pc.cap_share} | {r.mean:.1f} ({r.sd:.1f}) "
                f"| {r.median:g} ({r.p10:g}-{r.p90:g}) | {r.max:g} | {d.mean:.0f} ({d.sd:.0f}) "
                f"| {s.mean:.2f} ({s.sd:.2f}) | {pc.shared_wins} |"
            )
        most = max((pc.players for pc in self.player_counts), default=0)

        def rate_table(title: str, head: list[str], rates: str) -> None:
            out.extend(["", title, "", f"| Players | {' | '.join(head)} |"])
            out.append("| --- |" + " --- |" * most)
            for pc in self.player_counts:
                cells = [str(i) for i in getattr(pc, rates)]
                cells += [""] * (most - len(cells))
                out.append(f"| {pc.players} | " + " | ".join(cells) + " |")

        if any(pc.has_first_player for pc in self.player_counts):
            rate_table(
                "Win rate by position from the first start player (95% Wilson interval; "
                "a shared win counts 1/k to each of k winners):",
                ["first start player" if i == 0 else f"+{i}" for i in range(most)],
                "win_rate_by_position",
            )
        rate_table(
            "Win rate by seat (95% Wilson interval):",
            [f"seat {i}" for i in range(most)],
            "win_rate_by_seat",
        )
        bots = list(dict.fromkeys(self.bots))
        if len(bots) > 1:
            out += ["", "Win rate per seat of each bot (95% Wilson interval):", ""]
            out += [f"| Players | {' | '.join(f'`{b}`' for b in bots)} |"]
            out.append("| --- |" + " --- |" * len(bots))
            for pc in self.player_counts:
                by_bot = dict(_bot_rates(pc))
                out.append(
                    f"| {pc.players} | " + " | ".join(by_bot.get(b, "") for b in bots) + " |"
                )
        out += ["", "### Game-quality measures", ""]
        out += _measure_table(self.player_counts)
        out += self.graded_markdown()
        return "\n".join(out)


def summarise(
    players: int,
    summaries: Sequence[GameSummary],
    unfinished: int,
    seed: int,
    unit: str = "round",
) -> PlayerCountReport:
    """The report of one player count, from the summaries of its finished games; the
    length of a game is worded in the family's ``unit`` (a round, a turn). Replays of a
    deal (``replay`` above 0) count for the luck measures only: every other figure is
    taken over the first game of each deal."""
    played = summaries
    summaries = [s for s in played if s.replay == 0]
    n_games = len(summaries)
    wins_by_seat = [0.0] * players
    wins_by_position = [0.0] * players
    score_by_position = [0.0] * players
    scores: list[float] = []
    ticks: list[float] = []
    shared = 0
    capped = 0
    for game in summaries:
        first = game.first_player or 0
        capped += game.capped
        if game.ticks is not None:
            ticks.append(game.ticks)
        share = 1 / len(game.winners)
        shared += len(game.winners) > 1
        for seat in game.winners:
            wins_by_seat[seat] += share
            wins_by_position[(seat - first) % players] += share
        for seat, score in enumerate(game.scores):
            scores.append(score)
            score_by_position[(seat - first) % players] += score
    return PlayerCountReport(
        players=players,
        games=n_games,
        capped=capped,
        cap_share=wilson(capped, n_games),
        rounds=Distribution.of([g.rounds for g in summaries]),
        decisions=Distribution.of([g.decisions for g in summaries]),
        win_rate_by_seat=tuple(wilson(w, n_games) for w in wins_by_seat),
        win_rate_by_position=tuple(wilson(w, n_games) for w in wins_by_position),
        scores=Distribution.of(scores),
        mean_score_by_position=tuple(s / n_games if n_games else 0.0 for s in score_by_position),
        shared_wins=shared,
        unfinished=unfinished,
        steps=Distribution.of([g.steps for g in summaries]),
        ticks=Distribution.of(ticks) if ticks and len(ticks) == n_games else None,
        summaries=tuple(played),
        measures=_in_unit(measure_all(played, seed=seed), unit),
        charts=charts(summaries),
    )


def _in_unit(measures: dict[str, Measure], unit: str) -> dict[str, Measure]:
    """The measures worded in the family's unit of length: the game length's (id
    ``rounds``) label, unit and meaning, and every meaning that speaks of rounds (lead
    changes after each round, ...), say turns for a family that counts turns."""
    if unit == "round":
        return measures
    plural = f"{unit}s"
    out = {}
    for key, measure in measures.items():
        if key == "rounds":
            measure = dataclasses.replace(
                measure,
                label=plural.capitalize(),
                unit=plural,
                meaning=f"mean length of a game in the family's {plural}",
            )
        else:
            meaning = _ROUND_WORD.sub(lambda m: unit + m.group(1), measure.meaning)
            measure = dataclasses.replace(measure, meaning=meaning)
        out[key] = measure
    return out


_ROUND_WORD = re.compile(r"\bround(s?)\b")


def report_schema() -> dict[str, Any]:
    """The JSON Schema of :meth:`AuditReport.to_dict` (and of ``cardshop audit --json``)."""
    import json
    from importlib.resources import files

    text = files("cardshop").joinpath("schemas", "audit-report.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


# ------------------------------------------------------------- presentation


def _bot_rates(pc: PlayerCountReport) -> list[tuple[str, str]]:
    """Each bot's win rate per seat it played, as text, when the seats play two or more."""
    rows = pc.charts.get("win_rate_by_bot", [])
    if len(rows) < 2:
        return []
    return [(r["bot"], str(Interval(r["rate"], r["low"], r["high"]))) for r in rows]


def _measure_lines(measures: Mapping[str, Measure]) -> list[str]:
    if not measures:
        return []
    out = ["  measures (95% intervals; docs/measures.md):"]
    width = max(len(m.label) for m in measures.values())
    out += [f"    {m.label:<{width}}  {m.text()}" for m in measures.values()]
    return out


def _measure_table(counts: Sequence[PlayerCountReport]) -> list[str]:
    """Measures as rows, player counts as columns (Markdown)."""
    ids: dict[str, str] = {}
    for pc in reversed(counts):  # the most seats first: their win shares in order
        for k, m in pc.measures.items():
            ids.setdefault(k, m.label)
    out = [
        "| Measure | " + " | ".join(f"{pc.players} players" for pc in counts) + " |",
        "| --- |" + " --- |" * len(counts),
    ]
    for k, label in ids.items():
        cells = [pc.measures[k].text() if k in pc.measures else "" for pc in counts]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return out
