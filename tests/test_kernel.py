"""Differential tests: the Klunker batch kernel against the reference engine.

For the same simulation seed, the kernel and the reference engine must play the same
games: the same chance (first player, deal, reshuffles, blind payments), the same bot
choices, so the same action history and the same outcome, game by game. Any
disagreement is a bug in one of the two (docs/kernel.md).

How many games (:mod:`diff_support`): per built-in variant and player count, 100 random
games and 10 of each line-up with greedy players (about 1,200 games in all); 2,000 and
200 in the slow lane (``CARDSHOP_SLOW_LANE=1``: about 24,000 games); in a deep run by
hand, ``CARDSHOP_DIFF_GAMES`` random games and a tenth as many of the others
(docs/kernel.md uses 10000)::

    CARDSHOP_DIFF_GAMES=10000 python -m pytest tests/test_kernel.py -k builtin -p no:cacheprovider

The editions draw by chance model 2; under model 1 (the model of every variant that
names none) they play a fifth as many games. Generated variants (either chance model)
follow the hypothesis profile (``deep``: 2000 variants).
"""

from __future__ import annotations

import importlib
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from typing import Any

import pytest

pytest.importorskip("numba", reason="the kernel extra (numba) is not installed")

from hypothesis import given
from hypothesis import strategies as st

from cardshop import load_variant
from cardshop.core.errors import SetupError, VariantError
from cardshop.core.registry import get_family
from cardshop.core.variant import VariantBase
from cardshop.klunker import kernel
from cardshop.reglamentacja.variant import ReglamentacjaVariant
from cardshop.simulation import (
    AUTO_KERNEL_GAMES,
    game_seed,
    kernel_note,
    simulate,
)
from cardshop.testing.strategies import variants
from diff_support import check_same as _check_same
from diff_support import diff_games, under_model

check_same = partial(_check_same, kernel)
"""Games of a simulation played on this family's kernel and on the reference engine,
compared game by game (:func:`diff_support.check_same`)."""

RANDOM_GAMES = diff_games(100, 2000)
GREEDY_GAMES = diff_games(10, 200, share=10)  # a greedy game costs the reference 10 random ones

BUILTIN = [
    (name, n)
    for name in ("klunker-en", "klunker-es", "klunker-zh")
    for n in range(load_variant(name).players.min, load_variant(name).players.max + 1)
]
LINEUPS = {
    "random": ("random",),
    "greedy": ("greedy",),
    "mixed": ("greedy", "random"),  # greedy in seat 0, random elsewhere; rotated
}


TWISTER_RANDOM_GAMES = diff_games(20, 400)
TWISTER_GREEDY_GAMES = diff_games(4, 40, share=10)


def _specs(lineup: tuple[str, ...], players: int) -> tuple[str, ...]:
    if len(lineup) == 1:
        return lineup
    return (lineup[0],) + (lineup[1],) * (players - 1)


