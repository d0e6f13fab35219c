"""Events as plain data: one codec for every family's named-tuple events.

A family's events are named tuples whose fields are ints, bools, strings or tuples of
them. :class:`EventCodec` turns them into JSON-ready dicts (``{"type": "Sold", ...}``)
and back. The way back reads data from records, which come from strangers: every
problem (not a mapping, an unknown type, a missing or extra field, a value of the wrong
kind, a number or a list too large) raises :class:`~cardshop.RecordError`, and nothing
else escapes.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping, Sequence
from types import UnionType
from typing import Any, NamedTuple

from cardshop.core.errors import RecordError

__all__ = ["MAX_EVENT_INT", "MAX_EVENT_ITEMS", "MAX_EVENT_TEXT", "EventCodec", "GameEnded"]

MAX_EVENT_INT = 2**64
"""Integers in an event's dict form lie strictly between ``-MAX_EVENT_INT`` and it."""

MAX_EVENT_TEXT = 1_000
"""The longest string in an event's dict form."""

MAX_EVENT_ITEMS = 100_000
"""The longest list in an event's dict form."""


class GameEnded(NamedTuple):
    """The game is over: ``termination`` is ``finished`` or ``capped``, with the scores."""

    termination: str
    scores: tuple[int, ...]

    def __str__(self) -> str:
        return f"game {self.termination}; scores {list(self.scores)}"


_Check = Callable[[Any, str], Any]


def _int(value: Any, where: str) -> int:
    if type(value) is not int or not -MAX_EVENT_INT < value < MAX_EVENT_INT:
        raise RecordError(f"{where} must be an integer below 2**64 in size, not {value!r:.60}")
    return value


def _bool(value: Any, where: str) -> bool:
    if type(value) is not bool:
        raise RecordError(f"{where} must be true or false, not {value!r:.60}")
    return value


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_EVENT_TEXT:
        raise RecordError(f"{where} must be a string of at most {MAX_EVENT_TEXT} characters")
    return value


_SCALARS: dict[Any, _Check] = {int: _int, bool: _bool, str: _str}


def _checker(hint: Any, where: str) -> _Check:
    """The check (and conversion from JSON) of one field's values, from its annotation."""
    if hint in _SCALARS:
        return _SCALARS[hint]
    args = typing.get_args(hint)
    if typing.get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = _checker(args[0], where)

        def items(value: Any, at: str) -> tuple[Any, ...]:
            if not isinstance(value, (list, tuple)) or len(value) > MAX_EVENT_ITEMS:
                raise RecordError(f"{at} must be a list of at most {MAX_EVENT_ITEMS} items")
            return tuple(item(x, f"{at}[{i}]") for i, x in enumerate(value))

        return items
    raise TypeError(f"{where}: an event field must be int, bool, str or tuple[X, ...], not {hint}")


def _plain(value: Any) -> Any:
    return [_plain(x) for x in value] if isinstance(value, tuple) else value


class EventCodec:
    """Dict forms of one family's event types (named tuples), by class name.

    ``EventCodec("klunker", (Placed, Sold, ...))``, or ``EventCodec("klunker", Event)``
    with the family's union of its event types (``Event = Placed | Sold | ...``), checks
    the annotations of every field once; :meth:`to_dict` and :meth:`from_dict` are then
    the family's ``Family.event_to_dict`` and ``Family.event_from_dict``.
    """

    __slots__ = ("_types", "family")

    def __init__(self, family: str, types: Sequence[type[Any]] | UnionType) -> None:
        self.family = family
        self._types: dict[str, tuple[type[Any], dict[str, _Check], frozenset[str]]] = {}
        classes = typing.get_args(types) if isinstance(types, UnionType) else types
        for cls in classes:
            hints = typing.get_type_hints(cls)
            checks = {f: _checker(hints[f], f"{cls.__name__}.{f}") for f in cls._fields}
            required = frozenset(f for f in cls._fields if f not in cls._field_defaults)
            self._types[cls.__name__] = (cls, checks, required)

    @property
    def types(self) -> tuple[type[Any], ...]:
        """The event classes, in the order given."""
        return tuple(cls for cls, _, _ in self._types.values())

    def to_dict(self, event: Any) -> dict[str, Any]:
        """Plain JSON-ready data: ``{"type": "Sold", "seat": 1, ...}``."""
        name = type(event).__name__
        entry = self._types.get(name)
        if entry is None or entry[0] is not type(event):
            raise TypeError(f"not a {self.family} event: {event!r:.100}")
        out: dict[str, Any] = {"type": name}
        for key, value in zip(entry[0]._fields, event, strict=True):
            out[key] = _plain(value)
        return out

    def from_dict(self, data: Mapping[str, Any]) -> Any:
        """The event :meth:`to_dict` wrote; any malformed input raises
        :class:`~cardshop.RecordError`."""
        if not isinstance(data, Mapping):
            raise RecordError(f"a {self.family} event is a mapping, not {type(data).__name__}")
        kind = data.get("type")
        entry = self._types.get(kind) if isinstance(kind, str) else None
        if entry is None:
            raise RecordError(f"unknown event type {kind!r:.60} (family {self.family})")
        cls, checks, required = entry
        given = set(data) - {"type"}
        if not required <= given <= set(checks):
            raise RecordError(f"event {cls.__name__} needs the fields {', '.join(cls._fields)}")
        args = {key: checks[key](data[key], f"{cls.__name__}.{key}") for key in given}
        return cls(**args)
