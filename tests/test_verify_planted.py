"""``cardshop verify`` finds rule defects planted in copies of the built-in families.

Each test patches one method of a family's game class for its own duration (a copy of
the rules with one defect), verifies the family's mini variant and checks that the
fault is found by the check that should find it, at the shortest depth, with a
counterexample that replays under the same patch. The shortest depth is proved by an
independent count: a plain breadth-first walk over the sound rules (a queue and a set
of state keys, not the verifier's search) finds the least depth of a state from which
some step meets the defect's trigger. The Reglamentacja trade defect is one that the
10,000 simulated games of an audit with random and greedy bots never meet (the audit's
state machine, which steers its steps towards rare ones, can meet it).

The compiled build fixes the game classes' methods, so these tests run on the pure
build only.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import pytest

from cardshop import driver
from cardshop.audit import run_audit
from cardshop.core import InvariantViolation, VariantBase
from cardshop.core.game import Game
from cardshop.core.registry import get_family
from cardshop.invariants import CheckedGame
from cardshop.klunker.game import Game as KlunkerGame
from cardshop.records import GameRecord
from cardshop.reglamentacja import game as reglamentacja
from cardshop.reglamentacja.game import ReglamentacjaGame
from cardshop.reglamentacja.invariants import stamp_conservation
from cardshop.verify import Search, hooks_of, resolve_variant, verify
from cardshop.verify.report import Counterexample
from cardshop.wuhltisch.game import WuhltischGame
from cardshop.wuhltisch.invariants import check_conservation

pytestmark = pytest.mark.pure_only


def _trigger_depth(variant: VariantBase, players: int, met: list[int]) -> int | None:
    """The least depth of a reachable state from which a step meets the trigger (a step
    under any of its chance outcomes); None if none does. The walk goes breadth first
    over the rules as they stand, merging states by the family's state key; the planted
    method appends to ``met`` when the trigger is met."""
    search = Search(variant, players, checks=())
    key = hooks_of(get_family(variant.family)).state_key
    seen: set[Hashable] = set()
    layer: list[Game] = []
    for _chance, game in search.setups():
        if key(game) not in seen:
            seen.add(key(game))
            layer.append(game)
    depth = 0
    while layer:
        following: list[Game] = []
        for game in layer:
            if game.is_over:
                continue
            for step in search.steps(game):
                met.clear()
                outcomes, _ = search.play(game, step)
                if met:
                    return depth
                for outcome in outcomes:
                    k = key(outcome.game)
                    if k not in seen:
                        seen.add(k)
                        following.append(outcome.game)
        layer = following
        depth += 1
    return None


Plant = Callable[..., None]
"""Patches one method for the test's duration: ``plant(monkeypatch, harm=..., met=...)``;
with ``harm=False`` it only appends to ``met`` when its trigger is met."""


def _found(
    monkeypatch: pytest.MonkeyPatch, plant: Plant, mini: str, checks: list[str], **budget: int
) -> tuple[int | None, Counterexample, Game]:
    """The trigger's least depth (the sound rules walked independently), then the
    mini variant verified with the defect planted: its one counterexample, and the game
    its record replays to once written out and read back, at the counterexample's
    position."""
    variant = resolve_variant(mini)
    met: list[int] = []
    plant(monkeypatch, harm=False, met=met)
    depth = _trigger_depth(variant, 2, met)
    monkeypatch.undo()
    plant(monkeypatch, harm=True, met=met)
    report = verify(variant, 2, checks=checks, **budget)
    assert not report.ok
    (found,) = report.counterexamples
    game = GameRecord.loads(found.record.dumps()).replay()
    assert game.to_position() == found.position
    return depth, found, game


# -------------------------------------------------------------------- Wühltisch


def _plant_lost_throw(monkeypatch: pytest.MonkeyPatch, *, harm: bool, met: list[int]) -> None:
    """When two or more cards go back into the heap at once, the first is lost."""
    throw_back = WuhltischGame._throw_back

    def losing(self: WuhltischGame, cards: list[int]) -> None:
        if len(cards) > 1:
            met.append(1)
            if harm:
                cards = cards[1:]
        throw_back(self, cards)

    monkeypatch.setattr(WuhltischGame, "_throw_back", losing)


def test_wuhltisch_a_card_lost_when_two_go_back_breaks_conservation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    depth, found, game = _found(monkeypatch, _plant_lost_throw, "wuhltisch-mini", ["invariants"])
    # By construction too: a card goes back only from a view or a hand, and the first
    # tick starts with neither (no lost property is useless in the mini), so the
    # earliest tick that throws two back is the second, from a state of depth 1.
    assert depth == 1
    # The generic invariants run first: the game's own reader refuses the state on its
    # JSON round trip, for the family's conservation problem.
    assert (found.fault.check, found.fault.invariant) == ("invariants", "determinism")
    assert "game JSON is not a legal state: cards in no zone" in found.fault.detail
    assert found.fault.depth == 2  # the bad state, one step after the trigger's state
    assert len(found.record.steps) == 2
    assert isinstance(game, WuhltischGame)
    problem = check_conservation(game)  # the family's invariant finds it too
    assert problem is not None
    assert problem in found.fault.detail


# ---------------------------------------------------------------------- Klunker


def _plant_row_miscount(monkeypatch: pytest.MonkeyPatch, *, harm: bool, met: list[int]) -> None:
    """A safe of two or more rows counts one row too few when a row is sold: the row
    being sold is left out, so the sliding payout (SELL-3) pays one more."""
    rows = KlunkerGame._rows

    def miscounted(self: KlunkerGame, seat: int) -> int:
        counted = rows(self, seat)
        if counted > 1:
            met.append(1)
            if harm:
                return counted - 1
        return counted

    monkeypatch.setattr(KlunkerGame, "_rows", miscounted)


def test_klunker_a_payout_off_by_one_breaks_the_sale_account(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    depth, found, game = _found(
        monkeypatch, _plant_row_miscount, "klunker-mini", ["invariants"], max_states=30_000
    )
    assert depth is not None  # the first sale from a safe of two rows
    assert depth >= 2  # a sale needs cards stored or bought first
    # The family's account of the step (its ledger monitor) finds it: a fault of the
    # step from the state of the trigger's depth, whose record leads past it.
    assert (found.fault.check, found.fault.invariant) == ("invariants", "sale_payout")
    assert "counts 1 rows; the safe has 2" in found.fault.detail
    assert found.fault.depth == depth
    assert found.fault.step is not None
    assert len(found.record.steps) == depth + 1
    # The last step again, from the state before it, under the family's account
    assert found.before is not None
    before = get_family("klunker").game_from_position(found.before, game.variant)
    ((seat, text),) = found.record.steps[-1].actions
    checked = CheckedGame(before, checks=["sale_payout"])
    with pytest.raises(InvariantViolation) as info:
        checked.apply(text, seat)
    assert info.value.invariant == "sale_payout"
    # the same fault (the card ids a position deals may differ from the record's)
    same = ("Sold(seat=0, kind='amber', rows=1, payout=2", "counts 1 rows; the safe has 2")
    assert all(part in found.fault.detail and part in info.value.detail for part in same)


# ---------------------------------------------------------------- Reglamentacja


def _plant_speculator_swap(monkeypatch: pytest.MonkeyPatch, *, harm: bool, met: list[int]) -> None:
    """Swapping places with the speculator (RG-SPEC-2) fails when the speculator's pawn
    stands ahead of the seat's: a legal action, listed, that raises."""
    swap = ReglamentacjaGame._swap_pawns

    def failing(self: ReglamentacjaGame, a: int, b: int) -> None:
        queue = self._queue
        if b == reglamentacja.SPECULATOR and queue.index(b) < queue.index(a):
            met.append(1)
            if harm:
                raise IndexError("the speculator's pawn is not behind the seat's")
        swap(self, a, b)

    monkeypatch.setattr(ReglamentacjaGame, "_swap_pawns", failing)


