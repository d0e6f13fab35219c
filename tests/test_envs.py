"""The RL environments: PettingZoo's and Gymnasium's own checkers on every family present
(Klunker's editions and the tiny test family, turn-based and simultaneous), the action
map, the observation vector, rewards, action masks, Klunker's spaces and the example."""

from __future__ import annotations

import ast
import copy
import importlib.util
import random
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
import yaml
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import cardshop
import cardshop.klunker
import tinyfamily
from cardshop import Action, ActionParseError, GameStateError, IllegalActionError, SetupError
from cardshop.core.game import Dynamics
from cardshop.core.registry import (
    get_family,
    unregister_family,
)
from cardshop.core.series import Series
from cardshop.envs import (
    GYM_ID,
    SHOP_GYM_ID,
    ActionMap,
    KlunkerAECEnv,
    KlunkerGymEnv,
    ObservationEncoder,
    ShopAECEnv,
    ShopGymEnv,
    ShopParallelEnv,
    env,
    parallel_env,
    reward_function,
    table_text,
)
from cardshop.klunker import spaces as klunker_spaces
from tinyfamily import TinyVariant

ROOT = Path(__file__).resolve().parents[1]
TINY = Path(__file__).parent / "tinyfamily"


def tiny_variant(name: str) -> TinyVariant:
    return TinyVariant.model_validate(yaml.safe_load((TINY / f"{name}.yaml").read_text()))


TINY_SEQ = tiny_variant("tiny-seq")
TINY_SIM = tiny_variant("tiny-sim")


def _dynamics(name: str) -> Dynamics:
    return cardshop.new_game(name, cardshop.load_variant(name).players.min, seed=0).dynamics


ALL_SETUPS = [
    (name, n)
    for name in cardshop.builtin_variants()
    for n in range(
        cardshop.load_variant(name).players.min, cardshop.load_variant(name).players.max + 1
    )
]
SETUPS = [(name, n) for name, n in ALL_SETUPS if _dynamics(name) is Dynamics.SEQUENTIAL]
"""Built-in setups whose seats take turns: the AEC environment's."""
SIMULTANEOUS_SETUPS = [s for s in ALL_SETUPS if s not in SETUPS]
"""Built-in setups whose seats act together: the Parallel environment's."""
KLUNKER_SETUPS = [(n, p) for n, p in SETUPS if cardshop.load_variant(n).family == "klunker"]
TINY_PLAYERS = range(TINY_SEQ.players.min, TINY_SEQ.players.max + 1)


@pytest.fixture(autouse=True, scope="module")
def _tiny_family() -> Iterator[None]:
    """The tiny family is known only while these tests run."""
    tinyfamily.register()
    yield
    unregister_family(tinyfamily.NAME)


# PettingZoo's api_test warns about any dict observation unless the environment is one of
# PettingZoo's own classic games, which it exempts by name; these two warnings are about
# that, not about a fault. Every other warning fails the test.
DICT_OBSERVATION_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}


def play_randomly(aec: ShopAECEnv, seed: int) -> list[str]:
    """Play a whole game with masked random actions; return the agents in acting order."""
    rng = np.random.default_rng(seed)
    order = []
    aec.reset(seed=seed)
    for agent in aec.agent_iter():
        obs, _, terminated, truncated, _ = aec.last()
        order.append(agent)
        if terminated or truncated:
            aec.step(None)
        else:
            aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return order


