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
"""

from __future__ import annotations

import numpy as np
from numba import njit

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
_SIGMA = np.array(
    [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
        [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
        [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
        [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
        [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
        [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
        [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
        [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
        [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    ],
    dtype=np.int64,
)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, inline="always")
def _rotr(x, n):
    return (x >> np.uint64(n)) | (x << np.uint64(64 - n))


@njit(cache=True, inline="always")
def _g(v, a, b, c, d, x, y):
    v[a] = v[a] + v[b] + x
    v[d] = _rotr(v[d] ^ v[a], 32)
    v[c] = v[c] + v[d]
    v[b] = _rotr(v[b] ^ v[c], 24)
    v[a] = v[a] + v[b] + y
    v[d] = _rotr(v[d] ^ v[a], 16)
    v[c] = v[c] + v[d]
    v[b] = _rotr(v[b] ^ v[c], 63)


@njit(cache=True)
def _compress(h, m, v, t, last):
    for i in range(8):
        v[i] = h[i]
        v[i + 8] = _IV[i]
    v[12] = v[12] ^ np.uint64(t)
    if last:
        v[14] = v[14] ^ _ALL
    for r in range(12):
        s = _SIGMA[r]
        _g(v, 0, 4, 8, 12, m[s[0]], m[s[1]])
        _g(v, 1, 5, 9, 13, m[s[2]], m[s[3]])
        _g(v, 2, 6, 10, 14, m[s[4]], m[s[5]])
        _g(v, 3, 7, 11, 15, m[s[6]], m[s[7]])
        _g(v, 0, 5, 10, 15, m[s[8]], m[s[9]])
        _g(v, 1, 6, 11, 12, m[s[10]], m[s[11]])
        _g(v, 2, 7, 8, 13, m[s[12]], m[s[13]])
        _g(v, 3, 4, 9, 14, m[s[14]], m[s[15]])
    for i in range(8):
        h[i] = h[i] ^ v[i] ^ v[i + 8]


@njit(cache=True)
def _blake64(msg, length, work):
    """``int.from_bytes(blake2b(msg[:length], digest_size=8).digest(), "big")``.

    ``work`` is a uint64 scratch array of at least 40 entries.
    """
    h = work[0:8]
    m = work[8:24]
    v = work[24:40]
    for i in range(8):
        h[i] = _IV[i]
    h[0] = h[0] ^ np.uint64(0x01010008)
    blocks = max(1, (length + 127) // 128)
    for b in range(blocks):
        for i in range(16):
            m[i] = np.uint64(0)
        for i in range(128):
            idx = b * 128 + i
            if idx < length:
                m[i // 8] = m[i // 8] | (np.uint64(msg[idx]) << np.uint64(8 * (i % 8)))
        last = b == blocks - 1
        t = length if last else (b + 1) * 128
        _compress(h, m, v, t, last)
    x = h[0]
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


@njit(cache=True)
def _put(buf, pos, src):
    for i in range(src.shape[0]):
        buf[pos + i] = src[i]
    return pos + src.shape[0]


@njit(cache=True)
def _put_int(buf, pos, value):
    """Write ``", <value>"`` (a non-negative int) and return the new position."""
    buf[pos] = 44  # ,
    buf[pos + 1] = 32
    pos += 2
    return _put_uint(buf, pos, np.uint64(value))


@njit(cache=True)
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


@njit(cache=True)
def _seed_head(buf, seed_text):
    """Write ``"(" + repr(seed)`` and return the position after it."""
    buf[0] = 40  # (
    return _put(buf, 1, seed_text)


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _randbelow(mt, n):
    """``Random._randbelow(n)`` for ``1 <= n < 2**32``."""
    k = 0
    x = n
    while x:
        k += 1
        x >>= 1
    r = _genrand(mt) >> (32 - k)
    while r >= n:
        r = _genrand(mt) >> (32 - k)
    return r


@njit(cache=True)
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


@njit(cache=True)
def _rows(safe, size):
    total = 0
    for c in safe:
        total += (c + size - 1) // size
    return total


@njit(cache=True)
def _potential(safe, size, paytab):
    most = paytab.shape[1]
    rows = min(_rows(safe, size), most - 1)
    total = 0.0
    for kind in range(safe.shape[0]):
        part = safe[kind] % size
        if part:
            total += part / size * paytab[kind, rows]
    return 0.6 * total


@njit(cache=True)
def _has_full(safe, size):
    for c in safe:  # noqa: SIM110 - a loop compiles to the tightest code
        if c >= size:
            return True
    return False


@njit(cache=True)
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


@njit(cache=True)
def _gain(safe, cards, first, size, paytab, tmp, after):
    for i in range(safe.shape[0]):
        tmp[i] = safe[i] + cards[i]
    cash = _settle(tmp, first, size, paytab, after)
    return cash + _potential(after, size, paytab) - _potential(safe, size, paytab)


@njit(cache=True)
def _buy_gain(counts, totals, n, k, buyer, owner, price_rule, size, paytab, tmp, after):
    price = 0 if owner == buyer else min(price_rule, totals[3 * n + buyer])
    safe = counts[(3 * buyer + 2) * k : (3 * buyer + 3) * k]
    window = counts[(3 * owner + 1) * k : (3 * owner + 2) * k]
    value = _gain(safe, window, -1, size, paytab, tmp, after) - price
    if price and n > 1:
        value -= price / (n - 1)
    return value


@njit(cache=True)
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


@njit(cache=True)
def _move(counts, totals, k, kind, src, dst, count):
    counts[src * k + kind] -= count
    counts[dst * k + kind] += count
    totals[src] -= count
    totals[dst] += count


@njit(cache=True)
def _deal(counts, totals, deck, dlen, k, n, zone, count):
    for _ in range(count):
        dlen -= 1
        kind = deck[dlen]
        counts[zone * k + kind] += 1
    totals[4 * n] -= count
    totals[zone] += count
    return dlen


@njit(cache=True)
def _pay_cards(counts, totals, deck, dlen, k, src, dst, count, chance, gt, gbuf, work, to_deck):
    """Move ``count`` cash cards drawn blind from bank ``src`` to ``dst`` (Game._pay):
    draw ``i`` takes index ``derive_seed(seed, "pay", chance, i) % size`` among the
    bank's cards by kind. With ``to_deck`` they then go on the deck in the order paid.
    Returns the deck's new length."""
    for idx in range(count):
        pos = _seed_head(gbuf, gt)
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


