"""cardshop.invariants: every invariant holds in real games, and each check catches
the fault it is written for (an injected engine fault, a tampered state, or a forged
event), with a counterexample that replays."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import cardshop
from cardshop import Action, PositionError
from cardshop.core import ChanceSource
from cardshop.core.series import current_game
from cardshop.invariants import (
    CheckedGame,
    Counterexample,
    InvariantViolation,
    check_all,
    check_copies,
    check_legal_actions,
    check_replay,
    describe_invariants,
    invariant_names,
    invariants_of,
)
from cardshop.klunker import Game
from cardshop.klunker import game as game_module
from cardshop.klunker import invariants as klunker_invariants
from cardshop.klunker.events import (
    Bought,
    Dealt,
    Event,
    GameEnded,
    Passed,
    RoundEnded,
    Sold,
    Taxed,
)
from cardshop.klunker.invariants import (
    FAMILY_INVARIANTS,
    LedgerMonitor,
    check_conservation,
    check_forced_actions,
    check_hand_size,
    check_hidden_information,
    check_no_unsold_rows,
    check_score,
    check_setup,
    hidden_twin,
)
from cardshop.klunker.ledger import Ledger
from cardshop.klunker.variant import Rules

SETUPS = [
    (name, players)
    for name in cardshop.builtin_variants()
    if cardshop.load_variant(name).family == "klunker"
    for players in range(
        cardshop.load_variant(name).players.min, cardshop.load_variant(name).players.max + 1
    )
]

# The rulebook's purchase (docs/rules.md, SELL-6): seat 0 buys 2 Tongue Bob + 2 Ear
# Pendant onto a safe of Tongue Bob 2 + Ear Pendant 3.
WORKED = {
    "variant": "klunker-en",
    "phase": "purchase",
    "purchase_cards": [1, 2, 3],
    "turn": 0,
    "seats": [
        {"safe": {"tongue-bob": 2, "ear-pendant": 3}, "cash": 1},
        {"window": {"tongue-bob": 2, "ear-pendant": 2}},
        {"window": {"diadem": 1}},
    ],
}


def play(game: Game | CheckedGame, seed: int, limit: int | None = None) -> None:
    rng = random.Random(seed)
    while not game.is_over and (limit is None or len(game.history) < limit):
        game.apply(rng.choice(game.legal_actions()))


def violation(run: Any) -> InvariantViolation:
    """The violation ``run`` raises: reported by the harness, or by a Klunker check."""
    with pytest.raises(InvariantViolation) as info:
        run()
    return info.value


def ledger_of(checked: CheckedGame) -> Ledger:
    (monitor,) = checked.monitors
    assert isinstance(monitor, LedgerMonitor)
    return monitor.ledger


# ------------------------------------------------------------ real games hold


@pytest.mark.parametrize(("name", "players"), SETUPS)
def test_every_invariant_holds_after_every_action_of_random_games(name: str, players: int) -> None:
    """CARD-1, SELL-2, SELL-3, SCORE-1 ... over whole games of every built-in."""
    for seed in range(2):
        checked = CheckedGame(cardshop.klunker.new_game(name, players, seed=seed), every=3)
        play(checked, seed)
        result = checked.result()
        ledger = ledger_of(checked)
        assert len(checked.events) == len(checked.history) > 0
        # The bank ledger's terms add up to the final scores (SCORE-1) ...
        assert tuple(ledger.expected_bank(s) for s in range(players)) == result.scores
        # ... and every fee one seat paid, another received (BUY-3).
        assert sum(ledger.fees_paid) == sum(ledger.fees_received)
        assert ledger.termination == result.termination.value


def test_the_ledger_books_the_rulebook_purchase() -> None:
    """SELL-6, SELL-3: buy 1, then Tongue Bob pays 2 with 3 rows and Ear Pendant 3 with 2."""
    game = Game.from_position(WORKED)
    ledger = Ledger(game)
    for text in ("buy 1", "sell tongue-bob"):
        events = game.apply(text)
        ledger.record(text, events)
        check_all(game)  # every state check of the harness and the family ...
        ledger.check(game)  # ... and the ledger's account of what happened
    assert ledger.sales[0] == 2 + 3
    assert ledger.fees_paid[0] == 1 == ledger.fees_received[1]
    assert ledger.expected_bank(0) == game.cash(0) == 1 - 1 + 5


def test_checked_game_behaves_like_its_game() -> None:
    checked = CheckedGame(cardshop.new_game("klunker-en", 3, seed=4))
    plain = cardshop.new_game("klunker-en", 3, seed=4)
    rng = random.Random(4)
    for _ in range(40):
        action = rng.choice(plain.legal_actions())
        assert checked.apply(str(action)) == plain.apply(action)
    assert checked.game == plain
    assert checked.current_player == plain.current_player
    with pytest.raises(cardshop.IllegalActionError):
        checked.apply("decline" if plain.phase.value != "purchase" else "window shoes")


# ------------------------------------------------------ injected engine faults


@pytest.mark.pure_only
@pytest.mark.usefixtures("sale_drops_a_card")
def test_conservation_catches_a_sale_that_drops_a_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """CARD-1: the injected fault is caught at the sale, with actions that replay it."""
    checked = CheckedGame(cardshop.new_game("klunker-en", 4, seed=0))
    found = violation(lambda: play(checked, 0))
    assert found.invariant == "conservation"
    assert "in no zone" in found.detail
    example = found.counterexample
    assert example is not None
    assert any(isinstance(e, Sold) for e in checked.events[-1])
    # The counterexample replays to the same fault ...
    again = cardshop.replay(
        example.variant, example.players, example.seed, example.first_player, example.actions[:-1]
    )
    replayed = CheckedGame(again)
    assert violation(lambda: replayed.apply(example.actions[-1])).invariant == "conservation"
    # ... and, without the fault, the same actions keep every invariant.
    monkeypatch.undo()
    fixed = CheckedGame(
        cardshop.new_game(example.variant, example.players, example.seed, example.first_player)
    )
    for text in example.actions:
        fixed.apply(text)


@pytest.mark.pure_only
@pytest.mark.usefixtures("sale_drops_a_card")
def test_counterexample_code_replays(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = CheckedGame(cardshop.new_game("klunker-es", 3, seed=2))
    example = violation(lambda: play(checked, 2)).counterexample
    assert example is not None
    namespace: dict[str, Any] = {}
    exec(example.to_code(), namespace)
    assert [str(a) for a in namespace["game"].history] == list(example.actions)
    data = example.to_dict()
    assert Counterexample(**{**data, "actions": tuple(data["actions"])}) == example


@pytest.mark.pure_only
def test_no_unsold_rows_catches_rows_left_in_a_safe(monkeypatch: pytest.MonkeyPatch) -> None:
    """SELL-2: with sales switched off, a completed row stays in the safe."""
    monkeypatch.setattr(Game, "_sell_completed", lambda self, seat, events: True)
    game = Game.from_position(WORKED)
    checked = CheckedGame(game)
    found = violation(lambda: checked.apply("buy 1"))
    assert found.invariant == "no_unsold_rows"
    assert found.counterexample is None  # a position does not replay from a setup
    with pytest.raises(InvariantViolation, match="left unsold"):
        check_no_unsold_rows(game)


@pytest.mark.pure_only
def test_sale_payout_catches_a_wrong_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """SELL-3: a sale that always pays the first entry of the table."""
    monkeypatch.setattr(Rules, "pay_for", lambda self, kind, rows: self.payout[0])
    checked = CheckedGame(Game.from_position(WORKED))
    checked.apply("buy 1")  # two complete rows: the buyer chooses, nothing sold yet
    found = violation(lambda: checked.apply("sell tongue-bob"))
    assert found.invariant == "sale_payout"
    assert "with 3 rows pays 2; the sale paid 4" in found.detail


@pytest.mark.pure_only
def test_end_of_game_catches_a_game_that_ends_too_early(monkeypatch: pytest.MonkeyPatch) -> None:
    """END-4: the deck could refill every hand, but the game ends anyway."""
    monkeypatch.setattr(Game, "_refill", lambda self, events: False)
    checked = CheckedGame(cardshop.new_game("klunker-en", 3, seed=1))
    found = violation(lambda: play(checked, 1))
    assert found.invariant == "end_of_game"
    assert checked.round == 1


@pytest.mark.pure_only
def test_legal_actions_catches_an_unsorted_list_and_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = cardshop.new_game("klunker-en", 3, seed=1)
    assert check_legal_actions(game) is None
    original = Game.legal_actions
    monkeypatch.setattr(Game, "legal_actions", lambda self, seat=None: original(self, seat)[::-1])
    problem = check_legal_actions(game)
    assert problem is not None
    assert "not sorted" in problem
    with pytest.raises(InvariantViolation, match="not sorted"):
        check_all(game, checks=["legal_actions"])
    monkeypatch.undo()

    def broken(self: Game, seat: int, kind: int, events: list[Event]) -> None:
        raise IndexError("boom")

    monkeypatch.setattr(Game, "_sell_row", broken)
    checked = CheckedGame(cardshop.new_game("klunker-en", 3, seed=1))
    found = violation(lambda: play(checked, 1))
    assert found.invariant == "legal_actions"
    assert "IndexError: boom" in found.detail


@pytest.mark.pure_only
def test_legal_actions_catches_a_text_that_parses_to_another_action(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every family's action texts parse back to the actions offered."""
    game = cardshop.new_game("klunker-en", 3, seed=1)
    original = Game.parse_action
    first = str(game.legal_actions()[0])
    monkeypatch.setattr(
        Game, "parse_action", lambda self, text, seat=None: original(self, first, seat)
    )
    problem = check_legal_actions(game)
    assert problem is not None
    assert "does not parse back" in problem


