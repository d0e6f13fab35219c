"""The Wühltisch engine under random and greedy joint play: invariants at every tick,
copies and round trips, refused ticks, hidden information, determinism, the family."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from cardshop import GameStateError, IllegalActionError, PositionError, SetupError
from cardshop.core.registry import get_family
from cardshop.wuhltisch import (
    FAMILY,
    INVARIANTS,
    WuhltischGame,
    WuhltischGreedyBot,
    WuhltischVariant,
    action_space,
    event_from_dict,
    event_to_dict,
    load_wuhltisch,
    new_game,
    observation_encoder,
    parse_wuhltisch,
    render,
    sample,
    state_problems,
)

ROOT = Path(__file__).resolve().parents[1]
V = load_wuhltisch()


def short_variant(**changes: Any) -> WuhltischVariant:
    data = yaml.safe_load((ROOT / "variants" / "wuhltisch.yaml").read_text(encoding="utf-8"))
    data.update({"rounds": 2, "round_ticks": 120, **changes})
    return parse_wuhltisch(yaml.safe_dump(data, sort_keys=False))


SHORT = short_variant()


def check(game: WuhltischGame) -> None:
    for inv in INVARIANTS:
        problem = inv.check(game)
        assert problem is None, f"{inv.name}: {problem}"


def joint(
    game: WuhltischGame, rng: random.Random, bots: dict[int, WuhltischGreedyBot]
) -> dict[int, Any]:
    out: dict[int, Any] = {}
    for s in game.acting:
        legal = game.legal_actions(s)
        bot = bots.get(s)
        out[s] = bot.choose(game.observation(s), legal) if bot else rng.choice(legal)
    return out


def play(seed: int, players: int, greedy: int, variant: WuhltischVariant = SHORT) -> WuhltischGame:
    game = new_game(variant, players, seed=seed)
    rng = random.Random(seed)
    bots = {s: WuhltischGreedyBot(variant, seed + s) for s in range(greedy)}
    while not game.is_over:
        game.apply_joint(joint(game, rng, bots))
    return game


@pytest.mark.parametrize(("players", "greedy"), [(2, 0), (3, 3), (4, 2), (5, 1)])
def test_random_and_greedy_playouts_keep_every_invariant(players: int, greedy: int) -> None:
    for seed in range(3):
        game = new_game(SHORT, players, seed=seed)
        rng = random.Random(seed)
        bots = {s: WuhltischGreedyBot(SHORT, s) for s in range(greedy)}
        check(game)
        while not game.is_over:
            events = game.apply_joint(joint(game, rng, bots))
            for event in events:
                assert event_from_dict(event_to_dict(event)) == event
                assert str(event)
            check(game)
        assert not state_problems(game)
        result = game.result()
        assert result.scores == game.scores()
        assert result.rounds == 2
        assert result.details["ticks"] == game.ticks


def test_greedy_bots_call_rounds_and_beat_random_play() -> None:
    greedy_total = random_total = calls = 0
    for seed in range(4):
        game = play(seed, 2, 1)
        scores = game.result().scores
        greedy_total += scores[0]
        random_total += scores[1]
        calls += len([c for c in game._callers if c])
    assert greedy_total > random_total
    assert calls > 0


def test_clone_is_equal_and_independent_and_round_trips() -> None:
    game = new_game(SHORT, 3, seed=11)
    rng = random.Random(1)
    bots = {0: WuhltischGreedyBot(SHORT, 0)}
    for i in range(150):
        if game.is_over:
            break
        copy = game.clone()
        assert copy == game
        if i % 10 == 0:
            assert WuhltischGame.from_json(game.to_json()) == game
            assert FAMILY.game_from_dict(game.to_dict()) == game
            # Positions name cards, so copies (the seven useless lost property cards)
            # may swap ids: the round trip is exact by names.
            again = WuhltischGame.from_position(game.to_position(), SHORT)
            assert again.to_position() == game.to_position()
        acts = joint(game, rng, bots)
        game.apply_joint(acts)
        assert copy != game or all(str(a) == "wait" for a in acts.values())
        copy.apply_joint(acts)
        assert copy == game


def test_illegal_joint_actions_change_nothing() -> None:
    game = new_game(V, 3, seed=2)
    game.apply_joint({0: "look", 1: "look", 2: "wait"})
    before = game.to_json()
    bad: list[dict[Any, Any]] = [
        {0: "look", 1: "look", 2: "wait"},  # seats 0 and 1 have a shirt in view
        {0: "throw", 1: "throw"},  # seat 2 missing
        {0: "throw", 1: "throw", 2: "wait", 3: "wait"},
        {0: "throw", True: "throw", 2: "wait"},
        {0: "throw", 1: "throw", 2: "drop 0"},
        {0: "throw", 1: "throw", 2: "fly"},
        {0: "throw", 1: "throw", 2: ("wait", None)},
    ]
    for acts in bad:
        with pytest.raises((IllegalActionError, GameStateError, ValueError)):
            game.apply_joint(acts)
        assert game.to_json() == before


def test_observation_does_not_change_when_only_hidden_things_differ() -> None:
    game = play_until(new_game(V, 4, seed=5), 40)
    rng = random.Random(3)
    for seat in range(4):
        obs = game.observation(seat)
        for _ in range(5):
            sampled = sample(obs, V, rng)
            assert sampled.observation(seat) == obs
            assert not state_problems(sampled)
    # Shuffling the heap or another seat's hand changes nothing seat 0 sees.
    other = game.clone()
    other._heap.reverse()
    assert other.observation(0) == game.observation(0)


def play_until(game: WuhltischGame, ticks: int) -> WuhltischGame:
    rng = random.Random(game.seed)
    bots = {s: WuhltischGreedyBot(game.variant, s) for s in range(game.n)}
    for _ in range(ticks):
        game.apply_joint(joint(game, rng, bots))
    return game


def test_the_same_seed_plays_the_same_game() -> None:
    a = play(7, 3, 2)
    b = play(7, 3, 2)
    assert a.to_json() == b.to_json()
    assert a.moves == b.moves
    assert play(8, 3, 2).to_json() != a.to_json()


def test_bad_json_and_positions_are_refused() -> None:
    game = new_game(V, 2, seed=1)
    data = game.to_dict()
    data["state"]["heap"] = data["state"]["heap"][1:]
    with pytest.raises(PositionError, match="cards in no zone"):
        WuhltischGame.from_dict(data)
    data = game.to_dict()
    data["state"]["hands"][0] = data["state"]["heap"][:4]
    with pytest.raises(PositionError):
        WuhltischGame.from_dict(data)
    with pytest.raises(PositionError):
        WuhltischGame.from_json("[1, 2")
    pos = game.to_position()
    pos["seats"][0]["hand"] = pos["heap"][:4]
    with pytest.raises(PositionError):
        WuhltischGame.from_position(pos, V)
    with pytest.raises(PositionError, match="unknown card"):
        WuhltischGame.from_position({"seats": [{"face_up": "list:nope"}, {}]}, V)


def test_family_registry_spaces_encoder_and_render() -> None:
    assert get_family("wuhltisch") is FAMILY
    space = list(action_space(V, 4))
    assert [str(a) for a in space[:5]] == ["look", "keep", "throw", "buy", "wait"]
    assert len(space) == len(set(space)) == 11
    game = play_until(new_game(V, 4, seed=3), 25)
    encoder = observation_encoder(V, 4)
    for seat in range(4):
        assert set(game.legal_actions(seat)) <= set(space)
        vec = encoder.encode(game.observation(seat))
        assert len(vec) == len(encoder.labels) == len(encoder.low) == len(encoder.high)
        assert all(lo <= x <= hi for x, lo, hi in zip(vec, encoder.low, encoder.high, strict=True))
    text = render(game, 1)
    assert "seat 1 (you)" in text
    assert "heap" not in text
    assert "heap: " in render(game, None)


@given(st.data())
def test_hypothesis_joint_actions_keep_invariants(data: st.DataObject) -> None:
    players = data.draw(st.integers(2, 5), label="players")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    variant = short_variant(round_ticks=data.draw(st.integers(1, 30), label="round_ticks"))
    game = new_game(variant, players, seed=seed)
    for _ in range(data.draw(st.integers(1, 60), label="ticks")):
        if game.is_over:
            break
        acts = {s: data.draw(st.sampled_from(game.legal_actions(s))) for s in game.acting}
        copy = game.clone()
        game.apply_joint(acts)
        check(game)
        copy.apply_joint(acts)
        assert copy == game


def test_the_core_driver_plays_it_with_greedy_bots_and_the_tick_buffer() -> None:
    from cardshop import driver

    game = new_game(SHORT, 3, seed=4)
    bots = [WuhltischGreedyBot(SHORT, s) for s in range(3)]
    steps: list[driver.Step] = []
    driver.play(game, bots, on_step=steps.append, max_steps=1000)
    assert game.is_over
    assert len(steps) == game.ticks
    assert all(sorted(s.actions) == [0, 1, 2] for s in steps)
    game = new_game(SHORT, 2, seed=5)
    buffer = driver.TickBuffer(game)
    assert buffer.submit(1, "look") is None
    events = buffer.submit(0, "wait")
    assert events is not None
    assert type(events[0]).__name__ == "Looked"
    assert game.tick == 1
    assert game.observation(1).view >= 0


def test_events_in_words_hide_other_seats_private_cards() -> None:
    """``describe_event``: everything for ``None``; for a seat, its own cards by face and
    another seat's private cards (looked at, held, thrown, laid down) not at all."""
    from cardshop import driver, load_variant, new_game
    from cardshop.bots import RandomBot
    from cardshop.wuhltisch import events as ev

    variant = load_variant("wuhltisch")
    game = new_game(variant, 3, seed=11)
    seen: list[Any] = []
    bots = [RandomBot(s) for s in range(3)]
    while not game.is_over and len(seen) < 3000:
        seen.extend(driver.step(game, bots).events)
    private = (ev.Looked, ev.Kept, ev.Swapped, ev.Threw, ev.Dropped, ev.LaidDown, ev.ReturnedToHeap)
    kinds = {type(e) for e in seen}
    assert {ev.Looked, ev.Kept, ev.Threw, ev.FoundLostProperty} <= kinds
    describe = get_family("wuhltisch").describe_event
    assert describe is ev.describe_event
    for event in seen:
        everything = describe(variant, event, None)
        assert everything.count("#") == str(event).count("#")
        for seat in range(3):
            text = describe(variant, event, seat)
            if isinstance(event, private) and event.seat != seat:
                assert "#" not in text, text
            else:
                assert text == everything


def test_new_game_takes_a_name_and_refuses_a_first_player() -> None:
    """The family's new_game takes a built-in name as Klunker's does, and the core's
    Engine.new refuses a first player for a family that names none (no seat starts)."""
    game = new_game("wuhltisch", 3, 7)
    assert game.to_dict() == new_game(V, 3, 7).to_dict()
    assert game.setup_options() == {}
    with pytest.raises(SetupError, match="takes no option 'first_player'"):
        WuhltischGame.new(V, 3, 7, first_player=1)
    with pytest.raises(SetupError, match=r"'klunker-en' is a variant of the 'klunker' family"):
        new_game("klunker-en", 3, 7)
    with pytest.raises(SetupError, match="not a variant of the 'wuhltisch' family: dict"):
        WuhltischVariant.of_family({"family": "wuhltisch"})
