"""A Klunker-family variant compiled for the engine: :class:`Rules`.

A plain class of ints, tuples and dicts, apart from the pydantic model of
``cardshop.klunker.variant`` (which re-exports it) so that the compiled build (mypyc)
compiles it too: the engine's reads of the rules are then native attribute reads.
Build one with ``Rules.compile(variant)``, or take ``variant.rules`` (built once, then
cached). Read-only by convention: nothing changes a Rules once it is built.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Final, final

from cardshop.core import Action

if TYPE_CHECKING:  # not at run time: the variant module imports this one
    from cardshop.klunker.variant import Variant

__all__ = ["STEP_CODES", "HandGetter", "Rules"]

STEP_CODES: Final[dict[str, int]] = {
    "fill": 0,
    "store": 1,
    "purchase": 2,
    "tax": 3,
    "reshuffle": 4,
    "refill": 5,
}
"""The round steps' codes in :attr:`Rules.steps`."""

HandGetter = Callable[[Sequence[int]], tuple[int, ...]]
"""A function of a game's counts list giving one seat's hand, kinds in alphabetical order."""


@final
class Rules:
    """A variant compiled for the engine: kinds as indices, tables as tuples."""

    __slots__ = (
        "_getters",
        "actions_by_text",
        "alpha",
        "broke_may_buy",
        "buy_actions",
        "content_hash",
        "decline_ends_phase",
        "games_per_player",
        "hand_size",
        "k",
        "kind_index",
        "kind_of",
        "kind_start",
        "kinds",
        "max_players",
        "min_players",
        "n_cards",
        "name",
        "override",
        "payout",
        "place_actions",
        "place_alpha",
        "price",
        "round_cap",
        "sell_actions",
        "set_size",
        "starting_cash",
        "steps",
        "store_actions",
        "store_alpha",
        "tax",
        "tax_to_deck",
        "text_of",
        "tiebreak",
        "unpaid_to_deck",
        "variant",
        "variant_json",
    )

    variant: Variant
    name: str
    kinds: tuple[str, ...]
    k: int  # number of kinds
    kind_index: dict[str, int]
    kind_start: tuple[int, ...]  # first card id of each kind; ids are contiguous per kind
    kind_of: tuple[int, ...]  # card id -> kind index
    n_cards: int
    min_players: int
    max_players: int
    hand_size: int
    starting_cash: dict[int, int]
    steps: tuple[int, ...]
    set_size: int
    payout: tuple[int, ...]
    override: tuple[int, ...]  # per kind: fixed payout, or -1
    unpaid_to_deck: bool
    price: int
    broke_may_buy: bool
    decline_ends_phase: bool
    tax: dict[int, int]
    tax_to_deck: bool
    tiebreak: tuple[str, ...]
    games_per_player: int | None
    round_cap: int
    content_hash: str
    # Interned actions and the alphabetical order of kinds, for sorted legal actions.
    alpha: tuple[int, ...]
    place_alpha: tuple[Action, ...]  # place and store actions in alphabetical order
    store_alpha: tuple[Action, ...]
    place_actions: tuple[Action, ...]
    store_actions: tuple[Action, ...]
    sell_actions: tuple[Action, ...]
    buy_actions: tuple[Action, ...]
    actions_by_text: dict[str, Action]  # every action of the variant, by its text form
    text_of: dict[Action, str]  # and the other way round
    variant_json: str  # the resolved variant as canonical JSON (its hash is content_hash)
    _getters: dict[int, tuple[HandGetter, ...]]  # hand_getters cache, by players

    def __init__(
        self,
        variant: Variant,
        name: str,
        kinds: tuple[str, ...],
        k: int,
        kind_index: dict[str, int],
        kind_start: tuple[int, ...],
        kind_of: tuple[int, ...],
        n_cards: int,
        min_players: int,
        max_players: int,
        hand_size: int,
        starting_cash: dict[int, int],
        steps: tuple[int, ...],
        set_size: int,
        payout: tuple[int, ...],
        override: tuple[int, ...],
        unpaid_to_deck: bool,
        price: int,
        broke_may_buy: bool,
        decline_ends_phase: bool,
        tax: dict[int, int],
        tax_to_deck: bool,
        tiebreak: tuple[str, ...],
        games_per_player: int | None,
        round_cap: int,
        content_hash: str,
        alpha: tuple[int, ...],
        place_alpha: tuple[Action, ...],
        store_alpha: tuple[Action, ...],
        place_actions: tuple[Action, ...],
        store_actions: tuple[Action, ...],
        sell_actions: tuple[Action, ...],
        buy_actions: tuple[Action, ...],
        actions_by_text: dict[str, Action],
        text_of: dict[Action, str],
        variant_json: str,
    ) -> None:
        self.variant = variant
        self.name = name
        self.kinds = kinds
        self.k = k
        self.kind_index = kind_index
        self.kind_start = kind_start
        self.kind_of = kind_of
        self.n_cards = n_cards
        self.min_players = min_players
        self.max_players = max_players
        self.hand_size = hand_size
        self.starting_cash = starting_cash
        self.steps = steps
        self.set_size = set_size
        self.payout = payout
        self.override = override
        self.unpaid_to_deck = unpaid_to_deck
        self.price = price
        self.broke_may_buy = broke_may_buy
        self.decline_ends_phase = decline_ends_phase
        self.tax = tax
        self.tax_to_deck = tax_to_deck
        self.tiebreak = tiebreak
        self.games_per_player = games_per_player
        self.round_cap = round_cap
        self.content_hash = content_hash
        self.alpha = alpha
        self.place_alpha = place_alpha
        self.store_alpha = store_alpha
        self.place_actions = place_actions
        self.store_actions = store_actions
        self.sell_actions = sell_actions
        self.buy_actions = buy_actions
        self.actions_by_text = actions_by_text
        self.text_of = text_of
        self.variant_json = variant_json
        self._getters = {}

    @classmethod
    def compile(cls, v: Variant) -> Rules:
        """Compile a validated variant (``variant.rules`` does it once and keeps it)."""
        kinds = tuple(v.cards)
        start: list[int] = []
        kind_of: list[int] = []
        for i, kind in enumerate(kinds):
            start.append(len(kind_of))
            kind_of.extend([i] * v.cards[kind])
        data = v.to_data()
        canonical = json.dumps(data, separators=(",", ":"))
        digest = hashlib.sha256(canonical.encode()).hexdigest()
        simple = (Action("done"), Action("pass"), Action("decline"))
        place = tuple(Action("window", k) for k in kinds)
        store = tuple(Action("store", k) for k in kinds)
        sell = tuple(Action("sell", k) for k in kinds)
        buy = tuple(Action("buy", s) for s in range(v.players.max))
        alpha = tuple(sorted(range(len(kinds)), key=kinds.__getitem__))
        every = (*simple, *place, *store, *sell, *buy)
        return cls(
            variant=v,
            name=v.name,
            kinds=kinds,
            k=len(kinds),
            kind_index={k: i for i, k in enumerate(kinds)},
            kind_start=(*start, len(kind_of)),
            kind_of=tuple(kind_of),
            n_cards=len(kind_of),
            min_players=v.players.min,
            max_players=v.players.max,
            hand_size=v.hand_size,
            starting_cash=dict(v.starting_cash),
            steps=tuple(STEP_CODES[s] for s in v.steps),
            set_size=v.sale.set_size,
            payout=tuple(v.sale.payout),
            override=tuple(v.sale.overrides.get(k, -1) for k in kinds),
            unpaid_to_deck=v.sale.unpaid_to == "deck",
            price=v.purchase.price,
            broke_may_buy=v.purchase.broke_may_buy,
            decline_ends_phase=v.purchase.decline == "ends_phase",
            tax=dict(v.tax.per_player_count),
            tax_to_deck=v.tax.to == "deck",
            tiebreak=tuple(v.tiebreak),
            games_per_player=v.match.games_per_player if v.match else None,
            round_cap=v.round_cap,
            content_hash=digest,
            alpha=alpha,
            place_alpha=tuple(place[i] for i in alpha),
            store_alpha=tuple(store[i] for i in alpha),
            place_actions=place,
            store_actions=store,
            sell_actions=sell,
            buy_actions=buy,
            actions_by_text={str(a): a for a in every},
            text_of={a: str(a) for a in every},
            variant_json=canonical,
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickle by the constructor's arguments (the compiled class has no __dict__ and
        # cannot be made by Rules.__new__ alone); the hand getters are rebuilt on demand.
        return (
            Rules,
            (
                self.variant,
                self.name,
                self.kinds,
                self.k,
                self.kind_index,
                self.kind_start,
                self.kind_of,
                self.n_cards,
                self.min_players,
                self.max_players,
                self.hand_size,
                self.starting_cash,
                self.steps,
                self.set_size,
                self.payout,
                self.override,
                self.unpaid_to_deck,
                self.price,
                self.broke_may_buy,
                self.decline_ends_phase,
                self.tax,
                self.tax_to_deck,
                self.tiebreak,
                self.games_per_player,
                self.round_cap,
                self.content_hash,
                self.alpha,
                self.place_alpha,
                self.store_alpha,
                self.place_actions,
                self.store_actions,
                self.sell_actions,
                self.buy_actions,
                self.actions_by_text,
                self.text_of,
                self.variant_json,
            ),
        )

    def hand_getters(self, players: int) -> tuple[HandGetter, ...]:
        """Per seat, a function of the counts list giving its hand in alphabetical kind order.

        Used to build sorted legal actions with C-level calls only (a hot path).
        """
        getters = self._getters.get(players)
        if getters is None:
            k = self.k
            made: list[HandGetter] = []
            for seat in range(players):
                idx = [3 * seat * k + i for i in self.alpha]
                # itemgetter of one index returns a value, not a tuple: add a dummy 0.
                made.append(itemgetter(*idx) if k > 1 else itemgetter(idx[0], 0))
            getters = tuple(made)
            self._getters[players] = getters
        return getters

    def pay_for(self, kind: int, rows: int) -> int:
        """Cash paid for a row of ``kind`` sold while the safe holds ``rows`` rows. [SELL-3/5]"""
        fixed = self.override[kind]
        if fixed >= 0:
            return fixed
        table = self.payout
        return table[rows - 1] if rows <= len(table) else table[-1]
