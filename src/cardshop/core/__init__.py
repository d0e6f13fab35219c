"""The public family API: everything a family of games may import from cardshop.

A family is a package that plays one kind of game from its variant files (the built-in
``cardshop.klunker``, ``cardshop.wuhltisch`` and ``cardshop.reglamentacja``, or a third
party's). It imports this module and itself, nothing else of cardshop: the rest of
cardshop (its tools and its private modules) may change without notice, this module
may not. ``tests/test_boundary.py`` holds every built-in family to that, and
``docs/writing-a-family.md`` walks through writing one with these names alone.

What is here, by concern:

* **Vocabulary**: :data:`Seat`, :class:`Action` (a verb and an argument, with a text
  form; :func:`action_words` and :func:`action_number`, the one tokenizer of action
  texts), :class:`LegalActions` (the read-only view of a seat's legal actions that
  ``Game.legal_actions`` returns, over an
  :class:`ActionList`; :func:`actions_by_verb` groups actions by verb and
  :func:`choose_by_verb` picks a kind of action, then one of it, as baseline bots
  do), :data:`Event`, :data:`JointAction`;
  :class:`EventCodec`, the dict form of a family's events, and :class:`GameEnded`,
  the last event of every game.
* **Seeded chance**: :func:`derive_seed`, :func:`derive_rng`, :func:`shuffle`,
  :func:`derive_below` and :func:`derive_shuffle` (the same draws as
  ``derive_rng(...).randrange`` and ``.shuffle``, faster), :func:`is_seed` and
  :func:`check_seed` (the one check of a seed: an int, never a bool, within
  :data:`SEED_LIMIT`, or :data:`MASTER_SEED_LIMIT` for a simulation's or an audit's
  master seed). A game never touches the global ``random``. A family draws each
  chance event through :func:`chance_source` of its variant's ``chance``, a
  :class:`ChanceSource`: the seeded source of that chance model
  (:data:`CHANCE_MODELS`: :data:`SEEDED` for model 1, :data:`STREAMED`, a
  :class:`StreamedChance` reading :func:`stream_bytes`, for model 2) unless
  :func:`drawing_from` sets another, such as a :class:`ScriptedChance` that takes
  every outcome from a list of choices (how ``cardshop verify`` enumerates them;
  :class:`ChanceScriptError` when they do not fit).
* **Errors**: :class:`CardshopError` and one subclass per kind of failure, among them
  :class:`InvariantViolation`, which a family's own checks raise; :func:`format_path`
  writes a key path and :func:`format_value` a hostile value in a message.
* **Games**: :class:`Game` (the protocol every engine implements; its fields declared
  once as :class:`StateField` entries of ``Game.STATE``, copied as :class:`Copy` says),
  :class:`Engine` (a game that keeps its setup in fields and ranks its seats by keys,
  from which ``players``, ``setup_options``, ``result``, ``progress``, ``termination``,
  ``from_json`` and the hand-offs to its readers follow, and ``Engine.new`` sets up a
  game from the family's ``_init_empty`` and ``_setup``),
  :class:`Dynamics`,
  :class:`Move`, :class:`Result`, :class:`Termination`, :func:`rank_seats`,
  :func:`check_setup` and :func:`check_players` (what a new game is set up with),
  :func:`read_game_json` (the one bounded reader of game JSON) and
  :func:`verify_history` (a game read from JSON replays from its setup;
  :class:`HistoryCheck` replays it as a reader reads the moves, to stop at the first
  move that cannot be), and a
  match of several games played as one, :class:`Series`.
* **Positions** (a game's state written down, like FEN in chess): :func:`read_position`
  parses and bounds one against the family's model of a position,
  :func:`position_variant` finds its variant (a name or embedded data, never a path),
  :func:`position_players` its number of players, and :func:`position_setup` does the
  three, as every family's reader starts; :func:`position_kind` reads a kind of card
  it names. A position model types its ``seed`` :data:`PositionSeed` and its running
  counts :data:`PositionCounter` (at most :data:`MAX_COUNTER`), so that no number a
  stranger writes is unbounded.
* **Variants**: :class:`VariantBase` and its sections (:class:`Players`,
  :class:`Match`, :class:`Section`), :data:`Slug`, :func:`check_range` (checks the
  ranges of options a family's strategy of variants takes), the loader (:func:`load_variant`,
  :func:`parse_variant`, :func:`variant_from_data`, :func:`builtin_variants`,
  :func:`variant_warnings`, whose items are :class:`VariantWarning`) and
  :func:`load_yaml` (YAML or JSON with the line and column of every value).
* **Expressions**: :func:`expression` (the type of a variant key that holds an integer or
  an expression over named quantities), :class:`Name` (one such quantity, with its
  range), :func:`compile_expression`, :class:`Expression` (compiled to a closure;
  ``.constant`` when it reads no name), :class:`ExpressionError`, :func:`closest` (the
  nearest spelling, for messages) and :func:`describe_names`.
* **The family record**: :class:`Family`, what a family hands the registry, with
  :class:`Invariant`, :class:`SearchHooks`, :data:`RolloutPolicy`,
  :data:`CandidatePolicy`, :data:`BotFactory` (:func:`optionless_bot` makes one),
  :class:`ObservationEncoder`,
  :class:`ActionFactors` (actions chosen part by part, for learning agents) and
  :class:`AuditDefaults` (what ``cardshop audit`` does for its variants by default)
  and :class:`VerifyHooks` (what ``cardshop verify`` needs to check every state);
  :func:`register_family` adds one at run time (entry points are the usual way).
* **Limits** every family shares: :data:`MAX_ACTION_TEXT`, :data:`MAX_PLAYERS`,
  :data:`MAX_TITLE`, :data:`MAX_DESCRIPTION`, :data:`MAX_EXTENDS`,
  :data:`MAX_GAMES_PER_PLAYER` (``VariantBase.limits()`` names a variant's bounds).

``Checked[T]`` marks an argument that a function checks at run time itself (see
:data:`Checked`); :func:`own_abc_caches` gives a class compiled by mypyc the ABC caches
Python would have given it (``Game`` calls it for each game class itself).
"""

