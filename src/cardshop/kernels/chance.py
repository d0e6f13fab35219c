# mypy: ignore-errors
"""The seeded chance of :mod:`cardshop.core.chance`, compiled with numba for the
families' batch kernels (``cardshop.klunker.kernel``, ``cardshop.wuhltisch.kernel``).

This module imports numba and is imported only by a kernel, never by ``import
cardshop``. mypy does not check it: numba's types (uint64 arithmetic, arrays) are not
expressible in mypy's; every function here is checked against Python's own
(tests/test_kernel_parts.py) and, through the kernels, game by game against the
reference engines.

* ``derive_seed(seed, *labels)`` is BLAKE2b (8-byte digest) of ``repr((seed, *labels))``,
  read big-endian; :func:`blake64` computes it from the same bytes, which
  :func:`seed_head`, :func:`put`, :func:`put_int` and :func:`finish` write, and
  :func:`blake64_lanes` many messages at once;
* ``random.Random(x)`` is CPython's MT19937 seeded with ``init_by_array`` over the
  32-bit words of ``x``; ``getrandbits(k)`` is the top ``k`` bits of one output,
  ``randbelow(n)`` draws ``n.bit_length()`` bits until the value is below ``n``;
  :func:`mt_seed` and :func:`randbelow` do the same, and :func:`seed_chains` seeds
  a block of generators at once.

Every function compiles with numba's ``numpy`` error model (no checks for division by
zero: no divisor here can be zero).

The kernels pass a constant argument of a helper as ``np.int64(...)`` where it
matters: numba compiles a function called with a literal constant (``Literal[int]``)
once more for that constant, and for a large helper that is seconds of the first
compile (12 s for :func:`blake64_lanes` alone); ``np.int64`` gives the one version.
"""

from __future__ import annotations

import contextlib

import numpy as np
from numba import njit
from numba.core import event

__all__ = [
    "CHAINS",
    "L_BOT",
    "L_GAME",
    "N",
    "blake64",
    "blake64_lanes",
    "compiling",
    "draw_ahead",
    "finish",
    "genrand",
    "genrand_ahead",
    "genrand_col",
    "head_below",
    "helper",
    "inlined",
    "label",
    "match_game_text",
    "mt_seed",
    "mt_seed_block",
    "put",
    "put_int",
    "put_uint",
    "randbelow",
    "randbelow_ahead",
    "randbelow_col",
    "seed_chains",
    "seed_event",
    "seed_events",
    "seed_games",
    "seed_head",
    "shuffle",
    "shuffle_col",
    "stream_below",
    "stream_block",
    "stream_event",
    "stream_heads",
    "stream_shuffle",
    "stream_start",
]

helper = njit(cache=True, error_model="numpy", _nrt=False)
"""The decorator of the helpers, which allocate no arrays: compiled without numba's
reference counting, a call does not update the counts of the arrays it is passed
(at the entry and at every exit of a call, two atomic operations an array; these
were about a tenth of the kernel's time)."""

inlined = njit(cache=True, error_model="numpy", _nrt=False, inline="always")
"""The decorator of the few helpers on a kernel's hottest path: compiled into each
caller (numba's own inlining), where a call would cost more than its body: numba
passes every array as seven or more arguments."""


@contextlib.contextmanager
def compiling(announce):
    """While the block runs, call ``announce()`` when numba starts compiling a function
    (its cache had no machine code for it): numba's ``numba:compile`` event, which a
    load from the cache does not send."""

    class Listener(event.Listener):
        def on_start(self, ev):
            announce()

        def on_end(self, ev):
            pass

    with event.install_listener("numba:compile", Listener()):
        yield


# ----------------------------------------------------------------- BLAKE2b-64

_IV = np.array(
    [
        0x6A09E667F3BCC908,
        0xBB67AE8584CAA73B,
        0x3C6EF372FE94F82B,
        0xA54FF53A5F1D36F1,
        0x510E527FADE682D1,
        0x9B05688C2B3E6C1F,
        0x1F83D9ABFB41BD6B,
        0x5BE0CD19137E2179,
    ],
    dtype=np.uint64,
)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, inline="always", error_model="numpy")
def _rotr(x, n):
    return (x >> np.uint64(n)) | (x << np.uint64(64 - n))


@njit(cache=True, inline="always", error_model="numpy")
def _gq(a, b, c, d, x, y):
    """BLAKE2b's mixing function G on four state words held in registers."""
    a = a + b + x
    d = _rotr(d ^ a, 32)
    c = c + d
    b = _rotr(b ^ c, 24)
    a = a + b + y
    d = _rotr(d ^ a, 16)
    c = c + d
    b = _rotr(b ^ c, 63)
    return a, b, c, d


