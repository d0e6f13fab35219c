# mypy: ignore-errors
"""The numba-compiled part of the Klunker batch kernel (see :mod:`cardshop.klunker.kernel`).

This module imports numba and is imported only by the kernel, never by ``import
cardshop``. mypy does not check it: numba's types (uint64 arithmetic, arrays) are
not expressible in mypy's, and every function here is checked instead, game by game,
against the reference engine (tests/test_kernel.py).

It plays whole games with plain integer arrays and reproduces the reference engine's
chance exactly:

* ``derive_seed(seed, *labels)`` is BLAKE2b (8-byte digest) of ``repr((seed, *labels))``,
  read big-endian; :func:`_blake64` computes it from the same bytes;
* ``random.Random(x)`` is CPython's MT19937 seeded with ``init_by_array`` over the
  32-bit words of ``x``; ``getrandbits(k)`` is the top ``k`` bits of one output,
  ``_randbelow(n)`` draws ``n.bit_length()`` bits until the value is below ``n``;
  :func:`_mt_seed` and :func:`_randbelow` do the same.

Cards are tracked by kind only: the engine's card ids decide nothing a kind does not
(payments pick a kind by the bank's counts; discards go back to the deck grouped by
kind, as they are listed by id and ids are contiguous per kind).

Every function compiles with numba's ``numpy`` error model, which leaves out the
checks for division by zero: no divisor here can be zero (player counts, row sizes
and decks are at least 1 by the variant's schema, and a bank is drawn from only while
it holds cards).
"""

from __future__ import annotations

import contextlib

import numpy as np
from numba import njit
from numba.core import event

_helper = njit(cache=True, error_model="numpy", _nrt=False)
"""The decorator of the helpers, which allocate no arrays: compiled without numba's
reference counting, a call does not update the counts of the arrays it is passed
(at the entry and at every exit of a call, two atomic operations an array; these
were about a tenth of the kernel's time)."""


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


@_helper
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


@_helper
def _blake64(msg, length, work):
    """``int.from_bytes(blake2b(msg[:length], digest_size=8).digest(), "big")``.

    ``work`` is a uint64 scratch array of at least 24 entries.
    """
    for i in range(8):
        work[i] = _IV[i]
    work[0] = work[0] ^ np.uint64(0x01010008)
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
    x = work[0]
    r = np.uint64(0)
    for i in range(8):
        r = (r << np.uint64(8)) | ((x >> np.uint64(8 * i)) & np.uint64(0xFF))
    return r


# Labels, as the bytes of their repr inside a tuple: ", 'game'" and so on.
_L_GAME = np.frombuffer(b", 'game'", dtype=np.uint8).copy()
_L_BOT = np.frombuffer(b", 'bot'", dtype=np.uint8).copy()
_L_FIRST = np.frombuffer(b", 'first-player'", dtype=np.uint8).copy()
_L_DEAL = np.frombuffer(b", 'deal'", dtype=np.uint8).copy()
_L_RESHUFFLE = np.frombuffer(b", 'reshuffle'", dtype=np.uint8).copy()
_L_PAY = np.frombuffer(b", 'pay'", dtype=np.uint8).copy()


@_helper
def _put(buf, pos, src):
    for i in range(src.shape[0]):
        buf[pos + i] = src[i]
    return pos + src.shape[0]


@_helper
def _put_int(buf, pos, value):
    """Write ``", <value>"`` (a non-negative int) and return the new position."""
    buf[pos] = 44  # ,
    buf[pos + 1] = 32
    pos += 2
    return _put_uint(buf, pos, np.uint64(value))


@_helper
def _put_uint(buf, pos, value):
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


@_helper
def _seed_head(buf, text, length):
    """Write ``"(" + repr(seed)``, the seed's text being ``text[:length]``, and return
    the position after it."""
    buf[0] = 40  # (
    for i in range(length):
        buf[1 + i] = text[i]
    return 1 + length


@_helper
def _finish(buf, pos, work):
    buf[pos] = 41  # )
    return _blake64(buf, pos + 1, work)


# ----------------------------------------------------------------- MT19937

_N = 624
_MASK = 0xFFFFFFFF


def _init_genrand(s: int) -> np.ndarray:
    mt = [s]
    for i in range(1, _N):
        prev = mt[-1]
        mt.append((1812433253 * (prev ^ (prev >> 30)) + i) & _MASK)
    return np.array(mt, dtype=np.int64)


_INIT = _init_genrand(19650218)  # init_by_array starts from this state, whatever the key


