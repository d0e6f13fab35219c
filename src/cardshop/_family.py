"""Families of games and the registry that finds them.

A family is a package that plays one kind of game from its variant files. It hands the
core one :class:`Family` object that says what it provides; tools never import a
family, they ask this registry. Families register through the Python entry point group
``cardshop.families`` (the built-in ones the same way a third party's would)::

    [project.entry-points."cardshop.families"]
    mygame = "mygame_package:FAMILY"

and, for tests and notebooks, at run time with :func:`register_family`.
"""

from __future__ import annotations

import functools
import inspect
import random
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol

from cardshop._core import Action, Seat, check_seed
from cardshop._errors import CardshopError, IllegalActionError, SetupError
from cardshop._events import EventCodec
from cardshop._factored import ActionFactors
from cardshop._game import Dynamics, Engine, Event, Game
from cardshop._variant import VariantBase

__all__ = [
    "CAP_POLICIES",
    "ENTRY_POINT_GROUP",
    "AuditDefaults",
    "BotFactory",
    "CandidatePolicy",
    "Family",
    "Invariant",
    "ObservationEncoder",
    "SearchHooks",
    "families",
    "game_options",
    "get_family",
    "new_game",
    "optionless_bot",
    "register_family",
    "replay",
    "unregister_family",
]

ENTRY_POINT_GROUP = "cardshop.families"


class ObservationEncoder(Protocol):
    """An observation as a fixed-length vector of numbers, for learning agents.

    ``labels``, ``low`` and ``high`` have one entry per number; :meth:`encode` returns
    plain floats (the environments turn them into arrays).
    """

    labels: tuple[str, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]

    def encode(self, observation: Any) -> list[float]: ...


class _Bot(Protocol):
    name: str

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action: ...


BotFactory = Callable[[VariantBase, int, str | None], _Bot]
"""Builds a bot from (variant, seed, option): the option is the text after a colon in a
bot name (``"500"`` in ``"ismcts:500"``), or ``None``."""


def optionless_bot(name: str, make: Callable[[VariantBase, int], _Bot]) -> BotFactory:
    """The factory of a bot that takes no option: ``make(variant, seed)`` builds it, and
    a name with an option (``"greedy:3"``) is a :class:`~cardshop.SetupError` that
    names the bot ``name``."""

    def factory(variant: VariantBase, seed: int, option: str | None) -> _Bot:
        if option is not None:
            raise SetupError(f"bot {name!r} takes no option (got '{name}:{option}')")
        return make(variant, seed)

    factory.__name__ = factory.__qualname__ = f"make_{name}"
    return factory


RolloutPolicy = Callable[[Game, Seat, random.Random], Action]
"""Chooses an action for an acting seat of a (sampled, fully known) game in a playout."""

CandidatePolicy = Callable[[Game, Seat], Sequence[Action] | None]
"""The actions a tree search tries for an acting seat of a (sampled) game: a small
subset of its legal actions, or ``None`` for all of them."""


@dataclass(frozen=True, slots=True)
class SearchHooks:
    """What a family may add to the core's tree search (all optional).

    ``rollout(variant, seed)`` builds the playout policy (default: uniform random);
    ``evaluate(game)`` gives each seat a value in [0, 1] for a game a playout stopped
    before its end; ``progress(game)`` is a counter (rounds, say) after ``horizon``
    units of which a playout stops and ``evaluate`` is used.

    ``candidates(variant, seed)`` builds a :data:`CandidatePolicy` for a family whose
    decisions can have too many legal actions to try them all (thousands of trade
    offers, say): called with a sampled game and an acting seat, it returns the
    actions the tree expands at that node -- distinct, each legal for that seat in that
    game, and not empty -- or ``None`` to use all the legal actions. It should depend
    only on what that seat knows and ``seed``, so that the samples of one
    information set see the same candidates, and it should not list every legal
    action to find them (that is the cost it saves). Without the hook every legal
    action is a candidate.
    """

    rollout: Callable[[VariantBase, int], RolloutPolicy] | None = None
    evaluate: Callable[[Game], Sequence[float]] | None = None
    progress: Callable[[Game], int] | None = None
    candidates: Callable[[VariantBase, int], CandidatePolicy] | None = None