@helper
def _compress(w, t, last):
    """One BLAKE2b compression of block ``m`` = ``w[8:24]`` into ``h`` = ``w[0:8]``
    (uint64; the words are indexed in place: a slice would cost two reference-count
    updates).

    The sixteen working words are local variables and the twelve rounds are written
    out with BLAKE2b's message schedule (sigma) as constant word names, so the state
    stays in registers (about twice as fast as the same with arrays and a loop)."""
    m0, m1, m2, m3, m4, m5, m6, m7 = w[8], w[9], w[10], w[11], w[12], w[13], w[14], w[15]
    m8, m9, m10, m11, m12, m13, m14, m15 = w[16], w[17], w[18], w[19], w[20], w[21], w[22], w[23]
    v0, v1, v2, v3, v4, v5, v6, v7 = w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]
    v8, v9, v10, v11 = _IV[0], _IV[1], _IV[2], _IV[3]
    v12 = _IV[4] ^ np.uint64(t)
    v13 = _IV[5]
    v14 = _IV[6] ^ _ALL if last else _IV[6]
    v15 = _IV[7]
    v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m0, m1)
    v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m2, m3)
    v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m4, m5)
    v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m6, m7)
    v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m8, m9)
    v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m10, m11)
    v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m12, m13)
    v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m14, m15)
    v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m14, m10)
    v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m4, m8)
    v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m9, m15)
    v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m13, m6)
    v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m1, m12)
    v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m0, m2)
    v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m11, m7)
    v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m5, m3)
    v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m11, m8)
    v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m12, m0)
    v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m5, m2)
    v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m15, m13)
    v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m10, m14)
    v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m3, m6)
    v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m7, m1)
    v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m9, m4)
    v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m7, m9)
    v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m3, m1)
    v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m13, m12)
    v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m11, m14)
    v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m2, m6)
    v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m5, m10)
    v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m4, m0)
    v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m15, m8)
    v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m9, m0)
    v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m5, m7)
    v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m2, m4)
    v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m10, m15)
    v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m14, m1)
    v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m11, m12)
    v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m6, m8)
    v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m3, m13)
    v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m2, m12)
    v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m6, m10)
    v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m0, m11)
    v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m8, m3)
    v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m4, m13)
    v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m7, m5)
    v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m15, m14)
    v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m1, m9)
    v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m12, m5)
    v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m1, m15)
    v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m14, m13)
    v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m4, m10)
    v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m0, m7)
    v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m6, m3)
    v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m9, m2)
    v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m8, m11)
    v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m13, m11)
    v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m7, m14)
    v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m12, m1)
    v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m3, m9)
    v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m5, m0)
    v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m15, m4)
    v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m8, m6)
    v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m2, m10)
    v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m6, m15)
    v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m14, m9)
    v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m11, m3)
    v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m0, m8)
    v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m12, m2)
    v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m13, m7)
    v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m1, m4)
    v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m10, m5)
    v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m10, m2)
    v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m8, m4)
    v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m7, m6)
    v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m1, m5)
    v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m15, m11)
    v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m9, m14)
    v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m3, m12)
    v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m13, m0)
    v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m0, m1)
    v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m2, m3)
    v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m4, m5)
    v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m6, m7)
    v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m8, m9)
    v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m10, m11)
    v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m12, m13)
    v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m14, m15)
    v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m14, m10)
    v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m4, m8)
    v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m9, m15)
    v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m13, m6)
    v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m1, m12)
    v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m0, m2)
    v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m11, m7)
    v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m5, m3)
    w[0] ^= v0 ^ v8
    w[1] ^= v1 ^ v9
    w[2] ^= v2 ^ v10
    w[3] ^= v3 ^ v11
    w[4] ^= v4 ^ v12
    w[5] ^= v5 ^ v13
    w[6] ^= v6 ^ v14
    w[7] ^= v7 ^ v15


