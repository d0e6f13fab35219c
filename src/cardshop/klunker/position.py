"""Positions: a readable way to write down any legal game state (docs/positions.md).

A position names the cards of every zone by kind. It is to a game what FEN is to
chess: tests, bug reports and docs set up situations with it. Card identities are
assigned when a position is loaded (ids of a kind in zone order), so a position
round-trips through a game by kinds, not by ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cardshop.core import (
    PositionError,
    PositionSeed,
    PositionVariant,
    derive_rng,
    position_kind,
    position_setup,
)

if TYPE_CHECKING:
    from cardshop.core import VariantBase
    from cardshop.klunker.game import Game
    from cardshop.klunker.variant import Rules

__all__ = [
    "PositionModel",
    "SeatModel",
    "check_turn",
    "check_zones",
    "game_from_position",
    "position_of",
]

MAX_COUNT = 1_000_000
"""The largest card count a position may write in one place (far above any deck)."""
MAX_SEATS = 100
MAX_KINDS = 1_000
MAX_DECK = 1_000_000

Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Seat = Annotated[int, Field(ge=0, lt=MAX_SEATS)]
Kinds = Annotated[dict[str, Count], Field(max_length=MAX_KINDS)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


class SeatModel(_Model):
    """One seat's zones, card kind -> count. ``cash`` is a count or kind -> count."""

    hand: Kinds = Field(default_factory=dict)
    window: Kinds = Field(default_factory=dict)
    safe: Kinds = Field(default_factory=dict)
    cash: Count | Kinds = 0
    rows_sold: Count = 0  # rows this seat sold so far (SCORE-1)


class PositionModel(_Model):
    """A game position. See docs/positions.md for the meaning of each key."""

    variant: PositionVariant = None
    players: Annotated[int, Field(ge=0, le=MAX_SEATS)] | None = None
    seed: PositionSeed = 0
    round: Annotated[int, Field(ge=1, le=MAX_COUNT)] = 1
    phase: Literal["fill", "store", "purchase", "sell"] = "fill"
    start_player: Seat = 0
    turn: Seat | None = None
    purchase_cards: (
        Annotated[list[Annotated[int, Field(ge=0, le=MAX_SEATS)]], Field(max_length=MAX_SEATS)]
        | None
    ) = None
    declined: Seat | None = None
    lap: Annotated[int, Field(ge=1, le=MAX_SEATS)] = 1  # the purchase turn (BUY-7)
    seats: list[SeatModel] = Field(min_length=1, max_length=MAX_SEATS)
    discard: Kinds = Field(default_factory=dict)
    deck: (
        Annotated[list[Annotated[str, Field(max_length=100)]], Field(max_length=MAX_DECK)] | None
    ) = None


