"""The Wühltisch house-rules cookbook (docs/cookbook/wuhltisch.md): every recipe loads,
plays seeded games with greedy bots, and shows an effect only its rule produces, most
often a score that differs from the built-in variant's by exactly the rule's term,
on the same seeds and cards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import cardshop
from cardshop.wuhltisch import WuhltischVariant
from cardshop.wuhltisch import events as ev
from cookbook_support import check_recipe, of, recipe_loader, recipe_paths
from cookbook_support import play as play_game

PATHS = recipe_paths("wuhltisch")
recipe = recipe_loader("wuhltisch", WuhltischVariant)
BASE = cardshop.load_variant("wuhltisch")
SEEDS = range(8)


def play(variant: WuhltischVariant, seed: int, players: int = 3) -> list[Any]:
    """A whole game of greedy bots; its events."""
    return play_game(variant, seed, players, checked=False)[1]


def scored(events: list[Any]) -> list[ev.SetScored]:
    return of(events, ev.SetScored)


def rounds(events: list[Any]) -> list[ev.RoundScored]:
    return of(events, ev.RoundScored)


def test_caller_bonus_adds_three_points_to_each_caller_exactly() -> None:
    """Round terms do not change play: the same seeds play the same game, and every
    caller's round score is the base's plus 3, everyone else's the base's."""
    variant = recipe("caller-bonus")
    paid = 0
    for seed in SEEDS:
        mine, base = rounds(play(variant, seed)), rounds(play(BASE, seed))
        assert [r.callers for r in mine] == [r.callers for r in base]
        for r, b in zip(mine, base, strict=True):
            for seat, (x, y) in enumerate(zip(r.scores, b.scores, strict=True)):
                assert x == y + (3 if seat in r.callers else 0)
                paid += seat in r.callers
    assert paid > 0


def test_under_budget_bonus_pays_scoring_sets_twenty_under_budget() -> None:
    """A scoring set at 60 euro or less scores 3 more than the base rule gives the
    same cards; other sets score as in the base."""
    variant = recipe("under-budget-bonus")
    bonus = plain = 0
    for seed in SEEDS:
        for s in scored(play(variant, seed)):
            base = BASE.rules.set_score(s.list_card, s.shirts)
            extra = 3 if base > 0 and BASE.rules.budget - s.price >= 20 else 0
            assert s.score == base + extra
            bonus += extra > 0
            plain += base > 0 and extra == 0
    assert bonus > 0
    assert plain > 0


def test_mismatch_penalty_takes_two_points_per_mismatch() -> None:
    """With the threshold at 6, a scoring set scores its matches (and bonuses) less 2
    per attribute that does not match: a 7-match set scores 3, 4 less than the base
    gives the same cards; a 6-match set (which the base does not score) 6 - 6 = 0, plus
    the luxury bonus of a luxury set."""
    variant = recipe("mismatch-penalty")
    rules = variant.rules
    penalised = 0
    for seed in SEEDS:
        for s in scored(play(variant, seed)):
            base = BASE.rules.set_score(s.list_card, s.shirts)
            if s.matches >= 7 and base > 0:
                assert s.score == base - 2 * (rules.max_matches - s.matches)
                penalised += s.matches < rules.max_matches
            elif s.matches == 6 and rules.within_budget(s.shirts):
                luxury = all(rules.luxury[c] for c in s.shirts)
                assert base == 0
                assert s.score == (5 if luxury else 0)  # 6 matches less 3 x 2
    assert penalised > 0


def test_four_shirt_sets_score_from_ten_matches_of_twelve() -> None:
    """Sets are 4 shirts; "max_matches - 2" gives a threshold of 10 of 12."""
    variant = recipe("four-shirts")
    assert (variant.rules.threshold, variant.rules.max_matches) == (10, 12)
    sets = [s for seed in SEEDS for s in scored(play(variant, seed))]
    assert sets
    assert all(len(s.shirts) == 4 for s in sets)
    assert any(s.score >= 10 for s in sets)
    for s in sets:
        within = variant.rules.within_budget(s.shirts)
        assert (s.score > 0) == (within and s.matches >= 10)


def test_luxury_per_shirt_pays_two_per_luxury_shirt_instead_of_five() -> None:
    """A scoring luxury set scores 2 per luxury shirt where the base paid 5 once."""
    variant = recipe("luxury-per-shirt")
    luxury = variant.rules.luxury
    seen = 0
    for seed in SEEDS:
        for s in scored(play(variant, seed)):
            base = BASE.rules.set_score(s.list_card, s.shirts)
            count = sum(1 for c in s.shirts if luxury[c])
            if base > 0:
                all_luxury = count == len(s.shirts)
                assert s.score == base - (5 if all_luxury else 0) + 2 * count
                seen += count > 0
    assert seen > 0


def test_three_rounds_end_the_game_after_the_third_round() -> None:
    """The game ends after 3 rounds, which play as the base's first 3 on the same seed."""
    variant = recipe("three-rounds")
    for seed in SEEDS:
        events = play(variant, seed)
        base = rounds(play(BASE, seed))
        assert [r.scores for r in rounds(events)] == [r.scores for r in base[:3]]
        assert len(base) == 4
        end = of(events, ev.GameEnded)
        assert len(end) == 1


def test_green_shirts_are_wanted_and_score() -> None:
    """Green shirts are in the heap, and sets on the green lists score with them."""
    variant = recipe("green-shirts")
    rules = variant.rules
    green = rules.values[rules.attributes.index("colour")].index("green")
    colour = rules.attributes.index("colour")
    assert rules.n_shirts == 120
    scored_green = 0
    for seed in SEEDS:
        for s in scored(play(variant, seed)):
            wants = dict(rules.list_wants[s.list_card - rules.first_list])
            if wants.get(colour) == green and s.score > 0:
                assert any(rules.shirt_values[c][colour] == green for c in s.shirts)
                scored_green += 1
    assert scored_green > 0


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_every_recipe_is_tested_and_on_the_page(path: Path) -> None:
    check_recipe(path)
