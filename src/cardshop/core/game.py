"""The game protocol every family implements: one state, sequential or simultaneous.

A *game* is one play of a variant in progress (OpenSpiel would call it a state). Tools
(the driver, bots, simulation, records, audits, environments, the command line) use only
what this module defines, so they work for every family without knowing its rules:

* :attr:`Game.acting` says which seats must act now: one seat in a turn-based game,
  every seat still playing in a tick of a simultaneous game, none when it is over.
* :meth:`Game.legal_actions` gives one acting seat's legal actions, sorted by text,
  as a read-only :class:`~cardshop.core.LegalActions` view.
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

import importlib
import json
import secrets
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol, Self

from cardshop.core.actions import (
    Action,
    LegalActions,
    Seat,
)
from cardshop.core.chance import chance_source, check_seed
from cardshop.core.checked import (
    Checked,
    own_abc_caches,
)
from cardshop.core.errors import (
    GameStateError,
    IllegalActionError,
    PositionError,
    SetupError,
    format_value,
)

if TYPE_CHECKING:
    from cardshop.core.variant import VariantBase

__all__ = [
    "ANY_GAME",
    "AnyGameReader",
    "Copy",
    "Dynamics",
    "Engine",
    "Event",
    "Game",
    "JointAction",
    "Move",
    "Result",
    "StateField",
    "Termination",
    "check_players",
    "check_setup",
    "rank_seats",
    "read_game_json",
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


class Copy(IntEnum):
    """How the derived :meth:`Game.clone` copies one field of a game's state."""

    VALUE = 0
    """Shared, not copied: an immutable value (an int, a str, a tuple, the compiled
    rules), or an object the game replaces whole and never changes in place (a cache
    of legal actions)."""
    LIST = 1
    """A list of values, copied."""
    LISTS = 2
    """A list of lists of values, both levels copied."""
    LISTS3 = 3
    """A list of lists of lists of values, every level copied."""


@dataclass(frozen=True, slots=True)
class StateField:
    """One field of a game's state, as a family declares it in :attr:`Game.STATE`.

    ``name`` is the attribute; ``copy`` says how :meth:`Game.clone` copies it;
    ``compared`` says whether ``==`` compares it (the moves that led to a state, the
    variant itself, caches and counts derived from other fields are not compared).
    """

    name: str
    copy: Copy = Copy.VALUE
    compared: bool = True

    def copied(self, value: Any) -> Any:
        """``value`` (this field's) copied as :attr:`copy` says."""
        copier = _COPIERS[self.copy]
        return value if copier is None else copier(value)


def _copy_lists(value: list[list[Any]]) -> list[list[Any]]:
    return [inner.copy() for inner in value]


def _copy_lists3(value: list[list[list[Any]]]) -> list[list[list[Any]]]:
    return [[inner.copy() for inner in middle] for middle in value]


_COPIERS: tuple[Any, ...] = (None, list.copy, _copy_lists, _copy_lists3)


_TERMINATIONS = (None, Termination.FINISHED, Termination.CAPPED)
"""A game's ``termination`` by the code an engine keeps (:attr:`Engine.termination`)."""


def _restore(cls: type[Game], variant: Any, values: tuple[Any, ...]) -> Game:
    """A game of class ``cls`` from its declared fields' values (pickling)."""
    game = cls._blank(variant)
    for declared, value in zip(cls.STATE, values, strict=True):
        setattr(game, declared.name, value)
    game._unpickled()
    return game


def check_players(variant: VariantBase, players: object) -> int:
    """``players`` if ``variant`` is played by that many (an int, not a bool, within its
    ``players`` range); a :class:`~cardshop.SetupError` ("klunker-en is played by 3 to 5
    players, not 7") otherwise."""
    low, high = variant.players.min, variant.players.max
    if not isinstance(players, int) or isinstance(players, bool) or not low <= players <= high:
        raise SetupError(
            f"{variant.name} is played by {low} to {high} players, not {format_value(players)}"
        )
    return players


