"""What every family's variant model shares: the common keys, checks and JSON Schema.

A family's variant model subclasses :class:`VariantBase`, fixes ``family`` to its own
name with a ``Literal`` and adds its keys; its nested mappings subclass
:class:`Section`. The loader (``cardshop.load_variant``) reads the YAML, resolves
``extends``, picks the model by ``family`` (there is no default family) and turns every
problem, including those of :meth:`VariantBase.semantic_errors`, into a
:class:`~cardshop.VariantError` naming the file, line and key.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Annotated, Any, ClassVar, Self, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    WithJsonSchema,
    field_validator,
    model_serializer,
)
from pydantic.json_schema import models_json_schema

from cardshop.core.errors import SetupError
from cardshop.core.expr import (
    MAX_EXPRESSION_CHARS,
    Expression,
    Name,
    compile_expression,
    describe_names,
)

__all__ = [
    "MAX_DESCRIPTION",
    "MAX_EXTENDS",
    "MAX_GAMES_PER_PLAYER",
    "MAX_PLAYERS",
    "MAX_TITLE",
    "SCHEMA_ID",
    "SLUG_PATTERN",
    "KeyPath",
    "Match",
    "Players",
    "Section",
    "Slug",
    "VariantBase",
    "check_range",
    "expression",
    "variant_schema",
]

MAX_PLAYERS = 12
"""The most seats any variant may have: more than any shopping game is played with."""
MAX_TITLE = 200
MAX_DESCRIPTION = 10_000
MAX_EXTENDS = 4096
MAX_GAMES_PER_PLAYER = 100
"""The most games per player a match may have."""

SCHEMA_ID = "urn:cardshop:schema:variant:1"
"""The ``$id`` of the variant JSON Schema (``cardshop schema``)."""

SLUG_PATTERN = r"^[a-z][a-z0-9-]*$"
Slug = Annotated[str, Field(pattern=SLUG_PATTERN, max_length=40)]
"""A short lower-case name: variant names, card kinds, attribute values."""

KeyPath = tuple[str | int, ...]


def _no_required(schema: dict[str, Any], cls: type) -> None:
    """Nested mappings list no required keys themselves: a variant that extends
    another may give only some of them. The variant's schema requires them for a
    file without ``extends`` (see :func:`_variant_schema`)."""
    schema.pop("required", None)


def _omit_defaults(model: BaseModel, data: Any) -> Any:
    """``data`` (a model's dump) without the keys of ``OMIT_AT_DEFAULT`` that hold
    their default: keys added to a format after variants were recorded leave those
    variants' data, and so their content hash, as it was."""
    omit: frozenset[str] = getattr(type(model), "OMIT_AT_DEFAULT", frozenset())
    if not omit or not isinstance(data, dict):
        return data
    fields = type(model).model_fields
    for key in omit:
        info = fields.get(key)
        if (
            key in data
            and info is not None
            and getattr(model, key) == info.get_default(call_default_factory=True)
        ):
            del data[key]
    return data


def _all_keys(info: SerializationInfo) -> bool:
    """Whether a dump keeps every key (:meth:`VariantBase.to_data` with ``all_keys``)."""
    context = info.context
    return isinstance(context, dict) and bool(context.get("all_keys"))


def _restore(model: BaseModel, state: dict[str, Any]) -> dict[str, Any]:
    """The pickled ``state`` of a variant or section, brought up to its model of now.

    A variant pickled by an earlier release lacks the keys added since, and may hold
    a key's value in its type of then (a number where an expression is held now): such
    a state is validated again, so that the missing keys get their defaults and every
    value its type of now. The values a variant derived and kept are dropped then and
    derived again on demand."""
    values = state.get("__dict__", {})
    fields = type(model).model_fields
    if values.keys() >= fields.keys():
        return state
    data = {key: value for key, value in values.items() if key in fields}
    fresh = type(model).model_validate(data)
    return {**state, "__dict__": dict(fresh.__dict__), "__pydantic_fields_set__": set(data)}


class Section(BaseModel):
    """Base of a variant's nested mappings: strict, closed, immutable.

    ``OMIT_AT_DEFAULT`` names keys that a dump leaves out while they hold their
    default (see :meth:`VariantBase.to_data`).
    """

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        defer_build=True,
        json_schema_extra=_no_required,
    )
    OMIT_AT_DEFAULT: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        return data if _all_keys(info) else _omit_defaults(self, data)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(_restore(self, state))


