"""A greedy trading bot, and the sampler that lets the core's ISMCTS play this family.

The greedy bot values a hand by the row's cards it could complete (weighted by their
points under its visit card) and takes only trades that raise that value. It keeps
no memory between decisions and uses its own seeded generator.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from cardshop.core import (
    Action,
    GameStateError,
    LegalActions,
    VariantBase,
    actions_by_verb,
    choose_by_verb,
)
from cardshop.reglamentacja.game import (
    PASS,
    REJECT,
    SPECULATOR,
    STOP,
    Observation,
    ReglamentacjaGame,
)
from cardshop.reglamentacja.offers import OfferTurn
from cardshop.reglamentacja.variant import ReglamentacjaVariant, Rules

__all__ = [
    "ReglamentacjaBaselineBot",
    "ReglamentacjaGreedyBot",
    "determinizer",
    "hand_value",
    "random_offer",
    "sample",
    "sample_position",
]


def _rules(variant: VariantBase) -> Rules:
    if not isinstance(variant, ReglamentacjaVariant):
        raise TypeError(f"not a Reglamentacja variant: {type(variant).__name__}")
    return variant.rules


def hand_value(rules: Rules, hand: Sequence[int], row: Sequence[int], visit: int) -> float:
    """How much a hand is worth to its holder facing ``row``.

    Each row card counts its points (icons, doubled by the visit) times the share of
    its cost the hand covers, squared, with a bonus for a card the hand can buy now.
    Shares of one stamp are not exclusive between cards: a rough, quick estimate.
    """
    mult = rules.visit_mult[visit] if visit >= 0 else (1,) * len(rules.categories)
    value = 0.0
    for card in row:
        cost = rules.card_cost[card]
        need = sum(cost)
        have = sum(min(h, c) for h, c in zip(hand, cost, strict=True) if c)
        points = rules.card_icons[card] * mult[rules.card_cat[card]]
        share = have / need
        value += points * share * share
        if have == need:
            value += points
    return value + 0.01 * sum(hand)


def random_offer(turn: OfferTurn, rng: random.Random, chosen: Sequence[int] = ()) -> Action:
    """An offer of an offer turn built part by part, each part uniform among the legal
    values given the parts before it (:meth:`OfferTurn.parts`), after ``chosen``."""
    parts = list(chosen)
    while len(parts) < 4:
        parts.append(rng.choice(turn.parts(parts)))
    action = turn.compose(*parts)
    if action is None:  # pragma: no cover - every listed part leads to a legal offer
        raise GameStateError(f"the parts {parts} make no legal offer")
    return action


class ReglamentacjaBaselineBot:
    """Chooses the kind of action first, then its parts, each uniformly.

    A verb among the legal ones (``offer``, ``pass``, ``speculate``, ``stop`` on an
    offer turn; ``accept``/``reject``, ``discard``, ``buy``/``pass`` otherwise), then
    one action of it: an offer part by part (the seat offered to, what is given, what
    is taken, whether places swap; :func:`random_offer`), any other uniformly among
    those of its verb. Where ``random`` offers on nearly every offer turn (offers are
    thousands of the listed actions), this one passes as often as it offers.
    """

    name = "baseline"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        rng = self.rng
        turn = legal_actions.structure if isinstance(legal_actions, LegalActions) else None
        if isinstance(turn, OfferTurn) and turn.parts():
            others = actions_by_verb(turn.tail)
            verb = rng.choice(["offer", *others])
            if verb == "offer":
                return random_offer(turn, rng)
            return rng.choice(others[verb])
        if not legal_actions:
            raise GameStateError("no legal action to choose from")
        return choose_by_verb(legal_actions, rng)

    def __repr__(self) -> str:
        return "ReglamentacjaBaselineBot()"


class ReglamentacjaGreedyBot:
    """Offers and accepts trades that raise its hand's value; buys the best card it can."""

    name = "greedy"

    def __init__(self, variant: VariantBase, seed: int = 0) -> None:
        self.rules = _rules(variant)
        self.rng = random.Random(seed)

    def _value(self, o: Observation, hand: Sequence[int]) -> float:
        return hand_value(self.rules, hand, o.row, o.visits[o.seat])

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        o: Observation = observation
        legal = list(legal_actions)
        if not legal:
            raise GameStateError("no legal action to choose from")
        if len(legal) == 1:
            return legal[0]
        rules = self.rules
        if o.pending is not None:
            return self._answer(o, legal)
        if o.phase == "discard":
            return self._discard(o, legal)
        if o.phase in ("shop", "final-shop"):
            best, best_points = PASS, -1
            mult = rules.visit_mult[o.visits[o.seat]]
            for action in legal:
                if action.verb == "buy":
                    assert isinstance(action.arg, int)
                    card = o.row[action.arg - 1]
                    points = rules.card_icons[card] * mult[rules.card_cat[card]]
                    if points > best_points:
                        best, best_points = action, points
            return best
        return self._offer_turn(o, legal)

    def _answer(self, o: Observation, legal: list[Action]) -> Action:
        assert o.pending is not None
        _, give, take, place = o.pending  # give: what I receive; take: what I hand over
        if Action("accept") not in legal:
            return REJECT
        after = [h + g - t for h, g, t in zip(o.hand, give, take, strict=True)]
        gain = self._value(o, after) - self._value(o, o.hand)
        if place and o.offerer is not None:
            queue = list(o.queue)
            mine, theirs = queue.index(o.seat), queue.index(o.offerer)
            gain += 0.3 * (mine - theirs)  # moving towards the counter is worth a little
        return Action("accept") if gain > 0 else REJECT

    def _discard(self, o: Observation, legal: list[Action]) -> Action:
        best, best_value = legal[0], float("-inf")
        for action in legal:
            kind = self.rules.kind_index[str(action.arg)]
            hand = list(o.hand)
            hand[kind] -= 1
            value = self._value(o, hand)
            if value > best_value:
                best, best_value = action, value
        return best

    def _offer_turn(self, o: Observation, legal: list[Action]) -> Action:
        rules = self.rules
        base = self._value(o, o.hand)
        me = o.seat
        if o.phase == "trade" and me != o.active:
            targets = [o.active]
        else:
            targets = [s for s in range(o.players) if s != me]
        # The best one-for-one swap by value.
        best_gain, best_pair = 0.05, None
        for g in range(rules.k):
            if not o.hand[g]:
                continue
            for t in range(rules.k):
                if t == g:
                    continue
                hand = list(o.hand)
                hand[g] -= 1
                hand[t] += 1
                gain = self._value(o, hand) - base
                if gain > best_gain:
                    best_gain, best_pair = gain, (g, t)
        if best_pair is not None:
            g, t = best_pair
            target = self.rng.choice(targets)
            text = f"{target} give {rules.kinds[g]} take {rules.kinds[t]}"
            action = Action("offer", _canonical(rules, target, text))
            if action in legal:
                return action
        if o.phase == "trade" and me == o.active:
            queue = list(o.queue)
            if SPECULATOR in queue and queue.index(SPECULATOR) < queue.index(me):
                for action in legal:
                    if action.verb == "speculate" and str(action.arg).startswith("swap"):
                        hand = list(o.hand)
                        for word in str(action.arg).split()[1:]:
                            hand[rules.kind_index[word]] -= 1
                        if base - self._value(o, hand) < 0.5:
                            return action
            if STOP in legal and self.rng.random() < 0.5:
                return STOP
        return PASS


def _canonical(rules: Rules, target: int, text: str) -> str:
    """The canonical argument of a one-for-one offer text ``"T give K take K"``."""
    words = text.split()
    give = [0] * rules.k
    take = [0] * rules.k
    give[rules.kind_index[words[2]]] += 1
    take[rules.kind_index[words[4]]] += 1
    return rules.offer_text(target, rules.ms_index[tuple(give)], rules.ms_index[tuple(take)], False)


def sample_position(
    observation: Observation, variant: VariantBase, rng: random.Random
) -> dict[str, Any]:
    """A position that agrees with ``observation``, the hidden parts dealt at random.

    Hidden: the other hands' stamps, the stamp stack's contents and order, the other
    seats' visit cards, the shopping stack's order and how long the top still spins.
    A pending offer's stamps stay with its maker, who is known to hold them.
    """
    rules = _rules(variant)
    o = observation
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
    if not isinstance(variant, ReglamentacjaVariant):
        raise TypeError(f"not a Reglamentacja variant: {type(variant).__name__}")
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