def check_setup(
    variant: VariantBase, players: object, seed: object, first_player: object = None
) -> int:
    """Check what a new game of ``variant`` is set up with, and return its seed.

    ``players`` must be a number ``variant`` is played by (:func:`check_players`),
    ``seed`` ``None`` or a seed (:func:`~cardshop.core.check_seed`) and ``first_player``
    ``None`` or a seat. The seed returned is ``seed``, or a fresh random one (63 bits)
    for ``None``. Raises :class:`~cardshop.SetupError`; every engine's ``new_game``
    and :func:`~cardshop.core.new_series` check their arguments so.
    """
    count = check_players(variant, players)
    seed = new_seed(seed)
    if first_player is not None:
        check_seat("first_player", first_player, count)
    return seed


def new_seed(seed: object) -> int:
    """``seed`` if it is a seed (:func:`~cardshop.core.check_seed`), a fresh random one
    for ``None``; else a SetupError."""
    if seed is None:
        return secrets.randbits(63)
    return check_seed(seed)


def check_seat(what: str, seat: object, players: int) -> Seat:
    """``seat`` if it is a seat of ``players``; else a SetupError naming ``what``."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
        raise SetupError(f"{what} must be a seat 0..{players - 1}, not {format_value(seat)}")
    return seat


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

    Subclasses set :attr:`family`, declare their fields in :attr:`STATE` (from which
    ``clone``, ``==`` and pickling follow), override :attr:`dynamics` if their seats
    act together, implement the abstract members and write :meth:`_play`, the rules of
    one step: the core's :meth:`apply` and :meth:`apply_joint` check the seats and the
    actions and record the moves first. Seats are ``0 .. players-1``. See the module
    docstring for the protocol.
    """

    __slots__ = ()

    family: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Gives every game class ABC caches of its own (:func:`own_abc_caches`), one
        compiled by mypyc too, which Python makes without ``ABCMeta.__new__``: a family
        need not call it."""
        super().__init_subclass__(**kwargs)
        own_abc_caches(cls)

    STATE: ClassVar[tuple[StateField, ...]] = ()
    """Every field of the game, declared once: ``clone``, ``==`` and pickling derive
    from it (see :class:`StateField`). A class with ``__slots__`` declares every slot; the
    conformance battery checks that nothing is left out."""

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
    def moves(self) -> list[Move]:
        """Every action applied so far, in order: a new list at each reading, its
        :class:`Move` records built from what the game keeps (a loop that needs the
        count at every step keeps its own).

        By default, the ``(step, seat, action)`` tuples of the field ``_moves`` that
        :meth:`_record` keeps (:attr:`MOVES_STATE`)."""
        fields: Any = self  # the family's, not declared here (mypyc: a subclass's own)
        return [Move._make(m) for m in fields._moves]

    # ---------------------------------------------------------------- acting

    @abstractmethod
    def legal_actions(self, seat: Seat | None = None) -> LegalActions:
        """An acting seat's legal actions, sorted by text (default: the one acting seat).

        A read-only :class:`~cardshop.core.LegalActions` view: ``len``, ``in``,
        indexing, iteration, ``rng.choice(...)`` and :meth:`LegalActions.sample`
        (uniform) work without building every action, and it compares equal to a list
        of the same actions. ``list(...)`` it for a list of one's own to change.
        """

    @abstractmethod
    def parse_action(self, text: str, seat: Seat | None = None) -> Action:
        """Parse an action text for ``seat`` (default: the one acting seat).

        Raises :class:`~cardshop.ActionParseError` for text that names no action of
        this variant; legality is checked by :meth:`apply`.
        """

    def apply(self, action: Action | str, seat: Seat | None = None) -> list[Event]:
        """Apply the action of the one acting seat; return the events it caused.

        Raises :class:`~cardshop.IllegalActionError` (changing nothing) for an action
        the rules forbid, and :class:`~cardshop.GameStateError` when several seats
        must act together (use :meth:`apply_joint`) or none acts.

        The core does the bookkeeping: it checks the seat (:meth:`require_seat`) and
        the action (:meth:`checked_action`), records the move (:meth:`_record`) and
        then calls the family's own step, :meth:`_play`. A family may write a faster
        ``apply`` by hand; the conformance battery holds it to this one.
        """
        acting = self.acting
        if len(acting) > 1:
            raise GameStateError(
                f"seats {list(acting)} act together: use apply_joint({{seat: action}})"
            )
        seat = self.require_seat(seat)
        actions = {seat: self.checked_action(action, seat)}
        self._record(actions)
        return self._play(actions)

    def apply_joint(self, actions: Mapping[Seat, Action | str]) -> list[Event]:
        """Apply one action from each acting seat together; return the events.

        Every acting seat must appear exactly once (a
        :class:`~cardshop.GameStateError` otherwise); every action is checked before
        any changes the game. Where one seat acts, this is :meth:`apply`; else the core
        does the bookkeeping as :meth:`apply` does, for all the seats at once.
        """
        if not isinstance(actions, Mapping):
            raise GameStateError(
                f"a joint action is a mapping of seat to action, not {format_value(actions)}"
            )
        acting = self.acting
        if not acting:
            raise GameStateError("the game is over: no seat acts")
        if len(actions) != len(acting) or any(
            type(s) is not int or s not in acting for s in actions
        ):
            raise GameStateError(
                f"a joint action needs exactly the acting seats {list(acting)}, "
                f"got seats {sorted(map(repr, actions))}"
            )
        if len(acting) == 1:
            return self.apply(actions[acting[0]], acting[0])
        checked = {s: self.checked_action(actions[s], s) for s in acting}
        self._record(checked)
        return self._play(checked)

    def checked_action(self, action: Action | str, seat: Seat) -> Action:
        """``action`` as a legal :class:`~cardshop.core.Action` of ``seat`` now.

        A text is read with :meth:`parse_action` (an
        :class:`~cardshop.ActionParseError` if it names no action); anything else must
        be an ``Action`` whose argument is a ``str``, an ``int`` or ``None`` of exactly
        that type (``buy True`` is no ``buy 1``). An action not among
        :meth:`legal_actions` raises :class:`~cardshop.IllegalActionError`.
        """
        if isinstance(action, str):
            action = self.parse_action(action, seat)
        elif not (
            type(action) is Action
            and type(action[0]) is str
            and (action[1] is None or type(action[1]) in (str, int))
        ):
            raise IllegalActionError(
                f"seat {seat}: {format_value(action)} is not an action of this game"
            )
        if action not in self.legal_actions(seat):
            raise IllegalActionError(f"seat {seat} may not {action} now")
        return action

    MOVES_STATE: ClassVar[tuple[StateField, ...]] = (
        StateField("_moves", Copy.LIST, compared=False),
        StateField("_step", compared=False),
    )
    """The fields of the moves that the default :meth:`_record` keeps, for a family's
    :attr:`STATE` (``STATE = (..., *Game.MOVES_STATE)``): ``_moves``, a list of
    ``(step, seat, action)`` tuples, and ``_step``, the steps played (neither compared
    by ``==``). Set ``_moves = []`` and ``_step = 0`` at the deal."""

    def _record(self, actions: Mapping[Seat, Action]) -> None:
        """Record one step's checked actions as moves, before :meth:`_play` runs them:
        by default ``(step, seat, action)`` tuples, seat by seat, on the field
        ``_moves``, the step counted by the field ``_step`` (declare both with
        :attr:`MOVES_STATE`). A family that keeps its moves otherwise overrides it and
        :attr:`moves`."""
        fields: Any = self  # the family's, not declared here (mypyc: a subclass's own)
        step = fields._step
        fields._moves += [(step, s, actions[s]) for s in sorted(actions)]
        fields._step = step + 1

    def _play(self, actions: Mapping[Seat, Action]) -> list[Event]:
        """The family's own step: carry out the legal ``actions`` (one per acting seat,
        checked and recorded by :meth:`apply` and :meth:`apply_joint`) and return the
        events they caused, the automatic steps that followed included."""
        raise NotImplementedError(f"{type(self).__name__} writes neither apply nor _play")

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

    def setup_options(self) -> Mapping[str, Any] | None:
        """The options of ``new_game`` (beyond variant, players and seed) that set this
        game up, such as ``{"first_player": 2}``; ``None`` for a game set up from a
        position, whose moves do not start at a setup.

        :func:`verify_history` replays :attr:`moves` from this setup to check a game
        read from JSON. The default, ``None``, makes no claim; a family whose games
        can be replayed from their setup overrides it.
        """
        return None

    # ---------------------------------------------------------------- progress

    def scores(self) -> tuple[int, ...] | None:
        """Each seat's score now, by the rules' count so far (at the end, the result's
        scores); ``None`` for a game that keeps no running score. Audits read it for
        lead changes and drama."""
        return None

    def progress(self) -> int | None:
        """How far the game has come, in its family's unit of length
        (:attr:`Family.length_unit <cardshop.Family.length_unit>`: rounds, turns), the
        count :attr:`Result.rounds` gives at the end; ``None`` for a game with no such
        counter. Audits count lead changes per unit of it; searches stop playouts
        after a horizon of it."""
        return None

    # ---------------------------------------------------------------- knowledge

    @abstractmethod
    def observation(self, seat: Seat) -> Any:
        """What ``seat`` may know now (the family's observation type).

        An observation has a ``seat`` attribute, the seat it is for: bots and searches
        that see only observations read it."""

    @abstractmethod
    def result(self) -> Result:
        """The outcome; raises :class:`~cardshop.GameStateError` before the end."""

    # ---------------------------------------------------------------- copies

    def clone(self) -> Self:
        """An independent copy: actions applied to one never change the other.

        The default copies every field of :attr:`STATE` as declared
        (:meth:`derived_clone`). A family may write a faster one by hand; the
        conformance battery checks that it equals the derived copy, field by field.
        """
        return self.derived_clone()

    def derived_clone(self) -> Self:
        """The copy :attr:`STATE` defines: each field copied as its :class:`Copy` says."""
        state = type(self).STATE
        if not state:
            raise NotImplementedError(
                f"{type(self).__name__} declares no STATE: it must declare its fields "
                "or write its own clone"
            )
        game = self._blank(self.variant)
        for declared in state:
            setattr(game, declared.name, declared.copied(getattr(self, declared.name)))
        return game

    @classmethod
    def _blank(cls, variant: Any) -> Self:
        """An instance with no field set, for :meth:`derived_clone` and unpickling.

        ``cls.__new__(cls)``: no ``__init__`` runs. An engine compiled by mypyc must
        therefore not write an ``__init__`` (mypyc's ``__new__`` would call it): it is set
        up by :meth:`Engine.new` and ``_init_empty``."""
        return cls.__new__(cls)

    @classmethod
    def _empty(cls, variant: Any, players: int, seed: int) -> Self:
        """The blank game a family's reader fills: nothing dealt, every field as before
        the deal. A reader of game JSON or positions (and a sampler) starts from it,
        sets the fields its input gives, checks the state and returns the game::

            game = cls._empty(variant, players, seed)   # checked first: players, seed
            game._turn = position.turn                  # ... every field the input gives
            problems = state_problems(game)             # the family's consistency check
            if problems:
                raise PositionError("not a legal state: " + "; ".join(problems))
            return game

        It is :meth:`_blank` (no ``__init__`` runs) and then the family's
        ``_init_empty(variant, players, seed)``; :meth:`Engine._empty` sets the setup
        fields every engine has first. ``players`` and ``seed`` are not checked here:
        the reader checks them before (:func:`check_players`,
        :data:`~cardshop.core.PositionSeed`).
        """
        game = cls._blank(variant)
        game._init_empty(variant, players, seed)
        return game

    def _init_empty(self, variant: Any, players: int, seed: int) -> None:
        """Set every field to the state before the deal (for :meth:`_empty`): the
        family's hook, which a game made by :meth:`_empty` (every game of an
        :class:`Engine`) writes instead of an ``__init__``. Under :class:`Engine`, the
        core has set ``variant``, ``n``, ``seed`` and ``_from_setup`` already."""
        raise NotImplementedError(f"{type(self).__name__} has no _init_empty")

    def state_values(self) -> tuple[Any, ...]:
        """The values of the compared fields of :attr:`STATE`, in declared order:
        what ``==`` compares (with the variant's content hash)."""
        return tuple(getattr(self, f.name) for f in type(self).STATE if f.compared)

    def __eq__(self, other: object) -> bool:
        """Games are equal when they are of one class, of one variant (by its content
        hash) and every compared field of :attr:`STATE` is equal."""
        if not isinstance(other, Game):
            return NotImplemented
        if type(other) is not type(self) or not type(self).STATE:
            return self is other
        return (
            self.state_values() == other.state_values()
            and self.variant.content_hash == other.variant.content_hash
        )

    __hash__ = None  # type: ignore[assignment]  # a game changes: it is not hashable

    def __copy__(self) -> Self:
        return self.clone()

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self.clone()

    def __reduce__(self) -> str | tuple[Any, ...]:
        """Pickle by the declared fields (a compiled class cannot be made by
        ``__new__``, which pickle's default uses)."""
        state = type(self).STATE
        if not state:
            return super().__reduce__()
        values = tuple(getattr(self, f.name) for f in state)
        return (_restore, (type(self), self.variant, values))

    def _unpickled(self) -> None:
        """Called once a pickled game's fields are set: a family whose state took a new
        shape since a release brings a game pickled by that release to the shape of
        now here (the base does nothing)."""
        return

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
        return ANY_GAME.reader().from_json(text, **options)

    @classmethod
    def from_position(cls, position: Any, variant: Any = None) -> Game:
        """A game of any family from a position (the family's format).

        ``variant`` (a loaded variant, a built-in name or a path the caller chose)
        names the family; without it the position's own ``variant`` key must name a
        built-in variant or embed one.
        """
        return ANY_GAME.reader().from_position(position, variant)


class AnyGameReader(Protocol):
    """Reads a game of any family: what :meth:`Game.from_json` and
    :meth:`Game.from_position` of the base class hand their work to."""

    def from_json(self, text: str | bytes | Mapping[str, Any], **options: Any) -> Game: ...

    def from_position(self, position: Any, variant: Any = None) -> Game: ...


class _AnyGame:
    """Where the reader of any family's games is installed.

    Finding a game's family takes the registry and the variant loader, which sit above
    this module (they know games; a game does not know them): the front door,
    :mod:`cardshop.core.frontdoor`, installs its reader here when ``cardshop.core`` is
    imported, which every import of a core module does first.
    """

    __slots__ = ("_reader",)

    def __init__(self) -> None:
        self._reader: AnyGameReader | None = None

    def install(self, reader: AnyGameReader) -> None:
        self._reader = reader

    def reader(self) -> AnyGameReader:
        if self._reader is None:  # pragma: no cover - cardshop.core installs it on import
            raise GameStateError("no reader of games is installed: import cardshop.core")
        return self._reader


ANY_GAME = _AnyGame()


class Engine(Game):
    """A :class:`Game` that keeps its setup in fields and ranks its seats by keys: the
    base of the built-in families' engines, which these members then follow from.

    * :attr:`SETUP_STATE` declares the fields of its setup (``variant``, ``rules``,
      ``n``, ``seed``, ``_from_setup``) for its :attr:`STATE`.
    * :meth:`new` sets a game up: the setup checked, the setup fields set by the core
      (:meth:`_empty`: ``variant``, ``n``, ``seed``; ``_from_setup`` true), every other
      field by the family's ``_init_empty``, then dealt by its :meth:`_setup`.
      :meth:`_empty` is the same blank game for the family's readers, with
      ``_from_setup`` false.
    * :attr:`players` is the field ``n``.
    * :meth:`setup_options` names the fields listed in :attr:`SETUP_OPTIONS` (the
      options of ``new_game``, such as ``first_player``) for a game dealt by
      ``new_game``, and is ``None`` for a game set up from a position (the field
      ``_from_setup`` says which).
    * :meth:`result` ranks the seats by the keys :meth:`_rank_key` gives (with
      :func:`rank_seats`), once :attr:`is_over`: the :meth:`scores`, the
      :attr:`termination`, :meth:`progress` as the result's ``rounds`` and the
      :meth:`_result_details`.
    * :meth:`progress` is the field :attr:`PROGRESS` names (the round or turn
      counter), and :attr:`termination` is read from the field ``_termination`` (0
      while the game runs, 1 finished, 2 capped) unless the subclass says otherwise.
    * :meth:`from_json` reads game JSON with the family's :meth:`from_dict`, which
      checks everything, and takes no options.
    * :meth:`from_dict`, :meth:`from_position` and :meth:`to_position` hand off to the
      family's readers and writers, in the modules :attr:`SERIAL` and
      :attr:`POSITIONS` name.

    It adds no field (its ``__slots__`` are empty), so a subclass compiled by mypyc
    declares all its own; such a subclass writes no ``__init__`` (see :meth:`_blank`).
    """

    __slots__ = ()

    SETUP_OPTIONS: ClassVar[tuple[str, ...]] = ()
    """The fields of the game that are options of its ``new_game`` (``first_player``)."""

    SETUP_STATE: ClassVar[tuple[StateField, ...]] = (
        StateField("variant", compared=False),
        StateField("rules", compared=False),
        StateField("n"),
        StateField("seed"),
        StateField("_from_setup", compared=False),
    )
    """The fields of an engine's setup, which its :attr:`STATE` declares first
    (``STATE = (*Engine.SETUP_STATE, ...)``): the variant and its compiled ``rules``
    (not compared: ``==`` compares the variant by its content hash), the number of
    players ``n``, the ``seed`` and ``_from_setup`` (whether ``new_game`` dealt the game;
    not compared)."""

    PROGRESS: ClassVar[str] = ""
    """The field that counts how far the game has come in its family's unit
    (``"_round"``, ``"_turn"``): what :meth:`progress` returns. Empty: no such counter."""

    SERIAL: ClassVar[str] = ""
    """The module, by name, that reads the engine's game JSON
    (``"cardshop.wuhltisch.serial"``): its ``game_from_data(cls, data)`` is
    :meth:`from_dict`. Named rather than imported, as it imports the engine's module;
    it is imported on first use."""

    POSITIONS: ClassVar[str] = ""
    """The module, by name, of the engine's positions: its ``game_from_position(cls,
    position, variant)`` is :meth:`from_position` and its ``position_of(game)`` is
    :meth:`to_position` (imported on first use, as :attr:`SERIAL`)."""

    n: int
    _from_setup: bool
    _termination: int

    __hash__ = None  # as Game's: a game changes, it is not hashable

    @property
    def players(self) -> int:
        """Number of players."""
        return self.n

    @property
    def termination(self) -> Termination | None:
        """How the game ended; ``None`` while it runs. By default the field
        ``_termination`` says: 0 while the game runs, 1 finished, 2 capped."""
        return _TERMINATIONS[self._termination]

    def progress(self) -> int | None:
        """How far the game has come (see :meth:`Game.progress`): the field
        :attr:`PROGRESS` names; ``None`` where it names none."""
        name = type(self).PROGRESS
        if not name:
            return None
        count: int = getattr(self, name)
        return count

    def setup_options(self) -> dict[str, Any] | None:
        """The options of ``new_game`` that dealt this game (:attr:`SETUP_OPTIONS`), such
        as ``{"first_player": 2}``; ``None`` for a game set up from a position."""
        if not self._from_setup:
            return None
        return {name: getattr(self, name) for name in type(self).SETUP_OPTIONS}

    def _rank_key(self, seat: Seat) -> tuple[int, ...]:
        """``seat``'s key for :func:`rank_seats`, bigger better: its score, then the
        family's tiebreaks in order (negated where fewer is better)."""
        raise NotImplementedError(f"{type(self).__name__} has no _rank_key")

    def _result_details(self) -> dict[str, int]:
        """Further counts the result reports (:attr:`Result.details`); none by default."""
        return {}

    def result(self) -> Result:
        """Scores, ranks (by :meth:`_rank_key`, ties sharing a rank) and winners.

        Raises :class:`~cardshop.GameStateError` while the game is still running.
        """
        if not self.is_over:
            raise GameStateError("the game is not over yet; result() needs a finished game")
        scores = self.scores()
        rounds = self.progress()
        termination = self.termination
        assert scores is not None
        assert rounds is not None
        assert termination is not None
        ranks, winners = rank_seats([self._rank_key(s) for s in range(self.n)])
        return Result(scores, ranks, winners, termination, rounds, self._result_details())

    @classmethod
    def _module(cls, name: str, what: str) -> Any:
        """The family's module ``name`` (:attr:`SERIAL` or :attr:`POSITIONS`), imported."""
        if not name:
            raise NotImplementedError(f"{cls.__name__} names no {what} module")
        return importlib.import_module(name)

    @classmethod
    def from_dict(cls, data: Checked[Mapping[str, Any]]) -> Self:
        """A game from :meth:`to_dict` data (or its JSON text), every field checked; a
        :class:`~cardshop.PositionError` otherwise: ``game_from_data(cls, data)`` of the
        module :attr:`SERIAL` names."""
        game: Self = cls._module(cls.SERIAL, "SERIAL").game_from_data(cls, data)
        return game

    @classmethod
    def from_position(cls, position: Checked[Any], variant: Checked[Any] = None) -> Self:
        """A game of this engine set up from a position (a mapping or YAML/JSON text) and
        an optional variant, which the reader checks: ``game_from_position(cls,
        position, variant)`` of the module :attr:`POSITIONS` names."""
        reader = cls._module(cls.POSITIONS, "POSITIONS").game_from_position
        game: Self = reader(cls, position, variant)
        return game

    @classmethod
    def new(
        cls,
        variant: Checked[VariantBase],
        players: Checked[int],
        seed: Checked[int | None] = None,
        first_player: Checked[Seat | None] = None,
    ) -> Self:
        """A new game of this engine, dealt: what the family's ``new_game`` returns.

        The setup is checked by :func:`check_setup` (a fresh seed for ``None``;
        ``first_player`` only where :attr:`SETUP_OPTIONS` has it), the game made by
        :meth:`_empty` (the setup fields ``variant``, ``n`` and ``seed`` set by the core,
        every other field as before the deal by the family's ``_init_empty``), marked as
        dealt by ``new_game`` (``_from_setup``, which :meth:`setup_options` reads: the
        family's hooks need not set it) and dealt by the family's :meth:`_setup`.
        ``variant`` must be of the family: its ``new_game`` checks that
        (:meth:`~cardshop.core.VariantBase.of_family`). Raises
        :class:`~cardshop.SetupError`.
        """
        if first_player is not None and "first_player" not in cls.SETUP_OPTIONS:
            raise SetupError(f"a {cls.family} game takes no option 'first_player'")
        seed = check_setup(variant, players, seed, first_player)
        game = cls._empty(variant, players, seed)
        fields: Any = game  # the family's, not declared here (mypyc: a subclass's own)
        # Dealt by new_game: its moves replay from its setup, unless its chance came from
        # another source than the seed (cardshop verify's), which its seed cannot repeat.
        fields._from_setup = chance_source().seeded
        game._setup(first_player)
        return game

    @classmethod
    def _empty(cls, variant: Any, players: int, seed: int) -> Self:
        """A game with nothing dealt, the blank game a family's reader fills (a game
        JSON's, a position's, a sampler's) and :meth:`new` deals.

        The core sets the fields of the setup that every engine has (:attr:`SETUP_STATE`):
        ``variant``, ``n`` (``players``), ``seed`` and ``_from_setup``, false (a blank
        game was not dealt by ``new_game``: :meth:`setup_options` is ``None``, and its
        moves are not replayed; :meth:`new` sets it true, and a reader of game JSON sets
        what the data says). Then the family's ``_init_empty(variant, players, seed)``
        sets the rest (its compiled ``rules`` among them) to the state before the deal.
        The arguments are the reader's to check first (``check_players``,
        :data:`~cardshop.core.PositionSeed`): nothing here checks them.
        """
        game = cls._blank(variant)
        fields: Any = game  # the family's, not declared here (mypyc: a subclass's own)
        fields.variant = variant
        fields.n = players
        fields.seed = seed
        fields._from_setup = False
        game._init_empty(variant, players, seed)
        return game

    def _setup(self, first_player: Seat | None) -> None:
        """The family's setup, for :meth:`new`: deal the game that :meth:`_empty` made
        (the core set ``variant``, ``n``, ``seed`` and ``_from_setup``; the family's
        ``_init_empty`` the rest) to its first decision, with ``first_player`` starting
        (``None``: drawn with the seed, where the family names a first player; a family
        without that option never gets one). It sets only the family's own fields."""
        raise NotImplementedError(f"{type(self).__name__} has no _setup")

    def to_position(self) -> dict[str, Any]:
        """This game as a position (the family's format): ``position_of(game)`` of the
        module :attr:`POSITIONS` names."""
        position: dict[str, Any] = self._module(self.POSITIONS, "POSITIONS").position_of(self)
        return position

    @classmethod
    def from_json(cls, text: Checked[str | bytes | Mapping[str, Any]], **options: Any) -> Self:
        """A game from :meth:`to_json` text (:func:`read_game_json`, then
        :meth:`from_dict`); it takes no ``options`` (a :class:`~cardshop.SetupError`)."""
        if options:
            raise SetupError(f"from_json takes no option {', '.join(map(repr, options))}")
        return cls.from_dict(read_game_json(text))


MAX_GAME_JSON_BYTES = 20_000_000
"""The largest game JSON (bytes of UTF-8) any family reads."""

MAX_GAME_JSON_DEPTH = 24
"""The deepest nesting of lists and objects in a game JSON."""

MAX_GAME_JSON_INT = 2**64
"""Integers in a game JSON lie strictly between ``-MAX_GAME_JSON_INT`` and it."""


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


class _Bounded(dict[str, Any]):
    """The data :func:`read_game_json` returned: bounded already, so that the readers a
    game JSON passes through on its way to its family (``Game.from_json``,
    ``Engine.from_json``, the family's ``from_dict``) walk it once, not once each."""

    __slots__ = ()


def read_game_json(source: object, what: str = "game JSON") -> dict[str, Any]:
    """The data of a game's JSON text, or of its parsed data, bounded before any work.

    The one reader of game JSON for every family: text of at most
    :data:`MAX_GAME_JSON_BYTES` bytes, nesting at most :data:`MAX_GAME_JSON_DEPTH` deep,
    integers below :data:`MAX_GAME_JSON_INT` in size, finite numbers, an object at the
    top. Anything else raises :class:`~cardshop.PositionError`; what the data means is
    for the family to check. Data this function returned is returned as it is (it
    was bounded then), so a game JSON is walked once on its way through the readers.
    """
    if type(source) is _Bounded:
        return source
    if isinstance(source, (bytes, bytearray)):
        if len(source) > MAX_GAME_JSON_BYTES:
            raise PositionError(f"{what} is larger than {MAX_GAME_JSON_BYTES} bytes")
        try:
            source = bytes(source).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PositionError(f"{what} is not UTF-8 text: {exc}") from None
    if isinstance(source, Mapping):
        data: Any = source
    elif isinstance(source, str):
        # A str of N characters is at most 4N bytes of UTF-8: count only when needed.
        if len(source) * 4 > MAX_GAME_JSON_BYTES and (
            len(source.encode("utf-8", "surrogatepass")) > MAX_GAME_JSON_BYTES
        ):
            raise PositionError(f"{what} is larger than {MAX_GAME_JSON_BYTES} bytes")
        try:
            data = json.loads(source, parse_constant=_refuse_constant)
        except (ValueError, RecursionError) as exc:
            raise PositionError(f"not a game in JSON: {str(exc)[:200]}") from None
    else:
        raise PositionError(
            f"{what} must be a str, bytes or a mapping, not {type(source).__name__}"
        )
    if not isinstance(data, Mapping):
        raise PositionError(f"{what} must be an object")
    for key, top in data.items():
        problem = _json_problem(top)
        if problem:
            raise PositionError(f"{what} at {str(key)[:60]!r}: {problem}")
    return _Bounded(data)


_INFINITIES = (float("inf"), float("-inf"))


def _json_problem(root: Any) -> str | None:
    """What makes ``root`` (a value of a game JSON's top level) out of bounds, or None.

    Level by level, by exact type first: the values ``json.loads`` makes cost a type
    test each (a game JSON of 20 MB holds a few million), other mappings and sequences
    the ABC checks after.
    """
    level: list[Any] = [root]
    depth = 2  # the depth of the values in ``level``; the top-level object is 1
    limit = MAX_GAME_JSON_INT
    while level:
        deeper: list[Any] = []
        extend = deeper.extend
        for value in level:
            kind = type(value)
            if kind is str or kind is bool or value is None:
                continue
            if kind is int:
                if not -limit < value < limit:
                    return f"an integer is larger than 2**64 in size ({str(value)[:30]}...)"
                continue
            if kind is list:
                items: Any = value
            elif kind is dict:
                items = value.values()
            elif kind is float:
                if value != value or value in _INFINITIES:
                    return "a number is not finite"
                continue
            elif isinstance(value, Mapping):
                items = value.values()
            elif isinstance(value, (list, tuple)):
                items = value
            elif isinstance(value, (bool, str)):
                continue
            elif isinstance(value, int):
                if not -limit < value < limit:
                    return f"an integer is larger than 2**64 in size ({str(value)[:30]}...)"
                continue
            elif isinstance(value, float):
                if value != value or value in _INFINITIES:
                    return "a number is not finite"
                continue
            else:
                return f"a {kind.__name__} is not JSON data"
            if depth > MAX_GAME_JSON_DEPTH:
                return f"lists and objects nest more than {MAX_GAME_JSON_DEPTH} deep"
            extend(items)
        level = deeper
        depth += 1
    return None
