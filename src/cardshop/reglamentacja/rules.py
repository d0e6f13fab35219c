"""A Reglamentacja variant compiled for the engine: :class:`Rules`.

Kept apart from the pydantic models of ``cardshop.reglamentacja.variant`` (which
re-exports it) so that the compiled build (mypyc) compiles it too: the engine's reads
of the rules are then native attribute reads. Build one with ``Rules.compile(variant)``,
or take ``variant.rules`` (built once, then cached). Read-only: nothing changes a Rules
once it is built.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from itertools import combinations_with_replacement
from math import comb
from typing import TYPE_CHECKING, Any

from cardshop.core import Action, VariantBase

if TYPE_CHECKING:  # not at run time: the variant module imports this one
    from cardshop.reglamentacja.variant import ReglamentacjaVariant

__all__ = ["Rules"]


@dataclass(frozen=True, slots=True, eq=False)
class Rules:
    """A variant compiled for the engine: kinds, cards and visits as indices and tuples."""

    variant: VariantBase  # the ReglamentacjaVariant compiled (a name the build resolves)
    name: str
    kinds: tuple[str, ...]
    k: int
    kind_index: dict[str, int]
    alpha: tuple[int, ...]  # kind indices in alphabetical order of their names
    kind_start: tuple[int, ...]  # first stamp id of each kind (+ total at the end)
    stamp_kind: tuple[int, ...]  # stamp id -> kind index
    n_stamps: int
    categories: tuple[str, ...]
    card_names: tuple[str, ...]
    card_titles: tuple[str, ...]
    card_index: dict[str, int]
    card_cost: tuple[tuple[int, ...], ...]  # per card: stamps of each kind
    card_cat: tuple[int, ...]
    card_icons: tuple[int, ...]
    n_cards: int
    visit_names: tuple[str, ...]
    visit_titles: tuple[str, ...]
    visit_index: dict[str, int]
    visit_mult: tuple[tuple[int, ...], ...]  # per visit, per category: 1 or 2
    meal_visits: tuple[int, ...]
    n_visits: int
    min_players: int
    max_players: int
    row_size: int
    deal: int
    allocation: int
    shop_draw: int
    hand_limit: int
    spin_min: int
    spin_max: int
    max_trade: int
    die_sides: int  # 0 without a speculator
    spec_price: int  # 0 without a speculator
    final_stamps: int
    turn_cap: int
    without_meal_visits: bool
    content_hash: str
    variant_json: str
    # Multisets of at most max_trade stamps, as counts per kind, and their texts
    # (kind names in alphabetical order, repeated). Index 0 is the empty multiset.
    multisets: tuple[tuple[int, ...], ...]
    ms_text: tuple[str, ...]
    ms_index: dict[tuple[int, ...], int]
    ms_size: tuple[int, ...]
    # Multisets of exactly spec_price stamps (speculator trades), as indices.
    price_sets: tuple[int, ...]
    discard_actions: tuple[Action, ...]  # per kind index
    buy_actions: tuple[Action, ...]  # index p-1 -> buy p
    draw_actions: tuple[Action, ...]  # per price_sets entry
    swap_actions: tuple[Action, ...]
    _offers: dict[int, tuple[tuple[Action, ...], tuple[int, ...]]] = field(default_factory=dict)
    # Last, with defaults, so that Rules pickled before they existed still load.
    has_speculator: bool = True  # RG-SPEC-4: false, no speculator pawn, trades or cards
    queue_places: bool = True  # RG-TRADE-8: whether offers may swap places in the queue

    @property
    def hand_cap(self) -> int:
        """The most stamps of one kind any single action gives: more make no difference."""
        return max(self.max_trade, self.spec_price)

    @classmethod
    def compile(
        cls,
        v: ReglamentacjaVariant,
        max_trade: int | None = None,
        deal: int | None = None,
        final_stamps: int | None = None,
    ) -> Rules:
        """The rules of ``v`` with the given ``max_trade``, ``deal`` and
        ``final_stamps`` (those of ``v`` at ``players.min`` by default: see
        ``ReglamentacjaVariant.rules_for``, which gives a player count's)."""
        lo = v.players.min
        trade = v.trade_for(lo) if max_trade is None else max_trade
        spec = v.speculator
        price = 0 if spec is None else spec.price
        kinds = tuple(v.stamps)
        k = len(kinds)
        kind_index = {name: i for i, name in enumerate(kinds)}
        alpha = tuple(sorted(range(k), key=kinds.__getitem__))
        start: list[int] = []
        stamp_kind: list[int] = []
        for i, kind in enumerate(kinds):
            start.append(len(stamp_kind))
            stamp_kind.extend([i] * v.stamps[kind])
        cats = tuple(v.categories)
        cat_index = {c: i for i, c in enumerate(cats)}
        costs = []
        for card in v.cards:
            cost = [0] * k
            for kind in card.cost:
                cost[kind_index[kind]] += 1
            costs.append(tuple(cost))
        mults = tuple(tuple(2 if c in visit.double else 1 for c in cats) for visit in v.visits)
        multisets: list[tuple[int, ...]] = []
        texts: list[str] = []
        for size in range(trade + 1):
            for combo in combinations_with_replacement(alpha, size):
                multisets.append(_counts(combo, k))
                texts.append(" ".join(kinds[i] for i in combo))
        ms_index = {m: i for i, m in enumerate(multisets)}
        price_ms: list[int] = []
        for combo in combinations_with_replacement(alpha, price) if price else ():
            key = _counts(combo, k)
            if key not in ms_index:  # price above max_trade: add it beyond the offers
                ms_index[key] = len(multisets)
                multisets.append(key)
                texts.append(" ".join(kinds[i] for i in combo))
            price_ms.append(ms_index[key])
        data = v.to_data()
        canonical = json.dumps(data, separators=(",", ":"))
        return cls(
            variant=v,
            name=v.name,
            kinds=kinds,
            k=k,
            kind_index=kind_index,
            alpha=alpha,
            kind_start=(*start, len(stamp_kind)),
            stamp_kind=tuple(stamp_kind),
            n_stamps=len(stamp_kind),
            categories=cats,
            card_names=tuple(c.name for c in v.cards),
            card_titles=tuple(c.title or c.name for c in v.cards),
            card_index={c.name: i for i, c in enumerate(v.cards)},
            card_cost=tuple(costs),
            card_cat=tuple(cat_index[c.category] for c in v.cards),
            card_icons=tuple(c.icons for c in v.cards),
            n_cards=len(v.cards),
            visit_names=tuple(x.name for x in v.visits),
            visit_titles=tuple(x.title or x.name for x in v.visits),
            visit_index={x.name: i for i, x in enumerate(v.visits)},
            visit_mult=mults,
            meal_visits=tuple(i for i, x in enumerate(v.visits) if "meal" in x.double),
            n_visits=len(v.visits),
            min_players=v.players.min,
            max_players=v.players.max,
            row_size=v.row_size,
            deal=v.deal_for(lo) if deal is None else deal,
            allocation=v.allocation,
            shop_draw=v.shop_draw,
            hand_limit=v.hand_limit,
            spin_min=v.spin.min,
            spin_max=v.spin.max,
            max_trade=trade,
            has_speculator=spec is not None,
            die_sides=0 if spec is None else spec.die_sides,
            spec_price=price,
            queue_places=v.queue_trading,
            final_stamps=v.final_stamps_for(lo) if final_stamps is None else final_stamps,
            turn_cap=v.turn_cap,
            without_meal_visits=v.three_players_without_meal_visits,
            content_hash=v.content_hash,
            variant_json=canonical,
            multisets=tuple(multisets),
            ms_text=tuple(texts),
            ms_index=ms_index,
            ms_size=tuple(sum(m) for m in multisets),
            price_sets=tuple(price_ms),
            discard_actions=tuple(Action("discard", name) for name in kinds),
            buy_actions=tuple(Action("buy", p) for p in range(1, v.row_size + 1)),
            draw_actions=tuple(Action("speculate", f"draw {texts[i]}") for i in price_ms),
            swap_actions=tuple(Action("speculate", f"swap {texts[i]}") for i in price_ms),
        )

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled by its fields, remade by a call (the compiled class is frozen: it
        cannot be filled in after it is made, as pickle's default does)."""
        return (Rules, tuple(getattr(self, f.name) for f in fields(self)))

    def offer_text(self, target: int, give: int, take: int, place: bool) -> str:
        """The canonical argument of an offer: ``"2 give meat sugar take flour place"``."""
        out = str(target)
        if give:
            out += " give " + self.ms_text[give]
        if take:
            out += " take " + self.ms_text[take]
        if place:
            out += " place"
        return out

    def offers_to(self, target: int) -> tuple[tuple[Action, ...], tuple[int, ...]]:
        """Every offer to ``target`` in sorted order, with the give multiset of each.

        Offers trade at most ``max_trade`` stamps each way, never the same kind both
        ways, and are never empty; they swap places only if ``queue_places``. Built once
        per target seat, then cached.
        """
        cached = self._offers.get(target)
        if cached is None:
            n_offer = comb(self.k + self.max_trade, self.max_trade)
            rows: list[tuple[str, int]] = []
            for g in range(n_offer):
                gm = self.multisets[g]
                for t in range(n_offer):
                    tm = self.multisets[t]
                    if any(a and b for a, b in zip(gm, tm, strict=True)):
                        continue
                    for place in (False, True) if self.queue_places else (False,):
                        if g == 0 and t == 0 and not place:
                            continue
                        rows.append((self.offer_text(target, g, t, place), g))
            rows.sort()
            cached = (tuple(Action("offer", text) for text, _ in rows), tuple(g for _, g in rows))
            self._offers[target] = cached
        return cached

    def offers_per_target(self) -> int:
        """How many offers one seat can be made (the same for every target seat)."""
        return len(self.offers_to(0)[0])

    def to_plain(self) -> dict[str, Any]:
        """The resolved variant as plain data."""
        data: dict[str, Any] = json.loads(self.variant_json)
        return data


def _counts(combo: tuple[int, ...], k: int) -> tuple[int, ...]:
    """A combination of kind indices as counts per kind (``k`` kinds)."""
    counts = [0] * k
    for i in combo:
        counts[i] += 1
    return tuple(counts)