@helper
def _absorb(msg, length, work):
    """BLAKE2b's compressions of ``msg[:length]``, block by block, into the state
    ``work[0:8]`` (its initial words set by the caller: the digest's parameters)."""
    blocks = max(1, (length + 127) // 128)
    for b in range(blocks):
        for i in range(8, 24):
            work[i] = np.uint64(0)
        end = min(length - b * 128, 128)
        for i in range(end):
            work[8 + (i >> 3)] |= np.uint64(msg[b * 128 + i]) << np.uint64(8 * (i & 7))
        last = b == blocks - 1
        t = length if last else (b + 1) * 128
        _compress(work, t, last)


@helper
def blake64(msg, length, work):
    """``int.from_bytes(blake2b(msg[:length], digest_size=8).digest(), "big")``.

    ``work`` is a uint64 scratch array of at least 24 entries.
    """
    for i in range(8):
        work[i] = _IV[i]
    work[0] = work[0] ^ np.uint64(0x01010008)
    _absorb(msg, length, work)
    x = work[0]
    r = np.uint64(0)
    for i in range(8):
        r = (r << np.uint64(8)) | ((x >> np.uint64(8 * i)) & np.uint64(0xFF))
    return r


@helper
def blake64_lanes(msgs, lengths, count, out, m):
    """:func:`blake64` of ``count`` messages at once: ``out[c]`` for the bytes
    ``msgs[c, :lengths[c]]``, each at most 128 bytes (one block). ``m``: a uint64
    scratch array of shape ``(16, count)`` or wider (:func:`_lanes`)."""
    _lanes(msgs, lengths, count, out, m, _SEED_PARAM)
    _big_endian(out, count)


_SEED_PARAM = np.uint64(0x01010008)
"""BLAKE2b's parameters for ``derive_seed``: an 8-byte digest, fanout and depth 1."""


@helper
def _big_endian(out, count):
    """Each of ``out[:count]`` (a digest's first word, read little-endian) read
    big-endian instead, as ``derive_seed`` reads its digest."""
    for c in range(count):
        x = out[c]
        r = np.uint64(0)
        for i in range(8):
            r = (r << np.uint64(8)) | ((x >> np.uint64(8 * i)) & np.uint64(0xFF))
        out[c] = r


@helper
def _lanes(msgs, lengths, count, out, m, param):
    """The first word of BLAKE2b (no key, no salt) of ``count`` messages at once,
    ``out[c]`` for ``msgs[c, :lengths[c]]`` (at most 128 bytes), its digest's
    parameters ``param`` (the ``xor`` into the first word of the state: the digest's
    length, fanout and depth); :func:`_rounds` of the messages' words."""
    for i in range(16):
        for c in range(count):
            m[i, c] = np.uint64(0)
    for c in range(count):
        for i in range(lengths[c]):
            m[i >> 3, c] |= np.uint64(msgs[c, i]) << np.uint64(8 * (i & 7))
    _rounds(m, lengths, count, out, param)


@helper
def _rounds(m, lengths, count, out, param):
    """:func:`_lanes` of messages given as their little-endian words, ``m[:, c]`` the
    16 words of message ``c`` (``lengths[c]`` bytes; the rest zero).

    One loop over the messages whose body is the whole compression (the rounds of
    :func:`_compress`, written out), every word a local: the compiler runs it on
    several messages at once with vector instructions, faster than one message after
    another when many seeds are needed together. The rounds are written out here as in
    :func:`_compress`: numba does not inline a function of 32 arguments (tried), and
    called, the rounds run three times as slow, unvectorized."""
    h0 = _IV[0] ^ param
    i0, i1, i2, i3, i4, i5, i6, i7 = _IV[0], _IV[1], _IV[2], _IV[3], _IV[4], _IV[5], _IV[6], _IV[7]
    for c in range(count):
        m0, m1, m2, m3, m4, m5, m6, m7 = (
            m[0, c],
            m[1, c],
            m[2, c],
            m[3, c],
            m[4, c],
            m[5, c],
            m[6, c],
            m[7, c],
        )
        m8, m9, m10, m11 = m[8, c], m[9, c], m[10, c], m[11, c]
        m12, m13, m14, m15 = m[12, c], m[13, c], m[14, c], m[15, c]
        v0, v1, v2, v3, v4, v5, v6, v7 = h0, i1, i2, i3, i4, i5, i6, i7
        v8, v9, v10, v11 = i0, i1, i2, i3
        v12 = i4 ^ np.uint64(lengths[c])
        v13 = i5
        v14 = i6 ^ _ALL
        v15 = i7
        v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m0, m1)
        v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m2, m3)
        v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m4, m5)
        v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m6, m7)
        v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m8, m9)
        v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m10, m11)
        v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m12, m13)
        v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m14, m15)
        v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m14, m10)
        v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m4, m8)
        v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m9, m15)
        v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m13, m6)
        v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m1, m12)
        v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m0, m2)
        v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m11, m7)
        v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m5, m3)
        v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m11, m8)
        v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m12, m0)
        v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m5, m2)
        v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m15, m13)
        v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m10, m14)
        v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m3, m6)
        v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m7, m1)
        v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m9, m4)
        v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m7, m9)
        v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m3, m1)
        v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m13, m12)
        v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m11, m14)
        v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m2, m6)
        v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m5, m10)
        v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m4, m0)
        v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m15, m8)
        v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m9, m0)
        v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m5, m7)
        v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m2, m4)
        v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m10, m15)
        v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m14, m1)
        v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m11, m12)
        v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m6, m8)
        v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m3, m13)
        v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m2, m12)
        v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m6, m10)
        v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m0, m11)
        v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m8, m3)
        v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m4, m13)
        v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m7, m5)
        v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m15, m14)
        v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m1, m9)
        v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m12, m5)
        v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m1, m15)
        v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m14, m13)
        v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m4, m10)
        v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m0, m7)
        v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m6, m3)
        v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m9, m2)
        v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m8, m11)
        v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m13, m11)
        v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m7, m14)
        v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m12, m1)
        v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m3, m9)
        v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m5, m0)
        v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m15, m4)
        v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m8, m6)
        v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m2, m10)
        v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m6, m15)
        v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m14, m9)
        v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m11, m3)
        v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m0, m8)
        v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m12, m2)
        v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m13, m7)
        v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m1, m4)
        v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m10, m5)
        v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m10, m2)
        v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m8, m4)
        v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m7, m6)
        v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m1, m5)
        v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m15, m11)
        v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m9, m14)
        v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m3, m12)
        v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m13, m0)
        v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m0, m1)
        v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m2, m3)
        v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m4, m5)
        v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m6, m7)
        v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m8, m9)
        v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m10, m11)
        v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m12, m13)
        v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m14, m15)
        v0, v4, v8, v12 = _gq(v0, v4, v8, v12, m14, m10)
        v1, v5, v9, v13 = _gq(v1, v5, v9, v13, m4, m8)
        v2, v6, v10, v14 = _gq(v2, v6, v10, v14, m9, m15)
        v3, v7, v11, v15 = _gq(v3, v7, v11, v15, m13, m6)
        v0, v5, v10, v15 = _gq(v0, v5, v10, v15, m1, m12)
        v1, v6, v11, v12 = _gq(v1, v6, v11, v12, m0, m2)
        v2, v7, v8, v13 = _gq(v2, v7, v8, v13, m11, m7)
        v3, v4, v9, v14 = _gq(v3, v4, v9, v14, m5, m3)
        out[c] = h0 ^ v0 ^ v8


