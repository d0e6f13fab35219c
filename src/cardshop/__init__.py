"""cardshop: play and audit Klunker-family card games from YAML variant files.

The public API is this module's names::

    import cardshop
    variant = cardshop.load_variant("klunker-en")
    game = cardshop.new_game(variant, players=4, seed=1)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    print(game.result())
"""

from cardshop import bots
from cardshop._core import Action, Seat, derive_seed
from cardshop._errors import (
    ActionError,
    ActionParseError,
    CardshopError,
    GameStateError,
    IllegalActionError,
    PositionError,
    RecordError,
    SetupError,
    VariantError,
)
from cardshop._loader import builtin_variants, check_variant, load_variant, parse_variant
from cardshop.bots import Bot, GreedyBot, ISMCTSBot, RandomBot, make_bot
from cardshop.klunker import (
    Event,
    Game,
    Match,
    MatchResult,
    Observation,
    Phase,
    Result,
    Termination,
    Variant,
    event_from_dict,
    event_to_dict,
    new_game,
    new_match,
    replay,
)
from cardshop.records import GameRecord, read_record, record_game, replay_record
from cardshop.simulation import GameOutcome, SimulationResult, simulate

__version__ = "0.1.0"

__all__ = [
    "Action",
    "ActionError",
    "ActionParseError",
    "Bot",
    "CardshopError",
    "Event",
    "Game",
    "GameOutcome",
    "GameRecord",
    "GameStateError",
    "GreedyBot",
    "ISMCTSBot",
    "IllegalActionError",
    "Match",
    "MatchResult",
    "Observation",
    "Phase",
    "PositionError",
    "RandomBot",
    "RecordError",
    "Result",
    "Seat",
    "SetupError",
    "SimulationResult",
    "Termination",
    "Variant",
    "VariantError",
    "__version__",
    "bots",
    "builtin_variants",
    "check_variant",
    "derive_seed",
    "event_from_dict",
    "event_to_dict",
    "load_variant",
    "make_bot",
    "new_game",
    "new_match",
    "parse_variant",
    "read_record",
    "record_game",
    "replay",
    "replay_record",
    "simulate",
]
