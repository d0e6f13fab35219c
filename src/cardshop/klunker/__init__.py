"""The Klunker family: shop window, safe and purchase (Klunker and its editions).

Its rules live here; the family-independent core (actions, chance, errors, YAML
loading) lives beside it in ``cardshop``. A new family is a new package like this.
"""

from cardshop.klunker.bots import GreedyBot
from cardshop.klunker.events import Event, event_from_dict, event_to_dict
from cardshop.klunker.family import FAMILY
from cardshop.klunker.game import Game, Observation, Phase, Result, Termination, new_game, replay
from cardshop.klunker.match import Match, MatchResult, new_match
from cardshop.klunker.variant import Rules, Variant

__all__ = [
    "FAMILY",
    "Event",
    "Game",
    "GreedyBot",
    "Match",
    "MatchResult",
    "Observation",
    "Phase",
    "Result",
    "Rules",
    "Termination",
    "Variant",
    "event_from_dict",
    "event_to_dict",
    "new_game",
    "new_match",
    "replay",
]