@dataclass(frozen=True, slots=True)
class Invariant:
    """A named property of every reachable state; ``check`` raises when it fails.

    ``check(game)`` returns ``None`` when the property holds and a short description of
    what is wrong otherwise.
    """

    name: str
    check: Callable[[Game], str | None]
    description: str = ""


CAP_POLICIES = ("fail", "report")
"""How an audit treats games that reach their variant's cap (:attr:`AuditDefaults.cap_policy`)."""


@dataclass(frozen=True, slots=True)
class AuditDefaults:
    """What ``cardshop audit`` (and :func:`cardshop.audit.run_audit`) does for a
    family's variants when an option is not given: chosen so that a plain ``cardshop
    audit VARIANT`` is meaningful and quick for the family. Explicit options override
    each of them; the report names the defaults it used.

    ``bots``: the bot of each seat in turn (names :func:`cardshop.bots.make_bot`
    knows; one name plays every seat). ``games``: simulated games per player count.
    ``check_every``: the thorough invariant checks (copies, hidden information, every
    legal action's text) run after every ``check_every``-th step of a simulated game.
    ``cap_policy``: ``"fail"``, the audit fails when more than ``max_cap_share`` of a
    player count's games reach the variant's cap (for rules where a capped game is a
    fault); ``"report"``, capped games are a statistic of the report and never fail it
    (for rules that allow them, as Wühltisch's tick cap). ``note``: why these
    defaults, in a sentence the report shows.
    """

    bots: tuple[str, ...] = ("random",)
    games: int = 1000
    check_every: int = 10
    cap_policy: str = "fail"
    max_cap_share: float = 0.0
    note: str = ""

    def __post_init__(self) -> None:
        if not self.bots or self.games < 0 or self.check_every < 1:
            raise SetupError(
                f"audit defaults need a bot, 0 or more games and check_every of 1 or more "
                f"(got {self.bots}, {self.games}, {self.check_every})"
            )
        if self.cap_policy not in CAP_POLICIES or not 0 <= self.max_cap_share <= 1:
            raise SetupError(
                f"audit defaults: cap_policy must be one of {', '.join(CAP_POLICIES)} and "
                f"max_cap_share within 0..1 (got {self.cap_policy!r}, {self.max_cap_share})"
            )


