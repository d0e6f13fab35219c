"""A Wühltisch variant compiled for the engine: every card as plain numbers.

The engine (``game.py``) reads these rules, never the pydantic model; a variant
compiles them once (:attr:`~cardshop.wuhltisch.variant.WuhltischVariant.rules`).
Clause IDs in brackets refer to the rules digest, docs/wuhltisch-rules.md.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from cardshop.core import (
    MAX_PLAYERS,
    Action,
    Expression,
    LegalActions,
    Name,
    VariantBase,
    compile_expression,
)

if TYPE_CHECKING:
    from cardshop.wuhltisch.variant import WuhltischVariant

__all__ = [
    "MAX_TERM",
    "ROUND_NAMES",
    "SET_NAMES",
    "THRESHOLD_NAMES",
    "WuhltischRules",
    "round_names",
    "set_names",
]

MAX_TERM = 100
"""A score term gives -MAX_TERM..MAX_TERM points; a value outside is clamped. [WT-SCORE-6]"""


def set_names(
    *,
    max_matches: int,
    threshold: int,
    set_size: int,
    prices: Sequence[int],
    budget: int,
    luxury_shirts: int,
    luxury_price: int,
) -> dict[str, Name]:
    """The names a set's score term reads, with their ranges in a variant: a term is
    worked out for a set that scores (within budget, ``threshold`` matches or more).
    [WT-SCORE-6]"""
    low_spent = set_size * min(prices)
    high_spent = set_size * max(prices)
    all_luxury = 1 if luxury_shirts >= set_size else 0
    over = 1 if all_luxury and set_size * luxury_price > budget else 0
    return {
        "matches": Name(
            "attributes of the set's shirts that match its list", threshold, max_matches
        ),
        "mismatches": Name(
            "attributes that do not match (max_matches - matches)", 0, max_matches - threshold
        ),
        "spent": Name("the set's prices together", low_spent, high_spent),
        "budget_left": Name(
            "budget - spent (below 0 only for a luxury set)",
            budget - high_spent,
            budget - low_spent,
        ),
        "over_budget": Name("1 if spent passes the budget (a luxury set may), else 0", 0, over),
        "luxury": Name("luxury shirts in the set", 0, min(set_size, luxury_shirts)),
        "all_luxury": Name("1 if every shirt of the set is a luxury shirt, else 0", 0, all_luxury),
        "all_match": Name("1 if every attribute matches (matches == max_matches), else 0", 0, 1),
    }


def round_names(
    *,
    lists_per_player: int,
    max_set_score: int,
    lost_total: int,
    players: tuple[int, int],
    rounds: int,
) -> dict[str, Name]:
    """The names a seat's round term reads, with their ranges in a variant. [WT-SCORE-7]"""
    per = lists_per_player
    return {
        "sets": Name("sets the seat laid down this round", 0, per),
        "scored_sets": Name("of them, sets that score more than 0", 0, per),
        "failed_sets": Name("of them, sets that score 0", 0, per),
        "set_points": Name(
            "the sets' scores together, before the caller's risk", 0, per * max_set_score
        ),
        "lost_property": Name("values of the lost property found this round", 0, lost_total),
        "caller": Name("1 if this seat called the round, else 0", 0, 1),
        "callers": Name("seats that called the round (0 if capped)", 0, players[1]),
        "capped": Name("1 if the round reached the tick cap, else 0", 0, 1),
        "round": Name("the round, from 1", 1, rounds),
        "players": Name("players at the table", players[0], players[1]),
    }


