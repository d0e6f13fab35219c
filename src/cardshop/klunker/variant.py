"""The Klunker family's variant format: a pydantic model, checks, and the compiled rules.

Each key maps to one named piece of behaviour; the clause IDs in brackets refer to
the rules digest (docs/rules.md). The engine reads the compiled :class:`Rules`, a
plain object of ints and tuples (``cardshop.klunker.rules``, re-exported here), never
the pydantic model.
"""

from __future__ import annotations

from functools import cached_property
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field
from pydantic.config import JsonDict

from cardshop.core import (
    MAX_PLAYERS,
    SCHEMA_ID,
    SLUG_PATTERN,
    Match,
    Name,
    Players,
    Section,
    Slug,
    VariantBase,
    compile_expression,
    expression,
)
from cardshop.klunker.rules import STEP_CODES, Rules

__all__ = [
    "LIMITS",
    "SCHEMA_ID",
    "STEP_CODES",
    "Match",
    "Players",
    "Purchase",
    "Rules",
    "Sale",
    "Score",
    "Step",
    "Tax",
    "Variant",
    "as_klunker",
]

# Bounds on every count a variant holds. The published editions need 3-6 players,
# 7 kinds, 94-97 cards, hands of 6, rows of 4 and payout tables of 4 entries; the
# bounds leave room for much larger home-made games while keeping every table the
# engine builds from a variant (card ids, actions, observations) small. They are
# checked by the schema, before anything is built.
MAX_KINDS = 100
MAX_CARDS = 1000
MAX_HAND = 100
MAX_SET_SIZE = 100
MAX_PAYOUT_ENTRIES = 64
MAX_CASH = 1000
MAX_ROUND_CAP = 1_000_000
MAX_PURCHASES = 10
MAX_WEIGHT = 100


Cash = Annotated[int, Field(ge=0, le=MAX_CASH)]


def _count_key(value: Any) -> Any:
    """A player-count key written as a string of ASCII digits (JSON) is that number."""
    if isinstance(value, str) and 0 < len(value) <= 3 and value.isascii() and value.isdigit():
        return int(value)
    return value


PlayerCount = Annotated[int, BeforeValidator(_count_key), Field(ge=1, le=MAX_PLAYERS)]
"""A number of players used as a mapping key: ``3`` in YAML, ``"3"`` in JSON."""

_PLAYER_KEYS: JsonDict = {
    "propertyNames": {
        "pattern": "^(?:" + "|".join(str(n) for n in range(1, MAX_PLAYERS + 1)) + ")$"
    }
}
_KIND_KEYS: JsonDict = {"propertyNames": {"pattern": SLUG_PATTERN, "maxLength": 40}}

Step = Literal["fill", "store", "purchase", "tax", "reshuffle", "refill"]
"""Round steps. ``fill``, ``store`` and ``purchase`` ask players for decisions; the
others happen on their own, in the order the variant lists them."""

TiebreakRule = Literal[
    "fewest_safe_and_window",
    "fewest_safe",
    "fewest_window",
    "fewest_hand",
    "fewest_cash",
    "fewest_rows_sold",
    "most_safe_and_window",
    "most_safe",
    "most_window",
    "most_hand",
    "most_cash",
    "most_rows_sold",
]
"""A tiebreak: ``fewest_`` or ``most_`` and a count of a seat (SCORE-2)."""
Destination = Literal["discard", "deck"]


PAY_NAMES: dict[str, Name] = {
    "rows": Name("rows in the safe at the moment of sale, the sold row included", 1, MAX_CARDS),
    "kind_count": Name("cards of the sold row's kind in the whole deck", 1, MAX_CARDS),
}
"""The names a row's payout expression may read (SELL-3)."""


