"""What happened at the table: the events that ``WuhltischGame.apply_joint`` returns.

Events are the omniscient log (a ``Looked`` event names the card looked at); what a
seat may see is ``game.observation(seat)``. Each event is a small named tuple with a
one-line text form and a plain-data form (:func:`event_to_dict`). Cards are named by
id; ``WuhltischRules.describe`` gives a card in words, and :func:`describe_event` an
event with its cards in words (for ``cardshop demo`` and ``replay --moves``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, NamedTuple

from cardshop.core import EventCodec, GameEnded

if TYPE_CHECKING:
    from cardshop.core import VariantBase

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
    "describe_event",
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

CODEC = EventCodec("wuhltisch", WuhltischEvent)
"""The dict forms of this family's events (:class:`cardshop.core.EventCodec`)."""

event_to_dict = CODEC.to_dict
"""Plain JSON-ready data of an event: ``{"type": "...", ...}``."""

event_from_dict = CODEC.from_dict
"""The event :func:`event_to_dict` wrote; malformed data raises :class:`~cardshop.RecordError`."""


_CARD = re.compile(r"#(\d+)")


def _hidden(event: Any) -> str | None:
    """``event`` as the other seats know it, if it involves a seat's private cards
    (the card it looks at, the shirts it holds, its lists and sets before scoring)."""
    seat = f"seat {event.seat}"
    if isinstance(event, Looked):
        return f"{seat} looks at a card"
    if isinstance(event, Kept):
        return f"{seat} keeps the card in view"
    if isinstance(event, Swapped):
        return f"{seat} throws back a held shirt and keeps the card in view"
    if isinstance(event, Threw):
        return f"{seat} throws the card in view back into the heap"
    if isinstance(event, Dropped):
        return f"{seat} drops a held shirt back into the heap"
    if isinstance(event, LaidDown):
        when = " at the round's end" if event.at_end else ""
        return f"{seat} lays down a set of {len(event.shirts)} shirts face down{when}"
    if isinstance(event, ReturnedToHeap):
        return f"{seat} throws back {len(event.cards)} card(s)"
    return None


def describe_event(variant: VariantBase, event: Any, seat: int | None) -> str:
    """An event in words as ``seat`` may know it (``None``: everything).

    Card numbers are followed by the card in words (``seat 0 looks at #59
    (dots/blue/s/long@20)``); another seat's private cards are left out (``seat 1
    looks at a card``), as the rulings' "What each seat may know" says.
    """
    from cardshop.wuhltisch.variant import as_wuhltisch

    if seat is not None and getattr(event, "seat", seat) != seat:
        hidden = _hidden(event)
        if hidden is not None:
            return hidden
    names = as_wuhltisch(variant).rules.card_name

    def named(match: re.Match[str]) -> str:
        card = int(match.group(1))
        if card >= len(names):
            return match.group(0)
        return f"#{card} ({names[card].removeprefix('list:')})"

    return _CARD.sub(named, str(event))
