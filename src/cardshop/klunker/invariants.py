"""The Klunker family's invariants: the properties its rules promise, as checks.

Each invariant is a property the rules promise (docs/rules.md gives the clauses).
The family hands them to the core as :data:`FAMILY_INVARIANTS` (``FAMILY.invariants``):
records of the core's :class:`~cardshop.core.Invariant`, with the rule clauses each
checks. The generic harness (:mod:`cardshop.invariants`: ``check_all``,
``CheckedGame``, the state machine of :mod:`cardshop.testing`, ``cardshop audit``)
runs them beside the checks every game of every family must pass (``acting``,
``legal_actions``, ``determinism``, ``result``). The state checks can also be called
one at a time (``check_conservation(game)``, ...); they raise
:class:`~cardshop.core.InvariantViolation`.

Some invariants are about the state of a game (conservation of cards, no unsold
row, scores). Others are about what happened between two states (the payout of a
sale, the cash paid for a window, whose turn came next): those are checked by the
family's independent oracle, the :class:`~cardshop.klunker.ledger.Ledger`
(:mod:`cardshop.klunker.ledger`), which the harness runs through a *monitor*
(:class:`LedgerMonitor`) that books each step's events as the game is played. A
monitor follows a game from where it first saw it, so a game set up from a position
is checked only from there; ``check_all`` follows a replay of the game from its setup.

The invariants, by name:

``conservation``       the zones hold exactly the variant's card list, each card once
``no_unsold_rows``     no complete row waits in a safe between actions
``sale_payout``        every sale pays per the payout table and overrides
``bank_ledger``        each bank = starting cash + sales + fees received - fees paid - tax
``turn_order``         turns, purchase cards and the start player follow the rules
``hand_size``          hands never exceed the hand size; a refill fills them exactly
``score``              score = bank size (or the variant's weighted score); ranks and
                       winners follow the tiebreaks
``end_of_game``        the game ends exactly when the deck cannot refill, at ``rounds`` or the cap
``event_log``          the events account for every card that moves
``legal_actions``      the actions a seat must take or may not take are offered so
``hidden_information`` what a seat observes does not depend on cards hidden from it
``determinism``        the seed and first player fix the deal
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from cardshop.core import Action, CardshopError, InvariantViolation, Seat, derive_rng, shuffle
from cardshop.core import Game as AnyGame
from cardshop.core import Invariant as CoreInvariant
from cardshop.klunker.events import Event
from cardshop.klunker.game import Game, Observation, Phase, new_game
from cardshop.klunker.ledger import Ledger

__all__ = [
    "FAMILY_INVARIANTS",
    "LedgerCheck",
    "LedgerMonitor",
    "RuleInvariant",
    "StateCheck",
    "check_conservation",
    "check_forced_actions",
    "check_hand_size",
    "check_hidden_information",
    "check_no_unsold_rows",
    "check_purchase_cards",
    "check_score",
    "check_seeded_deal",
    "check_setup",
    "hidden_twin",
    "quick_twin",
]

_RULES: dict[str, tuple[tuple[str, ...], str]] = {
    "conservation": (
        ("CARD-1",),
        "the zones hold exactly the variant's card list, each card once",
    ),
    "no_unsold_rows": (
        ("SELL-2", "SELL-6"),
        "no complete row is left unsold in a safe between actions",
    ),
    "sale_payout": (
        ("SELL-1", "SELL-3", "SELL-4", "SELL-5", "SELL-7"),
        "every sale pays per the payout table and overrides, and pay + discarded = set size "
        "(a payout above it: the rest from the deck)",
    ),
    "bank_ledger": (
        ("SETUP-3", "BUY-3", "BUY-6", "SELL-4", "END-2"),
        "each bank = starting cash + sale pay + fees received - fees paid - tax paid",
    ),
    "turn_order": (
        ("FILL-1", "STORE-1", "STORE-2", "STORE-4", "BUY-1", "BUY-5", "END-1"),
        "purchase cards are distinct and taken lowest first, purchases follow them, "
        "and the start player changes only by declining",
    ),
    "hand_size": (
        ("SETUP-4", "END-5"),
        "hands never exceed the hand size, and a refill brings each hand to it exactly",
    ),
    "score": (
        ("SCORE-1", "SCORE-2"),
        "score = bank size (or the variant's weighted score); ranks and winners follow the "
        "tiebreaks",
    ),
    "end_of_game": (
        ("END-4", "TERM-1", "TERM-2"),
        "a game ends exactly when the deck cannot refill every hand, or at the round cap",
    ),
    "event_log": (
        ("CARD-1",),
        "the events returned by apply account for every card that moves",
    ),
    "legal_actions": (
        ("FILL-2", "STORE-3", "BUY-4", "BUY-6"),
        "legal actions are sorted and distinct, offered exactly while the game runs, each "
        "one plays without error, and the actions a seat must or may not take are so",
    ),
    "hidden_information": (
        ("CARD-2",),
        "games that differ only in cards hidden from a seat give it the same observation",
    ),
    "determinism": (
        ("SETUP-2", "END-3"),
        "the seed and first player fix the deal, the same seed and actions give the same "
        "events, and clone and JSON round trip change nothing",
    ),
}
"""Each Klunker invariant's rule clauses and summary, by name."""


