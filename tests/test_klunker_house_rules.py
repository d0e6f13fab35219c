"""Klunker's house-rule keys (docs/rules.md FILL-3, BUY-3, BUY-7, SETUP-3, TERM-2,
SCORE-1, SCORE-2, SELL-7): checked at load with errors that say what is possible,
warnings for settings that cannot matter, left out of a dump at their default, and
carried through game JSON and positions."""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cardshop
from cardshop import VariantError
from cardshop.bots import RandomBot
from cardshop.invariants import CheckedGame
from cardshop.klunker import Game, Variant, new_game
from cardshop.klunker.strategies import variants
from diff_support import under_model

EDITIONS = {
    "klunker-en": "1704e89bc9a76477",
    "klunker-es": "06fc4f359c516771",
    "klunker-zh": "98400cdc00993de5",
}


def load(tmp_path: Path, text: str) -> Variant:
    path = tmp_path / "house.yaml"
    path.write_text("extends: klunker-en\nname: house\n" + text, encoding="utf-8")
    variant = cardshop.load_variant(path)
    assert isinstance(variant, Variant)
    return variant


def refused(tmp_path: Path, text: str) -> str:
    with pytest.raises(VariantError) as info:
        load(tmp_path, text)
    return str(info.value)


@pytest.mark.parametrize(("name", "digest"), EDITIONS.items())
def test_editions_keep_their_hash_and_dump_no_new_key(name: str, digest: str) -> None:
    variant = under_model(name, 1)  # the editions' rules, under the model they drew by
    assert variant.content_hash[:16] == digest
    data = variant.to_data()
    now = cardshop.load_variant(name).to_data()  # the same rules, drawn by model 2
    assert now.pop("chance") == 2
    assert now == data
    for key in ("window_cap", "starting_cash_by_seat", "score", "rounds"):
        assert key not in data
    assert "per_round" not in data["purchase"]
    assert "extra_from" not in data["sale"]


def test_a_payout_above_the_set_size_needs_extra_from(tmp_path: Path) -> None:
    """SELL-7: without sale.extra_from the error names the key that allows it."""
    message = refused(tmp_path, "sale: {payout: [5, 3, 2, 1]}\n")
    assert "more than the set size 4" in message
    assert "extra_from: deck" in message
    assert load(tmp_path, "sale: {payout: [5, 3, 2, 1], extra_from: deck}\n").rules.payout[0] == 5
    message = refused(tmp_path, "sale: {payout: [5], extra_from: bank}\n")
    assert "none, deck" in message


def test_a_payout_expression_is_checked(tmp_path: Path) -> None:
    """SELL-3, SELL-7: sale.pay reads rows and kind_count; a value above the set size
    needs extra_from, as a table entry does."""
    assert "did you mean 'rows'" in refused(tmp_path, 'sale: {pay: "rowz"}\n')
    assert "can pay 26, more than the set size 4" in refused(tmp_path, 'sale: {pay: "rows + 2"}\n')
    variant = load(tmp_path, 'sale: {pay: "rows + 2", extra_from: deck}\n')
    assert variant.rules.pay_for(variant.rules.kind_index["shoes"], 3) == 5
    assert variant.rules.pay_for(variant.rules.kind_index["necklace"], 3) == 4  # SELL-5


def test_starting_cash_by_seat_is_checked(tmp_path: Path) -> None:
    """SETUP-3: one entry per seat; the deck must hold the banks and the hands."""
    assert "3 players need 3 entries" in refused(tmp_path, "starting_cash_by_seat: {3: [1, 1]}\n")
    assert "setting up 3 players needs" in refused(
        tmp_path, "starting_cash_by_seat: {3: [30, 30, 30]}\n"
    )
    assert "outside players" in refused(
        tmp_path, "starting_cash_by_seat: {6: [1, 1, 1, 1, 1, 1]}\n"
    )


def test_rounds_may_not_pass_the_round_cap(tmp_path: Path) -> None:
    """TERM-2: rounds above round_cap is refused, saying what to raise."""
    assert "raise round_cap" in refused(tmp_path, "rounds: 300\n")
    assert load(tmp_path, "rounds: 300\nround_cap: 300\n").rules.round_limit == 300


def test_price_expression_names_are_checked(tmp_path: Path) -> None:
    """BUY-3: an unknown name lists the names a price may read."""
    message = refused(tmp_path, 'purchase: {price: "windows / 2"}\n')
    assert "window" in message
    assert "buyer_cash" in message
    assert load(tmp_path, "purchase: {price: 2}\n").rules.price_expr is None


def test_tiebreak_names_are_checked(tmp_path: Path) -> None:
    """SCORE-2: a tiebreak outside the list is refused, with the valid ones."""
    message = refused(tmp_path, "tiebreak: [most_money]\n")
    assert "most_rows_sold" in message


def test_warnings_name_settings_that_cannot_matter(tmp_path: Path) -> None:
    variant = load(
        tmp_path,
        "steps: [fill, store, purchase, tax, refill]\n"
        "score: {cash: 1, hand: 0}\n"
        "window_cap: 500\n"
        "tiebreak: [fewest_safe, most_safe, most_cash]\n"
        "sale: {extra_from: deck}\n",
    )
    warned = {path: reason for path, reason in variant.semantic_warnings()}
    assert "nothing to do" in warned[("steps", 3)]
    assert "weight of hand is 0" in warned[("score", "hand")]
    assert ("score", "cash") not in warned
    assert "never reached" in warned[("window_cap",)]
    assert "repeats" in warned[("tiebreak", 1)]
    assert "the score is the cash" in warned[("tiebreak", 2)]
    assert "no row pays more" in warned[("sale", "extra_from")]
    assert cardshop.load_variant("klunker-en").semantic_warnings() == []
    laps = load(tmp_path, "purchase: {per_round: 2}\n").semantic_warnings()
    assert laps[0][0] == ("purchase", "per_round")
    assert "never buys" in laps[0][1]