# ------------------------------------------------------ chance model 2: streams


@helper
def stream_block(msg, length, index, work, out):
    """Block ``index`` of the stream of chance model 2 for the text ``msg[:length]``
    (:func:`cardshop.core.stream_bytes`): ``blake2b(text, digest_size=64,
    salt=index.to_bytes(16, "little")).digest()`` into ``out[:64]`` (uint8).
    ``work``: a uint64 scratch array of at least 24 entries."""
    for i in range(8):
        work[i] = _IV[i]
    work[0] = work[0] ^ np.uint64(0x01010040)  # digest length 64, no key, fanout and depth 1
    work[4] = work[4] ^ np.uint64(index)  # the salt's first 8 bytes (the other 8 are 0)
    _absorb(msg, length, work)
    for i in range(8):
        x = work[i]
        for j in range(8):
            out[8 * i + j] = np.uint8((x >> np.uint64(8 * j)) & np.uint64(0xFF))


@helper
def stream_start(sb, ss, msg, length, work):
    """Start reading the stream of the event whose text is ``msg[:length]``: its block
    0 into ``sb`` (uint8[64]), and ``ss`` (int64[2]: the next byte in the block, the
    block's number) at its start."""
    stream_block(msg, length, np.int64(0), work, sb)
    ss[0] = 0
    ss[1] = 0


@helper
def seed_event(mt, buf, text, length, lab, n, work):
    """Seed ``mt`` for the chance event ``(seed, lab)`` or, with ``n >= 0``, ``(seed,
    lab, n)`` by chance model 1: ``random.Random(derive_seed(seed, lab, n))``, the
    seed's text being ``text[:length]`` (``buf``: room for the event's text)."""
    pos = seed_head(buf, text, length)
    pos = put(buf, pos, lab)
    if n >= 0:
        pos = put_int(buf, pos, n)
    mt_seed(mt, finish(buf, pos, work))


@helper
def stream_event(sb, ss, buf, text, length, lab, n, work):
    """Start reading the stream of the chance event ``(seed, lab)`` or, with ``n >=
    0``, ``(seed, lab, n)`` (:func:`stream_start`), the seed's text being
    ``text[:length]`` and ``lab`` a label's bytes (:func:`label`). The event's text is
    written into ``buf`` (64 bytes: a seed, a label and a count), where it must stay
    while the event draws; returns its length."""
    pos = seed_head(buf, text, length)
    pos = put(buf, pos, lab)
    if n >= 0:
        pos = put_int(buf, pos, n)
    buf[pos] = 41  # )
    stream_start(sb, ss, buf, pos + 1, work)
    return pos + 1


