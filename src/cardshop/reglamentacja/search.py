"""What this family adds to the core's tree search (``Family.search``).

The core's ISMCTS deals the hidden stamps and visit cards with the family's sampler
and, without these hooks, would play every playout to the end by uniform random
choice: on an offer turn that means drawing among thousands of offers, and a game
of random offers runs hundreds of steps. So playouts here are short and cheap:

* ``rollout``: a playout policy that never offers. On its offer turn a seat passes
  (the active player stops the top), it accepts an offer made to it only if the
  trade raises its hand's value (:func:`~cardshop.reglamentacja.bots.hand_value`),
  discards the stamp it needs least and buys the best card it can.
* ``progress``: the turn number, so a playout stops when the next turn begins (the
  core's ISMCTS stops after ``horizon`` units, 1 by default);
* ``evaluate``: each seat's points so far plus half its hand's value, turned into a
  value in [0, 1] by its lead over the best other seat.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from cardshop._core import Action, Seat
from cardshop._family import RolloutPolicy, SearchHooks
from cardshop._game import Game
from cardshop._variant import VariantBase
from cardshop.reglamentacja.bots import hand_value
from cardshop.reglamentacja.game import (
    ACCEPT,
    DISCARD,
    FINAL_SHOP,
    FINAL_TRADE,
    PASS,
    REJECT,
    SHOP,
    STOP,
    TRADE,
    ReglamentacjaGame,
)

__all__ = ["SEARCH", "evaluate", "progress", "rollout_policy"]

HAND_WEIGHT = 0.5
"""How much a hand's value counts next to points already scored, when a playout stops."""


def _game(game: Game) -> ReglamentacjaGame:
    if not isinstance(game, ReglamentacjaGame):
        raise TypeError(f"not a Reglamentacja game: {type(game).__name__}")
    return game


def _hand(game: ReglamentacjaGame, seat: int) -> list[int]:
    k = game.rules.k
    return game._hand[seat * k : seat * k + k]  # the family's own game


def _choose(game: ReglamentacjaGame, seat: Seat) -> Action:
    """The playout policy's action for ``seat``, the acting seat of ``game``."""
    rules = game.rules
    phase = game._phase
    visit = game._visit[seat]
    row = game._row
    if phase in (TRADE, FINAL_TRADE):
        pending = game._pt
        if pending < 0:  # my offer turn: no offers in playouts
            return STOP if phase == TRADE and seat == game._active else PASS
        hand = _hand(game, seat)
        take = rules.multisets[game._pk]  # what I would hand over
        give = rules.multisets[game._pg]  # what I would receive
        if any(h < t for h, t in zip(hand, take, strict=True)):
            return REJECT
        after = [h + g - t for h, g, t in zip(hand, give, take, strict=True)]
        gain = hand_value(rules, after, row, visit) - hand_value(rules, hand, row, visit)
        return ACCEPT if gain > 0 else REJECT
    if phase == DISCARD:
        hand = _hand(game, seat)
        best, best_value = -1, -math.inf
        for kind in rules.alpha:
            if hand[kind]:
                hand[kind] -= 1
                value = hand_value(rules, hand, row, visit)
                hand[kind] += 1
                if value > best_value:
                    best, best_value = kind, value
        return rules.discard_actions[best]
    if phase in (SHOP, FINAL_SHOP):
        hand = _hand(game, seat)
        mult = rules.visit_mult[visit]
        choice, best_points = PASS, 0
        for p, card in enumerate(row):
            cost = rules.card_cost[card]
            if all(h >= c for h, c in zip(hand, cost, strict=True)):
                points = rules.card_icons[card] * mult[rules.card_cat[card]]
                if points > best_points:
                    choice, best_points = rules.buy_actions[p], points
        return choice
    raise ValueError(f"no seat acts in phase {game.phase!r}")


def rollout_policy(variant: VariantBase, seed: int) -> RolloutPolicy:
    """The playout policy (deterministic: it needs neither ``variant`` nor ``seed``)."""

    def policy(game: Game, seat: Seat, rng: random.Random) -> Action:
        return _choose(_game(game), seat)

    return policy


def progress(game: Game) -> int:
    """The turn number: a playout stops when the next turn begins."""
    return _game(game).turn


def evaluate(game: Game) -> Sequence[float]:
    """Each seat's value in [0, 1] for a game a playout stopped before its end."""
    g = _game(game)
    rules = g.rules
    row = g._row
    values = [
        g.score(s) + HAND_WEIGHT * hand_value(rules, _hand(g, s), row, g._visit[s])
        for s in range(g.n)
    ]
    out = []
    for s, v in enumerate(values):
        best_other = max(values[o] for o in range(g.n) if o != s)
        out.append(0.5 + 0.5 * math.tanh((v - best_other) / 4.0))
    return out


SEARCH = SearchHooks(rollout=rollout_policy, evaluate=evaluate, progress=progress)
"""The hooks the family hands the core's ISMCTS."""
