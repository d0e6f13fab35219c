"""The Reglamentacja family's hooks for ``cardshop verify``: the state key, the clause
map and the shrinker, and the mini variant they are sized for."""

from __future__ import annotations

import random
import re
import typing
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import cardshop
from cardshop.core import SetupError, VariantBase
from cardshop.core.game import Game
from cardshop.core.registry import get_family
from cardshop.reglamentacja.events import Event
from cardshop.reglamentacja.game import VERBS, ReglamentacjaGame
from cardshop.reglamentacja.variant import ReglamentacjaVariant
from cardshop.reglamentacja.verify import CLAUSES, VERIFY, shrink, state_key
from cardshop.testing.strategies import family_variants
from verify_support import Walk, assert_key_round_trips, plain, play_out, random_play

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "variants" / "mini" / "reglamentacja-mini.yaml"
DIGEST = ROOT / "docs" / "reglamentacja-rules.md"
FAMILY = get_family("reglamentacja")


def _result(game: Game) -> tuple[object, ...] | None:
    """The result without its details (counters of the history, which the key leaves out)."""
    if not game.is_over:
        return None
    r = game.result()
    return (r.scores, r.ranks, r.winners, r.termination, r.rounds)


def _look(game: Game) -> tuple[object, ...]:
    """Everything the key must decide: acting seats, legal actions by text, every
    seat's observation, the result."""
    legal = tuple(map(str, game.legal_actions())) if not game.is_over else ()
    observations = tuple(game.observation(s) for s in range(game.players))
    return (game.acting, legal, observations, _result(game))


# ------------------------------------------------------------------------ the key


@pytest.mark.parametrize("players", [3, 4, 5])
def test_key_is_kept_by_clone_json_and_position_round_trips(players: int) -> None:
    rng = random.Random(players)
    checked = 0
    for seed in range(2):
        game = cardshop.new_game("reglamentacja", players, seed=seed)
        assert isinstance(game, ReglamentacjaGame)
        for i, _ in enumerate(random_play(game, rng, 160)):
            if i % 4:
                continue
            assert plain(assert_key_round_trips(game, state_key))
            checked += 1
    assert checked >= 40


def test_key_tells_a_hidden_stamp_order_apart_and_ignores_stamp_ids() -> None:
    game = cardshop.new_game("reglamentacja", 3, seed=5)
    assert isinstance(game, ReglamentacjaGame)
    position = game.to_position()
    stack = list(position["stamp_stack"])
    i = next(j for j in range(1, len(stack)) if stack[j] != stack[0])
    swapped = {**position, "stamp_stack": [stack[i], *stack[1:i], stack[0], *stack[i + 1 :]]}
    other = FAMILY.game_from_position(swapped, game.variant)
    # Nobody sees the stack's order, yet the states differ.
    for seat in range(3):
        assert other.observation(seat) == game.observation(seat)
    assert state_key(other) != state_key(game)
    # Two stamps of one kind trading places in the stack is the same state.
    kind = game.rules.stamp_kind
    stack_ids = game._stack
    a, b = next(
        (x, y)
        for x in range(len(stack_ids))
        for y in range(x + 1, len(stack_ids))
        if kind[stack_ids[x]] == kind[stack_ids[y]]
    )
    same = game.clone()
    same._stack[a], same._stack[b] = same._stack[b], same._stack[a]
    assert same._stack != game._stack
    assert state_key(same) == state_key(game)


def test_key_tells_a_hidden_visit_apart() -> None:
    game = cardshop.new_game("reglamentacja", 3, seed=2)
    assert isinstance(game, ReglamentacjaGame)
    position = game.to_position()
    unused = [
        v.name for v in game.variant.visits if v.name not in {game.visit(s) for s in range(3)}
    ]
    seats = [dict(s) for s in position["seats"]]
    seats[1]["visit"] = unused[0]
    other = FAMILY.game_from_position({**position, "seats": seats}, game.variant)
    assert other.observation(0) == game.observation(0)
    assert state_key(other) != state_key(game)


# ------------------------------------------------------------ the mini variant


def _mini_search() -> tuple[int, int, int, set[str], set[str]]:
    """A breadth-first walk of the mini variant; each state met again under a known key
    is compared with the first of its key, and so are their successors."""
    walk = Walk(cardshop.load_variant(MINI), 2, state_key)
    for met in walk.agreeing(_look):
        if len(walk.first) % 20 == 0:  # every phase, dealt by every chance outcome
            assert plain(assert_key_round_trips(met.game, state_key))
    return len(walk.first), walk.merged, walk.compared, walk.verbs, walk.events


