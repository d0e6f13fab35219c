"""The fixed action index and the numeric observation vector shared by both environments.

Both are built from a variant and a player count only, so an agent trained on one
game of a variant can play any other game of it with the same number of players.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Any, SupportsIndex

import numpy as np
import numpy.typing as npt

from cardshop._core import Action
from cardshop._errors import ActionParseError, SetupError
from cardshop.klunker.game import Observation, Phase
from cardshop.klunker.variant import Variant

__all__ = ["ActionMap", "ObservationEncoder"]

_PHASES = tuple(Phase)


def _check_players(variant: Variant, players: int) -> None:
    rules = variant.rules
    if not isinstance(players, int) or not rules.min_players <= players <= rules.max_players:
        raise SetupError(
            f"{variant.name} is played by {rules.min_players} to {rules.max_players} "
            f"players, not {players!r}"
        )


class ActionMap:
    """Every action of a variant at a player count, numbered ``0 .. len(map)-1``.

    With ``K`` card kinds (in the variant's ``cards`` order) and ``N`` players the
    indices are, in this order::

        window KIND   K indices   fill: put a hand card of KIND in your window
        done          1           fill: finish filling your window
        store KIND    K indices   store: put a hand card of KIND in your safe
        pass          1           store: stop storing, take the lowest purchase card
        buy SEAT      N indices   purchase: buy all of SEAT's window (seats 0..N-1)
        decline       1           purchase: buy nothing
        sell KIND     K indices   sell: choose which completed row to sell first

    so ``len(map) == 3K + N + 3``. :meth:`action` and :meth:`index` convert both
    ways, :attr:`texts` lists the action texts in index order::

        >>> from cardshop.envs import ActionMap
        >>> amap = ActionMap("klunker-en", players=4)
        >>> len(amap), amap.action(7), amap.index("buy 2")
        (28, Action.from_text('done'), 18)
    """

    def __init__(self, variant: Variant | str, players: int) -> None:
        from cardshop._loader import load_variant

        self.variant = load_variant(variant)
        _check_players(self.variant, players)
        self.players = players
        kinds = self.variant.rules.kinds
        actions: list[Action] = [Action("window", k) for k in kinds]
        actions.append(Action("done"))
        actions += [Action("store", k) for k in kinds]
        actions.append(Action("pass"))
        actions += [Action("buy", s) for s in range(players)]
        actions.append(Action("decline"))
        actions += [Action("sell", k) for k in kinds]
        self.actions: tuple[Action, ...] = tuple(actions)
        """The actions in index order."""
        self._index = {a: i for i, a in enumerate(actions)}

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
        parsed = Action.from_text(action) if isinstance(action, str) else action
        try:
            return self._index[parsed]
        except KeyError:
            raise ActionParseError(
                f"{str(parsed)!r} is not an action of {self.variant.name} "
                f"with {self.players} players"
            ) from None

    def mask(self, legal: Iterable[Action]) -> npt.NDArray[np.int8]:
        """A 0/1 vector with a 1 at the index of each action in ``legal``."""
        out = np.zeros(len(self.actions), dtype=np.int8)
        for action in legal:
            out[self._index[action]] = 1
        return out


class ObservationEncoder:
    """Turns an :class:`~cardshop.Observation` into a flat ``float32`` vector.

    Only the observation of one seat is read, so the vector holds exactly what that
    seat may know. With ``K`` kinds and ``N`` players, in this order:

    ========================  ======  ==========================================
    part                      length  values
    ========================  ======  ==========================================
    ``phase``                 5       one-hot: fill, store, purchase, sell, over
    ``seat``                  N       one-hot: the observing seat
    ``current_player``        N       one-hot (all 0 when the game is over)
    ``start_player``          N       one-hot
    ``round``                 1       the round number, from 1
    ``hand``                  K       own hand, cards per kind
    ``hand_sizes``            N       cards in each seat's hand
    ``windows``               N x K   cards per kind in each seat's window
    ``safes``                 N x K   cards per kind in each seat's safe
    ``cash``                  N       cash cards in each seat's bank (the scores)
    ``purchase_cards``        N       purchase card each seat holds, 0 = none
    ``buying``                1       the purchase card whose turn it is, 0 = none
    ``deck_size``             1       cards left in the deck
    ``discard``               K       cards per kind in the discard
    ========================  ======  ==========================================

    Seats are absolute (seat 0 first), counts are raw card counts; :attr:`names`
    names every element (``"safes[2].shoes"``) and :attr:`low` / :attr:`high` bound
    it, for a :class:`gymnasium.spaces.Box`.
    """

    def __init__(self, variant: Variant | str, players: int) -> None:
        from cardshop._loader import load_variant

        self.variant = load_variant(variant)
        _check_players(self.variant, players)
        self.players = players
        rules = self.variant.rules
        kinds = rules.kinds
        per_kind = [float(self.variant.cards[k]) for k in kinds]
        total = float(rules.n_cards)
        n = players
        names: list[str] = []
        high: list[float] = []

        def part(label: str, labels: Iterable[str], bound: Iterable[float] | float) -> None:
            items = list(labels)
            bounds = list(bound) if isinstance(bound, Iterable) else [bound] * len(items)
            names.extend(f"{label}{x}" for x in items)
            high.extend(bounds)

        part("phase.", [p.value for p in _PHASES], 1.0)
        for label in ("seat", "current_player", "start_player"):
            part(label, [f"[{s}]" for s in range(n)], 1.0)
        part("round", [""], float(rules.round_cap))
        part("hand.", kinds, per_kind)
        part("hand_sizes", [f"[{s}]" for s in range(n)], total)
        for zone in ("windows", "safes"):
            for s in range(n):
                part(f"{zone}[{s}].", kinds, per_kind)
        part("cash", [f"[{s}]" for s in range(n)], total)
        part("purchase_cards", [f"[{s}]" for s in range(n)], float(n))
        part("buying", [""], float(n))
        part("deck_size", [""], total)
        part("discard.", kinds, per_kind)
        self.names: tuple[str, ...] = tuple(names)
        """The name of every element, in order."""
        self.low: npt.NDArray[np.float32] = np.zeros(len(names), dtype=np.float32)
        """Lower bounds (all 0)."""
        self.high: npt.NDArray[np.float32] = np.array(high, dtype=np.float32)
        """Upper bounds: the card counts of the variant, the round cap, the player count."""

    def __len__(self) -> int:
        return len(self.names)

    def encode(self, obs: Observation) -> npt.NDArray[np.float32]:
        """The vector of one seat's observation (a new array on every call)."""
        n = self.players
        if obs.players != n or obs.kinds != self.variant.rules.kinds:
            raise SetupError(
                f"this encoder is for {self.variant.name} with {n} players; the observation "
                f"is of a game with {obs.players} players and kinds {', '.join(obs.kinds)}"
            )
        values: list[Any] = [0.0] * (5 + 3 * n)
        values[_PHASES.index(obs.phase)] = 1.0
        values[5 + obs.seat] = 1.0
        if obs.current_player is not None:
            values[5 + n + obs.current_player] = 1.0
        values[5 + 2 * n + obs.start_player] = 1.0
        values.append(obs.round)
        values += obs.hand
        values += obs.hand_sizes
        for window in obs.windows:
            values += window
        for safe in obs.safes:
            values += safe
        values += obs.cash
        values += obs.purchase_cards
        values.append(obs.buying)
        values.append(obs.deck_size)
        values += obs.discard
        return np.array(values, dtype=np.float32)


def table_for(
    variant: Variant | str, players: int, render_mode: str | None, render_modes: Iterable[str]
) -> tuple[Variant, ActionMap, ObservationEncoder]:
    """What every cardshop environment sets up first: the variant and its spaces.

    Raises :class:`~cardshop.SetupError` for an unknown render mode, a player count the
    variant does not allow, or (from ``load_variant``) a bad variant.
    """
    from cardshop._loader import load_variant

    modes = list(render_modes)
    if render_mode is not None and render_mode not in modes:
        raise SetupError(
            f"unknown render mode {render_mode!r}; use one of {', '.join(modes)} or None"
        )
    loaded = load_variant(variant)
    return loaded, ActionMap(loaded, players), ObservationEncoder(loaded, players)
