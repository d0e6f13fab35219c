"""The Klunker family's invariants, and the Ledger: the family's independent oracle.

Each invariant is a property the rules promise (docs/rules.md gives the clauses).
The family hands them to the core as :data:`FAMILY_INVARIANTS` (``FAMILY.invariants``),
and the generic harness (:mod:`cardshop.invariants`: ``check_all``, ``CheckedGame``,
the state machine of :mod:`cardshop.testing`, ``cardshop audit``) runs them beside
the checks every game of every family must pass. The functions here can also be
called one at a time (``check_conservation(game)``, ...); they raise
:class:`Violation`, which the harness reports as an
:class:`cardshop.invariants.InvariantViolation`.

Some invariants are about the state of a game (conservation of cards, no unsold
row, scores). Others are about what happened between two states (the payout of a
sale, the cash paid for a window, whose turn came next). Those are checked by the
:class:`Ledger`.

The Ledger, the family's independent oracle
-------------------------------------------
The Ledger is a second implementation of Klunker's round logic, written from the
rules digest and not from the engine: it keeps its own account of a game from the
events that ``Game.apply`` returns, and checks each event against the rules as it
goes. It re-implements:

* where every card is (it follows each card id the events name, zone to zone);
* every bank's cash, as opening cash + sale pay + window fees received - fees paid
  - tax (SETUP-3, BUY-3, BUY-6, SELL-4, END-2);
* the payout of each sale, from the rows it counts itself and the payout table and
  overrides (SELL-1, SELL-3..SELL-6), and which rows must sell without a decision;
* whose turn it is, the purchase cards taken lowest first, the start player that
  changes only by declining, and the steps of a round: tax, reshuffle, refill and
  the end of the game (FILL-1, STORE-1..4, BUY-1, BUY-5, END-1..END-5, TERM-1).

Why a second implementation: a check that asks the engine what should have happened
shares the engine's mistakes. The Ledger shares nothing with ``game.py`` but the event
types, so a fault must be made twice, the same way, to go unnoticed; and when the two
disagree its message names the rule and both accounts. It is deliberately plain
(sets of card ids, Counters) rather than fast: it runs only in debug mode and audits.

The harness runs it through a *monitor* (:class:`LedgerMonitor`) that books each
step's events as the game is played. Called on a game alone (``check(game)``), the
ledger's invariants replay the game from its setup and book the replay's events: a
game set up from a position is checked only from where a monitor first saw it.

The invariants, by name (:data:`INVARIANTS`):

``conservation``       the zones hold exactly the variant's card list, each card once
``no_unsold_rows``     no complete row waits in a safe between actions
``sale_payout``        every sale pays per the payout table and overrides
``bank_ledger``        each bank = starting cash + sales + fees received - fees paid - tax
``turn_order``         turns, purchase cards and the start player follow the rules
``hand_size``          hands never exceed the hand size; a refill fills them exactly
``score``              score = bank size; ranks and winners follow the tiebreaks
``end_of_game``        the game ends exactly when the deck cannot refill, or at the cap
``event_log``          the events account for every card that moves
``legal_actions``      legal actions are sorted, distinct, and each one plays
``hidden_information`` what a seat observes does not depend on cards hidden from it
``determinism``        same seed and actions, same events; copies change nothing
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

from cardshop.core import Action, CardshopError, Seat, derive_rng
from cardshop.core import Game as AnyGame
from cardshop.core import Invariant as CoreInvariant
from cardshop.klunker.events import (
    Bought,
    Dealt,
    Declined,
    Event,
    GameEnded,
    Passed,
    Placed,
    Reshuffled,
    RoundEnded,
    Sold,
    Stored,
    Taxed,
    WindowDone,
)
from cardshop.klunker.game import Game, Observation, Phase, new_game

__all__ = [
    "FAMILY_INVARIANTS",
    "INVARIANTS",
    "Invariant",
    "Ledger",
    "LedgerMonitor",
    "RuleInvariant",
    "Violation",
    "apply_checked",
    "check_all",
    "check_conservation",
    "check_copies",
    "check_hand_size",
    "check_hidden_information",
    "check_legal_actions",
    "check_no_unsold_rows",
    "check_purchase_cards",
    "check_replay",
    "check_score",
    "check_setup",
    "hidden_twin",
]


@dataclass(frozen=True, slots=True)
class Invariant:
    """A property that every game of every valid Klunker variant keeps."""

    name: str
    clauses: tuple[str, ...]
    summary: str


INVARIANTS: dict[str, Invariant] = {
    inv.name: inv
    for inv in (
        Invariant(
            "conservation",
            ("CARD-1",),
            "the zones hold exactly the variant's card list, each card once",
        ),
        Invariant(
            "no_unsold_rows",
            ("SELL-2", "SELL-6"),
            "no complete row is left unsold in a safe between actions",
        ),
        Invariant(
            "sale_payout",
            ("SELL-1", "SELL-3", "SELL-4", "SELL-5"),
            "every sale pays per the payout table and overrides, and pay + discarded = set size",
        ),
        Invariant(
            "bank_ledger",
            ("SETUP-3", "BUY-3", "BUY-6", "SELL-4", "END-2"),
            "each bank = starting cash + sale pay + fees received - fees paid - tax paid",
        ),
        Invariant(
            "turn_order",
            ("FILL-1", "STORE-1", "STORE-2", "STORE-4", "BUY-1", "BUY-5", "END-1"),
            "purchase cards are distinct and taken lowest first, purchases follow them, "
            "and the start player changes only by declining",
        ),
        Invariant(
            "hand_size",
            ("SETUP-4", "END-5"),
            "hands never exceed the hand size, and a refill brings each hand to it exactly",
        ),
        Invariant(
            "score",
            ("SCORE-1", "SCORE-2"),
            "score = bank size; ranks and winners follow the tiebreaks",
        ),
        Invariant(
            "end_of_game",
            ("END-4", "TERM-1"),
            "a game ends exactly when the deck cannot refill every hand, or at the round cap",
        ),
        Invariant(
            "event_log",
            ("CARD-1",),
            "the events returned by apply account for every card that moves",
        ),
        Invariant(
            "legal_actions",
            ("FILL-2", "STORE-3", "BUY-4", "BUY-6"),
            "legal actions are sorted and distinct, offered exactly while the game runs, "
            "and each one plays without error",
        ),
        Invariant(
            "hidden_information",
            ("CARD-2",),
            "games that differ only in cards hidden from a seat give it the same observation",
        ),
        Invariant(
            "determinism",
            ("SETUP-2", "END-3"),
            "same seed and actions give the same events; clone and JSON round trip change nothing",
        ),
    )
}
"""Every Klunker invariant by name, in the order :func:`check_all` checks them."""

T = TypeVar("T")


class Violation(CardshopError, AssertionError):
    """A Klunker invariant does not hold (raised by the checks of this module).

    ``invariant`` is the name (a key of :data:`INVARIANTS`) and ``detail`` says what
    was found. The generic harness turns it into an
    :class:`cardshop.invariants.InvariantViolation` with a counterexample.
    """

    def __init__(self, invariant: str, detail: str) -> None:
        self.invariant = invariant
        self.detail = detail
        super().__init__(f"invariant {invariant!r} violated: {detail}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.invariant, self.detail))


def _fail(invariant: str, detail: str) -> NoReturn:
    raise Violation(invariant, detail)


def _kinds_text(counts: Counter[str] | dict[str, int]) -> str:
    return ", ".join(f"{k} {c}" for k, c in sorted(counts.items()) if c) or "nothing"


# --------------------------------------------------------------- state checks


class _Snapshot:
    """A game's zones, read once: card ids, and kinds counted from the ids on demand."""

    __slots__ = ("_kinds", "_rules", "zones")

    def __init__(self, game: Game) -> None:
        self.zones = game.zones()
        self._rules = game.rules
        self._kinds: dict[str, dict[str, int]] = {}

    def kinds(self, zone: str) -> dict[str, int]:
        """Cards of each kind in ``zone`` (kinds present only), from the card ids."""
        known = self._kinds.get(zone)
        if known is None:
            rules = self._rules
            kind_of, n_cards = rules.kind_of, rules.n_cards
            counts = [0] * len(rules.kinds)
            for c in self.zones[zone]:
                if 0 <= c < n_cards:
                    counts[kind_of[c]] += 1
            known = self._kinds[zone] = {rules.kinds[i]: n for i, n in enumerate(counts) if n}
        return known

    def size(self, zone: str) -> int:
        return len(self.zones[zone])