@_helper
def _mt_seed(mt, seed):
    """Seed ``mt`` (int64[625], index 624 = position) as ``random.Random(seed)`` does
    for a non-negative int below 2**64 (``init_by_array`` over its 32-bit words)."""
    seed = np.uint64(seed)
    lo = np.int64(seed & np.uint64(_MASK))
    hi = np.int64(seed >> np.uint64(32))
    keylen = 2 if hi else 1
    for i in range(_N):
        mt[i] = _INIT[i]
    i = 1
    j = 0
    k = _N if keylen < _N else keylen
    while k > 0:
        prev = mt[i - 1]
        key = lo if j == 0 else hi
        mt[i] = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1664525) & _MASK)) + key + j) & _MASK
        i += 1
        j += 1
        if i >= _N:
            mt[0] = mt[_N - 1]
            i = 1
        if j >= keylen:
            j = 0
        k -= 1
    k = _N - 1
    while k > 0:
        prev = mt[i - 1]
        mt[i] = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1566083941) & _MASK)) - i) & _MASK
        i += 1
        if i >= _N:
            mt[0] = mt[_N - 1]
            i = 1
        k -= 1
    mt[0] = 0x80000000
    mt[_N] = _N


_INIT32 = _INIT.astype(np.uint32)
_CHAINS = 96  # generators seeded in one interleaved pass (a block of games' worth)


@_helper
def _mt_seed_block(st, lo, hi1, count):
    """Seed generators ``0 .. count-1`` at once, column ``c`` of ``st`` (uint32[624,
    chains]) as ``random.Random(seed_c)`` for a seed of two 32-bit words: ``lo[c]``
    and ``hi1[c]`` (its high word plus one; uint32 arrays).

    ``init_by_array`` is a chain of about 1,250 dependent steps per generator; here
    each step runs for all the generators of the block in one inner loop over a row
    of ``st`` (words ``[i, :]`` are contiguous), which LLVM vectorizes, so the CPU
    runs many chains at once instead of waiting on one. Same words as
    :func:`_mt_seed` (tests/test_kernel_parts.py); seeds whose high word is zero
    (a key of one word) are seeded by :func:`_mt_seed` instead (:func:`_seed_chains`).
    """
    row = st[0]
    for c in range(count):
        row[c] = 19650218
    for i in range(1, _N):  # init_by_array's first loop: key word j = (i - 1) % 2
        prev = st[i - 1]
        cur = st[i]
        key = lo if i & 1 else hi1
        init = np.int64(_INIT32[i])
        for c in range(count):
            p = np.int64(prev[c])
            cur[c] = (init ^ ((p ^ (p >> 30)) * 1664525)) + np.int64(key[c])
    prev = st[_N - 1]  # wrap: word 0 is word 623, then the loop's last step at word 1
    cur = st[1]
    for c in range(count):
        p = np.int64(prev[c])
        cur[c] = (np.int64(cur[c]) ^ ((p ^ (p >> 30)) * 1664525)) + np.int64(hi1[c])
    for i in range(2, _N):  # the second loop
        prev = st[i - 1]
        cur = st[i]
        for c in range(count):
            p = np.int64(prev[c])
            cur[c] = (np.int64(cur[c]) ^ ((p ^ (p >> 30)) * 1566083941)) - i
    prev = st[_N - 1]
    cur = st[1]
    row = st[0]
    for c in range(count):
        p = np.int64(prev[c])
        cur[c] = (np.int64(cur[c]) ^ ((p ^ (p >> 30)) * 1566083941)) - 1
        row[c] = 0x80000000


@_helper
def _seed_chains(st, pos, seeds, lo, hi1, count, one):
    """Seed column ``c`` of ``st`` as ``random.Random(seeds[c])`` for ``c < count``
    and set its position (``pos[c]``) to the start. ``lo``, ``hi1``: uint32 scratch
    arrays; ``one``: an int64[625] scratch generator."""
    for c in range(count):
        x = seeds[c]
        lo[c] = np.uint32(x & np.uint64(_MASK))
        hi1[c] = np.uint32((x >> np.uint64(32)) + np.uint64(1))
        pos[c] = _N
    _mt_seed_block(st, lo, hi1, count)
    for c in range(count):
        if seeds[c] >> np.uint64(32) == np.uint64(0):  # a one-word key: seeded alone
            _mt_seed(one, seeds[c])
            for i in range(_N):
                st[i, c] = one[i]


@_helper
def _genrand_col(st, pos, c):
    """:func:`_genrand` for generator ``c`` of a block (column ``c`` of ``st``,
    position ``pos[c]``)."""
    i = pos[c]
    if i >= _N:
        i = 0
    j = i + 1 if i + 1 < _N else 0
    m = i + 397 if i + 397 < _N else i + 397 - _N
    y = (np.int64(st[i, c]) & 0x80000000) | (np.int64(st[j, c]) & 0x7FFFFFFF)
    y = np.int64(st[m, c]) ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    st[i, c] = y
    pos[c] = i + 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y


@_helper
def _bit_length(n):
    k = 0
    while n:
        k += 1
        n >>= 1
    return k


_BITS = np.array([i.bit_length() for i in range(1024)], dtype=np.int64)
"""``n.bit_length()`` for the small ``n`` of draws (legal actions, a deck's places)."""


