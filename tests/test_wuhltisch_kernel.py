"""Differential tests: the Wühltisch batch kernel against the reference engine.

For the same simulation seed, the kernel and the reference engine must play the same
games: the same shuffles and throw-backs, the same bot choices, so the same moves and
the same outcome, game by game (docs/kernel.md).

How many games (:mod:`diff_support`), per player count of the built-in variants: 250
greedy games, 50 of greedy, random and baseline players by seat, 6 of each other
line-up (about 1,550 in all: random and baseline players alone run the game to the tick
cap, and such a game costs the reference engine some twenty greedy ones); 3,000, 1,000
and 12 in the slow lane (``CARDSHOP_SLOW_LANE=1``: about 20,000 games); in a deep run
by hand, ``CARDSHOP_DIFF_GAMES`` greedy games and a fortieth as many of the others
(docs/kernel.md uses 10000)::

    CARDSHOP_DIFF_GAMES=10000 python -m pytest tests/test_wuhltisch_kernel.py -k builtin

The built-in variant draws by chance model 2; under model 1 (the model of every variant
that names none) it plays about a fifth as many games. Generated variants (either
chance model) follow the hypothesis profile.
"""

from __future__ import annotations

import pickle
from functools import partial
from typing import Any

import pytest

pytest.importorskip("numba", reason="the kernel extra (numba) is not installed")

from hypothesis import given
from hypothesis import strategies as st

from cardshop import load_variant
from cardshop.core.errors import SetupError
from cardshop.simulation import (
    game_seed,
    kernel_note,
    simulate,
)
from cardshop.wuhltisch import kernel
from cardshop.wuhltisch.strategies import variants
from cardshop.wuhltisch.variant import WuhltischVariant
from diff_support import LINEUPS, diff_games, under_model
from diff_support import check_same as _check_same
from diff_support import load_builtin as _load
from diff_support import seat_specs_of as _specs

check_same = partial(_check_same, kernel)
"""Games of a simulation played on this family's kernel and on the reference engine,
compared game by game (:func:`diff_support.check_same`)."""

GREEDY_GAMES = diff_games(250, 3000)
MIXED_GAMES = diff_games(50, 1000, share=40)
CAPPED_GAMES = diff_games(6, 12, share=40)  # line-ups that play to the tick cap

BUILTIN = [("wuhltisch", n) for n in range(2, 6)] + [("wuhltisch-mini", 2)]

TWISTER_GAMES = {
    "greedy": diff_games(50, 600),
    "mixed": diff_games(10, 200, share=40),
}
"""Games of the built-in variant under chance model 1 (a fifth of model 2's: the
kernel's draws of both models are checked part by part in tests/test_kernel_parts.py)."""


@pytest.mark.parametrize("lineup", sorted(LINEUPS))
@pytest.mark.parametrize(("name", "players"), BUILTIN)
def test_builtin_variants_play_the_same_games(name: str, players: int, lineup: str) -> None:
    variant = _load(name)
    games = {"greedy": GREEDY_GAMES, "mixed": MIXED_GAMES}.get(lineup, CAPPED_GAMES)
    bots = _specs(LINEUPS[lineup], players)
    assert check_same(variant, players, bots, seed=players * 1000 + 7, games=games) > 0


@pytest.mark.parametrize("lineup", sorted(LINEUPS))
@pytest.mark.parametrize("players", range(2, 6))
def test_chance_model_1_plays_the_same_games(players: int, lineup: str) -> None:
    """The built-in variant under ``chance: 1``: each round's shuffle and each throw-back
    drawn from a Mersenne Twister seeded for the event (docs/chance.md), in both
    engines."""
    variant = under_model("wuhltisch", 1)
    games = TWISTER_GAMES.get(lineup, diff_games(2, 4, share=40))
    bots = _specs(LINEUPS[lineup], players)
    assert check_same(variant, players, bots, seed=players * 1000 + 9, games=games) > 0


def _playable(variant: WuhltischVariant) -> WuhltischVariant:
    """The variant without its score terms (which the kernel refuses)."""
    data = variant.to_data()
    data.pop("score", None)
    return WuhltischVariant.model_validate(data)


@given(variant=variants(match=None), data=st.data())
def test_generated_variants_play_the_same_games(variant: WuhltischVariant, data: Any) -> None:
    variant = _playable(variant)
    players = data.draw(st.integers(variant.players.min, variant.players.max), label="players")
    lineup = data.draw(st.sampled_from(sorted(LINEUPS)), label="lineup")
    seed = data.draw(st.integers(-(2**70), 2**70), label="seed")
    assert check_same(variant, players, _specs(LINEUPS[lineup], players), seed, games=2) >= 0