from cardshop.core.actions import (
    MAX_ACTION_TEXT,
    Action,
    LegalActions,
    Seat,
    action_number,
    action_words,
    actions_by_verb,
    choose_by_verb,
)
from cardshop.core.chance import (
    CHANCE_MODELS,
    MASTER_SEED_LIMIT,
    SEED_LIMIT,
    SEEDED,
    STREAMED,
    ChanceScriptError,
    ChanceSource,
    ScriptedChance,
    StreamedChance,
    chance_source,
    check_seed,
    derive_below,
    derive_rng,
    derive_seed,
    derive_shuffle,
    drawing_from,
    is_seed,
    shuffle,
    stream_bytes,
)
from cardshop.core.checked import (
    Checked,
    own_abc_caches,
)
from cardshop.core.errors import (
    ActionError,
    ActionParseError,
    CardshopError,
    GameStateError,
    IllegalActionError,
    InvariantViolation,
    PositionError,
    RecordError,
    SetupError,
    SourceLocation,
    VariantError,
    format_path,
    format_value,
)
from cardshop.core.events import (
    EventCodec,
    GameEnded,
)
from cardshop.core.expr import (
    Expression,
    ExpressionError,
    Name,
    closest,
    compile_expression,
    describe_names,
)
from cardshop.core.factored import ActionFactors
from cardshop.core.family import (
    AuditDefaults,
    BotFactory,
    CandidatePolicy,
    Family,
    Invariant,
    ObservationEncoder,
    RolloutPolicy,
    SearchHooks,
    VerifyHooks,
    optionless_bot,
)
from cardshop.core.frontdoor import HistoryCheck, verify_history
from cardshop.core.game import (
    MAX_GAME_JSON_BYTES,
    MAX_GAME_JSON_DEPTH,
    MAX_GAME_JSON_INT,
    Copy,
    Dynamics,
    Engine,
    Event,
    Game,
    JointAction,
    Move,
    Result,
    StateField,
    Termination,
    check_players,
    check_setup,
    rank_seats,
    read_game_json,
)
from cardshop.core.loader import (
    builtin_variants,
    load_variant,
    parse_variant,
    variant_from_data,
    variant_warnings,
)
from cardshop.core.positions import (
    MAX_COUNTER,
    MAX_POSITION_TEXT,
    PositionCounter,
    PositionSeed,
    PositionVariant,
    position_data,
    position_kind,
    position_players,
    position_setup,
    position_variant,
    read_position,
)
from cardshop.core.protocol import ActionList
from cardshop.core.registry import register_family
from cardshop.core.series import (
    Series,
    new_series,
)
from cardshop.core.source import VariantWarning, load_yaml
from cardshop.core.variant import (
    MAX_DESCRIPTION,
    MAX_EXTENDS,
    MAX_GAMES_PER_PLAYER,
    MAX_PLAYERS,
    MAX_TITLE,
    SCHEMA_ID,
    SLUG_PATTERN,
    Match,
    Players,
    Section,
    Slug,
    VariantBase,
    check_range,
    expression,
)

