"""The breadth-first search of ``cardshop verify``: every reachable state, checked.

The search starts from every deal of a variant (every outcome of the setup's chance
events, each enumerated by a :class:`~cardshop.core.ScriptedChance`), and from each
state plays every legal action (every joint action of the acting seats in a
simultaneous game) under every outcome of the chance it draws. A state is known by
its family's canonical key (:attr:`VerifyHooks.state_key
<cardshop.core.VerifyHooks.state_key>`), so transpositions and states that differ only
by cards of one kind merge; the visited set keeps a 64-bit fingerprint of each key
(hash compaction) unless told to keep the keys whole.

Each new state is checked when it is found, in breadth-first order, so the first fault
found is at the least depth at which any is: its path from a deal is a shortest
counterexample. What is checked on each state and step is listed in :data:`CHECKS`.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from array import array
from collections.abc import Callable, Collection, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from hashlib import blake2b
from typing import Any

from cardshop import driver
from cardshop.core.actions import Action, Seat
from cardshop.core.chance import ScriptedChance, drawing_from
from cardshop.core.errors import CardshopError, InvariantViolation, SetupError
from cardshop.core.family import Family, Invariant, VerifyHooks
from cardshop.core.frontdoor import new_game
from cardshop.core.game import Event, Game, Termination
from cardshop.core.registry import get_family
from cardshop.core.variant import VariantBase
from cardshop.invariants import Monitor, check_state, invariants_of

__all__ = ["CHECKS", "Fault", "Search", "Step", "fingerprint", "hooks_of"]

Step = dict[Seat, Action]
"""The actions of one step: one seat's in a turn, every acting seat's in a tick."""

CHECKS: dict[str, str] = {
    "invariants": "every invariant of the family and the generic ones (the audit's "
    "harness: acting seats, legal actions, clone and JSON round trips, result and "
    "scores) on every state; the family's accounts between states on every step",
    "playability": "an acting seat always has a legal action, every legal action plays, "
    "and a simultaneous step always has a joint action",
    "chance": "the outcomes of every chance event of every step have probabilities that sum to one",
    "positions": "every state written as a position and read back is the same state",
    "information": "states that look the same to a seat offer it the same legal actions, "
    "and a world dealt from its observation looks the same to it",
    "termination": "no line of play comes back to a state it left (checked once the "
    "search is complete)",
}
"""The checks ``cardshop verify`` runs, by name, with what each proves."""


def fingerprint(key: Hashable) -> int:
    """A 64-bit fingerprint of a state key, the same in every process and run."""
    return int.from_bytes(blake2b(repr(key).encode(), digest_size=8).digest(), "big")


def hooks_of(family: Family) -> VerifyHooks:
    """The family's :class:`VerifyHooks`, or a :class:`SetupError` saying why not."""
    if family.verify is None:
        raise SetupError(
            f"family {family.name!r} cannot be verified: its Family record gives no "
            "verify hooks (Family.verify, a cardshop.core.VerifyHooks with at least a "
            "state_key), and its games must draw chance through "
            "cardshop.core.chance_source(); docs/verify.md says what each must do"
        )
    return family.verify


@dataclass(slots=True)
class Fault:
    """A check that failed: on state :attr:`state`, or on a step from it (:attr:`step`
    and :attr:`chance`, the step's actions and chance choices; None for a state)."""

    check: str
    invariant: str
    detail: str
    state: int
    depth: int
    step: Step | None = None
    chance: tuple[int, ...] | None = None
    other: int | None = None
    """For a fault of information flow: the state that looks the same but differs."""


def _verb(action: Action) -> str:
    text = str(action)
    return text.split(" ", 1)[0]


@dataclass(slots=True)
class _Outcome:
    step: Step
    chance: tuple[int, ...]
    game: Game
    events: list[Event]