def _diagnose_conservation(game: Game, snap: _Snapshot) -> None:
    n_cards = game.rules.n_cards
    seen: dict[int, str] = {}
    for zone, cards in snap.zones.items():
        for card in cards:
            if card in seen:
                _fail("conservation", f"card #{card} is in both {seen[card]} and {zone}")
            if not 0 <= card < n_cards:
                _fail("conservation", f"{zone} holds #{card}, which is not a card of the variant")
            seen[card] = zone
    missing = [c for c in range(n_cards) if c not in seen]
    _fail(
        "conservation",
        f"{len(missing)} card(s) are in no zone: "
        + ", ".join(f"#{c} ({game.card_kind(c)})" for c in missing[:10]),
    )


def check_conservation(game: Game, _snap: _Snapshot | None = None, *, counts: bool = True) -> None:
    """Every card of the variant lies in exactly one zone. [CARD-1]

    With ``counts``, the game's count of each kind in each zone (``zone_counts``)
    must also agree with the card ids it lists.
    """
    snap = _snap or _Snapshot(game)
    n_cards = game.rules.n_cards
    every = [c for cards in snap.zones.values() for c in cards]
    if len(every) != n_cards or sorted(every) != list(range(n_cards)):
        _diagnose_conservation(game, snap)
    if not counts:
        return
    for zone in snap.zones:
        by_ids = snap.kinds(zone)
        counted = game.zone_counts(zone)
        if by_ids != counted:
            _fail(
                "conservation",
                f"{zone} holds {_kinds_text(by_ids)} by card ids but counts {_kinds_text(counted)}",
            )


def check_no_unsold_rows(game: Game, _snap: _Snapshot | None = None) -> None:
    """No safe holds a complete row, except while its owner chooses the order. [SELL-2/6]"""
    snap = _snap or _Snapshot(game)
    size = game.rules.set_size
    for seat in range(game.players):
        safe = f"safe:{seat}"
        complete = (
            sorted(k for k, c in snap.kinds(safe).items() if c >= size)
            if snap.size(safe) >= size
            else []
        )
        choosing = game.phase is Phase.SELL and seat == game.current_player
        if choosing and len(complete) < 2:
            _fail(
                "no_unsold_rows",
                f"seat {seat} is asked to choose a sale but its safe holds complete rows "
                f"of {', '.join(complete) or 'no kind'}",
            )
        if complete and not choosing:
            _fail(
                "no_unsold_rows",
                f"seat {seat}'s safe holds a complete row of {', '.join(complete)} left "
                f"unsold in the {game.phase.value} phase of round {game.round}",
            )


def check_hand_size(game: Game, _snap: _Snapshot | None = None) -> None:
    """No hand holds more than the hand size. [SETUP-4, END-5]"""
    snap = _snap or _Snapshot(game)
    for seat in range(game.players):
        held = snap.size(f"hand:{seat}")
        if held > game.rules.hand_size:
            _fail(
                "hand_size",
                f"seat {seat} holds {held} cards, more than the hand size {game.rules.hand_size}",
            )


def check_purchase_cards(game: Game) -> None:
    """Purchase cards are distinct, taken lowest first, and all held while buying. [STORE-2]"""
    held = [c for c in game.purchase_cards if c]
    n = game.players
    if sorted(held) != list(range(1, len(held) + 1)):
        _fail("turn_order", f"the purchase cards held are {list(game.purchase_cards)}")
    if game.phase in (Phase.PURCHASE, Phase.SELL) and len(held) != n:
        _fail(
            "turn_order",
            f"in the {game.phase.value} phase every seat holds a purchase card; "
            f"they hold {list(game.purchase_cards)}",
        )
    if game.phase is Phase.FILL and len(held) not in (0, n):
        # Purchase cards are all taken by a store step earlier in the round, or none.
        _fail("turn_order", f"purchase cards {held} are held during the fill phase")
    turn = game.current_player
    if game.phase is Phase.STORE and turn is not None and game.purchase_cards[turn]:
        _fail("turn_order", f"seat {turn} is asked to store after passing")


