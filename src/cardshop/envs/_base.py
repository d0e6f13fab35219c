"""What the AEC and the Parallel environment share: seats, spaces and the seeded game."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from cardshop.core.errors import GameStateError
from cardshop.core.game import (
    Dynamics,
    Game,
)
from cardshop.envs._rewards import Reward, reward_function
from cardshop.envs._spaces import Actions, Table, VariantLike


class SeatedEnv:
    """One agent per seat (``player_0 .. player_{N-1}``) over a :class:`Table`.

    Subclasses call :meth:`_seat` from ``__init__``; every variant is served, whether
    its seats take turns or act together (:attr:`simultaneous` says which).
    """

    metadata: dict[str, Any]
    render_mode: str | None

    def _seat(
        self,
        variant: VariantLike,
        players: int,
        reward: Reward,
        render_mode: str | None,
        *,
        suffix: str,
        actions: Actions = "flat",
    ) -> None:
        self.table = Table.build(
            variant, players, render_mode, self.metadata["render_modes"], actions
        )
        self.simultaneous = self.table.dynamics is Dynamics.SIMULTANEOUS
        """Whether the variant's seats act together (one tick) rather than take turns."""
        self.metadata = {**self.metadata, "name": f"cardshop_{self.table.family.name}{suffix}"}
        self.variant = self.table.variant
        self.action_map = self.table.action_map
        self.encoder = self.table.encoder
        self.players = players
        self.reward_of = reward_function(reward)
        self.render_mode = render_mode
        self.possible_agents: list[str] = [f"player_{s}" for s in range(players)]
        self.agents: list[str] = []
        self.chooser = self.table.chooser()
        obs_space = self.table.observation_space(self.chooser)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {
            a: self.table.action_space(self.chooser) for a in self.possible_agents
        }
        self._np_random: np.random.Generator | None = None
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def _game(self) -> Game:
        if self.game is None:
            raise GameStateError("the environment has no game yet: call reset() first")
        return self.game

    def _new_game(self, seed: int | None, options: dict[str, Any] | None) -> Game:
        """A new game (``self.game``), seeded from ``seed`` or the environment's stream."""
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        game_seed = int(self._np_random.integers(2**63 - 1))
        self.game = self.table.new_game(game_seed, options)
        self.chooser.reset()
        self.agents = self.possible_agents[:]
        return self.game
