"""cardshop: play and audit Klunker-family card games from YAML variant files.

The public API is this module's names::

    import cardshop
    variant = cardshop.load_variant("klunker-en")
    game = cardshop.new_game(variant, players=4, seed=1)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    print(game.result())
"""

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
from cardshop._loader import builtin_variants, load_variant, parse_variant
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

__version__ = "0.1.0"

__all__ = [
    "Action",
    "ActionError",
    "ActionParseError",
    "CardshopError",
    "Event",
    "Game",
    "GameStateError",
    "IllegalActionError",
    "Match",
    "MatchResult",
    "Observation",
    "Phase",
    "PositionError",
    "RecordError",
    "Result",
    "Seat",
    "SetupError",
    "Termination",
    "Variant",
    "VariantError",
    "__version__",
    "builtin_variants",
    "derive_seed",
    "event_from_dict",
    "event_to_dict",
    "load_variant",
    "new_game",
    "new_match",
    "parse_variant",
    "replay",
]
