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

import random
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, Protocol

from cardshop._core import Action, Seat
from cardshop._errors import SetupError
from cardshop._game import Dynamics, Event, Game
from cardshop._variant import VariantBase

__all__ = [
    "ENTRY_POINT_GROUP",
    "BotFactory",
    "Family",
    "Invariant",
    "ObservationEncoder",
    "families",
    "get_family",
    "register_family",
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


BotFactory = Callable[[VariantBase, int, int], _Bot]
"""Builds a bot from (variant, players, seed)."""


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
class Family:
    """What a family provides; see ``docs/architecture.md`` for each member's contract."""

    name: str
    dynamics: Dynamics
    variant_model: type[VariantBase]
    new_game: Callable[..., Game]
    """``new_game(variant, players, seed=None, **options)``: a new game, dealt."""
    game_from_dict: Callable[[Mapping[str, Any]], Game]
    """A game from :meth:`Game.to_dict` data, every field validated."""
    game_from_position: Callable[[Any, VariantBase | None], Game]
    """A game from a position (the family's format) and an optional variant."""
    action_space: Callable[[VariantBase, int], Sequence[Action]]
    """Every action any seat may take at a player count, in a fixed order."""
    observation_encoder: Callable[[VariantBase, int], ObservationEncoder]
    event_to_dict: Callable[[Event], dict[str, Any]]
    event_from_dict: Callable[[Mapping[str, Any]], Event]
    render: Callable[[Game, Seat | None], str]
    """The table as text, as ``seat`` may see it (``None``: everything)."""
    invariants: Sequence[Invariant] = ()
    bots: Mapping[str, BotFactory] = field(default_factory=dict)
    sampler: Callable[[Any, VariantBase, random.Random], Game] | None = None
    """A whole game consistent with an observation, hidden cards dealt at random."""
    digest: str = ""
    """Where the family's rules digest is (a docs page)."""
    description: str = ""

    def __repr__(self) -> str:
        return f"<Family {self.name!r} ({self.dynamics.value})>"


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
