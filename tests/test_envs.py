"""The RL environments: PettingZoo's and Gymnasium's own checkers, the action map, the
observation vector, rewards, and the example script."""

from __future__ import annotations

import copy
import re
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import cardshop
from cardshop import Action, ActionParseError, IllegalActionError, SetupError
from cardshop.envs import (
    GYM_ID,
    ActionMap,
    KlunkerAECEnv,
    KlunkerGymEnv,
    ObservationEncoder,
    env,
    reward_function,
)

ROOT = Path(__file__).resolve().parents[1]
SETUPS = [
    (name, n)
    for name in cardshop.builtin_variants()
    for n in range(
        cardshop.load_variant(name).players.min, cardshop.load_variant(name).players.max + 1
    )
]

# PettingZoo's api_test warns about any dict observation unless the environment is one of
# PettingZoo's own classic games, which it exempts by name; these two warnings are about
# that, not about a fault. Every other warning fails the test.
DICT_OBSERVATION_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}


def play_randomly(aec: KlunkerAECEnv, seed: int) -> list[str]:
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


# ------------------------------------------------------------------ PettingZoo


@pytest.mark.parametrize(("variant", "players"), SETUPS)
def test_pettingzoo_api_test(variant: str, players: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env(variant, players=players), num_cycles=1000)
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_WARNINGS


@pytest.mark.parametrize("variant", cardshop.builtin_variants())
def test_pettingzoo_seed_test(variant: str) -> None:
    seed_test(lambda: env(variant, players=3), num_cycles=500)


def test_max_cycles_test_does_not_apply() -> None:
    # pettingzoo.test.max_cycles_test needs a parallel environment; a card game where
    # one seat acts at a time has none, and the metadata says so.
    assert KlunkerAECEnv.metadata["is_parallelizable"] is False


def test_seeded_resets_replay_the_same_game_and_different_seeds_differ() -> None:
    a, b = KlunkerAECEnv("klunker-en", 4), KlunkerAECEnv("klunker-en", 4)
    assert play_randomly(a, 5) == play_randomly(b, 5)
    assert a.game is not None
    assert b.game is not None
    assert a.game.history == b.game.history
    assert a.game.seed == b.game.seed
    play_randomly(b, 6)
    assert b.game.seed != a.game.seed


def test_first_player_option_sets_the_first_start_player() -> None:
    aec = KlunkerAECEnv("klunker-en", 4)
    aec.reset(seed=1, options={"first_player": 2})
    assert aec.agent_selection == "player_2"


def test_agent_to_act_is_the_games_current_player_and_only_it_has_a_mask() -> None:
    aec = KlunkerAECEnv("klunker-zh", 5)
    aec.reset(seed=3)
    rng = np.random.default_rng(0)
    assert aec.game is not None
    while not aec.game.is_over:
        seat = aec.game.current_player
        assert aec.agent_selection == f"player_{seat}"
        masks = {a: aec.observe(a)["action_mask"] for a in aec.agents}
        assert all(not m.any() for a, m in masks.items() if a != aec.agent_selection)
        aec.step(int(rng.choice(np.flatnonzero(masks[aec.agent_selection]))))


def test_mask_is_exactly_the_legal_actions_throughout_games() -> None:
    for variant, players in [("klunker-en", 3), ("klunker-es", 6), ("klunker-zh", 4)]:
        aec = KlunkerAECEnv(variant, players)
        aec.reset(seed=11)
        rng = np.random.default_rng(11)
        game = aec.game
        assert game is not None
        while not game.is_over:
            mask = aec.observe(aec.agent_selection)["action_mask"]
            chosen = [aec.action_map.action(i) for i in np.flatnonzero(mask)]
            assert sorted(map(str, chosen)) == [str(a) for a in game.legal_actions()]
            aec.step(int(rng.choice(np.flatnonzero(mask))))


def test_observation_vector_is_the_encoded_observation_of_that_seat() -> None:
    aec = KlunkerAECEnv("klunker-es", 5)
    aec.reset(seed=2)
    assert aec.game is not None
    for _ in range(40):
        for seat, agent in enumerate(aec.possible_agents):
            expected = aec.encoder.encode(aec.game.observation(seat))
            got = aec.observe(agent)["observation"]
            assert got.dtype == np.float32
            assert np.array_equal(got, expected)
            assert aec.observation_space(agent).contains(aec.observe(agent))
        aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))


