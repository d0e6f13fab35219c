"""Run a random agent through cardshop's RL environments and print its mean reward.

Trains nothing: an agent that picks uniformly among the legal actions (read from the
action mask) plays every seat of the PettingZoo environment, then one seat of the
Gymnasium environment against cardshop bots. Needs the rl extra::

    pip install "cardshop[rl]"
    python examples/random_agent.py --variant klunker-en --players 4 --episodes 20
"""

from __future__ import annotations

import argparse
import statistics

import gymnasium
import numpy as np

from cardshop.envs import GYM_ID, env


def random_choice(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A uniformly random legal action number."""
    return int(rng.choice(np.flatnonzero(mask)))


def pettingzoo_episodes(variant: str, players: int, episodes: int, seed: int) -> list[float]:
    """Rewards of every seat over ``episodes`` games, all seats random."""
    aec = env(variant, players=players, reward="score")
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


def gymnasium_episodes(
    variant: str, players: int, episodes: int, seed: int, opponents: str
) -> list[float]:
    """Returns of seat 0 over ``episodes`` games against ``opponents`` bots."""
    genv = gymnasium.make(GYM_ID, variant=variant, players=players, opponents=opponents)
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

    aec = pettingzoo_episodes(args.variant, args.players, args.episodes, args.seed)
    print(
        f"PettingZoo, {args.episodes} games, every seat random: "
        f"mean reward {statistics.fmean(aec):.3f} per seat"
    )
    gym = gymnasium_episodes(args.variant, args.players, args.episodes, args.seed, args.opponents)
    print(
        f"Gymnasium, {args.episodes} games, random seat 0 against {args.opponents} bots: "
        f"mean reward {statistics.fmean(gym):.3f}"
    )


if __name__ == "__main__":
    main()
