"""The generators of the committed reference pages, loaded from ``scripts/``.

Each generator is a script with a ``render()`` that returns its page; the tests
regenerate a page and compare it with the committed one.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]

GENERATED = {
    "docs/reference/core.md": "core_reference",
    "docs/reference/variant.md": "variant_reference",
}
"""Each generated page, by its path, with the script (in ``scripts/``) that writes it."""


def load_script(name: str) -> ModuleType:
    """The module of ``scripts/<name>.py``."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
