"""Every hostile case of ``_cases.py`` gets cardshop's own answer, within bounds.

A library case must raise the expected :class:`cardshop.CardshopError` subclass:
not succeed, not let another exception escape, not hang (20 s) and, for a risky
case run in a child process, not exceed 1 GiB of address space. A command-line
case must exit with its code (2 for a usage or input error) and print no traceback;
an error is one paragraph on stderr.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hostile._cases import CASES, Case
from hostile._harness import hang_guard, run_in_children, run_library

ChildResults = Callable[[Case], dict[str, Any]]


@pytest.fixture(scope="session")
def child_results(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> ChildResults:
    """Results of the child-process cases, all run in one batch when first asked."""
    selected = {
        item.callspec.params["case"].id
        for item in request.session.items
        if hasattr(item, "callspec") and isinstance(item.callspec.params.get("case"), Case)
    }
    cache: dict[str, dict[str, Any]] = {}

    def get(case: Case) -> dict[str, Any]:
        if case.id not in cache:  # first call: run every selected child case at once
            ids = [c.id for c in CASES if c.in_child and c.id in selected] or [case.id]
            cache.update(run_in_children(ids, tmp_path_factory.mktemp("hostile-children")))
        return cache[case.id]

    return get


def outcome(case: Case, tmp_path: Path, child_results: ChildResults) -> dict[str, Any]:
    if case.in_child:
        return child_results(case)
    with hang_guard():
        return run_library(case, tmp_path)


def check(case: Case, result: dict[str, Any]) -> None:
    if case.kind == "command line":
        assert result["status"] == "exited", f"the command did not finish: {result}"
        stderr = result["stderr"]
        assert "Traceback" not in stderr, f"a traceback on stderr:\n{stderr}"
        assert result["code"] == case.exit_code, (
            f"exit code {result['code']}, expected {case.exit_code}; stderr:\n{stderr}"
        )
        if case.exit_code == 2:
            assert stderr.strip(), "exit 2 without a word on stderr"
            assert "\n\n" not in stderr.strip(), f"the error is not one paragraph:\n{stderr}"
        return
    assert case.expect is not None
    assert result["status"] == "raised", f"expected {case.expect.__name__}, got: {result}"
    assert case.expect.__name__ in result["mro"], (
        f"expected {case.expect.__name__}, got {result['mro'][0]}: {result['message']}"
    )
    assert result["message"].strip(), "an error without a message"


def _param(case: Case) -> Any:
    """A case as a test parameter. The child-process cases form one xdist group, so
    under ``pytest -n`` a single worker runs their batch (once, not once per worker)."""
    marks = [pytest.mark.xdist_group("hostile-children")] if case.in_child else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_hostile_input_gets_cardshops_answer(
    case: Case, tmp_path: Path, child_results: ChildResults
) -> None:
    check(case, outcome(case, tmp_path, child_results))
