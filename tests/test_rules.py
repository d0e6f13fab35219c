"""One scenario per clause of the rules digest (docs/rules.md), each built from a position.

Each test names the clause it checks. Positions are written like FEN in chess: only
what matters for the scenario; every card not listed lies in the deck.
"""

from __future__ import annotations

from typing import Any

import pytest

import cardshop
from cardshop import Game, IllegalActionError, SetupError, parse_variant
from cardshop.klunker import Phase
from cardshop.klunker import events as ev


def seat(**zones: Any) -> dict[str, Any]:
    return dict(zones)


def position(*seats: dict[str, Any], variant: str = "klunker-en", **keys: Any) -> dict[str, Any]:
    pos: dict[str, Any] = {"variant": variant, "seats": list(seats)}
    pos.update(keys)
    return pos


def game_at(*seats: dict[str, Any], variant: Any = None, **keys: Any) -> Game:
    pos = position(*seats, **keys)
    return Game.from_position(pos, variant)


def purchase_phase(
    *seats: dict[str, Any], turn: int = 0, cards: list[int] | None = None, **keys: Any
) -> Game:
    n = len(seats)
    held = cards or list(range(1, n + 1))
    return game_at(*seats, phase="purchase", turn=turn, purchase_cards=held, **keys)


def types_of(events: list[Any]) -> list[str]:
    return [type(e).__name__ for e in events]


def unchanged_after_illegal(game: Game, action: str) -> None:
    before = game.to_json()
    with pytest.raises(IllegalActionError):
        game.apply(action)
    assert game.to_json() == before


VARIANT_WITH = """\
name: knobs
players: {{min: 3, max: 4}}
cards: {{ruby: 16, pearl: 16, opal: 16}}
hand_size: 4
starting_cash: {{3: 1, 4: 1}}
steps: {steps}
sale: {{payout: [4, 3, 2, 1]{sale}}}
{extra}
family: klunker
"""


def knob_variant(
    sale: str = "", extra: str = "", steps: str = "[fill, store, purchase, refill]"
) -> cardshop.Variant:
    return parse_variant(VARIANT_WITH.format(sale=sale, extra=extra, steps=steps))


# ---------------------------------------------------------------------- cards


def test_card_1_every_card_in_exactly_one_zone_throughout_a_game() -> None:
    """CARD-1: each card has one identity and is in exactly one zone at every moment."""
    game = cardshop.new_game("klunker-en", 4, seed=3)
    ids = list(range(94))
    steps = 0
    while not game.is_over:
        cards = [c for zone in game.zones().values() for c in zone]
        assert sorted(cards) == ids
        game.apply(game.legal_actions()[steps % len(game.legal_actions())])
        steps += 1
    cards = [c for zone in game.zones().values() for c in zone]
    assert sorted(cards) == ids
    assert set(game.zones()) == {
        *(f"{z}:{s}" for s in range(4) for z in ("hand", "window", "safe", "bank")),
        "deck",
        "discard",
    }


def test_card_1_a_card_keeps_its_identity_when_it_moves() -> None:
    """CARD-1: the card placed is the same card later bought and sold."""
    game = game_at(seat(hand={"shoes": 1}, safe={"shoes": 3}, cash=1), seat(cash=1), seat(cash=1))
    placed = game.apply("window shoes")[0]
    assert isinstance(placed, ev.Placed)
    assert placed.card in game.zones()["window:0"]
    assert game.card_kind(placed.card) == "shoes"


def test_card_2_observation_hides_other_hands_deck_and_cash_faces() -> None:
    """CARD-2: games differing only in hidden cards look the same to a seat."""
    common = {"phase": "fill", "turn": 0, "seed": 1}
    a = game_at(
        seat(hand={"shoes": 2}, cash={"diadem": 1}),
        seat(hand={"monocle": 2}, cash={"necklace": 1}),
        seat(hand={"diadem": 1}, cash={"shoes": 1}),
        **common,
    )
    b = game_at(
        seat(hand={"shoes": 2}, cash={"monocle": 1}),
        seat(hand={"tongue-bob": 1, "gold-tooth": 1}, cash={"shoes": 1}),
        seat(hand={"necklace": 1}, cash={"diadem": 1}),
        seed=99,
        **{k: v for k, v in common.items() if k != "seed"},
    )
    assert a.observation(0) == b.observation(0)
    assert a.observation(1) != b.observation(1)  # seat 1's own hand differs
    obs = a.observation(0)
    assert obs.hand_sizes == (2, 2, 1)
    assert obs.cash == (1, 1, 1)
    assert not hasattr(obs, "deck")


# ---------------------------------------------------------------------- setup


