"""The Klunker family's :class:`~cardshop.core.family.Family` object: what it gives the core.

Registered through the ``cardshop.families`` entry point (``pyproject.toml``), so tools
find it with ``cardshop.core.registry.get_family("klunker")`` and never import this package.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from cardshop.core import AuditDefaults, Dynamics, Family, VariantBase
from cardshop.klunker import spaces
from cardshop.klunker.bots import make_greedy, make_thrifty
from cardshop.klunker.events import CODEC
from cardshop.klunker.game import Game, new_game
from cardshop.klunker.invariants import FAMILY_INVARIANTS
from cardshop.klunker.sampling import Determinizer, sample_game
from cardshop.klunker.search import SEARCH
from cardshop.klunker.variant import Variant, as_klunker
from cardshop.klunker.verify import VERIFY
from cardshop.klunker.view import table_view

__all__ = ["FAMILY"]


def _sample(observation: Any, variant: VariantBase, rng: random.Random) -> Game:
    return sample_game(observation, as_klunker(variant), rng)


def _determinizer(
    observation: Any, variant: VariantBase, rng: random.Random
) -> Callable[[random.Random], Game]:
    return Determinizer(observation, as_klunker(variant), rng).sample


FAMILY = Family.for_engine(
    Game,  # reads game JSON (Game.from_json) and positions (the reader checks the family)
    CODEC,
    name="klunker",
    dynamics=Dynamics.SEQUENTIAL,
    variant_model=Variant,
    new_game=new_game,  # checks that the variant is a Klunker one
    action_space=spaces.action_space,
    observation_encoder=spaces.Encoder,
    render=spaces.render,
    table_view=table_view,
    invariants=FAMILY_INVARIANTS,
    bots={"greedy": make_greedy, "thrifty": make_thrifty},
    sampler=_sample,
    determinizer=_determinizer,
    search=SEARCH,
    verify=VERIFY,
    digest="rules.md",
    variant_strategy="cardshop.klunker.strategies:variants",
    kernel="cardshop.klunker.kernel",
    audit=AuditDefaults(
        check_games=100,
        note="a game checked in debug mode costs some fifteen times one played and "
        "measured only, so every invariant is checked in the first 100 games of each "
        "player count and all are measured; --check-games all checks every one",
    ),
    description="Shop window, safe and purchase: Klunker and its editions.",
    length_unit="round",  # a game is counted in rounds, capped by round_cap (ROUND-1)
)
"""The Klunker family."""
