"""The house's plan: the layer contract, the public API, and what the move kept.

The layers are stated once, in ``pyproject.toml``'s ``[tool.importlinter]`` (drawn in
docs/architecture.md), and checked here with import-linter on the checkout's source,
imports inside functions included; a cross-layer import planted in a copy of the
source breaks them. The public API (``cardshop``, ``cardshop.core``) is the one of the
release before the core became a package, name for name, and games pickled then
still load.
"""

from __future__ import annotations

import inspect
import os
import pickle
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

import cardshop
import cardshop.core
from cardshop.bots import make_bot
from cardshop.driver import play

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def lint_imports(src: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the package under ``src``, with the contract of ``cwd``'s
    pyproject.toml (in a subprocess: it imports the package to find its files)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    script = "import sys; from importlinter.cli import lint_imports_command; lint_imports_command()"
    return subprocess.run(
        [sys.executable, "-c", script, "--no-cache", "--no-logo"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.source_only
def test_the_layer_contract_holds() -> None:
    done = lint_imports(SRC, ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


UP = "def _up():\n    "
"""A plant inside a function: imports there count as much as at the top."""

PLANTS = [
    # (file, lines planted at the end of it, what the broken contract's report names)
    (
        "core/errors.py",
        "def _up():\n    from cardshop.audit import run_audit\n",
        "cardshop.core.errors",
    ),
    (
        "core/game.py",
        "def _up():\n    from cardshop.core.registry import get_family\n",
        "The core's own layers",
    ),
    ("core/variant.py", "from cardshop.core.loader import load_variant\n", "The core's own layers"),
    ("klunker/rules.py", "from cardshop.simulation import simulate\n", "A family imports"),
    ("klunker/rules.py", "from cardshop.core.game import Game\n", "A family imports"),
    ("wuhltisch/rules.py", "import cardshop.klunker\n", "The families know nothing"),
    ("simulation.py", UP + "import cardshop.reglamentacja\n", "never by import"),
    ("driver.py", UP + "from cardshop.cli import run\n", "cardshop.driver"),
    ("audit/__init__.py", UP + "from cardshop import simulate\n", "front module"),
]


@pytest.mark.source_only
@pytest.mark.parametrize(("where", "line", "broken"), PLANTS)
def test_a_planted_cross_layer_import_breaks_the_contract(
    tmp_path: Path, where: str, line: str, broken: str
) -> None:
    copy = tmp_path / "src" / "cardshop"
    shutil.copytree(SRC / "cardshop", copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = copy / where
    target.write_text(target.read_text(encoding="utf-8") + "\n\n" + line, encoding="utf-8")
    done = lint_imports(tmp_path / "src", tmp_path)
    assert done.returncode != 0, done.stdout
    assert "BROKEN" in done.stdout
    assert broken in done.stdout


@pytest.mark.source_only
def test_no_module_of_the_core_sits_at_the_package_root() -> None:
    at_root = sorted(p.name for p in (SRC / "cardshop").glob("_*.py"))
    assert at_root == ["__init__.py", "__main__.py"]
    core = {p.stem for p in (SRC / "cardshop" / "core").glob("*.py")}
    assert {"actions", "chance", "game", "family", "registry", "frontdoor"} <= core


def _kind(value: object) -> str:
    if isinstance(value, types.ModuleType):
        return "module"
    if inspect.isclass(value):
        return "class"
    if callable(value):
        return "callable"
    return "value"


API_BEFORE = {
    "cardshop": {
        "Action": "class",
        "ActionError": "class",
        "ActionParseError": "class",
        "Bot": "class",
        "CardshopError": "class",
        "Dynamics": "class",
        "Family": "class",
        "Game": "class",
        "GameOutcome": "class",
        "GameRecord": "class",
        "GameStateError": "class",
        "ISMCTSBot": "class",
        "IllegalActionError": "class",
        "Move": "class",
        "PositionError": "class",
        "RandomBot": "class",
        "RecordError": "class",
        "Recorder": "class",
        "Result": "class",
        "Seat": "class",
        "Series": "class",
        "SetupError": "class",
        "SimulationResult": "class",
        "Termination": "class",
        "TuneError": "class",
        "TuneResult": "class",
        "Variant": "class",
        "VariantError": "class",
        "__version__": "value",
        "bots": "module",
        "builtin_variants": "callable",
        "check_variant": "callable",
        "compiled": "value",
        "derive_seed": "callable",
        "families": "callable",
        "get_family": "callable",
        "load_variant": "callable",
        "make_bot": "callable",
        "new_game": "callable",
        "parse_variant": "callable",
        "read_record": "callable",
        "record_game": "callable",
        "register_family": "callable",
        "replay": "callable",
        "replay_record": "callable",
        "simulate": "callable",
        "tune": "callable",
        "variant_schema": "callable",
    },
    "cardshop.core": {
        "Action": "class",
        "ActionError": "class",
        "ActionFactors": "class",
        "ActionList": "class",
        "ActionParseError": "class",
        "AuditDefaults": "class",
        "BotFactory": "callable",
        "CandidatePolicy": "callable",
        "CardshopError": "class",
        "Checked": "callable",
        "Copy": "class",
        "Dynamics": "class",
        "Engine": "class",
        "Event": "class",
        "EventCodec": "class",
        "Family": "class",
        "Game": "class",
        "GameEnded": "class",
        "GameStateError": "class",
        "HistoryCheck": "class",
        "IllegalActionError": "class",
        "Invariant": "class",
        "InvariantViolation": "class",
        "JointAction": "callable",
        "LegalActions": "class",
        "MASTER_SEED_LIMIT": "value",
        "MAX_ACTION_TEXT": "value",
        "MAX_COUNTER": "value",
        "MAX_DESCRIPTION": "value",
        "MAX_EXTENDS": "value",
        "MAX_GAMES_PER_PLAYER": "value",
        "MAX_GAME_JSON_BYTES": "value",
        "MAX_GAME_JSON_DEPTH": "value",
        "MAX_GAME_JSON_INT": "value",
        "MAX_PLAYERS": "value",
        "MAX_POSITION_TEXT": "value",
        "MAX_TITLE": "value",
        "Match": "class",
        "Move": "class",
        "ObservationEncoder": "class",
        "Players": "class",
        "PositionCounter": "callable",
        "PositionError": "class",
        "PositionSeed": "callable",
        "PositionVariant": "callable",
        "RecordError": "class",
        "Result": "class",
        "RolloutPolicy": "callable",
        "SCHEMA_ID": "value",
        "SEED_LIMIT": "value",
        "SLUG_PATTERN": "value",
        "SearchHooks": "class",
        "Seat": "class",
        "Section": "class",
        "Series": "class",
        "SetupError": "class",
        "Slug": "callable",
        "SourceLocation": "class",
        "StateField": "class",
        "Termination": "class",
        "VariantBase": "class",
        "VariantError": "class",
        "action_number": "callable",
        "action_words": "callable",
        "actions_by_verb": "callable",
        "builtin_variants": "callable",
        "check_players": "callable",
        "check_range": "callable",
        "check_seed": "callable",
        "check_setup": "callable",
        "choose_by_verb": "callable",
        "derive_below": "callable",
        "derive_rng": "callable",
        "derive_seed": "callable",
        "derive_shuffle": "callable",
        "format_path": "callable",
        "format_value": "callable",
        "is_seed": "callable",
        "load_variant": "callable",
        "load_yaml": "callable",
        "new_series": "callable",
        "optionless_bot": "callable",
        "own_abc_caches": "callable",
        "parse_variant": "callable",
        "position_data": "callable",
        "position_kind": "callable",
        "position_players": "callable",
        "position_setup": "callable",
        "position_variant": "callable",
        "rank_seats": "callable",
        "read_game_json": "callable",
        "read_position": "callable",
        "register_family": "callable",
        "shuffle": "callable",
        "variant_from_data": "callable",
        "verify_history": "callable",
    },
}
"""``cardshop`` and ``cardshop.core``: every name of ``__all__`` and its kind, as
they were before the core became a package."""

API_ADDED: dict[str, dict[str, str]] = {
    "cardshop": {
        "VariantWarning": "class",
        "compare_variants": "callable",
        "diff_variants": "callable",
        "family_schema": "callable",
        "variant_changes": "callable",
        "variant_warnings": "callable",
    },
    "cardshop.core": {
        "Expression": "class",
        "ExpressionError": "class",
        "Name": "class",
        "VariantWarning": "class",
        "closest": "callable",
        "compile_expression": "callable",
        "describe_names": "callable",
        "expression": "callable",
        "variant_warnings": "callable",
        "SEEDED": "value",
        "ChanceScriptError": "class",
        "ChanceSource": "class",
        "ScriptedChance": "class",
        "VerifyHooks": "class",
        "chance_source": "callable",
        "drawing_from": "callable",
        "CHANCE_MODELS": "value",
        "STREAMED": "value",
        "StreamedChance": "class",
        "stream_bytes": "callable",
    },
}
"""Names added since, each with its kind: the variant language of expressions; the
schema of one family, and the diff and comparison of two variants; the warnings of a
variant and the edits of a file that extends another; the chance sources families draw
through (and the second chance model's) and what ``cardshop verify`` needs of a family."""


@pytest.mark.parametrize("module", ["cardshop", "cardshop.core"])
def test_the_public_api_is_unchanged_name_for_name(module: str) -> None:
    """Nothing of the API before is gone or changed in kind; what is new is listed."""
    found = sys.modules[module]
    now = {name: _kind(getattr(found, name)) for name in found.__all__}
    assert now == {**API_BEFORE[module], **API_ADDED[module]}


def test_import_cardshop_leaves_the_audit_until_it_is_used() -> None:
    """``cardshop.compare_variants`` imports the audit package on first use, not with
    ``import cardshop`` (which every game, bot and server pays for)."""
    code = (
        "import sys, cardshop\n"
        "print('cardshop.audit' in sys.modules)\n"
        "from cardshop import compare_variants\n"
        "print('cardshop.audit' in sys.modules, compare_variants.__module__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True
    )
    assert done.stdout.split() == ["False", "True", "cardshop.audit.paired"]


def test_games_pickled_before_the_core_became_a_package_still_load() -> None:
    """A game of each family pickled by the release before (module paths
    ``cardshop._core``, ``cardshop._game``, ``cardshop._variant``) loads, equals its
    JSON of then, and plays on."""
    data = (ROOT / "tests" / "fixtures" / "games-before-core-package.pickle").read_bytes()
    assert b"cardshop._game" in data
    assert b"cardshop._core" in data
    games = pickle.loads(data)
    assert sorted(games) == ["klunker-en", "klunker-es", "reglamentacja", "wuhltisch"]
    for name, (game, action, result, text) in games.items():
        assert game.to_json() == text, name
        assert isinstance(action, cardshop.Action)
        assert isinstance(result, cardshop.Result)
        fresh = cardshop.Game.from_json(text)
        assert game == fresh
        seat = game.acting[0]
        assert action in game.legal_actions(seat)
        # ... and plays to the end as the same game read from its JSON does
        for copy in (game, fresh):
            bots = [make_bot("random", copy.variant, seed=s) for s in range(copy.players)]
            play(copy, bots, max_steps=100_000)
        assert game.result() == fresh.result(), name
        assert game.to_json() == fresh.to_json(), name


def test_a_match_pickles_and_plays_on() -> None:
    """A match's games are of a class made for its family (``Series`` by name): pickle
    restores that class, and the copy plays on as the original does."""
    game = cardshop.new_game("klunker-zh", players=3, seed=5)
    for _ in range(4):
        game.apply(game.legal_actions()[0])
    copy = pickle.loads(pickle.dumps(game))
    assert type(copy) is type(game)
    assert copy.to_json() == game.to_json()
    for g in (game, copy):
        g.apply(g.legal_actions()[-1])
    assert copy.to_json() == game.to_json()


@pytest.mark.source_only
def test_the_architecture_page_draws_the_contract() -> None:
    """docs/architecture.md draws the layers of pyproject.toml's contract, each module
    of each layer one that exists in the tree (``python scripts/layers.py`` redraws)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "layers.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, "docs/architecture.md is out of step: run scripts/layers.py"
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawn = set(re.findall(r"^\| \d* \| `(cardshop[\w.]*)` \|", page, re.M))

    def children(package: Path, name: str) -> set[str]:
        return {
            f"{name}.{p.stem}"
            for p in package.iterdir()
            if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
        }

    top = SRC / "cardshop"
    tree = children(top, "cardshop") | children(top / "core", "cardshop.core")
    assert drawn == tree | children(top / "audit", "cardshop.audit")