def test_setup_1_player_range_and_purchase_cards() -> None:
    """SETUP-1: player counts come from the variant; purchase cards are 1..N."""
    with pytest.raises(SetupError, match="3 to 5 players, not 6"):
        cardshop.new_game("klunker-en", 6)
    with pytest.raises(SetupError):
        cardshop.new_game("klunker-es", 2)
    cardshop.new_game("klunker-es", 6, seed=0)
    game = cardshop.new_game("klunker-en", 4, seed=0)
    while game.phase != Phase.PURCHASE:
        game.apply(game.legal_actions()[0])
    assert sorted(game.purchase_cards) == [1, 2, 3, 4]


def test_setup_2_first_start_player_is_a_parameter_or_drawn_from_the_seed() -> None:
    """SETUP-2: first_player is honoured; otherwise the seed decides, reproducibly."""
    for first in range(3):
        game = cardshop.new_game("klunker-en", 3, seed=5, first_player=first)
        assert game.start_player == first == game.current_player
    drawn = {cardshop.new_game("klunker-en", 3, seed=s).first_player for s in range(30)}
    assert drawn == {0, 1, 2}
    assert all(
        cardshop.new_game("klunker-en", 3, seed=s).first_player
        == cardshop.new_game("klunker-en", 3, seed=s).first_player
        for s in range(10)
    )
    with pytest.raises(SetupError):
        cardshop.new_game("klunker-en", 3, first_player=3)


@pytest.mark.parametrize(("players", "cash"), [(3, 1), (4, 1), (5, 3), (6, 5)])
def test_setup_3_starting_cash_by_player_count(players: int, cash: int) -> None:
    """SETUP-3: each player starts with the variant's cash for that player count."""
    game = cardshop.new_game("klunker-es", players, seed=1)
    assert game.scores() == (cash,) * players


def test_setup_4_hands_dealt_to_hand_size() -> None:
    """SETUP-4: every hand holds hand_size cards; the rest is the deck."""
    game = cardshop.new_game("klunker-en", 5, seed=2)
    zones = game.zones()
    assert [len(zones[f"hand:{s}"]) for s in range(5)] == [6] * 5
    assert len(zones["deck"]) == 94 - 5 * (6 + 1)


# ---------------------------------------------------------------------- round


def test_round_1_steps_run_in_the_variants_order() -> None:
    """ROUND-1: after the purchase the automatic steps follow in YAML order."""
    game = purchase_phase(
        seat(window={"shoes": 1}, cash=2),
        seat(cash=2),
        seat(cash=2),
        seat(cash=2),
        seat(cash=2),
        variant="klunker-es",
    )
    events = game.apply("buy 0")
    assert game.phase == Phase.PURCHASE  # seats 1..4 still hold purchase cards
    events += game.apply("decline")  # seat 1: every window is empty
    names = types_of(events)
    assert names[:2] == ["Bought", "Declined"]
    first_tax = names.index("Taxed")
    assert names.index("Reshuffled") > first_tax
    assert names.index("Dealt") > names.index("Reshuffled")
    assert names[-1] == "RoundEnded"
    assert game.phase == Phase.FILL
    assert game.round == 2


# ----------------------------------------------------------------------- fill


def test_fill_1_once_around_from_the_start_player() -> None:
    """FILL-1: from the start player clockwise, once around; any number of cards."""
    game = game_at(
        seat(hand={"shoes": 3}),
        seat(hand={"diadem": 2}),
        seat(hand={"monocle": 1}),
        start_player=1,
        turn=1,
    )
    order = []
    game.apply("window diadem")
    game.apply("window diadem")  # several cards in one turn
    for _ in range(3):
        order.append(game.current_player)
        if game.zone_counts(f"window:{game.current_player}") == {}:
            game.apply(str(game.legal_actions()[-1]))
        game.apply("done")
    assert order == [1, 2, 0]
    assert game.phase == Phase.STORE
    assert game.zone_counts("window:1") == {"diadem": 2}


def test_fill_2_an_empty_window_needs_a_card() -> None:
    """FILL-2: `done` is illegal with an empty window and a non-empty hand."""
    game = game_at(seat(hand={"shoes": 1}), seat(hand={"diadem": 1}), seat())
    assert "done" not in [str(a) for a in game.legal_actions()]
    unchanged_after_illegal(game, "done")
    game.apply("window shoes")
    assert str(game.legal_actions()[0]) == "done"
    game.apply("done")
    game.apply("window diadem")
    game.apply("done")
    # seat 2: empty window and empty hand: done is the only action
    assert [str(a) for a in game.legal_actions()] == ["done"]


def test_fill_2_a_filled_window_may_add_nothing() -> None:
    """FILL-2: a window holding cards from earlier rounds may stay as it is."""
    game = game_at(seat(hand={"shoes": 1}, window={"diadem": 1}), seat(hand={"diadem": 1}), seat())
    assert [str(a) for a in game.legal_actions()] == ["done", "window shoes"]


# ---------------------------------------------------------------------- store


