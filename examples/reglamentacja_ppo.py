"""Teach MaskablePPO to play Reglamentacja on its factored actions, then test it.

Needs the ``learn`` extra (``python -m pip install ".[learn]"``: sb3-contrib and
torch). The agent plays seat 0 of a 4-player game against three of the family's
``greedy`` bots, choosing each action part by part (``actions="factored"``:
the kind of action, then an offer's seat, counts and place). It learns from the
change of its score at every step (these add up to its final score: buying a card
pays at once instead of at the game's end). After training, the trained agent and
a uniform random agent (a uniform choice among all legal actions, as the ``random``
bot plays) each play the same seeded games, and the script prints both mean scores
and their paired difference, each with a 95% confidence interval::

    python examples/reglamentacja_ppo.py --steps 150000 --games 300
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

from cardshop.envs import ShopGymEnv

OPPONENTS = "greedy"


class VectorObs(gymnasium.Wrapper[Any, Any, Any, Any]):
    """The observation vector alone (the mask reaches MaskablePPO through action_masks);
    each step pays the change of the seat's score."""

    def __init__(self, env: ShopGymEnv) -> None:
        super().__init__(env)
        self.observation_space = env.observation_space["observation"]
        self.score = 0

    def _score(self) -> int:
        base: ShopGymEnv = self.env.unwrapped
        return base.game.score(base.seat)

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self.score = self._score()
        return obs["observation"], info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        obs, final, terminated, truncated, info = self.env.step(action)
        before, self.score = self.score, self._score()
        if terminated or truncated:
            info["final_score"] = final
        return obs["observation"], float(self.score - before), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()


def make_env() -> VectorObs:
    return VectorObs(
        ShopGymEnv("reglamentacja", players=4, opponents=OPPONENTS, actions="factored")
    )


def play(env: VectorObs, seed: int, choose: Any) -> tuple[float, float]:
    """One seeded game; ``choose(env, obs)`` gives each action number. The seat's score
    and the mean score of the other seats."""
    obs, _ = env.reset(seed=seed)
    while True:
        obs, _, terminated, truncated, info = env.step(choose(env, obs))
        if terminated or truncated:
            others = [x for s, x in enumerate(info["scores"]) if s != info["seat"]]
            return float(info["final_score"]), float(np.mean(others))


def uniform_random(seed: int) -> Any:
    """Chooses a legal action uniformly, then feeds its parts to the environment."""
    rng = np.random.default_rng(seed)
    path: list[int] = []

    def choose(env: VectorObs, obs: np.ndarray) -> int:
        base: ShopGymEnv = env.unwrapped
        chooser = base.chooser
        done = len(chooser.chosen(base.seat))
        if done == 0:
            legal = base.game.legal_actions(base.seat)
            action = legal[int(rng.integers(len(legal)))]
            path[:] = chooser.factors.decompose(action)
        return path[done]

    return choose


def mean_ci(xs: np.ndarray) -> str:
    half = 1.96 * float(np.std(xs, ddof=1)) / math.sqrt(len(xs))
    return f"{float(np.mean(xs)):6.2f} +- {half:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=150_000, help="training steps")
    parser.add_argument("--games", type=int, default=300, help="evaluation games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--verbose", action="store_true", help="print training progress")
    args = parser.parse_args()
    torch.set_num_threads(1)

    start = time.perf_counter()
    venv = VecMonitor(DummyVecEnv([make_env for _ in range(8)]))
    venv.seed(args.seed)
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=256,
        batch_size=256,
        gamma=0.995,
        ent_coef=0.01,
        learning_rate=3e-4,
        policy_kwargs={"net_arch": [128, 128]},
        seed=args.seed,
        verbose=int(args.verbose),
    )
    model.learn(total_timesteps=args.steps)
    trained_for = time.perf_counter() - start
    print(f"trained {model.num_timesteps} steps in {trained_for:.0f} s")

    def trained(env: VectorObs, obs: np.ndarray) -> int:
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        return int(action)

    env = make_env()
    seeds = range(10_000, 10_000 + args.games)
    ppo, bots = np.array([play(env, s, trained) for s in seeds]).T
    rand = np.array([play(env, s, uniform_random(s))[0] for s in seeds])
    print(f"{args.games} games, seat 0 of 4 against {OPPONENTS} bots; mean score, 95% CI:")
    print(f"  MaskablePPO     {mean_ci(ppo)}")
    print(f"  uniform random  {mean_ci(rand)}")
    print(f"  difference      {mean_ci(ppo - rand)} (paired, same deals)")
    print(f"  ({OPPONENTS} bots in the MaskablePPO games: {mean_ci(bots)} each)")
    print(f"total time {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