@pytest.mark.pure_only
def test_legal_actions_catches_forced_actions_offered_wrongly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """FILL-2: no done with an empty window; BUY-4: no decline with a full window."""
    fill = cardshop.new_game("klunker-en", 3, seed=1)
    position = {
        "variant": "klunker-en",
        "phase": "purchase",
        "purchase_cards": [1, 2, 3],
        "turn": 0,
        "seats": [{"window": {"diadem": 1}, "cash": 1}, {"window": {"shoes": 1}}, {}],
    }
    purchase = Game.from_position(position)
    for game in (fill, purchase):
        check_forced_actions(game)
        assert "done" not in [str(a) for a in fill.legal_actions()]
        assert "decline" not in [str(a) for a in purchase.legal_actions()]
    original = Game.legal_actions

    def offered(self: Game, seat: int | None = None) -> list[Action]:
        extra = {"fill": "done", "purchase": "decline"}.get(self.phase.value)
        acts = original(self, seat)
        acts = acts if extra is None else [*acts, self.parse_action(extra)]
        return sorted(acts, key=str)

    monkeypatch.setattr(Game, "legal_actions", offered)
    with pytest.raises(InvariantViolation, match="done with an empty window"):
        check_forced_actions(fill)
    with pytest.raises(InvariantViolation, match="may decline"):
        check_forced_actions(purchase)
    found = violation(lambda: CheckedGame(purchase.clone(), checks=["legal_actions"]))
    assert found.invariant == "legal_actions"


