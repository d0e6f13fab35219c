"""The Klunker family's :class:`~cardshop._family.Family` object: what it gives the core.

Registered through the ``cardshop.families`` entry point (``pyproject.toml``), so tools
find it with ``cardshop._family.get_family("klunker")`` and never import this package.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, cast

from cardshop._core import Action, Seat
from cardshop._family import Family
from cardshop._game import Dynamics, Event, Move, Result, Termination
from cardshop._game import Game as CoreGame
from cardshop._variant import VariantBase
from cardshop.klunker import spaces
from cardshop.klunker.events import event_from_dict, event_to_dict
from cardshop.klunker.game import Game, Observation
from cardshop.klunker.sampling import sample_game
from cardshop.klunker.variant import Variant

__all__ = ["FAMILY"]


# --------------------------------------------------------------------------------------
# A temporary adapter: today's Klunker Game predates the core protocol (it has no
# ``acting``, and ``legal_actions``/``apply`` take no seat). Until it subclasses
# ``cardshop._game.Game``, the family hands out its games wrapped in ``_Adapted``, which
# implements the protocol and forwards every other member (history, cash, phase, ...)
# to the game. When the game conforms, ``_adapt`` returns its argument and this class
# goes.


class _Adapted(CoreGame):
    """A Klunker game seen through the core protocol (temporary, see above)."""

    family = "klunker"

    def __init__(self, game: Game, moves: list[Move] | None = None) -> None:
        self.inner = game
        self.variant = cast("VariantBase", cast("object", game.variant))
        self.seed = game.seed
        self._moves: list[Move] = [] if moves is None else moves

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (during unpickling, say)
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return repr(self.inner)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Adapted):
            return self.inner == other.inner
        return self.inner == other

    __hash__ = None  # type: ignore[assignment]

    @property
    def players(self) -> int:
        return self.inner.players

    @property
    def acting(self) -> tuple[Seat, ...]:
        seat = self.inner.current_player
        return () if seat is None else (seat,)

    @property
    def is_over(self) -> bool:
        return self.inner.is_over

    @property
    def moves(self) -> list[Move]:
        return list(self._moves)

    def legal_actions(self, seat: Seat | None = None) -> list[Action]:
        if seat is not None or not self.inner.is_over:
            self.require_seat(seat)
        return self.inner.legal_actions()

    def parse_action(self, text: str, seat: Seat | None = None) -> Action:
        return self.inner.parse_action(text)

    def apply(self, action: Action | str, seat: Seat | None = None) -> list[Event]:
        seat = self.require_seat(seat)
        events = self.inner.apply(action)
        self._moves.append(Move(len(self._moves), seat, self.inner.history[-1]))
        return events

    def observation(self, seat: Seat) -> Observation:
        return self.inner.observation(seat)

    def result(self) -> Result:
        r = self.inner.result()
        return Result(r.scores, r.ranks, r.winners, Termination(r.termination.value), r.rounds)

    def clone(self) -> _Adapted:
        return _Adapted(self.inner.clone(), list(self._moves))

    def to_dict(self) -> dict[str, Any]:
        return self.inner.to_dict()

    def to_position(self) -> dict[str, Any]:
        return self.inner.to_position()


def _adapt(game: Game) -> CoreGame:
    """``game`` under the core protocol (temporary, see :class:`_Adapted`)."""
    return _Adapted(game)


# --------------------------------------------------------------------------------------


def _variant(variant: object) -> Variant:
    if not isinstance(variant, Variant):
        from cardshop._errors import SetupError

        raise SetupError(f"not a Klunker variant: {variant!r:.80}")
    return variant


def new_game(
    variant: VariantBase | Variant | str,
    players: int,
    seed: int | None = None,
    first_player: Seat | None = None,
) -> CoreGame:
    """A new Klunker game (:func:`cardshop.klunker.new_game`); ``first_player`` is the
    first start player (drawn with the seed if None)."""
    from cardshop.klunker.game import new_game as klunker_new_game

    chosen = variant if isinstance(variant, str) else _variant(variant)
    return _adapt(klunker_new_game(chosen, players, seed, first_player))


def _from_dict(data: Mapping[str, Any]) -> CoreGame:
    return _adapt(Game.from_json(data))


def _from_position(position: Any, variant: VariantBase | None) -> CoreGame:
    return _adapt(Game.from_position(position, None if variant is None else _variant(variant)))


def _sample(observation: Any, variant: VariantBase, rng: random.Random) -> CoreGame:
    return _adapt(sample_game(observation, _variant(variant), rng))


FAMILY = Family(
    name="klunker",
    dynamics=Dynamics.SEQUENTIAL,
    variant_model=cast("type[VariantBase]", cast("object", Variant)),
    new_game=new_game,
    game_from_dict=_from_dict,
    game_from_position=_from_position,
    action_space=spaces.action_space,
    observation_encoder=spaces.Encoder,
    event_to_dict=event_to_dict,
    event_from_dict=lambda data: event_from_dict(dict(data)),
    render=spaces.render,
    sampler=_sample,
    digest="rules.md",
    description="Shop window, safe and purchase: Klunker and its editions.",
)
"""The Klunker family (bots and invariants are added with the rules' checks)."""
