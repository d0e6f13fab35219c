"""Finding, reading and validating variant files, for every family of games.

A variant is a YAML mapping. Its ``family`` key names the family of games (there is
no default); the family's registered model (:mod:`cardshop.core.family`) validates it.
``extends`` names a variant whose keys it overrides (the family key included).
Built-in variants ship inside the package and load by name.

The file policy (docs/security.md): only the file the caller names is opened, plus
the files its ``extends`` chain names, and those only if they are built-in names or
files inside the folder of the file that names them (after symlinks are resolved),
unless the caller passes ``extends_anywhere=True``. A variant given as text or data
may extend only built-ins, unless the caller gives a ``base_dir``.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cardshop.core.errors import VariantError
from cardshop.core.registry import families
from cardshop.core.schema import combined_schema
from cardshop.core.source import (
    Change,
    FileStamp,
    Sourced,
    VariantWarning,
    check_reference,
    edit,
    file_stamp,
    find_markers,
    line_order,
    load_yaml,
    read_text,
    validation_errors,
)
from cardshop.core.variant import VariantBase

__all__ = [
    "MAX_EXTENDS_CHAIN",
    "builtin_variants",
    "check_variant",
    "inspect_variant",
    "load_variant",
    "parse_variant",
    "schema",
    "variant_changes",
    "variant_from_data",
    "variant_warnings",
]

MAX_EXTENDS_CHAIN = 8
"""Most files in one ``extends`` chain (the built-ins use 2)."""

NOT_INHERITED = ("title", "description")
"""Keys a variant does not take from the one it extends: they describe one file."""

_SUFFIXES = (".yaml", ".yml", ".json")
_WARNINGS = "_cardshop_load_warnings"
"""Where a loaded variant keeps the warnings of its load (:func:`variant_warnings`)."""
_CACHE_SIZE = 64


@lru_cache(maxsize=1)
def _builtin_dir() -> Path:
    packaged = resources.files("cardshop") / "_builtin_variants"
    if packaged.is_dir():
        return Path(str(packaged)).resolve()
    # Running from a source checkout (editable install): the repository's variants/.
    return Path(__file__).resolve().parents[3] / "variants"


@lru_cache(maxsize=1)
def _builtin_files() -> dict[str, Path]:
    """Built-in name -> its file, listed once per process."""
    folder = _builtin_dir()
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.yaml")) if p.is_file()}


@lru_cache(maxsize=64)
def _family_files(package: str) -> dict[str, Path]:
    """The named variants a family ships: the ``*.yaml`` files of its package."""
    try:
        folder = Path(str(resources.files(package))).resolve()
    except (ImportError, TypeError, ValueError):
        return {}  # the family is broken; `cardshop variants` reports why
    return {p.stem: p for p in sorted(folder.glob("*.yaml")) if p.is_file()}


def _named_files() -> dict[str, Path]:
    """Every named variant and its file: cardshop's own, then those each registered
    family ships (``Family.variants``; a name already taken keeps its first file)."""
    files = dict(_builtin_files())
    for family in families().values():
        if family.variants:
            for name, path in _family_files(family.variants).items():
                files.setdefault(name, path)
    return files


def builtin_variants() -> list[str]:
    """Names of the named variants: those that ship with cardshop and those that the
    registered families ship (``Family.variants``), which ``load_variant(NAME)``,
    positions and every command find by name."""
    return sorted(_named_files())


def _looks_like_path(ref: str) -> bool:
    return ref.endswith(_SUFFIXES) or "/" in ref or "\\" in ref


def _known() -> str:
    return ", ".join(builtin_variants()) or "none"


@dataclass
class _Reading:
    """What one load needs to carry through the ``extends`` chain."""

    extends_anywhere: bool
    stamps: list[FileStamp] = field(default_factory=list)
    warnings: list[VariantWarning] = field(default_factory=list)
    """What ``extends`` edits and the family's ``semantic_warnings`` warn of."""
    changes: list[Change] = field(default_factory=list)
    """Every edit of the files of the chain to their bases (``show --changes``)."""


