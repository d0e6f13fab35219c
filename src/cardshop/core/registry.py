"""The registry of families: where tools find a family by name.

Families register through the Python entry point group ``cardshop.families`` (the
built-in ones the same way a third party's would)::

    [project.entry-points."cardshop.families"]
    mygame = "mygame_package:FAMILY"

and, for tests and notebooks, at run time with :func:`register_family`. Entry points
are read on first use.
"""

from __future__ import annotations

import threading
from importlib.metadata import entry_points

from cardshop.core.errors import SetupError
from cardshop.core.family import Family

__all__ = [
    "ENTRY_POINT_GROUP",
    "families",
    "get_family",
    "register_family",
    "unregister_family",
]

ENTRY_POINT_GROUP = "cardshop.families"


_lock = threading.Lock()
_registered: dict[str, Family] = {}
_loaded = False


def _load_entry_points() -> None:
    global _loaded
    with _lock:
        if _loaded:
            return
        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            if ep.name in _registered:
                continue
            family = ep.load()
            if not isinstance(family, Family):
                raise SetupError(
                    f"entry point {ep.name!r} of group {ENTRY_POINT_GROUP!r} names "
                    f"{ep.value!r}, which is not a cardshop Family"
                )
            _registered[family.name] = family
        _loaded = True


def families() -> dict[str, Family]:
    """Every registered family by name (entry points are read on first use)."""
    _load_entry_points()
    return dict(sorted(_registered.items()))


def get_family(name: str) -> Family:
    """The family called ``name``; :class:`~cardshop.SetupError` if none is registered."""
    _load_entry_points()
    try:
        return _registered[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(_registered)) or "none"
        raise SetupError(f"unknown family {name!r}; known families: {known}") from None


def register_family(family: Family, *, replace: bool = False) -> None:
    """Add a family at run time (tests, notebooks); entry points are the usual way."""
    _load_entry_points()
    with _lock:
        if family.name in _registered and not replace:
            raise SetupError(f"a family called {family.name!r} is already registered")
        _registered[family.name] = family


def unregister_family(name: str) -> None:
    """Remove a family registered at run time (a no-op for unknown names)."""
    with _lock:
        _registered.pop(name, None)