def _fail(invariant: str, detail: str) -> NoReturn:
    raise InvariantViolation(invariant, detail)


def _kinds_text(counts: Counter[str] | dict[str, int]) -> str:
    return ", ".join(f"{k} {c}" for k, c in sorted(counts.items()) if c) or "nothing"


# --------------------------------------------------------------- state checks


class _Snapshot:
    """A game's zones, read once: card ids, and kinds counted from the ids on demand.

    The state checks below and the Ledger's comparison share one snapshot of each
    state: it is the ``view`` of :class:`StateCheck` and :class:`LedgerMonitor`, which
    the harness reads once each time it checks a state (nothing is kept between).
    """

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


def check_conservation(game: Game, snap: _Snapshot | None = None, *, counts: bool = True) -> None:
    """Every card of the variant lies in exactly one zone. [CARD-1]

    With ``counts``, the game's count of each kind in each zone (``zone_counts``)
    must also agree with the card ids it lists.
    """
    snap = snap or _Snapshot(game)
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


def check_no_unsold_rows(game: Game, snap: _Snapshot | None = None) -> None:
    """No safe holds a complete row, except while its owner chooses the order. [SELL-2/6]"""
    snap = snap or _Snapshot(game)
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


def check_hand_size(game: Game, snap: _Snapshot | None = None) -> None:
    """No hand holds more than the hand size. [SETUP-4, END-5]"""
    snap = snap or _Snapshot(game)
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
    by_seat = game.variant.starting_cash_by_seat.get(n) or [rules.starting_cash[n]] * n
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
        cash = by_seat[(seat - game.first_player) % n]  # dealt from the first player on
        if not taxed and game.cash(seat) != cash:
            _fail(
                "bank_ledger",
                f"seat {seat} starts with {game.cash(seat)} cash; the variant deals {cash}",
            )
    deck = rules.n_cards - sum(by_seat) - n * rules.hand_size
    if not taxed and len(game.zones()["deck"]) != deck:
        _fail("conservation", f"the deck starts with {len(game.zones()['deck'])} cards, not {deck}")


def check_forced_actions(game: Game, snap: _Snapshot | None = None) -> None:
    """The actions a seat must take or may not take are offered so.

    With an empty window and cards in hand, ``done`` is not offered, and with an
    empty hand ``done`` alone (FILL-2); with an empty hand ``pass`` alone (STORE-3); a
    seat whose window holds cards may not decline (BUY-4); a seat with less cash than
    the price buys no other window unless the variant lets the broke buy (BUY-6).
    """
    seat = game.current_player
    if seat is None:
        return
    snap = snap or _Snapshot(game)
    texts = [str(a) for a in game.legal_actions()]
    hand = snap.size(f"hand:{seat}")
    window = snap.size(f"window:{seat}")
    phase = game.phase
    if phase is Phase.FILL:
        cap = game.variant.window_cap
        if cap is not None and window >= cap and texts != ["done"]:
            _fail(
                "legal_actions",
                f"seat {seat}'s window is full ({window}) but it is offered {texts}",
            )
        if not hand and texts != ["done"]:
            _fail("legal_actions", f"seat {seat} has an empty hand but is offered {texts}")
        if hand and not window and "done" in texts:
            _fail("legal_actions", f"seat {seat} may say done with an empty window (FILL-2)")
    elif phase is Phase.STORE:
        if not hand and texts != ["pass"]:
            _fail("legal_actions", f"seat {seat} has an empty hand but is offered {texts}")
    elif phase is Phase.PURCHASE:
        if window and "decline" in texts:
            _fail("legal_actions", f"seat {seat}'s window holds cards but it may decline")
        rules = game.rules
        cash = snap.size(f"bank:{seat}")
        for owner in range(game.players):
            size = snap.size(f"window:{owner}")
            if owner == seat or not size or rules.broke_may_buy:
                continue
            price = rules.price_for(
                size,
                cash,
                snap.size(f"bank:{owner}"),
                game.players,
                game.round,
                game.purchase_lap,
            )
            if cash < price and f"buy {owner}" in texts:
                _fail(
                    "legal_actions",
                    f"seat {seat} holds {cash} cash, less than the price {price}, but is "
                    f"offered buy {owner} (BUY-6)",
                )


