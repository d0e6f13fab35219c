"""The Reglamentacja house-rules cookbook (docs/cookbook/reglamentacja.md): every recipe
loads without warnings, plays seeded games with every invariant checked, and shows an
effect that only its rule produces, most often against the same seeds on the base."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import cardshop
from cardshop import SetupError
from cardshop.reglamentacja import ReglamentacjaVariant, action_space, new_game
from cardshop.reglamentacja import events as ev
from cardshop.reglamentacja.variant import as_reglamentacja
from cookbook_support import check_recipe, of, recipe_loader, recipe_paths
from cookbook_support import play as play_game

PATHS = recipe_paths("reglamentacja")
recipe = recipe_loader("reglamentacja", ReglamentacjaVariant)
BASE = as_reglamentacja(cardshop.load_variant("reglamentacja"))
SEEDS = range(6)


def play(variant: object, seed: int, players: int = 3, bot: str = "greedy") -> list[Any]:
    """The events of a whole game of ``bot`` players, after the setup's row and queue
    (as the setup's events state them); a recipe's games check every invariant."""
    assert isinstance(variant, ReglamentacjaVariant)
    return play_game(
        variant,
        seed,
        players,
        bot,
        checked=variant is not BASE,
        setup=lambda game: [ev.RowDealt(game.row), ev.QueueFormed(game.queue, game.active)],
    )[1]


def test_no_speculator() -> None:
    v = recipe("no-speculator")
    for seed in SEEDS:
        events = play(v, seed)
        assert not of(events, ev.Speculated)
        assert not of(events, ev.SpeculatorBought)
        assert -1 not in of(events, ev.QueueFormed)[0].queue
    base = [of(play(BASE, seed), ev.SpeculatorBought) for seed in SEEDS]
    assert all(base)  # the speculator takes cards in every base game


def test_no_queue_trading() -> None:
    v = recipe("no-queue-trading")
    for seed in SEEDS[:3]:
        offers = of(play(v, seed, bot="random"), ev.Offered)
        assert offers
        assert not [o for o in offers if o.place]
    base = [o for seed in SEEDS[:3] for o in of(play(BASE, seed, bot="random"), ev.Offered)]
    assert [o for o in base if o.place]  # random players offer places in the base


def test_two_players() -> None:
    v = recipe("two-players")
    for seed in SEEDS:
        events = play(v, seed, players=2)
        formed = of(events, ev.QueueFormed)[0]
        assert formed.top == formed.queue[1]  # RG-SETUP-5: the second pawn holds the top
        assert of(events, ev.GameEnded)
        assert of(events, ev.Bought)
    with pytest.raises(SetupError):
        new_game(BASE, 2, seed=0)


def largest_side(offers: list[ev.Offered]) -> int:
    return max(max(len(o.give), len(o.take)) for o in offers)


def test_six_players() -> None:
    v = recipe("six-players")
    six = [o for seed in SEEDS[:2] for o in of(play(v, seed, 6, "random"), ev.Offered)]
    assert largest_side(six) == 2  # max_trade 2 at 6 players
    five = [o for seed in SEEDS[:2] for o in of(play(v, seed, 5, "random"), ev.Offered)]
    assert largest_side(five) == 3  # and 3 below
    assert v.most_choice(6) <= 60_000 < v.most_choice(6, 3)
    with pytest.raises(SetupError):
        new_game(BASE, 6, seed=0)


def test_small_trades_in_big_games() -> None:
    v = recipe("small-trades-in-big-games")
    five = [o for seed in SEEDS[:2] for o in of(play(v, seed, 5, "random"), ev.Offered)]
    assert largest_side(five) == 2
    four = [o for seed in SEEDS[:2] for o in of(play(v, seed, 4, "random"), ev.Offered)]
    assert largest_side(four) == 3
    base = [o for seed in SEEDS[:2] for o in of(play(BASE, seed, 5, "random"), ev.Offered)]
    assert largest_side(base) == 3
    assert len(action_space(v, 5)) < len(action_space(BASE, 5))


def meal_visits(variant: ReglamentacjaVariant, players: int) -> int:
    """Visits doubling meal dealt in 20 seeded games."""
    meal = {i for i, x in enumerate(variant.visits) if "meal" in x.double}
    dealt = 0
    for seed in range(20):
        zones = new_game(variant, players, seed=seed).visit_zones()
        dealt += sum(len(set(ids) & meal) for zone, ids in zones.items() if zone != "box")
    return dealt


def test_three_player_option() -> None:
    v = recipe("three-player-option")
    assert meal_visits(v, 3) == 0
    assert meal_visits(BASE, 3) > 0
    assert meal_visits(v, 4) > 0  # the option is for 3 players only
    for seed in SEEDS[:2]:
        assert of(play(v, seed), ev.GameEnded)


def test_sunday_roast() -> None:
    v = recipe("sunday-roast")
    assert len(v.cards) == len(BASE.cards) + 1
    seen = bought = 0
    for seed in SEEDS:
        events = play(v, seed)
        rows = of(events, ev.RowDealt) + of(events, ev.RowRefilled)
        seen += sum("sunday-roast" in e.cards for e in rows)
        bought += sum(e.card == "sunday-roast" for e in of(events, ev.Bought))
        base = play(BASE, seed)
        rows = of(base, ev.RowDealt) + of(base, ev.RowRefilled)
        assert not [e for e in rows if "sunday-roast" in e.cards]
    assert seen
    assert bought


def test_cheap_tea_sugar() -> None:
    v = recipe("cheap-tea-sugar")
    paid = [
        len(e.stamps)
        for seed in range(10)
        for e in of(play(v, seed), ev.Bought)
        if e.card == "tea-sugar"
    ]
    assert paid
    assert set(paid) == {2}
    base = [
        len(e.stamps)
        for seed in range(10)
        for e in of(play(BASE, seed), ev.Bought)
        if e.card == "tea-sugar"
    ]
    assert set(base) <= {3}


def dealt(variant: ReglamentacjaVariant, players: int) -> set[int]:
    """The hand sizes at setup of the seats other than the first active one (who has
    drawn his allocation too)."""
    game = new_game(variant, players, seed=4)
    return {sum(game.hand(s).values()) for s in range(players) if s != game.active}


def test_generous_deal() -> None:
    v = recipe("generous-deal")
    assert dealt(v, 3) == {6}
    assert dealt(v, 4) == {5}
    assert dealt(BASE, 3) == {5}
    for seed in SEEDS[:2]:
        assert of(play(v, seed), ev.GameEnded)


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_every_recipe_is_tested_and_on_the_page(path: Path) -> None:
    check_recipe(path)
