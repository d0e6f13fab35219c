"""The Wühltisch family's variant format: a pydantic model and its checks.

Clause IDs in brackets refer to the rules digest, docs/wuhltisch-rules.md. The engine
reads the compiled :class:`~cardshop.wuhltisch.rules.WuhltischRules` (plain ints and
tuples, in ``rules.py``), never the model.

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

import itertools
import re
from functools import cache, cached_property
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from cardshop.core import (
    SLUG_PATTERN,
    Expression,
    ExpressionError,
    Name,
    Section,
    SetupError,
    Slug,
    VariantBase,
    compile_expression,
    describe_names,
)
from cardshop.wuhltisch.rules import (
    MAX_TERM,
    ROUND_NAMES,
    SET_NAMES,
    THRESHOLD_NAMES,
    WuhltischRules,
    round_names,
    set_names,
)

__all__ = [
    "MAX_CARDS",
    "MAX_SEAT_TICKS",
    "MAX_SHIRTS",
    "Bonuses",
    "LostProperty",
    "Score",
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


def _checker(names: dict[str, Name], low: int, high: int) -> Any:
    """The check of a key holding an integer or an expression over ``names``
    (docs/variant-language.md) when the file is read (a problem names its column). The
    model keeps the int or text as written, which pickles and dumps as it was; the
    compiled rules compile it again over the variant's own ranges."""

    def check(value: object) -> int | str:
        return compile_expression(value, names, low=low, high=high).source

    return PlainValidator(check)


def _schema(names: dict[str, Name], low: int, high: int, what: str) -> WithJsonSchema:
    return WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": low, "maximum": high},
                {"type": "string", "minLength": 1, "maxLength": 500},
            ],
            "description": (
                f"An integer {low}..{high}, or an expression giving the {what} "
                f"(docs/variant-language.md). Names: {describe_names(names)}."
            ),
        }
    )


SetTerm = Annotated[
    int | str,
    _checker(SET_NAMES, -MAX_TERM, MAX_TERM),
    _schema(SET_NAMES, -MAX_TERM, MAX_TERM, "points a scoring set adds"),
]
RoundTerm = Annotated[
    int | str,
    _checker(ROUND_NAMES, -MAX_TERM, MAX_TERM),
    _schema(ROUND_NAMES, -MAX_TERM, MAX_TERM, "points a seat adds in a round"),
]
Threshold = Annotated[
    int | str,
    _checker(THRESHOLD_NAMES, 0, 100),
    _schema(THRESHOLD_NAMES, 0, 100, "fewest matches with which a set scores"),
]


TermName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$", max_length=40)]
"""A score term's name: lower-case letters, digits, ``_`` and ``-``."""


