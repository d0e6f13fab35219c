"""Running hostile cases: in the test process, or in child processes with limits."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cardshop import CardshopError

__all__ = ["MEMORY", "TIMEOUT", "hang_guard", "run_in_children", "run_library"]

TIMEOUT = float(os.environ.get("CARDSHOP_HOSTILE_TIMEOUT", "120"))
"""Seconds a case may take before it counts as a hang (a bound, not a benchmark): a
case answers in a second or two, so a busy machine stays far inside it, while work
without a bound never ends."""

MEMORY = 1 << 30
"""Address space a child process may use (1 GiB)."""

RUNNER = Path(__file__).resolve().parent / "_runner.py"


class Hang(BaseException):
    """Raised in the test process when an in-process case outlives :data:`TIMEOUT`."""


@contextlib.contextmanager
def hang_guard(seconds: float = TIMEOUT) -> Iterator[None]:
    """Interrupt the block with :class:`Hang` after ``seconds`` (main thread only)."""

    def alarm(signum: int, frame: Any) -> None:
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_library(case: Any, folder: Path) -> dict[str, Any]:
    """Build a library case's input in ``folder``, make the call and say what happened."""
    call = case.make(folder)
    try:
        result = call()
    except CardshopError as exc:
        return {
            "status": "raised",
            "mro": [c.__name__ for c in type(exc).__mro__],
            "message": str(exc)[:2000],
        }
    except BaseException as exc:  # what the suite exists to catch
        if isinstance(exc, Hang):
            raise
        return {
            "status": "escaped",
            "error": type(exc).__name__,
            "traceback": "".join(traceback.format_exception(exc))[-3000:],
        }
    return {"status": "returned", "result": repr(result)[:500]}


def run_in_children(ids: list[str], folder: Path) -> dict[str, dict[str, Any]]:
    """Run cases in forked children of runner processes (one per CPU, at most two);
    return their results by id."""
    if not ids:
        return {}
    workers = max(1, min(2, os.cpu_count() or 1, len(ids)))
    procs = []
    for i in range(workers):
        chunk = ids[i::workers]
        job = {"folder": str(folder), "ids": chunk, "timeout": TIMEOUT, "memory": MEMORY}
        job_file = folder / f"job-{i}.json"
        job_file.write_text(json.dumps(job), encoding="utf-8")
        proc = subprocess.Popen(
            [sys.executable, str(RUNNER), str(job_file)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        procs.append((proc, chunk))
    results: dict[str, dict[str, Any]] = {}
    for proc, chunk in procs:
        try:
            stdout, stderr = proc.communicate(timeout=60 + TIMEOUT * len(chunk))
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
        for line in stdout.splitlines():
            data = json.loads(line)
            results[data.pop("id")] = data
        for case_id in chunk:
            results.setdefault(
                case_id,
                {"status": "runner failed", "code": proc.returncode, "stderr": stderr[-3000:]},
            )
    return results
