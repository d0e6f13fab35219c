"""Reading positions: the one reader every family's ``from_position`` starts with.

A position (``docs/positions.md``) is data from anywhere: a mapping, or YAML or JSON
text. :func:`position_data` bounds and parses it, :func:`read_position` validates it
against the family's pydantic model of a position, and :func:`position_variant` finds
the variant it is a position of: the caller's, else a registered variant's name or a
variant embedded under ``variant``. A position never makes cardshop open a file: a
path is the caller's to choose, with ``variant=``. :func:`position_setup` does all
three and counts the players (:func:`position_players`): how every family's reader
starts. :func:`position_kind` reads the kinds of cards a position names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sized
from typing import Annotated, Any, Protocol, TypeVar, cast

from pydantic import AfterValidator, BaseModel, Field, ValidationError
from pydantic_core import PydanticCustomError

from cardshop.core.chance import SEED_LIMIT
from cardshop.core.errors import (
    PositionError,
    SetupError,
    VariantError,
    format_path,
    format_value,
)
from cardshop.core.loader import builtin_variants, load_variant, variant_from_data
from cardshop.core.source import load_yaml
from cardshop.core.variant import VariantBase

__all__ = [
    "MAX_COUNTER",
    "MAX_POSITION_TEXT",
    "PositionCounter",
    "PositionSeed",
    "PositionVariant",
    "position_data",
    "position_kind",
    "position_players",
    "position_setup",
    "position_variant",
    "read_position",
]

MAX_POSITION_TEXT = 500_000
"""The longest position text (characters) any family reads."""

PositionVariant = Annotated[str, Field(max_length=200)] | dict[str, Any] | None
"""The type of a position's ``variant`` key: a registered variant's name, a variant's
mapping embedded in the position, or nothing (the caller passes one)."""

MAX_COUNTER = 2**62
"""The largest running count (chance events drawn, a statistic) a position or a game
JSON carries: far beyond any game, and an int of a machine word."""


def _seed(value: int) -> int:
    if -SEED_LIMIT < value < SEED_LIMIT:
        return value
    raise PydanticCustomError(
        "seed_range",
        "must be a seed, an int with -2**64 < seed < 2**64, not {value}",
        {"value": format_value(value)},
    )


def _counter(value: int) -> int:
    if 0 <= value <= MAX_COUNTER:
        return value
    raise PydanticCustomError(
        "counter_range",
        "must be a count, an int from 0 to 2**62, not {value}",
        {"value": format_value(value)},
    )


PositionSeed = Annotated[int, AfterValidator(_seed)]
"""The type of a position's ``seed`` key (and of a game JSON's): a seed as ``new_game``
takes one, ``-SEED_LIMIT < seed < SEED_LIMIT``. Out of range, :func:`read_position`
names the key and the range; in a strict model, a bool is refused."""

PositionCounter = Annotated[int, AfterValidator(_counter)]
"""The type of a running count a position carries (the chance events drawn so far, a
statistic): ``0 .. MAX_COUNTER``, named with its key and range when out of it."""

M = TypeVar("M", bound=BaseModel)
V = TypeVar("V", bound=VariantBase)


def position_data(position: object) -> dict[str, Any]:
    """A position's mapping: ``position`` itself, or its YAML or JSON text parsed.

    Text is bounded (:data:`MAX_POSITION_TEXT`) before it is parsed; everything wrong
    raises :class:`~cardshop.PositionError`.
    """
    if isinstance(position, bytes):
        try:
            position = position.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PositionError(f"position is not UTF-8 text: {exc}") from None
    if isinstance(position, str):
        if len(position) > MAX_POSITION_TEXT:
            raise PositionError(
                f"a position is at most {MAX_POSITION_TEXT} characters, not {len(position)}"
            )
        try:
            data: Any = load_yaml(position, "<position>").data
        except VariantError as exc:
            loc = exc.location
            where = f" at line {loc.line}, column {loc.column}" if loc else ""
            raise PositionError(f"position is not valid YAML/JSON{where}: {exc.reason}") from None
    elif isinstance(position, Mapping):
        data = position
    else:
        raise PositionError(
            f"a position is a mapping or YAML/JSON text, not {type(position).__name__}"
        )
    if not isinstance(data, Mapping):
        raise PositionError("a position is a mapping of keys to values")
    return dict(data)


def read_position(position: object, model: type[M]) -> M:
    """A position parsed (:func:`position_data`) and validated by a family's model.

    The first problem raises :class:`~cardshop.PositionError` naming its key path.
    """
    data = position_data(position)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        path = tuple(p for p in err["loc"] if isinstance(p, (str, int)))
        msg = f"unknown key {path[-1]!r}" if err["type"] == "extra_forbidden" else err["msg"]
        raise PositionError(f"invalid position at {format_path(path)}: {msg}") from None


def position_variant(written: object, given: object, model: type[V]) -> V:
    """The variant a position is of, as the family's variant model ``model``.

    ``given`` is the caller's choice (a loaded variant, a name or a path) and wins;
    else ``written``, the position's own ``variant`` key, must be a registered
    variant's name or an embedded mapping. Raises :class:`~cardshop.PositionError`.
    """
    title = model.model_fields["family"].default
    try:
        if given is not None:
            variant = load_variant(given)  # type: ignore[arg-type]
        elif written is None:
            raise PositionError("the position names no variant; pass one or set 'variant'")
        elif isinstance(written, Mapping):
            variant = variant_from_data(dict(written), source="<position variant>")
        elif isinstance(written, str):
            names = builtin_variants()
            if written not in names:
                raise PositionError(
                    f"variant {written[:60]!r} is not a known variant ({', '.join(names)}); "
                    "a position never makes cardshop open a file: pass yours explicitly "
                    "with Game.from_position(position, variant=PATH), or embed the "
                    "variant's mapping under 'variant'"
                )
            variant = load_variant(written)
        else:
            raise PositionError(f"a position's variant is a name or a mapping, not {written!r:.60}")
    except (VariantError, SetupError) as exc:
        raise PositionError(f"the position's variant does not load: {exc}") from None
    if not isinstance(variant, model):
        raise PositionError(
            f"variant {variant.name!r} is a {variant.family} variant, not a {title} one"
        )
    return variant


def position_players(seats: int, stated: int | None, variant: VariantBase) -> int:
    """The number of players of a position that lists ``seats`` seats and may state
    ``players``: they must agree, and lie in the variant's range. Raises
    :class:`~cardshop.PositionError`."""
    if stated is not None and stated != seats:
        raise PositionError(f"players is {stated} but {seats} seats are listed")
    low, high = variant.players.min, variant.players.max
    if not low <= seats <= high:
        raise PositionError(f"{seats} players is outside {variant.name}'s range {low}..{high}")
    return seats


class _PositionKeys(Protocol):
    """The keys of a family's model of a position that :func:`position_setup` reads."""

    @property
    def variant(self) -> object: ...

    @property
    def players(self) -> int | None: ...

    @property
    def seats(self) -> Sized: ...