@_helper
def _randbelow_col(st, pos, c, n):
    """:func:`_randbelow` with generator ``c`` of a block."""
    k = _BITS[n] if n < 1024 else _bit_length(n)
    r = _genrand_col(st, pos, c) >> (32 - k)
    while r >= n:
        r = _genrand_col(st, pos, c) >> (32 - k)
    return r


@_helper
def _shuffle_col(st, pos, c, deck, length):
    for i in range(length - 1, 0, -1):
        j = _randbelow_col(st, pos, c, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


@_helper
def _genrand(mt):
    """The next 32-bit output. The state is regenerated one word at a time, just
    before that word is used: the words are made in the same order and from the same
    words as MT19937's whole-state twist, so the outputs are the same, and a
    generator that draws a few dozen numbers does not regenerate all 624."""
    i = mt[_N]
    if i >= _N:
        i = 0
    j = i + 1 if i + 1 < _N else 0
    m = i + 397 if i + 397 < _N else i + 397 - _N
    y = (mt[i] & 0x80000000) | (mt[j] & 0x7FFFFFFF)
    y = mt[m] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    mt[i] = y
    mt[_N] = i + 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y


@_helper
def _randbelow(mt, n):
    """``Random._randbelow(n)`` for ``1 <= n < 2**32``."""
    k = _BITS[n] if n < 1024 else _bit_length(n)
    r = _genrand(mt) >> (32 - k)
    while r >= n:
        r = _genrand(mt) >> (32 - k)
    return r


@_helper
def _shuffle(mt, deck, length):
    for i in range(length - 1, 0, -1):
        j = _randbelow(mt, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


# ----------------------------------------------------------------- actions

WINDOW, DONE, STORE, PASS, BUY, DECLINE, SELL = range(7)
FILL_P, STORE_P, PURCHASE_P, SELL_P, OVER_P = range(5)
S_FILL, S_STORE, S_PURCHASE, S_TAX, S_RESHUFFLE, S_REFILL = range(6)
RANDOM_BOT, GREEDY_BOT = range(2)

# ----------------------------------------------------------------- greedy heuristic


@_helper
def _rows_in(counts, start, stop, size):
    """Rows a safe's cards ``counts[start:stop]`` (one count a kind) make, a part-filled
    row counting as one. [SELL-3]"""
    total = 0
    for i in range(start, stop):
        total += (counts[i] + size - 1) // size
    return total


@njit(cache=True, error_model="numpy")
def _rows(safe, size):
    return _rows_in(safe, 0, safe.shape[0], size)


@njit(cache=True, error_model="numpy")
def _potential(safe, size, paytab):
    most = paytab.shape[1]
    rows = min(_rows(safe, size), most - 1)
    total = 0.0
    for kind in range(safe.shape[0]):
        part = safe[kind] % size
        if part:
            total += part / size * paytab[kind, rows]
    return 0.6 * total


@njit(cache=True, error_model="numpy")
def _has_full(safe, size):
    for c in safe:  # noqa: SIM110 - a loop compiles to the tightest code
        if c >= size:
            return True
    return False


@njit(cache=True, error_model="numpy")
def _settle(safe0, first, size, paytab, out):
    """Sell complete rows best first (``first`` forced): write the safe after into
    ``out`` and return the cash earned (Heuristic.settle).

    Heuristic.settle recurses over the orders of sale; this walks the same tree with
    an explicit stack (numba's cache does not keep recursive functions), trying kinds
    in the same order and keeping the first best, so the result is the same.
    """
    k = safe0.shape[0]
    if not _has_full(safe0, size):
        for i in range(k):
            out[i] = safe0[i]
        return 0
    total = 0
    for c in safe0:
        total += c
    depth = total // size + 2
    most = paytab.shape[1]
    stack = np.empty((depth, k), np.int64)  # the safe at each depth
    best_rest = np.empty((depth, k), np.int64)
    nxt = np.zeros(depth, np.int64)
    rows = np.zeros(depth, np.int64)
    pay = np.zeros(depth, np.int64)
    best_score = np.zeros(depth, np.float64)
    best_cash = np.zeros(depth, np.int64)
    found = np.zeros(depth, np.bool_)
    child = np.empty(k, np.int64)
    for i in range(k):
        stack[0, i] = safe0[i]
    rows[0] = min(_rows(safe0, size), most - 1)
    d = 0
    while True:
        kind = -1
        if d == 0 and first >= 0:
            if nxt[0] <= first:
                kind = first
        else:
            for i in range(nxt[d], k):
                if stack[d, i] >= size:
                    kind = i
                    break
        if kind >= 0:
            nxt[d] = kind + 1
            pay[d] = paytab[kind, rows[d]]
            for i in range(k):
                child[i] = stack[d, i]
            child[kind] -= size
            if _has_full(child, size):
                d += 1
                for i in range(k):
                    stack[d, i] = child[i]
                nxt[d] = 0
                found[d] = False
                rows[d] = min(_rows(child, size), most - 1)
                continue
            score = pay[d] + 0 + _potential(child, size, paytab)
            if not found[d] or score > best_score[d]:
                found[d] = True
                best_score[d] = score
                best_cash[d] = pay[d]
                for i in range(k):
                    best_rest[d, i] = child[i]
            continue
        if d == 0:
            for i in range(k):
                out[i] = best_rest[0, i]
            return best_cash[0]
        more = best_cash[d]
        d -= 1
        score = pay[d] + more + _potential(best_rest[d + 1], size, paytab)
        if not found[d] or score > best_score[d]:
            found[d] = True
            best_score[d] = score
            best_cash[d] = pay[d] + more
            for i in range(k):
                best_rest[d, i] = best_rest[d + 1, i]


@njit(cache=True, error_model="numpy")
def _gain(safe, cards, first, size, paytab, tmp, after):
    for i in range(safe.shape[0]):
        tmp[i] = safe[i] + cards[i]
    cash = _settle(tmp, first, size, paytab, after)
    return cash + _potential(after, size, paytab) - _potential(safe, size, paytab)


@njit(cache=True, error_model="numpy")
def _buy_gain(counts, totals, n, k, buyer, owner, price_rule, size, paytab, tmp, after):
    price = 0 if owner == buyer else min(price_rule, totals[3 * n + buyer])
    safe = counts[(3 * buyer + 2) * k : (3 * buyer + 3) * k]
    window = counts[(3 * owner + 1) * k : (3 * owner + 2) * k]
    value = _gain(safe, window, -1, size, paytab, tmp, after) - price
    if price and n > 1:
        value -= price / (n - 1)
    return value


@njit(cache=True, error_model="numpy")
def _greedy_score(
    action, counts, totals, held, n, k, me, price_rule, size, paytab, pow08, tmp, after, one
):
    verb = action >> 10
    arg = action & 1023
    if verb == BUY:
        return _buy_gain(counts, totals, n, k, me, arg, price_rule, size, paytab, tmp, after)
    if verb == DECLINE or verb == DONE:  # noqa: SIM109
        return 0.0
    safe = counts[(3 * me + 2) * k : (3 * me + 3) * k]
    if verb == SELL:
        cash = _settle(safe, arg, size, paytab, after)
        return cash + _potential(after, size, paytab)
    if verb == STORE:
        for i in range(k):
            one[i] = 0
        one[arg] = 1
        return _gain(safe, one, -1, size, paytab, tmp, after)
    if verb == PASS:
        best = 0.0
        first = True
        for w in range(n):
            if totals[3 * w + 1]:
                g = _buy_gain(counts, totals, n, k, me, w, price_rule, size, paytab, tmp, after)
                if first or g > best:
                    best = g
                    first = False
        taken = 0
        for s in range(n):
            if held[s]:
                taken += 1
        m = 0.0 if best < 0.0 else best  # max(best, 0.0)
        return 0.5 * m * pow08[taken]
    # window
    if totals[3 * me + 1]:
        return -100.0
    for i in range(k):
        one[i] = 0
    one[arg] = 1
    to_others = 0.0
    first = True
    for o in range(n):
        if o != me:
            g = _gain(counts[(3 * o + 2) * k : (3 * o + 3) * k], one, -1, size, paytab, tmp, after)
            if first or g > to_others:
                to_others = g
                first = False
    g = _gain(safe, one, -1, size, paytab, tmp, after)
    to_me = g if g > 0.0 else 0.0
    return -(to_others + to_me)


# ----------------------------------------------------------------- the game


@_helper
def _move(counts, totals, k, kind, src, dst, count):
    counts[src * k + kind] -= count
    counts[dst * k + kind] += count
    totals[src] -= count
    totals[dst] += count


@_helper
def _deal(counts, totals, deck, dlen, k, n, zone, count):
    for _ in range(count):
        dlen -= 1
        kind = deck[dlen]
        counts[zone * k + kind] += 1
    totals[4 * n] -= count
    totals[zone] += count
    return dlen


@_helper
def _pay_cards(counts, totals, deck, dlen, k, src, dst, count, chance, gt, gl, gbuf, work, to_deck):
    """Move ``count`` cash cards drawn blind from bank ``src`` to ``dst`` (Game._pay):
    draw ``i`` takes index ``derive_seed(seed, "pay", chance, i) % size`` among the
    bank's cards by kind (the game's seed is the text ``gt[:gl]``). With ``to_deck``
    they then go on the deck in the order paid.
    Returns the deck's new length."""
    for idx in range(count):
        pos = _seed_head(gbuf, gt, gl)
        pos = _put(gbuf, pos, _L_PAY)
        pos = _put_int(gbuf, pos, chance)
        pos = _put_int(gbuf, pos, idx)
        j = np.int64(_finish(gbuf, pos, work) % np.uint64(totals[src]))
        kind = 0
        while j >= counts[src * k + kind]:
            j -= counts[src * k + kind]
            kind += 1
        _move(counts, totals, k, kind, src, dst, 1)
        if to_deck:
            deck[dlen] = kind
            dlen += 1
    if to_deck:
        n_deck = totals.shape[0] - 2
        for i in range(dlen - count, dlen):
            _move(counts, totals, k, deck[i], dst, n_deck, 1)
    return dlen


@_helper
def _pay_for(kind, rows, payout, override):
    """Cash for a row of ``kind`` sold with ``rows`` rows in the safe. [SELL-3/5]"""
    fixed = override[kind]
    if fixed >= 0:
        return fixed
    if rows <= payout.shape[0]:
        return payout[rows - 1] if rows >= 1 else payout[payout.shape[0] - 1]
    return payout[payout.shape[0] - 1]


@_helper
def _sell_row(counts, totals, deck, dlen, k, n, seat, kind, size, payout, override, to_deck):
    """Sell one complete row of ``kind`` from ``seat``'s safe. [SELL-3..5]"""
    safe = 3 * seat + 2
    rows = _rows_in(counts, safe * k, safe * k + k, size)
    pay = _pay_for(kind, rows, payout, override)
    _move(counts, totals, k, kind, safe, 3 * n + seat, pay)
    gone = size - pay
    if to_deck:
        _move(counts, totals, k, kind, safe, 4 * n, gone)
        for _ in range(gone):
            deck[dlen] = kind
            dlen += 1
    else:
        _move(counts, totals, k, kind, safe, 4 * n + 1, gone)
    return dlen


@_helper
def _sell_completed(counts, totals, deck, dlen, k, n, seat, phase, size, payout, override, to_deck):
    """Sell complete rows while there is no choice (Game._sell_completed): returns
    (phase, deck length, whether no complete row is left)."""
    base = (3 * seat + 2) * k
    while True:
        full = 0
        only = -1
        for i in range(k):
            if counts[base + i] >= size:
                full += 1
                only = i
        if full == 0:
            if phase == SELL_P:
                phase = PURCHASE_P
            return phase, dlen, True
        if full > 1:
            return SELL_P, dlen, False
        dlen = _sell_row(counts, totals, deck, dlen, k, n, seat, only, size, payout, override,
                         to_deck)  # fmt: skip


@_helper
def _next_storer(held, n, turn):
    for i in range(1, n + 1):
        seat = (turn + i) % n
        if not held[seat]:
            return seat
    return turn


@_helper
def _next_buyer(held, n, buying):
    """The next purchase card and its holder; (0, -1) when the phase is over. [BUY-1]"""
    card_no = buying + 1
    if card_no > n:
        return 0, -1
    for s in range(n):
        if held[s] == card_no:
            return card_no, s
    return 0, -1


@njit(cache=True, error_model="numpy", nogil=True)
def play(
    # compiled rules (kernel.compile_rules)
    k,
    kind_count,
    alpha,
    hand_size,
    cash,
    steps,
    set_size,
    payout,
    override,
    unpaid_to_deck,
    price,
    broke_may_buy,
    decline_ends_phase,
    tax_due,
    tax_to_deck,
    tiebreak,
    round_cap,
    match_games,
    paytab,
    pow08,
    # the run
    n,
    seed_text,
    first_game,
    count,
    seat_bots,
    rotate,
    record,
    hist,
    # outputs
    out,
    seeds_out,
    hist_len,
):
    """Play games ``first_game .. first_game+count-1`` of a simulation with master seed
    ``seed_text`` (the bytes of ``repr(seed)``).

    ``seat_bots[s]`` is the bot of seat ``s`` before rotation (0 random, 1 greedy).
    ``out[g]`` receives first player, rounds, decisions, termination, then the scores
    and the ranks of the seats. With ``record``, the actions of all games are written
    one after the other into ``hist`` and ``hist_len[g]`` is each game's count; the
    return value is -1 if ``hist`` was too small, else the total decisions played.
    """
    n_cards = 0
    for i in range(k):
        n_cards += kind_count[i]
    zones = 4 * n + 2
    counts = np.zeros(zones * k, np.int64)
    totals = np.zeros(zones, np.int64)
    deck = np.zeros(n_cards + 1, np.int64)
    held = np.zeros(n, np.int64)
    n_sub = match_games if match_games > 0 else 1
    per_game = n + (match_games if match_games > 0 else 2)  # generators seeded at the start
    block = max(1, _CHAINS // per_game)  # games whose generators are seeded together
    st = np.zeros((_N, block * per_game), np.uint32)
    mpos = np.zeros(block * per_game, np.int64)
    cseeds = np.zeros(block * per_game, np.uint64)
    lo = np.zeros(block * per_game, np.uint32)
    hi1 = np.zeros(block * per_game, np.uint32)
    sub_seeds = np.zeros((block, n_sub), np.uint64)
    chance_mt = np.zeros(_N + 1, np.int64)
    buf = np.zeros(seed_text.shape[0] + 128, np.uint8)
    gbuf = np.zeros(64, np.uint8)
    gtext = np.zeros(24, np.uint8)
    stext = np.zeros(24, np.uint8)
    m_totals = np.zeros(n, np.int64)
    work = np.zeros(40, np.uint64)
    legal = np.zeros(k + n + 2, np.int64)
    scores = np.zeros(k + n + 2, np.float64)
    tmp = np.zeros(k, np.int64)
    after = np.zeros(k, np.int64)
    one = np.zeros(k, np.int64)
    bots = np.zeros(n, np.int64)
    key = np.zeros(n * (1 + tiebreak.shape[0]), np.int64)
    n_steps = steps.shape[0]
    bank0 = 3 * n
    deck_zone = 4 * n
    discard = 4 * n + 1
    hpos = 0
    total_decisions = 0
    overflow = False

    for g in range(count):
        b = g % block
        if b == 0:
            # ---- seeds of the next block of games: each game's seed, then the
            # generators known at its start (the bots', the first player's and the
            # deal's; a match's deals), all seeded in one interleaved pass
            nb = min(block, count - g)
            for bb in range(nb):
                game = first_game + g + bb
                pos = _seed_head(buf, seed_text, seed_text.shape[0])
                pos = _put(buf, pos, _L_GAME)
                pos = _put_int(buf, pos, game)
                gseed = _finish(buf, pos, work)
                seeds_out[g + bb] = gseed
                chain = bb * per_game
                for s in range(n):
                    pos = _seed_head(buf, seed_text, seed_text.shape[0])
                    pos = _put(buf, pos, _L_BOT)
                    pos = _put_int(buf, pos, game)
                    pos = _put_int(buf, pos, s)
                    cseeds[chain + s] = _finish(buf, pos, work)
                glen = _put_uint(gtext, 0, gseed)
                if match_games > 0:  # game ``sub`` of a match: its own seed and deal
                    for sub in range(n_sub):
                        pos = _seed_head(gbuf, gtext, glen)
                        pos = _put(gbuf, pos, _L_GAME)
                        pos = _put_int(gbuf, pos, sub)
                        sseed = _finish(gbuf, pos, work)
                        sub_seeds[bb, sub] = sseed
                        slen = _put_uint(stext, 0, sseed)
                        pos = _seed_head(gbuf, stext, slen)
                        pos = _put(gbuf, pos, _L_DEAL)
                        cseeds[chain + n + sub] = _finish(gbuf, pos, work)
                else:
                    pos = _seed_head(gbuf, gtext, glen)
                    pos = _put(gbuf, pos, _L_FIRST)
                    cseeds[chain + n] = _finish(gbuf, pos, work)
                    pos = _seed_head(gbuf, gtext, glen)
                    pos = _put(gbuf, pos, _L_DEAL)
                    cseeds[chain + n + 1] = _finish(gbuf, pos, work)
            _seed_chains(st, mpos, cseeds, lo, hi1, nb * per_game, chance_mt)
        game = first_game + g
        gl = _put_uint(gtext, 0, seeds_out[g])
        gt = gtext  # the seed's text of the game being played: gt[:gl]
        mbase = b * per_game  # this game's generators: bots, then chance
        shift = game % n if rotate else 0
        for s in range(n):
            bots[s] = seat_bots[(s - shift) % n]
        game_start = hpos
        m_rounds = 0
        decisions = 0
        capped = False
        for s in range(n):
            m_totals[s] = 0
        first_player = 0  # a match's first game starts with seat 0
        for sub in range(n_sub):
            # ---- setup (SETUP-1..4)
            if match_games > 0:  # game ``sub`` of a match: its own seed, seat sub starts
                gl = _put_uint(stext, 0, sub_seeds[b, sub])
                gt = stext
                start = sub % n
                deal_chain = mbase + n + sub
            else:
                first_player = _randbelow_col(st, mpos, mbase + n, n)
                start = first_player
                deal_chain = mbase + n + 1
            dlen = 0
            for kind in range(k):
                for _ in range(kind_count[kind]):
                    deck[dlen] = kind
                    dlen += 1
            _shuffle_col(st, mpos, deal_chain, deck, dlen)
            for i in range(zones * k):
                counts[i] = 0
            for i in range(zones):
                totals[i] = 0
            totals[deck_zone] = dlen
            for i in range(n):
                s = (start + i) % n
                if cash:
                    dlen = _deal(counts, totals, deck, dlen, k, n, bank0 + s, cash)
            for i in range(n):
                s = (start + i) % n
                dlen = _deal(counts, totals, deck, dlen, k, n, 3 * s, hand_size)
            for s in range(n):
                held[s] = 0
            chance = 0
            next_card = 1
            buying = 0
            decliner = -1
            acted = 0
            termination = 0
            phase = FILL_P
            turn = -1
            rnd = 1
            step = 0
            auto = True  # run the automatic steps before the next decision

            while True:
                # ------------------------------------------------ automatic steps (ROUND-1)
                while auto:
                    if step == n_steps:
                        if rnd >= round_cap:  # TERM-1
                            termination = 2
                            phase = OVER_P
                            turn = -1
                            auto = False
                            break
                        rnd += 1
                        step = 0
                    code = steps[step]
                    if code == S_FILL:
                        phase = FILL_P
                        acted = 0
                        turn = start
                        auto = False
                        break
                    if code == S_STORE:
                        phase = STORE_P
                        next_card = 1
                        turn = start
                        auto = False
                        break
                    if code == S_PURCHASE:
                        phase = PURCHASE_P
                        buying = 1
                        for s in range(n):
                            if held[s] == 1:
                                turn = s
                                break
                        auto = False
                        break
                    if code == S_TAX:  # END-2
                        if tax_due:
                            for i in range(n):
                                s = (start + i) % n
                                bank = bank0 + s
                                owed = min(tax_due, totals[bank])
                                if owed:
                                    chance += 1
                                    dlen = _pay_cards(
                                        counts, totals, deck, dlen, k, bank, discard, owed,
                                        chance, gt, gl, gbuf, work, tax_to_deck,
                                    )  # fmt: skip
                    elif code == S_RESHUFFLE:  # END-3
                        for kind in range(k):
                            c = counts[discard * k + kind]
                            for _ in range(c):
                                deck[dlen] = kind
                                dlen += 1
                            _move(counts, totals, k, kind, discard, deck_zone, c)
                        chance += 1
                        pos = _seed_head(gbuf, gt, gl)
                        pos = _put(gbuf, pos, _L_RESHUFFLE)
                        pos = _put_int(gbuf, pos, chance)
                        _mt_seed(chance_mt, _finish(gbuf, pos, work))
                        _shuffle(chance_mt, deck, dlen)
                    elif code == S_REFILL:  # END-4, END-5
                        need = 0
                        for s in range(n):
                            miss = hand_size - totals[3 * s]
                            if miss > 0:
                                need += miss
                        if need > dlen:
                            termination = 1
                            phase = OVER_P
                            turn = -1
                            auto = False
                            break
                        for i in range(n):
                            s = (start + i) % n
                            miss = hand_size - totals[3 * s]
                            if miss > 0:
                                dlen = _deal(counts, totals, deck, dlen, k, n, 3 * s, miss)
                    step += 1
                if phase == OVER_P:
                    break

                # ------------------------------------------------ legal actions, sorted
                nl = 0
                if phase == FILL_P:
                    if totals[3 * turn + 1] or not totals[3 * turn]:  # FILL-2
                        legal[0] = DONE << 10
                        nl = 1
                    base = 3 * turn * k
                    for ai in range(alpha.shape[0]):
                        a = alpha[ai]
                        if counts[base + a]:
                            legal[nl] = (WINDOW << 10) | a
                            nl += 1
                elif phase == STORE_P:
                    legal[0] = PASS << 10
                    nl = 1
                    base = 3 * turn * k
                    for ai in range(alpha.shape[0]):
                        a = alpha[ai]
                        if counts[base + a]:
                            legal[nl] = (STORE << 10) | a
                            nl += 1
                elif phase == PURCHASE_P:
                    can_pay = broke_may_buy or totals[bank0 + turn] >= price  # BUY-6
                    for w in range(n):
                        if totals[3 * w + 1] and (w == turn or can_pay):
                            legal[nl] = (BUY << 10) | w
                            nl += 1
                    if not totals[3 * turn + 1]:  # BUY-4/5
                        legal[nl] = DECLINE << 10
                        nl += 1
                else:
                    base = (3 * turn + 2) * k
                    for ai in range(alpha.shape[0]):
                        a = alpha[ai]
                        if counts[base + a] >= set_size:
                            legal[nl] = (SELL << 10) | a
                            nl += 1

                # ------------------------------------------------ the bot's choice
                if bots[turn] == RANDOM_BOT:
                    action = legal[_randbelow_col(st, mpos, mbase + turn, nl)]
                elif nl == 1:
                    action = legal[0]
                else:
                    best = 0.0
                    for i in range(nl):
                        sc = _greedy_score(
                            legal[i], counts, totals, held, n, k, turn, price, set_size,
                            paytab, pow08, tmp, after, one,
                        )  # fmt: skip
                        scores[i] = sc
                        if i == 0 or sc > best:
                            best = sc
                    top = 0
                    for i in range(nl):
                        if scores[i] >= best - 1e-9:
                            legal[top] = legal[i]
                            top += 1
                    action = (
                        legal[0] if top == 1 else legal[_randbelow_col(st, mpos, mbase + turn, top)]
                    )
                decisions += 1
                if record:
                    if hpos < hist.shape[0]:
                        hist[hpos] = action
                        hpos += 1
                    else:
                        overflow = True

                # ------------------------------------------------ apply
                verb = action >> 10
                arg = action & 1023
                next_buyer = False
                end_purchase = False
                if verb == WINDOW:  # FILL-1
                    _move(counts, totals, k, arg, 3 * turn, 3 * turn + 1, 1)
                elif verb == DONE:
                    acted += 1
                    if acted == n:
                        step += 1
                        auto = True
                    else:
                        turn = (start + acted) % n
                elif verb == STORE:  # STORE-1
                    _move(counts, totals, k, arg, 3 * turn, 3 * turn + 2, 1)
                    if counts[(3 * turn + 2) * k + arg] >= set_size:
                        phase, dlen, _ = _sell_completed(
                            counts, totals, deck, dlen, k, n, turn, phase, set_size, payout,
                            override, unpaid_to_deck,
                        )  # fmt: skip
                    turn = _next_storer(held, n, turn)
                elif verb == PASS:  # STORE-2
                    card_no = next_card
                    held[turn] = card_no
                    next_card = card_no + 1
                    if card_no == n:  # STORE-4
                        step += 1
                        auto = True
                    else:
                        turn = _next_storer(held, n, turn)
                elif verb == BUY:  # BUY-2, BUY-3
                    owner = arg
                    wz = 3 * owner + 1
                    sz = 3 * turn + 2
                    for kind in range(k):
                        c = counts[wz * k + kind]
                        if c:
                            _move(counts, totals, k, kind, wz, sz, c)
                    if owner != turn:
                        p = min(price, totals[bank0 + turn])
                        if p:
                            chance += 1
                            dlen = _pay_cards(
                                counts, totals, deck, dlen, k, bank0 + turn, bank0 + owner, p,
                                chance, gt, gl, gbuf, work, False,
                            )  # fmt: skip
                    phase, dlen, next_buyer = _sell_completed(
                        counts, totals, deck, dlen, k, n, turn, phase, set_size, payout,
                        override, unpaid_to_deck,
                    )  # fmt: skip
                elif verb == DECLINE:  # BUY-5
                    if decliner < 0:
                        decliner = turn
                    if decline_ends_phase:
                        end_purchase = True
                    else:
                        next_buyer = True
                else:  # SELL-6
                    dlen = _sell_row(
                        counts, totals, deck, dlen, k, n, turn, arg, set_size, payout, override,
                        unpaid_to_deck,
                    )  # fmt: skip
                    phase, dlen, next_buyer = _sell_completed(
                        counts, totals, deck, dlen, k, n, turn, phase, set_size, payout,
                        override, unpaid_to_deck,
                    )  # fmt: skip
                if next_buyer:
                    card_no, seat = _next_buyer(held, n, buying)
                    if card_no == 0:
                        end_purchase = True
                    else:
                        buying = card_no
                        turn = seat
                        phase = PURCHASE_P
                if end_purchase:  # END-1: purchase cards go back; a decliner starts
                    for s in range(n):
                        held[s] = 0
                    next_card = 1
                    buying = 0
                    if decliner >= 0:
                        start = decliner
                        decliner = -1
                    step += 1
                    auto = True

            m_rounds += rnd
            if termination == 2:
                capped = True
            for s in range(n):
                m_totals[s] += totals[bank0 + s]

        # ------------------------------------------------ result (SCORE-1, SCORE-2)
        total_decisions += decisions
        out[g, 0] = first_player
        out[g, 1] = m_rounds
        out[g, 2] = decisions
        out[g, 3] = 2 if capped else 1
        nt = tiebreak.shape[0] if match_games == 0 else 0  # a match ranks by sums only
        w = 1 + nt
        for s in range(n):
            key[s * w] = -m_totals[s]
            for t in range(nt):
                rule = tiebreak[t]
                if rule == 0:
                    key[s * w + 1 + t] = totals[3 * s + 1] + totals[3 * s + 2]
                elif rule == 1:
                    key[s * w + 1 + t] = totals[3 * s + 2]
                else:
                    key[s * w + 1 + t] = totals[3 * s + 1]
        for s in range(n):
            out[g, 4 + s] = m_totals[s]
            better = 0
            for o in range(n):
                # is key[o] < key[s] (lexicographic)?
                for t in range(w):
                    a = key[o * w + t]
                    b = key[s * w + t]
                    if a != b:
                        if a < b:
                            better += 1
                        break
            out[g, 4 + n + s] = 1 + better
        if record:
            hist_len[g] = hpos - game_start
    if overflow:
        return -1
    return total_decisions
