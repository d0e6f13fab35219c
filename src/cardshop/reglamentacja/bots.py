"""The family's bots: a greedy trader and a baseline that picks the kind of action first.

The greedy bot values a hand by the row's cards it could complete (weighted by their
points under its visit card) and takes only trades that raise that value. It keeps
no memory of the game between decisions (only the hand values it computed, each a
function of the hand, the row and its visit) and uses its own seeded generator.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
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
)
from cardshop.reglamentacja.offers import OfferTurn
from cardshop.reglamentacja.variant import Rules, as_reglamentacja

__all__ = [
    "ReglamentacjaBaselineBot",
    "ReglamentacjaGreedyBot",
    "hand_value",
    "random_offer",
]


def hand_value(rules: Rules, hand: Sequence[int], row: Sequence[int], visit: int) -> float:
    """How much a hand is worth to its holder facing ``row``.

    Each row card counts its points (icons, doubled by the visit) times the share of
    its cost the hand covers, squared, with a bonus for a card the hand can buy now.
    Shares of one stamp are not exclusive between cards: a rough, quick estimate.
    """
    mult = rules.visit_mult[visit] if visit >= 0 else None
    cards = _cards(rules)
    value = 0.0
    for card in row:
        need, costs, icons, cat = cards[card]
        have = 0
        for kind, count in costs:
            held = hand[kind]
            have += held if held < count else count
        points = icons if mult is None else icons * mult[cat]
        share = have / need
        value += points * share * share
        if have == need:
            value += points
    return value + 0.01 * sum(hand)


@lru_cache(maxsize=64)
def _cards(rules: Rules) -> tuple[tuple[int, tuple[tuple[int, int], ...], int, int], ...]:
    """Each shopping card as :func:`hand_value` reads it: its cost in stamps, the
    ``(kind, count)`` of the kinds it costs, its icons and its category (made once per
    variant: the greedy bot values hundreds of hands a decision)."""
    return tuple(
        (
            sum(cost),
            tuple((kind, count) for kind, count in enumerate(cost) if count),
            rules.card_icons[card],
            rules.card_cat[card],
        )
        for card, cost in enumerate(rules.card_cost)
    )


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


_REMEMBERED = 4096
"""The hand values a greedy bot keeps at most (then it starts afresh)."""


class ReglamentacjaGreedyBot:
    """Offers and accepts trades that raise its hand's value; buys the best card it can."""

    name = "greedy"

    def __init__(self, variant: VariantBase, seed: int = 0) -> None:
        self.rules = as_reglamentacja(variant).rules
        self.rng = random.Random(seed)
        self._values: dict[tuple[int, ...], float] = {}

    def _value(self, o: Observation, hand: Sequence[int]) -> float:
        """:func:`hand_value` of ``hand`` facing the observed row and this seat's visit,
        remembered: a decision values dozens of hands, and the next decisions the same
        hands again while the row stays (about half of all valuations)."""
        visit = o.visits[o.seat]
        key = (visit, *hand, *o.row)  # the hand's length is the rules' kinds: unambiguous
        values = self._values
        value = values.get(key)
        if value is None:
            if len(values) >= _REMEMBERED:
                values.clear()
            value = values[key] = hand_value(self.rules, hand, o.row, visit)
        return value

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        o: Observation = observation
        # Not listed: an offer turn's thousands of offers are asked about, never built
        # (a view answers `in` and `len` without them).
        legal = legal_actions
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

    def _answer(self, o: Observation, legal: Sequence[Action]) -> Action:
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

    def _discard(self, o: Observation, legal: Sequence[Action]) -> Action:
        best, best_value = legal[0], float("-inf")
        for action in legal:
            kind = self.rules.kind_index[str(action.arg)]
            hand = list(o.hand)
            hand[kind] -= 1
            value = self._value(o, hand)
            if value > best_value:
                best, best_value = action, value
        return best

    def _offer_turn(self, o: Observation, legal: Sequence[Action]) -> Action:
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
                turn = legal.structure if isinstance(legal, LegalActions) else None
                others = turn.tail if isinstance(turn, OfferTurn) else legal  # not the offers
                for action in others:
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