class Sale(Section):
    """How completed rows in a safe are sold. [SELL-1..SELL-6]"""

    set_size: Annotated[int, Field(gt=0, le=MAX_SET_SIZE)] = Field(
        4, description="Cards of one kind that make a complete row (SELL-1)."
    )
    payout: list[Cash] = Field(
        min_length=1,
        max_length=MAX_PAYOUT_ENTRIES,
        description=(
            "Cash paid for a row, by the number of rows in the safe at the moment of sale "
            "(sold row included): entry 0 for one row, entry 1 for two, ...; the last entry "
            f"applies to every larger count (SELL-3). At most {MAX_PAYOUT_ENTRIES} entries "
            "(the editions use 4)."
        ),
    )
    overrides: dict[Slug, Cash] = Field(
        default_factory=dict,
        max_length=MAX_KINDS,
        json_schema_extra=_KIND_KEYS,
        description="Card kinds whose rows always pay this much, whatever the row count (SELL-5).",
    )
    unpaid_to: Destination = Field(
        "discard", description="Where the sold cards that do not pay go (SELL-4)."
    )
    pay: expression(PAY_NAMES, low=0, high=MAX_CASH, what="payout of a row") | None = Field(  # type: ignore[valid-type]
        None,
        description=(
            "A row's payout as an expression over rows and kind_count, in place of the "
            "payout table (SELL-3); overrides still apply. Left out: the table."
        ),
    )
    extra_from: Literal["none", "deck"] = Field(
        "none",
        description=(
            "Where the cash of a row that pays more than its own set_size cards comes from "
            "(SELL-7): deck, the top cards of the deck (as many as it holds); none (the "
            "default), nowhere: a payout above the set size is then an error."
        ),
    )

    OMIT_AT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"pay", "extra_from"})


PRICE_NAMES: dict[str, Name] = {
    "window": Name("cards in the window bought", 1, MAX_CARDS),
    "buyer_cash": Name("cash cards of the buyer", 0, MAX_CARDS),
    "owner_cash": Name("cash cards of the window's owner", 0, MAX_CARDS),
    "players": Name("players in the game", 2, MAX_PLAYERS),
    "round": Name("the round, from 1", 1, MAX_ROUND_CAP),
    "lap": Name("the buyer's turn of the purchase step, from 1", 1, MAX_PURCHASES),
}
"""The names a purchase price may read (BUY-3)."""


def _price(value: int | str) -> Any:
    return compile_expression(value, PRICE_NAMES, low=0, high=MAX_CASH)


class Purchase(Section):
    """The purchase phase. [BUY-1..BUY-7]"""

    price: expression(PRICE_NAMES, low=0, high=MAX_CASH, what="price of a purchase") = Field(  # type: ignore[valid-type]
        default_factory=lambda: _price(1),
        description=(
            "Cash cards paid to the owner for another player's window (BUY-3): an integer, "
            "or an expression over window, buyer_cash, owner_cash, players, round and lap."
        ),
    )
    broke_may_buy: bool = Field(
        False,
        description=(
            "If true, a player with less cash than the price may still buy another's window "
            "and pays what he has; if false he may not (BUY-6)."
        ),
    )
    decline: Literal["ends_phase", "skip_turn"] = Field(
        "ends_phase",
        description=(
            "What declining does: end the purchase phase for everyone (ends_phase) or only "
            "pass this player's turn (skip_turn) (BUY-5)."
        ),
    )
    per_round: Annotated[int, Field(ge=1, le=MAX_PURCHASES)] = Field(
        1,
        description=(
            "Turns each purchase card has in a round's purchase step: the cards buy in "
            "order 1..N, then again, this many times (BUY-7)."
        ),
    )

    OMIT_AT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"per_round"})


class Tax(Section):
    """The ``tax`` round step. [END-2]"""

    per_player_count: dict[PlayerCount, Cash] = Field(
        default_factory=dict,
        max_length=MAX_PLAYERS,
        json_schema_extra=_PLAYER_KEYS,
        description="Cash cards each player pays, by number of players; absent counts pay 0.",
    )
    to: Destination = Field("deck", description="Where paid tax cards go.")


