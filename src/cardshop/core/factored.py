"""A factored action space: one action chosen in a few small steps.

A family whose flat action space is too large to learn on (Reglamentacja's offers:
tens of thousands of actions) may describe how an action is put together from parts,
each part a small choice: first the kind of action, then, for an offer, the seat
offered to, the count of each stamp kind given and taken, and the place flag. It hands
the core a factory of :class:`ActionFactors` (:attr:`Family.factored
<cardshop.core.family.Family.factored>`); the environments (``cardshop.envs``, with
``actions="factored"``) turn each part into one environment step with its own small
mask, and apply the composed action to the game only when it is complete.

Plain Python: no numpy here, the environments do the arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from cardshop.core.actions import (
    Action,
    Seat,
)
from cardshop.core.game import Game

__all__ = ["ActionFactors"]


class ActionFactors(Protocol):
    """How the actions of a variant at a player count are chosen part by part.

    A decision is a sequence of *choices*, each an option number at one *step*:
    ``steps[s]`` names step ``s`` and ``options[s]`` labels its options (option ``i``
    of step ``s`` is ``options[s][i]``). Which step comes next depends on the choices
    made so far; a step occurs at most once in one decision.

    * :meth:`next` gives the next step and its legal options, or ``None`` when the
      choices so far make a whole action. Exact: an option is listed if and only if
      some legal action of ``seat`` begins with the choices so far and that option;
      so every path through the listed options ends in a legal action, and every
      legal action is such a path.
    * :meth:`compose` is the action of a complete sequence of choices,
      :meth:`decompose` the choices of an action; they are inverse on the actions of
      the family's action space.
    """

    steps: tuple[str, ...]
    options: tuple[tuple[str, ...], ...]

    def next(
        self, game: Game, seat: Seat, chosen: Sequence[int]
    ) -> tuple[int, Sequence[int]] | None:
        """``(step, legal options in increasing order)`` after ``chosen``, or ``None``
        when ``chosen`` is a whole action; ``chosen`` must follow earlier answers."""
        ...

    def compose(self, chosen: Sequence[int]) -> Action:
        """The action made by a complete sequence of choices."""
        ...

    def decompose(self, action: Action) -> tuple[int, ...]:
        """The choices that make ``action``."""
        ...
