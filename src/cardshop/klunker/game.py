"""The Klunker-family engine: one generic game driven by a compiled variant.

State layout (the hot path uses plain ints and lists only):

* every card has an id ``0 .. n_cards-1``; the ids of one kind are contiguous;
* ``where[card]`` is the zone a card is in. Zones are numbered: for seat ``s``,
  ``3s`` hand, ``3s+1`` window, ``3s+2`` safe; ``3n+s`` bank (cash pile); ``4n``
  deck; ``4n+1`` discard (``n`` players);
* ``counts[zone * K + kind]`` and ``totals[zone]`` are kept in step with ``where``;
* ``deck`` lists the deck's card ids in order, the top card last.

Clause IDs in comments refer to the rules digest, docs/rules.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from enum import StrEnum
from hashlib import blake2b
from itertools import compress
from types import FunctionType
from typing import Any, ClassVar, Final, NamedTuple, cast

from cardshop.core import (
    Action,
    ActionError,
    ActionParseError,
    Checked,
    Copy,
    Engine,
    GameStateError,
    IllegalActionError,
    LegalActions,
    Move,
    Result,
    Seat,
    SetupError,
    StateField,
    Termination,
    chance_source,
    format_value,
)
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
from cardshop.klunker.variant import Rules, Variant, as_klunker

__all__ = ["Game", "Observation", "Phase", "Result", "Termination", "new_game"]


class Phase(StrEnum):
    """Whose decision it is about: the step of the round, or the game being over."""

    FILL = "fill"
    STORE = "store"
    PURCHASE = "purchase"
    SELL = "sell"  # the buyer chooses which completed row to sell first (SELL-6)
    OVER = "over"


_PHASES = (Phase.FILL, Phase.STORE, Phase.PURCHASE, Phase.SELL, Phase.OVER)
# Final: the compiled build reads them as constants, not from the module's namespace.
FILL: Final = 0
STORE: Final = 1
PURCHASE: Final = 2
SELL: Final = 3
OVER: Final = 4
S_FILL: Final = 0
S_STORE: Final = 1
S_PURCHASE: Final = 2
S_TAX: Final = 3
S_RESHUFFLE: Final = 4
S_REFILL: Final = 5
_ENDINGS: Final = ("", Termination.FINISHED.value, Termination.CAPPED.value)

# Events on the hot path are built with tuple.__new__ directly: the same named tuples,
# without the generated __new__'s extra call (about half the cost).
_new: Final = tuple.__new__

# The exact types an action's argument may have. ``True == 1`` and ``1.0 == 1`` in
# Python, so an Action("buy", True) compares equal to Action("buy", 1); apply() and
# is_legal() look at the argument's type to refuse it.
_ARG_TYPES: Final = frozenset({int, str, type(None)})

DONE: Final = Action("done")
PASS: Final = Action("pass")
DECLINE: Final = Action("decline")

VERBS = {
    "window": "window KIND  (fill: put a hand card in your window)",
    "done": "done  (fill: finish filling your window)",
    "store": "store KIND  (store: put a hand card in your safe)",
    "pass": "pass  (store: stop storing and take the lowest purchase card)",
    "buy": "buy SEAT  (purchase: buy all of that seat's window)",
    "decline": "decline  (purchase: buy nothing; only with an empty window)",
    "sell": "sell KIND  (sell: choose which completed row to sell first)",
}


def _holds(legal: list[Action], action: object) -> bool:
    """Whether ``action`` is one of the objects in ``legal`` (by identity)."""
    return any(known is action for known in legal)


def _index(where: list[int], zone: int, lo: int, hi: int) -> int:
    """``where.index(zone, lo, hi)`` as a loop, faster in the compiled build."""
    for card in range(lo, hi):
        if where[card] == zone:
            return card
    raise ValueError(f"no card of zone {zone} among {lo}..{hi - 1}")


def _nth(where: list[int], zone: int, lo: int, j: int) -> int:
    """The card of the ``j``-th place (from 0) among the cards from ``lo`` on that lie in
    ``zone``, which has more than ``j`` of them (a loop, fast in the compiled build)."""
    card = lo
    while True:
        if where[card] == zone:
            if j == 0:
                return card
            j -= 1
        card += 1


_BLAKE64: Final = blake2b(digest_size=8)
"""An empty BLAKE2b-64 state, which the payments' hashes start from (a copy costs less
than a new one)."""


def _pay_head(seed: int, chance: int) -> str:
    """The text every draw of payment ``chance`` begins with: ``derive_seed(seed, "pay",
    chance, draw)`` hashes ``repr((seed, "pay", chance, draw))``, written out here
    directly; the draw's number and ``)`` follow."""
    # repr of an int is its digits (str, faster compiled), but not of every subclass
    text = str(seed) if type(seed) is int else repr(seed)
    return f"({text}, 'pay', {chance}, "


def _pay_hasher(seed: int, chance: int) -> blake2b:
    """The BLAKE2b-64 state of :func:`_pay_head`, for a payment of several cards: a
    draw (:func:`_pay_draw`) hashes only the rest."""
    hasher = _BLAKE64.copy()
    hasher.update(_pay_head(seed, chance).encode())
    return hasher


def _pay_draw(prefix: blake2b, draw: int) -> int:
    """``derive_seed(seed, "pay", chance, draw)`` from the state :func:`_pay_hasher`
    made of ``seed`` and ``chance``."""
    hasher = prefix.copy()
    hasher.update(b"%d)" % draw)
    return int.from_bytes(hasher.digest(), "big")


def _pay_seed(seed: int, chance: int, draw: int) -> int:
    """``derive_seed(seed, "pay", chance, draw)``, the same number made faster: the
    whole text hashed at once, for a payment of one card (no state kept for more)."""
    hasher = _BLAKE64.copy()
    hasher.update(f"{_pay_head(seed, chance)}{draw})".encode())
    return int.from_bytes(hasher.digest(), "big")


def _keeps_extra(rules: Rules) -> bool:
    """Whether a game's JSON states the rows sold and purchase laps: only for variants
    whose rules read them (the built-in editions' JSON stays as it was)."""
    return (
        rules.score_weights[4] != 0
        or rules.per_round > 1
        or any(rule.endswith("rows_sold") for rule in rules.tiebreak)
    )


