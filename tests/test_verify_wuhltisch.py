"""The Wühltisch family's hooks for ``cardshop verify``: the state key, the clause
table and the shrinking of a variant; and the mini variant's size under the key."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import cardshop
from cardshop import get_family
from cardshop.core import ScriptedChance, builtin_variants, drawing_from, load_variant
from cardshop.core.game import Game
from cardshop.verify._search import Step
from cardshop.wuhltisch.events import CODEC
from cardshop.wuhltisch.game import VERBS, WuhltischGame
from cardshop.wuhltisch.verify import CLAUSES, VERIFY, card_kinds, shrink, state_key
from verify_support import Walk, assert_key_round_trips, play_out, random_play

ROOT = Path(__file__).resolve().parent.parent
MINI = ROOT / "variants" / "mini" / "wuhltisch-mini.yaml"
DIGEST = ROOT / "docs" / "wuhltisch-rules.md"


def _mini() -> Any:
    return load_variant(MINI)


def _relabelled(game: WuhltischGame, seat: int) -> tuple[Any, ...]:
    """The seat's observation with every card id written as its kind."""
    kind = card_kinds(game.rules)
    obs = game.observation(seat)

    def k(card: int) -> int:
        return kind[card] if card >= 0 else -1

    return obs._replace(
        lists=tuple(k(c) for c in obs.lists),
        found=tuple(tuple(k(c) for c in f) for f in obs.found),
        last_sets=tuple(tuple(tuple(k(c) for c in st) for st in ss) for ss in obs.last_sets),
        last_found=tuple(tuple(k(c) for c in f) for f in obs.last_found),
        view=k(obs.view),
        hand=tuple(k(c) for c in obs.hand),
    )


def _result(game: WuhltischGame) -> Any:
    return game.result() if game.is_over else None


def _first_outcome_key(game: WuhltischGame, step: Step) -> Hashable:
    """The key after ``step`` from a copy of ``game`` with every chance choice the first."""
    child = game.clone()
    with drawing_from(ScriptedChance([])):
        child.apply_joint(step)
    return state_key(child)


def _same_state(walk: Walk, a: WuhltischGame, b: WuhltischGame) -> None:
    """Two games of one key: the same actions, observations, result; and the same
    step from each (the same joint action, the same chance choices) gives one key."""
    assert a.acting == b.acting
    for seat in range(a.n):
        assert [str(x) for x in a.legal_actions(seat)] == [str(x) for x in b.legal_actions(seat)]
        assert _relabelled(a, seat) == _relabelled(b, seat)
    assert _result(a) == _result(b)
    if a.is_over:
        return
    for step in itertools.islice(walk.search.steps(a), 4):
        assert _first_outcome_key(a, step) == _first_outcome_key(b, step)


@dataclass
class MiniSearch:
    """The mini variant walked: its states, how many merged ones were compared with the
    first of their key, and the verbs played and events met (the deals' too)."""

    seen: dict[Hashable, Game]
    checked: int
    verbs: set[str]
    events: set[str]


@pytest.fixture(scope="module")
def mini_search() -> MiniSearch:
    walk = Walk(load_variant(MINI), 2, state_key)
    deals: set[str] = set()
    checked = 0
    for met in walk:
        game, first = met.game, met.first
        assert isinstance(game, WuhltischGame)
        assert isinstance(first, WuhltischGame)
        if met.step is None:
            deals.update(type(e).__name__ for e in game.setup_events)
        if not met.new and walk.merged % 40 == 0:
            _same_state(walk, first, game)
            checked += 1
    return MiniSearch(walk.first, checked, walk.verbs, walk.events | deals)


def test_mini_variant_has_a_few_thousand_states(mini_search: MiniSearch) -> None:
    assert 2_000 <= len(mini_search.seen) <= 30_000
    assert mini_search.checked > 100  # merged states were compared, not only counted
    over = [g for g in mini_search.seen.values() if g.is_over]
    assert over
    assert {g.result().termination.value for g in over} == {"finished", "capped"}
    # The mini reaches every action but swap (it needs a fourth tick).
    assert mini_search.verbs == set(VERBS) - {"swap"}


def _random_states(variant: str, players: int, seed: int, ticks: int) -> Iterator[WuhltischGame]:
    game = cardshop.new_game(variant, players, seed=seed)
    assert isinstance(game, WuhltischGame)
    for _ in random_play(game, random.Random(seed), ticks):
        yield game


@pytest.mark.parametrize(
    ("variant", "players", "seeds", "every"),
    [("wuhltisch", 2, 3, 10), ("wuhltisch", 4, 3, 10), (MINI, 2, 12, 1)],
)
def test_key_survives_clone_json_and_position(
    variant: Any, players: int, seeds: int, every: int
) -> None:
    checked = 0
    for seed in range(seeds):
        for i, game in enumerate(_random_states(str(variant), players, seed, 150)):
            key = state_key(game)
            assert hash(key) == hash(state_key(game.clone()))
            assert state_key(game.clone()) == key
            if i % every:
                continue
            assert_key_round_trips(game, state_key)
            checked += 1
    assert checked >= 20


