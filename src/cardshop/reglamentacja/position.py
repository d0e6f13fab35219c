"""Positions: a readable form of any legal Reglamentacja state (see the rules digest).

A position names stamps by kind and shopping and visit cards by name. Stamp
identities are assigned when a position is loaded (the lowest ids of a kind go to
the first zone listed: hands in seat order, the discard pile, then the stack), so a
position round-trips by kinds, not by stamp ids. Anything left out is filled in:
stamps and shopping cards not placed anywhere form the stacks (shuffled with the
position's seed), seats without a visit card get the unused ones in the variant's
order, and a missing queue is the seats in order with the speculator last.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cardshop.core import (
    PositionCounter,
    PositionError,
    PositionSeed,
    PositionVariant,
    derive_rng,
    position_kind,
    position_setup,
    shuffle,
)

if TYPE_CHECKING:
    from cardshop.core import VariantBase
    from cardshop.reglamentacja.game import ReglamentacjaGame

__all__ = ["PositionModel", "SeatModel", "game_from_position", "position_of"]

Count = Annotated[int, Field(ge=0, le=1000)]
Name = Annotated[str, Field(max_length=60)]
Kinds = Annotated[dict[Name, Count], Field(max_length=20)]
Names = Annotated[list[Name], Field(max_length=200)]
Pawn = int | Literal["S"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


class SeatModel(_Model):
    """One seat: its stamps by kind, its visit card and its bought cards (in order)."""

    hand: Kinds = Field(default_factory=dict)
    visit: Name | None = None
    bought: Names = Field(default_factory=list)


class PositionModel(_Model):
    """A Reglamentacja position; the digest's Positions section explains each key."""

    family: Literal["reglamentacja"] | None = None
    variant: PositionVariant = None
    players: Annotated[int, Field(ge=1, le=12)] | None = None
    seed: PositionSeed = 0
    chance: PositionCounter = 0
    turn: Annotated[int, Field(ge=1, le=100_000)] = 1
    phase: Literal["trade", "discard", "shop", "final-trade", "final-shop", "over"] = "trade"
    termination: Literal["finished", "capped"] | None = None
    active: Annotated[int, Field(ge=0, le=11)] = 0
    queue: Annotated[list[Pawn], Field(max_length=13)] | None = None
    seats: Annotated[list[SeatModel], Field(min_length=1, max_length=12)]
    row: Names | None = None
    shop_stack: Names | None = None
    removed: Names = Field(default_factory=list)
    stamp_stack: Names | None = None
    discard: Kinds = Field(default_factory=dict)
    spin: Annotated[int, Field(ge=1, le=100)] | None = None
    offer_turns: Annotated[int, Field(ge=0, le=100)] = 0
    pending: Annotated[str, Field(max_length=300)] | None = None
    final_buyers: Annotated[int, Field(ge=0, le=12)] = 0
    stats: Annotated[dict[Name, PositionCounter], Field(max_length=20)] = Field(
        default_factory=dict
    )


