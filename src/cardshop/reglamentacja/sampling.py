"""The sampler that lets the core's ISMCTS play this family: games that agree with
what one seat observes, the hidden parts dealt at random.

:func:`sample` deals one whole game (every part checked, through a position);
:func:`determinizer` deals many from one observation cheaply, as copies of one game
with the hidden parts dealt again.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from cardshop.core import GameStateError, VariantBase
from cardshop.reglamentacja.game import SPECULATOR, Observation, ReglamentacjaGame
from cardshop.reglamentacja.variant import as_reglamentacja

__all__ = ["determinizer", "sample", "sample_position"]


def sample_position(
    observation: Observation, variant: VariantBase, rng: random.Random
) -> dict[str, Any]:
    """A position that agrees with ``observation``, the hidden parts dealt at random.

    Hidden: the other hands' stamps, the stamp stack's contents and order, the other
    seats' visit cards, the shopping stack's order and how long the top still spins.
    A pending offer's stamps stay with its maker, who is known to hold them.
    """
    o = observation
    rules = as_reglamentacja(variant).rules_for(o.players)
    if o.phase == "over":
        raise GameStateError("the game is over: there is nothing hidden left to sample")
    if o.kinds != rules.kinds:
        raise GameStateError("the observation's stamp kinds are not the variant's")
    n = o.players
    unseen = [
        rules.kind_start[i + 1] - rules.kind_start[i] - o.hand[i] - o.discard[i]
        for i in range(rules.k)
    ]
    hidden_places = o.stamp_stack + sum(o.hand_sizes) - o.hand_sizes[o.seat]
    if min(unseen) < 0 or sum(unseen) != hidden_places:
        raise GameStateError("the observation's stamps do not add up")
    # A pending offer shows that its maker holds the stamps he offers.
    known = [[0] * rules.k for _ in range(n)]
    if o.pending is not None and o.offerer is not None and o.offerer != o.seat:
        known[o.offerer] = list(o.pending[1])
        unseen = [u - g for u, g in zip(unseen, o.pending[1], strict=True)]
        if min(unseen) < 0:
            raise GameStateError("the pending offer gives stamps nobody can hold")
    pool = [i for i in range(rules.k) for _ in range(unseen[i])]
    rng.shuffle(pool)
    hands: list[dict[str, int]] = []
    for s in range(n):
        counts = list(o.hand) if s == o.seat else known[s]
        if s != o.seat:
            for _ in range(o.hand_sizes[s] - sum(counts)):
                counts[pool.pop()] += 1
        hands.append({rules.kinds[i]: c for i, c in enumerate(counts) if c})
    stamp_stack = [rules.kinds[i] for i in pool]
    removed_visits = set(rules.meal_visits) if n == 3 and rules.without_meal_visits else set()
    mine = o.visits[o.seat]
    free = [v for v in range(rules.n_visits) if v != mine and v not in removed_visits]
    rng.shuffle(free)
    visits = [mine if s == o.seat else free.pop() for s in range(n)]
    seen_cards = {*o.row, *o.removed}
    for bought in o.bought:
        seen_cards.update(bought)
    shop = [c for c in range(rules.n_cards) if c not in seen_cards]
    if len(shop) != o.shop_stack:
        raise GameStateError("the observation's shopping cards do not add up")
    rng.shuffle(shop)
    pos: dict[str, Any] = {
        "players": n,
        "seed": rng.randrange(2**63),
        "turn": o.turn,
        "phase": o.phase,
        "active": o.active,
        "queue": ["S" if p == SPECULATOR else p for p in o.queue],
        "seats": [
            {
                "hand": hands[s],
                "visit": rules.visit_names[visits[s]],
                "bought": [rules.card_names[c] for c in o.bought[s]],
            }
            for s in range(n)
        ],
        "row": [rules.card_names[c] for c in o.row],
        "shop_stack": [rules.card_names[c] for c in shop],
        "removed": [rules.card_names[c] for c in o.removed],
        "stamp_stack": stamp_stack,
        "discard": {rules.kinds[i]: c for i, c in enumerate(o.discard) if c},
    }
    if o.phase in ("trade", "final-trade"):
        pos["offer_turns"] = o.offer_turns
        pos["spin"] = rng.randint(max(rules.spin_min, o.offer_turns + 1), rules.spin_max)
        if o.pending is not None:
            target, give, take, place = o.pending
            pos["pending"] = "offer " + rules.offer_text(
                target, rules.ms_index[give], rules.ms_index[take], place
            )
    if o.phase == "final-shop":
        pos["final_buyers"] = o.final_buyers
    return pos


def sample(observation: Any, variant: VariantBase, rng: random.Random) -> ReglamentacjaGame:
    """A whole game consistent with ``observation`` (hidden cards dealt with ``rng``)."""
    variant = as_reglamentacja(variant)
    return ReglamentacjaGame.from_position(sample_position(observation, variant, rng), variant)


def determinizer(
    observation: Any, variant: VariantBase, rng: random.Random
) -> Callable[[random.Random], ReglamentacjaGame]:
    """Many samples of one observation, cheaply (the family's ``determinizer``).

    One game is built with :func:`sample` (every part checked); each sample is a copy
    of it with the hidden parts dealt again as :func:`sample_position` deals them:
    the stamps in other hands and in the stack (a pending offer's stamps stay with
    its maker), the other seats' visit cards, the shopping stack's order, how long
    the top still spins and the seed of later chance events.
    """
    template = sample(observation, variant, rng)
    o: Observation = observation
    rules = template.rules
    n = template.n
    me = o.seat
    kind_of = rules.stamp_kind
    # Stamps the offerer of a pending offer is known to hold: kept in his hand.
    keep = [0] * rules.k
    if o.pending is not None and o.offerer is not None and o.offerer != me:
        keep = list(o.pending[1])
    kept: set[int] = set()
    hidden: list[int] = []
    for sid, zone in enumerate(template._swhere):
        if zone == o.offerer and keep[kind_of[sid]]:
            keep[kind_of[sid]] -= 1
            kept.add(sid)
        elif zone == n or (zone < n and zone != me):
            hidden.append(sid)
    others = [s for s in range(n) if s != me]
    counts = [template._hsize[s] - sum(1 for x in kept if template._swhere[x] == s) for s in others]
    stack_size = len(template._stack)
    mine = template._visit[me]
    removed = set(rules.meal_visits) if n == 3 and rules.without_meal_visits else set()
    free = [v for v in range(rules.n_visits) if v != mine and v not in removed]
    trading = o.phase in ("trade", "final-trade")
    low_spin = max(rules.spin_min, o.offer_turns + 1) if trading else 0
    k = rules.k

    def deal(r: random.Random) -> ReglamentacjaGame:
        g = template.clone()
        ids = hidden.copy()
        r.shuffle(ids)
        where = g._swhere
        hand = g._hand
        for s in others:
            base = s * k
            for i in range(k):
                hand[base + i] = 0
        for x in kept:
            hand[where[x] * k + kind_of[x]] += 1
        at = 0
        for s, c in zip(others, counts, strict=True):
            base = s * k
            for sid in ids[at : at + c]:
                where[sid] = s
                hand[base + kind_of[sid]] += 1
            at += c
        stack = ids[at:]
        for sid in stack:
            where[sid] = n
        assert len(stack) == stack_size
        g._stack = stack
        visits = free.copy()
        r.shuffle(visits)
        for s in others:
            g._visit[s] = visits.pop()
        g._box = sorted({*range(rules.n_visits)} - set(g._visit))
        r.shuffle(g._cstack)
        if trading:
            g._spin = r.randint(low_spin, rules.spin_max)
        g.seed = r.randrange(2**63)
        g._legal = None
        return g

    return deal