def masked_choice(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def empty_market_slot(game: Any, slot: int) -> None:
    """Discard the tiny game's market card at ``slot``: taking that slot becomes illegal."""
    game.discard.append(game.market[slot])
    game.market[slot] = -1


# ------------------------------------------------------------------ PettingZoo AEC


def run_api_test(made: Any) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(made, num_cycles=1000)
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_WARNINGS


@pytest.mark.parametrize(("variant", "players"), SETUPS)
def test_pettingzoo_api_test(variant: str, players: int) -> None:
    run_api_test(env(variant, players=players))


@pytest.mark.parametrize("players", TINY_PLAYERS)
def test_pettingzoo_api_test_on_the_tiny_family(players: int) -> None:
    made = env(TINY_SEQ, players=players)
    assert made.unwrapped.metadata["name"] == "cardshop_tinymarket_v0"
    run_api_test(made)


@pytest.mark.parametrize("variant", [*dict.fromkeys(name for name, _ in SETUPS), TINY_SEQ])
def test_pettingzoo_seed_test(variant: str | TinyVariant) -> None:
    seed_test(lambda: env(variant, players=3), num_cycles=500)


def test_aec_is_not_parallelizable() -> None:
    # A game where one seat acts at a time has no parallel form, and says so;
    # simultaneous variants have their own environment (below).
    assert ShopAECEnv.metadata["is_parallelizable"] is False


def test_seeded_resets_replay_the_same_game_and_different_seeds_differ() -> None:
    for variant in ("klunker-en", TINY_SEQ):
        a, b = ShopAECEnv(variant, 3), ShopAECEnv(variant, 3)
        assert play_randomly(a, 5) == play_randomly(b, 5)
        assert a.game is not None
        assert b.game is not None
        assert a.game.moves == b.game.moves
        assert a.game.seed == b.game.seed
        play_randomly(b, 6)
        assert b.game.seed != a.game.seed


def test_first_player_option_is_passed_to_the_family_and_unknown_options_ignored() -> None:
    aec = KlunkerAECEnv("klunker-en", 4)
    aec.reset(seed=1, options={"first_player": 2})
    assert aec.agent_selection == "player_2"
    aec.reset(seed=1, options={"first_player": 1, "something": "else"})
    assert aec.agent_selection == "player_1"
    tiny = ShopAECEnv(TINY_SEQ, 3)
    tiny.reset(seed=1, options={"first_player": 2})  # the tiny family has no such option
    assert tiny.agent_selection == "player_0"


@pytest.mark.parametrize(("variant", "players"), [("klunker-zh", 5), (TINY_SEQ, 4)])
def test_agent_to_act_is_the_acting_seat_and_only_it_has_a_mask(
    variant: str | TinyVariant, players: int
) -> None:
    aec = ShopAECEnv(variant, players)
    aec.reset(seed=3)
    rng = np.random.default_rng(0)
    assert aec.game is not None
    while not aec.game.is_over:
        (seat,) = aec.game.acting
        assert aec.agent_selection == f"player_{seat}"
        masks = {a: aec.observe(a)["action_mask"] for a in aec.agents}
        assert all(not m.any() for a, m in masks.items() if a != aec.agent_selection)
        aec.step(masked_choice(rng, masks[aec.agent_selection]))


@pytest.mark.parametrize(
    ("variant", "players"), [("klunker-en", 3), ("klunker-es", 6), ("klunker-zh", 4), (TINY_SEQ, 2)]
)
def test_mask_is_exactly_the_legal_actions_throughout_games(
    variant: str | TinyVariant, players: int
) -> None:
    aec = ShopAECEnv(variant, players)
    aec.reset(seed=11)
    rng = np.random.default_rng(11)
    game = aec.game
    assert game is not None
    while not game.is_over:
        mask = aec.observe(aec.agent_selection)["action_mask"]
        chosen = [aec.action_map.action(i) for i in np.flatnonzero(mask)]
        assert sorted(map(str, chosen)) == sorted(map(str, game.legal_actions(game.acting[0])))
        aec.step(masked_choice(rng, mask))


def test_observation_vector_is_the_encoded_observation_of_that_seat() -> None:
    for variant, players in (("klunker-es", 5), (TINY_SEQ, 3)):
        aec = ShopAECEnv(variant, players)
        aec.reset(seed=2)
        assert aec.game is not None
        for _ in range(8):
            for seat, agent in enumerate(aec.possible_agents):
                expected = aec.encoder.encode(aec.game.observation(seat))
                got = aec.observe(agent)["observation"]
                assert got.dtype == np.float32
                assert np.array_equal(got, expected)
                assert aec.observation_space(agent).contains(aec.observe(agent))
            aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[-1]))


def test_illegal_action_raises_and_leaves_the_game_unchanged() -> None:
    aec = KlunkerAECEnv("klunker-en", 4)
    aec.reset(seed=1)
    assert aec.game is not None
    before = aec.game.clone()
    with pytest.raises(IllegalActionError, match="buy 0"):
        aec.step(aec.action_map.index("buy 0"))  # fill phase: buying is illegal
    assert aec.game == before
    assert aec.game.moves == []


def test_illegal_reward_wrapper_ends_the_game_with_that_reward() -> None:
    wrapped = env("klunker-en", 4, illegal_reward=-5.0)
    wrapped.reset(seed=1)
    offender = wrapped.agent_selection
    wrapped.step(wrapped.unwrapped.action_map.index("decline"))
    assert all(wrapped.terminations.values())
    rewards = {}
    for agent in wrapped.agent_iter():
        _, reward, _, _, _ = wrapped.last()
        rewards[agent] = reward
        wrapped.step(None)
    assert rewards[offender] == -5.0
    assert {r for a, r in rewards.items() if a != offender} == {0.0}


def paid_rewards(aec: ShopAECEnv, seed: int) -> dict[str, float]:
    """Play a random game; return the reward each agent collected by its last step."""
    rng = np.random.default_rng(seed)
    aec.reset(seed=seed)
    paid = {}
    for agent in aec.agent_iter():
        obs, total, terminated, truncated, _ = aec.last()
        paid[agent] = total
        if terminated or truncated:
            aec.step(None)
        else:
            aec.step(masked_choice(rng, obs["action_mask"]))
    return paid


