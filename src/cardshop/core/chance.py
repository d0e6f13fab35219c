"""Seeded chance: every shuffle and draw of a game comes from its seed and a counter.

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

from cardshop.core.errors import SetupError, format_value

__all__ = [
    "MASTER_SEED_LIMIT",
    "SEED_LIMIT",
    "check_seed",
    "derive_below",
    "derive_rng",
    "derive_seed",
    "derive_shuffle",
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
    """``seed`` if it is an int with ``-limit < seed < limit``; else a
    :class:`~cardshop.SetupError` naming ``what`` and the range.

    The one check of a seed that every setup makes: a game's (``limit`` is
    :data:`SEED_LIMIT`: ``new_game``, ``Engine.new``, a match, a record) or the master
    seed of a simulation or an audit (:data:`MASTER_SEED_LIMIT`). A bool is refused, as
    ``take True`` is no ``take 1``: ``True`` is the int 1 to one reader and not to
    another (``derive_seed(True)`` is not ``derive_seed(1)``), so two engines would play
    different games from it.
    """
    if isinstance(seed, int) and not isinstance(seed, bool) and -limit < seed < limit:
        return seed
    bound = f"2**{limit.bit_length() - 1}" if limit & (limit - 1) == 0 else str(limit)
    why = " (true and false are not seeds)" if isinstance(seed, bool) else ""
    raise SetupError(
        f"{what} must be an int with -{bound} < {what} < {bound}{why}, not {format_value(seed)}"
    )


def derive_seed(seed: int, *labels: int | str) -> int:
    """A 64-bit seed derived from ``seed`` and labels, stable across runs and machines."""
    h = hashlib.blake2b(repr((seed, *labels)).encode(), digest_size=8)
    return int.from_bytes(h.digest(), "big")


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