def _parent_path(
    sourced: Sourced, ref: str, folder: Path | None, reading: _Reading
) -> tuple[Path, str | None]:
    """The file an ``extends`` value names, and the built-in name if it is one."""
    if not _looks_like_path(ref):
        builtin = _named_files().get(ref)
        if builtin is None:
            raise sourced.error(
                f"extends names unknown variant {ref!r} (built-in variants: {_known()})",
                ("extends",),
            )
        return builtin, ref
    try:
        check_reference(ref)
    except VariantError as exc:
        raise sourced.error(f"extends: {exc.reason}", ("extends",)) from None
    target = Path(ref)
    if folder is None and not reading.extends_anywhere:
        raise sourced.error(
            f"extends names the file {ref!r}, but this variant was not read from a file: "
            f"it may extend only built-in variants ({_known()}) unless a base folder is given",
            ("extends",),
        )
    if target.is_absolute() and not reading.extends_anywhere:
        raise sourced.error(
            f"extends names the absolute path {ref!r}; a variant may extend only built-in "
            "variants and files inside its own folder (extends_anywhere=True, or "
            "--extends-anywhere on the command line, lifts this)",
            ("extends",),
        )
    if folder is not None and not target.is_absolute():
        target = folder / target
    try:
        resolved = target.resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # RuntimeError: a symlink loop
        reason = f"extends names {ref!r}, which cannot be resolved: {exc}"
        raise sourced.error(reason, ("extends",)) from None
    if folder is not None and not reading.extends_anywhere and not resolved.is_relative_to(folder):
        raise sourced.error(
            f"extends names {ref!r}, which is outside the folder {str(folder)!r} "
            "(symlinks resolved); a variant may extend only built-in variants and files "
            "inside its own folder (extends_anywhere=True, or --extends-anywhere on the "
            "command line, lifts this)",
            ("extends",),
        )
    return resolved, None


def _read_chain(
    sourced: Sourced, folder: Path | None, seen: tuple[str, ...], reading: _Reading
) -> Sourced:
    """``sourced`` with its ``extends`` chain applied (``folder``: where it was read)."""
    data = sourced.data
    if not isinstance(data, dict):
        raise sourced.error("a variant must be a YAML mapping of keys to values")
    ref = data.get("extends")
    if ref is None:
        marked = find_markers(data)
        if marked is not None:
            raise sourced.error(
                "edit markers ($append, $remove, ...) change a list of the variant this "
                "file extends, and this file extends none: write the list itself",
                marked,
            )
        if "extends" not in data:
            return sourced
        out = dict(data)
        del out["extends"]
        return Sourced(out, sourced.positions, sourced.source, sourced.inherited)
    if not isinstance(ref, str) or not ref:
        raise sourced.error(f"extends must be a variant name or path (got {ref!r})", ("extends",))
    if "name" not in data:
        raise sourced.error(
            "a variant that extends another must give its own name (add a 'name' key)",
            ("name",),
        )
    if len(seen) >= MAX_EXTENDS_CHAIN:
        raise sourced.error(
            f"the extends chain is longer than {MAX_EXTENDS_CHAIN} files", ("extends",)
        )
    path, builtin = _parent_path(sourced, ref, folder, reading)
    key = str(path)
    if key in seen:
        raise sourced.error(f"extends cycle: {' -> '.join((*seen, key))}", ("extends",))
    try:
        text, stamp = read_text(path)
    except VariantError as exc:
        raise sourced.error(f"extends names {ref!r}: {exc.reason}", ("extends",)) from None
    if builtin is None:
        reading.stamps.append(stamp)
    base = _read_chain(load_yaml(text, key), path.parent, (*seen, key), reading)
    if builtin is not None:
        # Errors in what a built-in gives point at the user's `extends` key, not into
        # the installed package.
        at = sourced.positions.get(("extends",))
        positions = dict.fromkeys(base.positions, at) if at is not None else {}
        base = Sourced(base.data, positions, sourced.source, dict.fromkeys(positions, builtin))
    merged, warnings, changes = edit(base, sourced, _list_keys(data, base.data))
    reading.warnings.extend(warnings)
    reading.changes.extend(changes)
    merged.data.pop("extends", None)
    for key_name in NOT_INHERITED:
        if key_name not in data:
            merged.data.pop(key_name, None)
    return merged


