"""What happened at the table: the events that ``WuhltischGame.apply_joint`` returns.

Events are the omniscient log (a ``Looked`` event names the card looked at); what a
seat may see is ``game.observation(seat)``. Each event is a small named tuple with a
one-line text form and a plain-data form (:func:`event_to_dict`). Cards are named by
id; ``WuhltischRules.describe`` gives a card in words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = [
    "Dropped",
    "FoundLostProperty",
    "GameEnded",
    "HandsOff",
    "Kept",
    "LaidDown",
    "ListTurned",
    "Looked",
    "ReturnedToHeap",
    "RoundScored",
    "RoundStarted",
    "SetScored",
    "Swapped",
    "Threw",
    "WuhltischEvent",
    "event_from_dict",
    "event_to_dict",
]


def _cards(cards: tuple[int, ...]) -> str:
    return ", ".join(f"#{c}" for c in cards) or "none"


class RoundStarted(NamedTuple):
    """Heap shuffled, lists dealt. [WT-SETUP-2]"""

    round: int

    def __str__(self) -> str:
        return f"round {self.round} starts: the heap is shuffled and the lists are dealt"


class ListTurned(NamedTuple):
    """A seat turned its next shopping list face up. [WT-SETUP-2, WT-TICK-6]"""

    seat: int
    card: int

    def __str__(self) -> str:
        return f"seat {self.seat} turns up list #{self.card}"


class Looked(NamedTuple):
    """A seat picked up a card from the heap and looks at it. [WT-TICK-1]"""

    seat: int
    card: int

    def __str__(self) -> str:
        return f"seat {self.seat} looks at #{self.card}"


class FoundLostProperty(NamedTuple):
    """A useful lost-property card was laid out in front of its finder. [WT-TICK-2]"""

    seat: int
    card: int
    value: int

    def __str__(self) -> str:
        return f"seat {self.seat} finds lost property #{self.card} worth {self.value}"


class Kept(NamedTuple):
    """The shirt in view went into the seat's free hand. [WT-TICK-4]"""

    seat: int
    card: int

    def __str__(self) -> str:
        return f"seat {self.seat} keeps #{self.card}"


class Swapped(NamedTuple):
    """A held shirt went back to the heap and the shirt in view was kept. [WT-TICK-4]"""

    seat: int
    dropped: int
    kept: int

    def __str__(self) -> str:
        return f"seat {self.seat} throws back #{self.dropped} and keeps #{self.kept}"


class Threw(NamedTuple):
    """A card went back into the heap: the shirt in view, or useless lost property. [WT-TICK-3]"""

    seat: int
    card: int

    def __str__(self) -> str:
        return f"seat {self.seat} throws #{self.card} back into the heap"


class Dropped(NamedTuple):
    """A held shirt went back into the heap. [WT-TICK-5]"""

    seat: int
    card: int

    def __str__(self) -> str:
        return f"seat {self.seat} drops held shirt #{self.card} back into the heap"


class LaidDown(NamedTuple):
    """A list and its shirts laid down as one set; ``at_end``: at the round's end.

    [WT-TICK-6, WT-END-2]
    """

    seat: int
    list_card: int
    shirts: tuple[int, ...]
    at_end: bool

    def __str__(self) -> str:
        when = " at the end of the round" if self.at_end else ""
        return f"seat {self.seat} lays down list #{self.list_card} with {_cards(self.shirts)}{when}"


class HandsOff(NamedTuple):
    """The round was ended by the seats that laid down their last set this tick. [WT-END-1]"""

    round: int
    callers: tuple[int, ...]

    def __str__(self) -> str:
        who = ", ".join(f"seat {s}" for s in self.callers)
        return f"Hands off! {who} ended round {self.round}"


class ReturnedToHeap(NamedTuple):
    """At the round's end a seat threw back the cards it still had in hand or view. [WT-END-2]"""

    seat: int
    cards: tuple[int, ...]

    def __str__(self) -> str:
        return f"seat {self.seat} throws back {_cards(self.cards)}"


class SetScored(NamedTuple):
    """One set, revealed and scored. [WT-SCORE-1..3]"""

    seat: int
    list_card: int
    shirts: tuple[int, ...]
    matches: int
    price: int
    score: int

    def __str__(self) -> str:
        return (
            f"seat {self.seat}: list #{self.list_card} with {_cards(self.shirts)}: "
            f"{self.matches} matches, {self.price} euro, scores {self.score}"
        )


class RoundScored(NamedTuple):
    """A round's scores: sets plus lost property, caller rule applied. [WT-SCORE-4/5, WT-CAP-1]"""

    round: int
    scores: tuple[int, ...]
    callers: tuple[int, ...]
    capped: bool
    ticks: int

    def __str__(self) -> str:
        how = "capped" if self.capped else f"called by {list(self.callers)}"
        return f"round {self.round} ({how}, {self.ticks} ticks) scores {list(self.scores)}"


class GameEnded(NamedTuple):
    """The game is over. [WT-END-3]"""

    termination: str
    scores: tuple[int, ...]

    def __str__(self) -> str:
        return f"game {self.termination}; scores {list(self.scores)}"


WuhltischEvent = (
    RoundStarted
    | ListTurned
    | Looked
    | FoundLostProperty
    | Kept
    | Swapped
    | Threw
    | Dropped
    | LaidDown
    | HandsOff
    | ReturnedToHeap
    | SetScored
    | RoundScored
    | GameEnded
)

_TYPES: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (
        RoundStarted,
        ListTurned,
        Looked,
        FoundLostProperty,
        Kept,
        Swapped,
        Threw,
        Dropped,
        LaidDown,
        HandsOff,
        ReturnedToHeap,
        SetScored,
        RoundScored,
        GameEnded,
    )
}


def event_to_dict(event: Any) -> dict[str, Any]:
    """Plain JSON-ready data: ``{"type": "Kept", "seat": 1, "card": 17}``."""
    name = type(event).__name__
    if _TYPES.get(name) is not type(event):
        raise TypeError(f"not a Wühltisch event: {event!r}")
    out: dict[str, Any] = {"type": name}
    for key, value in event._asdict().items():
        out[key] = list(value) if isinstance(value, tuple) else value
    return out


def event_from_dict(data: Mapping[str, Any]) -> WuhltischEvent:
    """Inverse of :func:`event_to_dict`; a malformed mapping raises ``ValueError``."""
    fields = dict(data)
    cls = _TYPES.get(fields.pop("type", None))
    if cls is None:
        raise ValueError(f"unknown Wühltisch event type in {dict(data)!r}")
    if set(fields) != set(cls._fields):
        raise ValueError(f"{cls.__name__} needs the fields {', '.join(cls._fields)}")
    args: dict[str, Any] = {}
    for key, value in fields.items():
        if isinstance(value, list):
            if not all(type(x) is int for x in value):
                raise ValueError(f"{cls.__name__}.{key} must list integers")
            value = tuple(value)
        elif key == "termination":
            if not isinstance(value, str):
                raise ValueError(f"{cls.__name__}.{key} must be a string")
        elif key in ("at_end", "capped"):
            if type(value) is not bool:
                raise ValueError(f"{cls.__name__}.{key} must be true or false")
        elif type(value) is not int:
            raise ValueError(f"{cls.__name__}.{key} must be an integer")
        args[key] = value
    event: WuhltischEvent = cls(**args)
    return event