@pytest.mark.parametrize("variant", ["klunker-en", TINY_SEQ])
@pytest.mark.parametrize("reward", ["score", "rank", "win"])
def test_rewards_are_paid_once_at_the_end_from_the_result(
    variant: str | TinyVariant, reward: str
) -> None:
    aec = ShopAECEnv(variant, 4, reward=reward)  # type: ignore[arg-type]
    paid = paid_rewards(aec, 4)
    assert aec.game is not None
    result = aec.game.result()
    got = [paid[f"player_{s}"] for s in range(4)]
    if reward == "score":
        assert got == list(map(float, result.scores))
    elif reward == "win":
        assert {s for s in range(4) if got[s] == 1.0} == set(result.winners)
        assert {s for s in range(4) if got[s] == 0.0} == set(range(4)) - set(result.winners)
    else:
        assert got == [1.0 - 2.0 * (rank - 1) / 3 for rank in result.ranks]
        assert got[result.order[0]] == 1.0


def test_no_reward_before_the_end() -> None:
    aec = KlunkerAECEnv("klunker-es", 5, reward="score")
    aec.reset(seed=1)
    assert aec.game is not None
    while not aec.game.is_over:
        assert set(aec.rewards.values()) == {0.0}
        assert set(aec._cumulative_rewards.values()) == {0.0}
        aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[-1]))
    assert list(aec.rewards.values()) == list(map(float, aec.game.result().scores))


def test_reward_function_accepts_callables_and_rejects_unknown_names() -> None:
    aec = KlunkerAECEnv("klunker-en", 3, reward=lambda result, seat: float(result.rounds + seat))
    paid = paid_rewards(aec, 9)
    assert aec.game is not None
    rounds = aec.game.result().rounds
    assert paid == {f"player_{s}": float(rounds + s) for s in range(3)}
    with pytest.raises(SetupError, match="unknown reward 'money'"):
        reward_function("money")  # type: ignore[arg-type]


def test_round_cap_truncates_instead_of_terminating() -> None:
    capped = cardshop.parse_variant(
        "extends: klunker-en\nname: klunker-one-round\nround_cap: 1\n",
        base_dir=ROOT / "variants",
    )
    aec = KlunkerAECEnv(capped, 3, reward="win")
    aec.reset(seed=0)
    rng = np.random.default_rng(0)
    while not any(aec.truncations.values()) and not any(aec.terminations.values()):
        aec.step(masked_choice(rng, aec.observe(aec.agent_selection)["action_mask"]))
    assert aec.game is not None
    assert aec.game.result().termination == cardshop.Termination.CAPPED
    assert all(aec.truncations.values())
    assert not any(aec.terminations.values())
    assert sum(aec._cumulative_rewards.values()) >= 1.0  # the winners were paid


def test_tiny_step_cap_truncates_too() -> None:
    short = TINY_SEQ.model_copy(update={"step_cap": 2})
    aec = ShopAECEnv(short, 3)
    aec.reset(seed=0)
    aec.step(aec.action_map.index("take 0"))
    assert not any(aec.truncations.values())
    aec.step(aec.action_map.index("take 1"))
    assert all(aec.truncations.values())
    assert not any(aec.terminations.values())


def test_render_draws_every_seat_and_human_mode_prints(capsys: pytest.CaptureFixture[str]) -> None:
    aec = KlunkerAECEnv("klunker-en", 3, render_mode="ansi")
    aec.reset(seed=1)
    assert aec.game is not None
    text = aec.render()
    assert text is not None
    for seat in range(3):
        assert f"seat {seat}: cash {aec.game.cash(seat)}" in text
    human = KlunkerAECEnv("klunker-en", 3, render_mode="human")
    human.reset(seed=1)
    assert human.render() is None
    assert capsys.readouterr().out.strip() == text
    tiny = ShopAECEnv(TINY_SEQ, 3, render_mode="ansi")
    tiny.reset(seed=1)
    assert tiny.game is not None
    assert tiny.render() == get_family("tinymarket").render(tiny.game, None)


def test_unknown_render_mode_player_count_and_variant_are_setup_errors() -> None:
    with pytest.raises(SetupError, match="render mode 'rgb_array'"):
        KlunkerAECEnv("klunker-en", 4, render_mode="rgb_array")
    with pytest.raises(SetupError, match="3 to 5 players, not 6"):
        KlunkerAECEnv("klunker-en", 6)
    with pytest.raises(SetupError, match="2 to 4 players, not 5"):
        ShopAECEnv(TINY_SEQ, 5)
    with pytest.raises(SetupError, match="not a variant"):
        ShopAECEnv(42, 3)  # type: ignore[arg-type]
    stray = TINY_SEQ.model_copy(update={"family": "nosuchfamily"})
    with pytest.raises(SetupError, match="unknown family 'nosuchfamily'"):
        ShopAECEnv(stray, 3)


def test_each_pettingzoo_environment_plays_both_kinds_and_refuses_what_is_no_variant() -> None:
    # Both play turn-based and simultaneous variants (tests/test_envs_suite.py checks
    # how); what is not a variant, or a player count it does not allow, is still
    # refused by both.
    assert env(TINY_SIM, 3).unwrapped.simultaneous
    assert not parallel_env(TINY_SEQ, 3).simultaneous
    assert not parallel_env("klunker-en", 3).simultaneous
    for make in (env, parallel_env):
        with pytest.raises(SetupError, match="not a variant"):
            make(42, 3)  # type: ignore[arg-type]
        with pytest.raises(SetupError, match="2 to 4 players, not 5"):
            make(TINY_SIM, 5)