@njit(cache=True)
def _pay_for(kind, rows, payout, override):
    """Cash for a row of ``kind`` sold with ``rows`` rows in the safe. [SELL-3/5]"""
    fixed = override[kind]
    if fixed >= 0:
        return fixed
    if rows <= payout.shape[0]:
        return payout[rows - 1] if rows >= 1 else payout[payout.shape[0] - 1]
    return payout[payout.shape[0] - 1]


@njit(cache=True)
def _sell_row(counts, totals, deck, dlen, k, n, seat, kind, size, payout, override, to_deck):
    """Sell one complete row of ``kind`` from ``seat``'s safe. [SELL-3..5]"""
    safe = 3 * seat + 2
    rows = _rows(counts[safe * k : safe * k + k], size)
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


@njit(cache=True)
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


@njit(cache=True)
def _next_storer(held, n, turn):
    for i in range(1, n + 1):
        seat = (turn + i) % n
        if not held[seat]:
            return seat
    return turn


@njit(cache=True)
def _next_buyer(held, n, buying):
    """The next purchase card and its holder; (0, -1) when the phase is over. [BUY-1]"""
    card_no = buying + 1
    if card_no > n:
        return 0, -1
    for s in range(n):
        if held[s] == card_no:
            return card_no, s
    return 0, -1


