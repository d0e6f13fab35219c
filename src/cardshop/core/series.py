"""Matches: a series of games of one variant, with summed scores, played as one game.

A variant with a ``match`` key (``match: {games_per_player: K}``) is played as a
*series* of ``players x K`` games of its family: :func:`cardshop.new_game` returns a
:class:`Series`, which is itself a :class:`~cardshop.core.game.Game`, so every tool
(simulation, audits, records, environments, ``play``) plays the whole match as one
game without knowing it is one. For Klunker this is rule MATCH-1 (docs/rules.md).

* Game ``i`` (from 0) has its own seed, ``derive_seed(seed, "game", i)``; when the
  family lets the first player be chosen (a ``first_player`` option of its
  ``new_game``), seat ``(first_player + i) mod players`` starts it (``first_player``
  defaults to 0, so game ``i`` is started by seat ``i mod players``).
* :attr:`Series.acting`, :meth:`Series.legal_actions`, :meth:`Series.apply` and
  :meth:`Series.apply_joint` are those of the game being played; the action that
  ends a game also starts the next one, and adds a :class:`SeriesGameEnded` event
  to the events it returns.
* :meth:`Series.observation` is a :class:`SeriesObservation`: the series counters
  and the current game's observation, whose fields it also answers to (so a
  family's bots play a series unchanged).
* :meth:`Series.result` sums the games' scores; ranks and winners come from the sums
  alone (equal sums share a rank), the series is ``capped`` if any game was.
* :attr:`Series.moves` numbers steps across the games.

A family's hooks that take a *game* (its renderer, invariants, search hooks) expect
their own games: give them :func:`current_game` of a series (:func:`render` draws
a series with its counters). Its events' plain data: :func:`event_to_dict`; the
observation vector for learning agents: :func:`series_encoder`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any, ClassVar, Self, TypeVar, cast

from cardshop.core.actions import (
    Action,
    LegalActions,
    Seat,
)
from cardshop.core.chance import derive_seed
from cardshop.core.errors import (
    CardshopError,
    GameStateError,
    PositionError,
    SetupError,
)
from cardshop.core.family import (
    Family,
    Invariant,
    ObservationEncoder,
    check_options,
)
from cardshop.core.game import (
    Dynamics,
    Event,
    Game,
    Move,
    Result,
    Termination,
    check_players,
    check_seat,
    new_seed,
    rank_seats,
    read_game_json,
)
from cardshop.core.loader import variant_from_data
from cardshop.core.registry import get_family
from cardshop.core.series_data import EVENTS, SeriesGameEnded, SeriesObservation
from cardshop.core.variant import VariantBase

_T = TypeVar("_T")

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # only mypyc reads the mark: without mypy_extensions, no mark

    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[_T], _T]:
        return lambda cls: cls


__all__ = [
    "SERIES_LABELS",
    "Series",
    "SeriesEncoder",
    "SeriesGameEnded",
    "SeriesObservation",
    "current_game",
    "event_from_dict",
    "event_to_dict",
    "family_for",
    "new_series",
    "render",
    "series_encoder",
]

TOTAL_BOUND = float(2**24)
"""Encoded totals are clipped to ``[-TOTAL_BOUND, TOTAL_BOUND]`` (exact in float32)."""

SERIES_LABELS = ("series.game", "series.games_left")
"""The first labels of a series' observation vector (then one ``series.totals[s]`` a seat)."""


def event_to_dict(family: Family, event: Event) -> dict[str, Any]:
    """Plain data of an event of a series of ``family``: its own or the family's."""
    if isinstance(event, SeriesGameEnded):
        return EVENTS.to_dict(event)
    return family.event_to_dict(event)


def event_from_dict(family: Family, data: Mapping[str, Any]) -> Event:
    """Inverse of :func:`event_to_dict`; malformed data raises
    :class:`~cardshop.RecordError`, as the family's own events do."""
    if isinstance(data, Mapping) and data.get("type") == "SeriesGameEnded":
        return EVENTS.from_dict(data)
    return family.event_from_dict(data)