# ------------------------------------------------------------- PettingZoo Parallel


@pytest.mark.parametrize("players", TINY_PLAYERS)
def test_pettingzoo_parallel_api_test(players: int) -> None:
    made = parallel_env(TINY_SIM, players)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parallel_api_test(made, num_cycles=1000)
    assert made.agents == []  # the game was played to its end


def test_pettingzoo_parallel_seed_test() -> None:
    parallel_seed_test(lambda: parallel_env(TINY_SIM, 3), num_cycles=500)


@pytest.mark.parametrize(("variant", "players"), SIMULTANEOUS_SETUPS)
def test_pettingzoo_parallel_tests_on_the_built_in_simultaneous_variants(
    variant: str, players: int
) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(parallel_env(variant, players), num_cycles=300)
        # the seed test samples actions without their masks: an illegal one ends the game
        parallel_seed_test(
            lambda: parallel_env(variant, players, illegal_reward=-1.0), num_cycles=100
        )
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_WARNINGS


def play_parallel(penv: ShopParallelEnv, seed: int) -> list[dict[str, float]]:
    """Play a game with masked random actions; return the rewards of every tick."""
    rng = np.random.default_rng(seed)
    obs, _ = penv.reset(seed=seed)
    paid = []
    while penv.agents:
        actions = {
            a: masked_choice(rng, obs[a]["action_mask"])
            for a in penv.agents
            if obs[a]["action_mask"].any()
        }
        obs, rewards, _, _, _ = penv.step(actions)
        paid.append(rewards)
    return paid


def test_parallel_step_is_one_tick_of_every_acting_seat() -> None:
    penv = ShopParallelEnv(TINY_SIM, 3, reward="rank")
    obs, infos = penv.reset(seed=4)
    game = penv.game
    assert game is not None
    assert set(obs) == set(infos) == set(penv.possible_agents)
    assert game.acting == (0, 1, 2)
    for agent in penv.agents:
        seat = penv.possible_agents.index(agent)
        assert np.array_equal(
            obs[agent]["observation"], penv.encoder.encode(game.observation(seat))
        )
        assert obs[agent]["action_mask"].tolist() == [1, 1, 1, 1]
    take = penv.action_map.index("take 0")
    obs, rewards, terminations, truncations, _ = penv.step(
        {"player_0": take, "player_1": take, "player_2": penv.action_map.index("pass")}
    )
    assert {m.step for m in game.moves} == {0}
    assert [(m.seat, str(m.action)) for m in game.moves] == [
        (0, "take 0"),
        (1, "take 0"),
        (2, "pass"),
    ]
    assert game.discard, "two seats took the same card: it is discarded"
    assert rewards == dict.fromkeys(penv.possible_agents, 0.0)
    assert not any(terminations.values())
    assert not any(truncations.values())
    paid = play_parallel(penv, 4)
    assert penv.game is not None
    final = penv.game.result()
    assert paid[-1] == {f"player_{s}": reward_function("rank")(final, s) for s in range(3)}
    assert all(set(r.values()) == {0.0} for r in paid[:-1])


def test_parallel_step_needs_every_acting_agent_and_checks_all_before_applying() -> None:
    penv = ShopParallelEnv(TINY_SIM, 3)
    penv.reset(seed=1)
    assert penv.game is not None
    before = penv.game.clone()
    with pytest.raises(GameStateError, match="player_2 acts in this tick"):
        penv.step({"player_0": 0, "player_1": 0})
    with pytest.raises(GameStateError, match="not live: player_7"):
        penv.step({"player_0": 0, "player_1": 0, "player_2": 0, "player_7": 0})
    empty_market_slot(penv.game, 1)
    before = penv.game.clone()
    with pytest.raises(IllegalActionError, match="player_1: take 1"):
        penv.step({"player_0": 0, "player_1": penv.action_map.index("take 1"), "player_2": 0})
    assert penv.game == before
    assert penv.game.moves == []


def test_parallel_illegal_reward_ends_the_episode() -> None:
    penv = ShopParallelEnv(TINY_SIM, 3, illegal_reward=-3.0)
    penv.reset(seed=1)
    assert penv.game is not None
    empty_market_slot(penv.game, 2)
    before = penv.game.clone()
    _, rewards, terminations, _, infos = penv.step(
        {"player_0": 0, "player_1": 0, "player_2": penv.action_map.index("take 2")}
    )
    assert rewards == {"player_0": 0.0, "player_1": 0.0, "player_2": -3.0}
    assert all(terminations.values())
    assert infos["player_2"] == {"illegal_action": True}
    assert penv.agents == []
    assert penv.game == before
    with pytest.raises(GameStateError, match="call reset"):
        penv.step({})


