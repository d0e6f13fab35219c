"""Rewards paid at the end of a game, and the text drawing of the table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeAlias

from cardshop.core.actions import Seat
from cardshop.core.errors import SetupError
from cardshop.core.game import Result
from cardshop.core.series import render

__all__ = ["Reward", "RewardName", "reward_function", "table_text"]

RewardName: TypeAlias = Literal["score", "rank", "win"]
Reward: TypeAlias = RewardName | Callable[[Result, Seat], float]
"""A reward rule: a name, or a function of the game's result and a seat."""


def _score(result: Result, seat: Seat) -> float:
    return float(result.scores[seat])


def _rank(result: Result, seat: Seat) -> float:
    n = len(result.ranks)
    if n == 1:
        return 1.0
    return 1.0 - 2.0 * (result.ranks[seat] - 1) / (n - 1)


def _win(result: Result, seat: Seat) -> float:
    return 1.0 if seat in result.winners else 0.0


_REWARDS: dict[str, Callable[[Result, Seat], float]] = {
    "score": _score,
    "rank": _rank,
    "win": _win,
}


def reward_function(reward: Reward) -> Callable[[Result, Seat], float]:
    """The function behind a reward rule, for a game's :class:`~cardshop.core.game.Result`.

    ``"score"``: the seat's final score. ``"rank"``: ``+1`` for rank 1 down to ``-1``
    for rank N, evenly spaced (tied seats share a rank and its reward). ``"win"``:
    ``1`` for every winner (a shared win included), ``0`` otherwise. A callable
    ``f(result, seat) -> float`` is used as it is.
    """
    if callable(reward):
        return reward
    try:
        return _REWARDS[reward]
    except (KeyError, TypeError):
        raise SetupError(
            f"unknown reward {reward!r}; use one of {', '.join(_REWARDS)} "
            "or a function (result, seat) -> float"
        ) from None


def table_text(game: Any, seat: Seat | None = None) -> str:
    """The table as text, drawn by the game's family: as ``seat`` may see it, or
    everything (every hand included, a spectator's view) when ``seat`` is None. A
    match (a variant with a ``match`` key) adds a line with its game and totals."""
    return render(game, seat)


def render_table(game: Any, render_mode: str | None) -> str | None:
    """What ``render()`` does in every environment: print the whole table in
    ``"human"`` mode, return it as text otherwise."""
    text = table_text(game)
    if render_mode == "human":
        print(text)
        return None
    return text
