"""The game protocol every family implements: one state, sequential or simultaneous.

A *game* is one play of a variant in progress (OpenSpiel would call it a state). Tools
(the driver, bots, simulation, records, audits, environments, the command line) use only
what this module defines, so they work for every family without knowing its rules:

* :attr:`Game.acting` says which seats must act now: one seat in a turn-based game,
  every seat still playing in a tick of a simultaneous game, none when it is over.
* :meth:`Game.legal_actions` gives one acting seat's legal actions, sorted.
* :meth:`Game.apply` takes the action of the one acting seat (turn-based play);
  :meth:`Game.apply_joint` takes one action from *each* acting seat and resolves them
  together. Both validate everything first, so an illegal action changes nothing.

Why the joint action is the primitive of simultaneous play, rather than per-seat
submissions that resolve once everyone has submitted: validation is atomic (one
illegal action rejects the tick and changes nothing); a game never holds pending,
unresolved submissions that ``clone``, JSON and observations would have to carry and
hide; and it is the shape of OpenSpiel's ``apply_actions`` and PettingZoo's Parallel
``step``. Tools that want one actor at a time buffer the seats' choices themselves
(:class:`cardshop.driver.TickBuffer`), as PettingZoo's ``parallel_to_aec`` does.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Self

from cardshop._core import Action, Seat
from cardshop._errors import GameStateError, PositionError

if TYPE_CHECKING:
    from cardshop._variant import VariantBase

__all__ = [
    "Dynamics",
    "Event",
    "Game",
    "JointAction",
    "Move",
    "Result",
    "Termination",
    "rank_seats",
]

Event = Any
"""A family's event: a named tuple whose ``str()`` is one readable line."""

JointAction = Mapping[Seat, Action]
"""One action from each acting seat of a simultaneous tick."""


class Dynamics(StrEnum):
    """Whether one seat acts at a time or several act together."""

    SEQUENTIAL = "sequential"
    SIMULTANEOUS = "simultaneous"


class Termination(StrEnum):
    """How a game ended."""

    FINISHED = "finished"  # by its rules
    CAPPED = "capped"  # the variant's cap on its length was reached


class Move(NamedTuple):
    """One action in a game's history: the step it was part of, its seat and itself.

    ``step`` counts calls of :meth:`Game.apply` / :meth:`Game.apply_joint` from 0;
    the actions of one simultaneous tick share a step.
    """

    step: int
    seat: Seat
    action: Action


