"""The audit's search: the invariant state machine, where hypothesis picks the actions."""

from __future__ import annotations

from collections.abc import Sequence

from cardshop.audit.errors import AuditError
from cardshop.core.variant import VariantBase
from cardshop.invariants import (
    InvariantViolation,
)

__all__ = ["require_hypothesis", "state_machine"]

_NEEDS_HYPOTHESIS = (
    "the audit's state machine needs hypothesis: python -m pip install "
    '".[testing]" in a clone of cardshop '
    "(or pass --examples 0 to skip it)"
)


def require_hypothesis() -> None:
    """Raise :class:`AuditError` now if the state machine cannot run (no hypothesis):
    before a worker process is sent to run it, and before any game is played."""
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        raise AuditError(_NEEDS_HYPOTHESIS) from None


def state_machine(
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
        raise AuditError(_NEEDS_HYPOTHESIS) from None

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