def test_store_1_clockwise_store_one_card_or_pass_skipping_holders() -> None:
    """STORE-1: one card per turn, clockwise, players with a purchase card skipped."""
    game = game_at(
        seat(hand={"shoes": 2}),
        seat(hand={"diadem": 1}),
        seat(hand={"monocle": 1}),
        phase="store",
        turn=0,
        purchase_cards=[0, 1, 0],
    )
    events = game.apply("store shoes")
    assert isinstance(events[0], ev.Stored)
    assert game.zone_counts("safe:0") == {"shoes": 1}
    assert game.current_player == 2  # seat 1 holds card 1 and is skipped
    game.apply("store monocle")
    assert game.current_player == 0
    unchanged_after_illegal(game, "store diadem")  # not in seat 0's hand


def test_store_2_passing_takes_the_lowest_card_and_ends_the_part() -> None:
    """STORE-2: the first to pass takes card 1, the next card 2; passers are out."""
    game = game_at(
        seat(hand={"shoes": 2}),
        seat(hand={"diadem": 2}),
        seat(hand={"monocle": 2}),
        phase="store",
        turn=0,
    )
    assert game.apply("pass") == [ev.Passed(0, 1)]
    game.apply("store diadem")
    assert game.apply("pass") == [ev.Passed(2, 2)]
    assert game.current_player == 1  # only seat 1 is left; it goes on alone
    game.apply("store diadem")
    assert game.current_player == 1
    game.apply("pass")
    assert game.purchase_cards == (1, 3, 2)


def test_store_3_an_empty_hand_can_only_pass() -> None:
    """STORE-3: a player with no hand cards may only pass."""
    game = game_at(seat(), seat(hand={"diadem": 1}), seat(), phase="store", turn=0)
    assert [str(a) for a in game.legal_actions()] == ["pass"]
    unchanged_after_illegal(game, "store shoes")


def test_store_4_phase_ends_when_every_card_is_taken() -> None:
    """STORE-4: the last pass ends the phase; buying starts with purchase card 1."""
    game = game_at(
        seat(window={"shoes": 1}),
        seat(window={"diadem": 1}),
        seat(window={"monocle": 1}),
        phase="store",
        turn=1,
        purchase_cards=[2, 0, 1],
    )
    game.apply("pass")
    assert game.phase == Phase.PURCHASE
    assert game.purchase_cards == (2, 3, 1)
    assert game.current_player == 2  # holder of card 1


# ------------------------------------------------------------------- purchase


def test_buy_1_buyers_act_in_purchase_card_order() -> None:
    """BUY-1: the holder of card 1 buys first, then 2, then 3."""
    game = purchase_phase(
        seat(window={"shoes": 1}, cash=1),
        seat(window={"diadem": 1}, cash=1),
        seat(window={"monocle": 1}, cash=1),
        cards=[3, 1, 2],
        turn=1,
    )
    order = []
    while game.phase == Phase.PURCHASE:
        order.append(game.current_player)
        game.apply(f"buy {game.current_player}")
    assert order == [1, 2, 0]


def test_buy_2_a_purchase_takes_the_whole_window_into_the_safe() -> None:
    """BUY-2: all cards of exactly one non-empty window go into the buyer's safe."""
    game = purchase_phase(
        seat(window={"shoes": 1}, cash=1),
        seat(window={"diadem": 2, "monocle": 1}, cash=1),
        seat(cash=1),
    )
    window = game.zones()["window:1"]
    events = game.apply("buy 1")
    assert isinstance(events[0], ev.Bought)
    assert sorted(events[0].cards) == sorted(window)
    assert game.zone_counts("window:1") == {}
    assert game.zone_counts("safe:0") == {"diadem": 2, "monocle": 1}
    assert "buy 2" not in [str(a) for a in game.legal_actions()]
    unchanged_after_illegal(game, "buy 2")  # seat 2's window is empty


def test_buy_3_another_window_costs_the_price_own_is_free() -> None:
    """BUY-3: one cash card moves from buyer to owner; one's own window costs nothing."""
    game = purchase_phase(
        seat(window={"shoes": 1}, cash=2),
        seat(window={"diadem": 1}, cash=1),
        seat(window={"monocle": 1}, cash=0),
    )
    banks = game.zones()
    bought = game.apply("buy 1")[0]
    assert isinstance(bought, ev.Bought)
    assert bought.price == 1
    assert len(bought.paid) == 1
    assert bought.paid[0] in banks["bank:0"]
    assert bought.paid[0] in game.zones()["bank:1"]
    assert game.scores() == (1, 2, 0)
    banks = game.zones()
    bought = game.apply("buy 0")[0]  # seat 1 (card 2): its window is gone; buys seat 0's
    assert bought == ev.Bought(1, 0, bought.cards, 1, bought.paid)
    assert len(bought.paid) == 1
    assert bought.paid[0] in banks["bank:1"]
    assert game.scores() == (2, 1, 0)
    bought = game.apply("buy 2")[0]  # seat 2 buys its own window for free
    assert isinstance(bought, ev.Bought)
    assert bought.price == 0
    assert bought.paid == ()
    assert game.scores() == (2, 1, 0)


