"""What a family hands the core: the :class:`Family` record and its parts.

A family is a package that plays one kind of game from its variant files. It hands the
core one :class:`Family` object that says what it provides (its engine's readers, its
bots, invariants, search hooks, renderer, ...); tools never import a family, they find
its record in the registry (:mod:`cardshop.core.registry`).
"""

from __future__ import annotations

import functools
import inspect
import random
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from cardshop.core.actions import Action, Seat
from cardshop.core.errors import SetupError
from cardshop.core.events import EventCodec
from cardshop.core.factored import ActionFactors
from cardshop.core.game import Dynamics, Engine, Event, Game
from cardshop.core.variant import VariantBase

__all__ = [
    "CAP_POLICIES",
    "AuditDefaults",
    "BotFactory",
    "CandidatePolicy",
    "Family",
    "Invariant",
    "ObservationEncoder",
    "RolloutPolicy",
    "SearchHooks",
    "VerifyHooks",
    "check_options",
    "event_text",
    "game_options",
    "optionless_bot",
]


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


@dataclass(frozen=True, slots=True)
class VerifyHooks:
    """What ``cardshop verify`` needs of a family to check every reachable state of its
    small variants (docs/verify.md); a family without them cannot be verified, and
    ``verify`` says so.

    The family must also draw every chance event through
    :func:`~cardshop.core.chance_source`, so that the verifier can enumerate each
    event's outcomes instead of drawing one.
    """

    state_key: Callable[[Game], Hashable]
    """``state_key(game)``: the state as a hashable value (nested tuples of ints and
    strs), the same for two states exactly when they are one state up to the symmetries
    of the rules: the seed, the count of chance events, the moves that led there and
    caches left out, and cards of one kind (which the rules never tell apart) written
    by kind, not by number. Two states with one key must have the same legal actions
    by text, observations and results, and successors with one key. Breadth-first
    search merges them: a key that keeps too little hides states, one that keeps too
    much only costs time."""
    clauses: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The rule clauses (the ids of the family's rules digest) that an action of a verb
    (``"buy"``) or an event of a kind (its class name, ``"Bought"``) carries out:
    the verifier's coverage report lists the clauses reached and never reached. The
    key ``"setup"`` names the clauses a deal carries out (reached with the first deal):
    a new game's own events are not seen by the search."""
    shrink: Callable[[VariantBase, int], tuple[VariantBase, tuple[str, ...]]] | None = None
    """Optional: ``shrink(variant, players)``, a small variant derived from ``variant``
    (fewer kinds, fewer cards of each, a short game) for ``cardshop verify --shrink``,
    with what was shrunk, in words, one line each."""


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
    (for rules that allow them, as Wühltisch's tick cap). ``check_games``: how many
    of a player count's simulated games (the first ones) are played in debug mode,
    every invariant checked; the others are played and measured only (``None``: every
    game is checked). ``note``: why these defaults, in a sentence the report shows.
    """

    bots: tuple[str, ...] = ("random",)
    games: int = 1000
    check_every: int = 10
    cap_policy: str = "fail"
    max_cap_share: float = 0.0
    check_games: int | None = None
    note: str = ""

    def __post_init__(self) -> None:
        checked = self.check_games
        if not self.bots or self.games < 0 or self.check_every < 1:
            raise SetupError(
                f"audit defaults need a bot, 0 or more games and check_every of 1 or more "
                f"(got {self.bots}, {self.games}, {self.check_every})"
            )
        if checked is not None and (type(checked) is not int or checked < 0):
            raise SetupError(f"audit defaults: check_games is 0 or more, or None (got {checked!r})")
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

    verify: VerifyHooks | None = None
    """Optional: what ``cardshop verify`` needs to check every reachable state of a
    small variant (:class:`VerifyHooks`); without it the family cannot be verified."""

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
