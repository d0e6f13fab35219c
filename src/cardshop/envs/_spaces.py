"""What every environment sets up first: the variant, its family and the two spaces.

The action numbering and the observation vector come from the variant's family
(:attr:`Family.action_space <cardshop.core.family.Family.action_space>` and
:attr:`Family.observation_encoder <cardshop.core.family.Family.observation_encoder>`, plain
Python); this module only turns them into numpy arrays and Gymnasium spaces. Both
depend on a variant and a player count only, so an agent trained on one game of a
variant can play any other game of it with the same number of players.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, SupportsIndex, cast

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from cardshop.core.actions import Action
from cardshop.core.errors import (
    ActionParseError,
    GameStateError,
    SetupError,
)
from cardshop.core.family import Family
from cardshop.core.game import (
    Dynamics,
    Game,
    check_players,
)
from cardshop.core.registry import get_family
from cardshop.core.series import (
    new_series,
    series_encoder,
)
from cardshop.core.variant import VariantBase
from cardshop.envs._choosers import Chooser, FactoredChooser, FlatChooser, ObsDict

__all__ = [
    "ActionMap",
    "Actions",
    "ObsDict",
    "ObservationEncoder",
    "Table",
    "VariantLike",
    "resolve_variant",
]

VariantLike = VariantBase | str | Path
"""A variant object, a built-in variant name or the path of a YAML file."""

Actions = Literal["flat", "factored"]
"""How actions are numbered: ``"flat"``, one number per action of the family's action
space; ``"factored"``, one number per option of one step of the family's factored
space (:attr:`Family.factored <cardshop.core.family.Family.factored>`)."""


def resolve_variant(variant: object) -> VariantBase:
    """A variant object from a variant, a built-in name or a YAML path.

    Names and paths go through :func:`cardshop.load_variant`; a variant object (of any
    registered family) is used as it is.
    """
    loaded: object
    if isinstance(variant, str | Path):
        from cardshop.core.loader import load_variant

        loaded = load_variant(variant)
    else:
        loaded = variant
    family = getattr(loaded, "family", None)
    players = getattr(loaded, "players", None)
    if not isinstance(family, str) or not hasattr(players, "min") or not hasattr(players, "max"):
        raise SetupError(
            f"not a variant: {variant!r:.80}; give a variant, a built-in variant name "
            "or the path of a variant file"
        )
    return cast("VariantBase", loaded)


class ActionMap:
    """Every action of a variant at a player count, numbered ``0 .. len(map)-1``.

    The numbering is the family's action space (its fixed, documented order; for
    Klunker see :func:`cardshop.klunker.spaces.action_space`). :meth:`action` and
    :meth:`index` convert both ways, :attr:`texts` lists the action texts in index
    order::

        >>> from cardshop.envs import ActionMap
        >>> amap = ActionMap("klunker-en", players=4)
        >>> len(amap), amap.action(7), amap.index("buy 2")
        (28, Action.from_text('done'), 18)
    """

    def __init__(self, variant: VariantLike, players: int) -> None:
        self.variant = resolve_variant(variant)
        self.players = check_players(self.variant, players)
        self.family = get_family(self.variant.family)
        self.actions: tuple[Action, ...] = tuple(self.family.action_space(self.variant, players))
        """The actions in index order."""
        self._index = {a: i for i, a in enumerate(self.actions)}
        self._by_text = {str(a): i for i, a in enumerate(self.actions)}
        if len(self._index) != len(self.actions):
            raise SetupError(
                f"the action space of family {self.family.name!r} lists an action twice"
            )

    def __len__(self) -> int:
        return len(self.actions)

    def __repr__(self) -> str:
        return f"<ActionMap {self.variant.name} players={self.players} size={len(self)}>"

    @property
    def texts(self) -> tuple[str, ...]:
        """The action texts in index order (``texts[i] == str(action(i))``)."""
        return tuple(str(a) for a in self.actions)

    def action(self, index: SupportsIndex) -> Action:
        """The action numbered ``index`` (any integer type, numpy's included)."""
        i = operator.index(index)
        if not 0 <= i < len(self.actions):
            raise ActionParseError(
                f"action index {index!r} is out of range 0..{len(self.actions) - 1}"
            )
        return self.actions[i]

    def index(self, action: Action | str) -> int:
        """The number of an action or action text (``"window shoes"``, ``"buy 2"``)."""
        if isinstance(action, str):
            found = self._by_text.get(" ".join(action.split()))
            if found is not None:
                return found
            action = Action.from_text(action)
        try:
            return self._index[action]
        except (KeyError, TypeError):
            raise ActionParseError(
                f"{str(action)!r} is not an action of {self.variant.name} "
                f"with {self.players} players"
            ) from None

    def mask(self, legal: Iterable[Action]) -> npt.NDArray[np.int8]:
        """A 0/1 vector with a 1 at the index of each action in ``legal``."""
        out = np.zeros(len(self.actions), dtype=np.int8)
        for action in legal:
            try:
                out[self._index[action]] = 1
            except KeyError:
                raise GameStateError(
                    f"legal action {str(action)!r} is missing from the action space of "
                    f"family {self.family.name!r}"
                ) from None
        return out


class ObservationEncoder:
    """Turns one seat's observation into a flat ``float32`` vector.

    The numbers are the family's observation encoder (for Klunker see
    :class:`cardshop.klunker.spaces.Encoder`): only the observation of one seat is
    read, so the vector holds exactly what that seat may know. A variant played as a
    match (a ``match`` key) puts the match's counters first: the game being played,
    the games left and each seat's total so far
    (:func:`cardshop.core.series.series_encoder`). :attr:`names` names every element and
    :attr:`low` / :attr:`high` bound it, for a :class:`gymnasium.spaces.Box`.
    """

    def __init__(self, variant: VariantLike, players: int) -> None:
        self.variant = resolve_variant(variant)
        self.players = check_players(self.variant, players)
        self.family = get_family(self.variant.family)
        self.encoder = series_encoder(self.family, self.variant, players)
        self.names: tuple[str, ...] = tuple(self.encoder.labels)
        """The name of every element, in order."""
        self.low: npt.NDArray[np.float32] = np.array(self.encoder.low, dtype=np.float32)
        """Lower bounds."""
        self.high: npt.NDArray[np.float32] = np.array(self.encoder.high, dtype=np.float32)
        """Upper bounds."""
        if not len(self.names) == len(self.low) == len(self.high):
            raise SetupError(
                f"the observation encoder of family {self.family.name!r} has "
                f"{len(self.names)} labels, {len(self.low)} lower and {len(self.high)} "
                "upper bounds"
            )

    @property
    def labels(self) -> tuple[str, ...]:
        """The same as :attr:`names` (the family encoder's word)."""
        return self.names

    def __len__(self) -> int:
        return len(self.names)

    def encode(self, observation: Any) -> npt.NDArray[np.float32]:
        """The vector of one seat's observation (a new array on every call)."""
        return np.array(self.encoder.encode(observation), dtype=np.float32)


@dataclass(frozen=True)
class Table:
    """A variant at a player count, with everything an environment builds from it."""

    family: Family
    variant: VariantBase
    players: int
    action_map: ActionMap
    encoder: ObservationEncoder
    dynamics: Dynamics
    game_options: frozenset[str]
    """Keyword options of the family's ``new_game`` that ``reset(options=...)`` passes on."""
    actions: Actions = "flat"

    @classmethod
    def build(
        cls,
        variant: VariantLike,
        players: int,
        render_mode: str | None,
        render_modes: Iterable[str],
        actions: Actions = "flat",
    ) -> Table:
        """Set up a table; :class:`~cardshop.SetupError` for an unknown render mode,
        a player count the variant does not allow, a bad variant, or factored actions
        for a family without a factored space."""
        if actions not in ("flat", "factored"):
            raise SetupError(f"actions must be 'flat' or 'factored', not {actions!r}")
        modes = list(render_modes)
        if render_mode is not None and render_mode not in modes:
            raise SetupError(
                f"unknown render mode {render_mode!r}; use one of {', '.join(modes)} or None"
            )
        loaded = resolve_variant(variant)
        check_players(loaded, players)
        family = get_family(loaded.family)
        if actions == "factored" and family.factored is None:
            raise SetupError(
                f"family {family.name!r} has no factored action space: use actions='flat'"
            )
        probe = _start(family, loaded, players, 0, {})
        return cls(
            family=family,
            variant=loaded,
            players=players,
            action_map=ActionMap(loaded, players),
            encoder=ObservationEncoder(loaded, players),
            dynamics=probe.dynamics,
            game_options=_keyword_options(family),
            actions=actions,
        )

    def chooser(self) -> Chooser:
        """A new chooser of this table's kind of actions (one per environment)."""
        if self.actions == "factored":
            assert self.family.factored is not None  # checked by build()
            factors = self.family.factored(self.variant, self.players)
            return FactoredChooser(self.encoder, factors)
        return FlatChooser(self.encoder, self.action_map)

    def new_game(self, seed: int, options: Mapping[str, Any] | None) -> Game:
        """A new game; the ``options`` the family's ``new_game`` names are passed on,
        other keys are ignored (PettingZoo and Gymnasium pass options of their own)."""
        chosen = {k: v for k, v in (options or {}).items() if k in self.game_options}
        return _start(self.family, self.variant, self.players, seed, chosen)

    def observation_space(self, chooser: Chooser) -> spaces.Dict:
        """``{"observation": Box, "action_mask": Box of 0/1}``; the vector is the
        family's, then what ``chooser`` adds (each element in 0..1)."""
        extra = len(chooser.names)
        low = np.concatenate([self.encoder.low, np.zeros(extra, dtype=np.float32)])
        high = np.concatenate([self.encoder.high, np.ones(extra, dtype=np.float32)])
        return spaces.Dict(
            {
                "observation": spaces.Box(low, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(chooser.size,), dtype=np.int8),
            }
        )

    @staticmethod
    def action_space(chooser: Chooser) -> spaces.Discrete:
        """``Discrete(chooser.size)``: ``len(action_map)`` for flat actions."""
        return spaces.Discrete(chooser.size)


def _start(
    family: Family, variant: VariantBase, players: int, seed: int, options: Mapping[str, Any]
) -> Game:
    """A new game of ``variant``: a whole match (a series) if the variant has a match."""
    if variant.match is not None:
        return new_series(variant, players, seed, **options)
    return family.new_game(variant, players, seed=seed, **options)


def _keyword_options(family: Family) -> frozenset[str]:
    try:
        params = inspect.signature(family.new_game).parameters
    except (TypeError, ValueError):  # pragma: no cover - a builtin without a signature
        return frozenset()
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    rest = list(params.items())[2:]  # after (variant, players)
    return frozenset(name for name, p in rest if p.kind in kinds and name != "seed")
