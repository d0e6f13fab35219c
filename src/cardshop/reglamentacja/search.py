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
* ``evaluate``: each seat's points so far plus 0.3 times its hand's value, turned into a
  value in [0, 1] by its lead over the best other seat;
* ``candidates``: on an offer turn the tree does not expand among the thousands of
  legal offers (RG-ACT-2) but among a few dozen candidates taken from the turn's
  structure of offer parts (:class:`~cardshop.reglamentacja.offers.OfferTurn`),
  without listing the legal offers: ``pass``, ``stop``, the speculator trades that
  cost the hand least, the one-for-one swaps that raise its value most (a give and
  a take of one stamp each among the legal parts; to every seat it may trade with,
  the best one also with ``place`` to the seats ahead of it in the queue) and a few
  random offers composed part by part (:func:`~cardshop.reglamentacja.bots.random_offer`)
  with a generator seeded by the bot's seed and what the seat knows (its hand, the
  row, its visit card, the queue, the turn and the offer turn), so every sample of
  one information set sees the same candidates. Answers, discards and shopping have
  few legal actions: the tree tries them all.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from cardshop.core import (
    Action,
    CandidatePolicy,
    Game,
    RolloutPolicy,
    SearchHooks,
    Seat,
    VariantBase,
)
from cardshop.reglamentacja.bots import hand_value, random_offer
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
from cardshop.reglamentacja.offers import OfferTurn

__all__ = [
    "BEST_SPECULATIONS",
    "BEST_SWAPS",
    "RANDOM_OFFERS",
    "SEARCH",
    "candidate_policy",
    "evaluate",
    "offer_candidates",
    "progress",
    "rollout_policy",
]

HAND_WEIGHT = 0.3
"""How much a hand's value counts next to points already scored, when a playout stops.

A hand that can buy a card is valued at twice the card's points
(:func:`~cardshop.reglamentacja.bots.hand_value`), so the weight must stay under 0.5
for a bought card to be worth more than the stamps that could buy it (at 0.5 the
search passed at the counter about as often as it bought)."""

BEST_SWAPS = 3
"""Offer-turn candidates: this many best one-for-one swaps (those that raise the value)."""

BEST_SPECULATIONS = 2
"""Offer-turn candidates: this many speculator draws and as many swaps, cheapest first."""

RANDOM_OFFERS = 6
"""Offer-turn candidates: this many random offers (fewer if some coincide)."""

_CACHE_SIZE = 4096


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


def offer_candidates(game: ReglamentacjaGame, seat: int, seed: int) -> list[Action]:
    """The actions the search tries on ``seat``'s offer turn (see the module's text).

    Built from the offer turn's parts (:meth:`~cardshop.reglamentacja.offers.OfferTurn.parts`),
    never by listing the legal offers: every candidate is legal.
    """
    rules = game.rules
    hand = _hand(game, seat)
    row = game._row
    visit = game._visit[seat]
    turn = game.legal_actions(seat).structure
    if not isinstance(turn, OfferTurn):  # pragma: no cover - called on offer turns only
        raise TypeError("not an offer turn")
    targets = turn.parts()
    out: list[Action] = [PASS]
    if STOP in turn.tail:
        out.append(STOP)
        costs = []
        for i, ms in enumerate(rules.price_sets):
            if rules.draw_actions[i] in turn.tail:
                cost = rules.multisets[ms]
                after = [h - c for h, c in zip(hand, cost, strict=True)]
                costs.append((-hand_value(rules, after, row, visit), i))
        costs.sort()
        for _, i in costs[:BEST_SPECULATIONS]:
            out.append(rules.draw_actions[i])
            out.append(rules.swap_actions[i])
    if targets:
        # One-for-one swaps: a give of one stamp and a take of one, from the parts.
        base = hand_value(rules, hand, row, visit)
        size, kind_of = rules.ms_size, rules.multisets
        gains = []
        for g in turn.parts((targets[0],)):
            if size[g] != 1:
                continue
            for t in turn.parts((targets[0], g)):
                if size[t] != 1:
                    continue
                after = [h - a + b for h, a, b in zip(hand, kind_of[g], kind_of[t], strict=True)]
                gain = hand_value(rules, after, row, visit) - base
                if gain > 0:
                    gains.append((-gain, g, t))
        gains.sort()
        queue = game._queue
        ahead = [s for s in targets if queue.index(s) < queue.index(seat)]
        if not game.rules.queue_places:  # RG-TRADE-8: no offer swaps places
            ahead = []
        for rank, (_, g, t) in enumerate(gains[:BEST_SWAPS]):
            for target in targets:
                out.append(_compose(turn, target, g, t, 0))
            if rank == 0:
                for target in ahead:
                    out.append(_compose(turn, target, g, t, 1))
        key = (seed, game._phase, game.turn, game._done, seat, *hand, *row, visit, *queue)
        rng = random.Random(hash(key))
        out.extend(random_offer(turn, rng) for _ in range(RANDOM_OFFERS))
    return list(dict.fromkeys(out))


def _compose(turn: OfferTurn, target: int, give: int, take: int, place: int) -> Action:
    action = turn.compose(target, give, take, place)
    if action is None:  # pragma: no cover - the parts came from the turn
        raise ValueError(f"no legal offer {(target, give, take, place)}")
    return action


def candidate_policy(variant: VariantBase, seed: int) -> CandidatePolicy:
    """The search's candidates: :func:`offer_candidates` on an offer turn, else all."""
    cache: dict[tuple[int, ...], list[Action]] = {}

    def candidates(game: Game, seat: Seat) -> Sequence[Action] | None:
        if not isinstance(game, ReglamentacjaGame):
            return None
        if game._phase not in (TRADE, FINAL_TRADE) or game._pt >= 0:
            return None  # an answer, a discard or shopping: few legal actions
        key = (
            game._phase,
            game.turn,
            game._done,
            seat,
            game._active,
            *_hand(game, seat),
            *game._row,
            game._visit[seat],
            *game._queue,
        )
        found = cache.get(key)
        if found is None:
            if len(cache) >= _CACHE_SIZE:
                cache.clear()
            found = cache[key] = offer_candidates(game, seat, seed)
        return found

    return candidates


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


SEARCH = SearchHooks(
    rollout=rollout_policy, evaluate=evaluate, progress=progress, candidates=candidate_policy
)
"""The hooks the family hands the core's ISMCTS."""
