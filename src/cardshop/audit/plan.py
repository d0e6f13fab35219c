"""Planning an audit: the variant resolved once, every option checked, defaults taken."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from cardshop.audit.errors import AuditError
from cardshop.audit.games import audit_bots
from cardshop.core.chance import MASTER_SEED_LIMIT, check_seed
from cardshop.core.errors import SetupError
from cardshop.core.family import CAP_POLICIES
from cardshop.core.frontdoor import Resolved, resolve
from cardshop.core.variant import VariantBase
from cardshop.measures import MAX_GAMES, MAX_REPLAYS

__all__ = ["AuditPlan", "check_size", "plan_audit"]


@dataclass(frozen=True, slots=True)
class AuditPlan:
    """What an audit will do, every option checked and every default taken."""

    subject: Resolved
    counts: tuple[int, ...]
    """The player counts, in order."""
    games: int
    """Simulated games per player count."""
    examples: int
    check_every: int
    cap_policy: str
    max_cap_share: float
    bots: tuple[str, ...]
    """The bots' names, one per seat in turn."""
    seed: int
    workers: int
    taken: tuple[str, ...] = ()
    """The options that took the family's audit defaults."""
    replays: int = 1
    """How many times each simulated game's deal is played (1: once; more adds the luck
    measures, docs/measures.md)."""
    graded: tuple[str, ...] = ()
    """The rungs of the graded ladder played per player count, weakest first (empty:
    none; docs/auditing.md)."""
    check_games: int | None = None
    """How many of a player count's simulated games (the first ones) are played in
    debug mode, every invariant checked; the others are played and measured only
    (``None``: every game is checked)."""

    def with_games(self, games: int, examples: int | None = None) -> AuditPlan:
        """The same audit with another number of games (and state machine examples)."""
        more = self.examples if examples is None else examples
        return dataclasses.replace(self, games=games, examples=more)


def plan_audit(
    variant: VariantBase | str | Path | Resolved,
    *,
    games: int | None = None,
    players: Collection[int] | None = None,
    seed: int = 0,
    examples: int = 50,
    check_every: int | None = None,
    max_cap_share: float | None = None,
    bots: str | Sequence[str] | None = None,
    cap_policy: str | None = None,
    workers: int | None = 1,
    replays: int = 1,
    graded: str | Sequence[str] | None = None,
    check_games: int | str | None = None,
) -> AuditPlan:
    """The plan of :func:`run_audit` with these options (see there); options left at
    ``None`` take the family's audit defaults. Raises :class:`AuditError` (or the
    core's :class:`~cardshop.SetupError`) before anything is played."""
    subject = resolve(variant)
    seed = check_seed(seed, "seed", MASTER_SEED_LIMIT)  # an int, never a bool
    defaults = subject.family.audit
    taken = tuple(
        name
        for name, value in (
            ("bots", bots),
            ("games", games),
            ("check_every", check_every),
            ("cap_policy", cap_policy),
            ("check_games", check_games),
        )
        if value is None
    )
    plan = AuditPlan(
        subject=subject,
        counts=_player_counts(subject.variant, players),
        games=defaults.games if games is None else games,
        examples=examples,
        check_every=defaults.check_every if check_every is None else check_every,
        cap_policy=defaults.cap_policy if cap_policy is None else cap_policy,
        max_cap_share=defaults.max_cap_share if max_cap_share is None else max_cap_share,
        bots=_bot_names(list(defaults.bots) if bots is None else bots),
        seed=seed,
        workers=(os.cpu_count() or 1) if workers is None else workers,
        taken=taken,
        replays=replays,
        graded=_graded_rungs(subject.variant, graded),
        check_games=defaults.check_games if check_games is None else _checked(check_games),
    )
    _check(plan)
    return plan


def _graded_rungs(variant: VariantBase, graded: str | Sequence[str] | None) -> tuple[str, ...]:
    """The graded ladder's rungs, checked (``default``: the ladder's default rungs)."""
    if graded is None:
        return ()
    from cardshop.ladder.depth import check_rungs, default_rungs

    if isinstance(graded, str) and graded.strip() == "default":
        graded = default_rungs(variant)
    return tuple(check_rungs(variant, graded))


def _checked(check_games: int | str) -> int | None:
    """The games of a player count to check: a whole number 0 or more, or ``"all"``
    (every game: ``None``)."""
    if isinstance(check_games, str) and check_games.strip().lower() == "all":
        return None
    if type(check_games) is not int or check_games < 0:
        raise AuditError(
            f"check_games is a whole number 0 or more, or 'all' (every game is "
            f"checked), not {str(check_games)[:40]!r}"
        )
    return check_games


def _bot_names(bots: str | Sequence[str]) -> tuple[str, ...]:
    """One name per seat in turn, from a name, comma-separated names or a list of them."""
    given = [bots] if isinstance(bots, str) else list(bots)
    names = tuple(n.strip() for name in given for n in str(name).split(",") if n.strip())
    if not names:
        raise AuditError("name at least one bot")
    return names


def _player_counts(variant: VariantBase, players: Collection[int] | None) -> tuple[int, ...]:
    low, high = variant.players.min, variant.players.max
    counts = tuple(sorted(set(players))) if players else tuple(range(low, high + 1))
    bad = [n for n in counts if not low <= n <= high]
    if bad:
        raise SetupError(
            f"{variant.name} is played by {low} to {high} players, not {', '.join(map(str, bad))}"
        )
    return counts


def _check(plan: AuditPlan) -> None:
    """Refuse a plan that cannot run, before anything is played."""
    games, examples, every, share = plan.games, plan.examples, plan.check_every, plan.max_cap_share
    if games < 0 or examples < 0 or every < 1 or not 0 <= share <= 1:
        raise AuditError(
            "games and examples must be 0 or more, check_every 1 or more, and "
            f"max_cap_share within 0..1 (got {games}, {examples}, {every}, {share})"
        )
    if plan.cap_policy not in CAP_POLICIES:
        raise AuditError(
            f"the cap policy is one of {', '.join(CAP_POLICIES)}, not {str(plan.cap_policy)[:60]!r}"
        )
    replays = plan.replays
    if type(replays) is not int or not 1 <= replays <= MAX_REPLAYS:
        raise AuditError(
            f"replays must be a whole number 1..{MAX_REPLAYS} (the times each deal is "
            f"played; 2 or more adds the luck measures), not {str(replays)[:40]}"
        )
    if not isinstance(plan.workers, int) or plan.workers < 1:
        raise AuditError(f"workers must be at least 1, not {plan.workers!r}")
    audit_bots(plan.bots, plan.subject, plan.seed, len(plan.bots), -1)  # unknown: an error


def check_size(plan: AuditPlan) -> None:
    """Refuse to play more games than a saved-games file may hold (checked when the
    games are played: an audit to a precision takes ``games`` as its cap)."""
    if plan.games * plan.replays * len(plan.counts) > MAX_GAMES:
        times = f", each played {plan.replays} times," if plan.replays > 1 else ""
        raise AuditError(
            f"an audit plays at most {MAX_GAMES:,} games in all: {plan.games:,} games{times} "
            f"for each of {len(plan.counts)} player counts is more"
        )
