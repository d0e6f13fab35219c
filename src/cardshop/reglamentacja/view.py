"""The Reglamentacja table as data for a graphical client (``Family.table_view``,
docs/serve.md).

Built from the seat's own :class:`~cardshop.reglamentacja.game.Observation`: the row
of shop cards with their costs, the queue, the stacks, the discarded stamps, every
seat's bought cards; the seat's own stamps and visit card (the others' face down until
the end), and the pending offer to accept or reject. A spectator (``seat`` None) sees
the public part.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardshop.core import Game, Seat

__all__ = ["table_view"]

_COLORS = ("red", "blue", "green", "gold", "violet", "gray", "red")


def _stamps(kinds: Sequence[str], counts: Sequence[int]) -> list[dict[str, Any]]:
    return [
        {"face": kind, "count": c, "color": _COLORS[i % len(_COLORS)]}
        for i, (kind, c) in enumerate(zip(kinds, counts, strict=True))
        if c
    ]


def _words(kinds: Sequence[str], counts: Sequence[int]) -> str:
    parts = [f"{k} x{c}" if c > 1 else k for k, c in zip(kinds, counts, strict=True) if c]
    return ", ".join(parts) or "nothing"


def table_view(game: Game, seat: Seat | None) -> dict[str, Any]:
    """The table as ``seat`` may see it (``None``: a spectator, public cards only)."""
    rules: Any = getattr(game, "rules")  # noqa: B009  the family's compiled rules
    o = game.observation(0 if seat is None else seat)
    kinds = o.kinds

    def shop_card(card: int) -> dict[str, Any]:
        cost = " ".join(
            kinds[i] for i in range(len(kinds)) for _ in range(rules.card_cost[card][i])
        )
        cat = rules.categories[rules.card_cat[card]]
        return {
            "face": rules.card_titles[card],
            "mark": f"{cost} → {cat} x{rules.card_icons[card]}",
            "color": _COLORS[rules.card_cat[card] % len(_COLORS)],
        }

    queue = [
        {"face": "speculator", "color": "gray"} if p < 0 else {"face": f"seat {p}", "color": "blue"}
        for p in o.queue
    ]
    seats = []
    for s in range(o.players):
        mine = s == seat
        stamps = _stamps(kinds, o.hand) if mine else [{"back": True, "count": o.hand_sizes[s]}]
        visit = o.visits[s]
        if visit >= 0 and (seat is not None or game.is_over):
            visit_cards = [{"face": rules.visit_titles[visit], "mark": "visit", "color": "gold"}]
        else:
            visit_cards = [{"back": True}]
        lines = [f"{o.hand_sizes[s]} stamp(s)"]
        if s == o.active:
            lines.append("holds the top")
        if mine or game.is_over:
            lines.append(f"score {getattr(game, 'score')(s)}")  # noqa: B009
        seats.append(
            {
                "seat": s,
                "lines": lines,
                "zones": [
                    {"title": "stamps", "cards": stamps if o.hand_sizes[s] else []},
                    {"title": "visit card", "cards": visit_cards},
                    {"title": "bought", "cards": [shop_card(c) for c in o.bought[s]]},
                ],
            }
        )
    acting = "the game is over" if o.acting is None else f"seat {o.acting} to act"
    view: dict[str, Any] = {
        "headline": f"Turn {o.turn}, {o.phase}; seat {o.active} holds the top; {acting}",
        "zones": [
            {
                "title": "row",
                "cards": [shop_card(c) for c in o.row],
                "note": "position 1 is nearest the board",
            },
            {"title": "queue", "cards": queue, "note": "head first"},
            {"title": "stamp stack", "cards": [{"back": True, "count": o.stamp_stack}]},
            {"title": "shopping stack", "cards": [{"back": True, "count": o.shop_stack}]},
            {"title": "discarded stamps", "cards": _stamps(kinds, o.discard)},
            {"title": "removed by the speculator", "cards": [shop_card(c) for c in o.removed]},
        ],
        "seats": seats,
    }
    if o.pending is not None:
        target, give, take, place = o.pending
        text = (
            f"seat {o.offerer} offers seat {target} {_words(kinds, give)} "
            f"for {_words(kinds, take)}" + (", and to swap places in the queue" if place else "")
        )
        if target == seat:
            text += ": accept or reject?"
        view["prompt"] = text
    return view