def game_from_position(
    cls: type[Game], position: Mapping[str, Any] | str, variant: VariantBase | str | None
) -> Game:
    """Build a game from a position, rejecting any inconsistency with a PositionError."""
    from cardshop.klunker.game import FILL, PURCHASE, SELL, STORE
    from cardshop.klunker.variant import Variant

    pos, var, n = position_setup(position, PositionModel, variant, Variant)
    rules = var.rules

    for key, value in (
        ("start_player", pos.start_player),
        ("turn", pos.turn),
        ("declined", pos.declined),
    ):
        if value is not None and value >= n:
            raise PositionError(f"{key} is {value}, but seats are 0..{n - 1}")
    if pos.round > rules.round_limit:
        raise PositionError(
            f"round {pos.round} is past the {rules.last_round_name} {rules.round_limit}"
        )

    k = rules.k

    def index(kind: str, where: str) -> int:
        return position_kind(rules.kind_index, kind, where, "card kind")

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

    held = list(pos.purchase_cards) if pos.purchase_cards is not None else [0] * n
    phase = {"fill": FILL, "store": STORE, "purchase": PURCHASE, "sell": SELL}[pos.phase]
    turn = pos.turn if pos.turn is not None else pos.start_player
    declined = pos.declined if pos.declined is not None else -1
    if pos.lap > 1 and (phase not in (PURCHASE, SELL) or pos.lap > rules.per_round):
        raise PositionError(
            f"lap {pos.lap}: a purchase step of this variant has {rules.per_round} turn(s) "
            "per purchase card, and laps count only in the purchase phase (BUY-7)"
        )
    check_turn(rules, n, counts, phase, turn, pos.start_player, held, declined, lap=pos.lap)
    check_zones(rules, n, counts, turn if phase == SELL else -1)
    taken = [c for c in held if c]

    # Assign card ids: listed zones first, then the unplaced pool (shuffled with the seed).
    game = cls._empty(var, n, pos.seed)
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
    game._decliner = declined
    step_name = {FILL: "fill", STORE: "store", PURCHASE: "purchase", SELL: "purchase"}[phase]
    game._step = list(rules.variant.steps).index(step_name)  # type: ignore[arg-type]
    if phase == FILL:
        game._acted = (turn - pos.start_player) % n
    if phase == STORE or (phase == FILL and fill_holds_cards(rules)):
        game._next_card = len(taken) + 1
    if phase in (PURCHASE, SELL):
        game._buying = held[turn]
    for s, seat in enumerate(pos.seats):
        game._totals[4 * n + 2 + s] = seat.rows_sold
    game._totals[5 * n + 2] = pos.lap - 1
    return game


# ----------------------------------------------------------- state checks
#
# One checker for every way a state comes in: positions (kind counts written by a
# person) and game JSON (card ids written by a program) both end in these two
# functions, so the two formats refuse the same impossible states.

POSITION_NAMES = {
    "held": "purchase_cards",
    "turn": "turn",
    "start": "start_player",
    "declined": "declined",
}
"""How the checks name the fields of a position; game JSON passes its own names."""


def check_zones(
    rules: Rules, n: int, counts: Sequence[int], sell_seat: int = -1, prefix: str = ""
) -> None:
    """Hands within the hand size; no complete row left unsold in a safe. [SELL-2]

    ``counts[zone * k + kind]`` are the kind counts of every zone (the engine's
    layout). ``sell_seat`` is the seat choosing which row to sell (SELL-6), whose safe
    must hold complete rows of two or more kinds; -1 outside the sell phase.
    """
    k = rules.k
    for s in range(n):
        hand = sum(counts[3 * s * k : 3 * s * k + k])
        if hand > rules.hand_size:
            raise PositionError(
                f"{prefix}seat {s} holds {hand} cards in hand, more than the hand size "
                f"{rules.hand_size}"
            )
        window = sum(counts[(3 * s + 1) * k : (3 * s + 2) * k])
        if rules.window_cap and window > rules.window_cap:
            raise PositionError(
                f"{prefix}seat {s}'s window holds {window} cards, more than the window cap "
                f"{rules.window_cap} (FILL-3)"
            )
    for s in range(n):
        base = (3 * s + 2) * k
        full = [rules.kinds[i] for i in range(k) if counts[base + i] >= rules.set_size]
        if s == sell_seat:
            if len(full) < 2:
                raise PositionError(
                    f"{prefix}the sell phase needs complete rows of two or more kinds in "
                    f"seat {s}'s safe"
                )
        elif full:
            raise PositionError(
                f"{prefix}seat {s}'s safe holds a complete row of {', '.join(full)} left unsold"
            )


def fill_holds_cards(rules: Rules) -> bool:
    """Whether the fill step comes between store and purchase (seats hold purchase cards)."""
    steps = rules.steps
    return steps.index(1) < steps.index(0) < steps.index(2)  # store, fill, purchase


