"""A PettingZoo AEC environment for any variant of any family, turn-based or simultaneous."""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from cardshop import driver
from cardshop.core.actions import Action, Seat
from cardshop.core.errors import CardshopError, GameStateError, IllegalActionError
from cardshop.core.game import Game, Termination
from cardshop.envs._base import SeatedEnv
from cardshop.envs._rewards import Reward, render_table
from cardshop.envs._spaces import Actions, ObsDict, VariantLike

__all__ = ["KlunkerAECEnv", "ShopAECEnv", "env", "raw_env"]


class ShopAECEnv(SeatedEnv, AECEnv):  # type: ignore[misc]
    """A game of any variant, of any family, as a PettingZoo AEC environment.

    Agents are ``player_0 .. player_{N-1}`` for seats ``0 .. N-1``.

    * Seats that take turns: the agent to act is the game's one acting seat, so one
      agent may act several times in a row (placing cards one by one in Klunker's fill
      phase, for instance); every action is applied at once.
    * Seats that act together (Wühltisch): the acting seats of a tick choose one after
      the other, in seat order; a choice is held back, unseen, until every acting seat
      has chosen, and then the tick is played with all of them. Within a tick the game
      does not move, so no observation shows another seat's pending choice; a seat that
      has chosen has an all-zero mask until the tick is played. An illegal choice
      raises as soon as it is made, and changes nothing.

    * Actions: ``Discrete(len(action_map))``, numbered by the family's action space
      (``env.action_map.action(i)`` is the action, ``env.action_map.index(text)``
      the number). An illegal action raises :class:`~cardshop.IllegalActionError`;
      use the mask, or :func:`env` with ``illegal_reward`` to end the game instead.
      With ``actions="factored"`` (a family with a factored space) an action number
      is one option of one step of a choice (``env.chooser``), the agent keeps acting
      until its choice is whole, and only then is the action applied or held for the
      tick (docs/envs.md).
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
    For a simultaneous variant ``metadata["is_parallelizable"]`` is true: the game
    moves once per cycle of the acting agents, so PettingZoo's ``aec_to_parallel``
    applies while every live seat acts in every tick (as in Wühltisch).
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
            suffix="_v0",
            actions=actions,
        )
        if self.simultaneous:
            self.metadata = {**self.metadata, "is_parallelizable": True}
        self._held: dict[Seat, Action] = {}
        """Seats that act together: the choices made in this tick, held until all are."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._new_game(seed, options)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._held = {}
        self._select()

    def _select(self) -> None:
        waiting = [s for s in self._game().acting if s not in self._held]
        if waiting:
            self.agent_selection = self.possible_agents[waiting[0]]
        elif self.agents:
            self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> ObsDict:
        seat = self.possible_agents.index(agent)
        out = self.chooser.observe(self._game(), seat)
        if seat in self._held:  # chose in this tick: waits for the others
            out["action_mask"][:] = 0
        return out

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
            self._play(game, seat, chosen)
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

    def _play(self, game: Game, seat: Seat, chosen: Action) -> None:
        """Apply a whole action, or hold it until every acting seat of the tick has chosen."""
        waiting = [s for s in game.acting if s != seat and s not in self._held]
        if not waiting:
            held, self._held = {**self._held, seat: chosen}, {}
            try:
                driver.step(game, {}, held)  # raises, changing nothing, if illegal
            except CardshopError:
                self._held = {s: a for s, a in held.items() if s != seat}
                raise
            return
        if chosen not in game.legal_actions(seat):
            raise IllegalActionError(
                f"{self.possible_agents[seat]}: {chosen} is not a legal action now"
            )
        self._held[seat] = chosen

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
    """A :class:`ShopAECEnv` of any variant in PettingZoo's usual wrappers.

    The wrappers check that actions are in range and that ``reset`` comes first. With
    ``illegal_reward`` set, an illegal action ends the game at once, with that reward
    for the agent that took it and 0 for the others (PettingZoo's
    ``TerminateIllegalWrapper``); without it an illegal action raises
    :class:`~cardshop.IllegalActionError`. In a variant whose seats act together the
    acting seats choose in turn within a tick (see :class:`ShopAECEnv`). ``actions="factored"``
    numbers the options of the family's factored space instead (docs/envs.md).
    """
    wrapped: Any = ShopAECEnv(variant, players, reward, render_mode, actions)
    if illegal_reward is not None:
        wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=illegal_reward)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
