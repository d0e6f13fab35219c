"""What differs between two variants of one family, key by key (``cardshop diff``).

Both variants are resolved first (``extends`` applied), then compared as data: every
key path whose value differs is one :class:`Change` (``sale.payout[2]: 3 -> 4``), a
key only one of them has is added or removed, and a list's items are matched by the
item key its family names in ``LIST_KEYS`` (Reglamentacja's ``cards`` by name) or else
by position. Each change carries what the key means (its description in the family's
model) and the rule clauses that description cites.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel

from cardshop.core.errors import SetupError, format_path
from cardshop.core.frontdoor import resolve
from cardshop.core.variant import VariantBase

__all__ = ["Change", "changes_text", "diff_variants", "resolved_data"]

KeyPath = tuple[str | int, ...]

CLAUSE = re.compile(r"\b[A-Z]{2,}(?:-[A-Z]+)*-\d+\b")
"""A rule clause id as the rules digests write them: BUY-3, WT-SCORE-1, RG-TRADE-3."""

_ABSENT = object()


@dataclass(frozen=True, slots=True)
class Change:
    """One key path that differs between variant A and variant B.

    ``kind`` is ``changed`` (both have it), ``added`` (only B) or ``removed`` (only
    A); ``a``/``b`` are the values as plain data (``None`` for the side that has not
    the key; a key left out at its default shows that default). ``meaning`` is the
    key's description in the family's model and ``clauses`` the rule clauses it cites.
    """

    path: KeyPath
    kind: str
    a: Any
    b: Any
    meaning: str = ""
    clauses: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """The key path as a YAML author reads it: ``sale.payout[2]``."""
        return format_path(self.path)

    def text(self) -> str:
        """``sale.payout[2]: 3 -> 4`` (or ``added``/``removed`` with the value)."""
        if self.kind == "added":
            return f"{self.key}: added {_show(self.b)}"
        if self.kind == "removed":
            return f"{self.key}: removed {_show(self.a)}"
        return f"{self.key}: {_show(self.a)} -> {_show(self.b)}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "path": list(self.path),
            "kind": self.kind,
            "a": self.a,
            "b": self.b,
            "meaning": self.meaning,
            "clauses": list(self.clauses),
        }


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= 80 else text[:77] + "..."


def resolved_data(variant: VariantBase) -> dict[str, Any]:
    """The variant as plain data with every key, those a dump leaves out at their
    default (``OMIT_AT_DEFAULT``) included, so that two variants compare key by key."""
    return variant.to_data(all_keys=True)


def _nested(annotation: Any) -> type[BaseModel] | None:
    """The model a field's value holds or holds items of (directly, optional, in a list
    or as a mapping's values)."""
    todo = [annotation]
    while todo:
        current = todo.pop(0)
        if isinstance(current, type) and issubclass(current, BaseModel):
            return current
        todo.extend(get_args(current))
    return None


def _meaning(model: type[BaseModel], path: KeyPath) -> str:
    """The description of the deepest model field on ``path``."""
    found = ""
    current: type[BaseModel] | None = model
    for part in path:
        if current is None:
            break
        if isinstance(part, int) or part not in current.model_fields:
            continue  # a list index or a free mapping's key: its items' model goes on
        info = current.model_fields[part]
        found = " ".join((info.description or found).split())
        current = _nested(info.annotation)
    return found


def _list_key(path: KeyPath, list_keys: Mapping[str, str]) -> str | None:
    return list_keys.get(".".join(str(p) for p in path if isinstance(p, str)))


def _item_id(item: Any, field: str) -> Any:
    return item.get(field, _ABSENT) if isinstance(item, dict) else _ABSENT


def _pairs(path: KeyPath, a: Any, b: Any, keys: Mapping[str, str]) -> list[tuple[Any, Any, Any]]:
    """The parts of two mappings or lists that match, as (key, value in A, value in
    B), ``_ABSENT`` where one has none; a list of mappings named in ``keys`` matched by
    its items' key field, any other list by position."""
    if isinstance(a, dict):
        return [
            (k, a.get(k, _ABSENT), b.get(k, _ABSENT)) for k in [*a, *(k for k in b if k not in a)]
        ]
    field = _list_key(path, keys)
    if field:
        ids_a = [_item_id(x, field) for x in a]
        ids_b = [_item_id(x, field) for x in b]
        if _ABSENT not in ids_a + ids_b and len(set(map(str, ids_a))) == len(a):
            mine = {str(i): x for i, x in zip(ids_a, a, strict=True)}
            theirs = {str(i): x for i, x in zip(ids_b, b, strict=True)}
            return _pairs(path, mine, theirs, keys)
    return [
        (n, a[n] if n < len(a) else _ABSENT, b[n] if n < len(b) else _ABSENT)
        for n in range(max(len(a), len(b)))
    ]


def _walk(path: KeyPath, a: Any, b: Any, keys: Mapping[str, str], out: list[Any]) -> None:
    if a == b:
        return
    if not (isinstance(a, dict) and isinstance(b, dict)) and not (
        isinstance(a, list) and isinstance(b, list)
    ):
        out.append((path, "changed", a, b))
        return
    for key, old, new in _pairs(path, a, b, keys):
        where = (*path, key)
        if new is _ABSENT:
            out.append((where, "removed", old, None))
        elif old is _ABSENT:
            out.append((where, "added", None, new))
        else:
            _walk(where, old, new, keys, out)


def diff_variants(a: VariantBase | str | Path, b: VariantBase | str | Path) -> list[Change]:
    """Every key path whose value differs from variant ``a`` to variant ``b`` (loaded
    variants, built-in names or files; ``extends`` resolved), in ``a``'s key order.

    ``title``, ``description`` and ``name`` describe a file, not its rules, and are
    compared too (a change of name is listed). Variants of two families cannot be
    compared key by key: a :class:`~cardshop.SetupError` says which they are.
    """
    va, vb = resolve(a).variant, resolve(b).variant
    if va.family != vb.family or type(va) is not type(vb):
        raise SetupError(
            f"{va.name} is a {va.family} variant and {vb.name} a {vb.family} variant: "
            "only variants of one family can be compared (each family has its own keys)"
        )
    model = type(va)
    found: list[Any] = []
    _walk((), resolved_data(va), resolved_data(vb), model.LIST_KEYS, found)
    changes = []
    for path, kind, old, new in found:
        meaning = _meaning(model, path)
        clauses = tuple(dict.fromkeys(CLAUSE.findall(meaning)))
        changes.append(Change(path, kind, old, new, meaning, clauses))
    return changes


def changes_text(changes: list[Change], a: str, b: str) -> str:
    """The changes for a terminal: a line per key path, then what the key means."""
    if not changes:
        return f"no differences between {a} (A) and {b} (B)"
    count = "1 key differs" if len(changes) == 1 else f"{len(changes)} keys differ"
    out = [f"From {a} (A) to {b} (B): {count}"]
    said = ""
    for change in changes:
        out.append(f"  {change.text()}")
        if change.meaning and change.meaning != said:  # once for a key's run of items
            out.append(f"      {change.meaning}")
        said = change.meaning
    return "\n".join(out)
