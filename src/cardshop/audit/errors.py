"""The audit's errors: a run that cannot start, and a run stopped half-way."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardshop.core.errors import CardshopError
from cardshop.support import stopping

if TYPE_CHECKING:
    from cardshop.audit.compare import ComparisonReport
    from cardshop.audit.report import AuditReport

__all__ = ["AuditError", "AuditInterrupted", "is_interruption"]


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


def is_interruption(exc: BaseException) -> bool:
    """Whether ``exc`` stops an audit rather than fails it: not an error, not an exit,
    or any exception raised while a stop is requested
    (:func:`cardshop.support.stopping.is_interruption`)."""
    return not isinstance(exc, AuditInterrupted) and stopping.is_interruption(exc)
