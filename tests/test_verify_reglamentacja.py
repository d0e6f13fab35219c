"""The Reglamentacja family's hooks for ``cardshop verify``: the state key, the clause
map and the shrinker, and the mini variant they are sized for."""

from __future__ import annotations

import random
import re
import typing
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import cardshop
from cardshop.core import ScriptedChance, SetupError, VariantBase, drawing_from
from cardshop.core.registry import get_family
from cardshop.reglamentacja.events import Event
from cardshop.reglamentacja.game import VERBS, ReglamentacjaGame
from cardshop.reglamentacja.variant import ReglamentacjaVariant
from cardshop.reglamentacja.verify import CLAUSES, VERIFY, shrink, state_key
from cardshop.testing.strategies import family_variants

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "variants" / "mini" / "reglamentacja-mini.yaml"
DIGEST = ROOT / "docs" / "reglamentacja-rules.md"
FAMILY = get_family("reglamentacja")


def _outcomes(make: Callable[[], ReglamentacjaGame]) -> Iterator[ReglamentacjaGame]:
    """Every outcome of the chance that ``make`` draws, each once."""
    script: list[int] | None = []
    while script is not None:
        source = ScriptedChance(script)
        with drawing_from(source):
            game = make()
        yield game
        script = source.next_script()


def _after(game: ReglamentacjaGame, action: object) -> Callable[[], ReglamentacjaGame]:
    def make() -> ReglamentacjaGame:
        child = game.clone()
        child.apply(action)  # type: ignore[arg-type]
        return child

    return make


def _new(variant: VariantBase, players: int) -> Callable[[], ReglamentacjaGame]:
    def make() -> ReglamentacjaGame:
        game = cardshop.new_game(variant, players, seed=0)
        assert isinstance(game, ReglamentacjaGame)
        return game

    return make


def _random_play(game: ReglamentacjaGame, rng: random.Random, steps: int) -> Iterator[None]:
    """Play up to ``steps`` random legal actions, yielding before each one."""
    for _ in range(steps):
        if game.is_over:
            return
        yield
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])


def _result(game: ReglamentacjaGame) -> tuple[object, ...] | None:
    """The result without its details (counters of the history, which the key leaves out)."""
    if not game.is_over:
        return None
    r = game.result()
    return (r.scores, r.ranks, r.winners, r.termination, r.rounds)


def _plain(value: object) -> bool:
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    return type(value) in (int, str)


def _look(game: ReglamentacjaGame) -> tuple[object, ...]:
    """Everything the key must decide: acting seats, legal actions by text, every
    seat's observation, the result."""
    legal = tuple(map(str, game.legal_actions())) if not game.is_over else ()
    observations = tuple(game.observation(s) for s in range(game.n))
    return (game.acting, legal, observations, _result(game))


# ------------------------------------------------------------------------ the key


def _assert_round_trips(game: ReglamentacjaGame, key: Hashable) -> None:
    """The key is plain data, and a clone, a JSON round trip and a position round trip
    of the game have it too."""
    assert _plain(key)
    hash(key)
    assert state_key(game.clone()) == key
    assert state_key(type(game).from_json(game.to_json())) == key
    assert state_key(FAMILY.game_from_position(game.to_position(), game.variant)) == key


@pytest.mark.parametrize("players", [3, 4, 5])
def test_key_is_kept_by_clone_json_and_position_round_trips(players: int) -> None:
    rng = random.Random(players)
    checked = 0
    for seed in range(2):
        game = cardshop.new_game("reglamentacja", players, seed=seed)
        assert isinstance(game, ReglamentacjaGame)
        for i, _ in enumerate(_random_play(game, rng, 160)):
            if i % 4:
                continue
            _assert_round_trips(game, state_key(game))
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
    """A breadth-first search of the mini variant; each state met again under a known key
    is compared with the first of its key (and, for some, their successors too)."""
    variant = cardshop.load_variant(MINI)
    first: dict[Hashable, ReglamentacjaGame] = {}
    todo: deque[ReglamentacjaGame] = deque()
    merged = successors_compared = 0
    verbs: set[str] = set()
    events: set[str] = set()

    def successors(game: ReglamentacjaGame) -> set[Hashable]:
        return {
            state_key(child)
            for action in game.legal_actions()
            for child in _outcomes(_after(game, action))
        }

    def meet(game: ReglamentacjaGame) -> None:
        nonlocal merged, successors_compared
        key = state_key(game)
        known = first.get(key)
        if known is None:
            first[key] = game
            todo.append(game)
            if len(first) % 20 == 0:  # every phase, dealt by every chance outcome
                _assert_round_trips(game, key)
            return
        if known is game:
            return
        merged += 1
        assert _look(game) == _look(known), key
        if not game.is_over:
            assert successors(game) == successors(known), key
            successors_compared += 1

    for game in _outcomes(_new(variant, 2)):
        meet(game)
    while todo:
        game = todo.popleft()
        if game.is_over:
            continue
        for action in game.legal_actions():
            verbs.add(str(action).split()[0])
            script: list[int] | None = []
            while script is not None:
                source = ScriptedChance(script)
                with drawing_from(source):
                    child = game.clone()
                    for event in child.apply(action):
                        events.add(type(event).__name__)
                script = source.next_script()
                meet(child)
    return len(first), merged, successors_compared, verbs, events


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
    assert set(CLAUSES) == event_names | set(VERBS)
    assert FAMILY.verify is VERIFY


# ---------------------------------------------------------------------- shrink


def _play_out(variant: VariantBase, players: int, seed: int) -> ReglamentacjaGame:
    game = cardshop.new_game(variant, players, seed=seed)
    assert isinstance(game, ReglamentacjaGame)
    rng = random.Random(seed)
    for _ in _random_play(game, rng, 500):
        pass
    return game


@pytest.mark.parametrize("players", [3, 4, 5])
def test_shrink_of_the_built_in_variant_loads_and_plays(players: int) -> None:
    base = cardshop.load_variant("reglamentacja")
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
