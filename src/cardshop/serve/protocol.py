"""The messages of ``cardshop serve``: what clients send, checked at the edge.

Every message is one JSON object in a WebSocket text frame, with a ``type`` (the
protocol is written out in docs/serve.md). The client's messages are validated here
(pydantic) and nothing else in the server reads a client's raw data; a message that
does not validate is answered with an ``error`` message and changes nothing.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from cardshop.core.errors import CardshopError

__all__ = [
    "MAX_ACTION_TEXT",
    "MAX_MESSAGE_BYTES",
    "MAX_PARTS",
    "MAX_PART_OPTION",
    "PROTOCOL",
    "Act",
    "Claim",
    "ClientMessage",
    "Hello",
    "Legal",
    "Parts",
    "Ping",
    "ProtocolError",
    "TableSpec",
    "error",
    "loads",
    "parse_message",
]

PROTOCOL = "cardshop-serve/1"
"""The protocol's name and version, sent in the ``welcome`` message."""
MAX_MESSAGE_BYTES = 16_384
"""The longest client message the server reads (actions are short)."""
MAX_ACTION_TEXT = 1_000
MAX_TOKEN = 200
MAX_PARTS = 64
"""The most parts a ``parts`` message may name (an action of a factored space has a
few dozen at most)."""
MAX_PART_OPTION = 9_999
"""The largest option number a ``parts`` message may name."""


class ProtocolError(CardshopError, ValueError):
    """A client's message or request the server refuses; nothing was changed.

    ``code`` is a short word clients may act on (``bad-message``, ``bad-token``,
    ``not-your-turn``, ``illegal``, ``too-fast``, ``too-big``, ``stale``, ...).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class _Message(BaseModel):
    # Strict: a field takes only its own JSON type (no "0" or true or 0.0 for a step).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Hello(_Message):
    """The first message: join the table as the seat the token was given for, or
    watch (no token)."""

    type: Literal["hello"]
    token: Annotated[str, Field(min_length=1, max_length=MAX_TOKEN)] | None = None


class Act(_Message):
    """The seat's action, as its text (``look``, ``window shoes``). ``step``, if given,
    is the step the client saw: an action sent for an older state is refused."""

    type: Literal["act"]
    action: Annotated[str, Field(min_length=1, max_length=MAX_ACTION_TEXT)]
    step: Annotated[int, Field(ge=0)] | None = None


class Legal(_Message):
    """Ask for the seat's legal actions that start with ``prefix`` (long lists)."""

    type: Literal["legal"]
    prefix: Annotated[str, Field(max_length=MAX_ACTION_TEXT)] = ""


class Parts(_Message):
    """Ask for the next part of an action chosen part by part (a family with a factored
    action space): ``chosen`` are the option numbers picked so far, each at the step
    the server named for it; ``step``, if given, is the step the client saw (an older
    one is refused as ``stale``)."""

    type: Literal["parts"]
    chosen: Annotated[
        list[Annotated[int, Field(ge=0, le=MAX_PART_OPTION)]], Field(max_length=MAX_PARTS)
    ] = []
    step: Annotated[int, Field(ge=0)] | None = None


class Ping(_Message):
    type: Literal["ping"]


AnyMessage = Hello | Act | Legal | Parts | Ping
ClientMessage = Annotated[AnyMessage, Field(discriminator="type")]
_CLIENT: TypeAdapter[AnyMessage] = TypeAdapter(ClientMessage)


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(text: str | bytes) -> Any:
    """JSON text as data, as the standard has it: Python's ``NaN`` and ``Infinity``
    are refused (:class:`ValueError`)."""
    return json.loads(text, parse_constant=_not_json)


def parse_message(text: str | bytes | None) -> AnyMessage:
    """One client message from a frame's text; :class:`ProtocolError` otherwise."""
    if not isinstance(text, str):
        raise ProtocolError("bad-message", "messages are JSON text frames, not binary")
    if len(text) > MAX_MESSAGE_BYTES:
        raise ProtocolError(
            "too-big", f"a message is at most {MAX_MESSAGE_BYTES} bytes, not {len(text)}"
        )
    try:
        data = loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError("bad-message", "a message must be a JSON object") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad-message", "a message must be a JSON object")
    try:
        return _CLIENT.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "message"
        raise ProtocolError(
            "bad-message", f"message field {where[:60]!r}: {first['msg'][:200]}"
        ) from None


def error(exc: ProtocolError | CardshopError) -> dict[str, Any]:
    """The ``error`` message for a refused request."""
    code = exc.code if isinstance(exc, ProtocolError) else "illegal"
    return {"type": "error", "code": code, "message": str(exc)[:500]}


SEAT_KIND = Annotated[str, Field(min_length=1, max_length=100)]


class TableSpec(BaseModel):
    """A request to open a table (``POST /api/tables``).

    ``seats`` names each seat's player: ``human`` for a person, or a bot's name
    (``random``, ``greedy``, ``ismcts:200``). ``variant`` is a variant the server offers
    (``GET /api/variants``), or ``variant_yaml`` a variant's YAML text when the server
    takes uploads. ``ticks_per_second`` paces a simultaneous game; ``move_timer``
    (seconds, none by default) bounds a person's turn in a turn-based one; ``bot_delay``
    (seconds) is how long a bot waits before its turn, so that people can follow.
    Strict, as the messages: a field takes only its own JSON type (a whole number is
    a number of seconds too).
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    variant: Annotated[str, Field(max_length=100)] | None = None
    variant_yaml: Annotated[str, Field(max_length=200_000)] | None = None
    players: Annotated[int, Field(ge=1, le=16)] | None = None
    seats: Annotated[list[SEAT_KIND], Field(min_length=1, max_length=16)] | None = None
    seed: Annotated[int, Field(ge=0, lt=2**63)] | None = None
    first_player: Annotated[int, Field(ge=0, le=15)] | None = None
    ticks_per_second: Annotated[float, Field(gt=0, le=50)] = 1.0
    move_timer: Annotated[float, Field(gt=0, le=86_400)] | None = None
    bot_delay: Annotated[float, Field(ge=0, le=60)] = 0.6
    names: Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=16)] = []


class Claim(BaseModel):
    """A request for a person's seat (``POST /api/tables/{id}/claim``)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    seat: Annotated[int, Field(ge=0, le=15)]
    name: Annotated[str, Field(max_length=200)] = ""
