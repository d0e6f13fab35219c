"""A greedy searcher for Wühltisch: keep what fits the face-up list, buy when it scores."""

from __future__ import annotations

import random
from collections.abc import Sequence

from cardshop.core import Action, SetupError, VariantBase
from cardshop.wuhltisch.game import WuhltischObservation
from cardshop.wuhltisch.variant import WuhltischVariant

__all__ = ["WuhltischGreedyBot"]


class WuhltischGreedyBot:
    """Looks until a shirt raises its list's match count within the budget, keeps it,
    swaps a held shirt for a better one, and lays the set down (``buy``) as soon as
    it scores.

    A shirt is worth keeping when the hand with it can still score: at most
    ``max_matches - match_threshold`` mismatches in all, and the prices can still
    fit the budget (the cheapest price for every free slot), or every shirt so far
    is a luxury one. Ties are broken with the bot's own seeded generator.
    """

    name = "greedy"

    def __init__(self, variant: VariantBase, seed: int = 0) -> None:
        if not isinstance(variant, WuhltischVariant):
            raise SetupError(f"not a Wühltisch variant: {variant.name!r}")
        self.rules = variant.rules
        self.rng = random.Random(seed)
        self.cheapest = min(self.rules.price)

    def _fits(self, row: tuple[int, ...], shirts: list[int]) -> bool:
        rules = self.rules
        size, price, luxury = rules.list_size, rules.price, rules.luxury
        mismatches = cost = 0
        all_luxury = True
        for c in shirts:  # one loop, not three generators: the bot's most frequent question
            mismatches += size - row[c]
            cost += price[c]
            all_luxury = all_luxury and luxury[c]
        if mismatches > rules.max_matches - rules.threshold:
            return False
        return all_luxury or cost + (rules.set_size - len(shirts)) * self.cheapest <= rules.budget

    def choose(self, observation: WuhltischObservation, legal_actions: Sequence[Action]) -> Action:
        o = observation
        return self.decide(o.lists[o.seat], o.view, o.hand, legal_actions)

    def decide(
        self, lst: int, view: int, hand: Sequence[int], legal_actions: Sequence[Action]
    ) -> Action:
        """The choice for a face-up list (-1 none), a shirt in view (-1 none) and the
        held shirts: what :meth:`choose` decides, and the search's playout policy."""
        legal = legal_actions
        rules = self.rules
        hand = list(hand)
        k = rules.set_size

        def pick(action: Action) -> Action:
            return action if action in legal else legal[0]

        if lst < 0:
            return pick(Action("wait"))
        row = rules.matches[lst - rules.first_list]
        if view >= 0:
            v = view
            if len(hand) < k:
                return pick(Action("keep") if self._fits(row, [*hand, v]) else Action("throw"))
            now = rules.set_score(lst, hand)
            best, slots = now, []
            for i in range(k):
                cand = [*hand[:i], *hand[i + 1 :], v]
                score = rules.set_score(lst, cand)
                if score > best:
                    best, slots = score, [i]
                elif score == best and score > now:
                    slots.append(i)
            if slots:
                return pick(Action("swap", self.rng.choice(slots)))
            return pick(Action("throw"))
        if len(hand) == k:
            if rules.set_score(lst, hand) > 0:
                return pick(Action("buy"))
            worst = max(
                range(k), key=lambda i: (rules.list_size - row[hand[i]], rules.price[hand[i]])
            )
            return pick(Action("drop", worst))
        return pick(Action("look"))