def _int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_SLOTS = (
    "_finished",
    "_first",
    "_game",
    "_games",
    "_index",
    "_options",
    "_over",
    "_players",
    "_results",
    "_takes_first",
    "_totals",
    "seed",
    "variant",
)
"""The fields of a series: its ``__slots__``, which it pickles (:meth:`Series.__reduce__`)."""


@mypyc_attr(allow_interpreted_subclasses=True)
class Series(Game):
    """A series of games of one variant played as one game (see the module docstring).

    Start one with :func:`cardshop.new_game` on a variant with a ``match`` key (or
    :func:`new_series`); read one back with :meth:`from_json`.
    """

    __slots__ = _SLOTS

    family: ClassVar[str] = ""

    _game: Game

    # ---------------------------------------------------------------- setup

    def _setup(
        self,
        variant: VariantBase,
        players: int,
        seed: int,
        first_player: Seat,
        takes_first: bool,
        options: dict[str, Any],
    ) -> None:
        assert variant.match is not None
        self.variant = variant
        self.seed = seed
        self._players = players
        self._games = players * variant.match.games_per_player
        self._first = first_player
        self._takes_first = takes_first
        self._options = options
        self._index = 0
        self._results: tuple[Result, ...] = ()
        self._over = False  # every game played: len(_results) == _games, kept (hot path)
        self._totals = (0,) * players
        # The finished games themselves (over: nothing changes them again), whose
        # moves are read only when asked for (moves, ==, to_dict): a game's moves cost
        # more to list than a decision of a random playout.
        self._finished: tuple[Game, ...] = ()

    def _first_of(self, index: int) -> Seat:
        return (self._first + index) % self._players

    def _new_game(self, index: int) -> Game:
        first = self._first_of(index) if self._takes_first else None
        return _game_of(self.variant, self._players, self.seed, index, first, self._options)

    def scores(self) -> tuple[int, ...] | None:
        """Each seat's score over the series so far: the finished games' totals plus
        the running scores of the game being played."""
        if self.is_over:
            return tuple(self.totals)
        now = self.current.scores()
        if now is None:
            return None
        return tuple(t + s for t, s in zip(self.totals, now, strict=True))

    def progress(self) -> int | None:
        """The finished games' lengths plus how far the current game has come."""
        done = 0
        for finished in self._results:  # a loop: read at every step of an audit's match
            done += finished.rounds
        if self._over:
            return done
        now = self.current.progress()
        return None if now is None else done + now

    def setup_options(self) -> dict[str, Any]:
        """The options that set the series up: the family's options for its games and,
        for a family whose games take one, ``first_player``."""
        options = dict(self._options)
        if self._takes_first:
            options["first_player"] = self._first
        return options

    # ---------------------------------------------------------------- the state

    @property
    def current(self) -> Game:
        """The game being played (the last one once the series is over)."""
        return self._game

    @property
    def game_index(self) -> int:
        """The index of the game being played, from 0."""
        return self._index

    @property
    def games(self) -> int:
        """How many games the series has (``players x games_per_player``)."""
        return self._games

    @property
    def first_player(self) -> Seat:
        """The seat that starts the first game (game ``i``: ``first_player + i``)."""
        return self._first

    @property
    def results(self) -> tuple[Result, ...]:
        """The results of the finished games, in order."""
        return self._results

    @property
    def totals(self) -> tuple[int, ...]:
        """Each seat's scores summed over the finished games."""
        return self._totals

    @property
    def dynamics(self) -> Dynamics:
        return self._game.dynamics

    @property
    def players(self) -> int:
        return self._players

    @property
    def acting(self) -> tuple[Seat, ...]:
        return self._game.acting

    @property
    def is_over(self) -> bool:
        return self._over

    @property
    def moves(self) -> list[Move]:
        out: list[Move] = []
        offset = 0
        for moves in (*self._finished_moves(), self._game.moves):
            out.extend(Move(m.step + offset, m.seat, m.action) for m in moves)
            if moves:
                offset += moves[-1].step + 1
        return out

    def __repr__(self) -> str:
        state = "over" if self.is_over else f"acting {list(self.acting)}"
        return (
            f"<Series {self.variant.name} players={self._players} "
            f"game {self._index + 1}/{self._games} totals={list(self._totals)} {state}>"
        )

    # ---------------------------------------------------------------- acting

    def legal_actions(self, seat: Seat | None = None) -> LegalActions:
        if self._over:
            raise GameStateError("the series is over: no seat acts")
        return self._game.legal_actions(seat)

    def parse_action(self, text: str, seat: Seat | None = None) -> Action:
        return self._game.parse_action(text, seat)

    def apply(self, action: Action | str, seat: Seat | None = None) -> list[Event]:
        """Apply to the current game; when it ends, the next one starts."""
        if self._over:
            raise GameStateError("the series is over: no seat acts")
        game = self._game
        events = game.apply(action, seat)
        if game.is_over:
            events = [*events, self._game_ended()]
        return events

    def apply_joint(self, actions: Mapping[Seat, Action | str]) -> list[Event]:
        if self._over:
            raise GameStateError("the series is over: no seat acts")
        game = self._game
        events = game.apply_joint(actions)
        if game.is_over:
            events = [*events, self._game_ended()]
        return events

    def _finished_moves(self) -> tuple[tuple[Move, ...], ...]:
        """The moves of each finished game, in order."""
        return tuple(tuple(game.moves) for game in self._finished)

    def _game_ended(self) -> SeriesGameEnded:
        """Book the finished game's result; start the next game unless it was the last."""
        game = self._game
        result = game.result()
        self._results = (*self._results, result)
        self._over = len(self._results) == self._games
        self._totals = tuple(t + s for t, s in zip(self._totals, result.scores, strict=True))
        ended = self._index
        nxt = -1
        if not self.is_over:
            self._finished = (*self._finished, game)
            self._index = ended + 1
            self._game = self._new_game(self._index)
            if self._takes_first:
                nxt = self._first_of(self._index)
        return SeriesGameEnded(ended, self._games, result.scores, self._totals, nxt)

    # ---------------------------------------------------------------- knowledge

    def observation(self, seat: Seat) -> SeriesObservation:
        return SeriesObservation(
            self._index, self._games, self._totals, self._game.observation(seat)
        )

    def result(self) -> Result:
        """Summed scores; ranks and winners by the sums only (equal sums share)."""
        if not self.is_over:
            raise GameStateError(
                f"the series is not over: {len(self._results)} of {self._games} games played"
            )
        ranks, winners = rank_seats([(t,) for t in self._totals])
        capped = any(r.termination is Termination.CAPPED for r in self._results)
        details: dict[str, int] = {}
        for r in self._results:
            for key, value in r.details.items():
                details[key] = details.get(key, 0) + value
        details["games"] = self._games
        return Result(
            self._totals,
            ranks,
            winners,
            Termination.CAPPED if capped else Termination.FINISHED,
            sum(r.rounds for r in self._results),
            details,
        )

    # ---------------------------------------------------------------- copies

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle by the slots, restored into the family's series class (which a pickle
        cannot name: every family's is called ``Series``)."""
        fields = {name: getattr(self, name) for name in _SLOTS if hasattr(self, name)}
        return (_restore, (self.family, fields))

    def clone(self) -> Self:
        cls = type(self)
        other = cls.__new__(cls)
        other.variant = self.variant
        other.seed = self.seed
        other._players = self._players
        other._games = self._games
        other._first = self._first
        other._takes_first = self._takes_first
        other._options = self._options
        other._index = self._index
        other._results = self._results
        other._over = self._over
        other._totals = self._totals
        other._finished = self._finished
        other._game = self._game.clone()
        return other

    def _key(self) -> tuple[Any, ...]:
        return (
            self.variant.content_hash,
            self.seed,
            self._players,
            self._first,
            tuple(sorted(self._options.items())),
            self._index,
            self._results,
            self._totals,
        )

    def __eq__(self, other: object) -> bool:
        """Equal when the setup, the finished games and the current game's state are."""
        if not isinstance(other, Series):
            return NotImplemented
        return (
            self._key() == other._key() and self._same_finished(other) and self._game == other._game
        )

    def _same_finished(self, other: Series) -> bool:
        """Whether the finished games have the same moves: a finished game never changes,
        so one that both hold (a clone shares them) has; the others' moves are built and
        compared."""
        mine, theirs = self._finished, other._finished
        if mine is theirs:
            return True
        return len(mine) == len(theirs) and all(
            a is b or a.moves == b.moves for a, b in zip(mine, theirs, strict=True)
        )

    __hash__ = None

    def to_dict(self) -> dict[str, Any]:
        """The series as plain data: its setup, the finished games' moves and results,
        and the current game in its family's own format (under ``"game"``)."""
        finished = [
            {
                "moves": [[m.step, m.seat, str(m.action)] for m in moves],
                "result": self._results[i].to_dict(),
            }
            for i, moves in enumerate(self._finished_moves())
        ]
        return {
            "family": self.family,
            "variant": self.variant.to_data(),
            "series": {
                "players": self._players,
                "seed": self.seed,
                "first_player": self._first,
                "options": dict(self._options),
                "finished": finished,
            },
            "game": self._game.to_dict(),
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as compact JSON, keys in their order (a variant's mappings,
        such as Klunker's card kinds, are ordered)."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    def to_position(self) -> dict[str, Any]:
        """The current game's position plus the series counters under ``"series"``."""
        position = dict(self._game.to_position())
        position["series"] = {
            "game": self._index,
            "games": self._games,
            "totals": list(self._totals),
        }
        return position

    # ---------------------------------------------------------------- reading back

    @classmethod
    def from_json(cls, text: str | bytes | Mapping[str, Any], **options: Any) -> Game:
        """A series from :meth:`to_json` text (or its data); ``options`` go to the
        family's reader of the current game. Every part is checked: the finished games
        are replayed from their seeds and must give the stated results, and the
        current game must be the next game of the series; a
        :class:`~cardshop.PositionError` otherwise."""
        return _from_dict(read_game_json(text), options)


_CLASSES: dict[tuple[str, type[Game]], type[Series]] = {}


def _series_class(family: str, game: Game) -> type[Series]:
    """The :class:`Series` subclass of ``family`` whose games are of ``game``'s type.

    A match is a full game: every public member of its games that a series does not
    have itself (``zones()``, a family's counters) is a property of this class that
    reads the game being played. They are made once, from the members of ``game``
    (its type's and its own), rather than looked up at every access by a
    ``__getattr__``, which would slow every member of the series.
    """
    key = (family, type(game))
    found = _CLASSES.get(key)
    if found is None:
        members: dict[str, Any] = {"__slots__": (), "family": family, "__module__": __name__}
        for name in dir(game):
            if not name.startswith("_") and name not in _SLOTS and not hasattr(Series, name):
                members[name] = property(attrgetter(f"current.{name}"))
        made = type("Series", (Series,), members)
        found = _CLASSES[key] = cast("type[Series]", made)
    return found


def _restore(family: str, fields: dict[str, Any]) -> Series:
    """A pickled series back (:meth:`Series.__reduce__`)."""
    cls = _series_class(family, fields["_game"])
    game = cls.__new__(cls)
    for name, value in fields.items():
        setattr(game, name, value)
    return game


def render(game: Game, seat: Seat | None = None) -> str:
    """The table as text, drawn by the game's family (``seat``: as it may see it, None:
    everything); a series adds a line with its counters above its current game."""
    family = get_family(game.variant.family)
    if not isinstance(game, Series):
        return family.render(game, seat)
    head = (
        f"match {game.variant.name}: game {game.game_index + 1} of {game.games}, "
        f"totals {list(game.totals)}"
    )
    return f"{head}\n{family.render(game.current, seat)}"


def table_view(view: Any, game: Game, seat: Seat | None) -> dict[str, Any]:
    """A family's ``table_view`` of a match: its current game as the family draws it,
    with the match's counters in the headline and each seat's match total first among
    its lines (all public)."""
    if not isinstance(game, Series):
        drawn: dict[str, Any] = view(game, seat)
        return drawn
    drawn = dict(view(game.current, seat))
    totals = game.totals
    head = f"Match: game {game.game_index + 1} of {game.games}, totals {list(totals)}"
    drawn["headline"] = f"{head}. {drawn.get('headline', '')}".strip()
    seats = []
    for part in drawn.get("seats", []):
        part = dict(part)
        number = part.get("seat")
        if isinstance(number, int) and 0 <= number < len(totals):
            part["lines"] = [f"match total {totals[number]}", *part.get("lines", [])]
        seats.append(part)
    drawn["seats"] = seats
    return drawn


def current_game(game: Game) -> Game:
    """The game being played: the current game of a series, else ``game`` itself."""
    return game.current if isinstance(game, Series) else game


def new_series(
    variant: VariantBase,
    players: int,
    seed: int | None = None,
    first_player: Seat | None = None,
    **options: Any,
) -> Series:
    """Start a series of ``variant`` (which must have a ``match`` key).

    ``seed`` drives every game (a fresh one if None); ``first_player`` (default 0)
    starts the first game, for families that let it be chosen. ``options`` go to the
    family's ``new_game`` for every game.
    """
    if variant.match is None:
        raise SetupError(f"{variant.name} declares no match (its file has no 'match' key)")
    family = get_family(variant.family)
    players = check_players(variant, players)
    seed = new_seed(seed)
    takes_first = "first_player" in check_options(family, options)
    if first_player is not None:
        if not takes_first:
            raise SetupError(f"a {family.name} game takes no option 'first_player'")
        check_seat("first_player", first_player, players)
    first = first_player or 0
    game = _game_of(variant, players, seed, 0, first if takes_first else None, options)
    cls = _series_class(family.name, game)
    series = cls.__new__(cls)
    series._setup(variant, players, seed, first, takes_first, dict(options))
    series._game = game
    return series


def _game_of(
    variant: VariantBase,
    players: int,
    seed: int,
    index: int,
    first_player: Seat | None,
    options: Mapping[str, Any],
) -> Game:
    """Game ``index`` of a series: its own seed, ``derive_seed(seed, "game", index)``,
    and ``first_player`` starting it (``None``: a family without that option)."""
    given = dict(options)
    if first_player is not None:
        given["first_player"] = first_player
    family = get_family(variant.family)
    return family.new_game(variant, players, derive_seed(seed, "game", index), **given)


# ---------------------------------------------------------------- reading JSON

_KEYS = {"family", "variant", "series", "game"}
_SERIES_KEYS = {"players", "seed", "first_player", "options", "finished"}


def _fail(reason: str) -> PositionError:
    return PositionError(f"series JSON: {reason}")


def _from_dict(data: Mapping[str, Any], reader_options: Mapping[str, Any]) -> Series:
    if set(data) != _KEYS:
        raise _fail(f"keys must be {sorted(_KEYS)}, not {sorted(map(str, data))[:10]}")
    name = data["family"]
    if not isinstance(name, str):
        raise _fail("'family' must be a name")
    try:
        family = get_family(name)
    except SetupError as exc:
        raise _fail(str(exc)) from None
    meta, inner = data["series"], data["game"]
    if not isinstance(meta, Mapping) or set(meta) != _SERIES_KEYS:
        raise _fail(f"'series' must be a mapping with keys {sorted(_SERIES_KEYS)}")
    if not isinstance(inner, Mapping):
        raise _fail("'game' must be a mapping (a game of the family)")
    raw = data["variant"]
    if not isinstance(raw, Mapping):
        raise _fail("'variant' must be a mapping")
    try:
        variant = variant_from_data(dict(raw), source="<series JSON>")
    except CardshopError as exc:
        raise _fail(f"invalid variant: {exc}") from None
    if variant.family != family.name or json.dumps(variant.to_data()) != json.dumps(raw):
        raise _fail("the variant must be in resolved form and of the family named")
    if variant.match is None:
        raise _fail("the variant declares no match")
    options, finished = meta["options"], meta["finished"]
    if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
        raise _fail("'options' must be a mapping of names")
    first = meta["first_player"]
    if not _int(first):
        raise _fail(f"'first_player' must be a seat, not {first!r:.40}")
    try:
        series = new_series(variant, meta["players"], meta["seed"], first or None, **options)
    except (CardshopError, TypeError) as exc:
        raise _fail(str(exc)) from None
    if not isinstance(finished, list) or len(finished) >= series.games:
        raise _fail(f"'finished' must be a list of fewer than {series.games} games")
    for i, done in enumerate(finished):
        _replay_finished(series, i, done)
    try:
        game = family.game_from_dict(inner, **reader_options)
    except CardshopError as exc:
        raise _fail(f"game {series.game_index + 1}: {exc}") from None
    expected = series.current
    if not isinstance(game, type(expected)):
        raise _fail(f"'game' is not a game of the {family.name} family")
    if game.players != expected.players or game.seed != expected.seed:
        raise _fail(
            f"'game' is not game {series.game_index + 1} of the series: its seed or "
            "player count differ"
        )
    if game.setup_options() != expected.setup_options():
        raise _fail(f"'game' is not game {series.game_index + 1}: another seat started it")
    if game.variant.content_hash != variant.content_hash:
        raise _fail("'game' plays another variant than the series")
    if game.is_over and series.game_index + 1 < series.games:
        raise _fail("'game' is over but the series has games left: it must be in 'finished'")
    series._game = game
    if game.is_over:
        series._game_ended()
    return series


def _replay_finished(series: Series, index: int, done: object) -> None:
    where = f"finished game {index + 1}"
    if not isinstance(done, Mapping) or set(done) != {"moves", "result"}:
        raise _fail(f"{where} must be a mapping with 'moves' and 'result'")
    moves = done["moves"]
    if not isinstance(moves, list):
        raise _fail(f"{where}: 'moves' must be a list")
    steps: list[dict[Seat, str]] = []
    for move in moves:
        if (
            not isinstance(move, list)
            or len(move) != 3
            or not (_int(move[0]) and _int(move[1]) and isinstance(move[2], str))
        ):
            raise _fail(f"{where}: a move is [step, seat, action text]")
        number, seat, text = move
        if number == len(steps) - 1 and seat not in steps[-1]:
            steps[-1][seat] = text
        elif number == len(steps):
            steps.append({seat: text})
        else:
            raise _fail(f"{where}: steps must count 0, 1, 2, ... (one move a seat a step)")
    game = series.current
    try:
        for step in steps:
            if game.is_over:
                raise _fail(f"{where} has moves after its end")
            if len(step) == 1 and tuple(step) == game.acting:
                ((seat, text),) = step.items()
                game.apply(text, seat)
            else:
                game.apply_joint(step)
    except PositionError:
        raise
    except CardshopError as exc:
        raise _fail(f"{where} does not replay: {exc}") from None
    if not game.is_over:
        raise _fail(f"{where} is not over after its moves")
    if game.result().to_dict() != done["result"]:
        raise _fail(f"{where}: its result is not the one its moves give")
    series._game_ended()


# ---------------------------------------------------------------- the encoder


class SeriesEncoder:
    """A series' observation as numbers: ``series.game``, ``series.games_left``, each
    seat's total (clipped to ``+-2**24``), then the family's encoding of the current
    game's observation."""

    def __init__(self, inner: ObservationEncoder, players: int, games: int) -> None:
        self.inner = inner
        self.players = players
        self.games = games
        totals = tuple(f"series.totals[{s}]" for s in range(players))
        self.labels: tuple[str, ...] = (*SERIES_LABELS, *totals, *inner.labels)
        self.low: tuple[float, ...] = (
            0.0,
            0.0,
            *(-TOTAL_BOUND for _ in totals),
            *inner.low,
        )
        self.high: tuple[float, ...] = (
            float(games - 1),
            float(games - 1),
            *(TOTAL_BOUND for _ in totals),
            *inner.high,
        )

    def encode(self, observation: Any) -> list[float]:
        o: SeriesObservation = observation
        bound = TOTAL_BOUND
        return [
            float(o.game_index),
            float(o.games - 1 - o.game_index),
            *(min(max(float(t), -bound), bound) for t in o.totals),
            *self.inner.encode(o.current),
        ]


def series_encoder(family: Family, variant: VariantBase, players: int) -> ObservationEncoder:
    """The observation encoder of ``variant`` at ``players``: the family's own, with
    the series counters in front when the variant is played as a series."""
    inner = family.observation_encoder(variant, players)
    if variant.match is None:
        return inner
    return SeriesEncoder(inner, players, players * variant.match.games_per_player)


_VIEWS: dict[str, Family] = {}


class _SeriesMonitor:
    """A family's monitor (``check.monitor``) following every game of a match in turn.

    Each step is booked with the game it was played in (the match's own events left
    out) and checked against that game, finished or not; when the next game has
    started, a fresh monitor follows it from its setup.
    """

    def __init__(self, factory: Any, game: Game) -> None:
        self._factory = factory
        self._inner = current_game(game)
        self._monitor = factory(self._inner)
        view = getattr(factory, "view", None)
        if view is not None:  # the family's reading of a state, of the current game
            self.view = _series_view(view)

    def record(self, actions: Mapping[Seat, Action], events: list[Event]) -> Any:
        own = [e for e in events if not isinstance(e, SeriesGameEnded)]
        return self._monitor.record(actions, own)

    def check(self, game: Game, *seen: Any) -> Any:
        now = current_game(game)
        fault = self._monitor.check(self._inner, *(seen if now is self._inner else ()))
        if now is not self._inner:
            self._inner = now
            self._monitor = self._factory(now)
            fault = fault or self._monitor.check(now, *seen)
        return fault


def _current_view(view: Any, game: Game) -> Any:
    return view(current_game(game))


@functools.cache
def _series_view(view: Any) -> Any:
    """A family's ``view`` of a state, read on the match's current game (one per view,
    so the checks sharing it keep sharing it)."""
    return functools.partial(_current_view, view)


@functools.cache
def _series_monitor(factory: Any) -> Any:
    """One series factory per family factory: checks sharing a monitor keep sharing it."""
    return functools.partial(_SeriesMonitor, factory)


class _LiftedCheck:
    """A family's invariant check applied to a match's current game; a monitor the
    check offers follows the match game by game (:class:`_SeriesMonitor`), and its
    ``quick`` form (or none) is lifted too, so that the harness runs the thorough form
    only on its thorough steps, as it does for a single game."""

    quick: _LiftedCheck | None

    def __init__(self, check: Any) -> None:
        self._check = check
        factory = getattr(check, "monitor", None)
        self.monitor = None if factory is None else _series_monitor(factory)
        view = getattr(check, "view", None)
        self.view = None if view is None else _series_view(view)
        if hasattr(check, "quick"):  # absent: the check is its own quick form
            quick = check.quick
            self.quick = None if quick is None else _LiftedCheck(quick)

    def __call__(self, game: Game, *seen: Any) -> str | None:
        result: str | None = self._check(current_game(game), *seen)
        return result


def family_for(variant: VariantBase) -> Family:
    """The family object the tools use for games of ``variant``.

    For a variant played as a match, a view of its family whose members take the
    series: ``render`` and ``table_view`` add the match's counters, events include the series' own,
    invariants and search see the current game (a search plays on inside it).
    """
    family = get_family(variant.family)
    if variant.match is None:
        return family
    view = _VIEWS.get(family.name)
    if view is None or view.variant_model is not family.variant_model:

        def lifted(inv: Invariant) -> Invariant:
            return Invariant(inv.name, _LiftedCheck(inv.check), inv.description)

        sampler = family.sampler
        determinizer = family.determinizer
        drawn = family.table_view
        view = dataclasses.replace(
            family,
            render=render,
            table_view=None if drawn is None else functools.partial(table_view, drawn),
            observation_encoder=functools.partial(series_encoder, family),
            event_to_dict=functools.partial(event_to_dict, family),
            event_from_dict=functools.partial(event_from_dict, family),
            invariants=tuple(lifted(inv) for inv in family.invariants),
            sampler=(
                None
                if sampler is None
                else lambda obs, v, rng: sampler(getattr(obs, "current", obs), v, rng)
            ),
            determinizer=(
                None
                if determinizer is None
                else lambda obs, v, rng: determinizer(getattr(obs, "current", obs), v, rng)
            ),
        )
        _VIEWS[family.name] = view
    return view
