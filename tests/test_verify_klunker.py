"""The Klunker family's hooks for ``cardshop verify``: the state key, the clause map and
the shrinker, and the mini variants they are sized for."""

from __future__ import annotations

import random
import re
import typing
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import cardshop
from cardshop.core import SetupError, VariantBase, variant_from_data
from cardshop.core.game import Game as CoreGame
from cardshop.core.registry import get_family
from cardshop.invariants import invariants_of
from cardshop.klunker.events import Event
from cardshop.klunker.game import VERBS, Game
from cardshop.klunker.variant import Variant
from cardshop.klunker.verify import CLAUSES, VERIFY, shrink, state_key
from cardshop.testing.strategies import family_variants
from verify_support import Walk, assert_key_round_trips, plain, play_out, random_play

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "variants" / "mini" / "klunker-mini.yaml"
MILLION = ROOT / "variants" / "mini" / "klunker-million.yaml"
DIGEST = ROOT / "docs" / "rules.md"
FAMILY = get_family("klunker")
EDITIONS = ("klunker-en", "klunker-es", "klunker-zh")


def _result(game: CoreGame) -> tuple[object, ...] | None:
    if not game.is_over:
        return None
    r = game.result()
    return (r.scores, r.ranks, r.winners, r.termination, r.rounds, r.details)


def _look(game: CoreGame) -> tuple[object, ...]:
    """Everything the key must decide: the seat to act, legal actions by text, every
    seat's observation, the scores and the result."""
    legal = tuple(map(str, game.legal_actions()))
    observations = tuple(game.observation(s) for s in range(game.players))
    return (game.acting, legal, observations, game.scores(), _result(game))


# ------------------------------------------------------------------------ the key


@pytest.mark.parametrize(("name", "players"), [("klunker-en", 3), ("klunker-es", 5)])
def test_key_is_kept_by_clone_json_and_position_round_trips(name: str, players: int) -> None:
    rng = random.Random(players)
    checked = 0
    for seed in range(2):
        game = cardshop.new_game(name, players, seed=seed)
        assert isinstance(game, Game)
        for i, _ in enumerate(random_play(game, rng, 400)):
            if i % 5:
                continue
            assert plain(assert_key_round_trips(game, state_key))
            checked += 1
        assert game.is_over
        over = state_key(game)
        assert state_key(game.clone()) == over
        assert state_key(type(game).from_json(game.to_json())) == over
    assert checked >= 40


@given(family_variants("klunker", house_rules=True), st.data())
def test_key_is_kept_by_round_trips_under_any_rules(
    variant: VariantBase, data: st.DataObject
) -> None:
    # House rules too: rows sold in the score, several purchase turns, price expressions.
    players = data.draw(st.integers(variant.players.min, variant.players.max))
    if variant.match is not None:  # a match is a series of games; take its first game
        variant = variant_from_data({**variant.to_data(), "match": None})
    game = cardshop.new_game(variant, players, seed=data.draw(st.integers(0, 1000)))
    assert isinstance(game, Game)
    rng = random.Random(data.draw(st.integers(0, 1000)))
    for i, _ in enumerate(random_play(game, rng, 60)):
        if i % 3:
            continue
        assert_key_round_trips(game, state_key)


def _deck_swap(game: Game, same_kind: bool) -> Game:
    """A copy of ``game`` with two deck cards of one kind (or of two kinds) swapped."""
    deck = game._deck
    kind = game.rules.kind_of
    a, b = next(
        (x, y)
        for x in range(len(deck))
        for y in range(x + 1, len(deck))
        if (kind[deck[x]] == kind[deck[y]]) == same_kind
    )
    other = game.clone()
    other._deck[a], other._deck[b] = other._deck[b], other._deck[a]
    assert other._deck != game._deck
    return other


def test_key_tells_a_hidden_deck_order_apart_and_ignores_card_ids() -> None:
    game = cardshop.new_game("klunker-en", 3, seed=5)
    assert isinstance(game, Game)
    other = _deck_swap(game, same_kind=False)
    # Nobody sees the deck's order, yet the states differ.
    assert _look(other) == _look(game)
    assert state_key(other) != state_key(game)
    # Two cards of one kind trading places in the deck is the same state.
    assert state_key(_deck_swap(game, same_kind=True)) == state_key(game)


def test_key_tells_another_seats_hidden_hand_apart() -> None:
    game = cardshop.new_game("klunker-en", 3, seed=7)
    assert isinstance(game, Game)
    position = game.to_position()
    seats = [dict(s) for s in position["seats"]]
    hand = dict(seats[1]["hand"])
    deck = list(position["deck"])
    swap = next(kind for kind in deck if kind not in hand or hand[kind] < 6)
    given_up = next(kind for kind in hand if kind != swap)
    hand[given_up] -= 1
    hand = {k: c for k, c in hand.items() if c}
    hand[swap] = hand.get(swap, 0) + 1
    i = deck.index(swap)
    deck[i] = given_up
    seats[1]["hand"] = hand
    other = FAMILY.game_from_position({**position, "seats": seats, "deck": deck}, game.variant)
    assert other.observation(0) == game.observation(0)
    assert other.observation(2) == game.observation(2)
    assert other.observation(1) != game.observation(1)
    assert state_key(other) != state_key(game)


