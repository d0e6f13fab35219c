"""What happened in a Reglamentacja game: the events that ``apply`` returns.

Events are the omniscient log (a ``StampsDrawn`` event names the stamps drawn);
what a seat may see is ``game.observation(seat)``. Stamps appear as kind names
with their ids, shopping cards and visits by name. Seats are numbers; the
speculator's pawn is written ``S``.
"""

from __future__ import annotations

from typing import NamedTuple

from cardshop.core import EventCodec, GameEnded

__all__ = [
    "Accepted",
    "Bought",
    "Event",
    "FinalTurnBegan",
    "GameEnded",
    "HandLimited",
    "OfferTurnPassed",
    "Offered",
    "QueueFormed",
    "Rejected",
    "Reshuffled",
    "RowDealt",
    "RowRefilled",
    "ShopPassed",
    "Speculated",
    "SpeculatorBought",
    "StampsDrawn",
    "TopPassed",
    "TopSpun",
    "TopStopped",
    "TurnBegan",
    "VisitDrawn",
    "event_from_dict",
    "event_to_dict",
]


def _list(items: tuple[str, ...]) -> str:
    return ", ".join(items) if items else "nothing"


class RowDealt(NamedTuple):
    """The shopping cards laid out in the row at setup, position 1 first. [RG-SETUP-1]"""

    cards: tuple[str, ...]

    def __str__(self) -> str:
        return f"the row is laid out: {_list(self.cards)}"


class VisitDrawn(NamedTuple):
    """A player drew his secret visit card. [RG-SETUP-3]"""

    seat: int
    visit: str

    def __str__(self) -> str:
        return f"seat {self.seat} draws a visit card ({self.visit})"


class QueueFormed(NamedTuple):
    """The queue at setup, head first (-1 is the speculator); ``top`` is the first active."""

    queue: tuple[int, ...]
    top: int

    def __str__(self) -> str:
        q = " ".join("S" if p < 0 else str(p) for p in self.queue)
        return f"the queue is {q}; seat {self.top} gets the spinning top"


class TurnBegan(NamedTuple):
    """A new turn: ``active`` holds the spinning top. [RG-TURN-1]"""

    turn: int
    active: int

    def __str__(self) -> str:
        return f"turn {self.turn}: seat {self.active} holds the top"


class StampsDrawn(NamedTuple):
    """Stamps from the stack went to a hand (``why``: deal, allocation, shop, ...)."""

    seat: int
    why: str
    kinds: tuple[str, ...]
    stamps: tuple[int, ...]

    def __str__(self) -> str:
        return f"seat {self.seat} draws {len(self.stamps)} stamp(s) ({self.why})"


class Reshuffled(NamedTuple):
    """The discarded stamps were shuffled into a new stack. [RG-STAMP-2]"""

    stack_size: int

    def __str__(self) -> str:
        return f"the discarded stamps are shuffled into a new stack ({self.stack_size})"


class TopSpun(NamedTuple):
    """The top spins; how long it will spin is nobody's knowledge. [RG-TRADE-1]"""

    seat: int

    def __str__(self) -> str:
        return f"seat {self.seat} spins the top"


class Offered(NamedTuple):
    """An offer: ``seat`` gives ``give`` for ``take`` (and places if ``place``)."""

    seat: int
    target: int
    give: tuple[str, ...]
    take: tuple[str, ...]
    place: bool

    def __str__(self) -> str:
        text = f"seat {self.seat} offers seat {self.target}: {_list(self.give)}"
        text += f" for {_list(self.take)}"
        return text + (", and the two swap places in the queue" if self.place else "")


class Accepted(NamedTuple):
    """The offer was accepted and the trade ran. [RG-TRADE-4]"""

    seat: int
    offerer: int
    gave: tuple[int, ...]  # stamp ids from ``seat`` to the offerer
    got: tuple[int, ...]  # stamp ids from the offerer to ``seat``
    place: bool

    def __str__(self) -> str:
        return f"seat {self.seat} accepts seat {self.offerer}'s offer"


