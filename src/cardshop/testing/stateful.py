"""A hypothesis state machine that plays a variant and checks every invariant.

:func:`game_machine` builds a ``RuleBasedStateMachine`` class for one variant.
Hypothesis sets up games (player count, seed, first start player), picks every
action among the legal ones, and after every step runs one ``@invariant`` per
property of :mod:`cardshop.invariants`. When one fails, hypothesis shrinks the run
and prints it as a script of ``game.apply('...')`` lines; the
:class:`~cardshop.invariants.InvariantViolation` it raises carries the same
actions as a :class:`~cardshop.invariants.Counterexample`.

In a test module::

    from cardshop.testing import game_machine

    TestMyVariant = game_machine("my-variant.yaml").TestCase

or, to run it from code, ``hypothesis.stateful.run_state_machine_as_test(machine)``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from cardshop._core import Action
from cardshop._loader import load_variant
from cardshop.invariants import (
    INVARIANTS,
    Counterexample,
    InvariantViolation,
    Ledger,
    _Snapshot,
    apply_checked,
    check_conservation,
    check_copies,
    check_hand_size,
    check_hidden_information,
    check_legal_actions,
    check_no_unsold_rows,
    check_purchase_cards,
    check_replay,
    check_score,
    check_setup,
)
from cardshop.klunker.events import Event
from cardshop.klunker.game import Game, new_game
from cardshop.klunker.variant import Variant

__all__ = ["GameMachine", "game_machine"]


# The invariants that the ledger checks as actions are played.
_BOOKED = frozenset(
    {
        "sale_payout",
        "bank_ledger",
        "turn_order",
        "end_of_game",
        "event_log",
        "no_unsold_rows",
        "hand_size",
        "score",
    }
)


class GameMachine(RuleBasedStateMachine):
    """Plays games of :attr:`variant`; one ``@invariant`` per invariant.

    Subclasses made by :func:`game_machine` set the class attributes.
    """

    variant: Variant
    variant_ref: str = ""
    player_counts: tuple[int, ...] = ()
    checks: frozenset[str] = frozenset(INVARIANTS)
    max_actions_per_step: int = 10

    def __init__(self) -> None:
        super().__init__()
        self.game: Game | None = None
        self.ledger: Ledger | None = None
        self.events: list[list[Event]] = []
        self.pending: InvariantViolation | None = None
        self.replayed = False
        self.version = 0  # counts game changes, to read each state's zones once
        self._cheap = False  # between the actions of one step: leave out the costliest checks
        self._snap: tuple[int, _Snapshot] | None = None

    # ------------------------------------------------------------------ rules

    @initialize(data=st.data(), seed=st.integers(0, 2**32 - 1))
    def start(self, data: st.DataObject, seed: int) -> None:
        """Set up a game: player count, seed and first start player."""
        self._new_game(data, seed)

    @precondition(lambda self: self.game is not None and self.game.is_over)
    @rule(data=st.data(), seed=st.integers(0, 2**32 - 1))
    def next_game(self, data: st.DataObject, seed: int) -> None:
        """After a game ends, set up another."""
        self._new_game(data, seed)

    @precondition(lambda self: self.game is not None and not self.game.is_over)
    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        """Play one legal action chosen by hypothesis."""
        self._act(data)

    @precondition(lambda self: self.game is not None and not self.game.is_over)
    @rule(data=st.data())
    def act_several(self, data: st.DataObject) -> None:
        """Play several legal actions, checking every invariant after each."""
        count = data.draw(st.integers(1, self.max_actions_per_step), label="actions")
        for i in range(count):
            self._act(data)
            game = self.game
            if self.pending is not None or game is None or game.is_over:
                return
            if i < count - 1:
                self._check_everything(cheap=True)

    # -------------------------------------------------------------- helpers

    def _new_game(self, data: st.DataObject, seed: int) -> None:
        players = data.draw(st.sampled_from(self.player_counts), label="players")
        first = data.draw(st.integers(0, players - 1), label="first_player")
        note(
            f"game = cardshop.new_game({self.variant_ref!r}, players={players}, "
            f"seed={seed}, first_player={first})"
        )
        self.game = new_game(self.variant, players, seed, first)
        self.pending = None
        try:
            check_setup(self.game)
        except InvariantViolation as exc:
            if exc.invariant in self.checks:
                self.pending = exc
        self.ledger = Ledger(self.game)
        self.events = []
        self.replayed = False
        self.version += 1

    def _act(self, data: st.DataObject) -> None:
        game, ledger = self.game, self.ledger
        assert game is not None
        assert ledger is not None
        legal = game.legal_actions()
        if not legal:  # only a broken engine leaves a running game without actions
            self.pending = InvariantViolation(
                "legal_actions", f"seat {game.current_player} has no legal action"
            )
            return
        action: Action = data.draw(st.sampled_from(legal), label="action")
        note(f"game.apply({str(action)!r})")
        self.version += 1
        try:
            events = apply_checked(game, action)
        except InvariantViolation as exc:
            self.pending = exc
            return
        self.events.append(events)
        if not self.checks & _BOOKED:
            return
        try:
            ledger.record(action, events)
            ledger.check(game, self._snapshot(game))
        except InvariantViolation as exc:
            if exc.invariant in self.checks:
                self.pending = exc
            else:  # a fault nobody asked about: keep checking the rest from here
                self.ledger = Ledger(game)

    def _counterexample(self, exc: InvariantViolation) -> InvariantViolation:
        game = self.game
        if game is None or exc.counterexample is not None:
            return exc
        example = Counterexample(
            invariant=exc.invariant,
            detail=exc.detail,
            variant=self.variant_ref,
            players=game.players,
            seed=game.seed,
            first_player=game.first_player,
            actions=tuple(str(a) for a in game.history),
        )
        return InvariantViolation(exc.invariant, exc.detail, example)

    def _check(self, name: str, check: Callable[[Game], None]) -> None:
        if name not in self.checks or self.game is None:
            return
        pending = self.pending
        if pending is not None and pending.invariant == name:
            raise self._counterexample(pending)
        try:
            check(self.game)
        except InvariantViolation as exc:
            if exc.invariant in self.checks:
                raise self._counterexample(exc) from None

    def _snapshot(self, game: Game) -> _Snapshot:
        if self._snap is None or self._snap[0] != self.version:
            self._snap = (self.version, _Snapshot(game))
        return self._snap[1]

    @staticmethod
    def _booked(game: Game) -> None:
        """Ledger checks run as actions are played (see ``_act``); this only reports them."""

    def _check_everything(self, *, cheap: bool = False) -> None:
        """Every invariant now; with ``cheap``, all but the costliest checks."""
        self._cheap = cheap
        for method in (
            self.conservation,
            self.no_unsold_rows,
            self.sale_payout,
            self.bank_ledger,
            self.turn_order,
            self.legal_actions,
            self.hand_size,
            self.score,
            self.end_of_game,
            self.event_log,
            *(() if cheap else (self.hidden_information, self.determinism)),
        ):
            method()
        self._cheap = False

    # ------------------------------------------------------------ invariants

    @invariant()
    def conservation(self) -> None:
        """The zones hold exactly the variant's cards, each once. [CARD-1]"""
        self._check(
            "conservation",
            lambda g: check_conservation(g, self._snapshot(g), counts=not self._cheap),
        )

    @invariant()
    def no_unsold_rows(self) -> None:
        """No complete row waits in a safe between actions. [SELL-2, SELL-6]"""
        self._check("no_unsold_rows", lambda g: check_no_unsold_rows(g, self._snapshot(g)))

    @invariant()
    def sale_payout(self) -> None:
        """Every sale paid per the payout table. [SELL-3, SELL-4, SELL-5]"""
        self._check("sale_payout", self._booked)

    @invariant()
    def bank_ledger(self) -> None:
        """Banks = starting cash + sales + fees received - fees paid - tax."""
        self._check("bank_ledger", self._booked)

    @invariant()
    def turn_order(self) -> None:
        """Purchase cards, turns and the start player follow the rules."""
        self._check("turn_order", check_purchase_cards)
        self._check("turn_order", self._booked)

    @invariant()
    def legal_actions(self) -> None:
        """Legal actions are sorted and distinct, and each one plays without error."""
        self._check("legal_actions", check_legal_actions)

    @invariant()
    def hand_size(self) -> None:
        """No hand exceeds the hand size. [SETUP-4, END-5]"""
        self._check("hand_size", lambda g: check_hand_size(g, self._snapshot(g)))

    @invariant()
    def score(self) -> None:
        """Score = bank size; ranks follow the tiebreaks. [SCORE-1, SCORE-2]"""
        self._check("score", lambda g: check_score(g, self._snapshot(g)))

    @invariant()
    def end_of_game(self) -> None:
        """The game ends exactly when the deck cannot refill, or at the cap."""
        self._check("end_of_game", self._booked)

    @invariant()
    def event_log(self) -> None:
        """The events account for every card that moved."""
        self._check("event_log", self._booked)

    @invariant()
    def hidden_information(self) -> None:
        """Cards hidden from a seat do not change what it observes. [CARD-2]"""

        def hidden(game: Game) -> None:
            # One seat per step, in turn: every seat over a run.
            if not game.is_over:
                seat = len(game.history) % game.players
                check_hidden_information(game, seats=[seat], seed=len(game.history))

        self._check("hidden_information", hidden)

    @invariant()
    def determinism(self) -> None:
        """Copies play the same; a finished game replays to the same events."""

        def same(game: Game) -> None:
            check_copies(game)
            if game.is_over and not self.replayed:
                self.replayed = True
                check_replay(game, self.events)

        self._check("determinism", same)


