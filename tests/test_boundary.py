"""The family boundary: no module outside a family's package imports that family.

Tools find families through the registry (``cardshop.core.registry``); a family imports only
the public family API, :mod:`cardshop.core`, and itself (and a batch kernel what the
kernels share, :mod:`cardshop.kernels`). This test reads every module's
imports (without running them) and fails on any import that crosses, or on a family
(built-in, or the tests' tiny one) that reaches a module inside ``cardshop.core`` or a
tool, and checks that the built-in families are registered through the
``cardshop.families`` entry point group, the way a third party's would be.
"""

from __future__ import annotations

import ast
import types
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import cardshop

SRC = Path(__file__).resolve().parents[1] / "src" / "cardshop"
TINY = Path(__file__).resolve().parent / "tinyfamily" / "__init__.py"
KERNELS = ("cardshop.kernels", "cardshop.kernels.chance")
"""What a family's batch kernel may import besides the core: the kernels' shared part."""
"""The tests' third-party family: it too may import only ``cardshop.core``."""


def family_packages() -> list[str]:
    """Packages under cardshop/ whose Family is registered (the built-in families)."""
    return sorted(
        ep.value.split(":")[0].split(".")[1]
        for ep in entry_points(group="cardshop.families")
        if ep.value.startswith("cardshop.")
    )


def imports_of(path: Path, package: list[str] | None = None) -> list[tuple[int, str]]:
    """Every module ``path`` imports, absolute, with its line (``from m import n`` counts
    as an import of ``m.n`` as well as of ``m``, so a private name is seen)."""
    if package is None:
        package = ["cardshop", *path.relative_to(SRC).parts[:-1]]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                if node.module:
                    found.append((node.lineno, ".".join([*base, node.module])))
                else:
                    found += [(node.lineno, ".".join([*base, a.name])) for a in node.names]
            elif node.module == "cardshop":
                found += [(node.lineno, f"cardshop.{a.name}") for a in node.names]
            else:
                found.append((node.lineno, node.module or ""))
    return found


def family_may_import(module: str, home: str) -> bool:
    """Whether a module of family ``home`` may import ``module``: anything outside
    cardshop, the family's own package, ``cardshop.core`` itself (not the modules
    inside it, which may change), and for a batch kernel ``cardshop.kernels`` and its
    compiled chance, ``cardshop.kernels.chance`` (docs/kernel.md)."""
    parts = module.split(".")
    if parts[0] != "cardshop":
        return True
    if len(parts) == 1:
        return False  # ``import cardshop`` reaches the whole library
    return parts[1] == home or module in ("cardshop.core", *KERNELS)


def crossings() -> list[str]:
    families = set(family_packages())
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        home = rel.parts[0] if len(rel.parts) > 1 else None
        for line, module in imports_of(path):
            parts = module.split(".")
            if parts[0] != "cardshop":
                continue
            if len(parts) > 1 and parts[1] in families and parts[1] != home:
                bad.append(f"{rel}:{line} imports {module}")
            if home in families and not family_may_import(module, home):
                bad.append(f"{rel}:{line} (family {home}) imports {module}, not the core")
    return bad


def tiny_family_imports() -> list[str]:
    return [
        f"tinyfamily:{line} imports {module}"
        for line, module in imports_of(TINY, ["tinyfamily"])
        if not family_may_import(module, "tinyfamily")
    ]


def test_the_built_in_families_register_by_entry_point() -> None:
    assert family_packages() == ["klunker", "reglamentacja", "wuhltisch"]
    assert set(family_packages()) <= set(cardshop.families())  # tests may add their own


def test_no_import_crosses_a_family_boundary() -> None:
    assert crossings() == []


def test_the_tiny_family_imports_only_the_public_family_api() -> None:
    assert tiny_family_imports() == []


def test_the_public_family_api_is_its_all() -> None:
    import cardshop.core

    exported = set(cardshop.core.__all__)
    defined = {
        n
        for n, value in vars(cardshop.core).items()
        if not n.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert exported == defined, "every public name of cardshop.core is in __all__"
    assert all(not n.startswith("_") for n in exported)
    for name in exported:
        assert getattr(cardshop.core, name) is not None


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from cardshop.klunker.game import Game\n", "imports cardshop.klunker.game"),
        ("from .klunker import FAMILY\n", "imports cardshop.klunker"),
        ("import cardshop.wuhltisch\n", "imports cardshop.wuhltisch"),
    ],
)
def test_the_check_sees_every_form_of_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, expected: str
) -> None:
    fake = tmp_path / "cardshop"
    (fake / "klunker").mkdir(parents=True)
    (fake / "tool.py").write_text(source)
    (fake / "klunker" / "game.py").write_text("from cardshop.core import Game\n")
    monkeypatch.setattr(__import__(__name__), "SRC", fake)
    found = crossings()
    assert len(found) == 1
    assert expected in found[0]


@pytest.mark.parametrize(
    "source",
    [
        "from cardshop.simulation import simulate\n",
        "from cardshop.core.actions import Action\n",
        "from cardshop import _family\n",
        "import cardshop.core.game\n",
        "import cardshop\n",
    ],
)
def test_a_family_may_import_only_the_public_family_api(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    fake = tmp_path / "cardshop"
    (fake / "klunker").mkdir(parents=True)
    (fake / "klunker" / "game.py").write_text(source)
    monkeypatch.setattr(__import__(__name__), "SRC", fake)
    found = crossings()
    assert len(found) == 1
    assert found[0].startswith("klunker/game.py:1 (family klunker) imports cardshop")


def test_the_family_api_reference_page_lists_every_name() -> None:
    """docs/reference/core.md documents each name of cardshop.core.__all__ once, under a
    heading of its own (scripts/core_reference.py writes the page; tests/
    test_core_reference.py checks that it is up to date)."""
    import re

    import cardshop.core

    page = (SRC.parents[1] / "docs" / "reference" / "core.md").read_text(encoding="utf-8")
    listed = re.findall(r"^### `(\w+)` \{#cardshop\.core\.\1\}$", page, re.M)
    assert sorted(listed) == sorted(cardshop.core.__all__)
