"""The Klunker family's own bots (docs/bots.md).

* :class:`GreedyBot` looks one action ahead with a documented heuristic
  (:class:`Heuristic`: the sale value of a safe, how much a window is worth to the
  opponents, cash);
* :class:`ThriftyBot` keeps cards in hand, to make games last.

What the core's search needs of the family is in :mod:`cardshop.klunker.search`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from cardshop.core import (
    Action,
    Seat,
    load_variant,
    optionless_bot,
)
from cardshop.klunker.game import Observation, Phase
from cardshop.klunker.variant import Rules, Variant, as_klunker

__all__ = [
    "GreedyBot",
    "Heuristic",
    "ThriftyBot",
    "heuristic",
    "make_greedy",
    "make_thrifty",
]


# ------------------------------------------------------------------------ heuristic

Counts = tuple[int, ...]

PARTIAL_WEIGHT = 0.6
"""How much an incomplete row counts, as a share of what it would pay if sold now."""


class Heuristic:
    """The sale worth of safes under one variant's rules, with memos (safes repeat a lot).

    * :meth:`potential` -- what a safe's incomplete rows are worth in cash: each
      counts ``PARTIAL_WEIGHT x (cards / set size) x payout``, with the payout of a
      row sold while the safe holds its present number of rows (SELL-3, SELL-5). A
      new kind in the safe thus lowers the worth of every other row.
    * :meth:`settle` -- sell the complete rows in the best order: the one that earns
      most, then leaves the most valuable safe (SELL-2..SELL-6).
    * :meth:`gain` -- cash earned plus the change of potential when cards go in.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.size = rules.set_size
        k = len(rules.kinds)
        most = rules.n_cards // self.size + 2
        self._pay = [[rules.pay_for(kind, rows) for rows in range(most)] for kind in range(k)]
        self._potential: dict[Counts, float] = {}
        self._settle: dict[tuple[Counts, int], tuple[Counts, int]] = {}
        self._gain: dict[tuple[Counts, Counts, int], float] = {}

    MEMO_LIMIT = 500_000
    """Memos are emptied when they grow past this many entries (bounded memory)."""

    def _trim(self) -> None:
        if len(self._gain) > self.MEMO_LIMIT or len(self._settle) > self.MEMO_LIMIT:
            self._gain.clear()
            self._settle.clear()
            self._potential.clear()

    def _rows(self, safe: Counts) -> int:
        size = self.size
        return sum((c + size - 1) // size for c in safe)

    def potential(self, safe: Counts) -> float:
        """The cash worth of the safe's incomplete rows."""
        value = self._potential.get(safe)
        if value is None:
            size = self.size
            rows = min(self._rows(safe), len(self._pay[0]) - 1)
            total = 0.0
            for kind, c in enumerate(safe):
                part = c % size
                if part:
                    total += part / size * self._pay[kind][rows]
            value = self._potential[safe] = PARTIAL_WEIGHT * total
        return value

    def settle(self, safe: Counts, first: int = -1) -> tuple[Counts, int]:
        """(safe after, cash earned) selling complete rows best first; ``first`` forced."""
        key = (safe, first)
        hit = self._settle.get(key)
        if hit is not None:
            return hit
        size = self.size
        full = [kind for kind, c in enumerate(safe) if c >= size]
        if not full:
            out: tuple[Counts, int] = (safe, 0)
        else:
            best: tuple[float, Counts, int] | None = None
            rows = min(self._rows(safe), len(self._pay[0]) - 1)
            for kind in [first] if first >= 0 else full:
                pay = self._pay[kind][rows]
                after = list(safe)
                after[kind] -= size
                rest, more = self.settle(tuple(after))
                score = pay + more + self.potential(rest)
                if best is None or score > best[0]:
                    best = (score, rest, pay + more)
            assert best is not None
            out = (best[1], best[2])
        self._settle[key] = out
        return out

    def gain(self, safe: Counts, cards: Counts, first: int = -1) -> float:
        """Cash earned plus the change of potential when ``cards`` go into ``safe``."""
        key = (safe, cards, first)
        value = self._gain.get(key)
        if value is None:
            self._trim()
            after, cash = self.settle(_add(safe, cards), first)
            value = self._gain[key] = cash + self.potential(after) - self.potential(safe)
        return value


_HEURISTICS: dict[str, Heuristic] = {}


def heuristic(rules: Rules) -> Heuristic:
    """The shared :class:`Heuristic` of a variant's rules (one per process)."""
    h = _HEURISTICS.get(rules.content_hash)
    if h is None:
        h = _HEURISTICS[rules.content_hash] = Heuristic(rules)
    return h


def _add(a: Counts, b: Counts) -> Counts:
    return tuple([x + y for x, y in zip(a, b, strict=True)])


def _one(kinds: int, kind: int) -> Counts:
    return tuple([1 if i == kind else 0 for i in range(kinds)])


class GreedyBot:
    """One action of lookahead with a fixed heuristic (docs/bots.md).

    The worth of a safe is its cash to come: complete rows are sold in the best
    order, and incomplete rows count a share of their payout (:class:`Heuristic`).
    By phase:

    * **purchase** -- buy the window with the highest gain (cash from sales plus the
      safe's change of worth, minus the price and a share of the price for helping
      an opponent); decline when that is legal and nothing gains;
    * **sell** -- sell first the row that leaves the most;
    * **store** -- store the hand card with the highest gain if it beats the worth
      of passing now (half the best purchase on offer, less for later purchase cards);
    * **fill** -- with an empty window, place the card that is worth least to the
      opponents who could buy it and to the bot itself; then stop (``done``).

    Ties are broken at random with the bot's seeded generator. ``variant`` gives the
    rules (payouts, set size, price); by default those of ``klunker-en``.
    """

    name = "greedy"

    def __init__(self, seed: int = 0, variant: Variant | str | Path | None = None) -> None:
        self._rng = random.Random(seed)
        self.variant = as_klunker(load_variant(variant if variant is not None else "klunker-en"))
        self.rules = self.variant.rules
        self.heuristic = heuristic(self.rules)

    def __repr__(self) -> str:
        return f"GreedyBot(variant={self.variant.name!r})"

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]
        scores = [self.score(observation, a) for a in legal_actions]
        best = max(scores)
        top = [a for a, s in zip(legal_actions, scores, strict=True) if s >= best - 1e-9]
        return top[0] if len(top) == 1 else self._rng.choice(top)

    def _buy_gain(self, obs: Observation, buyer: Seat, owner: Seat) -> float:
        rules = self.rules
        due = rules.price_for(  # BUY-3; the observation has no lap: the first is assumed
            sum(obs.windows[owner]), obs.cash[buyer], obs.cash[owner], obs.players, obs.round, 1
        )
        price = 0 if owner == buyer else min(due, obs.cash[buyer])
        value = self.heuristic.gain(obs.safes[buyer], obs.windows[owner]) - price
        if price and obs.players > 1:
            value -= price / (obs.players - 1)  # the price helps one opponent
        return value

    def score(self, obs: Observation, action: Action) -> float:
        """The heuristic worth of ``action`` for the seat to act (higher is better)."""
        rules = self.rules
        me = obs.seat
        verb, arg = action
        k = len(obs.kinds)
        if verb == "buy":
            assert isinstance(arg, int)
            return self._buy_gain(obs, me, arg)
        if verb == "decline":
            return 0.0
        if verb == "sell":
            assert isinstance(arg, str)
            first = rules.kind_index[arg]
            after, cash = self.heuristic.settle(obs.safes[me], first)
            return cash + self.heuristic.potential(after)
        if verb == "store":
            assert isinstance(arg, str)
            return self.heuristic.gain(obs.safes[me], _one(k, rules.kind_index[arg]))
        if verb == "pass":
            on_offer = [
                self._buy_gain(obs, me, w) for w in range(obs.players) if any(obs.windows[w])
            ]
            best = max(on_offer, default=0.0)
            taken = sum(1 for c in obs.purchase_cards if c)
            return 0.5 * max(best, 0.0) * 0.8**taken
        if verb == "window":
            assert isinstance(arg, str)
            if any(obs.windows[me]):
                return -100.0  # one card is enough: stop filling
            card = _one(k, rules.kind_index[arg])
            window = _add(obs.windows[me], card)
            to_others = max(
                (self.heuristic.gain(obs.safes[o], window) for o in range(obs.players) if o != me),
                default=0.0,
            )
            to_me = max(0.0, self.heuristic.gain(obs.safes[me], card))
            return -(to_others + to_me)
        if verb == "done":
            return 0.0
        return -1000.0  # an action this heuristic does not know: last resort