def test_the_checks_of_one_state_share_one_reading_of_its_zones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The checks and the Ledger's monitor read the zones once per state checked, kept
    by nobody between states (no cache: a tampered state is read afresh)."""
    reads: list[int] = []
    original = klunker_invariants._Snapshot.__init__

    def counted(self: Any, game: Game) -> None:
        reads.append(len(game.history))
        original(self, game)

    monkeypatch.setattr(klunker_invariants._Snapshot, "__init__", counted)
    checked = CheckedGame(cardshop.new_game("klunker-en", 4, seed=1), every=5)
    play(checked, 1, limit=40)
    assert reads == list(range(41))
    game = checked.game.clone()
    game._counts[0] += 1  # the kind counts disagree with the card ids
    with pytest.raises(InvariantViolation, match="by card ids"):
        check_all(game, checks=["conservation"])


@pytest.mark.pure_only
def test_setup_is_checked_against_the_variant(monkeypatch: pytest.MonkeyPatch) -> None:
    """SETUP-3, SETUP-4: a deal that gives one card too few of starting cash is caught."""
    for name, players in SETUPS:
        check_setup(cardshop.klunker.new_game(name, players, seed=players))
    original = Game._deal

    def stingy(self: Game, zone: int, count: int) -> tuple[int, ...]:
        if zone >= 3 * self.n:  # only banks at setup are dealt to from the deck
            count -= 1
        return original(self, zone, count)

    monkeypatch.setattr(Game, "_deal", stingy)
    game = cardshop.new_game("klunker-es", 6, seed=1)
    assert game.cash(0) == 4
    with pytest.raises(InvariantViolation, match="starts with 4 cash; the variant deals 5"):
        CheckedGame(game)


@pytest.mark.pure_only
def test_score_catches_a_wrong_score(monkeypatch: pytest.MonkeyPatch) -> None:
    """SCORE-1: scores() must be the bank sizes."""
    game = cardshop.new_game("klunker-en", 4, seed=3)
    check_score(game)
    monkeypatch.setattr(Game, "scores", lambda self: (0,) * self.n)
    with pytest.raises(InvariantViolation, match="scores"):
        check_score(game)


@pytest.mark.pure_only
def test_score_checks_the_tiebreak_at_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """SCORE-2: a result that ignores the tiebreak is caught."""
    for seed in range(40):
        game = cardshop.new_game("klunker-en", 5, seed=seed)
        play(game, seed)
        top = max(game.scores())
        tied = [s for s in range(5) if game.scores()[s] == top]
        if len(tied) > 1 and len(game.result().winners) < len(tied):
            break
    else:  # pragma: no cover - the seeds above contain such a game
        pytest.fail("no game with a tie broken by the tiebreak")
    check_score(game)
    monkeypatch.setattr(Game, "_rank_key", lambda self, seat: (self.cash(seat),))
    with pytest.raises(InvariantViolation, match="ranks"):
        check_score(game)


def test_conservation_and_hand_size_catch_tampered_states() -> None:
    game = cardshop.new_game("klunker-en", 3, seed=5)
    data = json.loads(game.to_json())
    top = data["state"]["deck"].pop()
    data["state"]["where"][top] = 0  # one more card in seat 0's hand
    with pytest.raises(PositionError, match="more than the hand size"):
        Game.from_json(data)  # game JSON refuses it; build the state by hand instead
    tampered = game.clone()
    tampered._deal(0, 1)  # one more card in seat 0's hand, counts kept in step
    check_conservation(tampered)
    with pytest.raises(InvariantViolation, match="more than the hand size"):
        check_hand_size(tampered)
    game._counts[0] += 1  # the kind counts disagree with the card ids
    with pytest.raises(InvariantViolation, match="by card ids"):
        check_conservation(game)


def test_hidden_twin_changes_only_hidden_cards() -> None:
    """CARD-2: the twin keeps what a seat sees and changes what it does not."""
    game = cardshop.new_game("klunker-es", 4, seed=6)
    play(game, 6, limit=30)
    changed_elsewhere = False
    for seat in range(4):
        twin = hidden_twin(game, seat, seed=seat)
        assert twin.observation(seat) == game.observation(seat)
        assert twin.zones()[f"hand:{seat}"] == game.zones()[f"hand:{seat}"]
        assert twin.zones()[f"safe:{seat}"] == game.zones()[f"safe:{seat}"]
        assert twin.zones()["deck"] != game.zones()["deck"]
        other = (seat + 1) % 4
        changed_elsewhere |= twin.observation(other) != game.observation(other)
    assert changed_elsewhere
    check_hidden_information(game)


@pytest.mark.pure_only
def test_hidden_information_catches_a_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    """CARD-2: an observation that shows the top card of the deck is a leak."""
    game = cardshop.new_game("klunker-en", 3, seed=7)
    original = Game.observation
    monkeypatch.setattr(
        Game, "observation", lambda self, seat: original(self, seat)._replace(buying=self._deck[-1])
    )
    found = violation(lambda: check_hidden_information(game))
    assert found.invariant == "hidden_information"
    assert "buying" in found.detail


@pytest.mark.pure_only
def test_determinism_catches_a_bad_clone_and_unseeded_chance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = cardshop.new_game("klunker-es", 3, seed=8)
    play(game, 8, limit=20)
    assert check_copies(game) is None
    check_all(game, checks=["determinism"], replayable=True)
    original = Game.clone

    def forgetful(self: Game) -> Game:
        copy = original(self)
        copy._start = (self._start + 1) % self.n
        return copy

    monkeypatch.setattr(Game, "clone", forgetful)
    assert "clone()" in (check_copies(game) or "")
    found = violation(lambda: check_all(game, checks=["determinism"]))
    assert found.invariant == "determinism"
    assert "clone()" in found.detail
    monkeypatch.undo()

    class Unseeded(ChanceSource):  # shuffles without the seed, as a careless family would
        def shuffle(self, groups: Any, seed: int, *labels: int | str, kinds: Any = None) -> None:
            for group in groups:
                random.shuffle(group)

    monkeypatch.setattr(game_module, "chance_source", lambda model=1: Unseeded())
    unseeded = cardshop.new_game("klunker-es", 3, seed=8)
    play(unseeded, 8)
    found = violation(lambda: check_replay(unseeded))
    assert found.invariant == "determinism"


def test_to_dict_is_a_copy() -> None:
    """A copy of a game's data must not be the game: changing it changes nothing."""
    game = cardshop.new_game("klunker-en", 3, seed=1)
    before = game.to_json()
    data = game.to_dict()
    data["state"]["deck"].pop()
    assert game.to_json() == before