def _terms(game: Game, snap: _Snapshot, seat: Seat) -> dict[str, int]:
    """A seat's counts that a score or tiebreak names, from the card ids. [SCORE-1]"""
    window = snap.size(f"window:{seat}")
    safe = snap.size(f"safe:{seat}")
    return {
        "cash": snap.size(f"bank:{seat}"),
        "hand": snap.size(f"hand:{seat}"),
        "safe": safe,
        "window": window,
        "rows_sold": game.rows_sold(seat),
        "safe_and_window": safe + window,
    }


@functools.lru_cache(maxsize=64)
def _weights(score: Any) -> tuple[tuple[str, int], ...]:
    """The terms and weights of a variant's ``score`` (a frozen model), read once."""
    return tuple(score.model_dump().items())


def _score(game: Game, snap: _Snapshot, seat: Seat) -> int:
    """The weighted sum of the variant's ``score``. [SCORE-1]"""
    terms = _terms(game, snap, seat)
    return sum(weight * terms[term] for term, weight in _weights(game.variant.score))


def _rank_key(game: Game, snap: _Snapshot, seat: Seat) -> tuple[int, ...]:
    """Highest score first, then the variant's tiebreaks (smaller keys rank first).
    [SCORE-2]"""
    terms = _terms(game, snap, seat)
    key = [-_score(game, snap, seat)]
    for rule in game.variant.tiebreak:
        most, term = rule.split("_", 1)
        key.append(-terms[term] if most == "most" else terms[term])
    return tuple(key)


def check_score(game: Game, snap: _Snapshot | None = None) -> None:
    """Score = bank size, everywhere it is shown; the result ranks by the tiebreaks."""
    snap = snap or _Snapshot(game)
    n = game.players
    banks = tuple(snap.size(f"bank:{s}") for s in range(n))
    shown = {
        "cash()": tuple(game.cash(s) for s in range(n)),
        "observation().cash": game.observation(0).cash,
    }
    for where, values in shown.items():
        if values != banks:
            _fail("score", f"{where} gives {list(values)} but the banks hold {list(banks)}")
    want = tuple(_score(game, snap, s) for s in range(n))
    if game.scores() != want:
        _fail("score", f"scores() gives {list(game.scores())}; the score rule gives {list(want)}")
    if not game.is_over:
        return
    result = game.result()
    if result.scores != want:
        _fail("score", f"result() scores {list(result.scores)}; the score rule gives {list(want)}")
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


def bare_data(game: Game) -> dict[str, Any]:
    """``game``'s JSON data without its history, which a hidden twin need not carry
    (what was played is public): read once for all the twins of one state."""
    bare = game.clone()
    bare.history = []
    bare._seats = []
    data: dict[str, Any] = json.loads(bare.to_json())
    return data


def _dealt_again(
    game: Game, seat: Seat, seed: int, where: list[int], deck: list[int]
) -> tuple[list[int], list[int], int]:
    """The twin's ``where``, deck and seed: the cards hidden from ``seat`` (in other
    hands, the deck and every bank) dealt out again among the same places (``where``
    and ``deck`` are read, never changed)."""
    n = game.players
    where = list(where)
    hidden_zones = {3 * s for s in range(n) if s != seat} | {3 * n + s for s in range(n)}
    slots = [(card, z) for card, z in enumerate(where) if z in hidden_zones]
    pool = [card for card, _ in slots] + deck
    rng = derive_rng(seed, "hidden-twin", len(game.history), seat)
    shuffle(rng, pool)  # rng.shuffle(pool), faster
    for i, (_, zone) in enumerate(slots):
        where[pool[i]] = zone
    new_deck = pool[len(slots) :]
    for card in new_deck:
        where[card] = 4 * n
    return where, new_deck, rng.getrandbits(63)


