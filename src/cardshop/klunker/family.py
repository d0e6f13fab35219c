"""The Klunker family's :class:`~cardshop._family.Family` object: what it gives the core.

Registered through the ``cardshop.families`` entry point (``pyproject.toml``), so tools
find it with ``cardshop._family.get_family("klunker")`` and never import this package.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from cardshop.core import Dynamics, Family, Seat, VariantBase
from cardshop.klunker import spaces
from cardshop.klunker.bots import SEARCH, make_greedy, make_thrifty
from cardshop.klunker.events import event_from_dict, event_to_dict
from cardshop.klunker.game import Game
from cardshop.klunker.game import new_game as _new_game
from cardshop.klunker.invariants import FAMILY_INVARIANTS
from cardshop.klunker.sampling import Determinizer, sample_game
from cardshop.klunker.variant import Variant, as_klunker
from cardshop.klunker.view import table_view

__all__ = ["FAMILY"]


def new_game(
    variant: VariantBase | str,
    players: int,
    seed: int | None = None,
    first_player: Seat | None = None,
) -> Game:
    """A new Klunker game (:func:`cardshop.klunker.new_game`); ``first_player`` is the
    first start player (drawn with the seed if None)."""
    return _new_game(variant if isinstance(variant, str) else as_klunker(variant), players, seed,
                     first_player)  # fmt: skip


def _from_dict(data: Mapping[str, Any], **options: Any) -> Game:
    return Game.from_json(data, **options)


def _from_position(position: Any, variant: VariantBase | None) -> Game:
    return Game.from_position(position, None if variant is None else as_klunker(variant))


def _sample(observation: Any, variant: VariantBase, rng: random.Random) -> Game:
    return sample_game(observation, as_klunker(variant), rng)


def _determinizer(
    observation: Any, variant: VariantBase, rng: random.Random
) -> Callable[[random.Random], Game]:
    return Determinizer(observation, as_klunker(variant), rng).sample


FAMILY = Family(
    name="klunker",
    dynamics=Dynamics.SEQUENTIAL,
    variant_model=Variant,
    new_game=new_game,
    game_from_dict=_from_dict,
    game_from_position=_from_position,
    action_space=spaces.action_space,
    observation_encoder=spaces.Encoder,
    event_to_dict=event_to_dict,
    event_from_dict=event_from_dict,
    render=spaces.render,
    table_view=table_view,
    invariants=FAMILY_INVARIANTS,
    bots={"greedy": make_greedy, "thrifty": make_thrifty},
    sampler=_sample,
    determinizer=_determinizer,
    search=SEARCH,
    digest="rules.md",
    variant_strategy="cardshop.klunker.strategies:variants",
    kernel="cardshop.klunker.kernel",
    description="Shop window, safe and purchase: Klunker and its editions.",
)
"""The Klunker family."""