# ------------------------------------------------------------- forged events


def forged(position: dict[str, Any], action: str, change: Any) -> InvariantViolation:
    """Feed the ledger the real events of ``action`` with one of them changed."""
    game = Game.from_position(position)
    ledger = Ledger(game)
    events = game.clone().apply(action)
    return violation(lambda: ledger.record(action, change(events)))


def replace_first(cls: type, **changes: Any) -> Any:
    def change(events: list[Event]) -> list[Event]:
        i = next(i for i, e in enumerate(events) if isinstance(e, cls))
        return [*events[:i], events[i]._replace(**changes), *events[i + 1 :]]

    return change


def test_ledger_rejects_an_unpaid_window() -> None:
    """BUY-3: another seat's window costs the price."""
    found = forged(WORKED, "buy 1", replace_first(Bought, price=0))
    assert found.invariant == "bank_ledger"


def test_ledger_rejects_a_wrong_payout() -> None:
    """SELL-3, SELL-4: pay + unpaid = set size, and pay follows the table."""
    game = Game.from_position(WORKED)
    game.apply("buy 1")
    position = game.to_position()
    found = forged(position, "sell ear-pendant", replace_first(Sold, payout=3))
    assert found.invariant == "sale_payout"


def test_ledger_rejects_purchase_cards_out_of_order() -> None:
    """STORE-2: passing takes the lowest free purchase card."""
    position = {"variant": "klunker-en", "phase": "store", "seats": [{}, {}, {}]}
    found = forged(position, "pass", replace_first(Passed, purchase_card=2))
    assert found.invariant == "turn_order"