def test_buy_3_price_is_a_knob() -> None:
    """BUY-3: `purchase.price` sets the number of cash cards paid."""
    variant = knob_variant(extra="purchase: {price: 2}")
    game = purchase_phase(
        seat(window={"ruby": 1}, cash=3),
        seat(window={"pearl": 1}, cash=0),
        seat(cash=0),
        variant=variant,
    )
    game.apply("buy 1")
    assert game.scores() == (1, 2, 0)


def test_buy_4_a_non_empty_own_window_means_one_must_buy() -> None:
    """BUY-4: declining is illegal with cards in one's own window."""
    game = purchase_phase(
        seat(window={"shoes": 1}, cash=1), seat(window={"diadem": 1}, cash=1), seat(cash=1)
    )
    assert "decline" not in [str(a) for a in game.legal_actions()]
    unchanged_after_illegal(game, "decline")


def test_buy_5_declining_ends_the_phase_for_everyone() -> None:
    """BUY-5: with an empty own window one may decline, and nobody buys after."""
    game = purchase_phase(
        seat(cash=1), seat(window={"diadem": 1}, cash=1), seat(window={"monocle": 1}, cash=1)
    )
    assert [str(a) for a in game.legal_actions()] == ["buy 1", "buy 2", "decline"]
    events = game.apply("decline")
    assert events[0] == ev.Declined(0)
    assert game.phase == Phase.FILL  # the round ended; windows 1 and 2 remain
    assert game.zone_counts("window:1") == {"diadem": 1}
    assert game.zone_counts("window:2") == {"monocle": 1}


def test_buy_5_skip_turn_knob_lets_later_buyers_buy() -> None:
    """BUY-5: with `purchase.decline: skip_turn` only the decliner's turn passes."""
    variant = knob_variant(extra="purchase: {decline: skip_turn}")
    game = purchase_phase(
        seat(cash=1),
        seat(window={"pearl": 1}, cash=1),
        seat(window={"opal": 1}, cash=1),
        variant=variant,
    )
    game.apply("decline")
    assert game.phase == Phase.PURCHASE
    assert game.current_player == 1
    game.apply("buy 1")
    game.apply("buy 2")
    assert game.phase == Phase.FILL
    assert game.start_player == 0  # the decliner became start player (END-1)


def test_buy_6_no_cash_no_purchase_from_others() -> None:
    """BUY-6: without cash one may not buy another's window; own empty too: decline."""
    game = purchase_phase(seat(cash=0), seat(window={"diadem": 1}, cash=1), seat(cash=1))
    assert [str(a) for a in game.legal_actions()] == ["decline"]
    unchanged_after_illegal(game, "buy 1")
    game2 = purchase_phase(
        seat(window={"shoes": 1}, cash=0), seat(window={"diadem": 1}, cash=1), seat(cash=1)
    )
    assert [str(a) for a in game2.legal_actions()] == ["buy 0"]


def test_buy_6_broke_may_buy_knob_pays_what_one_has() -> None:
    """BUY-6: with `purchase.broke_may_buy: true` a broke player buys and pays nothing."""
    variant = knob_variant(extra="purchase: {broke_may_buy: true}")
    game = purchase_phase(
        seat(cash=0), seat(window={"pearl": 1}, cash=1), seat(cash=1), variant=variant
    )
    bought = game.apply("buy 1")[0]
    assert isinstance(bought, ev.Bought)
    assert bought.price == 0
    assert game.scores() == (0, 1, 1)


# ----------------------------------------------------------------------- sell


def test_sell_1_rows_count_extra_cards_as_another_row() -> None:
    """SELL-1: 5 cards of a kind are two rows (4 + 1); rows are counted per kind."""
    game = purchase_phase(
        seat(safe={"shoes": 3, "diadem": 1}, window={"shoes": 2}, cash=1),
        seat(cash=1),
        seat(cash=1),
    )
    events = game.apply("buy 0")
    sold = [e for e in events if isinstance(e, ev.Sold)]
    assert len(sold) == 1
    assert sold[0].rows == 3  # shoes 4 + shoes 1 + diadem 1
    assert game.zone_counts("safe:0") == {"shoes": 1, "diadem": 1}


def test_sell_2_a_complete_row_is_sold_at_once_when_stored() -> None:
    """SELL-2: storing the 4th card of a kind sells the row immediately."""
    game = game_at(
        seat(hand={"shoes": 1}, safe={"shoes": 3}),
        seat(hand={"diadem": 1}),
        seat(),
        phase="store",
        turn=0,
    )
    events = game.apply("store shoes")
    assert types_of(events) == ["Stored", "Sold"]
    assert game.zone_counts("safe:0") == {}
    assert game.cash(0) == 4


