"""The Reglamentacja engine: queues, ration stamps, offers and a speculator.

State layout (plain ints, lists and tuples; the clause IDs refer to
docs/reglamentacja-rules.md):

* stamps have ids ``0 .. n_stamps-1``, the ids of one kind contiguous;
  ``_swhere[id]`` is the stamp's zone: a seat ``s`` (its hand), ``n`` the stamp
  stack, ``n+1`` the discard pile. ``_stack`` lists the stack's ids, top last.
  ``_hand[s*K + kind]`` and ``_hsize[s]`` count hands, ``_dcount[kind]`` the discards;
* shopping cards have ids ``0 .. n_cards-1`` (the variant's order) and lie in
  ``_row`` (position 1 first), ``_cstack`` (top last), ``_bought[s]`` or ``_removed``;
* visit cards have ids in the variant's order: ``_visit[s]`` per seat, the rest in
  ``_box``;
* ``_queue`` lists pawns head first: seats, and ``-1`` for the speculator;
* a pending offer is four ints: target seat (``-1`` none), give and take multiset
  indices (``rules.multisets``) and the place flag.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final, NamedTuple

from cardshop.core import (
    Action,
    ActionParseError,
    Checked,
    Copy,
    Dynamics,
    Engine,
    GameStateError,
    IllegalActionError,
    LegalActions,
    Seat,
    StateField,
    action_number,
    action_words,
    chance_source,
)
from cardshop.reglamentacja.events import (
    Accepted,
    Bought,
    Event,
    FinalTurnBegan,
    GameEnded,
    HandLimited,
    Offered,
    OfferTurnPassed,
    QueueFormed,
    Rejected,
    Reshuffled,
    RowDealt,
    RowRefilled,
    ShopPassed,
    Speculated,
    SpeculatorBought,
    StampsDrawn,
    TopPassed,
    TopSpun,
    TopStopped,
    TurnBegan,
    VisitDrawn,
)
from cardshop.reglamentacja.offers import OFFER, OfferTable, OfferTurn, offer_table
from cardshop.reglamentacja.offers import PASS as PASS  # re-exported: the game's actions
from cardshop.reglamentacja.offers import STOP as STOP
from cardshop.reglamentacja.variant import ReglamentacjaVariant, Rules

__all__ = [
    "OFFER_PARTS",
    "PHASES",
    "SPECULATOR",
    "STATS",
    "Observation",
    "ReglamentacjaGame",
    "new_game",
]

# Final: the compiled build reads these as constants, not from the module's globals.
TRADE: Final = 0
DISCARD: Final = 1
SHOP: Final = 2
FINAL_TRADE: Final = 3
FINAL_SHOP: Final = 4
OVER: Final = 5
PHASES: Final = ("trade", "discard", "shop", "final-trade", "final-shop", "over")
SPECULATOR: Final = -1
STATS = (
    "offers",
    "trades",
    "place_trades",
    "speculator_draws",
    "speculator_swaps",
    "pushbacks",
    "speculator_buys",
    "reshuffles",
    "hand_limit_discards",
)
ST_OFFERS: Final = 0
ST_TRADES: Final = 1
ST_PLACE: Final = 2
ST_DRAWS: Final = 3
ST_SWAPS: Final = 4
ST_PUSHBACKS: Final = 5
ST_SPEC_BUYS: Final = 6
ST_RESHUFFLES: Final = 7
ST_LIMIT: Final = 8

ACCEPT: Final = Action("accept")
REJECT: Final = Action("reject")
_OTHERS: dict[int, tuple[int, ...]] = {}  # n * 64 + seat -> the other seats, by text
_ANSWER: Final = LegalActions((ACCEPT, REJECT))
_REJECT_ONLY: Final = LegalActions((REJECT,))
_NO_ACTIONS: Final = LegalActions(())
OFFER_PARTS = ("target", "give", "take", "place")
"""The parts of an offer, in the order :meth:`ReglamentacjaGame.offer_parts` takes them."""

MAX_ACTION_TEXT = 300
_PASS_ONLY: Final = (PASS,)


VERBS = {
    "offer": "offer SEAT [give KIND...] [take KIND...] [place]  (trade stamps and places)",
    "accept": "accept  (run the offer made to you)",
    "reject": "reject  (turn down the offer made to you)",
    "speculate": "speculate draw|swap KIND KIND  (active player: pay the speculator)",
    "stop": "stop  (active player: stop the top, trading ends)",
    "pass": "pass  (let the offer turn go by, or buy nothing)",
    "discard": "discard KIND  (active player above the hand limit)",
    "buy": "buy POSITION  (buy the row's card at that position, 1 = nearest the board)",
}

# Events are built with tuple.__new__ directly, as Klunker's are: the same
# named tuples, without the generated __new__, which runs as Python (on the compiled
# build about a tenth of a decision's instructions).
_new: Final = tuple.__new__
# The classes built on every move, as Final names: the compiled build reads those as
# constants, an imported name from the module's dictionary on every use.
_Offered: Final = Offered
_Rejected: Final = Rejected
_Accepted: Final = Accepted
_OfferTurnPassed: Final = OfferTurnPassed
_StampsDrawn: Final = StampsDrawn
_TopSpun: Final = TopSpun
_TurnBegan: Final = TurnBegan
_ShopPassed: Final = ShopPassed
_TopPassed: Final = TopPassed
_TopStopped: Final = TopStopped
_Bought: Final = Bought
_HandLimited: Final = HandLimited
_RowRefilled: Final = RowRefilled
_Reshuffled: Final = Reshuffled
_SpeculatorBought: Final = SpeculatorBought
_Speculated: Final = Speculated

# A decoded action: (verb code, a, b, c, d).
V_OFFER: Final = OFFER  # as the offer turn's view decodes the offers it lists
V_ACCEPT: Final = 1
V_REJECT: Final = 2
V_DRAW: Final = 3
V_SWAP: Final = 4
V_STOP: Final = 5
V_PASS: Final = 6
V_DISCARD: Final = 7
V_BUY: Final = 8
_REJECTED: Final = (V_REJECT, 0, 0, 0, 0)
_ACCEPTED: Final = (V_ACCEPT, 0, 0, 0, 0)


class Observation(NamedTuple):
    """What one seat may know. Stamps are counts in the variant's kind order.

    Public: the row, the queue (``-1`` the speculator), who holds the top, both
    stacks' sizes, the discard pile, every hand's size, everyone's bought cards,
    the cards the speculator removed, the offer turns played and the pending offer.
    Private to ``seat``: its stamps and its visit card (every visit is shown once
    the game is over). Hidden from all: the stacks' order, the unused visit cards
    and how long the top still spins. [RG-KNOW-1]
    """

    seat: Seat
    players: int
    kinds: tuple[str, ...]
    phase: str
    acting: Seat | None
    turn: int
    active: Seat
    hand: tuple[int, ...]
    visits: tuple[int, ...]  # per seat: visit id, -1 when unknown to this seat
    hand_sizes: tuple[int, ...]
    row: tuple[int, ...]
    queue: tuple[int, ...]
    stamp_stack: int
    shop_stack: int
    discard: tuple[int, ...]
    bought: tuple[tuple[int, ...], ...]
    removed: tuple[int, ...]
    offer_turns: int
    offerer: Seat | None
    pending: tuple[int, tuple[int, ...], tuple[int, ...], bool] | None  # target, give, take
    final_buyers: int


class ReglamentacjaGame(Engine):
    """A game of a Reglamentacja variant. Create one with :func:`new_game`.

    ``apply`` validates every action and raises :class:`IllegalActionError`
    (changing nothing) for one the rules forbid.
    """

    family: ClassVar[str] = "reglamentacja"
    FORMAT: ClassVar[str] = "cardshop-reglamentacja-game/1"
    SETUP_OPTIONS: ClassVar[tuple[str, ...]] = ("first_player",)
    PROGRESS: ClassVar[str] = "_turn"
    # Game JSON, and positions (docs/reglamentacja-rules.md, section Positions).
    SERIAL: ClassVar[str] = "cardshop.reglamentacja.serial"
    POSITIONS: ClassVar[str] = "cardshop.reglamentacja.position"

    __slots__ = (
        "_active",
        "_bought",
        "_box",
        "_chance",
        "_cstack",
        "_dcount",
        "_done",
        "_from_setup",
        "_fs",
        "_hand",
        "_hsize",
        "_legal",
        "_moves",
        "_pg",
        "_phase",
        "_pk",
        "_pp",
        "_pt",
        "_queue",
        "_removed",
        "_row",
        "_spin",
        "_stack",
        "_stats",
        "_step",
        "_swhere",
        "_table",
        "_termination",
        "_turn",
        "_visit",
        "first_player",
        "n",
        "rules",
        "seed",
        "variant",
    )

    # Every field, declared once: clone, ==, pickling and the slots follow from it; the
    # setup's fields first, as the core's Engine declares them. Compared by ==: the state
    # itself; not compared: the variant, the moves that led here, the step counter,
    # caches and the counts kept from the stamps' places.
    STATE: ClassVar[tuple[StateField, ...]] = (
        *Engine.SETUP_STATE,
        StateField("_table", compared=False),  # the variant's offer table, shared
        StateField("first_player", compared=False),
        StateField("_chance"),
        StateField("_swhere", Copy.LIST),
        StateField("_stack", Copy.LIST),
        StateField("_hand", Copy.LIST, compared=False),
        StateField("_hsize", Copy.LIST, compared=False),
        StateField("_dcount", Copy.LIST, compared=False),
        StateField("_row", Copy.LIST),
        StateField("_cstack", Copy.LIST),
        StateField("_bought", Copy.LISTS),
        StateField("_removed", Copy.LIST),
        StateField("_visit", Copy.LIST),
        StateField("_box", Copy.LIST),
        StateField("_queue", Copy.LIST),
        StateField("_active"),
        StateField("_phase"),
        StateField("_turn"),
        StateField("_spin"),
        StateField("_done"),
        StateField("_pt"),
        StateField("_pg"),
        StateField("_pk"),
        StateField("_pp"),
        StateField("_fs"),
        StateField("_termination"),
        StateField("_stats", Copy.LIST),
        *Engine.MOVES_STATE,
        StateField("_legal", compared=False),  # replaced whole, never changed in place
    )

    rules: Rules
    _table: OfferTable
    variant: ReglamentacjaVariant
    n: int
    seed: int
    first_player: Seat
    _chance: int
    _swhere: list[int]
    _stack: list[int]
    _hand: list[int]
    _hsize: list[int]
    _dcount: list[int]
    _row: list[int]
    _cstack: list[int]
    _bought: list[list[int]]
    _removed: list[int]
    _visit: list[int]
    _box: list[int]
    _queue: list[int]
    _active: int
    _phase: int
    _turn: int
    _spin: int
    _done: int
    _pt: int
    _pg: int
    _pk: int
    _pp: int
    _fs: int
    _termination: int
    _stats: list[int]
    _moves: list[tuple[int, int, Action]]  # (step, seat, action): Move's fields, a plain tuple
    _from_setup: bool
    _step: int
    _legal: LegalActions | None

    # ------------------------------------------------------------------ creation

    def _setup(self, first_player: Seat | None) -> None:
        """RG-SETUP-1 to RG-SETUP-4, for :meth:`Engine.new`: the row, the stamps, the
        visits and the queue, from the first player (drawn unless named)."""
        rules = self.rules
        n = self.n
        seed = self.seed
        events: list[Event] = []
        # RG-SETUP-1: the shopping cards are shuffled and the row laid out.
        source = chance_source(self.variant.chance)
        cards = list(range(rules.n_cards))
        source.shuffle((cards,), seed, "cards")
        self._cstack = cards
        for _ in range(rules.row_size):
            self._row.append(cards.pop())
        events.append(_new(RowDealt, (tuple(rules.card_names[c] for c in self._row),)))
        # RG-SETUP-4: a seeded first player heads the queue.
        if first_player is None:
            first_player = source.below(n, seed, "first-player")
        self.first_player = first_player
        # RG-SETUP-2: stamps shuffled, dealt from the first player clockwise.
        stack = list(range(rules.n_stamps))
        source.shuffle((stack,), seed, "stamps", kinds=rules.stamp_kind)
        self._stack = stack
        self._swhere = [n] * rules.n_stamps
        for i in range(n):
            self._draw((first_player + i) % n, rules.deal, "deal", events)
        # RG-SETUP-3: each player draws a secret visit card.
        visits = list(range(rules.n_visits))
        if n == 3 and rules.without_meal_visits:
            visits = [v for v in visits if v not in rules.meal_visits]
        source.shuffle((visits,), seed, "visits")
        for i in range(n):
            seat = (first_player + i) % n
            self._visit[seat] = visits.pop()
            events.append(_new(VisitDrawn, (seat, rules.visit_names[self._visit[seat]])))
        self._box = sorted(set(range(rules.n_visits)) - set(self._visit))
        # RG-SETUP-4: queue from the first player clockwise, the speculator (if any)
        # last; the third pawn's owner gets the top (with 2 players, the second's).
        self._queue = [(first_player + i) % n for i in range(n)]
        if rules.has_speculator:
            self._queue.append(SPECULATOR)
        self._active = self._queue[2 if n > 2 else n - 1]
        events.append(_new(QueueFormed, (tuple(self._queue), self._active)))
        self._start_turn(events)

    def _init_empty(self, variant: ReglamentacjaVariant, players: int, seed: int) -> None:
        rules = variant.rules_for(players)
        self.rules = rules  # variant, n, seed and _from_setup: Engine._empty
        self._table = offer_table(rules)
        self.first_player = 0
        self._chance = 0
        self._swhere = [players] * rules.n_stamps
        self._stack = []
        self._hand = [0] * (players * rules.k)
        self._hsize = [0] * players
        self._dcount = [0] * rules.k
        self._row = []
        self._cstack = []
        self._bought = [[] for _ in range(players)]
        self._removed = []
        self._visit = [-1] * players
        self._box = []
        self._queue = []
        self._active = 0
        self._phase = TRADE
        self._turn = 0
        self._spin = 0
        self._done = 0
        self._pt = -1
        self._pg = 0
        self._pk = 0
        self._pp = 0
        self._fs = 0
        self._termination = 0
        self._stats = [0] * len(STATS)
        self._moves = []
        self._step = 0
        self._legal = None

    # ------------------------------------------------------------- public view

    @property
    def dynamics(self) -> Dynamics:
        """One seat acts at a time; the answer to an offer is the offered seat's action."""
        return Dynamics.SEQUENTIAL

    @property
    def acting(self) -> tuple[Seat, ...]:
        """The seat that must act now (one at most), or ``()`` when the game is over."""
        seat = self._acting()
        return () if seat < 0 else (seat,)

    @property
    def current_player(self) -> Seat | None:
        """The one acting seat, or ``None`` when the game is over."""
        seat = self._acting()
        return None if seat < 0 else seat

    @property
    def is_over(self) -> bool:
        return self._phase == OVER

    @property
    def phase(self) -> str:
        """``trade``, ``discard``, ``shop``, ``final-trade``, ``final-shop`` or ``over``."""
        return PHASES[self._phase]

    @property
    def turn(self) -> int:
        """The current turn, from 1 (the final turn counts as one; :meth:`progress`:
        the family counts its length in turns)."""
        return self._turn

    @property
    def active(self) -> Seat:
        """The seat holding the spinning top."""
        return self._active

    @property
    def queue(self) -> tuple[int, ...]:
        """Pawns head first; ``-1`` is the speculator."""
        return tuple(self._queue)

    @property
    def row(self) -> tuple[str, ...]:
        """Names of the row's cards, position 1 first."""
        names = self.rules.card_names
        return tuple(names[c] for c in self._row)

    @property
    def stats(self) -> dict[str, int]:
        """Counters of what happened so far (offers, trades, pushbacks, ...)."""
        return dict(zip(STATS, self._stats, strict=True))

    def hand(self, seat: Seat) -> dict[str, int]:
        """The stamps in ``seat``'s hand by kind (kinds held only)."""
        k = self.rules.k
        row = self._hand[seat * k : seat * k + k]
        return {name: c for name, c in zip(self.rules.kinds, row, strict=True) if c}

    def visit(self, seat: Seat) -> str:
        """The name of ``seat``'s visit card."""
        return self.rules.visit_names[self._visit[seat]]

    def bought(self, seat: Seat) -> tuple[str, ...]:
        names = self.rules.card_names
        return tuple(names[c] for c in self._bought[seat])

    def stamp_zones(self) -> dict[str, tuple[int, ...]]:
        """Every stamp zone's ids: hands by seat, ``stack`` (top first), ``discard``."""
        n = self.n
        out: dict[str, list[int]] = {f"hand:{s}": [] for s in range(n)}
        out["discard"] = []
        for sid, z in enumerate(self._swhere):
            if z < n:
                out[f"hand:{z}"].append(sid)
            elif z == n + 1:
                out["discard"].append(sid)
        result = {name: tuple(ids) for name, ids in out.items()}
        result["stack"] = tuple(self._stack[::-1])
        return result

    def card_zones(self) -> dict[str, tuple[int, ...]]:
        """Every shopping card zone's ids: ``row``, ``stack`` (top first), bought, removed."""
        out: dict[str, tuple[int, ...]] = {
            "row": tuple(self._row),
            "stack": tuple(self._cstack[::-1]),
        }
        for s in range(self.n):
            out[f"bought:{s}"] = tuple(self._bought[s])
        out["removed"] = tuple(self._removed)
        return out

    def visit_zones(self) -> dict[str, tuple[int, ...]]:
        """Visit card ids by seat and in the box (unused)."""
        out: dict[str, tuple[int, ...]] = {f"seat:{s}": (self._visit[s],) for s in range(self.n)}
        out["box"] = tuple(self._box)
        return out

    # ---------------------------------------------------------------- acting

    def _offerer(self) -> int:
        """The seat whose offer turn it is. [RG-TRADE-2, RG-FINAL-3]"""
        i = self._done
        if self._phase == FINAL_TRADE:
            return (self._active + i) % self.n
        if i % 2 == 0:
            return self._active
        return (self._active + 1 + (i // 2) % (self.n - 1)) % self.n

    def _acting(self) -> int:
        phase = self._phase
        if phase in (TRADE, FINAL_TRADE):
            return self._pt if self._pt >= 0 else self._offerer()
        if phase == DISCARD:
            return self._active
        if phase == SHOP:
            return self._queue[0]
        if phase == FINAL_SHOP:
            return self._queue[self._fs]
        return -1

    def _seat_of(self, seat: Checked[Seat | None]) -> int:
        """The acting seat, checked against ``seat`` when one is named."""
        acting = self._acting()
        if acting < 0:
            raise GameStateError("the game is over: no seat acts")
        if seat is not None and seat != acting:
            raise GameStateError(f"seat {seat!r} does not act now (acting: [{acting}])")
        return acting

    # ------------------------------------------------------------ legal actions

    def legal_actions(self, seat: Checked[Seat | None] = None) -> LegalActions:
        """The actions ``seat`` (default: the acting seat) may take now, sorted.

        A read-only view. On an offer turn it is computed from the offer's parts
        (:mod:`cardshop.reglamentacja.offers`): ``len``, ``in``, indexing and
        ``sample`` never build the thousands of offers; iterating builds them.
        Raises :class:`GameStateError` for a seat that does not act now. [RG-ACT-1]
        """
        self._seat_of(seat)
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _holds(self, seat: int, ms: tuple[int, ...]) -> bool:
        """Whether ``seat`` holds the stamps ``ms`` (counts per kind)."""
        hand = self._hand
        k = len(ms)
        base = seat * k
        return all(ms[i] <= hand[base + i] for i in range(k))  # a loop, compiled

    def _compute_legal(self) -> LegalActions:
        phase = self._phase
        rules = self.rules
        k = rules.k
        if phase in (TRADE, FINAL_TRADE):
            if self._pt >= 0:
                if self._holds(self._pt, rules.multisets[self._pk]):
                    return _ANSWER
                return _REJECT_ONLY
            seat = self._offerer()
            base = seat * k
            table = self._table
            cap = table.cap
            bits = table.key_bits
            hand = self._hand
            key = 0  # the capped hand, a few bits a kind
            for i in range(k):
                c = hand[base + i]
                key |= (c if c < cap else cap) << (bits * i)
            ok, runs, blocks, tail = table.hand(key)
            if phase != TRADE or seat != self._active:
                tail = _PASS_ONLY  # RG-SPEC-1, RG-TRADE-6: the active seat alone, not in the final
            turn = OfferTurn(table, self._targets(seat), ok, runs, blocks, tail)
            return LegalActions(turn, turn)
        if phase == DISCARD:
            base = self._active * k
            hand = self._hand
            return LegalActions([rules.discard_actions[i] for i in rules.alpha if hand[base + i]])
        if phase in (SHOP, FINAL_SHOP):
            seat = self._acting()
            acts = [
                rules.buy_actions[p]
                for p, card in enumerate(self._row)
                if self._holds(seat, rules.card_cost[card])
            ]
            acts.append(PASS)
            return LegalActions(acts)
        return _NO_ACTIONS

    # ------------------------------------------------------------ offer parts

    def offer_parts(self, chosen: Sequence[int] = (), seat: Seat | None = None) -> tuple[int, ...]:
        """The legal values of an offer's next part, given the parts chosen so far.

        An offer is four parts, chosen in this order (:data:`OFFER_PARTS`): the seat
        offered to, what is given and what is taken (indices into
        ``game.rules.multisets``, 0 = nothing; ``game.rules.ms_text`` names them), and
        whether the two swap places in the queue (0 or 1). ``chosen`` holds the first
        ``len(chosen)`` parts; the answer lists the values of part ``len(chosen)`` that
        some legal offer has, ascending (targets in the order of their texts). Every
        value listed leads on to at least one legal offer, so a player picking one
        value per step ends with a legal offer: compose it with :meth:`offer_action`.
        The empty tuple means no offer extends ``chosen`` (it is not an offer turn, a
        chosen part is not legal, or all four parts are chosen). Raises
        :class:`GameStateError` for a seat that does not act now. [RG-TRADE-2..3]
        """
        items = self.legal_actions(seat).structure
        if isinstance(items, OfferTurn):
            return items.parts(chosen)
        return ()

    def offer_action(self, target: int, give: int, take: int, place: int | bool) -> Action:
        """The offer made of these parts (see :meth:`offer_parts`), in canonical form.

        Raises :class:`ActionParseError` for parts that make no offer of this variant
        (a seat out of range, a multiset index out of range, a kind both given and
        taken, an empty offer); whether it is legal now is for :meth:`apply` to say.
        """
        table = offer_table(self.rules)
        n = table.n_offer
        if not all(isinstance(x, int) for x in (target, give, take, place)):
            raise ActionParseError(f"offer parts must be ints: {(target, give, take, place)!r}")
        if not 0 <= target < self.n:
            raise ActionParseError(f"the seat offered to must be 0..{self.n - 1}, not {target}")
        if not (0 <= give < n and 0 <= take < n) or place not in (0, 1):
            raise ActionParseError(
                f"give and take must be 0..{n - 1} and place 0 or 1: {(give, take, place)!r}"
            )
        if take not in table.takes_of[give]:
            raise ActionParseError("the same kind cannot be given and taken")
        if not give and not take and not place:
            raise ActionParseError("an offer must give, take or swap places")
        return Action("offer", self.rules.offer_text(target, give, take, bool(place)))

    def offer_of(self, action: Action | str) -> tuple[int, int, int, int] | None:
        """The parts ``(target, give, take, place)`` of an offer, or None for another action.

        Accepts any text or action :meth:`parse_action` reads as an offer; raises
        :class:`ActionParseError` for one it cannot read.
        """
        act = self.parse_action(action) if isinstance(action, str) else action
        d = self._decode(act)
        if d[0] != V_OFFER:
            return None
        return (d[1], d[2], d[3], d[4])

    def _targets(self, seat: int) -> tuple[int, ...]:
        """Seats ``seat`` may make offers to, in the sorted order of their texts."""
        if self._phase == TRADE and seat != self._active:
            return (self._active,)  # RG-TRADE-2: only with the active player
        key = self.n * 64 + seat
        others = _OTHERS.get(key)
        if others is None:
            others = _OTHERS[key] = tuple(sorted((s for s in range(self.n) if s != seat), key=str))
        return others

    def is_legal(self, action: Checked[Action | str], seat: Checked[Seat | None] = None) -> bool:
        """Whether ``action`` (or its text) may be applied now by ``seat``."""
        try:
            who = self._seat_of(seat)
            act = self.parse_action(action) if isinstance(action, str) else action
            decoded = self._decode(act)
        except (ActionParseError, GameStateError):
            return False
        return self._why_illegal(who, decoded) is None

    # --------------------------------------------------------------- parsing

    def parse_action(self, text: Checked[str], seat: Checked[Seat | None] = None) -> Action:
        """Parse an action text into its canonical :class:`Action`.

        Offers are normalised: ``"offer 2 take flour give sugar meat"`` becomes
        ``Action("offer", "2 give meat sugar take flour")``. Whether the action is
        legal now is for :meth:`apply` to say. [RG-ACT-1]
        """
        words = action_words(text)
        verb, args = words[0], words[1:]
        rules = self.rules
        if verb not in VERBS:
            raise ActionParseError(
                f"unknown action {text!r}; actions are: " + "; ".join(VERBS.values())
            )
        if verb in ("accept", "reject", "stop", "pass"):
            if args:
                raise ActionParseError(f"{verb!r} takes no argument (got {text!r})")
            return Action(verb)
        if not args:
            raise ActionParseError(f"{text!r} needs more: {VERBS[verb]}")
        if verb == "buy":
            pos = action_number(args[0], text) if len(args) == 1 else None
            if pos is None:
                raise ActionParseError(f"{text!r}: expected 'buy POSITION'")
            if not 1 <= pos <= rules.row_size:
                raise ActionParseError(f"{text!r}: position must be 1..{rules.row_size}")
            return rules.buy_actions[pos - 1]
        if verb == "discard":
            if len(args) != 1:
                raise ActionParseError(f"{text!r}: expected 'discard KIND'")
            return rules.discard_actions[self._kind(args[0], text)]
        if verb == "speculate":
            if not rules.has_speculator:
                raise ActionParseError(f"{text!r}: this variant has no speculator")
            mode = args[0]
            if mode not in ("draw", "swap"):
                raise ActionParseError(f"{text!r}: expected 'speculate draw|swap KIND...'")
            kinds = args[1:]
            if len(kinds) != rules.spec_price:
                raise ActionParseError(
                    f"{text!r}: the speculator takes exactly {rules.spec_price} stamps"
                )
            ms = self._multiset(kinds, text)
            return Action("speculate", f"{mode} {rules.ms_text[ms]}")
        # offer SEAT [give ...] [take ...] [place]
        if len(args) > 4 + 2 * rules.max_trade:
            raise ActionParseError(f"{text!r}: too many words for an offer")
        target = action_number(args[0], text)
        if target is None or not 0 <= target < self.n:
            raise ActionParseError(f"{text!r}: the seat offered to must be 0..{self.n - 1}")
        sections: dict[str, list[str]] = {"give": [], "take": []}
        current: str | None = None
        place = False
        seen: set[str] = set()
        for word in args[1:]:
            if word in sections:
                if word in seen or place:
                    raise ActionParseError(f"{text!r}: {word!r} out of place")
                seen.add(word)
                current = word
            elif word == "place":
                if place:
                    raise ActionParseError(f"{text!r}: 'place' given twice")
                place = True
                current = None
            elif current is None:
                raise ActionParseError(
                    f"{text!r}: expected 'give', 'take' or 'place', not {word!r}"
                )
            else:
                sections[current].append(word)
        for name, kinds in sections.items():
            if len(kinds) > rules.max_trade:
                raise ActionParseError(
                    f"{text!r}: at most {rules.max_trade} stamps to {name} in one offer"
                )
            if name in seen and not kinds:
                raise ActionParseError(f"{text!r}: {name!r} names no stamp kind")
        give = self._multiset(sections["give"], text)
        take = self._multiset(sections["take"], text)
        if not give and not take and not place:
            raise ActionParseError(f"{text!r}: an offer must give, take or swap places")
        gm, tm = rules.multisets[give], rules.multisets[take]
        if any(a and b for a, b in zip(gm, tm, strict=True)):
            raise ActionParseError(f"{text!r}: the same kind cannot be given and taken")
        return Action("offer", rules.offer_text(target, give, take, place))

    def _kind(self, word: str, text: str) -> int:
        i = self.rules.kind_index.get(word)
        if i is None:
            raise ActionParseError(
                f"{text!r}: unknown stamp kind {word!r}; kinds are {', '.join(self.rules.kinds)}"
            )
        return i

    def _multiset(self, words: list[str], text: str) -> int:
        counts = [0] * self.rules.k
        for word in words:
            counts[self._kind(word, text)] += 1
        return self.rules.ms_index[tuple(counts)]

    def _decode(self, action: Checked[Action]) -> tuple[int, int, int, int, int]:
        """An action as (verb code, a, b, c, d); raises ActionParseError if malformed."""
        return self._read(action)[0]

    def _read(self, action: Checked[Action]) -> tuple[tuple[int, int, int, int, int], Action]:
        """An action decoded (see :meth:`_decode`) and in its canonical form, as the
        moves record it (an action as listed is its own canonical form)."""
        if not isinstance(action, tuple) or len(action) != 2:
            raise ActionParseError(f"not an action: {action!r}")
        verb = action[0]
        arg = action[1]
        rules = self.rules
        if verb == "offer" and type(arg) is str:  # as listed: looked up, not parsed
            table = self._table
            located = table.locate(action)
            if located is not None and located[0] < self.n:
                pos = located[1]
                d = (V_OFFER, located[0], table.gives[pos], table.takes[pos], table.places[pos])
                return d, action if type(action) is Action else table.action(located[0], pos)
        elif verb == "reject" and arg is None:
            return (V_REJECT, 0, 0, 0, 0), REJECT
        if verb == "pass" and arg is None:
            return (V_PASS, 0, 0, 0, 0), PASS
        if verb == "accept" and arg is None:
            return (V_ACCEPT, 0, 0, 0, 0), ACCEPT
        if verb == "stop" and arg is None:
            return (V_STOP, 0, 0, 0, 0), STOP
        if verb == "buy" and type(arg) is int:
            if not 1 <= arg <= rules.row_size:
                raise ActionParseError(f"buy position must be 1..{rules.row_size}, not {arg}")
            return (V_BUY, arg, 0, 0, 0), rules.buy_actions[arg - 1]
        if not isinstance(verb, str) or not isinstance(arg, str):
            raise ActionParseError(f"malformed action {action!r}")
        canon = self.parse_action(f"{verb} {arg}")
        assert isinstance(canon.arg, str)
        words = canon.arg.split()
        if canon.verb == "discard":
            return (V_DISCARD, rules.kind_index[words[0]], 0, 0, 0), canon
        if canon.verb == "speculate":
            ms = self._multiset(words[1:], canon.arg)
            return (V_DRAW if words[0] == "draw" else V_SWAP, ms, 0, 0, 0), canon
        if canon.verb == "offer":
            target = int(words[0])
            give: list[str] = []
            take: list[str] = []
            cur = give
            place = 0
            for w in words[1:]:
                if w == "give":
                    cur = give
                elif w == "take":
                    cur = take
                elif w == "place":
                    place = 1
                else:
                    cur.append(w)
            d = (
                V_OFFER,
                target,
                self._multiset(give, canon.arg),
                self._multiset(take, canon.arg),
                place,
            )
            return d, canon
        raise ActionParseError(f"malformed action {action!r}")

    def _why_illegal(self, seat: int, d: tuple[int, int, int, int, int]) -> str | None:
        """Why the decoded action ``d`` by ``seat`` is illegal now, or None if legal."""
        acting = self._acting()
        if acting < 0:
            return "the game is over"
        if seat != acting:
            return f"it is seat {acting}'s move, not seat {seat}'s"
        phase = self._phase
        rules = self.rules
        code = d[0]
        trading = phase in (TRADE, FINAL_TRADE)
        if trading and self._pt >= 0:
            if code == V_REJECT:
                return None
            if code == V_ACCEPT:
                if self._holds(seat, rules.multisets[self._pk]):
                    return None
                return "you do not hold the stamps the offer asks for (RG-TRADE-4)"
            return "an offer waits for your answer: accept or reject"
        if code in (V_ACCEPT, V_REJECT):
            return "there is no offer to answer"
        if trading:
            if code == V_PASS:
                return None
            if code == V_OFFER:
                target = d[1]
                if target not in self._targets(seat):
                    if target == seat:
                        return "you cannot make an offer to yourself"
                    return "inactive players trade only with the active player (RG-TRADE-2)"
                if d[4] and not rules.queue_places:
                    return "places in the queue are not traded in this variant (queue_trading)"
                if not self._holds(seat, rules.multisets[d[2]]):
                    return "you do not hold the stamps you offer"
                return None
            if code in (V_DRAW, V_SWAP, V_STOP):
                if code != V_STOP and not rules.has_speculator:
                    return "this variant has no speculator"
                if phase == FINAL_TRADE:
                    return "no speculator and no stopping the top in the final turn (RG-FINAL-3)"
                if seat != self._active:
                    return "only the active player may do that"
                if code == V_STOP:
                    return None
                if not self._holds(seat, rules.multisets[d[1]]):
                    return "you do not hold the stamps you would pay"
                return None
            return f"not while trading ({PHASES[phase]})"
        if phase == DISCARD:
            if code != V_DISCARD:
                return "you must discard down to the hand limit first (RG-LIMIT-1)"
            if not self._hand[seat * rules.k + d[1]]:
                return f"you hold no {rules.kinds[d[1]]}"
            return None
        if phase in (SHOP, FINAL_SHOP):
            if code == V_PASS:
                return None
            if code != V_BUY:
                return "at the counter you may only buy or pass"
            pos = d[1]
            if pos > len(self._row):
                return f"the row has only {len(self._row)} cards"
            if not self._holds(seat, rules.card_cost[self._row[pos - 1]]):
                return "your stamps do not match the card's cost exactly (RG-SHOP-2)"
            return None
        return "not now"  # pragma: no cover - every phase is handled above

    # ----------------------------------------------------------------- apply

    def apply(
        self, action: Checked[Action | str], seat: Checked[Seat | None] = None
    ) -> list[Event]:
        """Play ``action`` (an action or its text) for ``seat`` (default: the acting seat).

        Returns the events it caused, including the automatic steps that followed.
        Raises :class:`IllegalActionError` and changes nothing if the rules forbid it.
        """
        if self._phase == OVER:
            raise IllegalActionError(f"{action!s}: the game is over")
        who = self._seat_of(seat)
        # Fast paths: an answer as listed, or the offer this state's view listed last
        # (legal by construction, its parts known), is not read or checked again.
        legal = self._legal
        turn = None if legal is None else legal.structure
        last = turn.last if isinstance(turn, OfferTurn) else None
        if self._pt >= 0 and (action is REJECT or (action is ACCEPT and legal is _ANSWER)):
            d, act = (_REJECTED, REJECT) if action is REJECT else (_ACCEPTED, ACCEPT)
        elif last is not None and last[0] is action:
            act, d = last
        else:
            d, act = self._read(self.parse_action(action) if isinstance(action, str) else action)
            why = self._why_illegal(who, d)
            if why is not None:
                raise IllegalActionError(f"{act!s} is not legal now: {why}")
        events: list[Event] = []
        self._moves.append((self._step, who, act))  # the core's bookkeeping, written out
        self._step += 1
        self._legal = None
        self._do(who, d, events)
        return events

    def _play(self, actions: Mapping[Seat, Action]) -> list[Event]:
        """The checked and recorded action of the one acting seat (the core's apply)."""
        ((who, action),) = actions.items()
        self._legal = None
        events: list[Event] = []
        self._do(who, self._read(action)[0], events)
        return events

    def _do(self, seat: int, d: tuple[int, int, int, int, int], events: list[Event]) -> None:
        code = d[0]
        rules = self.rules
        stats = self._stats
        if code == V_OFFER:
            self._pt, self._pg, self._pk, self._pp = d[1], d[2], d[3], d[4]
            stats[ST_OFFERS] += 1
            names = self._table.kind_names
            events.append(_new(_Offered, (seat, d[1], names[d[2]], names[d[3]], d[4] == 1)))
            return
        if code in (V_ACCEPT, V_REJECT):
            offerer = self._offerer()
            if code == V_ACCEPT:  # RG-TRADE-4
                got = self._move_stamps(offerer, seat, rules.multisets[self._pg])
                gave = self._move_stamps(seat, offerer, rules.multisets[self._pk])
                if self._pp:
                    self._swap_pawns(seat, offerer)
                    stats[ST_PLACE] += 1
                stats[ST_TRADES] += 1
                events.append(_new(_Accepted, (seat, offerer, gave, got, bool(self._pp))))
            else:
                events.append(_new(_Rejected, (seat, offerer)))
            self._pt = -1
            self._pg = self._pk = self._pp = 0
            self._next_offer_turn(events)
            return
        if code == V_PASS:
            if self._phase == SHOP:
                events.append(_new(_ShopPassed, (seat,)))
                self._shop_done(seat, events)
            elif self._phase == FINAL_SHOP:
                events.append(_new(_ShopPassed, (seat,)))
                self._final_buyer_done(events)
            else:
                events.append(_new(_OfferTurnPassed, (seat,)))
                self._next_offer_turn(events)
            return
        if code == V_STOP:  # RG-TRADE-6
            events.append(_new(_TopStopped, (seat, True)))
            self._end_trading(events)
            return
        if code in (V_DRAW, V_SWAP):  # RG-SPEC-1, RG-SPEC-2
            ms = rules.multisets[d[1]]
            paid = self._move_stamps(seat, self.n + 1, ms)
            mode = "draw" if code == V_DRAW else "swap"
            names = self._table.kind_names
            events.append(_new(_Speculated, (seat, mode, names[d[1]], paid)))
            if code == V_DRAW:
                stats[ST_DRAWS] += 1
                self._draw(seat, 1, "speculator", events)
            else:
                stats[ST_SWAPS] += 1
                q = self._queue
                if q.index(SPECULATOR) < q.index(seat):
                    stats[ST_PUSHBACKS] += 1
                self._swap_pawns(seat, SPECULATOR)
            self._next_offer_turn(events)
            return
        if code == V_DISCARD:  # RG-LIMIT-1
            kind = d[1]
            (sid,) = self._move_stamps(seat, self.n + 1, self._unit(kind))
            stats[ST_LIMIT] += 1
            events.append(_new(_HandLimited, (seat, rules.kinds[kind], sid)))
            if self._hsize[seat] <= rules.hand_limit:
                self._pass_top(events)
            return
        # V_BUY
        pos = d[1]
        card = self._row.pop(pos - 1)  # RG-SHOP-2, RG-ROW-1: the row closes up
        paid = self._move_stamps(seat, self.n + 1, rules.card_cost[card])
        self._bought[seat].append(card)
        events.append(_new(_Bought, (seat, pos, rules.card_names[card], paid)))
        if self._phase == SHOP:
            self._shop_done(seat, events)
        else:
            self._final_buyer_done(events)

    # -------------------------------------------------------------- the flow

    def _start_turn(self, events: list[Event]) -> None:
        """Allocation and the spin of the top. [RG-TURN-1, RG-TRADE-1, RG-CAP-1]"""
        if self._turn >= self.rules.turn_cap:
            self._end(2, events)
            return
        self._turn += 1
        events.append(_new(_TurnBegan, (self._turn, self._active)))
        self._draw(self._active, self.rules.allocation, "allocation", events)
        self._phase = TRADE
        self._spin_top(events)

    def _spin_top(self, events: list[Event]) -> None:
        rules = self.rules
        self._chance += 1
        low = rules.spin_min  # randint(spin_min, spin_max) of the spin's generator
        self._spin = low + chance_source(self.variant.chance).below(
            rules.spin_max - low + 1, self.seed, "spin", self._chance
        )
        self._done = 0
        events.append(_new(_TopSpun, (self._active,)))

    def _next_offer_turn(self, events: list[Event]) -> None:
        self._done += 1
        if self._done >= self._spin:  # RG-TRADE-1: the top falls
            events.append(_new(_TopStopped, (self._active, False)))
            self._end_trading(events)

    def _end_trading(self, events: list[Event]) -> None:
        if self._phase == FINAL_TRADE:  # RG-FINAL-4
            self._phase = FINAL_SHOP
            self._fs = 0
            return
        if self._hsize[self._active] > self.rules.hand_limit:  # RG-LIMIT-1
            self._phase = DISCARD
            return
        self._pass_top(events)

    def _pass_top(self, events: list[Event]) -> None:
        """The top goes to the left, then the shopping. [RG-TURN-3, RG-SHOP-1]"""
        self._active = (self._active + 1) % self.n
        events.append(_new(_TopPassed, (self._active,)))
        if self._queue[0] == SPECULATOR and not self._speculator_shops(events):
            return
        self._phase = SHOP

    def _shop_done(self, seat: int, events: list[Event]) -> None:
        """Pawn to the back, a stamp drawn, refill, the speculator. [RG-SHOP-3..5]"""
        q = self._queue
        q.remove(seat)
        q.append(seat)
        self._draw(seat, self.rules.shop_draw, "shop", events)
        if not self._refill(events):
            self._begin_final(events)
            return
        if q[0] == SPECULATOR and not self._speculator_shops(events):
            return
        self._start_turn(events)

    def _speculator_shops(self, events: list[Event]) -> bool:
        """The die picks the card the speculator takes out of the game. [RG-SPEC-3]

        Returns False if the row could not be refilled (the final turn began).
        """
        self._chance += 1
        roll = 1 + chance_source(self.variant.chance).below(
            self.rules.die_sides, self.seed, "die", self._chance
        )
        card = self._row.pop(roll - 1)
        self._removed.append(card)
        self._stats[ST_SPEC_BUYS] += 1
        events.append(_new(_SpeculatorBought, (roll, self.rules.card_names[card])))
        q = self._queue
        q.remove(SPECULATOR)
        q.append(SPECULATOR)
        if not self._refill(events):
            self._begin_final(events)
            return False
        return True

    def _refill(self, events: list[Event]) -> bool:
        """Refill the row from the shopping stack; False if it stays short. [RG-ROW-1]"""
        row, stack = self._row, self._cstack
        size = self.rules.row_size
        added: list[int] = []
        while len(row) < size and stack:
            card = stack.pop()
            row.append(card)
            added.append(card)
        if added:
            names = self.rules.card_names
            events.append(_new(_RowRefilled, (tuple(names[c] for c in added),)))
        return len(row) == size

    def _begin_final(self, events: list[Event]) -> None:
        """The final turn: the speculator leaves, 3 stamps each, a spin. [RG-FINAL-1..3]"""
        if SPECULATOR in self._queue:
            self._queue.remove(SPECULATOR)
        self._turn += 1
        events.append(_new(FinalTurnBegan, (self._active,)))
        n = self.n
        drawn: list[list[int]] = [[] for _ in range(n)]
        sub: list[Event] = []
        for _ in range(self.rules.final_stamps):
            for i in range(n):
                seat = (self._active + i) % n
                drawn[seat].extend(self._draw(seat, 1, "final", sub, emit=False))
        events.extend(e for e in sub if isinstance(e, Reshuffled))
        kinds = self.rules.kinds
        kind_of = self.rules.stamp_kind
        for i in range(n):
            seat = (self._active + i) % n
            if self.rules.final_stamps:
                ids = tuple(drawn[seat])
                events.append(
                    _new(_StampsDrawn, (seat, "final", tuple(kinds[kind_of[s]] for s in ids), ids))
                )
        self._phase = FINAL_TRADE
        self._spin_top(events)

    def _final_buyer_done(self, events: list[Event]) -> None:
        self._fs += 1
        if self._fs >= self.n:  # RG-FINAL-4
            self._end(1, events)

    def _end(self, termination: int, events: list[Event]) -> None:
        self._termination = termination
        self._phase = OVER
        self._pt = -1
        events.append(GameEnded(("", "finished", "capped")[termination], self.scores()))

    # ------------------------------------------------------------ stamp moves

    def _unit(self, kind: int) -> tuple[int, ...]:
        counts = [0] * self.rules.k
        counts[kind] = 1
        return tuple(counts)

    def _move_stamps(self, seat: int, dest: int, ms: tuple[int, ...]) -> tuple[int, ...]:
        """Move stamps of the given kinds from ``seat``'s hand (lowest ids first) to
        ``dest`` (a seat, or ``n+1`` the discard pile)."""
        rules = self.rules
        k = rules.k
        where = self._swhere
        hand = self._hand
        start = rules.kind_start
        n = self.n
        moved: list[int] = []
        for kind, count in enumerate(ms):
            if not count:
                continue
            sid = start[kind]
            for _ in range(count):
                while where[sid] != seat:
                    sid += 1
                where[sid] = dest
                moved.append(sid)
            hand[seat * k + kind] -= count
            self._hsize[seat] -= count
            if dest < n:
                hand[dest * k + kind] += count
                self._hsize[dest] += count
            else:
                self._dcount[kind] += count
        return tuple(moved)

    def _draw(
        self, seat: int, count: int, why: str, events: list[Event], emit: bool = True
    ) -> list[int]:
        """Draw stamps from the stack, reshuffling the discards when it runs out. [RG-STAMP-2]"""
        rules = self.rules
        k = rules.k
        kind_of = rules.stamp_kind
        got: list[int] = []
        for _ in range(count):
            if not self._stack:
                if not any(self._dcount):
                    break
                self._reshuffle(events)
            sid = self._stack.pop()
            self._swhere[sid] = seat
            kind = kind_of[sid]
            self._hand[seat * k + kind] += 1
            self._hsize[seat] += 1
            got.append(sid)
        if emit and count:
            ids = tuple(got)
            events.append(
                _new(_StampsDrawn, (seat, why, tuple(rules.kinds[kind_of[s]] for s in ids), ids))
            )
        return got

    def _reshuffle(self, events: list[Event]) -> None:
        discard = self.n + 1
        stack_zone = self.n
        ids = [sid for sid, z in enumerate(self._swhere) if z == discard]
        for sid in ids:
            self._swhere[sid] = stack_zone
        self._dcount = [0] * self.rules.k
        self._chance += 1
        chance_source(self.variant.chance).shuffle(
            (ids,), self.seed, "reshuffle", self._chance, kinds=self.rules.stamp_kind
        )
        self._stack = ids + self._stack
        self._stats[ST_RESHUFFLES] += 1
        events.append(_new(_Reshuffled, (len(self._stack),)))

    def _swap_pawns(self, a: int, b: int) -> None:
        q = self._queue
        i, j = q.index(a), q.index(b)
        q[i], q[j] = b, a

    # ---------------------------------------------------------------- results

    def score(self, seat: Seat) -> int:
        """Icons on ``seat``'s cards, its visit's categories doubled. [RG-SCORE-1]"""
        rules = self.rules
        mult = rules.visit_mult[self._visit[seat]]
        cat, icons = rules.card_cat, rules.card_icons
        return sum(icons[c] * mult[cat[c]] for c in self._bought[seat])

    def scores(self) -> tuple[int, ...]:
        return tuple(self.score(s) for s in range(self.n))

    def _rank_key(self, seat: Seat) -> tuple[int, ...]:
        """The score, then the tiebreaks: the cards bought, the stamps held (the result's
        ranks follow). [RG-SCORE-1, RG-SCORE-2]"""
        return (self.score(seat), len(self._bought[seat]), self._hsize[seat])

    def _result_details(self) -> dict[str, int]:
        # The game's length in turns is the result's ``rounds`` (progress(), the core's
        # unit of length), so it is not repeated among the details.
        return dict(self.stats)

    # ------------------------------------------------------------ observation

    def observation(self, seat: Checked[Seat]) -> Observation:
        """What ``seat`` may know, and nothing more. [RG-KNOW-1]"""
        n = self.n
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
            raise GameStateError(f"no seat {seat!r}; seats are 0..{n - 1}")
        k = self.rules.k
        acting = self._acting()
        trading = self._phase == TRADE or self._phase == FINAL_TRADE
        multisets = self.rules.multisets
        over = self._phase == OVER
        return Observation(
            seat,
            n,
            self.rules.kinds,
            PHASES[self._phase],
            acting if acting >= 0 else None,
            self._turn,
            self._active,
            tuple(self._hand[seat * k : seat * k + k]),
            tuple(v if (over or s == seat) else -1 for s, v in enumerate(self._visit)),
            tuple(self._hsize),
            tuple(self._row),
            tuple(self._queue),
            len(self._stack),
            len(self._cstack),
            tuple(self._dcount),
            tuple(tuple(b) for b in self._bought),
            tuple(self._removed),
            self._done if trading else 0,
            self._offerer() if trading else None,
            (self._pt, multisets[self._pg], multisets[self._pk], bool(self._pp))
            if trading and self._pt >= 0
            else None,
            self._fs if self._phase == FINAL_SHOP else 0,
        )

    # ------------------------------------------------------------------ copies

    def clone(self) -> ReglamentacjaGame:
        """An independent copy: playing on it never changes this game (written out for
        speed; the conformance battery checks it against :meth:`derived_clone`)."""
        g = ReglamentacjaGame()  # a blank game: the class has no __init__
        # The setup (Engine.SETUP_STATE) is shared: it never changes once the game is set up.
        g.variant, g.rules, g.n, g.seed = self.variant, self.rules, self.n, self.seed
        g._from_setup = self._from_setup
        g._table = self._table
        g.first_player = self.first_player
        g._chance = self._chance
        g._swhere = self._swhere.copy()
        g._stack = self._stack.copy()
        g._hand = self._hand.copy()
        g._hsize = self._hsize.copy()
        g._dcount = self._dcount.copy()
        g._row = self._row.copy()
        g._cstack = self._cstack.copy()
        g._bought = [b.copy() for b in self._bought]
        g._removed = self._removed.copy()
        g._visit = self._visit.copy()
        g._box = self._box.copy()
        g._queue = self._queue.copy()
        g._active = self._active
        g._phase = self._phase
        g._turn = self._turn
        g._spin = self._spin
        g._done = self._done
        g._pt, g._pg, g._pk, g._pp = self._pt, self._pg, self._pk, self._pp
        g._fs = self._fs
        g._termination = self._termination
        g._stats = self._stats.copy()
        g._moves = self._moves.copy()
        g._step = self._step
        g._legal = self._legal  # never mutated in place
        return g

    def __eq__(self, other: object) -> bool:
        # Written out: a class compiled by mypyc fills its comparison slot itself and
        # would not reach the inherited method through ``==``.
        return Engine.__eq__(self, other)

    __hash__ = None

    def __repr__(self) -> str:
        acting = self._acting()
        who = "over" if acting < 0 else f"seat {acting} to act"
        return (
            f"<ReglamentacjaGame {self.rules.name} players={self.n} seed={self.seed} "
            f"turn={self._turn} phase={self.phase} {who}>"
        )

    # -------------------------------------------------------------------- JSON

    def to_dict(self) -> dict[str, Any]:
        """The whole game as JSON-ready data (the resolved variant included)."""
        data = self._plain_dict()
        data["variant"] = self.rules.to_plain()
        return data

    def _plain_dict(self) -> dict[str, Any]:
        rules = self.rules
        pending: str | None = None
        if self._pt >= 0:
            pending = rules.offer_text(self._pt, self._pg, self._pk, bool(self._pp))
        return {
            "family": self.family,
            "format": self.FORMAT,
            "variant_hash": rules.content_hash,
            "players": self.n,
            "seed": self.seed,
            "first_player": self.first_player,
            "from_setup": self._from_setup,
            "moves": [[step, seat, str(action)] for step, seat, action in self._moves],
            "state": {
                "chance": self._chance,
                "stamps": self._swhere.copy(),
                "stamp_stack": self._stack.copy(),
                "row": self._row.copy(),
                "shop_stack": self._cstack.copy(),
                "bought": [b.copy() for b in self._bought],
                "removed": self._removed.copy(),
                "visits": self._visit.copy(),
                "box": self._box.copy(),
                "queue": self._queue.copy(),
                "active": self._active,
                "phase": PHASES[self._phase],
                "turn": self._turn,
                "spin": self._spin,
                "offer_turns": self._done,
                "pending": pending,
                "final_buyers": self._fs,
                "termination": self._termination,
                "stats": self._stats.copy(),
                "step": self._step,
            },
        }

    def to_json(self) -> str:
        """The whole game as compact JSON; :meth:`from_json` reads it back."""
        plain = json.dumps(self._plain_dict(), separators=(",", ":"))
        return f'{plain[:-1]},"variant":{self.rules.variant_json}}}'

    # ------------------------------------------------------------ consistency

    def _rebuild_counts(self) -> None:
        """Hands and discard counts from ``_swhere`` (after a raw restore)."""
        k = self.rules.k
        n = self.n
        hand = [0] * (n * k)
        hsize = [0] * n
        dcount = [0] * k
        kind_of = self.rules.stamp_kind
        for sid, z in enumerate(self._swhere):
            if z < n:
                hand[z * k + kind_of[sid]] += 1
                hsize[z] += 1
            elif z == n + 1:
                dcount[kind_of[sid]] += 1
        self._hand, self._hsize, self._dcount = hand, hsize, dcount

    def problems(self) -> list[str]:
        """Every way the state breaks the rules' invariants (empty when consistent)."""
        from cardshop.reglamentacja.serial import state_problems

        return state_problems(self)


def new_game(
    variant: Checked[ReglamentacjaVariant | str],
    players: Checked[int],
    seed: Checked[int | None] = None,
    first_player: Checked[Seat | None] = None,
) -> ReglamentacjaGame:
    """Start a game: lay out the row, deal stamps and visits, form the queue, allocate.

    ``variant`` is a :class:`ReglamentacjaVariant` or anything
    :func:`cardshop.load_variant` takes; ``seed`` makes every chance event reproducible
    (a fresh random seed if None); ``first_player`` heads the queue (drawn with the
    seed if None). [RG-SETUP-1..RG-SETUP-4]
    """
    from cardshop.core import load_variant

    variant = ReglamentacjaVariant.of_family(load_variant(variant))
    return ReglamentacjaGame.new(variant, players, seed, first_player)
