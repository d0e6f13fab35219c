"""Helpers for the tests of the families' ``cardshop verify`` hooks: every outcome of a
chance, random play, the round trips a state key must survive, and a breadth-first walk
over every reachable game of a variant by the family's own state key.

The walk is the tests' reference: a plain queue and a dict of the first game met under
each key, so that what it counts does not rest on how :class:`cardshop.verify.Search`
keeps its visited set, orders its layers or checks its states. It takes the deals and
the steps from the search (:meth:`~cardshop.verify.Search.setups`,
:meth:`~cardshop.verify.Search.steps`) and plays each step as the search does
(:func:`cardshop.driver.apply` under every outcome of a
:class:`~cardshop.core.ScriptedChance`), but one outcome at a time: holding every outcome
of a step at once, as :meth:`~cardshop.verify.Search.play` does, keeps the garbage
collector busy enough to make the walk of the Wühltisch mini about twice as slow."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import deque
from collections.abc import Callable, Hashable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import cardshop
from cardshop import driver
from cardshop.core import ScriptedChance, VariantBase, drawing_from, variant_from_data
from cardshop.core.game import Event, Game
from cardshop.core.registry import get_family
from cardshop.verify import Search
from cardshop.verify._search import Step

StateKey = Callable[[Game], Hashable]
T = TypeVar("T")

HERE = Path(__file__).resolve().parent
TINY_MINI: dict[str, Any] = {
    "family": "tinymarket",
    "name": "tiny-mini",
    "players": {"min": 2, "max": 2},
    "dynamics": "sequential",
    "cards": [1, 2, 3, 1, 2, 3, 4],
    "market": 2,
}
"""A mini variant of the tiny test family: 630 deals, some 29,000 states."""
TINY_SMALL: dict[str, Any] = {**TINY_MINI, "name": "tiny-small", "cards": [1, 2, 3, 1, 2, 3]}
"""The mini with one card fewer: 90 deals and 3,852 states (5,208 when simultaneous),
layers of 90, 180, 360, 522, 735, 843, ...: more than a chunk's worth from depth 3 on,
and an eighth of the mini's work, for the tests that search it again and again."""
TINY_CLI = (
    "import sys; sys.path.insert(0, {tests!r}); import tinyfamily; tinyfamily.register(); "
    "from cardshop.__main__ import main; sys.exit(main(sys.argv[1:]))"
)
"""A command line with the tiny family registered (``python -c``; format ``tests``)."""
GUARD = 900
"""A hang guard for a command, far above a normal run (seconds)."""


def tiny_mini(base: Mapping[str, Any] = TINY_MINI, **changes: Any) -> VariantBase:
    """The tiny family's mini variant (or ``base``) with ``changes``."""
    return variant_from_data({**base, **changes})


def tiny_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``cardshop ARGS`` in a real process that knows the tiny family."""
    return subprocess.run(
        [sys.executable, "-c", TINY_CLI.format(tests=str(HERE)), *args],
        capture_output=True,
        text=True,
        timeout=GUARD,
        cwd=cwd,
    )


def outcomes(make: Callable[[], T]) -> Iterator[T]:
    """What ``make`` makes under every outcome of the chance it draws, each once, one at
    a time."""
    script: list[int] | None = []
    while script is not None:
        source = ScriptedChance(script)
        with drawing_from(source):
            made = make()
        yield made
        script = source.next_script()


def after(game: Game, step: Step) -> Callable[[], tuple[Game, list[Event]]]:
    """A maker of a copy of ``game`` with ``step`` played, and the step's events."""

    def make() -> tuple[Game, list[Event]]:
        child = game.clone()
        return child, driver.apply(child, step)

    return make


# ---------------------------------------------------------------- random play


def random_play(game: Game, rng: random.Random, steps: int) -> Iterator[Game]:
    """Play up to ``steps`` random steps (a random legal action of each acting seat),
    yielding the game before each one."""
    for _ in range(steps):
        if game.is_over:
            return
        yield game
        driver.apply(game, {s: rng.choice(game.legal_actions(s)) for s in game.acting})


