"""The Reglamentacja family's variant format: a pydantic model, checks and compiled rules.

The engine reads the compiled :class:`Rules` (plain ints and tuples), never the
pydantic model. Clause IDs in brackets refer to the rules digest,
docs/reglamentacja-rules.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from math import comb
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    WithJsonSchema,
)

from cardshop.core import (
    MAX_PLAYERS,
    Expression,
    Name,
    Slug,
    VariantBase,
    compile_expression,
    expression,
)
from cardshop.reglamentacja.rules import Rules

__all__ = [
    "MAX_ACTION_SPACE",
    "MAX_CHOICE",
    "MAX_GAME_WORK",
    "PLAYER_NAMES",
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


PLAYER_NAMES = {
    "players": Name("the number of players in the game", low=1, high=MAX_PLAYERS),
}
"""The names the expressions of ``deal`` and ``final_stamps`` may read."""

if TYPE_CHECKING:  # the checker sees the values, pydantic the checked key types
    DealCount = Expression
    FinalCount = Expression
else:
    DealCount = expression(PLAYER_NAMES, low=0, high=20, what="stamps dealt to each player")
    FinalCount = expression(
        PLAYER_NAMES, low=0, high=10, what="stamps each player takes in the final turn"
    )
MAX_TRADE = 4
"""The most stamps on one side of an offer."""


def _check_trade(value: object) -> int | dict[int, int]:
    """``max_trade``: a number of stamps, or a mapping from a player count to one."""
    shape = (
        f"max_trade must be a whole number from 1 to {MAX_TRADE}, or a mapping from a "
        f"player count to one (max_trade: {{2: 3, 6: 2}})"
    )

    def stamps(x: object) -> int:
        if type(x) is not int or not 1 <= x <= MAX_TRADE:
            raise ValueError(f"{shape}; got {x!r:.40}")
        return x

    if not isinstance(value, dict):
        return stamps(value)
    if not value:
        raise ValueError(f"{shape}; got an empty mapping")
    out: dict[int, int] = {}
    for key, x in value.items():
        count = int(key) if type(key) is str and key.isdigit() else key
        if type(count) is not int or not 1 <= count <= MAX_PLAYERS:
            raise ValueError(
                f"a player count from 1 to {MAX_PLAYERS} in max_trade, not {key!r:.40}"
            )
        out[count] = stamps(x)
    return out


def _dump_trade(value: int | dict[int, int]) -> int | dict[str, int]:
    return value if isinstance(value, int) else {str(k): x for k, x in value.items()}


TradeLimit = Annotated[
    int | dict[int, int],
    PlainValidator(_check_trade),
    PlainSerializer(_dump_trade),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 1, "maximum": MAX_TRADE},
                {
                    "type": "object",
                    "minProperties": 1,
                    "patternProperties": {
                        "^[0-9]+$": {"type": "integer", "minimum": 1, "maximum": MAX_TRADE}
                    },
                    "additionalProperties": False,
                },
            ]
        }
    ),
]


def offer_count(kinds: int, max_trade: int, places: bool = True) -> int:
    """Offers to one seat (RG-TRADE-3): pairs of multisets of at most ``max_trade``
    stamps of ``kinds`` kinds with no kind in common, each with and without ``place``
    (without, if ``places`` is false: RG-TRADE-5), less the empty offer. Counted, not
    built."""
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
    pairs = sum(map(sum, ways))
    return 2 * pairs - 1 if places else pairs - 1


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
    deal: DealCount = Field(
        5,
        validate_default=True,
        description=(
            "Stamps dealt to each player at setup: an integer, or an expression over "
            "`players` (RG-SETUP-2)."
        ),
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
    max_trade: TradeLimit = Field(
        3,
        description=(
            "Most stamps on each side of one offer (RG-TRADE-3): one number for every "
            "player count, or a mapping from a player count to the number from that "
            "count up (`{2: 3, 6: 2}`: 3 for 2 to 5 players, 2 for 6 or more)."
        ),
    )
    queue_trading: bool = Field(
        True,
        description=(
            "Whether an offer may include swapping places in the queue (`place`, "
            "RG-TRADE-5); false: offers trade stamps only."
        ),
    )
    speculator: Speculator | None = Field(
        None,
        description=(
            "The speculator pawn (RG-SPEC-1..3); null or left out: the game has no "
            "speculator (no speculator trades, no pawn in the queue, no card taken)."
        ),
    )
    final_stamps: FinalCount = Field(
        3,
        validate_default=True,
        description=(
            "Stamps each player takes at the start of the final turn: an integer, or an "
            "expression over `players` (RG-FINAL-2)."
        ),
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

    OMIT_AT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"queue_trading", "speculator"})
    CHANCE_MODELS: ClassVar[frozenset[int]] = frozenset({1, 2})
    LIST_KEYS: ClassVar[Mapping[str, str]] = {"cards": "name", "visits": "name"}

    def semantic_errors(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Consistency problems that the schema alone cannot see, as (key path, reason)."""
        errs = super().semantic_errors()
        if errs:
            return errs
        lo, hi = self.players.min, self.players.max
        if lo < 2:
            errs.append((("players", "min"), "trading needs at least 2 players"))
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
        for n in range(lo, hi + 1):
            deal = self.deal_for(n)
            if total < n * deal:
                errs.append(
                    (
                        ("deal",) if self.deal.constant is None else ("stamps",),
                        f"{total} stamps cannot deal {deal} to each of {n} players",
                    )
                )
                break
        if self.spin.max < self.spin.min:
            errs.append((("spin", "max"), "max is smaller than min"))
        spec = self.speculator
        if spec is not None and spec.die_sides > self.row_size:
            errs.append(
                (
                    ("speculator", "die_sides"),
                    f"a {spec.die_sides}-sided die on a row of {self.row_size}",
                )
            )
        if isinstance(self.max_trade, dict):
            below = [c for c in self.max_trade if c <= lo]
            if not below:
                errs.append(
                    (
                        ("max_trade",),
                        f"no entry for {lo} players (players.min): the entry of a count "
                        f"holds from that count up, and the smallest given is "
                        f"{min(self.max_trade)}; add {lo}: N",
                    )
                )
                return errs
        for n in range(hi, lo - 1, -1):  # the most players first: the most offers
            problem = self._bound_problem(n, self.trade_for(n))
            if problem is not None:
                key, reason = problem
                fits = [t for t in range(1, 5) if self._bound_problem(n, t) is None]
                if key == "max_trade" and fits:
                    reason += (
                        f"; at {n} players max_trade {max(fits)} fits: write it for that "
                        f"count, e.g. max_trade: {{{lo}: {self.trade_for(lo)}, {n}: {max(fits)}}}"
                        if n > lo
                        else f"; at {n} players max_trade {max(fits)} fits"
                    )
                elif key == "max_trade":
                    reason += "; no max_trade fits: fewer stamp kinds or players"
                errs.append(((key,), reason))
                break
        return errs

    def _bound_problem(self, n: int, trade: int) -> tuple[str, str] | None:
        """What offers of up to ``trade`` stamps exceed at ``n`` players (key, reason),
        or None: the action index space, one decision's choice, a game's work."""
        k = len(self.stamps)
        ms = comb(k + trade, trade)
        if n * 2 * ms * ms > MAX_ACTION_SPACE:
            return (
                "max_trade",
                f"at {n} players, offers of up to {trade} stamps of {k} kinds make more "
                f"than {MAX_ACTION_SPACE:,} actions",
            )
        choice = self.most_choice(n, trade)
        if choice > MAX_CHOICE:
            return (
                "max_trade",
                f"at {n} players, offers of up to {trade} stamps of {k} kinds give the active "
                f"player up to {choice:,} legal actions in one offer turn; at most "
                f"{MAX_CHOICE:,}",
            )
        work = (self.turn_cap + 1) * self.spin.max * choice
        if work > MAX_GAME_WORK:
            return (
                "turn_cap",
                f"at {n} players, {self.turn_cap + 1} turns of up to {self.spin.max} offer "
                f"turns of up to {choice:,} legal actions each make {work:,} in a game; at "
                f"most {MAX_GAME_WORK:,}: lower turn_cap, spin.max or max_trade",
            )
        return None

    def semantic_warnings(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Settings that cannot matter as the variant stands, as (key path, reason)."""
        warns = super().semantic_warnings()
        lo, hi = self.players.min, self.players.max
        costed = {kind for card in self.cards for kind in card.cost}
        for kind in self.stamps:
            if kind not in costed:
                warns.append(
                    (("stamps", kind), f"no card costs {kind}: it can only be traded away")
                )
        for i, card in enumerate(self.cards):
            for j, kind in enumerate(card.cost):
                have = self.stamps.get(kind, 0)
                if card.cost.count(kind) > have and kind not in card.cost[:j]:
                    warns.append(
                        (
                            ("cards", i, "cost", j),
                            f"{card.name!r} costs {card.cost.count(kind)} {kind} and the game "
                            f"has {have}: nobody can ever buy it",
                        )
                    )
        shown = {card.category for card in self.cards}
        for i, cat in enumerate(self.categories):
            if cat not in shown:
                warns.append((("categories", i), f"no card shows {cat} icons"))
        for i, visit in enumerate(self.visits):
            for j, cat in enumerate(visit.double):
                if cat in self.categories and cat not in shown:
                    warns.append(
                        (
                            ("visits", i, "double", j),
                            f"{visit.name!r} doubles {cat}, which no card shows",
                        )
                    )
        if self.three_players_without_meal_visits and not lo <= 3 <= hi:
            warns.append(
                (
                    ("three_players_without_meal_visits",),
                    f"the option is for 3 players, and the variant plays {lo} to {hi}",
                )
            )
        if isinstance(self.max_trade, dict):
            first = min(self.max_trade)
            used = {
                max((c for c in self.max_trade if c <= n), default=first) for n in range(lo, hi + 1)
            }
            for count in self.max_trade:
                if count not in used:
                    warns.append(
                        (
                            ("max_trade", count),
                            f"the entry for {count} players applies to no count the "
                            f"variant plays ({lo} to {hi})",
                        )
                    )
        return warns

    def trade_for(self, players: int) -> int:
        """``max_trade`` at ``players`` players: the number, or the mapping's entry of
        the largest count up to ``players`` (the smallest entry's value below it)."""
        trade = self.max_trade
        if isinstance(trade, int):
            return trade
        counts = [c for c in trade if c <= players]
        return trade[max(counts) if counts else min(trade)]

    def deal_for(self, players: int) -> int:
        """Stamps dealt to each player at ``players`` players (RG-SETUP-2)."""
        return _value(self.deal, players)

    def final_stamps_for(self, players: int) -> int:
        """Stamps each player takes in the final turn at ``players`` players (RG-FINAL-2)."""
        return _value(self.final_stamps, players)

    def most_choice(self, players: int | None = None, trade: int | None = None) -> int:
        """The most legal actions of one decision: the active player's offer turn at
        ``players`` (``players.max`` by default; offers of up to ``trade`` stamps,
        that count's ``max_trade`` by default, to every other seat, speculator
        trades, stop, pass)."""
        n = self.players.max if players is None else players
        t = self.trade_for(n) if trade is None else trade
        spec = self.speculator
        price = 0 if spec is None else comb(len(self.stamps) + spec.price - 1, spec.price)
        offers = offer_count(len(self.stamps), t, self.queue_trading)
        return (n - 1) * offers + 2 * price + 2

    def game_work(self, players: int | None = None) -> int:
        """A bound on the legal actions of all offer turns of one game together:
        ``turn_cap`` turns and the final one, ``spin.max`` offer turns each, each with
        at most :meth:`most_choice` actions (at ``players``, by default the count of
        the most). Bots and tools take time in proportion."""
        counts = range(self.players.min, self.players.max + 1) if players is None else [players]
        return max((self.turn_cap + 1) * self.spin.max * self.most_choice(n) for n in counts)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its data, validated again when loaded (an expression's compiled
        closures do not pickle; the variant's data does)."""
        return (_from_data, (self.to_data(),))

    def __setstate__(self, state: dict[Any, Any]) -> None:
        """A variant pickled by a release before its newer keys gets their defaults."""
        data = dict(state["__dict__"])
        data.setdefault("queue_trading", True)
        for key, high in (("deal", 20), ("final_stamps", 10)):
            if not isinstance(data[key], Expression):
                data[key] = compile_expression(data[key], PLAYER_NAMES, low=0, high=high)
        super().__setstate__({**state, "__dict__": data})

    @cached_property
    def rules_cache(self) -> dict[tuple[int, int, int], Rules]:
        return {}

    def rules_for(self, players: int) -> Rules:
        """The compiled rules of a game of ``players`` players (built once per distinct
        ``max_trade``, deal and final stamps, then cached; :attr:`rules` when these are
        the same for every count)."""
        key = (self.trade_for(players), self.deal_for(players), self.final_stamps_for(players))
        cache = self.rules_cache
        rules = cache.get(key)
        if rules is None:
            rules = cache[key] = Rules.compile(self, *key)
        return rules

    @cached_property
    def rules(self) -> Rules:
        """The compiled rules at ``players.min`` players (built once, then cached); a
        game's are :meth:`rules_for` its player count."""
        return self.rules_for(self.players.min)


def _from_data(data: dict[str, Any]) -> ReglamentacjaVariant:
    """A pickled variant back (:meth:`ReglamentacjaVariant.__reduce__`)."""
    return ReglamentacjaVariant.model_validate(data)


def _value(value: Expression, players: int) -> int:
    constant = value.constant
    return constant if constant is not None else value({"players": players})


def as_reglamentacja(variant: VariantBase) -> ReglamentacjaVariant:
    """``variant`` if it is a Reglamentacja variant; :class:`~cardshop.SetupError`
    otherwise."""
    return ReglamentacjaVariant.of_family(variant)