class Observation(NamedTuple):
    """What one seat may know. Card kinds are counts in the variant's kind order.

    Public: windows, safes, cash pile sizes, purchase cards, start player, discards,
    deck size, every hand's size. Private to ``seat``: its own hand. Hidden from
    everyone: other hands' cards, the deck's order and contents, the faces of all
    cash cards (the owner's included). [CARD-2]
    """

    seat: Seat
    players: int
    kinds: tuple[str, ...]
    phase: Phase
    current_player: Seat | None
    round: int
    start_player: Seat
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    windows: tuple[tuple[int, ...], ...]
    safes: tuple[tuple[int, ...], ...]
    cash: tuple[int, ...]
    purchase_cards: tuple[int, ...]  # per seat, 0 = none
    buying: int  # the purchase card whose turn it is (0 outside purchase/sell)
    deck_size: int
    discard: tuple[int, ...]


class Game(Engine):
    """A game of a Klunker-family variant.

    ``apply`` validates every action and raises :class:`IllegalActionError` (leaving
    the game untouched) for one the rules forbid. Create games with :func:`new_game`,
    :meth:`from_position` or :meth:`from_json`.
    """

    __slots__ = (
        "_acted",
        "_buying",
        "_chance",
        "_counts",
        "_deck",
        "_decliner",
        "_from_setup",
        "_hands",
        "_held",
        "_legal",
        "_next_card",
        "_phase",
        "_round",
        "_seats",
        "_start",
        "_step",
        "_termination",
        "_totals",
        "_turn",
        "_where",
        "first_player",
        "history",
        "n",
        "rules",
        "seed",
        "variant",
    )

    # Every field, declared once (the slots above list the same names, as the compiled
    # build needs them written out; tests/test_packaging.py checks the two agree): clone,
    # ==, pickling follow from it; the setup's fields first, as the core's Engine declares
    # them. Not compared: the variant, the moves that led here, caches and the counts
    # kept from the cards' places.
    STATE: ClassVar[tuple[StateField, ...]] = (
        *Engine.SETUP_STATE,
        StateField("first_player", compared=False),
        StateField("_hands", compared=False),  # the rules' per-seat readers, never changed
        StateField("history", Copy.LIST, compared=False),
        StateField("_seats", Copy.LIST, compared=False),
        StateField("_chance"),
        StateField("_where", Copy.LIST),
        StateField("_counts", Copy.LIST, compared=False),
        StateField("_totals", Copy.LIST, compared=False),
        StateField("_deck", Copy.LIST),
        StateField("_held", Copy.LIST),
        StateField("_next_card"),
        StateField("_buying"),
        StateField("_decliner"),
        StateField("_acted"),
        StateField("_termination"),
        StateField("_phase"),
        StateField("_turn"),
        StateField("_start"),
        StateField("_round"),
        StateField("_step"),
        StateField("_legal", compared=False),  # replaced whole, never changed in place
    )

    family = "klunker"
    SETUP_OPTIONS: ClassVar[tuple[str, ...]] = ("first_player",)
    PROGRESS: ClassVar[str] = "_round"
    # Positions (docs/positions.md; card identities are not kept) and game JSON.
    POSITIONS: ClassVar[str] = "cardshop.klunker.position"
    SERIAL: ClassVar[str] = "cardshop.klunker.serial"
    rules: Rules
    variant: Variant
    n: int
    seed: int
    # Written out: a compiled class keeps only its own annotated fields (the core's Engine
    # annotates these too), others in a dict.
    _from_setup: bool
    _termination: int
    first_player: Seat
    history: list[Action]

    # ------------------------------------------------------------------ creation

    def _setup(self, first_player: Seat | None) -> None:
        """SETUP-2 to SETUP-4, for :meth:`Engine.new`: the first player drawn (unless
        named), the deck shuffled, starting cash and hands dealt."""
        rules = self.rules
        players = self.n
        seed = self.seed
        # Two separate chance events, so that naming the first player does not change
        # the shuffle: the same seed deals the same cards whoever starts.
        source = chance_source(self.variant.chance)
        if first_player is None:
            first_player = source.below(players, seed, "first-player")  # SETUP-2
        self.first_player = first_player
        self._start = first_player
        deck = list(range(rules.n_cards))
        source.shuffle((deck,), seed, "deal", kinds=rules.kind_of)
        self._deck = deck
        n_zones = 4 * players + 2
        deck_zone = 4 * players
        self._where = [deck_zone] * rules.n_cards
        k = rules.k
        counts = [0] * (n_zones * k)
        start = rules.kind_start
        counts[deck_zone * k : deck_zone * k + k] = [start[i + 1] - start[i] for i in range(k)]
        self._counts = counts
        # After the zones: rows sold per seat, then the purchase laps done (BUY-7).
        self._totals = [0] * (n_zones + players + 1)
        self._totals[deck_zone] = rules.n_cards
        events: list[Event] = []
        cash = rules.seat_cash[players]
        for i in range(players):  # SETUP-3
            s = (first_player + i) % players
            if cash[i]:
                events.append(_new(Dealt, (s, "bank", self._deal(3 * players + s, cash[i]))))
        for i in range(players):  # SETUP-4
            s = (first_player + i) % players
            events.append(_new(Dealt, (s, "hand", self._deal(3 * s, rules.hand_size))))
        self._round = 1
        self._step = 0
        self._run_steps(events)

    def _init_empty(self, variant: Variant, players: int, seed: int) -> None:
        self.rules = variant.rules  # variant, n, seed and _from_setup: Engine._empty
        self._hands = self.rules.hand_getters(players)
        self.history = []
        self._seats: list[Seat] = []
        self._chance = 0
        self._held = [0] * players
        self._next_card = 1
        self._buying = 0
        self._decliner = -1
        self._acted = 0
        self._termination = 0
        self._phase = FILL
        self._turn = -1
        self._legal: list[Action] | None = None

    # ------------------------------------------------------------- public view

    @property
    def current_player(self) -> Seat | None:
        """The seat to act, or ``None`` when the game is over."""
        return self._turn if self._turn >= 0 else None

    @property
    def acting(self) -> tuple[Seat, ...]:
        """The seat to act, alone; empty when the game is over (seats take turns)."""
        return (self._turn,) if self._turn >= 0 else ()

    @property
    def moves(self) -> list[Move]:
        """Every action applied to this game object, with the seat that took it."""
        return [
            _new(Move, (i, seat, action))  # as the events: without Move's Python __new__
            for i, (seat, action) in enumerate(zip(self._seats, self.history, strict=True))
        ]

    @property
    def phase(self) -> Phase:
        return _PHASES[self._phase]

    @property
    def is_over(self) -> bool:
        return self._phase == OVER

    @property
    def round(self) -> int:
        """The current round, from 1 (:meth:`progress`: the family counts its length in
        rounds)."""
        return self._round

    @property
    def start_player(self) -> Seat:
        return self._start

    @property
    def purchase_cards(self) -> tuple[int, ...]:
        """The purchase card each seat holds (0 = none)."""
        return tuple(self._held)

    @property
    def purchase_lap(self) -> int:
        """The purchase card holders' turn in this purchase step, from 1 (BUY-7); 0
        outside the purchase step."""
        if self._phase != PURCHASE and self._phase != SELL:
            return 0
        return self._totals[5 * self.n + 2] + 1

    def cash(self, seat: Seat) -> int:
        """Number of cash cards in ``seat``'s bank: its score. [SCORE-1]"""
        return self._totals[3 * self.n + seat]

    def zone_counts(self, zone: Checked[str]) -> dict[str, int]:
        """Cards of each kind in a zone, e.g. ``zone_counts("safe:1")`` (kinds present only)."""
        z = self._zone_index(zone)
        k = self.rules.k
        row = self._counts[z * k : z * k + k]
        return {name: c for name, c in zip(self.rules.kinds, row, strict=True) if c}

    def zone_names(self) -> list[str]:
        """Every zone's name, in the order of the zones' numbers (a new list)."""
        return list(_zone_names(self.n))

    def _zone_index(self, zone: Checked[str]) -> int:
        try:
            return _zone_names(self.n).index(zone)
        except ValueError:
            raise GameStateError(
                f"unknown zone {zone!r}; zones are {', '.join(self.zone_names())}"
            ) from None

    def zones(self) -> dict[str, tuple[int, ...]]:
        """Every zone's card ids. The deck is listed top card first; others by id. [CARD-1]"""
        names = _zone_names(self.n)
        out: dict[str, list[int]] = {name: [] for name in names}
        deck_zone = 4 * self.n
        for card, z in enumerate(self._where):
            if z != deck_zone:
                out[names[z]].append(card)
        out["deck"] = self._deck[::-1]
        return {name: tuple(cards) for name, cards in out.items()}

    def card_kind(self, card: int) -> str:
        """The jewelry kind of a card id."""
        return self.rules.kinds[self.rules.kind_of[card]]

    # ------------------------------------------------------------ legal actions

    def legal_actions(self, seat: Checked[Seat | None] = None) -> LegalActions:
        """The actions the current player may take, sorted by text; empty when over.

        ``seat``, if given, must be the current player (the core protocol's form). A
        read-only view of the list the game computed once for this state (no copy).
        """
        if seat is not None and seat != self._turn:
            self.require_seat(seat)
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return LegalActions(legal)

    def _compute_legal(self) -> list[Action]:
        phase = self._phase
        turn = self._turn
        rules = self.rules
        counts = self._counts
        k = rules.k
        if phase == FILL:
            cap = rules.window_cap
            if cap and self._totals[3 * turn + 1] >= cap:  # FILL-3
                return [DONE]
            if not _PURE:  # compiled: a native loop beats the C-level calls below
                return self._native_hand_actions(rules.place_actions, DONE)
            acts = list(compress(rules.place_alpha, self._hands[turn](counts)))
            if self._totals[3 * turn + 1] or not acts:  # FILL-2
                acts.insert(0, DONE)
            return acts
        if phase == STORE:
            if not _PURE:
                return self._native_hand_actions(rules.store_actions, PASS)
            acts = [PASS]
            acts += compress(rules.store_alpha, self._hands[turn](counts))
            return acts
        if phase == PURCHASE:
            totals = self._totals
            n = self.n
            if rules.price_expr is None:
                can_pay = rules.broke_may_buy or totals[3 * n + turn] >= rules.price  # BUY-6
                acts = [
                    rules.buy_actions[w]
                    for w in range(n)
                    if totals[3 * w + 1] and (w == turn or can_pay)
                ]
            else:
                acts = [
                    rules.buy_actions[w]
                    for w in range(n)
                    if totals[3 * w + 1]
                    and (w == turn or rules.broke_may_buy or self._can_pay(turn, w))
                ]
            if not totals[3 * turn + 1]:  # BUY-4/5
                acts.append(DECLINE)
            return acts
        if phase == SELL:
            base = (3 * turn + 2) * k
            size = rules.set_size
            return [rules.sell_actions[i] for i in rules.alpha if counts[base + i] >= size]
        return []

    def _price(self, buyer: Seat, owner: Seat) -> int:
        """The price of ``owner``'s window for ``buyer`` now. [BUY-3]"""
        n = self.n
        totals = self._totals
        return self.rules.price_for(
            totals[3 * owner + 1],
            totals[3 * n + buyer],
            totals[3 * n + owner],
            n,
            self._round,
            totals[5 * n + 2] + 1,
        )

    def _can_pay(self, buyer: Seat, owner: Seat) -> bool:
        return self._totals[3 * self.n + buyer] >= self._price(buyer, owner)  # BUY-6

    def _native_hand_actions(self, by_kind: tuple[Action, ...], first: Action) -> list[Action]:
        """The fill or store actions, as :meth:`_compute_legal` makes them, for the
        compiled build: ``first`` (done or pass), then one action per kind in hand in
        alphabetical order. ``done`` is left out while the window is empty and the hand
        is not (FILL-2); ``pass`` is always there."""
        turn = self._turn
        rules = self.rules
        counts = self._counts
        base = 3 * turn * rules.k
        always = first is PASS or self._totals[3 * turn + 1] > 0
        acts: list[Action] = [first] if always else []
        for i in rules.alpha:
            if counts[base + i]:
                acts.append(by_kind[i])
        if not acts:
            acts.append(first)
        return acts

    def is_legal(self, action: Checked[Action | str]) -> bool:
        """Whether ``action`` (an action or its text) may be applied now."""
        try:
            parsed = self._as_action(action)
        except ActionError:
            return False
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return parsed in legal

    def _as_action(self, action: object) -> Action:
        """``action`` as an Action of this game's vocabulary (the slow path of apply).

        Texts are parsed; an :class:`Action` must have an argument of exactly the type
        its verb takes (``Action("buy", True)`` is refused: True == 1 in Python); any
        other object is refused with :class:`ActionError`.
        """
        if isinstance(action, str):
            return self.parse_action(action)
        kind = type(action)  # not `type(action) is Action`: see the cast below
        if kind is not Action:
            raise ActionError(
                f"an action must be a cardshop Action or its text, not {kind.__name__}"
            )
        # Fields as plain objects: an Action-typed value would have its fields' types
        # tested on the way in the compiled build (TypeError), before the check here.
        verb, arg = cast("tuple[object, object]", action)
        if not isinstance(verb, str) or type(arg) not in _ARG_TYPES:
            raise ActionParseError(
                f"Action({format_value(verb)}, {format_value(arg)}): the verb must be a str "
                f"and the argument a str, an int or None, not {type(arg).__name__}"
            )
        return cast(Action, action)

    def parse_action(self, text: Checked[str], seat: Checked[Seat | None] = None) -> Action:
        """Parse an action's text form (``"window shoes"``, ``"buy 2"``) for this game.

        Checks the verb and that the argument names a card kind or seat of this game;
        whether the action is legal *now* is for :meth:`apply` to check.
        """
        if not isinstance(text, str):
            raise ActionParseError(f"an action text must be a str, not {type(text).__name__}")
        known = self.rules.actions_by_text.get(text)
        if known is not None and (known.verb != "buy" or known.arg < self.n):  # type: ignore[operator]
            return known
        action = Action.from_text(text)
        verb, arg = action
        rules = self.rules
        if verb not in VERBS:
            raise ActionParseError(
                f"unknown action {text!r}; actions are: " + "; ".join(VERBS.values())
            )
        if verb in ("done", "pass", "decline"):
            if arg is not None:
                raise ActionParseError(f"{verb!r} takes no argument (got {text!r})")
            return Action(verb)
        if arg is None:
            raise ActionParseError(f"{text!r} needs an argument: {VERBS[verb]}")
        if verb == "buy":
            if not isinstance(arg, int) or not 0 <= arg < self.n:
                raise ActionParseError(f"{text!r}: seat must be 0..{self.n - 1}")
            return rules.buy_actions[arg]
        if not isinstance(arg, str) or arg not in rules.kind_index:
            raise ActionParseError(
                f"{text!r}: unknown card kind; kinds are {', '.join(rules.kinds)}"
            )
        return Action(verb, arg)

    # ----------------------------------------------------------------- apply

    def apply(
        self, action: Checked[Action | str], seat: Checked[Seat | None] = None
    ) -> list[Event]:
        """Play ``action`` (an :class:`Action` or its text) for the current player.

        Returns the events it caused, including automatic steps that followed (sales,
        tax, reshuffle, refill, end of round or game). Raises
        :class:`IllegalActionError` and changes nothing if the rules forbid it.
        ``seat``, if given, must be the current player.
        """
        if seat is not None and seat != self._turn:
            self.require_seat(seat)
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        # The fast path: an Action equal to a legal one, with an argument of an exact type
        # (compiled: one of the legal Action objects itself, found by a native loop).
        # The argument's type is looked at before `in legal` (and through `kind`), which
        # narrow `action` to Action: the compiled build would then test the fields' types
        # itself and refuse a bad one with TypeError instead of ActionParseError.
        kind = type(action)
        if _PURE:
            fast = kind is Action and type(action[1]) in _ARG_TYPES and action in legal
        else:  # an action from legal_actions() (what bots and loops pass) is found fast
            fast = _holds(legal, action)
        if not fast:
            checked = self._as_action(action)
            if checked not in legal:
                why = self._why_illegal(checked) or "not legal now"
                raise IllegalActionError(
                    f"illegal action {str(checked)!r} for seat {self._turn} in "
                    f"{self.phase.value} phase of round {self._round}: {why}"
                )
        else:
            checked = cast(Action, action)
        self._legal = None
        events: list[Event] = []
        self._seats.append(self._turn)  # the core's bookkeeping (_record), written out
        self._do(checked, events)
        self.history.append(checked)
        return events

    def _record(self, actions: Mapping[Seat, Action]) -> None:
        """The move of the one acting seat, kept as Klunker keeps its moves: the action
        on :attr:`history`, the seat on ``_seats`` (the core's apply)."""
        ((seat, action),) = actions.items()
        self._seats.append(seat)
        self.history.append(action)

    def _play(self, actions: Mapping[Seat, Action]) -> list[Event]:
        """The checked and recorded action of the one acting seat (the core's apply)."""
        ((_, action),) = actions.items()
        self._legal = None
        events: list[Event] = []
        self._do(action, events)
        return events

    def _why_illegal(self, action: Action) -> str | None:
        """Why ``action`` is illegal now, or None if it is legal."""
        turn = self._turn
        if turn < 0:
            return "the game is over"
        verb, arg = action
        phase = self._phase
        rules = self.rules
        n = self.n
        if verb not in VERBS:
            return f"unknown verb {verb!r}"
        expected = {
            FILL: ("window", "done"),
            STORE: ("store", "pass"),
            PURCHASE: ("buy", "decline"),
            SELL: ("sell",),
        }[phase]
        if verb not in expected:
            return f"in this phase the actions are {' / '.join(expected)}"
        k = rules.k
        if verb in ("window", "store", "sell"):
            kind = rules.kind_index.get(arg) if isinstance(arg, str) else None
            if kind is None:
                return f"unknown card kind {arg!r}; kinds are {', '.join(rules.kinds)}"
            if verb == "sell":
                if self._counts[(3 * turn + 2) * k + kind] < rules.set_size:
                    return f"the safe holds no complete row of {arg}"
                return None
            if not self._counts[3 * turn * k + kind]:
                return f"no {arg} in hand"
            cap = rules.window_cap
            if verb == "window" and cap and self._totals[3 * turn + 1] >= cap:
                return f"the window holds {cap} cards, the most it may (FILL-3)"
            return None
        if verb == "done":
            if not self._totals[3 * turn + 1] and self._totals[3 * turn]:
                return "the window is empty: place at least one card first (FILL-2)"
            return None
        if verb == "pass":
            return None
        window = self._totals[3 * turn + 1]
        if verb == "decline":
            if window:
                return "a player whose window is not empty must buy (BUY-4)"
            return None
        # buy
        if not isinstance(arg, int) or not 0 <= arg < n:
            return f"no seat {arg!r}; seats are 0..{n - 1}"
        if not self._totals[3 * arg + 1]:
            return f"seat {arg}'s window is empty (BUY-2)"
        if arg != turn and not rules.broke_may_buy:
            cash = self._totals[3 * n + turn]
            price = self._price(turn, arg)
            if cash < price:
                return (
                    f"seat {turn} has {cash} cash and cannot pay {price} "
                    f"for another player's window (BUY-6)"
                )
        return None

    def _do(self, action: Action, events: list[Event]) -> None:
        """Carry out a legal action (no checks)."""
        verb, arg = action
        turn = self._turn
        rules = self.rules
        n = self.n
        if verb == "window":  # FILL-1
            kind = rules.kind_index[arg]  # type: ignore[index]
            card = self._move(kind, 3 * turn, 3 * turn + 1)
            events.append(_new(Placed, (turn, arg, card)))
        elif verb == "done":
            events.append(_new(WindowDone, (turn,)))
            self._acted += 1
            if self._acted == n:
                self._step += 1
                self._run_steps(events)
            else:
                self._turn = (self._start + self._acted) % n
        elif verb == "store":  # STORE-1
            kind = rules.kind_index[arg]  # type: ignore[index]
            card = self._move(kind, 3 * turn, 3 * turn + 2)
            events.append(_new(Stored, (turn, arg, card)))
            # Only the stored kind can have completed a row (SELL-2).
            if self._counts[(3 * turn + 2) * rules.k + kind] >= rules.set_size:
                self._sell_completed(turn, events)
            self._next_storer()
        elif verb == "pass":  # STORE-2
            card_no = self._next_card
            self._held[turn] = card_no
            self._next_card = card_no + 1
            events.append(_new(Passed, (turn, card_no)))
            if card_no == n:  # STORE-4
                self._step += 1
                self._run_steps(events)
            else:
                self._next_storer()
        elif verb == "buy":
            self._buy(turn, arg, events)  # type: ignore[arg-type]
        elif verb == "decline":  # BUY-5
            events.append(_new(Declined, (turn,)))
            if self._decliner < 0:
                self._decliner = turn
            if rules.decline_ends_phase:
                self._end_purchase(events)
            else:
                self._next_buyer(events)
        else:  # sell  (SELL-6)
            self._sell_row(turn, rules.kind_index[arg], events)  # type: ignore[index]
            if self._sell_completed(turn, events):
                self._next_buyer(events)

    # ------------------------------------------------------------ mechanics

    def _move(self, kind: int, src: int, dst: int) -> int:
        """Move one card of ``kind`` from zone ``src`` to ``dst``; return its id."""
        rules = self.rules
        where = self._where
        if _PURE:
            card = where.index(src, rules.kind_start[kind], rules.kind_start[kind + 1])
        else:  # compiled: a native scan beats the method call
            card = _index(where, src, rules.kind_start[kind], rules.kind_start[kind + 1])
        self._moved(card, kind, src, dst)
        return card

    def _moved(self, card: int, kind: int, src: int, dst: int) -> None:
        """Book ``card`` (of ``kind``) moved from zone ``src`` to ``dst``: its zone, the
        zones' counts of its kind and their totals."""
        self._where[card] = dst
        k = self.rules.k
        counts = self._counts
        # `x[i] = x[i] - 1`, not `x[i] -= 1`: the compiled build does the first natively.
        i = src * k + kind
        counts[i] = counts[i] - 1
        i = dst * k + kind
        counts[i] = counts[i] + 1
        totals = self._totals
        totals[src] = totals[src] - 1
        totals[dst] = totals[dst] + 1

    def _pay(self, src: int, dst: int, count: int) -> tuple[int, ...]:
        """Move ``count`` cards drawn at random from bank ``src`` to ``dst``. [BUY-3, END-2]

        Cash faces are hidden, so a payment is a blind draw. It is one chance event:
        the chance counter goes up by one, and draw ``i`` takes the card at index
        ``derive_seed(seed, "pay", chance, i) mod size`` among the bank's cards (by
        kind, then id). A 64-bit value modulo a bank of at most a few hundred cards is
        uniform to within 2**-50, and this costs a fifth of building a generator.
        ``count`` is at most the bank's size.
        """
        self._chance += 1
        chance = self._chance
        seed = self.seed
        rules = self.rules
        k = rules.k
        counts = self._counts
        totals = self._totals
        where = self._where
        start = rules.kind_start
        base = src * k
        paid: list[int] = []
        source = chance_source(self.variant.chance)
        seeded = source.seeded
        # A payment of several cards hashes their common text once (most pay one).
        prefix = _pay_hasher(seed, chance) if seeded and count > 1 else None
        for draw in range(count):
            if prefix is not None:
                j = _pay_draw(prefix, draw) % totals[src]
            elif seeded:
                j = _pay_seed(seed, chance, draw) % totals[src]
            else:
                j = source.pick(totals[src], seed, "pay", chance, draw)
            kind = 0
            while j >= counts[base + kind]:
                j -= counts[base + kind]
                kind += 1
            if _PURE:
                card = where.index(src, start[kind], start[kind + 1])
                for _ in range(j):  # the j-th card of that kind in the bank, by id
                    card = where.index(src, card + 1, start[kind + 1])
            else:  # compiled: one native scan beats j + 1 method calls
                card = _nth(where, src, start[kind], j)
            self._moved(card, kind, src, dst)
            paid.append(card)
        return tuple(paid)

    def _to_deck(self, card: int, src: int) -> None:
        self._moved(card, self.rules.kind_of[card], src, 4 * self.n)
        self._deck.append(card)

    def _deal(self, zone: int, count: int) -> tuple[int, ...]:
        deck = self._deck
        where = self._where
        kind_of = self.rules.kind_of
        counts = self._counts
        k = self.rules.k
        deck_base = 4 * self.n * k
        base = zone * k
        cards = []
        for _ in range(count):
            card = deck.pop()
            where[card] = zone
            kind = kind_of[card]
            i = deck_base + kind
            counts[i] = counts[i] - 1  # not -=, as in _move
            i = base + kind
            counts[i] = counts[i] + 1
            cards.append(card)
        self._totals[4 * self.n] -= count
        self._totals[zone] += count
        return tuple(cards)

    def _rows(self, seat: Seat) -> int:
        """Rows in a seat's safe: per kind, ceil(count / set size). [SELL-1]"""
        size = self.rules.set_size
        k = self.rules.k
        base = (3 * seat + 2) * k
        return sum((c + size - 1) // size for c in self._counts[base : base + k])

    def _sell_row(self, seat: Seat, kind: int, events: list[Event]) -> None:
        """Sell one complete row of ``kind`` from ``seat``'s safe. [SELL-3, SELL-4, SELL-5]"""
        rules = self.rules
        rows = self._rows(seat)
        pay = rules.pay_for(kind, rows)
        safe = 3 * seat + 2
        n = self.n
        bank = 3 * n + seat
        size = rules.set_size
        cash = tuple(self._move(kind, safe, bank) for _ in range(min(pay, size)))
        discard = 4 * n + 1
        gone = tuple(self._move(kind, safe, discard) for _ in range(size - pay))
        if rules.unpaid_to_deck:
            for card in gone:
                self._to_deck(card, discard)
        if pay > size:  # SELL-7: the rest from the top of the deck, as far as it goes
            cash += self._deal(bank, min(pay - size, len(self._deck)))
            pay = len(cash)
        self._totals[4 * n + 2 + seat] += 1
        events.append(_new(Sold, (seat, rules.kinds[kind], rows, pay, cash, gone)))

    def _sell_completed(self, seat: Seat, events: list[Event]) -> bool:
        """Sell completed rows while there is no choice to make. [SELL-2, SELL-6]

        Returns True when no complete row is left; False when rows of two or more
        kinds are complete and the seat must choose (the phase becomes SELL).
        """
        rules = self.rules
        k = rules.k
        size = rules.set_size
        base = (3 * seat + 2) * k
        counts = self._counts
        while True:
            if _PURE:
                row = counts[base : base + k]
                done = [i for i, c in enumerate(row) if c >= size] if max(row) >= size else []
            else:  # compiled: a native loop beats the slice and max()
                done = [i for i in range(k) if counts[base + i] >= size]
            if not done:
                if self._phase == SELL:
                    self._phase = PURCHASE
                return True
            if len(done) > 1:
                self._phase = SELL
                return False
            self._sell_row(seat, done[0], events)

    def _next_storer(self) -> None:
        held = self._held
        n = self.n
        turn = self._turn
        for i in range(1, n + 1):
            seat = (turn + i) % n
            if not held[seat]:
                self._turn = seat
                return

    def _buy(self, seat: Seat, owner: Seat, events: list[Event]) -> None:
        """Buy all of ``owner``'s window into ``seat``'s safe. [BUY-2, BUY-3]"""
        rules = self.rules
        n = self.n
        k = rules.k
        window = 3 * owner + 1
        safe = 3 * seat + 2
        price = 0
        paid: tuple[int, ...] = ()
        if owner != seat:  # the price reads the window before it moves (BUY-3)
            due = rules.price if rules.price_expr is None else self._price(seat, owner)
            price = min(due, self._totals[3 * n + seat])
        where = self._where
        counts = self._counts
        start = rules.kind_start
        moved_cards: list[int] = []
        for kind in range(k):
            c = counts[window * k + kind]
            if c:
                counts[window * k + kind] = 0
                counts[safe * k + kind] += c
                lo, hi = start[kind], start[kind + 1]
                for _ in range(c):
                    card = where.index(window, lo, hi) if _PURE else _index(where, window, lo, hi)
                    where[card] = safe
                    moved_cards.append(card)
                    lo = card + 1
        cards = tuple(moved_cards)
        moved = len(cards)
        self._totals[window] -= moved
        self._totals[safe] += moved
        if price:
            paid = self._pay(3 * n + seat, 3 * n + owner, price)
        events.append(_new(Bought, (seat, owner, cards, price, paid)))
        if self._sell_completed(seat, events):
            self._next_buyer(events)

    def _next_buyer(self, events: list[Event]) -> None:
        """Hand the turn to the next purchase card, or end the phase. [BUY-1]"""
        card_no = self._buying + 1
        n = self.n
        if card_no > n:
            laps = 5 * n + 2
            if self._totals[laps] + 1 >= self.rules.per_round:
                self._end_purchase(events)
                return
            self._totals[laps] += 1  # BUY-7: the purchase cards buy again, from card 1
            card_no = 1
        self._buying = card_no
        self._turn = self._held.index(card_no)
        self._phase = PURCHASE

    def _end_purchase(self, events: list[Event]) -> None:
        """Purchase cards go back; a decliner becomes start player. [END-1]"""
        self._held = [0] * self.n
        self._next_card = 1
        self._buying = 0
        self._totals[5 * self.n + 2] = 0
        if self._decliner >= 0:
            self._start = self._decliner
            self._decliner = -1
        self._step += 1
        self._run_steps(events)

    def _run_steps(self, events: list[Event]) -> None:
        """Run automatic steps until a player must decide or the game ends. [ROUND-1]"""
        rules = self.rules
        steps = rules.steps
        n = self.n
        while True:
            if self._step == len(steps):
                events.append(_new(RoundEnded, (self._round, self._start)))
                if self._round >= rules.round_limit:  # TERM-1, TERM-2
                    self._end_game(rules.limit_ending, events)
                    return
                self._round += 1
                self._step = 0
            code = steps[self._step]
            if code == S_FILL:
                self._phase = FILL
                self._acted = 0
                self._turn = self._start
                return
            if code == S_STORE:
                self._phase = STORE
                self._next_card = 1
                self._turn = self._start
                return
            if code == S_PURCHASE:
                self._phase = PURCHASE
                self._buying = 1
                self._turn = self._held.index(1)
                return
            if code == S_TAX:  # END-2
                due = rules.tax.get(n, 0)
                if due:
                    for i in range(n):
                        seat = (self._start + i) % n
                        bank = 3 * n + seat
                        owed = min(due, self._totals[bank])
                        paid: tuple[int, ...] = ()
                        if owed:
                            paid = self._pay(bank, 4 * n + 1, owed)
                            if rules.tax_to_deck:
                                for card in paid:
                                    self._to_deck(card, 4 * n + 1)
                        events.append(_new(Taxed, (seat, paid)))
            elif code == S_RESHUFFLE:  # END-3
                self._reshuffle(events)
            elif code == S_REFILL and not self._refill(events):  # END-4, END-5
                self._end_game(1, events)
                return
            self._step += 1

    def _reshuffle(self, events: list[Event]) -> None:
        n = self.n
        discard_zone = 4 * n + 1
        for card in [c for c, z in enumerate(self._where) if z == discard_zone]:
            self._to_deck(card, discard_zone)
        self._chance += 1
        chance_source(self.variant.chance).shuffle(
            (self._deck,), self.seed, "reshuffle", self._chance, kinds=self.rules.kind_of
        )
        events.append(_new(Reshuffled, (len(self._deck),)))

    def _refill(self, events: list[Event]) -> bool:
        n = self.n
        size = self.rules.hand_size
        totals = self._totals
        need = sum(max(0, size - totals[3 * s]) for s in range(n))
        if need > len(self._deck):
            return False
        for i in range(n):
            seat = (self._start + i) % n
            missing = size - totals[3 * seat]
            if missing > 0:
                events.append(_new(Dealt, (seat, "hand", self._deal(3 * seat, missing))))
        return True

    def _end_game(self, termination: int, events: list[Event]) -> None:
        if self._next_card != 1:  # END-4 between store and purchase: the cards go back
            self._held = [0] * self.n
            self._next_card = 1
            self._decliner = -1
        self._termination = termination
        self._phase = OVER
        self._turn = -1
        events.append(_new(GameEnded, (_ENDINGS[termination], self.scores())))

    # ---------------------------------------------------------------- results

    def scores(self) -> tuple[int, ...]:
        """The score per seat, at any moment: the cash cards, or the weighted sum the
        variant's ``score`` sets. [SCORE-1]"""
        n = self.n
        if self.rules.cash_only:
            return tuple(self._totals[3 * n : 4 * n])
        return tuple([self.rules.score_of(*self._counts_of(s)) for s in range(n)])

    def rows_sold(self, seat: Checked[Seat]) -> int:
        """Rows ``seat`` has sold this game. [SELL-2]"""
        return self._totals[4 * self.n + 2 + seat]

    def _counts_of(self, seat: Seat) -> tuple[int, int, int, int, int]:
        """A seat's cash, hand, safe, window and rows sold (the score's terms)."""
        totals = self._totals
        n = self.n
        return (
            totals[3 * n + seat],
            totals[3 * seat],
            totals[3 * seat + 2],
            totals[3 * seat + 1],
            totals[4 * n + 2 + seat],
        )

    def _rank_key(self, seat: Seat) -> tuple[int, ...]:
        """Highest score first, then the variant's tiebreaks (the result's ranks
        follow). [SCORE-1, SCORE-2]"""
        rules = self.rules
        counts = self._counts_of(seat)
        key = [counts[0] if rules.cash_only else rules.score_of(*counts)]
        for rule in rules.tiebreak:
            key.append(rules.tiebreak_value(rule, *counts))
        return tuple(key)

    # ------------------------------------------------------------ observation

    def observation(self, seat: Checked[Seat]) -> Observation:
        """What ``seat`` may know, and nothing more. [CARD-2]"""
        n = self.n
        if not (isinstance(seat, int) and 0 <= seat < n):
            raise GameStateError(f"no seat {seat!r}; seats are 0..{n - 1}")
        k = self.rules.k
        counts = tuple(self._counts)  # slices of a tuple are tuples: no copy per zone
        totals = tuple(self._totals)
        k3 = 3 * k
        hand = 3 * seat * k
        turn = self._turn
        # Positional arguments, in the field order of Observation (this is a hot path).
        return Observation(
            seat,
            n,
            self.rules.kinds,
            _PHASES[self._phase],
            turn if turn >= 0 else None,
            self._round,
            self._start,
            counts[hand : hand + k],
            totals[0 : 3 * n : 3],
            tuple([counts[b : b + k] for b in range(k, k3 * n, k3)]),
            tuple([counts[b : b + k] for b in range(2 * k, k3 * n, k3)]),
            totals[3 * n : 4 * n],
            tuple(self._held),
            self._buying,
            totals[4 * n],
            counts[(4 * n + 1) * k : (4 * n + 2) * k],
        )

    # ------------------------------------------------------------------ copies

    def clone(self) -> Game:
        """An independent copy: playing on it never changes this game (written out for
        speed; the conformance battery checks it against :meth:`derived_clone`)."""
        g = Game()  # a blank game: the class has no __init__
        # The setup (Engine.SETUP_STATE) is shared: it never changes once the game is set up.
        g.variant, g.rules, g.n, g.seed = self.variant, self.rules, self.n, self.seed
        g._from_setup = self._from_setup
        g._hands = self._hands
        g.first_player = self.first_player
        g.history = self.history.copy()
        g._seats = self._seats.copy()
        g._chance = self._chance
        g._where = self._where.copy()
        g._counts = self._counts.copy()
        g._totals = self._totals.copy()
        g._deck = self._deck.copy()
        g._held = self._held.copy()
        g._next_card = self._next_card
        g._buying = self._buying
        g._decliner = self._decliner
        g._acted = self._acted
        g._termination = self._termination
        g._phase = self._phase
        g._turn = self._turn
        g._start = self._start
        g._round = self._round
        g._step = self._step
        g._legal = self._legal  # never mutated in place, so it can be shared
        return g

    def __eq__(self, other: object) -> bool:
        # Written out: a class compiled by mypyc fills its comparison slot itself and
        # would not reach the inherited method through ``==``.
        return Engine.__eq__(self, other)

    __hash__ = None

    def __repr__(self) -> str:
        turn = "over" if self._turn < 0 else f"seat {self._turn} to act"
        return (
            f"<Game {self.rules.name} players={self.n} seed={self.seed} "
            f"round={self._round} phase={self.phase.value} {turn}>"
        )

    # -------------------------------------------------------------------- JSON

    FORMAT: ClassVar[str] = "cardshop-klunker-game/1"  # ClassVar: a class attribute in mypyc

    def to_dict(self) -> dict[str, Any]:
        """The whole game as JSON-ready data (the resolved variant included)."""
        data = self._plain_dict()
        data["variant"] = json.loads(self.rules.variant_json)  # a fresh copy, dumped once
        return data

    @property
    def decliner(self) -> int:
        """The first seat to decline a purchase this round (it starts the next round), or -1."""
        return self._decliner

    def _plain_dict(self) -> dict[str, Any]:
        text_of = self.rules.text_of
        data: dict[str, Any] = {
            "format": self.FORMAT,
            "variant_hash": self.rules.content_hash,
            "players": self.n,
            "seed": self.seed,
            "first_player": self.first_player,
            "from_setup": self._from_setup,
            "history": [text_of[a] for a in self.history],
            "seats": self._seats.copy(),
            "state": {
                "chance": self._chance,
                "where": self._where.copy(),
                "deck": self._deck.copy(),
                "held": self._held.copy(),
                "next_card": self._next_card,
                "buying": self._buying,
                "decliner": self._decliner,
                "acted": self._acted,
                "termination": self._termination,
                "phase": self._phase,
                "turn": self._turn,
                "start": self._start,
                "round": self._round,
                "step": self._step,
            },
        }
        if _keeps_extra(self.rules):
            data["state"]["extra"] = self._totals[4 * self.n + 2 :]
        return data

    def to_json(self) -> str:
        """The whole game as compact JSON; :meth:`from_json` reads it back."""
        plain = json.dumps(self._plain_dict(), separators=(",", ":"))
        # The resolved variant's JSON is computed once per variant and spliced in.
        return f'{plain[:-1]},"variant":{self.rules.variant_json}}}'

    @classmethod
    def from_json(
        cls,
        text: Checked[str | bytes | Mapping[str, Any]],
        *,
        check_history: bool = True,
        **options: Any,
    ) -> Game:
        """Rebuild a game written by :meth:`to_json` (raises :class:`PositionError`).

        The input is untrusted: its size, types and ranges are bounded, and the state
        must be one the rules allow (every card in one zone, hand sizes, purchase
        cards, phase and turn, the round cap; docs/positions.md lists the checks). For
        a game started by :func:`new_game`, the history is replayed from the seed and
        must lead to exactly the stated state. ``check_history=False`` skips that
        replay, which costs about as much as playing the game again; use it only for
        JSON you wrote yourself (the state is still checked in full).
        """
        from cardshop.klunker.serial import game_from_data

        if options:
            raise SetupError(f"Game.from_json takes no option {', '.join(map(repr, options))}")
        return game_from_data(cls, text, check_history=check_history)

    def _unpickled(self) -> None:
        # Before the house rules, the totals had no counts of rows sold and laps.
        if len(self._totals) != 5 * self.n + 3:
            self._check_counts()

    def _check_counts(self) -> None:
        """Rebuild counts and totals from ``where`` (after a raw restore)."""
        k = self.rules.k
        n_zones = 4 * self.n + 2
        counts = [0] * (n_zones * k)
        totals = [0] * (n_zones + self.n + 1)
        old = getattr(self, "_totals", None)
        if old is not None and len(old) == len(totals):  # rows sold and laps are kept
            totals[n_zones:] = old[n_zones:]
        kind_of = self.rules.kind_of
        for card, z in enumerate(self._where):
            counts[z * k + kind_of[card]] += 1
            totals[z] += 1
        self._counts = counts
        self._totals = totals


_ZONE_NAMES: dict[int, tuple[str, ...]] = {}
"""The zones' names by player count (:meth:`Game.zone_names`), made once per count."""


def _zone_names(n: int) -> tuple[str, ...]:
    names = _ZONE_NAMES.get(n)
    if names is None:
        hands = [f"{z}:{s}" for s in range(n) for z in ("hand", "window", "safe")]
        banks = [f"bank:{s}" for s in range(n)]
        names = _ZONE_NAMES[n] = (*hands, *banks, "deck", "discard")
    return names


_PURE: Final = isinstance(Game.clone, FunctionType)
"""Whether this module runs as Python source (not compiled). The hot path
branches on it where the fastest code differs: C-level library calls (``list.index``,
``itemgetter``, ``compress``, ``max``) as Python source, native loops compiled. Both
branches make the same games (tests/test_packaging.py runs the compiled ones as source)."""


def new_game(
    variant: Checked[Variant | str],
    players: Checked[int],
    seed: Checked[int | None] = None,
    first_player: Checked[Seat | None] = None,
) -> Game:
    """Start a game: shuffle, deal starting cash and hands, and stop at the first decision.

    ``variant`` is a :class:`Variant` or anything :func:`cardshop.load_variant` takes.
    ``seed`` makes every chance event reproducible (a fresh random seed if None, kept
    in ``game.seed``). ``first_player`` is the first start player (drawn with the seed
    if None). [SETUP-1..SETUP-4]
    """
    from cardshop.core import load_variant

    return Game.new(as_klunker(load_variant(variant)), players, seed, first_player)


def replay(
    variant: Checked[Variant | str],
    players: Checked[int],
    seed: Checked[int],
    first_player: Checked[Seat | None],
    actions: Iterable[Action | str],
) -> Game:
    """Replay a game from its setup and its actions (texts or actions)."""
    game = new_game(variant, players, seed, first_player)
    for i, action in enumerate(actions):
        try:
            game.apply(action)
        except ActionError as exc:
            raise IllegalActionError(f"action {i + 1} ({action}) does not replay: {exc}") from None
    return game