def hidden_twin(
    game: Game, seat: Seat, seed: int = 0, *, bare: dict[str, Any] | None = None
) -> Game:
    """A game that differs from ``game`` only in what ``seat`` cannot see. [CARD-2]

    The cards in other hands, in the deck and in every bank (cash faces are hidden
    from their owner too) are dealt out again at random among the same places, and
    the future chance events get another seed. What ``seat`` may know is unchanged.
    The twin is read from ``game``'s JSON with those places changed, so that the
    reader checks it as any game's; ``bare`` is :func:`bare_data` of ``game`` when the
    caller has read it already (it is not changed). :func:`quick_twin` makes the same
    game without the JSON.
    """
    data = dict(bare_data(game) if bare is None else bare)
    state = dict(data["state"])
    data["state"] = state
    where, deck, twin_seed = _dealt_again(game, seat, seed, state["where"], state["deck"])
    state["where"] = where
    state["deck"] = deck
    data["seed"] = twin_seed
    data["from_setup"] = False  # the twin's cards were never dealt from its seed
    return Game.from_json(data)


def quick_twin(game: Game, seat: Seat, seed: int = 0) -> Game:
    """:func:`hidden_twin` made from a copy of ``game`` instead of its JSON: the same
    game, at a fraction of the cost (the audit's hidden-information check makes one
    twin per seat at each thorough step). The places are changed as the JSON reader
    changes them: the counts are rebuilt from ``where``, the history is left behind
    (what was played is public), and the legal actions are worked out anew."""
    where, deck, twin_seed = _dealt_again(game, seat, seed, game._where, game._deck)
    twin = game.clone()
    twin.history = []
    twin._seats = []
    twin._where = where
    twin._deck = deck
    twin._check_counts()  # the rows sold and the laps are kept
    twin.seed = twin_seed
    twin._from_setup = False  # the twin's cards were never dealt from its seed
    twin._legal = None
    return twin


def check_hidden_information(
    game: Game, *, seats: Collection[Seat] | None = None, twins: int = 1, seed: int = 0
) -> None:
    """Each seat's observation (and, on its turn, its legal actions) survive a hidden twin."""
    for seat in range(game.players) if seats is None else seats:
        seen = game.observation(seat)
        for t in range(twins):
            twin = quick_twin(game, seat, seed + t)
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


def check_seeded_deal(game: Game, snap: _Snapshot | None = None) -> None:
    """A game fresh from its setup is the one its seed and first player deal. [SETUP-2]

    Later states are the generic harness's to check: the same seed and moves replay
    to the same events and state (``determinism`` of :mod:`cardshop.invariants`).
    """
    if game.history or not game._from_setup:
        return
    again = new_game(game.variant, game.players, game.seed, game.first_player)
    if again != game:
        _fail(
            "determinism",
            f"seed {game.seed} with first player {game.first_player} deals another game",
        )


# ------------------------------------------------ handed to the core harness


@dataclass(frozen=True, slots=True)
class RuleInvariant(CoreInvariant):
    """A core :class:`~cardshop.core.Invariant` with the rule clauses it checks."""

    clauses: tuple[str, ...] = ()


def _klunker(game: AnyGame) -> Game:
    if not isinstance(game, Game):
        raise TypeError(f"not a Klunker game: {type(game).__name__}")
    return game


class StateCheck:
    """One state check in the core's protocol: ``check(game)`` -> a problem or None.

    ``quick``, when set, is the cheaper check the harness runs between its thorough
    checks (``None``: nothing between them). ``view`` is the snapshot of the zones
    that every Klunker check of one state shares: the harness reads it once and
    calls ``check(game, snapshot)``; called alone, the check reads its own.
    """

    view = _Snapshot
    quick: Callable[..., str | None] | None

    def __init__(
        self,
        check: Callable[[Game, _Snapshot], None],
        *,
        quick: Callable[[Game, _Snapshot], None] | bool | None = True,
    ) -> None:
        self._check = check
        if quick is None or quick is False:
            self.quick = None
        elif quick is not True:
            self.quick = StateCheck(quick)

    def __call__(self, game: AnyGame, snap: _Snapshot | None = None) -> str | None:
        klunker = _klunker(game)
        try:
            self._check(klunker, snap or _Snapshot(klunker))
        except InvariantViolation as exc:
            return exc.detail
        return None