def test_key_leaves_out_history_seed_and_chance_count() -> None:
    a = cardshop.new_game(_mini(), 2, seed=1)
    b = cardshop.new_game(_mini(), 2, seed=2)
    assert isinstance(a, WuhltischGame)
    assert isinstance(b, WuhltischGame)
    # Deal b the same cards as a: then only the seed differs.
    b._heap, b._active = a._heap.copy(), a._active.copy()
    b._stacks = [s.copy() for s in a._stacks]
    assert state_key(a) == state_key(b)
    # Both seats wait: the same state but for the moves and the clock.
    c = a.clone()
    c.apply_joint({0: "wait", 1: "wait"})
    assert state_key(c) != state_key(a)  # the tick counts
    c._tick, c._ticks = a._tick, a._ticks
    assert state_key(c) == state_key(a)


def test_a_hidden_card_changes_the_key() -> None:
    game = cardshop.new_game("wuhltisch", 3, seed=7)
    assert isinstance(game, WuhltischGame)
    other = game.clone()
    heap = other._heap
    heap[0], heap[1] = heap[1], heap[0]  # every default shirt is a card of its own
    assert [game.observation(s) for s in range(3)] == [other.observation(s) for s in range(3)]
    assert state_key(other) != state_key(game)
    stacked = game.clone()
    stacked._stacks[0].reverse()  # the face-down lists, hidden from their owner too
    assert state_key(stacked) != state_key(game)


def test_cards_of_one_kind_share_a_key() -> None:
    game = cardshop.new_game(_mini(), 2, seed=3)
    assert isinstance(game, WuhltischGame)
    kind = card_kinds(game.rules)
    heap = game._heap
    same = [i for i, c in enumerate(heap) if kind[c] == kind[heap[0]]]
    assert len(same) >= 2
    other = game.clone()
    i, j = same[0], same[1]
    other._heap[i], other._heap[j] = other._heap[j], other._heap[i]
    assert other._heap != game._heap
    assert state_key(other) == state_key(game)
    # A card of another kind in that place is another state.
    different = next(i for i, c in enumerate(heap) if kind[c] != kind[heap[0]])
    moved = game.clone()
    moved._heap[0], moved._heap[different] = moved._heap[different], moved._heap[0]
    assert state_key(moved) != state_key(game)


def test_shirt_kinds_follow_card_ids() -> None:
    """A hand sorted by card id is sorted by kind, so slots name the same kinds."""
    for name in ("wuhltisch", str(MINI)):
        rules = cardshop.new_game(name, 2, seed=0).rules  # type: ignore[attr-defined]
        kind = card_kinds(rules)
        shirts = kind[: rules.n_shirts]
        assert list(shirts) == sorted(shirts)
        for a in range(rules.n_shirts):
            for b in range(rules.n_shirts):
                if kind[a] == kind[b]:
                    assert rules.card_name[a] == rules.card_name[b]
        assert not set(shirts) & set(kind[rules.n_shirts :])


def test_clauses_name_digest_clauses_and_cover_every_verb_and_event() -> None:
    known = set(re.findall(r"\*\*(WT-[A-Z]+-\d+)\*\*", DIGEST.read_text(encoding="utf-8")))
    assert known
    for name, clauses in CLAUSES.items():
        assert clauses, name
        assert set(clauses) <= known, name
    events = {t.__name__ for t in CODEC.types}
    assert "GameEnded" in events
    assert set(CLAUSES) == events | set(VERBS) | {"setup"}
    assert VERIFY.clauses is CLAUSES
    assert get_family("wuhltisch").verify is VERIFY


def test_mini_search_meets_every_event_class_but_swapped(mini_search: MiniSearch) -> None:
    assert mini_search.events == {t.__name__ for t in CODEC.types} - {"Swapped"}


def _builtins() -> list[str]:
    out = []
    for name in builtin_variants():
        if load_variant(name).family == "wuhltisch":
            out.append(name)
    return out


@pytest.mark.parametrize("name", _builtins())
def test_shrink_of_each_builtin_plays_to_the_end(name: str) -> None:
    variant = load_variant(name)
    for players in range(variant.players.min, variant.players.max + 1):
        small, lines = shrink(variant, players)
        assert lines
        assert all(isinstance(line, str) and line for line in lines)
        assert small.family == "wuhltisch"
        assert (small.players.min, small.players.max) == (players, players)
        for seed in range(5):
            game = play_out(small, players, seed, 100_000)
            assert game.is_over
            assert len(game.result().scores) == players
    with pytest.raises(cardshop.SetupError):
        shrink(variant, variant.players.max + 1)


def test_shrink_keeps_the_scoring_rules_reachable() -> None:
    small, _ = shrink(load_variant("wuhltisch"), 2)
    rules = cardshop.new_game(small, 2, seed=0).rules  # type: ignore[attr-defined]
    lists = range(rules.first_list, rules.n_cards)
    cheap = [c for c in range(rules.n_shirts) if not rules.luxury[c]]
    luxury = [c for c in range(rules.n_shirts) if rules.luxury[c]]
    assert cheap
    assert luxury
    assert rules.lost_value[rules.first_lost : rules.first_list].count(0) == 1
    assert any(rules.lost_value)
    scores = {rules.set_score(lst, [c]) for lst in lists for c in cheap + luxury}
    assert 0 in scores  # a list no shirt fits (WT-SCORE-2)
    lux_scores = {rules.set_score(lst, luxury) for lst in lists}
    assert max(lux_scores) > max(rules.set_score(lst, cheap[:1]) for lst in lists)
    assert rules.round_ticks >= 4  # look, keep, look, swap