def _bank_swap(name: str, players: int) -> tuple[Game, Game]:
    """A game and a copy in which seats 0 and 1 swapped two cash cards of two kinds."""
    for seed in range(100):
        game = cardshop.new_game(name, players, seed=seed)
        assert isinstance(game, Game)
        kind = game.rules.kind_of
        banks = [[c for c, z in enumerate(game._where) if z == 3 * players + s] for s in (0, 1)]
        pair = next(((a, b) for a in banks[0] for b in banks[1] if kind[a] != kind[b]), None)
        if pair is None:
            continue
        other = game.clone()
        a, b = pair
        other._where[a], other._where[b] = other._where[b], other._where[a]
        other._check_counts()
        assert other.zone_counts("bank:0") != game.zone_counts("bank:0")
        return game, other
    raise AssertionError("no deal with cash cards of two kinds")


def test_key_counts_cash_faces_only_where_a_tax_can_spend_them() -> None:
    # Without a tax (the English rules) a cash card never leaves the banks: its face is
    # never read again, and the key keeps only the size of each bank.
    game, other = _bank_swap("klunker-en", 4)
    assert not game.rules.tax
    assert _look(other) == _look(game)
    assert state_key(other) == state_key(game)
    # The Spanish tax sends cash cards back to the deck (END-2): faces count there.
    game, other = _bank_swap("klunker-es", 5)
    assert game.rules.tax[5] > 0
    assert _look(other) == _look(game)
    assert state_key(other) != state_key(game)


def test_key_refuses_a_game_of_another_family() -> None:
    other = cardshop.new_game("reglamentacja", 3, seed=0)
    with pytest.raises(TypeError):
        state_key(other)


# ------------------------------------------------------------- the mini variants


def _mini_search() -> tuple[int, int, int, set[str], set[str]]:
    """A breadth-first walk of the mini variant; each state met again under a known key
    is compared with the first of its key (and, for some, their successors too)."""
    walk = Walk(cardshop.load_variant(MINI), 2, state_key)
    for _ in walk.agreeing(_look, every=100):
        pass
    return len(walk.first), walk.merged, walk.compared, walk.verbs, walk.events


def test_mini_variant_is_in_range_and_equal_keys_are_equal_states() -> None:
    variant = cardshop.load_variant(MINI)
    assert isinstance(variant, Variant)
    assert variant.players.min == variant.players.max == 2
    states, merged, compared, verbs, events = _mini_search()
    assert 2_000 <= states <= 30_000
    # Many states were reached again by other lines of play, deals or payments, and
    # each looked and played exactly as the first of its key.
    assert merged >= 10_000
    assert compared >= 50
    # Every verb is played and every event happens during play (the setup deals too).
    assert verbs == set(VERBS)
    assert events == {t.__name__ for t in typing.get_args(Event)}


def test_million_variant_loads_and_is_larger_than_the_mini() -> None:
    mini = cardshop.load_variant(MINI)
    big = cardshop.load_variant(MILLION)
    assert isinstance(mini, Variant)
    assert isinstance(big, Variant)
    assert big.players.min == big.players.max
    assert sum(big.cards.values()) >= sum(mini.cards.values())
    game = play_out(big, big.players.min, 3, 200)
    assert isinstance(game, Game)
    assert game.is_over
    assert game.round <= big.round_cap


# --------------------------------------------------------------------- clauses


def test_clauses_name_digest_clauses_and_cover_verbs_and_events() -> None:
    ids = set(re.findall(r"\*\*([A-Z]+-\d+)\*\*", DIGEST.read_text(encoding="utf-8")))
    assert len(ids) > 30
    for name, clauses in CLAUSES.items():
        assert clauses, name
        assert set(clauses) <= ids, name
    event_names = {t.__name__ for t in typing.get_args(Event)}
    assert set(CLAUSES) == event_names | set(VERBS) | {"setup"}
    assert FAMILY.verify is VERIFY


# ---------------------------------------------------------------------- shrink


def _problems(game: CoreGame) -> list[str]:
    """What the family's invariants find wrong with ``game``, if anything."""
    found = [inv.check(game) for inv in invariants_of(game)]
    return [f for f in found if f is not None]


@pytest.mark.parametrize("name", EDITIONS)
def test_shrink_of_each_edition_loads_and_plays(name: str) -> None:
    base = cardshop.load_variant(name)
    assert isinstance(base, Variant)
    for players in range(base.players.min, base.players.max + 1):
        small, lines = shrink(base, players)
        assert lines
        assert all(isinstance(line, str) and line for line in lines)
        assert isinstance(small, Variant)
        assert small.players.min == small.players.max == players
        assert len(small.cards) == 2 < len(base.cards)
        assert sum(small.cards.values()) < sum(base.cards.values())
        assert small.round_cap < base.round_cap
        assert small.match is None
        # A kind with a fixed payout keeps one (SELL-5).
        assert bool(small.sale.overrides) == bool(base.sale.overrides)
        again = cardshop.load_variant(small)
        for seed in range(3):
            game = play_out(again, players, seed, 2_000)
            assert game.is_over
            assert _problems(game) == []


def test_shrink_refuses_a_player_count_the_variant_does_not_play() -> None:
    base = cardshop.load_variant("klunker-en")
    with pytest.raises(SetupError):
        shrink(base, 2)
    with pytest.raises(SetupError):
        shrink(base, 6)


@given(family_variants("klunker", house_rules=True), st.data())
def test_shrink_of_any_variant_loads_and_plays(variant: VariantBase, data: st.DataObject) -> None:
    assert isinstance(variant, Variant)
    players = data.draw(st.integers(variant.players.min, variant.players.max))
    small, lines = shrink(variant, players)
    assert lines
    assert isinstance(small, Variant)
    assert len(small.cards) <= 2
    assert small.sale.set_size <= 2
    assert small.hand_size <= 2
    assert small.round_cap == 2
    assert small.steps == variant.steps
    game = play_out(small, players, data.draw(st.integers(0, 1000)), 2_000)
    assert game.is_over
