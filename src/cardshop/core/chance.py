"""Seeded chance: every shuffle and draw of a game comes from its seed and a counter.

A family draws each chance event through the source in effect
(:func:`chance_source`): the seeded one (:data:`SEEDED`) draws what the ``derive_*``
functions below draw; a :class:`ScriptedChance` takes every outcome from a list of
choices instead, which lets ``cardshop verify`` enumerate all of them.

A game keeps only its seed and a count of chance events; each event gets its own
generator derived from the two (:func:`derive_rng`), so a game's chance is two ints,
cheap to clone and serialise, and the global ``random`` module is never touched.
:func:`derive_below` and :func:`derive_shuffle` draw exactly what ``derive_rng``'s
``randrange`` and ``shuffle`` would, faster.
"""

from __future__ import annotations

import _random
import hashlib
import random
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from cardshop.core.errors import CardshopError, SetupError, format_value

__all__ = [
    "MASTER_SEED_LIMIT",
    "SEEDED",
    "SEED_LIMIT",
    "ChanceScriptError",
    "ChanceSource",
    "ScriptedChance",
    "chance_source",
    "check_seed",
    "derive_below",
    "derive_rng",
    "derive_seed",
    "derive_shuffle",
    "drawing_from",
    "is_seed",
    "shuffle",
]

SEED_LIMIT = 2**64
"""Seeds are ints with ``-SEED_LIMIT < seed < SEED_LIMIT`` (64 bits and a sign)."""

MASTER_SEED_LIMIT = 2**1024
"""The master seed of a simulation or an audit, from which each game's seed is derived
(:func:`derive_seed`), is an int with ``-MASTER_SEED_LIMIT < seed < MASTER_SEED_LIMIT``."""


def is_seed(seed: object) -> bool:
    """Whether ``seed`` is a usable seed: an int (not a bool) within :data:`SEED_LIMIT`."""
    return isinstance(seed, int) and not isinstance(seed, bool) and -SEED_LIMIT < seed < SEED_LIMIT


def check_seed(seed: object, what: str = "seed", limit: int = SEED_LIMIT) -> int:
    """``seed`` as a plain int if it is an int with ``-limit < seed < limit``; else a
    :class:`~cardshop.SetupError` naming ``what`` and the range.

    The one check of a seed that every setup makes: a game's (``limit`` is
    :data:`SEED_LIMIT`: ``new_game``, ``Engine.new``, a match, a record) or the master
    seed of a simulation or an audit (:data:`MASTER_SEED_LIMIT`). A bool is refused, as
    ``take True`` is no ``take 1``: ``True`` is the int 1 to one reader and not to
    another (``derive_seed(True)`` is not ``derive_seed(1)``), so two engines would play
    different games from it.
    """
    if isinstance(seed, int) and not isinstance(seed, bool) and -limit < seed < limit:
        # An int subclass (an IntEnum) is read as its value: seeds are hashed by their
        # repr (derive_seed), which for a subclass need not be its digits, and the
        # compiled build keeps a game's seed as a plain int anyway.
        return int(seed)
    bound = f"2**{limit.bit_length() - 1}" if limit & (limit - 1) == 0 else str(limit)
    why = " (true and false are not seeds)" if isinstance(seed, bool) else ""
    raise SetupError(
        f"{what} must be an int with -{bound} < {what} < {bound}{why}, not {format_value(seed)}"
    )


_BLAKE64 = hashlib.blake2b(digest_size=8)
"""An empty BLAKE2b-64 state, which :func:`derive_seed` copies (cheaper than a new one)."""


def derive_seed(seed: int, *labels: int | str) -> int:
    """A 64-bit seed derived from ``seed`` and labels, stable across runs and machines:
    the BLAKE2b-64 hash of ``repr((seed, *labels))``, read as a big-endian int."""
    hasher = _BLAKE64.copy()
    hasher.update(repr((seed, *labels)).encode())
    return int.from_bytes(hasher.digest(), "big")


def derive_rng(seed: int, *labels: int | str) -> random.Random:
    """A private generator for one chance event (one shuffle, one draw).

    A game keeps only its seed and a counter of chance events; each event gets its
    own generator from them. State stays two ints (cheap to clone and serialise),
    and the global ``random`` module is never touched.
    """
    return random.Random(derive_seed(seed, *labels))


