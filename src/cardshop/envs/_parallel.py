"""A PettingZoo Parallel environment for any variant of any family, simultaneous or turn-based."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pettingzoo import ParallelEnv  # type: ignore[import-untyped]

from cardshop import driver
from cardshop.core.actions import (
    Action,
    Seat,
)
from cardshop.core.errors import (
    GameStateError,
    IllegalActionError,
)
from cardshop.core.game import Termination
from cardshop.envs._base import SeatedEnv
from cardshop.envs._rewards import Reward, render_table
from cardshop.envs._spaces import Actions, ObsDict, VariantLike

__all__ = ["ShopParallelEnv", "parallel_env"]

StepResult = tuple[
    dict[str, ObsDict],
    dict[str, float],
    dict[str, bool],
    dict[str, bool],
    dict[str, dict[str, Any]],
]


class ShopParallelEnv(SeatedEnv, ParallelEnv):  # type: ignore[misc]
    """A game of any variant, of any family, as a PettingZoo Parallel environment.

    Agents are ``player_0 .. player_{N-1}`` for seats ``0 .. N-1``; every agent is live
    from ``reset`` until the game ends, and every live agent gets an observation at
    every step. One :meth:`step` is one step of the game: in a variant whose seats act
    together, one tick, the actions of every *acting* seat applied together
    (``game.apply_joint``); in a variant whose seats take turns, the action of the one
    acting seat (PettingZoo's convention for turn-based games: only that agent has a
    non-zero mask).

    * ``step(actions)`` takes a dict keyed by agent, as PettingZoo's Parallel API
      does: an action for every acting agent is required; the action of a live agent
      that does not act in this tick (its mask is all zeros) is ignored, and may be
      left out. Every action is checked before any is applied: an illegal one raises
      :class:`~cardshop.IllegalActionError` and changes nothing, or, with
      ``illegal_reward`` set, ends the episode at once with that reward for each
      offending agent and 0 for the others (the game itself is left as it was).
    * Spaces, observations (``{"observation": ..., "action_mask": ...}``) and rewards
      are those of :class:`ShopAECEnv`: the rewards are 0 until the game ends, then
      ``reward(result, seat)``; a finished game terminates every agent, a capped one
      truncates them. After the last tick ``agents`` is empty.
    * ``reset(seed=s, options=...)`` as in :class:`ShopAECEnv`.
    * With ``actions="factored"`` (a family with a factored space) one step is one
      option of one step of each acting agent's choice; an agent whose choice is
      whole waits, with an all-zero mask, until every acting agent's is, and then the
      tick is played with the composed actions (in a turn-based variant the one
      acting agent chooses part by part, and its action is played when whole).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo reads it from the class)
        "name": "cardshop_parallel_v0",
        "render_modes": ["ansi", "human"],
        "render_fps": 1,
    }

    def __init__(
        self,
        variant: VariantLike,
        players: int,
        reward: Reward = "score",
        render_mode: str | None = None,
        illegal_reward: float | None = None,
        actions: Actions = "flat",
    ) -> None:
        self._seat(
            variant,
            players,
            reward,
            render_mode,
            suffix="_parallel_v0",
            actions=actions,
        )
        self.illegal_reward = illegal_reward
        self._composed: dict[Seat, Action] = {}
        """Factored actions: the whole actions of the seats waiting for the others."""

    def _observe_all(self, agents: list[str]) -> dict[str, ObsDict]:
        game = self._game()
        out = {a: self.chooser.observe(game, self.possible_agents.index(a)) for a in agents}
        for seat in self._composed:
            out[self.possible_agents[seat]]["action_mask"][:] = 0
        return out

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, ObsDict], dict[str, dict[str, Any]]]:
        self._new_game(seed, options)
        self._composed = {}
        return self._observe_all(self.agents), {a: {} for a in self.agents}

    def _given(self, actions: Mapping[str, Any]) -> dict[Seat, Any]:
        """The action numbers of the seats that choose in this step."""
        game = self._game()
        unknown = sorted(set(actions) - set(self.agents))
        if unknown:
            raise GameStateError(f"actions for agents that are not live: {', '.join(unknown)}")
        given: dict[Seat, Any] = {}
        for seat in game.acting:
            if seat in self._composed:
                continue
            agent = self.possible_agents[seat]
            action = actions.get(agent)
            if action is None:
                raise GameStateError(f"{agent} acts in this tick and needs an action")
            given[seat] = action
        return given

    def _legal(self, seat: Seat, action: Any) -> bool:
        game = self._game()
        if self.table.actions == "flat":
            return self.action_map.action(action) in game.legal_actions(seat)
        index = int(action)
        mask = self.chooser.mask(game, seat)
        return 0 <= index < len(mask) and bool(mask[index])

    def _name(self, action: Any) -> str:
        if self.table.actions == "flat":
            return str(self.action_map.action(action))
        return f"option {int(action)}"

    def step(self, actions: Mapping[str, Any]) -> StepResult:
        """Play one tick (or one step of the factored choices); see the class docstring."""
        game = self._game()
        if not self.agents:
            raise GameStateError("the game is over: call reset() to start a new one")
        live = self.agents[:]
        given = self._given(actions)
        illegal = [s for s, a in given.items() if not self._legal(s, a)]
        rewards = dict.fromkeys(live, 0.0)
        terminations = dict.fromkeys(live, False)
        truncations = dict.fromkeys(live, False)
        infos: dict[str, dict[str, Any]] = {a: {} for a in live}
        if illegal:
            named = ", ".join(f"{self.possible_agents[s]}: {self._name(given[s])}" for s in illegal)
            if self.illegal_reward is None:
                raise IllegalActionError(f"illegal actions in this tick ({named})")
            for s in illegal:
                agent = self.possible_agents[s]
                rewards[agent] = float(self.illegal_reward)
                infos[agent]["illegal_action"] = True
            terminations = dict.fromkeys(live, True)
            self.agents = []
            return self._observe_all(live), rewards, terminations, truncations, infos
        for seat, action in given.items():
            whole = self.chooser.choose(game, seat, action)
            if whole is not None:
                self._composed[seat] = whole
        if any(seat not in self._composed for seat in game.acting):
            return self._observe_all(live), rewards, terminations, truncations, infos
        chosen, self._composed = self._composed, {}
        driver.step(game, {}, chosen)
        if game.is_over:
            result = game.result()
            capped = result.termination is Termination.CAPPED
            for agent in live:
                seat = self.possible_agents.index(agent)
                rewards[agent] = float(self.reward_of(result, seat))
                terminations[agent] = not capped
                truncations[agent] = capped
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return self._observe_all(live), rewards, terminations, truncations, infos

    def render(self) -> str | None:
        return render_table(self._game(), self.render_mode)

    def close(self) -> None:
        """Nothing to release: the environment holds only Python objects."""


def parallel_env(
    variant: VariantLike,
    players: int,
    reward: Reward = "score",
    render_mode: str | None = None,
    illegal_reward: float | None = None,
    actions: Actions = "flat",
) -> ShopParallelEnv:
    """A :class:`ShopParallelEnv` of any variant, simultaneous or turn-based.

    In a turn-based variant only the acting agent's action is used; the others' are
    ignored, whatever they are, and may be left out. ``actions="factored"`` numbers
    the options of the family's factored space.
    """
    return ShopParallelEnv(variant, players, reward, render_mode, illegal_reward, actions)