def test_reglamentacja_a_listed_action_that_raises_is_a_playability_fault(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    depth, found, game = _found(
        monkeypatch, _plant_speculator_swap, "reglamentacja-mini", ["playability"]
    )
    assert depth is not None
    assert (found.fault.check, found.fault.invariant) == ("playability", "legal_actions")
    assert "a legal step raised IndexError" in found.fault.detail
    # a fault of the step: the record leads to the state that lists it
    assert found.fault.depth == depth
    assert len(found.record.steps) == depth
    step = found.fault.step
    assert step is not None
    ((seat, action),) = step.items()
    assert str(action).startswith("speculate swap")
    assert action in game.legal_actions(seat)
    with pytest.raises(IndexError, match="speculator's pawn"):
        driver.apply(game, step)


def _plant_doubled_stamp(monkeypatch: pytest.MonkeyPatch, *, harm: bool, met: list[int]) -> None:
    """An offer accepted by a seat holding more stamps than the hand limit (before its
    discard) pays the offerer one stamp twice: a stamp of the kind it took doubles in
    the offerer's hand count."""
    do = ReglamentacjaGame._do

    def doubling(
        self: ReglamentacjaGame, seat: int, d: tuple[int, int, int, int, int], events: list[Any]
    ) -> None:
        fires = d[0] == reglamentacja.V_ACCEPT and self._hsize[seat] > self.rules.hand_limit
        taken = self.rules.multisets[self._pk] if fires else ()
        offerer = self._offerer()
        do(self, seat, d, events)
        if fires:
            met.append(1)
            kind = next((i for i, c in enumerate(taken) if c), None)
            if harm and kind is not None:
                self._hand[offerer * self.rules.k + kind] += 1
                self._hsize[offerer] += 1

    monkeypatch.setattr(ReglamentacjaGame, "_do", doubling)


def test_reglamentacja_a_stamp_doubled_where_the_audit_does_not_look_is_found(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    variant = resolve_variant("reglamentacja-mini")
    met: list[int] = []
    _plant_doubled_stamp(monkeypatch, harm=True, met=met)
    audit = run_audit(
        variant,
        games=10_000,
        players=[2],
        seed=0,
        workers=1,
        bots=["random", "greedy"],
        cap_policy="report",
        examples=0,
    )
    assert not met, "the simulated games met the defect's trigger"
    assert audit.ok, "the audited games never met the defect"
    monkeypatch.undo()
    depth, found, game = _found(
        monkeypatch, _plant_doubled_stamp, "reglamentacja-mini", ["invariants"]
    )
    assert depth is not None
    # The generic invariants run first: the game's JSON reader counts the hands from
    # the stamps' zones, so a round trip shows the offerer another hand.
    assert (found.fault.check, found.fault.invariant) == ("invariants", "determinism")
    assert "JSON round trip changes what seat" in found.fault.detail
    assert found.fault.depth == depth + 1  # the bad state, one step after the trigger's
    assert len(found.record.steps) == depth + 1
    assert str(found.record.steps[-1].actions[0][1]) == "accept"
    assert isinstance(game, ReglamentacjaGame)
    # the family's invariant finds it too
    assert (
        stamp_conservation(game) == "hand or discard counts are out of step with the stamps' zones"
    )
