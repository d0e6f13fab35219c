"""Audit a variant of any family: check every invariant, and measure its games.

:func:`run_audit` does what ``cardshop audit VARIANT`` prints:

1. runs the invariant state machine (:func:`cardshop.testing.game_machine`), where
   hypothesis picks every action and shrinks any failure to a short counterexample
   (needs hypothesis; ``examples=0`` skips it);
2. plays ``games`` simulated games per player count through :mod:`cardshop.driver`,
   each seat played by a bot (:func:`cardshop.bots.make_bot`: ``random`` by default,
   or any bot of the variant's family, e.g. Klunker's ``thrifty``) seeded from the
   audit seed, every game in debug mode (:class:`cardshop.invariants.CheckedGame`:
   the generic invariants and the family's own);
3. reports each invariant as held or violated (with a replayable counterexample),
   whether games end before their cap, and per player count: the share of capped
   games, game length (in the family's unit, ``Family.length_unit``: rounds, turns;
   steps, decisions, and ticks when the family reports them), win rates by seat and
   by position from the first player with 95% Wilson intervals, and scores.

The report is a value (:class:`AuditReport`) with text, Markdown and JSON forms.
The same seed gives the same report.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import re
import statistics
from collections import deque
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardshop import driver
from cardshop._core import MASTER_SEED_LIMIT, check_seed, derive_seed
from cardshop._errors import CardshopError, SetupError
from cardshop._family import CAP_POLICIES, get_family, new_game
from cardshop._game import Dynamics, Game
from cardshop._loader import load_variant
from cardshop._stats import Interval, wilson
from cardshop._variant import VariantBase
from cardshop.bots import Bot, make_bot
from cardshop.invariants import (
    CheckedGame,
    Counterexample,
    InvariantViolation,
    LegalMemo,
    active_memo,
    describe_invariants,
    shared_memo,
)
from cardshop.measures import (
    MAX_GAMES,
    Difference,
    GamesSection,
    GameSummary,
    Measure,
    Tracker,
    charts,
    compare,
    measure_all,
    read_games,
    write_games,
)

__all__ = [
    "REPORT_SCHEMA",
    "AuditError",
    "AuditInterrupted",
    "AuditReport",
    "ComparisonReport",
    "Distribution",
    "Interval",
    "InvariantFinding",
    "PlayerCountReport",
    "report_from_games",
    "report_schema",
    "run_audit",
    "run_comparison",
    "wilson",
]

REPORT_SCHEMA = "cardshop-audit/2"
"""The ``schema`` value of a report's JSON (src/cardshop/schemas/audit-report.schema.json)."""


class AuditError(CardshopError, ValueError):
    """An audit cannot run as asked (a bad option, or hypothesis is not installed)."""


class AuditInterrupted(KeyboardInterrupt):
    """An audit stopped half-way by Ctrl-C (or by any exception that is not an error:
    a stop signal a program turned into one). ``report`` holds what it had found and
    played so far, marked partial (``report.partial``); the interruption is its
    ``__cause__``."""

    def __init__(self, report: AuditReport | ComparisonReport) -> None:
        super().__init__("the audit was stopped; its report holds what it had done")
        self.report = report


