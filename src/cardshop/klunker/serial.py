"""Rebuilding a :class:`Game` from its JSON form (see ``Game.to_dict``).

Game JSON is untrusted input. It is checked in this order, each check bounded before
the next one does work:

1. size: at most :data:`MAX_JSON_BYTES` bytes of text; the JSON parser refuses
   nesting deeper than its recursion limit and numbers too large to hold;
2. shape: every key, type and range (pydantic, strict: no ``true`` for ``1``), list
   lengths capped;
3. the variant it carries: valid, in resolved form, matching ``variant_hash``;
4. the state: every card in exactly one zone, the deck list equal to the deck zone,
   and the checks positions get (:func:`~cardshop.klunker.position.check_zones`,
   :func:`~cardshop.klunker.position.check_turn`), plus the fields only JSON has
   (step, counters, end of game);
5. the history: at most :func:`history_cap` actions of this variant; for a game
   started by ``new_game`` (``from_setup``), replayed from the seed, which must lead
   to exactly the stated state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cardshop.core import (
    MAX_ACTION_TEXT,
    MAX_GAME_JSON_BYTES,
    ActionError,
    PositionCounter,
    PositionError,
    PositionSeed,
    SetupError,
    VariantError,
    format_path,
    read_game_json,
    variant_from_data,
)
from cardshop.klunker.position import (
    MAX_COUNT,
    MAX_SEATS,
    check_turn,
    check_zones,
)
from cardshop.klunker.variant import Rules, Variant, as_klunker

if TYPE_CHECKING:
    from cardshop.klunker.game import Game

__all__ = ["MAX_HISTORY", "MAX_JSON_BYTES", "game_from_data", "history_cap"]

MAX_JSON_BYTES = MAX_GAME_JSON_BYTES
"""The largest game JSON text read (in UTF-8 bytes)."""

MAX_HISTORY = 1_000_000
"""A hard cap on the history's length, before the variant's own cap is known."""

_VARIANTS: dict[str, tuple[Variant, dict[str, Any]]] = {}

_NAMES = {
    "held": "state.held",
    "turn": "state.turn",
    "start": "state.start",
    "declined": "state.decliner",
}

Small = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Zone = Annotated[int, Field(ge=0, le=4 * MAX_SEATS + 1)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


class _State(_Model):
    chance: PositionCounter
    where: Annotated[list[Zone], Field(max_length=MAX_COUNT)]
    deck: Annotated[list[Small], Field(max_length=MAX_COUNT)]
    held: Annotated[list[Small], Field(max_length=MAX_SEATS)]
    next_card: Annotated[int, Field(ge=1, le=MAX_SEATS + 1)]
    buying: Annotated[int, Field(ge=0, le=MAX_SEATS)]
    decliner: Annotated[int, Field(ge=-1, lt=MAX_SEATS)]
    acted: Annotated[int, Field(ge=0, le=MAX_SEATS)]
    termination: Annotated[int, Field(ge=0, le=2)]
    phase: Annotated[int, Field(ge=0, le=4)]
    turn: Annotated[int, Field(ge=-1, lt=MAX_SEATS)]
    start: Annotated[int, Field(ge=0, lt=MAX_SEATS)]
    round: Annotated[int, Field(ge=1, le=MAX_COUNT)]
    step: Annotated[int, Field(ge=0, le=100)]
    # Rows sold per seat and purchase laps done, for variants whose rules read them.
    extra: Annotated[list[Small], Field(max_length=MAX_SEATS + 1)] | None = None


class _Doc(_Model):
    format: Annotated[str, Field(max_length=100)]
    variant: dict[str, Any]
    variant_hash: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    players: Annotated[int, Field(ge=0, le=MAX_SEATS)]
    seed: PositionSeed
    first_player: Annotated[int, Field(ge=0, lt=MAX_SEATS)]
    from_setup: bool = True
    history: Annotated[
        list[Annotated[str, Field(max_length=MAX_ACTION_TEXT)]], Field(max_length=MAX_HISTORY)
    ]
    seats: (
        Annotated[list[Annotated[int, Field(ge=0, lt=MAX_SEATS)]], Field(max_length=MAX_HISTORY)]
        | None
    ) = None
    state: _State


def history_cap(rules: Rules, players: int) -> int:
    """The most actions a game can take: a bound per round times the round cap.

    In one round each seat places at most a hand of cards and says done, stores at
    most a hand and passes, and buys or declines once, then chooses the order of at
    most one sale per kind, in each of its purchase turns (BUY-7).
    """
    per_round = players * (2 * rules.hand_size + 2 + rules.per_round * (1 + rules.k))
    return per_round * rules.round_cap


def _variant(data: dict[str, Any], claimed: str) -> Variant:
    """The variant a game JSON carries, validated once per distinct content."""
    cached = _VARIANTS.get(claimed)
    if cached is not None and cached[1] == data:
        return cached[0]
    try:
        variant = as_klunker(variant_from_data(data, source="<game JSON>"))
    except SetupError as exc:
        raise PositionError(f"game JSON: {exc}") from None
    if variant.content_hash != claimed:
        raise PositionError("game JSON: variant_hash does not match the variant it carries")
    if variant.to_data() != data:
        raise PositionError("game JSON: the variant it carries is not in resolved form")
    if len(_VARIANTS) >= 64:
        _VARIANTS.clear()
    _VARIANTS[claimed] = (variant, data)
    return variant


def _parse(source: str | bytes | Mapping[str, Any]) -> _Doc:
    data = read_game_json(source)
    try:
        return _Doc.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        if err["type"] == "json_invalid":
            raise PositionError(f"not a game in JSON: {err['msg']}") from None
        path = tuple(p for p in err["loc"] if isinstance(p, (str, int)))
        msg = f"unknown key {path[-1]!r}" if err["type"] == "extra_forbidden" else err["msg"]
        raise PositionError(f"not a valid game JSON at {format_path(path)}: {msg}") from None


def game_from_data(
    cls: type[Game], source: str | bytes | Mapping[str, Any], *, check_history: bool = True
) -> Game:
    """Validate a game's JSON text (or its parsed data) and rebuild the game."""
    from cardshop.klunker.game import FILL, OVER, PURCHASE, SELL, STORE
    from cardshop.klunker.variant import STEP_CODES

    doc = _parse(source)
    if doc.format != cls.FORMAT:
        raise PositionError(f"game JSON has format {doc.format[:100]!r}; expected {cls.FORMAT!r}")
    try:
        variant = _variant(doc.variant, doc.variant_hash)
    except VariantError as exc:
        raise PositionError(f"game JSON carries an invalid variant: {exc}") from None
    rules = variant.rules
    n = doc.players
    st = doc.state

    def bad(field: str, why: str) -> PositionError:
        return PositionError(f"game JSON: {field}: {why}")

    if not rules.min_players <= n <= rules.max_players:
        raise bad(
            "players",
            f"{n} is outside {rules.name}'s range {rules.min_players}..{rules.max_players}",
        )
    for field, seat in (("first_player", doc.first_player), ("state.start", st.start)):
        if seat >= n:
            raise bad(field, f"{seat} is not a seat 0..{n - 1}")
    cap = history_cap(rules, n)
    if len(doc.history) > cap:
        raise bad("history", f"{len(doc.history)} actions; a game of {n} can have {cap} at most")
    if st.round > rules.round_limit:
        raise bad(
            "state.round",
            f"round {st.round} is past the {rules.last_round_name} {rules.round_limit}",
        )
    if st.extra is not None and len(st.extra) != n + 1:
        raise bad("state.extra", f"gives {len(st.extra)} counts; {n} players need {n + 1}")
    # One chance event per reshuffle and per payment: at most 2n + 1 per round.
    if st.chance > (2 * n + 1) * st.round:
        raise bad("state.chance", f"{st.chance} chance events cannot happen in {st.round} rounds")

    # Cards: every card in exactly one zone; the deck list is the deck zone. [CARD-1]
    n_zones = 4 * n + 2
    deck_zone = 4 * n
    if len(st.where) != rules.n_cards:
        raise bad("state.where", f"places {len(st.where)} cards; {rules.name} has {rules.n_cards}")
    if st.where and max(st.where) >= n_zones:
        raise bad("state.where", f"zone {max(st.where)} does not exist with {n} players")
    if sorted(st.deck) != [c for c, z in enumerate(st.where) if z == deck_zone]:
        raise bad("state.deck", "does not list exactly the cards that 'where' puts in the deck")

    # Phase, turn and the counters. [ROUND-1]
    phase, turn = st.phase, st.turn
    steps = rules.steps
    if phase == OVER:
        if turn != -1 or st.termination == 0:
            raise bad("state.phase", "a finished game has turn -1 and a termination 1 or 2")
        if any(st.held) or st.buying or st.decliner != -1 or st.next_card != 1:
            raise bad("state.held", "purchase cards are back in the middle when a game ends")
        ended_by_rounds = (
            st.termination == rules.limit_ending == 1
            and st.round == rules.round_limit
            and st.step == len(steps)
        )  # TERM-2
        want = STEP_CODES["refill"] if st.termination == 1 and not ended_by_rounds else -1
        at_end = st.step == len(steps) if want < 0 else st.step == steps.index(want)
        if not at_end:
            raise bad("state.step", f"{st.step} is not where a game can end")
        if st.termination == 2 and st.round != rules.round_limit:
            raise bad("state.round", f"a capped game ends in round {rules.round_limit}")
    else:
        if not 0 <= turn < n:
            raise bad("state.turn", f"{turn} is not a seat 0..{n - 1}")
        if st.termination:
            raise bad("state.termination", "a game that is not over has no termination")
        step_code = {FILL: 0, STORE: 1, PURCHASE: 2, SELL: 2}[phase]
        if st.step != steps.index(step_code):
            raise bad("state.step", f"{st.step} is not the step of the phase {phase}")
        if st.decliner >= n:
            raise bad("state.decliner", f"{st.decliner} is not a seat")
        taken = sum(1 for c in st.held if c)
        if phase == FILL:
            if st.acted >= n or (st.start + st.acted) % n != turn:
                raise bad("state.acted", f"{st.acted} seats done does not make seat {turn} next")
        elif st.acted > n:
            raise bad("state.acted", f"{st.acted} is more than the {n} seats")
        if phase in (FILL, STORE) and st.buying:
            raise bad("state.buying", "nobody buys before the purchase phase")
        if phase in (FILL, STORE) and st.decliner != -1:
            raise bad("state.decliner", "nobody declines before the purchase phase")
        if phase in (PURCHASE, SELL) and len(st.held) == n and st.buying != st.held[turn]:
            raise bad("state.buying", f"{st.buying} is not the card of seat {turn}")

    game = cls._empty(variant, n, doc.seed)
    game._where = list(st.where)
    game._check_counts()
    counts = game._counts
    if phase == OVER:
        check_zones(rules, n, counts, prefix="game JSON: ")
        if st.termination == 1 and not ended_by_rounds:
            need = sum(max(0, rules.hand_size - game._totals[3 * s]) for s in range(n))
            if len(st.deck) >= need:
                raise bad("state.termination", "the deck could still refill every hand (END-4)")
    else:
        lap = st.extra[-1] + 1 if st.extra is not None else 1
        check_turn(
            rules,
            n,
            counts,
            phase,
            turn,
            st.start,
            st.held,
            st.decliner,
            _NAMES,
            "game JSON: ",
            lap=lap,
        )
        check_zones(rules, n, counts, turn if phase == SELL else -1, "game JSON: ")
        taken = sum(1 for c in st.held if c)
        if phase in (FILL, STORE) and st.next_card != taken + 1:
            raise bad("state.next_card", f"{st.next_card}; {taken} card(s) are taken")

    # The history: actions of this game, leading from the setup to the state.
    by_text = rules.actions_by_text
    history = []
    for i, text in enumerate(doc.history):
        action = by_text.get(text)
        if action is None or (action.verb == "buy" and action.arg >= n):  # type: ignore[operator]
            raise bad(f"history[{i}]", f"{text[:60]!r} is not an action of this game")
        history.append(action)

    replayed = doc.from_setup and (check_history or doc.seats is None)
    if (
        not replayed  # a replay derives the seats and compares them with these
        and doc.seats is not None
        and (len(doc.seats) != len(history) or any(seat >= n for seat in doc.seats))
    ):
        raise bad("seats", "must give the seat (0..players-1) of each action of the history")
    if doc.seats is None and history and not doc.from_setup:
        raise bad("seats", "a game that did not start from new_game lists its seats")
    game.first_player = doc.first_player
    game._from_setup = doc.from_setup
    game.history = history
    game._seats = list(doc.seats) if doc.seats is not None else []
    game._chance = st.chance
    game._deck = list(st.deck)
    game._held = list(st.held)
    game._next_card = st.next_card
    game._buying = st.buying
    game._decliner = st.decliner
    game._acted = st.acted
    game._termination = st.termination
    game._phase = st.phase
    game._turn = st.turn
    game._start = st.start
    game._round = st.round
    game._step = st.step
    if st.extra is not None:
        game._totals[4 * n + 2 :] = st.extra
    if replayed:
        _check_history(cls, game, st.extra is not None)
    return game


