"""MkDocs hooks of the cardshop site (see mkdocs.yml).

* ``reference/variant.schema.json`` is the JSON Schema of variant files (``cardshop
  schema``), published beside ``reference/variant.md``, the key reference that
  ``scripts/variant_reference.py`` writes from the families' models (committed).
* ``changelog.md`` is the repository's ``CHANGELOG.md``.
* Pages listed in the nav but missing are left out of the nav with a warning in
  the build log: a strict build (the one the tests run) fails on them.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.cardshop")

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_FILE = "reference/variant.schema.json"
CHANGELOG_PAGE = "changelog.md"
GENERATED = {SCHEMA_FILE, CHANGELOG_PAGE}


# ------------------------------------------------------------------------ nav


def _keep(item: Any, docs_dir: Path, missing: list[str]) -> Any:
    """The nav item without the pages that do not exist (None if nothing is left)."""
    if isinstance(item, str):
        if item.startswith(("http://", "https://")) or item in GENERATED:
            return item
        if (docs_dir / item).is_file():
            return item
        missing.append(item)
        return None
    if isinstance(item, dict):
        out = {}
        for title, value in item.items():
            kept = _keep(value, docs_dir, missing)
            if kept not in (None, []):
                out[title] = kept
        return out or None
    if isinstance(item, list):
        return [kept for x in item if (kept := _keep(x, docs_dir, missing)) is not None]
    return item


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    if config.nav:
        missing: list[str] = []
        config.nav = _keep(config.nav, Path(config.docs_dir), missing)
        if missing:
            # A warning, so that a strict build fails on a page the nav lists but
            # nobody wrote.
            log.warning("pages in the nav that do not exist: %s", ", ".join(missing))
    return config


# ------------------------------------------------------------ variant schema


def variant_schema_json() -> str:
    """The combined JSON Schema of variant files (``cardshop schema``)."""
    import cardshop

    return json.dumps(cardshop.variant_schema(), indent=2) + "\n"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    for uri, content in (
        (SCHEMA_FILE, variant_schema_json()),
        (CHANGELOG_PAGE, changelog),
    ):
        files.append(File.generated(config, uri, content=content))
    return files


# ------------------------------------------------------------- API reference

ROLE = re.compile(r":(?:class|meth|func|attr|data|mod|exc|obj):(<code>)(?:~(?:[\w.]+\.)?)?")
LITERAL_INTRO = re.compile(r"::(</p>)")


def on_page_content(html: str, **_: Any) -> str:
    """Docstrings are written in reStructuredText habits; show them as plain code.

    ``:class:`~cardshop.Game``` renders as ``Game`` (Sphinx's meaning of ``~``),
    ``:meth:`Game.apply``` as ``Game.apply``, and a paragraph ending in ``::``
    (which introduces a code block) ends in ``:``.
    """
    html = ROLE.sub(r"\1", html)
    return LITERAL_INTRO.sub(r":\1", html)
