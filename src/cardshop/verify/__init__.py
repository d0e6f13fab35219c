"""``cardshop verify``: every reachable state of a small variant, checked.

:func:`verify` searches breadth first from every deal of a variant (every outcome of
every chance event enumerated, not sampled), merges states by the family's canonical
key (:class:`~cardshop.core.VerifyHooks`) and checks each state and step as
:data:`CHECKS` lists. A fault comes with its shortest counterexample: the path from a
deal, as a game record that ``cardshop replay`` replays (its chance outcomes stated)
and the bad state as a position. Budgets of states and seconds stop a search that is
too big, and the report then says to which depth it is exhaustive (docs/verify.md).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from cardshop.core.errors import SetupError, VariantError
from cardshop.core.loader import builtin_variants, load_variant
from cardshop.core.registry import get_family
from cardshop.core.variant import VariantBase
from cardshop.verify._checkpoint import CheckpointError
from cardshop.verify._search import (
    CHECKS,
    Fault,
    Search,
    SearchWorkerLostError,
    fingerprint,
    hooks_of,
)
from cardshop.verify.report import VerifyReport, counterexample, make_report

__all__ = [
    "CHECKS",
    "CheckpointError",
    "Fault",
    "Search",
    "SearchWorkerLostError",
    "VerifyReport",
    "counterexample",
    "fingerprint",
    "make_report",
    "mini_variants",
    "resolve_variant",
    "shrink_variant",
    "verify",
]

_MINI = Path(__file__).resolve().parents[3] / "variants" / "mini"


def _mini_dir() -> Path:
    from importlib import resources

    packaged = resources.files("cardshop") / "_builtin_variants" / "mini"
    if packaged.is_dir():
        return Path(str(packaged)).resolve()
    return _MINI  # a source checkout (editable install): the repository's variants/mini


def mini_variants() -> dict[str, Path]:
    """The small variants that ship for verification (``klunker-mini``, ...), by name."""
    folder = _mini_dir()
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.yaml")) if p.is_file()}


def resolve_variant(ref: VariantBase | str | Path) -> VariantBase:
    """A variant by object, by file, by built-in name or by the name of a mini variant."""
    if isinstance(ref, VariantBase):
        return ref
    minis = mini_variants()
    if isinstance(ref, str) and ref not in builtin_variants() and ref in minis:
        return load_variant(minis[ref])
    try:
        return load_variant(ref)
    except VariantError as exc:
        if isinstance(ref, Path) or ref.endswith((".yaml", ".yml")) or "/" in ref:
            raise
        raise SetupError(f"{exc}; the mini variants are {', '.join(minis)}") from None


def shrink_variant(variant: VariantBase, players: int) -> tuple[VariantBase, tuple[str, ...]]:
    """The family's small variant derived from ``variant`` and what was shrunk."""
    family = get_family(variant.family)
    hooks = hooks_of(family)
    if hooks.shrink is None:
        raise SetupError(
            f"family {family.name!r} cannot shrink a variant (its VerifyHooks give no "
            "shrink): write a small variant by hand (docs/verify.md)"
        )
    return hooks.shrink(variant, players)


def verify(
    variant: VariantBase | str | Path,
    players: int,
    *,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    checks: Collection[str] | None = None,
    max_states: int | None = None,
    max_seconds: float | None = None,
    exact: bool = False,
    keep_going: bool = False,
    bitstate: int = 0,
    shrink: bool = False,
    progress: Callable[[Search], None] | None = None,
) -> VerifyReport:
    """Check every reachable state of ``variant`` at ``players`` players.

    ``checks`` chooses among :data:`CHECKS` (all by default); ``max_states`` and
    ``max_seconds`` bound the search (the report then says how deep it is
    exhaustive); ``exact`` keeps whole state keys instead of 64-bit fingerprints;
    ``keep_going`` goes on past the first fault; ``bitstate`` keeps a table of
    ``2**bitstate`` bits instead of a visited set (less memory, and a stated chance of
    states missed: the report says how many); ``shrink`` verifies the family's
    small variant derived from ``variant`` instead. ``seed`` is only the seed the
    games carry: every chance outcome is enumerated.
    """
    rules = resolve_variant(variant)
    shrunk: tuple[str, ...] = ()
    if shrink:
        rules, shrunk = shrink_variant(rules, players)
    search = Search(
        rules,
        players,
        seed,
        dict(options or {}),
        tuple(CHECKS) if checks is None else tuple(checks),
        exact,
        keep_going,
        bitstate,
    )
    search.run(max_states=max_states, max_seconds=max_seconds, progress=progress)
    return make_report(search, shrunk)
