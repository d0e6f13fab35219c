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

The package, in the order an audit runs: :mod:`~cardshop.audit.plan` (the variant
resolved once, the options checked, the family's defaults taken),
:mod:`~cardshop.audit.run` (the steps: search, play, report), with
:mod:`~cardshop.audit.search` (the state machine) and :mod:`~cardshop.audit.games`
(the simulated games), :mod:`~cardshop.audit.report` (the report and its forms),
:mod:`~cardshop.audit.precision` (audits that play until they know) and
:mod:`~cardshop.audit.compare` (two variants on the same seeds).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from cardshop.audit.compare import ComparisonReport, report_from_games, run_comparison
from cardshop.audit.errors import AuditError, AuditInterrupted
from cardshop.audit.plan import AuditPlan, plan_audit
from cardshop.audit.precision import audit_to_precision
from cardshop.audit.report import (
    REPORT_SCHEMA,
    AuditReport,
    Distribution,
    InvariantFinding,
    PlayerCountReport,
    report_schema,
)
from cardshop.audit.run import Played, Say, carry_out
from cardshop.core.variant import VariantBase
from cardshop.support.stats import Interval, wilson

__all__ = [
    "REPORT_SCHEMA",
    "AuditError",
    "AuditInterrupted",
    "AuditPlan",
    "AuditReport",
    "ComparisonReport",
    "Distribution",
    "Interval",
    "InvariantFinding",
    "PlayerCountReport",
    "plan_audit",
    "report_from_games",
    "report_schema",
    "run_audit",
    "run_comparison",
    "wilson",
]


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
    progress: Say | None = None,
    played: Played | None = None,
    precision: float | None = None,
    precision_measures: Sequence[str] | None = None,
    replays: int = 1,
    graded: str | Sequence[str] | None = None,
    check_games: int | str | None = None,
) -> AuditReport:
    """Audit ``variant`` (a loaded variant of any family, a built-in name or YAML path).

    ``games`` simulated games are played per player count (``players``, default
    the variant's whole range); ``examples`` is the number of state machine runs
    (0 skips it, and hypothesis is then not needed); ``check_every`` checks the
    costly invariants (copies, hidden information, every legal action's text, ...)
    of simulated games after every ``check_every``-th step. ``check_games``: how many
    of a player count's simulated games (the first ones) are played in debug mode,
    every invariant checked (``"all"``: every game); the others are played and
    measured only, and the report says how many were checked. ``cap_policy``
    ``"fail"``: games may be capped in at most ``max_cap_share`` of games before the
    audit fails; ``"report"``: capped games are reported, never a failure. ``bots``
    names the bots that play (a name, or one per seat in turn; any name
    :func:`cardshop.bots.make_bot` knows for the variant). ``games``, ``bots``,
    ``check_every``, ``check_games``, ``cap_policy`` and ``max_cap_share`` left at
    ``None`` take the family's audit defaults (:class:`cardshop.core.AuditDefaults`);
    the report lists those it took (``report.defaults``). ``workers`` processes play
    the simulated games (1: this process; ``None``: one per CPU); the report is the
    same for any number of workers when every invariant holds (a violation found
    stops that invariant's checks only in the games not yet sent to a worker). ``progress``
    receives a line of text as each part starts, and ``played(players, done)`` the
    number of games of a player count played so far, after each game.

    Stopped half-way (Ctrl-C: a ``KeyboardInterrupt``, or any exception that is not an
    error), it raises :class:`AuditInterrupted`, whose ``report`` holds what it had:
    the games played until then and the invariants found violated, marked partial.

    ``precision``: play until the 95% interval of each of ``precision_measures``
    (default: every win share) has a half-width of at most this, ``games`` being then
    the cap (:func:`cardshop.audit.precision.audit_to_precision`).

    ``replays``: play each simulated game's deal this many times, with the same bots in
    the same seats seeded anew (1..:data:`cardshop.measures.MAX_REPLAYS`; default 1).
    2 or more adds the luck measures (``luck``, ``luck_score``: the share of the
    outcomes' variance that the deal explains, docs/measures.md) and plays ``replays``
    times as many games; every other figure is the same as without replays (it is
    taken over each deal's first game). Not with ``precision``.

    ``graded``: the rungs of a graded ladder (bot specs, weakest first, as a list or a
    comma-separated text; ``"default"``: :func:`cardshop.ladder.depth.default_rungs`).
    For each player count the audit then plays
    :func:`cardshop.ladder.depth.graded_steps` with ``games // players`` deals (at
    least 1), its seed and workers, and reports each step's win share with its
    interval and whether the ladder holds (``report.graded``). An unknown rung is a
    :class:`~cardshop.SetupError` before any game. Not with ``precision``.

    ``seed`` is an int, not a bool, within :data:`~cardshop.core.MASTER_SEED_LIMIT`
    (:func:`~cardshop.core.check_seed`; a :class:`~cardshop.SetupError` otherwise).
    """
    plan = plan_audit(
        variant,
        games=games,
        players=players,
        seed=seed,
        examples=examples,
        check_every=check_every,
        max_cap_share=max_cap_share,
        bots=bots,
        cap_policy=cap_policy,
        workers=workers,
        replays=replays,
        graded=graded,
        check_games=check_games,
    )
    if precision is not None:
        if plan.graded:
            raise AuditError(
                "graded and precision do not go together: audit with a fixed number of "
                "games for the graded ladder"
            )
        if replays != 1:
            raise AuditError(
                "replays and precision do not go together: an audit to a precision "
                "measures win shares; audit with a fixed number of games for the luck measures"
            )
        return audit_to_precision(plan, precision, measures=precision_measures, progress=progress)
    return carry_out(plan, progress, played)
