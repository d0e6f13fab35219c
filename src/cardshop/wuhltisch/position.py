"""Positions: a readable form of any running Wühltisch state (YAML or JSON).

Cards are written by name (``dots/blue/s/long@20``, ``lost:3``,
``list:*/red/s/long``). Cards a position does not place lie in the heap (shirts and
lost property, in an order drawn from ``seed``) or in the box (lists). When a name
stands for several copies, ids are given out in the order the names appear. See the
"Positions" section of docs/wuhltisch-rules.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from cardshop.core import (
    PositionError,
    PositionSeed,
    PositionVariant,
    derive_rng,
    position_setup,
)
from cardshop.wuhltisch.variant import MAX_CARDS, WuhltischVariant

if TYPE_CHECKING:
    from cardshop.core import VariantBase
    from cardshop.wuhltisch.game import WuhltischGame

__all__ = ["PositionModel", "SeatModel", "game_from_position", "position_of"]

MAX_TEXT = 500_000
Name = Annotated[str, Field(max_length=200)]
Names = Annotated[list[Name], Field(max_length=MAX_CARDS)]
Count = Annotated[int, Field(ge=0, le=10**9)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


class SeatModel(_Model):
    """One seat: its face-up list (``face_up``), face-down stack (top first), view, hand, lost
    property found, sets laid down this round, and last round's revealed cards."""

    face_up: Name | None = None
    stack: Names = Field(default_factory=list)
    view: Name | None = None
    hand: Names = Field(default_factory=list)
    found: Names = Field(default_factory=list)
    sets: Annotated[list[Names], Field(max_length=5)] = Field(default_factory=list)
    last_sets: Annotated[list[Names], Field(max_length=5)] = Field(default_factory=list)
    last_found: Names = Field(default_factory=list)
    in_front: Count = 0


class PositionModel(_Model):
    """A position; see docs/wuhltisch-rules.md ("Positions")."""

    variant: PositionVariant = None
    players: Annotated[int, Field(ge=1, le=12)] | None = None
    seed: PositionSeed = 0
    chance: Count = 0
    round: Annotated[int, Field(ge=1, le=20)] = 1
    tick: Count = 0
    ticks: Count | None = None
    scores: Annotated[list[Annotated[list[Count], Field(max_length=12)]], Field(max_length=20)] = (
        Field(default_factory=list)
    )
    callers: Annotated[list[Annotated[list[Count], Field(max_length=12)]], Field(max_length=20)] = (
        Field(default_factory=list)
    )
    capped: Annotated[list[Count], Field(max_length=20)] = Field(default_factory=list)
    seats: Annotated[list[SeatModel], Field(min_length=1, max_length=12)]
    heap: Names | None = None


def game_from_position(
    cls: type[WuhltischGame],
    position: Mapping[str, Any] | str,
    variant: VariantBase | str | None = None,
) -> WuhltischGame:
    """Build a game from a position, refusing any inconsistency with a PositionError."""
    from cardshop.wuhltisch.invariants import state_problems

    pos, var, n = position_setup(position, PositionModel, variant, WuhltischVariant)
    rules = var.rules
    left = {name: list(ids) for name, ids in rules.ids_by_name.items()}
    taken = [False] * rules.n_cards

    def card(name: str, where: str) -> int:
        ids = left.get(name)
        if ids is None:
            raise PositionError(f"{where}: unknown card {name!r} (e.g. {rules.card_name[0]!r})")
        if not ids:
            raise PositionError(f"{where}: more {name!r} cards than {rules.name} has")
        c = ids.pop(0)
        taken[c] = True
        return c

    def cards(names: list[str], where: str) -> list[int]:
        return [card(x, f"{where}[{i}]") for i, x in enumerate(names)]

    game = cls._empty(var, n, pos.seed)
    for s, seat in enumerate(pos.seats):
        at = f"seats[{s}]"
        game._active[s] = card(seat.face_up, f"{at}.face_up") if seat.face_up is not None else -1
        game._stacks[s] = cards(seat.stack, f"{at}.stack")[::-1]
        game._view[s] = card(seat.view, f"{at}.view") if seat.view is not None else -1
        game._hands[s] = sorted(cards(seat.hand, f"{at}.hand"))
        game._found[s] = cards(seat.found, f"{at}.found")
        game._sets[s] = [cards(st, f"{at}.sets[{i}]") for i, st in enumerate(seat.sets)]
        game._in_front[s] = seat.in_front
    # Last round's record names cards that are back in play: look them up without taking.
    for s, seat in enumerate(pos.seats):
        at = f"seats[{s}]"
        try:
            game._last_sets[s] = [[rules.ids_by_name[x][0] for x in st] for st in seat.last_sets]
            game._last_found[s] = [rules.ids_by_name[x][0] for x in seat.last_found]
        except KeyError as exc:
            raise PositionError(
                f"{at}: unknown card {exc.args[0]!r} in last round's cards"
            ) from None
    if pos.heap is not None:
        heap = cards(pos.heap, "heap")
        rest = [c for c in range(rules.first_list) if not taken[c]]
        if rest:
            raise PositionError(
                f"the heap lists {len(heap)} cards but {len(rest)} shirt(s) or lost property "
                f"are in no zone, e.g. {rules.card_name[rest[0]]!r}"
            )
        game._heap = heap[::-1]
    else:
        rest = [c for c in range(rules.first_list) if not taken[c]]
        derive_rng(pos.seed, "position").shuffle(rest)
        game._heap = rest
    game._box = [c for c in range(rules.first_list, rules.n_cards) if not taken[c]]
    game._round = pos.round
    game._tick = pos.tick
    game._ticks = pos.ticks if pos.ticks is not None else pos.tick
    game._chance = pos.chance
    game._round_scores = [list(r) for r in pos.scores]
    game._callers = [list(c) for c in pos.callers]
    game._capped = list(pos.capped)
    problems = state_problems(game)
    if problems:
        raise PositionError("not a legal position: " + "; ".join(problems[:5]))
    return game


def position_of(game: WuhltischGame) -> dict[str, Any]:
    """The position of a running game (exact: the heap order is listed, top first)."""
    if game.is_over:
        raise PositionError("a finished game has no position to continue from")
    name = game.rules.card_name

    def names(cards: list[int] | tuple[int, ...]) -> list[str]:
        return [name[c] for c in cards]

    seats = []
    for s in range(game.n):
        seat: dict[str, Any] = {
            "face_up": name[game._active[s]] if game._active[s] >= 0 else None,
            "stack": names(game._stacks[s][::-1]),
            "view": name[game._view[s]] if game._view[s] >= 0 else None,
            "hand": names(game._hands[s]),
            "found": names(game._found[s]),
            "sets": [names(st) for st in game._sets[s]],
            "last_sets": [names(st) for st in game._last_sets[s]],
            "last_found": names(game._last_found[s]),
            "in_front": game._in_front[s],
        }
        seats.append(seat)
    return {
        "variant": game.rules.name,
        "players": game.n,
        "seed": game.seed,
        "chance": game._chance,
        "round": game._round,
        "tick": game._tick,
        "ticks": game._ticks,
        "scores": [list(r) for r in game._round_scores],
        "callers": [list(c) for c in game._callers],
        "capped": list(game._capped),
        "seats": seats,
        "heap": names(game._heap[::-1]),
    }
