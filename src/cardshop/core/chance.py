"""Seeded chance: every shuffle and draw of a game comes from its seed and a counter.

A family draws each chance event through the source in effect
(:func:`chance_source`): the seeded one (:data:`SEEDED`) draws what the ``derive_*``
functions below draw; a :class:`ScriptedChance` takes every outcome from a list of
choices instead, which lets ``cardshop verify`` enumerate all of them.

A game keeps only its seed and a count of chance events; each event draws from its
own source of randomness derived from the two, so a game's chance is two ints, cheap
to clone and serialise, and the global ``random`` module is never touched. A variant's
``chance`` key names the model by which a seeded event draws (:data:`CHANCE_MODELS`):

* **model 1** (the default): the event's generator is a Mersenne Twister seeded with
  :func:`derive_seed` of its labels (:func:`derive_rng`); :func:`derive_below` and
  :func:`derive_shuffle` draw exactly what its ``randrange`` and ``shuffle`` would,
  faster. Seeding a Mersenne Twister is a chain of about 1,250 dependent steps, which
  dominates a compiled game that draws many small events.
* **model 2** (:data:`STREAMED`): the event reads a stream of bytes, the BLAKE2b-512
  digests of the event's text (the text :func:`derive_seed` hashes) with salt 0, 1,
  2 and so on (the salt a 16-byte little-endian number), one after another
  (:func:`stream_bytes`). A number below ``n >= 2`` takes the next ``ceil(k / 8)``
  bytes, ``k = (n - 1).bit_length()``, as a little-endian number and keeps its top
  ``k`` bits, again until the number is below ``n``; a number below 1 is 0 and reads
  nothing. A shuffle is the same Fisher-Yates walk as model 1's, each place a number
  below the places left. An event of a few draws costs one hash.

Both models draw a :meth:`ChanceSource.pick` the same way. Game records and game JSON
carry the variant and so its model: a record written under model 1 replays under it.
"""

from __future__ import annotations

import _random
import hashlib
import random
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from cardshop.core.errors import CardshopError, SetupError, format_value

