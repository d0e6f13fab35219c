"""Reading YAML with source positions, and turning pydantic errors into clear ones.

Every value read from a file remembers the file, line and column it came from, so
that an error can point at it (``variants/mine.yaml:12:5: ... at sale.payout[2]``).

Variant files and positions are untrusted input, so reading is bounded before work
is done (see docs/security.md):

* a file is read only if it is a regular file, and at most :data:`MAX_BYTES` bytes
  of it (a FIFO or a device is refused before it is opened, and opened without
  blocking, so that it can never hang the reader);
* the parser counts nodes and nesting depth *while* it composes the document and
  stops at :data:`MAX_NODES` nodes or :data:`MAX_DEPTH` levels, before any recursion
  or quadratic scanning can get going;
* aliases, merge keys and explicit tags (``!!int``, ``!!binary``, ``!!python/...``)
  are refused: a variant never needs them, and aliases are the tool of
  "billion laughs" files that blow up memory;
* numbers longer than :data:`MAX_NUMBER_CHARS` characters are refused, and any
  scalar that cannot be built (``2024-02-30``) is a :class:`VariantError` with its
  line and column.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

import annotated_types
import yaml
from pydantic import BaseModel, ValidationError

from cardshop.core.errors import (
    SourceLocation,
    VariantError,
    format_path,
    format_value,
)
from cardshop.core.expr import closest

__all__ = [
    "MARKERS",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_NUMBER_CHARS",
    "Change",
    "FileStamp",
    "KeyPath",
    "Positions",
    "Sourced",
    "VariantWarning",
    "check_reference",
    "edit",
    "line_order",
    "load_yaml",
    "merge",
    "read_file",
    "read_text",
    "validation_errors",
]

KeyPath = tuple[str | int, ...]
Positions = dict[KeyPath, SourceLocation]
FileStamp = tuple[str, int, int, int, int]
"""What identifies one version of a file read: (path, device, inode, size, mtime ns)."""

MAX_BYTES = 256_000
"""Largest YAML text read, in bytes (UTF-8). The built-in variants are below 2 KB; the
worst text of this size takes the pure-Python parser about a second."""
MAX_NODES = 10_000
"""Most YAML nodes (scalars, lists, mappings) in one document. A variant has about 100,
and the pure-Python parser needs about a second for 10,000."""
MAX_DEPTH = 32
"""Deepest nesting of lists and mappings. Variants need 4 levels, positions 5."""
MAX_NUMBER_CHARS = 100
"""Longest number written in YAML, in characters. Every count a variant holds has
at most 7 digits; this keeps big-integer conversions out of reach."""
MAX_PATH_CHARS = 4096
"""Longest file name or variant name accepted (Linux's PATH_MAX)."""

_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_MERGE = "tag:yaml.org,2002:merge"


class VariantWarning(VariantError):
    """A setting of a variant file that plays, but not as its author may think: an
    inherited list replaced by a plain list, an empty mapping that keeps the base's
    entries, a setting that cannot matter (a family's ``semantic_warnings``).

    It is never raised by a load: :func:`cardshop.variant_warnings` and
    ``inspect_variant`` return it, ``cardshop validate`` prints it with a ``warning:``
    prefix (``--strict`` makes it fail). Like a :class:`VariantError` it names the
    file, line, column and key; its message says ``warning`` instead of ``invalid``.
    """

    @classmethod
    def verdict(cls) -> str:
        return "warning"

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return (_warning, (self.reason, self.source, self.path, self.location))


def _warning(
    reason: str, source: str, path: tuple[str | int, ...], location: SourceLocation | None
) -> VariantWarning:
    return VariantWarning(reason, source=source, path=path, location=location)


def line_order(problem: VariantError) -> tuple[str, int, int, int]:
    """Sort key of problems in the order of their files' lines (file, line, column);
    a problem without a position comes first in its file, and at one position a
    warning (which often says why) comes before an error."""
    rank = 0 if isinstance(problem, VariantWarning) else 1
    loc = problem.location
    if loc is None:
        return (problem.source, 0, 0, rank)
    return (loc.file, loc.line, loc.column, rank)


_E = TypeVar("_E", bound=VariantError)


class Sourced:
    """Plain data read from one YAML document, with the position of every key.

    ``inherited`` maps key paths whose values came from a built-in variant through
    ``extends`` to that variant's name; their positions point at the ``extends`` key
    of the user's file, so that errors name the user's file, not the package's.
    """

    def __init__(
        self,
        data: Any,
        positions: Positions,
        source: str,
        inherited: dict[KeyPath, str] | None = None,
    ) -> None:
        self.data = data
        self.positions = positions
        self.source = source
        self.inherited: dict[KeyPath, str] = inherited or {}

    def _find(self, path: KeyPath) -> tuple[KeyPath, SourceLocation] | None:
        for end in range(len(path), -1, -1):
            loc = self.positions.get(path[:end])
            if loc is not None:
                return path[:end], loc
        return None

    def location(self, path: KeyPath) -> SourceLocation | None:
        """Position of the longest prefix of ``path`` that was written in a file."""
        found = self._find(path)
        return found[1] if found else None

    def error(self, reason: str, path: KeyPath = ()) -> VariantError:
        return self._problem(VariantError, reason, path)

    def warning(self, reason: str, path: KeyPath = ()) -> VariantWarning:
        """A :class:`VariantWarning` at ``path``: the variant plays, but not as written."""
        return self._problem(VariantWarning, reason, path)

    def _problem(self, cls: type[_E], reason: str, path: KeyPath) -> _E:
        found = self._find(path)
        if found is None:
            return cls(reason, source=self.source, path=path)
        prefix, loc = found
        parent = self.inherited.get(prefix)
        if parent is not None:
            reason += f" (the value comes from the built-in variant {parent!r} through extends)"
        return cls(reason, source=loc.file, path=path, location=loc)


def _mark(source: str, node: yaml.Node | yaml.Event | yaml.Mark) -> SourceLocation:
    mark = node if isinstance(node, yaml.Mark) else node.start_mark
    assert mark is not None  # composed nodes always carry their mark
    return SourceLocation(source, mark.line + 1, mark.column + 1)


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing what a variant never needs while it parses."""

    def __init__(self, text: str, source: str) -> None:
        super().__init__(text)
        self.source = source
        self.nodes = 0
        self.depth = 0

    def refuse(self, reason: str, mark: Any) -> VariantError:
        loc = _mark(self.source, mark) if mark is not None else None
        return VariantError(reason, source=self.source, location=loc)

    # Scanner: every '[' and '{' costs the scanner work per open level on each later
    # token, so the depth is checked here, before the composer ever sees them.
    def fetch_flow_collection_start(self, TokenClass: Any) -> None:
        if self.flow_level >= MAX_DEPTH:
            raise self.refuse(f"YAML nested deeper than {MAX_DEPTH} levels", self.get_mark())
        super().fetch_flow_collection_start(TokenClass)

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event: Any = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent):
            raise self.refuse(
                f"YAML aliases (*{event.anchor}) are not allowed; write the value out",
                event.start_mark,
            )
        tag = getattr(event, "tag", None)
        if tag is not None:
            raise self.refuse(
                f"YAML tags ({tag}) are not allowed; write a plain value",
                event.start_mark,
            )
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self.refuse(f"YAML has more than {MAX_NODES} nodes", event.start_mark)
        if self.depth >= MAX_DEPTH:
            raise self.refuse(f"YAML nested deeper than {MAX_DEPTH} levels", event.start_mark)
        self.depth += 1
        try:
            node = super().compose_node(parent, index)
        finally:
            self.depth -= 1
        return node


def _byte_length(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def load_yaml(text: str, source: str) -> Sourced:
    """Parse one YAML document safely, recording where each value stands."""
    # A character is at least one byte: a long text is refused without encoding it.
    if len(text) > MAX_BYTES or _byte_length(text) > MAX_BYTES:
        raise VariantError(f"text is larger than {MAX_BYTES} bytes", source=source)
    try:
        # The reader refuses characters YAML does not allow (NUL, control characters,
        # lone surrogates) as soon as it is made.
        loader = _BoundedLoader(text, source)
    except yaml.YAMLError as exc:
        raise _yaml_error(exc, source) from None
    try:
        try:
            node = loader.get_single_node()
        except yaml.YAMLError as exc:
            raise _yaml_error(exc, source) from None
        except RecursionError:  # pragma: no cover - the depth limit comes first
            raise VariantError("YAML nested too deeply", source=source) from None
        positions: Positions = {}
        if node is None:
            return Sourced(None, positions, source)
        return Sourced(_build(loader, node, positions), positions, source)
    finally:
        loader.dispose()


def _build(loader: _BoundedLoader, root: yaml.Node, positions: Positions) -> Any:
    source = loader.source

    def build(node: yaml.Node, path: KeyPath) -> Any:
        positions[path] = _mark(source, node)
        if isinstance(node, yaml.MappingNode):
            out: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE:
                    raise VariantError(
                        "YAML merge keys (<<) are not allowed",
                        source=source,
                        path=path,
                        location=_mark(source, key_node),
                    )
                if not isinstance(key_node, yaml.ScalarNode):
                    raise VariantError(
                        "mapping keys must be plain values",
                        source=source,
                        path=path,
                        location=_mark(source, key_node),
                    )
                key = scalar(key_node)
                if key in out:
                    raise VariantError(
                        f"key {key!r} appears twice",
                        source=source,
                        path=(*path, key),
                        location=_mark(source, key_node),
                    )
                out[key] = build(value_node, (*path, key))
                if isinstance(value_node, (yaml.MappingNode, yaml.SequenceNode)):
                    # A mapping or list is placed at its key's line, not its first child's.
                    positions[(*path, key)] = _mark(source, key_node)
            return out
        if isinstance(node, yaml.SequenceNode):
            return [build(item, (*path, i)) for i, item in enumerate(node.value)]
        return scalar(node)

    def scalar(node: yaml.Node) -> Any:
        if node.tag in (_INT, _FLOAT) and len(node.value) > MAX_NUMBER_CHARS:
            raise VariantError(
                f"number longer than {MAX_NUMBER_CHARS} characters",
                source=source,
                location=_mark(source, node),
            )
        try:
            return loader.construct_object(node, deep=True)
        except yaml.YAMLError as exc:
            raise _yaml_error(exc, source) from None
        except (ValueError, OverflowError, TypeError) as exc:
            # e.g. an implicit date that does not exist (2024-02-30), or Python's
            # limit on the digits of an int
            raise VariantError(
                f"cannot read the value {node.value[:40]!r}: {exc}",
                source=source,
                location=_mark(source, node),
            ) from None

    return build(root, ())


def _yaml_error(exc: yaml.YAMLError, source: str) -> VariantError:
    mark = getattr(exc, "problem_mark", None)
    loc = SourceLocation(source, mark.line + 1, mark.column + 1) if mark is not None else None
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    reason = f"YAML syntax error: {problem}" + (f" ({context})" if context else "")
    return VariantError(reason, source=source, location=loc)


# ---------------------------------------------------------------------- files


def check_reference(ref: str) -> None:
    """Refuse a file or variant name that no file system call should see."""
    if "\x00" in ref:
        raise VariantError("the file name contains a NUL character", source=repr(ref)[:80])
    if len(ref) > MAX_PATH_CHARS:
        raise VariantError(
            f"the file name is longer than {MAX_PATH_CHARS} characters",
            source=f"{ref[:40]}...",
        )


def _kind_of(mode: int) -> str | None:
    """Why a file of this mode is not read (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "is a folder, not a variant file"
    if stat.S_ISFIFO(mode):
        return "is a named pipe (FIFO), not a regular file; only regular files are read"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a regular file; only regular files are read"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a regular file; only regular files are read"
    return "is not a regular file; only regular files are read"


def read_text(path: Path, name: str | None = None) -> tuple[str, FileStamp]:
    """The text of a file under the file policy, and the stamp of the version read.

    ``name`` is how messages call the file (default: ``path``). Any problem (missing,
    not a regular file, too large, not UTF-8, any OS error) is a :class:`VariantError`.
    """
    name = str(path) if name is None else name
    check_reference(str(path))
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise VariantError("file not found", source=name) from None
    except (OSError, ValueError) as exc:
        raise VariantError(f"cannot read file: {_os_reason(exc)}", source=name) from None
    why = _kind_of(st.st_mode)
    if why is not None:
        raise VariantError(why, source=name)
    if st.st_size > MAX_BYTES:
        raise VariantError(f"file is larger than {MAX_BYTES} bytes", source=name)
    # O_NONBLOCK: should the file be swapped for a FIFO after the stat, opening it
    # still returns at once (and the fstat below refuses it).
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError) as exc:
        raise VariantError(f"cannot read file: {_os_reason(exc)}", source=name) from None
    try:
        st = os.fstat(fd)  # the file opened, not the one stat-ed: it may have changed
        why = _kind_of(st.st_mode)
        if why is not None:
            raise VariantError(why, source=name)
        chunks: list[bytes] = []
        left = MAX_BYTES + 1  # one byte more than allowed tells a file that is too large
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        raise VariantError(f"cannot read file: {_os_reason(exc)}", source=name) from None
    finally:
        os.close(fd)
    raw = b"".join(chunks)
    if len(raw) > MAX_BYTES:
        raise VariantError(f"file is larger than {MAX_BYTES} bytes", source=name)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise VariantError(
            f"file is not UTF-8 text (byte {raw[exc.start]:#04x} at offset {exc.start})",
            source=name,
        ) from None
    return text, (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def read_file(path: Path, name: str | None = None) -> Sourced:
    """Read and parse a YAML file under the file policy (see :func:`read_text`)."""
    text, _ = read_text(path, name)
    return load_yaml(text, str(path) if name is None else name)


def file_stamp(path: str) -> FileStamp | None:
    """The stamp of the file now (None if it cannot be stat-ed)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _os_reason(exc: OSError | ValueError) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)


# ------------------------------------------------------------------- merging


def merge(base: Sourced, over: Sourced) -> Sourced:
    """Overlay ``over`` on ``base``: mappings merge key by key, anything else replaces.

    Positions of ``over`` win; the positions of ``base`` stay for what it alone gives
    (a stale position under a replaced value is never asked for: its path no longer
    exists in the data).
    """

    def go(a: Any, b: Any) -> Any:
        if isinstance(a, dict) and isinstance(b, dict):
            out = dict(a)
            for key, value in b.items():
                out[key] = go(a[key], value) if key in a else value
            return out
        return b

    positions = {**base.positions, **over.positions}
    inherited = {p: v for p, v in base.inherited.items() if p not in over.positions}
    return Sourced(go(base.data, over.data), positions, over.source, inherited)


MARKERS = ("$replace", "$remove", "$merge", "$prepend", "$append")
"""The edit markers of a list in a file that extends another, in the order they apply:
``$replace`` (the whole list), ``$remove`` (items, or their keys), ``$merge`` (an item
whose key matches a base item replaces it, merged key by key; others are appended),
``$prepend`` and ``$append``."""

_CHANGE_KINDS = ("set", "add", "delete", "replace", "remove", "merge", "prepend", "append")


@dataclass(frozen=True, slots=True)
class Change:
    """One edit a file that extends another makes to its base (``cardshop show
    --changes``): ``kind`` is one of set (a value the base has, changed), add (a key the
    base has not), delete (``key: null``), replace (a whole list), remove, merge,
    prepend and append (one list item each); ``detail`` says what, in words."""

    kind: str
    path: KeyPath
    location: SourceLocation | None
    detail: str

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        return f"{where}{self.kind} {format_path(self.path)}: {self.detail}"


def _is_table(value: list[Any]) -> bool:
    """Whether a list is a table of numbers (a payout by row, prices by position): a
    value given whole, not a collection of items that ``$append`` could extend."""
    return all(isinstance(x, int | float) and not isinstance(x, bool) for x in value)


def _freeze(value: Any) -> Any:
    """A hashable stand-in of plain data, equal where the data is equal (of one type)."""
    if isinstance(value, dict):
        return ("map", frozenset((_freeze(k), _freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("list", tuple(_freeze(v) for v in value))
    return (type(value).__name__, value)


_KEEP: Any = object()
"""A list entry's over value when the base's item is kept as it is."""


def _is_markers(value: Any) -> bool:
    return isinstance(value, dict) and any(isinstance(k, str) and k.startswith("$") for k in value)


def find_markers(data: Any, path: KeyPath = ()) -> KeyPath | None:
    """The path of the first mapping of edit markers in ``data``, if any."""
    if _is_markers(data):
        return path
    items = (
        data.items()
        if isinstance(data, dict)
        else enumerate(data)
        if isinstance(data, list)
        else ()
    )
    for key, value in items:
        found = find_markers(value, (*path, key))
        if found is not None:
            return found
    return None


def _listing(names: list[str], most: int = 30) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "") or "nothing"


def _did_you_mean(word: object, choices: list[str]) -> str:
    if not isinstance(word, str):
        return ""
    near = closest(word, choices)
    return f"; did you mean {near!r}?" if near else ""


def _dotted(path: KeyPath) -> str:
    return ".".join(p for p in path if isinstance(p, str))


def edit(
    base: Sourced, over: Sourced, list_keys: Mapping[str, str] | None = None
) -> tuple[Sourced, list[VariantWarning], list[Change]]:
    """Apply a file that extends another (``over``) to its base: the merge of
    :func:`merge`, with the edit markers of docs/cookbook/extends.md.

    * ``key: null`` deletes the key (the model's default applies), at any depth where
      the base has a mapping; deleting a key the base has not is an error.
    * A list of the base may be given as a mapping of :data:`MARKERS`; items of a list
      named in ``list_keys`` (dotted path -> item key, ``VariantBase.LIST_KEYS``) match
      by that key, others by their whole value.
    * A plain list over a different, non-empty list of the base replaces it with a
      warning (not a table of numbers, such as a payout, which is one value, nor a
      list inside an item that ``$merge`` merges: the marker says it); an empty
      mapping over a non-empty one keeps the base's, with a warning.

    Returns the merged data with the position of every value, the warnings and the
    changes (in the order of ``over``). The work is linear in the size of both.
    """
    keys = list_keys or {}
    positions: Positions = {}
    inherited: dict[KeyPath, str] = {}
    warnings: list[VariantWarning] = []
    changes: list[Change] = []
    merging: list[bool] = []  # non-empty inside an item that $merge merges into the base's

    def copy(value: Any, side: Sourced, src: KeyPath, dst: KeyPath) -> None:
        loc = side.positions.get(src)
        if loc is not None:
            positions[dst] = loc
        parent = side.inherited.get(src)
        if parent is not None:
            inherited[dst] = parent
        if isinstance(value, dict):
            for k, v in value.items():
                copy(v, side, (*src, k), (*dst, k))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                copy(v, side, (*src, i), (*dst, i))

    def change(kind: str, at: KeyPath, path: KeyPath, detail: str) -> None:
        changes.append(Change(kind, path, over.location(at), detail))

    def mapping(
        a: dict[Any, Any], b: dict[Any, Any], pa: KeyPath, pb: KeyPath, dst: KeyPath
    ) -> Any:
        copy_node(pa, pb, dst)
        if not b and a:
            warnings.append(
                over.warning(
                    "an empty mapping keeps the base's entries "
                    f"({_listing([str(k) for k in a], 8)}); "
                    "write null to delete the key, or list entries with null to delete them",
                    pb,
                )
            )
        out = dict(a)
        for key, value in b.items():
            at = (*pb, key)
            if value is None:
                if key not in a:
                    have = [str(k) for k in a]
                    raise over.error(
                        f"null deletes a key of the base, and the base has no {key!r} here "
                        f"(it has: {_listing(have)}){_did_you_mean(key, have)}",
                        at,
                    )
                del out[key]
                change("delete", at, (*dst, key), "back to the default")
            elif key in a:
                out[key] = go(a[key], value, (*pa, key), at, (*dst, key))
            elif _is_markers(value):
                raise over.error(
                    f"edit markers change a list of the base, and the base has no {key!r} "
                    "here: write the list itself",
                    at,
                )
            else:
                out[key] = value
                copy(value, over, at, (*dst, key))
                if dst or key != "extends":
                    change("add", at, (*dst, key), format_value(value))
        for key in a:
            if key in out and key not in b:
                copy(a[key], base, (*pa, key), (*dst, key))
        return out

    def copy_node(pa: KeyPath, pb: KeyPath, dst: KeyPath) -> None:
        loc = over.positions.get(pb) or base.positions.get(pa)
        if loc is not None:
            positions[dst] = loc
        if pb not in over.positions and pa in base.inherited:
            inherited[dst] = base.inherited[pa]

    def go(a: Any, b: Any, pa: KeyPath, pb: KeyPath, dst: KeyPath) -> Any:
        if _is_markers(b):
            return markers(a, b, pa, pb, dst)
        if isinstance(a, dict) and isinstance(b, dict):
            return mapping(a, b, pa, pb, dst)
        if isinstance(a, list) and isinstance(b, dict):
            raise over.error(
                f"the base's {format_path(dst)} is a list: to edit it write a mapping of "
                f"the markers {', '.join(MARKERS)}; to replace it write a list",
                pb,
            )
        if (
            isinstance(a, list)
            and isinstance(b, list)
            and a
            and _freeze(a) != _freeze(b)
            and not merging  # inside a $merged item, or a table of numbers: one value, stated
            and not (_is_table(a) and _is_table(b))
        ):
            field = keys.get(_dotted(dst))
            merge_hint = f" (or $merge to replace items by {field})" if field else ""
            warnings.append(
                over.warning(
                    f"this list replaces the base's {len(a)} item{'s' if len(a) != 1 else ''} "
                    f"with {len(b)}; to keep the base's items write {{$append: [...]}}"
                    f"{merge_hint}, or {{$replace: [...]}} to replace the list without "
                    "this warning",
                    pb,
                )
            )
            change("replace", pb, dst, f"the base's {len(a)} items replaced by {len(b)}")
        elif _freeze(a) != _freeze(b):
            change("set", pb, dst, f"{format_value(a)} -> {format_value(b)}")
        copy(b, over, pb, dst)
        return b

    def markers(a: Any, b: dict[Any, Any], pa: KeyPath, pb: KeyPath, dst: KeyPath) -> Any:
        for key in b:
            if key not in MARKERS:
                raise over.error(
                    f"unknown edit marker {key!r}; the markers are {', '.join(MARKERS)}"
                    f"{_did_you_mean(key, list(MARKERS))}",
                    (*pb, key),
                )
            if not isinstance(b[key], list):
                raise over.error(f"{key} takes a list of items", (*pb, key))
        if not isinstance(a, list):
            what = "a mapping" if isinstance(a, dict) else f"the value {format_value(a)}"
            raise over.error(
                f"edit markers change a list, and the base's {format_path(dst)} is {what}",
                pb,
            )
        field = keys.get(_dotted(dst))

        def ident(item: Any, loose: bool = False) -> Any:
            if field is not None and isinstance(item, dict) and field in item:
                return ("key", _freeze(item[field]))
            if field is not None and loose and not isinstance(item, (dict, list)):
                return ("key", _freeze(item))
            return ("value", _freeze(item))

        def label(item: Any) -> str:
            if field is not None and isinstance(item, dict) and field in item:
                return str(item[field])
            return item if isinstance(item, str) else format_value(item)

        # Each entry: (base value, its path, the value over it or _KEEP, its path).
        Entry = tuple[Any, KeyPath, Any, KeyPath]
        entries: list[Entry] = [(v, (*pa, i), _KEEP, ()) for i, v in enumerate(a)]

        def value(entry: Entry) -> Any:
            return entry[0] if entry[2] is _KEEP else entry[2]

        if "$replace" in b:
            at = (*pb, "$replace")
            entries = [(_KEEP, (), v, (*at, j)) for j, v in enumerate(b["$replace"])]
            change("replace", at, dst, f"the base's {len(a)} items replaced by {len(entries)}")
        if "$remove" in b:
            have = {ident(value(e)) for e in entries}
            drop = set()
            for j, item in enumerate(b["$remove"]):
                found = ident(item, loose=True)
                if found not in have:
                    names = [label(value(e)) for e in entries]
                    raise over.error(
                        f"$remove: the base's {format_path(dst)} has no item "
                        f"{format_value(item)} (it has: {_listing(names)})"
                        f"{_did_you_mean(item, names)}",
                        (*pb, "$remove", j),
                    )
                drop.add(found)
                change("remove", (*pb, "$remove", j), dst, label(item))
            entries = [e for e in entries if ident(value(e)) not in drop]
        if "$merge" in b:
            index = {ident(value(e)): n for n, e in enumerate(entries)}
            for j, item in enumerate(b["$merge"]):
                at = (*pb, "$merge", j)
                n = index.get(ident(item))
                if n is None:
                    index[ident(item)] = len(entries)
                    entries.append((_KEEP, (), item, at))
                    change("merge", at, dst, f"{label(item)} (new)")
                else:
                    old = entries[n]
                    keep = old[2] is _KEEP
                    entries[n] = (old[0], old[1], item, at) if keep else (_KEEP, (), item, at)
                    change("merge", at, dst, f"{label(item)} (merged into the base's)")
        for kind in ("$prepend", "$append"):
            if kind in b:
                added = [(_KEEP, (), v, (*pb, kind, j)) for j, v in enumerate(b[kind])]
                for _, _, v, at in added:
                    change(kind[1:], at, dst, label(v))
                entries = [*added, *entries] if kind == "$prepend" else [*entries, *added]
        copy_node(pa, pb, dst)
        out = []
        for i, (old_value, old_at, new_value, new_at) in enumerate(entries):
            if new_value is _KEEP:
                out.append(old_value)
                copy(old_value, base, old_at, (*dst, i))
            elif (
                old_value is not _KEEP
                and isinstance(old_value, dict)
                and isinstance(new_value, dict)
            ):
                merging.append(True)  # the item's own lists replace without a warning
                try:
                    out.append(mapping(old_value, new_value, old_at, new_at, (*dst, i)))
                finally:
                    merging.pop()
            else:
                out.append(new_value)
                copy(new_value, over, new_at, (*dst, i))
        return out

    data = go(base.data, over.data, (), (), ())
    return Sourced(data, positions, over.source, inherited), warnings, changes


# ------------------------------------------------------------ pydantic errors


def validation_errors(
    exc: ValidationError, sourced: Sourced, model: type[BaseModel] | None = None
) -> list[VariantError]:
    """Every pydantic error as a :class:`VariantError` naming file, line and key, in
    our own words: what is due at that place and, given the ``model`` that read the
    data, the keys valid there (with the closest spelling of an unknown one) and the
    choices of a key that takes a fixed set of words. A union's failed branches make
    one problem. The order is pydantic's; sort with :func:`line_order`."""
    out: list[VariantError] = []
    done: set[KeyPath] = set()
    errors = exc.errors(include_url=False)
    resolved = [_resolve(model, e["loc"]) for e in errors]
    deep = {r.union for r in resolved if r.union is not None and r.below_union}
    for error, found in zip(errors, resolved, strict=True):
        path = found.path
        if error["type"] == "value_error" and "error" not in (error.get("ctx") or {}):
            # A family's own error, raised in its words (PydanticCustomError).
            out.append(sourced.error(error["msg"].removeprefix("Value error, "), path))
            continue
        if found.union is not None:
            if found.union in deep and not found.below_union:
                continue  # a branch that failed at once, where another went deeper
            if not found.below_union:
                if found.union in done:
                    continue
                done.add(found.union)
                path = found.union
                found = _resolve(model, error["loc"][: len(found.union)])
        cause = (error.get("ctx") or {}).get("error")
        if error["type"] == "value_error" and isinstance(cause, ValueError):
            # A check of ours: its own words.
            problem = sourced.error(str(cause), path)
            column = getattr(cause, "column", None)
            if isinstance(column, int) and problem.location is not None:
                # An expression's problem: the column inside the value's text.
                loc = problem.location
                at = SourceLocation(loc.file, loc.line, loc.column + column - 1)
                problem = VariantError(
                    problem.reason, source=problem.source, path=path, location=at
                )
            out.append(problem)
            continue
        union = found.union is not None and not found.below_union
        out.append(sourced.error(_reason(error, path, found, union), path))
    return out


@dataclass
class _Found:
    """Where a pydantic error's location leads in a model."""

    path: KeyPath  # the key path in the data (union tags left out)
    annotation: Any  # the type at the end of the path (None if unknown)
    parent: Any  # the type of the place that holds the last key
    union: KeyPath | None = None  # the data path of the first union crossed
    below_union: bool = False  # the error is inside a union's branch, not at its top


def _strip(annotation: Any) -> tuple[Any, list[Any]]:
    """The type inside ``Annotated``, and its metadata."""
    meta: list[Any] = []
    while get_origin(annotation) is Annotated:
        args = get_args(annotation)
        annotation, meta = args[0], [*meta, *args[1:]]
    return annotation, meta


def _branches(annotation: Any) -> tuple[list[Any], bool]:
    """The branches of a union (None left out), and whether None is one of them."""
    bare, _ = _strip(annotation)
    if get_origin(bare) in (Union, UnionType):
        args = get_args(bare)
        return [a for a in args if a is not type(None)], type(None) in args
    return [annotation], False


def _resolve(model: type[BaseModel] | None, loc: tuple[Any, ...]) -> _Found:
    path: KeyPath = ()
    current: Any = model
    parent: Any = None
    union: KeyPath | None = None
    below = False
    parts = list(loc)
    i = 0
    while i < len(parts):
        part = parts[i]
        i += 1
        if current is not None:
            branches, _ = _branches(current)
            if len(branches) > 1:
                keyed = [b for b in branches if _child(b, part) is not None]
                tagged = _branch(branches, part) if not keyed else None
                if tagged is not None:
                    # pydantic names the branch it tried: the tag is not a key of the data
                    if union is None:
                        union = path
                    current = tagged
                    below = below or i < len(parts)
                    continue
                current = keyed[0] if keyed else None
            else:
                current = branches[0]
        if part == "[key]":  # the key just passed was refused: the key type of its mapping
            bare, _ = _strip(_branches(parent)[0][0]) if parent is not None else (None, [])
            args = get_args(bare)
            current = args[0] if get_origin(bare) is dict and len(args) == 2 else None
            continue
        if not isinstance(part, (str, int)):
            continue
        path = (*path, part)
        parent, current = current, _child(current, part)
    if current is not None and i == len(parts) and union is not None and path == union:
        below = False
    return _Found(path, current, parent, union, below)


def _branch(branches: list[Any], tag: object) -> Any:
    """The branch of a union that pydantic's tag names (by the kind of its type)."""
    for branch in branches:
        bare, _ = _strip(branch)
        name = getattr(get_origin(bare) or bare, "__name__", "")
        if isinstance(tag, str) and (tag == name or tag.startswith(name) or name in tag):
            return branch
    for branch in branches:
        bare, _ = _strip(branch)
        if isinstance(tag, str) and "int" in tag and bare is int:
            return branch
        if isinstance(tag, str) and tag.startswith("dict") and get_origin(bare) is dict:
            return branch
    return None


def _child(annotation: Any, part: str | int) -> Any:
    """The type of ``part`` of a value of ``annotation`` (None if unknown)."""
    if annotation is None:
        return None
    branches, _ = _branches(annotation)
    bare, _ = _strip(branches[0])
    if isinstance(bare, type) and issubclass(bare, BaseModel):
        field = bare.model_fields.get(str(part))
        if field is None:
            return None
        return (
            Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation
        )
    origin = get_origin(bare)
    args = get_args(bare)
    if origin is list and isinstance(part, int) and args:
        return args[0]
    if origin is dict and len(args) == 2:
        return args[1]
    return None


def _keys(annotation: Any) -> list[str]:
    """The keys a mapping of this type may hold (a model's fields), if known."""
    for branch in _branches(annotation)[0] if annotation is not None else []:
        bare, _ = _strip(branch)
        if isinstance(bare, type) and issubclass(bare, BaseModel):
            return list(bare.model_fields)
    return []


def _range(meta: list[Any]) -> tuple[Any, Any]:
    low: Any = None
    high: Any = None
    for item in meta:
        for constraint in getattr(item, "metadata", [item]):
            if isinstance(constraint, annotated_types.Ge):
                low = constraint.ge
            elif isinstance(constraint, annotated_types.Gt):
                low = constraint.gt + 1 if isinstance(constraint.gt, int) else constraint.gt
            elif isinstance(constraint, annotated_types.Le):
                high = constraint.le
            elif isinstance(constraint, annotated_types.Lt):
                high = constraint.lt - 1 if isinstance(constraint.lt, int) else constraint.lt
    return low, high


def _kind(annotation: Any, depth: int = 0) -> str:
    """What a value of this type is, in words: ``a whole number from 1 to 12``."""
    if annotation is None or depth > 4:
        return "a value of another kind"
    branches, nullable = _branches(annotation)
    if len(branches) > 1:
        text = " or ".join(_kind(b, depth + 1) for b in branches)
        return text + (", or null" if nullable else "")
    bare, meta = _strip(branches[0])
    text = _plain_kind(bare, meta, depth)
    return text + (", or null for none" if nullable else "")


def _plain_kind(bare: Any, meta: list[Any], depth: int) -> str:
    origin, args = get_origin(bare), get_args(bare)
    if bare is bool:
        return "true or false"
    if bare is int:
        low, high = _range(meta)
        if low is not None and high is not None:
            return f"a whole number from {low} to {high}"
        if low is not None:
            return f"a whole number of at least {low}"
        return "a whole number" if high is None else f"a whole number of at most {high}"
    if bare is str:
        for item in meta:
            for constraint in getattr(item, "metadata", None) or [item]:
                if getattr(constraint, "pattern", None) == SLUG_PATTERN:
                    return _SLUG
        return "text"
    if bare is float:
        return "a number"
    if origin is Literal:
        return "one of " + ", ".join(str(a) for a in args)
    if origin is list and args:
        return f"a list, each item {_kind(args[0], depth + 1)}"
    if origin is dict and len(args) == 2:
        return f"a mapping of {_kind(args[0], depth + 1)} to {_kind(args[1], depth + 1)}"
    if isinstance(bare, type) and issubclass(bare, BaseModel):
        return f"a mapping of its keys ({', '.join(bare.model_fields)})"
    if getattr(bare, "__name__", "") == "Expression":
        return "a whole number or an expression (docs/variant-language.md)"
    return "a value of another kind"


SLUG_PATTERN = "^[a-z][a-z0-9-]*$"
_SLUG = "a name of lowercase letters, digits and '-', starting with a letter"


def _subject(path: KeyPath) -> str:
    """How a message names the value at ``path``: ``hand_size``, ``an item of cards``."""
    names = [p for p in path if isinstance(p, str)]
    name = names[-1] if names else "the variant"
    if path and isinstance(path[-1], int):
        return f"each item of {name}"
    return name


def _family_of(model: Any) -> str:
    """The family a variant model is of (``Literal["klunker"]``), or ""."""
    field = getattr(model, "model_fields", {}).get("family")
    names = get_args(field.annotation) if field is not None else ()
    return names[0] if len(names) == 1 and isinstance(names[0], str) else ""


def _reason(error: Any, path: KeyPath, found: _Found, union: bool) -> str:
    """A pydantic error in our words (see :func:`validation_errors`)."""
    kind: str = error["type"]
    ctx: dict[str, Any] = error.get("ctx") or {}
    value = error.get("input")
    got = "" if isinstance(value, (dict, list)) else f" (got {format_value(value)})"
    subject = _subject(path)
    due = _kind(found.annotation)
    is_key = error["loc"] and error["loc"][-1] == "[key]"
    if is_key:
        subject = f"the key {path[-1]!r} of {_subject(path[:-1])}"
        got = ""
    if union:
        return f"{subject} must be {due}{got}"
    if kind == "extra_forbidden":
        key = path[-1] if path else "?"
        valid = _keys(found.parent)
        if not valid:
            return f"unknown key {key!r}"
        if len(path) > 1 and isinstance(path[-2], int):
            where = "of an item of " + _subject(path[:-2])
        elif len(path) == 1 and _family_of(found.parent):
            where = f"of a {_family_of(found.parent)} variant"  # a base's family too
        else:
            where = "here"
        return (
            f"unknown key {key!r}; the keys {where} are {', '.join(valid)}"
            f"{_did_you_mean(key, valid)}"
        )
    if kind == "missing":
        key = path[-1] if path else "?"
        return f"required key {key!r} is missing: add it ({due})"
    if kind == "literal_error":
        choices = (
            [str(a) for a in get_args(_strip(found.annotation)[0])] if found.annotation else []
        )
        shown = ", ".join(choices) or str(ctx.get("expected", ""))
        return (
            f"{format_value(value)} is not one of the choices for {subject}: {shown}"
            f"{_did_you_mean(value, choices)}"
        )
    if kind in _RANGES:
        bound = next(iter(ctx.values()), None)
        if bound is None:
            bound = _numbers(error["msg"])[-1:] or ["the bound"]
            bound = bound[0]
        low, high = _range(_strip(found.annotation)[1]) if found.annotation else (None, None)
        span = f"; it is from {low} to {high}" if low is not None and high is not None else ""
        return f"{subject} must be {_RANGES[kind]} {bound}{got.rstrip(')')}{span}" + (
            ")" if got else ""
        )
    if kind in ("too_short", "too_long"):
        limit = ctx.get("min_length" if kind == "too_short" else "max_length")
        most = "at least" if kind == "too_short" else "at most"
        have = ctx.get("actual_length")
        if limit is None and len(_numbers(error["msg"])) >= 2:
            limit, have = _numbers(error["msg"])[0], _numbers(error["msg"])[-1]
        if have is None and isinstance(value, (dict, list)):  # a validator that stops early
            have = len(value)
        if limit is None:
            return f"{subject} has too {'few' if kind == 'too_short' else 'many'} items"
        count = f" (it has {have})" if have is not None else ""
        return f"{subject} must have {most} {limit} item{'s' if limit != 1 else ''}{count}"
    if kind in ("string_too_short", "string_too_long"):
        limit = ctx.get("min_length" if kind == "string_too_short" else "max_length")
        most = "at least" if kind == "string_too_short" else "at most"
        return f"{subject} must have {most} {limit} character{'s' if limit != 1 else ''}{got}"
    if kind == "string_pattern_mismatch":
        if due == "text" or not found.annotation:
            pattern = ctx.get("pattern") or error["msg"].partition("pattern ")[2] or "?"
            return f"{subject} should match pattern {pattern}{got}"
        return f"{subject} must be {due}{got}"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"{subject} must be {due}{got}"
    return f"{subject} must be {due}{got}"


_RANGES = {
    "greater_than": "greater than",
    "greater_than_equal": "greater than or equal to",
    "less_than": "less than",
    "less_than_equal": "less than or equal to",
}


def _numbers(text: str) -> list[int]:
    """The whole numbers in a message (a family's re-raised error keeps only its text)."""
    return [int(n) for n in re.findall(r"-?\d+", text)[:4] if len(n) < 20]


__all__ += ["file_stamp", "format_path"]
