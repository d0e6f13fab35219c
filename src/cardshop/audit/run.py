"""Carrying an audit out, step by step: search, play the games, report.

:func:`carry_out` does what an :class:`~cardshop.audit.plan.AuditPlan` says in named
steps: the invariant state machine (:func:`search_invariants`), the simulated games of
each player count (:func:`play_counts`), and the report (:func:`make_report`) of what
was found, which an interruption still gets, marked partial.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field

from cardshop.audit.errors import AuditInterrupted, is_interruption
from cardshop.audit.games import GamesJob, play_games
from cardshop.audit.plan import AuditPlan, check_size
from cardshop.audit.report import AuditReport, InvariantFinding, PlayerCountReport, summarise
from cardshop.audit.search import require_hypothesis, state_machine
from cardshop.core import variant_warnings
from cardshop.invariants import Counterexample, describe_invariants, shared_memo
from cardshop.ladder.depth import GradedResult, graded_steps
from cardshop.measures import GameSummary
from cardshop.simulation import process_pool, stop_workers

__all__ = [
    "Played",
    "Say",
    "carry_out",
    "make_report",
    "play_counts",
    "play_graded",
    "search_invariants",
]

Say = Callable[[str], None]
"""Receives a line of progress text."""
Played = Callable[[int, int], None]
"""Receives (players, games of that count played so far) after each game."""


@dataclass(slots=True)
class _Findings:
    """What an audit has found so far: violations, and the reports of player counts."""

    catalogue: dict[str, tuple[str, tuple[str, ...]]]
    """Every invariant checked: name -> (summary, clauses)."""
    found: dict[str, tuple[Counterexample | None, str]] = field(default_factory=dict)
    """Violated invariants: name -> (counterexample, how it was found)."""
    reports: list[PlayerCountReport] = field(default_factory=list)
    summaries: list[GameSummary] = field(default_factory=list)
    """The games of the player count being played."""
    count: int = 0
    """The player count being played, 0 before the games."""
    graded: list[GradedResult] = field(default_factory=list)
    """The graded ladders played, one per player count (with ``plan.graded``)."""

    def holding(self) -> frozenset[str]:
        return frozenset(self.catalogue) - set(self.found)


def carry_out(
    plan: AuditPlan, progress: Say | None = None, played: Played | None = None
) -> AuditReport:
    """Do what ``plan`` says; see :func:`run_audit` (an interruption raises
    :class:`AuditInterrupted` with the partial report).

    With worker processes, the state machine runs in one of them while the others
    start on the simulated games (:func:`_beside`): the same report as running them
    one after the other, in less time.
    """
    check_size(plan)
    say = progress or (lambda _line: None)
    findings = _Findings(describe_invariants(plan.subject.variant.family))
    pool = _pool(plan)
    try:
        with shared_memo():
            if pool is not None and plan.examples:
                _beside(plan, findings, say, played, pool)
            else:
                search_invariants(plan, findings, say)
                play_counts(plan, findings, say, played, pool)
            play_graded(plan, findings, say)
    except BaseException as exc:
        if pool is not None:
            stop_workers(pool)
            pool = None
        if is_interruption(exc):
            raise AuditInterrupted(make_report(plan, findings, partial=True)) from exc
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True)
    return make_report(plan, findings, partial=False)


def _pool(plan: AuditPlan) -> Executor | None:
    """The worker processes of the simulated games (None: they are played here)."""
    games = plan.games * plan.replays
    return process_pool(min(plan.workers, games)) if plan.workers > 1 and games > 1 else None


def _beside(
    plan: AuditPlan, findings: _Findings, say: Say, played: Played | None, pool: Executor
) -> None:
    """The state machine in a worker process, the simulated games beside it.

    The games check every invariant, as they do after a search that found nothing.
    If the search found a violation, the games are played again checking only the
    invariants still holding, as they are after that search: the report is the one
    the search and then the games give, either way.
    """
    require_hypothesis()  # its error now, not after the games
    say(_searching(plan, findings))
    search = pool.submit(_search, plan)  # first: the first free worker takes it
    play_counts(plan, findings, say, played, pool)
    found = search.result()
    if found:
        findings.found, findings.reports = dict(found), []
        say("state machine found a violation: the simulated games again, without it")
        play_counts(plan, findings, say, played, pool)


def _search(plan: AuditPlan) -> dict[str, tuple[Counterexample | None, str]]:
    """:func:`search_invariants` in a worker process: the violations it found."""
    findings = _Findings(describe_invariants(plan.subject.variant.family))
    search_invariants(plan, findings, lambda _line: None)
    return findings.found


def _searching(plan: AuditPlan, findings: _Findings) -> str:
    return f"state machine: {plan.examples} examples, checking {len(findings.holding())} invariants"


def search_invariants(plan: AuditPlan, findings: _Findings, say: Say) -> None:
    """The invariant state machine, once for every invariant still holding after the
    last run's violation: the first violation is shrunk; later ones are reported as
    found, which costs far less."""
    if not plan.examples:
        return
    subject = plan.subject
    while remaining := findings.holding():
        say(_searching(plan, findings))
        exc, shrunk = state_machine(
            subject.variant,
            subject.ref,
            plan.counts,
            remaining,
            plan.examples,
            plan.seed,
            not findings.found,
        )
        if exc is None or exc.invariant not in remaining:
            return
        how = "state machine (shrunk)" if shrunk else "state machine"
        findings.found[exc.invariant] = (exc.counterexample, how)


def play_counts(
    plan: AuditPlan,
    findings: _Findings,
    say: Say,
    played: Played | None,
    pool: Executor | None = None,
) -> None:
    """The simulated games of every player count, checked and summarised, here or on
    ``pool`` (its owner shuts it down)."""
    games = plan.games * plan.replays
    for n in plan.counts:
        say(f"{n} players: {games} games")  # with replays: every replay counts
        _play_count(plan, n, findings, pool, played)


def play_graded(plan: AuditPlan, findings: _Findings, say: Say) -> None:
    """The graded ladder of ``plan.graded`` for every player count: ``games // players``
    deals (at least 1), the audit's seed and workers."""
    if not plan.graded:
        return
    for n in plan.counts:
        deals = max(1, plan.games // n)
        say(f"{n} players: graded ladder {','.join(plan.graded)}, {deals} deals per step")
        findings.graded.append(
            graded_steps(
                plan.subject.variant,
                plan.graded,
                players=n,
                deals=deals,
                seed=plan.seed,
                workers=plan.workers,
            )
        )


def _play_count(
    plan: AuditPlan, n: int, findings: _Findings, pool: Executor | None, played: Played | None
) -> None:
    findings.count, findings.summaries = n, []
    replays = plan.replays
    job = GamesJob(
        plan.subject, n, plan.seed, plan.check_every, plan.bots, replays, plan.check_games
    )
    total = plan.games * replays
    for i, (fault, summary) in enumerate(play_games(job, total, findings.holding(), pool)):
        if fault is not None and fault[0] not in findings.found:
            deal, replay = divmod(i, replays)
            which = f" (replay {replay})" if replay else ""
            findings.found[fault[0]] = (fault[1], f"simulated game {deal}{which} with {n} players")
        if summary is not None:
            findings.summaries.append(summary)
        if played is not None:
            played(n, i + 1)
    unfinished = plan.games - sum(s.replay == 0 for s in findings.summaries)
    unit = plan.subject.family.length_unit  # the report's words for a game's length
    findings.reports.append(summarise(n, findings.summaries, unfinished, plan.seed, unit))
    findings.summaries = []


def make_report(plan: AuditPlan, findings: _Findings, *, partial: bool) -> AuditReport:
    """The report of what ``findings`` holds (partial: the player count it stopped in,
    as far as it got, is reported too)."""
    invariants = tuple(
        InvariantFinding(
            name,
            clauses,
            summary,
            held=name not in findings.found,
            counterexample=findings.found.get(name, (None, ""))[0],
            found_by=findings.found.get(name, (None, ""))[1],
        )
        for name, (summary, clauses) in findings.catalogue.items()
    )
    unit = plan.subject.family.length_unit  # the report's words for a game's length
    counts = list(findings.reports)
    if partial and findings.summaries:
        counts.append(summarise(findings.count, findings.summaries, 0, plan.seed, unit))
    v = plan.subject.variant
    cap = getattr(v, "round_cap", None)
    length_cap = getattr(v, f"{unit}_cap", None)  # round_cap, turn_cap, ...
    return AuditReport(
        variant=plan.subject.ref,
        name=v.name,
        title=v.title,
        content_hash=v.content_hash,
        round_cap=cap if isinstance(cap, int) else None,
        seed=plan.seed,
        games=plan.games,
        examples=plan.examples,
        max_cap_share=plan.max_cap_share,
        policy=",".join(plan.bots),
        invariants=invariants,
        player_counts=tuple(counts),
        family=v.family,
        partial=partial,
        cap_policy=plan.cap_policy,
        check_every=plan.check_every,
        check_games=plan.check_games,
        defaults=plan.taken,
        defaults_note=plan.subject.family.audit.note if plan.taken else "",
        length_unit=unit,
        length_cap=length_cap if type(length_cap) is int else None,
        warnings=tuple(str(warning) for warning in variant_warnings(v)),
        replays=plan.replays,
        graded=tuple(findings.graded),
    )
