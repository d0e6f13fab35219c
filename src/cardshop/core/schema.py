"""The JSON Schema of variant files: one per family, and one for every family.

A family's schema (:func:`family_schema`, ``cardshop schema --family F``) is its
variant model's. The combined schema (:func:`combined_schema`, ``cardshop schema``)
picks one family's schema by the file's ``family`` key with JSON Schema's
``if``/``then``, so a validator reports the errors of that family's branch (an
unknown key, a value out of range) and never only "not valid under any of the given
schemas". A file without ``family`` must have ``extends``: it takes its family from
the variant it extends, which a schema cannot read, so the combined schema accepts it
if some family's schema does; ``cardshop validate`` checks it against its base's
family.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, get_args

from pydantic.json_schema import models_json_schema

from cardshop.core.errors import SetupError
from cardshop.core.registry import families
from cardshop.core.variant import SCHEMA_ID, VariantBase

__all__ = ["DRAFT", "MARKERS", "combined_schema", "family_name", "family_schema"]

DRAFT = "http://json-schema.org/draft-07/schema#"
"""The JSON Schema draft the schemas declare (the one editors' YAML extensions use)."""


def family_name(model: type[VariantBase]) -> str:
    """The family a variant model is of: the value its ``family`` key must hold."""
    names = get_args(model.model_fields["family"].annotation)
    if len(names) != 1 or not isinstance(names[0], str):
        raise SetupError(f"{model.__name__}: its family key is not one Literal name")
    return names[0]


def _model(family: str) -> type[VariantBase]:
    known = families()
    found = known.get(family)
    if found is None:
        raise SetupError(
            f"unknown family {family!r}; the families are: {', '.join(sorted(known)) or 'none'}"
        )
    return found.variant_model


MARKERS = ("$replace", "$remove", "$merge", "$prepend", "$append")
"""The edit markers a list may be given as in a file that extends another
(docs/cookbook/extends.md): a mapping of them replaces, removes, merges and adds items."""

_EXTENDS = "Extends"
"""The suffix of a model's definition as a file that extends another may write it."""


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _may_be_list(node: dict[str, Any]) -> dict[str, Any] | None:
    """The list schema a property's schema allows, if any."""
    if node.get("type") == "array":
        return node
    for option in node.get("anyOf", []):
        if isinstance(option, dict) and option.get("type") == "array":
            return option
    return None


def _edits(node: dict[str, Any]) -> dict[str, Any]:
    """A key's schema in a file that extends another: its value, with references to
    the definitions of such files; ``null`` (the key deleted, back to its default);
    and for a list, a mapping of edit markers."""
    moved = _open_entries(_retarget(node))
    options: list[Any] = [moved, {"type": "null"}]
    listed = _may_be_list(moved)
    if listed is not None:
        items = listed.get("items", {})
        options.append(
            {
                "type": "object",
                "minProperties": 1,
                "additionalProperties": False,
                "properties": {
                    marker: {"type": "array", "items": items if marker != "$remove" else {}}
                    for marker in MARKERS
                },
            }
        )
    return {"anyOf": options}


def _open_entries(node: dict[str, Any]) -> dict[str, Any]:
    """A mapping written in place (a key's value that is a mapping of names, such as
    Klunker's ``cards``) as a file that extends another writes it: any entry may be
    deleted with ``null``, and none is required (the base holds the rest)."""
    if isinstance(node.get("anyOf"), list):
        return {
            **node,
            "anyOf": [_open_entries(o) if isinstance(o, dict) else o for o in node["anyOf"]],
        }
    if node.get("type") != "object":
        return node
    out = {k: v for k, v in node.items() if k not in ("required", "minProperties")}
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = _edits(out["additionalProperties"])
    if isinstance(out.get("patternProperties"), dict):
        out["patternProperties"] = {k: _edits(v) for k, v in out["patternProperties"].items()}
    return out


def _retarget(node: Any) -> Any:
    """``node`` with every ``$ref`` to a definition pointed at its extends form."""
    if isinstance(node, dict):
        out = {k: _retarget(v) for k, v in node.items()}
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            out["$ref"] = ref + _EXTENDS
        return out
    if isinstance(node, list):
        return [_retarget(v) for v in node]
    return node


def _extends_form(definition: dict[str, Any], keep: frozenset[str]) -> dict[str, Any]:
    """A definition as a file that extends another writes it: no key required but
    those in ``keep``, each key's value may be deleted or edited (:func:`_edits`)."""
    out = {k: v for k, v in definition.items() if k not in ("required", "if", "then", "else")}
    if "properties" in out:
        out["properties"] = {k: v if k in keep else _edits(v) for k, v in out["properties"].items()}
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = _edits(out["additionalProperties"])
    if "patternProperties" in out:
        out["patternProperties"] = {k: _edits(v) for k, v in out["patternProperties"].items()}
    if keep:
        out["required"] = sorted(keep)
    return out


def _definitions(models: Sequence[type[VariantBase]]) -> dict[str, Any]:
    """The definitions of ``models`` and everything they hold, each also in its
    extends form (``<name>Extends``)."""
    _, found = models_json_schema([(m, "validation") for m in models])
    defs: dict[str, Any] = found.get("$defs", {})
    tops = {m.__name__ for m in models}
    out = dict(defs)
    for name, definition in defs.items():
        keep = frozenset({"name"}) if name in tops else frozenset()
        out[name + _EXTENDS] = _extends_form(definition, keep)
    return out


def _branch(model: type[VariantBase]) -> dict[str, Any]:
    """A file of ``model``'s family: in its extends form if it extends another."""
    return {
        "if": {"required": ["extends"], "properties": {"extends": {"type": "string"}}},
        "then": _ref(model.__name__ + _EXTENDS),
        "else": _ref(model.__name__),
    }


def family_schema(family: str | type[VariantBase]) -> dict[str, Any]:
    """The JSON Schema of the variant files of one family (a registered family's name
    or a variant model); a :class:`~cardshop.SetupError` listing the families if no
    family has that name. A file that extends another may give only some keys, delete
    one with ``null`` and edit a list with markers."""
    model = _model(family) if isinstance(family, str) else family
    name = family_name(model)
    return {
        "$schema": DRAFT,
        "$id": f"{SCHEMA_ID}:{name}",
        "title": f"cardshop {name} variant",
        "description": f"A variant file of the {name} family.",
        **_branch(model),
        "$defs": _definitions([model]),
    }


def combined_schema(models: Sequence[type[VariantBase]] | None = None) -> dict[str, Any]:
    """One JSON Schema for the variant files of every family in ``models`` (default:
    every registered family), its branch picked by ``family``.

    ``family`` must name one of the families; a file that gives it is checked against
    that family's schema only. A file without it must have ``extends`` and pass some
    family's schema.
    """
    if models is None:
        models = [f.variant_model for f in families().values()]
    names = [family_name(m) for m in models]
    branches = [
        {
            "if": {"properties": {"family": {"const": name}}, "required": ["family"]},
            "then": _branch(m),
        }
        for name, m in zip(names, models, strict=True)
    ]
    return {
        "$schema": DRAFT,
        "$id": SCHEMA_ID,
        "title": "cardshop variant",
        "description": (
            "A variant file of any registered family, checked against its family's "
            "schema picked by its family key ("
            + ", ".join(names)
            + "). A file without family must extend another variant and is checked "
            "against every family's schema (cardshop validate checks it against its "
            "base's family)."
        ),
        "type": "object",
        "required": ["name"],
        "properties": {
            "family": {
                "enum": names,
                "description": "The family of games: " + ", ".join(names) + ".",
            },
        },
        "allOf": branches,
        "if": {"required": ["family"]},
        "then": {},
        "else": {
            "required": ["extends"],
            "properties": {"extends": {"type": "string"}},
            "anyOf": [_ref(m.__name__ + _EXTENDS) for m in models],
        },
        "$defs": _definitions(models),
    }
