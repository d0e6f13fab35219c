"""Reinforcement-learning environments: PettingZoo (every seat) and Gymnasium (one seat).

Needs the ``rl`` extra (``pip install "cardshop[rl]"``: numpy, gymnasium, pettingzoo);
``import cardshop`` alone never imports them. See docs/envs.md::

    from cardshop.envs import env

    aec = env("klunker-en", players=4, reward="rank")
    aec.reset(seed=1)
    for agent in aec.agent_iter():
        obs, reward, terminated, truncated, info = aec.last()
        action = None if terminated or truncated else aec.action_space(agent).sample(
            obs["action_mask"]
        )
        aec.step(action)

Both environments share :class:`ActionMap` (action numbers <-> action texts) and
:class:`ObservationEncoder` (one seat's observation -> a numeric vector). The
Gymnasium environment is also registered as ``"cardshop/Klunker-v0"``.
"""

from __future__ import annotations

try:
    import gymnasium
    import numpy  # noqa: F401
    import pettingzoo  # type: ignore[import-untyped]  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a venv without the extra
    raise ImportError(
        f"cardshop.envs needs the 'rl' extra ({exc.name} is missing): pip install \"cardshop[rl]\""
    ) from exc

from cardshop.envs._aec import KlunkerAECEnv, env, raw_env
from cardshop.envs._gym import KlunkerGymEnv, Opponent
from cardshop.envs._rewards import Reward, RewardName, reward_function, table_text
from cardshop.envs._spaces import ActionMap, ObservationEncoder

__all__ = [
    "GYM_ID",
    "ActionMap",
    "KlunkerAECEnv",
    "KlunkerGymEnv",
    "ObservationEncoder",
    "Opponent",
    "Reward",
    "RewardName",
    "env",
    "raw_env",
    "reward_function",
    "table_text",
]

GYM_ID = "cardshop/Klunker-v0"
"""The id of :class:`KlunkerGymEnv` in Gymnasium's registry: ``gymnasium.make(GYM_ID)``."""

if GYM_ID not in gymnasium.registry:
    gymnasium.register(id=GYM_ID, entry_point="cardshop.envs:KlunkerGymEnv")