def test_parallel_games_replay_from_their_seed() -> None:
    a, b = ShopParallelEnv(TINY_SIM, 4), ShopParallelEnv(TINY_SIM, 4)
    assert play_parallel(a, 8) == play_parallel(b, 8)
    assert a.game is not None
    assert b.game is not None
    assert a.game.moves == b.game.moves
    assert a.game.is_over


# ------------------------------------------------------------------ the action map


@pytest.mark.parametrize(("variant", "players"), KLUNKER_SETUPS)
def test_action_map_round_trips_every_index_and_text(variant: str, players: int) -> None:
    amap = ActionMap(variant, players)
    kinds = len(amap.variant.cards)  # type: ignore[attr-defined]
    assert len(amap) == 3 * kinds + players + 3
    game = cardshop.new_game(variant, players, seed=0)
    for i, text in enumerate(amap.texts):
        assert amap.index(text) == i
        assert amap.index(amap.action(i)) == i
        assert game.parse_action(text) == amap.action(i)  # every entry is an action of the game


def test_action_map_documented_layout() -> None:
    amap = ActionMap("klunker-en", 4)
    kinds = list(amap.variant.cards)  # type: ignore[attr-defined]
    k = len(kinds)
    assert amap.texts[:k] == tuple(f"window {kind}" for kind in kinds)
    assert amap.texts[k] == "done"
    assert amap.texts[k + 1 : 2 * k + 1] == tuple(f"store {kind}" for kind in kinds)
    assert amap.texts[2 * k + 1] == "pass"
    assert amap.texts[2 * k + 2 : 2 * k + 6] == ("buy 0", "buy 1", "buy 2", "buy 3")
    assert amap.texts[2 * k + 6] == "decline"
    assert amap.texts[2 * k + 7 :] == tuple(f"sell {kind}" for kind in kinds)
    assert list(amap.actions) == klunker_spaces.action_space(amap.variant, 4)


def test_action_map_of_the_tiny_family_is_its_action_space() -> None:
    amap = ActionMap(TINY_SIM, 3)
    assert amap.texts == ("pass", "take 0", "take 1", "take 2")
    assert amap.index("take 2") == 3


def test_action_map_rejects_what_is_not_an_action() -> None:
    amap = ActionMap("klunker-en", 3)
    with pytest.raises(ActionParseError, match="'buy 3' is not an action"):
        amap.index("buy 3")
    with pytest.raises(ActionParseError, match="out of range"):
        amap.action(len(amap))
    with pytest.raises(ActionParseError, match="out of range"):
        amap.action(-1)
    assert amap.action(np.int64(0)) == Action("window", "tongue-bob")


# ---------------------------------------------------------- the observation vector


def test_encoder_names_match_the_observation_fields() -> None:
    game = cardshop.new_game("klunker-en", 4, seed=8)
    rng = np.random.default_rng(8)
    for _ in range(60):
        game.apply(game.legal_actions()[int(rng.integers(len(game.legal_actions())))])
    enc = ObservationEncoder("klunker-en", 4)
    obs = game.observation(2)
    vec = dict(zip(enc.names, enc.encode(obs).tolist(), strict=True))
    assert len(vec) == len(enc) == len(enc.high)
    assert vec[f"phase.{obs.phase.value}"] == 1.0
    assert vec["seat[2]"] == 1.0
    assert vec[f"current_player[{obs.current_player}]"] == 1.0
    assert vec["round"] == obs.round
    assert vec["deck_size"] == obs.deck_size
    for s in range(4):
        assert vec[f"cash[{s}]"] == obs.cash[s]
        assert vec[f"hand_sizes[{s}]"] == obs.hand_sizes[s]
        assert vec[f"purchase_cards[{s}]"] == obs.purchase_cards[s]
        for i, kind in enumerate(obs.kinds):
            assert vec[f"safes[{s}].{kind}"] == obs.safes[s][i]
            assert vec[f"windows[{s}].{kind}"] == obs.windows[s][i]
    for i, kind in enumerate(obs.kinds):
        assert vec[f"hand.{kind}"] == obs.hand[i]
        assert vec[f"discard.{kind}"] == obs.discard[i]


def test_vector_hides_what_the_seat_may_not_know() -> None:
    game = cardshop.new_game("klunker-en", 4, seed=1)
    position = game.to_position()
    other = copy.deepcopy(position)
    hand = other["seats"][1]["hand"]
    kind = next(k for k, c in hand.items() if c)
    swap = next(k for k in other["deck"] if k != kind)
    hand[kind] -= 1
    hand[swap] = hand.get(swap, 0) + 1
    deck = other["deck"]
    deck[deck.index(swap)] = kind  # seat 1 holds another card; the deck holds its old one
    other["deck"] = deck[::-1]  # and the deck order changes too
    a = cardshop.Game.from_position(position)
    b = cardshop.Game.from_position(other)
    enc = ObservationEncoder("klunker-en", 4)
    assert np.array_equal(enc.encode(a.observation(0)), enc.encode(b.observation(0)))
    assert not np.array_equal(enc.encode(a.observation(1)), enc.encode(b.observation(1)))


