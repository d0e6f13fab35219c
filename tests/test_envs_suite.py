"""Every built-in variant, and the tiny test family, as both PettingZoo environments.

PettingZoo's ``api_test``, ``seed_test``, ``parallel_api_test`` and
``parallel_seed_test`` run on every built-in variant (listed at run time) at its
smallest and largest player count, with flat actions and, for a family that offers
them, factored ones; then the two new ways of playing are checked for what the
checkers cannot see: a turn-based game in the Parallel environment (only the acting
agent's action counts) and a simultaneous game in the AEC environment (choices held
back, unseen, until the tick is played), against each other and against PettingZoo's
own converters. The games the environments played before (AEC of turn-based
variants, Parallel of simultaneous ones) are pinned by digests of whole seeded games.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test
from pettingzoo.utils.conversions import (
    aec_to_parallel,
    parallel_to_aec,
    turn_based_aec_to_parallel,
)

import cardshop
import tinyfamily
from cardshop import GameStateError, IllegalActionError
from cardshop.core.game import Dynamics
from cardshop.core.registry import get_family, unregister_family
from cardshop.envs import ShopAECEnv, ShopParallelEnv, env, parallel_env
from diff_support import under_model
from tinyfamily import TinyVariant

TINY = Path(__file__).parent / "tinyfamily"


def tiny_variant(name: str) -> TinyVariant:
    return TinyVariant.model_validate(yaml.safe_load((TINY / f"{name}.yaml").read_text()))


TINY_SEQ = tiny_variant("tiny-seq")
TINY_SIM = tiny_variant("tiny-sim")


@pytest.fixture(autouse=True, scope="module")
def _tiny_family() -> Iterator[None]:
    """The tiny family is known only while these tests run."""
    tinyfamily.register()
    yield
    unregister_family(tinyfamily.NAME)


def _setups() -> list[Any]:
    """(variant, players, actions) for every built-in variant at its smallest and
    largest player count, factored too where its family offers it; then the tiny
    family's two variants (flat: its factored space belongs to another test file)."""
    out: list[Any] = []
    for name in cardshop.builtin_variants():
        variant = cardshop.load_variant(name)
        kinds = ["flat"]
        if get_family(variant.family).factored is not None:
            kinds.append("factored")
        for players in sorted({variant.players.min, variant.players.max}):
            for actions in kinds:
                out.append(pytest.param(name, players, actions, id=f"{name}-{players}p-{actions}"))
    for tiny in (TINY_SEQ, TINY_SIM):
        for players in (tiny.players.min, tiny.players.max):
            out.append(pytest.param(tiny, players, "flat", id=f"{tiny.name}-{players}p-flat"))
    return out


SETUPS = _setups()

# PettingZoo's api_test warns about any dict observation unless the environment is one of
# PettingZoo's own classic games, which it exempts by name; these two warnings are about
# that, not about a fault. Every other warning fails the test.
DICT_OBSERVATION_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}

CYCLES = 120
"""Cycles of each PettingZoo checker: enough for every phase of a short game and many
ticks of a long one, little enough for the whole file to take well under a minute."""


