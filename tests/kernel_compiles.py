"""The batch kernels' first compiles, done once for a whole run of the suite.

numba compiles a kernel the first time a process calls it (about 30-45 s of CPU each)
and keeps the machine code in its cache, where every later process finds it. A run of
the whole suite (``python -m pytest``, as ``.ci/run`` runs it) therefore compiles the
three kernels side by side before the test workers start (:func:`compile_kernels`,
from ``conftest.pytest_sessionstart``): otherwise every worker compiles every kernel
at once, and so do the subprocesses of the tests that run a kernel from the command
line.

Each of these compiles is a real first run of a family's kernel through the library,
with logging on (:func:`first_run`). When the cache was empty (a clean checkout, as in
CI) the run logged its compile, and the tests of that first compile's message read its
result (:func:`first_compile`) instead of compiling the kernel once more; when the cache
already held the kernel (a second run by hand) they compile it themselves, in an empty
cache of their own.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

__all__ = ["FIRST_RUNS", "compile_kernels", "first_compile", "first_run", "forget_compiles"]

FIRST_RUNS = {
    "klunker": ("klunker-en", 4, "random"),
    "wuhltisch": ("wuhltisch", 3, "greedy"),
    "reglamentacja": ("reglamentacja", 3, "greedy"),
}
"""Each family with a kernel: the variant, players and bot of its first run."""

RESULTS = "CARDSHOP_TEST_FIRST_COMPILES"
"""The environment variable naming the file of the run's first compiles, for the
workers (they inherit the environment of the process that starts them)."""

GUARD = 1200
"""A hang guard on one first run, far above its normal time (a compile, on a busy
machine, takes about a minute)."""


def first_run(family: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A process that simulates 600 games of ``family`` on its kernel with logging on
    (a compile logs ``COMPILING`` once) and prints the engine and the number of games."""
    variant, players, bot = FIRST_RUNS[family]
    code = (
        "import logging, cardshop\n"
        "logging.basicConfig(format='%(name)s:%(levelname)s:%(message)s', level='INFO')\n"
        f"sim = cardshop.simulate({variant!r}, {players}, 600, {bot!r}, workers=1,"
        " engine='kernel')\n"
        "print(sim.engine, len(sim))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=GUARD
    )


def compile_kernels() -> None:
    """Run every family's :func:`first_run` side by side (numba installed), keep their
    results in a new temporary folder and name its file in :data:`RESULTS` for the
    workers (:func:`forget_compiles` removes it)."""
    if importlib.util.find_spec("numba") is None:
        return
    with ThreadPoolExecutor(len(FIRST_RUNS)) as pool:
        runs = dict(zip(FIRST_RUNS, pool.map(first_run, FIRST_RUNS), strict=True))
    path = Path(tempfile.mkdtemp(prefix="cardshop-first-compiles-")) / "first-compiles.json"
    path.write_text(
        json.dumps({f: [r.returncode, r.stdout, r.stderr] for f, r in runs.items()}),
        encoding="utf-8",
    )
    os.environ[RESULTS] = str(path)


def forget_compiles() -> None:
    """Remove what :func:`compile_kernels` kept, if anything."""
    given = os.environ.pop(RESULTS, None)
    if given:
        shutil.rmtree(Path(given).parent, ignore_errors=True)


def first_compile(
    family: str, compiling: str, cache: Path
) -> tuple[dict[str, str], subprocess.CompletedProcess[str]]:
    """A first run of ``family``'s kernel that compiled it, and the environment whose
    cache holds the result: the run of :func:`compile_kernels` if it logged the compile
    (``compiling``, the kernel's message), else a new one in the empty cache ``cache``."""
    given = os.environ.get(RESULTS)
    if given:
        code, out, err = json.loads(Path(given).read_text(encoding="utf-8"))[family]
        if compiling in err:
            done = subprocess.CompletedProcess(["first run", family], code, out, err)
            return dict(os.environ), done
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    return env, first_run(family, env)