def game_from_position(
    cls: type[ReglamentacjaGame],
    position: Mapping[str, Any] | str,
    variant: VariantBase | str | None,
) -> ReglamentacjaGame:
    """Build a game from a position, rejecting any inconsistency with a PositionError."""
    from cardshop.reglamentacja.game import PHASES, SPECULATOR, STATS
    from cardshop.reglamentacja.serial import set_pending, state_problems
    from cardshop.reglamentacja.variant import ReglamentacjaVariant

    pos, var, n = position_setup(position, PositionModel, variant, ReglamentacjaVariant)
    rules = var.rules_for(n)
    if pos.active >= n:
        raise PositionError(f"active is {pos.active}, but seats are 0..{n - 1}")
    final = pos.phase.startswith("final") or pos.phase == "over"
    cap = rules.turn_cap + (1 if final else 0)  # the final turn counts as one [RG-CAP-1]
    if pos.turn > cap:
        raise PositionError(
            f"turn is {pos.turn}, beyond the variant's turn_cap of {rules.turn_cap}"
            + (" and its final turn" if final else "")
        )
    g = cls._empty(var, n, pos.seed)
    g._chance = pos.chance
    g._turn = pos.turn
    g._phase = PHASES.index(pos.phase)
    g._active = pos.active
    final = pos.phase in ("final-trade", "final-shop")

    # Stamps by kind, zone by zone; ids of a kind in zone order.
    def kind(name: str, where: str) -> int:
        return position_kind(rules.kind_index, name, where, "stamp kind")

    left = [rules.kind_start[i + 1] - rules.kind_start[i] for i in range(rules.k)]
    nxt = list(rules.kind_start[:-1])
    swhere = [-1] * rules.n_stamps

    def place(i: int, zone: int, where: str) -> int:
        if left[i] <= 0:
            raise PositionError(f"{where}: more {rules.kinds[i]} stamps than the variant has")
        left[i] -= 1
        sid = nxt[i]
        nxt[i] += 1
        swhere[sid] = zone
        return sid

    for s, seat in enumerate(pos.seats):
        for name, c in seat.hand.items():
            i = kind(name, f"seats[{s}].hand")
            for _ in range(c):
                place(i, s, f"seats[{s}].hand")
    for name, c in pos.discard.items():
        i = kind(name, "discard")
        for _ in range(c):
            place(i, n + 1, "discard")
    stack: list[int] = []
    if pos.stamp_stack is not None:
        for j, name in enumerate(pos.stamp_stack):
            stack.append(place(kind(name, f"stamp_stack[{j}]"), n, f"stamp_stack[{j}]"))
        stack.reverse()  # positions list the top first; the engine keeps it last
        if sum(left):
            raise PositionError(
                f"{sum(left)} stamps are in no zone; list them or leave out stamp_stack"
            )
    else:
        rest = [place(i, n, "stamp_stack") for i in range(rules.k) for _ in range(left[i])]
        shuffle(derive_rng(pos.seed, "position-stamps"), rest)
        stack = rest
    g._swhere = swhere
    g._stack = stack
    g._rebuild_counts()

    # Shopping cards by name.
    used: set[int] = set()

    def card(name: str, where: str) -> int:
        c = rules.card_index.get(name)
        if c is None:
            raise PositionError(f"{where}: unknown shopping card {name!r}")
        if c in used:
            raise PositionError(f"{where}: the card {name!r} is listed twice")
        used.add(c)
        return c

    for s, seat in enumerate(pos.seats):
        g._bought[s] = [card(name, f"seats[{s}].bought") for name in seat.bought]
    g._removed = [card(name, f"removed[{j}]") for j, name in enumerate(pos.removed)]
    row = [card(name, f"row[{j}]") for j, name in enumerate(pos.row or [])]
    if pos.shop_stack is not None:
        cstack = [card(name, f"shop_stack[{j}]") for j, name in enumerate(pos.shop_stack)]
        cstack.reverse()
        if len(used) != rules.n_cards:
            raise PositionError(
                f"{rules.n_cards - len(used)} shopping cards are in no zone; "
                "list them or leave out shop_stack"
            )
    else:
        cstack = [c for c in range(rules.n_cards) if c not in used]
        shuffle(derive_rng(pos.seed, "position-cards"), cstack)
    if pos.row is None:
        while len(row) < rules.row_size and cstack:
            row.append(cstack.pop())
    g._row, g._cstack = row, cstack

    # Visit cards by name.
    removed_visits = set(rules.meal_visits) if n == 3 and rules.without_meal_visits else set()
    taken: set[int] = set()
    for s, seat in enumerate(pos.seats):
        if seat.visit is None:
            continue
        v = rules.visit_index.get(seat.visit)
        if v is None:
            raise PositionError(f"seats[{s}].visit: unknown visit card {seat.visit!r}")
        if v in taken:
            raise PositionError(f"seats[{s}].visit: {seat.visit!r} is dealt twice")
        taken.add(v)
        g._visit[s] = v
    free = [v for v in range(rules.n_visits) if v not in taken and v not in removed_visits]
    for s in range(n):
        if g._visit[s] < 0:
            if not free:
                raise PositionError(f"no visit card is left for seat {s}")
            g._visit[s] = free.pop(0)
    g._box = sorted(set(range(rules.n_visits)) - set(g._visit))

    # Queue, offers, phase details.
    if pos.queue is None:
        has_spec = rules.has_speculator and not final and pos.phase != "over"
        g._queue = list(range(n)) + ([SPECULATOR] if has_spec else [])
    else:
        queue: list[int] = []
        for p in pos.queue:
            if p == "S":
                queue.append(SPECULATOR)
            elif isinstance(p, int) and 0 <= p < n:
                queue.append(p)
            else:
                raise PositionError(f"queue: {p!r} is neither a seat 0..{n - 1} nor 'S'")
        g._queue = queue
    if pos.phase in ("trade", "final-trade"):
        g._spin = pos.spin if pos.spin is not None else max(rules.spin_max, pos.offer_turns + 1)
        g._done = pos.offer_turns
    elif pos.spin is not None or pos.offer_turns or pos.pending is not None:
        raise PositionError("spin, offer_turns and pending belong to the trade phases")
    g._fs = pos.final_buyers
    if pos.final_buyers and pos.phase != "final-shop":
        raise PositionError("final_buyers belongs to the final-shop phase")
    if pos.phase == "over":
        if pos.termination is None:
            raise PositionError("an 'over' position needs termination: finished or capped")
        g._termination = 1 if pos.termination == "finished" else 2
    elif pos.termination is not None:
        raise PositionError("termination belongs to the 'over' phase")
    for name, value in pos.stats.items():
        if name not in STATS:
            raise PositionError(f"stats: unknown counter {name!r}; counters are {', '.join(STATS)}")
        g._stats[STATS.index(name)] = value
    if pos.pending is not None:
        set_pending(g, pos.pending)
    problems = state_problems(g)
    if problems:
        raise PositionError("the position is not a legal state: " + "; ".join(problems[:5]))
    return g


