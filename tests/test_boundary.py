"""The family boundary: no module outside a family's package imports that family.

Tools find families through the registry (``cardshop._family``); a family imports only
the core. This test reads every module's imports (without running them) and fails on
any import that crosses, and checks that the built-in families are registered through
the ``cardshop.families`` entry point group, the way a third party's would be.
"""

from __future__ import annotations

import ast
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import cardshop

SRC = Path(__file__).resolve().parents[1] / "src" / "cardshop"
CORE = {
    "_core",
    "_errors",
    "_family",
    "_game",
    "_loader",
    "_series",
    "_source",
    "_stats",
    "_variant",
}
"""The ground floor: what a family may import."""


def family_packages() -> list[str]:
    """Packages under cardshop/ whose Family is registered (the built-in families)."""
    return sorted(
        ep.value.split(":")[0].split(".")[1]
        for ep in entry_points(group="cardshop.families")
        if ep.value.startswith("cardshop.")
    )


def imports_of(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, absolute, with its line."""
    rel = path.relative_to(SRC)
    package = ["cardshop", *rel.parts[:-1]]
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
            else:
                found.append((node.lineno, node.module or ""))
    return found


def crossings() -> list[str]:
    families = set(family_packages())
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        home = rel.parts[0] if len(rel.parts) > 1 else None
        for line, module in imports_of(path):
            parts = module.split(".")
            if len(parts) < 2 or parts[0] != "cardshop":
                continue
            target = parts[1]
            if target in families and target != home:
                bad.append(f"{rel}:{line} imports {module}")
            if home in families and target not in CORE and target != home:
                bad.append(f"{rel}:{line} (family {home}) imports {module}, not the core")
    return bad


def test_the_built_in_families_register_by_entry_point() -> None:
    assert family_packages() == ["klunker", "reglamentacja", "wuhltisch"]
    assert set(family_packages()) <= set(cardshop.families())  # tests may add their own


def test_no_import_crosses_a_family_boundary() -> None:
    assert crossings() == []


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
    (fake / "klunker" / "game.py").write_text("from cardshop import _core\n")
    monkeypatch.setattr(__import__(__name__), "SRC", fake)
    found = crossings()
    assert len(found) == 1
    assert expected in found[0]


def test_a_family_may_import_only_the_core(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "cardshop"
    (fake / "klunker").mkdir(parents=True)
    (fake / "klunker" / "game.py").write_text("from cardshop.simulation import simulate\n")
    monkeypatch.setattr(__import__(__name__), "SRC", fake)
    assert crossings() == [
        "klunker/game.py:1 (family klunker) imports cardshop.simulation, not the core"
    ]
