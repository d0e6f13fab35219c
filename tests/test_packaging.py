"""Packaging for users: the wheel and sdist build, carry the built-in variants and the
``py.typed`` marker, and the wheel installed in a fresh virtual environment (runtime
dependencies from the package index) runs the quickstart.

The builds: without a working C compiler the wheel falls back to pure Python with a
warning (the wheel here is built so, which is quick); the compiled wheel is built and
tested by the second stage of ``.ci/run``, which sets ``CARDSHOP_EXPECT_COMPILED=1`` and
runs this suite against it; both builds must play the recorded games move for move.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import tarfile
import textwrap
import tomllib
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

import cardshop
from diff_support import under_model

# Its module-scoped fixtures (the sdist and wheel) are built once: under pytest -n one
# worker runs the module.
pytestmark = pytest.mark.xdist_group("packaging")
CHECKOUT_BUILD = pytest.mark.source_only
"""A test of what the checkout builds (its sdist and wheels, made without a C compiler
or failing for want of one), whichever build runs pytest: the compiled stage of
``.ci/run`` leaves it out, as the pure stage has checked the same files."""

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = sorted(p.name for p in (ROOT / "variants").glob("*.yaml"))


def run(
    *cmd: str | Path, cwd: Path = ROOT, timeout: float = 1800, env: dict[str, str] | None = None
) -> str:
    """Run a command; ``timeout`` is a hang guard (a build takes a minute or two)."""
    proc = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


# No C compiler: `CC` names a command that cannot compile (the build hook's probe fails);
# compiling is asked for (CARDSHOP_COMPILE=1), so the hook must fall back.
NO_COMPILER = {
    **{k: v for k, v in os.environ.items() if not k.startswith("CARDSHOP_")},
    "CC": "/bin/false",
    "CARDSHOP_COMPILE": "1",
}
BUILD_LOG: list[str] = []


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sdist and wheel, built the way `python -m build` does (the wheel from the sdist),
    on a machine without a C compiler."""
    out = tmp_path_factory.mktemp("dist")
    # Without build isolation when the backend is already installed: same build, no
    # download of hatchling into a throwaway environment.
    isolation = ["--no-isolation"] if importlib.util.find_spec("hatchling") else []
    BUILD_LOG.append(
        run(sys.executable, "-m", "build", *isolation, "--outdir", out, ROOT, env=NO_COMPILER)
    )
    return out


def only(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    assert len(found) == 1, f"expected one {pattern} in {folder}, found {found}"
    return found[0]


def test_version_is_one_in_pyproject_package_and_changelog() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["version"] == cardshop.__version__
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(cardshop.__version__)}\]", changelog, re.MULTILINE)