@dataclass(frozen=True, slots=True)
class Family:
    """What a family provides; see ``docs/architecture.md`` for each member's contract."""

    name: str
    dynamics: Dynamics
    variant_model: type[VariantBase]
    new_game: Callable[..., Game]
    """``new_game(variant, players, seed=None, **options)``: a new game, dealt."""
    game_from_dict: Callable[..., Game]
    """``game_from_dict(data, **options)``: a game from :meth:`Game.to_dict` data,
    every field validated (a :class:`~cardshop.PositionError` otherwise)."""
    game_from_position: Callable[[Any, VariantBase | None], Game]
    """A game from a position (the family's format) and an optional variant."""
    action_space: Callable[[VariantBase, int], Sequence[Action]]
    """Every action any seat may take at a player count, in a fixed order."""
    observation_encoder: Callable[[VariantBase, int], ObservationEncoder]
    event_to_dict: Callable[[Event], dict[str, Any]]
    event_from_dict: Callable[[Mapping[str, Any]], Event]
    render: Callable[[Game, Seat | None], str]
    """The table as text, as ``seat`` may see it (``None``: everything)."""
    describe_event: Callable[[VariantBase, Event, Seat | None], str] | None = None
    """Optional: ``describe_event(variant, event, seat)``, an event in words as ``seat``
    may know it (``cardshop play``), or for a reader who sees everything when ``seat`` is
    None (``cardshop demo``, ``cardshop replay --moves``): cards named by their faces
    where the event holds only their numbers, and another seat's private cards left
    out. Without it, ``str(event)``, which suits a family whose events are public."""
    table_view: Callable[[Game, Seat | None], dict[str, Any]] | None = None
    """Optional: ``table_view(game, seat)``, the table as JSON-able data for a graphical
    client (``cardshop serve``, docs/serve.md), as ``seat`` may see it; ``None`` is a
    spectator, who sees only what every seat may know (unlike :attr:`render`'s None).
    The data: ``{"headline": str, "zones": [zone], "seats": [{"seat": int, "lines":
    [str], "zones": [zone]}], "prompt": str}`` (``prompt`` optional); a zone is
    ``{"title": str, "cards": [card], "note": str}`` (``note`` optional); a card is
    ``{"face": str}`` or ``{"back": true}`` for a card face down, with optional
    ``count`` (copies), ``mark`` (a short line under the face) and ``color`` (a hint:
    red, blue, green, gold, violet, gray). Without it the server shows :attr:`render`."""
    invariants: Sequence[Invariant] = ()
    bots: Mapping[str, BotFactory] = field(default_factory=dict)
    sampler: Callable[[Any, VariantBase, random.Random], Game] | None = None
    """A whole game consistent with an observation, hidden cards dealt at random."""
    determinizer: (
        Callable[[Any, VariantBase, random.Random], Callable[[random.Random], Game]] | None
    ) = None
    """Optional, for speed: prepares an observation once and returns a function that
    deals many samples (each like ``sampler``'s) more cheaply than ``sampler`` can."""
    search: SearchHooks | None = None
    """Playout policy and evaluation for the core's ISMCTS (needs ``sampler``)."""
    digest: str = ""
    """Where the family's rules digest is: a page of cardshop's documentation
    (``"rules.md"``, for the built-in families), or, for a family from elsewhere, a URL
    or an absolute path (shown as it is)."""
    variant_strategy: str = ""
    """``"module:function"`` of a function taking keyword options and returning a
    hypothesis strategy of the family's valid variants; imported only by
    :func:`cardshop.testing.strategies.family_variants`, so the run-time library never
    imports hypothesis."""
    kernel: str | None = None
    """Optional, for speed: the name of a module that plays whole simulated games of
    some bots in compiled code, game for game as the reference engine would. It is
    imported only when :func:`cardshop.simulate` asks for it, and offers
    ``unavailable(variant, players, bots, seed) -> str | None`` (why it cannot play these
    games, or None) and ``play(variant, players, bots, seed, start, stop, *, rotate)``
    returning a sequence of the :class:`~cardshop.simulation.GameOutcome` of games
    ``start..stop-1`` (it is pickled back from worker processes: a compact one pays);
    ``RELEASES_GIL = True`` in the module makes ``simulate``'s own workers threads
    (docs/kernel.md). Families without one play on the reference engine."""
    description: str = ""
    variants: str = ""
    """Optional: the name of a package (``"mygame.variants"``) whose ``*.yaml`` files are
    the family's named variants: ``load_variant("NAME")``, positions, ``cardshop
    variants``, ``demo NAME`` and ``simulate NAME`` find them by file name, as they find
    cardshop's own (a name cardshop already uses keeps cardshop's)."""
    length_unit: str = "round"
    """What :attr:`Result.rounds <cardshop.Result.rounds>` counts, in the singular, for
    the command line's words ("after 29 turns"): a round unless the family says
    otherwise."""
    factored: Callable[[VariantBase, int], ActionFactors] | None = None
    """Optional: ``factored(variant, players)``, the action space chosen part by part
    (:class:`cardshop.core.ActionFactors`), for a family whose flat action space is
    too large to learn on; the environments offer it with ``actions="factored"``
    (docs/envs.md). Without it they offer the flat space only."""

    audit: AuditDefaults = AuditDefaults()
    """What ``cardshop audit`` does for the family's variants unless told otherwise
    (bots, games, check interval, cap policy): :class:`AuditDefaults`; the defaults
    are uniform random bots, 1,000 games, thorough checks every 10 steps and no
    capped game allowed."""

    @classmethod
    def for_engine(cls, engine: type[Engine], events: EventCodec, **members: Any) -> Family:
        """The record of a family whose games are ``engine``'s and whose events
        ``events`` writes: :attr:`game_from_dict` is ``engine.from_json`` (which takes
        game JSON or its data), :attr:`game_from_position` is ``engine.from_position``
        and :attr:`event_to_dict` and :attr:`event_from_dict` are the codec's;
        ``members`` are the other members, by name."""
        return cls(
            game_from_dict=engine.from_json,
            game_from_position=engine.from_position,
            event_to_dict=events.to_dict,
            event_from_dict=events.from_dict,
            **members,
        )

    def __repr__(self) -> str:
        return f"<Family {self.name!r} ({self.dynamics.value})>"

    def length(self, count: int) -> str:
        """``count`` units of :attr:`length_unit` in words: ``"1 round"``, ``"29 turns"``."""
        return f"{count} {self.length_unit}{'' if count == 1 else 's'}"


