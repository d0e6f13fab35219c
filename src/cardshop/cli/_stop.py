"""One way for a long command to stop: SIGTERM and Ctrl-C become :class:`Stopped`.

A command runs its work inside :func:`signals_stop`; the first signal raises
:class:`Stopped` where the program is, and is remembered, so that a stop raised where
Python can only drop it (a finalizer, a callback from C such as a garbage collector
hook) is raised again a moment later (a timer) and at the command's next check
(:func:`raise_if_stopped`). A second signal is ignored: it cannot cut the clean-up
short or kill the process half-way.
The command then exits with ``128 + signal`` (130 for SIGINT, 143 for SIGTERM).

A process forked while the block runs (a worker of a process pool) inherits the
handler before its own setup can replace it; there the handler does what a worker
does: it ignores SIGINT (its parent handles Ctrl-C) and dies of SIGTERM, quietly.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from types import FrameType
from typing import Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cardshop.cli._app import err_console
from cardshop.support.stopping import clear_stop, request_stop

__all__ = ["GamesBar", "Stopped", "games_bar", "raise_if_stopped", "signals_stop", "stop_signal"]


class Stopped(BaseException):
    """SIGTERM (or SIGINT) arrived: unwind, stopping the work on the way."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_caught: list[int] = []
"""Signals turned into :class:`Stopped` in this process. A handler's exception raised
while the interpreter runs a finalizer is dropped, not propagated; the command's next
check (:func:`raise_if_stopped`) raises it again, so the stop is never lost."""


def raise_if_stopped() -> None:
    """Raise :class:`Stopped` again if a signal was caught (commands call it often:
    from a progress callback)."""
    if _caught:
        raise Stopped(_caught[0])


@contextlib.contextmanager
def signals_stop() -> Iterator[None]:
    """Turn SIGTERM and SIGINT into :class:`Stopped` while the block runs."""

    def stop(signum: int, frame: FrameType | None) -> None:
        if os.getpid() != owner:  # a forked child that has not set its own handlers yet
            if signum != signal.SIGINT:
                signal.signal(signum, signal.SIG_DFL)
                os.kill(os.getpid(), signum)
            return
        # Once is enough: a second signal must not cut the clean-up short.
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        _caught.append(signum)
        request_stop(signum)  # the library's loops: any error raised from now on is the stop
        raise Stopped(signum)

    def unraisable(info: Any) -> None:
        # A Stopped raised where Python can only drop it (a finalizer, or a callback
        # from C such as a garbage collector hook) gets no "Exception ignored" report:
        # it is raised again in a moment, from the code running then.
        if isinstance(info.exc_value, Stopped):
            signal.setitimer(signal.ITIMER_REAL, 0.01)
        else:
            hook(info)

    def again(signum: int, frame: FrameType | None) -> None:
        raise_if_stopped()

    _caught.clear()
    clear_stop()
    owner = os.getpid()
    hook = sys.unraisablehook
    sys.unraisablehook = unraisable
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    alarm = signal.signal(signal.SIGALRM, again)
    try:
        yield
    finally:
        clear_stop()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, alarm)
        if not _caught:  # once stopped, the process only ends: a second signal is ignored
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        sys.unraisablehook = hook


def stop_signal(exc: BaseException) -> int | None:
    """The stop signal behind ``exc``: a :class:`Stopped`, or any error raised once a
    signal was caught (a library the stop interrupted half-way, such as a compiler,
    may raise its own error instead); ``None`` for anything else."""
    if isinstance(exc, Stopped):
        return exc.signum
    if _caught and not isinstance(exc, typer.Exit | SystemExit):
        return _caught[0]
    return None


class GamesBar:
    """A command's progress bar of games on stderr, and the count played so far.

    Pass :meth:`advance` as the work's ``progress`` callback: it checks for a stop
    (:func:`raise_if_stopped`) before it counts, so a long run stops between games.
    """

    def __init__(self, progress: Progress, total: int | None) -> None:
        self._progress = progress
        self._task = progress.add_task("games", total=total)
        self.played = 0

    def advance(self, n: int) -> None:
        raise_if_stopped()
        self.played += n
        self._progress.advance(self._task, n)


@contextlib.contextmanager
def games_bar(label: str, total: int | None, *, quiet: bool) -> Iterator[GamesBar]:
    """A bar of ``total`` games headed ``label`` on stderr (none with ``quiet``)."""
    with Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        disable=quiet,
    ) as progress:
        yield GamesBar(progress, total)
