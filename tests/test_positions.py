"""Positions: what they set up, and every inconsistency they are rejected for."""

from __future__ import annotations

import copy
import json
import random
import re
from typing import Any

import pytest

import cardshop
from cardshop import Game, PositionError
from cardshop.klunker import Phase


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


# ------------------------------------------------ the variant key never opens a file


def test_a_position_never_opens_the_file_its_variant_key_names(tmp_path: Any) -> None:
    from cardshop import builtin_variants, load_variant

    mine = tmp_path / "mine.yaml"
    mine.write_text("extends: klunker-en\nname: mine\n")
    for ref in (str(mine), "/dev/zero", "../secret/app.yaml", "no-such-variant"):
        with pytest.raises(PositionError, match="never makes cardshop open a file"):
            Game.from_position(pos(variant=ref))
    # The caller may pass the file explicitly.
    game = Game.from_position(pos(variant=str(mine)), variant=str(mine))
    assert game.rules.name == "mine"
    # Built-in names and embedded variants work without a file of the caller's.
    assert "klunker-es" in builtin_variants()
    assert Game.from_position(pos(variant="klunker-es")).rules.name == "klunker-es"
    embedded = load_variant(str(mine)).to_data()
    assert Game.from_position(pos(variant=embedded)).rules.name == "mine"


def test_an_invalid_embedded_variant_is_a_position_error() -> None:
    with pytest.raises(PositionError, match="embedded in the position is invalid"):
        Game.from_position(pos(variant={"name": "x", "cards": {"a": -1}}))


@pytest.mark.parametrize(
    ("keys", "field"),
    [
        ({"seed": 10**30}, "seed"),
        ({"round": 10**30}, "round"),
        ({"seats": [{"hand": {"shoes": 10**30}}, {}, {}]}, "seats[0].hand.shoes"),
        ({"turn": True}, "turn"),
        ({"seats": [{}] * 101}, "seats"),
        ({"purchase_cards": [0] * 200}, "purchase_cards"),
    ],
)
def test_position_numbers_and_lists_are_bounded(keys: dict[str, Any], field: str) -> None:
    with pytest.raises(PositionError, match=re.escape(field)):
        Game.from_position(pos(**keys))


def test_a_decliner_must_have_bought_before_the_buyer() -> None:
    """BUY-1: declined is a seat whose purchase card came before the current one."""
    v = {"variant": "klunker-en"}
    skip = cardshop.parse_variant(
        "extends: klunker-en\nname: skip\npurchase: {decline: skip_turn}\n"
    )
    base = {
        "phase": "purchase",
        "purchase_cards": [1, 2, 3],
        "turn": 1,
        "seats": [{}, {"window": {"shoes": 1}}, {}],
    }
    assert Game.from_position({**v, **base, "declined": 0}, skip).purchase_cards == (1, 2, 3)
    with pytest.raises(PositionError, match="has not had its turn"):
        Game.from_position({**v, **base, "declined": 2}, skip)


# ------------------------------------------------------------- game JSON checks


def _json_at(variant: str, players: int, seed: int, actions: int) -> dict[str, Any]:
    game = cardshop.klunker.new_game(variant, players, seed=seed)  # zh: one game, no match
    rng = random.Random(seed)
    for _ in range(actions):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    data: dict[str, Any] = json.loads(game.to_json())
    return data


@pytest.mark.parametrize("variant", ["klunker-en", "klunker-es", "klunker-zh"])
def test_game_json_round_trips_at_every_stage(variant: str) -> None:
    for actions in (0, 40, 150, 10_000):
        data = _json_at(variant, 5, actions, actions)
        game = Game.from_json(data)
        assert game.to_dict() == data
        assert Game.from_json(game.to_json()) == game


def test_a_game_from_a_position_round_trips_through_json() -> None:
    game = Game.from_position(pos(phase="store", purchase_cards=[1, 0, 0], turn=1))
    game.apply("pass")
    text = game.to_json()
    assert json.loads(text)["from_setup"] is False
    back = Game.from_json(text)
    assert back == game
    assert [str(a) for a in back.history] == ["pass"]


