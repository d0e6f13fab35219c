"""Run hostile cases in child processes, each under an address-space limit and a timeout.

Usage (what ``_harness.run_in_children`` does)::

    python tests/hostile/_runner.py JOB.json   # {"folder", "ids", "timeout", "memory"}

The runner imports cardshop (and its command line) once, then forks one child per
case: the child lowers its address-space limit (``RLIMIT_AS``), builds the case's
input in its own folder and runs it; the runner kills it if it outlives the timeout.
A command-line case runs ``python -m cardshop ARGV`` in the child exactly as the
interpreter would (``runpy``, an escaping exception printed as a traceback with exit
code 1), with stdin, stdout and stderr on files. One JSON line per case is printed:
``{"id", "status", ...}`` where status is ``raised``/``returned``/``escaped`` (a
library call), ``exited`` (a command line), ``killed`` (by a signal, e.g. when out of
memory) or ``timeout``.
"""

from __future__ import annotations

import json
import os
import resource
import runpy
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import cardshop.cli  # noqa: E402  imported once, before forking: children start fast
from hostile._cases import Cli, by_id  # noqa: E402
from hostile._harness import run_library  # noqa: E402


def run_cli(call: Cli, folder: Path) -> int:
    """Run ``python -m cardshop ARGV`` in this (forked) process; return its exit code."""
    (folder / "stdin").write_text(call.stdin, encoding="utf-8", errors="surrogateescape")
    fd_in = os.open(folder / "stdin", os.O_RDONLY)
    fd_out = os.open(folder / "stdout", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    fd_err = os.open(folder / "stderr", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    for fd, target in ((fd_in, 0), (fd_out, 1), (fd_err, 2)):
        os.dup2(fd, target)
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    os.chdir(folder)
    sys.argv = ["cardshop", *call.argv]
    code: Any = 0
    try:
        runpy.run_module("cardshop", run_name="__main__", alter_sys=True)
    except SystemExit as exc:  # what the interpreter does with sys.exit(...)
        code = exc.code
        if code is None:
            code = 0
        elif not isinstance(code, int):
            print(code, file=sys.stderr)
            code = 1
    except BaseException:  # an escaping exception: the interpreter prints a traceback
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return int(code)


def child(case_id: str, folder: Path, memory: int, write_fd: int) -> None:
    """The forked child: limit memory, run one case, report on ``write_fd``, exit."""
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    case = by_id()[case_id]
    if case.kind == "command line":
        call = case.make(folder)
        code = run_cli(call, folder)
        stderr = (folder / "stderr").read_text(encoding="utf-8", errors="replace")
        out: dict[str, Any] = {"status": "exited", "code": code, "stderr": stderr[-4000:]}
    else:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        out = run_library(case, folder)
    os.write(write_fd, json.dumps(out).encode())
    os._exit(0)


def run_one(case_id: str, base: Path, timeout: float, memory: int) -> dict[str, Any]:
    folder = base / case_id.replace("/", "_").replace(":", "_").replace("*", "x")
    folder.mkdir(parents=True, exist_ok=True)
    read_fd, write_fd = os.pipe()
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read_fd)
        try:
            child(case_id, folder, memory, write_fd)
        finally:
            os._exit(70)
    os.close(write_fd)
    chunks: list[bytes] = []
    os.set_blocking(read_fd, False)
    status = None
    while True:
        try:
            chunk = os.read(read_fd, 65536)
            if chunk:
                chunks.append(chunk)
        except BlockingIOError:
            pass
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - start > timeout:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read_fd)
            return {"status": "timeout", "seconds": timeout}
        time.sleep(0.002)
    os.set_blocking(read_fd, True)
    while chunk := os.read(read_fd, 65536):
        chunks.append(chunk)
    os.close(read_fd)
    seconds = round(time.monotonic() - start, 3)
    if os.WIFSIGNALED(status):
        return {"status": "killed", "signal": os.WTERMSIG(status), "seconds": seconds}
    if not chunks:
        return {"status": "killed", "exit": os.WEXITSTATUS(status), "seconds": seconds}
    result: dict[str, Any] = json.loads(b"".join(chunks))
    result["seconds"] = seconds
    return result


def warm_up() -> None:
    """Run the command line once here, so that what it imports lazily is loaded before
    forking and each child starts as fast as an installed command would."""
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cardshop.cli.run(["demo", "--players", "x"])


def main() -> None:
    job = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    warm_up()
    base = Path(job["folder"])
    for case_id in job["ids"]:
        result = run_one(case_id, base, job["timeout"], job["memory"])
        result["id"] = case_id
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
