"""The Ledger: Klunker's independent oracle, a second implementation of its rules.

The Ledger keeps its own account of a game from the events that ``Game.apply``
returns, and checks each event against the rules as it goes. It was written from the
rules digest (docs/rules.md), not from the engine, and re-implements:

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

A fault raises :class:`~cardshop.core.InvariantViolation` naming the invariant it
breaks (``event_log``, ``bank_ledger``, ``turn_order``, ...: the names of
:mod:`cardshop.klunker.invariants`, which hands the Ledger to the invariant harness as
a monitor).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn, TypeVar

from cardshop.core import Action, InvariantViolation, Seat
from cardshop.klunker import events as event
from cardshop.klunker.game import Game, Phase

__all__ = ["Ledger"]

T = TypeVar("T")


def _fail(invariant: str, detail: str) -> NoReturn:
    raise InvariantViolation(invariant, detail)


class _Stream:
    """The events of one action, consumed in the order the rules say they come."""

    def __init__(self, events: Sequence[event.Event]) -> None:
        self.events = list(events)
        self.i = 0

    def peek(self) -> event.Event | None:
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
    and the start player, and raises :class:`~cardshop.core.InvariantViolation` as
    soon as an event breaks a rule. :meth:`check` compares the account with the game.
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
        self.rows_sold = [game.rows_sold(s) for s in range(n)]
        self.lap = game.purchase_lap
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
        self.decliner: int = game.decliner
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

    def score(self, seat: Seat) -> int:
        """The seat's score from the ledger's counts and the variant's weights. [SCORE-1]"""
        weights = self.variant.score
        return (
            weights.cash * self.banks[seat]
            + weights.hand * len(self.hands[seat])
            + weights.safe * len(self.safes[seat])
            + weights.window * len(self.windows[seat])
            + weights.rows_sold * self.rows_sold[seat]
        )

    def expected_bank(self, seat: Seat) -> int:
        """Opening cash + sale pay + fees received - fees paid - tax paid."""
        a = self.account(seat)
        return a["opening"] + a["sales"] + a["fees_received"] - a["fees_paid"] - a["tax"]

    # ----------------------------------------------------------------- events

    def record(self, action: Action | str, events: Sequence[event.Event]) -> None:
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
        ev = stream.take(event.Placed, "event_log", "a window action places a card")
        if self.kind_of[ev.card] != ev.kind:
            _fail("event_log", f"{ev!r} names card #{ev.card}, a {self.kind_of[ev.card]}")
        self._move(ev.card, self.hands[ev.seat], self.windows[ev.seat], f"seat {ev.seat}'s hand")

    def _window_done(self, stream: _Stream) -> None:
        stream.take(event.WindowDone, "event_log", "done ends a window turn")
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
        ev = stream.take(event.Stored, "event_log", "a store action stores a card")
        if self.kind_of[ev.card] != ev.kind:
            _fail("event_log", f"{ev!r} names card #{ev.card}, a {self.kind_of[ev.card]}")
        self._move(ev.card, self.hands[ev.seat], self.safes[ev.seat], f"seat {ev.seat}'s hand")
        if not self._auto_sales(ev.seat, stream):
            _fail("no_unsold_rows", f"storing one card completed rows of two kinds: {ev!r}")
        self._next_storer(ev.seat)

    def _passed(self, stream: _Stream) -> None:
        ev = stream.take(event.Passed, "event_log", "pass takes a purchase card")
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
        ev = stream.take(event.Bought, "event_log", "a buy action buys a window")
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
            price = rules.price_for(
                len(window), cash, self.banks[owner], self.n, self.round, max(self.lap, 1)
            )
            if cash < price and not rules.broke_may_buy:
                _fail(
                    "bank_ledger",
                    f"seat {seat} bought seat {owner}'s window with {cash} cash, less than "
                    f"the price {price} (BUY-6)",
                )
            due = min(price, cash)
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
        ev = stream.take(event.Declined, "event_log", "decline")
        if self.decliner < 0:
            self.decliner = ev.seat
        if self.rules.decline_ends_phase:
            self._end_purchase(stream)
        else:
            self._next_buyer(stream)

    def _chosen_sale(self, stream: _Stream) -> None:
        ev = stream.take(event.Sold, "event_log", "a sell action sells a row")
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
                event.Sold,
                "no_unsold_rows",
                f"seat {seat}'s safe holds a complete row of {complete[0]}",
            )
            if ev.kind != complete[0] or ev.seat != seat:
                _fail("no_unsold_rows", f"{ev!r} sold, but seat {seat} had {complete[0]} complete")
            self._sold(ev)

    def _sold(self, ev: event.Sold) -> None:
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
        rule = variant.sale.pay
        if override is not None:
            pay = override
        elif rule is not None:  # SELL-3: the payout expression
            pay = rule({"rows": rows, "kind_count": variant.cards[ev.kind]})
        else:
            pay = table[min(rows, len(table)) - 1]
        own = min(pay, size)  # the row's own cards paid; the rest from the deck (SELL-7)
        if rules.extra_from_deck and pay > own:  # the unpaid cards may reach the deck first
            deck = len(self.deck) + (size - own if rules.unpaid_to_deck else 0)
            pay = own + min(pay - own, deck)
        if ev.payout != pay or len(ev.cash) != pay:
            _fail(
                "sale_payout",
                f"a row of {ev.kind} sold with {rows} rows pays {pay}; the sale paid "
                f"{ev.payout} and turned {len(ev.cash)} card(s) into cash",
            )
        if own + len(ev.discarded) != size:
            _fail(
                "sale_payout",
                f"{ev!r}: {own} paid + {len(ev.discarded)} unpaid is not the set size {size}",
            )
        sold = (*ev.cash[:own], *ev.discarded)
        if len(set(sold)) != size or any(self.kind_of[c] != ev.kind for c in sold):
            _fail("sale_payout", f"{ev!r} does not sell {size} distinct {ev.kind} cards")
        unpaid = self.deck if rules.unpaid_to_deck else self.discard
        for card in ev.cash[:own]:
            self._move(card, safe, self.bank_cards[seat], f"seat {seat}'s safe")
        for card in ev.discarded:
            self._move(card, safe, unpaid, f"seat {seat}'s safe")
        for card in ev.cash[own:]:
            self._move(card, self.deck, self.bank_cards[seat], "the deck")
        self.banks[seat] += pay
        self.sales[seat] += pay
        self.rows_sold[seat] += 1

    def _next_buyer(self, stream: _Stream) -> None:
        self.buying += 1
        if self.buying > self.n:
            if self.lap >= self.rules.per_round:
                self._end_purchase(stream)
                return
            self.lap += 1  # BUY-7: the purchase cards buy again
            self.buying = 1
        if self.buying not in self.held:
            _fail("turn_order", f"no seat holds purchase card {self.buying}: {self.held}")
        self.phase = Phase.PURCHASE
        self.turn = self.held.index(self.buying)

    def _end_purchase(self, stream: _Stream) -> None:
        self.held = [0] * self.n
        self.next_card = 1
        self.buying = 0
        self.lap = 0
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
                ev = stream.take(event.RoundEnded, "event_log", f"round {self.round} is over")
                if ev.round != self.round:
                    _fail("event_log", f"{ev!r} in round {self.round}")
                if ev.start_player != self.start:
                    _fail(
                        "turn_order",
                        f"round {self.round} ends with seat {ev.start_player} as start player; "
                        f"the rules make it seat {self.start}",
                    )
                if self.round >= rules.round_limit:  # TERM-1, TERM-2
                    end = stream.take(
                        event.GameEnded, "end_of_game", f"round {self.round} is the last round"
                    )
                    self._ended(end, "capped" if rules.limit_ending == 2 else "finished")
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
                self.phase, self.buying, self.lap = Phase.PURCHASE, 1, 1
                if 1 not in self.held:
                    _fail("turn_order", f"no seat holds purchase card 1: {self.held}")
                self.turn = self.held.index(1)
                return
            if step == "tax":
                self._tax(stream)
            elif step == "reshuffle":
                shuffled = stream.take(event.Reshuffled, "event_log", "the reshuffle step")
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
            ev = stream.take(event.Taxed, "event_log", f"seat {seat} pays tax")
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
                event.GameEnded,
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
            if isinstance(stream.peek(), event.GameEnded):
                _fail(
                    "end_of_game",
                    f"the game ended though the deck ({len(self.deck)} cards) could refill "
                    f"every hand ({need} needed) (END-4)",
                )
            dealt = stream.take(event.Dealt, "event_log", f"seat {seat}'s hand is refilled")
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

    def _ended(self, ev: event.GameEnded, termination: str) -> None:
        if ev.termination != termination:
            _fail(
                "end_of_game",
                f"the game ended as {ev.termination!r} where the rules say {termination!r}",
            )
        scores = tuple(self.score(s) for s in range(self.n))
        if tuple(ev.scores) != scores:
            _fail("score", f"the game ended with scores {list(ev.scores)}; the ledger's {scores}")
        self.phase = Phase.OVER
        self.turn = None
        self.termination = termination

    # ------------------------------------------------------------- comparing

    def check(self, game: Game, zones: Mapping[str, tuple[int, ...]] | None = None) -> None:
        """The game agrees with this account: cards, cash, turn and phase.

        ``zones`` is ``game.zones()`` when the caller has read it already.
        """
        if zones is None:
            zones = game.zones()
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
