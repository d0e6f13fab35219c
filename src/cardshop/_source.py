"""Reading YAML with source positions, and turning pydantic errors into clear ones.

Every value read from a file remembers the file, line and column it came from, so
that an error can point at it (``variants/mine.yaml:12:5: ... at sale.payout[2]``).
Aliases are refused outright: they are never needed in a variant and are the tool
of "billion laughs" files that blow up memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from cardshop._errors import SourceLocation, VariantError, format_path

__all__ = ["KeyPath", "Positions", "Sourced", "load_yaml", "merge", "raise_validation_error"]

KeyPath = tuple[str | int, ...]
Positions = dict[KeyPath, SourceLocation]

MAX_BYTES = 1_000_000
MAX_NODES = 100_000


class Sourced:
    """Plain data read from one YAML document, with the position of every key."""

    def __init__(self, data: Any, positions: Positions, source: str) -> None:
        self.data = data
        self.positions = positions
        self.source = source

    def location(self, path: KeyPath) -> SourceLocation | None:
        """Position of the longest prefix of ``path`` that was written in a file."""
        for end in range(len(path), -1, -1):
            loc = self.positions.get(path[:end])
            if loc is not None:
                return loc
        return None

    def error(self, reason: str, path: KeyPath = ()) -> VariantError:
        loc = self.location(path)
        return VariantError(
            reason, source=loc.file if loc else self.source, path=path, location=loc
        )


def _mark(source: str, node: yaml.Node | yaml.Event) -> SourceLocation:
    mark = node.start_mark
    assert mark is not None  # composed nodes always carry their mark
    return SourceLocation(source, mark.line + 1, mark.column + 1)


def load_yaml(text: str, source: str) -> Sourced:
    """Parse one YAML document safely, recording where each value stands."""
    if len(text) > MAX_BYTES:
        raise VariantError(f"file is larger than {MAX_BYTES} bytes", source=source)
    try:
        events = list(yaml.parse(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, source) from None
    if len(events) > MAX_NODES:
        raise VariantError(f"file has more than {MAX_NODES} YAML nodes", source=source)
    for event in events:
        if isinstance(event, yaml.AliasEvent):
            raise VariantError(
                f"YAML aliases (*{event.anchor}) are not allowed in variant files; "
                "write the value out",
                source=source,
                location=_mark(source, event),
            )
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:  # pragma: no cover - parse() above already failed
        raise _yaml_error(exc, source) from None
    positions: Positions = {}
    if node is None:
        return Sourced(None, positions, source)
    loader = yaml.SafeLoader("")

    def build(node: yaml.Node, path: KeyPath) -> Any:
        positions[path] = _mark(source, node)
        if isinstance(node, yaml.MappingNode):
            out: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise VariantError(
                        "YAML merge keys (<<) are not allowed in variant files",
                        source=source,
                        path=path,
                        location=_mark(source, key_node),
                    )
                key = build_scalar(key_node, path)
                if isinstance(key, (list, dict)):
                    raise VariantError(
                        "mapping keys must be plain values",
                        source=source,
                        path=path,
                        location=_mark(source, key_node),
                    )
                if key in out:
                    raise VariantError(
                        f"key {key!r} appears twice",
                        source=source,
                        path=(*path, key),
                        location=_mark(source, key_node),
                    )
                out[key] = build(value_node, (*path, key))
                positions.setdefault((*path, key), _mark(source, key_node))
            return out
        if isinstance(node, yaml.SequenceNode):
            return [build(item, (*path, i)) for i, item in enumerate(node.value)]
        return build_scalar(node, path)

    def build_scalar(node: yaml.Node, path: KeyPath) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            return build(node, path)
        try:
            return loader.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            raise _yaml_error(exc, source) from None

    return Sourced(build(node, ()), positions, source)


def _yaml_error(exc: yaml.YAMLError, source: str) -> VariantError:
    mark = getattr(exc, "problem_mark", None)
    loc = SourceLocation(source, mark.line + 1, mark.column + 1) if mark is not None else None
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    reason = f"YAML syntax error: {problem}" + (f" ({context})" if context else "")
    return VariantError(reason, source=source, location=loc)


def read_file(path: Path) -> Sourced:
    """Read a YAML file; a missing or unreadable file is a :class:`VariantError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise VariantError("file not found", source=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise VariantError(f"cannot read file: {exc}", source=str(path)) from None
    return load_yaml(text, str(path))


def merge(base: Sourced, over: Sourced) -> Sourced:
    """Overlay ``over`` on ``base``: mappings merge key by key, anything else replaces."""
    positions: Positions = {}

    def go(a: Any, b: Any, path: KeyPath) -> Any:
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            out = {}
            for key in a.keys() | b.keys():
                sub = (*path, key)
                if key not in b:
                    out[key] = a[key]
                    copy_positions(base, sub)
                elif key not in a:
                    out[key] = b[key]
                    copy_positions(over, sub)
                else:
                    out[key] = go(a[key], b[key], sub)
            keys = list(a) + [k for k in b if k not in a]
            loc = over.positions.get(path) or base.positions.get(path)
            if loc is not None:
                positions[path] = loc
            return {k: out[k] for k in keys}
        copy_positions(over, path)
        return b

    def copy_positions(src: Sourced, prefix: KeyPath) -> None:
        n = len(prefix)
        for p, loc in src.positions.items():
            if p[:n] == prefix:
                positions[p] = loc

    return Sourced(go(base.data, over.data, ()), positions, over.source)


def raise_validation_error(exc: ValidationError, sourced: Sourced) -> VariantError:
    """The first pydantic error as a :class:`VariantError` naming file, line and key."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    path: KeyPath = tuple(p for p in first["loc"] if isinstance(p, (str, int)))
    msg = first["msg"]
    if first["type"] == "extra_forbidden":
        msg = f"unknown key {path[-1]!r}" if path else "unknown key"
    elif first["type"] == "missing":
        msg = f"required key {path[-1]!r} is missing" if path else msg
    value = first.get("input")
    if first["type"] not in ("missing", "extra_forbidden") and not isinstance(value, (dict, list)):
        msg = f"{msg} (got {value!r})"
    more = len(errors) - 1
    if more:
        msg += f" (and {more} more error{'s' if more > 1 else ''})"
    err = sourced.error(msg, path)
    if not path:
        err = VariantError(msg, source=sourced.source, path=path)
    return err


__all__ += ["format_path", "read_file"]