@pytest.mark.parametrize(("others", "pay"), [(0, 4), (1, 3), (2, 2), (3, 1), (5, 1)])
def test_sell_3_payout_by_rows_in_the_safe(others: int, pay: int) -> None:
    """SELL-3: 1 row pays 4, 2 pay 3, 3 pay 2, 4 or more pay 1."""
    kinds = ["diadem", "monocle", "gold-tooth", "tongue-bob", "ear-pendant"][:others]
    safe = {"shoes": 3, **dict.fromkeys(kinds, 1)}
    game = game_at(seat(hand={"shoes": 1}, safe=safe), seat(), seat(), phase="store", turn=0)
    sold = game.apply("store shoes")[1]
    assert isinstance(sold, ev.Sold)
    assert (sold.rows, sold.payout) == (others + 1, pay)
    assert game.cash(0) == pay


def test_sell_4_paid_cards_become_cash_the_rest_is_discarded() -> None:
    """SELL-4: pay + discarded = set size; paid cards go to the bank, others to discard."""
    game = game_at(
        seat(hand={"shoes": 1}, safe={"shoes": 3, "diadem": 1, "monocle": 1}),
        seat(),
        seat(),
        phase="store",
        turn=0,
    )
    sold = game.apply("store shoes")[1]
    assert isinstance(sold, ev.Sold)
    assert len(sold.cash) + len(sold.discarded) == 4
    zones = game.zones()
    assert set(sold.cash) <= set(zones["bank:0"])
    assert set(sold.discarded) == set(zones["discard"])
    assert all(game.card_kind(c) == "shoes" for c in sold.cash + sold.discarded)


def test_sell_4_unpaid_cards_can_go_to_the_deck() -> None:
    """SELL-4: `sale.unpaid_to: deck` puts unpaid cards in the deck, not the discard."""
    variant = knob_variant(sale=", unpaid_to: deck")
    game = game_at(
        seat(hand={"ruby": 1}, safe={"ruby": 3, "pearl": 1}),
        seat(),
        seat(),
        phase="store",
        turn=0,
        variant=variant,
    )
    deck_before = len(game.zones()["deck"])
    sold = game.apply("store ruby")[1]
    assert isinstance(sold, ev.Sold)
    assert sold.payout == 3
    assert game.zones()["discard"] == ()
    assert len(game.zones()["deck"]) == deck_before + 1


def test_sell_5_necklaces_always_pay_four_in_english() -> None:
    """SELL-5: a per-kind override: Necklace rows pay 4 whatever the row count."""
    safe = {"necklace": 3, "shoes": 1, "diadem": 1, "monocle": 1}
    en = game_at(seat(hand={"necklace": 1}, safe=safe), seat(), seat(), phase="store", turn=0)
    sold = en.apply("store necklace")[1]
    assert isinstance(sold, ev.Sold)
    assert (sold.rows, sold.payout) == (4, 4)
    es = game_at(
        seat(hand={"necklace": 1}, safe=safe),
        seat(),
        seat(),
        phase="store",
        turn=0,
        variant="klunker-es",
    )
    sold = es.apply("store necklace")[1]
    assert isinstance(sold, ev.Sold)
    assert sold.payout == 1


def test_sell_6_buyer_chooses_order_rulebook_example() -> None:
    """SELL-6: the rulebook's purchase: tongue-bob first pays 2, then ear-pendant 3."""
    game = purchase_phase(
        seat(safe={"tongue-bob": 2, "ear-pendant": 3}, cash=1),
        seat(window={"tongue-bob": 2, "ear-pendant": 2}, cash=1),
        seat(cash=1),
    )
    events = game.apply("buy 1")
    assert types_of(events) == ["Bought"]
    assert game.phase == Phase.SELL
    assert game.current_player == 0
    assert [str(a) for a in game.legal_actions()] == ["sell ear-pendant", "sell tongue-bob"]
    events = game.apply("sell tongue-bob")
    sold = [e for e in events if isinstance(e, ev.Sold)]
    assert [(s.kind, s.rows, s.payout) for s in sold] == [
        ("tongue-bob", 3, 2),
        ("ear-pendant", 2, 3),
    ]
    assert game.cash(0) == 1 - 1 + 5  # net +4
    assert game.zone_counts("safe:0") == {"ear-pendant": 1}
    # 9 cards took part (4 tongue-bob + 5 ear-pendant): 5 became cash, 1 stays in the
    # safe, so 3 went to the discard (2 from the first sale, 1 from the second).
    assert len(game.zones()["discard"]) == 3
    assert game.current_player == 1
    assert game.phase == Phase.PURCHASE