def test_mini_variant_is_in_range_and_equal_keys_are_equal_states() -> None:
    variant = cardshop.load_variant(MINI)
    assert isinstance(variant, ReglamentacjaVariant)
    assert variant.players.min == variant.players.max == 2
    states, merged, compared, verbs, events = _mini_search()
    assert 2_000 <= states <= 30_000
    # Many states were reached again by other lines of play, or with stamps of one kind
    # in other places, and each looked and played exactly as the first of its key.
    assert merged >= 1_000
    assert compared >= 1_000
    # Every verb is played and every event of play happens in the mini variant.
    assert verbs == set(VERBS)
    setup = {"RowDealt", "VisitDrawn", "QueueFormed"}
    assert events | setup == {t.__name__ for t in typing.get_args(Event)}


# --------------------------------------------------------------------- clauses


def test_clauses_name_digest_clauses_and_cover_verbs_and_events() -> None:
    ids = set(re.findall(r"\*\*(RG-[A-Z]+-\d+)\*\*", DIGEST.read_text(encoding="utf-8")))
    assert len(ids) > 30
    for name, clauses in CLAUSES.items():
        assert clauses, name
        assert set(clauses) <= ids, name
    event_names = {t.__name__ for t in typing.get_args(Event)}
    assert event_names <= set(CLAUSES)
    assert set(VERBS) <= set(CLAUSES)
    assert set(CLAUSES) == event_names | set(VERBS) | {"setup"}
    assert FAMILY.verify is VERIFY


# ---------------------------------------------------------------------- shrink


def _play_out(variant: VariantBase, players: int, seed: int) -> ReglamentacjaGame:
    game = play_out(variant, players, seed, 500)
    assert isinstance(game, ReglamentacjaGame)
    return game


@pytest.mark.parametrize("players", [3, 4, 5])
def test_shrink_of_the_built_in_variant_loads_and_plays(players: int) -> None:
    base = cardshop.load_variant("reglamentacja")
    assert isinstance(base, ReglamentacjaVariant)
    small, lines = shrink(base, players)
    assert lines
    assert all(isinstance(line, str) and line for line in lines)
    assert isinstance(small, ReglamentacjaVariant)
    assert small.players.min == small.players.max == players
    assert len(small.stamps) < len(base.stamps)
    assert small.turn_cap < base.turn_cap
    again = cardshop.load_variant(small)
    for seed in range(5):
        game = _play_out(again, players, seed)
        assert game.is_over
        assert not game.problems()


def test_shrink_refuses_a_player_count_the_variant_does_not_play() -> None:
    base = cardshop.load_variant("reglamentacja")
    with pytest.raises(SetupError):
        shrink(base, 2)
    with pytest.raises(SetupError):
        shrink(base, 6)


@given(family_variants("reglamentacja"), st.data())
def test_shrink_of_any_variant_loads_and_plays(variant: VariantBase, data: st.DataObject) -> None:
    assert isinstance(variant, ReglamentacjaVariant)
    players = data.draw(st.integers(variant.players.min, variant.players.max))
    small, lines = shrink(variant, players)
    assert lines
    assert isinstance(small, ReglamentacjaVariant)
    assert len(small.stamps) <= 2
    assert sum(small.stamps.values()) == players + 1
    assert (small.speculator is None) == (variant.speculator is None)
    assert small.queue_trading == variant.queue_trading
    game = _play_out(small, players, data.draw(st.integers(0, 1000)))
    assert game.is_over


@pytest.mark.parametrize(
    "change",
    [
        {"turn": 3},
        {"active": 0},
        {"queue": [1, 0, 2, "S"]},
        {"spin": 9},
        {"offer_turns": 1},
        {"discard": {"sugar": 1}},
    ],
)
def test_key_tells_apart_positions_that_differ_in_one_public_or_hidden_detail(
    change: dict[str, object],
) -> None:
    base = {
        "variant": "reglamentacja",
        "phase": "trade",
        "turn": 2,
        "active": 2,
        "queue": [0, 1, 2, "S"],
        "spin": 8,
        "offer_turns": 0,
        "seats": [{"hand": {"meat": 2}}, {"hand": {"flour": 2}}, {"hand": {"soap": 3}}],
    }
    variant = cardshop.load_variant("reglamentacja")
    game = FAMILY.game_from_position(base, variant)
    other = FAMILY.game_from_position({**base, **change}, variant)
    assert state_key(other) != state_key(game)
    assert state_key(FAMILY.game_from_position(dict(base), variant)) == state_key(game)
