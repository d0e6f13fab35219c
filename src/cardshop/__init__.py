"""cardshop: play and audit shopping card games from YAML variant files.

One engine core and several families of games (Klunker, Wühltisch, Reglamentacja),
each variant a YAML file. The public API is this module's names::

    import cardshop
    game = cardshop.new_game("klunker-en", players=4, seed=1)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    print(game.result())

A family's own names (its observation, phases, events) live in its package, e.g.
``cardshop.klunker``.
"""

import importlib
import sys
import warnings
from typing import TYPE_CHECKING, Any

from cardshop import bots
from cardshop.bots import Bot, ISMCTSBot, RandomBot, make_bot
from cardshop.core.actions import (
    Action,
    Seat,
)
from cardshop.core.chance import derive_seed
from cardshop.core.errors import (
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
from cardshop.core.family import Family
from cardshop.core.frontdoor import (
    new_game,
    replay,
)
from cardshop.core.game import (
    Dynamics,
    Game,
    Move,
    Result,
    Termination,
)
from cardshop.core.loader import (
    builtin_variants,
    check_variant,
    load_variant,
    parse_variant,
    variant_changes,
    variant_warnings,
)
from cardshop.core.loader import schema as variant_schema
from cardshop.core.registry import (
    families,
    get_family,
    register_family,
)
from cardshop.core.schema import family_schema
from cardshop.core.series import Series
from cardshop.core.source import VariantWarning
from cardshop.core.variant import VariantBase as Variant
from cardshop.records import GameRecord, Recorder, read_record, record_game, replay_record
from cardshop.simulation import GameOutcome, SimulationResult, simulate
from cardshop.support.about import VERSION, compiled
from cardshop.tuning import TuneError, TuneResult, tune
from cardshop.variantdiff import diff_variants

if TYPE_CHECKING:  # imported on first use (the audit is a fifth of the import's time)
    from cardshop.audit.paired import compare_variants

__version__ = VERSION

__all__ = [
    "Action",
    "ActionError",
    "ActionParseError",
    "Bot",
    "CardshopError",
    "Dynamics",
    "Family",
    "Game",
    "GameOutcome",
    "GameRecord",
    "GameStateError",
    "ISMCTSBot",
    "IllegalActionError",
    "Move",
    "PositionError",
    "RandomBot",
    "RecordError",
    "Recorder",
    "Result",
    "Seat",
    "Series",
    "SetupError",
    "SimulationResult",
    "Termination",
    "TuneError",
    "TuneResult",
    "Variant",
    "VariantError",
    "VariantWarning",
    "__version__",
    "bots",
    "builtin_variants",
    "check_variant",
    "compare_variants",
    "compiled",
    "derive_seed",
    "diff_variants",
    "families",
    "family_schema",
    "get_family",
    "load_variant",
    "make_bot",
    "new_game",
    "parse_variant",
    "read_record",
    "record_game",
    "register_family",
    "replay",
    "replay_record",
    "simulate",
    "tune",
    "variant_changes",
    "variant_schema",
    "variant_warnings",
]

_MOVED = {
    "Event": "cardshop.klunker",
    "GreedyBot": "cardshop.klunker",
    "Match": "cardshop.klunker",
    "MatchResult": "cardshop.klunker",
    "Observation": "cardshop.klunker",
    "Phase": "cardshop.klunker",
    "event_from_dict": "cardshop.klunker",
    "event_to_dict": "cardshop.klunker",
    "new_match": "cardshop.klunker",
}
"""Names of the Klunker family that earlier versions of 0.1 exported here; they still
work, with a warning, and will leave this module in a later release."""


_LAZY = {"compare_variants": "cardshop.audit.paired"}
"""Names of this module imported on first use, by the module they come from."""


def __getattr__(name: str) -> Any:
    lazy = _LAZY.get(name)
    if lazy is not None:
        value = getattr(importlib.import_module(lazy), name)
        globals()[name] = value
        return value
    home = _MOVED.get(name)
    if home is None:
        raise AttributeError(f"module 'cardshop' has no attribute {name!r}")
    warnings.warn(
        f"cardshop.{name} is deprecated: it belongs to the Klunker family, import it from "
        f"{home} (cardshop {__version__} still exports it here; a later release will not)",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(home), name)


_OLD_MODULES = {
    "cardshop._core": "cardshop.core.actions",
    "cardshop._errors": "cardshop.core.errors",
    "cardshop._events": "cardshop.core.events",
    "cardshop._family": "cardshop.core.family",
    "cardshop._game": "cardshop.core.game",
    "cardshop._series": "cardshop.core.series",
    "cardshop._variant": "cardshop.core.variant",
}
"""Where the classes that pickles name by the core's old module paths live now (the core
was modules at the package root before it was the package :mod:`cardshop.core`): the
old paths are names of the new modules, so that games pickled before still load. No
code imports them; ``cardshop.core`` is the API."""

for _old, _new in _OLD_MODULES.items():
    sys.modules.setdefault(_old, importlib.import_module(_new))