def _list_keys(data: dict[str, Any], base: Any) -> Mapping[str, str]:
    """How the family of a file (or of its base) matches list items in ``extends``."""
    family = data.get("family", base.get("family") if isinstance(base, dict) else None)
    found = families().get(family) if isinstance(family, str) else None
    return found.variant_model.LIST_KEYS if found is not None else {}


def _check(
    sourced: Sourced, reading: _Reading | None = None
) -> tuple[VariantBase | None, list[VariantError]]:
    """The variant, or every problem found in it (in line order). The family's
    ``semantic_warnings`` of a valid variant join ``reading.warnings``; the variant
    keeps every warning of its load (:func:`variant_warnings`)."""
    data: Any = sourced.data
    known = families()
    names = ", ".join(known) or "none"
    if not isinstance(data, dict) or "family" not in data:
        err = sourced.error(f"a variant names its family (family: one of {names})", ("family",))
        return None, [err]
    family = data["family"]
    found = known.get(family) if isinstance(family, str) else None
    if found is None:
        err = sourced.error(f"unknown family {family!r}; known families: {names}", ("family",))
        return None, [err]
    model = found.variant_model
    try:
        variant = model.model_validate(data)
    except ValidationError as exc:
        return None, sorted(validation_errors(exc, sourced, model), key=line_order)
    problems = [sourced.error(reason, path) for path, reason in variant.semantic_errors()]
    if problems:
        return None, sorted(problems, key=line_order)
    warnings = reading.warnings if reading is not None else []
    warnings.extend(sourced.warning(reason, path) for path, reason in variant.semantic_warnings())
    warnings.sort(key=line_order)
    variant.__dict__[_WARNINGS] = tuple(warnings)
    return variant, []


def _first(problems: list[VariantError]) -> VariantError:
    """The first problem, saying how many more there are."""
    first = problems[0]
    more = len(problems) - 1
    if not more:
        return first
    reason = f"{first.reason} (and {more} more problem{'s' if more > 1 else ''})"
    return VariantError(reason, source=first.source, path=first.path, location=first.location)


def _checked(sourced: Sourced, folder: Path | None, reading: _Reading) -> VariantBase:
    variant, problems = _check(_read_chain(sourced, folder, (sourced.source,), reading), reading)
    if variant is None:
        raise _first(problems)
    return variant


def _folder(base_dir: str | os.PathLike[str] | None) -> Path | None:
    if base_dir is None:
        return None
    check_reference(os.fspath(base_dir))
    try:
        return Path(base_dir).resolve()
    except (OSError, RuntimeError, ValueError) as exc:
        raise VariantError(f"base_dir cannot be resolved: {exc}", source=str(base_dir)) from None


def parse_variant(
    text: str,
    *,
    source: str = "<string>",
    base_dir: str | os.PathLike[str] | None = None,
    extends_anywhere: bool = False,
) -> VariantBase:
    """Validate a variant from YAML text.

    ``extends`` may name a built-in variant; it may name a file only if ``base_dir``
    is given (files inside that folder, unless ``extends_anywhere``).
    """
    reading = _Reading(extends_anywhere)
    return _checked(load_yaml(text, source), _folder(base_dir), reading)


def variant_from_data(
    data: dict[str, Any],
    *,
    source: str = "<data>",
    base_dir: str | os.PathLike[str] | None = None,
    extends_anywhere: bool = False,
) -> VariantBase:
    """Validate a variant given as plain data (e.g. the JSON of a game record).

    Keys of per-player-count tables may be integers or strings of digits (JSON has
    only string keys). ``extends`` follows the same policy as :func:`parse_variant`.
    """
    if not isinstance(data, dict):
        raise VariantError(
            f"a variant must be a mapping (got {type(data).__name__})", source=source
        )
    reading = _Reading(extends_anywhere)
    return _checked(Sourced(data, {}, source), _folder(base_dir), reading)


