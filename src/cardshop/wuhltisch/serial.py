"""Rebuilding a :class:`WuhltischGame` from its JSON form (``WuhltischGame.to_dict``).

The input is hostile: its size and shape are bounded by a strict schema before any
work, the variant it carries is validated and must match its hash, and the state
must pass :func:`cardshop.wuhltisch.invariants.state_problems`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cardshop.core import (
    Action,
    HistoryCheck,
    PositionError,
    PositionSeed,
    VariantError,
    format_path,
    read_game_json,
)
from cardshop.wuhltisch.variant import MAX_CARDS, WuhltischVariant

if TYPE_CHECKING:
    from cardshop.wuhltisch.game import WuhltischGame

MAX_MOVES = 2_000_000
Card = Annotated[int, Field(ge=-1, le=MAX_CARDS)]
Cards = Annotated[list[Card], Field(max_length=MAX_CARDS)]
PerSeat = Annotated[list[Cards], Field(max_length=12)]
Sets = Annotated[list[Annotated[list[Cards], Field(max_length=5)]], Field(max_length=12)]
Count = Annotated[int, Field(ge=0, le=10**9)]
Name = Annotated[str, Field(max_length=40)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


class _State(_Model):
    chance: Count
    round: Count
    tick: Count
    ticks: Count
    over: bool
    heap: Cards
    box: Cards
    view: Annotated[list[Card], Field(max_length=12)]
    hands: PerSeat
    found: PerSeat
    stacks: PerSeat
    active: Annotated[list[Card], Field(max_length=12)]
    sets: Sets
    last_sets: Sets
    last_found: PerSeat
    round_scores: Annotated[
        list[Annotated[list[Count], Field(max_length=12)]], Field(max_length=20)
    ]
    callers: Annotated[list[Annotated[list[Count], Field(max_length=12)]], Field(max_length=20)]
    capped: Annotated[list[Count], Field(max_length=20)]
    in_front: Annotated[list[Count], Field(max_length=12)]


class _Doc(_Model):
    format: str
    family: str
    variant_hash: str
    variant: dict[str, Any]
    players: Annotated[int, Field(ge=1, le=12)]
    seed: PositionSeed
    from_setup: bool = True
    steps: Count
    moves: Annotated[
        list[Annotated[list[Annotated[int, Field(ge=0, le=10**9)] | Name], Field(max_length=3)]],
        Field(max_length=MAX_MOVES),
    ]
    state: _State


_VARIANTS: dict[str, WuhltischVariant] = {}


def _variant(data: dict[str, Any], claimed: str) -> WuhltischVariant:
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).hexdigest()
    if digest != claimed:
        raise PositionError("game JSON: variant_hash does not match the variant it carries")
    cached = _VARIANTS.get(digest)
    if cached is not None:
        return cached
    try:
        variant = WuhltischVariant.model_validate(data, strict=False)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        path = tuple(p for p in err["loc"] if isinstance(p, (str, int)))
        raise PositionError(
            f"game JSON carries an invalid variant at {format_path(path)}: {err['msg']}"
        ) from None
    problems = variant.semantic_errors()
    if problems:
        path, reason = problems[0]
        raise PositionError(
            f"game JSON carries an invalid variant at {format_path(path)}: {reason}"
        )
    if variant.content_hash != digest:
        raise PositionError("game JSON: the variant it carries is not in resolved form")
    _VARIANTS[digest] = variant
    return variant


def game_from_data(
    cls: type[WuhltischGame], source: str | bytes | Mapping[str, Any]
) -> WuhltischGame:
    """Validate a game's JSON text (or parsed data) and rebuild the game."""
    from cardshop.wuhltisch.game import FORMAT
    from cardshop.wuhltisch.invariants import state_problems

    data = read_game_json(source)
    try:
        doc = _Doc.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        if err["type"] == "json_invalid":
            raise PositionError(f"not a game in JSON: {err['msg']}") from None
        path = tuple(p for p in err["loc"] if isinstance(p, (str, int)))
        raise PositionError(f"not a valid game JSON at {format_path(path)}: {err['msg']}") from None
    if doc.format != FORMAT or doc.family != "wuhltisch":
        raise PositionError(f"game JSON has format {doc.format!r}; expected {FORMAT!r}")
    try:
        variant = _variant(doc.variant, doc.variant_hash)
    except VariantError as exc:  # pragma: no cover - model errors are caught above
        raise PositionError(f"game JSON carries an invalid variant: {exc}") from None
    rules = variant.rules
    n = doc.players
    if not rules.min_players <= n <= rules.max_players:
        raise PositionError(f"game JSON: {n} players is outside the variant's range")
    st = doc.state
    per_seat = (st.view, st.hands, st.found, st.stacks, st.active, st.sets, st.last_sets)
    if any(len(x) != n for x in (*per_seat, st.last_found, st.in_front)):
        raise PositionError(f"game JSON: a per-seat list does not have {n} entries")
    if len(doc.moves) > doc.steps * n:  # at most one move of each seat a step
        raise PositionError(
            f"game JSON: {len(doc.moves)} moves cannot be made in {doc.steps} steps of {n} players"
        )
    game = cls._empty(variant, n, doc.seed)
    game._from_setup = doc.from_setup
    # A game dealt by new_game is replayed as its moves are read: the first move that
    # cannot be stops the read.
    check = HistoryCheck(game)
    by_text = rules.actions_by_text
    moves: list[tuple[int, int, Action]] = []
    last = -1
    for move in doc.moves:
        if len(move) != 3:
            raise PositionError(f"game JSON: a move is [step, seat, action], not {move}")
        step, seat, text = move
        action: Action | None = by_text.get(text) if isinstance(text, str) else None
        if (
            action is None
            or not isinstance(step, int)
            or not isinstance(seat, int)
            or seat >= n
            or step < last
            or step >= doc.steps
        ):
            raise PositionError(f"game JSON: the move {[step, seat, text]} cannot be in this game")
        last = step
        check.add(step, seat, action)
        moves.append((step, seat, action))
    game._moves = moves
    game._step = doc.steps
    game._chance = st.chance
    game._round = st.round
    game._tick = st.tick
    game._ticks = st.ticks
    game._over = st.over
    game._heap = list(st.heap)
    game._box = list(st.box)
    game._view = list(st.view)
    game._hands = [list(h) for h in st.hands]
    game._found = [list(f) for f in st.found]
    game._stacks = [list(x) for x in st.stacks]
    game._active = list(st.active)
    game._sets = [[list(x) for x in sets] for sets in st.sets]
    game._last_sets = [[list(x) for x in sets] for sets in st.last_sets]
    game._last_found = [list(f) for f in st.last_found]
    game._round_scores = [list(r) for r in st.round_scores]
    game._callers = [list(c) for c in st.callers]
    game._capped = list(st.capped)
    game._in_front = list(st.in_front)
    if sorted(game._box) != game._box:
        raise PositionError("game JSON: the box of unused lists is not sorted")
    problems = state_problems(game)
    if problems:
        raise PositionError("game JSON is not a legal state: " + "; ".join(problems[:5]))
    check.finish(game)
    return game
