"""Draw the layer contract of ``pyproject.toml`` into docs/architecture.md.

The contract (``[tool.importlinter]``) is written once; this script draws its layers,
top to bottom, with what each module of a layer is (the first line of its docstring),
between the page's ``<!-- layers -->`` markers. ``tests/test_layers.py`` fails when the
page and the contract disagree; ``python scripts/layers.py`` brings the page in step.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
START = "<!-- layers: drawn by scripts/layers.py from pyproject.toml; do not edit -->"
END = "<!-- layers: end -->"


def contracts() -> dict[str, dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}


def summary(module: str) -> str:
    """The first line of ``module``'s docstring, read from its file (never imported)."""
    base = ROOT / "src" / Path(*module.split("."))
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    first = doc.strip().splitlines()[0].rstrip(".") if doc.strip() else ""
    return re.sub(r":\w+:`~?([^`]+)`", r"`\1`", first).replace("``", "`")


def draw(contract: dict[str, object]) -> list[str]:
    (container,) = contract["containers"]  # type: ignore[misc]
    layers: list[str] = contract["layers"]  # type: ignore[assignment]
    lines = [f"`{container}`, top to bottom:", "", "| layer | module | what it is |"]
    lines.append("| ---: | --- | --- |")
    for number, layer in enumerate(layers, start=1):
        for i, name in enumerate(part.strip() for part in layer.split("|")):
            module = f"{container}.{name}"
            place = str(len(layers) - number + 1) if i == 0 else ""
            lines.append(f"| {place} | `{module}` | {summary(module)} |")
    return lines


def block() -> str:
    lines = [START]
    for contract in contracts().values():
        if contract["type"] == "layers":
            lines += ["", *draw(contract)]
    return "\n".join([*lines, "", END])


def page_with_block(text: str) -> str:
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return head + block() + tail


if __name__ == "__main__":
    text = PAGE.read_text(encoding="utf-8")
    new = page_with_block(text)
    if "--check" in sys.argv[1:]:
        sys.exit(0 if new == text else 1)
    PAGE.write_text(new, encoding="utf-8")