@CHECKOUT_BUILD
def test_wheel_ships_variants_and_typing_marker(dist: Path) -> None:
    wheel = only(dist, f"cardshop-{cardshop.__version__}-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        for variant in VARIANTS:
            packaged = zf.read(f"cardshop/_builtin_variants/{variant}")
            assert packaged == (ROOT / "variants" / variant).read_bytes()
        metadata = zf.read(f"cardshop-{cardshop.__version__}.dist-info/METADATA").decode()
    assert "cardshop/py.typed" in names
    assert "cardshop/envs/__init__.py" in names
    for page in ("index.html", "app.js", "style.css"):  # cardshop serve's page
        assert f"cardshop/serve/static/{page}" in names
    assert not any(n.startswith(("tests/", "docs/")) for n in names)
    assert f"Version: {cardshop.__version__}" in metadata
    assert "Provides-Extra: rl" in metadata
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    runtime = [line for line in requires if "extra ==" not in line]
    names = sorted(re.split(r"[<>=!~;\s\[]", r.split()[1])[0].lower() for r in runtime)
    assert names == ["lark", "pydantic", "pyyaml"]


@CHECKOUT_BUILD
def test_without_a_compiler_the_wheel_is_pure_python_with_a_warning(dist: Path) -> None:
    only(dist, f"cardshop-{cardshop.__version__}-py3-none-any.whl")
    (log,) = BUILD_LOG
    assert "the compiled engine cannot be built" in log
    assert "building the pure-Python wheel instead" in log
    assert "/bin/false" in log


@CHECKOUT_BUILD
def test_a_required_compiled_build_fails_without_a_compiler(tmp_path: Path) -> None:
    """CARDSHOP_REQUIRE_COMPILED=1: no silent fallback (the probe fails before mypyc)."""
    isolation = ["--no-isolation"] if importlib.util.find_spec("hatchling") else []
    proc = subprocess.run(
        [sys.executable, "-m", "build", *isolation, "--wheel", "--outdir", tmp_path, ROOT],
        env={**NO_COMPILER, "CARDSHOP_REQUIRE_COMPILED": "1"},
        capture_output=True,
        text=True,
        timeout=1800,  # a hang guard: it fails within a minute
        check=False,
    )
    assert proc.returncode != 0
    assert "CARDSHOP_REQUIRE_COMPILED is set, so the build fails" in proc.stdout + proc.stderr
    assert not list(tmp_path.glob("*.whl"))


def test_only_a_compiled_wheel_build_asks_for_mypyc() -> None:
    """What the build backend asks the frontend to install: mypy (mypyc) and
    setuptools for a wheel that is compiled, nothing of the kind for an editable
    install (always pure Python) nor for a pure wheel."""
    pytest.importorskip("hatchling")
    script = (
        "import json, hatchling.build as b; "
        "print(json.dumps([b.get_requires_for_build_wheel(), "
        "b.get_requires_for_build_editable()]))"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CARDSHOP_")}

    def requires(env: dict[str, str]) -> list[list[str]]:
        found: list[list[str]] = json.loads(run(sys.executable, "-c", script, env=env))
        return found

    wheel, editable = requires({**clean, "CARDSHOP_REQUIRE_COMPILED": "1"})
    assert any(r.startswith("mypy") for r in wheel)
    assert not any(r.startswith(("mypy", "setuptools")) for r in editable)
    wheel, editable = requires({**clean, "CARDSHOP_PURE": "1"})
    assert not any(r.startswith(("mypy", "setuptools")) for r in wheel + editable)


COMPILED_MODULES = (
    "cardshop.core.actions",
    "cardshop.core.series",
    "cardshop.klunker.rules",
    "cardshop.klunker.game",
    "cardshop.wuhltisch.game",
    "cardshop.reglamentacja.game",
)
"""The modules the compiled build compiles (hatch_build.py, ``COMPILED``)."""


def test_cardshop_compiled_names_the_build_in_use() -> None:
    """``cardshop.compiled`` is whether the engine's modules are C extensions; the
    compiled stage of .ci/run sets CARDSHOP_EXPECT_COMPILED=1 and gets the installed
    compiled package, not the checkout's src/ (a src layout is not on sys.path)."""
    import importlib

    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    for name in COMPILED_MODULES:
        module = importlib.import_module(name)
        assert module.__file__ is not None
        assert cardshop.compiled is module.__file__.endswith(suffixes), name
    expected = os.environ.get("CARDSHOP_EXPECT_COMPILED")
    if expected is not None:
        assert cardshop.compiled is (expected == "1")
        assert not Path(cardshop.__file__).is_relative_to(ROOT / "src"), cardshop.__file__


def _step(game: cardshop.Game, choose: Callable[[], float]) -> list[object]:
    """One random step: the acting seat's action, or every seat's at once."""
    if game.dynamics is cardshop.Dynamics.SIMULTANEOUS:
        joint: dict[int, cardshop.Action] = {}
        for seat in game.acting:
            actions = game.legal_actions(seat)
            joint[seat] = actions[int(choose() * len(actions))]
        return list(game.apply_joint(joint))
    actions = game.legal_actions()
    return list(game.apply(actions[int(choose() * len(actions))]))


def test_isinstance_tells_the_families_games_and_views_apart_on_both_builds() -> None:
    """A class compiled by mypyc is made without ``ABCMeta.__new__``; without caches of
    its own (``own_abc_caches``) it shared its base's, and ``isinstance`` of one
    family's game against another family's class held once the game had been checked
    against the core ``Game``, and an action (a tuple) passed for a legal-action view."""
    from cardshop.core import LegalActions
    from cardshop.klunker.game import Game as KlunkerGame
    from cardshop.reglamentacja.game import ReglamentacjaGame
    from cardshop.wuhltisch.game import WuhltischGame

    classes = (KlunkerGame, WuhltischGame, ReglamentacjaGame)
    games = [cardshop.new_game(name, 3, seed=1) for name in ("klunker-en", "wuhltisch")]
    games.append(cardshop.new_game("reglamentacja", 3, seed=1))
    for game in games:
        assert isinstance(game, cardshop.Game)  # fills the core Game's caches first
    for game, own in zip(games, classes, strict=True):
        assert [isinstance(game, cls) for cls in classes] == [cls is own for cls in classes]
    action = cardshop.Action("buy", 1)
    assert isinstance(action, tuple)
    for not_a_view in (action, (action,), [action], "buy 1"):
        assert not isinstance(not_a_view, LegalActions)
    assert isinstance(games[0].legal_actions(), LegalActions)


@pytest.mark.parametrize(
    ("variant", "players", "steps"),
    [
        ("klunker-es", 5, 60),
        ("wuhltisch", 3, 400),
        ("reglamentacja", 4, 120),
    ],
)
def test_a_game_copies_and_pickles_on_both_builds(variant: str, players: int, steps: int) -> None:
    """clone, copy, deepcopy and pickle make equal games that play on alike (the compiled
    build's classes cannot be made by ``Game.__new__``, which pickle uses by default),
    and a game refuses weak references on both builds (hatch_build.py, ``_no_weakrefs``)."""
    import copy
    import pickle
    import weakref

    game = cardshop.new_game(variant, players, seed=3)
    if not cardshop.compiled:  # every field is declared, so pickled
        assert {f.name for f in type(game).STATE} == set(type(game).__slots__)
    choose = random.Random(3).random
    for _ in range(steps):
        _step(game, choose)
    assert not game.is_over
    copies = [game.clone(), copy.copy(game), copy.deepcopy(game)]
    copies.append(pickle.loads(pickle.dumps(game)))
    for other in copies:
        assert type(other) is type(game)
        assert other == game
        assert other.moves == game.moves
        assert other is not game
        with pytest.raises(TypeError, match="weak reference"):
            weakref.ref(other)
    with pytest.raises(TypeError, match="weak reference"):
        weakref.ref(game)
    state = random.Random(4).getstate()
    events = _step(game, random.Random(4).random)
    for other in copies:
        choose = random.Random()
        choose.setstate(state)
        assert _step(other, choose.random) == events
        assert other == game


def _played_out(variant: cardshop.VariantBase, players: int, seed: int) -> cardshop.Game:
    """A random game played to its end, checked to survive a JSON round trip."""
    game = cardshop.new_game(variant, players, seed=seed)
    choose = random.Random(seed).random
    while not game.is_over:
        _step(game, choose)
    assert type(game).from_json(game.to_json()) == game
    return game


def _summary(game: cardshop.Game, texts: str) -> list[object]:
    """History digest (of ``texts``), length, scores and termination of a game."""
    result = game.result()
    return [
        hashlib.sha256(texts.encode()).hexdigest()[:16],
        len(game.moves),
        list(result.scores),
        result.termination.value,
    ]


def _played(variant: cardshop.VariantBase, players: int, seed: int) -> list[object]:
    game = _played_out(variant, players, seed)
    return _summary(game, " ".join(f"{m.seat}:{m.action}" for m in game.moves))


FIXTURES = ROOT / "tests" / "fixtures"
GAMES = {1: FIXTURES / "klunker-games.json", 2: FIXTURES / "klunker-games-chance2.json"}
"""Random games of every Klunker variant recorded with the pure build, under each chance
model: history digest, length, scores, termination. Rewrite with ``python
tests/test_packaging.py --record`` (only after a deliberate change of the rules); the
model-1 file holds the games recorded before the built-ins drew by model 2."""

MODELS = sorted(GAMES)


def _record(model: int) -> dict[str, list[object]]:
    games: dict[str, list[object]] = {}
    for name in ("klunker-en", "klunker-es", "klunker-zh"):
        variant = under_model(name, model)
        for players in range(variant.players.min, variant.players.max + 1):
            for seed in range(20):
                games[f"{name} {players} {seed}"] = _played(variant, players, seed)
    return games


@pytest.mark.parametrize("model", MODELS)
def test_both_builds_play_the_recorded_games_move_for_move(model: int) -> None:
    """The compiled and the pure build give the same histories and results."""
    recorded = json.loads(GAMES[model].read_text(encoding="utf-8"))
    played = _record(model)
    assert len(played) == 200  # 3 variants, 10 player counts, 20 seeds
    assert played.keys() == recorded.keys()
    for key, game in played.items():
        assert game == recorded[key], key


def _played_any(variant: cardshop.VariantBase, players: int, seed: int) -> list[object]:
    """A random game of any family (one seat acting or all at once), as _played, with
    the steps in the digest and the game's length in rounds (turns)."""
    game = _played_out(variant, players, seed)
    texts = " ".join(f"{m.step}:{m.seat}:{m.action}" for m in game.moves)
    return [*_summary(game, texts), game.result().rounds]


OTHER_GAMES = {1: FIXTURES / "family-games.json", 2: FIXTURES / "family-games-chance2.json"}
"""Random Wühltisch and Reglamentacja games recorded with the pure build, as GAMES:
history digest, length, scores, termination and length in rounds (turns)."""

OTHER_SEEDS = {"wuhltisch": 3, "reglamentacja": 5}
"""Seeds per player count: a random Wühltisch game runs about 10,000 ticks."""


def _record_other(model: int) -> dict[str, list[object]]:
    games: dict[str, list[object]] = {}
    for name, seeds in OTHER_SEEDS.items():
        variant = under_model(name, model)
        for players in range(variant.players.min, variant.players.max + 1):
            for seed in range(seeds):
                games[f"{name} {players} {seed}"] = _played_any(variant, players, seed)
    return games


@pytest.mark.parametrize("model", MODELS)
def test_both_builds_play_the_recorded_wuhltisch_and_reglamentacja_games(model: int) -> None:
    """Both engines, compiled or not, give the recorded histories and results."""
    recorded = json.loads(OTHER_GAMES[model].read_text(encoding="utf-8"))
    played = _record_other(model)
    assert len(played) == 27  # Wühltisch 2-5 players x 3 seeds, Reglamentacja 3-5 x 5
    assert played.keys() == recorded.keys()
    for key, game in played.items():
        assert game == recorded[key], key


@pytest.mark.pure_only(reason="runs the compiled build's code paths as Python source")
def test_the_compiled_builds_code_paths_play_the_recorded_games(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the compiled build takes native loops instead of the pure build's C-level
    calls (``_PURE`` in klunker/game.py), it plays the same games: those paths, run as
    Python on the pure build, replay a sample of the recorded games, take an action equal
    to a legal one but not the same object, and refuse an illegal one alike."""
    from cardshop.klunker import game as game_module

    monkeypatch.setattr(game_module, "_PURE", False)
    for model in MODELS:
        recorded = json.loads(GAMES[model].read_text(encoding="utf-8"))
        sample = [key for key in recorded if int(key.split()[2]) < 4]
        assert len(sample) == 40
        for key in sample:
            name, players, seed = key.split()
            assert _played(under_model(name, model), int(players), int(seed)) == recorded[key], key
    game = cardshop.new_game("klunker-en", 4, seed=1)
    with pytest.raises(cardshop.IllegalActionError, match="the actions are window / done"):
        game.apply(cardshop.Action("buy", 0))
    with pytest.raises(cardshop.ActionParseError, match="the argument a str, an int or None"):
        game.apply(cardshop.Action("buy", 0.0))  # type: ignore[arg-type]
    first = game.legal_actions()[-1]
    twin = cardshop.Action(str(first.verb), first.arg)
    assert twin is not first
    events = game.apply(twin)
    assert game.history == [twin]
    monkeypatch.setattr(game_module, "_PURE", True)
    again = cardshop.new_game("klunker-en", 4, seed=1)
    assert again.apply(first) == events


@CHECKOUT_BUILD
def test_sdist_holds_sources_variants_and_docs(dist: Path) -> None:
    sdist = only(dist, f"cardshop-{cardshop.__version__}.tar.gz")
    top = f"cardshop-{cardshop.__version__}"
    with tarfile.open(sdist) as tf:
        names = set(tf.getnames())
    for needed in (
        "pyproject.toml",
        "README.md",
        "CHANGELOG.md",
        "mkdocs.yml",
        "src/cardshop/py.typed",
        "src/cardshop/envs/__init__.py",
        "hatch_build.py",
        *(f"variants/{v}" for v in VARIANTS),
    ):
        assert f"{top}/{needed}" in names, f"{needed} is missing from the sdist"


QUICKSTART = textwrap.dedent(
    """
    import random
    import sys
    from pathlib import Path

    import cardshop

    assert Path(cardshop.__file__).is_relative_to(Path(sys.prefix)), cardshop.__file__
    print("builtins", " ".join(cardshop.builtin_variants()))
    variant = cardshop.load_variant("klunker-es")
    game = cardshop.new_game(variant, players=5, seed=3)
    rng = random.Random(3)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    result = game.result()
    print("result", result.termination.value, len(result.scores))
    try:
        import cardshop.envs
    except ImportError as exc:
        print("envs", exc)
    """
)


@CHECKOUT_BUILD
def test_wheel_installs_in_a_fresh_venv_and_runs_the_quickstart(dist: Path, tmp_path: Path) -> None:
    wheel = only(dist, "*.whl")
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    # This interpreter's pip installs into the new environment: the wheel, and its
    # runtime dependencies from the package index.
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-compile", "-q", wheel)
    work = tmp_path / "elsewhere"  # not the repository: variants must come from the wheel
    work.mkdir()
    out = run(python, "-c", QUICKSTART, cwd=work).splitlines()
    assert out[0] == "builtins " + " ".join(Path(v).stem for v in VARIANTS)
    assert out[1] in ("result finished 5", "result capped 5")
    assert out[2].startswith("envs cardshop.envs needs the 'rl' extra")
    assert 'python -m pip install ".[rl]" in a clone of cardshop' in out[2]


@CHECKOUT_BUILD
def test_wheel_with_the_cli_extra_alone_gives_a_working_command(dist: Path, tmp_path: Path) -> None:
    """`pip install "cardshop[cli]"` into a fresh venv: the command works without click."""
    wheel = only(dist, "*.whl")
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    run(
        sys.executable, "-m", "pip", "--python", python, "install", "--no-compile", "-q",
        f"{wheel}[cli]",
    )  # fmt: skip
    # Current typer carries its own copy of click: the case, click not installed.
    probe = "import importlib.util as u; print(u.find_spec('click') is None)"
    assert run(python, "-c", probe).strip() == "True"
    loaded = "import sys, cardshop.cli; print(sorted(m for m in sys.modules if m == 'click'))"
    assert run(python, "-c", loaded).strip() == "[]"
    work = tmp_path / "elsewhere"
    work.mkdir()
    command = venv / "bin" / "cardshop"
    version = run(command, "--version", cwd=work).strip()
    assert version == f"cardshop {cardshop.__version__} (pure Python)"
    demo = run(command, "demo", "klunker-en", "--players", "3", "--seed", "1", cwd=work)
    assert "3 players, seed 1" in demo.splitlines()[0]
    assert re.search(r"Game (finished|capped) after \d+ rounds\.", demo)
    proc = subprocess.run(
        [str(command), "demo", "--players", "abc"], cwd=work, capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("cardshop: error: Invalid value for '--players'")
    assert len(proc.stderr.strip().splitlines()) == 1


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/test_packaging.py --record")
    if cardshop.compiled:
        sys.exit("record with the pure build (an editable install)")
    for model in MODELS:
        written = ((GAMES[model], _record(model)), (OTHER_GAMES[model], _record_other(model)))
        for path, games in written:
            lines = [f"{json.dumps(key)}: {json.dumps(game)}" for key, game in games.items()]
            path.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
