"""The JSON Schema of ``cardshop verify``'s report (``cardshop-verify/1``,
``cardshop/schemas/verify-report.schema.json``): reports of real searches pass it,
broken reports do not, and it lists exactly the keys the report writes.

The searches run on the tiny test family, with defects planted in a copy of its rules
the way tests/test_verify.py plants them, and on the mini variants of the built-in
families with a small budget of states.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable, Mapping
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cardshop.core import Action, VariantBase
from cardshop.verify import CHECKS, verify
from tinyfamily import TinyGame
from verify_support import tiny_mini

Report = dict[str, Any]

MINI: dict[str, Any] = {
    "family": "tinymarket",
    "name": "tiny-mini",
    "players": {"min": 2, "max": 2},
    "dynamics": "sequential",
    "cards": [1, 2, 3, 1, 2],  # smaller than test_verify's: every state in about a second
    "market": 2,
}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    """The schema as the installed package holds it (package data, not the checkout)."""
    text = files("cardshop").joinpath("schemas", "verify-report.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    jsonschema.Draft202012Validator.check_schema(loaded)
    return loaded


pytestmark = [pytest.mark.usefixtures("tiny_registered"), pytest.mark.build_independent]


def mini(**changes: Any) -> VariantBase:
    return tiny_mini(MINI, **changes)


def _value(game: TinyGame, card: int) -> int:
    return game.variant.cards[card]


def _plant(
    monkeypatch: pytest.MonkeyPatch,
    *,
    vanish: Callable[[TinyGame], bool] | None = None,
    raises: Callable[[TinyGame, Mapping[int, Action]], bool] | None = None,
) -> None:
    """A copy of the rules with defects: a step raises when ``raises(game, actions)``
    (a playability fault, with its step), and a card of seat 0's pile vanishes after a
    step when ``vanish(game)`` (an invariants fault)."""
    play = TinyGame._play

    def broken(self: TinyGame, actions: Mapping[int, Action]) -> list[Any]:
        if raises is not None and raises(self, actions):
            raise RuntimeError("a planted defect")
        events = play(self, actions)
        if vanish is not None and self.piles[0] and vanish(self):
            self.piles[0].pop()
        return events

    monkeypatch.setattr(TinyGame, "_play", broken)


def clean_report() -> Report:
    report = verify(mini(), 2, exact=True)
    assert report.ok, report.text()
    assert report.complete
    data = report.to_dict()
    assert data["faults"] == []
    assert data["remaining"] == 0
    assert data["keys"] == "whole keys"
    assert data["termination"] == "every line of play ends"
    return data


def budget_report() -> Report:
    report = verify(mini(), 2, max_states=300, checks=["positions", "invariants"])
    assert report.ok, report.text()
    assert not report.complete
    data = report.to_dict()
    assert data["remaining"] > 0
    assert data["checks"] == ["invariants", "positions"]
    assert data["termination"] == "not checked: the search is not complete"
    return data


def fault_report(monkeypatch: pytest.MonkeyPatch) -> Report:
    _plant(monkeypatch, vanish=lambda g: g._step == 2)
    report = verify(mini(), 2)
    assert len(report.counterexamples) == 1, report.text()
    data = report.to_dict()
    (fault,) = data["faults"]
    assert fault["check"] == "invariants"
    assert fault["depth"] == fault["steps"] == 2
    assert fault["step"] is None
    assert isinstance(fault["position"], dict)
    assert isinstance(fault["before"], dict)
    return data


def keep_going_report(monkeypatch: pytest.MonkeyPatch) -> Report:
    _plant(
        monkeypatch,
        raises=lambda g, actions: (
            g._step == 2
            and (_value(g, g.secrets[0]), _value(g, g.secrets[1])) == (2, 3)
            and any(a.verb == "take" for a in actions.values())
        ),
        vanish=lambda g: (
            g._step == 3 and (_value(g, g.secrets[0]), _value(g, g.secrets[1])) == (3, 1)
        ),
    )
    report = verify(mini(), 2, keep_going=True)
    assert report.complete, report.text()
    data = report.to_dict()
    assert len(data["faults"]) > 1
    assert {f["check"] for f in data["faults"]} == {"playability", "invariants"}
    steps = [f["step"] for f in data["faults"] if f["check"] == "playability"]
    assert steps
    assert all(isinstance(s, dict) and s for s in steps)
    return data


def bitstate_report() -> Report:
    report = verify(mini(), 2, bitstate=12)  # a table too small: states are missed
    data = report.to_dict()
    assert data["bitstate"] == 12
    assert data["missed"] > 0
    assert data["keys"].startswith("bit-state hashing")
    assert data["termination"] == "not checked: bit-state hashing keeps no edges between states"
    return data


RUNS: dict[str, Callable[[pytest.MonkeyPatch], Report]] = {
    "clean and complete": lambda mp: clean_report(),
    "stopped by max_states": lambda mp: budget_report(),
    "a fault with its counterexample": fault_report,
    "keep going past several faults": keep_going_report,
    "bit-state hashing": lambda mp: bitstate_report(),
}


@pytest.mark.parametrize("run", list(RUNS))
def test_reports_of_tiny_searches_pass_the_schema(
    run: str, schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = RUNS[run](monkeypatch)
    jsonschema.validate(data, schema)
    jsonschema.validate(json.loads(json.dumps(data)), schema)  # as the JSON file holds it


@pytest.mark.parametrize("name", ["wuhltisch-mini", "klunker-mini", "reglamentacja-mini"])
def test_a_mini_variant_searched_within_a_budget_passes_the_schema(
    name: str, schema: dict[str, Any]
) -> None:
    report = verify(name, 2, max_states=300)
    data = report.to_dict()
    assert data["variant"] == name
    assert not data["complete"]
    assert data["states"] >= 300
    jsonschema.validate(data, schema)


def test_a_shrunk_variant_passes_the_schema(schema: dict[str, Any]) -> None:
    data = verify("wuhltisch", 2, shrink=True, max_states=300).to_dict()
    assert data["shrunk"]
    assert all(isinstance(line, str) for line in data["shrunk"])
    jsonschema.validate(data, schema)


def test_the_json_the_command_writes_passes_the_schema(
    schema: dict[str, Any], tmp_path: Path
) -> None:
    out = tmp_path / "report.json"
    args = ["verify", "wuhltisch-mini", "--max-states", "300", "--json", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "cardshop", *args],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: the run takes seconds
    )
    assert done.returncode == 0, done.stderr
    jsonschema.validate(json.loads(out.read_text(encoding="utf-8")), schema)


# ------------------------------------------------------------- broken reports


def _drop(*path: str | int) -> Callable[[Report], None]:
    def edit(data: Report) -> None:
        where: Any = data
        for part in path[:-1]:
            where = where[part]
        del where[path[-1]]

    return edit


def _set(value: Any, *path: str | int) -> Callable[[Report], None]:
    def edit(data: Report) -> None:
        where: Any = data
        for part in path[:-1]:
            where = where[part]
        where[path[-1]] = value

    return edit


BROKEN: dict[str, tuple[Callable[[Report], None], set[str]]] = {
    "no complete": (_drop("complete"), {"required"}),
    "no faults": (_drop("faults"), {"required"}),
    "a fault without its detail": (_drop("faults", 0, "detail"), {"required"}),
    "coverage without never": (_drop("coverage", "events", "never"), {"required"}),
    "states as text": (_set("3000", "states"), {"type"}),
    "complete as a number": (_set(1, "complete"), {"type"}),
    "a fractional depth": (_set(1.5, "faults", 0, "depth"), {"type"}),
    "layers of text": (_set(["630"], "layers"), {"type"}),
    "a negative count": (_set(-1, "remaining"), {"minimum"}),
    "a step as a list": (_set(["take 0"], "faults", 0, "step"), {"oneOf"}),
    "a step by seat name": (_set({"north": "pass"}, "faults", 0, "step"), {"additionalProperties"}),
    "an unknown key": (_set(True, "proven"), {"additionalProperties"}),
    "an unknown key of a fault": (_set(3, "faults", 0, "other"), {"additionalProperties"}),
    "an unknown key of the ends": (_set(0, "terminal", "stalled"), {"additionalProperties"}),
    "an unknown check run": (_set(["invariants", "sorcery"], "checks"), {"enum"}),
    "a fault of an unknown check": (_set("sorcery", "faults", 0, "check"), {"enum"}),
    "a check run twice": (_set(["chance", "chance"], "checks"), {"uniqueItems"}),
    "another format": (_set("cardshop-verify/2", "format"), {"const"}),
    "a termination of its own": (_set("it ends, mostly", "termination"), {"enum"}),
    "a short variant hash": (_set("c54fb41e", "variant_hash"), {"pattern"}),
}


@pytest.fixture
def faulty(monkeypatch: pytest.MonkeyPatch, schema: dict[str, Any]) -> Report:
    data = fault_report(monkeypatch)
    jsonschema.validate(data, schema)  # whole, it passes: what breaks it is the edit
    return data


@pytest.mark.parametrize("case", list(BROKEN))
def test_the_schema_refuses_a_broken_report(
    case: str, faulty: Report, schema: dict[str, Any]
) -> None:
    edit, keywords = BROKEN[case]
    broken = copy.deepcopy(faulty)
    edit(broken)
    assert broken != faulty
    with pytest.raises(jsonschema.ValidationError) as caught:
        jsonschema.validate(broken, schema)
    assert caught.value.validator in keywords, caught.value.message


# ----------------------------------------------- the schema follows the report


def test_the_schema_lists_exactly_the_keys_a_report_writes(
    schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = keep_going_report(monkeypatch)
    top = schema["properties"]
    assert set(top) == set(data)
    assert set(schema["required"]) == set(top)  # every key is always written
    assert schema["additionalProperties"] is False
    for key in ("terminal", "coverage"):
        assert set(top[key]["properties"]) == set(top[key]["required"]) == set(data[key])
    reached = schema["$defs"]["reached"]
    for got in data["coverage"].values():
        assert set(reached["properties"]) == set(reached["required"]) == set(got)
    fault = schema["$defs"]["fault"]
    for got in data["faults"]:
        assert set(fault["properties"]) == set(fault["required"]) == set(got)
    # Every object the schema describes refuses keys it does not list.
    for where in (top["terminal"], top["coverage"], reached, fault):
        assert where["additionalProperties"] is False


def test_the_schema_names_exactly_the_checks_verify_runs(schema: dict[str, Any]) -> None:
    assert schema["$defs"]["check"]["enum"] == list(CHECKS)
    assert schema["properties"]["format"]["const"] == "cardshop-verify/1"
