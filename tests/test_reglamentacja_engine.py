"""The Reglamentacja engine as a whole: playouts with invariants, round trips, hidden
information, determinism, hostile input, the family object, bots and the sampler."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardshop import (
    ActionParseError,
    GameStateError,
    IllegalActionError,
    PositionError,
    SetupError,
)
from cardshop.core.actions import Action
from cardshop.core.game import Dynamics
from cardshop.core.registry import get_family
from cardshop.core.source import load_yaml
from cardshop.driver import play
from cardshop.reglamentacja import (
    FAMILY,
    INVARIANTS,
    ReglamentacjaGame,
    ReglamentacjaGreedyBot,
    ReglamentacjaVariant,
    action_space,
    event_from_dict,
    event_to_dict,
    new_game,
    observation_encoder,
    render,
    sample,
)

ROOT = Path(__file__).resolve().parents[1]
VARIANT_FILE = ROOT / "variants" / "reglamentacja.yaml"
BASE: dict[str, Any] = load_yaml(VARIANT_FILE.read_text(encoding="utf-8"), "v").data
V = ReglamentacjaVariant.model_validate(BASE)


def variant(**over: Any) -> ReglamentacjaVariant:
    v = ReglamentacjaVariant.model_validate({**BASE, **over})
    assert v.semantic_errors() == []
    return v


def check_invariants(game: ReglamentacjaGame) -> None:
    for inv in INVARIANTS:
        problem = inv.check(game)
        assert problem is None, f"{inv.name}: {problem}"


def random_action(game: ReglamentacjaGame, rng: random.Random) -> Action:
    legal = game.legal_actions()
    offers = [a for a in legal if a.verb == "offer"]
    other = [a for a in legal if a.verb != "offer"]
    if offers and (not other or rng.random() < 0.35):
        return rng.choice(offers)
    return rng.choice(other)


def playout(game: ReglamentacjaGame, rng: random.Random, check: bool = True) -> int:
    steps = 0
    while not game.is_over:
        game.apply(random_action(game, rng))
        steps += 1
        if check:
            check_invariants(game)
    return steps


# ------------------------------------------------------------------ playouts


@pytest.mark.parametrize("seed", range(6))
def test_random_playouts_keep_every_invariant(seed: int) -> None:
    game = new_game(V, 3 + seed % 3, seed=seed)
    check_invariants(game)
    playout(game, random.Random(seed))
    result = game.result()
    assert result.termination.value in ("finished", "capped")
    assert result.rounds == game.turn  # a game's length in turns
    assert set(result.details) == set(game.stats)  # no length repeated among them
    assert sum(result.details[k] for k in ("speculator_buys",)) == len(game.card_zones()["removed"])


def test_the_invariants_catch_a_lost_stamp_and_a_doubled_card() -> None:
    game = new_game(V, 3, seed=1)
    broken = game.clone()
    broken._swhere[0] = 99
    assert INVARIANTS[0].check(broken) is not None
    doubled = game.clone()
    doubled._row[0] = doubled._row[1]
    assert INVARIANTS[1].check(doubled) is not None
    queue = game.clone()
    queue._queue.append(0)
    assert any(inv.check(queue) for inv in INVARIANTS if inv.name == "queue")


def test_small_trade_limits_and_caps_end_every_game() -> None:
    v = variant(max_trade=1, turn_cap=25, spin={"min": 1, "max": 3})
    for seed in range(10):
        game = new_game(v, 3 + seed % 3, seed=seed)
        playout(game, random.Random(seed))
        assert game.turn <= 26
        if game.result().termination.value == "capped":
            assert game.turn == 25


# ---------------------------------------------------------------- round trips


def test_clone_json_and_positions_round_trip_mid_game() -> None:
    rng = random.Random(7)
    game = new_game(V, 4, seed=7)
    for i in range(250):
        if game.is_over:
            break
        if i % 10 == 0:
            copy = game.clone()
            assert copy == game
            assert ReglamentacjaGame.from_json(game.to_json()) == game
            assert ReglamentacjaGame.from_dict(json.loads(json.dumps(game.to_dict()))) == game
            pos = game.to_position()
            again = ReglamentacjaGame.from_position(pos, V)
            assert again.to_position() == pos
            for seat in range(4):
                assert again.observation(seat) == game.observation(seat)
            assert again.legal_actions() == game.legal_actions()
            # The clone is independent.
            if not copy.is_over:
                copy.apply(copy.legal_actions()[-1])
                assert copy != game or copy.to_json() != game.to_json()
        game.apply(random_action(game, rng))
    restored = ReglamentacjaGame.from_json(game.to_json())
    assert restored.moves == game.moves


def test_same_seed_same_game_and_different_seeds_differ() -> None:
    short = variant(turn_cap=12)

    def run(seed: int) -> str:
        game = new_game(short, 4, seed=seed)
        playout(game, random.Random(1), check=False)
        return game.to_json()

    assert run(3) == run(3)
    assert run(3) != run(4)


# ------------------------------------------------------------- illegal actions


def test_illegal_actions_change_nothing() -> None:
    rng = random.Random(5)
    game = new_game(V, 3, seed=5)
    space = action_space(V, 3)
    for _ in range(120):
        if game.is_over:
            break
        legal = set(game.legal_actions())
        before = game.to_json()
        for action in rng.sample(list(space), 30):
            if action in legal:
                continue
            with pytest.raises(IllegalActionError):
                game.apply(action)
            assert game.to_json() == before
            assert not game.is_legal(action)
        for text in ("offer", "buy 0", "buy x", "speculate draw soap", "pass now", "x" * 400):
            with pytest.raises(ActionParseError):
                game.apply(text)
        assert game.to_json() == before
        for action in rng.sample(sorted(legal), min(25, len(legal))):
            assert game.is_legal(action)
        game.apply(random_action(game, rng))
    seat = game.current_player
    if seat is not None:
        with pytest.raises(GameStateError):
            game.apply("pass", (seat + 1) % 3)


# ------------------------------------------------------------ hidden information


def test_observations_do_not_leak_hidden_information() -> None:
    rng = random.Random(9)
    game = new_game(V, 4, seed=9)
    for i in range(150):
        if game.is_over:
            break
        if i % 15 == 0:
            for seat in range(4):
                obs = game.observation(seat)
                for k in range(3):
                    other = sample(obs, V, random.Random(k))
                    assert other.observation(seat) == obs
                    assert other.legal_actions() == game.legal_actions() or (
                        game.current_player != seat
                    )
        game.apply(random_action(game, rng))


def test_the_sampler_varies_what_is_hidden() -> None:
    game = new_game(V, 4, seed=2)
    obs = game.observation(0)
    hands = {json.dumps(sample(obs, V, random.Random(k)).to_position()["seats"]) for k in range(8)}
    assert len(hands) > 1
    over = ReglamentacjaGame.from_position(
        {"phase": "over", "termination": "finished", "seats": [{}, {}, {}]}, V
    )
    with pytest.raises(GameStateError):
        sample(over.observation(0), V, random.Random(0))


# ---------------------------------------------------------------- hostile input


def test_hostile_game_data_is_refused() -> None:
    game = new_game(V, 3, seed=1)
    good = game.to_dict()

    def broken(change: Any) -> dict[str, Any]:
        data = json.loads(json.dumps(good))
        change(data)
        return data

    cases = [
        lambda d: d["state"].__setitem__("stamps", d["state"]["stamps"][:-1]),
        lambda d: d["state"].__setitem__("active", True),
        lambda d: d["state"]["stamps"].__setitem__(0, 3 + 5),
        lambda d: d["state"]["row"].__setitem__(0, d["state"]["row"][1]),
        lambda d: d["state"]["queue"].__setitem__(0, d["state"]["queue"][1]),
        lambda d: d["state"].__setitem__("phase", "nap"),
        lambda d: d["state"].__setitem__("spin", 99),
        lambda d: d.__setitem__("players", 9),
        lambda d: d.__setitem__("variant_hash", "x"),
        lambda d: d["variant"].__setitem__("row_size", 999),
        lambda d: d.__setitem__("extra", 1),
        lambda d: d["state"].__setitem__("stamp_stack", list(range(10**4))),
        lambda d: d["state"].__setitem__("pending", "offer 0 give soap"),
    ]
    for change in cases:
        with pytest.raises(PositionError):
            ReglamentacjaGame.from_dict(broken(change))
    with pytest.raises(PositionError):
        ReglamentacjaGame.from_json("[" * 10000)
    with pytest.raises(PositionError):
        ReglamentacjaGame.from_position("seats: [", V)


# ------------------------------------------------------------------ family


def test_the_family_is_registered_and_complete() -> None:
    family = get_family("reglamentacja")
    assert family is FAMILY
    assert family.dynamics is Dynamics.SEQUENTIAL
    assert family.variant_model is ReglamentacjaVariant
    game = family.new_game(V, 3, seed=1)
    assert isinstance(game, ReglamentacjaGame)
    assert game.dynamics is Dynamics.SEQUENTIAL
    assert family.game_from_dict(game.to_dict()) == game
    assert family.game_from_position(game.to_position(), V).to_position() == game.to_position()
    assert family.invariants[0].name == "stamp-conservation"
    assert "greedy" in family.bots


def test_events_round_trip_and_read_as_one_line() -> None:
    game = new_game(V, 3, seed=4)
    rng = random.Random(4)
    seen: set[str] = set()
    while not game.is_over:
        for event in game.apply(random_action(game, rng)):
            data = event_to_dict(event)
            assert event_from_dict(json.loads(json.dumps(data))) == event
            text = str(event)
            assert text
            assert "\n" not in text
            seen.add(type(event).__name__)
    assert {"Offered", "TurnBegan", "GameEnded", "TopPassed"} <= seen
    with pytest.raises(Exception, match="unknown event"):
        event_from_dict({"type": "Nope"})


def test_observation_encoder_has_bounded_numbers() -> None:
    for n in (3, 5):
        enc = observation_encoder(V, n)
        assert len(enc.labels) == len(enc.low) == len(enc.high) == len(set(enc.labels))
        game = new_game(V, n, seed=n)
        rng = random.Random(n)
        for _ in range(200):
            if game.is_over:
                break
            for seat in range(n):
                values = enc.encode(game.observation(seat))
                assert len(values) == len(enc.labels)
                for label, x, lo, hi in zip(enc.labels, values, enc.low, enc.high, strict=True):
                    assert lo <= x <= hi, label
            game.apply(random_action(game, rng))


def test_render_shows_the_table_and_hides_other_hands() -> None:
    game = ReglamentacjaGame.from_position(
        {
            "phase": "trade",
            "spin": 6,
            "active": 0,
            "seats": [{"hand": {"meat": 2}}, {"hand": {"soap": 1}}, {}],
            "pending": "offer 1 give meat take soap",
        },
        V,
    )
    text = render(game, 1)
    assert "Seat 0 offers seat 1: meat x2" not in text
    assert "Seat 0 offers seat 1: meat for soap" in text
    assert "accept or reject" in text
    assert "(soap)" in text
    assert "(meat x2)" not in text
    assert "(meat x2)" in render(game, None)


# --------------------------------------------------------------------- bots


def test_greedy_bots_play_whole_games_through_the_driver() -> None:
    for n in (3, 4, 5):
        game = new_game(V, n, seed=n)
        bots = [ReglamentacjaGreedyBot(V, seed) for seed in range(n)]
        play(game, bots)
        assert game.is_over
        check_invariants(game)
        result = game.result()
        assert sum(len(game.bought(s)) for s in range(n)) > 0
        assert result.details["offers"] > 0


def test_greedy_bot_buys_accepts_good_trades_and_rejects_bad_ones() -> None:
    bot = ReglamentacjaGreedyBot(V, 0)
    row = ["cheesecake", "buffet", "brownie", "meat-balls", "great-laundry", "tea-sugar"]
    shop = ReglamentacjaGame.from_position(
        {
            "phase": "shop",
            "active": 1,
            "queue": [2, 0, "S", 1],
            "row": row,
            "seats": [{}, {}, {"hand": {"flour": 3, "sugar": 4}}],
        },
        V,
    )
    assert bot.choose(shop.observation(2), shop.legal_actions()).verb == "buy"
    cases = (
        ("flour", "soap", {"flour": 1, "sugar": 1, "soap": 1}, "accept"),  # completes a card
        ("soap", "flour", {"flour": 2, "sugar": 1}, "reject"),  # breaks a complete card
    )
    for give, take, hand, want in cases:
        game = ReglamentacjaGame.from_position(
            {
                "phase": "trade",
                "spin": 6,
                "active": 0,
                "row": row,
                "seats": [
                    {"hand": {give: 1}},
                    {"hand": hand, "visit": "rendezvous-with-friends"},
                    {},
                ],
                "pending": f"offer 1 give {give} take {take}",
            },
            V,
        )
        assert bot.choose(game.observation(1), game.legal_actions()) == Action(want)


# --------------------------------------------------------------- hypothesis

KINDS = ["sugar", "meat", "flour", "alcohol", "butter", "soap", "chocolate"]


@st.composite
def variants(draw: st.DrawFn) -> ReglamentacjaVariant:
    k = draw(st.integers(2, 5))
    kinds = KINDS[:k]
    copies = draw(st.lists(st.integers(3, 7), min_size=k, max_size=k))
    row = draw(st.integers(2, 5))
    n_cards = draw(st.integers(row, row + 8))
    cards = []
    for i in range(n_cards):
        cost = draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=3))
        cards.append(
            {
                "name": f"card-{i}",
                "cost": cost,
                "category": draw(st.sampled_from(["a", "b", "c"])),
                "icons": draw(st.integers(1, 4)),
            }
        )
    lo = draw(st.integers(1, 4))
    max_players = draw(st.integers(3, 4))
    deal = draw(st.integers(0, min(3, sum(copies) // max_players)))
    data = {
        "family": "reglamentacja",
        "name": "generated",
        "players": {"min": 3, "max": max_players},
        "stamps": dict(zip(kinds, copies, strict=True)),
        "categories": ["a", "b", "c"],
        "cards": cards,
        "visits": [
            {"name": "ab", "double": ["a", "b"]},
            {"name": "bc", "double": ["b", "c"]},
            {"name": "ca", "double": ["c", "a"]},
            {"name": "a", "double": ["a"]},
        ],
        "row_size": row,
        "deal": deal,
        "hand_limit": draw(st.integers(2, 6)),
        "spin": {"min": lo, "max": lo + draw(st.integers(0, 4))},
        "max_trade": draw(st.integers(1, 2)),
        "speculator": {"die_sides": draw(st.integers(1, row)), "price": draw(st.integers(1, 2))},
        "final_stamps": draw(st.integers(0, 3)),
        "turn_cap": 30,
    }
    v = ReglamentacjaVariant.model_validate(data)
    assert v.semantic_errors() == []
    return v


@given(v=variants(), seed=st.integers(0, 2**32), players=st.integers(3, 4))
def test_generated_variants_play_through_with_invariants(
    v: ReglamentacjaVariant, seed: int, players: int
) -> None:
    players = min(players, v.players.max)
    game = new_game(v, players, seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not game.is_over and steps < 300:
        action = random_action(game, rng)
        assert game.parse_action(str(action)) == action
        game.apply(action)
        check_invariants(game)
        steps += 1
        if steps % 50 == 0:
            assert ReglamentacjaGame.from_json(game.to_json()) == game


def test_semantic_errors_name_the_key() -> None:
    bad = {**BASE, "cards": [{**BASE["cards"][0], "cost": ["salt", "meat"]}, *BASE["cards"][1:]]}
    errors = ReglamentacjaVariant.model_validate(bad).semantic_errors()
    assert (("cards", 0, "cost", 0)) in [path for path, _ in errors]
    few = ReglamentacjaVariant.model_validate({**BASE, "visits": BASE["visits"][:4]})
    assert any(path == ("visits",) for path, _ in few.semantic_errors())
    tiny = ReglamentacjaVariant.model_validate({**BASE, "stamps": {"sugar": 5, "meat": 5}})
    assert any(path == ("stamps",) for path, _ in tiny.semantic_errors())
    with pytest.raises(Exception, match="whole number from 1 to 4"):
        ReglamentacjaVariant.model_validate({**BASE, "max_trade": 40})


# ------------------------------------------------------------------ boundary


def test_apply_joint_takes_the_one_acting_seat() -> None:
    game = new_game(V, 3, seed=6)
    seat = game.current_player
    assert seat is not None
    assert game.acting == (seat,)
    before = game.to_json()
    with pytest.raises(GameStateError):
        game.apply_joint({(seat + 1) % 3: Action("pass")})
    assert game.to_json() == before
    events = game.apply_joint({seat: Action("pass")})
    assert events
    assert game.moves[-1].seat == seat


def test_first_player_through_new_game_and_replay() -> None:
    """RG-SETUP-4: the first player can be chosen through cardshop.new_game and
    cardshop.replay, and it heads the queue."""
    import cardshop

    for first in range(4):
        game = cardshop.new_game("reglamentacja", players=4, seed=9, first_player=first)
        assert game.first_player == first
        assert game.to_position()["queue"][0] == first
        rng = random.Random(first)
        for _ in range(30):
            game.apply(random_action(game, rng))
        again = cardshop.replay("reglamentacja", 4, 9, first, [m.action for m in game.moves])
        assert again == game
    with pytest.raises(cardshop.SetupError):
        cardshop.new_game("reglamentacja", players=4, seed=9, first_player=4)


def test_new_game_takes_a_name_and_refuses_another_familys_variant() -> None:
    """The family's new_game takes a built-in name, as Klunker's does, and refuses a
    variant of another family by name (SetupError, through VariantBase.of_family)."""
    assert new_game("reglamentacja", 4, seed=9, first_player=2) == new_game(V, 4, 9, 2)
    with pytest.raises(SetupError, match=r"'wuhltisch' is a variant of the 'wuhltisch'"):
        new_game("wuhltisch", 4, seed=9)


def test_a_position_beyond_the_turn_cap_is_refused() -> None:
    """RG-CAP-1: no turn lies beyond the cap (the final turn counts as one more)."""
    game = new_game(V, 3, seed=4)
    position = game.to_position()
    cap = game.rules.turn_cap
    at_cap = ReglamentacjaGame.from_position({**position, "turn": cap})
    assert at_cap.turn == cap
    with pytest.raises(PositionError, match="turn_cap"):
        ReglamentacjaGame.from_position({**position, "turn": cap + 1})
    with pytest.raises(PositionError, match="turn_cap"):
        ReglamentacjaGame.from_position({**position, "turn": 10**5})