def test_encoder_refuses_another_games_observation() -> None:
    enc = ObservationEncoder("klunker-en", 4)
    with pytest.raises(SetupError, match="with 4 players"):
        enc.encode(cardshop.new_game("klunker-en", 3, seed=0).observation(0))
    tiny = get_family("tinymarket").new_game(TINY_SEQ, 4, seed=0)
    with pytest.raises(SetupError, match="not a Klunker observation"):
        enc.encode(tiny.observation(0))


# ---------------------------------------------------------- the Klunker family object


def test_klunker_family_is_registered_by_its_entry_point() -> None:
    family = get_family("klunker")
    assert family is cardshop.klunker.FAMILY
    assert family.dynamics is Dynamics.SEQUENTIAL
    assert family.variant_model is cardshop.klunker.Variant
    assert family.digest == "rules.md"


def test_klunker_spaces_are_plain_python_and_match_the_environments() -> None:
    variant = cardshop.load_variant("klunker-es")
    game = get_family("klunker").new_game(variant, 5, seed=3)
    encoder = klunker_spaces.Encoder(variant, 5)
    values = encoder.encode(game.observation(2))
    assert all(type(v) is float for v in values)
    assert len(values) == len(encoder.labels) == len(encoder.low) == len(encoder.high)
    assert all(lo <= v <= hi for lo, v, hi in zip(encoder.low, values, encoder.high, strict=True))
    assert np.array_equal(
        np.array(values, dtype=np.float32),
        ObservationEncoder(variant, 5).encode(game.observation(2)),
    )
    assert ObservationEncoder(variant, 5).labels == encoder.labels
    with pytest.raises(SetupError, match="3 to 6 players, not 7"):
        klunker_spaces.action_space(variant, 7)
    with pytest.raises(SetupError, match="not a Klunker variant"):
        klunker_spaces.Encoder(TINY_SEQ, 3)


def test_klunker_family_games_follow_the_protocol() -> None:
    family = get_family("klunker")
    variant = cardshop.load_variant("klunker-en")
    game = family.new_game(variant, 4, seed=5, first_player=1)
    assert game.acting == (1,)
    legal = game.legal_actions(1)
    with pytest.raises(GameStateError, match="does not act now"):
        game.legal_actions(0)
    with pytest.raises(GameStateError, match="does not act now"):
        game.apply(legal[0], 0)
    copy_ = game.clone()
    game.apply(legal[0], 1)
    assert game.moves[0].seat == 1
    assert game.moves[0].action == legal[0]
    assert copy_.moves == []
    again = family.game_from_dict(game.to_dict())
    assert again == game
    assert again.acting == game.acting
    rng = random.Random(0)
    assert family.sampler is not None
    seat = game.acting[0]
    sampled = family.sampler(game.observation(seat), variant, rng)
    assert sampled.observation(seat) == game.observation(seat)
    positioned = family.game_from_position(game.to_position(), variant)
    assert positioned.observation(seat) == game.observation(seat)


def test_render_shows_a_seat_its_own_hand_only() -> None:
    game = cardshop.new_game("klunker-en", 3, seed=2)
    everything = table_text(game)
    mine = table_text(game, 1)
    assert everything == klunker_spaces.render(game, None)
    hand = lambda s: game.zone_counts(f"hand:{s}")  # noqa: E731
    for seat in range(3):
        listed = ", ".join(f"{k} {c}" for k, c in hand(seat).items())
        assert f"  hand   {listed}" in everything
        if seat == 1:
            assert f"  hand   {listed}" in mine
        else:
            assert f"  hand   {listed}" not in mine
            assert f"  hand   {sum(hand(seat).values())} cards" in mine


