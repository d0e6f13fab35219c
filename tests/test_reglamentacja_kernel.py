"""Differential tests: the Reglamentacja batch kernel against the reference engine.

For the same simulation seed, the kernel and the reference engine must play the same
games: the same shuffles, spins, dice and reshuffles, the same bot choices, so the
same moves and the same outcome (scores, ranks, turns, counters), game by game
(docs/kernel.md).

How many games (:mod:`diff_support`), per player count of the built-in variant and the
mini variant: 200 greedy games, 100 of greedy, random and baseline players by seat, 50
of random and 50 of baseline players (1,600 in all); 3,000, 1,000, 500 and 500 in the
slow lane (``CARDSHOP_SLOW_LANE=1``: 20,000 games); in a deep run by hand,
``CARDSHOP_DIFF_GAMES`` games of each line-up::

    CARDSHOP_DIFF_GAMES=10000 python -m pytest tests/test_reglamentacja_kernel.py -k builtin

The built-in variant draws by chance model 2; under model 1 (the model of every variant
that names none) it plays a fifth as many games. Generated variants (every key of the
format drawn, matches and either chance model included) follow the hypothesis profile.
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
from cardshop.reglamentacja import kernel
from cardshop.reglamentacja.game import STATS
from cardshop.reglamentacja.strategies import variants
from cardshop.reglamentacja.variant import ReglamentacjaVariant
from cardshop.simulation import (
    game_seed,
    kernel_note,
    simulate,
)
from diff_support import LINEUPS, diff_games, under_model
from diff_support import check_same as _check_same
from diff_support import load_builtin as _load
from diff_support import seat_specs_of as _specs

check_same = partial(_check_same, kernel)
"""Games of a simulation played on this family's kernel and on the reference engine,
compared game by game (:func:`diff_support.check_same`)."""

GAMES = {
    "greedy": diff_games(200, 3000),
    "mixed": diff_games(100, 1000),
    "random": diff_games(50, 500),
    "baseline": diff_games(50, 500),
}

BUILTIN = [("reglamentacja", n) for n in range(3, 6)] + [("reglamentacja-mini", 2)]

TWISTER_GAMES = {lineup: games // 5 for lineup, games in GAMES.items()}
"""Games of the built-in variant under chance model 1, a fifth of model 2's (the
kernel's draws of both models are checked part by part in tests/test_kernel_parts.py)."""


@pytest.mark.parametrize("lineup", sorted(LINEUPS))
@pytest.mark.parametrize(("name", "players"), BUILTIN)
def test_builtin_variants_play_the_same_games(name: str, players: int, lineup: str) -> None:
    variant = _load(name)
    bots = _specs(LINEUPS[lineup], players)
    assert check_same(variant, players, bots, players * 1000 + 7, GAMES[lineup]) > 0


@pytest.mark.parametrize("lineup", sorted(LINEUPS))
@pytest.mark.parametrize("players", range(3, 6))
def test_chance_model_1_plays_the_same_games(players: int, lineup: str) -> None:
    """The built-in variant under ``chance: 1``: the deal, each spin of the top, each
    roll of the die and each reshuffle drawn from a Mersenne Twister seeded for the
    event (docs/chance.md), in both engines."""
    variant = under_model("reglamentacja", 1)
    bots = _specs(LINEUPS[lineup], players)
    assert check_same(variant, players, bots, players * 1000 + 9, TWISTER_GAMES[lineup]) > 0


@given(variant=variants(match=None, three_players_option=None), data=st.data())
def test_generated_variants_play_the_same_games(variant: ReglamentacjaVariant, data: Any) -> None:
    players = data.draw(st.integers(variant.players.min, variant.players.max), label="players")
    lineup = data.draw(st.sampled_from(sorted(LINEUPS)), label="lineup")
    seed = data.draw(st.integers(-(2**70), 2**70), label="seed")
    assert check_same(variant, players, _specs(LINEUPS[lineup], players), seed, games=3) > 0


def test_a_match_plays_the_same_games() -> None:
    data = load_variant("reglamentacja").to_data()
    data["match"] = {"games_per_player": 2}
    data["name"] = "reglamentacja-match"
    variant = ReglamentacjaVariant.model_validate(data)
    for lineup in ("greedy", "mixed"):
        assert check_same(variant, 3, _specs(LINEUPS[lineup], 3), seed=5, games=6) > 0
    (outcome, _), *_ = kernel.histories(variant, 3, ("greedy",), 5, 0, 1)
    assert outcome.details["games"] == 6
    assert outcome.first_player == 0


def test_variants_without_speculator_or_place_trading_play_the_same_games() -> None:
    data = load_variant("reglamentacja").to_data()
    data.update(speculator=None, queue_trading=False, three_players_without_meal_visits=True)
    data["name"] = "reglamentacja-plain"
    variant = ReglamentacjaVariant.model_validate(data)
    for lineup in ("greedy", "mixed", "baseline"):
        assert check_same(variant, 3, _specs(LINEUPS[lineup], 3), seed=9, games=20) > 0


