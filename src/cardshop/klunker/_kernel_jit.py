# mypy: ignore-errors
"""The numba-compiled part of the Klunker batch kernel (see :mod:`cardshop.klunker.kernel`).

This module imports numba and is imported only by the kernel, never by ``import
cardshop``. mypy does not check it: numba's types (uint64 arithmetic, arrays) are
not expressible in mypy's, and every function here is checked instead, game by game,
against the reference engine (tests/test_kernel.py).

It plays whole games with plain integer arrays and reproduces the reference engine's
chance exactly, with the compiled seeded chance the kernels share
(:mod:`cardshop.kernels.chance`).

Cards are tracked by kind only: the engine's card ids decide nothing a kind does not
(payments pick a kind by the bank's counts; discards go back to the deck grouped by
kind, as they are listed by id and ids are contiguous per kind).

Every function compiles with numba's ``numpy`` error model, which leaves out the
checks for division by zero: no divisor here can be zero (player counts, row sizes
and decks are at least 1 by the variant's schema, and a bank is drawn from only while
it holds cards).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardshop.kernels.chance import (
    CHAINS,
    L_BOT,
    L_GAME,
    N,
    blake64_lanes,
    finish,
    helper,
    label,
    put,
    put_int,
    put_uint,
    randbelow_col,
    seed_chains,
    seed_event,
    seed_head,
    shuffle,
    shuffle_col,
    stream_below,
    stream_event,
    stream_shuffle,
)

_L_FIRST = label("first-player")
_L_DEAL = label("deal")
_L_RESHUFFLE = label("reshuffle")
_L_PAY = label("pay")


# ----------------------------------------------------------------- actions

WINDOW, DONE, STORE, PASS, BUY, DECLINE, SELL = range(7)
FILL_P, STORE_P, PURCHASE_P, SELL_P, OVER_P = range(5)
S_FILL, S_STORE, S_PURCHASE, S_TAX, S_RESHUFFLE, S_REFILL = range(6)
RANDOM_BOT, GREEDY_BOT = range(2)

# ----------------------------------------------------------------- greedy heuristic


@helper
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
    value = _gain(safe, window, np.int64(-1), size, paytab, tmp, after) - price
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
        return _gain(safe, one, np.int64(-1), size, paytab, tmp, after)
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
            theirs = counts[(3 * o + 2) * k : (3 * o + 3) * k]
            g = _gain(theirs, one, np.int64(-1), size, paytab, tmp, after)
            if first or g > to_others:
                to_others = g
                first = False
    g = _gain(safe, one, np.int64(-1), size, paytab, tmp, after)
    to_me = g if g > 0.0 else 0.0
    return -(to_others + to_me)


# ----------------------------------------------------------------- the game


@helper
def _move(counts, totals, k, kind, src, dst, count):
    counts[src * k + kind] -= count
    counts[dst * k + kind] += count
    totals[src] -= count
    totals[dst] += count


@helper
def _deal(counts, totals, deck, dlen, k, n, zone, count):
    for _ in range(count):
        dlen -= 1
        kind = deck[dlen]
        counts[zone * k + kind] += 1
    totals[4 * n] -= count
    totals[zone] += count
    return dlen


@helper
def _pay_cards(
    counts, totals, deck, dlen, k, src, dst, count, chance, gt, gl, msgs, lengths, hashed, m,
    to_deck,
):  # fmt: skip
    """Move ``count`` cash cards drawn blind from bank ``src`` to ``dst`` (Game._pay):
    draw ``i`` takes index ``derive_seed(seed, "pay", chance, i) % size`` among the
    bank's cards by kind (the game's seed is the text ``gt[:gl]``). With ``to_deck``
    they then go on the deck in the order paid. The draws' hashes depend on nothing
    drawn, so they are computed side by side first (:func:`blake64_lanes`, as many at
    a time as ``msgs`` has rows).
    Returns the deck's new length."""
    done = 0
    while done < count:
        batch = min(msgs.shape[0], count - done)
        for i in range(batch):
            row = msgs[i]
            pos = seed_head(row, gt, gl)
            pos = put(row, pos, _L_PAY)
            pos = put_int(row, pos, chance)
            _end(row, put_int(row, pos, done + i), lengths, i)
        blake64_lanes(msgs, lengths, batch, hashed, m)
        for i in range(batch):
            j = np.int64(hashed[i] % np.uint64(totals[src]))
            kind = 0
            while j >= counts[src * k + kind]:
                j -= counts[src * k + kind]
                kind += 1
            _move(counts, totals, k, kind, src, dst, 1)
            if to_deck:
                deck[dlen] = kind
                dlen += 1
        done += batch
    if to_deck:
        n_deck = totals.shape[0] - 2
        for i in range(dlen - count, dlen):
            _move(counts, totals, k, deck[i], dst, n_deck, 1)
    return dlen