def test_a_match_plays_the_same_games() -> None:
    data = _load("wuhltisch-mini").to_data()
    data["match"] = {"games_per_player": 2}
    data["name"] = "mini-match"
    variant = WuhltischVariant.model_validate(data)
    for lineup in ("greedy", "mixed"):
        bots = _specs(LINEUPS[lineup], 2)
        assert check_same(variant, 2, bots, seed=5, games=6) > 0
    (outcome, _), *_ = kernel.histories(variant, 2, ("greedy",), 5, 0, 1)
    assert outcome.details["games"] == 4


def test_score_terms_are_refused_with_their_keys() -> None:
    data = load_variant("wuhltisch").to_data()
    data["score"] = {"per_set": {"cheap": "luxury * 2"}, "per_round": {}}
    variant = WuhltischVariant.model_validate(data)
    why = kernel.unavailable(variant, 3, ("greedy",))
    assert why is not None
    assert "score.per_set.cheap (a score term)" in why
    assert kernel_note(variant, 3, ("greedy",), 0) == (None, why)
    with pytest.raises(SetupError, match=r"score\.per_set\.cheap"):
        kernel.play(variant, 3, ("greedy",), 0, 0, 1)
    with pytest.raises(SetupError, match=r"engine 'kernel' cannot play .*score\.per_set\.cheap"):
        simulate(variant, 3, 2, bots="greedy", engine="kernel")


def test_other_bots_and_families_are_refused() -> None:
    variant = load_variant("wuhltisch")
    assert "not 'ismcts:5'" in str(kernel.unavailable(variant, 3, ("ismcts:5",)))
    assert "not the 'klunker' family" in str(
        kernel.unavailable(load_variant("klunker-en"), 3, ("random",))
    )
    with pytest.raises(SetupError, match="one bot for every seat or one per seat"):
        kernel.play(variant, 4, ("random", "greedy"), 0, 0, 1)
    with pytest.raises(SetupError, match="players"):
        kernel.play(variant, 9, ("random",), 0, 0, 1)
    with pytest.raises(SetupError, match="start <= stop"):
        kernel.play(variant, 3, ("random",), 0, 5, 1)
    assert list(kernel.play(variant, 3, ("random",), 0, 5, 5)) == []
    with pytest.raises(SetupError, match="at most 1,000 games in one call"):
        kernel.histories(variant, 3, ("greedy",), 0, 0, kernel.MAX_HISTORY_GAMES + 1)


def test_simulate_gives_the_same_result_on_both_engines() -> None:
    kwargs: dict[str, Any] = {"bots": "greedy,baseline,random", "seed": 3, "rotate": True}
    fast = simulate("wuhltisch", 3, 24, workers=1, engine="kernel", **kwargs)
    slow = simulate("wuhltisch", 3, 24, workers=1, engine="reference", **kwargs)
    assert (fast.engine, slow.engine) == ("kernel", "reference")
    assert fast == slow
    assert [o.to_dict() for o in fast] == [o.to_dict() for o in slow]
    assert fast.summary() == slow.summary()
    threaded = simulate("wuhltisch", 3, 24, workers=2, chunk_size=5, engine="kernel", **kwargs)
    assert [o.to_dict() for o in threaded] == [o.to_dict() for o in slow]


def test_outcomes_pickle_as_arrays_and_agree_with_play_arrays() -> None:
    variant = load_variant("wuhltisch")
    outcomes = kernel.play(variant, 4, ("greedy",), 11, 3, 9)
    again = pickle.loads(pickle.dumps(outcomes))
    assert list(again) == list(outcomes)
    table, seeds = kernel.play_arrays(variant, 4, ("greedy",), 11, 3, 9)
    assert (
        [int(s) for s in seeds]
        == [o.seed for o in outcomes]
        == [game_seed(11, i) for i in range(3, 9)]
    )
    for row, o in zip(table.tolist(), outcomes, strict=True):
        assert row[:5] == [
            o.rounds,
            o.decisions,
            1 if o.termination == "finished" else 2,
            o.steps,
            o.details["capped_rounds"],
        ]
        assert row[5:] == [*o.scores, *o.ranks]


def test_long_master_seeds_play_the_same_games() -> None:
    variant = _load("wuhltisch")
    for seed in (10**150, -(2**64)):
        assert check_same(variant, 3, ("greedy",), seed, games=3) > 0
