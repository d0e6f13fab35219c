"""The Reglamentacja family's variant format: a pydantic model, checks and compiled rules.

The engine reads the compiled :class:`Rules` (plain ints and tuples), never the
pydantic model. Clause IDs in brackets refer to the rules digest,
docs/reglamentacja-rules.md.
"""

from __future__ import annotations

from functools import cached_property
from math import comb
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from cardshop.core import Slug, VariantBase
from cardshop.reglamentacja.rules import Rules

__all__ = [
    "MAX_ACTION_SPACE",
    "MAX_CHOICE",
    "MAX_GAME_WORK",
    "ReglamentacjaVariant",
    "Rules",
    "ShoppingCard",
    "Speculator",
    "Spin",
    "Visit",
    "as_reglamentacja",
]

MAX_ACTION_SPACE = 2_000_000
"""A variant whose action index space could exceed this many actions is refused."""
MAX_CHOICE = 60_000
"""The most legal actions one decision may have: the active player's offer turn at
the most players (:meth:`ReglamentacjaVariant.most_choice`; the built-in variant:
53,150 at 5 players)."""
MAX_GAME_WORK = 200_000_000
"""The most legal actions all offer turns of a game may have together
(:meth:`ReglamentacjaVariant.game_work`: turns x offer turns x the largest choice;
the built-in variant: 128,197,800)."""


def offer_count(kinds: int, max_trade: int) -> int:
    """Offers to one seat (RG-TRADE-3): pairs of multisets of at most ``max_trade``
    stamps of ``kinds`` kinds with no kind in common, each with and without ``place``,
    less the empty offer. Counted, not built."""
    # ways[a][b]: ways to give a stamps and take b over the kinds counted so far.
    ways = [[0] * (max_trade + 1) for _ in range(max_trade + 1)]
    ways[0][0] = 1
    for _ in range(kinds):
        new = [row[:] for row in ways]
        for a in range(max_trade + 1):
            for b in range(max_trade + 1):
                if ways[a][b]:
                    for c in range(1, max_trade + 1):
                        if a + c <= max_trade:
                            new[a + c][b] += ways[a][b]
                        if b + c <= max_trade:
                            new[a][b + c] += ways[a][b]
        ways = new
    return 2 * sum(map(sum, ways)) - 1


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


class ShoppingCard(_Model):
    """One shopping card: the stamps it costs and the icons it shows. [RG-CARD-2]"""

    name: Slug = Field(description="Unique name of the card (a slug).")
    title: str = Field("", max_length=80, description="Human name of the card.")
    cost: list[Slug] = Field(
        min_length=1, max_length=6, description="The stamp kinds paid, one entry per stamp."
    )
    category: Slug = Field(description="The category of its icons (one of `categories`).")
    icons: Annotated[int, Field(ge=1, le=9)] = Field(description="Number of icons shown.")


class Visit(_Model):
    """One announced-visit card: the categories whose points it doubles. [RG-SCORE-1]"""

    name: Slug = Field(description="Unique name of the visit card (a slug).")
    title: str = Field("", max_length=80, description="Human name of the card.")
    double: list[Slug] = Field(
        min_length=1, max_length=8, description="Categories whose icons count double."
    )


class Spin(_Model):
    """How many offer turns one spin of the top lasts, drawn with the seed. [RG-TRADE-1]"""

    min: Annotated[int, Field(ge=1, le=100)] = Field(description="Fewest offer turns.")
    max: Annotated[int, Field(ge=1, le=100)] = Field(description="Most offer turns.")


class Speculator(_Model):
    """The speculator pawn: its die and the price of trading with it. [RG-SPEC-1..3]"""

    die_sides: Annotated[int, Field(ge=1, le=12)] = Field(
        6, description="Sides of the die that picks the card he takes (RG-SPEC-3)."
    )
    price: Annotated[int, Field(ge=1, le=4)] = Field(
        2, description="Stamps discarded for one speculator trade (RG-SPEC-1, RG-SPEC-2)."
    )