def check_setup(game: Game) -> None:
    """A game fresh from ``new_game``: each hand is full and each bank holds the
    starting cash, with the rest in the deck. [SETUP-3, SETUP-4]

    The banks and the deck are not checked when a ``tax`` step comes before the
    round's first decision: that tax has already been paid.
    """
    rules = game.rules
    n = game.players
    cash = rules.starting_cash[n]
    steps = list(game.variant.steps)
    first = min(steps.index(s) for s in ("fill", "store", "purchase"))
    taxed = "tax" in steps[:first]
    for seat in range(n):
        hand = sum(game.zone_counts(f"hand:{seat}").values())
        if hand != rules.hand_size:
            _fail(
                "hand_size",
                f"seat {seat} starts with {hand} cards; the hand size is {rules.hand_size}",
            )
        if not taxed and game.cash(seat) != cash:
            _fail(
                "bank_ledger",
                f"seat {seat} starts with {game.cash(seat)} cash; the variant deals {cash}",
            )
    deck = rules.n_cards - n * (cash + rules.hand_size)
    if not taxed and len(game.zones()["deck"]) != deck:
        _fail("conservation", f"the deck starts with {len(game.zones()['deck'])} cards, not {deck}")


def check_legal_actions(game: Game) -> None:
    """Legal actions are sorted by text, distinct, and present exactly while the game runs."""
    actions = game.legal_actions()
    texts = [str(a) for a in actions]
    if game.is_over:
        if actions:
            _fail("legal_actions", f"the game is over but offers {texts}")
        return
    if not actions:
        _fail("legal_actions", f"seat {game.current_player} has no legal action")
    if texts != sorted(texts) or len(set(texts)) != len(texts):
        _fail("legal_actions", f"legal actions are not sorted and distinct: {texts}")
    for action in actions:
        if game.parse_action(str(action)) != action:
            _fail("legal_actions", f"{str(action)!r} does not parse back to the same action")


def apply_checked(game: Game, action: Action) -> list[Event]:
    """``game.apply(action)`` for a legal action; an error it raises is a violation."""
    try:
        return game.apply(action)
    except Exception as exc:
        _fail(
            "legal_actions",
            f"the legal action {str(action)!r} raised {type(exc).__name__}: {exc}",
        )


def _rank_key(game: Game, snap: _Snapshot, seat: Seat) -> tuple[int, ...]:
    """Most cash first, then the variant's tiebreaks. [SCORE-2]"""
    key = [-snap.size(f"bank:{seat}")]
    window = snap.size(f"window:{seat}")
    safe = snap.size(f"safe:{seat}")
    for rule in game.variant.tiebreak:
        if rule == "fewest_safe_and_window":
            key.append(window + safe)
        elif rule == "fewest_safe":
            key.append(safe)
        else:
            key.append(window)
    return tuple(key)


def check_score(game: Game, _snap: _Snapshot | None = None) -> None:
    """Score = bank size, everywhere it is shown; the result ranks by the tiebreaks."""
    snap = _snap or _Snapshot(game)
    n = game.players
    banks = tuple(snap.size(f"bank:{s}") for s in range(n))
    shown = {
        "scores()": game.scores(),
        "cash()": tuple(game.cash(s) for s in range(n)),
        "observation().cash": game.observation(0).cash,
    }
    for where, values in shown.items():
        if values != banks:
            _fail("score", f"{where} gives {list(values)} but the banks hold {list(banks)}")
    if not game.is_over:
        return
    result = game.result()
    if result.scores != banks:
        _fail("score", f"result() scores {list(result.scores)}; the banks hold {list(banks)}")
    keys = [_rank_key(game, snap, s) for s in range(n)]
    ranks = tuple(1 + sum(other < key for other in keys) for key in keys)
    if result.ranks != ranks:
        _fail("score", f"result() ranks {list(result.ranks)}; the tiebreaks give {list(ranks)}")
    winners = tuple(s for s, r in enumerate(ranks) if r == 1)
    if result.winners != winners:
        _fail("score", f"result() winners {list(result.winners)}; ranks give {list(winners)}")
    if result.rounds != game.round:
        _fail("score", f"result() says {result.rounds} rounds; the game is in round {game.round}")


# ------------------------------------------------------- hidden information


def hidden_twin(game: Game, seat: Seat, seed: int = 0) -> Game:
    """A game that differs from ``game`` only in what ``seat`` cannot see. [CARD-2]

    The cards in other hands, in the deck and in every bank (cash faces are hidden
    from their owner too) are dealt out again at random among the same places, and
    the future chance events get another seed. What ``seat`` may know is unchanged.
    """
    bare = game.clone()
    bare.history = []  # what was played is public, but the twin need not carry it
    bare._seats = []
    data = json.loads(bare.to_json())
    state = data["state"]
    n = game.players
    where: list[int] = list(state["where"])
    deck: list[int] = list(state["deck"])
    hidden_zones = {3 * s for s in range(n) if s != seat} | {3 * n + s for s in range(n)}
    slots = [(card, z) for card, z in enumerate(where) if z in hidden_zones]
    pool = [card for card, _ in slots] + deck
    rng = derive_rng(seed, "hidden-twin", len(game.history), seat)
    rng.shuffle(pool)
    for i, (_, zone) in enumerate(slots):
        where[pool[i]] = zone
    new_deck = pool[len(slots) :]
    for card in new_deck:
        where[card] = 4 * n
    state["where"] = where
    state["deck"] = new_deck
    data["seed"] = rng.getrandbits(63)
    data["from_setup"] = False  # the twin's cards were never dealt from its seed
    return Game.from_json(data)


def check_hidden_information(
    game: Game, *, seats: Collection[Seat] | None = None, twins: int = 1, seed: int = 0
) -> None:
    """Each seat's observation (and, on its turn, its legal actions) survive a hidden twin."""
    for seat in range(game.players) if seats is None else seats:
        seen = game.observation(seat)
        for t in range(twins):
            try:
                twin = hidden_twin(game, seat, seed + t)
            except CardshopError as exc:
                _fail("hidden_information", f"no twin of this game can be built: {exc}")
            if twin.observation(seat) != seen:
                other = twin.observation(seat)
                diff = [
                    name
                    for name in Observation._fields
                    if getattr(seen, name) != getattr(other, name)
                ]
                _fail(
                    "hidden_information",
                    f"seat {seat}'s observation changes ({', '.join(diff)}) when only cards "
                    f"hidden from it change",
                )
            if game.current_player == seat and twin.legal_actions() != game.legal_actions():
                _fail(
                    "hidden_information",
                    f"seat {seat}'s legal actions change when only cards hidden from it change",
                )


