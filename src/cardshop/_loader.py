"""Finding, reading and validating variant files, for every family of games.

A variant is a YAML mapping. Its ``family`` key (default ``klunker``) picks the
pydantic model that validates it; ``extends`` names a variant whose keys it
overrides. Built-in variants ship inside the package and load by name.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cardshop._errors import VariantError
from cardshop._source import Sourced, load_yaml, merge, raise_validation_error, read_file
from cardshop.klunker.variant import Variant

__all__ = ["builtin_variants", "load_variant", "parse_variant", "variant_from_data"]

FAMILIES: dict[str, type[Variant]] = {"klunker": Variant}
"""Family name -> the pydantic model of its variants. A new family registers here."""

_SUFFIXES = (".yaml", ".yml")


def _builtin_dir() -> Path:
    packaged = resources.files("cardshop") / "_builtin_variants"
    if packaged.is_dir():
        return Path(str(packaged))
    # Running from a source checkout (editable install): the repository's variants/.
    return Path(__file__).resolve().parents[2] / "variants"


def builtin_variants() -> list[str]:
    """Names of the variants that ship with cardshop."""
    folder = _builtin_dir()
    return sorted(p.stem for p in folder.glob("*.yaml")) if folder.is_dir() else []


def _looks_like_path(ref: str) -> bool:
    return ref.endswith(_SUFFIXES) or "/" in ref or "\\" in ref


def _resolve_ref(ref: str, relative_to: Path | None) -> Path | None:
    """The file a variant reference names: a path, or a built-in name (None if unknown)."""
    if _looks_like_path(ref):
        p = Path(ref)
        if not p.is_absolute() and relative_to is not None:
            p = relative_to / p
        return p
    builtin = _builtin_dir() / f"{ref}.yaml"
    return builtin if builtin.is_file() else None


def _read_chain(sourced: Sourced, base_dir: Path | None, seen: tuple[str, ...]) -> Sourced:
    data = sourced.data
    if not isinstance(data, dict):
        raise sourced.error("a variant file must be a YAML mapping of keys to values")
    parent = data.get("extends")
    if parent is None:
        return sourced
    if not isinstance(parent, str):
        raise sourced.error(
            f"extends must be a variant name or path (got {parent!r})", ("extends",)
        )
    path = _resolve_ref(parent, base_dir)
    if path is None:
        known = ", ".join(builtin_variants()) or "none"
        raise sourced.error(
            f"extends names unknown variant {parent!r} (built-in variants: {known})",
            ("extends",),
        )
    key = str(path.resolve())
    if key in seen:
        raise sourced.error(f"extends cycle: {' -> '.join((*seen, key))}", ("extends",))
    if not path.is_file():
        raise sourced.error(f"extends names a missing file {str(path)!r}", ("extends",))
    base = _read_chain(read_file(path), path.parent, (*seen, key))
    merged = merge(base, sourced)
    merged.data.pop("extends", None)
    return merged


def _validate(sourced: Sourced) -> Variant:
    data: Any = sourced.data
    family = data.get("family", "klunker") if isinstance(data, dict) else "klunker"
    model = FAMILIES.get(family) if isinstance(family, str) else None
    if model is None:
        raise sourced.error(
            f"unknown family {family!r}; known families: {', '.join(FAMILIES)}", ("family",)
        )
    try:
        variant = model.model_validate(data)
    except ValidationError as exc:
        raise raise_validation_error(exc, sourced) from None
    problems = variant.semantic_errors()
    if problems:
        path, reason = problems[0]
        raise sourced.error(reason, path)
    return variant


def parse_variant(text: str, *, source: str = "<string>", base_dir: Path | None = None) -> Variant:
    """Validate a variant from YAML text (``extends`` resolves relative to ``base_dir``)."""
    sourced = load_yaml(text, source)
    return _validate(_read_chain(sourced, base_dir, (source,)))


def variant_from_data(data: dict[str, Any], *, source: str = "<data>") -> Variant:
    """Validate a resolved variant given as plain data (e.g. from a JSON game record)."""
    family = data.get("family", "klunker")
    model = FAMILIES.get(family) if isinstance(family, str) else None
    if model is None:
        raise VariantError(f"unknown family {family!r}", source=source, path=("family",))
    try:
        variant = model.model_validate(data, strict=False)
    except ValidationError as exc:
        raise raise_validation_error(exc, Sourced(data, {}, source)) from None
    problems = variant.semantic_errors()
    if problems:
        path, reason = problems[0]
        raise VariantError(reason, source=source, path=path)
    return variant


@lru_cache(maxsize=64)
def _load_path(resolved: str, mtime_ns: int) -> Variant:
    path = Path(resolved)
    sourced = read_file(path)
    return _validate(_read_chain(sourced, path.parent, (resolved,)))


def load_variant(name_or_path: str | Path | Variant) -> Variant:
    """Load a variant by built-in name (``"klunker-en"``) or by path to a YAML file.

    Raises :class:`~cardshop.VariantError` naming the file, line, column and key of
    the first problem. Loaded files are cached until they change on disk.
    """
    if isinstance(name_or_path, Variant):
        return name_or_path
    ref = str(name_or_path)
    path = Path(ref) if isinstance(name_or_path, Path) or _looks_like_path(ref) else None
    if path is None:
        path = _resolve_ref(ref, None)
        if path is None:
            if Path(ref).is_file():
                path = Path(ref)
            else:
                known = ", ".join(builtin_variants()) or "none"
                raise VariantError(
                    f"unknown variant {ref!r}: not a built-in name ({known}) nor a file",
                    source=ref,
                )
    try:
        stat = path.stat()
    except OSError:
        raise VariantError("file not found", source=str(path)) from None
    return _load_path(str(path.resolve()), stat.st_mtime_ns)
