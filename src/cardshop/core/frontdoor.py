"""The front door: games of any family started, replayed and read back.

The functions here find a game's family in the registry and hand the work to it:
:func:`new_game` and :func:`replay` start a game of any variant (a match as a
:class:`~cardshop.core.Series`), :func:`read_any_json` and :func:`read_any_position`
read one back whatever its family (``Game.from_json`` and ``Game.from_position`` of the
base class hand their work to them), and :func:`verify_history` checks that a game read
back replays from its setup. This is the top of the core: nothing of the core imports it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardshop.core.actions import Action, Seat
from cardshop.core.chance import check_seed
from cardshop.core.errors import CardshopError, IllegalActionError, PositionError
from cardshop.core.family import Family, check_options
from cardshop.core.game import ANY_GAME, Dynamics, Game, Move, read_game_json
from cardshop.core.loader import builtin_variants, load_variant
from cardshop.core.positions import position_data
from cardshop.core.registry import get_family
from cardshop.core.series import Series, family_for, new_series
from cardshop.core.variant import VariantBase

__all__ = [
    "HistoryCheck",
    "Resolved",
    "family_of",
    "new_game",
    "read_any_json",
    "read_any_position",
    "replay",
    "resolve",
    "verify_history",
]


@dataclass(frozen=True, slots=True)
class Resolved:
    """A variant resolved once, with the family that plays it.

    What a tool makes of the variant it is given (a built-in name, a path or a loaded
    variant) at its entry, with :func:`resolve`, and passes down: its parts never look
    the variant or its family up again.
    """

    variant: VariantBase
    family: Family
    """The family's members as tools use them for this variant: for a match, adapted
    to the series (:func:`~cardshop.core.series.family_for`)."""
    ref: str
    """How the caller named the variant: the name or path it gave, or the loaded
    variant's name (what reports and records call it)."""

    def new_game(
        self,
        players: int,
        seed: int | None = None,
        first_player: Seat | None = None,
        **options: Any,
    ) -> Game:
        """A new game of the variant; see :func:`new_game`."""
        if seed is not None:
            check_seed(seed)
        given = {k: v for k, v in options.items() if v is not None}
        if first_player is not None:
            given["first_player"] = first_player
        if given:
            check_options(self.family, given)
        if self.variant.match is not None:
            return new_series(self.variant, players, seed, **given)
        return self.family.new_game(self.variant, players, seed, **given)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its variant and name: a worker process that loads it looks the
        family up in its own registry (a family's members need not pickle)."""
        return (_resolved, (self.variant, self.ref))


def _resolved(variant: VariantBase, ref: str) -> Resolved:
    return Resolved(variant, family_for(variant), ref)


def resolve(variant: VariantBase | str | Path | Resolved) -> Resolved:
    """``variant`` (a loaded variant, a built-in name or a path) loaded, with its family;
    a :class:`~cardshop.VariantError` or :class:`~cardshop.SetupError` says why not."""
    if isinstance(variant, Resolved):
        return variant
    loaded = load_variant(variant)
    return _resolved(loaded, loaded.name if isinstance(variant, VariantBase) else str(variant))


def new_game(
    variant: VariantBase | str | Path,
    players: int,
    seed: int | None = None,
    first_player: Seat | None = None,
    **options: Any,
) -> Game:
    """Start a game of any family: ``variant`` is a loaded variant, a built-in name or
    a path; ``seed`` makes every chance event reproducible (a fresh one if None);
    ``first_player`` is the seat that starts, for families that let it be chosen
    (drawn with the seed if None).

    Other ``options`` go to the family's ``new_game``. The seed is checked here, for
    every family (:func:`~cardshop.core.check_seed`: an int, not a bool, within
    :data:`~cardshop.core.SEED_LIMIT`), before the family sees it.

    A variant with a ``match`` key is played as a match: the game returned is then a
    :class:`~cardshop.core.Series` of ``players x match.games_per_player`` games,
    itself a game, whose ``first_player`` (default 0) starts its first game and seat
    ``first_player + i`` its game ``i`` (see :mod:`cardshop.core.series`).
    """
    return resolve(variant).new_game(players, seed, first_player, **options)


def replay(
    variant: VariantBase | str | Path,
    players: int,
    seed: int,
    first_player: Seat | None = None,
    actions: Iterable[Action | str | Mapping[Seat, Action | str]] = (),
    **options: Any,
) -> Game:
    """Replay a game from its setup and its steps: an action (or its text) for the one
    acting seat, or a mapping of seat to action for a simultaneous step."""
    game = new_game(variant, players, seed, first_player, **options)
    for i, step in enumerate(actions):
        try:
            if isinstance(step, Mapping):
                game.apply_joint(step)
            else:
                game.apply(step)
        except CardshopError as exc:
            raise IllegalActionError(f"action {i + 1} ({step}) does not replay: {exc}") from None
    return game


def read_any_json(text: str | bytes | Mapping[str, Any], **options: Any) -> Game:
    """A game of any family (or a match) from its JSON text or parsed data: the family
    named by the data reads it (``options`` go to its reader); see :meth:`Game.from_json`."""
    data = read_game_json(text)
    if "series" in data:  # a match of several games, played as one
        return Series.from_json(data, **options)
    return get_family(family_of(data)).game_from_dict(data, **options)


def read_any_position(position: Any, variant: Any = None) -> Game:
    """A game of any family from a position; see :meth:`Game.from_position`."""
    if variant is not None:
        loaded = load_variant(variant)
        return get_family(loaded.family).game_from_position(position, loaded)
    data = position_data(position)
    return get_family(family_of(data)).game_from_position(data, None)


class _Reader:
    """The reader :class:`Game`'s base class hands its work to."""

    from_json = staticmethod(read_any_json)
    from_position = staticmethod(read_any_position)


ANY_GAME.install(_Reader())


def family_of(data: Mapping[str, Any]) -> str:
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


class HistoryCheck:
    """A game's moves replayed from its setup as a reader reads them, so that a game JSON
    is refused at the first move that cannot be, before the rest is read.

    A family's reader of game JSON makes one for the game it fills (:meth:`Game._empty`,
    then the setup fields: ``setup_options()`` must answer), hands it each move as it
    reads it (:meth:`add`, in order), and calls :meth:`finish` once the state is set::

        check = HistoryCheck(game)
        for i, (step, seat, text) in enumerate(moves):
            action = game.parse_action(text, seat)   # ... every bound checked first
            check.add(step, seat, action)
            game._moves.append((step, seat, action))
        ...                                          # the state, then its checks
        check.finish(game)

    A game set up from a position (``setup_options()`` is ``None``) is not replayed:
    :attr:`replaying` is false and :meth:`add` and :meth:`finish` do nothing.
    :func:`verify_history` is the same check of a game whose moves were all read.
    Raises :class:`~cardshop.PositionError` naming the first move that does not replay,
    or the parts of the state that the moves do not lead to.
    """

    __slots__ = ("_again", "_count", "_first", "_group", "_what")

    def __init__(self, game: Game, what: str = "game JSON") -> None:
        self._what = what
        self._count = 0
        self._first = 0
        self._group: list[Move] = []
        self._again: Game | None = None
        setup = game.setup_options()
        if setup is not None:
            # A match is set up by cardshop.new_game; a game of it (of a variant with a
            # 'match' key too) by its family's own new_game.
            deal = new_game if isinstance(game, Series) else get_family(game.family).new_game
            self._again = deal(game.variant, game.players, game.seed, **setup)

    @property
    def replaying(self) -> bool:
        """Whether the moves are replayed: the game says how it was set up."""
        return self._again is not None

    def add(self, step: int, seat: Seat, action: Action) -> None:
        """The next move read (``step``, ``seat``, ``action``): played on the replay at
        once in a game whose seats take turns, with the other moves of its step in a
        simultaneous one (when the next step begins, or at :meth:`finish`)."""
        index = self._count
        self._count = index + 1
        again = self._again
        if again is None:
            return
        group = self._group
        if group and group[0].step != step:
            self._flush()
        if not group:
            self._first = index
        group.append(Move(step, seat, action))
        if again.dynamics is Dynamics.SEQUENTIAL:
            self._flush()

    def _flush(self) -> None:
        again, group = self._again, self._group
        if again is None or not group:
            return
        first = group[0]
        try:
            if len(group) == 1 and again.dynamics is Dynamics.SEQUENTIAL:
                again.apply(first.action, first.seat)
            else:
                again.apply_joint({m.seat: m.action for m in group})
        except CardshopError as exc:
            raise PositionError(
                f"{self._what}: moves[{self._first}] ({first.action}, step {first.step}) "
                f"does not replay from the setup: {exc}"
            ) from None
        group.clear()

    def finish(self, game: Game) -> None:
        """The last step played, and the replay compared with ``game``, whose state is
        now set: it must be the same :meth:`Game.to_dict`, so moves that were dropped,
        added or changed, and counters set by hand, are all found."""
        again = self._again
        if again is None:
            return
        self._flush()
        ours, theirs = game.to_dict(), again.to_dict()
        if ours != theirs:
            diff = [k for k in ours if ours.get(k) != theirs.get(k)]
            a, b = ours.get("state"), theirs.get("state")
            if "state" in diff and isinstance(a, dict) and isinstance(b, dict):
                diff = [k for k in diff if k != "state"]
                diff += [f"state.{k}" for k in a if a.get(k) != b.get(k)]
            raise PositionError(
                f"{self._what}: the moves do not lead from the setup to the stated game (it "
                f"differs in {', '.join(diff[:8])}); a game that did not start from "
                'new_game says "from_setup": false'
            )


def verify_history(game: Game, what: str = "game JSON") -> None:
    """Check that ``game.moves`` lead from its setup to its state, exactly.

    A new game with the same variant, players, seed and :meth:`Game.setup_options` is
    played through the moves (the moves of one step together); it must reach the same
    :meth:`Game.to_dict`, so moves that were dropped, added or changed, and step
    counters that were set by hand, are all found. A game set up from a position
    (``setup_options()`` is ``None``) is not checked. Raises
    :class:`~cardshop.PositionError` naming the first move that does not replay or the
    parts of the state that differ. A reader that replays the moves as it reads them,
    to stop at the first one that cannot be, uses :class:`HistoryCheck` instead.
    """
    check = HistoryCheck(game, what)
    if not check.replaying:
        return
    for move in game.moves:
        check.add(*move)
    check.finish(game)