def _kinds(names: tuple[str, ...], counts: list[int] | tuple[int, ...]) -> dict[str, int]:
    return {name: c for name, c in zip(names, counts, strict=True) if c}


def position_of(game: ReglamentacjaGame) -> dict[str, Any]:
    """The game as a position: every zone written out, stacks top first."""
    from cardshop.reglamentacja.game import PHASES, SPECULATOR, STATS

    rules = game.rules
    n = game.n
    k = rules.k
    names = rules.card_names
    kinds = rules.kinds
    pos: dict[str, Any] = {
        "family": "reglamentacja",
        "variant": rules.name,
        "players": n,
        "seed": game.seed,
        "chance": game._chance,
        "turn": game._turn,
        "phase": PHASES[game._phase],
        "active": game._active,
        "queue": ["S" if p == SPECULATOR else p for p in game._queue],
        "seats": [
            {
                "hand": _kinds(kinds, game._hand[s * k : s * k + k]),
                "visit": rules.visit_names[game._visit[s]],
                "bought": [names[c] for c in game._bought[s]],
            }
            for s in range(n)
        ],
        "row": [names[c] for c in game._row],
        "shop_stack": [names[c] for c in reversed(game._cstack)],
        "removed": [names[c] for c in game._removed],
        "stamp_stack": [kinds[rules.stamp_kind[sid]] for sid in reversed(game._stack)],
        "discard": _kinds(kinds, game._dcount),
        "stats": {name: v for name, v in zip(STATS, game._stats, strict=True) if v},
    }
    if game.phase in ("trade", "final-trade"):
        pos["spin"] = game._spin
        pos["offer_turns"] = game._done
        if game._pt >= 0:
            pos["pending"] = "offer " + rules.offer_text(
                game._pt, game._pg, game._pk, bool(game._pp)
            )
    if game.phase == "final-shop":
        pos["final_buyers"] = game._fs
    if game.is_over:
        termination = game.termination
        assert termination is not None
        pos["termination"] = termination.value
    return pos
