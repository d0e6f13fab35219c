"""The Wühltisch family's variant format: a pydantic model, its checks, the compiled rules.

Clause IDs in brackets refer to the rules digest, docs/wuhltisch-rules.md. The engine
reads the compiled :class:`WuhltischRules` (plain ints and tuples), never the model.

Card ids (fixed by the variant): the shirts first, in the order of the resolved shirt
list; then the lost-property cards, the useless ones first and the useful ones in the
order of ``lost_property.values``; then the shopping lists in the order listed.
[WT-CARD-1]

The shirts are written either compactly (``shirts: {prices, copies}``: every
combination of attribute values, the first attribute varying slowest and first value
first, times every price in the order listed, times ``copies``) or listed, one entry
per card (``shirts: [stripes/red/s/long@10, ...]``). The model holds the resolved list
either way: a compact form is listed when it is read, so ``cardshop show`` prints
every shirt and its output loads back as the same variant. [WT-CARD-2]
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from cardshop.core import SLUG_PATTERN, Action, SetupError, Slug, VariantBase

__all__ = [
    "MAX_CARDS",
    "MAX_SEAT_TICKS",
    "MAX_SHIRTS",
    "Bonuses",
    "LostProperty",
    "Shirts",
    "WuhltischRules",
    "WuhltischVariant",
    "as_wuhltisch",
    "load_wuhltisch",
    "parse_wuhltisch",
]

MAX_SHIRTS = 2000
"""A variant may generate at most this many shirts (checked before any card is built)."""
MAX_CARDS = 2300
MAX_SEAT_TICKS = 200_000
"""The most decisions a game may ask for: ``rounds`` x ``round_ticks`` x
``players.max`` (each seat decides once a tick; the built-in variant: 4 x 5,000 x 5
= 100,000, about a second with random players). A round that never ends is capped
(WT-CAP-1), so this bounds the work of every game."""

Price = Annotated[int, Field(ge=0, le=10_000)]
MAX_PRICE = 10_000

ShirtName = Annotated[
    str, Field(pattern=r"^[a-z][a-z0-9-]*(/[a-z][a-z0-9-]*)*@[0-9]{1,5}$", max_length=300)
]
"""A listed shirt: its attribute values in the order of ``attributes``, then its price."""

_SLUG = re.compile(SLUG_PATTERN)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


class Shirts(_Model):
    """The shirts, generated: every attribute combination x every price x copies. [WT-CARD-2]"""

    prices: list[Price] = Field(
        min_length=1,
        max_length=10,
        description="Prices in euro; each combination comes once per price.",
    )
    copies: Annotated[int, Field(ge=1, le=8)] = Field(
        1, description="Copies of each (combination, price) shirt."
    )


class LostProperty(_Model):
    """The lost-property cards mixed into the heap. [WT-CARD-3, WT-TICK-2]"""

    useless: Annotated[int, Field(ge=0, le=50)] = Field(
        description="Cards without a number: thrown straight back when found."
    )
    values: list[Annotated[int, Field(ge=1, le=50)]] = Field(
        max_length=50, description="The numbers of the useful cards, one entry per card."
    )


class Bonuses(_Model):
    """Bonus points of a scoring set. [WT-SCORE-3]"""

    all_match: Annotated[int, Field(ge=0, le=100)] = Field(
        5, description="Added when every attribute of the list matches on every shirt."
    )
    luxury: Annotated[int, Field(ge=0, le=100)] = Field(
        5, description="Added when every shirt of the set costs the luxury price."
    )


class WuhltischVariant(VariantBase):
    """A complete, validated Wühltisch-family variant."""

    family: Literal["wuhltisch"] = Field(description="The family of games.")
    rounds: Annotated[int, Field(ge=1, le=20)] = Field(
        4, description="Rounds in a game; scores are summed (WT-END-1)."
    )
    attributes: dict[Slug, list[Slug]] = Field(
        min_length=1,
        max_length=6,
        description="Shirt attributes, each with its possible values (2 to 3) (WT-CARD-2).",
    )
    shirts: Shirts | Annotated[list[ShirtName], Field(min_length=1, max_length=MAX_SHIRTS)] = Field(
        description=(
            "The shirts (WT-CARD-2): generated ({prices, copies}: every attribute combination "
            "at every price, copies times) or listed, one entry per card as its values in "
            "the order of attributes and its price ('stripes/red/s/long@10'). A generated "
            "list is stored listed, so the resolved variant lists every shirt."
        )
    )
    luxury_price: Price = Field(
        80, description="A shirt at this price is a luxury shirt (WT-SCORE-1, WT-SCORE-3)."
    )
    lost_property: LostProperty
    lists: list[dict[Slug, Slug]] = Field(
        min_length=1,
        max_length=64,
        description=(
            "The shopping lists: each names the same number of attributes, a value for each "
            "(WT-CARD-4)."
        ),
    )
    lists_per_player: Annotated[int, Field(ge=1, le=5)] = Field(
        3, description="Lists dealt face down to each player per round (WT-SETUP-2)."
    )
    set_size: Annotated[int, Field(ge=1, le=5)] = Field(
        3, description="Shirts held at most, and shirts in a set (WT-TICK-4, WT-TICK-6)."
    )
    budget: Price = Field(
        80, description="Most a set's shirts may cost together, unless all are luxury (WT-SCORE-1)."
    )
    match_threshold: Annotated[int, Field(ge=0, le=100)] = Field(
        7, description="Fewest matches with which a set scores (WT-SCORE-2)."
    )
    bonuses: Bonuses = Field(default_factory=lambda: Bonuses())
    caller_all_or_nothing: bool = Field(
        True,
        description=(
            "A caller with a set scoring 0 gets only his lost property that round (WT-SCORE-5)."
        ),
    )
    round_ticks: Annotated[int, Field(ge=1, le=100_000)] = Field(
        5000, description="A round without a caller ends after this many ticks, capped (WT-CAP-1)."
    )

    @model_validator(mode="before")
    @classmethod
    def _list_generated_shirts(cls, data: object) -> object:
        """``shirts`` checked on its own; a compact mapping becomes the list of every
        shirt it generates (when ``attributes`` is well formed: otherwise its errors
        are reported and the mapping is left as it is). [WT-CARD-2]"""
        if not isinstance(data, dict) or "shirts" not in data:
            return data
        shirts = data["shirts"]
        if isinstance(shirts, list):
            _checked(_shirt_names(), shirts)
            return data
        if not isinstance(shirts, dict):
            raise _error(
                "shirts is a mapping {prices, copies} that generates them, or a list of "
                "shirts such as stripes/red/s/long@10",
                shirts,
            )
        compact = _checked(TypeAdapter(Shirts), shirts)
        attributes = data.get("attributes")
        if not _good_attributes(attributes):
            return data
        assert isinstance(attributes, dict)
        count = len(compact.prices) * compact.copies
        for values in attributes.values():
            count *= len(values)
        if count > MAX_SHIRTS:
            raise _error(f"{count} shirts; at most {MAX_SHIRTS}", shirts)
        listed = [
            "/".join(combo) + f"@{price}"
            for combo in itertools.product(*attributes.values())
            for price in compact.prices
            for _ in range(compact.copies)
        ]
        return {**data, "shirts": listed}

    def shirt_count(self) -> int:
        if isinstance(self.shirts, list):
            return len(self.shirts)
        combos = 1
        for values in self.attributes.values():
            combos *= len(values)
        return combos * len(self.shirts.prices) * self.shirts.copies

    def shirt_list(self) -> list[tuple[tuple[int, ...], int]]:
        """Every shirt as (value index per attribute, price), in card-id order.

        Call it on a variant without :meth:`semantic_errors` only."""
        values = list(self.attributes.values())
        if isinstance(self.shirts, list):
            out: list[tuple[tuple[int, ...], int]] = []
            for name in self.shirts:
                named, _, price = name.partition("@")
                combo = tuple(vs.index(x) for vs, x in zip(values, named.split("/"), strict=True))
                out.append((combo, int(price)))
            return out
        return [
            (combo, price)
            for combo in itertools.product(*(range(len(vs)) for vs in values))
            for price in self.shirts.prices
            for _ in range(self.shirts.copies)
        ]

    def _shirt_errors(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Listed shirts that name unknown values or cost too much."""
        if not isinstance(self.shirts, list):
            return []
        errs: list[tuple[tuple[str | int, ...], str]] = []
        attrs = list(self.attributes.items())
        for i, name in enumerate(self.shirts):
            named, _, price = name.partition("@")
            parts = named.split("/")
            if len(parts) != len(attrs):
                errs.append(
                    (
                        ("shirts", i),
                        f"{name!r} names {len(parts)} values; a shirt has one for each of "
                        f"{', '.join(self.attributes)}, in that order",
                    )
                )
            else:
                for (attr, values), value in zip(attrs, parts, strict=True):
                    if value not in values:
                        errs.append(
                            (
                                ("shirts", i),
                                f"{name!r}: {attr} has no value {value!r}; values are "
                                f"{', '.join(values)}",
                            )
                        )
            if int(price) > MAX_PRICE:
                errs.append((("shirts", i), f"{name!r}: the price is at most {MAX_PRICE}"))
        return errs

    def semantic_errors(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Consistency problems a schema alone cannot see, as (key path, reason)."""
        errs: list[tuple[tuple[str | int, ...], str]] = []
        if self.players.max < self.players.min:
            errs.append((("players", "max"), "max is smaller than min"))
        for attr, values in self.attributes.items():
            if not 2 <= len(values) <= 3:
                errs.append((("attributes", attr), "an attribute has 2 or 3 values"))
            if len(set(values)) != len(values):
                errs.append((("attributes", attr), "a value is listed twice"))
        if errs:
            return errs
        shirts = self.shirt_count()
        if shirts > MAX_SHIRTS:
            errs.append((("shirts",), f"{shirts} shirts; at most {MAX_SHIRTS}"))
            return errs
        errs += self._shirt_errors()
        if errs:
            return errs
        sizes = {len(lst) for lst in self.lists}
        for i, lst in enumerate(self.lists):
            if not lst:
                errs.append((("lists", i), "a list names at least one attribute"))
            for attr, value in lst.items():
                if attr not in self.attributes:
                    errs.append(
                        (
                            ("lists", i, attr),
                            f"unknown attribute {attr!r}; attributes are "
                            f"{', '.join(self.attributes)}",
                        )
                    )
                elif value not in self.attributes[attr]:
                    errs.append(
                        (
                            ("lists", i, attr),
                            f"{attr} has no value {value!r}; values are "
                            f"{', '.join(self.attributes[attr])}",
                        )
                    )
        if len(sizes) > 1:
            errs.append((("lists",), "every list must name the same number of attributes"))
        need = self.lists_per_player * self.players.max
        if len(self.lists) < need:
            errs.append(
                (
                    ("lists",),
                    f"{len(self.lists)} lists; {self.players.max} players need "
                    f"{self.lists_per_player} each ({need})",
                )
            )
        most = self.set_size * max(sizes, default=0)
        if self.match_threshold > most:
            errs.append(
                (
                    ("match_threshold",),
                    f"{self.match_threshold} is more than the {most} matches a set can have",
                )
            )
        seat_ticks = self.seat_ticks()
        if seat_ticks > MAX_SEAT_TICKS:
            errs.append(
                (
                    ("round_ticks",),
                    f"{self.rounds} rounds of up to {self.round_ticks:,} ticks for up to "
                    f"{self.players.max} players make {seat_ticks:,} decisions in a game; at "
                    f"most {MAX_SEAT_TICKS:,}: lower round_ticks, rounds or players.max",
                )
            )
        # Looks always find a card: the heap keeps at least one card per player even
        # when everyone holds the most shirts and cards it can. [WT-TICK-1]
        lost = self.lost_property.useless + len(self.lost_property.values)
        out = self.players.max * (1 + self.set_size * (self.lists_per_player + 1))
        out += len(self.lost_property.values)
        if shirts + lost - out < self.players.max:
            errs.append(
                (
                    ("shirts",),
                    f"the heap ({shirts} shirts, {lost} lost property) is too small for "
                    f"{self.players.max} players holding {self.set_size} shirts and "
                    f"{self.lists_per_player} sets each",
                )
            )
        return errs

    def seat_ticks(self) -> int:
        """The most decisions of one game: every seat acts once a tick (WT-TICK-1)
        for up to ``round_ticks`` ticks (WT-CAP-1) of each of ``rounds`` rounds."""
        return self.rounds * self.round_ticks * self.players.max

    @cached_property
    def rules(self) -> WuhltischRules:
        """The compiled rules that the engine runs (built once, then cached)."""
        return WuhltischRules.compile(self)

    @property
    def content_hash(self) -> str:
        """SHA-256 of the resolved variant's canonical JSON (computed once, with the rules).

        Shirts that a ``{prices, copies}`` mapping generates are hashed in that form
        (:meth:`compact_shirts`), so the hash does not depend on whether a file lists
        its shirts or generates them, and is the hash of the time when the resolved
        variant kept the mapping: records written then still replay.
        """
        return self.rules.content_hash

    def hash_data(self) -> dict[str, Any]:
        """:meth:`to_data` with generated shirts as their ``{prices, copies}`` mapping:
        what :attr:`content_hash` hashes, and what game JSON carries."""
        data = self.to_data()
        compact = self.compact_shirts()
        if compact is not None:
            data["shirts"] = compact
        return data

    def compact_shirts(self) -> dict[str, Any] | None:
        """``{prices, copies}`` that generates exactly the listed shirts, if any does."""
        shirts = self.shirts
        if not isinstance(shirts, list):
            return None
        combos = 1
        for values in self.attributes.values():
            combos *= len(values)
        if len(shirts) % combos:
            return None
        block = shirts[: len(shirts) // combos]
        prices: list[int] = []
        copies = 0
        i = 0
        while i < len(block):
            j = i
            while j < len(block) and block[j] == block[i]:
                j += 1
            if copies and j - i != copies:
                return None
            copies = j - i
            prices.append(int(block[i].partition("@")[2]))
            i = j
        generated = [
            "/".join(combo) + f"@{price}"
            for combo in itertools.product(*self.attributes.values())
            for price in prices
            for _ in range(copies)
        ]
        if generated != shirts:
            return None
        return {"prices": prices, "copies": copies}


@dataclass(frozen=True, slots=True, eq=False)
class WuhltischRules:
    """A variant compiled for the engine: every card as plain numbers."""

    variant: WuhltischVariant
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

    def describe(self, card: int) -> str:
        """A card in words: ``dots/blue/s/long@20``, ``lost:3``, ``list:*/red/s/long``."""
        return self.card_name[card]


_T = TypeVar("_T")


@cache
def _shirt_names() -> TypeAdapter[list[str]]:
    """The listed form of ``shirts`` (built when first needed, like the models)."""
    return TypeAdapter(
        Annotated[list[ShirtName], Field(min_length=1, max_length=MAX_SHIRTS)],
        config=ConfigDict(strict=True),
    )


def _checked(adapter: TypeAdapter[_T], value: object) -> _T:
    """``value`` validated, its errors raised at their keys under ``shirts``."""
    try:
        return adapter.validate_python(value, strict=True)
    except ValidationError as exc:
        details = [
            InitErrorDetails(
                type=PydanticCustomError(e["type"], e["msg"]),
                loc=("shirts", *e["loc"]),
                input=e.get("input"),
            )
            for e in exc.errors(include_url=False)
        ]
        raise ValidationError.from_exception_data("WuhltischVariant", details) from None


def _error(message: str, value: Any) -> ValidationError:
    """One error at the key ``shirts``."""
    return ValidationError.from_exception_data(
        "WuhltischVariant",
        [
            InitErrorDetails(
                type=PydanticCustomError("value_error", message), loc=("shirts",), input=value
            )
        ],
    )


def _good_attributes(attributes: object) -> bool:
    """``attributes`` as the model accepts it: slugs, each with 2 or 3 distinct slugs."""
    if not isinstance(attributes, dict) or not 1 <= len(attributes) <= 6:
        return False
    for attr, values in attributes.items():
        if not isinstance(attr, str) or not _SLUG.match(attr) or not isinstance(values, list):
            return False
        if not 2 <= len(values) <= 3 or len(set(map(str, values))) != len(values):
            return False
        if not all(isinstance(x, str) and _SLUG.match(x) and len(x) <= 40 for x in values):
            return False
    return all(len(a) <= 40 for a in attributes)


# ------------------------------------------------------------------ loading


def as_wuhltisch(variant: VariantBase) -> WuhltischVariant:
    """``variant`` if it is a Wühltisch variant; :class:`SetupError` otherwise."""
    if not isinstance(variant, WuhltischVariant):
        raise SetupError(
            f"{variant.name!r} is a variant of the {variant.family!r} family, not of 'wuhltisch'"
        )
    return variant


def parse_wuhltisch(text: str, source: str = "<string>") -> WuhltischVariant:
    """A Wühltisch variant from YAML text, read by ``cardshop.parse_variant``."""
    from cardshop.core import parse_variant

    return as_wuhltisch(parse_variant(text, source=source))


def load_wuhltisch(ref: str | Path = "wuhltisch") -> WuhltischVariant:
    """A Wühltisch variant by built-in name or path, read by ``cardshop.load_variant``."""
    from cardshop.core import load_variant

    return as_wuhltisch(load_variant(ref))