def test_a_row_of_one_card_and_seven_kinds_plays_the_same_games() -> None:
    """A hand over the limit holds more kinds than the row has cards: the kernel's list
    of a decision's options has room for both (run with NUMBA_BOUNDSCHECK=1 and a fresh
    NUMBA_CACHE_DIR, an array too small fails here)."""
    data = load_variant("reglamentacja").to_data()
    data.update(name="reglamentacja-one-card", row_size=1, hand_limit=3)
    data["speculator"] = {"die_sides": 1, "price": 2}
    variant = ReglamentacjaVariant.model_validate(data)
    for lineup in ("greedy", "mixed", "random"):
        assert check_same(variant, 4, _specs(LINEUPS[lineup], 4), seed=3, games=20) > 0


def test_eleven_and_twelve_players_offer_to_seats_in_the_order_of_their_texts() -> None:
    """At 11 players and more, a seat's targets listed by text ("10" before "2") are not
    in numeric order: the random and baseline bots index them as listed, the greedy bot
    draws among them in numeric order."""
    data = load_variant("reglamentacja").to_data()
    data["visits"] += [dict(v, name=v["name"] + "-2") for v in data["visits"]]
    data.update(
        name="reglamentacja-twelve",
        players={"min": 2, "max": 12},
        deal=2,
        max_trade=2,
        stamps={kind: 10 for kind in data["stamps"]},
    )
    variant = ReglamentacjaVariant.model_validate(data)
    for players in (11, 12):
        for lineup in ("greedy", "mixed"):
            bots = _specs(LINEUPS[lineup], players)
            assert check_same(variant, players, bots, seed=players, games=10) > 0


def test_other_bots_and_families_are_refused() -> None:
    variant = load_variant("reglamentacja")
    assert "not 'ismcts:5'" in str(kernel.unavailable(variant, 3, ("ismcts:5",)))
    assert "not the 'klunker' family" in str(
        kernel.unavailable(load_variant("klunker-en"), 3, ("random",))
    )
    with pytest.raises(SetupError, match="not the 'klunker' family"):
        kernel.compile_rules(load_variant("klunker-en"), 3)  # type: ignore[arg-type]
    with pytest.raises(SetupError, match="one bot for every seat or one per seat"):
        kernel.play(variant, 4, ("random", "greedy"), 0, 0, 1)
    with pytest.raises(SetupError, match="players"):
        kernel.play(variant, 9, ("random",), 0, 0, 1)
    with pytest.raises(SetupError, match="start <= stop"):
        kernel.play(variant, 3, ("random",), 0, 5, 1)
    assert list(kernel.play(variant, 3, ("random",), 0, 5, 5)) == []
    with pytest.raises(SetupError, match="at most 1,000 games in one call"):
        kernel.histories(variant, 3, ("greedy",), 0, 0, kernel.MAX_HISTORY_GAMES + 1)
    with pytest.raises(SetupError, match=r"engine 'kernel' cannot play .*ismcts:5"):
        simulate(variant, 3, 2, bots="ismcts:5", engine="kernel")


def test_simulate_gives_the_same_result_on_both_engines() -> None:
    kwargs: dict[str, Any] = {"bots": "greedy,baseline,random", "seed": 3, "rotate": True}
    fast = simulate("reglamentacja", 3, 24, workers=1, engine="kernel", **kwargs)
    slow = simulate("reglamentacja", 3, 24, workers=1, engine="reference", **kwargs)
    assert (fast.engine, slow.engine) == ("kernel", "reference")
    assert fast == slow
    assert [o.to_dict() for o in fast] == [o.to_dict() for o in slow]
    assert fast.summary() == slow.summary()
    threaded = simulate("reglamentacja", 3, 24, workers=2, chunk_size=5, engine="kernel", **kwargs)
    assert [o.to_dict() for o in threaded] == [o.to_dict() for o in slow]
    assert kernel_note(load_variant("reglamentacja"), 3, ("greedy",), 0) == (
        "cardshop.reglamentacja.kernel",
        "",
    )


def test_outcomes_pickle_as_arrays_and_agree_with_play_arrays() -> None:
    variant = load_variant("reglamentacja")
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
        head = 4 + len(STATS)
        assert row[:head] == [
            o.first_player,
            o.rounds,
            o.decisions,
            1 if o.termination == "finished" else 2,
            *(o.details[name] for name in STATS),
        ]
        assert row[head:] == [*o.scores, *o.ranks]


def test_long_master_seeds_play_the_same_games() -> None:
    variant = _load("reglamentacja")
    for seed in (10**150, -(2**64)):
        assert check_same(variant, 3, ("greedy",), seed, games=3) > 0
