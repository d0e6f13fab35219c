"""The Reglamentacja family: queues, ration stamps, negotiation and a speculator.

Players queue at a shop counter, trade ration stamps and places in the queue while
a spinning top runs, buy shopping cards with exactly matching stamps, and score
icons doubled by a secret visit card. The rules digest is
docs/reglamentacja-rules.md. This package imports only cardshop's core.
"""

from __future__ import annotations

from cardshop.reglamentacja.bots import (
    ReglamentacjaBaselineBot,
    ReglamentacjaGreedyBot,
    hand_value,
)
from cardshop.reglamentacja.events import Event, event_from_dict, event_to_dict
from cardshop.reglamentacja.family import FAMILY
from cardshop.reglamentacja.game import Observation, ReglamentacjaGame, new_game
from cardshop.reglamentacja.invariants import INVARIANTS
from cardshop.reglamentacja.sampling import sample
from cardshop.reglamentacja.spaces import (
    ObservationEncoder,
    action_space,
    observation_encoder,
    render,
)
from cardshop.reglamentacja.variant import ReglamentacjaVariant, Rules

__all__ = [
    "FAMILY",
    "INVARIANTS",
    "Event",
    "Observation",
    "ObservationEncoder",
    "ReglamentacjaBaselineBot",
    "ReglamentacjaGame",
    "ReglamentacjaGreedyBot",
    "ReglamentacjaVariant",
    "Rules",
    "action_space",
    "event_from_dict",
    "event_to_dict",
    "hand_value",
    "new_game",
    "observation_encoder",
    "render",
    "sample",
]