def _interruption(exc: BaseException) -> bool:
    """Whether ``exc`` stops an audit rather than fails it: not an error, not an exit."""
    return not isinstance(exc, Exception | SystemExit | GeneratorExit | AuditInterrupted)


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
    defaults: tuple[str, ...] = ()
    """The options taken from the family's audit defaults (:class:`cardshop.core.AuditDefaults`),
    not given by the caller: some of ``bots``, ``games``, ``check_every``, ``cap_policy``."""
    defaults_note: str = ""
    """The family's reason for its audit defaults."""
    length_unit: str = "round"
    """What the family counts a game's length in (:attr:`cardshop.core.Family.length_unit`:
    a round, a turn), in the singular: the report's words for the length of a game."""
    length_cap: int | None = None
    """The variant's cap on a game's length in :attr:`length_unit` (its key
    ``<length_unit>_cap``: Klunker's ``round_cap``, Reglamentacja's ``turn_cap``), for
    families that have one."""

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
        return " ".join(parts)

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
            "defaults": list(self.defaults),
            "defaults_note": self.defaults_note or None,
            "command": self.command(),
            "source": self.source or None,
            "ok": self.ok,
            "games_end": self.games_end,
            "invariants": [f.to_dict() for f in self.invariants],
            "player_counts": [pc.to_dict() for pc in self.player_counts],
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data in the versioned report format (:data:`REPORT_SCHEMA`)."""
        from cardshop import __version__

        return {
            "schema": REPORT_SCHEMA,
            "cardshop": __version__,
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
        from cardshop import __version__

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
            "cardshop": __version__,
        }
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
        if self.source:
            out.append(
                f"Invariants: not checked (the measures of the games saved in {self.source})"
            )
        else:
            out.append(
                "Invariants (state machine: "
                f"{self.examples} examples; every simulated game in debug mode)"
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
            "### Invariants",
            "",
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
        return "\n".join(out)


# ------------------------------------------------------------------- running


def _bots(
    names: Sequence[str], variant: VariantBase, seed: int, players: int, index: int
) -> list[Bot]:
    return [
        make_bot(
            names[seat % len(names)], variant, derive_seed(seed, "audit-bot", players, index, seat)
        )
        for seat in range(players)
    ]


def _audit_game(
    variant: VariantBase,
    players: int,
    seed: int,
    index: int,
    checks: frozenset[str],
    every: int,
    ref: str,
    names: Sequence[str],
) -> tuple[Game, InvariantViolation | None, GameSummary | None]:
    """Play one simulated game with bots, in debug mode until the first violation.

    The game comes back unfinished, without a summary, if a step failed (a fault of
    the engine).
    """
    game = new_game(variant, players, derive_seed(seed, "audit-game", players, index))
    tracker = Tracker(
        game,
        _bots(names, variant, seed, players, index),
        [names[seat % len(names)] for seat in range(players)],
    )
    bots = tracker.players
    violation: InvariantViolation | None = None
    checked: CheckedGame | None = None
    if checks:
        try:
            checked = CheckedGame(game, checks=checks, every=every, variant_ref=ref)
        except InvariantViolation as exc:
            violation = exc
    turn_based = game.dynamics is Dynamics.SEQUENTIAL
    while not game.is_over:
        # The checked steps so far (not len(game.moves): a game's moves are built anew
        # on each reading, which on every step made long games quadratic).
        played = 0 if checked is None else checked.steps
        try:
            actions = driver.choose(game, bots)
            if checked is None:
                driver.apply(game, actions)
            elif turn_based and len(actions) == 1:
                ((seat, action),) = actions.items()
                checked.apply(action, seat)
            else:
                checked.apply_joint(actions)
        except InvariantViolation as exc:
            failed = checked is not None and checked.steps == played  # the step itself
            violation, checked = exc, None
            if failed:
                break
        except Exception:  # an engine fault that no invariant still checked reports
            break
        tracker.after_step()
    summary: GameSummary | None = None
    if game.is_over:
        try:
            summary = tracker.summary()
        except Exception:  # a result the engine cannot give: an engine fault
            summary = None
    return game, violation, summary


def _state_machine(
    variant: VariantBase,
    ref: str,
    counts: Sequence[int],
    checks: frozenset[str],
    examples: int,
    seed: int,
    shrink: bool,
) -> tuple[InvariantViolation | None, bool]:
    """Run the invariant state machine: the violation found, if any, and whether shrunk.

    The search checks every invariant but does not shrink; with ``shrink``, a
    violation found is then found again, and shrunk, by a run that checks that
    invariant alone (the same seed makes the same choices, and each run costs
    much less).
    """
    try:
        from hypothesis import HealthCheck, Phase, settings
        from hypothesis import seed as hypothesis_seed
        from hypothesis.reporting import with_reporter
        from hypothesis.stateful import run_state_machine_as_test

        from cardshop.testing.stateful import game_machine
    except ImportError:
        raise AuditError(
            "the audit's state machine needs hypothesis: python -m pip install "
            '".[testing]" in a clone of cardshop '
            "(or pass --examples 0 to skip it)"
        ) from None

    def run(wanted: frozenset[str], phases: Sequence[Phase]) -> InvariantViolation | None:
        machine = game_machine(variant, players=counts, checks=wanted)
        machine.variant_ref = ref
        hypothesis_seed(seed)(machine)
        options = settings(
            max_examples=examples,
            stateful_step_count=25,
            deadline=None,
            database=None,
            derandomize=False,
            print_blob=False,
            phases=phases,
            report_multiple_bugs=False,
            suppress_health_check=list(HealthCheck),
        )
        try:
            with with_reporter(lambda _message: None):
                run_state_machine_as_test(machine, settings=options)  # type: ignore[no-untyped-call,unused-ignore]
        except InvariantViolation as exc:
            return exc
        return None

    found = run(checks, (Phase.generate,))
    if found is None or not shrink:
        return found, False
    shrunk = run(frozenset({found.invariant}), (Phase.generate, Phase.shrink))
    if shrunk is not None and shrunk.invariant == found.invariant:
        return shrunk, True
    return found, False  # pragma: no cover - seen only together with other checks


def run_audit(
    variant: VariantBase | str | Path,
    *,
    games: int | None = None,
    players: Collection[int] | None = None,
    seed: int = 0,
    examples: int = 50,
    check_every: int | None = None,
    max_cap_share: float | None = None,
    bots: str | Sequence[str] | None = None,
    cap_policy: str | None = None,
    workers: int | None = 1,
    progress: Callable[[str], None] | None = None,
    played: Callable[[int, int], None] | None = None,
    precision: float | None = None,
    precision_measures: Sequence[str] | None = None,
) -> AuditReport:
    """Audit ``variant`` (a loaded variant of any family, a built-in name or YAML path).

    ``games`` simulated games are played per player count (``players``, default
    the variant's whole range); ``examples`` is the number of state machine runs
    (0 skips it, and hypothesis is then not needed); ``check_every`` checks the
    costly invariants (copies, hidden information, every legal action's text, ...)
    of simulated games after every ``check_every``-th step. ``cap_policy``
    ``"fail"``: games may be capped in at most ``max_cap_share`` of games before the
    audit fails; ``"report"``: capped games are reported, never a failure. ``bots``
    names the bots that play (a name, or one per seat in turn; any name
    :func:`cardshop.bots.make_bot` knows for the variant). ``games``, ``bots``,
    ``check_every``, ``cap_policy`` and ``max_cap_share`` left at ``None`` take the
    family's audit defaults (:class:`cardshop.core.AuditDefaults`); the report lists
    those it took (``report.defaults``). ``workers`` processes play the simulated
    games (1: this process; ``None``: one per CPU); the report is the same for any
    number of workers when every invariant holds (a violation found stops that
    invariant's checks only in the games not yet sent to a worker). ``progress``
    receives a line of text as each part starts, and ``played(players, done)`` the
    number of games of a player count played so far, after each game.

    Stopped half-way (Ctrl-C: a ``KeyboardInterrupt``, or any exception that is not an
    error), it raises :class:`AuditInterrupted`, whose ``report`` holds what it had:
    the games played until then and the invariants found violated, marked partial.

    ``precision``: play until the 95% interval of each of ``precision_measures``
    (default: every win share) has a half-width of at most this, ``games`` being then
    the cap (:func:`cardshop.tuning.precision.audit_to_precision`).

    ``seed`` is an int, not a bool, within :data:`~cardshop.core.MASTER_SEED_LIMIT`
    (:func:`~cardshop.core.check_seed`; a :class:`~cardshop.SetupError` otherwise).
    """
    v = load_variant(variant)
    seed = check_seed(seed, "seed", MASTER_SEED_LIMIT)  # an int, never a bool
    family = get_family(v.family)
    defaults = family.audit
    unit = family.length_unit  # the report's words for a game's length
    taken: list[str] = []
    if bots is None:
        bots = list(defaults.bots)
        taken.append("bots")
    if games is None:
        games = defaults.games
        taken.append("games")
    if check_every is None:
        check_every = defaults.check_every
        taken.append("check_every")
    if cap_policy is None:
        cap_policy = defaults.cap_policy
        taken.append("cap_policy")
    if max_cap_share is None:
        max_cap_share = defaults.max_cap_share
    if precision is not None:
        from cardshop.tuning.precision import audit_to_precision

        return audit_to_precision(
            variant,
            precision,
            measures=precision_measures,
            max_games=games,
            examples=examples,
            players=players,
            seed=seed,
            check_every=check_every,
            max_cap_share=max_cap_share,
            bots=bots,
            cap_policy=cap_policy,
            workers=workers,
            progress=progress,
        )
    ref = v.name if isinstance(variant, VariantBase) else str(variant)
    if games < 0 or examples < 0 or check_every < 1 or not 0 <= max_cap_share <= 1:
        raise AuditError(
            "games and examples must be 0 or more, check_every 1 or more, and "
            f"max_cap_share within 0..1 (got {games}, {examples}, {check_every}, "
            f"{max_cap_share})"
        )
    if cap_policy not in CAP_POLICIES:
        raise AuditError(
            f"the cap policy is one of {', '.join(CAP_POLICIES)}, not {str(cap_policy)[:60]!r}"
        )
    if workers is None:
        workers = os.cpu_count() or 1
    if not isinstance(workers, int) or workers < 1:
        raise AuditError(f"workers must be at least 1, not {workers!r}")
    names = [bots] if isinstance(bots, str) else list(bots)
    names = [n.strip() for name in names for n in name.split(",") if n.strip()]
    if not names:
        raise AuditError("name at least one bot")
    _bots(names, v, seed, len(names), -1)  # an unknown bot name is a SetupError now
    counts = sorted(set(players)) if players else list(range(v.players.min, v.players.max + 1))
    bad = [n for n in counts if not v.players.min <= n <= v.players.max]
    if bad:
        raise SetupError(
            f"{v.name} is played by {v.players.min} to {v.players.max} players, not "
            f"{', '.join(map(str, bad))}"
        )
    if games * len(counts) > MAX_GAMES:  # what a saved-games file may hold
        raise AuditError(
            f"an audit plays at most {MAX_GAMES:,} games in all: {games:,} games for each "
            f"of {len(counts)} player counts is more"
        )
    say = progress or (lambda _line: None)
    stack = contextlib.ExitStack()
    catalogue = describe_invariants(v.family)
    found: dict[str, tuple[Counterexample | None, str]] = {}
    reports: list[PlayerCountReport] = []
    summaries: list[GameSummary] = []
    count = 0  # the player count being played, 0 before the games

    def report(partial: bool) -> AuditReport:
        findings = tuple(
            InvariantFinding(
                name,
                clauses,
                summary,
                held=name not in found,
                counterexample=found.get(name, (None, ""))[0],
                found_by=found.get(name, (None, ""))[1],
            )
            for name, (summary, clauses) in catalogue.items()
        )
        counts_done = list(reports)
        if partial and summaries:  # the player count it stopped in, as far as it got
            counts_done.append(_summarise(count, summaries, 0, seed, unit))
        cap = getattr(v, "round_cap", None)
        length_cap = getattr(v, f"{unit}_cap", None)  # round_cap, turn_cap, ...
        return AuditReport(
            variant=ref,
            name=v.name,
            title=v.title,
            content_hash=v.content_hash,
            round_cap=cap if isinstance(cap, int) else None,
            seed=seed,
            games=games,
            examples=examples,
            max_cap_share=max_cap_share,
            policy=",".join(names),
            invariants=findings,
            player_counts=tuple(counts_done),
            family=v.family,
            partial=partial,
            cap_policy=cap_policy,
            check_every=check_every,
            defaults=tuple(taken),
            defaults_note=defaults.note if taken else "",
            length_unit=unit,
            length_cap=length_cap if type(length_cap) is int else None,
        )

    from cardshop.simulation import _process_pool, _stop_workers

    try:
        stack.enter_context(shared_memo())
        remaining = frozenset(catalogue)
        if examples:
            # The first violation is shrunk; later searches (for the invariants still
            # holding) report what they find as found, which costs far less.
            while remaining:
                say(f"state machine: {examples} examples, checking {len(remaining)} invariants")
                exc, shrunk = _state_machine(v, ref, counts, remaining, examples, seed, not found)
                if exc is None or exc.invariant not in remaining:
                    break
                how = "state machine (shrunk)" if shrunk else "state machine"
                found[exc.invariant] = (exc.counterexample, how)
                remaining = remaining - {exc.invariant}

        pool = _process_pool(min(workers, max(1, games))) if workers > 1 and games > 1 else None
        try:
            for n in counts:
                say(f"{n} players: {games} games")
                count, summaries = n, []
                job = _GamesJob(v, n, seed, check_every, ref, tuple(names))
                for i, (fault, summary) in enumerate(_games(job, games, remaining, pool)):
                    if fault is not None and fault[0] not in found:
                        found[fault[0]] = (fault[1], f"simulated game {i} with {n} players")
                        remaining = remaining - {fault[0]}
                    if summary is not None:
                        summaries.append(summary)
                    if played is not None:
                        played(n, i + 1)
                reports.append(_summarise(n, summaries, games - len(summaries), seed, unit))
                summaries = []
        except BaseException:
            if pool is not None:
                _stop_workers(pool)
                pool = None
            raise
        finally:
            if pool is not None:
                pool.shutdown(wait=True)
    except BaseException as exc:
        if _interruption(exc):
            raise AuditInterrupted(report(partial=True)) from exc
        raise
    finally:
        stack.close()
    return report(partial=False)


@dataclass(frozen=True, slots=True)
class _GamesJob:
    """What a worker needs to play and check the simulated games of one player count."""

    variant: VariantBase
    players: int
    seed: int
    every: int
    ref: str
    names: tuple[str, ...]


_Played = tuple[tuple[str, Counterexample | None] | None, GameSummary | None]
"""One simulated game: the violation found (invariant, counterexample), its summary."""

CHUNK = 8
"""Simulated games a worker plays per task (after the first tasks, which play fewer)."""


def _play_games(job: _GamesJob, indices: range, checks: frozenset[str]) -> list[_Played]:
    """Play and check the games ``indices`` of ``job`` (in a worker, or here)."""
    global _WORKER_MEMO
    memo = active_memo()
    if memo is None:  # a worker process: one memo for every task it runs
        memo = _WORKER_MEMO = _WORKER_MEMO or LegalMemo()
    out: list[_Played] = []
    with shared_memo(memo):
        for i in indices:
            _game, violation, summary = _audit_game(
                job.variant, job.players, job.seed, i, checks, job.every, job.ref, job.names
            )
            fault = None if violation is None else (violation.invariant, violation.counterexample)
            if fault is not None:
                checks = checks - {fault[0]}
            out.append((fault, summary))
    return out


_WORKER_MEMO: LegalMemo | None = None
"""The memo of the legal-actions check of a worker process's games."""


def _games(
    job: _GamesJob, games: int, checks: frozenset[str], pool: Executor | None
) -> Iterator[_Played]:
    """The games of ``job`` in order, played here one by one or by ``pool`` in chunks.

    Without a pool, a violation found stops that invariant's checks in later games;
    with one, chunks already sent check what held when they were sent."""
    if pool is None:
        for i in range(games):
            ((fault, summary),) = _play_games(job, range(i, i + 1), checks)
            if fault is not None:
                checks = checks - {fault[0]}
            yield fault, summary
        return
    ahead = 2 * max(1, getattr(pool, "_max_workers", 1))  # chunks sent before they are due

    def sizes() -> Iterator[range]:  # one game a chunk at first: the first games come soon
        start, size = 0, 1
        while start < games:
            yield range(start, min(start + size, games))
            start, size = start + size, min(CHUNK, size + 1)

    waiting: deque[Future[list[_Played]]] = deque()
    chunks = sizes()
    while True:
        while len(waiting) < ahead and (chunk := next(chunks, None)) is not None:
            waiting.append(pool.submit(_play_games, job, chunk, checks))
        if not waiting:
            return
        for fault, summary in waiting.popleft().result():
            if fault is not None:
                checks = checks - {fault[0]}
            yield fault, summary


def _summarise(
    players: int,
    summaries: Sequence[GameSummary],
    unfinished: int,
    seed: int,
    unit: str = "round",
) -> PlayerCountReport:
    """The report of one player count, from the summaries of its finished games; the
    length of a game is worded in the family's ``unit`` (a round, a turn)."""
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
        summaries=tuple(summaries),
        measures=_in_unit(measure_all(summaries, seed=seed), unit),
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
    va, vb = load_variant(a), load_variant(b)
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
    reports = []
    for tag, source, loaded in (("A", a, va), ("B", b, vb)):
        ref = loaded if isinstance(source, VariantBase) else source

        def tell(line: str, tag: str = tag, name: str = loaded.name) -> None:
            say(f"{tag} ({name}): {line}")

        try:
            reports.append(run_audit(ref, players=players, progress=tell, **options))
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
        unit = _length_unit(h["family"])
        round_cap = h.get("round_cap")
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
                    _summarise(n, games, 0, h["seed"], unit) for n, games in by_count.items()
                ),
                family=h["family"],
                source=str(path),
                length_unit=unit,
                length_cap=round_cap if unit == "round" else None,
            )
        )
    if len(reports) == 1:
        return reports[0]
    return ComparisonReport.of(reports[0], reports[1])