def play_out(variant: VariantBase | str, players: int, seed: int, steps: int) -> Game:
    """A game of ``variant`` dealt by ``seed``, played at random (by ``seed`` too) for
    up to ``steps`` steps: to its end unless it takes longer."""
    game = cardshop.new_game(variant, players, seed=seed)
    for _ in random_play(game, random.Random(seed), steps):
        pass
    return game


# -------------------------------------------------------------------- the key


def plain(value: object) -> bool:
    """Whether ``value`` is plain data: ints and strings, in tuples."""
    if isinstance(value, tuple):
        return all(plain(v) for v in value)
    return type(value) in (int, str)


def assert_key_round_trips(game: Game, state_key: StateKey) -> Hashable:
    """The game's key hashes, and a clone, a JSON round trip and a position round trip
    of the game have it too; returns the key."""
    key = state_key(game)
    hash(key)
    copy = game.clone()
    again = type(game).from_json(game.to_json())
    back = get_family(game.variant.family).game_from_position(game.to_position(), game.variant)
    for other in (copy, again, back):
        assert type(other) is type(game)
        assert state_key(other) == key
    return key


# ------------------------------------------------------------------- the walk


class Met(NamedTuple):
    """One game the walk meets: a deal, or one chance outcome of one step."""

    key: Hashable
    game: Game
    first: Game
    """The first game met under :attr:`key`: :attr:`game` itself when it is a new state."""
    new: bool
    """Whether :attr:`game` is a new state (the first of its key)."""
    step: Step | None
    """The step that led here; None for a deal."""


class Walk:
    """Every game reachable in ``variant`` at ``players`` seats, met in breadth-first
    order: every deal, then from each new state that goes on, every step under every
    outcome of its chance (:meth:`~cardshop.verify.Search.steps`, :func:`outcomes`). A
    game is a new state unless a game met before has its ``state_key``. Iterate to walk;
    :attr:`first`, :attr:`merged`, :attr:`verbs` and :attr:`events` grow as it goes."""

    def __init__(self, variant: VariantBase, players: int, state_key: StateKey) -> None:
        self.search = Search(variant, players, checks=())
        self.state_key = state_key
        self.first: dict[Hashable, Game] = {}
        """The first game met under each key: one a state."""
        self.merged = 0
        """Games met under a key met before."""
        self.verbs: set[str] = set()
        """The verbs of every step played."""
        self.events: set[str] = set()
        """The event classes of every step played (not of the deals)."""
        self.compared = 0
        """Merged games whose successors :meth:`agreeing` compared with the first's."""

    def __iter__(self) -> Iterator[Met]:
        todo: deque[Game] = deque()
        for _chance, game in self.search.setups():
            yield self._meet(game, None, todo)
        while todo:
            game = todo.popleft()
            if game.is_over:
                continue
            for step in self.search.steps(game):
                self.verbs.update(str(action).split()[0] for action in step.values())
                for child, events in outcomes(after(game, step)):
                    for event in events:
                        self.events.add(type(event).__name__)
                    yield self._meet(child, step, todo)

    def _meet(self, game: Game, step: Step | None, todo: deque[Game]) -> Met:
        key = self.state_key(game)
        first = self.first.setdefault(key, game)
        new = first is game
        if new:
            todo.append(game)
        else:
            self.merged += 1
        return Met(key, game, first, new, step)

    def successors(self, game: Game) -> set[Hashable]:
        """The keys of every chance outcome of every step from ``game``."""
        return {
            self.state_key(child)
            for step in self.search.steps(game)
            for child, _ in outcomes(after(game, step))
        }

    def agreeing(self, look: Callable[[Game], object], every: int = 1) -> Iterator[Met]:
        """Walk, asserting that each game met under a known key ``look``s as the first of
        its key does and, if :attr:`merged` is then a multiple of ``every`` and the game
        goes on, has the same :meth:`successors`; yields the new states."""
        for met in self:
            if met.new:
                yield met
                continue
            assert look(met.game) == look(met.first), met.key
            if self.merged % every == 0 and not met.game.is_over:
                assert self.successors(met.game) == self.successors(met.first), met.key
                self.compared += 1