@helper
def stream_below(sb, ss, n, msg, length, work):
    """A number below ``n`` (``n >= 1``) read from the stream as chance model 2 reads
    one: ``ceil(k / 8)`` bytes little-endian, their top ``k`` bits (``k`` the bits of
    ``n - 1``), again until below ``n``; nothing read for ``n == 1``. Reading past the
    block in ``sb`` hashes the next (``msg[:length]``: the event's text)."""
    if n <= 1:
        return np.int64(0)
    k = _BITS[n - 1] if n <= 1024 else _bit_length(n - 1)
    size = (k + 7) >> 3
    shift = 8 * size - k
    while True:
        x = np.int64(0)
        for b in range(size):
            at = ss[0]
            if at == 64:
                ss[1] += 1
                stream_block(msg, length, ss[1], work, sb)
                at = 0
            ss[0] = at + 1
            x |= np.int64(sb[at]) << (8 * b)
        r = x >> shift
        if r < n:
            return r


@helper
def stream_shuffle(sb, ss, deck, count, msg, length, work):
    """Shuffle ``deck[:count]`` as chance model 2 does, reading the stream in ``sb``."""
    for i in range(count - 1, 0, -1):
        j = stream_below(sb, ss, i + 1, msg, length, work)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


# Labels, as the bytes of their repr inside a tuple: ", 'game'" and so on.
def label(name: str) -> np.ndarray:
    """The bytes a text label adds to the ``repr`` of a seed's tuple: ``", 'game'"``."""
    return np.frombuffer(f", {name!r}".encode(), dtype=np.uint8).copy()


L_GAME = label("game")
L_BOT = label("bot")


@helper
def put(buf, pos, src):
    for i in range(src.shape[0]):
        buf[pos + i] = src[i]
    return pos + src.shape[0]


@helper
def put_int(buf, pos, value):
    """Write ``", <value>"`` (a non-negative int) and return the new position."""
    buf[pos] = 44  # ,
    buf[pos + 1] = 32
    pos += 2
    return put_uint(buf, pos, np.uint64(value))


@helper
def put_uint(buf, pos, value):
    digits = 1
    x = value
    while x >= np.uint64(10):
        x = x // np.uint64(10)
        digits += 1
    x = value
    for i in range(digits - 1, -1, -1):
        buf[pos + i] = np.uint8(48 + np.int64(x % np.uint64(10)))
        x = x // np.uint64(10)
    return pos + digits


@helper
def seed_head(buf, text, length):
    """Write ``"(" + repr(seed)``, the seed's text being ``text[:length]``, and return
    the position after it."""
    buf[0] = 40  # (
    for i in range(length):
        buf[1 + i] = text[i]
    return 1 + length


@helper
def finish(buf, pos, work):
    buf[pos] = 41  # )
    return blake64(buf, pos + 1, work)


# ----------------------------------------------------------------- MT19937

N = 624
"""Words in a Mersenne Twister's state (a generator here is ``int64[N + 1]``, the last
entry its position; a block of them is ``uint32[N, chains]``)."""
_MASK = 0xFFFFFFFF


def _init_genrand(s: int) -> np.ndarray:
    mt = [s]
    for i in range(1, N):
        prev = mt[-1]
        mt.append((1812433253 * (prev ^ (prev >> 30)) + i) & _MASK)
    return np.array(mt, dtype=np.int64)


_INIT = _init_genrand(19650218)  # init_by_array starts from this state, whatever the key


@helper
def mt_seed(mt, seed):
    """Seed ``mt`` (int64[625], index 624 = position) as ``random.Random(seed)`` does
    for a non-negative int below 2**64 (``init_by_array`` over its 32-bit words)."""
    seed = np.uint64(seed)
    lo = np.int64(seed & np.uint64(_MASK))
    hi = np.int64(seed >> np.uint64(32))
    keylen = 2 if hi else 1
    for i in range(N):
        mt[i] = _INIT[i]
    i = 1
    j = 0
    k = N if keylen < N else keylen
    while k > 0:
        prev = mt[i - 1]
        key = lo if j == 0 else hi
        mt[i] = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1664525) & _MASK)) + key + j) & _MASK
        i += 1
        j += 1
        if i >= N:
            mt[0] = mt[N - 1]
            i = 1
        if j >= keylen:
            j = 0
        k -= 1
    k = N - 1
    while k > 0:
        prev = mt[i - 1]
        mt[i] = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1566083941) & _MASK)) - i) & _MASK
        i += 1
        if i >= N:
            mt[0] = mt[N - 1]
            i = 1
        k -= 1
    mt[0] = 0x80000000
    mt[N] = N


_INIT32 = _INIT.astype(np.uint32)
CHAINS = 96
"""Generators a kernel seeds in one interleaved pass (:func:`seed_chains`): a block of
games' worth."""