# ----------------------------------------------------------------- files, cached

_BUILTINS: dict[str, VariantBase] = {}
"""Built-in variants loaded so far, by name: read once per process."""
_FILES: OrderedDict[tuple[str, bool], tuple[tuple[FileStamp, ...], VariantBase]] = OrderedDict()
"""(resolved path, extends_anywhere) -> stamps of every user file of its chain, variant."""
_FILES_LOCK = threading.Lock()


def _read_path(
    path: Path, name: str, reading: _Reading
) -> tuple[VariantBase | None, list[VariantError]]:
    text, stamp = read_text(path, name)
    reading.stamps.append(stamp)
    sourced = load_yaml(text, name)
    return _check(_read_chain(sourced, path.parent, (str(path),), reading), reading)


def _resolve(ref: str) -> Path:
    try:
        return Path(ref).resolve()
    except (OSError, RuntimeError, ValueError) as exc:
        raise VariantError(f"cannot read file: {exc}", source=ref) from None


def _reference(name_or_path: object) -> tuple[str, bool]:
    """The reference as text, and whether it may be a built-in name."""
    if isinstance(name_or_path, str):
        return name_or_path, not _looks_like_path(name_or_path)
    if isinstance(name_or_path, os.PathLike):
        ref = os.fspath(name_or_path)
        if isinstance(ref, str):
            return ref, False
    raise VariantError(
        "a variant is a built-in name, a path to a YAML file or a Variant "
        f"(got {type(name_or_path).__name__})",
        source=repr(name_or_path)[:80],
    )


def load_variant(
    name_or_path: str | os.PathLike[str] | VariantBase, *, extends_anywhere: bool = False
) -> VariantBase:
    """Load a variant by built-in name (``"klunker-en"``) or by path to a YAML file.

    Raises :class:`~cardshop.VariantError` naming the file, line, column and key of
    the first problem (:func:`check_variant` lists them all). Built-in variants are
    read once per process; files are cached until one file of their ``extends``
    chain changes on disk.

    ``extends`` in a file may name a built-in variant or a file inside the folder of
    the file that names it; ``extends_anywhere=True`` lets it name any file (do this
    only for files you trust). See docs/security.md.
    """
    if isinstance(name_or_path, VariantBase):
        return name_or_path
    if isinstance(name_or_path, str):
        cached = _BUILTINS.get(name_or_path)
        if cached is not None:  # the hot path of new_game("klunker-en"): no file work
            return cached
    ref, maybe_name = _reference(name_or_path)
    check_reference(ref)
    if maybe_name:
        builtin = _named_files().get(ref)
        if builtin is not None:
            variant = _load_file(builtin, str(builtin), extends_anywhere=False)
            _BUILTINS[ref] = variant
            return variant
        if not _is_file(ref):
            raise VariantError(
                f"unknown variant {ref!r}: not a built-in name ({_known()}) nor a file",
                source=ref,
            )
    return _load_file(_resolve(ref), ref, extends_anywhere=extends_anywhere)


def _is_file(ref: str) -> bool:
    try:
        return os.path.lexists(ref)
    except (OSError, ValueError):  # pragma: no cover - lexists swallows OSError
        return False


def _load_file(path: Path, name: str, *, extends_anywhere: bool) -> VariantBase:
    key = (str(path), extends_anywhere)
    entry = _FILES.get(key)
    if entry is not None:
        stamps, variant = entry
        if all(file_stamp(s[0]) == s for s in stamps):
            return variant
    reading = _Reading(extends_anywhere)
    loaded, problems = _read_path(path, name, reading)
    if loaded is None:
        raise _first(problems)
    with _FILES_LOCK:
        _FILES[key] = (tuple(reading.stamps), loaded)
        _FILES.move_to_end(key)
        while len(_FILES) > _CACHE_SIZE:
            _FILES.popitem(last=False)
    return loaded