@pytest.mark.parametrize(("first", "total"), [("necklace", 7), ("shoes", 6)])
def test_sell_6_order_matters_necklace_first(first: str, total: int) -> None:
    """SELL-6: Necklace first pays 4 + 3 = 7; Shoes first pays 2 + 4 = 6."""
    game = purchase_phase(
        seat(safe={"necklace": 3, "shoes": 3}, cash=1),
        seat(window={"necklace": 1, "shoes": 1, "diadem": 1}, cash=0),
        seat(cash=0),
    )
    game.apply("buy 1")
    events = game.apply(f"sell {first}")
    assert sum(e.payout for e in events if isinstance(e, ev.Sold)) == total
    assert game.cash(0) == total  # had 1, paid 1
    assert game.zone_counts("safe:0") == {"diadem": 1}


# ---------------------------------------------------------------- end of round


def test_end_1_decliner_becomes_start_player_else_it_stays() -> None:
    """END-1: purchase cards go back; the decliner becomes start player."""
    game = purchase_phase(
        seat(window={"shoes": 1}, cash=1),
        seat(cash=1),
        seat(window={"diadem": 1}, cash=1),
        start_player=0,
    )
    game.apply("buy 2")  # seat 0 buys seat 2's window
    game.apply("decline")  # seat 1, empty window
    assert game.purchase_cards == (0, 0, 0)
    assert game.start_player == 1 == game.current_player
    stays = purchase_phase(
        seat(window={"shoes": 1}, cash=1),
        seat(window={"diadem": 1}, cash=1),
        seat(window={"monocle": 1}, cash=1),
        start_player=2,
    )
    for s in range(3):
        stays.apply(f"buy {s}")
    assert stays.start_player == 2


def test_end_2_tax_at_five_and_six_players() -> None:
    """END-2: each player pays the tax (what he has, down to 0); the cards go to the deck."""
    five = purchase_phase(
        seat(window={"shoes": 1}, cash=3),
        seat(cash=0),
        seat(cash=1),
        seat(cash=2),
        seat(cash=1),
        variant="klunker-es",
    )
    events = five.apply("buy 0") + five.apply("decline")
    taxed = {e.seat: len(e.cards) for e in events if isinstance(e, ev.Taxed)}
    assert taxed == {0: 1, 1: 0, 2: 1, 3: 1, 4: 1}
    assert five.scores() == (2, 0, 0, 1, 0)
    six = purchase_phase(
        *(seat(cash=3) for _ in range(5)),
        seat(window={"shoes": 1}, cash=1),
        variant="klunker-es",
        cards=[2, 3, 4, 5, 6, 1],
        turn=5,
    )
    six.apply("buy 5")
    six.apply("decline")
    assert six.scores() == (1, 1, 1, 1, 1, 0)


def test_end_2_tax_paid_cards_go_into_the_deck() -> None:
    """END-2: with `tax.to: deck` paid cards join the deck (before any reshuffle)."""
    variant = knob_variant(
        steps="[fill, store, purchase, tax, refill]",
        extra="tax: {per_player_count: {3: 1}, to: deck}",
    )
    game = purchase_phase(
        seat(window={"ruby": 1}, cash=1),
        seat(cash=1),
        seat(cash=1),
        variant=variant,
        **{"discard": {}},
    )
    deck_before = len(game.zones()["deck"])
    events = game.apply("buy 0") + game.apply("decline")
    paid = [c for e in events if isinstance(e, ev.Taxed) for c in e.cards]
    assert len(paid) == 3
    dealt = sum(len(e.cards) for e in events if isinstance(e, ev.Dealt))
    assert len(game.zones()["deck"]) == deck_before + 3 - dealt


def test_end_3_reshuffle_returns_discards_to_the_deck() -> None:
    """END-3: discards and deck are shuffled together; the discard is empty after."""
    game = purchase_phase(
        seat(window={"shoes": 1}, cash=1),
        seat(cash=1),
        seat(cash=1),
        discard={"diadem": 5},
        variant="klunker-es",
    )
    events = game.apply("buy 0") + game.apply("decline")
    assert any(isinstance(e, ev.Reshuffled) for e in events)
    assert game.zones()["discard"] == ()
    all_cards = [c for z in game.zones().values() for c in z]
    assert sorted(all_cards) == list(range(97))


def test_end_4_game_ends_when_the_deck_cannot_refill_every_hand() -> None:
    """END-4: too few cards to refill: the game ends at once and nothing is dealt."""
    gone = {
        "tongue-bob": 14,
        "ear-pendant": 14,
        "gold-tooth": 14,
        "shoes": 14,
        "diadem": 14,
        "monocle": 14,
        "necklace": 4,
    }
    game = purchase_phase(
        seat(window={"necklace": 1}, cash=1), seat(cash=1), seat(cash=1), discard=gone
    )
    assert len(game.zones()["deck"]) == 2  # 94 - 89 listed - 3 cash
    events = game.apply("buy 0") + game.apply("decline")
    assert game.is_over
    assert not any(isinstance(e, ev.Dealt) for e in events)
    assert isinstance(events[-1], ev.GameEnded)
    assert events[-1].termination == "finished"
    assert len(game.zones()["deck"]) == 2
    assert game.current_player is None
    assert game.legal_actions() == []
    assert game.phase == Phase.OVER


