"""A PettingZoo AEC environment for any turn-based variant of any family."""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from cardshop import driver
from cardshop.core.errors import GameStateError
from cardshop.core.game import Termination
from cardshop.envs._base import SeatedEnv
from cardshop.envs._rewards import Reward, render_table
from cardshop.envs._spaces import Actions, ObsDict, VariantLike

__all__ = ["KlunkerAECEnv", "ShopAECEnv", "env", "raw_env"]


class ShopAECEnv(SeatedEnv, AECEnv):  # type: ignore[misc]
    """A game of a turn-based variant, of any family, as a PettingZoo AEC environment.

    Agents are ``player_0 .. player_{N-1}`` for seats ``0 .. N-1``; the agent to act
    is the game's one acting seat, so one agent may act several times in a row
    (placing cards one by one in Klunker's fill phase, for instance). A variant whose
    seats act together is refused (:class:`~cardshop.SetupError`): use
    :class:`ShopParallelEnv` (:func:`parallel_env`).

    * Actions: ``Discrete(len(action_map))``, numbered by the family's action space
      (``env.action_map.action(i)`` is the action, ``env.action_map.index(text)``
      the number). An illegal action raises :class:`~cardshop.IllegalActionError`;
      use the mask, or :func:`env` with ``illegal_reward`` to end the game instead.
      With ``actions="factored"`` (a family with a factored space) an action number
      is one option of one step of a choice (``env.chooser``), the agent keeps acting
      until its choice is whole, and only then is the action applied (docs/envs.md).
    * Observations: ``{"observation": float32 vector, "action_mask": int8 vector}``;
      the vector is the family's observation encoder applied to
      ``game.observation(seat)`` and the mask is all zeros except for the agent to act.
    * Rewards: 0 until the game ends, then ``reward(result, seat)`` for every seat
      (``"score"``, ``"rank"``, ``"win"`` or a function, see :func:`reward_function`).
    * A game that finishes terminates every agent; a game stopped by the variant's
      cap on its length (termination ``capped``) truncates them instead (the rewards
      are paid all the same).
    * ``reset(seed=s)`` makes the game's deal reproducible; ``options`` keys that
      name a keyword option of the family's ``new_game`` are passed to it (Klunker:
      ``{"first_player": seat}`` fixes the first start player); other keys are ignored.
    * ``render()`` draws the whole table as text, every hand included (a spectator's
      view); render mode ``"human"`` prints it, ``"ansi"`` (and None) return it.

    The game itself is ``env.game`` (a :class:`cardshop.core.game.Game`) after ``reset``.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo reads it from the class)
        "name": "cardshop_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        variant: VariantLike,
        players: int,
        reward: Reward = "score",
        render_mode: str | None = None,
        actions: Actions = "flat",
    ) -> None:
        super().__init__()
        self._seat(
            variant,
            players,
            reward,
            render_mode,
            simultaneous=False,
            suffix="_v0",
            refusal="the seats act together, which an AEC environment cannot express: "
            "use cardshop.envs.parallel_env()",
            actions=actions,
        )

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._new_game(seed, options)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._select()

    def _select(self) -> None:
        acting = self._game().acting
        if acting:
            self.agent_selection = self.possible_agents[acting[0]]
        elif self.agents:
            self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> ObsDict:
        return self.chooser.observe(self._game(), self.possible_agents.index(agent))

    def step(self, action: int | np.integer[Any] | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise GameStateError(f"{agent} is still playing and needs an action, not None")
        game = self._game()
        seat = self.possible_agents.index(agent)
        chosen = self.chooser.choose(game, seat, action)  # raises if an illegal option
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if chosen is not None:  # a whole action (not one step of a factored choice)
            driver.step(game, {}, {seat: chosen})  # raises, changing nothing, if illegal
        if game.is_over:
            result = game.result()
            capped = result.termination is Termination.CAPPED
            for s, name in enumerate(self.possible_agents):
                self.rewards[name] = float(self.reward_of(result, s))
                self.terminations[name] = not capped
                self.truncations[name] = capped
        self._accumulate_rewards()
        self._select()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        return render_table(self._game(), self.render_mode)

    def close(self) -> None:
        """Nothing to release: the environment holds only Python objects."""


class KlunkerAECEnv(ShopAECEnv):
    """:class:`ShopAECEnv` with the defaults of cardshop 0.1 (``klunker-en``, 4 players).

    Kept for compatibility; new code uses :class:`ShopAECEnv` or :func:`env`.
    """

    def __init__(
        self,
        variant: VariantLike = "klunker-en",
        players: int = 4,
        reward: Reward = "score",
        render_mode: str | None = None,
        actions: Actions = "flat",
    ) -> None:
        super().__init__(variant, players, reward, render_mode, actions)


raw_env = KlunkerAECEnv
"""The unwrapped environment class, under PettingZoo's conventional name."""


def env(
    variant: VariantLike = "klunker-en",
    players: int = 4,
    reward: Reward = "score",
    render_mode: str | None = None,
    illegal_reward: float | None = None,
    actions: Actions = "flat",
) -> Any:
    """A :class:`ShopAECEnv` of a turn-based variant in PettingZoo's usual wrappers.

    The wrappers check that actions are in range and that ``reset`` comes first. With
    ``illegal_reward`` set, an illegal action ends the game at once, with that reward
    for the agent that took it and 0 for the others (PettingZoo's
    ``TerminateIllegalWrapper``); without it an illegal action raises
    :class:`~cardshop.IllegalActionError`. A variant whose seats act together is a
    :class:`~cardshop.SetupError` pointing to :func:`parallel_env`. ``actions="factored"``
    numbers the options of the family's factored space instead (docs/envs.md).
    """
    wrapped: Any = ShopAECEnv(variant, players, reward, render_mode, actions)
    if illegal_reward is not None:
        wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=illegal_reward)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