def test_ledger_rejects_a_wrong_start_player_and_a_short_refill() -> None:
    """END-1 and END-5: the start player stays unless someone declined; hands refill fully."""
    game = cardshop.new_game("klunker-en", 3, seed=9)
    while True:  # play to the last action of round 1
        clone = game.clone()
        action = game.legal_actions()[0]
        events = clone.apply(action)
        if any(isinstance(e, RoundEnded) for e in events):
            break
        game.apply(action)
    start = game.start_player
    found = violation(
        lambda: Ledger(game).record(
            action, replace_first(RoundEnded, start_player=start + 1)(events)
        )
    )
    assert found.invariant == "turn_order"

    def short(evs: list[Event]) -> list[Event]:
        i = next(i for i, e in enumerate(evs) if isinstance(e, Dealt))
        dealt = evs[i]
        assert isinstance(dealt, Dealt)
        return [*evs[:i], dealt._replace(cards=dealt.cards[:-1]), *evs[i + 1 :]]

    assert violation(lambda: Ledger(game).record(action, short(events))).invariant == "hand_size"

    def ended(evs: list[Event]) -> list[Event]:
        i = next(i for i, e in enumerate(evs) if isinstance(e, Dealt))
        return [*evs[:i], GameEnded("finished", game.scores())]

    assert violation(lambda: Ledger(game).record(action, ended(events))).invariant == "end_of_game"