@njit(cache=True)
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
    mts = np.zeros((n, _N + 1), np.int64)
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
        game = first_game + g
        # ---- seeds: game seed, and the bots' generators
        pos = _seed_head(buf, seed_text)
        pos = _put(buf, pos, _L_GAME)
        pos = _put_int(buf, pos, game)
        gseed = _finish(buf, pos, work)
        seeds_out[g] = gseed
        glen = _put_uint(gtext, 0, gseed)
        gt = gtext[:glen]
        shift = game % n if rotate else 0
        for s in range(n):
            bots[s] = seat_bots[(s - shift) % n]
            pos = _seed_head(buf, seed_text)
            pos = _put(buf, pos, _L_BOT)
            pos = _put_int(buf, pos, game)
            pos = _put_int(buf, pos, s)
            _mt_seed(mts[s], _finish(buf, pos, work))
        game_start = hpos
        n_sub = match_games if match_games > 0 else 1
        m_rounds = 0
        decisions = 0
        capped = False
        m_totals[:] = 0
        first_player = 0  # a match's first game starts with seat 0
        for sub in range(n_sub):
            # ---- setup (SETUP-1..4)
            if match_games > 0:  # game ``sub`` of a match: its own seed, seat sub starts
                pos = _seed_head(gbuf, gtext[:glen])
                pos = _put(gbuf, pos, _L_GAME)
                pos = _put_int(gbuf, pos, sub)
                slen = _put_uint(stext, 0, _finish(gbuf, pos, work))
                gt = stext[:slen]
                start = sub % n
            else:
                pos = _seed_head(gbuf, gt)
                pos = _put(gbuf, pos, _L_FIRST)
                _mt_seed(chance_mt, _finish(gbuf, pos, work))
                first_player = _randbelow(chance_mt, n)
                start = first_player
            dlen = 0
            for kind in range(k):
                for _ in range(kind_count[kind]):
                    deck[dlen] = kind
                    dlen += 1
            pos = _seed_head(gbuf, gt)
            pos = _put(gbuf, pos, _L_DEAL)
            _mt_seed(chance_mt, _finish(gbuf, pos, work))
            _shuffle(chance_mt, deck, dlen)
            counts[:] = 0
            totals[:] = 0
            totals[deck_zone] = dlen
            for i in range(n):
                s = (start + i) % n
                if cash:
                    dlen = _deal(counts, totals, deck, dlen, k, n, bank0 + s, cash)
            for i in range(n):
                s = (start + i) % n
                dlen = _deal(counts, totals, deck, dlen, k, n, 3 * s, hand_size)
            held[:] = 0
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
                                        chance, gt, gbuf, work, tax_to_deck,
                                    )  # fmt: skip
                    elif code == S_RESHUFFLE:  # END-3
                        for kind in range(k):
                            c = counts[discard * k + kind]
                            for _ in range(c):
                                deck[dlen] = kind
                                dlen += 1
                            _move(counts, totals, k, kind, discard, deck_zone, c)
                        chance += 1
                        pos = _seed_head(gbuf, gt)
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
                    for a in alpha:
                        if counts[base + a]:
                            legal[nl] = (WINDOW << 10) | a
                            nl += 1
                elif phase == STORE_P:
                    legal[0] = PASS << 10
                    nl = 1
                    base = 3 * turn * k
                    for a in alpha:
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
                    for a in alpha:
                        if counts[base + a] >= set_size:
                            legal[nl] = (SELL << 10) | a
                            nl += 1

                # ------------------------------------------------ the bot's choice
                mt = mts[turn]
                if bots[turn] == RANDOM_BOT:
                    action = legal[_randbelow(mt, nl)]
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
                    action = legal[0] if top == 1 else legal[_randbelow(mt, top)]
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
                                chance, gt, gbuf, work, False,
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
                    held[:] = 0
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
        row = out[g]
        row[0] = first_player
        row[1] = m_rounds
        row[2] = decisions
        row[3] = 2 if capped else 1
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
            row[4 + s] = m_totals[s]
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
            row[4 + n + s] = 1 + better
        if record:
            hist_len[g] = hpos - game_start
    if overflow:
        return -1
    return total_decisions
