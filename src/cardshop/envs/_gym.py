"""A Gymnasium single-agent environment: one seat learns, cardshop bots play the others."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, cast

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from cardshop import driver
from cardshop.core.actions import (
    Action,
    Seat,
)
from cardshop.core.chance import derive_seed
from cardshop.core.errors import (
    GameStateError,
    IllegalActionError,
    SetupError,
)
from cardshop.core.game import (
    Game,
    Termination,
)
from cardshop.envs._rewards import Reward, render_table, reward_function
from cardshop.envs._spaces import Actions, ObsDict, Table, VariantLike

__all__ = ["KlunkerGymEnv", "Opponent", "ShopGymEnv"]


class Opponent(Protocol):
    """What the environment needs of a bot (``cardshop.bots.Bot`` has it)."""

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action: ...


def make_opponent(name: str, table: Table, seed: int) -> Opponent:
    """A bot by name: the family's own bots first, then ``cardshop.bots.make_bot``."""
    from cardshop.bots import make_bot

    bot: Opponent = make_bot(name, table.variant, seed=seed)
    return bot


class ShopGymEnv(gymnasium.Env[ObsDict, np.int64]):
    """A game of any variant, of any family, seen from one seat, as a Gymnasium env.

    The agent plays ``seat``; the other seats are cardshop bots, played by
    :mod:`cardshop.driver` between the agent's decisions. In a turn-based game the
    bots play until the agent's seat is to act; in a simultaneous game the agent's
    action joins the bots' choices of the same tick (neither sees the other's), and
    ticks in which the agent's seat does not act are played by the bots alone.

    ``opponents`` is a bot name for all of them (``"random"``, a bot of the variant's
    family, any name ``cardshop.bots.make_bot`` knows) or a list with one entry per
    other seat, in seat order: a name or a ready bot object. Bots given by name are
    made afresh on every ``reset`` with seeds derived from the episode's seed, so
    ``reset(seed=s)`` replays the same episode for the same actions.

    Spaces, action numbers, observations and rewards are those of
    :class:`ShopAECEnv`: ``Discrete(len(action_map))``, a dict of the observation
    vector and the ``action_mask`` (also in ``info["action_mask"]`` and from
    :meth:`action_masks`, sb3-contrib's ``MaskablePPO`` convention), and the
    ``reward`` rule paid once at the end. A capped game is *truncated*, a finished one
    *terminated*.

    An illegal action leaves the game as it was and returns ``illegal_reward``
    (with ``info["illegal_action"] = True``); with ``illegal_reward=None`` it raises
    :class:`~cardshop.IllegalActionError` instead. With ``actions="factored"`` (a
    family with a factored space) an action number is one option of one step of a
    choice: a step that does not complete the action returns reward 0 and the mask of
    the next step, and the game moves only when the action is whole (docs/envs.md).
    ``seat=None`` draws the agent's
    seat at every reset. ``reset(options=...)`` passes on the options the family's
    ``new_game`` names (Klunker: ``first_player``).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        variant: VariantLike,
        players: int,
        seat: Seat | None = 0,
        opponents: str | Sequence[str | Opponent] = "random",
        reward: Reward = "score",
        illegal_reward: float | None = -1.0,
        render_mode: str | None = None,
        actions: Actions = "flat",
    ) -> None:
        self.table = Table.build(
            variant, players, render_mode, self.metadata["render_modes"], actions
        )
        self.variant = self.table.variant
        self.action_map = self.table.action_map
        self.encoder = self.table.encoder
        self.players = players
        if seat is not None and not (
            isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < players
        ):
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
        self.chooser = self.table.chooser()
        self.observation_space = cast(
            "spaces.Space[ObsDict]", self.table.observation_space(self.chooser)
        )
        self.action_space = self.table.action_space(self.chooser)
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
                bots[seat] = make_opponent(spec, self.table, derive_seed(game_seed, "bot", seat))
            else:
                bots[seat] = spec
        return bots

    def _play_opponents(self) -> None:
        seat = self.seat
        driver.run_until(self._game(), self._bots, lambda game: seat in game.acting)

    def _observe(self) -> ObsDict:
        return self.chooser.observe(self._game(), self.seat)

    def _info(self, obs: ObsDict, **extra: Any) -> dict[str, Any]:
        return {"action_mask": obs["action_mask"].copy(), "seat": self.seat, **extra}

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The agent's legal actions now, as booleans (sb3-contrib's ``MaskablePPO``
        calls this); all False when the game is over."""
        return self.chooser.mask(self._game(), self.seat).astype(np.bool_)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        """Start a new game and let the bots play until the agent's seat acts."""
        super().reset(seed=seed)
        rng = self.np_random
        if self.fixed_seat is None:
            self.seat = int(rng.integers(self.players))
        game_seed = int(rng.integers(2**63 - 1))
        self.game = self.table.new_game(game_seed, options)
        self.chooser.reset()
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
        try:
            chosen = self.chooser.choose(game, self.seat, action)
            if self.table.actions == "flat" and chosen not in game.legal_actions(self.seat):
                raise IllegalActionError(
                    f"{str(chosen)!r} (action {int(action)}) is not legal for seat {self.seat} now"
                )
        except IllegalActionError:
            if self.illegal_reward is None:
                raise
            obs = self._observe()
            info = self._info(obs, illegal_action=True)
            return obs, float(self.illegal_reward), False, False, info
        if chosen is None:  # one step of a factored choice: the game has not moved
            obs = self._observe()
            return obs, 0.0, False, False, self._info(obs)
        driver.step(game, self._bots, {self.seat: chosen})
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


class KlunkerGymEnv(ShopGymEnv):
    """:class:`ShopGymEnv` with the defaults of cardshop 0.1 (``klunker-en``, 4 players).

    Kept for compatibility (and as ``"cardshop/Klunker-v0"``); new code uses
    :class:`ShopGymEnv` (``"cardshop/Shop-v0"``).
    """

    def __init__(
        self,
        variant: VariantLike = "klunker-en",
        players: int = 4,
        seat: Seat | None = 0,
        opponents: str | Sequence[str | Opponent] = "random",
        reward: Reward = "score",
        illegal_reward: float | None = -1.0,
        render_mode: str | None = None,
        actions: Actions = "flat",
    ) -> None:
        super().__init__(
            variant, players, seat, opponents, reward, illegal_reward, render_mode, actions
        )
