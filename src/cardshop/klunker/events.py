"""What happened: the events that ``Game.apply`` returns.

Events are the omniscient log of a game (a ``Dealt`` event names the cards dealt);
what a seat may see is ``Game.observation(seat)``. Every event is a small named
tuple with a one-line text form and a plain-data form (:func:`event_to_dict`).
"""

from __future__ import annotations

from typing import NamedTuple

from cardshop.core import EventCodec, GameEnded

__all__ = [
    "Bought",
    "Dealt",
    "Declined",
    "Event",
    "GameEnded",
    "Passed",
    "Placed",
    "Reshuffled",
    "RoundEnded",
    "Sold",
    "Stored",
    "Taxed",
    "WindowDone",
    "event_from_dict",
    "event_to_dict",
]


def _cards(cards: tuple[int, ...]) -> str:
    return ", ".join(f"#{c}" for c in cards)


class Placed(NamedTuple):
    """A hand card went into its owner's window. [FILL-1]"""

    seat: int
    kind: str
    card: int

    def __str__(self) -> str:
        return f"seat {self.seat} places {self.kind} (#{self.card}) in the window"


class WindowDone(NamedTuple):
    """A seat finished filling its window. [FILL-1]"""

    seat: int

    def __str__(self) -> str:
        return f"seat {self.seat} is done filling the window"


class Stored(NamedTuple):
    """A hand card went into its owner's safe. [STORE-1]"""

    seat: int
    kind: str
    card: int

    def __str__(self) -> str:
        return f"seat {self.seat} stores {self.kind} (#{self.card}) in the safe"


class Passed(NamedTuple):
    """A seat passed in the store phase and took a purchase card. [STORE-2]"""

    seat: int
    purchase_card: int

    def __str__(self) -> str:
        return f"seat {self.seat} passes and takes purchase card {self.purchase_card}"


class Bought(NamedTuple):
    """A seat bought a whole window into its safe. [BUY-2, BUY-3]

    ``price`` cash cards were paid for another seat's window: ``paid`` names them,
    drawn at random from the buyer's bank and now in the owner's (empty for one's own
    window).
    """

    seat: int
    owner: int
    cards: tuple[int, ...]
    price: int
    paid: tuple[int, ...] = ()

    def __str__(self) -> str:
        whose = "its own window" if self.owner == self.seat else f"seat {self.owner}'s window"
        return (
            f"seat {self.seat} buys {whose} ({len(self.cards)} cards: {_cards(self.cards)}) "
            f"for {self.price}"
        )


class Declined(NamedTuple):
    """A seat with an empty window bought nothing. [BUY-5]"""

    seat: int

    def __str__(self) -> str:
        return f"seat {self.seat} declines to buy"


class Sold(NamedTuple):
    """A complete row left a safe: ``cash`` cards became cash, ``discarded`` did not pay.

    ``rows`` is the number of rows in the safe at the moment of sale, the sold row
    included. [SELL-2..SELL-5]
    """

    seat: int
    kind: str
    rows: int
    payout: int
    cash: tuple[int, ...]
    discarded: tuple[int, ...]

    def __str__(self) -> str:
        return (
            f"seat {self.seat} sells a row of {self.kind} with {self.rows} row(s) in the safe: "
            f"paid {self.payout}, {len(self.discarded)} discarded"
        )


class Taxed(NamedTuple):
    """A seat paid tax cards out of its bank. [END-2]"""

    seat: int
    cards: tuple[int, ...]

    def __str__(self) -> str:
        return f"seat {self.seat} pays {len(self.cards)} cash card(s) in tax"


class Reshuffled(NamedTuple):
    """Discards and deck were shuffled together. [END-3]"""

    deck_size: int

    def __str__(self) -> str:
        return f"discards shuffled into the deck ({self.deck_size} cards)"


class Dealt(NamedTuple):
    """Cards from the deck went to a seat's hand or, at setup, its bank. [SETUP-3/4, END-5]"""

    seat: int
    zone: str
    cards: tuple[int, ...]

    def __str__(self) -> str:
        return f"seat {self.seat} is dealt {len(self.cards)} card(s) to {self.zone}"


class RoundEnded(NamedTuple):
    """A round is over; ``start_player`` starts the next one. [END-1]"""

    round: int
    start_player: int

    def __str__(self) -> str:
        return f"round {self.round} ends; seat {self.start_player} is start player"


Event = (
    Placed
    | WindowDone
    | Stored
    | Passed
    | Bought
    | Declined
    | Sold
    | Taxed
    | Reshuffled
    | Dealt
    | RoundEnded
    | GameEnded
)

CODEC = EventCodec("klunker", Event)
"""The dict forms of this family's events (:class:`cardshop.core.EventCodec`)."""

event_to_dict = CODEC.to_dict
"""Plain JSON-ready data of an event: ``{"type": "...", ...}``."""

event_from_dict = CODEC.from_dict
"""The event :func:`event_to_dict` wrote; malformed data raises :class:`~cardshop.RecordError`."""
