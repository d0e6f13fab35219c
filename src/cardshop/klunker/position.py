"""Positions: a readable way to write down any legal game state (docs/positions.md).

A position names the cards of every zone by kind. It is to a game what FEN is to
chess: tests, bug reports and docs set up situations with it. Card identities are
assigned when a position is loaded (ids of a kind in zone order), so a position
round-trips through a game by kinds, not by ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cardshop._core import derive_rng
from cardshop._errors import PositionError, VariantError, format_path
from cardshop._source import load_yaml

if TYPE_CHECKING:
    from cardshop.klunker.game import Game
    from cardshop.klunker.variant import Variant

__all__ = ["PositionModel", "SeatModel", "game_from_position", "position_of"]

Count = Annotated[int, Field(ge=0)]
Kinds = dict[str, Count]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


class SeatModel(_Model):
    """One seat's zones, card kind -> count. ``cash`` is a count or kind -> count."""

    hand: Kinds = Field(default_factory=dict)
    window: Kinds = Field(default_factory=dict)
    safe: Kinds = Field(default_factory=dict)
    cash: Count | Kinds = 0


class PositionModel(_Model):
    """A game position. See docs/positions.md for the meaning of each key."""

    variant: str | None = None
    players: int | None = None
    seed: int = 0
    round: Annotated[int, Field(ge=1)] = 1
    phase: Literal["fill", "store", "purchase", "sell"] = "fill"
    start_player: Annotated[int, Field(ge=0)] = 0
    turn: Annotated[int, Field(ge=0)] | None = None
    purchase_cards: list[Count] | None = None
    declined: Annotated[int, Field(ge=0)] | None = None
    seats: list[SeatModel] = Field(min_length=1)
    discard: Kinds = Field(default_factory=dict)
    deck: list[str] | None = None


def _parse(position: Mapping[str, Any] | str) -> PositionModel:
    if isinstance(position, str):
        try:
            data: Any = load_yaml(position, "<position>").data
        except VariantError as exc:
            where = (
                f" at line {exc.location.line}, column {exc.location.column}"
                if (exc.location)
                else ""
            )
            raise PositionError(f"position is not valid YAML/JSON{where}: {exc.reason}") from None
    else:
        data = dict(position)
    if not isinstance(data, dict):
        raise PositionError("a position must be a mapping")
    try:
        return PositionModel.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        path = tuple(p for p in err["loc"] if isinstance(p, (str, int)))
        msg = f"unknown key {path[-1]!r}" if err["type"] == "extra_forbidden" else err["msg"]
        raise PositionError(f"invalid position at {format_path(path)}: {msg}") from None


