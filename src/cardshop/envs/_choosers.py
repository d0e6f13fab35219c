"""How an agent's action number becomes a game action: flat, or part by part.

A :class:`Chooser` holds what an environment needs between an agent's action numbers
and the game: the mask of the numbers legal now, the observation (the family's vector,
plus, when choosing part by part, where the agent is in its choice) and the action
an action number makes.

* :class:`FlatChooser`: the family's action space, numbered by :class:`ActionMap`;
  every action number is a whole action.
* :class:`FactoredChooser`: the family's factored space
  (:class:`cardshop.core.ActionFactors`); every action number is one option of
  one step, and the game sees the composed action only when its last step is chosen.
  In a match (a series of games) the family's factors see the game being played.
  Steps after the first with a single legal option are taken at once, without asking.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, SupportsIndex

import numpy as np
import numpy.typing as npt

from cardshop.core.actions import (
    Action,
    Seat,
)
from cardshop.core.errors import (
    ActionParseError,
    IllegalActionError,
)
from cardshop.core.factored import ActionFactors
from cardshop.core.game import Game
from cardshop.core.series import current_game

__all__ = ["Chooser", "FactoredChooser", "FlatChooser", "ObsDict"]

ObsDict = dict[str, npt.NDArray[Any]]
"""An observation: ``{"observation": float32 vector, "action_mask": int8 vector}``."""


class Chooser:
    """The common part: observations are the family's vector, then :meth:`extra`."""

    size: int
    """The number of action numbers: the ``Discrete`` space's size."""
    names: tuple[str, ...]
    """Names of the elements :meth:`extra` adds to the observation vector."""

    def __init__(self, encoder: Any) -> None:
        self.encoder = encoder

    def reset(self) -> None:
        """Forget every choice in progress (a new game)."""

    def mask(self, game: Game, seat: Seat) -> npt.NDArray[np.int8]:
        raise NotImplementedError

    def extra(self, game: Game, seat: Seat) -> npt.NDArray[np.float32]:
        """What the chooser adds to ``seat``'s observation vector (named :attr:`names`)."""
        return np.zeros(0, dtype=np.float32)

    def choose(self, game: Game, seat: Seat, index: SupportsIndex) -> Action | None:
        """The action that action number ``index`` completes, or None when it is one
        step of a choice still going on."""
        raise NotImplementedError

    def observe(self, game: Game, seat: Seat) -> ObsDict:
        """What an agent at ``seat`` receives: its observation vector and its mask."""
        vector = self.encoder.encode(game.observation(seat))
        extra = self.extra(game, seat)
        if len(extra):
            vector = np.concatenate([vector, extra])
        return {"observation": vector, "action_mask": self.mask(game, seat)}


class FlatChooser(Chooser):
    """Every action number is a whole action of the family's action space."""

    def __init__(self, encoder: Any, action_map: Any) -> None:
        super().__init__(encoder)
        self.action_map = action_map
        self.size = len(action_map)
        self.names = ()

    def mask(self, game: Game, seat: Seat) -> npt.NDArray[np.int8]:
        if seat in game.acting:
            out: npt.NDArray[np.int8] = self.action_map.mask(game.legal_actions(seat))
            return out
        return np.zeros(self.size, dtype=np.int8)

    def choose(self, game: Game, seat: Seat, index: SupportsIndex) -> Action | None:
        action: Action = self.action_map.action(index)
        return action


class FactoredChooser(Chooser):
    """Action numbers are options of the steps of the family's factored space.

    ``size`` is the most options of any step; a step with fewer has its higher
    numbers masked. The observation gains, after the family's vector, a one-hot of the
    step to choose now (``step: NAME``) and, for every step, a one-hot of the option
    chosen at it in the choice going on (``chosen: STEP = OPTION``; all 0 for a step
    not chosen yet).
    """

    def __init__(self, encoder: Any, factors: ActionFactors) -> None:
        super().__init__(encoder)
        self.factors = factors
        self.size = max(len(o) for o in factors.options)
        self._offset: list[int] = []
        names = [f"step: {step}" for step in factors.steps]
        for step, options in zip(factors.steps, factors.options, strict=True):
            self._offset.append(len(names))
            names += [f"chosen: {step} = {option}" for option in options]
        self.names = tuple(names)
        self._chosen: dict[Seat, list[int]] = {}
        self._steps: dict[Seat, list[int]] = {}
        self._next: dict[Seat, tuple[int, Sequence[int]]] = {}

    def reset(self) -> None:
        self._chosen.clear()
        self._steps.clear()
        self._next.clear()

    def chosen(self, seat: Seat) -> tuple[int, ...]:
        """The options ``seat`` has chosen so far in the choice going on."""
        return tuple(self._chosen.get(seat, ()))

    def current(self, game: Game, seat: Seat) -> tuple[int, Sequence[int]]:
        """The step ``seat`` chooses now and its legal options (``seat`` must act)."""
        return self._step(game, seat)

    def _step(self, game: Game, seat: Seat) -> tuple[int, Sequence[int]]:
        found = self._next.get(seat)
        if found is None:  # the first step: asked afresh, the game may have moved on
            found = self.factors.next(current_game(game), seat, ())
            if found is None:
                raise IllegalActionError(f"seat {seat} has no action to choose")
        return found

    def mask(self, game: Game, seat: Seat) -> npt.NDArray[np.int8]:
        out = np.zeros(self.size, dtype=np.int8)
        if seat in game.acting:
            out[list(self._step(game, seat)[1])] = 1
        return out

    def extra(self, game: Game, seat: Seat) -> npt.NDArray[np.float32]:
        out = np.zeros(len(self.names), dtype=np.float32)
        if seat not in game.acting:
            return out
        out[self._step(game, seat)[0]] = 1.0
        offset = self._offset
        for step, option in zip(self._steps.get(seat, ()), self._chosen.get(seat, ()), strict=True):
            out[offset[step] + option] = 1.0
        return out

    def choose(self, game: Game, seat: Seat, index: SupportsIndex) -> Action | None:
        i = operator.index(index)
        if not 0 <= i < self.size:
            raise ActionParseError(f"action index {index!r} is out of range 0..{self.size - 1}")
        if seat not in game.acting:
            raise IllegalActionError(f"seat {seat} does not act now")
        step, options = self._step(game, seat)
        if i not in options:
            legal = ", ".join(self.factors.options[step][o] for o in options)
            raise IllegalActionError(
                f"option {i} is not legal at step {self.factors.steps[step]!r} now (legal: {legal})"
            )
        chosen = self._chosen.setdefault(seat, [])
        steps = self._steps.setdefault(seat, [])
        chosen.append(i)
        steps.append(step)
        while True:
            found = self.factors.next(current_game(game), seat, chosen)
            if found is None:
                action = self.factors.compose(chosen)
                self._forget(seat)
                return action
            if len(found[1]) != 1:
                self._next[seat] = found
                return None
            chosen.append(found[1][0])
            steps.append(found[0])

    def _forget(self, seat: Seat) -> None:
        self._chosen.pop(seat, None)
        self._steps.pop(seat, None)
        self._next.pop(seat, None)
