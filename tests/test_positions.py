"""Positions: what they set up, and every inconsistency they are rejected for."""

from __future__ import annotations

from typing import Any

import pytest

from cardshop import Game, Phase, PositionError


def pos(**keys: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"variant": "klunker-en", "seats": [{}, {}, {}]}
    base.update(keys)
    return base


def test_minimal_position_puts_everything_else_in_the_deck() -> None:
    game = Game.from_position(pos())
    assert game.phase == Phase.FILL
    assert game.current_player == 0
    assert len(game.zones()["deck"]) == 94
    assert game.round == 1


def test_yaml_text_position() -> None:
    text = """
variant: klunker-es
phase: store
start_player: 1
turn: 2
purchase_cards: [1, 0, 0, 0]
seats:
  - {hand: {shoes: 2}, cash: 2}
  - {hand: {diadem: 1}, window: {monocle: 2}, cash: {necklace: 1}}
  - {safe: {shoes: 3}, cash: 0}
  - {}
discard: {diadem: 4}
deck: [shoes, shoes]
"""
    with pytest.raises(PositionError, match="cards do not add up"):
        Game.from_position(text)
    game = Game.from_position(text.replace("deck: [shoes, shoes]\n", ""))
    assert game.phase == Phase.STORE
    assert game.current_player == 2
    assert game.scores() == (2, 1, 0, 0)
    assert game.zone_counts("bank:1") == {"necklace": 1}
    assert game.zone_counts("safe:2") == {"shoes": 3}
    assert game.purchase_cards == (1, 0, 0, 0)


def test_explicit_deck_order_is_kept_top_first() -> None:
    rest = {
        "tongue-bob": 14,
        "ear-pendant": 14,
        "gold-tooth": 14,
        "diadem": 14,
        "monocle": 14,
        "necklace": 10,
        "shoes": 12,
    }
    game = Game.from_position(pos(discard=rest, deck=["shoes", "shoes"]))
    deck = game.zones()["deck"]
    assert [game.card_kind(c) for c in deck] == ["shoes", "shoes"]


@pytest.mark.parametrize(
    ("keys", "match"),
    [
        ({"seats": [{"hand": {"shoes": 15}}, {}, {}]}, "more cards than klunker-en has of: shoes"),
        ({"seats": [{"hand": {"rubies": 1}}, {}, {}]}, "unknown card kind 'rubies'"),
        ({"seats": [{}, {}]}, "2 players is outside"),
        ({"players": 4}, "players is 4 but 3 seats"),
        ({"phase": "purchase", "purchase_cards": [1, 1, 2]}, "two players hold purchase card 1"),
        ({"phase": "purchase", "purchase_cards": [1, 2, 0]}, "every seat holds a purchase card"),
        ({"phase": "store", "purchase_cards": [2, 0, 0]}, "lowest first"),
        ({"phase": "store", "purchase_cards": [1, 0, 0], "turn": 0}, "holds a purchase card"),
        ({"phase": "fill", "purchase_cards": [1, 0, 0]}, "fill phase"),
        ({"seats": [{"safe": {"shoes": 4}}, {}, {}]}, "complete row of shoes left unsold"),
        (
            {
                "phase": "sell",
                "purchase_cards": [1, 2, 3],
                "seats": [{"safe": {"shoes": 4}}, {}, {}],
            },
            "two or more kinds",
        ),
        ({"seats": [{"hand": {"shoes": 7}}, {}, {}]}, "more than the hand size 6"),
        ({"turn": 3}, "seats are 0..2"),
        ({"round": 0}, "round"),
        ({"round": 500}, "round cap"),
        ({"colour": "blue"}, "unknown key 'colour'"),
        ({"seats": [{"hand": {"shoes": -1}}, {}, {}]}, "greater than or equal to 0"),
        ({"seats": [{"cash": 95}, {}, {}]}, "cash counts need 95"),
        ({"phase": "store", "purchase_cards": [1, 2, 3]}, "store phase is over"),
        ({"declined": 1}, "purchase phase"),
        (
            {"phase": "purchase", "purchase_cards": [1, 2, 3], "turn": 1, "declined": 0},
            "declining ends the purchase phase",
        ),
        (
            {"turn": 1, "seats": [{"hand": {"shoes": 1}}, {}, {}]},
            "seat 0 has already filled its window",
        ),
        ({"variant": None}, "names no variant"),
    ],
)
def test_inconsistent_positions_are_rejected(keys: dict[str, Any], match: str) -> None:
    with pytest.raises(PositionError, match=match):
        Game.from_position(pos(**keys))


def test_sell_phase_position() -> None:
    game = Game.from_position(
        pos(
            phase="sell",
            purchase_cards=[1, 2, 3],
            seats=[{"safe": {"shoes": 4, "diadem": 4}}, {}, {}],
        )
    )
    assert game.phase == Phase.SELL
    assert [str(a) for a in game.legal_actions()] == ["sell diadem", "sell shoes"]


def test_position_needs_a_mapping_and_valid_yaml() -> None:
    with pytest.raises(PositionError, match="mapping"):
        Game.from_position("- a\n- b\n")
    with pytest.raises(PositionError, match="not valid YAML/JSON at line 2") as info:
        Game.from_position("seats: [\n")
    assert "variant" not in str(info.value)


def test_finished_game_has_no_position() -> None:
    game = Game.from_position(
        pos(
            seats=[{"cash": 1}, {"cash": 1}, {"cash": 1}],
            phase="purchase",
            purchase_cards=[1, 2, 3],
            discard={
                "tongue-bob": 14,
                "ear-pendant": 14,
                "gold-tooth": 14,
                "diadem": 14,
                "monocle": 14,
                "necklace": 10,
                "shoes": 10,
            },
        )
    )
    game.apply("decline")
    assert game.is_over
    with pytest.raises(PositionError, match="finished game"):
        game.to_position()