def derive_below(n: int, seed: int, *labels: int | str) -> int:
    """``derive_rng(seed, *labels).randrange(n)``, for ``n >= 1``, at a fraction of the cost.

    The same number from the same generator state: CPython's ``randrange`` draws
    ``getrandbits(n.bit_length())`` until the draw is below ``n``; this does the same
    on a generator seeded in C, without ``random.Random``'s Python-level seeding.
    ``a + derive_below(b - a + 1, ...)`` is ``randint(a, b)``. Raises
    :class:`ValueError` for ``n < 1``.
    """
    if n < 1:
        raise ValueError(f"empty range for derive_below: {n}")
    getrandbits = _random.Random(derive_seed(seed, *labels)).getrandbits
    k = n.bit_length()
    r = getrandbits(k)
    while r >= n:
        r = getrandbits(k)
    return r


def derive_shuffle(cards: list[int], seed: int, *labels: int | str) -> None:
    """``derive_rng(seed, *labels).shuffle(cards)``, the same order, at a fraction of the cost."""
    shuffle(_random.Random(derive_seed(seed, *labels)), cards)


def shuffle(rng: _random.Random, cards: list[int]) -> None:
    """Shuffle in place exactly as ``rng.shuffle(cards)`` does, only faster.

    The same Fisher-Yates walk and the same rejection sampling of ``getrandbits``
    as CPython's ``Random.shuffle``, with the method lookups hoisted out of the loop.
    ``rng`` is a ``random.Random`` (or its C base, ``_random.Random``).
    """
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


# ---------------------------------------------------------------- chance sources


class ChanceSource:
    """Where a game's chance events come from: seeded, or chosen outcome by outcome.

    A family draws every chance event through the source in effect
    (:func:`chance_source`), by one of four kinds of draw; each takes the game's
    ``seed`` and labels naming the event, as :func:`derive_seed` does. This class is
    the seeded source, :data:`SEEDED`, in effect unless another is set
    (:func:`drawing_from`): each draw is exactly what the ``derive_*`` function named
    in its docstring draws, so every seeded game is the game it always was.
    :class:`ScriptedChance` is the other: it takes each outcome from a list of
    choices, which is how ``cardshop verify`` enumerates every outcome of every chance
    event, and how a record that states its chance outcomes replays.
    """

    __slots__ = ()

    name = "seeded"

    def below(self, n: int, seed: int, *labels: int | str) -> int:
        """A number in ``0..n-1``, uniform: :func:`derive_below`."""
        return derive_below(n, seed, *labels)

    def pick(self, n: int, seed: int, *labels: int | str) -> int:
        """A number in ``0..n-1``, uniform to within ``n / 2**64``:
        ``derive_seed(seed, *labels) % n``, cheaper than :meth:`below`."""
        return derive_seed(seed, *labels) % n

    def places(self, sizes: Sequence[int], seed: int, *labels: int | str) -> list[int]:
        """One number below each of ``sizes``, in turn, from one generator: what
        ``derive_rng(seed, *labels).randrange(size)`` for each size would give."""
        getrandbits = _random.Random(derive_seed(seed, *labels)).getrandbits
        out: list[int] = []
        for n in sizes:
            k = n.bit_length()
            r = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            out.append(r)
        return out

    def shuffle(
        self,
        groups: Sequence[list[int]],
        seed: int,
        *labels: int | str,
        kinds: Sequence[int] | None = None,
    ) -> None:
        """Shuffle each list of ``groups`` in place, in turn, with one generator:
        ``rng = derive_rng(seed, *labels)``, then ``rng.shuffle`` of each (one group:
        :func:`derive_shuffle`). ``kinds[item]`` is the kind of each item where items of
        one kind are interchangeable (cards of one face); the seeded source ignores it,
        a source that enumerates outcomes lists one arrangement of kinds once."""
        rng = _random.Random(derive_seed(seed, *labels))
        for group in groups:
            shuffle(rng, group)


SEEDED = ChanceSource()
"""The seeded chance source: every outcome from the game's seed and the event's labels."""

_SOURCE: ContextVar[ChanceSource] = ContextVar("cardshop_chance_source", default=SEEDED)


def chance_source() -> ChanceSource:
    """The chance source in effect in this thread or task (:data:`SEEDED` unless a
    :func:`drawing_from` block has set another)."""
    return _SOURCE.get()


