"""One scenario per clause of the Reglamentacja rules digest (docs/reglamentacja-rules.md).

Each test names the clause it checks and sets up its situation from a position:
only what matters is written; stamps and cards left out lie in the stacks.
"""

from __future__ import annotations

import random
import re
from math import comb
from pathlib import Path
from typing import Any

import pytest

from cardshop import ActionParseError, IllegalActionError, PositionError, SetupError
from cardshop.core.actions import Action
from cardshop.core.source import load_yaml
from cardshop.core.variant import VariantBase
from cardshop.reglamentacja import ReglamentacjaGame, ReglamentacjaVariant, action_space, new_game
from cardshop.reglamentacja import events as ev

ROOT = Path(__file__).resolve().parents[1]
VARIANT_FILE = ROOT / "variants" / "reglamentacja.yaml"
DIGEST = ROOT / "docs" / "reglamentacja-rules.md"


def variant(**over: Any) -> ReglamentacjaVariant:
    data = load_yaml(VARIANT_FILE.read_text(encoding="utf-8"), str(VARIANT_FILE)).data
    data.update(over)
    v = ReglamentacjaVariant.model_validate(data)
    assert v.semantic_errors() == []
    return v


V = variant()
NAMES = V.rules.card_names


def game_at(v: ReglamentacjaVariant = V, **pos: Any) -> ReglamentacjaGame:
    pos.setdefault("seats", [{}, {}, {}])
    return ReglamentacjaGame.from_position(pos, v)


def types_of(events: list[Any]) -> list[str]:
    return [type(e).__name__ for e in events]


def unchanged_after_illegal(game: ReglamentacjaGame, action: str) -> None:
    before = game.to_json()
    with pytest.raises((IllegalActionError, ActionParseError)):
        game.apply(action)
    assert game.to_json() == before