def test_envs_import_no_family() -> None:
    envs = ROOT / "src" / "cardshop" / "envs"
    for path in sorted(envs.glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            assert not any(n.startswith("cardshop.klunker") for n in names), (
                f"{path.name}:{node.lineno} imports a family"  # type: ignore[attr-defined]
            )


# ------------------------------------------------------------------ Gymnasium


@pytest.mark.parametrize(
    ("variant", "players", "opponents"),
    [
        ("klunker-en", 4, "random"),
        ("klunker-es", 6, "greedy"),
        ("klunker-zh", 3, ["greedy", "random"]),
        ("wuhltisch", 3, "greedy"),
        ("reglamentacja", 3, "greedy"),
    ],
)
def test_gymnasium_check_env(
    variant: str, players: int, opponents: str | list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    made = gymnasium.make(
        GYM_ID, variant=variant, players=players, opponents=opponents, render_mode="human"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(made.unwrapped)
    assert "seat 0" in capsys.readouterr().out


@pytest.mark.parametrize("variant", [TINY_SEQ, TINY_SIM])
@pytest.mark.parametrize("seat", [0, 2])
def test_gymnasium_check_env_on_the_tiny_family(variant: TinyVariant, seat: int) -> None:
    made = gymnasium.make(SHOP_GYM_ID, variant=variant, players=3, seat=seat)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(made.unwrapped)
    assert isinstance(made.unwrapped, ShopGymEnv)


def gym_episode(genv: ShopGymEnv, seed: int) -> tuple[list[int], float, dict[str, Any]]:
    obs, info = genv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    taken, reward, done = [], 0.0, False
    while not done:
        assert np.array_equal(genv.action_masks(), obs["action_mask"].astype(bool))
        action = masked_choice(rng, obs["action_mask"])
        taken.append(action)
        obs, reward, terminated, truncated, info = genv.step(action)
        done = terminated or truncated
    return taken, reward, info


@pytest.mark.parametrize(("variant", "opponents"), [("klunker-en", "greedy"), (TINY_SIM, "random")])
def test_gymnasium_episode_is_reproducible_and_ends_with_the_result(
    variant: str | TinyVariant, opponents: str
) -> None:
    def episode(seed: int) -> tuple[list[int], float, object]:
        genv = ShopGymEnv(variant, 4, seat=1, opponents=opponents, reward="rank")
        taken, reward, info = gym_episode(genv, seed)
        assert genv.game is not None
        assert reward == reward_function("rank")(genv.game.result(), 1)
        assert info["scores"] == genv.game.result().scores
        assert not genv.action_masks().any()
        return taken, reward, info["scores"]

    assert episode(3) == episode(3)


def test_gymnasium_agent_acts_only_for_its_seat_and_bots_play_the_rest() -> None:
    genv = KlunkerGymEnv("klunker-zh", 5, seat=None, opponents="random")
    seats = set()
    for seed in range(6):
        obs, info = genv.reset(seed=seed)
        assert genv.game is not None
        assert genv.game.current_player == genv.seat == info["seat"]
        assert np.array_equal(obs["action_mask"], info["action_mask"])
        seats.add(genv.seat)
    assert len(seats) > 1  # seat=None draws the seat


def test_gymnasium_simultaneous_step_joins_the_bots_in_one_tick() -> None:
    genv = ShopGymEnv(TINY_SIM, 3, seat=1)
    obs, _ = genv.reset(seed=2)
    game = genv.game
    assert game is not None
    assert game.acting == (0, 1, 2)
    for tick in range(3):
        action = masked_choice(np.random.default_rng(tick), obs["action_mask"])
        obs, *_ = genv.step(action)
        moves = [m for m in game.moves if m.step == tick]
        assert [m.seat for m in moves] == [0, 1, 2]
        assert moves[1].action == genv.action_map.action(action)
        if game.is_over:
            break


def test_gymnasium_action_masks_are_the_legal_actions_of_the_agents_seat() -> None:
    genv = ShopGymEnv(TINY_SEQ, 3, seat=2)
    genv.reset(seed=0)
    game = genv.game
    assert game is not None
    assert game.acting == (2,)  # the bots of seats 0 and 1 played first
    masks = genv.action_masks()
    assert masks.dtype == np.bool_
    legal = [genv.action_map.action(i) for i in np.flatnonzero(masks)]
    assert legal == game.legal_actions(2)
    empty_market_slot(game, 0)
    assert not genv.action_masks()[genv.action_map.index("take 0")]
    with pytest.raises(GameStateError, match="reset"):
        ShopGymEnv(TINY_SEQ, 3).action_masks()


def test_gymnasium_illegal_action_costs_the_penalty_and_changes_nothing() -> None:
    genv = KlunkerGymEnv("klunker-en", 4, illegal_reward=-2.5)
    obs, _ = genv.reset(seed=0)
    assert genv.game is not None
    before = genv.game.clone()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs2, reward, terminated, truncated, info = genv.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-2.5, False, False, True)
    assert genv.game == before
    assert np.array_equal(obs["observation"], obs2["observation"])
    strict = KlunkerGymEnv("klunker-en", 4, illegal_reward=None)
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(illegal)


def test_gymnasium_accepts_bot_objects_and_checks_the_opponent_count() -> None:
    from cardshop.bots import RandomBot
    from cardshop.klunker import GreedyBot

    genv = KlunkerGymEnv("klunker-en", 3, opponents=[GreedyBot(seed=1), RandomBot(seed=2)])
    obs, _ = genv.reset(seed=0)
    assert obs["action_mask"].any()
    with pytest.raises(SetupError, match="3 players need 2"):
        KlunkerGymEnv("klunker-en", 3, opponents=["random"])
    with pytest.raises(SetupError, match=r"seat must be one of 0\.\.2"):
        KlunkerGymEnv("klunker-en", 3, seat=3)
    tiny = ShopGymEnv(TINY_SIM, 2, opponents=[RandomBot(seed=5)])
    obs, _ = tiny.reset(seed=0)
    assert obs["action_mask"].all()


# ------------------------------------------------------------- packaging edges


def test_import_cardshop_loads_no_rl_library() -> None:
    code = (
        "import sys, cardshop; "
        "print(sorted(m for m in ('numpy', 'gymnasium', 'pettingzoo') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_example_random_agent_prints_mean_rewards() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "random_agent.py"), "--episodes", "3"],
        capture_output=True,
        text=True,
        check=True,
    )
    means = re.findall(r"mean reward (-?\d+\.\d+)", proc.stdout)
    assert len(means) == 2
    assert all(float(m) >= 0.0 for m in means)  # rewards are scores: never negative


@pytest.mark.parametrize("variant", [TINY_SEQ, TINY_SIM])
def test_example_random_agent_plays_any_family(variant: TinyVariant) -> None:
    spec = importlib.util.spec_from_file_location(
        "random_agent", ROOT / "examples" / "random_agent.py"
    )
    assert spec is not None
    assert spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    rewards = example.pettingzoo_episodes(variant, 3, 2, 0)
    assert len(rewards) == 2 * 3  # every seat of every game
    assert all(r > 0 for r in rewards)  # tiny scores include the secret card
    returns = example.gymnasium_episodes(variant, 3, 2, 0, "random")
    assert len(returns) == 2
    assert all(r > 0 for r in returns)


# ------------------------------------------------------------------ matches (series)


def tiny_match(name: str, games_per_player: int = 2) -> TinyVariant:
    data = yaml.safe_load((TINY / f"{name}.yaml").read_text())
    data |= {"name": f"{name}-match", "match": {"games_per_player": games_per_player}}
    return TinyVariant.model_validate(data)


def test_klunker_zh_aec_env_plays_the_whole_match_and_pays_its_result() -> None:
    aec = ShopAECEnv("klunker-zh", 3, reward="score")
    aec.reset(seed=5)
    rng = np.random.default_rng(5)
    paid: dict[str, float] = {}
    for agent in aec.agent_iter():
        obs, reward, terminated, truncated, _ = aec.last()
        if terminated or truncated:
            paid[agent] = reward
            aec.step(None)
        else:
            assert reward == 0  # nothing is paid between the games of the match
            aec.step(masked_choice(rng, obs["action_mask"]))
    game = aec.game
    assert isinstance(game, Series)
    assert game.is_over
    assert len(game.results) == 3  # one game per player (MATCH-1)
    result = game.result()
    assert result.scores == tuple(sum(r.scores[s] for r in game.results) for s in range(3))
    assert [paid[f"player_{s}"] for s in range(3)] == [float(t) for t in result.scores]


def test_series_observation_vector_is_the_counters_then_the_family_s_vector() -> None:
    aec = ShopAECEnv("klunker-zh", 3)
    aec.reset(seed=2)
    family_encoder = klunker_spaces.Encoder(cardshop.load_variant("klunker-zh"), 3)
    labels = aec.encoder.names
    assert labels[:5] == (
        "series.game",
        "series.games_left",
        "series.totals[0]",
        "series.totals[1]",
        "series.totals[2]",
    )
    assert labels[5:] == tuple(family_encoder.labels)
    rng = np.random.default_rng(2)
    game = aec.game
    assert isinstance(game, Series)
    while game.game_index == 0:
        aec.step(masked_choice(rng, aec.observe(aec.agent_selection)["action_mask"]))
    totals = game.results[0].scores
    for seat in range(3):
        vector = aec.observe(f"player_{seat}")["observation"]
        assert list(vector[:5]) == [1.0, 1.0, *map(float, totals)]
        inner = family_encoder.encode(game.current.observation(seat))
        assert np.array_equal(vector[5:], np.array(inner, dtype=np.float32))
        assert aec.observation_space(f"player_{seat}").contains(aec.observe(f"player_{seat}"))


@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_api_and_seed_tests_on_a_tiny_match(players: int) -> None:
    variant = tiny_match("tiny-seq")
    run_api_test(env(variant, players=players))
    seed_test(lambda: env(variant, players=players), num_cycles=300)


def test_pettingzoo_parallel_tests_on_a_tiny_simultaneous_match() -> None:
    variant = tiny_match("tiny-sim")
    made = parallel_env(variant, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parallel_api_test(made, num_cycles=1000)
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_WARNINGS
    parallel_seed_test(lambda: parallel_env(variant, 3), num_cycles=300)
    made.reset(seed=1)
    assert isinstance(made.game, Series)
    assert made.game.games == 6


@pytest.mark.parametrize("name", ["tiny-seq", "tiny-sim"])
def test_gymnasium_check_env_on_tiny_matches(name: str) -> None:
    made = gymnasium.make(SHOP_GYM_ID, variant=tiny_match(name), players=3, seat=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(made.unwrapped)
    genv = made.unwrapped
    assert isinstance(genv, ShopGymEnv)
    _, _, info = gym_episode(genv, seed=4)
    assert isinstance(genv.game, Series)
    assert len(genv.game.results) == 6
    assert info["scores"] == genv.game.result().scores


def test_klunker_zh_gym_env_renders_the_match_line() -> None:
    genv = KlunkerGymEnv("klunker-zh", 3, seat=0, opponents="greedy")
    genv.reset(seed=1)
    text = table_text(genv.game)
    assert text.startswith("match klunker-zh: game 1 of 3, totals [0, 0, 0]\n")
    assert "seat 0: cash" in text