# ------------------------------------------------------------- determinism


def _events_differ(what: str, ours: Sequence[Event], theirs: Sequence[Event]) -> str:
    for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            return f"{what}: event {i + 1} is {b!r} instead of {a!r}"
    return f"{what}: {len(theirs)} event(s) instead of {len(ours)}"


def _play_copy(what: str, copy: Game, action: Action) -> list[Event]:
    try:
        return copy.apply(action)
    except CardshopError as exc:
        _fail("determinism", f"{what} cannot play {str(action)!r}: {exc}")


def _compare_after(what: str, game: Game, events: list[Event], copy: Game, action: Action) -> None:
    """``copy`` was made just before ``game`` played ``action``: it must play it the same."""
    theirs = _play_copy(what, copy, action)
    if theirs != events:
        _fail("determinism", _events_differ(f"{what} then {str(action)!r}", events, theirs))
    if copy != game or copy.history != game.history:
        _fail("determinism", f"{what} then {str(action)!r} leaves a different state")


def _json_round_trip(game: Game, text: str | None = None) -> Game:
    try:
        return Game.from_json(game.to_json() if text is None else text)
    except CardshopError as exc:
        _fail("determinism", f"the game does not survive a JSON round trip: {exc}")


def check_copies(game: Game, action: Action | str | None = None) -> None:
    """A clone and a JSON round trip equal the game and play ``action`` the same way.

    ``action`` defaults to the first legal action; the game itself is not changed.
    """
    before = game.to_json()
    clone = game.clone()
    from_json = _json_round_trip(game, before)
    for what, copy in (("clone()", clone), ("JSON round trip", from_json)):
        if copy != game or copy.history != game.history:
            _fail("determinism", f"{what} gives a game that differs from the original")
    if game.is_over:
        return
    if action is None:
        action = game.legal_actions()[0]
    elif isinstance(action, str):
        action = game.parse_action(action)
    events = _play_copy("clone()", clone, action)
    _compare_after("JSON round trip", clone, events, from_json, action)
    if game.to_json() != before:
        _fail("determinism", f"playing {str(action)!r} on a copy changed the original game")


def check_replay(game: Game, events: Sequence[Sequence[Event]] | None = None) -> None:
    """Replaying the game's setup and history gives the same events and the same state.

    ``events`` are the event lists that ``apply`` returned, one per action of
    ``game.history``; without them only the final state is compared. The game must
    have been started by ``new_game`` (or ``replay``), not from a position.
    """
    again = new_game(game.variant, game.players, game.seed, game.first_player)
    if events is not None and len(events) != len(game.history):
        raise ValueError(f"{len(events)} event lists for {len(game.history)} actions")
    for i, action in enumerate(game.history):
        try:
            theirs = again.apply(action)
        except CardshopError as exc:
            _fail("determinism", f"replay of action {i + 1} ({action}) fails: {exc}")
        if events is not None and theirs != list(events[i]):
            _fail(
                "determinism",
                _events_differ(f"replay of action {i + 1} ({action})", events[i], theirs),
            )
    if again != game:
        _fail("determinism", "replaying the same seed and actions leads to a different state")


# ---------------------------------------------------------------- the ledger


class _Stream:
    """The events of one action, consumed in the order the rules say they come."""

    def __init__(self, events: Sequence[Event]) -> None:
        self.events = list(events)
        self.i = 0

    def peek(self) -> Event | None:
        return self.events[self.i] if self.i < len(self.events) else None

    def take(self, cls: type[T], invariant: str, why: str) -> T:
        ev = self.peek()
        if not isinstance(ev, cls):
            got = "no more events" if ev is None else repr(ev)
            _fail(invariant, f"expected a {cls.__name__} event ({why}); got {got}")
        self.i += 1
        return ev

    def finish(self) -> None:
        if self.i < len(self.events):
            _fail("event_log", f"unexpected event {self.events[self.i]!r} after the action")