# --------------------------------------------------------------- the registry


def test_invariants_are_named_documented_and_selectable() -> None:
    catalogue = describe_invariants("klunker")
    assert set(catalogue) >= {
        "conservation",
        "no_unsold_rows",
        "sale_payout",
        "bank_ledger",
        "turn_order",
        "hand_size",
        "score",
        "hidden_information",
        "determinism",
    }
    for inv in FAMILY_INVARIANTS:
        assert inv.description
        assert inv.clauses
        assert catalogue[inv.name] == (inv.description, inv.clauses)
    game = cardshop.new_game("klunker-en", 3, seed=1)
    with pytest.raises(ValueError, match="unknown invariants"):
        check_all(game, checks=["conservaton"])
    with pytest.raises(ValueError, match="unknown invariants"):
        CheckedGame(game, checks=["nope"])


@pytest.mark.pure_only
@pytest.mark.usefixtures("sale_drops_a_card")
def test_unchecked_invariants_are_not_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    # The dropped cards break conservation and the event log, and the JSON form
    # (used by copies and hidden twins) no longer reads back.
    ignored = {"conservation", "event_log", "determinism", "hidden_information"}
    checked = CheckedGame(
        cardshop.new_game("klunker-en", 4, seed=0),
        checks=set(invariant_names(invariants_of("klunker"))) - ignored,
    )
    play(checked, 0)  # the dropped cards go unnoticed when nobody asks
    assert checked.is_over
    lost = cardshop.load_variant("klunker-en").rules.n_cards - sum(
        len(cards) for cards in checked.zones().values()
    )
    assert lost > 0


def test_ledger_follows_the_paid_card_from_bank_to_bank() -> None:
    """BUY-3: the card paid must come from the buyer's bank and land in the owner's."""
    game = Game.from_position(WORKED)
    paid = game.clone().apply("buy 1")[0]
    assert isinstance(paid, Bought)
    assert len(paid.paid) == 1
    elsewhere = game.zones()["deck"][0]  # a card that is in no bank
    found = forged(WORKED, "buy 1", replace_first(Bought, paid=(elsewhere,)))
    assert found.invariant == "event_log"
    assert "was not there" in found.detail
    found = forged(WORKED, "buy 1", replace_first(Bought, paid=()))
    assert found.invariant == "bank_ledger"
    # The honest events book cleanly, and the ledger agrees with the game card by card.
    ledger = Ledger(game)
    ledger.record("buy 1", game.apply("buy 1"))
    ledger.check(game)