def expression(
    names: dict[str, Name], *, low: int = 0, high: int = 1_000_000, what: str = "value"
) -> Any:
    """The type of a variant key that holds an integer or an expression
    (:mod:`cardshop.core.expr`) over ``names``, with values in ``low..high``.

    The key reads as an :class:`~cardshop.core.expr.Expression`, checked when the file
    is read (an error names the file, line, column and key); it is written back as the
    integer or text the file gave.
    """
    listed = describe_names(names) if names else "none"
    schema = {
        "anyOf": [
            {"type": "integer", "minimum": low, "maximum": high},
            {"type": "string", "minLength": 1, "maxLength": MAX_EXPRESSION_CHARS},
        ],
        "description": (
            f"An integer {low}..{high}, or an expression giving the {what} "
            f"(docs/variant-language.md). Names: {listed}."
        ),
    }

    def check(value: object) -> Expression:
        if isinstance(value, Expression):
            return value
        return compile_expression(value, names, low=low, high=high)

    return Annotated[
        Expression,
        PlainValidator(check),
        PlainSerializer(lambda e: e.source),
        WithJsonSchema(schema),
    ]


def _variant_schema(schema: dict[str, Any], cls: type) -> None:
    """A variant model's JSON Schema as editors use it.

    A file with ``extends`` needs only its ``name``: the rest may come from the
    variant it extends. A file without ``extends`` must give every required key,
    nested ones included.
    """
    required = schema.pop("required", [])
    nested: dict[str, Any] = {}
    fields = getattr(cls, "model_fields", {})
    for name, info in fields.items():
        for candidate in (info.annotation, *get_args(info.annotation)):
            if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                keys = [k for k, f in candidate.model_fields.items() if f.is_required()]
                if keys:
                    nested[name] = {"required": keys}
    rest = dict(schema)
    schema.clear()
    schema.update(
        {
            **rest,
            "required": ["name"],
            "if": {"required": ["extends"], "properties": {"extends": {"type": "string"}}},
            "then": {},
            "else": {"required": required, "properties": nested},
        }
    )


class Players(Section):
    """Allowed player counts, inclusive."""

    min: Annotated[int, Field(ge=1, le=MAX_PLAYERS)] = Field(description="Fewest players.")
    max: Annotated[int, Field(ge=1, le=MAX_PLAYERS)] = Field(
        description=(
            f"Most players, at most {MAX_PLAYERS}: every seat adds to the tables and "
            "observations an engine builds."
        )
    )


class Match(Section):
    """A match (series) of several games with summed scores (Klunker: MATCH-1)."""

    games_per_player: Annotated[int, Field(gt=0, le=MAX_GAMES_PER_PLAYER)] = Field(
        1,
        description=(
            "The match has players x games_per_player games; game i has seat i mod players "
            "as first start player."
        ),
    )


