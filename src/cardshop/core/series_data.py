"""What a match shows its players and its records: its observation and its event.

Their own module, which the compiled build leaves as Python (:mod:`cardshop.core.series`
is compiled): a named tuple made by mypyc keeps no field types, which the event codec
reads.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from cardshop.core.events import EventCodec

__all__ = ["EVENTS", "SeriesGameEnded", "SeriesObservation"]


class SeriesObservation(NamedTuple):
    """What a seat may know in a series: the counters and the current game's observation.

    Attributes it does not have read through to ``current`` (the family's own
    observation), so ``observation.seat`` or a Klunker bot's ``observation.hand``
    work on a series as on a single game.
    """

    game_index: int
    """The game being played (from 0)."""
    games: int
    """How many games the series has."""
    totals: tuple[int, ...]
    """Each seat's summed score over the finished games."""
    current: Any
    """The current game's observation (the family's type)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.current, name)


class SeriesGameEnded(NamedTuple):
    """A game of a series ended; ``next_first`` starts the next one (-1: none or not chosen)."""

    game: int
    games: int
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    next_first: int

    def __str__(self) -> str:
        text = (
            f"game {self.game + 1} of {self.games} ends: scores {list(self.scores)}, "
            f"totals {list(self.totals)}"
        )
        if self.game + 1 == self.games:
            return f"{text}; the series is over"
        starter = f", seat {self.next_first} starts" if self.next_first >= 0 else ""
        return f"{text}; game {self.game + 2} begins{starter}"


EVENTS = EventCodec("series", (SeriesGameEnded,))
"""The dict form of the series' own event; the games' events are their family's."""
