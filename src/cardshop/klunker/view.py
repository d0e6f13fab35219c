"""The Klunker table as data for a graphical client (``Family.table_view``, docs/serve.md).

Built from the seat's own :class:`~cardshop.klunker.game.Observation`, so it shows what
that seat may know and nothing more: every window, safe and bank size, its own hand;
the other hands as face-down cards. A spectator (``seat`` None) sees the public part.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardshop.core import Game, Seat

__all__ = ["table_view"]

_COLORS = ("red", "blue", "green", "gold", "violet", "gray")


def _cards(kinds: Sequence[str], counts: Sequence[int]) -> list[dict[str, Any]]:
    return [
        {"face": kind, "count": count, "color": _COLORS[i % len(_COLORS)]}
        for i, (kind, count) in enumerate(zip(kinds, counts, strict=True))
        if count
    ]


def _backs(count: int) -> list[dict[str, Any]]:
    return [{"back": True, "count": count}] if count else []


def table_view(game: Game, seat: Seat | None) -> dict[str, Any]:
    """The table as ``seat`` may see it (``None``: a spectator, public cards only)."""
    o = game.observation(0 if seat is None else seat)
    acting = "the game is over" if game.is_over else f"seat {o.current_player} to act"
    seats = []
    for s in range(o.players):
        lines = [f"bank: {o.cash[s]} cash card(s), faces hidden"]
        if s == o.start_player:
            lines.append("start player")
        if o.purchase_cards[s]:
            lines.append(f"purchase card {o.purchase_cards[s]}")
        hand = _cards(o.kinds, o.hand) if s == seat else _backs(o.hand_sizes[s])
        seats.append(
            {
                "seat": s,
                "lines": lines,
                "zones": [
                    {"title": "window", "cards": _cards(o.kinds, o.windows[s])},
                    {"title": "safe", "cards": _cards(o.kinds, o.safes[s])},
                    {"title": "bank", "cards": _backs(o.cash[s])},
                    {"title": "hand", "cards": hand, "note": f"{o.hand_sizes[s]} card(s)"},
                ],
            }
        )
    view: dict[str, Any] = {
        "headline": f"Round {o.round}, {o.phase.value} phase; {acting}",
        "zones": [
            {"title": "deck", "cards": _backs(o.deck_size)},
            {"title": "discard", "cards": _cards(o.kinds, o.discard)},
        ],
        "seats": seats,
    }
    if o.buying:
        view["prompt"] = f"purchase card {o.buying} is buying"
    return view