class ReglamentacjaVariant(VariantBase):
    """A complete, validated Reglamentacja variant."""

    family: Literal["reglamentacja"] = Field(description="The family of games.")
    stamps: dict[Slug, Annotated[int, Field(ge=1, le=40)]] = Field(
        min_length=1, max_length=12, description="Ration stamp kinds and copies of each."
    )
    categories: list[Slug] = Field(
        min_length=1, max_length=8, description="The icon categories of the shopping cards."
    )
    cards: list[ShoppingCard] = Field(
        min_length=1, max_length=60, description="The shopping cards (RG-CARD-2)."
    )
    visits: list[Visit] = Field(
        min_length=1, max_length=20, description="The announced-visit cards (RG-SETUP-3)."
    )
    row_size: Annotated[int, Field(ge=1, le=12)] = Field(
        6, description="Shopping cards in a full row (RG-SETUP-1)."
    )
    deal: Annotated[int, Field(ge=0, le=20)] = Field(
        5, description="Stamps dealt to each player at setup (RG-SETUP-2)."
    )
    allocation: Annotated[int, Field(ge=0, le=10)] = Field(
        2, description="Stamps the active player draws at the start of a turn (RG-TURN-1)."
    )
    shop_draw: Annotated[int, Field(ge=0, le=5)] = Field(
        1, description="Stamps the shopper draws after buying or passing (RG-SHOP-3)."
    )
    hand_limit: Annotated[int, Field(ge=1, le=30)] = Field(
        6, description="Most stamps the active player keeps after trading (RG-LIMIT-1)."
    )
    spin: Spin = Field(description="Offer turns per spin of the top (RG-TRADE-1).")
    max_trade: Annotated[int, Field(ge=1, le=4)] = Field(
        3, description="Most stamps on each side of one offer (RG-TRADE-3)."
    )
    speculator: Speculator = Field(default_factory=lambda: Speculator())
    final_stamps: Annotated[int, Field(ge=0, le=10)] = Field(
        3, description="Stamps each player takes at the start of the final turn (RG-FINAL-2)."
    )
    turn_cap: Annotated[int, Field(ge=1, le=5000)] = Field(
        200, description="A game still running after this many turns ends as capped."
    )
    three_players_without_meal_visits: bool = Field(
        False,
        description=(
            "With 3 players, remove every visit card that doubles the category 'meal' "
            "before dealing (RG-SETUP-3)."
        ),
    )

    def semantic_errors(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Consistency problems that the schema alone cannot see, as (key path, reason)."""
        errs = super().semantic_errors()
        lo, hi = self.players.min, self.players.max
        if lo < 3:
            errs.append(
                (("players", "min"), "the third pawn in the queue must be a player: at least 3")
            )
        cats = set(self.categories)
        if len(cats) != len(self.categories):
            errs.append((("categories",), "a category is listed twice"))
        seen: set[str] = set()
        for i, card in enumerate(self.cards):
            if card.name in seen:
                errs.append((("cards", i, "name"), f"card name {card.name!r} is used twice"))
            seen.add(card.name)
            for j, kind in enumerate(card.cost):
                if kind not in self.stamps:
                    errs.append(
                        (
                            ("cards", i, "cost", j),
                            f"unknown stamp kind {kind!r}; kinds are {', '.join(self.stamps)}",
                        )
                    )
            if card.category not in cats:
                errs.append(
                    (
                        ("cards", i, "category"),
                        f"unknown category {card.category!r}; "
                        f"categories are {', '.join(self.categories)}",
                    )
                )
        seen = set()
        for i, visit in enumerate(self.visits):
            if visit.name in seen:
                errs.append((("visits", i, "name"), f"visit name {visit.name!r} is used twice"))
            seen.add(visit.name)
            if len(set(visit.double)) != len(visit.double):
                errs.append((("visits", i, "double"), "a category is doubled twice"))
            for j, cat in enumerate(visit.double):
                if cat not in cats:
                    errs.append(
                        (
                            ("visits", i, "double", j),
                            f"unknown category {cat!r}; categories are "
                            f"{', '.join(self.categories)}",
                        )
                    )
        if len(self.visits) < hi:
            errs.append((("visits",), f"{len(self.visits)} visit cards cannot serve {hi} players"))
        if self.three_players_without_meal_visits:
            if "meal" not in cats:
                errs.append((("three_players_without_meal_visits",), "there is no category 'meal'"))
            elif lo <= 3 <= hi:
                left = sum(1 for v in self.visits if "meal" not in v.double)
                if left < 3:
                    errs.append(
                        (
                            ("three_players_without_meal_visits",),
                            f"only {left} visit cards are left for 3 players",
                        )
                    )
        if len(self.cards) < self.row_size:
            errs.append(
                (("cards",), f"{len(self.cards)} cards cannot fill a row of {self.row_size}")
            )
        total = sum(self.stamps.values())
        if total < hi * self.deal:
            errs.append(
                (("stamps",), f"{total} stamps cannot deal {self.deal} to each of {hi} players")
            )
        if self.spin.max < self.spin.min:
            errs.append((("spin", "max"), "max is smaller than min"))
        if self.speculator.die_sides > self.row_size:
            errs.append(
                (
                    ("speculator", "die_sides"),
                    f"a {self.speculator.die_sides}-sided die on a row of {self.row_size}",
                )
            )
        ms = comb(len(self.stamps) + self.max_trade, self.max_trade)
        if hi * 2 * ms * ms > MAX_ACTION_SPACE:
            errs.append(
                (
                    ("max_trade",),
                    f"offers of up to {self.max_trade} stamps of {len(self.stamps)} kinds "
                    f"make more than {MAX_ACTION_SPACE} actions",
                )
            )
            return errs
        choice = self.most_choice()
        if choice > MAX_CHOICE:
            errs.append(
                (
                    ("max_trade",),
                    f"offers of up to {self.max_trade} stamps of {len(self.stamps)} kinds give "
                    f"the active player up to {choice:,} legal actions in one offer turn at "
                    f"{hi} players; at most {MAX_CHOICE:,}: lower max_trade, the stamp "
                    "kinds or players.max",
                )
            )
        elif (work := self.game_work()) > MAX_GAME_WORK:
            errs.append(
                (
                    ("turn_cap",),
                    f"{self.turn_cap + 1} turns of up to {self.spin.max} offer turns of up to "
                    f"{choice:,} legal actions each make {work:,} in a game; at most "
                    f"{MAX_GAME_WORK:,}: lower turn_cap, spin.max or max_trade",
                )
            )
        return errs

    def most_choice(self) -> int:
        """The most legal actions of one decision: the active player's offer turn at
        ``players.max`` (offers to every other seat, speculator trades, stop, pass)."""
        price = comb(len(self.stamps) + self.speculator.price - 1, self.speculator.price)
        offers = offer_count(len(self.stamps), self.max_trade)
        return (self.players.max - 1) * offers + 2 * price + 2

    def game_work(self) -> int:
        """A bound on the legal actions of all offer turns of one game together:
        ``turn_cap`` turns and the final one, ``spin.max`` offer turns each, each with
        at most :meth:`most_choice` actions. Bots and tools take time in proportion."""
        return (self.turn_cap + 1) * self.spin.max * self.most_choice()

    @cached_property
    def rules(self) -> Rules:
        """The compiled rules that the engine runs (built once, then cached)."""
        return Rules.compile(self)


def as_reglamentacja(variant: VariantBase) -> ReglamentacjaVariant:
    """``variant`` if it is a Reglamentacja variant; :class:`~cardshop.SetupError`
    otherwise."""
    return ReglamentacjaVariant.of_family(variant)
