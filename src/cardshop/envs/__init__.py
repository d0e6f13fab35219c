"""Reinforcement-learning environments for every family: PettingZoo and Gymnasium.

Needs the ``rl`` extra (``python -m pip install ".[rl]"``: numpy, gymnasium, pettingzoo);
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

* :func:`env` / :class:`ShopAECEnv`: a PettingZoo AEC environment, every seat an
  agent, for any variant (seats that act together choose in turn within a tick);
* :func:`parallel_env` / :class:`ShopParallelEnv`: a PettingZoo Parallel
  environment, every seat an agent, for any variant (in a turn-based one only the
  acting agent's action counts);
* :class:`ShopGymEnv`: a Gymnasium environment, one seat the agent and bots the
  others, for any variant (registered as ``"cardshop/Shop-v0"``; the Klunker defaults
  as ``"cardshop/Klunker-v0"``).

All are built from the variant's family (found through the registry, never imported):
:class:`ActionMap` numbers its action space, :class:`ObservationEncoder` turns its
observations into vectors, and its renderer draws the table. A variant is a variant
object, a built-in name or a YAML path. With ``actions="factored"`` a family that
describes its actions part by part (Reglamentacja) is played one small masked choice
per step instead (docs/envs.md). :func:`observation_layout` and :func:`layout_table`
describe the observation vector part by part.
"""

from __future__ import annotations

try:
    import gymnasium
    import numpy  # noqa: F401
    import pettingzoo  # type: ignore[import-untyped]  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a venv without the extra
    raise ImportError(
        f"cardshop.envs needs the 'rl' extra ({exc.name} is missing): python -m pip "
        'install ".[rl]" in a clone of cardshop'
    ) from exc

from cardshop.envs._aec import KlunkerAECEnv, ShopAECEnv, env, raw_env
from cardshop.envs._gym import KlunkerGymEnv, Opponent, ShopGymEnv
from cardshop.envs._layout import LayoutPart, layout_table, observation_layout
from cardshop.envs._parallel import ShopParallelEnv, parallel_env
from cardshop.envs._rewards import Reward, RewardName, reward_function, table_text
from cardshop.envs._spaces import ActionMap, ObservationEncoder

__all__ = [
    "GYM_ID",
    "SHOP_GYM_ID",
    "ActionMap",
    "KlunkerAECEnv",
    "KlunkerGymEnv",
    "LayoutPart",
    "ObservationEncoder",
    "Opponent",
    "Reward",
    "RewardName",
    "ShopAECEnv",
    "ShopGymEnv",
    "ShopParallelEnv",
    "env",
    "layout_table",
    "observation_layout",
    "parallel_env",
    "raw_env",
    "reward_function",
    "table_text",
]

GYM_ID = "cardshop/Klunker-v0"
"""The id of :class:`KlunkerGymEnv` (``klunker-en``, 4 players unless told):
``gymnasium.make(GYM_ID)``."""

SHOP_GYM_ID = "cardshop/Shop-v0"
"""The id of :class:`ShopGymEnv`, for any variant:
``gymnasium.make(SHOP_GYM_ID, variant=..., players=...)``."""

if GYM_ID not in gymnasium.registry:
    gymnasium.register(id=GYM_ID, entry_point="cardshop.envs:KlunkerGymEnv")
if SHOP_GYM_ID not in gymnasium.registry:
    gymnasium.register(id=SHOP_GYM_ID, entry_point="cardshop.envs:ShopGymEnv")
