"""A Wühltisch variant compiled for the engine: every card as plain numbers.

The engine (``game.py``) reads these rules, never the pydantic model; a variant
compiles them once (:attr:`~cardshop.wuhltisch.variant.WuhltischVariant.rules`).
Clause IDs in brackets refer to the rules digest, docs/wuhltisch-rules.md.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from cardshop.core import Action, LegalActions, VariantBase

if TYPE_CHECKING:
    from cardshop.wuhltisch.variant import WuhltischVariant

__all__ = ["WuhltischRules"]


@dataclass(frozen=True, slots=True, eq=False)
class WuhltischRules:
    """A variant compiled for the engine: every card as plain numbers."""

    variant: VariantBase  # the WuhltischVariant compiled (a name the build resolves)
    name: str
    attributes: tuple[str, ...]
    values: tuple[tuple[str, ...], ...]
    n_shirts: int
    n_lost: int
    n_lists: int
    n_cards: int
    first_lost: int  # first lost-property card id
    first_list: int  # first list card id
    shirt_values: tuple[tuple[int, ...], ...]  # per shirt: value index per attribute
    price: tuple[int, ...]  # per shirt
    luxury: tuple[bool, ...]  # per shirt
    lost_value: tuple[int, ...]  # per card id (0 for shirts, lists and useless cards)
    list_wants: tuple[tuple[tuple[int, int], ...], ...]  # per list: (attribute, value)
    list_size: int
    matches: tuple[tuple[int, ...], ...]  # [list index][shirt] -> matching attributes
    card_name: tuple[str, ...]
    ids_by_name: dict[str, tuple[int, ...]]
    min_players: int
    max_players: int
    rounds: int
    lists_per_player: int
    set_size: int
    budget: int
    luxury_price: int
    threshold: int
    max_matches: int
    all_match_bonus: int
    luxury_bonus: int
    caller_all_or_nothing: bool
    round_ticks: int
    max_set_score: int
    actions: tuple[Action, ...]  # the action space, in its fixed order
    actions_by_text: dict[str, Action]
    legal_table: tuple[tuple[tuple[Action, ...], ...], ...]  # [has view][held] -> sorted
    legal_views: tuple[tuple[LegalActions, ...], ...]  # the same, as what legal_actions gives
    content_hash: str
    # The canonical JSON that content_hash hashes (generated shirts as {prices, copies}).
    variant_json: str

    @classmethod
    def compile(cls, v: WuhltischVariant) -> WuhltischRules:
        attrs = tuple(v.attributes)
        values = tuple(tuple(v.attributes[a]) for a in attrs)
        shirt_values: list[tuple[int, ...]] = []
        price: list[int] = []
        names: list[str] = []
        for combo, p in v.shirt_list():
            shirt_values.append(combo)
            price.append(p)
            names.append("/".join(values[a][i] for a, i in enumerate(combo)) + f"@{p}")
        n_shirts = len(shirt_values)
        lost_values = [0] * v.lost_property.useless + list(v.lost_property.values)
        names += [f"lost:{x}" for x in lost_values]
        wants: list[tuple[tuple[int, int], ...]] = []
        for lst in v.lists:
            want = tuple(
                sorted((attrs.index(a), values[attrs.index(a)].index(x)) for a, x in lst.items())
            )
            wants.append(want)
            names.append(
                "list:"
                + "/".join(
                    next((values[a][x] for a2, x in want if a2 == a), "*")
                    for a in range(len(attrs))
                )
            )
        n_lost = len(lost_values)
        n_lists = len(wants)
        first_lost = n_shirts
        first_list = n_shirts + n_lost
        n_cards = first_list + n_lists
        matches = tuple(
            tuple(sum(1 for a, x in want if sv[a] == x) for sv in shirt_values) for want in wants
        )
        ids: dict[str, list[int]] = {}
        for card, name in enumerate(names):
            ids.setdefault(name, []).append(card)
        list_size = len(wants[0])
        k = v.set_size
        max_matches = k * list_size
        data = v.hash_data()
        canonical = json.dumps(data, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(canonical.encode()).hexdigest()
        simple = [Action(x) for x in ("look", "keep", "throw", "buy", "wait")]
        swaps = [Action("swap", i) for i in range(k)]
        drops = [Action("drop", i) for i in range(k)]
        space = (*simple, *swaps, *drops)
        look, keep, throw, buy, wait = simple
        table: list[tuple[tuple[Action, ...], ...]] = []
        for view in (False, True):
            row: list[tuple[Action, ...]] = []
            for held in range(k + 1):
                acts: list[Action] = list(drops[:held])
                if view:
                    acts.append(throw)
                    if held < k:
                        acts.append(keep)
                    else:
                        acts += swaps
                else:
                    acts += [look, wait]
                    if held == k:
                        acts.append(buy)
                row.append(tuple(sorted(acts, key=str)))
            table.append(tuple(row))
        return cls(
            variant=v,
            name=v.name,
            attributes=attrs,
            values=values,
            n_shirts=n_shirts,
            n_lost=n_lost,
            n_lists=n_lists,
            n_cards=n_cards,
            first_lost=first_lost,
            first_list=first_list,
            shirt_values=tuple(shirt_values),
            price=tuple(price),
            luxury=tuple(p == v.luxury_price for p in price),
            lost_value=(0,) * n_shirts + tuple(lost_values) + (0,) * n_lists,
            list_wants=tuple(wants),
            list_size=list_size,
            matches=matches,
            card_name=tuple(names),
            ids_by_name={name: tuple(c) for name, c in ids.items()},
            min_players=v.players.min,
            max_players=v.players.max,
            rounds=v.rounds,
            lists_per_player=v.lists_per_player,
            set_size=k,
            budget=v.budget,
            luxury_price=v.luxury_price,
            threshold=v.match_threshold,
            max_matches=max_matches,
            all_match_bonus=v.bonuses.all_match,
            luxury_bonus=v.bonuses.luxury,
            caller_all_or_nothing=v.caller_all_or_nothing,
            round_ticks=v.round_ticks,
            max_set_score=max_matches + v.bonuses.all_match + v.bonuses.luxury,
            actions=space,
            actions_by_text={str(a): a for a in space},
            legal_table=tuple(table),
            legal_views=_views(table),
            content_hash=digest,
            variant_json=canonical,
        )

    # ----------------------------------------------------------------- helpers

    def is_shirt(self, card: int) -> bool:
        return 0 <= card < self.n_shirts

    def is_lost(self, card: int) -> bool:
        return self.first_lost <= card < self.first_list

    def is_list(self, card: int) -> bool:
        return self.first_list <= card < self.n_cards

    def set_matches(self, list_card: int, shirts: list[int] | tuple[int, ...]) -> int:
        """Matching attributes of the shirts with the list, 0..max_matches. [WT-SCORE-2]"""
        row = self.matches[list_card - self.first_list]
        return sum(row[s] for s in shirts)

    def within_budget(self, shirts: list[int] | tuple[int, ...]) -> bool:
        """The prices total the budget or less, or every shirt is a luxury one. [WT-SCORE-1]"""
        price = self.price
        if sum(price[s] for s in shirts) <= self.budget:
            return True
        lux = self.luxury
        return all(lux[s] for s in shirts)

    def set_score(self, list_card: int, shirts: list[int] | tuple[int, ...]) -> int:
        """What one set scores. [WT-SCORE-1..3]"""
        if len(shirts) != self.set_size or not self.within_budget(shirts):
            return 0
        m = self.set_matches(list_card, shirts)
        if m < self.threshold:
            return 0
        score = m
        if m == self.max_matches:
            score += self.all_match_bonus
        lux = self.luxury
        if all(lux[s] for s in shirts):
            score += self.luxury_bonus
        return score

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled by its fields but the views, remade by a call (the compiled class is
        frozen: it cannot be filled in after it is made, as pickle's default does; the
        views do not pickle, and are made again from the table)."""
        values = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "legal_views"}
        return (_remade, (values,))

    def describe(self, card: int) -> str:
        """A card in words: ``dots/blue/s/long@20``, ``lost:3``, ``list:*/red/s/long``."""
        return self.card_name[card]


def _views(
    table: Sequence[tuple[tuple[Action, ...], ...]],
) -> tuple[tuple[LegalActions, ...], ...]:
    """The legal-action views of a table of action sets (what legal_actions gives)."""
    return tuple(tuple(LegalActions(t) for t in row) for row in table)


def _remade(values: dict[str, Any]) -> WuhltischRules:
    """Rules read back from pickled fields (see :meth:`WuhltischRules.__reduce__`)."""
    return WuhltischRules(**values, legal_views=_views(values["legal_table"]))