class Ledger:
    """An account of one game kept from its events alone, checked against the rules.

    Start it from a game (any moment between actions); then, after each
    ``events = game.apply(action)``, call ``ledger.record(action, events)``. It
    follows every card the events name, the cash of every bank (starting cash, sale
    pay, window fees received and paid, tax), the purchase cards, whose turn it is
    and the start player, and raises :class:`Violation` as soon as an event
    breaks a rule. :meth:`check` compares the account with the game.
    """

    def __init__(self, game: Game) -> None:
        self.rules = rules = game.rules
        self.variant = game.variant
        self.n = n = game.players
        zones = game.zones()
        self.hands = [set(zones[f"hand:{s}"]) for s in range(n)]
        self.windows = [set(zones[f"window:{s}"]) for s in range(n)]
        self.safes = [set(zones[f"safe:{s}"]) for s in range(n)]
        self.bank_cards = [set(zones[f"bank:{s}"]) for s in range(n)]
        self.banks = [len(zones[f"bank:{s}"]) for s in range(n)]
        self.deck = set(zones["deck"])
        self.discard = set(zones["discard"])
        self.opening = list(self.banks)
        self.sales = [0] * n
        self.fees_received = [0] * n
        self.fees_paid = [0] * n
        self.tax = [0] * n
        self.kind_of = [game.card_kind(c) for c in range(rules.n_cards)]
        self.steps: list[str] = list(game.variant.steps)
        self.phase = game.phase
        self.turn = game.current_player
        self.round = game.round
        self.start = game.start_player
        self.held = list(game.purchase_cards)
        self.termination = None if game.termination is None else game.termination.value
        taken = sum(1 for c in self.held if c)
        self.acted = (self.turn - self.start) % n if self.turn is not None else 0
        self.next_card = taken + 1
        self.buying = self.held[self.turn] if self.turn is not None else 0
        self.decliner: int = game.to_dict()["state"]["decliner"]
        phase_step = {Phase.FILL: "fill", Phase.STORE: "store"}.get(self.phase, "purchase")
        self.step = self.steps.index(phase_step) if not game.is_over else len(self.steps)
        self.actions = 0

    # ---------------------------------------------------------------- account

    def account(self, seat: Seat) -> dict[str, int]:
        """Where ``seat``'s cash came from: the terms of the bank ledger.

        ``opening`` is the bank when the ledger started: the starting cash, for a
        ledger started with a new game.
        """
        return {
            "opening": self.opening[seat],
            "sales": self.sales[seat],
            "fees_received": self.fees_received[seat],
            "fees_paid": self.fees_paid[seat],
            "tax": self.tax[seat],
        }

    def expected_bank(self, seat: Seat) -> int:
        """Opening cash + sale pay + fees received - fees paid - tax paid."""
        a = self.account(seat)
        return a["opening"] + a["sales"] + a["fees_received"] - a["fees_paid"] - a["tax"]

    # ----------------------------------------------------------------- events

    def record(self, action: Action | str, events: Sequence[Event]) -> None:
        """Check and book the events of one action, played by the seat whose turn it was."""
        verb = str(action).split()[0]
        stream = _Stream(events)
        self.actions += 1
        if self.phase is Phase.OVER or self.turn is None:
            _fail("end_of_game", f"{action!s} was played after the game ended")
        first = stream.peek()
        seat = getattr(first, "seat", None)
        if seat != self.turn:
            _fail(
                "turn_order",
                f"{action!s} was played by seat {seat}, but the turn was seat {self.turn}'s "
                f"({self.phase.value} phase of round {self.round})",
            )
        handler: dict[str, Callable[[_Stream], None]] = {
            "window": self._placed,
            "done": self._window_done,
            "store": self._stored,
            "pass": self._passed,
            "buy": self._bought,
            "decline": self._declined,
            "sell": self._chosen_sale,
        }
        expected_phase = {
            "window": Phase.FILL,
            "done": Phase.FILL,
            "store": Phase.STORE,
            "pass": Phase.STORE,
            "buy": Phase.PURCHASE,
            "decline": Phase.PURCHASE,
            "sell": Phase.SELL,
        }
        if expected_phase.get(verb) is not self.phase:
            _fail("turn_order", f"{action!s} was played in the {self.phase.value} phase")
        handler[verb](stream)
        stream.finish()

    def _move(self, card: int, src: set[int], dst: set[int], what: str) -> None:
        if card not in src:
            _fail("event_log", f"{what}: card #{card} was not there")
        src.remove(card)
        dst.add(card)

    def _placed(self, stream: _Stream) -> None:
        ev = stream.take(Placed, "event_log", "a window action places a card")
        if self.kind_of[ev.card] != ev.kind:
            _fail("event_log", f"{ev!r} names card #{ev.card}, a {self.kind_of[ev.card]}")
        self._move(ev.card, self.hands[ev.seat], self.windows[ev.seat], f"seat {ev.seat}'s hand")

    def _window_done(self, stream: _Stream) -> None:
        stream.take(WindowDone, "event_log", "done ends a window turn")
        self.acted += 1
        if self.acted == self.n:
            self.step += 1
            self._run_steps(stream)
        else:
            self.turn = (self.start + self.acted) % self.n

    def _next_storer(self, seat: Seat) -> None:
        for i in range(1, self.n + 1):
            other = (seat + i) % self.n
            if not self.held[other]:
                self.turn = other
                return

    def _stored(self, stream: _Stream) -> None:
        ev = stream.take(Stored, "event_log", "a store action stores a card")
        if self.kind_of[ev.card] != ev.kind:
            _fail("event_log", f"{ev!r} names card #{ev.card}, a {self.kind_of[ev.card]}")
        self._move(ev.card, self.hands[ev.seat], self.safes[ev.seat], f"seat {ev.seat}'s hand")
        if not self._auto_sales(ev.seat, stream):
            _fail("no_unsold_rows", f"storing one card completed rows of two kinds: {ev!r}")
        self._next_storer(ev.seat)

    def _passed(self, stream: _Stream) -> None:
        ev = stream.take(Passed, "event_log", "pass takes a purchase card")
        if self.held[ev.seat]:
            _fail("turn_order", f"seat {ev.seat} passed twice in round {self.round}")
        if ev.purchase_card != self.next_card:
            _fail(
                "turn_order",
                f"seat {ev.seat} took purchase card {ev.purchase_card}; the lowest free one "
                f"was {self.next_card}",
            )
        self.held[ev.seat] = ev.purchase_card
        self.next_card += 1
        if ev.purchase_card == self.n:
            self.step += 1
            self._run_steps(stream)
        else:
            self._next_storer(ev.seat)

    def _bought(self, stream: _Stream) -> None:
        ev = stream.take(Bought, "event_log", "a buy action buys a window")
        seat, owner = ev.seat, ev.owner
        window = self.windows[owner]
        if not window or set(ev.cards) != window or len(ev.cards) != len(window):
            _fail(
                "event_log",
                f"seat {seat} bought {len(ev.cards)} card(s) of seat {owner}'s window, which "
                f"holds {sorted(window)}",
            )
        rules = self.rules
        if owner == seat:
            due = 0
        else:
            cash = self.banks[seat]
            if cash < rules.price and not rules.broke_may_buy:
                _fail(
                    "bank_ledger",
                    f"seat {seat} bought seat {owner}'s window with {cash} cash, less than "
                    f"the price {rules.price} (BUY-6)",
                )
            due = min(rules.price, cash)
        if ev.price != due:
            _fail(
                "bank_ledger",
                f"seat {seat} paid {ev.price} for seat {owner}'s window; the price due was {due}",
            )
        if len(ev.paid) != due or len(set(ev.paid)) != due:
            _fail(
                "bank_ledger",
                f"seat {seat} paid {due} for seat {owner}'s window, but the event names "
                f"{len(set(ev.paid))} distinct card(s) paid: {ev.paid}",
            )
        for card in ev.paid:  # drawn at random: any card of the buyer's bank (BUY-3)
            self._move(card, self.bank_cards[seat], self.bank_cards[owner], f"seat {seat}'s bank")
        self.banks[seat] -= due
        self.banks[owner] += due
        self.fees_paid[seat] += due
        self.fees_received[owner] += due
        self.safes[seat] |= window
        window.clear()
        if self._auto_sales(seat, stream):
            self._next_buyer(stream)
        else:
            self.phase = Phase.SELL

    def _declined(self, stream: _Stream) -> None:
        ev = stream.take(Declined, "event_log", "decline")
        if self.decliner < 0:
            self.decliner = ev.seat
        if self.rules.decline_ends_phase:
            self._end_purchase(stream)
        else:
            self._next_buyer(stream)

    def _chosen_sale(self, stream: _Stream) -> None:
        ev = stream.take(Sold, "event_log", "a sell action sells a row")
        self._sold(ev)
        if self._auto_sales(ev.seat, stream):
            self._next_buyer(stream)

    def _complete_kinds(self, seat: Seat) -> list[str]:
        counts = Counter(self.kind_of[c] for c in self.safes[seat])
        return sorted(k for k, c in counts.items() if c >= self.rules.set_size)

    def _auto_sales(self, seat: Seat, stream: _Stream) -> bool:
        """Book the sales that need no decision; False if the seat must choose. [SELL-6]"""
        while True:
            complete = self._complete_kinds(seat)
            if not complete:
                return True
            if len(complete) > 1:
                return False
            ev = stream.take(
                Sold, "no_unsold_rows", f"seat {seat}'s safe holds a complete row of {complete[0]}"
            )
            if ev.kind != complete[0] or ev.seat != seat:
                _fail("no_unsold_rows", f"{ev!r} sold, but seat {seat} had {complete[0]} complete")
            self._sold(ev)

    def _sold(self, ev: Sold) -> None:
        rules = self.rules
        variant = self.variant
        seat = ev.seat
        safe = self.safes[seat]
        counts = Counter(self.kind_of[c] for c in safe)
        size = rules.set_size
        if counts[ev.kind] < size:
            _fail("sale_payout", f"{ev!r}: the safe holds only {counts[ev.kind]} {ev.kind}")
        rows = sum(math.ceil(c / size) for c in counts.values())
        if ev.rows != rows:
            _fail("sale_payout", f"{ev!r} counts {ev.rows} rows; the safe has {rows} (SELL-1)")
        override = variant.sale.overrides.get(ev.kind)
        table = variant.sale.payout
        pay = override if override is not None else table[min(rows, len(table)) - 1]
        if ev.payout != pay or len(ev.cash) != pay:
            _fail(
                "sale_payout",
                f"a row of {ev.kind} sold with {rows} rows pays {pay}; the sale paid "
                f"{ev.payout} and turned {len(ev.cash)} card(s) into cash",
            )
        if len(ev.cash) + len(ev.discarded) != size:
            _fail(
                "sale_payout",
                f"{ev!r}: {len(ev.cash)} paid + {len(ev.discarded)} unpaid is not the set size "
                f"{size}",
            )
        sold = (*ev.cash, *ev.discarded)
        if len(set(sold)) != size or any(self.kind_of[c] != ev.kind for c in sold):
            _fail("sale_payout", f"{ev!r} does not sell {size} distinct {ev.kind} cards")
        unpaid = self.deck if rules.unpaid_to_deck else self.discard
        for card in ev.cash:
            self._move(card, safe, self.bank_cards[seat], f"seat {seat}'s safe")
        for card in ev.discarded:
            self._move(card, safe, unpaid, f"seat {seat}'s safe")
        self.banks[seat] += pay
        self.sales[seat] += pay

    def _next_buyer(self, stream: _Stream) -> None:
        self.buying += 1
        if self.buying > self.n:
            self._end_purchase(stream)
            return
        if self.buying not in self.held:
            _fail("turn_order", f"no seat holds purchase card {self.buying}: {self.held}")
        self.phase = Phase.PURCHASE
        self.turn = self.held.index(self.buying)

    def _end_purchase(self, stream: _Stream) -> None:
        self.held = [0] * self.n
        self.next_card = 1
        self.buying = 0
        if self.decliner >= 0:
            self.start = self.decliner
            self.decliner = -1
        self.step += 1
        self._run_steps(stream)

    def _run_steps(self, stream: _Stream) -> None:
        """Book the automatic steps up to the next decision. [ROUND-1, END-1..END-5]"""
        rules = self.rules
        while True:
            if self.step == len(self.steps):
                ev = stream.take(RoundEnded, "event_log", f"round {self.round} is over")
                if ev.round != self.round:
                    _fail("event_log", f"{ev!r} in round {self.round}")
                if ev.start_player != self.start:
                    _fail(
                        "turn_order",
                        f"round {self.round} ends with seat {ev.start_player} as start player; "
                        f"the rules make it seat {self.start}",
                    )
                if self.round >= rules.round_cap:
                    end = stream.take(
                        GameEnded, "end_of_game", f"round {self.round} is the round cap"
                    )
                    self._ended(end, "capped")
                    return
                self.round += 1
                self.step = 0
            step = self.steps[self.step]
            if step == "fill":
                self.phase, self.acted, self.turn = Phase.FILL, 0, self.start
                return
            if step == "store":
                self.phase, self.next_card, self.turn = Phase.STORE, 1, self.start
                return
            if step == "purchase":
                self.phase, self.buying = Phase.PURCHASE, 1
                if 1 not in self.held:
                    _fail("turn_order", f"no seat holds purchase card 1: {self.held}")
                self.turn = self.held.index(1)
                return
            if step == "tax":
                self._tax(stream)
            elif step == "reshuffle":
                shuffled = stream.take(Reshuffled, "event_log", "the reshuffle step")
                self.deck |= self.discard
                self.discard.clear()
                if shuffled.deck_size != len(self.deck):
                    _fail("event_log", f"{shuffled!r}, but the deck holds {len(self.deck)} cards")
            elif not self._refill(stream):
                return
            self.step += 1

    def _tax(self, stream: _Stream) -> None:
        due = self.rules.tax.get(self.n, 0)
        if not due:
            return
        to = self.deck if self.rules.tax_to_deck else self.discard
        for i in range(self.n):
            seat = (self.start + i) % self.n
            ev = stream.take(Taxed, "event_log", f"seat {seat} pays tax")
            if ev.seat != seat:
                _fail("turn_order", f"{ev!r}: seat {seat} pays tax next")
            owed = min(due, self.banks[seat])
            if len(ev.cards) != owed:
                _fail(
                    "bank_ledger",
                    f"seat {seat} paid {len(ev.cards)} card(s) of tax from a bank of "
                    f"{self.banks[seat]}; it owed {owed} (END-2)",
                )
            if len(set(ev.cards)) != len(ev.cards):
                _fail("event_log", f"{ev!r} names a card twice")
            for card in ev.cards:  # drawn at random: any card of the payer's bank (END-2)
                self._move(card, self.bank_cards[seat], to, f"seat {seat}'s bank")
            self.banks[seat] -= owed
            self.tax[seat] += owed

    def _refill(self, stream: _Stream) -> bool:
        size = self.rules.hand_size
        need = sum(max(0, size - len(h)) for h in self.hands)
        if need > len(self.deck):
            ev = stream.take(
                GameEnded,
                "end_of_game",
                f"the deck holds {len(self.deck)} cards and the hands need {need}",
            )
            self._ended(ev, "finished")
            return False
        for i in range(self.n):
            seat = (self.start + i) % self.n
            missing = size - len(self.hands[seat])
            if missing <= 0:
                continue
            if isinstance(stream.peek(), GameEnded):
                _fail(
                    "end_of_game",
                    f"the game ended though the deck ({len(self.deck)} cards) could refill "
                    f"every hand ({need} needed) (END-4)",
                )
            dealt = stream.take(Dealt, "event_log", f"seat {seat}'s hand is refilled")
            if dealt.seat != seat or dealt.zone != "hand":
                _fail("event_log", f"{dealt!r}; seat {seat}'s hand was to be refilled next")
            for card in dealt.cards:
                self._move(card, self.deck, self.hands[seat], "the deck")
            if len(self.hands[seat]) != size:
                _fail(
                    "hand_size",
                    f"the refill left seat {seat} with {len(self.hands[seat])} cards; "
                    f"the hand size is {size}",
                )
        return True

    def _ended(self, ev: GameEnded, termination: str) -> None:
        if ev.termination != termination:
            _fail(
                "end_of_game",
                f"the game ended as {ev.termination!r} where the rules say {termination!r}",
            )
        if tuple(ev.scores) != tuple(self.banks):
            _fail("score", f"the game ended with scores {list(ev.scores)}; banks {self.banks}")
        self.phase = Phase.OVER
        self.turn = None
        self.termination = termination

    # ------------------------------------------------------------- comparing

    def check(self, game: Game, _snap: _Snapshot | None = None) -> None:
        """The game agrees with this account: cards, cash, turn and phase."""
        snap = _snap or _Snapshot(game)
        n = self.n
        for seat in range(n):
            cash = game.cash(seat)
            if cash != self.banks[seat] or self.banks[seat] != self.expected_bank(seat):
                terms = self.account(seat)
                _fail(
                    "bank_ledger",
                    f"seat {seat}'s bank holds {cash} cards; the ledger says "
                    f"{terms['opening']} opening + {terms['sales']} sales + "
                    f"{terms['fees_received']} fees received - {terms['fees_paid']} fees paid "
                    f"- {terms['tax']} tax = {self.expected_bank(seat)}",
                )
        zones = snap.zones
        ours: dict[str, set[int]] = {"deck": self.deck, "discard": self.discard}
        for seat in range(n):
            ours[f"hand:{seat}"] = self.hands[seat]
            ours[f"window:{seat}"] = self.windows[seat]
            ours[f"safe:{seat}"] = self.safes[seat]
        for zone, cards in ours.items():
            if set(zones[zone]) != cards:
                extra = sorted(set(zones[zone]) - cards)
                gone = sorted(cards - set(zones[zone]))
                _fail(
                    "event_log",
                    f"{zone} holds {extra or 'no'} card(s) the events did not bring there and "
                    f"lacks {gone or 'no'} card(s) they did",
                )
        for seat in range(n):
            if set(zones[f"bank:{seat}"]) != self.bank_cards[seat]:
                _fail(
                    "event_log",
                    f"seat {seat}'s bank holds other cards than the events put there",
                )
        if game.is_over != (self.phase is Phase.OVER):
            _fail(
                "end_of_game",
                "the game is over though the events did not end it"
                if game.is_over
                else "the events ended the game but it goes on",
            )
        if game.is_over:
            if game.termination is None or game.termination.value != self.termination:
                _fail("end_of_game", f"the game ended as {game.termination}, not as expected")
            return
        ours_turn = (self.phase, self.turn, self.round, self.start, tuple(self.held))
        theirs = (
            game.phase,
            game.current_player,
            game.round,
            game.start_player,
            game.purchase_cards,
        )
        if ours_turn != theirs:
            _fail(
                "turn_order",
                "the game is at (phase, turn, round, start player, purchase cards) "
                f"{_show(theirs)}; the rules lead to {_show(ours_turn)}",
            )