def play_some(game: ReglamentacjaGame, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if game.is_over:
            return
        legal = game.legal_actions()
        plain = [a for a in legal if a.verb != "offer"]
        game.apply(rng.choice(legal if rng.random() < 0.3 else plain))


def hand_size(game: ReglamentacjaGame, seat: int) -> int:
    return sum(game.hand(seat).values())


# ---------------------------------------------------------------- cards, knowledge


def test_rg_card_1_every_card_has_one_place_throughout() -> None:
    """RG-CARD-1: stamps, shopping cards and visits each lie in exactly one place."""
    game = new_game(V, 4, seed=11)
    rng = random.Random(1)
    for _ in range(300):
        stamps = [s for ids in game.stamp_zones().values() for s in ids]
        cards = [c for ids in game.card_zones().values() for c in ids]
        visits = [x for ids in game.visit_zones().values() for x in ids]
        assert sorted(stamps) == list(range(35))
        assert sorted(cards) == list(range(20))
        assert sorted(visits) == list(range(6))
        play_some(game, rng, 1)


def test_rg_card_2_shopping_cards_costs_and_icons() -> None:
    """RG-CARD-2: the rulebook's cheesecake cost and icons; the rulings' table totals."""
    rules = V.rules
    idx = rules.card_index
    cost = dict(zip(rules.kinds, rules.card_cost[idx["cheesecake"]], strict=True))
    assert cost == {**dict.fromkeys(rules.kinds, 0), "flour": 2, "sugar": 1}
    cats = rules.categories
    for name, cat, icons in [
        ("name-day-consumption", "event", 2),
        ("starching-bed-sheets", "fix-up", 2),
        ("meat-balls", "meal", 3),
        ("butter-biscuits", "cake", 3),
    ]:
        assert cats[rules.card_cat[idx[name]]] == cat
        assert rules.card_icons[idx[name]] == icons
    assert len(NAMES) == 20
    assert all(sum(c) == 3 for c in rules.card_cost)
    for i, _ in enumerate(cats):
        cards = [c for c in range(20) if rules.card_cat[c] == i]
        assert len(cards) == 5
        assert sum(rules.card_icons[c] for c in cards) == 12


def test_rg_know_1_observation_hides_exactly_what_is_hidden() -> None:
    """RG-KNOW-1: other hands, visits, stack order and the spin left are hidden."""
    common: dict[str, Any] = {"phase": "trade", "spin": 5, "active": 0}
    a = game_at(
        seats=[
            {"hand": {"meat": 2}, "visit": "family-gathering"},
            {"hand": {"sugar": 2}, "visit": "dinner-with-the-boss"},
            {"hand": {"soap": 1}, "visit": "husbands-name-day"},
        ],
        **common,
    )
    b = game_at(
        seats=[
            {"hand": {"meat": 2}, "visit": "family-gathering"},
            {"hand": {"flour": 1, "butter": 1}, "visit": "husbands-name-day"},
            {"hand": {"alcohol": 1}, "visit": "meeting-with-mrs-engineer"},
        ],
        row=list(a.row),
        seed=99,
        **{**common, "spin": 9},
    )
    assert a.observation(0) == b.observation(0)
    assert a.observation(1) != b.observation(1)
    obs = a.observation(0)
    assert obs.visits == (V.rules.visit_index["family-gathering"], -1, -1)
    assert obs.hand_sizes == (2, 2, 1)
    over = game_at(
        phase="over",
        termination="finished",
        seats=[{"visit": "family-gathering"}, {}, {}],
    )
    assert -1 not in over.observation(1).visits


# ---------------------------------------------------------------- setup


def test_rg_setup_1_players_and_row() -> None:
    """RG-SETUP-1: 3 to 5 players; a row of 6 and a shopping stack of the rest."""
    for n in (3, 4, 5):
        game = new_game(V, n, seed=n)
        assert len(game.row) == 6
        assert len(game.card_zones()["stack"]) == 14
    for n in (2, 6):
        with pytest.raises(SetupError):
            new_game(V, n, seed=1)


def test_rg_setup_2_five_stamps_each_then_the_stack() -> None:
    """RG-SETUP-2: 5 stamps each (the first active then draws 2); the rest is the stack."""
    game = new_game(V, 4, seed=5)
    sizes = [hand_size(game, s) for s in range(4)]
    assert sizes == [7 if s == game.active else 5 for s in range(4)]
    assert len(game.stamp_zones()["stack"]) == 35 - 20 - 2


def test_rg_setup_3_visit_cards_and_the_three_player_option() -> None:
    """RG-SETUP-3: one secret visit each, the rest unused; the 3-player meal option."""
    meal = set(V.rules.meal_visits)
    assert len(meal) == 3
    dealt_meal = False
    without = variant(three_players_without_meal_visits=True)
    for seed in range(30):
        game = new_game(V, 3, seed=seed)
        visits = [game._visit[s] for s in range(3)]
        assert len(set(visits)) == 3
        assert sorted(visits + list(game.visit_zones()["box"])) == list(range(6))
        dealt_meal |= bool(meal & set(visits))
        small = new_game(without, 3, seed=seed)
        assert not meal & {small._visit[s] for s in range(3)}
    assert dealt_meal  # the option is off by default


def test_rg_setup_4_queue_and_the_spinning_top() -> None:
    """RG-SETUP-4: first player heads the queue, clockwise, speculator last; third gets the top."""
    game = new_game(V, 4, seed=2, first_player=3)
    assert game.queue == (3, 0, 1, 2, -1)
    assert game.active == 1
    assert game.turn == 1
    assert game.current_player == 1  # the active player's offer turn comes first
    seeded = new_game(V, 5, seed=8)
    q = seeded.queue
    assert q[-1] == -1
    assert [(q[0] + i) % 5 for i in range(5)] == list(q[:5])
    assert seeded.active == q[2]


# ---------------------------------------------------------------- a turn


def shop_position(**over: Any) -> dict[str, Any]:
    pos: dict[str, Any] = {
        "phase": "shop",
        "active": 1,
        "queue": [2, 0, "S", 1],
        "seats": [{"hand": {"sugar": 1}}, {"hand": {"meat": 1}}, {"hand": {"soap": 1}}],
    }
    pos.update(over)
    return pos


def test_rg_turn_1_allocation_two_stamps() -> None:
    """RG-TURN-1: the new active player draws 2 stamps at the start of his turn."""
    game = game_at(**shop_position())
    events = game.apply("pass")
    assert game.turn == 2
    assert hand_size(game, 1) == 3
    drawn = [e for e in events if isinstance(e, ev.StampsDrawn) and e.why == "allocation"]
    assert [(e.seat, len(e.stamps)) for e in drawn] == [(1, 2)]


def test_rg_turn_2_order_of_a_turn() -> None:
    """RG-TURN-2: trading, limit, top passes, shopping, refill, next turn's allocation."""
    game = game_at(
        phase="trade",
        spin=4,
        active=0,
        queue=[2, 0, "S", 1],
        seats=[{"hand": {"sugar": 1}}, {}, {"hand": {"flour": 2, "sugar": 1}}],
        row=["cheesecake", "buffet", "brownie", "meat-balls", "great-laundry", "tea-sugar"],
    )
    events = game.apply("stop")
    assert types_of(events) == ["TopStopped", "TopPassed"]
    assert game.phase == "shop"
    events = game.apply("buy 1")
    assert types_of(events) == [
        "Bought",
        "StampsDrawn",
        "RowRefilled",
        "TurnBegan",
        "StampsDrawn",
        "TopSpun",
    ]


def test_rg_turn_3_the_top_passes_left_before_shopping() -> None:
    """RG-TURN-3: after trading the top goes to seat active+1; the head of the queue shops."""
    game = game_at(phase="trade", spin=4, active=2, queue=[0, 1, "S", 2])
    events = game.apply("stop")
    assert game.active == 0
    assert ev.TopPassed(0) in events
    assert game.current_player == 0  # the head of the queue, now also the top holder
    game2 = game_at(phase="trade", spin=4, active=0, queue=[2, 0, "S", 1])
    game2.apply("stop")
    assert game2.active == 1
    assert game2.current_player == 2


def test_rg_stamp_1_spent_stamps_are_public() -> None:
    """RG-STAMP-1: stamps paid for a card land face up on the discard pile."""
    game = game_at(
        **shop_position(
            seats=[{}, {}, {"hand": {"flour": 2, "sugar": 1}}],
            row=["cheesecake", "buffet", "brownie", "meat-balls", "great-laundry", "tea-sugar"],
        )
    )
    game.apply("buy 1")
    kinds = V.rules.kinds
    seen = dict(zip(kinds, game.observation(0).discard, strict=True))
    assert seen["flour"] == 2
    assert seen["sugar"] == 1


def test_rg_stamp_2_reshuffle_and_empty_stacks() -> None:
    """RG-STAMP-2: an empty stack takes the shuffled discards; with none, nothing is drawn."""
    seats = [
        {"hand": {"sugar": 5}},
        {"hand": {"meat": 5, "flour": 5, "alcohol": 5}},
        {"hand": {"butter": 5, "soap": 5}},
    ]
    game = game_at(**shop_position(seats=seats, discard={"chocolate": 5}, stamp_stack=[]))
    events = game.apply("pass")
    assert ev.Reshuffled(5) in events
    assert game.hand(2)["chocolate"] == 1
    seats[2] = {"hand": {"butter": 5, "soap": 5, "chocolate": 5}}
    dry = game_at(**shop_position(seats=seats, stamp_stack=[]))
    events = dry.apply("pass")
    assert not any(isinstance(e, ev.Reshuffled) for e in events)
    assert hand_size(dry, 2) == 15
    assert hand_size(dry, 1) == 15  # the new active player draws nothing either


# ---------------------------------------------------------------- trading


def test_rg_trade_1_the_spin_is_seeded_bounded_and_hidden() -> None:
    """RG-TRADE-1: a seeded number of offer turns in spin.min..max; then the top falls."""
    spins = set()
    for seed in range(60):
        game = new_game(V, 3, seed=seed)
        spins.add(game._spin)
        assert 4 <= game._spin <= 12
        assert new_game(V, 3, seed=seed)._spin == game._spin
    assert len(spins) > 3
    game = game_at(phase="trade", spin=4, active=0)
    for _ in range(3):
        game.apply("pass")
        assert game.phase == "trade"
    events = game.apply("pass")
    assert ev.TopStopped(0, False) in events
    assert game.phase == "shop"


def test_rg_trade_2_offer_turns_alternate_with_the_active_player() -> None:
    """RG-TRADE-2: active, next, active, the one after, ...; inactive offer only to active."""
    game = game_at(phase="trade", spin=12, active=1, seats=[{}, {}, {}, {}])
    order = []
    for _ in range(8):
        order.append(game.current_player)
        game.apply("pass")
    assert order == [1, 2, 1, 3, 1, 0, 1, 2]
    inactive = game_at(
        phase="trade",
        spin=12,
        active=1,
        offer_turns=1,
        seats=[{}, {}, {"hand": {"meat": 1}}, {}],
    )
    assert inactive.current_player == 2
    unchanged_after_illegal(inactive, "offer 3 give meat")
    inactive.apply("offer 1 give meat")
    assert inactive.current_player == 1


def test_rg_trade_3_offer_form_and_limits() -> None:
    """RG-TRADE-3: up to max_trade each way, disjoint kinds, not empty, normalised text."""
    game = game_at(
        phase="trade", spin=6, active=0, seats=[{"hand": {"sugar": 2, "meat": 1}}, {}, {}]
    )
    action = game.parse_action("offer 2 take flour give sugar meat place")
    assert action == Action("offer", "2 give meat sugar take flour place")
    assert str(game.parse_action(str(action))) == str(action)
    for bad in (
        "offer 2 give sugar sugar meat meat",
        "offer 2 give sugar take sugar",
        "offer 2",
        "offer 7 give sugar",
        "offer 2 give salt",
    ):
        with pytest.raises(ActionParseError):
            game.parse_action(bad)
    unchanged_after_illegal(game, "offer 1 give sugar sugar sugar")  # holds only 2
    unchanged_after_illegal(game, "offer 0 give sugar")  # not to himself
    assert game.is_legal("offer 1 give meat sugar sugar take flour flour flour place")


def test_rg_trade_4_answers_and_when_a_trade_runs() -> None:
    """RG-TRADE-4: the target answers at once; accept only with the stamps asked for."""
    game = game_at(
        phase="trade",
        spin=6,
        active=0,
        seats=[{"hand": {"sugar": 2}}, {"hand": {"flour": 1}}, {}],
    )
    game.apply("offer 1 give sugar take flour")
    assert game.current_player == 1
    assert game.legal_actions() == [Action("accept"), Action("reject")]
    assert game.observation(2).pending is not None  # offers are public
    game.apply("accept")
    assert game.hand(0) == {"sugar": 1, "flour": 1}
    assert game.hand(1) == {"sugar": 1}
    assert game.observation(0).offer_turns == 1  # offer and answer: one offer turn
    game2 = game_at(phase="trade", spin=6, active=0, seats=[{"hand": {"sugar": 2}}, {}, {}])
    game2.apply("offer 1 give sugar take flour")
    assert game2.legal_actions() == [Action("reject")]
    unchanged_after_illegal(game2, "accept")
    game2.apply("reject")
    assert game2.hand(0) == {"sugar": 2}


def test_rg_trade_5_places_swap_with_a_trade() -> None:
    """RG-TRADE-5: an accepted offer with place swaps the two pawns."""
    game = game_at(phase="trade", spin=6, active=0, queue=[1, 2, "S", 0], seats=[{}, {}, {}])
    game.apply("offer 1 place")
    game.apply("accept")
    assert game.queue == (0, 2, -1, 1)
    assert game.stats["place_trades"] == 1


def test_rg_trade_6_only_the_active_player_stops_the_top() -> None:
    """RG-TRADE-6: stop ends trading at once; an inactive player cannot stop."""
    game = game_at(phase="trade", spin=12, active=0, offer_turns=1)
    unchanged_after_illegal(game, "stop")
    game.apply("pass")
    events = game.apply("stop")
    assert ev.TopStopped(0, True) in events
    assert game.phase == "shop"


def test_rg_trade_7_pass_lets_the_offer_turn_go() -> None:
    """RG-TRADE-7: pass changes nothing but the offer turn."""
    game = game_at(phase="trade", spin=12, active=0, seats=[{"hand": {"meat": 1}}, {}, {}])
    before = game.observation(0)
    game.apply("pass")
    after = game.observation(0)
    assert after.offer_turns == before.offer_turns + 1
    assert after._replace(offer_turns=0, offerer=0, acting=0) == before._replace(offer_turns=0)


# ---------------------------------------------------------------- speculator


def test_rg_spec_1_pay_two_stamps_for_one_from_the_stack() -> None:
    """RG-SPEC-1: speculate draw discards two stamps and draws one."""
    game = game_at(
        phase="trade", spin=12, active=0, seats=[{"hand": {"soap": 2, "meat": 1}}, {}, {}]
    )
    game.apply("speculate draw soap soap")
    assert hand_size(game, 0) == 2
    assert dict(zip(V.rules.kinds, game.observation(1).discard, strict=True))["soap"] == 2
    unchanged_after_illegal(game, "speculate draw meat meat")  # not his offer turn anyway
    final = game_at(
        phase="final-trade",
        spin=12,
        active=0,
        queue=[0, 1, 2],
        seats=[{"hand": {"soap": 2}}, {}, {}],
    )
    unchanged_after_illegal(final, "speculate draw soap soap")


def test_rg_spec_2_pay_two_stamps_to_swap_with_the_speculator() -> None:
    """RG-SPEC-2: speculate swap discards two stamps; the pawns trade places."""
    game = game_at(
        phase="trade",
        spin=12,
        active=0,
        queue=[1, "S", 2, 0],
        seats=[{"hand": {"soap": 1, "meat": 1}}, {}, {}],
    )
    game.apply("speculate swap meat soap")
    assert game.queue == (1, 0, 2, -1)
    assert game.stats["pushbacks"] == 1
    assert hand_size(game, 0) == 0


def test_rg_spec_3_the_speculator_shops_by_the_die() -> None:
    """RG-SPEC-3: at the head of the queue with a full row he removes the rolled card."""
    row = ["cheesecake", "buffet", "brownie", "meat-balls", "great-laundry", "tea-sugar"]
    game = game_at(**shop_position(queue=[2, "S", 0, 1], row=row))
    events = game.apply("pass")
    (bought,) = [e for e in events if isinstance(e, ev.SpeculatorBought)]
    assert 1 <= bought.roll <= 6
    assert bought.card == row[bought.roll - 1]
    assert game.card_zones()["removed"] == (V.rules.card_index[bought.card],)
    assert game.queue == (0, 1, 2, -1)
    assert len(game.row) == 6
    # Brought to the head by a swap, he shops before the player at the counter.
    early = game_at(phase="trade", spin=12, active=0, queue=["S", 1, 2, 0], row=row)
    events = early.apply("stop")
    assert types_of(events)[:3] == ["TopStopped", "TopPassed", "SpeculatorBought"]
    assert early.current_player == 1


# ---------------------------------------------------------------- hand limit


def test_rg_limit_1_only_the_active_player_discards_to_six() -> None:
    """RG-LIMIT-1: after trading the active player discards one at a time down to 6."""
    game = game_at(
        phase="trade",
        spin=12,
        active=0,
        seats=[{"hand": {"meat": 5, "soap": 3}}, {"hand": {"flour": 5, "sugar": 4}}, {}],
    )
    game.apply("stop")
    assert game.phase == "discard"
    assert game.current_player == 0
    assert game.legal_actions() == [Action("discard", "meat"), Action("discard", "soap")]
    unchanged_after_illegal(game, "pass")
    game.apply("discard soap")
    assert game.phase == "discard"
    game.apply("discard meat")
    assert game.phase == "shop"
    assert hand_size(game, 0) == 6
    assert hand_size(game, 1) == 9


# ---------------------------------------------------------------- shopping


def test_rg_shop_1_the_head_of_the_queue_shops() -> None:
    """RG-SHOP-1: the owner of the first pawn is at the counter."""
    game = game_at(**shop_position(queue=[0, 2, "S", 1]))
    assert game.current_player == 0
    assert game.legal_actions()[-1] == Action("pass")


def test_rg_shop_2_exact_stamps_buy_one_card() -> None:
    """RG-SHOP-2: the stamps must be the card's kinds and numbers; one card at most."""
    row = ["cheesecake", "buffet", "brownie", "meat-balls", "great-laundry", "tea-sugar"]
    short = game_at(**shop_position(row=row, seats=[{}, {}, {"hand": {"flour": 1, "sugar": 2}}]))
    assert short.legal_actions() == [Action("pass")]
    unchanged_after_illegal(short, "buy 1")
    game = game_at(**shop_position(row=row, seats=[{}, {}, {"hand": {"flour": 3, "sugar": 4}}]))
    assert game.legal_actions() == [Action("buy", 1), Action("buy", 6), Action("pass")]
    game.apply("buy 1")
    assert game.bought(2) == ("cheesecake",)
    assert hand_size(game, 2) == 7 - 3 + 1  # paid three, drew one (RG-SHOP-3)


def test_rg_shop_3_pawn_to_the_back_and_one_stamp() -> None:
    """RG-SHOP-3: buying or not, the shopper goes to the back and draws one stamp."""
    for action, after in (("pass", 4), ("buy 1", 1)):
        game = game_at(
            **shop_position(
                row=["cheesecake", "buffet", "brownie", "meat-balls", "great-laundry", "tea-sugar"],
                seats=[{}, {}, {"hand": {"flour": 2, "sugar": 1}}],
            )
        )
        game.apply(action)
        assert game.queue == (0, -1, 1, 2)
        assert hand_size(game, 2) == after


def test_rg_row_1_the_row_closes_up_and_refills_at_the_end() -> None:
    """RG-ROW-1: a bought card's gap closes towards position 1; the new card comes last."""
    row = ["cheesecake", "buffet", "brownie", "meat-balls", "great-laundry", "tea-sugar"]
    game = game_at(
        **shop_position(
            row=row,
            shop_stack=["meat-roulade"],
            seats=[{}, {}, {"hand": {"meat": 1, "alcohol": 1, "butter": 1}}],
        ),
        **{"removed": [n for n in NAMES if n not in row and n != "meat-roulade"]},
    )
    game.apply("buy 2")
    assert game.row == (
        "cheesecake",
        "brownie",
        "meat-balls",
        "great-laundry",
        "tea-sugar",
        "meat-roulade",
    )


# ---------------------------------------------------------------- the end

ROW = ["cheesecake", "buffet", "brownie", "meat-balls", "great-laundry", "tea-sugar"]
REST = [n for n in NAMES if n not in ROW]


def last_card_position(**over: Any) -> dict[str, Any]:
    return shop_position(row=ROW, shop_stack=[], removed=REST, **over)


def test_rg_final_1_a_short_row_starts_the_final_turn() -> None:
    """RG-FINAL-1: the row cannot be refilled: final turn, no speculator shopping."""
    game = game_at(
        **last_card_position(
            queue=[2, "S", 0, 1], seats=[{}, {}, {"hand": {"flour": 2, "sugar": 1}}]
        )
    )
    events = game.apply("buy 1")
    assert "FinalTurnBegan" in types_of(events)
    assert "SpeculatorBought" not in types_of(events)
    assert -1 not in game.queue
    assert game.phase == "final-trade"
    assert len(game.row) == 5


def test_rg_final_2_three_stamps_each_from_the_active_player() -> None:
    """RG-FINAL-2: each player takes 3 stamps, dealt one at a time from the active player."""
    game = game_at(**last_card_position(seats=[{}, {}, {"hand": {"flour": 2, "sugar": 1}}]))
    events = game.apply("buy 1")
    final = [e for e in events if isinstance(e, ev.StampsDrawn) and e.why == "final"]
    assert [e.seat for e in final] == [1, 2, 0]  # the top passed to seat 1 already
    assert [len(e.stamps) for e in final] == [3, 3, 3]
    assert [hand_size(game, s) for s in range(3)] == [3, 3, 4]


def test_rg_final_3_open_trading_round_the_table() -> None:
    """RG-FINAL-3: offer turns go round from the active player; anyone with anyone."""
    game = game_at(
        phase="final-trade",
        spin=12,
        active=1,
        queue=[0, 1, 2],
        seats=[{}, {"hand": {"meat": 1}}, {"hand": {"soap": 1}}],
    )
    order = []
    for _ in range(4):
        order.append(game.current_player)
        if game.current_player == 2:
            game.apply("offer 0 give soap")  # an inactive player to another inactive one
            game.apply("accept")
        else:
            game.apply("pass")
    assert order == [1, 2, 0, 1]
    assert game.hand(0) == {"soap": 1}
    unchanged_after_illegal(game, "stop")


def test_rg_final_4_one_purchase_each_in_queue_order_then_the_end() -> None:
    """RG-FINAL-4: each player in queue order buys or passes; nobody draws; the game ends."""
    game = game_at(
        phase="final-shop",
        active=0,
        queue=[2, 0, 1],
        row=ROW,
        shop_stack=[],
        removed=REST,
        seats=[
            {"hand": {"sugar": 3}, "visit": "mother-in-law-visit"},
            {},
            {"hand": {"flour": 2, "sugar": 1}, "visit": "dinner-with-the-boss"},
        ],
    )
    assert game.current_player == 2
    game.apply("buy 1")
    assert hand_size(game, 2) == 0
    assert game.current_player == 0
    game.apply("buy 5")  # tea-sugar, now at position 5
    assert game.current_player == 1
    events = game.apply("pass")
    assert game.is_over
    assert isinstance(events[-1], ev.GameEnded)
    assert game.result().scores == (2, 0, 2)


# ---------------------------------------------------------------- score


def test_rg_score_1_the_rulebook_example_scores_15() -> None:
    """RG-SCORE-1: two events, two fix-ups, three meals, three cakes, friends: 15."""
    game = game_at(
        phase="over",
        termination="finished",
        seats=[
            {
                "visit": "rendezvous-with-friends",
                "bought": [
                    "name-day-consumption",
                    "starching-bed-sheets",
                    "meat-balls",
                    "butter-biscuits",
                ],
            },
            {"visit": "dinner-with-the-boss", "bought": ["meat-roulade"]},
            {"visit": "family-gathering"},
        ],
    )
    assert game.score(0) == 2 + 4 + 3 + 6 == 15
    assert game.score(1) == 4  # meat roulade: 2 meal icons, doubled by the boss
    assert game.result().scores == (15, 4, 0)


def test_rg_score_2_tiebreaks_cards_then_stamps_then_shared() -> None:
    """RG-SCORE-2: equal points: more cards wins, then more stamps; else all tied win."""
    game = game_at(
        phase="over",
        termination="finished",
        seats=[
            {"visit": "mother-in-law-visit", "bought": ["buffet"]},  # 3
            {"visit": "rendezvous-with-friends", "bought": ["tea-sugar"], "hand": {"meat": 1}},
            {"visit": "family-gathering", "bought": ["name-day-consumption"]},  # 2
            {"visit": "dinner-with-the-boss", "bought": ["something-to-the-coffee"]},  # 4
        ],
    )
    result = game.result()
    assert result.scores == (3, 2, 2, 4)
    assert result.ranks == (2, 3, 4, 1)
    tied = game_at(
        phase="over",
        termination="finished",
        seats=[
            {"visit": "mother-in-law-visit", "bought": ["tea-sugar"]},
            {"visit": "rendezvous-with-friends", "bought": ["name-day-consumption"]},
            {"visit": "meeting-with-mrs-engineer", "bought": ["brownie"], "hand": {"soap": 1}},
        ],
    )
    assert tied.result().scores == (2, 2, 2)
    assert tied.result().winners == (2,)
    assert tied.result().ranks == (2, 2, 1)
    both = game_at(
        phase="over",
        termination="finished",
        seats=[
            {"visit": "mother-in-law-visit", "bought": ["tea-sugar"]},
            {"visit": "rendezvous-with-friends", "bought": ["name-day-consumption"]},
            {"visit": "meeting-with-mrs-engineer", "bought": ["brownie"]},
        ],
    )
    assert both.result().winners == (0, 1, 2)
    more_cards = game_at(
        phase="over",
        termination="finished",
        seats=[
            {"visit": "mother-in-law-visit", "bought": ["tea-sugar", "name-day-consumption"]},
            {"visit": "rendezvous-with-friends", "bought": ["brownie"], "hand": {"soap": 3}},
            {"visit": "dinner-with-the-boss", "bought": ["meat-roulade"]},
        ],
    )
    assert more_cards.result().scores == (4, 4, 4)
    assert more_cards.result().winners == (0,)
    assert more_cards.result().ranks == (1, 2, 3)


def test_rg_cap_1_the_turn_cap_ends_a_game_as_capped() -> None:
    """RG-CAP-1: a game reaching turn_cap turns ends capped before the next turn."""
    game = game_at(**shop_position(turn=200))
    events = game.apply("pass")
    assert game.is_over
    assert events[-1] == ev.GameEnded("capped", (0, 0, 0))
    assert game.result().termination.value == "capped"
    short = variant(turn_cap=3)
    g = new_game(short, 3, seed=4)
    rng = random.Random(0)
    while not g.is_over:
        play_some(g, rng, 1)
    assert g.turn <= 4
    assert g.result().termination.value in ("capped", "finished")


# ---------------------------------------------------------------- actions, positions


def test_rg_act_1_texts_round_trip_and_legal_actions_are_sorted() -> None:
    """RG-ACT-1: every legal action's text parses back to it; lists are sorted."""
    game = new_game(V, 3, seed=21)
    rng = random.Random(3)
    for _ in range(120):
        if game.is_over:
            break
        legal = game.legal_actions()
        assert legal == sorted(legal)
        assert len(set(legal)) == len(legal)
        for action in rng.sample(legal, min(20, len(legal))):
            assert game.parse_action(str(action)) == action
        play_some(game, rng, 1)
    with pytest.raises(ActionParseError):
        game.parse_action("dance")


def test_rg_act_2_the_action_space_is_finite_and_counted() -> None:
    """RG-ACT-2: the index space's size formula; it holds every legal action."""
    rules = V.rules
    for n in (3, 4, 5):
        space = action_space(V, n)
        q = (rules.offers_per_target() + 1) // 2
        p = comb(rules.k + rules.spec_price - 1, rules.spec_price)
        assert len(space) == 4 + rules.row_size + rules.k + 2 * p + n * (2 * q - 1)
        assert list(space) == sorted(set(space))
    assert (rules.offers_per_target() + 1) // 2 == 6637
    assert len(action_space(V, 5)) == 66438
    space4 = set(action_space(V, 4))
    game = new_game(V, 4, seed=3)
    rng = random.Random(2)
    for _ in range(80):
        if game.is_over:
            break
        assert set(game.legal_actions()) <= space4
        play_some(game, rng, 1)


def test_rg_pos_1_positions_load_check_and_round_trip() -> None:
    """RG-POS-1: the digest's example loads; a position round-trips; bad ones are refused."""
    text = DIGEST.read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert block is not None
    game = ReglamentacjaGame.from_position(block.group(1), V)
    assert game.phase == "shop"
    assert game.current_player == 2
    pos = game.to_position()
    again = ReglamentacjaGame.from_position(pos, V)
    assert again.to_position() == pos
    assert again.observation(1) == game.observation(1)
    for bad in (
        {"seats": [{"bought": ["tea-sugar"]}, {}, {}], "row": ["tea-sugar"]},
        {"seats": [{"hand": {"meat": 6}}, {}, {}]},
        {"seats": [{}, {}, {}], "queue": [0, 1, "S"]},
        {"seats": [{}, {}, {}], "phase": "discard"},
        {"seats": [{}, {}, {}], "unknown": 1},
        {"seats": [{"hand": {"meat": 1}}, {}, {}], "pending": "offer 1 give meat take meat"},
    ):
        with pytest.raises(PositionError):
            ReglamentacjaGame.from_position(bad, V)


# ---------------------------------------------------------------- the digest


def test_every_cited_clause_and_every_variant_key_is_in_the_digest() -> None:
    """Clause IDs cited in the code, the YAML and the tests exist; every key is explained."""
    digest = DIGEST.read_text(encoding="utf-8")
    defined = set(re.findall(r"\*\*(RG-[A-Z]+-\d+)\*\*", digest))
    files = [VARIANT_FILE, *sorted((ROOT / "src" / "cardshop" / "reglamentacja").glob("*.py"))]
    files += sorted((ROOT / "tests").glob("test_reglamentacja_*.py"))
    for path in files:
        for cited in re.findall(r"RG-[A-Z]+-\d+", path.read_text(encoding="utf-8")):
            assert cited in defined, f"{path.name} cites {cited}, which the digest lacks"
    base = set(VariantBase.model_fields)  # the keys every family's variants share
    for key in set(ReglamentacjaVariant.model_fields) - base:
        assert re.search(rf"`{key}[`.]", digest), f"the digest does not explain `{key}`"


def test_every_digest_clause_has_a_test() -> None:
    """Every clause ID defined in the digest is cited by a test in this file."""
    digest = DIGEST.read_text(encoding="utf-8")
    defined = re.findall(r"\*\*(RG-[A-Z]+-\d+)\*\*", digest)
    assert len(defined) == len(set(defined)) >= 30
    source = Path(__file__).read_text(encoding="utf-8")
    cited = set(re.findall(r'"""(RG-[A-Z]+-\d+):', source))
    assert set(defined) == cited


# ---------------------------------------------------------------- house-rule options


def test_rg_setup_5_two_players_the_second_pawn_gets_the_top() -> None:
    """RG-SETUP-5: with 2 players the second pawn's owner trades first; the first shops."""
    v = variant(players={"min": 2, "max": 5})
    game = new_game(v, 2, seed=3, first_player=1)
    assert game.queue == (1, 0, -1)
    assert game.active == 0
    assert game.current_player == 0
    game.apply("stop")
    while game.phase == "discard":
        game.apply(game.legal_actions()[0])
    assert game.phase == "shop"
    assert game.current_player == 1
    assert game.active == 1
    plain = variant(players={"min": 2, "max": 5}, speculator=None)
    assert new_game(plain, 2, seed=3, first_player=1).queue == (1, 0)
    with pytest.raises(SetupError):
        new_game(v, 1, seed=1)


def test_rg_trade_8_without_queue_trading_no_offer_swaps_places() -> None:
    """RG-TRADE-8: queue_trading false: no offer has place, in normal or final trading."""
    v = variant(queue_trading=False)
    seats = [{"hand": {"meat": 2, "sugar": 1}}, {"hand": {"flour": 1}}, {}]
    game = game_at(v, phase="trade", spin=6, active=0, queue=[1, 2, "S", 0], seats=seats)
    legal = game.legal_actions()
    assert game.parse_action("offer 1 give meat take flour") in legal
    assert not [a for a in legal if a.verb == "offer" and str(a.arg).endswith("place")]
    assert game.parse_action("speculate swap meat meat") in legal  # not an offer: it stays
    unchanged_after_illegal(game, "offer 1 place")
    unchanged_after_illegal(game, "offer 1 give meat place")
    assert 0 not in game.offer_parts((1, 0))  # nothing for nothing is no offer
    assert game.offer_parts((1, 0, game.offer_parts((1, 0))[0])) == (0,)
    base = game_at(phase="trade", spin=6, active=0, queue=[1, 2, "S", 0], seats=seats)
    assert game.parse_action("offer 1 give meat place") in base.legal_actions()
    assert len(base.legal_actions()) > len(legal)
    final = game_at(v, phase="final-trade", spin=6, active=0, seats=seats)
    assert not [a for a in final.legal_actions() if str(a.arg).endswith("place")]
    assert not [a for a in action_space(v, 3) if str(a.arg).endswith("place")]
    q = len(base.rules.offers_to(0)[0])  # 2Q - 1 offers to a seat with places, Q - 1 without
    assert len(game.rules.offers_to(0)[0]) == (q + 1) // 2 - 1


def test_rg_spec_4_without_a_speculator() -> None:
    """RG-SPEC-4: speculator null: no pawn, no speculate actions, no card taken out."""
    v = variant(speculator=None)
    assert v.speculator is None
    assert v.rules.has_speculator is False
    game = new_game(v, 3, seed=5)
    assert game.queue == tuple(q for q in game.queue if q >= 0)
    assert len(game.queue) == 3
    rng = random.Random(5)
    while not game.is_over:
        legal = game.legal_actions()
        assert not [a for a in legal if a.verb == "speculate"]
        plain = [a for a in legal if a.verb != "offer"]
        for event in game.apply(rng.choice(plain)):
            assert not isinstance(event, (ev.Speculated, ev.SpeculatorBought))
        assert -1 not in game.queue
    assert game.stats["speculator_buys"] == 0
    assert not game.card_zones().get("removed")
    unchanged = game_at(v, phase="trade", spin=6, active=0, seats=[{"hand": {"meat": 2}}, {}, {}])
    assert -1 not in unchanged.queue
    unchanged_after_illegal(unchanged, "speculate draw meat meat")
    assert not [a for a in action_space(v, 3) if a.verb == "speculate"]
    with pytest.raises(PositionError):
        ReglamentacjaGame.from_position({"seats": [{}, {}, {}], "queue": [0, 1, "S", 2]}, v)