@contextmanager
def drawing_from(source: ChanceSource) -> Iterator[ChanceSource]:
    """Draw every chance event of the games played in the block from ``source``
    (per thread and task: games elsewhere keep theirs)."""
    token = _SOURCE.set(source)
    try:
        yield source
    finally:
        _SOURCE.reset(token)


class ChanceScriptError(CardshopError, ValueError):
    """A chance script does not fit the draws a game makes: a choice out of range, too
    few choices (strict scripts) or too many."""


class ScriptedChance(ChanceSource):
    """A chance source that takes each outcome from ``script``, a list of choices.

    Every draw is split into choices among finitely many outcomes, each with its
    probability: a number below ``n`` is one choice among ``n``; a shuffle chooses,
    place by place, which kind of item comes next among the kinds left (weighted by
    how many of each are left: one arrangement of kinds is one outcome, its items
    placed in the order of their numbers). Choice ``i`` of the game is ``script[i]``;
    past the script's end a strict source raises :class:`ChanceScriptError` and
    another takes choice 0 and goes on, so that the choices made (:attr:`chosen`), the
    number of outcomes of each (:attr:`arities`) and the chance of the whole
    (:attr:`probability`) list one outcome, and :meth:`next_script` the next one: from
    the empty script, every outcome of a step in turn, each once (the odometer walk of
    a stateless model checker).
    """

    __slots__ = ("arities", "chosen", "probability", "script", "strict")

    name = "scripted"

    def __init__(self, script: Sequence[int] = (), *, strict: bool = False) -> None:
        self.script = list(script)
        self.strict = strict
        self.chosen: list[int] = []
        self.arities: list[int] = []
        self.probability = 1.0

    def _choose(self, arity: int) -> int:
        at = len(self.chosen)
        if at < len(self.script):
            choice = self.script[at]
            if not 0 <= choice < arity:
                raise ChanceScriptError(
                    f"chance choice {at} is {choice}, but that draw has {arity} outcomes "
                    f"(0..{arity - 1})"
                )
        elif self.strict:
            raise ChanceScriptError(
                f"the game draws more chance than the script's {len(self.script)} choices"
            )
        else:
            choice = 0
        self.chosen.append(choice)
        self.arities.append(arity)
        return choice

    def below(self, n: int, seed: int, *labels: int | str) -> int:
        if n < 1:
            raise ValueError(f"empty range for a chance draw: {n}")
        self.probability /= n
        return self._choose(n)

    def pick(self, n: int, seed: int, *labels: int | str) -> int:
        return self.below(n, seed, *labels)

    def places(self, sizes: Sequence[int], seed: int, *labels: int | str) -> list[int]:
        return [self.below(n, seed, *labels) for n in sizes]

    def shuffle(
        self,
        groups: Sequence[list[int]],
        seed: int,
        *labels: int | str,
        kinds: Sequence[int] | None = None,
    ) -> None:
        for group in groups:
            if len(group) < 2:
                continue
            # The items of each kind, by number; a kind's next item is its smallest left.
            left: dict[int, list[int]] = {}
            for item in sorted(group, reverse=True):
                left.setdefault(item if kinds is None else kinds[item], []).append(item)
            remaining = len(group)
            for place in range(len(group)):
                present = sorted(left)
                if len(present) == 1:
                    kind = present[0]
                else:
                    kind = present[self._choose(len(present))]
                    self.probability *= len(left[kind]) / remaining
                items = left[kind]
                group[place] = items.pop()
                if not items:
                    del left[kind]
                remaining -= 1

    def next_script(self) -> list[int] | None:
        """The script of the next outcome after the one just drawn, or None after the
        last: the choices up to the last that has an outcome left, that one advanced."""
        chosen, arities = self.chosen, self.arities
        for i in range(len(chosen) - 1, -1, -1):
            if chosen[i] + 1 < arities[i]:
                return [*chosen[:i], chosen[i] + 1]
        return None

    def done(self) -> None:
        """Raise :class:`ChanceScriptError` if the script has choices the game never
        used (a strict replay's check that the record's chance was all drawn)."""
        if len(self.chosen) < len(self.script):
            raise ChanceScriptError(
                f"the script has {len(self.script)} chance choices but the game drew "
                f"{len(self.chosen)}"
            )