Weight = Annotated[int, Field(ge=-MAX_WEIGHT, le=MAX_WEIGHT)]


class Score(Section):
    """The final score as a sum of weighted counts of a seat. [SCORE-1]"""

    cash: Weight = Field(1, description="Weight of each cash card in the bank (SCORE-1).")
    hand: Weight = Field(0, description="Weight of each card left in the hand (SCORE-1).")
    safe: Weight = Field(0, description="Weight of each card in the safe (SCORE-1).")
    window: Weight = Field(0, description="Weight of each card in the window (SCORE-1).")
    rows_sold: Weight = Field(0, description="Weight of each row the seat sold (SCORE-1).")


class Variant(VariantBase):
    """A complete, validated Klunker-family variant (after ``extends`` is resolved)."""

    family: Literal["klunker"] = Field(description="The family of games: klunker.")
    cards: dict[Slug, Annotated[int, Field(gt=0, le=MAX_CARDS)]] = Field(
        min_length=1,
        max_length=MAX_KINDS,
        json_schema_extra=_KIND_KEYS,
        description=(
            "Card kinds and how many of each the deck holds (CARD-1): at most "
            f"{MAX_KINDS} kinds and {MAX_CARDS} cards in all (the editions have 7 kinds "
            "and 94-97 cards; the performance benchmarks 70 kinds and 940 cards)."
        ),
    )
    hand_size: Annotated[int, Field(gt=0, le=MAX_HAND)] = Field(
        6, description="Cards in a full hand (SETUP-4, END-5)."
    )
    starting_cash: dict[PlayerCount, Cash] = Field(
        max_length=MAX_PLAYERS,
        json_schema_extra=_PLAYER_KEYS,
        description="Face-down cash cards dealt to each player, by number of players (SETUP-3).",
    )
    steps: list[Step] = Field(
        max_length=6,
        json_schema_extra={
            "uniqueItems": True,
            "allOf": [{"contains": {"const": s}} for s in ("fill", "store", "purchase", "refill")],
        },
        description=(
            "The steps of a round, in order, each at most once. Must contain fill, store, "
            "purchase (store before purchase) and refill; may contain tax and reshuffle "
            "(ROUND-1)."
        ),
    )
    sale: Sale
    purchase: Purchase = Field(default_factory=lambda: Purchase())
    tax: Tax = Field(default_factory=lambda: Tax())
    tiebreak: list[TiebreakRule] = Field(
        default_factory=list,
        max_length=12,
        description=(
            "Tiebreaks after the score, in order; players still tied share (SCORE-2). Each "
            "is fewest_ or most_ and one of cash, hand, safe, window, safe_and_window, "
            "rows_sold (SCORE-2)."
        ),
    )
    window_cap: Annotated[int, Field(gt=0, le=MAX_CARDS)] | None = Field(
        None,
        description=(
            "At most this many cards in a shop window; a full window takes no more cards "
            "(FILL-3). Left out: no cap."
        ),
    )
    starting_cash_by_seat: dict[
        PlayerCount, Annotated[list[Cash], Field(min_length=1, max_length=MAX_PLAYERS)]
    ] = Field(
        default_factory=dict,
        max_length=MAX_PLAYERS,
        json_schema_extra=_PLAYER_KEYS,
        description=(
            "Starting cash seat by seat, by number of players: entry i for the i-th seat "
            "dealt, the first start player first; replaces starting_cash for that count "
            "(SETUP-3)."
        ),
    )
    score: Score = Field(
        default_factory=lambda: Score(),
        description="The final score: weights of cash, hand, safe, window and rows sold (SCORE-1).",
    )
    rounds: Annotated[int, Field(gt=0, le=MAX_ROUND_CAP)] | None = Field(
        None,
        description=(
            "A game of this many rounds: it ends after the last one with outcome "
            "'finished' (TERM-2), unless the deck ended it first. Left out: no such limit."
        ),
    )
    round_cap: Annotated[int, Field(gt=0, le=MAX_ROUND_CAP)] = Field(
        200,
        description=(
            "A game still running after this many rounds ends as 'capped' (TERM-1). Audits "
            "raise it to look for games that never end; nothing is stored per round."
        ),
    )

    OMIT_AT_DEFAULT: ClassVar[frozenset[str]] = frozenset(
        {"window_cap", "starting_cash_by_seat", "score", "rounds"}
    )
    CHANCE_MODELS: ClassVar[frozenset[int]] = frozenset({1, 2})

    @classmethod
    def limits(cls) -> dict[str, int]:
        """The bounds above and the core's, by name (documented in docs/security.md)."""
        return {
            **super().limits(),
            "kinds": MAX_KINDS,
            "cards": MAX_CARDS,
            "hand_size": MAX_HAND,
            "set_size": MAX_SET_SIZE,
            "payout_entries": MAX_PAYOUT_ENTRIES,
            "cash": MAX_CASH,
            "round_cap": MAX_ROUND_CAP,
            "purchases_per_round": MAX_PURCHASES,
            "score_weight": MAX_WEIGHT,
        }

    def semantic_errors(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Consistency problems that a schema alone cannot see, as (key path, reason)."""
        errs = super().semantic_errors()
        total = sum(self.cards.values())
        if total > MAX_CARDS:
            errs.append(
                (("cards",), f"the deck has {total} cards; at most {MAX_CARDS} are allowed")
            )
        if self.players.min < 2:
            errs.append((("players", "min"), "a game needs at least 2 players"))
        over = (
            f"more than the set size {self.sale.set_size} (sale.extra_from: deck lets a row "
            "pay more, from the deck)"
        )
        extra = self.sale.extra_from != "none"
        rule = self.sale.pay
        if rule is not None:
            kinds = self.cards.values()
            most = max(  # the expression's largest value over the counts this deck has
                rule({"rows": rows, "kind_count": count})
                for rows in range(1, sum(kinds) // self.sale.set_size + 2)
                for count in set(kinds)
            )
            if most > self.sale.set_size and not extra:
                errs.append((("sale", "pay"), f"can pay {most}, {over}"))
        for i, pay in enumerate(self.sale.payout if rule is None else ()):
            if pay > self.sale.set_size and not extra:
                errs.append((("sale", "payout", i), f"pays {pay}, {over}"))
        for kind, pay in self.sale.overrides.items():
            if kind not in self.cards:
                errs.append(
                    (
                        ("sale", "overrides", kind),
                        f"unknown card kind {kind!r}; kinds are {', '.join(self.cards)}",
                    )
                )
            elif pay > self.sale.set_size and not extra:
                errs.append((("sale", "overrides", kind), f"pays {pay}, {over}"))
        for n in range(self.players.min, self.players.max + 1):
            by_seat = self.starting_cash_by_seat.get(n)
            if by_seat is not None:
                if len(by_seat) != n:
                    errs.append(
                        (
                            ("starting_cash_by_seat", n),
                            f"gives {len(by_seat)} seats' cash; {n} players need {n} entries",
                        )
                    )
                    continue
                need = sum(by_seat) + n * self.hand_size
            elif n not in self.starting_cash:
                errs.append((("starting_cash",), f"no starting cash given for {n} players"))
                continue
            else:
                need = n * (self.starting_cash[n] + self.hand_size)
            if need > total:
                errs.append(
                    (
                        ("cards",),
                        f"the deck has {total} cards but setting up {n} players needs {need}",
                    )
                )
        for n in self.starting_cash:
            if not self.players.min <= n <= self.players.max:
                errs.append(
                    (
                        ("starting_cash", n),
                        f"{n} players is outside players {self.players.min}..{self.players.max}",
                    )
                )
        for n in self.starting_cash_by_seat:
            if not self.players.min <= n <= self.players.max:
                errs.append(
                    (
                        ("starting_cash_by_seat", n),
                        f"{n} players is outside players {self.players.min}..{self.players.max}",
                    )
                )
        if self.rounds is not None and self.rounds > self.round_cap:
            errs.append(
                (
                    ("rounds",),
                    f"{self.rounds} rounds is more than round_cap {self.round_cap}; raise "
                    "round_cap to at least rounds",
                )
            )
        for n in self.tax.per_player_count:
            if not self.players.min <= n <= self.players.max:
                errs.append(
                    (("tax", "per_player_count", n), f"{n} players is outside the player range")
                )
        for step in ("fill", "store", "purchase", "refill"):
            if step not in self.steps:
                errs.append((("steps",), f"a round needs the step {step!r}"))
        for i, step in enumerate(self.steps):
            if step in self.steps[:i]:
                errs.append((("steps", i), f"step {step!r} appears twice"))
        steps = self.steps
        if "store" in steps and "purchase" in steps:
            store_after = steps.index("store") > steps.index("purchase")
            if store_after:
                errs.append((("steps",), "store must come before purchase"))
        if self.tax.per_player_count and "tax" not in self.steps:
            errs.append((("tax",), "a tax is configured but 'tax' is not one of the steps"))
        return errs

    def semantic_warnings(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Settings that cannot matter as the variant stands, as (key path, reason)."""
        warns = super().semantic_warnings()
        players = range(self.players.min, self.players.max + 1)
        if "tax" in self.steps and not any(self.tax.per_player_count.get(n) for n in players):
            warns.append(
                (
                    ("steps", self.steps.index("tax")),
                    "the tax step has nothing to do: tax.per_player_count sets no tax for "
                    f"{self.players.min}..{self.players.max} players",
                )
            )
        for term in sorted(self.score.model_fields_set):
            if getattr(self.score, term) == 0:
                warns.append((("score", term), f"the weight of {term} is 0: it never counts"))
        total = sum(self.cards.values())
        if self.window_cap is not None and self.window_cap >= total:
            warns.append(
                (
                    ("window_cap",),
                    f"a cap of {self.window_cap} is never reached: the deck has {total} cards",
                )
            )
        if self.sale.extra_from != "none":
            top = max([*self.sale.payout, *self.sale.overrides.values()])
            if top <= self.sale.set_size and self.sale.pay is None:
                warns.append(
                    (
                        ("sale", "extra_from"),
                        f"no row pays more than the set size {self.sale.set_size}",
                    )
                )
        if self.purchase.per_round > 1 and self.purchase.decline == "ends_phase":
            warns.append(
                (
                    ("purchase", "per_round"),
                    "with decline: ends_phase a second purchase turn never buys: a first "
                    "turn without a decline buys every window, so the holder of card 1 can "
                    "only decline, which ends the step (skip_turn lets later turns buy)",
                )
            )
        seen: set[str] = set()
        for i, rule in enumerate(self.tiebreak):
            term = rule.split("_", 1)[1]
            if term in seen:
                warns.append((("tiebreak", i), f"{rule} repeats a count an earlier tiebreak used"))
            elif term == "cash" and self.score == Score():
                warns.append((("tiebreak", i), f"{rule} never decides: the score is the cash"))
            seen.add(term)
        return warns

    @cached_property
    def rules(self) -> Rules:
        """The compiled rules that the engine runs (built once, then cached)."""
        return Rules.compile(self)

    @property
    def content_hash(self) -> str:
        """SHA-256 of the resolved variant's JSON (``to_data``, keys in model order).

        It changes whenever the rules change, including the order of card kinds, which
        fixes the card ids.
        """
        return self.rules.content_hash


LIMITS: dict[str, int] = Variant.limits()
"""The bounds on every count a Klunker variant holds, by name (:meth:`Variant.limits`)."""


def as_klunker(variant: VariantBase) -> Variant:
    """``variant`` if it is a Klunker-family variant; :class:`SetupError` otherwise
    (:meth:`~cardshop.core.VariantBase.of_family`)."""
    return Variant.of_family(variant)