@dataclass(frozen=True, slots=True)
class Result:
    """The end of a game: scores, ranks (1 = best, ties share a rank) and winners.

    ``rounds`` is the game's length in the family's own unit (rounds, turns);
    ``details`` holds further counts a family reports (ticks, trades, ...).
    """

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[Seat, ...]
    termination: Termination
    rounds: int
    details: Mapping[str, int] = field(default_factory=dict)

    @property
    def order(self) -> tuple[Seat, ...]:
        """Seats from best to worst (tied seats by seat number)."""
        return tuple(sorted(range(len(self.ranks)), key=lambda s: (self.ranks[s], s)))

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-able)."""
        data: dict[str, Any] = {
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "winners": list(self.winners),
            "termination": self.termination.value,
            "rounds": self.rounds,
        }
        if self.details:
            data["details"] = dict(self.details)
        return data


def rank_seats(keys: Sequence[tuple[int, ...]]) -> tuple[tuple[int, ...], tuple[Seat, ...]]:
    """Ranks and winners from one sort key per seat, bigger keys better.

    A key is the score followed by the tiebreaks in order (negate a "fewest wins"
    tiebreak). Seats with equal keys share a rank; every seat of rank 1 wins::

        >>> rank_seats([(5, -2), (7, 0), (5, -2)])
        ((2, 1, 2), (1,))
    """
    ranks = tuple(1 + sum(1 for other in keys if other > key) for key in keys)
    winners = tuple(seat for seat, rank in enumerate(ranks) if rank == 1)
    return ranks, winners


class Game(ABC):
    """One game of a variant, in progress or over; every family's engine subclasses it.

    Subclasses set :attr:`family`, override :attr:`dynamics` if their seats act
    together, and implement the abstract members. Seats are ``0 .. players-1``. See
    the module docstring for the protocol.
    """

    __slots__ = ()

    family: ClassVar[str]

    variant: VariantBase
    seed: int

    # ---------------------------------------------------------------- the state

    @property
    def dynamics(self) -> Dynamics:
        """Whether seats take turns or act together (sequential unless overridden)."""
        return Dynamics.SEQUENTIAL

    @property
    @abstractmethod
    def players(self) -> int:
        """Number of seats."""

    @property
    @abstractmethod
    def acting(self) -> tuple[Seat, ...]:
        """Seats that must act now, in seat order; empty when the game is over."""

    @property
    def current_player(self) -> Seat | None:
        """The one seat to act, or ``None`` when none or several act."""
        acting = self.acting
        return acting[0] if len(acting) == 1 else None

    @property
    @abstractmethod
    def is_over(self) -> bool:
        """Whether the game has ended."""

    @property
    @abstractmethod
    def moves(self) -> list[Move]:
        """Every action applied so far, in order."""

    # ---------------------------------------------------------------- acting

    @abstractmethod
    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        """An acting seat's legal actions, sorted (default: the one acting seat)."""

    @abstractmethod
    def parse_action(self, text: str, seat: Seat | None = None) -> Action:
        """Parse an action text for ``seat`` (default: the one acting seat).

        Raises :class:`~cardshop.ActionParseError` for text that names no action of
        this variant; legality is checked by :meth:`apply`.
        """

    @abstractmethod
    def apply(self, action: Action | str, seat: Seat | None = None) -> list[Event]:
        """Apply the action of the one acting seat; return the events it caused.

        Raises :class:`~cardshop.IllegalActionError` (changing nothing) for an action
        the rules forbid, and :class:`~cardshop.GameStateError` when several seats
        must act together (use :meth:`apply_joint`).
        """

    def apply_joint(self, actions: Mapping[Seat, Action | str]) -> list[Event]:
        """Apply one action from each acting seat together; return the events.

        Every acting seat must appear exactly once. This default serves turn-based
        families, where one seat acts; simultaneous families override it.
        """
        acting = self.acting
        if sorted(actions) != list(acting):
            raise GameStateError(
                f"a joint action needs exactly the acting seats {list(acting)}, "
                f"got seats {sorted(actions)}"
            )
        (seat,) = acting
        return self.apply(actions[seat], seat)

    def require_seat(self, seat: Seat | None) -> Seat:
        """The seat an action is for: ``seat`` if it acts now, else the one acting seat.

        Raises :class:`~cardshop.GameStateError` when ``seat`` does not act now, or
        when it is ``None`` and no single seat acts.
        """
        acting = self.acting
        if seat is None:
            if len(acting) == 1:
                return acting[0]
            if not acting:
                raise GameStateError("the game is over: no seat acts")
            raise GameStateError(f"seats {list(acting)} act together: name the seat")
        if seat not in acting:
            raise GameStateError(f"seat {seat!r} does not act now (acting: {list(acting)})")
        return seat

    # ---------------------------------------------------------------- knowledge

    @abstractmethod
    def observation(self, seat: Seat) -> Any:
        """What ``seat`` may know now (the family's observation type)."""

    @abstractmethod
    def result(self) -> Result:
        """The outcome; raises :class:`~cardshop.GameStateError` before the end."""

    # ---------------------------------------------------------------- copies

    @abstractmethod
    def clone(self) -> Self:
        """An independent copy: actions applied to one never change the other."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The whole state as plain data with ``family`` and the resolved variant."""

    def to_json(self) -> str:
        """:meth:`to_dict` as compact JSON text (keys kept in order: a variant's mappings
        may be ordered, as Klunker's card kinds are)."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @abstractmethod
    def to_position(self) -> dict[str, Any]:
        """The state in the family's position format (docs of the family)."""

    # ---------------------------------------------------------------- reading back

    @classmethod
    def from_json(cls, text: str | bytes | Mapping[str, Any], **options: Any) -> Game:
        """A game of any family from :meth:`to_json` text (or its parsed data).

        The family is found from the data (its ``family`` key, or its variant's), and
        the family checks everything; an invalid input raises
        :class:`~cardshop.PositionError`. ``options`` go to the family's reader
        (Klunker: ``check_history``). Families' game classes override this with their
        own reader.
        """
        from cardshop._family import get_family

        data = _json_data(text)
        if "series" in data:  # a match of several games, played as one (cardshop._series)
            from cardshop._series import Series

            return Series.from_json(data, **options)
        return get_family(_family_of(data)).game_from_dict(data, **options)

    @classmethod
    def from_position(cls, position: Any, variant: Any = None) -> Game:
        """A game of any family from a position (the family's format).

        ``variant`` (a loaded variant, a built-in name or a path the caller chose)
        names the family; without it the position's own ``variant`` key must name a
        built-in variant or embed one.
        """
        from cardshop._family import get_family
        from cardshop._loader import load_variant

        if variant is not None:
            loaded = load_variant(variant)
            return get_family(loaded.family).game_from_position(position, loaded)
        from cardshop._positions import position_data

        data = position_data(position)
        return get_family(_family_of(data)).game_from_position(position, None)


MAX_JSON_BYTES = 8_000_000
"""The largest game JSON any family reads."""


def _json_data(text: str | bytes | Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(text, Mapping):
        return text
    if not isinstance(text, (str, bytes)):
        raise PositionError(
            f"game JSON must be a str, bytes or a mapping, not {type(text).__name__}"
        )
    size = len(text.encode() if isinstance(text, str) else text)
    if size > MAX_JSON_BYTES:
        raise PositionError(f"game JSON is larger than {MAX_JSON_BYTES} bytes ({size})")
    try:
        data = json.loads(text.decode("utf-8") if isinstance(text, bytes) else text)
    except (ValueError, RecursionError) as exc:
        raise PositionError(f"not a game in JSON: {str(exc)[:200]}") from None
    if not isinstance(data, dict):
        raise PositionError("game JSON must be an object")
    return data


def _family_of(data: Mapping[str, Any]) -> str:
    """The family a game's data or a position names (directly or through its variant).

    Data from anywhere never makes cardshop open a file: a variant named by a string
    must be a built-in one.
    """
    family = data.get("family")
    variant = data.get("variant")
    if family is None and variant is None:
        raise PositionError(
            "the position names no variant; pass one with variant= or set 'variant'"
        )
    if family is None and isinstance(variant, Mapping):
        family = variant.get("family")
        if not isinstance(family, str):
            raise PositionError(
                "the variant embedded in the position is invalid: it names no family"
            )
    if family is None and isinstance(variant, str):
        from cardshop._loader import builtin_variants, load_variant

        names = builtin_variants()
        if variant not in names:
            raise PositionError(
                f"variant {variant[:60]!r} is not a built-in variant ({', '.join(names)}); "
                "a position never makes cardshop open a file: pass yours explicitly with "
                "Game.from_position(position, variant=PATH), or embed the variant's "
                "mapping under 'variant'"
            )
        family = load_variant(variant).family
    if not isinstance(family, str):
        raise PositionError(f"the family must be a name, not {family!r:.60}")
    return family