def game_from_position(
    cls: type[Game], position: Mapping[str, Any] | str, variant: Variant | str | None
) -> Game:
    """Build a game from a position, rejecting any inconsistency with a PositionError."""
    from cardshop._loader import load_variant
    from cardshop.klunker.game import FILL, PURCHASE, SELL, STORE

    pos = _parse(position)
    ref = variant if variant is not None else pos.variant
    if ref is None:
        raise PositionError("the position names no variant; pass one or set 'variant'")
    var = load_variant(ref)
    rules = var.rules
    n = len(pos.seats)
    if pos.players is not None and pos.players != n:
        raise PositionError(f"players is {pos.players} but {n} seats are listed")
    if not rules.min_players <= n <= rules.max_players:
        raise PositionError(
            f"{n} players is outside {rules.name}'s range {rules.min_players}..{rules.max_players}"
        )

    def seat_ok(value: int | None, key: str) -> None:
        if value is not None and value >= n:
            raise PositionError(f"{key} is {value}, but seats are 0..{n - 1}")

    seat_ok(pos.start_player, "start_player")
    seat_ok(pos.turn, "turn")
    seat_ok(pos.declined, "declined")
    if pos.round > rules.round_cap:
        raise PositionError(f"round {pos.round} is past the round cap {rules.round_cap}")

    k = rules.k

    def index(kind: str, where: str) -> int:
        i = rules.kind_index.get(kind)
        if i is None:
            raise PositionError(
                f"{where}: unknown card kind {kind!r}; kinds are {', '.join(rules.kinds)}"
            )
        return i

    # Zones, as kind counts.
    n_zones = 4 * n + 2
    counts = [0] * (n_zones * k)
    cash_unknown = [0] * n
    for s, seat in enumerate(pos.seats):
        for offset, name in ((0, "hand"), (1, "window"), (2, "safe")):
            zone = 3 * s + offset
            for kind, c in getattr(seat, name).items():
                counts[zone * k + index(kind, f"seats[{s}].{name}")] += c
        if isinstance(seat.cash, int):
            cash_unknown[s] = seat.cash
        else:
            for kind, c in seat.cash.items():
                counts[(3 * n + s) * k + index(kind, f"seats[{s}].cash")] += c
    discard_zone = 4 * n + 1
    for kind, c in pos.discard.items():
        counts[discard_zone * k + index(kind, "discard")] += c
    deck_kinds = [index(kind, f"deck[{i}]") for i, kind in enumerate(pos.deck or [])]

    # Conservation: the zones must hold the variant's card list exactly. [CARD-1]
    left = [rules.kind_start[i + 1] - rules.kind_start[i] for i in range(k)]
    for z in range(n_zones):
        for i in range(k):
            left[i] -= counts[z * k + i]
    for i in deck_kinds:
        left[i] -= 1
    over = [rules.kinds[i] for i in range(k) if left[i] < 0]
    if over:
        raise PositionError(
            f"the position holds more cards than {rules.name} has of: {', '.join(over)}"
        )
    pool_size = sum(left)
    need_cash = sum(cash_unknown)
    if pos.deck is not None and pool_size != need_cash:
        raise PositionError(
            f"cards do not add up: {pool_size} card(s) of the variant are in no zone "
            f"(cash counts need {need_cash}); list them in a zone or leave 'deck' out"
        )
    if need_cash > pool_size:
        raise PositionError(
            f"cards do not add up: cash counts need {need_cash} cards but only "
            f"{pool_size} are in no other zone"
        )

    for s in range(n):
        hand = sum(counts[3 * s * k : 3 * s * k + k])
        if hand > rules.hand_size:
            raise PositionError(
                f"seat {s} holds {hand} cards in hand, more than the hand size {rules.hand_size}"
            )

    # Purchase cards and whose turn. [STORE-2, BUY-1]
    held = list(pos.purchase_cards) if pos.purchase_cards is not None else [0] * n
    if len(held) != n:
        raise PositionError(f"purchase_cards lists {len(held)} seats; there are {n}")
    taken = sorted(c for c in held if c)
    if len(taken) != len(set(taken)):
        dup = next(c for c in taken if taken.count(c) > 1)
        raise PositionError(f"two players hold purchase card {dup}")
    if any(c > n for c in taken):
        raise PositionError(f"purchase cards run 1..{n}; got {taken}")
    if taken != list(range(1, len(taken) + 1)):
        raise PositionError(f"purchase cards are taken lowest first; {taken} skips one")
    phase = {"fill": FILL, "store": STORE, "purchase": PURCHASE, "sell": SELL}[pos.phase]
    turn = pos.turn if pos.turn is not None else pos.start_player
    if phase == FILL and taken:
        raise PositionError("no one holds a purchase card during the fill phase")
    if phase == STORE:
        if len(taken) == n:
            raise PositionError("every purchase card is taken: the store phase is over")
        if held[turn]:
            raise PositionError(
                f"seat {turn} holds a purchase card and cannot act in the store phase"
            )
    if phase in (PURCHASE, SELL) and len(taken) != n:
        raise PositionError("in the purchase phase every seat holds a purchase card")
    if pos.declined is not None and phase not in (PURCHASE, SELL):
        raise PositionError("'declined' only makes sense in the purchase phase")
    if pos.declined is not None and rules.decline_ends_phase:
        raise PositionError(
            "'declined' cannot be set: in this variant declining ends the purchase phase"
        )
    if phase == FILL:  # seats that already filled this round left no empty window (FILL-2)
        for i in range((turn - pos.start_player) % n):
            s = (pos.start_player + i) % n
            in_window: int = sum(counts[(3 * s + 1) * k : (3 * s + 2) * k])
            in_hand: int = sum(counts[3 * s * k : 3 * s * k + k])
            if in_hand and not in_window:
                raise PositionError(
                    f"seat {s} has already filled its window this round but left it empty "
                    "with cards in hand"
                )

    # No completed row waits in a safe, except the buyer's choice of order. [SELL-2, SELL-6]
    for s in range(n):
        base = (3 * s + 2) * k
        full = [rules.kinds[i] for i in range(k) if counts[base + i] >= rules.set_size]
        if phase == SELL and s == turn:
            if len(full) < 2:
                raise PositionError(
                    f"the sell phase needs complete rows of two or more kinds in seat {s}'s safe"
                )
        elif full:
            raise PositionError(
                f"seat {s}'s safe holds a complete row of {', '.join(full)} left unsold"
            )

    # Assign card ids: listed zones first, then the unplaced pool (shuffled with the seed).
    game = cls.__new__(cls)
    game._init_empty(var, n, pos.seed)
    game.first_player = pos.start_player
    where = [-1] * rules.n_cards
    nxt = list(rules.kind_start[:-1])
    for z in range(n_zones):
        for i in range(k):
            for _ in range(counts[z * k + i]):
                where[nxt[i]] = z
                nxt[i] += 1
    deck: list[int] = []
    for i in deck_kinds:  # listed top first
        deck.append(nxt[i])
        nxt[i] += 1
    pool = [c for i in range(k) for c in range(nxt[i], rules.kind_start[i + 1])]
    derive_rng(pos.seed, "position").shuffle(pool)
    for s in range(n):
        for _ in range(cash_unknown[s]):
            where[pool.pop()] = 3 * n + s
    deck.extend(pool)  # the rest, in shuffled order
    deck_zone = 4 * n
    for c in deck:
        where[c] = deck_zone
    game._where = where
    game._deck = deck[::-1]  # stored top card last
    game._check_counts()

    game._held = held
    game._phase = phase
    game._turn = turn
    game._start = pos.start_player
    game._round = pos.round
    game._decliner = pos.declined if pos.declined is not None else -1
    step_name = {FILL: "fill", STORE: "store", PURCHASE: "purchase", SELL: "purchase"}[phase]
    game._step = list(rules.variant.steps).index(step_name)  # type: ignore[arg-type]
    if phase == FILL:
        game._acted = (turn - pos.start_player) % n
    if phase == STORE:
        game._next_card = len(taken) + 1
    if phase in (PURCHASE, SELL):
        game._buying = held[turn]
    return game


def position_of(game: Game) -> dict[str, Any]:
    """The position of a live game, exact by kinds (deck order included)."""
    from cardshop.klunker.game import Phase

    if game.is_over:
        raise PositionError("a finished game has no position to continue from")
    rules = game.rules
    n = game.n

    def kinds(zone: str) -> dict[str, int]:
        return game.zone_counts(zone)

    seats = [
        {
            "hand": kinds(f"hand:{s}"),
            "window": kinds(f"window:{s}"),
            "safe": kinds(f"safe:{s}"),
            "cash": kinds(f"bank:{s}"),
        }
        for s in range(n)
    ]
    pos: dict[str, Any] = {
        "variant": rules.name,
        "players": n,
        "seed": game.seed,
        "round": game.round,
        "phase": game.phase.value,
        "start_player": game.start_player,
        "turn": game.current_player,
        "purchase_cards": list(game.purchase_cards),
        "seats": seats,
        "discard": kinds("discard"),
        "deck": [game.card_kind(c) for c in game.zones()["deck"]],
    }
    if game.phase in (Phase.PURCHASE, Phase.SELL) and game._decliner >= 0:
        pos["declined"] = game._decliner
    return pos