def _checked(run: Callable[[], None]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_WARNINGS


@pytest.mark.parametrize(("variant", "players", "actions"), SETUPS)
def test_aec_api_and_seed_tests(variant: Any, players: int, actions: Any) -> None:
    _checked(lambda: api_test(env(variant, players, actions=actions), num_cycles=CYCLES))
    _checked(lambda: seed_test(lambda: env(variant, players, actions=actions), CYCLES))


@pytest.mark.parametrize(("variant", "players", "actions"), SETUPS)
def test_parallel_api_and_seed_tests(variant: Any, players: int, actions: Any) -> None:
    made = parallel_env(variant, players, actions=actions)
    _checked(lambda: parallel_api_test(made, num_cycles=CYCLES))
    # the seed test samples actions without their masks: an illegal one ends the game
    _checked(
        lambda: parallel_seed_test(
            lambda: parallel_env(variant, players, illegal_reward=-1.0, actions=actions),
            num_cycles=CYCLES,
        )
    )


# ------------------------------------------------------------------ helpers


def _masked(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def _plain(part: Any) -> Any:
    """A value as its digest sees it: numbers as floats (a reward of 0 and of 0.0, a
    numpy bool and a bool, are the same), sequences item by item."""
    if isinstance(part, list | tuple):
        return tuple(_plain(p) for p in part)
    if isinstance(part, bool | int | float | np.bool_ | np.number):
        return float(part)
    return part


def _digest(parts: list[Any]) -> str:
    """A short digest of a played game (arrays by dtype and bytes, the rest by value)."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            h.update(part.dtype.str.encode())
            h.update(part.tobytes())
        else:
            h.update(repr(_plain(part)).encode())
    return h.hexdigest()[:16]


def play_aec(aec: Any, seed: int, limit: int = 100_000) -> list[Any]:
    """A seeded game with masked random actions: every agent's observation, reward,
    termination and truncation at each turn, and the action taken."""
    rng = np.random.default_rng(seed)
    aec.reset(seed=seed)
    out: list[Any] = []
    for steps, agent in enumerate(aec.agent_iter()):
        obs, reward, terminated, truncated, _ = aec.last()
        out += [agent, obs["observation"], obs["action_mask"], reward, terminated, truncated]
        action = None if terminated or truncated else _masked(rng, obs["action_mask"])
        out.append(action)
        aec.step(action)
        if steps >= limit:
            break
    return out


def play_parallel(par: Any, seed: int, limit: int = 100_000) -> list[Any]:
    """A seeded game with masked random actions for the agents whose mask is not empty:
    every step's observations, rewards, terminations and truncations."""
    rng = np.random.default_rng(seed)
    obs, _ = par.reset(seed=seed)
    out: list[Any] = [sorted(obs)] + [obs[a]["observation"] for a in sorted(obs)]
    steps = 0
    while par.agents and steps < limit:
        actions = {
            a: _masked(rng, obs[a]["action_mask"])
            for a in par.agents
            if obs[a]["action_mask"].any()
        }
        obs, rewards, terms, truncs, _ = par.step(actions)
        out.append(sorted(actions.items()))
        for a in sorted(obs):
            out += [a, obs[a]["observation"], obs[a]["action_mask"]]
        out += [sorted(rewards.items()), sorted(terms.items()), sorted(truncs.items())]
        steps += 1
    return out


def _dynamics(variant: Any, players: int) -> Dynamics:
    return ShopAECEnv(variant, players).table.dynamics


# ------------------------------------------- what the environments played before

# Digests of whole seeded games, recorded with the environments as they were before
# each could play the other kind of variant: the AEC environment's turn-based games and
# the Parallel environment's simultaneous ones must stay exactly what they were. A game
# longer than LIMIT steps is cut there (Wühltisch's games run to thousands of ticks).
# They were played under chance model 1, which the built-ins drew by then.
LIMIT = 3000
PINNED = {
    ("aec", "klunker-en", 4, "flat", 3): "09ae9ba446e6036c",
    ("aec", "klunker-zh", 3, "flat", 5): "b2fffa7bd2c47d2f",
    ("aec", "reglamentacja", 4, "flat", 2): "d67b1e6920f5f238",
    ("aec", "reglamentacja", 3, "factored", 7): "b47c80670297e7b6",
    ("parallel", "wuhltisch", 3, "flat", 4): "0cb03ade0c6218a7",
}


@pytest.mark.parametrize("key", sorted(PINNED), ids=lambda k: "-".join(map(str, k)))
def test_earlier_games_are_unchanged(key: tuple[str, str, int, str, int]) -> None:
    kind, name, players, actions, seed = key
    variant = under_model(name, 1)  # the built-ins drew by chance model 1 then
    if kind == "aec":
        played = play_aec(ShopAECEnv(variant, players, actions=actions), seed, LIMIT)  # type: ignore[arg-type]
    else:
        played = play_parallel(ShopParallelEnv(variant, players, actions=actions), seed, LIMIT)  # type: ignore[arg-type]
    assert _digest(played) == PINNED[key]


def test_earlier_tiny_games_are_unchanged() -> None:
    assert _digest(play_aec(ShopAECEnv(TINY_SEQ, 3), 9)) == "83dced254273d087"
    assert _digest(play_parallel(ShopParallelEnv(TINY_SIM, 3), 9)) == "39f5be37fa00cf01"


# ------------------------------------------ a turn-based game, all agents at once


TURN_BASED = [("klunker-en", 3), ("reglamentacja", 4), (TINY_SEQ, 2)]


@pytest.mark.parametrize(("variant", "players"), TURN_BASED)
def test_parallel_turn_based_only_the_acting_agent_has_a_mask_and_the_rest_is_ignored(
    variant: Any, players: int
) -> None:
    par = ShopParallelEnv(variant, players)
    obs, _ = par.reset(seed=2)
    game = par.game
    assert game is not None
    assert game.dynamics is Dynamics.SEQUENTIAL
    rng = np.random.default_rng(2)
    junk: list[Any] = [None, -1, 10**9, "anything"]
    for step in range(60):
        assert set(obs) == set(par.agents) == set(par.possible_agents)
        (seat,) = game.acting
        acting = par.possible_agents[seat]
        for agent in par.agents:
            assert bool(obs[agent]["action_mask"].any()) is (agent == acting)
            mine = par.possible_agents.index(agent)
            assert np.array_equal(
                obs[agent]["observation"], par.encoder.encode(game.observation(mine))
            )
        moves = len(game.moves)
        actions = {a: junk[step % len(junk)] for a in par.agents if a != acting}
        actions[acting] = _masked(rng, obs[acting]["action_mask"])
        obs, _, terms, _, _ = par.step(actions)
        assert [m.seat for m in game.moves[moves:]] == [seat]
        if any(terms.values()):
            break


def test_parallel_turn_based_needs_the_acting_agent_and_checks_it() -> None:
    par = ShopParallelEnv("klunker-en", 3)
    par.reset(seed=1)
    game = par.game
    assert game is not None
    (seat,) = game.acting
    acting = par.possible_agents[seat]
    others = {a: 0 for a in par.agents if a != acting}
    with pytest.raises(GameStateError, match=f"{acting} acts in this tick"):
        par.step(others)
    before = game.clone()
    with pytest.raises(IllegalActionError, match="buy 0"):
        par.step({**others, acting: par.action_map.index("buy 0")})  # fill phase
    assert game == before


@pytest.mark.parametrize(
    ("variant", "players", "actions"),
    [(v, n, "flat") for v, n in TURN_BASED] + [("reglamentacja", 4, "factored")],
)
def test_parallel_turn_based_plays_the_aec_game_and_pettingzoo_s_converter_agrees(
    variant: Any, players: int, actions: Any
) -> None:
    seed = 6
    aec = ShopAECEnv(variant, players, actions=actions)
    par = ShopParallelEnv(variant, players, actions=actions)
    converted = turn_based_aec_to_parallel(ShopAECEnv(variant, players, actions=actions))
    ours = play_parallel(par, seed, LIMIT)
    assert _digest(ours) == _digest(play_parallel(converted, seed, LIMIT))
    # the AEC game with the same choices: the same moves and the same result
    play_aec(aec, seed, LIMIT)
    assert aec.game is not None
    assert par.game is not None
    assert aec.game.moves == par.game.moves
    if par.game.is_over:
        assert aec.game.result() == par.game.result()


# --------------------------------------- a simultaneous game, one agent at a time


def test_aec_simultaneous_holds_each_choice_unseen_until_the_tick_is_played() -> None:
    aec = ShopAECEnv(TINY_SIM, 3)
    aec.reset(seed=4)
    game = aec.game
    assert game is not None
    assert game.acting == (0, 1, 2)
    before = {a: aec.observe(a)["observation"].copy() for a in aec.agents}
    take = aec.action_map.index("take 0")
    assert aec.agent_selection == "player_0"
    aec.step(take)
    assert game.moves == []  # held back
    assert aec.agent_selection == "player_1"
    assert not aec.observe("player_0")["action_mask"].any()  # chose: waits
    assert aec.observe("player_1")["action_mask"].any()
    for agent in aec.agents:  # nobody sees the choice, not even in the observation vector
        assert np.array_equal(aec.observe(agent)["observation"], before[agent])
    aec.step(take)
    assert game.moves == []
    assert aec.agent_selection == "player_2"
    aec.step(aec.action_map.index("pass"))
    assert [(m.seat, str(m.action)) for m in game.moves] == [
        (0, "take 0"),
        (1, "take 0"),
        (2, "pass"),
    ]
    assert {m.step for m in game.moves} == {0}
    assert aec.agent_selection == "player_0"
    assert all(aec.observe(a)["action_mask"].any() for a in aec.agents)


def test_aec_simultaneous_illegal_choice_raises_and_changes_nothing() -> None:
    aec = ShopAECEnv(TINY_SIM, 3)
    aec.reset(seed=1)
    game = aec.game
    assert game is not None
    game.discard.append(game.market[1])  # type: ignore[attr-defined]
    game.market[1] = -1  # type: ignore[attr-defined]
    before = game.clone()
    with pytest.raises(IllegalActionError, match="player_0: take 1"):
        aec.step(aec.action_map.index("take 1"))
    assert aec.agent_selection == "player_0"
    aec.step(aec.action_map.index("take 0"))
    aec.step(aec.action_map.index("pass"))
    with pytest.raises(IllegalActionError, match="take 1"):  # the last choice of the tick
        aec.step(aec.action_map.index("take 1"))
    assert game == before
    assert aec.agent_selection == "player_2"  # the two choices made are still held
    aec.step(aec.action_map.index("pass"))
    assert [str(m.action) for m in game.moves] == ["take 0", "pass", "pass"]


def test_aec_simultaneous_illegal_reward_ends_the_game() -> None:
    wrapped = env("wuhltisch", 2, illegal_reward=-2.0)
    wrapped.reset(seed=1)
    obs, *_ = wrapped.last()
    offender = wrapped.agent_selection
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    wrapped.step(illegal)
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[offender] == -2.0


SIMULTANEOUS = [("wuhltisch", 2), ("wuhltisch", 5), (TINY_SIM, 4)]


@pytest.mark.parametrize(("variant", "players"), SIMULTANEOUS)
def test_aec_simultaneous_plays_the_parallel_game_and_pettingzoo_s_converters_agree(
    variant: Any, players: int
) -> None:
    seed = 3
    assert _dynamics(variant, players) is Dynamics.SIMULTANEOUS
    par = ShopParallelEnv(variant, players)
    ours = play_parallel(par, seed, LIMIT)
    # PettingZoo's AEC-to-Parallel converter over the AEC environment plays the same
    # game, step for step (every live seat of these variants acts in every tick)
    converted = aec_to_parallel(ShopAECEnv(variant, players))
    assert _digest(play_parallel(converted, seed, LIMIT)) == _digest(ours)
    # and the AEC environment's game is the Parallel one when each agent in turn makes
    # the choice the Parallel player made
    aec = ShopAECEnv(variant, players)
    aec.reset(seed=seed)
    assert par.game is not None
    ticks: dict[int, dict[int, Any]] = {}
    for move in par.game.moves:
        ticks.setdefault(move.step, {})[move.seat] = move.action
    for tick in sorted(ticks):
        for seat in sorted(ticks[tick]):
            assert aec.agent_selection == f"player_{seat}"
            aec.step(aec.action_map.index(ticks[tick][seat]))
    assert aec.game is not None
    assert aec.game.moves == par.game.moves
    # PettingZoo's Parallel-to-AEC converter over the Parallel environment agrees with it
    back = parallel_to_aec(ShopParallelEnv(variant, players))
    assert _digest(play_aec(back, seed, LIMIT)) == _digest(
        play_aec(ShopAECEnv(variant, players), seed, LIMIT)
    )


def test_the_aec_environment_says_when_pettingzoo_may_convert_it() -> None:
    assert ShopAECEnv(TINY_SIM, 2).metadata["is_parallelizable"] is True
    assert ShopAECEnv("wuhltisch", 2).metadata["is_parallelizable"] is True
    assert ShopAECEnv("klunker-en", 3).metadata["is_parallelizable"] is False
    assert ShopAECEnv.metadata["is_parallelizable"] is False


def test_an_unknown_variant_is_refused_by_both() -> None:
    for make in (env, parallel_env):
        with pytest.raises(cardshop.CardshopError, match="no-such-variant"):
            make("no-such-variant", 3)
