"""Determinizations: whole games that agree with what one seat knows.

A seat sees its own view, hand and face-down lists and everything public
(:class:`~cardshop.wuhltisch.game.WuhltischObservation`). The rest is dealt at random:
the other seats' held shirts (as many as they hold), every laid-down set of this
round (face down, the seat's own included: the rulings keep them hidden until the
scoring), the other seats' face-down lists, the heap's order and the box. Other seats
are given no shirt in view: whether someone is looking at a card is not in an
observation, and a determinization without views is consistent with it. The core's
information-set search plays such games.
"""

from __future__ import annotations

import random
from typing import Any

from cardshop.core import GameStateError, VariantBase
from cardshop.wuhltisch.game import WuhltischGame, WuhltischObservation
from cardshop.wuhltisch.variant import WuhltischVariant

__all__ = ["sample"]


def sample(observation: Any, variant: VariantBase, rng: random.Random) -> WuhltischGame:
    """A game consistent with ``observation``, its hidden cards dealt with ``rng``."""
    from cardshop.wuhltisch.invariants import state_problems

    o: WuhltischObservation = observation
    if not isinstance(variant, WuhltischVariant):
        raise GameStateError(f"not a Wühltisch variant: {variant!r}")
    if o.over:
        raise GameStateError("the game is over: there is nothing hidden left to sample")
    rules = variant.rules
    n = o.players
    k = rules.set_size
    me = o.seat
    seen = {*o.hand, *(c for c in o.lists if c >= 0)}
    if o.view >= 0:
        seen.add(o.view)
    for f in o.found:
        seen.update(f)
    shirts = [c for c in range(rules.n_shirts) if c not in seen]
    lists = [c for c in range(rules.first_list, rules.n_cards) if c not in seen]
    lost = [c for c in range(rules.first_lost, rules.first_list) if c not in seen]
    rng.shuffle(shirts)
    rng.shuffle(lists)
    game = WuhltischGame._empty(variant, n, rng.getrandbits(63))
    game._chance = rng.getrandbits(31)
    game._round = o.round
    game._tick = o.tick
    game._ticks = o.tick
    try:
        for s in range(n):
            game._active[s] = o.lists[s]
            game._found[s] = list(o.found[s])
            game._sets[s] = [
                [lists.pop(), *(shirts.pop() for _ in range(k))] for _ in range(o.sets_laid[s])
            ]
            if s == me:
                game._view[s] = o.view
                game._hands[s] = list(o.hand)
            else:
                game._hands[s] = sorted(shirts.pop() for _ in range(o.hand_sizes[s]))
            # WT-KNOW-1: every face-down list is hidden, its owner's too
            game._stacks[s] = [lists.pop() for _ in range(o.stack_sizes[s])]
            game._last_sets[s] = [list(st) for st in o.last_sets[s]]
            game._last_found[s] = list(o.last_found[s])
            game._in_front[s] = sum(len(st) for st in o.last_sets[s]) + len(o.last_found[s])
    except IndexError:
        raise GameStateError("the observation holds more cards than the variant has") from None
    heap = shirts + lost
    rng.shuffle(heap)
    game._heap = heap
    game._box = sorted(lists)
    game._round_scores = [list(r) for r in o.round_scores]
    game._callers = [list(c) for c in o.callers]
    game._capped = list(o.capped)
    problems = state_problems(game)
    if problems:
        raise GameStateError("the observation does not fit the variant: " + "; ".join(problems[:3]))
    return game
