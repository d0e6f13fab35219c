"""The Wühltisch family: everyone rummages in one heap at once, in ticks of game time.

A simultaneous game (:class:`WuhltischGame`, ``apply_joint``) on the core protocol;
its rules digest is docs/wuhltisch-rules.md. The family registers itself through the
entry point ``cardshop.families`` as :data:`FAMILY`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardshop.core import VariantBase
from cardshop.wuhltisch.bots import WuhltischGreedyBot
from cardshop.wuhltisch.events import WuhltischEvent, event_from_dict, event_to_dict
from cardshop.wuhltisch.family import FAMILY
from cardshop.wuhltisch.game import WuhltischGame, WuhltischObservation, new_game
from cardshop.wuhltisch.invariants import INVARIANTS, state_problems
from cardshop.wuhltisch.sampling import sample
from cardshop.wuhltisch.spaces import action_space, observation_encoder, render
from cardshop.wuhltisch.variant import (
    WuhltischRules,
    WuhltischVariant,
    load_wuhltisch,
    parse_wuhltisch,
)

__all__ = [
    "FAMILY",
    "INVARIANTS",
    "WuhltischEvent",
    "WuhltischGame",
    "WuhltischGreedyBot",
    "WuhltischObservation",
    "WuhltischRules",
    "WuhltischVariant",
    "action_space",
    "event_from_dict",
    "event_to_dict",
    "game_from_dict",
    "game_from_position",
    "load_wuhltisch",
    "new_game",
    "observation_encoder",
    "parse_wuhltisch",
    "render",
    "sample",
    "state_problems",
]


def game_from_dict(data: Mapping[str, Any]) -> WuhltischGame:
    """A game from ``WuhltischGame.to_dict`` data (every field checked)."""
    return WuhltischGame.from_dict(data)


def game_from_position(position: Any, variant: VariantBase | None = None) -> WuhltischGame:
    """A game from a position (mapping or YAML/JSON text) and an optional variant (a
    Wühltisch one: the position's reader checks it)."""
    return WuhltischGame.from_position(position, variant)