class VariantBase(BaseModel):
    """The keys every variant has, whatever its family.

    ``title`` and ``description`` describe this file only: they are never inherited
    through ``extends``, and a file that extends another gives its own ``name``.
    ``match``, if set, makes every game of the variant a match (a series of games,
    :class:`cardshop.core.series.Series`), whatever its family.
    """

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        defer_build=True,
        json_schema_extra=_variant_schema,
    )

    family: str = Field(description="The family of games this variant belongs to.")
    name: Slug = Field(description="Short name, used to load the variant and in records.")
    title: str = Field(
        "", max_length=MAX_TITLE, description="Human title (not taken over by extends)."
    )
    description: str = Field(
        "",
        max_length=MAX_DESCRIPTION,
        description="Free text for people (not taken over by extends).",
    )
    extends: Annotated[str, Field(min_length=1, max_length=MAX_EXTENDS)] | None = Field(
        None,
        description=(
            "Another variant whose keys this file overrides: a built-in name, or a path "
            "relative to this file to a file inside its folder (docs/security.md). "
            "Mappings merge key by key and null deletes a key; values replace, and so "
            "do lists, unless edited with $append, $prepend, $remove, $merge or $replace "
            "(docs/cookbook/extends.md); title and description are not taken over, and "
            "a file that extends another gives its own name."
        ),
    )
    players: Players
    match: Match | None = Field(
        None,
        description=(
            "If set, the variant is played as a match of several games with summed "
            "scores (cardshop.new_game returns the whole match as one game; MATCH-1)."
        ),
    )

    chance: int = Field(
        1,
        json_schema_extra={"enum": [1, 2]},
        description=(
            "The chance model by which a seeded game draws its shuffles and draws: 1, a "
            "Mersenne Twister seeded for each chance event; 2, a stream of BLAKE2b-512 "
            "digests for each event, much cheaper where a game draws many small events "
            "(docs/chance.md). The same seed plays other games under each."
        ),
    )

    OMIT_AT_DEFAULT: ClassVar[frozenset[str]] = frozenset()
    """Keys that :meth:`to_data` leaves out while they hold their default: keys added
    to a family's format after its variants were recorded, so that a recorded
    variant's data and content hash stay what they were (the core's ``chance`` is
    left out at its default, 1, whatever the family)."""

    CHANCE_MODELS: ClassVar[frozenset[int]] = frozenset({1})
    """The chance models the family's engine draws by (the values of ``chance`` it
    takes): an engine that passes its variant's ``chance`` to
    :func:`~cardshop.core.chance_source` at every draw adds 2."""

    LIST_KEYS: ClassVar[Mapping[str, str]] = {}
    """How ``extends`` matches the items of a list of mappings with the base's: by the
    item key named here, per list (a dotted key path such as ``"cards"``); the items
    of a list not named here are matched by their whole value."""

    @field_validator("chance")
    @classmethod
    def _chance_model(cls, value: int) -> int:
        if value not in (1, 2):
            raise ValueError(f"{value} is not a chance model (the models: 1, 2)")
        return value

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        if _all_keys(info):
            return data
        if isinstance(data, dict) and data.get("chance") == 1:
            del data["chance"]
        return _omit_defaults(self, data)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(_restore(self, state))

    @classmethod
    def limits(cls) -> dict[str, int]:
        """The bounds on what a variant of this model holds, by name (docs/security.md):
        those the core sets on every variant (players, games per player, the lengths
        of ``title``, ``description`` and ``extends``). A family's model adds its own
        to ``super().limits()``."""
        return {
            "players": MAX_PLAYERS,
            "games_per_player": MAX_GAMES_PER_PLAYER,
            "title": MAX_TITLE,
            "description": MAX_DESCRIPTION,
            "extends": MAX_EXTENDS,
        }

    def semantic_errors(self) -> list[tuple[KeyPath, str]]:
        """Problems a schema alone cannot see, as (key path, reason).

        A family that overrides this calls ``super().semantic_errors()`` first.
        """
        errors: list[tuple[KeyPath, str]] = []
        if self.players.max < self.players.min:
            errors.append((("players", "max"), "max is smaller than min"))
        models = type(self).CHANCE_MODELS
        if self.chance not in models:
            takes = " and ".join(str(m) for m in sorted(models))
            errors.append(
                (
                    ("chance",),
                    f"the {self.family} family draws its chance by model {takes} only, not "
                    f"{self.chance}",
                )
            )
        return errors

    def semantic_warnings(self) -> list[tuple[KeyPath, str]]:
        """Settings that cannot matter as the variant stands, as (key path, reason):
        a step with nothing to do, a bonus no card can reach, a term of weight 0.
        The variant plays; ``validate`` and ``audit`` show them, ``--strict`` makes
        them errors. A family that overrides this calls ``super()`` first."""
        return []

    @classmethod
    def of_family(cls, variant: object) -> Self:
        """``variant`` if it is a variant of this class (a family's variant model); a
        :class:`~cardshop.SetupError` that names both families otherwise. A family's
        ``new_game``, bots and samplers check the variant they are given so."""
        if isinstance(variant, cls):
            return variant
        names = get_args(cls.model_fields["family"].annotation)  # Literal["klunker"]
        family = repr(names[0]) if len(names) == 1 else cls.__name__
        if isinstance(variant, VariantBase):
            raise SetupError(
                f"{variant.name!r} is a variant of the {variant.family!r} family, not of {family}"
            )
        raise SetupError(f"not a variant of the {family} family: {type(variant).__name__}")

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy of the variant, with ``update``'s fields changed.

        Unlike pydantic's own copy, it drops what this variant computed from its fields
        and keeps (its compiled rules and content hash): the copy computes them again
        from its own fields. Like pydantic's, it does not validate ``update``; for a
        checked variant write a file with ``extends:`` or use
        :func:`cardshop.variant_from_data`.
        """
        copied = super().model_copy(update=update, deep=deep)
        if update:
            fields = type(self).model_fields
            for derived in [key for key in copied.__dict__ if key not in fields]:
                del copied.__dict__[derived]
        return copied

    def to_data(self, *, all_keys: bool = False) -> dict[str, Any]:
        """The resolved variant as plain data (``extends`` dropped: already applied).

        Keys of ``OMIT_AT_DEFAULT`` that hold their default are left out (the data of a
        recorded variant stays as it was); ``all_keys`` keeps them, for a caller that
        looks up or sets any key (a tuning knob)."""
        context = {"all_keys": True} if all_keys else None
        return self.model_dump(mode="json", exclude={"extends"}, context=context)

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 of the resolved variant's JSON (:meth:`to_data`, keys in model order).

        It changes whenever the rules do. A variant is frozen, so it is worked out once
        (a copy with changes drops it, as it drops the compiled rules).
        """
        text = json.dumps(self.to_data(), separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def check_range(what: str, low: int, high: int, floor: int = 1, ceiling: int | None = None) -> None:
    """Check a range of counts a caller asks for (the ``min_``/``max_`` options of a
    family's strategy of variants, say): ``floor <= low <= high``, and ``high <=
    ceiling`` if one is given; a :class:`ValueError` naming ``what`` otherwise
    (``players: need 1 <= min <= max <= 5, got 4..2``)."""
    top = "" if ceiling is None else f" <= {ceiling}"
    if low < floor or high < low or (ceiling is not None and high > ceiling):
        raise ValueError(f"{what}: need {floor} <= min <= max{top}, got {low}..{high}")


def variant_schema(models: Sequence[type[VariantBase]]) -> dict[str, Any]:
    """One JSON Schema (draft-07, as editors' YAML extensions use) for the variant
    files of every family in ``models``: a file is valid if one family's model
    accepts it. A file with ``extends`` may leave out ``family``."""
    _, defs = models_json_schema([(m, "validation") for m in models])
    refs = [{"$ref": f"#/$defs/{m.__name__}"} for m in models]
    schema: dict[str, Any] = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "cardshop variant",
        "description": "A variant file of any registered family, picked by its family key.",
    }
    schema.update(refs[0] if len(refs) == 1 else {"anyOf": refs})
    schema["$defs"] = defs.get("$defs", {})
    return schema