@dataclass
class Search:
    """One search over a variant's states; :meth:`run` goes on until it is complete,
    a fault is found, or a budget runs out (then :meth:`run` may be called again)."""

    variant: VariantBase
    players: int
    seed: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)
    checks: Collection[str] = tuple(CHECKS)
    exact: bool = False
    keep_going: bool = False

    family: Family = field(init=False)
    hooks: VerifyHooks = field(init=False)
    index: dict[Hashable, int] = field(init=False, default_factory=dict)
    parents: array[int] = field(init=False, default_factory=lambda: array("q"))
    depths: array[int] = field(init=False, default_factory=lambda: array("l"))
    edges_from: array[int] = field(init=False, default_factory=lambda: array("q"))
    edges_to: array[int] = field(init=False, default_factory=lambda: array("q"))
    frontier: list[tuple[int, Game]] = field(init=False, default_factory=list)
    layer: list[tuple[int, Game]] = field(init=False, default_factory=list)
    faults: list[Fault] = field(init=False, default_factory=list)
    started: bool = field(init=False, default=False)
    complete: bool = field(init=False, default=False)
    generated: int = field(init=False, default=0)
    outcomes: int = field(init=False, default=0)
    deals: int = field(init=False, default=0)
    finished: int = field(init=False, default=0)
    capped: int = field(init=False, default=0)
    seconds: float = field(init=False, default=0.0)
    actions_seen: set[str] = field(init=False, default_factory=set)
    events_seen: set[str] = field(init=False, default_factory=set)
    _observed: dict[tuple[Seat, int], tuple[int, int]] = field(init=False, default_factory=dict)
    _invariants: tuple[Invariant, ...] = field(init=False, default=())
    _monitors: tuple[Callable[[Game], Monitor], ...] = field(init=False, default=())
    _keys: dict[int, Hashable] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.checks) - set(CHECKS))
        if unknown:
            raise SetupError(f"unknown check {unknown[0]!r}; the checks are {', '.join(CHECKS)}")
        self.family = get_family(self.variant.family)
        self.hooks = hooks_of(self.family)
        self._invariants = invariants_of(self.family.name)
        monitors: list[Callable[[Game], Monitor]] = []
        for inv in self._invariants:
            factory = getattr(inv.check, "monitor", None)
            if factory is not None and factory not in monitors:
                monitors.append(factory)
        self._monitors = tuple(monitors)

    # ------------------------------------------------------------------ keys

    def key(self, game: Game) -> Hashable:
        raw = self.hooks.state_key(game)
        return raw if self.exact else fingerprint(raw)

    @property
    def states(self) -> int:
        """Distinct states found."""
        return len(self.parents)

    @property
    def depth(self) -> int:
        """The greatest depth of a state found (0: the deals)."""
        return max(self.depths) if self.depths else 0

    # ------------------------------------------------------------- outcomes

    def setups(self) -> Iterator[tuple[tuple[int, ...], Game]]:
        """Every deal: the game set up under every outcome of the setup's chance."""
        script: list[int] | None = []
        while script is not None:
            source = ScriptedChance(script)
            with drawing_from(source):
                game = new_game(self.variant, self.players, self.seed, **self.options)
            yield tuple(source.chosen), game
            script = source.next_script()

    def steps(self, game: Game) -> Iterator[Step]:
        """Every step from ``game``: each legal action of the acting seat, or each
        joint action of the acting seats."""
        acting = game.acting
        if len(acting) == 1:
            seat = acting[0]
            for action in game.legal_actions(seat):
                yield {seat: action}
            return
        lists = [game.legal_actions(seat) for seat in acting]
        for combo in itertools.product(*lists):
            yield dict(zip(acting, combo, strict=True))

    def play(self, game: Game, step: Step) -> tuple[list[_Outcome], float]:
        """``step`` played on copies of ``game`` under every outcome of its chance, and
        the sum of their probabilities."""
        out: list[_Outcome] = []
        total = 0.0
        script: list[int] | None = []
        while script is not None:
            source = ScriptedChance(script)
            child = game.clone()
            with drawing_from(source):
                events = driver.apply(child, step)
            total += source.probability
            out.append(_Outcome(step, tuple(source.chosen), child, events))
            script = source.next_script()
        return out, total

    # ------------------------------------------------------------------ run

    def _add(self, game: Game, parent: int, depth: int) -> tuple[int, bool]:
        key = self.key(game)
        found = self.index.get(key)
        if found is not None:
            return found, False
        number = len(self.parents)
        self.index[key] = number
        self.parents.append(parent)
        self.depths.append(depth)
        return number, True

    def _fault(self, fault: Fault) -> None:
        self.faults.append(fault)

    @property
    def stopped(self) -> bool:
        """Whether a fault stops the search (unless it keeps going)."""
        return bool(self.faults) and not self.keep_going

    def _start(self) -> None:
        self.started = True
        for _chance, game in self.setups():
            self.outcomes += 1
            number, new = self._add(game, -1, 0)
            if new:
                self.deals += 1
                self._check_state(number, game, 0)
                self.layer.append((number, game))
            if self.stopped:
                return

    def run(
        self,
        *,
        max_states: int | None = None,
        max_seconds: float | None = None,
        progress: Callable[[Search], None] | None = None,
    ) -> None:
        """Search on, breadth first, until the search is complete, a fault is found
        (unless :attr:`keep_going`), ``max_states`` distinct states are known or
        ``max_seconds`` have passed."""
        began = time.perf_counter()
        deadline = None if max_seconds is None else began + max_seconds
        try:
            if not self.started:
                self._start()
            tick = 0
            while not self.stopped:
                if not self.frontier:
                    if not self.layer:
                        break
                    self.frontier, self.layer = self.layer, []
                    self.frontier.reverse()  # popped from the end: in order of discovery
                if max_states is not None and self.states >= max_states:
                    return
                if deadline is not None and time.perf_counter() >= deadline:
                    return
                number, game = self.frontier.pop()
                self._expand(number, game)
                tick += 1
                if progress is not None and tick % 256 == 0:
                    progress(self)
            if not self.stopped and not self.frontier and not self.layer:
                self.complete = True
                if "termination" in self.checks:
                    self._check_termination()
        finally:
            self.seconds += time.perf_counter() - began
            if progress is not None:
                progress(self)

    def _expand(self, number: int, game: Game) -> None:
        if game.is_over:
            return
        depth = self.depths[number] + 1
        checks = self.checks
        try:
            steps = list(self.steps(game))
        except CardshopError as exc:
            self._fault(
                Fault(
                    "playability",
                    "legal_actions",
                    f"listing the legal actions raised {exc}",
                    number,
                    depth - 1,
                )
            )
            return
        if not steps and "playability" in checks:
            self._fault(
                Fault(
                    "playability",
                    "legal_actions",
                    f"seats {list(game.acting)} act, but there is no step to take",
                    number,
                    depth - 1,
                )
            )
            return
        for step in steps:
            for action in step.values():
                self.actions_seen.add(_verb(action))
            try:
                outcomes, total = self.play(game, step)
            except Exception as exc:  # a legal action that does not play is a fault
                self._fault(
                    Fault(
                        "playability",
                        "legal_actions",
                        f"a legal step raised {type(exc).__name__}: {exc}",
                        number,
                        depth - 1,
                        step,
                    )
                )
                if self.stopped:
                    return
                continue
            if "chance" in checks and not math.isclose(total, 1.0, abs_tol=1e-9):
                self._fault(
                    Fault(
                        "chance",
                        "chance",
                        f"the chance outcomes of the step have probabilities summing to "
                        f"{total!r}, not 1",
                        number,
                        depth - 1,
                        step,
                    )
                )
            for outcome in outcomes:
                self.outcomes += 1
                self.generated += 1
                for event in outcome.events:
                    self.events_seen.add(type(event).__name__)
                if "invariants" in checks and self._monitors:
                    self._check_step(number, game, outcome, depth - 1)
                child, new = self._add(outcome.game, number, depth)
                self.edges_from.append(number)
                self.edges_to.append(child)
                if new:
                    self._check_state(child, outcome.game, depth)
                    self.layer.append((child, outcome.game))
                if self.stopped:
                    return

    # ---------------------------------------------------------------- checks

    def _check_step(self, number: int, game: Game, outcome: _Outcome, depth: int) -> None:
        """The family's accounts between states (its monitors) on one step."""
        for factory in self._monitors:
            try:
                monitor = factory(game)
                fault = monitor.record(outcome.step, outcome.events)
                if fault is None:
                    fault = monitor.check(outcome.game)
            except Exception as exc:
                fault = ("invariants", f"the account of the step raised {exc!r}")
            if fault is not None:
                self._fault(
                    Fault(
                        "invariants",
                        fault[0],
                        fault[1],
                        number,
                        depth,
                        outcome.step,
                        outcome.chance,
                    )
                )
                return

    def _check_state(self, number: int, game: Game, depth: int) -> None:
        checks = self.checks
        if game.is_over:
            if getattr(game, "termination", None) is Termination.CAPPED:
                self.capped += 1
            else:
                self.finished += 1
        if "invariants" in checks or "playability" in checks:
            try:
                check_state(game, self._invariants, quick=("legal_actions",))
            except InvariantViolation as exc:
                kind = (
                    "playability"
                    if exc.invariant in ("acting", "legal_actions")
                    else ("invariants")
                )
                if kind in checks:
                    self._fault(Fault(kind, exc.invariant, exc.detail, number, depth))
                    return
        if "positions" in checks and not game.is_over:  # a position is a game to go on
            detail = self._position_problem(game)
            if detail:
                self._fault(Fault("positions", "positions", detail, number, depth))
                return
        if "information" in checks and not game.is_over:
            self._check_information(number, game, depth)

    def _position_problem(self, game: Game) -> str | None:
        try:
            position = game.to_position()
            again = self.family.game_from_position(position, game.variant)
        except CardshopError as exc:
            return f"the state written as a position does not read back: {exc}"
        if self.hooks.state_key(again) != self.hooks.state_key(game):
            return "the state written as a position reads back as another state"
        return None

    def _check_information(self, number: int, game: Game, depth: int) -> None:
        sampler = self.family.sampler
        for seat in game.acting:
            observation = game.observation(seat)
            legal = fingerprint(tuple(map(str, game.legal_actions(seat))))
            seen = fingerprint(repr(observation))
            known = self._observed.setdefault((seat, seen), (legal, number))
            if known[0] != legal:
                self._fault(
                    Fault(
                        "information",
                        "information",
                        f"seat {seat} sees the same as in state {known[1]}, but is offered "
                        "other legal actions: they depend on what the seat cannot see",
                        number,
                        depth,
                        other=known[1],
                    )
                )
                return
            if sampler is None:
                continue
            try:
                world = sampler(observation, game.variant, random.Random(number))
                again = world.observation(seat)
            except Exception as exc:
                detail = f"dealing a world from seat {seat}'s observation raised {exc!r}"
            else:
                if again == observation:
                    continue
                detail = (
                    f"seat {seat} sees more than its observation says: a world dealt "
                    "from what it sees, with the cards it cannot see dealt anew, looks "
                    "different to it"
                )
            self._fault(Fault("information", "information", detail, number, depth))
            return

    def _check_termination(self) -> None:
        """Kahn's algorithm over the edges: a state left on a cycle is never freed."""
        n = self.states
        indegree = array("l", [0]) * n
        order = sorted(range(len(self.edges_from)), key=self.edges_from.__getitem__)
        starts = array("q", [0]) * (n + 1)
        for e in self.edges_from:
            starts[e + 1] += 1
        for i in range(n):
            starts[i + 1] += starts[i]
        targets = array("q", [self.edges_to[e] for e in order])
        for t in targets:
            indegree[t] += 1
        ready = [i for i in range(n) if indegree[i] == 0]
        freed = 0
        while ready:
            s = ready.pop()
            freed += 1
            for t in targets[starts[s] : starts[s + 1]]:
                indegree[t] -= 1
                if indegree[t] == 0:
                    ready.append(t)
        if freed == n:
            return
        # A state on a cycle: one still held whose successor is held too; walk the
        # successors that stay held until one comes back.
        held = [i for i in range(n) if indegree[i] > 0]
        start = min(held, key=self.depths.__getitem__)
        walk = [start]
        seen = {start: 0}
        while True:
            s = walk[-1]
            nxt = next(t for t in targets[starts[s] : starts[s + 1]] if indegree[t] > 0)
            if nxt in seen:
                cycle = walk[seen[nxt] :]
                break
            seen[nxt] = len(walk)
            walk.append(nxt)
        self._fault(
            Fault(
                "termination",
                "termination",
                f"a line of play comes back to a state it left: a cycle of {len(cycle)} "
                f"step{'s' if len(cycle) != 1 else ''} through states {cycle[:8]}",
                cycle[0],
                self.depths[cycle[0]],
                other=cycle[-1],
            )
        )

    # ------------------------------------------------------------- the paths

    def path(self, number: int) -> list[int]:
        """The states from a deal to state ``number``, in order."""
        out = [number]
        while self.parents[out[-1]] >= 0:
            out.append(self.parents[out[-1]])
        out.reverse()
        return out

    def replay_path(
        self, number: int
    ) -> tuple[tuple[int, ...], list[tuple[Step, tuple[int, ...], list[Event]]], Game, Game | None]:
        """The setup's chance, the steps (actions, chance, events) from the deal to state
        ``number``, the game there and the one a step before (None at a deal): found
        again by playing each state's steps until one gives the next state's key."""
        states = self.path(number)
        want = self.key
        for chance, game in self.setups():
            if want(game) == self._key_of(states[0]):
                setup = chance
                break
        else:  # pragma: no cover - the deal was found by the same enumeration
            raise RuntimeError("the deal of the path is not among the setups")
        steps: list[tuple[Step, tuple[int, ...], list[Event]]] = []
        prior: Game | None = None
        for target in states[1:]:
            goal = self._key_of(target)
            found = None
            for step in self.steps(game):
                outcomes, _ = self.play(game, step)
                found = next((o for o in outcomes if want(o.game) == goal), None)
                if found is not None:
                    break
            if found is None:  # pragma: no cover - the edge was found the same way
                raise RuntimeError("a step of the path is not among the state's steps")
            steps.append((found.step, found.chance, found.events))
            prior, game = game, found.game
        return setup, steps, game, prior

    def _key_of(self, number: int) -> Hashable:
        if len(self._keys) != len(self.index):
            self._keys = {v: k for k, v in self.index.items()}
        return self._keys[number]

    def coverage(self) -> dict[str, dict[str, list[str]]]:
        """Action verbs, event kinds and rule clauses: those reached and never reached."""
        space = {_verb(a) for a in self.family.action_space(self.variant, self.players)}
        clauses = self.hooks.clauses
        events = {name for name in clauses if name[:1].isupper()}
        reached_clauses: set[str] = set()
        for name in (*self.actions_seen, *self.events_seen):
            reached_clauses.update(clauses.get(name, ()))
        every_clause = {c for cs in clauses.values() for c in cs}

        def split(seen: set[str], every: set[str]) -> dict[str, list[str]]:
            return {"reached": sorted(seen), "never": sorted(every - seen)}

        return {
            "actions": split(self.actions_seen, space | self.actions_seen),
            "events": split(self.events_seen, events | self.events_seen),
            "clauses": split(reached_clauses, every_clause),
        }


def layer_sizes(depths: Sequence[int]) -> list[int]:
    """How many states were found at each depth."""
    sizes: list[int] = []
    for d in depths:
        while len(sizes) <= d:
            sizes.append(0)
        sizes[d] += 1
    return sizes
