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

import copyreg
import io
import itertools
import math
import os
import pickle
import random
import threading
import time
from array import array
from collections import deque
from collections.abc import Callable, Collection, Hashable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from hashlib import blake2b
from pathlib import Path
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
from cardshop.simulation import as_executor, executor_slots, process_pool, stop_workers

__all__ = [
    "CHECKS",
    "Examined",
    "Fault",
    "Search",
    "SearchSpec",
    "SearchWorkerLostError",
    "Step",
    "check_bitstate",
    "check_workers",
    "examine_chunk",
    "fingerprint",
    "hooks_of",
]

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


MIN_BITS = 10
MAX_BITS = 36
"""Bit-state hashing's table: 2**10 bits (128 bytes) to 2**36 (8 GiB)."""

SETUP = "setup"
"""The key of :attr:`VerifyHooks.clauses` that names the clauses a deal carries out."""


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


CHUNK = 256
"""The most states one chunk of work holds."""


class SearchWorkerLostError(CardshopError, RuntimeError):
    """A worker process died (killed, or out of memory) during a search. The search
    stands as it was before the chunk the worker held: it can be saved
    (:meth:`Search.save`) and resumed."""


@dataclass(slots=True)
class Examined:
    """What was found on one state when it was checked and expanded (in a worker or
    here): its faults, each acting seat's observation and legal actions (as
    fingerprints), and the key of each outcome of each step, with the game of each
    key the chunk had not sent yet."""

    number: int
    faults: list[Fault] = field(default_factory=list)
    seen: list[tuple[Seat, int, int]] = field(default_factory=list)
    keys: list[Hashable] = field(default_factory=list)
    games: dict[Hashable, Game] = field(default_factory=dict)
    generated: int = 0
    ended: int = 0
    """0: the game goes on; 1: it finished; 2: it reached the variant's cap."""
    actions: set[str] = field(default_factory=set)
    events: set[str] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class SearchSpec:
    """What a worker needs to check and expand states as a :class:`Search` does."""

    variant: VariantBase
    players: int
    seed: int
    options: tuple[tuple[str, Any], ...]
    checks: tuple[str, ...]
    exact: bool
    keep_going: bool


_WORKERS: dict[tuple[Any, ...], Search] = {}
"""A worker's searches by their spec (one variant's invariants and hooks, found once)."""


def _worker_search(spec: SearchSpec) -> Search:
    tag = (
        spec.variant.family,
        spec.variant.content_hash,
        spec.players,
        spec.seed,
        repr(spec.options),
        spec.checks,
        spec.exact,
        spec.keep_going,
    )
    found = _WORKERS.get(tag)
    if found is None:
        if len(_WORKERS) >= 8:
            _WORKERS.clear()
        found = _WORKERS[tag] = Search(
            spec.variant,
            spec.players,
            spec.seed,
            dict(spec.options),
            spec.checks,
            spec.exact,
            spec.keep_going,
        )
    return found


def examine_chunk(search: Search, chunk: Sequence[tuple[int, int, Game]]) -> list[Examined]:
    """Each state of ``chunk`` (number, depth, game) checked and expanded, in order,
    up to the first fault unless the search keeps going."""
    local: set[Hashable] = set()
    out: list[Examined] = []
    for number, depth, game in chunk:
        ex = search.examine(number, depth, game, local)
        out.append(ex)
        if ex.faults and not search.keep_going:
            break
    return out


_loading = threading.local()
"""The shared objects of the search whose games this thread is reading (:func:`unpack`)."""


def _shared_object(index: int) -> object:
    """The shared object ``index`` of the search being read in this thread."""
    shared: tuple[object, ...] = getattr(_loading, "shared", ())
    if not (isinstance(index, int) and 0 <= index < len(shared)):
        raise pickle.UnpicklingError(f"unknown shared object {index!r}")
    return shared[index]


def _by_index(index: int, one: object) -> Callable[[object], Any]:
    """A reducer for objects of the type of ``one``: ``one`` itself by its index,
    another object of its type as it would be written anyway."""

    def reduce(obj: object) -> Any:
        if obj is one:
            return (_shared_object, (index,))
        return obj.__reduce_ex__(pickle.HIGHEST_PROTOCOL)

    return reduce


