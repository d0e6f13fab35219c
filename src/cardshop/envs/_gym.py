"""A Gymnasium single-agent environment: one seat learns, cardshop bots play the others."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, cast

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from cardshop._core import Action, Seat, derive_seed
from cardshop._errors import GameStateError, SetupError
from cardshop.envs._rewards import Reward, render_table, reward_function
from cardshop.envs._spaces import table_for
from cardshop.klunker.game import Game, Observation, Termination
from cardshop.klunker.variant import Variant

__all__ = ["KlunkerGymEnv", "Opponent"]

ObsDict = dict[str, npt.NDArray[Any]]


class Opponent(Protocol):
    """What the environment needs of a bot (``cardshop.bots.Bot`` has it)."""

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action: ...


class KlunkerGymEnv(gymnasium.Env[ObsDict, np.int64]):
    """A game of a Klunker-family variant seen from one seat, as a Gymnasium environment.

    The agent plays ``seat``; the other seats are cardshop bots that act between the
    agent's decisions. ``opponents`` is a bot name for all of them (``"random"``,
    ``"greedy"``, any name ``cardshop.bots.make_bot`` knows) or a list with one
    entry per other seat, in seat order: a name or a ready bot object. Bots given by
    name are made afresh on every ``reset`` with seeds derived from the episode's
    seed, so ``reset(seed=s)`` replays the same episode for the same actions.

    Spaces, action numbers, observations and rewards are those of
    :class:`KlunkerAECEnv`: ``Discrete(len(action_map))``, a dict of the observation
    vector and the ``action_mask`` (also in ``info["action_mask"]``), and the
    ``reward`` rule paid once at the end. A capped game (TERM-1) is *truncated*,
    a finished one *terminated*.

    An illegal action leaves the game as it was and returns ``illegal_reward``
    (with ``info["illegal_action"] = True``); with ``illegal_reward=None`` it raises
    :class:`~cardshop.IllegalActionError` instead. ``seat=None`` draws the agent's
    seat at every reset.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        variant: Variant | str = "klunker-en",
        players: int = 4,
        seat: Seat | None = 0,
        opponents: str | Sequence[str | Opponent] = "random",
        reward: Reward = "score",
        illegal_reward: float | None = -1.0,
        render_mode: str | None = None,
    ) -> None:
        self.variant, self.action_map, self.encoder = table_for(
            variant, players, render_mode, self.metadata["render_modes"]
        )
        self.players = players
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < players):
            raise SetupError(f"seat must be one of 0..{players - 1} or None, not {seat!r}")
        self.fixed_seat = seat
        if isinstance(opponents, str):
            opponents = [opponents] * (players - 1)
        if len(opponents) != players - 1:
            raise SetupError(
                f"opponents lists {len(opponents)} bots; {players} players need "
                f"{players - 1} (one per other seat)"
            )
        self.opponents: tuple[str | Opponent, ...] = tuple(opponents)
        self.reward_of = reward_function(reward)
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(len(self.action_map),), dtype=np.int8),
            }
        )
        self.observation_space = cast("spaces.Space[ObsDict]", obs_space)
        self.action_space = spaces.Discrete(len(self.action_map))
        self.game: Game | None = None
        self.seat: Seat = seat if seat is not None else 0
        self._bots: dict[Seat, Opponent] = {}

    def _game(self) -> Game:
        if self.game is None:
            raise GameStateError("the environment has no game yet: call reset() first")
        return self.game

    def _make_bots(self, game_seed: int) -> dict[Seat, Opponent]:
        others = [s for s in range(self.players) if s != self.seat]
        bots: dict[Seat, Opponent] = {}
        for seat, spec in zip(others, self.opponents, strict=True):
            if isinstance(spec, str):
                from cardshop.bots import make_bot

                bots[seat] = make_bot(spec, self.variant, seed=derive_seed(game_seed, "bot", seat))
            else:
                bots[seat] = spec
        return bots

    def _play_opponents(self) -> None:
        game = self._game()
        while not game.is_over and game.current_player != self.seat:
            seat = game.current_player
            assert seat is not None
            bot = self._bots[seat]
            game.apply(bot.choose(game.observation(seat), game.legal_actions()))

    def _observe(self) -> ObsDict:
        game = self._game()
        if game.current_player == self.seat:
            mask = self.action_map.mask(game.legal_actions())
        else:
            mask = np.zeros(len(self.action_map), dtype=np.int8)
        vector = self.encoder.encode(game.observation(self.seat))
        return {"observation": vector, "action_mask": mask}

    def _info(self, obs: ObsDict, **extra: Any) -> dict[str, Any]:
        return {"action_mask": obs["action_mask"].copy(), "seat": self.seat, **extra}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        """Start a new game; ``options={"first_player": seat}`` fixes the first start player."""
        super().reset(seed=seed)
        rng = self.np_random
        if self.fixed_seat is None:
            self.seat = int(rng.integers(self.players))
        game_seed = int(rng.integers(2**63 - 1))
        first = (options or {}).get("first_player")
        self.game = Game(self.variant, self.players, seed=game_seed, first_player=first)
        self._bots = self._make_bots(game_seed)
        self._play_opponents()
        obs = self._observe()
        return obs, self._info(obs)

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[ObsDict, float, bool, bool, dict[str, Any]]:
        game = self._game()
        if game.is_over:
            raise GameStateError("the game is over: call reset() to start a new one")
        chosen = self.action_map.action(action)
        if self.illegal_reward is not None and not game.is_legal(chosen):
            obs = self._observe()
            info = self._info(obs, illegal_action=True)
            return obs, float(self.illegal_reward), False, False, info
        game.apply(chosen)  # raises IllegalActionError, saying why, if illegal
        self._play_opponents()
        obs = self._observe()
        reward = 0.0
        terminated = truncated = False
        extra: dict[str, Any] = {}
        if game.is_over:
            result = game.result()
            reward = float(self.reward_of(result, self.seat))
            truncated = result.termination is Termination.CAPPED
            terminated = not truncated
            extra = {"scores": result.scores, "winners": result.winners}
        if self.render_mode == "human":
            self.render()
        return obs, reward, terminated, truncated, self._info(obs, **extra)

    def render(self) -> str | None:
        return render_table(self._game(), self.render_mode)
