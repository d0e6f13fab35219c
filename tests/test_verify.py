"""``cardshop verify`` on the tiny test family: the enumerable chance model, the search,
planted defects found with shortest counterexamples that replay, and the command line.

The tiny family knows nothing of the verifier beyond what a family opts in with: its
chance drawn through ``cardshop.core.chance_source()`` and a ``VerifyHooks`` record.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import tinyfamily
from cardshop.audit import run_audit
from cardshop.core import (
    SEEDED,
    Action,
    PositionError,
    ScriptedChance,
    SetupError,
    VerifyHooks,
    derive_below,
    derive_seed,
    derive_shuffle,
    drawing_from,
    register_family,
)
from cardshop.records import GameRecord
from cardshop.verify import verify
from tinyfamily import TinyGame
from verify_support import TINY_MINI as MINI
from verify_support import TINY_SMALL
from verify_support import tiny_cli as cli
from verify_support import tiny_mini as mini

pytestmark = pytest.mark.usefixtures("tiny_registered")


# ------------------------------------------------------------- the chance model


def test_the_seeded_source_draws_what_the_derive_functions_draw() -> None:
    rng = random.Random(5)
    for _ in range(300):
        seed, n, label = rng.randrange(2**64), rng.randrange(1, 500), rng.randrange(99)
        assert SEEDED.below(n, seed, "x", label) == derive_below(n, seed, "x", label)
        assert SEEDED.pick(n, seed, "x", label) == derive_seed(seed, "x", label) % n
        cards = list(range(rng.randrange(0, 40)))
        mine, theirs = cards.copy(), cards.copy()
        SEEDED.shuffle((mine,), seed, "deal", label, kinds=[0] * len(cards))
        derive_shuffle(theirs, seed, "deal", label)
        assert mine == theirs
        sizes = [rng.randrange(1, 30) for _ in range(5)]
        one = random.Random(derive_seed(seed, "heap", label))
        assert SEEDED.places(sizes, seed, "heap", label) == [one.randrange(s) for s in sizes]


def _every_outcome(
    items: list[int], kinds: list[int] | None
) -> list[tuple[tuple[int, ...], float]]:
    out = []
    script: list[int] | None = []
    while script is not None:
        source = ScriptedChance(script)
        group = items.copy()
        source.shuffle((group,), 0, "deal", kinds=kinds)
        out.append((tuple(group), source.probability))
        script = source.next_script()
    return out


@pytest.mark.parametrize("kinds", [[0, 1, 2, 0, 1, 2, 3], [0, 0, 0, 1], [5, 4, 3, 2]])
def test_a_scripted_shuffle_lists_each_arrangement_of_kinds_once(kinds: list[int]) -> None:
    items = list(range(len(kinds)))
    outcomes = _every_outcome(items, kinds)
    counts = Counter(kinds)
    expected = math.factorial(len(kinds))
    for c in counts.values():
        expected //= math.factorial(c)
    arrangements = [tuple(kinds[i] for i in order) for order, _ in outcomes]
    assert len(arrangements) == len(set(arrangements)) == expected
    assert all(sorted(order) == items for order, _ in outcomes)  # each a permutation
    assert math.isclose(sum(p for _, p in outcomes), 1.0)
    assert all(math.isclose(p, 1 / expected) for _, p in outcomes)  # uniform over them


def test_a_strict_script_refuses_choices_that_do_not_fit() -> None:
    source = ScriptedChance([3], strict=True)
    with pytest.raises(ValueError, match="has 3 outcomes"):
        source.below(3, 0)
    source = ScriptedChance([1], strict=True)
    assert source.below(2, 0) == 1
    with pytest.raises(ValueError, match="draws more chance"):
        source.below(2, 0)
    source = ScriptedChance([0, 1], strict=True)
    source.below(2, 0)
    with pytest.raises(ValueError, match="2 chance choices but the game drew 1"):
        source.done()


def test_a_game_dealt_by_another_source_does_not_claim_its_seed() -> None:
    with drawing_from(ScriptedChance([1, 1, 1])):
        game = tinyfamily.new_game(mini(), 2, 7)
    seeded = tinyfamily.new_game(mini(), 2, 7)
    assert seeded.setup_options() == {}
    assert game.setup_options() is None
    again = TinyGame.from_dict(game.to_dict())  # not replayed from the seed: it reads back
    assert again == game


# ------------------------------------------------------------------ the search


@pytest.mark.parametrize("dynamics", ["sequential", "simultaneous"])
def test_every_state_of_a_mini_tiny_variant_is_checked(dynamics: str) -> None:
    report = verify(mini(dynamics=dynamics), 2)
    data = report.to_dict()
    assert report.ok, report.text()
    assert report.complete
    # every deal: the arrangements of 1,2,3,1,2,3,4 (cards of one value are alike)
    assert data["deals"] == math.factorial(7) // 8
    assert data["exhaustive_to"] == data["depth"] == len(data["layers"]) - 1
    assert sum(data["layers"]) == data["states"]
    assert data["terminal"]["finished"] > 0
    assert data["terminal"]["capped"] == 0
    assert data["termination"] == "every line of play ends"
    assert data["coverage"]["actions"]["never"] == []
    clashes = "Clashed" in data["coverage"]["events"]["reached"]
    assert clashes == (dynamics == "simultaneous")  # only seats acting at once clash
    assert json.loads(report.to_json())["format"] == "cardshop-verify/1"


def test_a_budget_stops_the_search_and_says_how_deep_it_is_exhaustive() -> None:
    report = verify(mini(TINY_SMALL), 2, max_states=500)
    data = report.to_dict()
    assert not report.complete
    assert data["remaining"] > 0
    assert data["states"] >= 500
    whole = verify(mini(TINY_SMALL), 2).to_dict()
    d = data["exhaustive_to"]
    assert 0 <= d < whole["depth"]
    assert data["layers"][: d + 1] == whole["layers"][: d + 1]  # every state to depth d
    assert "not checked" in data["termination"]


def _plant(monkeypatch: pytest.MonkeyPatch, fires: Any) -> None:
    """A copy of the rules with a defect: when ``fires(game)`` after a step, a card of
    seat 0's pile vanishes."""
    play = TinyGame._play

    def broken(self: TinyGame, actions: Mapping[int, Action]) -> list[Any]:
        events = play(self, actions)
        if self.piles[0] and fires(self):
            self.piles[0].pop()
        return events

    monkeypatch.setattr(TinyGame, "_play", broken)


