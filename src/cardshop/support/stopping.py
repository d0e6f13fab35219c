"""Whether an exception stops the work or fails it: one test for every tool.

A tool that keeps its finished work when stopped (an audit's partial report, a tuning
study's batches) must tell a stop from an error. Ctrl-C is a ``KeyboardInterrupt``,
not an error, and a program may turn a signal into an exception of its own that is
not an error either. But a stop lands wherever the program is, and a library running
there may wrap it in an error of its own: pydantic's serializers, for one, turn any
exception raised inside them into a ``PydanticSerializationError``.

So a program that turns a signal into an exception records the stop here
(:func:`request_stop`) before it raises, and clears it (:func:`clear_stop`) once the
work has unwound; meanwhile every exception is the stop. The command line does this
for each long command.
"""

from __future__ import annotations

__all__ = ["clear_stop", "is_interruption", "request_stop", "requested_stop"]

_requested: list[int] = []
"""The signal of the stop requested, if any."""


def is_interruption(exc: BaseException) -> bool:
    """Whether ``exc`` stops the work rather than fails it: not an error and not an
    exit (``KeyboardInterrupt``, or a stop signal a program turned into an exception
    of its own), or any exception raised while a stop is requested."""
    return bool(_requested) or not isinstance(exc, Exception | SystemExit | GeneratorExit)


def request_stop(signum: int) -> None:
    """Record a stop by ``signum`` (a signal handler calls it before it raises)."""
    _requested[:] = [signum]


def requested_stop() -> int | None:
    """The signal of the stop requested, or ``None``."""
    return _requested[0] if _requested else None


def clear_stop() -> None:
    """The work has unwound: exceptions are judged by their kind again."""
    _requested.clear()