def pack(search: Search, value: object) -> bytes:
    """``value`` (a chunk of states, or what was found on them) as bytes for another
    process: its games without what they share (:meth:`Search.shared`), which the
    reader puts back as its own (by type: the pickler looks them up in C, not in a
    call per object)."""
    out = io.BytesIO()
    writer = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    table: dict[type, Any] = dict(copyreg.dispatch_table)
    for i, one in enumerate(search.shared()):
        table[type(one)] = _by_index(i, one)
    writer.dispatch_table = table
    writer.dump(value)
    return out.getvalue()


def unpack(search: Search, data: bytes) -> Any:
    """What :func:`pack` wrote, with this process's shared objects put back."""
    _loading.shared = search.shared()
    try:
        return pickle.loads(data)
    finally:
        _loading.shared = ()


def examine_packed(spec: SearchSpec, blob: bytes) -> bytes:
    """A worker's task: the chunk ``blob`` (:func:`pack`) checked and expanded, and
    what was found, packed the same way."""
    search = _worker_search(spec)
    chunk: list[tuple[int, int, Game]] = unpack(search, blob)
    return pack(search, examine_chunk(search, chunk))


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
    bitstate: int = 0
    """0: a visited set of every state's key. Else bit-state hashing: a table of
    ``2**bitstate`` bits in which each state sets two; a state whose two bits are set
    is taken as visited (see :meth:`missed`)."""

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
    numbered: list[Hashable] | array[int] = field(init=False, default_factory=list)
    """The key of each state, by number (fingerprints in an array with bit-state hashing)."""
    bits: bytearray = field(init=False, default_factory=bytearray)
    _undo: list[tuple[int, int]] = field(init=False, default_factory=list)
    """The bytes of :attr:`bits` the merge under way changed, as they were."""
    _at: int = field(init=False, default=0)
    """How far the frontier has been checked and expanded."""
    _shared: tuple[object, ...] | None = field(init=False, default=None)
    _deal: Game | None = field(init=False, default=None)

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
        if self.bitstate:
            check_bitstate(self.bitstate)
            if self.exact:
                raise SetupError("bit-state hashing keeps no keys: it cannot be exact")
            self.bits = bytearray(1 << (self.bitstate - 3))
            self.numbered = array("Q")

    # ------------------------------------------------------------------ keys

    def key(self, game: Game) -> Hashable:
        raw = self.hooks.state_key(game)
        return raw if self.exact else fingerprint(raw)

    def shared(self) -> tuple[object, ...]:
        """What every game of this search shares, by identity in this process: the
        variant and, where the family's games have one, their compiled ``rules`` (found
        on a deal). Games sent to another process leave them out (:func:`pack`)."""
        if self._shared is None:
            rules = getattr(self.shared_game(), "rules", None)
            self._shared = (self.variant,) if rules is None else (self.variant, rules)
        return self._shared

    def shared_game(self) -> Game:
        """A game of this search (a deal): its type reads the search's games back."""
        if self._deal is None:
            self._deal = new_game(self.variant, self.players, self.seed, **self.options)
        return self._deal

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write this search to a checkpoint file (atomically), to go on later with
        :meth:`load` and :meth:`run`: a search stopped by a budget, a fault it keeps
        going past or a signal loses nothing."""
        from cardshop.verify._checkpoint import save_search

        return save_search(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Search:
        """The search a checkpoint file holds (:meth:`save`); a
        :class:`~cardshop.verify.CheckpointError` for a file that is not one."""
        from cardshop.verify._checkpoint import load_search

        search: Search = load_search(path, cls)
        return search

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

    def _add(self, key: Hashable, parent: int, depth: int) -> tuple[int, bool]:
        """The number of the state of ``key`` and whether it is new (numbered now). With
        bit-state hashing a state taken as visited has the number -1."""
        if self.bitstate:
            return self._add_bits(key, parent, depth)
        found = self.index.get(key)
        if found is not None:
            return found, False
        number = len(self.parents)
        self.index[key] = number
        self.numbered.append(key)  # type: ignore[arg-type]
        self.parents.append(parent)
        self.depths.append(depth)
        return number, True

    def _add_bits(self, key: Hashable, parent: int, depth: int) -> tuple[int, bool]:
        fp = int(key)  # type: ignore[call-overload]
        mask = (1 << self.bitstate) - 1
        one, two = fp & mask, (fp >> (64 - self.bitstate)) & mask
        bits = self.bits
        if bits[one >> 3] >> (one & 7) & 1 and bits[two >> 3] >> (two & 7) & 1:
            return -1, False
        self._undo.append((one >> 3, bits[one >> 3]))
        self._undo.append((two >> 3, bits[two >> 3]))
        bits[one >> 3] |= 1 << (one & 7)
        bits[two >> 3] |= 1 << (two & 7)
        number = len(self.parents)
        self.numbered.append(fp)
        self.parents.append(parent)
        self.depths.append(depth)
        return number, True

    def missed(self) -> float:
        """With bit-state hashing, the number of distinct states the search can expect
        to have taken as visited though they were not (both their bits set by others),
        and so never checked: about the integral over the states found of
        ``(1 - exp(-2 i / m))**2`` for ``m`` bits. 0 without it."""
        if not self.bitstate:
            return 0.0
        n, m = float(self.states), float(1 << self.bitstate)
        x = 2 * n / m
        if x < 1e-3:
            return 4 * n**3 / (3 * m * m)
        return n + m * math.expm1(-x) - m / 4 * math.expm1(-2 * x)

    def _fault(self, fault: Fault) -> None:
        self.faults.append(fault)

    @property
    def stopped(self) -> bool:
        """Whether a fault stops the search (unless it keeps going)."""
        return bool(self.faults) and not self.keep_going

    @property
    def remaining(self) -> int:
        """States found and not yet checked and expanded."""
        return len(self.frontier) - self._at + len(self.layer)

    @property
    def exhaustive_to(self) -> int:
        """The depth to which every state is found, checked and expanded (-1: none)."""
        if self._at < len(self.frontier):
            return self.depths[self.frontier[self._at][0]] - 1
        if self.layer:
            return self.depths[self.layer[0][0]] - 1
        return self.depth if self.complete else -1

    def _start(self) -> None:
        """Number every deal (all or none: a stop half-way leaves the search unstarted)."""
        self._undo.clear()
        try:
            for _chance, game in self.setups():
                self.outcomes += 1
                number, new = self._add(self.key(game), -1, 0)
                if new:
                    self.deals += 1
                    self.layer.append((number, game))
            self.started = True
        except BaseException:
            self.index.clear()
            del self.numbered[:], self.parents[:], self.depths[:], self.layer[:]
            for byte, was in reversed(self._undo):
                self.bits[byte] = was
            self.outcomes = self.deals = 0
            raise
        finally:
            self._undo.clear()

    def run(
        self,
        *,
        max_states: int | None = None,
        max_seconds: float | None = None,
        progress: Callable[[Search], None] | None = None,
        workers: int | None = None,
        executor: Any = None,
    ) -> None:
        """Search on, breadth first, until the search is complete, a fault is found
        (unless :attr:`keep_going`), ``max_states`` distinct states are known or
        ``max_seconds`` have passed.

        The states of each depth are checked and expanded in chunks: in this process,
        or by ``workers`` processes of a pool of its own, or by ``executor`` (a
        ``concurrent.futures`` executor or a ``dask.distributed`` Client). This process
        merges what each chunk found in the order of the states, so the search, its
        report and its counterexamples are the same however it is shared out."""
        began = time.perf_counter()
        deadline = None if max_seconds is None else began + max_seconds
        pool, own = _pool(workers, executor)
        try:
            if not self.started:
                self._start()
            while not self.stopped:
                if self._at >= len(self.frontier):
                    if not self.layer:
                        break
                    self._next_layer()
                if not self._layer(pool, max_states, deadline, progress):
                    return
            if not self.stopped and self._at >= len(self.frontier) and not self.layer:
                if "termination" in self.checks and not self.bitstate:
                    self._check_termination()
                self.complete = True
        finally:
            if own and pool is not None:
                stop_workers(pool)
            self.seconds += time.perf_counter() - began
            if progress is not None:
                progress(self)

    def _next_layer(self) -> None:
        was = (self.frontier, self.layer, self._at)
        try:
            self.frontier, self.layer, self._at = self.layer, [], 0
        except BaseException:  # a stop between two of the stores: as it was
            self.frontier, self.layer, self._at = was
            raise

    def _commit(self, found: list[Examined], start: int) -> None:
        """Merge what a chunk found and move past it, all or nothing: a stop (an
        exception from a signal handler) half-way undoes the part merged, so the
        search can be saved (:meth:`save`) and goes on as if it had not stopped."""
        mark = (
            self.states,
            len(self.edges_from),
            len(self.layer),
            len(self.faults),
            self.generated,
            self.outcomes,
            self.finished,
            self.capped,
        )
        self._undo.clear()
        try:
            self._merge(found)
            self._at = start + len(found)  # short of the chunk's end where a fault stopped it
        except BaseException:
            states, edges, layer, faults = mark[:4]
            for byte, was in reversed(self._undo):
                self.bits[byte] = was
            for ex in found:
                for key in ex.keys:
                    if self.index.get(key, -1) >= states:
                        del self.index[key]
                for seat, seen, _legal in ex.seen:
                    if self._observed.get((seat, seen), (0, -1))[1] == ex.number:
                        del self._observed[(seat, seen)]
            del self.numbered[states:], self.parents[states:], self.depths[states:]
            del self.edges_from[edges:], self.edges_to[edges:]
            del self.layer[layer:], self.faults[faults:]
            self.generated, self.outcomes, self.finished, self.capped = mark[4:]
            raise
        finally:
            self._undo.clear()

    def _over_budget(self, max_states: int | None, deadline: float | None) -> bool:
        if max_states is not None and self.states >= max_states:
            return True
        return deadline is not None and time.perf_counter() >= deadline

    def _chunk(self, start: int, end: int) -> list[tuple[int, int, Game]]:
        return [(n, self.depths[n], g) for n, g in self.frontier[start:end]]

    def _layer(
        self,
        pool: Executor | None,
        max_states: int | None,
        deadline: float | None,
        progress: Callable[[Search], None] | None,
    ) -> bool:
        """Check and expand the frontier's states from :attr:`_at` on, chunk by chunk;
        False when a budget stopped it."""
        frontier = self.frontier
        if pool is None:
            while self._at < len(frontier) and not self.stopped:
                if self._over_budget(max_states, deadline):
                    return False
                end = min(len(frontier), self._at + CHUNK)
                self._commit(examine_chunk(self, self._chunk(self._at, end)), self._at)
                if progress is not None:
                    progress(self)
            return True
        spec = self.spec()
        slots = executor_slots(pool)
        size = max(1, min(CHUNK, (len(frontier) - self._at) // (4 * slots) or 1))
        pending: deque[tuple[int, Future[bytes]]] = deque()
        sent = self._at
        try:
            while not self.stopped:
                while len(pending) < 2 * slots and sent < len(frontier):
                    end = min(len(frontier), sent + size)
                    blob = pack(self, self._chunk(sent, end))
                    pending.append((sent, pool.submit(examine_packed, spec, blob)))
                    sent = end
                if not pending:
                    return True
                if self._over_budget(max_states, deadline):
                    return False
                start, future = pending.popleft()
                self._commit(unpack(self, future.result()), start)
                if progress is not None:
                    progress(self)
            return True
        except BrokenProcessPool:  # from a result, or from a submit to a broken pool
            raise SearchWorkerLostError(
                "a worker process died (killed, or out of memory) during the search: it "
                f"stands at {self.states:,} states, before the chunk that worker held, and "
                "can be saved and resumed"
            ) from None
        finally:
            for _, future in pending:
                future.cancel()

    def _merge(self, found: list[Examined]) -> None:
        """What a chunk found, state by state, in order: faults, what each seat saw
        (information flow is checked across states here), and the successors, which
        are numbered and put on the next layer when new."""
        observed = self._observed
        for ex in found:
            number = ex.number
            self.generated += ex.generated
            self.outcomes += ex.generated
            if ex.ended == 1:
                self.finished += 1
            elif ex.ended == 2:
                self.capped += 1
            self.actions_seen.update(ex.actions)
            self.events_seen.update(ex.events)
            for fault in ex.faults:
                self._fault(fault)
            if not ex.faults:
                for seat, seen, legal in ex.seen:
                    known = observed.setdefault((seat, seen), (legal, number))
                    if known[0] != legal:
                        self._fault(
                            Fault(
                                "information",
                                "information",
                                f"seat {seat} sees the same as in state {known[1]}, but is "
                                "offered other legal actions: they depend on what the seat "
                                "cannot see",
                                number,
                                self.depths[number],
                                other=known[1],
                            )
                        )
                        break
            if self.stopped:
                return
            depth = self.depths[number] + 1
            edges = not self.bitstate  # bit-state hashing numbers new states only
            for key in ex.keys:
                child, new = self._add(key, number, depth)
                if edges:
                    self.edges_from.append(number)
                    self.edges_to.append(child)
                if new:
                    self.layer.append((child, ex.games[key]))

    # ---------------------------------------------------------------- checks

    def spec(self) -> SearchSpec:
        """What a worker needs to search as this search does."""
        return SearchSpec(
            self.variant,
            self.players,
            self.seed,
            tuple(sorted(self.options.items())),
            tuple(self.checks),
            self.exact,
            self.keep_going,
        )

    def examine(self, number: int, depth: int, game: Game, local: set[Hashable]) -> Examined:
        """One state checked and expanded: its faults, what its acting seats see, and
        the key of each outcome of each step (the game of each key not in ``local``,
        the keys this chunk has already sent, which it joins)."""
        ex = Examined(number)
        over = game.is_over
        if over:
            capped = getattr(game, "termination", None) is Termination.CAPPED
            ex.ended = 2 if capped else 1
        fault = self._state_fault(number, depth, game, ex)
        if fault is not None:
            ex.faults.append(fault)
            if not self.keep_going:
                return ex
        if not over:
            self._expand(number, depth, game, ex, local)
        return ex

    def _expand(
        self, number: int, depth: int, game: Game, ex: Examined, local: set[Hashable]
    ) -> None:
        checks = self.checks
        stop = not self.keep_going
        try:
            steps = list(self.steps(game))
        except CardshopError as exc:
            ex.faults.append(
                Fault(
                    "playability",
                    "legal_actions",
                    f"listing the legal actions raised {exc}",
                    number,
                    depth,
                )
            )
            return
        if not steps and "playability" in checks:
            ex.faults.append(
                Fault(
                    "playability",
                    "legal_actions",
                    f"seats {list(game.acting)} act, but there is no step to take",
                    number,
                    depth,
                )
            )
            return
        for step in steps:
            for action in step.values():
                ex.actions.add(_verb(action))
            try:
                outcomes, total = self.play(game, step)
            except Exception as exc:  # a legal action that does not play is a fault
                ex.faults.append(
                    Fault(
                        "playability",
                        "legal_actions",
                        f"a legal step raised {type(exc).__name__}: {exc}",
                        number,
                        depth,
                        step,
                    )
                )
                if stop:
                    return
                continue
            if "chance" in checks and not math.isclose(total, 1.0, abs_tol=1e-9):
                ex.faults.append(
                    Fault(
                        "chance",
                        "chance",
                        f"the chance outcomes of the step have probabilities summing to "
                        f"{total!r}, not 1",
                        number,
                        depth,
                        step,
                    )
                )
                if stop:
                    return
            for outcome in outcomes:
                ex.generated += 1
                for event in outcome.events:
                    ex.events.add(type(event).__name__)
                if "invariants" in checks and self._monitors:
                    fault = self._step_fault(number, game, outcome, depth)
                    if fault is not None:
                        ex.faults.append(fault)
                        if stop:
                            return
                key = self.key(outcome.game)
                ex.keys.append(key)
                if key not in local:
                    local.add(key)
                    ex.games[key] = outcome.game

    def _step_fault(self, number: int, game: Game, outcome: _Outcome, depth: int) -> Fault | None:
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
                return Fault(
                    "invariants", fault[0], fault[1], number, depth, outcome.step, outcome.chance
                )
        return None

    def _state_fault(self, number: int, depth: int, game: Game, ex: Examined) -> Fault | None:
        checks = self.checks
        if "invariants" in checks or "playability" in checks:
            try:
                check_state(game, self._invariants, quick=("legal_actions",))
            except InvariantViolation as exc:
                kind = (
                    "playability" if exc.invariant in ("acting", "legal_actions") else "invariants"
                )
                if kind in checks:
                    return Fault(kind, exc.invariant, exc.detail, number, depth)
        if "positions" in checks and not game.is_over:  # a position is a game to go on
            detail = self._position_problem(game)
            if detail:
                return Fault("positions", "positions", detail, number, depth)
        if "information" in checks and not game.is_over:
            return self._information_fault(number, depth, game, ex)
        return None

    def _position_problem(self, game: Game) -> str | None:
        try:
            position = game.to_position()
            again = self.family.game_from_position(position, game.variant)
        except CardshopError as exc:
            return f"the state written as a position does not read back: {exc}"
        if self.hooks.state_key(again) != self.hooks.state_key(game):
            return "the state written as a position reads back as another state"
        return None

    def _information_fault(self, number: int, depth: int, game: Game, ex: Examined) -> Fault | None:
        """A world dealt from each acting seat's observation must look the same to it;
        what each seat sees and is offered is noted for :meth:`_merge`, which compares
        it across states."""
        sampler = self.family.sampler
        for seat in game.acting:
            observation = game.observation(seat)
            legal = fingerprint(tuple(map(str, game.legal_actions(seat))))
            ex.seen.append((seat, fingerprint(repr(observation)), legal))
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
            return Fault("information", "information", detail, number, depth)
        return None

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
            if found is None:  # a checkpoint whose parents do not lead to the state
                raise RuntimeError("a step of the path is not among the state's steps")
            steps.append((found.step, found.chance, found.events))
            prior, game = game, found.game
        return setup, steps, game, prior

    def _key_of(self, number: int) -> Hashable:
        return self.numbered[number]

    def coverage(self) -> dict[str, dict[str, list[str]]]:
        """Action verbs, event kinds and rule clauses: those reached and never reached."""
        space = {_verb(a) for a in self.family.action_space(self.variant, self.players)}
        clauses = self.hooks.clauses
        events = {name for name in clauses if name[:1].isupper()}
        reached_clauses: set[str] = set()
        for name in (*self.actions_seen, *self.events_seen):
            reached_clauses.update(clauses.get(name, ()))
        if self.deals:  # the deal carried out the setup's clauses
            reached_clauses.update(clauses.get(SETUP, ()))
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


def _pool(workers: int | None, executor: Any) -> tuple[Executor | None, bool]:
    """The executor to share the work with (and whether it is this search's own, to
    stop at the end): none for one worker in this process."""
    if executor is not None:
        if workers is not None:
            raise SetupError("give workers or an executor, not both")
        return as_executor(executor), False
    check_workers(workers)
    if workers is None or workers == 1:
        return None, False
    return process_pool(workers), True


def check_bitstate(bits: object) -> None:
    """A :class:`SetupError` unless ``bits`` is a whole number MIN_BITS..MAX_BITS."""
    if isinstance(bits, bool) or not isinstance(bits, int) or not MIN_BITS <= bits <= MAX_BITS:
        raise SetupError(
            f"bitstate must be a whole number {MIN_BITS}..{MAX_BITS} (a table of "
            f"2**bitstate bits), not {bits!r}"
        )


def check_workers(workers: object) -> None:
    """A :class:`SetupError` unless ``workers`` is None or a whole number 1..MAX_WORKERS."""
    if workers is None:
        return
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise SetupError(f"workers must be a whole number 1..{MAX_WORKERS}, not {workers!r}")


MAX_WORKERS = 256
"""The most worker processes a search starts."""