@helper
def mt_seed_block(st, lo, hi1, count, last):
    """Seed generators ``0 .. count-1`` at once, column ``c`` of ``st`` (uint32[624,
    chains]) as ``random.Random(seed_c)`` for a seed of two 32-bit words: ``lo[c]``
    and ``hi1[c]`` (its high word plus one; uint32 arrays). ``last``: scratch of
    ``count`` entries or more.

    ``init_by_array`` is a chain of about 1,250 dependent steps per generator; here
    each step runs for all the generators of the block in one inner loop over a row
    of ``st`` (words ``[i, :]`` are contiguous), which LLVM vectorizes, so the CPU
    runs many chains at once instead of waiting on one. Each step reads the word it
    depends on from ``last`` (the row just written, kept apart) rather than from the
    row before in ``st``: read back from ``st``, the loop ran three times as slow.
    Same words as :func:`mt_seed` (tests/test_kernel_parts.py); seeds whose high word
    is zero (a key of one word) are seeded by :func:`mt_seed` instead
    (:func:`seed_chains`).
    """
    row = st[0]
    for c in range(count):
        row[c] = 19650218
        last[c] = 19650218
    for i in range(1, N):  # init_by_array's first loop: key word j = (i - 1) % 2
        cur = st[i]
        key = lo if i & 1 else hi1
        init = np.int64(_INIT32[i])
        for c in range(count):
            p = np.int64(last[c])
            v = np.uint32((init ^ ((p ^ (p >> 30)) * 1664525)) + np.int64(key[c]))
            cur[c] = v
            last[c] = v
    cur = st[1]  # wrap: word 0 is word 623, then the loop's last step at word 1
    for c in range(count):
        p = np.int64(last[c])
        v = np.uint32((np.int64(cur[c]) ^ ((p ^ (p >> 30)) * 1664525)) + np.int64(hi1[c]))
        cur[c] = v
        last[c] = v
    for i in range(2, N):  # the second loop
        cur = st[i]
        minus = np.int64(4294967296 - i)  # - i, modulo 2**32
        for c in range(count):
            p = np.int64(last[c])
            v = np.uint32((np.int64(cur[c]) ^ ((p ^ (p >> 30)) * 1566083941)) + minus)
            cur[c] = v
            last[c] = v
    cur = st[1]
    row = st[0]
    for c in range(count):
        p = np.int64(last[c])
        cur[c] = (np.int64(cur[c]) ^ ((p ^ (p >> 30)) * 1566083941)) - 1
        row[c] = 0x80000000


@helper
def seed_chains(st, pos, seeds, lo, hi1, count, one):
    """Seed column ``c`` of ``st`` as ``random.Random(seeds[c])`` for ``c < count``
    and set its position (``pos[c]``) to the start. ``lo``, ``hi1``: uint32 scratch
    arrays; ``one``: an int64[625] scratch generator."""
    for c in range(count):
        x = seeds[c]
        lo[c] = np.uint32(x & np.uint64(_MASK))
        hi1[c] = np.uint32((x >> np.uint64(32)) + np.uint64(1))
        pos[c] = N
    mt_seed_block(st, lo, hi1, count, one)
    for c in range(count):
        if seeds[c] >> np.uint64(32) == np.uint64(0):  # a one-word key: seeded alone
            mt_seed(one, seeds[c])
            for i in range(N):
                st[i, c] = one[i]


@helper
def _twist_at(st, i, c):
    """Twist word ``i`` of generator ``c`` of a block in place and return its output."""
    j = i + 1 if i + 1 < N else 0
    m = i + 397 if i + 397 < N else i + 397 - N
    y = (np.int64(st[i, c]) & 0x80000000) | (np.int64(st[j, c]) & 0x7FFFFFFF)
    y = np.int64(st[m, c]) ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    st[i, c] = y
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y


@helper
def genrand_col(st, pos, c):
    """:func:`genrand` for generator ``c`` of a block (column ``c`` of ``st``,
    position ``pos[c]``)."""
    i = pos[c]
    if i >= N:
        i = 0
    pos[c] = i + 1
    return _twist_at(st, i, c)


