"""Run a random agent through cardshop's RL environments and print its mean reward.

Trains nothing: an agent that picks uniformly among the legal actions (read from the
action mask) plays every seat of the PettingZoo environment (AEC for a variant whose
seats take turns, Parallel for one whose seats act together), then one seat of the
Gymnasium environment against cardshop bots. Works for a variant of any family. Needs
the rl extra::

    pip install "cardshop[rl]"
    python examples/random_agent.py --variant klunker-en --players 4 --episodes 20
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

import gymnasium
import numpy as np

from cardshop.envs import SHOP_GYM_ID, env, parallel_env


def random_choice(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A uniformly random legal action number."""
    return int(rng.choice(np.flatnonzero(mask)))


def aec_episodes(aec: Any, episodes: int, seed: int) -> list[float]:
    """Rewards of every seat over ``episodes`` turn-based games, all seats random."""
    rng = np.random.default_rng(seed)
    rewards: list[float] = []
    for episode in range(episodes):
        aec.reset(seed=seed + episode)
        for _agent in aec.agent_iter():
            obs, reward, terminated, truncated, _ = aec.last()
            if terminated or truncated:
                rewards.append(reward)
                aec.step(None)
            else:
                aec.step(random_choice(rng, obs["action_mask"]))
    aec.close()
    return rewards


def parallel_episodes(par: Any, episodes: int, seed: int) -> list[float]:
    """Rewards of every seat over ``episodes`` simultaneous games, all seats random."""
    rng = np.random.default_rng(seed)
    rewards: list[float] = []
    for episode in range(episodes):
        obs, _ = par.reset(seed=seed + episode)
        totals = dict.fromkeys(par.agents, 0.0)
        while par.agents:
            actions = {
                agent: random_choice(rng, obs[agent]["action_mask"])
                for agent in par.agents
                if obs[agent]["action_mask"].any()  # only the seats that act this tick
            }
            obs, paid, _, _, _ = par.step(actions)
            for agent, reward in paid.items():
                totals[agent] += reward
        rewards += totals.values()
    par.close()
    return rewards


def pettingzoo_episodes(variant: Any, players: int, episodes: int, seed: int) -> list[float]:
    """Rewards of every seat over ``episodes`` games, all seats random (AEC for a variant
    whose seats take turns, Parallel for one whose seats act together; either environment
    plays either kind)."""
    aec = env(variant, players=players, reward="score")
    if aec.unwrapped.simultaneous:  # seats act together: PettingZoo's Parallel API suits it
        return parallel_episodes(parallel_env(variant, players, reward="score"), episodes, seed)
    return aec_episodes(aec, episodes, seed)


def gymnasium_episodes(
    variant: Any, players: int, episodes: int, seed: int, opponents: str
) -> list[float]:
    """Returns of seat 0 over ``episodes`` games against ``opponents`` bots."""
    genv = gymnasium.make(SHOP_GYM_ID, variant=variant, players=players, opponents=opponents)
    rng = np.random.default_rng(seed)
    returns: list[float] = []
    for episode in range(episodes):
        obs, _ = genv.reset(seed=seed + episode)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, _ = genv.step(
                random_choice(rng, obs["action_mask"])
            )
            total += float(reward)
            done = terminated or truncated
        returns.append(total)
    genv.close()
    return returns


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="klunker-en", help="built-in name or YAML file")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponents", default="greedy", help="bot for the Gymnasium seats")
    args = parser.parse_args(argv)

    pz = pettingzoo_episodes(args.variant, args.players, args.episodes, args.seed)
    print(
        f"PettingZoo, {args.episodes} games, every seat random: "
        f"mean reward {statistics.fmean(pz):.3f} per seat"
    )
    gym = gymnasium_episodes(args.variant, args.players, args.episodes, args.seed, args.opponents)
    print(
        f"Gymnasium, {args.episodes} games, random seat 0 against {args.opponents} bots: "
        f"mean reward {statistics.fmean(gym):.3f}"
    )


if __name__ == "__main__":
    main()