def _show(values: tuple[Any, ...]) -> str:
    return "(" + ", ".join(v.value if isinstance(v, Phase) else str(v) for v in values) + ")"


# ----------------------------------------------------------------- together


def check_all(
    game: Game,
    ledger: Ledger | None = None,
    *,
    checks: Collection[str] | None = None,
    seed: int = 0,
    thorough: bool = True,
) -> None:
    """Check every Klunker invariant that can be checked on ``game`` now.

    ``ledger`` (kept up to date with :meth:`Ledger.record`) adds the checks of
    what happened between states. ``checks`` limits the run to some invariant
    names. ``thorough=False`` leaves out the costliest parts: hidden information,
    copies, and the agreement of the game's per-kind counts with its card ids.
    The generic harness (:func:`cardshop.invariants.check_all`) runs these checks
    too, through :data:`FAMILY_INVARIANTS`, beside those every family must pass.
    """
    wanted = set(INVARIANTS) if checks is None else set(checks)
    unknown = wanted - set(INVARIANTS)
    if unknown:
        raise ValueError(f"unknown invariants {sorted(unknown)}; known: {', '.join(INVARIANTS)}")
    snap = _Snapshot(game)
    if "conservation" in wanted:
        check_conservation(game, snap, counts=thorough)
    if "no_unsold_rows" in wanted:
        check_no_unsold_rows(game, snap)
    if "turn_order" in wanted:
        check_purchase_cards(game)
    if "legal_actions" in wanted:
        check_legal_actions(game)
    if "hand_size" in wanted:
        check_hand_size(game, snap)
    if "score" in wanted:
        check_score(game, snap)
    if ledger is not None:
        try:
            ledger.check(game, snap)
        except Violation as exc:
            if exc.invariant in wanted:
                raise
    if thorough and "hidden_information" in wanted and not game.is_over:
        check_hidden_information(game, seed=seed)
    if thorough and "determinism" in wanted:
        check_copies(game)


