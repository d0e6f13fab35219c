"""What tools see of the family: the action space, observation vectors, the table as text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardshop.core import Action, Game, Seat, VariantBase
from cardshop.wuhltisch.game import WuhltischGame, WuhltischObservation
from cardshop.wuhltisch.variant import WuhltischRules, WuhltischVariant

__all__ = ["WuhltischEncoder", "action_space", "observation_encoder", "render"]


def _variant(variant: VariantBase) -> WuhltischVariant:
    if not isinstance(variant, WuhltischVariant):
        raise TypeError(f"not a Wühltisch variant: {variant!r}")
    return variant


def action_space(variant: VariantBase, players: int) -> Sequence[Action]:
    """Every action a seat may ever take, in a fixed order (the RL index space):
    ``look, keep, throw, buy, wait, swap 0 .. swap k-1, drop 0 .. drop k-1``
    (``k`` = set_size). It does not depend on the player count."""
    return _variant(variant).rules.actions


class WuhltischEncoder:
    """An observation as numbers, from the observing seat's point of view.

    For the shirt in view and each hand slot: present, matches with the seat's
    face-up list, price, luxury. Then the seat's face-down lists and the round and
    tick; then for every seat (the observer first, then clockwise): shirts held, sets
    laid down, lost property value laid out, score so far.
    """

    def __init__(self, variant: VariantBase, players: int) -> None:
        v = _variant(variant)
        rules = v.rules
        self.rules: WuhltischRules = rules
        self.players = players
        top_price = float(max(rules.price))
        lost_total = float(sum(rules.lost_value))
        most = float(rules.rounds * rules.max_round_score)
        labels: list[str] = []
        high: list[float] = []
        for slot in ["view", *(f"hand {i}" for i in range(rules.set_size))]:
            labels += [f"{slot} present", f"{slot} matches", f"{slot} price", f"{slot} luxury"]
            high += [1.0, float(rules.list_size), top_price, 1.0]
        labels += ["stack", "round", "tick"]
        high += [float(rules.lists_per_player), float(rules.rounds), float(rules.round_ticks)]
        for i in range(players):
            who = "me" if i == 0 else f"seat +{i}"
            labels += [f"{who} held", f"{who} sets", f"{who} lost property", f"{who} score"]
            high += [float(rules.set_size), float(rules.lists_per_player), lost_total, most]
        self.labels = tuple(labels)
        self.low = tuple(0.0 for _ in labels)
        self.high = tuple(high)

    def encode(self, observation: Any) -> list[float]:
        o: WuhltischObservation = observation
        rules = self.rules
        lst = o.lists[o.seat]
        row = rules.matches[lst - rules.first_list] if lst >= 0 else None
        out: list[float] = []
        cards = [o.view, *o.hand, *([-1] * (rules.set_size - len(o.hand)))]
        for c in cards:
            if c < 0:
                out += [0.0, 0.0, 0.0, 0.0]
            else:
                out += [
                    1.0,
                    float(row[c]) if row is not None else 0.0,
                    float(rules.price[c]),
                    1.0 if rules.luxury[c] else 0.0,
                ]
        out += [float(o.stack_sizes[o.seat]), float(o.round), float(o.tick)]
        totals = [sum(r[s] for r in o.round_scores) for s in range(o.players)]
        for i in range(o.players):
            s = (o.seat + i) % o.players
            out += [
                float(o.hand_sizes[s]),
                float(o.sets_laid[s]),
                float(sum(rules.lost_value[c] for c in o.found[s])),
                float(totals[s]),
            ]
        return out


def observation_encoder(variant: VariantBase, players: int) -> WuhltischEncoder:
    return WuhltischEncoder(variant, players)


def render(game: Game, seat: Seat | None = None) -> str:
    """The table as plain text, as ``seat`` may see it (``None``: everything): a seat's
    text holds only what its observation shows (the sizes of the face-down lists, not
    their cards)."""
    if not isinstance(game, WuhltischGame):
        raise TypeError(f"not a Wühltisch game: {game!r}")
    rules = game.rules
    name = rules.card_name
    n = game.n
    state = "over" if game.is_over else f"tick {game.tick} (cap {rules.round_ticks})"
    lines = [f"Wühltisch: round {game.round} of {rules.rounds}, {state}"]
    if seat is None:
        lines.append(f"heap: {len(game._heap)} cards face down")
    totals = game.scores()
    for s in range(n):
        active = game._active[s]
        lst = name[active] if active >= 0 else "none"
        found = ", ".join(name[c] for c in game._found[s]) or "none"
        me = " (you)" if s == seat else ""
        lines.append(
            f"seat {s}{me}: score {totals[s]}; list {lst}; holds {len(game._hands[s])} "
            f"shirt(s); {len(game._sets[s])} set(s) laid down; lost property: {found}"
        )
        if seat is None or seat == s:
            row = rules.matches[active - rules.first_list] if active >= 0 else None

            def shirt(c: int, row: tuple[int, ...] | None = row) -> str:
                m = f", {row[c]} match(es)" if row is not None else ""
                return f"{name[c]}{m}"

            v = game._view[s]
            lines.append(f"  in view: {shirt(v) if v >= 0 else 'nothing'}")
            for i, c in enumerate(game._hands[s]):
                lines.append(f"  slot {i}: {shirt(c)}")
            if seat is None:
                stack = ", ".join(name[c] for c in game._stacks[s][::-1]) or "none"
            else:  # nobody sees the face-down lists, their owner included [WT-KNOW-1]
                stack = f"{len(game._stacks[s])} (hidden)"
            lines.append(f"  face-down lists: {stack}")
            if seat is None:
                for i, st in enumerate(game._sets[s]):
                    lines.append(f"  set {i}: {', '.join(name[c] for c in st)}")
    for r, scores in enumerate(game._round_scores):
        how = "capped" if r + 1 in game._capped else f"ended by {game._callers[r]}"
        lines.append(f"round {r + 1} ({how}): {list(scores)}")
    return "\n".join(lines)