def event_text(family: Family, variant: VariantBase, event: Event, seat: Seat | None) -> str:
    """``event`` in words as ``seat`` may know it (``None``: everything): the family's
    :attr:`Family.describe_event`, or ``str(event)``."""
    if family.describe_event is None:
        return str(event)
    return family.describe_event(variant, event, seat)


_lock = threading.Lock()
_registered: dict[str, Family] = {}
_loaded = False


def _load_entry_points() -> None:
    global _loaded
    with _lock:
        if _loaded:
            return
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            if ep.name in _registered:
                continue
            family = ep.load()
            if not isinstance(family, Family):
                raise SetupError(
                    f"entry point {ep.name!r} of group {ENTRY_POINT_GROUP!r} names "
                    f"{ep.value!r}, which is not a cardshop Family"
                )
            _registered[family.name] = family
        _loaded = True


def families() -> dict[str, Family]:
    """Every registered family by name (entry points are read on first use)."""
    _load_entry_points()
    return dict(sorted(_registered.items()))


def get_family(name: str) -> Family:
    """The family called ``name``; :class:`~cardshop.SetupError` if none is registered."""
    _load_entry_points()
    try:
        return _registered[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(_registered)) or "none"
        raise SetupError(f"unknown family {name!r}; known families: {known}") from None


def register_family(family: Family, *, replace: bool = False) -> None:
    """Add a family at run time (tests, notebooks); entry points are the usual way."""
    _load_entry_points()
    with _lock:
        if family.name in _registered and not replace:
            raise SetupError(f"a family called {family.name!r} is already registered")
        _registered[family.name] = family


def unregister_family(name: str) -> None:
    """Remove a family registered at run time (a no-op for unknown names)."""
    with _lock:
        _registered.pop(name, None)


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
    :class:`~cardshop._series.Series` of ``players x match.games_per_player`` games,
    itself a game, whose ``first_player`` (default 0) starts its first game and seat
    ``first_player + i`` its game ``i`` (see :mod:`cardshop._series`).
    """
    from cardshop._loader import load_variant

    loaded = load_variant(variant)
    if seed is not None:
        check_seed(seed)
    given = {k: v for k, v in options.items() if v is not None}
    if first_player is not None:
        given["first_player"] = first_player
    family = get_family(loaded.family)
    if given:
        check_options(family, given)
    if loaded.match is not None:
        from cardshop._series import new_series

        return new_series(loaded, players, seed, **given)
    return family.new_game(loaded, players, seed, **given)


def check_options(family: Family, options: Iterable[str]) -> tuple[str, ...]:
    """The options the family's ``new_game`` takes (:func:`game_options`); a
    :class:`~cardshop.SetupError` naming those of ``options`` it does not take (refused
    here, not by a ``TypeError`` of the family's ``new_game``)."""
    known = game_options(family)
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise SetupError(
            f"a {family.name} game takes no option {', '.join(map(repr, unknown))} "
            f"(its options: {', '.join(known) or 'none'})"
        )
    return known


def game_options(family: Family) -> tuple[str, ...]:
    """The keyword options a family's ``new_game`` takes beyond variant, players, seed."""
    new_game = family.new_game
    if type(new_game).__hash__ is None:  # an unhashable callable: read it every time
        return _read_options(new_game)
    return _options_of(new_game)


@functools.lru_cache(maxsize=64)
def _options_of(new_game: Callable[..., Any]) -> tuple[str, ...]:
    # Read once per function: the signature of a compiled function is parsed from text.
    return _read_options(new_game)


def _read_options(new_game: Callable[..., Any]) -> tuple[str, ...]:
    parameters = list(inspect.signature(new_game).parameters.values())[3:]
    return tuple(p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


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