def test_ledger_checks_tax_cards_come_from_the_payers_bank() -> None:
    """END-2: a tax card drawn from another seat's bank is caught."""
    position = {
        "variant": "klunker-es",
        "phase": "purchase",
        "purchase_cards": [1, 2, 3, 4, 5],
        "turn": 4,
        "seats": [{"cash": 2}, {"cash": 2}, {"cash": 2}, {"cash": 2}, {"cash": 2}],
    }
    game = Game.from_position(position)
    other = game.zones()["bank:1"][0]

    def swap(events: list[Event]) -> list[Event]:
        i = next(i for i, e in enumerate(events) if isinstance(e, Taxed) and e.seat == 0)
        return [*events[:i], Taxed(0, (other,)), *events[i + 1 :]]

    found = forged(position, "decline", swap)
    assert found.invariant == "event_log"
    assert "seat 0's bank" in found.detail


def test_the_ledger_follows_every_game_of_a_match() -> None:
    """A match's monitor books each game from its own setup, so its bank adds up."""
    checked = CheckedGame(cardshop.new_game("klunker-zh", 3, seed=2), every=1000)
    play(checked, 2)
    (monitor,) = checked.monitors
    last = current_game(checked.game)
    assert monitor._inner is last  # type: ignore[attr-defined]
    ledger = monitor._monitor.ledger  # type: ignore[attr-defined]
    assert last.is_over
    assert tuple(ledger.expected_bank(s) for s in range(3)) == last.result().scores
    assert checked.game.result().details["games"] == 3


@pytest.mark.parametrize("name", ["klunker-en", "klunker-es"])
def test_hidden_twins_from_one_read_of_the_state_are_those_read_one_by_one(name: str) -> None:
    """hidden_twin takes the bare state read once for all seats' twins: the twins are
    the same as those built one by one, and the read is left unchanged."""
    game = cardshop.new_game(name, players=4, seed=3)
    rng = random.Random(3)
    for _ in range(40):
        game.apply(rng.choice(game.legal_actions()))
    bare = klunker_invariants.bare_data(game)
    before = json.dumps(bare, sort_keys=True)
    for seat in range(4):
        shared = klunker_invariants.hidden_twin(game, seat, 7, bare=bare)
        alone = klunker_invariants.hidden_twin(game, seat, 7)
        assert shared.to_json() == alone.to_json()
        assert shared.observation(seat) == game.observation(seat)
    assert json.dumps(bare, sort_keys=True) == before


@pytest.mark.parametrize("name", ["klunker-en", "klunker-es"])
def test_a_quick_twin_is_the_twin_its_json_makes(name: str) -> None:
    """The audit's hidden-information check builds its twins from a copy of the game
    (quick_twin): at every step of whole games, from the setup to the end, each seat's
    twin is the game the JSON reader makes of the same places (hidden_twin), plays
    the same legal actions to the same states, and leaves the game unchanged."""
    for players, seed in ((3, 1), (5, 2), (4, 9)):
        game = cardshop.new_game(name, players=players, seed=seed)
        rng = random.Random(seed)
        states = 0
        while True:
            before = game.to_json()
            for seat in range(players):
                quick = klunker_invariants.quick_twin(game, seat, states)
                slow = klunker_invariants.hidden_twin(game, seat, states)
                assert quick._legal is None  # worked out anew, never the game's own
                assert quick == slow
                assert quick.to_json() == slow.to_json()
                assert quick.legal_actions() == slow.legal_actions()
                assert quick.observation(seat) == game.observation(seat)
                if not quick.is_over and states % 7 == 0:  # the same futures
                    play = random.Random(states)
                    for _ in range(30):
                        if quick.is_over:
                            break
                        action = play.choice(quick.legal_actions())
                        assert quick.apply(action) == slow.apply(action)
                    assert quick.to_json() == slow.to_json()
            assert game.to_json() == before
            states += 1
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_actions()))
        assert states > 50