def _check_history(cls: type[Game], game: Game, extra: bool = True) -> None:
    """Replay the history from the setup; it must lead to the stated state exactly."""
    again = cls.new(game.variant, game.n, game.seed, game.first_player)
    for i, action in enumerate(game.history):
        try:
            again.apply(action)
        except ActionError as exc:
            raise PositionError(
                f"game JSON: history[{i}]: {str(action)!r} does not replay from the setup "
                f"(seed and first_player): {exc}"
            ) from None
    seats, game._seats = game._seats, again._seats
    tail = 4 * game.n + 2
    if not extra:  # not stated: the replay gives the rows sold
        game._totals[tail:] = again._totals[tail:]
    elif game._totals[tail:] != again._totals[tail:]:
        raise PositionError(
            "game JSON: state.extra: the history does not lead to these rows sold and laps"
        )
    if again != game:
        diff = [
            f.name.lstrip("_")
            for f in game.STATE
            if f.compared and getattr(game, f.name) != getattr(again, f.name)
        ]
        raise PositionError(
            "game JSON: state: the history does not lead from the setup to the stated state "
            f"(it differs in {', '.join('state.' + f for f in diff)}); a game that did not "
            'start from new_game must say "from_setup": false'
        )
    if seats and seats != again._seats:
        raise PositionError("game JSON: seats: they are not the seats that took the history")
