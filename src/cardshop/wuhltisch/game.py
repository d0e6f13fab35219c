"""The Wühltisch engine: a simultaneous game played in ticks.

State layout (plain ints and lists; card ids as in ``cardshop.wuhltisch.variant``):

* ``_heap``: the face-down heap, shirts and lost property, the top card last;
* ``_box``: the lists not dealt this round (sorted);
* per seat ``s``: ``_view[s]`` the shirt in view (-1 none), ``_hands[s]`` the held
  shirts sorted by id (slot ``i`` of ``swap i``/``drop i`` is position ``i``),
  ``_found[s]`` lost property laid out, ``_stacks[s]`` face-down lists (top last),
  ``_active[s]`` the face-up list (-1 none), ``_sets[s]`` laid-down sets, each
  ``[list, shirt, shirt, shirt]``;
* ``_last_sets``/``_last_found``: what the last scored round revealed;
* ``_round_scores``, ``_callers``, ``_capped``, ``_in_front``: the score sheet.

Every card is in exactly one of heap, box, views, hands, found, stacks, face-up
lists and sets at every tick. Clause IDs refer to docs/wuhltisch-rules.md.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Mapping
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
    Termination,
    chance_source,
)
from cardshop.wuhltisch.events import (
    Dropped,
    FoundLostProperty,
    GameEnded,
    HandsOff,
    Kept,
    LaidDown,
    ListTurned,
    Looked,
    ReturnedToHeap,
    RoundScored,
    RoundStarted,
    SetScored,
    Swapped,
    Threw,
    WuhltischEvent,
)
from cardshop.wuhltisch.variant import WuhltischRules, WuhltischVariant
from cardshop.wuhltisch.verify import card_kinds

__all__ = ["FORMAT", "VERBS", "WuhltischGame", "WuhltischObservation", "new_game"]

FORMAT = "cardshop-wuhltisch-game/1"
MAX_ACTION_TEXT = 40
_NO_ACTIONS = LegalActions(())


VERBS = {
    "look": "look  (pick up a card from the heap; needs nothing in view)",
    "keep": "keep  (put the shirt in view into your hand; fewer than set_size held)",
    "swap": "swap SLOT  (hand full: throw back held shirt SLOT, keep the one in view)",
    "throw": "throw  (throw the shirt in view back into the heap)",
    "drop": "drop SLOT  (throw back held shirt SLOT, 0 = lowest card id; any time)",
    "buy": "buy  (lay down your set_size held shirts with your face-up list)",
    "wait": "wait  (do nothing this tick; needs nothing in view)",
}

_ARG_TYPES: Final = frozenset({int, str, type(None)})
"""The types of an action's argument that ``apply_joint`` takes as they are (a bool or
a float equal to a legal argument is read through its text, and refused)."""

# Events and moves are built with tuple.__new__ directly, as Klunker's are: the same
# named tuples, without the generated __new__, which runs as Python (on the compiled
# build about a tenth of a decision's instructions).
_new: Final = tuple.__new__


class WuhltischObservation(NamedTuple):
    """What one seat may know. [WT-KNOW-1, WT-KNOW-2]

    Public: the tick clock, every face-up list, how many shirts each seat holds and
    how many sets it laid down, the lost property laid out, the score sheet (round
    scores, who ended each round, which rounds were capped) and the sets and lost
    property of the last scored round, and how many lists lie face down in each
    seat's stack. Private to ``seat``: the card in view and the held shirts (sorted:
    slot order). Nobody sees the face-down lists themselves, their owner included.
    """

    seat: Seat
    players: int
    round: int
    rounds: int
    tick: int
    over: bool
    lists: tuple[int, ...]  # face-up list per seat, -1 none
    hand_sizes: tuple[int, ...]
    sets_laid: tuple[int, ...]
    found: tuple[tuple[int, ...], ...]
    round_scores: tuple[tuple[int, ...], ...]
    callers: tuple[tuple[int, ...], ...]
    capped: tuple[int, ...]
    last_sets: tuple[tuple[tuple[int, ...], ...], ...]
    last_found: tuple[tuple[int, ...], ...]
    view: int
    hand: tuple[int, ...]
    stack_sizes: tuple[int, ...]  # face-down lists per seat (their cards hidden from all)


class WuhltischGame(Engine):
    """A game of a Wühltisch-family variant.

    Every seat acts in every tick (``acting`` is all seats until the game is over):
    a tick is one :meth:`apply_joint` call with one action per seat. An illegal
    joint action changes nothing. Create games with :func:`new_game`,
    :meth:`from_position` or :meth:`from_json`.
    """

    __slots__ = (
        "_active",
        "_box",
        "_callers",
        "_capped",
        "_chance",
        "_found",
        "_from_setup",
        "_hands",
        "_heap",
        "_in_front",
        "_last_found",
        "_last_sets",
        "_moves",
        "_over",
        "_round",
        "_round_scores",
        "_sets",
        "_stacks",
        "_step",
        "_tick",
        "_ticks",
        "_view",
        "n",
        "rules",
        "seed",
        "setup_events",
        "variant",
    )

    family: ClassVar[str] = "wuhltisch"
    PROGRESS: ClassVar[str] = "_round"
    # Game JSON, and positions (docs/wuhltisch-rules.md, "Positions").
    SERIAL: ClassVar[str] = "cardshop.wuhltisch.serial"
    POSITIONS: ClassVar[str] = "cardshop.wuhltisch.position"

    # Every field, declared once: clone, ==, pickling and the slots follow from it; the
    # setup's fields first, as the core's Engine declares them. Not compared by ==: the
    # variant, the setup's events, the moves that led here and the step counter.
    STATE: ClassVar[tuple[StateField, ...]] = (
        *Engine.SETUP_STATE,
        StateField("setup_events", Copy.LIST, compared=False),
        *Engine.MOVES_STATE,
        StateField("_chance"),
        StateField("_round"),
        StateField("_tick"),
        StateField("_ticks"),
        StateField("_over"),
        StateField("_heap", Copy.LIST),
        StateField("_box", Copy.LIST),
        StateField("_view", Copy.LIST),
        StateField("_hands", Copy.LISTS),
        StateField("_found", Copy.LISTS),
        StateField("_stacks", Copy.LISTS),
        StateField("_active", Copy.LIST),
        StateField("_sets", Copy.LISTS3),
        StateField("_last_sets", Copy.LISTS3),
        StateField("_last_found", Copy.LISTS),
        StateField("_round_scores", Copy.LISTS),
        StateField("_callers", Copy.LISTS),
        StateField("_capped", Copy.LIST),
        StateField("_in_front", Copy.LIST),
    )

    variant: WuhltischVariant
    rules: WuhltischRules
    seed: int
    n: int
    _from_setup: bool  # written out: a compiled class keeps only its own annotated fields

    def _setup(self, first_player: Seat | None) -> None:
        """WT-SETUP-1/2, for :meth:`Engine.new`: the heap shuffled and the lists of
        round 1 dealt (no seat starts: ``first_player`` is never given)."""
        self._start_round(self.setup_events)

    def _init_empty(self, variant: WuhltischVariant, players: int, seed: int) -> None:
        n = players
        self.rules = variant.rules  # variant, n, seed and _from_setup: Engine._empty
        self.setup_events: list[WuhltischEvent] = []
        self._moves: list[tuple[int, int, Action]] = []  # Move's fields, plain tuples
        self._step = 0
        self._chance = 0
        self._round = 1
        self._tick = 0
        self._ticks = 0
        self._over = False
        self._heap: list[int] = []
        self._box: list[int] = []
        self._view: list[int] = [-1] * n
        self._hands: list[list[int]] = [[] for _ in range(n)]
        self._found: list[list[int]] = [[] for _ in range(n)]
        self._stacks: list[list[int]] = [[] for _ in range(n)]
        self._active: list[int] = [-1] * n
        self._sets: list[list[list[int]]] = [[] for _ in range(n)]
        self._last_sets: list[list[list[int]]] = [[] for _ in range(n)]
        self._last_found: list[list[int]] = [[] for _ in range(n)]
        self._round_scores: list[list[int]] = []
        self._callers: list[list[int]] = []
        self._capped: list[int] = []
        self._in_front: list[int] = [0] * n

    # ------------------------------------------------------------- public view

    @property
    def dynamics(self) -> Dynamics:
        """Every seat acts in each tick. [WT-TICK-1]"""
        return Dynamics.SIMULTANEOUS

    @property
    def acting(self) -> tuple[Seat, ...]:
        """Every seat acts in every tick until the game is over. [WT-TICK-1]"""
        return () if self._over else tuple(range(self.n))

    @property
    def current_player(self) -> Seat | None:
        return 0 if self.n == 1 and not self._over else None

    @property
    def is_over(self) -> bool:
        return self._over

    @property
    def round(self) -> int:
        """The current round, from 1 (:meth:`progress`: the family counts its length in
        rounds)."""
        return self._round

    @property
    def tick(self) -> int:
        """Ticks played in the current round."""
        return self._tick

    @property
    def ticks(self) -> int:
        """Ticks played in the whole game."""
        return self._ticks

    @property
    def round_scores(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(r) for r in self._round_scores)

    @property
    def capped_rounds(self) -> tuple[int, ...]:
        return tuple(self._capped)

    def scores(self) -> tuple[int, ...]:
        """Each seat's total of the rounds scored so far. [WT-END-3]"""
        return tuple(sum(r[s] for r in self._round_scores) for s in range(self.n))

    def zones(self) -> dict[str, tuple[int, ...]]:
        """Every zone's cards. Heap and stacks top card first, hands in slot order. [WT-CARD-1]"""
        out: dict[str, tuple[int, ...]] = {"heap": tuple(self._heap[::-1]), "box": tuple(self._box)}
        for s in range(self.n):
            v = self._view[s]
            a = self._active[s]
            out[f"view:{s}"] = (v,) if v >= 0 else ()
            out[f"hand:{s}"] = tuple(self._hands[s])
            out[f"found:{s}"] = tuple(self._found[s])
            out[f"stack:{s}"] = tuple(self._stacks[s][::-1])
            out[f"list:{s}"] = (a,) if a >= 0 else ()
            for i, st in enumerate(self._sets[s]):
                out[f"set:{s}:{i}"] = tuple(st)
        return out

    def describe(self, card: int) -> str:
        """A card in words (``dots/blue/s/long@20``)."""
        return self.rules.describe(card)

    # ----------------------------------------------------------- legal actions

    def _seat_arg(self, seat: Checked[Seat | None]) -> Seat:
        if seat is None:
            if self.n == 1:
                return 0
            raise GameStateError(
                "all seats act at once in Wühltisch: name the seat (legal_actions(seat))"
            )
        if type(seat) is not int or not 0 <= seat < self.n:
            raise GameStateError(f"no seat {seat!r}; seats are 0..{self.n - 1}")
        return seat

    def legal_actions(self, seat: Checked[Seat | None] = None) -> LegalActions:
        """The actions ``seat`` may take this tick, sorted by text; empty when over.

        A read-only view of the variant's table of action sets (no copy).
        """
        s = self._seat_arg(seat)
        if self._over:
            return _NO_ACTIONS
        return self.rules.legal_views[self._view[s] >= 0][len(self._hands[s])]

    def parse_action(self, text: Checked[str], seat: Checked[Seat | None] = None) -> Action:
        """Parse an action text (``look``, ``swap 2``); legality is for apply to check."""
        if not isinstance(text, str):
            raise ActionParseError(f"an action text must be a string, not {text!r}")
        known = self.rules.actions_by_text.get(text)
        if known is not None:
            return known
        if len(text) > MAX_ACTION_TEXT:
            raise ActionParseError(f"action text longer than {MAX_ACTION_TEXT} characters")
        action = Action.from_text(text)
        verb, arg = action
        if verb not in VERBS:
            raise ActionParseError(
                f"unknown action {text!r}; actions are: " + "; ".join(VERBS.values())
            )
        if verb in ("swap", "drop"):
            k = self.rules.set_size
            if arg is None:
                raise ActionParseError(f"{text!r} needs a slot: {VERBS[verb]}")
            if not isinstance(arg, int) or not 0 <= arg < k:
                raise ActionParseError(f"{text!r}: the slot must be 0..{k - 1}")
        elif arg is not None:
            raise ActionParseError(f"{verb!r} takes no argument (got {text!r})")
        return self.rules.actions_by_text[str(Action(verb, arg))]

    def _why_illegal(self, seat: Seat, action: Action) -> str:
        view = self._view[seat] >= 0
        held = len(self._hands[seat])
        k = self.rules.set_size
        verb = action.verb
        if verb in ("look", "wait", "buy") and view:
            return "a shirt is in view: keep, swap, throw or drop first"
        if verb in ("keep", "swap", "throw") and not view:
            return "no shirt is in view"
        if verb == "keep":
            return f"the hand already holds {k} shirts: swap instead"
        if verb == "swap":
            return f"swap needs a full hand of {k} shirts (holds {held})"
        if verb in ("swap", "drop") and isinstance(action.arg, int) and action.arg >= held:
            return f"there is no held shirt in slot {action.arg} (holds {held})"
        if verb == "buy":
            return f"buy needs exactly {k} held shirts (holds {held})"
        return "not legal now"

    # -------------------------------------------------------------------- apply

    def apply(
        self, action: Checked[Action | str], seat: Checked[Seat | None] = None
    ) -> list[WuhltischEvent]:
        """One seat's action; only for a one-player game (else use :meth:`apply_joint`)."""
        if self.n != 1:
            raise GameStateError(
                f"all {self.n} seats act at once in Wühltisch: use apply_joint({{seat: action}})"
            )
        if seat not in (None, 0):
            raise GameStateError(f"no seat {seat!r}; the only seat is 0")
        return self.apply_joint({0: action})

    def apply_joint(self, actions: Checked[Mapping[Seat, Action | str]]) -> list[WuhltischEvent]:
        """Resolve one tick: every seat's action at once. [WT-TICK-1..WT-TICK-8]

        All actions are checked first; an illegal one raises
        :class:`IllegalActionError` (or :class:`ActionParseError`) and changes nothing.
        """
        if self._over:
            raise GameStateError("the game is over: no seat acts")
        n = self.n
        if not isinstance(actions, Mapping):
            raise GameStateError("a joint action is a mapping of seat to action")
        if len(actions) != n or any(type(s) is not int for s in actions):
            raise GameStateError(
                f"every seat 0..{n - 1} acts exactly once per tick; "
                f"got seats {sorted(map(repr, actions))}"
            )
        rules = self.rules
        by_text = rules.actions_by_text
        table = rules.legal_table
        chosen: list[Action] = []
        for s in range(n):
            if s not in actions:
                raise GameStateError(f"seat {s} has no action this tick")
            raw = actions[s]
            legal = table[self._view[s] >= 0][len(self._hands[s])]
            if type(raw) is Action and type(raw[1]) in _ARG_TYPES and raw in legal:
                chosen.append(raw)  # the usual case: an action as legal_actions lists it
                continue
            action = self.parse_action(raw, s) if isinstance(raw, str) else by_text.get(str(raw))
            if action is None or not isinstance(raw, (str, Action)):
                raise IllegalActionError(f"seat {s}: {raw!r} is not an action of this game")
            if action not in legal:
                raise IllegalActionError(
                    f"seat {s} may not {action} now: {self._why_illegal(s, action)}"
                )
            chosen.append(action)
        step = self._step  # the core's bookkeeping (Game._record), written out
        self._moves += [(step, s, chosen[s]) for s in range(n)]
        self._step = step + 1
        return self._resolve(chosen)

    def _play(self, actions: Mapping[Seat, Action]) -> list[WuhltischEvent]:
        """One tick's checked and recorded actions, resolved (the core's apply_joint)."""
        return self._resolve([actions[s] for s in range(self.n)])

    def _resolve(self, chosen: list[Action]) -> list[WuhltischEvent]:
        rules = self.rules
        n = self.n
        heap = self._heap
        view = self._view
        hands = self._hands
        events: list[WuhltischEvent] = []
        back: list[int] = []
        n_shirts = rules.n_shirts
        lost_value = rules.lost_value
        # Looks first, seat by seat, from the heap as it stood: distinct cards. [WT-TICK-1]
        for s in range(n):
            if chosen[s].verb == "look":
                card = heap.pop()
                events.append(_new(Looked, (s, card)))
                if card < n_shirts:
                    view[s] = card
                elif lost_value[card]:  # WT-TICK-2
                    self._found[s].append(card)
                    events.append(_new(FoundLostProperty, (s, card, lost_value[card])))
                else:
                    back.append(card)
                    events.append(_new(Threw, (s, card)))
        callers: list[int] = []
        for s in range(n):
            verb, arg = chosen[s]
            if verb == "keep":  # WT-TICK-4
                card = view[s]
                view[s] = -1
                insort(hands[s], card)
                events.append(_new(Kept, (s, card)))
            elif verb == "swap":  # WT-TICK-4
                dropped = hands[s].pop(arg)  # type: ignore[arg-type]
                card = view[s]
                view[s] = -1
                insort(hands[s], card)
                back.append(dropped)
                events.append(_new(Swapped, (s, dropped, card)))
            elif verb == "throw":  # WT-TICK-3
                card = view[s]
                view[s] = -1
                back.append(card)
                events.append(_new(Threw, (s, card)))
            elif verb == "drop":  # WT-TICK-5
                card = hands[s].pop(arg)  # type: ignore[arg-type]
                back.append(card)
                events.append(_new(Dropped, (s, card)))
            elif verb == "buy":  # WT-TICK-6
                shirts = hands[s]
                hands[s] = []
                lst = self._active[s]
                self._sets[s].append([lst, *shirts])
                events.append(_new(LaidDown, (s, lst, tuple(shirts), False)))
                stack = self._stacks[s]
                if stack:
                    self._active[s] = stack.pop()
                    events.append(_new(ListTurned, (s, self._active[s])))
                else:
                    self._active[s] = -1
                    callers.append(s)  # WT-END-1
        if back:
            self._throw_back(back)
        self._tick += 1
        self._ticks += 1
        if callers:
            self._end_round(callers, False, events)
        elif self._tick >= rules.round_ticks:  # WT-CAP-1
            self._end_round([], True, events)
        return events

    def _throw_back(self, cards: list[int]) -> None:
        """Cards go back into the heap, each at a random place. [WT-TICK-3]"""
        self._chance += 1
        heap = self._heap
        size = len(heap)
        places = chance_source(self.variant.chance).places(
            range(size + 1, size + 1 + len(cards)), self.seed, "heap", self._chance
        )
        for card, place in zip(cards, places, strict=True):
            heap.insert(place, card)

    # ----------------------------------------------------------- rounds, scores

    def _start_round(self, events: list[WuhltischEvent]) -> None:
        """Shuffle everything into the heap, deal the lists, turn the top ones. [WT-SETUP-2]"""
        rules = self.rules
        n = self.n
        self._chance += 1
        heap = list(range(rules.first_list))
        lists = list(range(rules.first_list, rules.n_cards))
        # Cards of one kind are interchangeable: a source that enumerates outcomes
        # lists each arrangement of kinds once (the seeded one ignores the kinds).
        chance_source(self.variant.chance).shuffle(
            (heap, lists), self.seed, "round", self._chance, kinds=card_kinds(rules)
        )
        per = rules.lists_per_player
        self._heap = heap
        self._stacks = [lists[s * per : (s + 1) * per] for s in range(n)]
        self._box = sorted(lists[n * per :])
        self._active = [stack.pop() for stack in self._stacks]
        self._view = [-1] * n
        self._hands = [[] for _ in range(n)]
        self._found = [[] for _ in range(n)]
        self._sets = [[] for _ in range(n)]
        self._tick = 0
        events.append(_new(RoundStarted, (self._round,)))
        events += [_new(ListTurned, (s, self._active[s])) for s in range(n)]

    def _end_round(self, callers: list[int], capped: bool, events: list[WuhltischEvent]) -> None:
        """Hands off: full hands are laid down, the rest thrown back; then scoring. [WT-END-2]"""
        rules = self.rules
        n = self.n
        k = rules.set_size
        if callers:
            events.append(_new(HandsOff, (self._round, tuple(callers))))
        back: list[int] = []
        for s in range(n):
            mine: list[int] = []
            if self._view[s] >= 0:
                mine.append(self._view[s])
                self._view[s] = -1
            hand = self._hands[s]
            if len(hand) == k and self._active[s] >= 0:
                lst = self._active[s]
                self._active[s] = -1
                self._sets[s].append([lst, *hand])
                events.append(_new(LaidDown, (s, lst, tuple(hand), True)))
            else:
                mine += hand
            self._hands[s] = []
            if mine:
                events.append(_new(ReturnedToHeap, (s, tuple(mine))))
                back += mine
        if back:
            self._throw_back(back)
        scores = [self._score_seat(s, callers, capped, events) for s in range(n)]
        self._last_sets = [[st.copy() for st in self._sets[s]] for s in range(n)]
        self._last_found = [f.copy() for f in self._found]
        self._in_front = [
            sum(len(st) for st in self._sets[s]) + len(self._found[s]) for s in range(n)
        ]
        self._round_scores.append(scores)
        self._callers.append(list(callers))
        if capped:
            self._capped.append(self._round)
        events.append(
            _new(RoundScored, (self._round, tuple(scores), tuple(callers), capped, self._tick))
        )
        if self._round >= rules.rounds:  # WT-END-3
            self._over = True
            events.append(GameEnded(self.termination.value, self.scores()))  # type: ignore[union-attr]
            return
        self._round += 1
        self._start_round(events)

    def _score_seat(
        self, seat: Seat, callers: list[int], capped: bool, events: list[WuhltischEvent]
    ) -> int:
        """Sets plus lost property; the caller's all-or-nothing rule; the round terms.
        [WT-SCORE-4/5/7]"""
        rules = self.rules
        price = rules.price
        set_scores: list[int] = []
        for st in self._sets[seat]:
            lst, shirts = st[0], st[1:]
            score = rules.set_score(lst, shirts)
            set_scores.append(score)
            events.append(
                _new(
                    SetScored,
                    (
                        seat,
                        lst,
                        tuple(shirts),
                        rules.set_matches(lst, shirts),
                        sum(price[c] for c in shirts),
                        score,
                    ),
                )
            )
        lost = sum(rules.lost_value[c] for c in self._found[seat])
        return rules.round_score(
            set_scores,
            lost,
            caller=seat in callers,
            callers=len(callers),
            capped=capped,
            round_=self._round,
            players=self.n,
        )

    @property
    def termination(self) -> Termination | None:
        """None while running; ``capped`` if any round hit the tick cap, else ``finished``."""
        if not self._over:
            return None
        return Termination.CAPPED if self._capped else Termination.FINISHED

    def _rank_key(self, seat: Seat) -> tuple[int, ...]:
        """The total score, then the tiebreak: most cards in front at the end (the
        result's ranks follow). [WT-END-3]"""
        return (sum(r[seat] for r in self._round_scores), self._in_front[seat])

    def _result_details(self) -> dict[str, int]:
        return {"ticks": self._ticks, "capped_rounds": len(self._capped)}

    # ------------------------------------------------------------- observation

    def observation(self, seat: Checked[Seat]) -> WuhltischObservation:
        """What ``seat`` may know, and nothing more. [WT-KNOW-1, WT-KNOW-2]"""
        n = self.n
        if type(seat) is not int or not 0 <= seat < n:
            raise GameStateError(f"no seat {seat!r}; seats are 0..{n - 1}")
        return WuhltischObservation(
            seat,
            n,
            self._round,
            self.rules.rounds,
            self._tick,
            self._over,
            tuple(self._active),
            tuple([len(h) for h in self._hands]),
            tuple([len(st) for st in self._sets]),
            tuple([tuple(f) for f in self._found]),
            tuple([tuple(r) for r in self._round_scores]),
            tuple([tuple(c) for c in self._callers]),
            tuple(self._capped),
            tuple([tuple([tuple(st) for st in sets]) for sets in self._last_sets]),
            tuple([tuple(f) for f in self._last_found]),
            self._view[seat],
            tuple(self._hands[seat]),
            tuple([len(st) for st in self._stacks]),
        )

    # ------------------------------------------------------------------ copies

    def clone(self) -> WuhltischGame:
        """An independent copy: playing on it never changes this game (written out for
        speed; the conformance battery checks it against :meth:`derived_clone`)."""
        g = WuhltischGame()  # a blank game: the class has no __init__
        # The setup (Engine.SETUP_STATE) is shared: it never changes once the game is set up.
        g.variant, g.rules, g.n, g.seed = self.variant, self.rules, self.n, self.seed
        g._from_setup = self._from_setup
        g.setup_events = self.setup_events.copy()
        g._moves = self._moves.copy()
        g._step = self._step
        g._chance = self._chance
        g._round = self._round
        g._tick = self._tick
        g._ticks = self._ticks
        g._over = self._over
        g._heap = self._heap.copy()
        g._box = self._box.copy()
        g._view = self._view.copy()
        g._hands = [h.copy() for h in self._hands]
        g._found = [f.copy() for f in self._found]
        g._stacks = [st.copy() for st in self._stacks]
        g._active = self._active.copy()
        g._sets = [[st.copy() for st in sets] for sets in self._sets]
        g._last_sets = [[st.copy() for st in sets] for sets in self._last_sets]
        g._last_found = [f.copy() for f in self._last_found]
        g._round_scores = [r.copy() for r in self._round_scores]
        g._callers = [c.copy() for c in self._callers]
        g._capped = self._capped.copy()
        g._in_front = self._in_front.copy()
        return g

    def __eq__(self, other: object) -> bool:
        # Written out: a class compiled by mypyc fills its comparison slot itself and
        # would not reach the inherited method through ``==``.
        return Engine.__eq__(self, other)

    __hash__ = None

    def _state_dict(self) -> dict[str, Any]:
        """The compared fields of the state, copied, by their names without the
        underscore (the ``state`` of the game's JSON)."""
        return {
            f.name[1:]: f.copied(getattr(self, f.name))
            for f in self.STATE
            if f.compared and f.name[0] == "_"
        }

    def __repr__(self) -> str:
        state = "over" if self._over else f"round {self._round} tick {self._tick}"
        return f"<WuhltischGame {self.rules.name} players={self.n} seed={self.seed} {state}>"

    # -------------------------------------------------------------------- JSON

    FORMAT: ClassVar[str] = FORMAT  # ClassVar: a class attribute in mypyc

    def to_dict(self) -> dict[str, Any]:
        """The whole game as JSON-ready data (the resolved variant included)."""
        return {
            "format": FORMAT,
            "family": self.family,
            "variant_hash": self.rules.content_hash,
            "variant": self.variant.hash_data(),
            "players": self.n,
            "seed": self.seed,
            "from_setup": self._from_setup,
            "steps": self._step,
            "moves": [[step, seat, str(action)] for step, seat, action in self._moves],
            "state": self._state_dict(),
        }


def new_game(
    variant: Checked[WuhltischVariant | str],
    players: Checked[int],
    seed: Checked[int | None] = None,
) -> WuhltischGame:
    """Start a game: shuffle the heap and deal the lists of round 1. [WT-SETUP-1/2]

    ``variant`` is a :class:`WuhltischVariant` or anything
    :func:`cardshop.load_variant` takes; ``seed`` makes every chance event
    reproducible (a fresh random seed if None).
    """
    from cardshop.core import load_variant

    return WuhltischGame.new(WuhltischVariant.of_family(load_variant(variant)), players, seed)
