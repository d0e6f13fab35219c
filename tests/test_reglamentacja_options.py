"""Reglamentacja's house-rule options played by every tool: no speculator, no queue
trading, 2 and 6 players with max_trade by player count, and deal and final stamps by
player count (docs/reglamentacja-rules.md: RG-SETUP-5, RG-TRADE-8, RG-SPEC-4)."""

from __future__ import annotations

import pickle
import random
from pathlib import Path

import pytest

import cardshop
from cardshop import VariantError
from cardshop.bots import make_bot
from cardshop.invariants import CheckedGame
from cardshop.reglamentacja import ReglamentacjaGame, action_space, new_game
from cardshop.reglamentacja.spaces import action_factors, observation_encoder
from cardshop.reglamentacja.variant import MAX_CHOICE, as_reglamentacja

HOUSE = """\
extends: reglamentacja
name: house
speculator: null
queue_trading: false
players: {min: 2, max: 6}
max_trade: {2: 3, 6: 2}
final_stamps: "players >= 5 ? 2 : 3"
"""


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("house") / "house.yaml"
    path.write_text(HOUSE, encoding="utf-8")
    return path


@pytest.mark.parametrize("players", [2, 6])
def test_random_games_keep_every_invariant_and_round_trip(house: Path, players: int) -> None:
    v = as_reglamentacja(cardshop.load_variant(house))
    game = new_game(v, players, seed=players)
    checked = CheckedGame(game)
    rng = random.Random(players)
    while not game.is_over:
        legal = game.legal_actions()
        plain = [a for a in legal if a.verb != "offer"]
        checked.apply(rng.choice(legal if rng.random() < 0.2 or not plain else plain))
        if game.turn % 7 == 0 and game.phase == "trade":
            again = ReglamentacjaGame.from_json(game.to_json())
            assert again == game
            copy = ReglamentacjaGame.from_position(game.to_position(), v)
            assert copy.observation(0) == game.observation(0)
    assert pickle.loads(pickle.dumps(game)) == game
    assert game.rules.max_trade == (2 if players == 6 else 3)
    assert game.rules.final_stamps == (2 if players == 6 else 3)


def test_spaces_follow_the_player_count(house: Path) -> None:
    v = as_reglamentacja(cardshop.load_variant(house))
    for players in (2, 6):
        rules = v.rules_for(players)
        offers = len(rules.offers_to(0)[0])
        size = 4 + rules.row_size + rules.k + players * offers  # no speculator: P = 0
        assert len(action_space(v, players)) == size
        assert v.most_choice(players) == (players - 1) * offers + 2 <= MAX_CHOICE
        game = new_game(v, players, seed=1)
        enc = observation_encoder(v, players)
        assert len(enc.encode(game.observation(0))) == len(enc.labels)
        factors = action_factors(v, players)
        seat = game.current_player
        assert seat is not None
        chosen: list[int] = []
        while (step := factors.next(game, seat, chosen)) is not None:
            chosen.append(step[1][-1])
        assert factors.compose(chosen) in game.legal_actions()


def test_simulate_and_search_bots_play_it(house: Path) -> None:
    result = cardshop.simulate(house, players=6, games=2, bots="greedy", seed=3, workers=1)
    assert len(result) == 2
    v = as_reglamentacja(cardshop.load_variant(house))
    game = new_game(v, 2, seed=5)
    bot = make_bot("ismcts:10", v, 1)
    for _ in range(6):
        seat = game.current_player
        assert seat is not None
        action = bot.choose(game.observation(seat), game.legal_actions())
        assert action in game.legal_actions()
        game.apply(action)


def load(tmp_path: Path, body: str) -> object:
    path = tmp_path / "v.yaml"
    path.write_text("extends: reglamentacja\nname: v\n" + body, encoding="utf-8")
    return cardshop.load_variant(path)


def test_bounds_are_checked_per_player_count_and_say_what_fits(tmp_path: Path) -> None:
    with pytest.raises(VariantError, match=r"at 6 players.*max_trade 2 fits.*\{3: 3, 6: 2\}"):
        load(tmp_path, "players: {min: 3, max: 6}\n")
    with pytest.raises(VariantError, match="no entry for 3 players"):
        load(tmp_path, "max_trade: {4: 2}\n")
    with pytest.raises(VariantError, match="whole number from 1 to 4"):
        load(tmp_path, "max_trade: {3: 9}\n")
    with pytest.raises(VariantError, match="at least 2 players"):
        load(tmp_path, "players: {min: 1, max: 3}\n")


def test_settings_without_effect_are_warnings(tmp_path: Path) -> None:
    v = as_reglamentacja(
        load(
            tmp_path,
            "players: {min: 4, max: 5}\nthree_players_without_meal_visits: true\n"
            "max_trade: {2: 2, 4: 2, 9: 1}\ncategories: [fix-up, meal, cake, event, gift]\n"
            "stamps: {sugar: 5, meat: 5, flour: 5, alcohol: 5, butter: 5, soap: 5, "
            "chocolate: 5, tea: 5}\n",
        )
    )
    keys = {path for path, _ in v.semantic_warnings()}
    assert keys == {
        ("stamps", "tea"),
        ("categories", 4),
        ("three_players_without_meal_visits",),
        ("max_trade", 2),
        ("max_trade", 9),
    }
    assert as_reglamentacja(cardshop.load_variant("reglamentacja")).semantic_warnings() == []
