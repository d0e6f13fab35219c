"""The invariant harness: properties every game keeps, checkable at any moment.

Two sets of invariants are checked together, for a game of any family:

* the **generic** ones (:data:`GENERIC_INVARIANTS`), which every game of every family
  must pass because the core's protocol promises them (``acting``,
  ``legal_actions``, ``determinism``, ``result``; see the table below);
* the **family's own** (``Family.invariants``): properties of its rules, each an
  :class:`~cardshop.core.family.Invariant` whose ``check(game)`` returns ``None`` or what
  is wrong. Several checks may share a name (a state check and an account of what
  happened between states, say); a family may add to a generic name too.

They are used three ways:

* at run time, as a debug mode: :class:`CheckedGame` wraps a game and checks every
  invariant after every step, raising :class:`InvariantViolation` with a
  replayable :class:`Counterexample` at the first one that fails::

      from cardshop import new_game
      from cardshop.invariants import CheckedGame

      game = CheckedGame(new_game("klunker-en", players=4, seed=1))
      while not game.is_over:
          seat = game.acting[0]
          game.apply(game.legal_actions(seat)[0], seat)

* from tests, all at once (:func:`check_all`);
* by :mod:`cardshop.testing` (strategies, the state machine, the conformance suite
  every family runs) and ``cardshop audit``.

The generic invariants:

``acting``          the acting seats are distinct seats in order, one at a time in a
                    turn-based game, and none exactly when the game is over
``legal_actions``   each acting seat has legal actions, sorted by text and distinct,
                    whose texts parse back to them; none are offered when the game
                    is over; a legal action plays without error
``determinism``     a clone and a JSON round trip (``type(game).from_json``) equal the
                    game, show each seat the same observation and play the same step
                    to the same events and state without changing the original; a
                    finished game started by ``new_game`` replays from its seed and
                    moves to the same events and an equal state
``result``          ``result()`` refuses to answer before the end; at the end it has a
                    score and rank per seat, a higher score never ranks worse, ranks
                    count the seats ranked better, and the winners are the seats of
                    rank 1

Optional members of a family's checks
-------------------------------------
A check is any callable ``check(game) -> str | None``. Two optional attributes let
the harness run it well:

``quick``    a cheaper check run between thorough checks (``CheckedGame(every=N)``,
             ``check_all(thorough=False)``); ``None`` means "only when thorough".
``monitor``  ``monitor(game) -> Monitor``: an incremental observer (:class:`Monitor`)
             that books each step's events as the harness plays the game; the harness
             starts one per distinct factory and game and lets it serve every check
             that names it, instead of calling those checks on the state alone
             (:func:`check_all` follows a replay of the game from its setup). A
             family's independent oracle (Klunker's ``Ledger``) plugs in here.
``view``     ``view(game) -> V``: a reading of the state that several checks share
             (a monitor may have one too): each time the harness checks a state, it
             reads each distinct view once and calls ``check(game, value)`` (a
             monitor's ``check(game, value)``) instead of ``check(game)``. The state
             is read afresh for every check of every step; nothing is kept between.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import islice
from operator import lt
from typing import Any, Protocol, TypeVar

from cardshop import driver
from cardshop.core.actions import (
    Action,
    Seat,
)
from cardshop.core.errors import (
    CardshopError,
    Counterexample,
    GameStateError,
    InvariantViolation,
)
from cardshop.core.family import Invariant
from cardshop.core.frontdoor import new_game as _new_game
from cardshop.core.game import (
    Dynamics,
    Event,
    Game,
    Termination,
)
from cardshop.core.registry import get_family
from cardshop.core.series import (
    Series,
    family_for,
)

__all__ = [
    "GENERIC_INVARIANTS",
    "CheckedGame",
    "Counterexample",
    "InvariantViolation",
    "LegalMemo",
    "Monitor",
    "active_memo",
    "check_acting",
    "check_all",
    "check_copies",
    "check_legal_actions",
    "check_replay",
    "check_result",
    "check_state",
    "describe_invariants",
    "game_setup",
    "invariant_names",
    "invariants_of",
    "shared_memo",
    "steps_of",
]

T = TypeVar("T")

Step = dict[Seat, Action]
"""The actions of one step: one seat's in a turn, every acting seat's in a tick."""


# ----------------------------------------------------------------- the monitors


class Monitor(Protocol):
    """An incremental observer of one game (see the module docstring, ``monitor``).

    ``record`` books one step's actions and events; ``check`` compares the account
    with the game. Each returns ``(invariant name, detail)`` for a fault, else ``None``.
    """

    def record(
        self, actions: Mapping[Seat, Action], events: Sequence[Event]
    ) -> tuple[str, str] | None: ...

    def check(self, game: Game) -> tuple[str, str] | None: ...


# ------------------------------------------------------------ the generic checks


class _Check:
    """A generic check, with the optional ``quick`` member of the protocol."""

    def __init__(
        self,
        run: Callable[[Game], str | None],
        *,
        thorough_only: bool = False,
        quick: Callable[[Game], str | None] | None = None,
    ):
        self._run = run
        if thorough_only or quick is not None:
            self.quick: Callable[[Game], str | None] | None = quick

    def __call__(self, game: Game) -> str | None:
        return self._run(game)


def check_acting(game: Game) -> str | None:
    """The acting seats are distinct seats in order; none exactly when the game is over."""
    acting = game.acting
    over = game.is_over
    if over and acting:
        return f"the game is over but seats {list(acting)} act"
    if not over and not acting:
        return "the game is not over but no seat acts"
    if list(acting) != sorted(set(acting)) or any(
        not isinstance(s, int) or not 0 <= s < game.players for s in acting
    ):
        return f"the acting seats {list(acting)} are not distinct seats in order"
    if game.dynamics is Dynamics.SEQUENTIAL and len(acting) > 1:
        return f"a turn-based game lets seats {list(acting)} act together"
    return None


class LegalMemo:
    """What :func:`check_legal_actions` has already verified, to check each list of
    legal actions once, however often it is offered.

    ``parse_action`` depends on the variant, the player count and the seat, never on
    the state (its contract: legality is for ``apply`` to say), so an action whose text
    was seen to parse back to it for a seat need not be parsed again for that seat;
    the texts of actions are kept, and a list already seen sorted and distinct (the
    same actions in the same order) need not be sorted again. One memo serves the games
    of one variant and player count (:class:`CheckedGame` starts its own unless given
    one); a memo shared by games of another variant or player count starts afresh.
    """

    __slots__ = ("_key", "_lists", "_parsed", "_texts")

    MAX_LISTS = 4096
    """Lists remembered as sorted and distinct (then forgotten all at once)."""

    def __init__(self) -> None:
        self._key: tuple[str, int] | None = None
        self._texts: dict[Action, str] = {}
        self._parsed: dict[Seat, set[Action]] = {}
        self._lists: set[tuple[Action, ...]] = set()

    def _for(self, game: Game) -> None:
        key = (game.variant.content_hash, game.players)
        if key != self._key:
            self._key = key
            self._texts.clear()
            self._parsed.clear()
            self._lists.clear()

    def check(self, game: Game, seat: Seat, legal: Sequence[Action]) -> str | None:
        """What is wrong with ``seat``'s ``legal`` actions in ``game`` (sorted by text,
        distinct, each parsing back), or ``None``; only new lists and actions cost."""
        self._for(game)
        whole = tuple(legal)
        if whole not in self._lists:
            texts = self._texts
            try:
                shown = list(map(texts.__getitem__, whole))
            except KeyError:
                texts.update((a, str(a)) for a in whole if a not in texts)
                shown = list(map(texts.__getitem__, whole))
            problem = _order_problem(seat, shown)
            if problem:
                return problem
            if len(self._lists) >= self.MAX_LISTS:
                self._lists.clear()
            self._lists.add(whole)
        parsed = self._parsed.setdefault(seat, set())
        if parsed.issuperset(whole):
            return None
        for action in whole:
            if action in parsed:
                continue
            text = self._texts.get(action) or str(action)
            if game.parse_action(text, seat) != action:
                return f"{text!r} does not parse back to the same action for seat {seat}"
            parsed.add(action)
        return None


def _order_problem(seat: Seat, texts: Sequence[str]) -> str | None:
    """What is wrong with the order of a seat's legal actions, given their texts: each
    text must come strictly after the one before (sorted and distinct in one pass). As
    equal actions have equal texts, distinct texts are distinct actions too."""
    if not all(map(lt, texts, islice(texts, 1, None))):
        shown = list(texts) if len(texts) <= 20 else [*texts[:20], "..."]
        return f"seat {seat}'s legal actions are not sorted by text and distinct: {shown}"
    return None


def check_acting_have_actions(game: Game) -> str | None:
    """The quick form of :func:`check_legal_actions`: each acting seat has a legal
    action, and none is offered at the end (order and texts are left to the
    thorough form)."""
    return check_legal_actions(game, shallow=True)


def check_legal_actions(
    game: Game, memo: LegalMemo | None = None, *, shallow: bool = False
) -> str | None:
    """Each acting seat's legal actions are sorted by text and distinct, and each text
    parses back to the same action; none at the end.

    ``memo`` skips what it has already verified (see :class:`LegalMemo`);
    ``shallow`` checks only that acting seats have legal actions (and none at the end).
    """
    if game.is_over:
        for seat in range(game.players):
            try:
                offered = game.legal_actions(seat)
            except GameStateError:
                continue
            if offered:
                return f"the game is over but seat {seat} is offered {[str(a) for a in offered]}"
        return None
    for seat in game.acting:
        legal = game.legal_actions(seat)
        if not legal:
            return f"seat {seat} acts but has no legal action"
        if shallow:
            continue
        if memo is not None:
            problem = memo.check(game, seat, legal)
            if problem:
                return problem
            continue
        texts = [str(a) for a in legal]
        problem = _order_problem(seat, texts)
        if problem:
            return problem
        for action, text in zip(legal, texts, strict=True):
            if game.parse_action(text, seat) != action:
                return f"{text!r} does not parse back to the same action for seat {seat}"
    return None


def check_result(game: Game) -> str | None:
    """``result()`` only at the end, and then well-formed (see the module docstring)."""
    if not game.is_over:
        try:
            game.result()
        except GameStateError:
            return None
        return "result() answers before the game is over"
    result = game.result()
    n = game.players
    if len(result.scores) != n or len(result.ranks) != n:
        return f"result() has {len(result.scores)} scores and {len(result.ranks)} ranks for {n}"
    if not isinstance(result.termination, Termination):
        return f"result() ends as {result.termination!r}, not a Termination"
    scores, ranks = result.scores, result.ranks
    for a in range(n):
        if ranks[a] != 1 + sum(1 for r in ranks if r < ranks[a]):
            return f"ranks {list(ranks)} do not count the seats ranked better (seat {a})"
        for b in range(n):
            if scores[a] > scores[b] and ranks[a] >= ranks[b]:
                return (
                    f"seat {a} scores {scores[a]} > seat {b}'s {scores[b]} but ranks "
                    f"{ranks[a]}, not better than {ranks[b]}"
                )
    winners = tuple(s for s in range(n) if ranks[s] == 1)
    if tuple(result.winners) != winners:
        return f"result() winners {list(result.winners)}; the seats of rank 1 are {list(winners)}"
    if result.rounds < 0 or any(v < 0 for v in result.details.values()):
        return f"result() counts a negative length: {result.rounds}, {dict(result.details)}"
    return None


def _same(a: Game, b: Game, *, moves: bool = True) -> bool:
    """Whether two games are in the same state with the same moves (``moves=False``:
    the same state, the moves, which grow with the game, aside)."""
    if type(a).__eq__ is object.__eq__:
        return a.to_dict() == b.to_dict()
    return bool(a == b) and (not moves or a.moves == b.moves)


def _json_copy(game: Game, text: str | None = None) -> Game:
    try:
        return type(game).from_json(game.to_json() if text is None else text)
    except CardshopError as exc:
        raise InvariantViolation(
            "determinism", f"the game does not survive a JSON round trip: {exc}"
        ) from None


def _first_step(game: Game) -> Step:
    return {seat: game.legal_actions(seat)[0] for seat in game.acting}


def _play(what: str, copy: Game, actions: Step) -> list[Event]:
    try:
        return driver.apply(copy, actions)
    except CardshopError as exc:
        raise InvariantViolation(
            "determinism", f"{what} cannot play {_show_step(actions)}: {exc}"
        ) from None


def _show_step(actions: Mapping[Seat, Action]) -> str:
    if len(actions) == 1:
        return repr(str(next(iter(actions.values()))))
    return "{" + ", ".join(f"{s}: {str(a)!r}" for s, a in sorted(actions.items())) + "}"


def _events_differ(what: str, ours: Sequence[Event], theirs: Sequence[Event]) -> str:
    for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            return f"{what}: event {i + 1} is {b!r} instead of {a!r}"
    return f"{what}: {len(theirs)} event(s) instead of {len(ours)}"


def _compare_after(
    what: str, game: Game, events: Sequence[Event], copy: Game, actions: Step, *, moves: bool = True
) -> str | None:
    """``copy`` was made just before ``game`` played ``actions``: it must play them the same
    (``moves=False``: to the same state, the moves not compared)."""
    theirs = _play(what, copy, actions)
    if theirs != list(events):
        return _events_differ(f"{what} then {_show_step(actions)}", events, theirs)
    if not _same(copy, game, moves=moves):
        return f"{what} then {_show_step(actions)} leaves a different state"
    return None


def check_copies(game: Game) -> str | None:
    """A clone and a JSON round trip equal the game, observe the same, and play alike.

    The first legal step is played on both copies; the game itself is not changed.
    """
    before = game.to_json()
    clone = game.clone()
    if clone is game:
        return "clone() returns the game itself"
    copy = _json_copy(game, before)
    for what, other in (("clone()", clone), ("JSON round trip", copy)):
        if not _same(other, game):
            return f"{what} gives a game that differs from the original"
        for seat in range(game.players):
            if other.observation(seat) != game.observation(seat):
                return f"{what} changes what seat {seat} observes"
    if game.is_over:
        return None
    actions = _first_step(game)
    events = _play("clone()", clone, actions)
    problem = _compare_after("JSON round trip", clone, events, copy, actions)
    if problem:
        return problem
    if game.to_json() != before:
        return f"playing {_show_step(actions)} on a copy changed the original game"
    return None


def _copies(game: Game) -> str | None:
    try:
        return check_copies(game)
    except InvariantViolation as exc:
        return exc.detail


GENERIC_INVARIANTS: tuple[Invariant, ...] = (
    Invariant(
        "acting",
        _Check(check_acting),
        "the acting seats are distinct seats in order, one at a time in a turn-based game, "
        "and none exactly when the game is over",
    ),
    Invariant(
        "legal_actions",
        _Check(check_legal_actions, quick=check_acting_have_actions),
        "every acting seat has legal actions, sorted by text and distinct, whose texts "
        "parse back to them and each of which plays without error; none are offered once "
        "the game is over",
    ),
    Invariant(
        "determinism",
        _Check(_copies, thorough_only=True),
        "clone and JSON round trip equal the game and play alike; the same seed and moves "
        "replay to the same events and state",
    ),
    Invariant(
        "result",
        _Check(check_result),
        "the result exists only at the end, ranks follow the scores and the winners are "
        "the seats of rank 1",
    ),
)
"""The invariants every game of every family keeps (checked before the family's)."""

# ---------------------------------------------------------------- the catalogue


def invariants_of(game_or_family: Game | str) -> tuple[Invariant, ...]:
    """The generic invariants and then the family's, for a game or a family name."""
    if isinstance(game_or_family, str):
        return (*GENERIC_INVARIANTS, *get_family(game_or_family).invariants)
    if isinstance(game_or_family, Series):  # the family's checks, on its current game
        return (*GENERIC_INVARIANTS, *family_for(game_or_family.variant).invariants)
    return (*GENERIC_INVARIANTS, *get_family(game_or_family.variant.family).invariants)


def invariant_names(invariants: Iterable[Invariant]) -> tuple[str, ...]:
    """The distinct names, in order of first appearance."""
    return tuple(dict.fromkeys(inv.name for inv in invariants))


def describe_invariants(family: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Each invariant's name -> (description, rule clauses) for a family's games.

    A family's description and clauses (an optional ``clauses`` member of its
    invariants) win over the generic description of the same name.
    """
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    for inv in invariants_of(family):
        clauses = tuple(getattr(inv, "clauses", ()))
        known = out.get(inv.name)
        if known is None or (clauses and not known[1]):
            out[inv.name] = (inv.description or (known[0] if known else ""), clauses)
    return out


def _wanted(invariants: Sequence[Invariant], checks: Collection[str] | None) -> frozenset[str]:
    names = invariant_names(invariants)
    wanted = frozenset(names if checks is None else checks)
    unknown = wanted - set(names)
    if unknown:
        raise ValueError(f"unknown invariants {sorted(unknown)}; known: {', '.join(names)}")
    return wanted


def _read(check: Any, game: Game, views: dict[Any, Any]) -> Any:
    """``check(game)``, or ``check(game, value)`` for a check (or a monitor's ``check``)
    whose owner has a ``view``: each distinct view is read once into ``views``."""
    view = getattr(getattr(check, "__self__", check), "view", None)
    if view is None:
        return check(game)
    if view not in views:
        views[view] = view(game)
    return check(game, views[view])


def _run(
    inv: Invariant, check: Callable[[Game], str | None], game: Game, views: dict[Any, Any]
) -> None:
    try:
        detail = _read(check, game, views)
    except InvariantViolation:
        raise
    except Exception as exc:  # a check that crashes on this game has found a fault too
        detail = f"checking it raised {type(exc).__name__}: {exc}"
    if detail:
        raise InvariantViolation(inv.name, detail)


def _check_states(
    game: Game,
    invariants: Sequence[Invariant],
    wanted: Collection[str],
    *,
    thorough: bool,
    views: dict[Any, Any],
) -> None:
    """The checks of the state alone (those a monitor serves are left to it)."""
    for inv in invariants:
        if inv.name not in wanted:
            continue
        check: Callable[[Game], str | None] | None = inv.check
        if getattr(check, "monitor", None) is not None:
            continue  # a monitor following the game serves it
        if not thorough:
            check = getattr(check, "quick", check)
        if check is not None:
            _run(inv, check, game, views)


def check_state(
    game: Game, invariants: Sequence[Invariant] | None = None, *, quick: Collection[str] = ()
) -> None:
    """Check every invariant of the state alone, thoroughly, and raise the first broken.

    ``invariants`` defaults to :func:`invariants_of` the game; those named in
    ``quick`` run their quick form (``cardshop verify`` plays every legal action
    itself, so it checks ``legal_actions`` quickly). A family's account of what
    happened between states (a check with a ``monitor``) is left out: it needs the
    steps that led here (:func:`check_all` replays them).
    """
    found = invariants_of(game) if invariants is None else tuple(invariants)
    views: dict[Any, Any] = {}
    for inv in found:
        check: Callable[[Game], str | None] | None = inv.check
        if getattr(check, "monitor", None) is not None:
            continue
        if inv.name in quick:
            check = getattr(check, "quick", check)
        if check is not None:
            _run(inv, check, game, views)


def _factories(
    invariants: Sequence[Invariant], wanted: Collection[str]
) -> tuple[Callable[[Game], Monitor], ...]:
    """The distinct monitor factories of the wanted checks, in order."""
    factories: list[Callable[[Game], Monitor]] = []
    for inv in invariants:
        factory = getattr(inv.check, "monitor", None)
        if inv.name in wanted and factory is not None and factory not in factories:
            factories.append(factory)
    return tuple(factories)


def _replay_monitored(
    game: Game, factories: Sequence[Callable[[Game], Monitor]], wanted: Collection[str]
) -> tuple[str, str] | None:
    """The first wanted fault the monitors find following ``game`` from its setup.

    The moves are replayed from the setup, a fresh monitor of each factory booking
    every step as :class:`CheckedGame` does. A game that its setup and moves do not
    give (one set up from a position) has nothing to replay: ``None``, as for a
    replay that fails (the ``determinism`` check reports that).
    """
    try:
        again = _fresh(game)
        monitors = [factory(again) for factory in factories]
        found: tuple[str, str] | None = None

        def report(i: int, fault: tuple[str, str] | None) -> None:
            nonlocal found
            if fault is None:
                return
            if fault[0] in wanted:
                found = fault
            else:  # a fault nobody asked about: a fresh account from here
                monitors[i] = factories[i](again)

        for i, monitor in enumerate(monitors):
            report(i, _read(monitor.check, again, {}))
        for actions in steps_of(game):
            events = driver.apply(again, actions)
            if found is not None:
                continue  # the rest of the replay only tells whether it is this game
            views: dict[Any, Any] = {}
            for i, monitor in enumerate(list(monitors)):
                report(i, monitor.record(actions, events))
            for i, monitor in enumerate(list(monitors)):
                if found is None:
                    report(i, _read(monitor.check, again, views))
        return found if _same(again, game) else None
    except CardshopError:
        return None


def check_all(
    game: Game,
    *,
    checks: Collection[str] | None = None,
    thorough: bool = True,
    replayable: bool = False,
) -> None:
    """Check every invariant that can be checked on ``game`` now; raise the first broken.

    ``checks`` limits the run to some invariant names; ``thorough=False`` runs each
    check's ``quick`` form (leaving out copies and other costly checks).
    ``replayable=True`` says the game was started by ``new_game``: then its moves must
    replay from its seed to an equal state (part of ``determinism``). Checks that a
    monitor serves (a family's account of what happened between states) follow a
    replay of the game from its setup, each monitor started once; a game set up from
    a position has no setup to replay, and only :class:`CheckedGame` following it
    checks them (from where it first saw the game).
    """
    invariants = invariants_of(game)
    wanted = _wanted(invariants, checks)
    _check_states(game, invariants, wanted, thorough=thorough, views={})
    factories = _factories(invariants, wanted)
    if factories:
        fault = _replay_monitored(game, factories, wanted)
        if fault is not None:
            raise InvariantViolation(*fault)
    if replayable and "determinism" in wanted:
        check_replay(game)


# ------------------------------------------------------------- setup and replay


def steps_of(game: Game) -> list[Step]:
    """The game's moves grouped into steps (one action, or one tick of actions)."""
    steps: list[Step] = []
    last = None
    for move in game.moves:
        if move.step != last:
            steps.append({})
            last = move.step
        steps[-1][move.seat] = move.action
    return steps


def game_setup(game: Game) -> dict[str, Any]:
    """The options ``new_game`` needs besides variant, players and seed to set ``game``
    up again: its :meth:`~cardshop.Game.setup_options`, empty for a game set up from a
    position (whose moves do not start at a setup)."""
    return dict(game.setup_options() or {})


def _fresh(game: Game) -> Game:
    return _new_game(game.variant, game.players, game.seed, **game_setup(game))


def _replays(game: Game) -> bool:
    """Whether ``game`` is what its setup and moves give (false for a position)."""
    try:
        again = _fresh(game)
        for actions in steps_of(game):
            driver.apply(again, actions)
        return _same(again, game)
    except CardshopError:
        return False


def check_replay(game: Game, events: Sequence[Sequence[Event]] | None = None) -> None:
    """Replaying the game's setup and moves gives the same events and an equal state.

    ``events`` are the event lists of each step (as ``apply`` returned them); without
    them only the final state is compared. The game must have been started by
    ``new_game`` (or ``replay``), not set up from a position.
    """
    steps = steps_of(game)
    if events is not None and len(events) != len(steps):
        raise ValueError(f"{len(events)} event lists for {len(steps)} steps")
    again = _fresh(game)
    for i, actions in enumerate(steps):
        try:
            theirs = driver.apply(again, actions)
        except CardshopError as exc:
            raise InvariantViolation(
                "determinism", f"replay of step {i + 1} ({_show_step(actions)}) fails: {exc}"
            ) from None
        if events is not None and theirs != list(events[i]):
            raise InvariantViolation(
                "determinism",
                _events_differ(
                    f"replay of step {i + 1} ({_show_step(actions)})", events[i], theirs
                ),
            )
    if not _same(again, game):
        raise InvariantViolation(
            "determinism", "replaying the same seed and moves leads to a different state"
        )


# --------------------------------------------------------------- the debug mode

_SHARED_MEMO: ContextVar[LegalMemo | None] = ContextVar("cardshop_legal_memo", default=None)


def active_memo() -> LegalMemo | None:
    """The memo of the innermost :func:`shared_memo` block, if any."""
    return _SHARED_MEMO.get()


@contextmanager
def shared_memo(memo: LegalMemo | None = None) -> Iterator[LegalMemo]:
    """One :class:`LegalMemo` (``memo``, or a new one) for every :class:`CheckedGame`
    started inside (an audit's games, its state machine), so that a list of legal
    actions offered again in another game is not checked again."""
    memo = LegalMemo() if memo is None else memo
    token = _SHARED_MEMO.set(memo)
    try:
        yield memo
    finally:
        _SHARED_MEMO.reset(token)


def _memoised(inv: Invariant, memo: LegalMemo) -> Invariant:
    """The generic legal-actions invariant checking through ``memo``; others as they are."""
    if inv is not GENERIC_INVARIANTS[1]:
        return inv
    check = _Check(lambda game: check_legal_actions(game, memo), quick=check_acting_have_actions)
    return Invariant(inv.name, check, inv.description)


class CheckedGame:
    """A game in debug mode: every invariant is checked after every step.

    Wraps a game of any family (other attributes are the game's own). ``apply`` and
    ``apply_joint`` play the step, let the family's monitors book its events, check
    every invariant, compare a clone and a JSON copy made before the step, and, at
    the end of a game started by ``new_game``, replay it from its seed. The first
    failure raises :class:`InvariantViolation` with a counterexample of steps from
    the game's setup. An illegal step raises what the game raises and changes nothing.

    ``checks`` limits the invariants checked; ``every`` runs the thorough form of the
    checks (copies, hidden information, every legal action's text, ...) only after
    every ``every``-th step and at the end. The checks cost O(1) a step, amortised,
    however long the game: the JSON copy (whose reader replays the whole history) is
    made, and the copies' moves compared, at the thorough steps asked for with
    ``thorough=True`` and otherwise at doubling intervals; the legal actions are
    checked through :attr:`memo`. ``variant_ref`` is how counterexamples name the
    variant (a built-in name or a file path; default: the variant's name).
    """

    def __init__(
        self,
        game: Game,
        *,
        checks: Collection[str] | None = None,
        every: int = 1,
        variant_ref: str | None = None,
        memo: LegalMemo | None = None,
    ) -> None:
        self.game = game
        self.memo = memo or _SHARED_MEMO.get() or LegalMemo()
        """What the legal-actions check has verified (see :class:`LegalMemo`)."""
        self.invariants = tuple(_memoised(inv, self.memo) for inv in invariants_of(game))
        self.checks = _wanted(self.invariants, checks)
        self.every = max(1, every)
        self._factories = _factories(self.invariants, self.checks)
        self.monitors: list[Monitor] = [factory(game) for factory in self._factories]
        """The family's monitors following this game (Klunker: its Ledger)."""
        self.replayable = _replays(game)
        """Whether the game replays from its setup (false for a game set up from a position)."""
        self.variant_ref = variant_ref or game.variant.name
        self.events: list[list[Event]] = []
        """The events of each step played through this wrapper."""
        self._played = steps_of(game)
        self.steps = len(self._played)
        """Steps played so far (before and through this wrapper)."""
        self._json_due = self.steps + 1  # the next scheduled step with a JSON round trip
        self._guard(lambda: self._check(full=True))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def __repr__(self) -> str:
        return f"<CheckedGame {self.game!r}>"

    @property
    def is_over(self) -> bool:
        return self.game.is_over

    @property
    def acting(self) -> tuple[Seat, ...]:
        return self.game.acting

    def legal_actions(self, seat: Seat | None = None) -> Sequence[Action]:
        return self.game.legal_actions(seat)

    def counterexample(self, invariant: str, detail: str) -> Counterexample | None:
        """The steps from setup that lead to the game's current state, if replayable."""
        if not self.replayable:
            return None
        game = self.game
        options = game_setup(game)
        first = options.pop("first_player", None)
        joint = game.dynamics is Dynamics.SIMULTANEOUS
        return Counterexample(
            invariant=invariant,
            detail=detail,
            variant=self.variant_ref,
            players=game.players,
            seed=game.seed,
            first_player=first,
            actions=tuple(
                {s: str(a) for s, a in step.items()} if joint else str(next(iter(step.values())))
                for step in self._played
            ),
            options=options,
        )

    def _guard(self, run: Callable[[], T]) -> T:
        try:
            return run()
        except InvariantViolation as exc:
            if exc.counterexample is not None:
                raise
            raise InvariantViolation(
                exc.invariant, exc.detail, self.counterexample(exc.invariant, exc.detail)
            ) from None

    def _check(self, *, full: bool) -> None:
        game = self.game
        # Determinism is checked on the steps themselves: copies made before a step
        # play it alike, and a finished game replays (stronger than copies of a state).
        wanted = self.checks - {"determinism"}
        views: dict[Any, Any] = {}  # the shared readings of this state, read once
        _check_states(game, self.invariants, wanted, thorough=full, views=views)
        for monitor in self.monitors:
            self._report(_read(monitor.check, game, views), monitor)

    def _report(self, fault: tuple[str, str] | None, monitor: Monitor) -> None:
        if fault is None:
            return
        name, detail = fault
        if name in self.checks:
            raise InvariantViolation(name, detail)
        # A fault nobody asked about: the monitor starts a fresh account from here.
        i = self.monitors.index(monitor)
        self.monitors[i] = self._factories[i](self.game)

    def apply(
        self, action: Action | str, seat: Seat | None = None, *, thorough: bool | None = None
    ) -> list[Event]:
        """Play the one acting seat's action, then check (see the class docstring).

        ``thorough`` overrides ``every`` for this step (True: the thorough checks).
        """
        game = self.game
        seat = game.require_seat(seat)
        if isinstance(action, str):
            action = game.parse_action(action, seat)
        return self._step({seat: action}, lambda: game.apply(action, seat), thorough)

    def apply_joint(
        self, actions: Mapping[Seat, Action | str], *, thorough: bool | None = None
    ) -> list[Event]:
        """Play one action of each acting seat together, then check."""
        game = self.game
        parsed = {
            s: game.parse_action(a, s) if isinstance(a, str) else a for s, a in actions.items()
        }
        return self._step(parsed, lambda: game.apply_joint(parsed), thorough)

    def _step(
        self, actions: Step, play: Callable[[], list[Event]], thorough: bool | None
    ) -> list[Event]:
        game = self.game
        step = self.steps + 1
        full = step % self.every == 0 if thorough is None else thorough
        copies: list[tuple[str, Game]] = []
        history = False  # whether the copies' moves are compared too
        if full and "determinism" in self.checks:
            copies = [("clone()", game.clone())]
            # A JSON copy reads (and replays) the whole history, and comparing moves
            # reads it too: on the steps asked for, else at doubling intervals, which
            # costs O(1) a step in all.
            if thorough or step >= self._json_due:
                self._json_due = 2 * step
                history = True
                copies.append(("JSON round trip", self._guard(lambda: _json_copy(game))))
        legal = sorted(actions) == list(game.acting) and all(
            a in game.legal_actions(s) for s, a in actions.items()
        )
        if legal:

            def checked() -> list[Event]:
                try:
                    return play()
                except Exception as exc:
                    if "legal_actions" not in self.checks:
                        # What the crash left is reported first, if anything is wrong.
                        self._check(full=True)
                    raise InvariantViolation(
                        "legal_actions",
                        f"the legal step {_show_step(actions)} raised {type(exc).__name__}: {exc}",
                    ) from None

            self._played.append(actions)
            events = self._guard(checked)
        else:
            self._played.append(actions)
            try:
                events = play()
            except BaseException:
                self._played.pop()  # an illegal step changes nothing
                raise
        self.steps += 1
        self.events.append(events)

        def after() -> None:
            for monitor in list(self.monitors):
                self._report(monitor.record(actions, events), monitor)
            self._check(full=full or game.is_over)
            for what, copy in copies:
                problem = _compare_after(what, game, events, copy, actions, moves=history)
                if problem:
                    raise InvariantViolation("determinism", problem)
            if game.is_over and "determinism" in self.checks and self.replayable:
                complete = len(self.events) == self.steps
                check_replay(game, self.events if complete else None)

        self._guard(after)
        return events