__all__ = [
    "CHANCE_MODELS",
    "MASTER_SEED_LIMIT",
    "SEEDED",
    "SEED_LIMIT",
    "STREAMED",
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
    "stream_bytes",
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
    model = 1
    """The chance model this source draws by (:data:`CHANCE_MODELS`)."""
    seeded = True
    """Whether every outcome comes from the game's seed (so that the seed repeats the
    game): true of :data:`SEEDED` and :data:`STREAMED`, false of a script."""

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
"""The seeded chance source of model 1: every outcome from the game's seed and the
event's labels, by a Mersenne Twister seeded for each event."""


_blake2b = hashlib.blake2b
_BLOCK = 64
"""Bytes of one block of an event's stream (a BLAKE2b-512 digest)."""
_SALTS = tuple(j.to_bytes(16, "little") for j in range(64))


def _block(text: bytes, index: int) -> bytes:
    salt = _SALTS[index] if index < 64 else index.to_bytes(16, "little")
    return _blake2b(text, digest_size=_BLOCK, salt=salt).digest()


def stream_bytes(count: int, seed: int, *labels: int | str) -> bytes:
    """The first ``count`` bytes of the stream that chance model 2 reads for the event
    ``(seed, *labels)``: the BLAKE2b-512 digests of ``repr((seed, *labels))`` with salt
    0, 1, 2 and so on, one after another (the salt a 16-byte little-endian number)."""
    text = repr((seed, *labels)).encode()
    blocks = -(-count // _BLOCK)
    return b"".join(_block(text, j) for j in range(blocks))[:count]


class _Stream:
    """The bytes of one event's stream, read in order (chance model 2)."""

    __slots__ = ("at", "data", "text")

    def __init__(self, seed: int, labels: tuple[int | str, ...], ahead: int) -> None:
        self.text = repr((seed, *labels)).encode()
        self.data = b""
        self.at = 0
        self.need(ahead)

    def need(self, count: int) -> None:
        """Make sure ``count`` bytes are left to read."""
        data = self.data
        while len(data) - self.at < count:
            data += _block(self.text, len(data) // _BLOCK)
        self.data = data

    def below(self, n: int) -> int:
        """A number in ``0..n-1`` (``n >= 1``), uniform, read from the stream."""
        if n <= 1:
            if n < 1:
                raise ValueError(f"empty range for a chance draw: {n}")
            return 0
        k = (n - 1).bit_length()
        size = (k + 7) >> 3
        shift = 8 * size - k
        while True:
            self.need(size)
            at = self.at
            self.at = at + size
            r = (
                self.data[at] if size == 1 else int.from_bytes(self.data[at : at + size], "little")
            ) >> shift
            if r < n:
                return r

    def shuffle(self, cards: list[int]) -> None:
        """Fisher-Yates: each place from the last, a number below the places left."""
        i = len(cards) - 1
        while i >= 256:  # places of a deck of more than 256: several bytes a number
            j = self.below(i + 1)
            cards[i], cards[j] = cards[j], cards[i]
            i -= 1
        if i < 1:
            return
        self.need(i)  # a byte a place from here on (a rejection reads one more)
        data = self.data
        at = self.at
        shifts = _SHIFTS
        while i > 0:
            n = i + 1
            shift = shifts[n]
            j = data[at] >> shift
            at += 1
            while j >= n:
                if len(data) - at < i:
                    self.at = at
                    self.need(i)
                    data = self.data
                j = data[at] >> shift
                at += 1
            cards[i], cards[j] = cards[j], cards[i]
            i -= 1
        self.at = at


_SHIFTS = (8, *(8 - (n - 1).bit_length() for n in range(1, 257)))
"""For a number below ``n <= 256``, read from one byte: how far to shift the byte."""


class StreamedChance(ChanceSource):
    """The seeded chance source of model 2: each event reads its own stream of bytes,
    hashed from the game's seed and the event's labels (:func:`stream_bytes`)."""

    __slots__ = ()

    model = 2

    def below(self, n: int, seed: int, *labels: int | str) -> int:
        """A number in ``0..n-1``, uniform, from the event's stream."""
        if n == 1:
            return 0
        return _Stream(seed, labels, 1).below(n)

    def places(self, sizes: Sequence[int], seed: int, *labels: int | str) -> list[int]:
        """One number below each of ``sizes``, in turn, from the event's stream."""
        stream = _Stream(seed, labels, len(sizes))
        return [stream.below(n) for n in sizes]

    def shuffle(
        self,
        groups: Sequence[list[int]],
        seed: int,
        *labels: int | str,
        kinds: Sequence[int] | None = None,
    ) -> None:
        """Shuffle each list of ``groups`` in place, in turn, from the event's stream."""
        stream = _Stream(seed, labels, max(0, len(groups[0]) - 1) if groups else 0)
        for group in groups:
            stream.shuffle(group)


STREAMED = StreamedChance()
"""The seeded chance source of model 2: every outcome from the game's seed and the
event's labels, read from a stream of BLAKE2b-512 digests of them."""

CHANCE_MODELS: Mapping[int, ChanceSource] = {1: SEEDED, 2: STREAMED}
"""The seeded chance source of each chance model, by its number (a variant's
``chance`` key)."""

_SOURCE: ContextVar[ChanceSource | None] = ContextVar("cardshop_chance_source", default=None)


def chance_source(model: int = 1) -> ChanceSource:
    """The chance source in effect in this thread or task: the one a
    :func:`drawing_from` block has set, or else the seeded source of chance model
    ``model`` (a game passes its variant's ``chance``: :data:`SEEDED` for 1,
    :data:`STREAMED` for 2)."""
    source = _SOURCE.get()
    return CHANCE_MODELS[model] if source is None else source


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
    seeded = False

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