def _tamper(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(data)
    *parents, last = path.split(".")
    node = data
    for key in parents:
        node = node[key]
    node[last] = value(node[last]) if callable(value) else value
    return data


MID = _json_at("klunker-es", 5, 3, 60)


def _hand_of_45(state: dict[str, Any]) -> list[int]:
    return [0 if c < 45 else 4 * 5 for c in range(len(state["where"]))]


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        ("players", 99, "players"),
        ("players", True, "players"),
        ("first_player", 99, "first_player"),
        ("seed", 2**64, "seed"),
        ("seed", 10**4000, "seed"),
        ("format", "other/1", "format"),
        ("variant_hash", "0" * 64, "variant_hash"),
        ("history", lambda h: [*h, "buy 9"], "history"),
        ("history", lambda h: [*h, "window ²"], "history"),
        ("history", lambda h: h[:-1], "history does not lead"),
        ("history", lambda h: ["done"] * 100_000, "history"),
        ("state.round", 10**6, "state.round"),
        ("state.round", 201, "state.round"),
        ("state.turn", 7, "state.turn"),
        ("state.turn", -1, "state.turn"),
        ("state.start", 5, "state.start"),
        ("state.phase", 4, "state.phase"),
        ("state.phase", 9, "state.phase"),
        ("state.step", 5, "state.step"),
        ("state.chance", 10**9, "state.chance"),
        ("state.termination", 1, "state.termination"),
        ("state.where", lambda w: w[:-1], "state.where"),
        ("state.where", lambda w: [99, *w[1:]], "state.where"),
        ("state.where", lambda w: [True, *w[1:]], "state.where"),
        ("state.deck", lambda d: d[:-1], "state.deck"),
        ("state.deck", lambda d: [d[0], *d[:-1]], "state.deck"),
        ("state.held", [1, 1, 0, 0, 0], "state.held"),
        ("state.held", [0, 0], "state.held"),
        ("state.decliner", 3, "state.decliner"),
        ("state.acted", 0, "state.acted"),
        ("state.buying", 2, "state.buying"),
        ("state.next_card", 3, "state.next_card"),
        ("state.extra", 1, "extra"),
    ],
)
def test_game_json_refuses_a_bad_field(path: str, value: Any, field: str) -> None:
    assert MID["state"]["phase"] == 0  # the fill phase: acted, next_card... are known
    data = _tamper(MID, path, value)
    with pytest.raises(PositionError, match=re.escape(field)):
        Game.from_json(data)
    with pytest.raises(PositionError, match=re.escape(field)):
        Game.from_json(json.dumps(data))


def test_game_json_refuses_states_no_game_reaches() -> None:
    """A hand of 45 cards, an unsold row, a finished game the deck could refill."""
    data = json.loads(cardshop.new_game("klunker-en", 3, seed=2).to_json())
    data["history"] = []
    state = data["state"]
    where = [4 * 3] * 94
    for card in range(45):
        where[card] = 0  # seat 0's hand
    state["where"] = where
    state["deck"] = list(range(45, 94))
    with pytest.raises(PositionError, match="more than the hand size"):
        Game.from_json({**data, "from_setup": False})
    where = [4 * 3] * 94
    for card in range(4):  # four tongue-bob in seat 1's safe: a complete row
        where[card] = 5
    state["where"], state["deck"] = where, list(range(4, 94))
    with pytest.raises(PositionError, match="left unsold"):
        Game.from_json({**data, "from_setup": False})
    state["where"], state["deck"] = [4 * 3] * 94, list(range(94))
    state.update(phase=4, turn=-1, termination=1, step=3)
    with pytest.raises(PositionError, match="could still refill"):
        Game.from_json({**data, "from_setup": False})


def test_game_json_bounds_size_and_depth() -> None:
    from cardshop.core import MAX_GAME_JSON_BYTES

    with pytest.raises(PositionError, match="larger than"):
        Game.from_json(" " * (MAX_GAME_JSON_BYTES + 1))
    with pytest.raises(PositionError, match="larger than"):
        Game.from_json(b" " * (MAX_GAME_JSON_BYTES + 1))
    with pytest.raises(PositionError, match="recursion"):
        Game.from_json('{"variant":' + "[" * 100_000)
    with pytest.raises(PositionError, match=r"'variant'.*nest more than"):
        Game.from_json('{"variant":' + "[" * 30 + "]" * 30 + "}")
    with pytest.raises(PositionError, match="must be a str"):
        Game.from_json(12)  # type: ignore[arg-type]
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(PositionError, match="variant"):
        Game.from_json({**MID, "variant": {**MID["variant"], "name": deep}})


def test_check_history_false_skips_only_the_replay() -> None:
    data = _tamper(_tamper(MID, "history", lambda h: h[:-1]), "seats", lambda s: s[:-1])
    game = Game.from_json(data, check_history=False)
    assert len(game.history) == len(MID["history"]) - 1
    bad = _tamper(MID, "state.round", 10**6)
    with pytest.raises(PositionError, match=r"state\.round"):
        Game.from_json(bad, check_history=False)


def test_json_and_positions_follow_the_variant_s_step_order() -> None:
    """ROUND-1: with store before fill, seats hold purchase cards while filling."""
    variant = cardshop.parse_variant(
        "extends: klunker-en\nname: store-first\nsteps: [store, fill, purchase, refill]\n"
    )
    game = cardshop.new_game(variant, 3, seed=9)
    rng = random.Random(9)
    seen_fill_with_cards = False
    for _ in range(120):
        if game.is_over:
            break
        assert Game.from_json(game.to_json()) == game
        if game.phase == Phase.FILL and all(game.purchase_cards):
            seen_fill_with_cards = True
            assert Game.from_position(game.to_position(), variant).purchase_cards == (
                game.purchase_cards
            )
        game.apply(rng.choice(game.legal_actions()))
    assert seen_fill_with_cards
    with pytest.raises(PositionError, match="store step comes before fill"):
        Game.from_position(pos(), variant)