def _values(game: TinyGame, cards: list[int]) -> tuple[int, ...]:
    return tuple(game.variant.cards[c] if c >= 0 else 0 for c in cards)


def test_a_planted_defect_is_found_with_a_shortest_counterexample_that_replays(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _plant(monkeypatch, lambda g: g._step == 4 and _values(g, g.secrets) == (4, 1))
    report = verify(mini(), 2)
    assert not report.ok
    (found,) = report.counterexamples
    assert found.fault.depth == 4
    assert len(found.record.steps) == 4
    assert "lost or doubled" in found.fault.detail
    # the record states its chance and replays to the bad state, from a file too
    record = GameRecord.loads(found.record.dumps())
    assert record.chance is not None
    assert record.replay().to_position() == found.position
    # the bad state breaks the rules, so no reader loads it; the state before it loads,
    # and its last step leads there again
    with pytest.raises(PositionError, match="lost or doubled"):
        tinyfamily.from_position(found.position, None)
    assert found.before is not None
    before = tinyfamily.from_position(found.before, None)
    ((seat, text),) = record.steps[-1].actions
    before.apply(text, seat)
    assert before.to_position() == found.position
    written = report.write_counterexamples(tmp_path)
    assert {p.suffix for p in written} == {".jsonl", ".json"}
    done = cli("replay", str(next(p for p in written if p.suffix == ".jsonl")))
    assert done.returncode == 0, done.stderr


def test_a_defect_that_a_ten_thousand_game_audit_misses_is_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def fires(g: TinyGame) -> bool:  # one rare deal and line of play
        return (
            g._step == 6
            and not g.piles[1]
            and _values(g, g.secrets) == (4, 1)
            and _values(g, g.piles[0]) == (3, 2, 3)
            and _values(g, g.market) == (2, 1)
        )

    _plant(monkeypatch, lambda g: fires(g))
    audit = run_audit(mini(), games=10_000, players=[2], seed=0, workers=1)
    assert audit.ok, "the sampled games never met the defect"
    report = verify(mini(), 2)
    (found,) = report.counterexamples
    assert found.fault.depth == 6
    game = GameRecord.loads(found.record.dumps()).replay()
    assert isinstance(game, TinyGame)
    assert _values(game, game.secrets) == (4, 1)


def _with_hooks(**changes: Any) -> None:
    family = tinyfamily.FAMILY
    assert family.verify is not None
    hooks = dataclasses.replace(family.verify, **changes)
    register_family(dataclasses.replace(family, verify=hooks), replace=True)


def test_a_planted_information_leak_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    legal = TinyGame.legal_actions

    def leaky(self: TinyGame, seat: int | None = None) -> Any:
        actions = legal(self, seat)
        if self.deck and self.variant.cards[self.deck[-1]] == 4:  # the hidden top card
            return type(actions)([a for a in actions if a.verb != "pass"])
        return actions

    monkeypatch.setattr(TinyGame, "legal_actions", leaky)
    report = verify(mini(), 2, checks=["information"])
    (found,) = report.counterexamples
    assert found.fault.check == "information"
    assert "depend on what the seat cannot see" in found.fault.detail


def test_a_line_of_play_that_comes_back_is_a_termination_fault(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Passing never ends this copy, and its key forgets the step count: two passes
    # come back to the state they left.
    play = TinyGame._play

    def endless(self: TinyGame, actions: Mapping[int, Action]) -> list[Any]:
        events = play(self, actions)
        if self.over is not None and any(c >= 0 for c in self.market):
            self.over, events = None, events[:-1]
        return events

    monkeypatch.setattr(TinyGame, "_play", endless)
    _with_hooks(state_key=lambda g: (*tinyfamily.state_key(g)[:6], tinyfamily.state_key(g)[7]))
    report = verify(mini(step_cap=40), 2, checks=["termination"])
    (found,) = report.counterexamples
    assert found.fault.check == "termination"
    assert "comes back" in found.fault.detail


def test_the_clauses_of_the_setup_are_reached_with_the_first_deal() -> None:
    assert tinyfamily.FAMILY.verify is not None
    clauses = {**tinyfamily.FAMILY.verify.clauses, "setup": ("TINY-DEAL",)}
    _with_hooks(clauses=clauses)
    report = verify(mini(), 2, max_states=1)
    assert "TINY-DEAL" in report.to_dict()["coverage"]["clauses"]["reached"]
    _with_hooks(clauses=tinyfamily.FAMILY.verify.clauses)
    clause = verify(mini(), 2, max_states=1).to_dict()["coverage"]["clauses"]
    assert "TINY-DEAL" not in clause["reached"] + clause["never"]


def test_a_family_without_hooks_says_it_cannot_be_verified() -> None:
    register_family(dataclasses.replace(tinyfamily.FAMILY, verify=None), replace=True)
    with pytest.raises(SetupError, match=r"cannot be verified.*VerifyHooks"):
        verify(mini(), 2)


def test_a_family_without_shrink_says_so() -> None:
    assert isinstance(tinyfamily.FAMILY.verify, VerifyHooks)
    with pytest.raises(SetupError, match="cannot shrink"):
        verify(mini(), 2, shrink=True)


# ------------------------------------------------------------- the command line


def test_the_command_line_verifies_and_writes_the_report(tmp_path: Path) -> None:
    path = tmp_path / "tiny-small.yaml"
    path.write_text(json.dumps(TINY_SMALL))
    out = tmp_path / "report.json"
    page = tmp_path / "report.html"
    done = cli("verify", str(path), "-p", "2", "--json", str(out), "--html", str(page))
    assert done.returncode == 0, done.stderr
    assert "complete" in done.stdout
    assert "no fault" in done.stdout
    data = json.loads(out.read_text())
    assert data["complete"]
    assert data["faults"] == []
    assert data["deals"] == math.factorial(6) // 8  # 1,2,3,1,2,3 arranged
    assert "<h1>cardshop verify: tiny-small" in page.read_text()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--checks", "invariants,sorcery"], "unknown check 'sorcery'; the checks are"),
        (["--max-states", "0"], "--max-states must be above 0"),
        (["-p", "9"], "players"),
    ],
)
def test_the_command_line_refuses_bad_options_in_one_paragraph(
    tmp_path: Path, args: list[str], says: str
) -> None:
    path = tmp_path / "tiny-mini.yaml"
    path.write_text(json.dumps(MINI))
    done = cli("verify", str(path), *args)
    assert done.returncode == 2
    assert says in done.stderr
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