class Rejected(NamedTuple):
    """The offer was rejected; nothing changes hands."""

    seat: int
    offerer: int

    def __str__(self) -> str:
        return f"seat {self.seat} rejects seat {self.offerer}'s offer"


class OfferTurnPassed(NamedTuple):
    """A player let his offer turn go by."""

    seat: int

    def __str__(self) -> str:
        return f"seat {self.seat} passes"


class Speculated(NamedTuple):
    """A trade with the speculator: ``mode`` draw (a stamp) or swap (places). [RG-SPEC-1/2]"""

    seat: int
    mode: str
    kinds: tuple[str, ...]
    stamps: tuple[int, ...]

    def __str__(self) -> str:
        what = "for a stamp from the stack" if self.mode == "draw" else "to swap places with him"
        return f"seat {self.seat} pays the speculator {_list(self.kinds)} {what}"


class TopStopped(NamedTuple):
    """Trading is over: the top fell, or the active player (``stopped``) stopped it."""

    seat: int
    stopped: bool

    def __str__(self) -> str:
        return f"seat {self.seat} stops the top" if self.stopped else "the top falls over"


class HandLimited(NamedTuple):
    """The active player discarded a stamp down to the hand limit. [RG-LIMIT-1]"""

    seat: int
    kind: str
    stamp: int

    def __str__(self) -> str:
        return f"seat {self.seat} discards {self.kind}"


class TopPassed(NamedTuple):
    """The top went to the left: ``seat`` is next turn's active player. [RG-TURN-3]"""

    seat: int

    def __str__(self) -> str:
        return f"the top passes to seat {self.seat}"


class Bought(NamedTuple):
    """A player bought the card at ``position`` with the stamps named. [RG-SHOP-2]"""

    seat: int
    position: int
    card: str
    stamps: tuple[int, ...]

    def __str__(self) -> str:
        return f"seat {self.seat} buys {self.card} (position {self.position})"


class ShopPassed(NamedTuple):
    """The player at the counter bought nothing."""

    seat: int

    def __str__(self) -> str:
        return f"seat {self.seat} buys nothing"


class SpeculatorBought(NamedTuple):
    """The speculator's die showed ``roll``: that card left the game. [RG-SPEC-3]"""

    roll: int
    card: str

    def __str__(self) -> str:
        return f"the speculator rolls {self.roll} and takes {self.card} out of the game"


class RowRefilled(NamedTuple):
    """New cards from the shopping stack, added at the end of the row. [RG-ROW-1]"""

    cards: tuple[str, ...]

    def __str__(self) -> str:
        return f"the row is refilled with {_list(self.cards)}"


class FinalTurnBegan(NamedTuple):
    """The row could not be refilled: the final turn begins. [RG-FINAL-1]"""

    active: int

    def __str__(self) -> str:
        return f"the final turn begins with seat {self.active}; the speculator leaves"


Event = (
    RowDealt
    | VisitDrawn
    | QueueFormed
    | TurnBegan
    | StampsDrawn
    | Reshuffled
    | TopSpun
    | Offered
    | Accepted
    | Rejected
    | OfferTurnPassed
    | Speculated
    | TopStopped
    | HandLimited
    | TopPassed
    | Bought
    | ShopPassed
    | SpeculatorBought
    | RowRefilled
    | FinalTurnBegan
    | GameEnded
)

CODEC = EventCodec("reglamentacja", Event)
"""The dict forms of this family's events (:class:`cardshop.core.EventCodec`)."""

event_to_dict = CODEC.to_dict
"""Plain JSON-ready data of an event: ``{"type": "...", ...}``."""

event_from_dict = CODEC.from_dict
"""The event :func:`event_to_dict` wrote; malformed data raises :class:`~cardshop.RecordError`."""