@helper
def _pay_for(kind, rows, payout, override):
    """Cash for a row of ``kind`` sold with ``rows`` rows in the safe. [SELL-3/5]"""
    fixed = override[kind]
    if fixed >= 0:
        return fixed
    if rows <= payout.shape[0]:
        return payout[rows - 1] if rows >= 1 else payout[payout.shape[0] - 1]
    return payout[payout.shape[0] - 1]


@helper
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


@helper
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


@helper
def _next_storer(held, n, turn):
    for i in range(1, n + 1):
        seat = (turn + i) % n
        if not held[seat]:
            return seat
    return turn


@helper
def _next_buyer(held, n, buying):
    """The next purchase card and its holder; (0, -1) when the phase is over. [BUY-1]"""
    card_no = buying + 1
    if card_no > n:
        return 0, -1
    for s in range(n):
        if held[s] == card_no:
            return card_no, s
    return 0, -1


@helper
def _end(row, pos, lengths, i):
    """Close message ``i`` (``row``, its text up to ``pos``) with ``)``."""
    row[pos] = 41  # )
    lengths[i] = pos + 1


@helper
def _block_seeds(
    seed_text, first, nb, n, n_sub, match, per_game, seeds_out, at, cseeds, sub_seeds, buf,
    work, msgs, lengths, hashed, m, gtext, stext, streamed,
):  # fmt: skip
    """The seeds of games ``first .. first+nb-1`` (into ``seeds_out[at:]``) and of the
    generators known at each game's start, game ``bb``'s at ``cseeds[bb * per_game:]``:
    its bots', then the first player's and the deal's, or a match's deals (and the
    match's games' seeds into ``sub_seeds``). Hashed side by side
    (:func:`blake64_lanes`); a master seed too long for one block, one at a time.
    ``streamed`` (chance model 2): no generator for the first player or a deal, which
    read streams of their own (the match's games' seeds are still made)."""
    tl = seed_text.shape[0]
    i = 0
    if tl + 48 <= 128:  # "(seed, 'bot', GAME, SEAT)": one block
        for bb in range(nb):
            for s in range(-1, n):  # -1: the game's own seed
                row = msgs[i]
                pos = seed_head(row, seed_text, tl)
                pos = put(row, pos, L_GAME if s < 0 else L_BOT)
                pos = put_int(row, pos, first + bb)
                if s >= 0:
                    pos = put_int(row, pos, s)
                _end(row, pos, lengths, i)
                i += 1
        blake64_lanes(msgs, lengths, np.int64(i), hashed, m)
    else:
        for bb in range(nb):
            for s in range(-1, n):
                pos = seed_head(buf, seed_text, tl)
                pos = put(buf, pos, L_GAME if s < 0 else L_BOT)
                pos = put_int(buf, pos, first + bb)
                if s >= 0:
                    pos = put_int(buf, pos, s)
                hashed[i] = finish(buf, pos, work)
                i += 1
    for bb in range(nb):
        seeds_out[at + bb] = hashed[bb * (n + 1)]
        for s in range(n):
            cseeds[bb * per_game + s] = hashed[bb * (n + 1) + 1 + s]
    if streamed and not match:
        return
    i = 0  # then what each game's seed gives
    for bb in range(nb):
        glen = put_uint(gtext, 0, seeds_out[at + bb])
        if match:  # game ``sub`` of a match: its own seed
            for sub in range(n_sub):
                row = msgs[i]
                pos = seed_head(row, gtext, glen)
                pos = put(row, pos, L_GAME)
                _end(row, put_int(row, pos, sub), lengths, i)
                i += 1
        else:
            row = msgs[i]
            _end(row, put(row, seed_head(row, gtext, glen), _L_FIRST), lengths, i)
            row = msgs[i + 1]
            _end(row, put(row, seed_head(row, gtext, glen), _L_DEAL), lengths, i + 1)
            i += 2
    blake64_lanes(msgs, lengths, np.int64(i), hashed, m)
    if streamed:
        for i in range(nb * n_sub):
            sub_seeds[i // n_sub, i % n_sub] = hashed[i]
        return
    if not match:
        for bb in range(nb):
            cseeds[bb * per_game + n] = hashed[2 * bb]
            cseeds[bb * per_game + n + 1] = hashed[2 * bb + 1]
        return
    for i in range(nb * n_sub):  # a match's games' deals, from their seeds
        sub_seeds[i // n_sub, i % n_sub] = hashed[i]
        slen = put_uint(stext, 0, hashed[i])
        row = msgs[i]
        _end(row, put(row, seed_head(row, stext, slen), _L_DEAL), lengths, i)
    blake64_lanes(msgs, lengths, np.int64(nb * n_sub), hashed, m)
    for i in range(nb * n_sub):
        cseeds[(i // n_sub) * per_game + n + i % n_sub] = hashed[i]


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
    chance_model,  # the variant's chance: 1 or 2 (docs/chance.md)
    # the run
    n,
    seed_text,
    first_game,
    count,
    seat_bots,
    rotate,
    record,
    # outputs
    out,
    seeds_out,
    hist_len,
    hist,
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
    streamed = chance_model == 2  # chance model 2: the first player and deals read streams
    per_game = n  # generators seeded at the start: the bots', and under model 1 the
    if not streamed:  # first player's and the deal's, or a match's deals
        per_game += match_games if match_games > 0 else 2
    block = max(1, CHAINS // per_game)  # games whose generators are seeded together
    st = np.zeros((N, block * per_game), np.uint32)
    mpos = np.zeros(block * per_game, np.int64)
    cseeds = np.zeros(block * per_game, np.uint64)
    lo = np.zeros(block * per_game, np.uint32)
    hi1 = np.zeros(block * per_game, np.uint32)
    sub_seeds = np.zeros((block, n_sub), np.uint64)
    chance_mt = np.zeros(N + 1, np.int64)
    buf = np.zeros(seed_text.shape[0] + 128, np.uint8)
    gbuf = np.zeros(64, np.uint8)
    # messages hashed side by side, at most: a block's seeds and bots' (n + 1 a game),
    # their generators at the start, a match's games' seeds (n_sub a game)
    rows = block * max(per_game, n + 1, n_sub) + per_game
    msgs = np.zeros((rows, 128), np.uint8)
    lengths = np.zeros(rows, np.int64)
    hashed = np.zeros(rows, np.uint64)
    m = np.zeros((16, rows), np.uint64)
    gtext = np.zeros(24, np.uint8)
    stext = np.zeros(24, np.uint8)
    m_totals = np.zeros(n, np.int64)
    work = np.zeros(40, np.uint64)
    sb = np.zeros(64, np.uint8)  # chance model 2: the block of the event's stream read
    ss = np.zeros(2, np.int64)  # and where
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
            _block_seeds(
                seed_text, first_game + g, nb, n, n_sub, match_games > 0, per_game, seeds_out,
                g, cseeds, sub_seeds, buf, work, msgs, lengths, hashed, m, gtext, stext, streamed,
            )  # fmt: skip
            seed_chains(st, mpos, cseeds, lo, hi1, nb * per_game, chance_mt)
        game = first_game + g
        gl = put_uint(gtext, 0, seeds_out[g])
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
                gl = put_uint(stext, 0, sub_seeds[b, sub])
                gt = stext
                start = sub % n
                deal_chain = mbase + n + sub
            elif streamed:
                tl = stream_event(sb, ss, gbuf, gt, gl, _L_FIRST, -1, work)
                first_player = stream_below(sb, ss, n, gbuf, tl, work)
                start = first_player
                deal_chain = 0
            else:
                first_player = randbelow_col(st, mpos, mbase + n, n)
                start = first_player
                deal_chain = mbase + n + 1
            dlen = np.int64(0)  # not a literal: one compiled version of its callees
            for kind in range(k):
                for _ in range(kind_count[kind]):
                    deck[dlen] = kind
                    dlen += 1
            if streamed:
                tl = stream_event(sb, ss, gbuf, gt, gl, _L_DEAL, -1, work)
                stream_shuffle(sb, ss, deck, dlen, gbuf, tl, work)
            else:
                shuffle_col(st, mpos, deal_chain, deck, dlen)
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
                                        chance, gt, gl, msgs, lengths, hashed, m, tax_to_deck,
                                    )  # fmt: skip
                    elif code == S_RESHUFFLE:  # END-3
                        for kind in range(k):
                            c = counts[discard * k + kind]
                            for _ in range(c):
                                deck[dlen] = kind
                                dlen += 1
                            _move(counts, totals, k, kind, discard, deck_zone, c)
                        chance += 1
                        if streamed:
                            tl = stream_event(sb, ss, gbuf, gt, gl, _L_RESHUFFLE, chance, work)
                            stream_shuffle(sb, ss, deck, dlen, gbuf, tl, work)
                        else:
                            seed_event(chance_mt, gbuf, gt, gl, _L_RESHUFFLE, chance, work)
                            shuffle(chance_mt, deck, dlen)
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
                    for ai in range(alpha.shape[0]):  # written always, kept if held:
                        a = alpha[ai]  # no branch to mispredict
                        legal[nl] = (WINDOW << 10) | a
                        nl += counts[base + a] != 0
                elif phase == STORE_P:
                    legal[0] = PASS << 10
                    nl = 1
                    base = 3 * turn * k
                    for ai in range(alpha.shape[0]):
                        a = alpha[ai]
                        legal[nl] = (STORE << 10) | a
                        nl += counts[base + a] != 0
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
                        legal[nl] = (SELL << 10) | a
                        nl += counts[base + a] >= set_size

                # ------------------------------------------------ the bot's choice
                if bots[turn] == RANDOM_BOT:
                    action = legal[randbelow_col(st, mpos, mbase + turn, nl)]
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
                        legal[0] if top == 1 else legal[randbelow_col(st, mpos, mbase + turn, top)]
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
                                chance, gt, gl, msgs, lengths, hashed, m, False,
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
