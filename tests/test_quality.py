"""The code checks run as part of the one test command: lint, format and strict types."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# These read the checkout's files and never import cardshop: one run says all there is,
# so .ci/run's compiled stage leaves them out (pytest -m "not source_only").
pytestmark = pytest.mark.source_only


def run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)


PYTHON_DIRS = [
    d for d in ("src", "tests", "benchmarks", "examples", "scripts") if (ROOT / d).is_dir()
]


@pytest.mark.parametrize(
    "cmd", [("check",), ("format", "--check")], ids=["ruff-check", "ruff-format"]
)
def test_ruff(cmd: tuple[str, ...]) -> None:
    assert shutil.which("ruff"), "ruff is installed by the dev extra"
    proc = run("ruff", *cmd, *PYTHON_DIRS)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict() -> None:
    proc = run(sys.executable, "-m", "mypy", "--strict", "src")
    assert proc.returncode == 0, proc.stdout + proc.stderr


SLOWEST_GUARD = 600
"""The least a literal ``timeout=`` in the tests may be: every one is a guard against a
hang, far above the seconds a normal run takes, never a measure of the machine's speed."""


def test_every_timeout_in_the_tests_is_a_hang_guard() -> None:
    import ast

    short = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        # A timeout inside ``with contextlib.suppress(...)`` may expire: its expiry is
        # tolerated (a retry), so it can neither hang nor fail a test.
        tolerated = {
            id(inner)
            for node in ast.walk(tree)
            if isinstance(node, ast.With)
            and any(
                isinstance(item.context_expr, ast.Call)
                and getattr(item.context_expr.func, "attr", None) == "suppress"
                for item in node.items
            )
            for stmt in node.body
            for inner in ast.walk(stmt)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or id(node) in tolerated:
                continue
            for keyword in node.keywords:
                value = keyword.value
                if (
                    keyword.arg == "timeout"
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, int | float)
                    and value.value < SLOWEST_GUARD
                ):
                    short.append(f"{path.relative_to(ROOT)}:{node.lineno}: timeout={value.value}")
    assert short == [], short
