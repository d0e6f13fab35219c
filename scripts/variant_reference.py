"""Write docs/reference/variant.md, the reference of every variant key, from the models.

One section per registered family, from its variant model (``Family.variant_model``):
each key with its type, its default, its range and its description, the rule clauses
in the description linked to the family's rules digest; then the built-in variants as
they are shipped. ``tests/test_generated_pages.py`` fails when the committed page is
not the one this writes; ``python scripts/variant_reference.py`` brings it in step.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel, TypeAdapter
from pydantic_core import to_jsonable_python

import cardshop
from cardshop.core.schema import MARKERS
from cardshop.variantdiff import CLAUSE

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "reference" / "variant.md"
BRACKETED = re.compile(r"\[([A-Z]+(?:-[A-Z]+)*-\d+[^\]]*)\]")


def text(description: str | None, digest: str) -> str:
    """A description as one Markdown line, its clause ids linked to the digest."""
    out = (description or "").replace("``", "`").replace("|", "\\|")
    out = BRACKETED.sub(r"(\1)", " ".join(out.split()))
    return CLAUSE.sub(lambda m: f"[{m[0]}](../{digest})", out) if digest else out


def _anchor(family: str, key: str) -> str:
    return f"{family}-{key.replace('.', '-')}" if key else family


def describe(schema: dict[str, Any], names: dict[str, str], family: str) -> str:
    """A JSON Schema fragment in words: ``integer``, ``list of text``, ..."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        key = names.get(name, name.lower())
        return f"mapping, see [`{key}`](#{_anchor(family, key)})"
    if "anyOf" in schema:
        options = [s for s in schema["anyOf"] if s.get("type") != "null"]
        parts = [describe(s, names, family) for s in options]
        nullable = len(options) < len(schema["anyOf"])
        if [s.get("type") for s in options] == ["integer", "string"]:
            parts = ["integer or expression"]
        return " or ".join(dict.fromkeys(parts)) + (" (or `null`)" if nullable else "")
    if "enum" in schema:
        return "one of " + ", ".join(f"`{v}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{schema['const']}`"
    kind = schema.get("type")
    if kind == "string":
        return "name" if "pattern" in schema else "text"
    if kind == "boolean":
        return "`true` or `false`"
    if kind == "array":
        out = "list of " + describe(schema.get("items", {}), names, family)
        return out + (f", at least {schema['minItems']}" if schema.get("minItems") else "")
    if kind == "object":
        values = schema.get("additionalProperties")
        patterned = schema.get("patternProperties", {})
        if isinstance(values, dict):
            return "mapping to " + describe(values, names, family)
        if patterned:
            return "mapping of names to " + describe(next(iter(patterned.values())), names, family)
        return "mapping"
    return str(kind) if kind else "any value"


def value_range(schema: dict[str, Any]) -> str:
    """The bounds of a number (or of each item or value), as ``low..high``."""
    for option in [schema, *schema.get("anyOf", [])]:
        if option.get("type") == "integer":
            low = option.get("minimum", option.get("exclusiveMinimum", None))
            if "exclusiveMinimum" in option and "minimum" not in option:
                low = option["exclusiveMinimum"] + 1
            high = option.get("maximum")
            if low is not None or high is not None:
                return f"{'' if low is None else low}..{'' if high is None else high}"
        for inner in ("items", "additionalProperties"):
            sub = option.get(inner)
            if isinstance(sub, dict):
                found = value_range(sub)
                if found:
                    return found
        for sub in option.get("patternProperties", {}).values():
            found = value_range(sub)
            if found:
                return found
    return ""


def default(model: type[BaseModel], field: str) -> str:
    info = model.model_fields[field]
    if info.is_required():
        return "**required**"
    value = info.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "all defaults"
    if value is None:
        return "not set"
    source = getattr(value, "source", None)
    if source is not None and not isinstance(value, (int, str)):
        value = source  # an expression: as written
    return f"`{json.dumps(to_jsonable_python(value), ensure_ascii=False)}`"


def _key_words(annotation: Any, names: dict[str, str], family: str) -> str | None:
    """For a dict field, what its keys are (JSON Schema cannot say for integer keys)."""
    if get_origin(annotation) is not dict:
        return None
    return describe(TypeAdapter(get_args(annotation)[0]).json_schema(), names, family)


def _nested(model: type[BaseModel]) -> dict[str, type[BaseModel]]:
    """Field name -> the model it holds (directly, optional, or as items)."""
    out = {}
    for name, info in model.model_fields.items():
        todo = [info.annotation]
        while todo:
            candidate = todo.pop(0)
            if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                out[name] = candidate
                break
            todo.extend(get_args(candidate))
    return out


def section(
    model: type[BaseModel],
    schema: dict[str, Any],
    key: str,
    family: str,
    names: dict[str, str],
    digest: str,
) -> list[str]:
    title = f"`{key}`" if key else "Top-level keys"
    lines = [f"### {title} {{#{_anchor(family, key) if key else family + '-top'}}}", ""]
    if key and schema.get("description"):
        lines += [text(schema["description"], digest), ""]
    lines += ["| key | value | default | range | meaning |", "| --- | --- | --- | --- | --- |"]
    for field, prop in schema.get("properties", {}).items():
        value = describe(prop, names, family)
        keys = _key_words(model.model_fields[field].annotation, names, family)
        if keys and value.startswith("mapping"):
            value = f"mapping of {keys} to " + value.split(" to ", 1)[-1]
        meaning = prop.get("description") or model.model_fields[field].description
        held = _nested(model).get(field)
        if not meaning and held is not None:  # a mapping: what its model is
            meaning = (held.__doc__ or "").strip().split("\n\n")[0]
        span = value_range(prop)
        lines.append(
            f"| `{field}` | {value} | {default(model, field)} | {span} | {text(meaning, digest)} |"
        )
    return [*lines, ""]


def family_sections(name: str) -> list[str]:
    family = cardshop.get_family(name)
    model = family.variant_model
    schema = model.model_json_schema(mode="validation")
    defs = schema.get("$defs", {})
    heading = family.description or name
    lines = [f"## {name} {{#{name}}}", "", text(heading, family.digest), ""]
    if family.digest:
        lines += [f"The rules: [{family.digest}](../{family.digest}).", ""]
    names: dict[str, str] = {}
    sections: list[tuple[type[BaseModel], dict[str, Any], str]] = [(model, schema, "")]
    todo: list[tuple[type[BaseModel], str]] = [(model, "")]
    while todo:
        current, prefix = todo.pop(0)
        for field, sub in _nested(current).items():
            if sub.__name__ in names:
                continue
            key = f"{prefix}{field}"
            names[sub.__name__] = key
            sections.append((sub, defs[sub.__name__], key))
            todo.append((sub, f"{key}."))
    for sub_model, sub_schema, key in sections:
        lines += section(sub_model, sub_schema, key, name, names, family.digest)
    return lines


def render() -> str:
    """The page, from the registered families' models and the built-in variants."""
    markers = ", ".join(f"`{m}`" for m in MARKERS)
    lines = [
        "# Variant file reference",
        "",
        "<!-- Generated by scripts/variant_reference.py from the families' variant models;"
        " edit the models' field descriptions, then run python scripts/variant_reference.py."
        " -->",
        "",
        "A variant is a YAML mapping. Its `family` key names the family of games, and the",
        "family's keys are listed below, one section per family. Unknown keys are errors,",
        'values are strictly typed (`4` is an integer, `"4"` is text), and every mistake is',
        "reported with its file, line, column and key path (`sale.payout[2]`). A key whose",
        "value is *integer or expression* takes a number or an expression",
        "([the expression language](../variant-language.md)) within its range.",
        "",
        "A variant may start from another with `extends` (and may then leave out `family`):",
        "mappings merge key by key, `key: null` deletes a key (back to its default), and a",
        f"list may be edited with a mapping of markers ({markers}). A file that",
        "extends another is checked against its base's family.",
        "",
        "Beyond the keys, each family checks that a variant is consistent (see its rules",
        "digest); `cardshop validate FILE` lists every problem and every setting that",
        "cannot matter.",
        "",
        "The same keys as JSON Schema, for editors that complete and check YAML:",
        "[variant.schema.json](variant.schema.json), printed by `cardshop schema` (every",
        "family, the branch picked by `family`) and `cardshop schema --family NAME`.",
        "",
    ]
    for name in cardshop.families():
        lines += family_sections(name)
    lines += ["## Built-in variants {#built-in-variants}", ""]
    for name in cardshop.builtin_variants():
        path = ROOT / "variants" / f"{name}.yaml"
        if not path.is_file():
            continue
        lines += [f"### {name}", "", f'```yaml title="{name}.yaml"', path.read_text().rstrip()]
        lines += ["```", ""]
    return "\n".join(lines)


def main() -> int:
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
