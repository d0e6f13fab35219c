"""Rewards paid at the end of a game, and the text drawing of the table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeAlias

from cardshop._core import Seat
from cardshop._errors import SetupError
from cardshop.klunker.game import Game, Result

__all__ = ["Reward", "RewardName", "reward_function", "table_text"]

RewardName: TypeAlias = Literal["score", "rank", "win"]
Reward: TypeAlias = RewardName | Callable[[Result, Seat], float]
"""A reward rule: a name, or a function of the game's result and a seat."""


def _score(result: Result, seat: Seat) -> float:
    return float(result.scores[seat])


def _rank(result: Result, seat: Seat) -> float:
    n = len(result.ranks)
    return 1.0 - 2.0 * (result.ranks[seat] - 1) / (n - 1)


def _win(result: Result, seat: Seat) -> float:
    return 1.0 if seat in result.winners else 0.0


_REWARDS: dict[str, Callable[[Result, Seat], float]] = {
    "score": _score,
    "rank": _rank,
    "win": _win,
}


def reward_function(reward: Reward) -> Callable[[Result, Seat], float]:
    """The function behind a reward rule.

    ``"score"``: the seat's final score (cash cards). ``"rank"``: ``+1`` for rank 1
    down to ``-1`` for rank N, evenly spaced (tied seats share a rank and its reward).
    ``"win"``: ``1`` for every winner (a shared win included), ``0`` otherwise.
    A callable ``f(result, seat) -> float`` is used as it is.
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


def _counts(game: Game, zone: str) -> str:
    counts = game.zone_counts(zone)
    return ", ".join(f"{kind} {c}" for kind, c in counts.items()) or "-"


def table_text(game: Game) -> str:
    """The whole table as text, every hand included (a spectator's view, for ``render``)."""
    lines = [repr(game)]
    held = game.purchase_cards
    for seat in range(game.players):
        marks = []
        if seat == game.current_player:
            marks.append("to act")
        if seat == game.start_player:
            marks.append("start player")
        if held[seat]:
            marks.append(f"purchase card {held[seat]}")
        head = f"seat {seat}: cash {game.cash(seat)}"
        lines.append(head + (f" ({', '.join(marks)})" if marks else ""))
        for zone in ("hand", "window", "safe"):
            lines.append(f"  {zone:<7}{_counts(game, f'{zone}:{seat}')}")
    lines.append(f"deck {len(game.zones()['deck'])} cards; discard: {_counts(game, 'discard')}")
    if game.is_over:
        result = game.result()
        lines.append(
            f"game {result.termination.value}: scores {list(result.scores)}, "
            f"winners {list(result.winners)}"
        )
    return "\n".join(lines)


def render_table(game: Game, render_mode: str | None) -> str | None:
    """What ``render()`` does in every environment: print the table in ``"human"``
    mode, return it as text otherwise."""
    text = table_text(game)
    if render_mode == "human":
        print(text)
        return None
    return text