# ------------------------------------------------ handed to the core harness


@dataclass(frozen=True, slots=True)
class RuleInvariant(CoreInvariant):
    """A core :class:`~cardshop._family.Invariant` with the rule clauses it checks."""

    clauses: tuple[str, ...] = ()


def _klunker(game: AnyGame) -> Game:
    if not isinstance(game, Game):
        raise TypeError(f"not a Klunker game: {type(game).__name__}")
    return game


_last_snapshot: list[tuple[Game, int, tuple[int, ...], _Snapshot]] = []


def _snapshot(game: Game) -> _Snapshot:
    """The zones of ``game`` now, read once for all the state checks of one step."""
    key = (len(game.history), game._chance, game._turn, game._phase, game._round)
    if _last_snapshot:
        cached, history, at, snap = _last_snapshot[0]
        if cached is game and history == id(game.history) and at == key:
            return snap
    snap = _Snapshot(game)
    _last_snapshot[:] = [(game, id(game.history), key, snap)]
    return snap


class StateCheck:
    """One state check in the core's protocol: ``check(game)`` -> a problem or None.

    ``quick``, when set, is the cheaper check the harness runs between its thorough
    checks (``None``: nothing between them).
    """

    quick: Callable[[AnyGame], str | None] | None

    def __init__(
        self,
        check: Callable[[Game], None],
        *,
        quick: Callable[[Game], None] | bool | None = True,
    ) -> None:
        self._check = check
        if quick is None or quick is False:
            self.quick = None
        elif quick is not True:
            self.quick = StateCheck(quick)

    def __call__(self, game: AnyGame) -> str | None:
        try:
            self._check(_klunker(game))
        except Violation as exc:
            return exc.detail
        return None