def check_turn(
    rules: Rules,
    n: int,
    counts: Sequence[int],
    phase: int,
    turn: int,
    start: int,
    held: Sequence[int],
    declined: int,
    names: Mapping[str, str] = POSITION_NAMES,
    prefix: str = "",
    lap: int = 1,
) -> None:
    """Purchase cards, phase, turn and decliner agree with each other. [STORE-2, BUY-1]

    ``phase`` is one of the engine's FILL, STORE, PURCHASE, SELL; ``turn``, ``start``
    are seats (checked by the caller), ``declined`` a seat or -1. ``names`` says how
    the input calls its fields, for the messages.
    """
    from cardshop.klunker.game import FILL, PURCHASE, SELL, STORE

    k = rules.k
    held_key = names["held"]
    declined_key = names["declined"]
    if len(held) != n:
        raise PositionError(f"{prefix}{held_key} lists {len(held)} seats; there are {n}")
    if any(c < 0 for c in held):
        raise PositionError(f"{prefix}{held_key} holds a negative card: {list(held)}")
    taken = sorted(c for c in held if c)
    if len(taken) != len(set(taken)):
        dup = next(c for c in taken if taken.count(c) > 1)
        raise PositionError(f"{prefix}two players hold purchase card {dup} ({held_key})")
    if any(c > n for c in taken):
        raise PositionError(f"{prefix}purchase cards run 1..{n}; got {taken} ({held_key})")
    if taken != list(range(1, len(taken) + 1)):
        raise PositionError(
            f"{prefix}purchase cards are taken lowest first; {taken} skips one ({held_key})"
        )
    if phase == FILL and fill_holds_cards(rules) and len(taken) != n:
        raise PositionError(
            f"{prefix}in this variant the store step comes before fill: every seat holds a "
            f"purchase card during the fill phase ({held_key})"
        )
    if phase == FILL and not fill_holds_cards(rules) and taken:
        raise PositionError(f"{prefix}no one holds a purchase card during the fill phase")
    if phase == STORE:
        if len(taken) == n:
            raise PositionError(f"{prefix}every purchase card is taken: the store phase is over")
        if held[turn]:
            raise PositionError(
                f"{prefix}seat {turn} holds a purchase card and cannot act in the store phase"
            )
    if phase in (PURCHASE, SELL) and len(taken) != n:
        raise PositionError(f"{prefix}in the purchase phase every seat holds a purchase card")
    if declined >= 0:
        if phase not in (PURCHASE, SELL):
            raise PositionError(f"{prefix}{declined_key!r} only makes sense in the purchase phase")
        if rules.decline_ends_phase:
            raise PositionError(
                f"{prefix}{declined_key!r} cannot be set: in this variant declining ends "
                "the purchase phase"
            )
        if held[declined] >= held[turn] and lap == 1:  # a later lap: any card (BUY-7)
            raise PositionError(
                f"{prefix}{declined_key!r} is seat {declined}, which holds purchase card "
                f"{held[declined]}: it has not had its turn to buy yet (BUY-1)"
            )
    if phase == FILL:  # seats that already filled this round left no empty window (FILL-2)
        for i in range((turn - start) % n):
            s = (start + i) % n
            in_window: int = sum(counts[(3 * s + 1) * k : (3 * s + 2) * k])
            in_hand: int = sum(counts[3 * s * k : 3 * s * k + k])
            if in_hand and not in_window:
                raise PositionError(
                    f"{prefix}seat {s} has already filled its window this round but left it "
                    "empty with cards in hand"
                )


def position_of(game: Game) -> dict[str, Any]:
    """The position of a live game, exact by kinds (deck order included)."""
    from cardshop.klunker.game import Phase, _keeps_extra

    if game.is_over:
        raise PositionError("a finished game has no position to continue from")
    rules = game.rules
    n = game.n

    def kinds(zone: str) -> dict[str, int]:
        return game.zone_counts(zone)

    seats: list[dict[str, Any]] = [
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
    if game.purchase_lap > 1:
        pos["lap"] = game.purchase_lap
    for s in range(n):
        if game.rows_sold(s) and _keeps_extra(rules):  # only where the rules read it
            seats[s]["rows_sold"] = game.rows_sold(s)
    return pos