def position_setup(
    position: object, model: type[M], given: object, variant_model: type[V]
) -> tuple[M, V, int]:
    """A position read by the family's ``model`` (:func:`read_position`), the variant
    it is of (:func:`position_variant`: ``given``, else the position's own ``variant``
    key) and its number of players (:func:`position_players`), as every family's
    ``from_position`` starts.

    ``model`` has the keys ``variant`` (:data:`PositionVariant`), ``players`` (an int
    or None) and ``seats`` (one entry per seat). Raises :class:`~cardshop.PositionError`.
    """
    pos = read_position(position, model)
    keys = cast(_PositionKeys, pos)
    variant = position_variant(keys.variant, given, variant_model)
    return pos, variant, position_players(len(keys.seats), keys.players, variant)


def position_kind(kinds: Mapping[str, int], name: str, where: str, what: str = "kind") -> int:
    """The number of the kind ``name`` that a position writes at ``where`` (a key path),
    looked up in ``kinds`` (name to number, in the variant's order); a
    :class:`~cardshop.PositionError` naming ``what`` (``"card kind"``) and the kinds
    there are otherwise."""
    number = kinds.get(name)
    if number is None:
        raise PositionError(f"{where}: unknown {what} {name!r}; kinds are {', '.join(kinds)}")
    return number