def test_a_second_turn_under_ends_phase_never_buys(tmp_path: Path) -> None:
    """BUY-7: the warning above holds in play: under ends_phase no seat buys twice."""
    variant = load(tmp_path, "purchase: {per_round: 2}\n")
    reached = 0
    for seed in range(10):
        game = new_game(variant, 4, seed=seed)
        bots = [RandomBot(seed * 10 + s) for s in range(4)]
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            lap = game.purchase_lap
            action = bots[seat].choose(game.observation(seat), list(game.legal_actions()))
            if lap == 2:
                assert [str(a) for a in game.legal_actions()] == ["decline"]
                reached += 1
            game.apply(action)
    assert reached > 0


def test_a_window_above_the_cap_is_no_position(tmp_path: Path) -> None:
    """FILL-3: a position may not hold a window fuller than the cap."""
    variant = load(tmp_path, "window_cap: 2\n")
    seats: list[dict[str, object]] = [{"window": {"shoes": 3}}, {}, {}]
    with pytest.raises(cardshop.PositionError, match="window cap 2"):
        Game.from_position({"phase": "fill", "seats": seats}, variant)


def play_out(game: Game, seed: int, until: int | None = None) -> Game:
    bots = [RandomBot(seed * 10 + s) for s in range(game.players)]
    steps = 0
    while not game.is_over and (until is None or steps < until):
        seat = game.current_player
        assert seat is not None
        game.apply(bots[seat].choose(game.observation(seat), list(game.legal_actions())))
        steps += 1
    return game


HOUSE = (
    "purchase: {per_round: 2, decline: skip_turn, price: 'lap'}\n"
    "score: {rows_sold: 2, hand: -1}\n"
    "tiebreak: [most_rows_sold]\n"
)


def test_game_json_and_positions_keep_rows_sold_and_the_lap(tmp_path: Path) -> None:
    """SCORE-1, BUY-7: game JSON and positions carry what the rules read; a game
    continued from either plays on as the original does."""
    variant = load(tmp_path, HOUSE)
    laps = 0
    for seed in range(14):
        game = play_out(new_game(variant, 4, seed=seed), seed, until=40 + 7 * seed)
        if game.is_over:
            continue
        laps += game.purchase_lap > 1
        again = Game.from_json(game.to_json())
        assert again == game
        assert [again.rows_sold(s) for s in range(4)] == [game.rows_sold(s) for s in range(4)]
        assert again.purchase_lap == game.purchase_lap
        twin = Game.from_position(game.to_position(), variant)
        assert twin.purchase_lap == game.purchase_lap
        assert twin.scores() == game.scores()
        assert list(twin.legal_actions()) == list(game.legal_actions())
        assert play_out(again, seed).result() == play_out(game.clone(), seed).result()
    assert laps > 0


def test_a_lap_outside_the_purchase_step_is_refused() -> None:
    """BUY-7: a position may not claim a second purchase turn the variant lacks."""
    with pytest.raises(cardshop.PositionError, match="lap 2"):
        Game.from_position(
            {"variant": "klunker-en", "phase": "fill", "lap": 2, "seats": [{}, {}, {}]}
        )


def test_learning_environments_play_house_rules_and_reward_their_score(tmp_path: Path) -> None:
    """SCORE-1: the PettingZoo environment plays a variant with house rules through
    the API checks, and its score reward is the variant's score."""
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from cardshop.envs import env

    variant = load(tmp_path, HOUSE + "window_cap: 2\n")
    with warnings.catch_warnings():  # the dict observation's advice, as in test_envs
        warnings.simplefilter("ignore", UserWarning)
        api_test(env(variant, players=3), num_cycles=200)
    aec = env(variant, players=3, reward="score")
    aec.reset(seed=4)
    total = dict.fromkeys(aec.possible_agents, 0.0)
    for agent in aec.agent_iter():
        obs, reward, terminated, truncated, _ = aec.last()
        total[agent] += reward
        action = (
            None if terminated or truncated else aec.action_space(agent).sample(obs["action_mask"])
        )
        aec.step(action)
    game = aec.unwrapped.game
    assert game.is_over
    assert list(total.values()) == [float(x) for x in game.result().scores]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=variants(max_players=4, max_round_cap=12, house_rules=True), seed=st.integers(0, 99))
def test_generated_house_rules_keep_every_invariant(variant: Variant, seed: int) -> None:
    """FILL-3, BUY-3, BUY-7, SETUP-3, SELL-7, SCORE-1, SCORE-2, TERM-2: random play of
    random house-rule variants keeps every invariant (card conservation and the bank
    ledger with deck payouts, the score and tiebreaks, the end after rounds), and its
    game JSON and positions round-trip."""
    players = variant.players.min
    game = new_game(variant, players, seed=seed)
    checked = CheckedGame(game)
    rng = random.Random(seed)
    while not game.is_over:
        actions = list(game.legal_actions())
        checked.apply(actions[rng.randrange(len(actions))])
        if rng.random() < 0.1 and not game.is_over:
            assert Game.from_json(game.to_json()) == game
            twin = Game.from_position(game.to_position(), variant)
            assert twin.scores() == game.scores()
            assert twin.purchase_lap == game.purchase_lap
    if variant.rounds is not None:
        assert game.round <= variant.rounds
    assert not any(game.purchase_cards)  # back in the middle, however the game ended
    assert Game.from_json(game.to_json()).result() == game.result()