def test_illegal_action_raises_and_leaves_the_game_unchanged() -> None:
    aec = KlunkerAECEnv("klunker-en", 4)
    aec.reset(seed=1)
    assert aec.game is not None
    before = aec.game.clone()
    with pytest.raises(IllegalActionError, match="buy 0"):
        aec.step(aec.action_map.index("buy 0"))  # fill phase: buying is illegal
    assert aec.game == before


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


@pytest.mark.parametrize("reward", ["score", "rank", "win"])
def test_rewards_are_paid_once_at_the_end_from_the_result(reward: str) -> None:
    aec = KlunkerAECEnv("klunker-en", 4, reward=reward)  # type: ignore[arg-type]
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


def paid_rewards(aec: KlunkerAECEnv, seed: int) -> dict[str, float]:
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
            aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return paid


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
        mask = aec.observe(aec.agent_selection)["action_mask"]
        aec.step(int(rng.choice(np.flatnonzero(mask))))
    assert aec.game is not None
    assert aec.game.termination == cardshop.Termination.CAPPED
    assert all(aec.truncations.values())
    assert not any(aec.terminations.values())
    assert sum(aec._cumulative_rewards.values()) >= 1.0  # the winners were paid


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


def test_unknown_render_mode_and_player_count_are_setup_errors() -> None:
    with pytest.raises(SetupError, match="render mode 'rgb_array'"):
        KlunkerAECEnv("klunker-en", 4, render_mode="rgb_array")
    with pytest.raises(SetupError, match="3 to 5 players, not 6"):
        KlunkerAECEnv("klunker-en", 6)


# ------------------------------------------------------------------ the action map


@pytest.mark.parametrize(("variant", "players"), SETUPS)
def test_action_map_round_trips_every_index_and_text(variant: str, players: int) -> None:
    amap = ActionMap(variant, players)
    kinds = len(amap.variant.cards)
    assert len(amap) == 3 * kinds + players + 3
    game = cardshop.new_game(variant, players, seed=0)
    for i, text in enumerate(amap.texts):
        assert amap.index(text) == i
        assert amap.index(amap.action(i)) == i
        assert game.parse_action(text) == amap.action(i)  # every entry is an action of the game


def test_action_map_documented_layout() -> None:
    amap = ActionMap("klunker-en", 4)
    kinds = list(amap.variant.cards)  # tongue-bob ... necklace, as in the YAML
    k = len(kinds)
    assert amap.texts[:k] == tuple(f"window {kind}" for kind in kinds)
    assert amap.texts[k] == "done"
    assert amap.texts[k + 1 : 2 * k + 1] == tuple(f"store {kind}" for kind in kinds)
    assert amap.texts[2 * k + 1] == "pass"
    assert amap.texts[2 * k + 2 : 2 * k + 6] == ("buy 0", "buy 1", "buy 2", "buy 3")
    assert amap.texts[2 * k + 6] == "decline"
    assert amap.texts[2 * k + 7 :] == tuple(f"sell {kind}" for kind in kinds)


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


# ------------------------------------------------------------------ Gymnasium


@pytest.mark.parametrize(
    ("variant", "players", "opponents"),
    [
        ("klunker-en", 4, "random"),
        ("klunker-es", 6, "greedy"),
        ("klunker-zh", 3, ["greedy", "random"]),
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
    assert "seat 0: cash" in capsys.readouterr().out


def test_gymnasium_episode_is_reproducible_and_ends_with_the_result() -> None:
    def episode(seed: int) -> tuple[list[int], float, object]:
        genv = KlunkerGymEnv("klunker-en", 4, seat=1, opponents="greedy", reward="rank")
        obs, _ = genv.reset(seed=seed)
        rng = np.random.default_rng(seed)
        taken, reward, done, info = [], 0.0, False, {}
        while not done:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            taken.append(action)
            obs, reward, terminated, truncated, info = genv.step(action)
            done = terminated or truncated
        assert genv.game is not None
        assert reward == reward_function("rank")(genv.game.result(), 1)
        assert info["scores"] == genv.game.result().scores
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
    from cardshop.bots import GreedyBot, RandomBot

    genv = KlunkerGymEnv("klunker-en", 3, opponents=[GreedyBot(seed=1), RandomBot(seed=2)])
    obs, _ = genv.reset(seed=0)
    assert obs["action_mask"].any()
    with pytest.raises(SetupError, match="3 players need 2"):
        KlunkerGymEnv("klunker-en", 3, opponents=["random"])
    with pytest.raises(SetupError, match=r"seat must be one of 0\.\.2"):
        KlunkerGymEnv("klunker-en", 3, seat=3)


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