@helper
def draw_ahead(st, outs, pos, count):
    """The first outputs of the just seeded generators ``0 .. count-1`` of a block
    (:func:`seed_chains`), as many as ``outs`` has rows (at most :data:`N`; a kernel
    sizes it to its bots' draws in most games), into ``outs[i, c]`` (uint32[rows,
    chains]), twisting those words of ``st`` in place as :func:`genrand_col` would,
    each step for all the generators in one inner loop (vectorized); then ``pos[c]``
    at 0 for :func:`genrand_ahead`."""
    for i in range(outs.shape[0]):
        cur = st[i]
        nxt = st[i + 1 if i + 1 < N else 0]
        far = st[i + 397 if i + 397 < N else i + 397 - N]
        out = outs[i]
        for c in range(count):
            y = (np.int64(cur[c]) & 0x80000000) | (np.int64(nxt[c]) & 0x7FFFFFFF)
            y = np.int64(far[c]) ^ (y >> 1) ^ ((y & 1) * 0x9908B0DF)
            cur[c] = y
            y ^= y >> 11
            y ^= (y << 7) & 0x9D2C5680
            y ^= (y << 15) & 0xEFC60000
            y ^= y >> 18
            out[c] = y
    for c in range(count):
        pos[c] = 0


@helper
def genrand_ahead(st, outs, pos, c):
    """:func:`genrand_col` for generator ``c`` of a block prepared by
    :func:`draw_ahead`: its first outputs from ``outs``, then word by word. ``pos[c]``
    counts the draws of the first twist; from the second on, it is ``2 * N`` plus the
    place in the twist."""
    i = pos[c]
    if i < outs.shape[0]:
        pos[c] = i + 1
        return np.int64(outs[i, c])
    if i < N:
        pos[c] = i + 1
    else:  # the second twist and later
        i = i - 2 * N if i >= 2 * N else N
        if i >= N:
            i = 0
        pos[c] = 2 * N + i + 1
    return _twist_at(st, i, c)


@inlined
def randbelow_ahead(st, outs, pos, c, n):
    """:func:`randbelow_col` with :func:`genrand_ahead`, its common case (a draw
    :func:`draw_ahead` made) written into the caller."""
    k = _BITS[n] if n < 1024 else _bit_length(n)
    while True:
        i = pos[c]
        if i < outs.shape[0]:
            pos[c] = i + 1
            r = np.int64(outs[i, c]) >> (32 - k)
        else:
            r = genrand_ahead(st, outs, pos, c) >> (32 - k)
        if r < n:
            return r


@helper
def _bit_length(n):
    k = 0
    while n:
        k += 1
        n >>= 1
    return k


_BITS = np.array([i.bit_length() for i in range(1024)], dtype=np.int64)
"""``n.bit_length()`` for the small ``n`` of draws (legal actions, a deck's places)."""


@helper
def randbelow_col(st, pos, c, n):
    """:func:`randbelow` with generator ``c`` of a block."""
    k = _BITS[n] if n < 1024 else _bit_length(n)
    r = genrand_col(st, pos, c) >> (32 - k)
    while r >= n:
        r = genrand_col(st, pos, c) >> (32 - k)
    return r