def test_end_5_refill_to_hand_size_from_the_start_player() -> None:
    """END-5: hands are refilled to the hand size, start player first, clockwise."""
    game = purchase_phase(
        seat(window={"shoes": 1}, hand={"diadem": 2}, cash=1),
        seat(hand={"monocle": 6}, cash=1),
        seat(cash=1),
        start_player=2,
    )
    events = game.apply("buy 0")
    events += game.apply("decline")  # seat 1 declines and becomes start player
    dealt = [(e.seat, len(e.cards)) for e in events if isinstance(e, ev.Dealt)]
    assert dealt == [(2, 6), (0, 4)]  # seat 1's hand is full
    assert [len(game.zones()[f"hand:{s}"]) for s in range(3)] == [6, 6, 6]


def test_end_5_refill_order_with_new_start_player() -> None:
    """END-5: after a decline the new start player is dealt first."""
    game = purchase_phase(
        seat(window={"shoes": 1}, cash=1), seat(cash=1), seat(cash=1), start_player=0
    )
    events = game.apply("buy 0")
    events += game.apply("decline")  # seat 1 declines and becomes start player
    order = [e.seat for e in events if isinstance(e, ev.Dealt)]
    assert order == [1, 2, 0]


# ----------------------------------------------------------------- score, end


def test_score_1_score_is_the_number_of_cash_cards() -> None:
    """SCORE-1: only cash counts; hands, windows and safes are worth nothing."""
    game = purchase_phase(
        seat(window={"shoes": 1}, hand={"diadem": 6}, cash=1),
        seat(cash=3, safe={"monocle": 3}),
        seat(cash=2),
        discard={
            "tongue-bob": 14,
            "gold-tooth": 14,
            "ear-pendant": 14,
            "necklace": 10,
            "shoes": 13,
            "diadem": 8,
        },
    )
    game.apply("buy 0")
    game.apply("decline")
    assert game.is_over
    result = game.result()
    assert result.scores == (1, 3, 2) == game.scores()
    assert result.winners == (1,)
    assert result.ranks == (3, 1, 2)


def test_score_2_tiebreak_fewest_cards_in_safe_and_window_then_shared() -> None:
    """SCORE-2: tied cash: fewest safe+window cards wins; still tied: shared win."""
    leftovers = {
        "tongue-bob": 14,
        "gold-tooth": 14,
        "ear-pendant": 14,
        "necklace": 10,
        "shoes": 6,
        "diadem": 11,
        "monocle": 11,
    }
    game = purchase_phase(
        seat(window={"shoes": 1}, cash=2),
        seat(cash=2, safe={"diadem": 1}),
        seat(cash=2, safe={"monocle": 1}, window={"shoes": 1}),
        discard=leftovers,
    )
    game.apply("buy 0")  # seat 0: safe 1 card
    game.apply("decline")
    result = game.result()
    assert result.scores == (2, 2, 2)
    assert result.ranks == (1, 1, 3)
    assert result.winners == (0, 1)
    assert result.order == (0, 1, 2)


def test_score_2_no_tiebreak_means_shared_win() -> None:
    """SCORE-2: klunker-es has no tiebreak: equal cash shares the win."""
    rest = {
        "tongue-bob": 14,
        "gold-tooth": 14,
        "ear-pendant": 14,
        "necklace": 15,
        "shoes": 14,
        "diadem": 12,
    }
    game = purchase_phase(
        seat(cash=2),
        seat(cash=2, window=rest),
        seat(cash=2, safe={"diadem": 1}),
        variant="klunker-es",
    )
    game.apply("decline")
    assert game.is_over
    assert game.result().winners == (0, 1, 2)


def test_match_1_one_game_per_player_scores_summed() -> None:
    """MATCH-1: zh plays N games, each seat first start player once, scores summed."""
    match = cardshop.new_game("klunker-zh", 3, seed=4)
    firsts = []
    while not match.is_over:
        if not firsts or match.game_index != len(firsts) - 1:
            firsts.append(match.current.first_player)
        match.apply(match.legal_actions()[-1])
    result = match.result()
    games = match.results
    assert firsts == [0, 1, 2]
    assert len(games) == 3
    assert result.scores == tuple(sum(g.scores[s] for g in games) for s in range(3))
    best = max(result.scores)
    assert result.winners == tuple(s for s in range(3) if result.scores[s] == best)
    assert cardshop.new_game("klunker-en", 3, seed=4).players == 3  # one game, no match