class Score(Section):
    """Score terms a variant adds to the built-in scoring, each named, each an integer
    or an expression. [WT-SCORE-6, WT-SCORE-7]"""

    OMIT_AT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"per_set", "per_round"})

    per_set: dict[TermName, SetTerm] = Field(
        default_factory=dict,
        max_length=16,
        description=(
            "Terms added to the score of every set that scores (within budget, enough "
            "matches), after the bonuses; a set never scores below 0 (WT-SCORE-6)."
        ),
    )
    per_round: dict[TermName, RoundTerm] = Field(
        default_factory=dict,
        max_length=16,
        description=(
            "Terms added to a seat's score of each round, after the caller's risk and the "
            "lost property; a round never scores below 0 (WT-SCORE-7)."
        ),
    )

    def sources(self) -> tuple[tuple[str, str, int | str], ...]:
        """Every term as (level, name, source): level ``set`` or ``round``, in file order."""
        return tuple(("set", k, v) for k, v in self.per_set.items()) + tuple(
            ("round", k, v) for k, v in self.per_round.items()
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
    match_threshold: Threshold = Field(
        7,
        description=(
            "Fewest matches with which a set scores (WT-SCORE-2): at most set_size x the "
            "attributes a list names; an integer or an expression over set_size, list_size "
            "and max_matches, such as 'max_matches - 2'."
        ),
    )
    bonuses: Bonuses = Field(default_factory=lambda: Bonuses())
    score: Score = Field(
        default_factory=lambda: Score(),
        description="Named score terms added to a set's or a round's score (WT-SCORE-6/7).",
    )
    caller_all_or_nothing: bool = Field(
        True,
        description=(
            "A caller with a set scoring 0 gets only his lost property that round (WT-SCORE-5)."
        ),
    )
    round_ticks: Annotated[int, Field(ge=1, le=100_000)] = Field(
        5000, description="A round without a caller ends after this many ticks, capped (WT-CAP-1)."
    )

    OMIT_AT_DEFAULT: ClassVar[frozenset[str]] = frozenset({"score"})
    CHANCE_MODELS: ClassVar[frozenset[int]] = frozenset({1, 2})

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
        errs = super().semantic_errors()
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
        errs += self._threshold_errors(max(sizes, default=0))
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
        if not errs:
            errs += self._term_errors()
        return errs

    def semantic_warnings(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Settings that cannot matter as the variant stands: an attribute or a value no
        list names, a luxury price no shirt has, a bonus no set can reach, a score term
        that is always 0. [WT-SCORE-8]"""
        warns = super().semantic_warnings()
        named: dict[str, set[str]] = {}
        for lst in self.lists:
            for attr, value in lst.items():
                named.setdefault(attr, set()).add(value)
        for attr, values in self.attributes.items():
            if attr not in named:
                warns.append(
                    (
                        ("attributes", attr),
                        f"no shopping list names {attr}: it never matches, so it never "
                        "scores; name it in some lists or leave it out",
                    )
                )
                continue
            for value in values:
                if value not in named[attr]:
                    warns.append(
                        (
                            ("attributes", attr),
                            f"no shopping list wants {attr} {value}: a shirt's {value} "
                            f"never matches; lists name {', '.join(sorted(named[attr]))}",
                        )
                    )
        rules = self.rules
        prices = sorted(set(rules.price))
        luxury = sum(1 for x in rules.luxury if x)
        if not luxury:
            warns.append(
                (
                    ("luxury_price",),
                    f"no shirt costs {self.luxury_price}: there are no luxury shirts, so the "
                    "luxury bonus and the luxury sets' exception to the budget never apply; "
                    f"shirts cost {', '.join(map(str, prices))}",
                )
            )
        elif self.bonuses.luxury and not self._reachable(luxury_only=True):
            warns.append(
                (
                    ("bonuses", "luxury"),
                    f"no set of {self.set_size} luxury shirts reaches {rules.threshold} "
                    f"matches with any list ({luxury} luxury shirts): the bonus is never paid",
                )
            )
        if self.bonuses.all_match and not self._reachable(luxury_only=False):
            warns.append(
                (
                    ("bonuses", "all_match"),
                    f"no list has {self.set_size} shirts matching it fully within the "
                    "budget: the bonus is never paid",
                )
            )
        for path, term in self.compiled_terms():
            if isinstance(term, Expression) and term.low == term.high == 0:
                written = "is written as 0" if term.source == 0 else "is always 0 here"
                warns.append((path, f"{term.source!r} {written}: the term changes no score"))
        return warns

    def _reachable(self, *, luxury_only: bool) -> bool:
        """Whether some set scores with every shirt a luxury one (``luxury_only``) or
        with every attribute matching (else). [WT-SCORE-3]"""
        rules = self.rules
        k = rules.set_size
        for row in rules.matches:
            if luxury_only:
                best = sorted(
                    (row[s] for s in range(rules.n_shirts) if rules.luxury[s]), reverse=True
                )
                if len(best) >= k and sum(best[:k]) >= rules.threshold:
                    return True
                continue
            full = [s for s in range(rules.n_shirts) if row[s] == rules.list_size]
            if len(full) < k:
                continue
            cheap = sorted(rules.price[s] for s in full)
            lux = sum(1 for s in full if rules.luxury[s])
            if sum(cheap[:k]) <= rules.budget or lux >= k:
                return True
        return False

    def threshold(self) -> int:
        """``match_threshold`` worked out for this variant's set and list sizes (WT-SCORE-2)."""
        size = len(self.lists[0]) if self.lists else 0
        env = {"set_size": self.set_size, "list_size": size, "max_matches": self.set_size * size}
        return compile_expression(self.match_threshold, THRESHOLD_NAMES, low=0, high=100)(env)

    def _threshold_errors(self, list_size: int) -> list[tuple[tuple[str | int, ...], str]]:
        """A threshold no set can reach is an error naming both sizes. [WT-SCORE-2]"""
        most = self.set_size * list_size
        threshold = self.threshold()
        if threshold <= most:
            return []
        written = self.match_threshold
        shown = f"{threshold}" if isinstance(written, int) else f"{written!r} gives {threshold}; it"
        return [
            (
                ("match_threshold",),
                f"{shown} is more than the {most} matches a set can have (set_size "
                f"{self.set_size} x {list_size} attributes on a list): at most {most}",
            )
        ]

    def _term_errors(self) -> list[tuple[tuple[str | int, ...], str]]:
        """A term that can never give a value in -MAX_TERM..MAX_TERM with this variant's
        ranges (the check at load used the widest ranges of any variant). [WT-SCORE-6/7]"""
        return [(path, str(t)) for path, t in self.compiled_terms() if isinstance(t, Exception)]

    def compiled_terms(
        self,
    ) -> list[tuple[tuple[str | int, ...], Expression | ExpressionError]]:
        """Every score term by its key path, compiled over the ranges its names take in
        this variant (or the reason it cannot be). Call it on a variant without
        :meth:`semantic_errors` of its cards only. [WT-SCORE-6/7]"""
        size = len(self.lists[0])
        max_matches = self.set_size * size
        prices = [price for _, price in self.shirt_list()]
        snames = set_names(
            max_matches=max_matches,
            threshold=min(self.threshold(), max_matches),
            set_size=self.set_size,
            prices=prices,
            budget=self.budget,
            luxury_shirts=prices.count(self.luxury_price),
            luxury_price=self.luxury_price,
        )
        out: list[tuple[tuple[str | int, ...], Expression | ExpressionError]] = []
        top = max_matches + self.bonuses.all_match + self.bonuses.luxury
        for name, source in self.score.per_set.items():
            term = _compiled(source, snames)
            out.append((("score", "per_set", name), term))
            top += term.high if isinstance(term, Expression) else 0
        rnames = round_names(
            lists_per_player=self.lists_per_player,
            max_set_score=max(0, top),
            lost_total=sum(self.lost_property.values),
            players=(self.players.min, self.players.max),
            rounds=self.rounds,
        )
        for name, source in self.score.per_round.items():
            out.append((("score", "per_round", name), _compiled(source, rnames)))
        return out

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


_T = TypeVar("_T")


def _compiled(source: int | str, names: dict[str, Name]) -> Expression | ExpressionError:
    """A term compiled over ``names``, or why it cannot be."""
    try:
        return compile_expression(source, names, low=-MAX_TERM, high=MAX_TERM)
    except ExpressionError as exc:
        return exc


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
