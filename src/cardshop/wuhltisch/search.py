"""What the family adds to the core's information-set search (``ismcts``).

Without these hooks the core's ISMCTS would play every playout to the end of the
game with random actions: a random Wühltisch game lasts some 10,000 ticks, so one
iteration costs about a second, and a playout cut off by ``max_playout`` is worth a
flat 0.5 to every seat, which tells the search nothing. :data:`SEARCH` makes it fit:

* **rollout**: every seat plays the greedy bot's rule
  (:meth:`~cardshop.wuhltisch.bots.WuhltischGreedyBot.decide`) on the sampled game;
* **progress**: a counter that moves when anyone lays down a set, when a round ends
  and every :data:`STRIDE` ticks, so a playout (``horizon`` 1) stops at the first of
  these: at most ``STRIDE`` ticks;
* **evaluate**: each seat's score so far, plus this round's laid-down sets and lost
  property, plus what its hand is likely worth (:func:`estimates`), turned into a
  value in [0, 1] from its lead over the best other seat, on the same scale as the
  core's end-of-game reward (0.7 for winning, 0.3 for the margin).

The sampler (:func:`cardshop.wuhltisch.sampling.sample`) deals the hidden cards: the
heap's order and contents, the other seats' held shirts and face-down lists, and the
laid-down sets of the round, which stay face down until the scoring.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from cardshop.core import Action, Game, RolloutPolicy, SearchHooks, Seat, VariantBase
from cardshop.wuhltisch.bots import WuhltischGreedyBot
from cardshop.wuhltisch.game import WuhltischGame

__all__ = ["FULL_HAND_SHARE", "PARTIAL_SHARE", "SEARCH", "STRIDE", "estimates"]

STRIDE = 20
"""A playout stops after at most this many ticks."""

FULL_HAND_SHARE = 0.9
"""A full hand that scores counts this share of its score (it still has to be bought)."""

PARTIAL_SHARE = 0.4
"""A part hand that can still score counts this share of its matches."""


def _wuhltisch(game: Game) -> WuhltischGame:
    current = getattr(game, "current", game)  # a match: its current game
    if not isinstance(current, WuhltischGame):
        raise TypeError(f"not a Wühltisch game: {game!r}")
    return current


def estimates(game: Game) -> list[float]:
    """Each seat's expected total: rounds scored, this round's sets and lost property
    (the caller rule aside), and a share of what its hand may score."""
    g = _wuhltisch(game)
    rules = g.rules
    k = rules.set_size
    lost_value = rules.lost_value
    slack = rules.max_matches - rules.threshold
    size = rules.list_size
    out: list[float] = []
    totals = g.scores()
    for s in range(g.n):
        value = float(totals[s])
        if not g.is_over:
            value += sum(rules.set_score(st[0], st[1:]) for st in g._sets[s])
            value += sum(lost_value[c] for c in g._found[s])
            lst = g._active[s]
            hand = g._hands[s]
            if lst >= 0 and hand:
                row = rules.matches[lst - rules.first_list]
                if len(hand) == k:
                    value += FULL_HAND_SHARE * rules.set_score(lst, hand)
                elif sum(size - row[c] for c in hand) <= slack:
                    value += PARTIAL_SHARE * sum(row[c] for c in hand)
        out.append(value)
    return out


def evaluate(game: Game) -> list[float]:
    """A value in [0, 1] per seat from its lead in :func:`estimates`."""
    values = estimates(game)
    n = len(values)
    out = []
    for s in range(n):
        lead = values[s] - max((values[o] for o in range(n) if o != s), default=values[s])
        win = 0.5 + 0.5 * math.tanh(lead / 6.0)
        margin = 0.5 + 0.5 * math.tanh(lead / 4.0)
        out.append(0.7 * win + 0.3 * margin)
    return out


def progress(game: Game) -> int:
    """Moves on a set laid down, at a round's end and every :data:`STRIDE` ticks."""
    g = _wuhltisch(game)
    sets = sum(len(st) for st in g._sets)
    return g._round * 1_000_000 + sets * 1_000 + g._tick // STRIDE


def rollout(variant: VariantBase, seed: int) -> RolloutPolicy:
    """Every seat plays the greedy rule in playouts."""
    decide = WuhltischGreedyBot(variant, seed).decide

    def policy(game: Game, seat: Seat, rng: random.Random) -> Action:
        g = _wuhltisch(game)
        legal: Sequence[Action] = g.legal_actions(seat)
        return decide(g._active[seat], g._view[seat], g._hands[seat], legal)

    return policy


SEARCH = SearchHooks(rollout=rollout, evaluate=evaluate, progress=progress)
"""The hooks the family gives the core's ISMCTS (``Family.search``)."""
