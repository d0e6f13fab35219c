"""The Wühltisch table as data for a graphical client (``Family.table_view``, docs/serve.md).

Built from the seat's own :class:`~cardshop.wuhltisch.game.WuhltischObservation`: the
heap face down, every face-up list, the lost property laid out, the score sheet; the
seat's own shirt in view, held shirts (with how many attributes match its list) and
face-down lists; for the others only how many shirts they hold. A spectator (``seat``
None) sees the public part.
"""

from __future__ import annotations

from typing import Any

from cardshop.core import Game, Seat
from cardshop.wuhltisch.variant import WuhltischRules, as_wuhltisch

__all__ = ["table_view"]


def _card(rules: WuhltischRules, card: int, row: tuple[int, ...] | None = None) -> dict[str, Any]:
    name = rules.card_name[card]
    if name.startswith("list:"):
        return {"face": name.removeprefix("list:").replace("/", " "), "mark": "list",
                "color": "gold"}  # fmt: skip
    if name.startswith("lost:"):
        value = rules.lost_value[card]
        return {"face": "lost property", "mark": f"worth {value}", "color": "violet"}
    pattern, _, price = name.partition("@")
    parts = pattern.split("/")
    out: dict[str, Any] = {"face": " ".join(parts), "mark": f"price {price}"}
    colors = [p for p in parts if p in ("red", "blue", "green")]
    out["color"] = colors[0] if colors else "gray"
    if row is not None:
        out["mark"] += f", {row[card]} match(es)"
    return out


def table_view(game: Game, seat: Seat | None) -> dict[str, Any]:
    """The table as ``seat`` may see it (``None``: a spectator, public cards only)."""
    rules = as_wuhltisch(game.variant).rules
    o = game.observation(0 if seat is None else seat)
    totals = [sum(r[s] for r in o.round_scores) for s in range(o.players)]
    seats = []
    for s in range(o.players):
        lst = o.lists[s]
        down = o.stack_sizes[s]  # WT-KNOW-1: face-down lists show their backs to all
        zones: list[dict[str, Any]] = [
            {"title": "face-up list", "cards": [_card(rules, lst)] if lst >= 0 else []},
            {"title": "face-down lists", "cards": [{"back": True, "count": down}] if down else []},
        ]
        if s == seat:
            row = rules.matches[lst - rules.first_list] if lst >= 0 else None
            view = [_card(rules, o.view, row)] if o.view >= 0 else []
            held = []
            for i, c in enumerate(o.hand):
                card = _card(rules, c, row)
                card["mark"] = f"slot {i}: {card['mark']}"
                held.append(card)
            zones.append({"title": "in view", "cards": view})
            zones.append({"title": "held shirts", "cards": held})
        else:
            backs = [{"back": True, "count": o.hand_sizes[s]}] if o.hand_sizes[s] else []
            zones.append({"title": "held shirts", "cards": backs})
        found = [_card(rules, c) for c in o.found[s]]
        zones.append({"title": "lost property", "cards": found})
        seats.append(
            {
                "seat": s,
                "lines": [
                    f"score {totals[s]}",
                    f"holds {o.hand_sizes[s]} shirt(s)",
                    f"{o.sets_laid[s]} set(s) laid down",
                ],
                "zones": zones,
            }
        )
    clock = "the game is over" if o.over else f"tick {o.tick} of at most {rules.round_ticks}"
    sheet = []
    for r, scores in enumerate(o.round_scores):
        how = "capped" if r + 1 in o.capped else f"ended by seat(s) {list(o.callers[r])}"
        sheet.append(f"round {r + 1} ({how}): {list(scores)}")
    public: list[dict[str, Any]] = [
        {"title": "heap", "cards": [{"back": True}], "note": "face down, rummage with look"}
    ]
    if sheet:
        public.append({"title": "score sheet", "cards": [], "note": "; ".join(sheet)})
    return {
        "headline": f"Round {o.round} of {o.rounds}, {clock}",
        "zones": public,
        "seats": seats,
    }
