"""MkDocs hooks of the cardshop site (see mkdocs.yml).

* ``reference/variant.md`` is generated from the pydantic model of the variant format
  (its JSON Schema and field descriptions), so every YAML key is documented in one
  place only: the model in ``src/cardshop/klunker/variant.py``. The JSON Schema itself
  is published beside it as ``reference/variant.schema.json``.
* ``changelog.md`` is the repository's ``CHANGELOG.md``.
* Pages listed in the nav but missing are left out of the nav with a warning in
  the build log: a strict build (the one the tests run) fails on them.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any, get_args, get_origin

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from pydantic import BaseModel, TypeAdapter

log = logging.getLogger("mkdocs.hooks.cardshop")

ROOT = Path(__file__).resolve().parents[2]
VARIANT_PAGE = "reference/variant.md"
SCHEMA_FILE = "reference/variant.schema.json"
CHANGELOG_PAGE = "changelog.md"
GENERATED = {VARIANT_PAGE, SCHEMA_FILE, CHANGELOG_PAGE}

CLAUSE = re.compile(r"\b((?:CARD|SETUP|ROUND|FILL|STORE|BUY|SELL|END|SCORE|MATCH|TERM)-\d+)\b")
BRACKETED = re.compile(r"\[([A-Z]+-\d+[^\]]*)\]")


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


# ------------------------------------------------------------ variant reference


def _text(description: str | None) -> str:
    """A docstring or field description as Markdown, clause IDs linked to the digest."""
    text = (description or "").replace("``", "`").replace("|", "\\|")
    text = BRACKETED.sub(r"(\1)", " ".join(text.split()))
    return CLAUSE.sub(r"[\1](../rules.md)", text)


def _describe(schema: dict[str, Any], names: dict[str, str]) -> str:
    """A JSON Schema fragment in words: ``integer > 0``, ``list of text``, ..."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        key = names.get(name, name.lower())
        return f"mapping, see [`{key}`](#{key.replace('.', '')})"
    if "anyOf" in schema:
        parts = [_describe(s, names) for s in schema["anyOf"] if s.get("type") != "null"]
        nullable = any(s.get("type") == "null" for s in schema["anyOf"])
        return " or ".join(dict.fromkeys(parts)) + (" (or `null`)" if nullable else "")
    if "enum" in schema:
        return "one of " + ", ".join(f"`{v}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{schema['const']}`"
    kind = schema.get("type")
    if kind == "integer":
        bounds = []
        if "exclusiveMinimum" in schema:
            bounds.append(f"> {schema['exclusiveMinimum']}")
        if "minimum" in schema:
            bounds.append(f"≥ {schema['minimum']}")
        if "maximum" in schema:
            bounds.append(f"≤ {schema['maximum']}")
        return " ".join(["integer", *bounds])
    if kind == "string":
        if "pattern" in schema:
            return "name (lowercase letters, digits and `-`, starting with a letter)"
        return "text"
    if kind == "boolean":
        return "`true` or `false`"
    if kind == "array":
        out = "list of " + _describe(schema.get("items", {}), names)
        if schema.get("minItems"):
            out += f", at least {schema['minItems']}"
        return out
    if kind == "object":
        values = schema.get("additionalProperties")
        if isinstance(values, dict):
            return "mapping to " + _describe(values, names)
        patterned = schema.get("patternProperties", {})
        if patterned:
            value = next(iter(patterned.values()))
            return "mapping of names to " + _describe(value, names)
        return "mapping"
    return "any value"


def _key_words(annotation: Any, names: dict[str, str]) -> str | None:
    """For a dict field, what its keys are (JSON Schema cannot say for integer keys)."""
    if get_origin(annotation) is not dict:
        return None
    key_type = get_args(annotation)[0]
    return _describe(TypeAdapter(key_type).json_schema(), names)


def _default(model: type[BaseModel], field: str) -> str:
    info = model.model_fields[field]
    if info.is_required():
        return "**required**"
    value = info.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "all defaults"
    if value is None:
        return "not set"
    return f"`{json.dumps(value)}`"


def _model_section(
    model: type[BaseModel],
    schema: dict[str, Any],
    key: str | None,
    names: dict[str, str],
    defs: dict[str, Any],
) -> list[str]:
    title = f"`{key}`" if key else "Top-level keys"
    lines = [f"## {title}", ""]
    if key:
        lines += [f"{_text(schema.get('description'))}", ""]
    lines += ["| key | value | default | meaning |", "| --- | --- | --- | --- |"]
    for field, prop in schema.get("properties", {}).items():
        value = _describe(prop, names)
        meaning = prop.get("description")
        if meaning is None:  # a nested mapping: its model's docstring says what it is
            ref = next((s["$ref"] for s in [prop, *prop.get("anyOf", [])] if "$ref" in s), None)
            if ref is not None:
                meaning = defs[ref.rsplit("/", 1)[-1]].get("description")
        keys = _key_words(model.model_fields[field].annotation, names)
        if keys and value.startswith("mapping"):
            value = f"mapping of {keys} to " + value.split(" to ", 1)[-1]
        lines.append(f"| `{field}` | {value} | {_default(model, field)} | {_text(meaning)} |")
    return [*lines, ""]


def _nested_models(model: type[BaseModel]) -> dict[str, type[BaseModel]]:
    """Field name -> the model it holds, for fields that hold one (directly or optional)."""
    out = {}
    for name, info in model.model_fields.items():
        for candidate in (info.annotation, *get_args(info.annotation)):
            if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                out[name] = candidate
    return out


def variant_reference() -> str:
    """The Markdown of the variant format reference, from the model itself."""
    from cardshop.core.loader import builtin_variants
    from cardshop.klunker.variant import Variant

    schema = Variant.model_json_schema()
    defs = schema.get("$defs", {})
    sections: list[tuple[type[BaseModel], dict[str, Any], str | None]] = [(Variant, schema, None)]
    names: dict[str, str] = {}
    todo = [(Variant, "")]
    while todo:
        model, prefix = todo.pop(0)
        for field, sub in _nested_models(model).items():
            key = f"{prefix}{field}"
            names[sub.__name__] = key
            sections.append((sub, defs[sub.__name__], key))
            todo.append((sub, f"{key}."))

    lines = [
        "# Variant file reference",
        "",
        "<!-- Generated from cardshop.klunker.variant.Variant by docs/hooks/cardshop_docs.py;"
        " edit the model's field descriptions, not this page. -->",
        "",
        "A variant is a YAML mapping with the keys below. Unknown keys are errors, values",
        'are strictly typed (`4` is an integer, `"4"` is text), and every mistake is',
        "reported with its file, line, column and key path (`sale.payout[2]`). A variant",
        "may start from another with `extends`: mappings merge key by key, lists and single",
        "values replace. The clause IDs link to the [rules digest](../rules.md).",
        "",
        "Beyond the schema, a variant must be consistent: `players.min` at least 2 and not",
        "above `players.max`; starting cash given for every player count in range; a deck",
        "large enough to deal starting cash and full hands at every player count; no payout",
        "or override above `sale.set_size`; overrides and taxes that name existing kinds",
        "and player counts; `steps` holding `fill`, `store` (before `purchase`),",
        "`purchase` and `refill` once each, and `tax` whenever a tax is configured.",
        "",
        "The same schema as JSON Schema, for editors that complete and check YAML:",
        "[variant.schema.json](variant.schema.json) (also printed by `cardshop schema`).",
        "",
    ]
    for model, sub_schema, key in sections:
        lines += _model_section(model, sub_schema, key, names, defs)

    lines += ["## Built-in variants", ""]
    for name in builtin_variants():
        path = ROOT / "variants" / f"{name}.yaml"
        lines += [f"### {name}", "", f'```yaml title="{name}.yaml"', path.read_text().rstrip()]
        lines += ["```", ""]
    return "\n".join(lines)


def variant_schema_json() -> str:
    from cardshop.klunker.variant import Variant

    return json.dumps(Variant.model_json_schema(), indent=2) + "\n"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    for uri, content in (
        (VARIANT_PAGE, variant_reference()),
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