@helper
def shuffle_col(st, pos, c, deck, length):
    for i in range(length - 1, 0, -1):
        j = randbelow_col(st, pos, c, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


@helper
def genrand(mt):
    """The next 32-bit output. The state is regenerated one word at a time, just
    before that word is used: the words are made in the same order and from the same
    words as MT19937's whole-state twist, so the outputs are the same, and a
    generator that draws a few dozen numbers does not regenerate all 624."""
    i = mt[N]
    if i >= N:
        i = 0
    j = i + 1 if i + 1 < N else 0
    m = i + 397 if i + 397 < N else i + 397 - N
    y = (mt[i] & 0x80000000) | (mt[j] & 0x7FFFFFFF)
    y = mt[m] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    mt[i] = y
    mt[N] = i + 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y


@helper
def randbelow(mt, n):
    """``Random.randbelow(n)`` for ``1 <= n < 2**32``."""
    k = _BITS[n] if n < 1024 else _bit_length(n)
    r = genrand(mt) >> (32 - k)
    while r >= n:
        r = genrand(mt) >> (32 - k)
    return r


@helper
def shuffle(mt, deck, length):
    for i in range(length - 1, 0, -1):
        j = randbelow(mt, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


# ---------------------------------------------------------- a simulation's games


@helper
def seed_games(buf, seed_text, first, count, n, seeds, at, cseeds, st, pos, lo, hi1, one, work):
    """Games ``first .. first+count-1`` of a simulation with master seed ``seed_text``
    (the bytes of its ``repr``): each game's seed, ``derive_seed(seed, 'game', i)``,
    into ``seeds[at + i]``, and the generators of its ``n`` seats' bots,
    ``random.Random(derive_seed(seed, 'bot', i, s))``, seeded side by side into column
    ``i * n + s`` of ``st`` (:func:`seed_chains`; ``cseeds``, ``lo``, ``hi1``, ``one``
    and ``work``: scratch; ``buf``: room for the seed's text and 128 bytes)."""
    length = seed_text.shape[0]
    for i in range(count):
        game = first + i
        p = seed_head(buf, seed_text, length)
        p = put(buf, p, L_GAME)
        p = put_int(buf, p, game)
        seeds[at + i] = finish(buf, p, work)
        for s in range(n):
            p = seed_head(buf, seed_text, length)
            p = put(buf, p, L_BOT)
            p = put_int(buf, p, game)
            p = put_int(buf, p, s)
            cseeds[i * n + s] = finish(buf, p, work)
    seed_chains(st, pos, cseeds, lo, hi1, count * n, one)


@helper
def match_game_text(text, buf, scratch, match_seed, index, work):
    """Write the text of the seed of game ``index`` of a match whose seed is
    ``match_seed``, ``derive_seed(match_seed, 'game', index)``, into ``text`` (24 bytes;
    ``buf`` 64 and ``scratch`` 24 bytes of room) and return its length (as
    ``cardshop.core.series`` deals a match's games)."""
    length = put_uint(scratch, 0, match_seed)
    p = seed_head(buf, scratch, length)
    p = put(buf, p, L_GAME)
    p = put_int(buf, p, index)
    return put_uint(text, 0, finish(buf, p, work))


@helper
def _event_words(m, lengths, count, row, text, length, lab, first):
    """The texts of chance events ``first .. first + count - 1`` of one label,
    ``repr((seed, label, n))`` (``text[:length]`` the seed's), as the words
    :func:`_rounds` hashes, into ``m[:, c]``: the texts' common beginning (the seed and
    the label) packed once, then each text's count. ``row``: 128 bytes of room."""
    p = seed_head(row, text, length)
    p = put(row, p, lab)
    whole = p >> 3  # the words every text shares
    for w in range(whole):
        x = np.uint64(0)
        for b in range(8):
            x |= np.uint64(row[8 * w + b]) << np.uint64(8 * b)
        m[w, 0] = x
    for c in range(count):
        q = put_int(row, p, first + c)
        row[q] = 41  # )
        q += 1
        lengths[c] = q
        for w in range(whole):
            m[w, c] = m[w, 0]
        for w in range(whole, 16):
            m[w, c] = np.uint64(0)
        for i in range(8 * whole, q):
            m[i >> 3, c] |= np.uint64(row[i]) << np.uint64(8 * (i & 7))


@helper
def stream_heads(heads, row, lengths, m, text, length, lab, first):
    """The first 8 bytes of the streams of chance model 2 of a game's chance events
    ``first .. first + count - 1`` of one label (``count``: the length of ``heads``),
    read little-endian into ``heads[n - first]``, hashed side by side (:func:`_rounds`;
    the stream's block 0 has no salt). ``text[:length]``: the game seed's text;
    ``row`` (128 bytes), ``lengths`` and ``m``: scratch."""
    count = heads.shape[0]
    _event_words(m, lengths, count, row, text, length, lab, first)
    _rounds(m, lengths, count, heads, np.uint64(0x01010040))


@helper
def head_below(head, n):
    """A number below ``n`` (``n >= 2``) read as :func:`stream_below` reads it from a
    stream whose first 8 bytes are ``head`` (:func:`stream_heads`), or -1 where that
    needs more than those 8 bytes."""
    k = _BITS[n - 1] if n <= 1024 else _bit_length(n - 1)
    size = (k + 7) >> 3
    if size > 7:
        return np.int64(-1)
    shift = 8 * size - k
    mask = (np.int64(1) << (8 * size)) - 1
    at = 0
    while at + size <= 8:
        r = (np.int64(head >> np.uint64(8 * at)) & mask) >> shift
        if r < n:
            return r
        at += size
    return np.int64(-1)


@helper
def seed_events(st, pos, seeds, lo, hi1, one, msgs, lengths, m, text, length, lab, first):
    """Seed the generators of a game's chance events ``first .. first + count - 1``
    of one kind, ``random.Random(derive_seed(seed, lab, n))`` into column ``n - first``
    of ``st`` (``count`` its columns; ``text[:length]`` the game seed's text; ``lab`` the
    label's bytes, :func:`label`), hashed and seeded side by side
    (:func:`_event_words`, :func:`_rounds`, :func:`seed_chains`): much cheaper per
    generator than :func:`mt_seed` one at a time, where a game draws many events of the
    kind in a row. ``seeds``, ``lo``, ``hi1``, ``one``, ``msgs`` (its first row: 128
    bytes of room), ``lengths`` and ``m``: scratch."""
    count = st.shape[1]
    _event_words(m, lengths, count, msgs[0], text, length, lab, first)
    _rounds(m, lengths, count, seeds, _SEED_PARAM)
    _big_endian(seeds, count)
    seed_chains(st, pos, seeds, lo, hi1, count, one)