class LedgerMonitor:
    """Follows one game for the harness: books each step's events in a :class:`Ledger`.

    The monitor protocol of :mod:`cardshop.invariants`: :meth:`record` after each
    step and :meth:`check` against the game, each returning ``(invariant, detail)``
    for a fault or ``None``. A game fresh from its setup is first checked against
    the variant's deal (:func:`check_setup`). The harness starts one for each game it
    checks; ``view`` is the snapshot of the zones it shares with the state checks.
    """

    view = _Snapshot

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
        except InvariantViolation as exc:
            return exc.invariant, exc.detail
        return None

    def check(self, game: AnyGame, snap: _Snapshot | None = None) -> tuple[str, str] | None:
        klunker = _klunker(game)
        try:
            if self._fresh:
                self._fresh = False
                check_setup(klunker)
            self.ledger.check(klunker, (snap or _Snapshot(klunker)).zones)
        except InvariantViolation as exc:
            return exc.invariant, exc.detail
        return None


class LedgerCheck:
    """One invariant the :class:`Ledger` checks, in the core's protocol.

    The harness serves it by ``monitor``: a :class:`LedgerMonitor` following the game
    (``check_all`` replays the game from its setup once for all these checks). Called
    on a game alone, it replays the game from its setup through a fresh monitor; a
    game set up from a position has no setup to replay (``None``).
    """

    monitor = LedgerMonitor

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, game: AnyGame) -> str | None:
        klunker = _klunker(game)
        if not klunker._from_setup:
            return None
        try:
            again = new_game(klunker.variant, klunker.players, klunker.seed, klunker.first_player)
            monitor = LedgerMonitor(again)
            fault = monitor.check(again)
            for action in klunker.history:
                if fault is not None:
                    break
                seat = again.current_player
                assert seat is not None
                fault = monitor.record({seat: action}, again.apply(action)) or monitor.check(again)
            fault = fault or monitor.check(klunker)
        except CardshopError:
            return None  # the history does not replay: the determinism check reports that
        return fault[1] if fault is not None and fault[0] == self.name else None


def _rule(name: str, check: Callable[[AnyGame], str | None]) -> RuleInvariant:
    clauses, summary = _RULES[name]
    return RuleInvariant(name, check, summary, clauses)


def _hidden(game: Game, snap: _Snapshot) -> None:
    if not game.is_over:
        check_hidden_information(game, seed=len(game.history))


FAMILY_INVARIANTS: tuple[RuleInvariant, ...] = (
    _rule(
        "conservation",
        StateCheck(check_conservation, quick=lambda g, s: check_conservation(g, s, counts=False)),
    ),
    _rule("no_unsold_rows", StateCheck(check_no_unsold_rows)),
    _rule("no_unsold_rows", LedgerCheck("no_unsold_rows")),
    _rule("sale_payout", LedgerCheck("sale_payout")),
    _rule("bank_ledger", LedgerCheck("bank_ledger")),
    _rule("turn_order", StateCheck(lambda g, s: check_purchase_cards(g))),
    _rule("turn_order", LedgerCheck("turn_order")),
    _rule("hand_size", StateCheck(check_hand_size)),
    _rule("hand_size", LedgerCheck("hand_size")),
    _rule("score", StateCheck(check_score)),
    _rule("score", LedgerCheck("score")),
    _rule("end_of_game", LedgerCheck("end_of_game")),
    _rule("event_log", LedgerCheck("event_log")),
    _rule("legal_actions", StateCheck(check_forced_actions)),
    _rule("hidden_information", StateCheck(_hidden, quick=None)),
    _rule("determinism", StateCheck(check_seeded_deal)),
)
"""The invariants the family hands the core (``FAMILY.invariants``), several checks
to a name: a state check, and the :class:`Ledger`'s account of what happened between
states (served by :class:`LedgerMonitor` when the harness follows a game)."""