def _unchecked(self: GameMachine) -> None:
    """An invariant this machine does not check."""


def game_machine(
    variant: Variant | str | Path,
    *,
    players: int | Sequence[int] | None = None,
    checks: Collection[str] | None = None,
    max_actions_per_step: int = 10,
    name: str | None = None,
) -> type[GameMachine]:
    """A state machine class that plays ``variant`` and checks every invariant.

    ``variant`` is a built-in name, a YAML path or a :class:`~cardshop.Variant`.
    ``players`` limits the player counts (default: the variant's whole range);
    ``checks`` limits the invariants checked (names of
    :data:`cardshop.invariants.INVARIANTS`); each step plays 1 to
    ``max_actions_per_step`` actions. Use its ``TestCase`` attribute in a test
    module, or run it with ``hypothesis.stateful.run_state_machine_as_test``.
    """
    v = load_variant(variant)
    ref = v.name if isinstance(variant, Variant) else str(variant)
    if players is None:
        counts = tuple(range(v.players.min, v.players.max + 1))
    elif isinstance(players, int):
        counts = (players,)
    else:
        counts = tuple(players)
    bad = [n for n in counts if not v.players.min <= n <= v.players.max]
    if bad or not counts:
        raise ValueError(
            f"{v.name} is played by {v.players.min} to {v.players.max} players, not {bad or counts}"
        )
    wanted = frozenset(INVARIANTS if checks is None else checks)
    unknown = wanted - set(INVARIANTS)
    if unknown:
        raise ValueError(f"unknown invariants {sorted(unknown)}; known: {', '.join(INVARIANTS)}")
    title = name or "".join(part.capitalize() for part in v.name.split("-")) + "Machine"
    # Invariants not asked for are left out of the class (each costs hypothesis a
    # little after every step), replaced by plain methods that check nothing.
    attrs: dict[str, Any] = {skipped: _unchecked for skipped in set(INVARIANTS) - wanted}
    attrs |= {
        "variant": v,
        "variant_ref": ref,
        "player_counts": counts,
        "checks": wanted,
        "max_actions_per_step": max(1, max_actions_per_step),
        "__doc__": f"Plays {v.name} and checks every invariant after every step.",
    }
    return type(title, (GameMachine,), attrs)