@pytest.mark.parametrize("lineup", sorted(LINEUPS))
@pytest.mark.parametrize(("name", "players"), BUILTIN)
def test_builtin_variants_play_the_same_games(name: str, players: int, lineup: str) -> None:
    variant = load_variant(name)
    bots = _specs(LINEUPS[lineup], players)
    games = RANDOM_GAMES if lineup == "random" else GREEDY_GAMES
    if variant.match is not None:  # a simulated game is a whole match of several games
        games = -(-games // (players * variant.match.games_per_player))
    assert check_same(variant, players, bots, seed=players * 1000 + 7, games=games) > 0


@pytest.mark.parametrize("lineup", sorted(LINEUPS))
@pytest.mark.parametrize(("name", "players"), BUILTIN)
def test_chance_model_1_plays_the_same_games(name: str, players: int, lineup: str) -> None:
    """The editions under ``chance: 1``: the first player, the deal and each reshuffle
    drawn from a Mersenne Twister seeded for the event (docs/chance.md), in both
    engines; a fifth as many games as the editions play as they are."""
    variant = under_model(name, 1)
    bots = _specs(LINEUPS[lineup], players)
    games = TWISTER_RANDOM_GAMES if lineup == "random" else TWISTER_GREEDY_GAMES
    if variant.match is not None:
        games = -(-games // (players * variant.match.games_per_player))
    assert check_same(variant, players, bots, seed=players * 1000 + 9, games=games) > 0


@given(
    variant=variants(max_round_cap=12, max_players=5),
    data=st.data(),
)
def test_generated_variants_play_the_same_games(variant: VariantBase, data: Any) -> None:
    players = data.draw(st.integers(variant.players.min, variant.players.max), label="players")
    lineup = data.draw(st.sampled_from(sorted(LINEUPS)), label="lineup")
    seed = data.draw(st.integers(-(2**70), 2**70), label="seed")
    assert check_same(variant, players, _specs(LINEUPS[lineup], players), seed, games=2) >= 0


def test_simulate_gives_the_same_result_on_both_engines() -> None:
    kwargs: dict[str, Any] = {"bots": "greedy,random,random,random", "seed": 3, "rotate": True}
    fast = simulate("klunker-es", 4, 30, workers=1, engine="kernel", **kwargs)
    slow = simulate("klunker-es", 4, 30, workers=1, engine="reference", **kwargs)
    assert (fast.engine, slow.engine) == ("kernel", "reference")
    assert fast == slow
    assert [o.to_dict() for o in fast] == [o.to_dict() for o in slow]
    assert fast.summary() == slow.summary()
    # Threads (simulate's own workers: the kernel runs without the GIL), other
    # processes, chunks of any size: the same games.
    threaded = simulate("klunker-es", 4, 30, workers=2, chunk_size=7, engine="kernel", **kwargs)
    assert threaded.engine == "kernel"
    assert [o.to_dict() for o in threaded] == [o.to_dict() for o in slow]
    with ProcessPoolExecutor(max_workers=2) as pool:
        pooled = simulate("klunker-es", 4, 30, executor=pool, engine="kernel", **kwargs)
    assert [o.to_dict() for o in pooled] == [o.to_dict() for o in slow]


def test_auto_uses_the_kernel_when_it_can_and_says_why_not_otherwise() -> None:
    many = simulate("klunker-en", 3, AUTO_KERNEL_GAMES, workers=1)
    assert (many.engine, many.engine_note) == ("kernel", "")
    few = simulate("klunker-en", 3, AUTO_KERNEL_GAMES - 1, workers=1)
    assert few.engine == "reference"
    assert "fewer than" in few.engine_note
    en, wuhl = load_variant("klunker-en"), load_variant("wuhltisch")
    rg = load_variant("reglamentacja")
    assert kernel_note(en, 3, ("random", "greedy", "random"), 0) == ("cardshop.klunker.kernel", "")
    module, why = kernel_note(en, 3, ("thrifty",), 0)
    assert module is None
    assert "not 'thrifty'" in why
    assert kernel_note(wuhl, 2, ("random",), 0) == ("cardshop.wuhltisch.kernel", "")
    assert kernel_note(rg, 3, ("random",), 0) == ("cardshop.reglamentacja.kernel", "")
    forced = simulate("klunker-en", 3, 4, workers=1, engine="reference")
    assert forced.engine == "reference"


@pytest.mark.parametrize(
    ("variant", "bots", "why"),
    [
        ("klunker-en", "ismcts:5", "ismcts:5"),
        ("klunker-en", "thrifty", "thrifty"),
        ("reglamentacja", "ismcts:5", "ismcts:5"),
        ("wuhltisch", "ismcts:5", "ismcts:5"),
    ],
)
def test_engine_kernel_refuses_what_it_cannot_play(variant: str, bots: str, why: str) -> None:
    with pytest.raises(SetupError, match="engine 'kernel' cannot play") as caught:
        simulate(variant, 3, 2, bots=bots, engine="kernel")
    assert why in str(caught.value)


@pytest.mark.parametrize("name", ["klunker-en", "wuhltisch", "reglamentacja"])
def test_a_variant_its_family_finds_invalid_is_refused_not_played(name: str) -> None:
    """A variant built with model_validate has not been checked for its family's
    semantic errors; the kernel's compiled code takes the rules on trust, so it checks
    them first (a one-player Reglamentacja variant ran forever in the kernel)."""
    data = load_variant(name).to_data()
    data["players"] = {"min": 4, "max": 3}
    variant = type(load_variant(name)).model_validate(data)
    module = importlib.import_module(get_family(variant.family).kernel or "")
    with pytest.raises(VariantError, match=r"players.*max is smaller than min"):
        module.play(variant, 3, ("random",), 0, 0, 2)
    one = load_variant("reglamentacja").to_data()
    one["players"] = {"min": 1, "max": 3}
    solo = ReglamentacjaVariant.model_validate(one)
    with pytest.raises(VariantError, match="trading needs at least 2 players"):
        simulate(solo, 1, AUTO_KERNEL_GAMES, workers=1)


def test_engine_must_be_known() -> None:
    with pytest.raises(SetupError, match="engine must be one of auto, kernel, reference"):
        simulate("klunker-en", 3, 1, engine="fast")


def test_each_family_names_its_kernel() -> None:
    assert get_family("klunker").kernel == "cardshop.klunker.kernel"
    assert get_family("wuhltisch").kernel == "cardshop.wuhltisch.kernel"
    assert get_family("reglamentacja").kernel == "cardshop.reglamentacja.kernel"


def test_play_arrays_agrees_with_play() -> None:
    variant = load_variant("klunker-en")
    table, seeds = kernel.play_arrays(variant, 5, ("random",), 11, 3, 9)
    outcomes = kernel.play(variant, 5, ("random",), 11, 3, 9)
    assert (
        [int(s) for s in seeds]
        == [o.seed for o in outcomes]
        == [game_seed(11, i) for i in range(3, 9)]
    )
    for row, o in zip(table.tolist(), outcomes, strict=True):
        assert row == [o.first_player, o.rounds, o.decisions, 1, *o.scores, *o.ranks]


def test_the_kernel_checks_its_arguments() -> None:
    variant = load_variant("klunker-en")
    with pytest.raises(SetupError, match="one bot for every seat or one per seat"):
        kernel.play(variant, 4, ("random", "greedy"), 0, 0, 1)
    with pytest.raises(SetupError, match="played by 3 to 5 players"):
        kernel.play(variant, 6, ("random",), 0, 0, 1)
    with pytest.raises(SetupError, match="at most 200 digits"):
        kernel.play(variant, 4, ("random",), 10**300, 0, 1)
    with pytest.raises(SetupError, match="start <= stop"):
        kernel.play(variant, 4, ("random",), 0, 5, 1)
    assert list(kernel.play(variant, 4, ("random",), 0, 5, 5)) == []


@pytest.mark.parametrize("digits", [80, 81, 199])
def test_long_master_seeds_play_the_same_games(digits: int) -> None:
    """The games' and bots' seeds of a block are hashed side by side while their text
    fits one BLAKE2b block (a master seed of up to 80 digits), one at a time beyond."""
    seed = -(10 ** (digits - 2)) - 7  # the sign is one of the characters
    assert len(repr(seed)) == digits
    for name in ("klunker-en", "klunker-zh"):
        variant = load_variant(name)
        assert check_same(variant, 3, ("greedy", "random", "random"), seed, games=2) > 0