class LedgerMonitor:
    """Follows one game for the harness: books each step's events in a :class:`Ledger`.

    The monitor protocol of :mod:`cardshop.invariants`: :meth:`record` after each
    step and :meth:`check` against the game, each returning ``(invariant, detail)``
    for a fault or ``None``. A game fresh from its setup is first checked against
    the variant's deal (:func:`check_setup`).
    """

    def __init__(self, game: AnyGame) -> None:
        klunker = _klunker(game)
        self.ledger = Ledger(klunker)
        self._fresh = klunker._from_setup and not klunker.history

    def record(
        self, actions: Mapping[Seat, Action], events: Sequence[Event]
    ) -> tuple[str, str] | None:
        try:
            for action in actions.values():
                self.ledger.record(action, events)
        except Violation as exc:
            return exc.invariant, exc.detail
        return None

    def check(self, game: AnyGame) -> tuple[str, str] | None:
        klunker = _klunker(game)
        try:
            if self._fresh:
                self._fresh = False
                check_setup(klunker)
            self.ledger.check(klunker, _snapshot(klunker))
        except Violation as exc:
            return exc.invariant, exc.detail
        return None


_last_replay: list[tuple[Game, int, int, dict[str, str]]] = []


def _ledger_faults(game: Game) -> dict[str, str]:
    """The Ledger's first fault over the whole game, replayed from its setup.

    A game set up from a position has no setup to replay: its transitions are checked
    only by a monitor that follows it (``{}`` here).
    """
    if not game._from_setup:
        return {}
    if _last_replay:
        cached, history, length, faults = _last_replay[0]
        if cached is game and history == id(game.history) and length == len(game.history):
            return faults
    faults = {}
    try:
        again = new_game(game.variant, game.players, game.seed, game.first_player)
        check_setup(again)
        ledger = Ledger(again)
        for action in game.history:
            ledger.record(action, again.apply(action))
            ledger.check(again)
        ledger.check(game)
    except Violation as exc:
        faults[exc.invariant] = exc.detail
    except CardshopError:
        pass  # the history does not replay: the determinism check reports that
    _last_replay[:] = [(game, id(game.history), len(game.history), faults)]
    return faults


class LedgerCheck:
    """One invariant the :class:`Ledger` checks, in the core's protocol.

    Called on a game alone, it replays the game from its setup through a fresh
    ledger; ``monitor`` lets the harness follow a game step by step instead.
    """

    monitor = LedgerMonitor

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, game: AnyGame) -> str | None:
        return _ledger_faults(_klunker(game)).get(self.name)


def _rule(name: str, check: Callable[[AnyGame], str | None]) -> RuleInvariant:
    inv = INVARIANTS[name]
    return RuleInvariant(name, check, inv.summary, inv.clauses)


def _hidden(game: Game) -> None:
    if not game.is_over:
        check_hidden_information(game, seed=len(game.history))


FAMILY_INVARIANTS: tuple[RuleInvariant, ...] = (
    _rule(
        "conservation",
        StateCheck(
            lambda g: check_conservation(g, _snapshot(g)),
            quick=lambda g: check_conservation(g, _snapshot(g), counts=False),
        ),
    ),
    _rule("no_unsold_rows", StateCheck(lambda g: check_no_unsold_rows(g, _snapshot(g)))),
    _rule("no_unsold_rows", LedgerCheck("no_unsold_rows")),
    _rule("sale_payout", LedgerCheck("sale_payout")),
    _rule("bank_ledger", LedgerCheck("bank_ledger")),
    _rule("turn_order", StateCheck(check_purchase_cards)),
    _rule("turn_order", LedgerCheck("turn_order")),
    _rule("hand_size", StateCheck(lambda g: check_hand_size(g, _snapshot(g)))),
    _rule("hand_size", LedgerCheck("hand_size")),
    _rule("score", StateCheck(lambda g: check_score(g, _snapshot(g)))),
    _rule("score", LedgerCheck("score")),
    _rule("end_of_game", LedgerCheck("end_of_game")),
    _rule("event_log", LedgerCheck("event_log")),
    _rule("legal_actions", StateCheck(check_legal_actions)),
    _rule("hidden_information", StateCheck(_hidden, quick=None)),
    _rule("determinism", StateCheck(check_copies, quick=None)),
)
"""The invariants the family hands the core (``FAMILY.invariants``), several checks
to a name: a state check, and the :class:`Ledger`'s account of what happened between
states (served by :class:`LedgerMonitor` when the harness follows a game)."""