__all__ = [
    "CHANCE_MODELS",
    "MASTER_SEED_LIMIT",
    "MAX_ACTION_TEXT",
    "MAX_COUNTER",
    "MAX_DESCRIPTION",
    "MAX_EXTENDS",
    "MAX_GAMES_PER_PLAYER",
    "MAX_GAME_JSON_BYTES",
    "MAX_GAME_JSON_DEPTH",
    "MAX_GAME_JSON_INT",
    "MAX_PLAYERS",
    "MAX_POSITION_TEXT",
    "MAX_TITLE",
    "SCHEMA_ID",
    "SEEDED",
    "SEED_LIMIT",
    "SLUG_PATTERN",
    "STREAMED",
    "Action",
    "ActionError",
    "ActionFactors",
    "ActionList",
    "ActionParseError",
    "AuditDefaults",
    "BotFactory",
    "CandidatePolicy",
    "CardshopError",
    "ChanceScriptError",
    "ChanceSource",
    "Checked",
    "Copy",
    "Dynamics",
    "Engine",
    "Event",
    "EventCodec",
    "Expression",
    "ExpressionError",
    "Family",
    "Game",
    "GameEnded",
    "GameStateError",
    "HistoryCheck",
    "IllegalActionError",
    "Invariant",
    "InvariantViolation",
    "JointAction",
    "LegalActions",
    "Match",
    "Move",
    "Name",
    "ObservationEncoder",
    "Players",
    "PositionCounter",
    "PositionError",
    "PositionSeed",
    "PositionVariant",
    "RecordError",
    "Result",
    "RolloutPolicy",
    "ScriptedChance",
    "SearchHooks",
    "Seat",
    "Section",
    "Series",
    "SetupError",
    "Slug",
    "SourceLocation",
    "StateField",
    "StreamedChance",
    "Termination",
    "VariantBase",
    "VariantError",
    "VariantWarning",
    "VerifyHooks",
    "action_number",
    "action_words",
    "actions_by_verb",
    "builtin_variants",
    "chance_source",
    "check_players",
    "check_range",
    "check_seed",
    "check_setup",
    "choose_by_verb",
    "closest",
    "compile_expression",
    "derive_below",
    "derive_rng",
    "derive_seed",
    "derive_shuffle",
    "describe_names",
    "drawing_from",
    "expression",
    "format_path",
    "format_value",
    "is_seed",
    "load_variant",
    "load_yaml",
    "new_series",
    "optionless_bot",
    "own_abc_caches",
    "parse_variant",
    "position_data",
    "position_kind",
    "position_players",
    "position_setup",
    "position_variant",
    "rank_seats",
    "read_game_json",
    "read_position",
    "register_family",
    "shuffle",
    "stream_bytes",
    "variant_from_data",
    "variant_warnings",
    "verify_history",
]