def test_match_1_through_the_deprecated_new_match() -> None:
    """MATCH-1 through the old interface, which still works and warns."""
    with pytest.deprecated_call():
        match = cardshop.klunker.new_match("klunker-zh", 3, seed=4)
    firsts = []
    while not match.is_over:
        if not firsts or match.game_index != len(firsts) - 1:
            firsts.append(match.game.first_player)
        match.apply(match.legal_actions()[-1])
    result = match.result()
    assert firsts == [0, 1, 2]
    assert len(result.games) == 3
    assert result.totals == tuple(sum(g.scores[s] for g in result.games) for s in range(3))
    best = max(result.totals)
    assert result.winners == tuple(s for s in range(3) if result.totals[s] == best)
    assert result.totals == match.series.result().scores
    with pytest.raises(SetupError, match="declares no match"):
        cardshop.klunker.new_match("klunker-en", 3)


def test_term_1_round_cap_ends_a_game_as_capped() -> None:
    """TERM-1: a game still running after round_cap rounds ends as 'capped'."""
    variant = knob_variant(extra="round_cap: 2")
    game = cardshop.new_game(variant, 3, seed=0)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    result = game.result()
    assert result.termination == cardshop.Termination.CAPPED
    assert result.rounds == 2


# -------------------------------------------------- which cash card changes hands

# A bank of 1 tongue-bob, 2 shoes and 3 diadems: a blind draw pays them 1 : 2 : 3.
BANK = {"tongue-bob": 1, "shoes": 2, "diadem": 3}
DRAWS = 600
# Chi-square with 2 degrees of freedom: a fair draw exceeds 13.82 with probability
# 0.001. The seeds are fixed, so the test is deterministic; the old rule (the first
# kind present, tongue-bob) gives a statistic of about 3000.
CHI2_CRITICAL = 13.82


def chi_square(observed: dict[str, int], weights: dict[str, int]) -> float:
    total = sum(observed.values())
    whole = sum(weights.values())
    return sum(
        (observed.get(k, 0) - total * w / whole) ** 2 / (total * w / whole)
        for k, w in weights.items()
    )


def test_buy_3_the_price_is_drawn_at_random_from_the_bank() -> None:
    """BUY-3: the cash card paid is drawn from the payer's bank, in proportion to its kinds."""
    paid: dict[str, int] = {}
    for seed in range(DRAWS):
        game = purchase_phase(seat(cash=dict(BANK)), seat(window={"monocle": 1}), seat(), seed=seed)
        bank = game.zones()["bank:0"]
        bought = game.apply("buy 1")[0]
        assert isinstance(bought, ev.Bought)
        assert len(bought.paid) == 1
        assert bought.paid[0] in bank
        kind = game.card_kind(bought.paid[0])
        paid[kind] = paid.get(kind, 0) + 1
    assert set(paid) == set(BANK)
    assert chi_square(paid, BANK) < CHI2_CRITICAL


def test_end_2_tax_cards_are_drawn_at_random_from_the_bank() -> None:
    """END-2: each tax card is drawn from the payer's bank, in proportion to its kinds."""
    paid: dict[str, int] = {}
    for seed in range(DRAWS // 2):
        # Six players pay 2 cards each; seat 5 holds the last purchase card and declines.
        game = purchase_phase(
            seat(cash=dict(BANK)),
            *[seat(cash=1) for _ in range(5)],
            variant="klunker-es",
            turn=5,
            seed=seed,
        )
        bank = game.zones()["bank:0"]
        events = game.apply("decline")
        taxed = next(e for e in events if isinstance(e, ev.Taxed) and e.seat == 0)
        assert len(taxed.cards) == 2
        assert set(taxed.cards) <= set(bank)
        for card in taxed.cards:
            kind = game.card_kind(card)
            paid[kind] = paid.get(kind, 0) + 1
    assert sum(paid.values()) == DRAWS
    # Two cards drawn without replacement from the same 6: each draw is still fair.
    assert chi_square(paid, BANK) < CHI2_CRITICAL


def test_payments_are_reproducible_and_follow_the_seed() -> None:
    """BUY-3: the same seed pays the same card; clone and JSON keep the draw."""
    kinds = set()
    for seed in range(20):
        game = purchase_phase(seat(cash=dict(BANK)), seat(window={"monocle": 1}), seat(), seed=seed)
        twin = Game.from_json(game.to_json())
        copy = game.clone()
        paid = game.apply("buy 1")[0]
        assert twin.apply("buy 1")[0] == paid
        assert copy.apply("buy 1")[0] == paid
        assert isinstance(paid, ev.Bought)
        kinds.add(game.card_kind(paid.paid[0]))
    assert len(kinds) > 1  # not always the same kind