make_greedy = optionless_bot("greedy", lambda variant, seed: GreedyBot(seed, as_klunker(variant)))
"""The ``greedy`` bot of the registry (``cardshop.bots.make_bot("greedy", ...)``)."""


class ThriftyBot:
    """Keeps cards in hand, to make games last (the audit uses it to look for games
    that do not end): one card into an empty window and no more, store only a card
    that completes a row, buy its own window when that holds cards, otherwise any
    window, or decline when none can be bought. Other choices are random (seeded).
    """

    name = "thrifty"

    def __init__(self, seed: int, variant: Variant | str) -> None:
        self.variant = as_klunker(load_variant(variant))
        self.rules: Rules = self.variant.rules
        self._rng = random.Random(seed)

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        obs = observation
        rng = self._rng
        actions = list(legal_actions)
        if obs.phase is Phase.FILL:
            done = [a for a in actions if a.verb == "done"]
            return done[0] if done else rng.choice(actions)
        if obs.phase is Phase.STORE:
            safe = obs.safes[obs.seat]
            size = self.rules.set_size
            index = self.rules.kind_index
            completing = [
                a
                for a in actions
                if a.verb == "store" and safe[index[str(a.arg)]] % size == size - 1
            ]
            if completing:
                return completing[0]
            passing = [a for a in actions if a.verb == "pass"]
            return passing[0] if passing else rng.choice(actions)
        if obs.phase is Phase.PURCHASE:
            buys = [a for a in actions if a.verb == "buy"]
            own = [a for a in buys if a.arg == obs.seat]
            if own:
                return own[0]
            if buys:
                return rng.choice(buys)
            declines = [a for a in actions if a.verb == "decline"]
            return declines[0] if declines else rng.choice(actions)
        return rng.choice(actions)

    def __repr__(self) -> str:
        return f"ThriftyBot({self.variant.name!r})"


make_thrifty = optionless_bot(
    "thrifty", lambda variant, seed: ThriftyBot(seed, as_klunker(variant))
)
"""The ``thrifty`` bot of the registry (``cardshop.bots.make_bot("thrifty", ...)``)."""
