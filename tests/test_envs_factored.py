"""Factored action spaces: Reglamentacja's parts agree exactly with its legal actions,
and the environments with ``actions="factored"`` pass PettingZoo's and Gymnasium's
checkers, apply only whole legal actions and replay under a seed."""

from __future__ import annotations

import dataclasses
import math
import random
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import cardshop
import tinyfamily
from cardshop import Action, Game, IllegalActionError, Seat, SetupError
from cardshop.core.registry import (
    get_family,
    register_family,
    unregister_family,
)
from cardshop.envs import ShopAECEnv, ShopGymEnv, ShopParallelEnv, env, parallel_env
from cardshop.reglamentacja.spaces import ReglamentacjaFactors, action_factors
from cardshop.reglamentacja.strategies import variants as reglamentacja_variants

REGL = cardshop.load_variant("reglamentacja")
REGL_FILE = Path(__file__).resolve().parents[1] / "variants" / "reglamentacja.yaml"

DICT_OBSERVATION_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}


# ------------------------------------------------- the tiny family, factored in two digits


class DigitFactors:
    """Any flat action space as two steps: the action's number in base ``b``, high digit
    then low digit (what a family without structure could offer)."""

    def __init__(self, actions: Sequence[Action]) -> None:
        self.actions = tuple(actions)
        self.index = {a: i for i, a in enumerate(self.actions)}
        self.base = math.isqrt(len(self.actions) - 1) + 1
        digits = tuple(str(d) for d in range(self.base))
        self.steps = ("high", "low")
        self.options = (digits, digits)

    def next(self, game: Game, seat: Seat, chosen: Sequence[int]) -> tuple[int, list[int]] | None:
        legal = [self.index[a] for a in game.legal_actions(seat)]
        if not chosen:
            return 0, sorted({i // self.base for i in legal})
        if len(chosen) == 1:
            return 1, sorted({i % self.base for i in legal if i // self.base == chosen[0]})
        return None

    def compose(self, chosen: Sequence[int]) -> Action:
        return self.actions[chosen[0] * self.base + chosen[1]]

    def decompose(self, action: Action) -> tuple[int, ...]:
        return divmod(self.index[action], self.base)


def _digits(variant: Any, players: int) -> DigitFactors:
    return DigitFactors(tinyfamily.FAMILY.action_space(variant, players))


@pytest.fixture(autouse=True, scope="module")
def _tiny_factored_family() -> Iterator[None]:
    register_family(dataclasses.replace(tinyfamily.FAMILY, factored=_digits), replace=True)
    yield
    unregister_family(tinyfamily.NAME)


def tiny(name: str) -> Any:
    from test_envs import tiny_variant

    return tiny_variant(name)


# ------------------------------------------------------ Reglamentacja's parts, exactly


def sampled_states(players: int, seed: int, each: int) -> Iterator[tuple[Game, Seat]]:
    """States of a game played by choosing parts at random (so every kind of decision
    comes up): the first ``each`` of every kind (the set of legal verbs)."""
    factors = action_factors(REGL, players)
    game = cardshop.new_game(REGL, players, seed=seed)
    rng = random.Random(seed)
    kinds: dict[frozenset[str], int] = {}
    while not game.is_over:
        seat = game.acting[0]
        kind = frozenset(a.verb for a in game.legal_actions(seat))
        kinds[kind] = kinds.get(kind, 0) + 1
        if kinds[kind] <= each:
            yield game.clone(), seat
        chosen: list[int] = []
        while (found := factors.next(game, seat, chosen)) is not None:
            chosen.append(rng.choice(list(found[1])))
        game.apply(factors.compose(chosen), seat)


def reference(paths: set[tuple[int, ...]]) -> dict[tuple[int, ...], set[int]]:
    """Every proper prefix of the legal actions' choices, with the options after it."""
    out: dict[tuple[int, ...], set[int]] = {}
    for path in paths:
        for i in range(len(path)):
            out.setdefault(path[:i], set()).add(path[i])
    return out


def check_exact(
    factors: ReglamentacjaFactors, game: Game, seat: Seat, rng: random.Random, walks: int
) -> set[str]:
    """The parts agree with the legal actions of ``seat``: at every prefix visited, the
    options listed are exactly those the legal actions continue with, a prefix is whole
    exactly when it is a legal action's, and every walk composes a legal action. Visits
    every prefix of up to ``walks`` legal actions and ``walks`` random walks; returns
    the kinds of decision seen."""
    legal = game.legal_actions(seat)
    paths = {factors.decompose(a) for a in legal}
    assert len(paths) == len(legal)
    assert all(factors.compose(factors.decompose(a)) == a for a in legal)
    prefixes = reference(paths)

    def agree(prefix: tuple[int, ...]) -> None:
        found = factors.next(game, seat, prefix)
        if prefix in paths:
            assert found is None, prefix
        else:
            assert found is not None, prefix
            assert set(found[1]) == prefixes[prefix], prefix
            assert list(found[1]) == sorted(found[1])

    for action in rng.sample(legal, min(walks, len(legal))):
        path = factors.decompose(action)
        for i in range(len(path) + 1):
            agree(path[:i])
    for _ in range(walks):
        chosen: tuple[int, ...] = ()
        while (found := factors.next(game, seat, chosen)) is not None:
            agree(chosen)
            chosen = (*chosen, rng.choice(list(found[1])))
        assert factors.compose(chosen) in legal
    return {a.verb for a in legal}


@pytest.mark.parametrize("players", [3, 4, 5])
def test_reglamentacja_parts_agree_with_the_legal_actions_on_sampled_states(
    players: int,
) -> None:
    factors = action_factors(REGL, players)
    rng = random.Random(players)
    seen: set[str] = set()
    for game, seat in sampled_states(players, seed=players, each=2):
        seen |= check_exact(factors, game, seat, rng, walks=30)
    assert {"offer", "reject", "pass", "buy", "speculate", "stop", "discard"} <= seen


@settings(max_examples=15, deadline=None)
@given(
    reglamentacja_variants(max_kinds=4, max_turn_cap=6),
    st.integers(0, 2**32 - 1),
    st.data(),
)
def test_reglamentacja_parts_are_exact_on_small_variants_every_prefix(
    variant: Any, seed: int, data: st.DataObject
) -> None:
    players = data.draw(st.integers(variant.players.min, variant.players.max))
    factors = action_factors(variant, players)
    game = cardshop.new_game(variant, players, seed=seed)
    rng = random.Random(seed)
    for _ in range(40):
        if game.is_over:
            break
        seat = game.acting[0]
        legal = game.legal_actions(seat)
        prefixes = reference({factors.decompose(a) for a in legal})
        # every prefix the parts lead to, depth first: exactly the legal actions' prefixes
        reached: set[tuple[int, ...]] = set()
        stack: list[tuple[int, ...]] = [()]
        whole: set[Action] = set()
        while stack:
            chosen = stack.pop()
            found = factors.next(game, seat, chosen)
            if found is None:
                whole.add(factors.compose(chosen))
                continue
            reached.add(chosen)
            stack.extend((*chosen, o) for o in found[1])
        assert reached == set(prefixes)
        assert whole == set(legal)
        game.apply(rng.choice(legal), seat)


def test_reglamentacja_factored_steps_are_small() -> None:
    factors = action_factors(REGL, 5)
    assert max(len(o) for o in factors.options) == len(factors.options[0]) == 9
    assert len(factors.steps) == len(factors.options) == 2 * REGL.rules.k + 5


# ------------------------------------------------------------------ the environments


def run_api_test(made: Any, cycles: int) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(made, num_cycles=cycles)
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_WARNINGS


@pytest.mark.parametrize("players", [3, 5])
def test_pettingzoo_api_test_on_reglamentacja_factored(players: int) -> None:
    run_api_test(env("reglamentacja", players, actions="factored"), cycles=400)


@pytest.mark.parametrize("name", ["tiny-seq"])
def test_pettingzoo_api_and_seed_tests_on_the_tiny_family_factored(name: str) -> None:
    run_api_test(env(tiny(name), 3, actions="factored"), cycles=1000)
    seed_test(lambda: env(tiny(name), 3, actions="factored"), num_cycles=200)


def test_pettingzoo_parallel_tests_on_the_tiny_family_factored() -> None:
    variant = tiny("tiny-sim")
    parallel_api_test(parallel_env(variant, 3, actions="factored"), num_cycles=1000)
    parallel_seed_test(lambda: parallel_env(variant, 3, actions="factored"))


@pytest.mark.parametrize(("variant", "players"), [("reglamentacja", 4), ("tiny-seq", 2)])
def test_gymnasium_check_env_factored(variant: str, players: int) -> None:
    made = tiny(variant) if variant.startswith("tiny") else variant
    genv = ShopGymEnv(made, players, opponents="random", actions="factored")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(genv, skip_render_check=True)


def test_family_without_factored_space_is_a_setup_error() -> None:
    assert get_family("klunker").factored is None
    with pytest.raises(SetupError, match="no factored action space"):
        ShopGymEnv("klunker-en", 4, actions="factored")
    with pytest.raises(SetupError, match="'flat' or 'factored'"):
        ShopAECEnv("reglamentacja", 4, actions="parts")  # type: ignore[arg-type]


def gym_episode(seed: int, steps: int = 400) -> tuple[list[int], list[np.ndarray], list[str]]:
    """Masked random steps in the factored Gymnasium env: actions, observations and the
    moves of the game."""
    genv = ShopGymEnv("reglamentacja", 4, opponents="greedy", actions="factored")
    obs, _ = genv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions, seen = [], [obs["observation"]]
    for _ in range(steps):
        action = int(rng.choice(np.flatnonzero(genv.action_masks())))
        obs, _, terminated, truncated, _ = genv.step(action)
        actions.append(action)
        seen.append(obs["observation"])
        if terminated or truncated:
            break
    assert genv.game is not None
    return actions, seen, [str(m) for m in genv.game.moves]


def test_gymnasium_factored_episode_is_deterministic_under_a_seed() -> None:
    first, second, other = gym_episode(5), gym_episode(5), gym_episode(6)
    assert first[0] == second[0]
    assert first[2] == second[2]
    assert all(np.array_equal(a, b) for a, b in zip(first[1], second[1], strict=True))
    assert first[2] != other[2]


def test_gymnasium_factored_steps_move_the_game_only_with_a_whole_action() -> None:
    genv = ShopGymEnv("reglamentacja", 4, seat=1, opponents="greedy", actions="factored")
    obs, _ = genv.reset(seed=2)
    game = genv.game
    assert game is not None
    chooser: Any = genv.chooser
    names = [n for n in genv.encoder.names] + list(chooser.names)
    assert obs["observation"].shape == (len(names),)
    step_part = obs["observation"][len(genv.encoder.names) :][: len(chooser.factors.steps)]
    assert step_part.tolist() == [1.0] + [0.0] * (len(step_part) - 1)  # the verb first
    rng = np.random.default_rng(0)
    offers = 0
    for _ in range(300):
        mask = genv.action_masks()
        moves = len(game.moves)
        chosen_before = chooser.chosen(1)
        action = 1 if not chosen_before and mask[1] else int(rng.choice(np.flatnonzero(mask)))
        obs, _, terminated, truncated, _ = genv.step(action)
        if terminated or truncated:
            break
        if chooser.chosen(1):  # a choice going on: nothing applied yet
            assert len(game.moves) == moves
        else:  # completed: its action is the agent's move, legal when made
            mine = [m for m in game.moves[moves:] if m.seat == 1]
            assert len(mine) == 1
            offers += mine[0].action.verb == "offer"
    assert offers > 0


def test_gymnasium_factored_illegal_option_changes_nothing() -> None:
    genv = ShopGymEnv("reglamentacja", 4, opponents="greedy", actions="factored")
    genv.reset(seed=3)
    game = genv.game
    assert game is not None
    illegal = int(np.flatnonzero(~genv.action_masks())[0])
    before = game.clone()
    _obs, reward, terminated, _, info = genv.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, False, True)
    assert game == before
    strict = ShopGymEnv("reglamentacja", 4, illegal_reward=None, actions="factored")
    strict.reset(seed=3)
    with pytest.raises(IllegalActionError, match="not legal at step 'verb'"):
        strict.step(int(np.flatnonzero(~strict.action_masks())[0]))


def test_parallel_factored_agents_wait_until_every_choice_is_whole() -> None:
    penv = ShopParallelEnv(tiny("tiny-sim"), 3, actions="factored")
    obs, _ = penv.reset(seed=4)
    game = penv.game
    assert game is not None
    rng = np.random.default_rng(4)
    ticks = waits = 0
    while penv.agents and ticks < 30:
        moves = len(game.moves)
        acting = {penv.possible_agents[s] for s in game.acting}
        actions = {
            a: int(rng.choice(np.flatnonzero(o["action_mask"])))
            for a, o in obs.items()
            if o["action_mask"].any()
        }
        assert set(actions) <= acting
        obs, *_ = penv.step(actions)
        waiting = {a for a in acting if a in obs and not obs[a]["action_mask"].any()}
        if len(game.moves) == moves and penv.agents:  # not yet played: someone still chooses
            assert waiting != acting
            waits += bool(waiting)
        ticks += len(game.moves) > moves
    assert ticks > 0
    assert waits > 0


def test_factored_actions_play_on_across_the_games_of_a_match() -> None:
    import yaml

    from cardshop.core.series import Series
    from cardshop.reglamentacja import ReglamentacjaVariant

    data = yaml.safe_load((REGL_FILE).read_text())
    data |= {"name": "reglamentacja-match", "match": {"games_per_player": 1}}
    variant = ReglamentacjaVariant.model_validate(data)
    genv = ShopGymEnv(variant, 3, opponents="random", actions="factored")
    genv.reset(seed=1)
    series = genv.game
    assert isinstance(series, Series)
    rng = np.random.default_rng(1)
    for _ in range(5000):
        if series.game_index > 0:
            break
        genv.step(int(rng.choice(np.flatnonzero(genv.action_masks()))))
    assert series.game_index == 1
    assert not series.is_over
    assert genv.action_masks().any()