def check_variant(
    name_or_path: str | os.PathLike[str], *, extends_anywhere: bool = False
) -> list[VariantError]:
    """Every error of a variant file (or built-in name); an empty list if it is valid.

    Where :func:`load_variant` stops at the first problem, this lists each one as a
    :class:`~cardshop.VariantError`, in line order: every schema error (unknown keys,
    wrong types, values out of bounds) or, once the schema holds, every consistency
    problem. A file that cannot be read or parsed, or whose ``extends`` fails, gives
    one error. Warnings are not errors: :func:`inspect_variant` lists them too.
    """
    problems = inspect_variant(name_or_path, extends_anywhere=extends_anywhere)[1]
    return [p for p in problems if not isinstance(p, VariantWarning)]


def inspect_variant(
    name_or_path: str | os.PathLike[str], *, extends_anywhere: bool = False
) -> tuple[VariantBase | None, list[VariantError]]:
    """The variant (None if invalid) and every problem, errors and warnings, in line
    order (file, line, column): what ``cardshop validate`` prints.

    A warning is a :class:`~cardshop.VariantWarning` (a subclass of
    :class:`~cardshop.VariantError` whose message says ``warning``): the variant plays, but
    maybe not as written (an inherited list replaced, an empty mapping over a base's
    entries, a setting the family's ``semantic_warnings`` finds without effect). Tell
    them apart with ``isinstance(problem, VariantWarning)``.
    """
    variant, errors, reading = _inspect(name_or_path, extends_anywhere)
    return variant, sorted([*errors, *reading.warnings], key=line_order)


def _inspect(
    name_or_path: str | os.PathLike[str], extends_anywhere: bool
) -> tuple[VariantBase | None, list[VariantError], _Reading]:
    reading = _Reading(extends_anywhere)
    try:
        ref, maybe_name = _reference(name_or_path)
        check_reference(ref)
        if maybe_name:
            builtin = _named_files().get(ref)
            if builtin is not None:
                reading.extends_anywhere = False
                return (*_read_path(builtin, str(builtin), reading), reading)
            if not _is_file(ref):
                raise VariantError(
                    f"unknown variant {ref!r}: not a built-in name ({_known()}) nor a file",
                    source=ref,
                )
        return (*_read_path(_resolve(ref), ref, reading), reading)
    except VariantError as exc:
        return None, [exc], reading


def variant_warnings(
    variant: str | os.PathLike[str] | VariantBase, *, extends_anywhere: bool = False
) -> list[VariantWarning]:
    """The warnings of a variant, in line order: what its ``extends`` edits warn of
    (an inherited list replaced by a plain list, an empty mapping that keeps the
    base's entries) and its family's ``semantic_warnings`` (settings without effect).

    ``variant`` is a built-in name, a file (loaded as :func:`load_variant` does, so an
    invalid file raises its :class:`~cardshop.VariantError`) or a loaded variant (the
    warnings of its load; a variant built otherwise has only its semantic warnings,
    without a line).
    """
    loaded = load_variant(variant, extends_anywhere=extends_anywhere)
    kept = loaded.__dict__.get(_WARNINGS)
    if isinstance(kept, tuple):
        return list(kept)
    source = loaded.name
    return [
        VariantWarning(reason, source=source, path=path)
        for path, reason in loaded.semantic_warnings()
    ]


def variant_changes(
    name_or_path: str | os.PathLike[str], *, extends_anywhere: bool = False
) -> list[Change]:
    """What a file that ``extends`` another changes in its base (``cardshop show
    --changes``): every key set, added or deleted and every list replaced or edited by
    a marker, with its file and line, in the order of the chain's files (the base's
    edits first). Empty for a file without ``extends``. Raises the first
    :class:`~cardshop.VariantError` of an invalid file."""
    variant, errors, reading = _inspect(name_or_path, extends_anywhere)
    if variant is None:
        raise _first(sorted(errors, key=line_order))
    return list(reading.changes)


def schema() -> dict[str, Any]:
    """The JSON Schema of variant files of every registered family (``cardshop schema``),
    its branch picked by ``family`` (:func:`cardshop.core.schema.combined_schema`)."""
    return combined_schema()
