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
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cardshop.core.errors import VariantError
from cardshop.core.registry import families
from cardshop.core.source import (
    FileStamp,
    Sourced,
    check_reference,
    file_stamp,
    load_yaml,
    merge,
    read_text,
    validation_errors,
)
from cardshop.core.variant import (
    VariantBase,
    variant_schema,
)

__all__ = [
    "MAX_EXTENDS_CHAIN",
    "builtin_variants",
    "check_variant",
    "inspect_variant",
    "load_variant",
    "parse_variant",
    "schema",
    "variant_from_data",
]

MAX_EXTENDS_CHAIN = 8
"""Most files in one ``extends`` chain (the built-ins use 2)."""

NOT_INHERITED = ("title", "description")
"""Keys a variant does not take from the one it extends: they describe one file."""

_SUFFIXES = (".yaml", ".yml", ".json")
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
    if "extends" not in data:
        return sourced
    ref = data["extends"]
    if ref is None:
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
    merged = merge(base, sourced)
    merged.data.pop("extends", None)
    for key_name in NOT_INHERITED:
        if key_name not in data:
            merged.data.pop(key_name, None)
    return merged


def _check(sourced: Sourced) -> tuple[VariantBase | None, list[VariantError]]:
    """The variant, or every problem found in it."""
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
        return None, validation_errors(exc, sourced)
    problems = [sourced.error(reason, path) for path, reason in variant.semantic_errors()]
    return (None, problems) if problems else (variant, [])


def _first(problems: list[VariantError]) -> VariantError:
    """The first problem, saying how many more there are."""
    first = problems[0]
    more = len(problems) - 1
    if not more:
        return first
    reason = f"{first.reason} (and {more} more problem{'s' if more > 1 else ''})"
    return VariantError(reason, source=first.source, path=first.path, location=first.location)


def _checked(sourced: Sourced, folder: Path | None, reading: _Reading) -> VariantBase:
    variant, problems = _check(_read_chain(sourced, folder, (sourced.source,), reading))
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
    return _check(_read_chain(sourced, path.parent, (str(path),), reading))


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
    """Every problem of a variant file (or built-in name); an empty list if it is valid.

    Where :func:`load_variant` stops at the first problem, this lists each one as a
    :class:`~cardshop.VariantError`: every schema error (unknown keys, wrong types,
    values out of bounds) or, once the schema holds, every consistency problem. A file
    that cannot be read or parsed, or whose ``extends`` fails, gives one error.
    """
    return inspect_variant(name_or_path, extends_anywhere=extends_anywhere)[1]


def inspect_variant(
    name_or_path: str | os.PathLike[str], *, extends_anywhere: bool = False
) -> tuple[VariantBase | None, list[VariantError]]:
    """The variant (None if invalid) and every problem: :func:`check_variant` and more."""
    try:
        ref, maybe_name = _reference(name_or_path)
        check_reference(ref)
        if maybe_name:
            builtin = _named_files().get(ref)
            if builtin is not None:
                return _read_path(builtin, str(builtin), _Reading(False))
            if not _is_file(ref):
                raise VariantError(
                    f"unknown variant {ref!r}: not a built-in name ({_known()}) nor a file",
                    source=ref,
                )
        return _read_path(_resolve(ref), ref, _Reading(extends_anywhere))
    except VariantError as exc:
        return None, [exc]


def schema() -> dict[str, Any]:
    """The JSON Schema of variant files of every registered family (``cardshop schema``)."""
    return variant_schema([f.variant_model for f in families().values()])