SET_NAMES = set_names(
    max_matches=30,
    threshold=0,
    set_size=5,
    prices=(0, 10_000),
    budget=10_000,
    luxury_shirts=5,
    luxury_price=10_000,
)
"""The set term's names with the widest ranges any variant gives them (checked at load)."""
ROUND_NAMES = round_names(
    lists_per_player=5, max_set_score=1000, lost_total=2500, players=(1, MAX_PLAYERS), rounds=20
)
"""The round term's names with the widest ranges any variant gives them."""
THRESHOLD_NAMES = {
    "set_size": Name("shirts in a set", 1, 5),
    "list_size": Name("attributes a shopping list names", 1, 6),
    "max_matches": Name("the most matches of a set: set_size x list_size", 1, 30),
}
"""The names ``match_threshold`` may read (WT-SCORE-2)."""


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
    min_set_score: int  # the least a set that scores can score (threshold without terms)
    max_round_score: int  # a seat's most points in a round
    # The score terms (WT-SCORE-6/7) as written, (level, name, source): level "set" or
    # "round"; the compiled terms below are made from them (and again when unpickled).
    score_terms: tuple[tuple[str, str, int | str], ...]
    set_terms: tuple[Expression, ...]
    round_terms: tuple[Expression, ...]
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
        fixed: dict[str, Any] = {
            "rounds": v.rounds,
            "lists_per_player": v.lists_per_player,
            "set_size": k,
            "budget": v.budget,
            "luxury_price": v.luxury_price,
            "threshold": v.threshold(),
            "max_matches": max_matches,
            "all_match_bonus": v.bonuses.all_match,
            "luxury_bonus": v.bonuses.luxury,
            "price": tuple(price),
            "luxury": tuple(p == v.luxury_price for p in price),
            "lost_value": (0,) * n_shirts + tuple(lost_values) + (0,) * n_lists,
            "min_players": v.players.min,
            "max_players": v.players.max,
            "score_terms": v.score.sources(),
        }
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
            list_wants=tuple(wants),
            list_size=list_size,
            matches=matches,
            card_name=tuple(names),
            ids_by_name={name: tuple(c) for name, c in ids.items()},
            caller_all_or_nothing=v.caller_all_or_nothing,
            round_ticks=v.round_ticks,
            **fixed,
            **scoring(fixed),
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
        """What one set scores. [WT-SCORE-1..3, WT-SCORE-6]"""
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
        if self.set_terms:
            score += self.set_extra(m, shirts)
            if score < 0:
                score = 0
        return score

    def set_env(self, matches: int, shirts: list[int] | tuple[int, ...]) -> dict[str, int]:
        """The values of a scoring set's names (WT-SCORE-6)."""
        price = self.price
        lux = self.luxury
        spent = sum(price[s] for s in shirts)
        luxury = sum(1 for s in shirts if lux[s])
        return {
            "matches": matches,
            "mismatches": self.max_matches - matches,
            "spent": spent,
            "budget_left": self.budget - spent,
            "over_budget": 1 if spent > self.budget else 0,
            "luxury": luxury,
            "all_luxury": 1 if luxury == len(shirts) else 0,
            "all_match": 1 if matches == self.max_matches else 0,
        }

    def set_extra(self, matches: int, shirts: list[int] | tuple[int, ...]) -> int:
        """The set terms' points for a set that scores. [WT-SCORE-6]"""
        env = self.set_env(matches, shirts)
        return sum(term(env) for term in self.set_terms)

    def round_score(
        self,
        set_scores: Sequence[int],
        lost_property: int,
        *,
        caller: bool,
        callers: int,
        capped: bool,
        round_: int,
        players: int,
    ) -> int:
        """A seat's score for a round: its sets (0 for a caller with a set scoring 0,
        under the caller's risk), its lost property, and the round terms; never below
        0. The one scoring of a round: the game and its checks both call it.
        [WT-SCORE-4/5/7]"""
        total = 0
        failed = 0
        for score in set_scores:
            total += score
            if score == 0:
                failed += 1
        points = total
        if caller and failed and self.caller_all_or_nothing:
            total = 0
        total += lost_property
        if self.round_terms:
            env = {
                "sets": len(set_scores),
                "scored_sets": len(set_scores) - failed,
                "failed_sets": failed,
                "set_points": points,
                "lost_property": lost_property,
                "caller": 1 if caller else 0,
                "callers": callers,
                "capped": 1 if capped else 0,
                "round": round_,
                "players": players,
            }
            total += sum(term(env) for term in self.round_terms)
            if total < 0:
                total = 0
        return total

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled by its fields but the views, remade by a call (the compiled class is
        frozen: it cannot be filled in after it is made, as pickle's default does; the
        views do not pickle, and are made again from the table)."""
        skip = ("legal_views", "set_terms", "round_terms")
        values = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}
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
    """Rules read back from pickled fields (see :meth:`WuhltischRules.__reduce__`); the
    compiled terms are compiled again from their sources (rules pickled before there
    were terms have none)."""
    values = {**values, "score_terms": values.get("score_terms", ())}
    values.update(scoring(values))
    return WuhltischRules(**values, legal_views=_views(values["legal_table"]))


def scoring(fixed: Mapping[str, Any]) -> dict[str, Any]:
    """The score terms compiled over their names' ranges in this variant, and the
    bounds of a set's and a round's score, from the rules' other fields. [WT-SCORE-6/7]

    Raises :class:`~cardshop.core.ExpressionError` for a term that can never give a
    value in ``-MAX_TERM..MAX_TERM`` in this variant (the model reports it first)."""
    snames = set_names(
        max_matches=fixed["max_matches"],
        threshold=min(fixed["threshold"], fixed["max_matches"]),
        set_size=fixed["set_size"],
        prices=fixed["price"],
        budget=fixed["budget"],
        luxury_shirts=sum(1 for x in fixed["luxury"] if x),
        luxury_price=fixed["luxury_price"],
    )
    terms: tuple[tuple[str, str, int | str], ...] = fixed["score_terms"]
    set_terms = tuple(
        compile_expression(src, snames, low=-MAX_TERM, high=MAX_TERM)
        for level, _, src in terms
        if level == "set"
    )
    base = fixed["max_matches"] + fixed["all_match_bonus"] + fixed["luxury_bonus"]
    max_set = max(0, base + sum(t.high for t in set_terms))
    lost_total = sum(fixed["lost_value"])
    rnames = round_names(
        lists_per_player=fixed["lists_per_player"],
        max_set_score=max_set,
        lost_total=lost_total,
        players=(fixed["min_players"], fixed["max_players"]),
        rounds=fixed["rounds"],
    )
    round_terms = tuple(
        compile_expression(src, rnames, low=-MAX_TERM, high=MAX_TERM)
        for level, _, src in terms
        if level == "round"
    )
    per_round = fixed["lists_per_player"] * max_set + lost_total
    return {
        "set_terms": set_terms,
        "round_terms": round_terms,
        "max_set_score": max_set,
        "min_set_score": 0 if set_terms else fixed["threshold"],
        "max_round_score": max(0, per_round + sum(t.high for t in round_terms)),
    }
