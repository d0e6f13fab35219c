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

from cardshop.core import Action, Expression

if TYPE_CHECKING:  # not at run time: the variant module imports this one
    from cardshop.klunker.variant import Variant

__all__ = ["SCORE_TERMS", "STEP_CODES", "TIEBREAK_TERMS", "HandGetter", "Rules"]

SCORE_TERMS: Final = ("cash", "hand", "safe", "window", "rows_sold")
"""The counts of a seat that the final score weighs (``score``), in this order."""

TIEBREAK_TERMS: Final = (*SCORE_TERMS, "safe_and_window")
"""The counts a tiebreak may name, after ``fewest_`` or ``most_``."""

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
        "cash_only",
        "content_hash",
        "decline_ends_phase",
        "extra_from_deck",
        "games_per_player",
        "hand_size",
        "k",
        "kind_index",
        "kind_of",
        "kind_start",
        "kinds",
        "limit_ending",
        "max_players",
        "min_players",
        "n_cards",
        "name",
        "override",
        "pay_expr",
        "payout",
        "per_round",
        "place_actions",
        "place_alpha",
        "price",
        "price_expr",
        "round_cap",
        "round_limit",
        "score_weights",
        "seat_cash",
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
        "window_cap",
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
    # House rules (docs/rules.md); at their defaults they cost the engine nothing.
    window_cap: int  # 0 = no cap (FILL-3)
    per_round: int  # purchase laps per round (BUY-7)
    price_expr: Expression | None  # None when the price is the constant ``price``
    seat_cash: dict[int, tuple[int, ...]]  # starting cash per seat in deal order, by players
    round_limit: int  # the last round: rounds, else round_cap
    limit_ending: int  # 1 (finished) when rounds ends the game, 2 (capped) for the cap
    score_weights: tuple[int, ...]  # cash, hand, safe, window, rows_sold
    cash_only: bool  # the score is the cash
    extra_from_deck: bool
    pay_expr: Expression | None  # a row's payout expression, or None: the table
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
        # The house-rule fields came after the first release: a game pickled before
        # them passes none, and gets the rules its variant could then say.
        window_cap: int = 0,
        per_round: int = 1,
        price_expr: Expression | None = None,
        seat_cash: dict[int, tuple[int, ...]] | None = None,
        round_limit: int | None = None,
        limit_ending: int = 2,
        score_weights: tuple[int, ...] = (1, 0, 0, 0, 0),
        cash_only: bool = True,
        extra_from_deck: bool = False,
        pay_expr: Expression | None = None,
    ) -> None:
        if seat_cash is None:
            seat_cash = {
                n: (starting_cash.get(n, 0),) * n for n in range(min_players, max_players + 1)
            }
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
        self.window_cap = window_cap
        self.per_round = per_round
        self.price_expr = price_expr
        self.seat_cash = seat_cash
        self.round_limit = round_cap if round_limit is None else round_limit
        self.limit_ending = limit_ending
        self.score_weights = score_weights
        self.cash_only = cash_only
        self.extra_from_deck = extra_from_deck
        self.pay_expr = pay_expr
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
        price = v.purchase.price
        seat_cash = {
            n: tuple(v.starting_cash_by_seat.get(n) or [v.starting_cash.get(n, 0)] * n)
            for n in range(v.players.min, v.players.max + 1)
        }
        weights = tuple(getattr(v.score, term) for term in SCORE_TERMS)
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
            price=price.constant if price.constant is not None else 0,
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
            window_cap=v.window_cap or 0,
            per_round=v.purchase.per_round,
            price_expr=None if price.constant is not None else price,
            seat_cash=seat_cash,
            round_limit=v.rounds or v.round_cap,
            limit_ending=1 if v.rounds else 2,
            score_weights=weights,
            cash_only=weights == (1, 0, 0, 0, 0),
            extra_from_deck=v.sale.extra_from == "deck",
            pay_expr=v.sale.pay,
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
                self.window_cap,
                self.per_round,
                self.price_expr,
                self.seat_cash,
                self.round_limit,
                self.limit_ending,
                self.score_weights,
                self.cash_only,
                self.extra_from_deck,
                self.pay_expr,
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
        rule = self.pay_expr
        if rule is not None:
            start = self.kind_start
            return rule({"rows": rows, "kind_count": start[kind + 1] - start[kind]})
        table = self.payout
        return table[rows - 1] if rows <= len(table) else table[-1]

    def price_for(
        self, window: int, buyer_cash: int, owner_cash: int, players: int, rnd: int, lap: int
    ) -> int:
        """The price of buying another seat's window of ``window`` cards. [BUY-3]"""
        expr = self.price_expr
        if expr is None:
            return self.price
        return expr(
            {
                "window": window,
                "buyer_cash": buyer_cash,
                "owner_cash": owner_cash,
                "players": players,
                "round": rnd,
                "lap": lap,
            }
        )

    def score_of(self, cash: int, hand: int, safe: int, window: int, rows_sold: int) -> int:
        """A seat's score from its counts: the weighted sum ``score`` sets. [SCORE-1]"""
        w = self.score_weights
        return w[0] * cash + w[1] * hand + w[2] * safe + w[3] * window + w[4] * rows_sold

    def tiebreak_value(
        self, rule: str, cash: int, hand: int, safe: int, window: int, rows_sold: int
    ) -> int:
        """A tiebreak's value for a seat, larger ranks first. [SCORE-2]"""
        if rule == "fewest_safe_and_window":  # the editions' (the common case first)
            return -(safe + window)
        most, term = rule.split("_", 1)
        counts = {
            "cash": cash,
            "hand": hand,
            "safe": safe,
            "window": window,
            "rows_sold": rows_sold,
            "safe_and_window": safe + window,
        }
        value = counts[term]
        return value if most == "most" else -value

    @property
    def last_round_name(self) -> str:
        """What ends a game at :attr:`round_limit`: "last round" (``rounds``, TERM-2) or
        "round cap" (TERM-1), for messages."""
        return "last round" if self.limit_ending == 1 else "round cap"
