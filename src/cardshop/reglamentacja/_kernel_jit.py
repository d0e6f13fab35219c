# mypy: ignore-errors
"""The numba-compiled part of the Reglamentacja batch kernel (see
:mod:`cardshop.reglamentacja.kernel`).

This module imports numba and is imported only by the kernel, never by ``import
cardshop``. mypy does not check it: numba's types are not expressible in mypy's, and
every function here is checked instead, game by game, against the reference engine
(tests/test_reglamentacja_kernel.py).

It plays whole games on plain integer arrays, move by move as
:class:`cardshop.reglamentacja.game.ReglamentacjaGame` plays them, with the reference
engine's chance (the compiled seeded chance of :mod:`cardshop.kernels.chance`): the
shopping cards, the first player, the stamps and the visits shuffled from
``(seed, 'cards')`` and so on, each spin of the top, roll of the speculator's die and
reshuffle of the discarded stamps from ``(seed, label, n)``, ``n`` the game's count of
chance events. Stamps keep their ids, as in the engine: which stamps a player hands
over (the lowest ids of each kind it holds) decides the order of a later reshuffle.

The bots are those of :mod:`cardshop.reglamentacja.bots` and ``cardshop.bots``
(``random``: uniform over the listed actions, offers in the offer table's order;
``baseline``: a verb, then an offer part by part; ``greedy``: by the value of its
hand, in the same floating-point operations in the same order, so that it compares
the same numbers).

Clause IDs refer to docs/reglamentacja-rules.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardshop.kernels.chance import (
    CHAINS,
    N,
    draw_ahead,
    genrand_ahead,
    head_below,
    helper,
    label,
    match_game_text,
    put_uint,
    randbelow,
    randbelow_ahead,
    randbelow_col,
    seed_event,
    seed_events,
    seed_games,
    shuffle,
    stream_below,
    stream_event,
    stream_heads,
    stream_shuffle,
)

_L_CARDS = label("cards")
_L_FIRST = label("first-player")
_L_STAMPS = label("stamps")
_L_VISITS = label("visits")
_L_SPIN = label("spin")
_L_DIE = label("die")
_L_RESHUFFLE = label("reshuffle")

# Phases and verbs, as cardshop.reglamentacja.game codes them.
TRADE, DISCARD, SHOP, FINAL_TRADE, FINAL_SHOP, OVER = range(6)
V_OFFER, V_ACCEPT, V_REJECT, V_DRAW, V_SWAP, V_STOP, V_PASS, V_DISCARD, V_BUY = range(9)
RANDOM_BOT, BASELINE_BOT, GREEDY_BOT = range(3)
SPECULATOR = -1
N_STATS = 9
(
    ST_OFFERS, ST_TRADES, ST_PLACE, ST_DRAWS, ST_SWAPS, ST_PUSHBACKS, ST_SPEC_BUYS,
    ST_RESHUFFLES, ST_LIMIT,
) = range(N_STATS)  # fmt: skip
HEAD = 4 + N_STATS
"""Columns of a game's row before its scores: first player, turns, decisions,
termination (1 finished, 2 capped), then the counters of ``game.stats``."""


_AHEAD = 48
"""Spins of the top whose chance is made at once, ahead of their turns (one game's
worth or so: a game's chance events are its spins, one a turn, and a few rolls of the
die and reshuffles). Under chance model 1, their generators: seeding a Mersenne
Twister alone (about 1,250 dependent steps) was most of a random game's time; seeded
as a block, the steps of many generators run side by side
(:func:`cardshop.kernels.chance.seed_events`). Under model 2, the first bytes of their
streams, hashed side by side (:func:`cardshop.kernels.chance.stream_heads`). What is
made for events that turn out to be rolls or reshuffles goes unused."""

_BOT_DRAWS = 256
"""Outputs of each bot's generator made when it is seeded
(:func:`cardshop.kernels.chance.draw_ahead`): a random bot draws about 250 numbers in
a game of four (some 590 decisions; an answer that can only reject draws two on
average, as ``random.Random.randrange(1)`` does)."""


@helper
def code_of(verb, a, give, take, place):
    """An action as one int64: the verb, then its parts (the history's coding)."""
    return verb | (a << 4) | (give << 16) | (take << 28) | (place << 40)


# ------------------------------------------------------------------ chance


@helper
def _event(mt, sb, ss, gbuf, gt, gl, lab, n, work):
    """Start the chance event ``(seed, lab)`` or, with ``n >= 0``, ``(seed, lab, n)``
    (``gt[:gl]`` is the game seed's text) by the variant's chance model, ``ss[2]``
    (docs/chance.md): model 1 seeds ``mt``; model 2 reads the event's stream into
    ``sb`` and ``ss`` (its text stays in ``gbuf``, its length in ``ss[3]``)."""
    if ss[2] == 2:
        ss[3] = stream_event(sb, ss, gbuf, gt, gl, lab, n, work)
    else:
        seed_event(mt, gbuf, gt, gl, lab, n, work)


@helper
def _event_below(mt, sb, ss, gbuf, n, work):
    """A number below ``n`` drawn by the event :func:`_event` started."""
    if ss[2] == 2:
        return stream_below(sb, ss, n, gbuf, ss[3], work)
    return randbelow(mt, n)


@helper
def _event_shuffle(mt, sb, ss, gbuf, deck, count, work):
    """``deck[:count]`` shuffled by the event :func:`_event` started."""
    if ss[2] == 2:
        stream_shuffle(sb, ss, deck, count, gbuf, ss[3], work)
    else:
        shuffle(mt, deck, count)


# ---------------------------------------------------------------- stamps


@helper
def _move(swhere, hand, hsize, dcount, kind_start, n, seat, dest, ms, m, k, fresh):
    """Stamps of the kinds counted by ``ms[m]`` from ``seat``'s hand (lowest ids first)
    to ``dest``: a seat, or ``n + 1`` the discard pile. The seats' cached bit sets go
    stale (``fresh``)."""
    fresh[seat] = 0
    if dest < n:
        fresh[dest] = 0
    for kind in range(k):
        count = ms[m, kind]
        if count == 0:
            continue
        sid = kind_start[kind]
        for _ in range(count):
            while swhere[sid] != seat:
                sid += 1
            swhere[sid] = dest
        hand[seat, kind] -= count
        hsize[seat] -= count
        if dest < n:
            hand[dest, kind] += count
            hsize[dest] += count
        else:
            dcount[kind] += count


@helper
def _holds(hand, seat, ms, m, k):
    """Whether ``seat`` holds the stamps ``ms[m]`` (counts per kind): every kind
    compared, no branch to mispredict."""
    short = 0
    for i in range(k):
        short |= ms[m, i] > hand[seat, i]
    return short == 0


# ------------------------------------------------------------ the greedy bot


@helper
def _value(h, row, rl, mult, card_cost, card_need, card_cat, card_icons, k):
    """``cardshop.reglamentacja.bots.hand_value`` of the hand ``h`` (counts per kind)
    facing ``row[:rl]`` under the visit multipliers ``mult``: the same operations in
    the same order."""
    value = 0.0
    for i in range(rl):
        card = row[i]
        have = 0
        for kind in range(k):
            count = card_cost[card, kind]
            if count:
                held = h[kind]
                have += held if held < count else count
        points = card_icons[card] * mult[card_cat[card]]
        need = card_need[card]
        share = have / need
        value += points * share * share
        if have == need:
            value += points
    total = 0
    for kind in range(k):
        total += h[kind]
    return value + 0.01 * total


@helper
def _random01(st, outs, mpos, col):
    """``random.Random.random()`` of generator ``col``: 53 bits from two outputs."""
    a = genrand_ahead(st, outs, mpos, col) >> 5
    b = genrand_ahead(st, outs, mpos, col) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


@njit(cache=True, error_model="numpy", nogil=True)
def play(
    k,
    n_stamps,
    stamp_kind,  # int64[n_stamps]
    kind_start,  # int64[k + 1]
    alpha,  # int64[k]: kinds in alphabetical order of their names
    n_cards,
    card_cost,  # int64[n_cards, k]
    card_need,  # int64[n_cards]
    card_cat,  # int64[n_cards]
    card_icons,  # int64[n_cards]
    visit_mult,  # int64[visits, categories]
    visit_pool,  # int64[m]: the visits dealt at this player count, in the variant's order
    row_size,
    deal,
    allocation,
    shop_draw,
    hand_limit,
    spin_min,
    spin_max,
    has_spec,
    die_sides,
    final_stamps,
    turn_cap,
    queue_places,
    ms,  # int64[multisets, k]: rules.multisets
    n_offer,  # multisets that may be given or taken (the first n_offer)
    price_sets,  # int64[prices]: the speculator's prices, as multiset indices
    gives,  # int64[positions]: the offer table, in the order of its texts
    takes,
    places,
    run_start,  # int64[runs]: the table's runs of one give
    run_len,
    cap,  # rules.hand_cap: the most stamps of a kind that make a difference
    give_level,  # int64[k, cap + 1, words]: bit g, give g needs no more of kind i than c
    run_level,  # int64[k, cap + 1, words]: bit r, run r's give needs no more than c
    price_level,  # int64[k, cap + 1, words]: bit q, price q needs no more than c
    block_sums,  # int64[blocks, 256]: the offers in each block of 8 runs, by held runs
    takes_of,  # int64[n_offer, most]: the takes a give may go with, ascending
    takes_n,  # int64[n_offer]
    others_text,  # int64[n, n - 1]: the seats a seat may offer to, in text order
    chance_model,  # the variant's chance: 1 or 2 (docs/chance.md)
    match_games,  # games in a match (players x games per player), 0 for no match
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

    ``seat_bots[s]`` is the bot of seat ``s`` before rotation (0 random, 1 baseline,
    2 greedy). ``out[g]`` receives the first player, the turns, the decisions, the
    termination (1 finished, 2 capped), the counters of ``game.stats``, then the scores
    and the ranks of the seats; for a match, of the whole match (every game with its
    own seed and seat ``i mod n`` starting game ``i``, the same bots, the scores and
    counters summed, ranked by the sums alone, as ``cardshop.core.series`` plays it).
    With ``record``, every action is written into ``hist`` (:func:`code_of`), game
    after game, and ``hist_len[g]`` is each game's count; the return value is -1 if
    ``hist`` was too small, else the total decisions played.
    """
    n_prices = price_sets.shape[0]
    # The state of a game (cardshop.reglamentacja.game's fields).
    swhere = np.zeros(n_stamps, np.int64)
    stack = np.zeros(n_stamps, np.int64)
    hand = np.zeros((n, k), np.int64)
    hsize = np.zeros(n, np.int64)
    dcount = np.zeros(k, np.int64)
    row = np.zeros(row_size, np.int64)
    cstack = np.zeros(n_cards, np.int64)
    bought = np.zeros((n, n_cards), np.int64)
    bn = np.zeros(n, np.int64)
    visit = np.zeros(n, np.int64)
    queue = np.zeros(n + 1, np.int64)
    stats = np.zeros(N_STATS, np.int64)
    # Per match: sums.
    total = np.zeros(n, np.int64)
    tstats = np.zeros(N_STATS, np.int64)
    # Scratch.
    vis = np.zeros(visit_pool.shape[0], np.int64)
    h2 = np.zeros(k, np.int64)
    gbits = np.zeros((n, give_level.shape[2]), np.int64)
    unit = np.eye(k, dtype=np.int64)  # row i: one stamp of kind i
    # Per seat, cached while its hand stays the same (``fresh[s]``): the bit sets of
    # the runs and of the speculator's prices its hand holds, and their counts.
    fresh = np.zeros(n, np.int64)
    rheld = np.zeros((n, run_level.shape[2]), np.int64)
    pheld = np.zeros((n, price_level.shape[2]), np.int64)
    per_of = np.zeros(n, np.int64)
    bcum = np.zeros((n, block_sums.shape[0] + 1), np.int64)  # the offers before each block
    codes = np.empty(gives.shape[0], np.int64)  # the offer table's actions, to no target
    for p in range(gives.shape[0]):
        codes[p] = code_of(V_OFFER, 0, gives[p], takes[p], places[p])
    npr_of = np.zeros(n, np.int64)
    n_blocks = block_sums.shape[0]
    tgt = np.zeros(max(n - 1, 1), np.int64)
    glist = np.zeros(n_offer, np.int64)
    opts = np.zeros(max(row_size, k) + 1, np.int64)  # the buys, or the kinds held
    keys = np.zeros((n, 3), np.int64)
    bots = np.zeros(n, np.int64)
    block = max(1, CHAINS // n)  # games whose bots' generators are seeded together
    st = np.zeros((N, block * n), np.uint32)
    mpos = np.zeros(block * n, np.int64)
    outs = np.zeros((_BOT_DRAWS, block * n), np.uint32)  # their first outputs
    cseeds = np.zeros(block * n, np.uint64)
    lo = np.zeros(block * n, np.uint32)
    hi1 = np.zeros(block * n, np.uint32)
    mt = np.zeros(N + 1, np.int64)
    sb = np.zeros(64, np.uint8)  # chance model 2: the block of the event's stream read,
    ss = np.zeros(4, np.int64)  # where, the model and the length of the event's text
    ss[2] = chance_model
    buf = np.zeros(seed_text.shape[0] + 128, np.uint8)
    gbuf = np.zeros(128, np.uint8)
    gt = np.zeros(24, np.uint8)
    mt_text = np.zeros(24, np.uint8)
    n_sub = match_games if match_games > 0 else 1
    work = np.zeros(40, np.uint64)
    sst = np.zeros((N, _AHEAD), np.uint32)  # the spins' generators, a block ahead
    spos = np.zeros(_AHEAD, np.int64)
    sseeds = np.zeros(_AHEAD, np.uint64)
    slo = np.zeros(_AHEAD, np.uint32)
    shi1 = np.zeros(_AHEAD, np.uint32)
    smsgs = np.zeros((_AHEAD, 128), np.uint8)  # a game's seed and a label: one block
    slengths = np.zeros(_AHEAD, np.int64)
    sm = np.zeros((16, _AHEAD), np.uint64)
    sheads = np.zeros(_AHEAD, np.uint64)  # chance model 2: their streams' first bytes
    hpos = 0
    total_decisions = 0
    overflow = False
    pass_code = code_of(V_PASS, 0, 0, 0, 0)
    stop_code = code_of(V_STOP, 0, 0, 0, 0)

    for g in range(count):
        b = g % block
        if b == 0:
            # ---- the seeds of the next block of games, and their bots' generators
            nb = min(block, count - g)
            seed_games(
                buf, seed_text, first_game + g, nb, n, seeds_out, g, cseeds, st, mpos, lo, hi1,
                mt, work,
            )  # fmt: skip
            draw_ahead(st, outs, mpos, nb * n)
        game = first_game + g
        mbase = b * n
        shift = game % n if rotate else 0
        for s in range(n):
            bots[s] = seat_bots[(s - shift) % n]
            total[s] = 0
        for i in range(N_STATS):
            tstats[i] = 0
        game_start = hpos
        decisions = 0
        turns = 0
        capped = False
        first_out = 0
        for sub in range(n_sub):
            if match_games > 0:  # game ``sub`` of a match: its own seed
                gl = match_game_text(gt, gbuf, mt_text, seeds_out[g], sub, work)
            else:
                gl = put_uint(gt, 0, seeds_out[g])
            # ---- setup [RG-SETUP-1..4]
            chance = np.int64(0)  # not literals: one compiled version of the callees
            sfirst = -_AHEAD  # the chance event of the spins' block's first generator
            for i in range(N_STATS):
                stats[i] = 0
            for s in range(n):
                hsize[s] = 0
                bn[s] = 0
                fresh[s] = 0
                for i in range(k):
                    hand[s, i] = 0
            for i in range(k):
                dcount[i] = 0
            for c in range(n_cards):
                cstack[c] = c
            _event(mt, sb, ss, gbuf, gt, gl, _L_CARDS, -1, work)
            _event_shuffle(mt, sb, ss, gbuf, cstack, n_cards, work)
            cl = n_cards
            rl = np.int64(0)
            for _ in range(row_size):
                cl -= 1
                row[rl] = cstack[cl]
                rl += 1
            if match_games > 0:
                first = sub % n
            else:
                _event(mt, sb, ss, gbuf, gt, gl, _L_FIRST, -1, work)
                first = _event_below(mt, sb, ss, gbuf, n, work)
                first_out = first
            for i in range(n_stamps):
                stack[i] = i
                swhere[i] = n
            _event(mt, sb, ss, gbuf, gt, gl, _L_STAMPS, -1, work)
            _event_shuffle(mt, sb, ss, gbuf, stack, n_stamps, work)
            sl = n_stamps
            for i in range(n):
                sl, chance = _draw(
                    swhere, stack, sl, hand, hsize, dcount, stamp_kind, (first + i) % n, deal,
                    n, n_stamps, k, mt, sb, ss, gbuf, gt, gl, chance, work, stats, fresh,
                )  # fmt: skip
            nv = visit_pool.shape[0]
            for i in range(nv):
                vis[i] = visit_pool[i]
            _event(mt, sb, ss, gbuf, gt, gl, _L_VISITS, -1, work)
            _event_shuffle(mt, sb, ss, gbuf, vis, nv, work)
            for i in range(n):
                nv -= 1
                visit[(first + i) % n] = vis[nv]
            ql = 0
            for i in range(n):
                queue[ql] = (first + i) % n
                ql += 1
            if has_spec:
                queue[ql] = SPECULATOR
                ql += 1
            active = queue[2 if n > 2 else n - 1]
            turn = 0
            spin = 0
            done = 0
            pt = -1
            pg = 0
            pk = 0
            pp = 0
            fs = 0
            termination = 0
            phase = TRADE
            # The flow's steps, as a small machine: each "go" names the engine's
            # method to run next (1 _start_turn, 2 _end_trading, 3 _pass_top,
            # 4 _shop_done of seat ``done_seat``, 5 _begin_final, 6 _spin_top,
            # 7 _next_offer_turn, 8 the speculator shops then what ``after`` says).
            go = 1
            done_seat = 0
            while True:
                # ---------------------------------------------- the automatic steps
                while go:
                    step = go
                    go = 0
                    if step == 1:  # _start_turn [RG-TURN-1, RG-CAP-1]
                        if turn >= turn_cap:
                            termination = 2
                            phase = OVER
                            break
                        turn += 1
                        sl, chance = _draw(
                            swhere, stack, sl, hand, hsize, dcount, stamp_kind, active,
                            allocation, n, n_stamps, k,
                            mt, sb, ss, gbuf, gt, gl, chance, work, stats, fresh,
                        )  # fmt: skip
                        phase = TRADE
                        go = 6
                    elif step == 6:  # _spin_top
                        chance += 1
                        width = spin_max - spin_min + 1
                        if width > 1 and chance >= sfirst + _AHEAD:
                            sfirst = chance
                            if ss[2] == 2:
                                stream_heads(
                                    sheads, smsgs[0], slengths, sm, gt, gl, _L_SPIN, sfirst
                                )
                            else:
                                seed_events(
                                    sst, spos, sseeds, slo, shi1, mt, smsgs, slengths, sm, gt,
                                    gl, _L_SPIN, sfirst,
                                )  # fmt: skip
                        if width > 1 and ss[2] == 2:
                            r = head_below(sheads[chance - sfirst], width)
                            if r < 0:  # past the 8 bytes at hand: the whole stream
                                _event(mt, sb, ss, gbuf, gt, gl, _L_SPIN, chance, work)
                                r = _event_below(mt, sb, ss, gbuf, width, work)
                            spin = spin_min + r
                        elif width > 1:
                            spin = spin_min + randbelow_col(sst, spos, chance - sfirst, width)
                        else:
                            spin = spin_min  # a draw below 1 is 0, whatever the generator
                        done = 0
                    elif step == 7:  # _next_offer_turn [RG-TRADE-1]
                        done += 1
                        if done >= spin:
                            go = 2
                    elif step == 2:  # _end_trading
                        if phase == FINAL_TRADE:  # RG-FINAL-4
                            phase = FINAL_SHOP
                            fs = 0
                        elif hsize[active] > hand_limit:  # RG-LIMIT-1
                            phase = DISCARD
                        else:
                            go = 3
                    elif step == 3:  # _pass_top [RG-TURN-3, RG-SHOP-1]
                        active = (active + 1) % n
                        rl, cl, chance = _speculator_shops(
                            row, rl, cstack, cl, row_size, queue, ql, die_sides,
                            mt, sb, ss, gbuf, gt,
                            gl, chance, work, stats,
                        )  # fmt: skip
                        if rl < row_size:
                            go = 5
                            continue
                        phase = SHOP
                    elif step == 4:  # _shop_done [RG-SHOP-3..5]
                        seat = done_seat
                        _to_back(queue, ql, seat)
                        sl, chance = _draw(
                            swhere, stack, sl, hand, hsize, dcount, stamp_kind, seat,
                            shop_draw, n, n_stamps, k,
                            mt, sb, ss, gbuf, gt, gl, chance, work, stats, fresh,
                        )  # fmt: skip
                        while rl < row_size and cl > 0:  # RG-ROW-1
                            cl -= 1
                            row[rl] = cstack[cl]
                            rl += 1
                        if rl == row_size:
                            rl, cl, chance = _speculator_shops(
                                row, rl, cstack, cl, row_size, queue, ql, die_sides,
                                mt, sb, ss, gbuf,
                                gt, gl, chance, work, stats,
                            )  # fmt: skip
                        go = 1 if rl == row_size else 5
                    elif step == 5:  # _begin_final [RG-FINAL-1..3]
                        for i in range(ql):
                            if queue[i] == SPECULATOR:
                                for j in range(i, ql - 1):
                                    queue[j] = queue[j + 1]
                                ql -= 1
                                break
                        turn += 1
                        for _ in range(final_stamps):
                            for i in range(n):
                                sl, chance = _draw(
                                    swhere, stack, sl, hand, hsize, dcount, stamp_kind,
                                    (active + i) % n, np.int64(1), n, n_stamps, k,
                                    mt, sb, ss, gbuf, gt, gl,
                                    chance, work, stats, fresh,
                                )  # fmt: skip
                        phase = FINAL_TRADE
                        go = 6
                if phase == OVER:
                    break

                # ---------------------------------------------- who acts, and what
                if phase in (TRADE, FINAL_TRADE):
                    seat = pt if pt >= 0 else _offerer(phase, active, done, n)
                elif phase == DISCARD:
                    seat = active
                elif phase == SHOP:
                    seat = queue[0]
                else:
                    seat = queue[fs]
                col = mbase + seat
                bot = bots[seat]
                action = 0
                if phase in (TRADE, FINAL_TRADE) and pt >= 0:
                    # ---- an answer: accept and reject, or reject alone
                    can = _holds(hand, seat, ms, pk, k)
                    nl = 2 if can else 1
                    if bot == RANDOM_BOT:
                        i = randbelow_ahead(st, outs, mpos, col, nl)
                        accept = can and i == 0
                    elif bot == BASELINE_BOT:
                        i = randbelow_ahead(st, outs, mpos, col, nl)
                        randbelow_ahead(st, outs, mpos, col, 1)
                        accept = can and i == 0
                    elif not can:
                        accept = False
                    else:
                        # what I receive is the offer's give, what I hand over its take
                        for i in range(k):
                            h2[i] = hand[seat, i]
                        mult = visit_mult[visit[seat]]
                        v0 = _value(h2, row, rl, mult, card_cost, card_need, card_cat,
                                    card_icons, k)  # fmt: skip
                        for i in range(k):
                            h2[i] = hand[seat, i] + ms[pg, i] - ms[pk, i]
                        v1 = _value(h2, row, rl, mult, card_cost, card_need, card_cat,
                                    card_icons, k)  # fmt: skip
                        gain = v1 - v0
                        if pp:
                            offerer = _offerer(phase, active, done, n)
                            mine = _index(queue, ql, seat)
                            theirs = _index(queue, ql, offerer)
                            gain += 0.3 * (mine - theirs)
                        accept = gain > 0
                    action = code_of(V_ACCEPT if accept else V_REJECT, 0, 0, 0, 0)
                elif phase in (TRADE, FINAL_TRADE):
                    # ---- an offer turn: the offers to the targets, then the tail
                    if phase == TRADE and seat != active:
                        tgt[0] = active
                        nt = 1
                    else:
                        nt = n - 1
                        for i in range(nt):
                            tgt[i] = others_text[seat, i]
                    full = phase == TRADE and seat == active  # RG-SPEC-1, RG-TRADE-6
                    if not fresh[seat]:
                        fresh[seat] = 1
                        _held(hand, seat, k, cap, price_level, pheld)
                        npr = np.int64(0)
                        for q in range(n_prices):
                            npr += (pheld[seat, q >> 6] >> (q & 63)) & 1
                        npr_of[seat] = npr
                        # the offers it holds, by runs of one give, counted block by block
                        _held(hand, seat, k, cap, run_level, rheld)
                        per = np.int64(0)
                        for b in range(n_blocks):
                            bcum[seat, b] = per
                            per += block_sums[b, (rheld[seat, b >> 3] >> ((b & 7) << 3)) & 255]
                        bcum[seat, n_blocks] = per
                        per_of[seat] = per
                    npr = npr_of[seat] if full else np.int64(0)
                    per = per_of[seat]
                    n_tail = 2 + 2 * npr if full else 1
                    n_offers = per * nt
                    if bot == RANDOM_BOT:
                        i = randbelow_ahead(st, outs, mpos, col, n_offers + n_tail)
                        if i < n_offers:
                            action = _offer_at(
                                i, per, tgt, rheld, bcum, seat, run_start, run_len, codes,
                            )  # fmt: skip
                        else:
                            action = _tail_at(i - n_offers, full, npr, pheld, seat, price_sets)
                    elif bot == BASELINE_BOT:
                        # a verb among offer, pass, speculate and stop, then its parts
                        nverbs = 1 + (1 if npr else 0) + (1 if full else 0)
                        if per:
                            v = randbelow_ahead(st, outs, mpos, col, nverbs + 1)
                        else:  # no offer: choose_by_verb over the tail
                            v = 1 + randbelow_ahead(st, outs, mpos, col, nverbs)
                        if v == 0:
                            target = tgt[randbelow_ahead(st, outs, mpos, col, nt)]
                            _held(hand, seat, k, cap, give_level, gbits)
                            ng = 0
                            for gv in range(n_offer):
                                if (gbits[seat, gv >> 6] >> (gv & 63)) & 1:
                                    glist[ng] = gv
                                    ng += 1
                            gv = glist[randbelow_ahead(st, outs, mpos, col, ng)]
                            tv = takes_of[gv, randbelow_ahead(st, outs, mpos, col, takes_n[gv])]
                            if not queue_places:
                                randbelow_ahead(st, outs, mpos, col, 1)
                                place = 0
                            elif gv == 0 and tv == 0:
                                randbelow_ahead(st, outs, mpos, col, 1)
                                place = 1
                            else:
                                place = randbelow_ahead(st, outs, mpos, col, 2)
                            action = code_of(V_OFFER, target, gv, tv, place)
                        elif v == 1:
                            randbelow_ahead(st, outs, mpos, col, 1)
                            action = pass_code
                        elif v == 2 and npr:
                            i = randbelow_ahead(st, outs, mpos, col, 2 * npr)
                            action = _tail_at(1 + i, full, npr, pheld, seat, price_sets)
                        else:
                            randbelow_ahead(st, outs, mpos, col, 1)
                            action = stop_code
                    else:
                        action = _greedy_offer(
                            hand, seat, active, phase, n, k, row, rl, visit_mult[visit[seat]],
                            card_cost, card_need, card_cat, card_icons, h2, tgt, ms, n_offer,
                            st, outs, mpos, col, queue, ql, full, npr, pheld, price_sets,
                        )  # fmt: skip
                elif phase == DISCARD:
                    # ---- the held kinds, in alphabetical order [RG-LIMIT-1]
                    nl = 0
                    for i in range(k):  # written always, kept if held: no branch
                        opts[nl] = alpha[i]
                        nl += hand[seat, alpha[i]] != 0
                    if bot == RANDOM_BOT:
                        kind = opts[randbelow_ahead(st, outs, mpos, col, nl)]
                    elif bot == BASELINE_BOT:
                        randbelow_ahead(st, outs, mpos, col, 1)
                        kind = opts[randbelow_ahead(st, outs, mpos, col, nl)]
                    elif nl == 1:
                        kind = opts[0]
                    else:
                        mult = visit_mult[visit[seat]]
                        best = -np.inf
                        kind = opts[0]
                        for j in range(nl):
                            for i in range(k):
                                h2[i] = hand[seat, i]
                            h2[opts[j]] -= 1
                            value = _value(h2, row, rl, mult, card_cost, card_need, card_cat,
                                           card_icons, k)  # fmt: skip
                            if value > best:
                                best = value
                                kind = opts[j]
                    action = code_of(V_DISCARD, kind, 0, 0, 0)
                else:
                    # ---- at the counter: the cards it can pay for, then pass
                    nl = 0
                    for p in range(rl):
                        if _holds(hand, seat, card_cost, row[p], k):
                            opts[nl] = p + 1
                            nl += 1
                    buy = 0
                    if bot == RANDOM_BOT:
                        i = randbelow_ahead(st, outs, mpos, col, nl + 1)
                        if i < nl:
                            buy = opts[i]
                    elif bot == BASELINE_BOT:
                        if nl:
                            if randbelow_ahead(st, outs, mpos, col, 2) == 0:
                                buy = opts[randbelow_ahead(st, outs, mpos, col, nl)]
                            else:
                                randbelow_ahead(st, outs, mpos, col, 1)
                        else:
                            randbelow_ahead(st, outs, mpos, col, 1)
                            randbelow_ahead(st, outs, mpos, col, 1)
                    else:
                        mult = visit_mult[visit[seat]]
                        best_points = -1
                        for i in range(nl):
                            card = row[opts[i] - 1]
                            points = card_icons[card] * mult[card_cat[card]]
                            if points > best_points:
                                best_points = points
                                buy = opts[i]
                    action = code_of(V_BUY, buy, 0, 0, 0) if buy else pass_code
                decisions += 1
                if record:
                    if hpos < hist.shape[0]:
                        hist[hpos] = action
                        hpos += 1
                    else:
                        overflow = True

                # ---------------------------------------------- the action played
                verb = action & 15
                a = (action >> 4) & 4095
                if verb == V_OFFER:
                    pt = a
                    pg = (action >> 16) & 4095
                    pk = (action >> 28) & 4095
                    pp = (action >> 40) & 1
                    stats[ST_OFFERS] += 1
                elif verb in (V_ACCEPT, V_REJECT):
                    offerer = _offerer(phase, active, done, n)
                    if verb == V_ACCEPT:  # RG-TRADE-4
                        _move(swhere, hand, hsize, dcount, kind_start, n, offerer, seat, ms, pg,
                              k, fresh)  # fmt: skip
                        _move(swhere, hand, hsize, dcount, kind_start, n, seat, offerer, ms, pk,
                              k, fresh)  # fmt: skip
                        if pp:
                            _swap(queue, ql, seat, offerer)
                            stats[ST_PLACE] += 1
                        stats[ST_TRADES] += 1
                    pt = -1
                    pg = 0
                    pk = 0
                    pp = 0
                    go = 7
                elif verb == V_PASS:
                    if phase == SHOP:
                        done_seat = seat
                        go = 4
                    elif phase == FINAL_SHOP:
                        fs += 1
                        if fs >= n:  # RG-FINAL-4
                            termination = 1
                            phase = OVER
                    else:
                        go = 7
                elif verb == V_STOP:  # RG-TRADE-6
                    go = 2
                elif verb in (V_DRAW, V_SWAP):  # RG-SPEC-1, RG-SPEC-2
                    _move(swhere, hand, hsize, dcount, kind_start, n, seat, n + 1, ms, a, k, fresh)
                    if verb == V_DRAW:
                        stats[ST_DRAWS] += 1
                        sl, chance = _draw(
                            swhere, stack, sl, hand, hsize, dcount, stamp_kind, seat,
                            np.int64(1), n, n_stamps, k,
                            mt, sb, ss, gbuf, gt, gl, chance, work, stats, fresh,
                        )  # fmt: skip
                    else:
                        stats[ST_SWAPS] += 1
                        if _index(queue, ql, SPECULATOR) < _index(queue, ql, seat):
                            stats[ST_PUSHBACKS] += 1
                        _swap(queue, ql, seat, SPECULATOR)
                    go = 7
                elif verb == V_DISCARD:  # RG-LIMIT-1
                    _move(
                        swhere, hand, hsize, dcount, kind_start, n, seat, n + 1, unit, a, k, fresh
                    )
                    stats[ST_LIMIT] += 1
                    if hsize[seat] <= hand_limit:
                        go = 3
                else:  # V_BUY: RG-SHOP-2, RG-ROW-1 (the row closes up)
                    card = row[a - 1]
                    for i in range(a - 1, rl - 1):
                        row[i] = row[i + 1]
                    rl -= 1
                    _move(swhere, hand, hsize, dcount, kind_start, n, seat, n + 1,
                          card_cost, card, k, fresh)  # fmt: skip
                    bought[seat, bn[seat]] = card
                    bn[seat] += 1
                    if phase == SHOP:
                        done_seat = seat
                        go = 4
                    else:
                        fs += 1
                        if fs >= n:  # RG-FINAL-4
                            termination = 1
                            phase = OVER
                if phase == OVER:
                    break

            # ---- the game's result [RG-SCORE-1, RG-SCORE-2]
            turns += turn
            if termination == 2:
                capped = True
            for i in range(N_STATS):
                tstats[i] += stats[i]
            for s in range(n):
                mult = visit_mult[visit[s]]
                score = 0
                for j in range(bn[s]):
                    c = bought[s, j]
                    score += card_icons[c] * mult[card_cat[c]]
                total[s] += score
                keys[s, 0] = score
                keys[s, 1] = bn[s]
                keys[s, 2] = hsize[s]

        total_decisions += decisions
        out[g, 0] = first_out
        out[g, 1] = turns
        out[g, 2] = decisions
        out[g, 3] = 2 if capped else 1
        for i in range(N_STATS):
            out[g, 4 + i] = tstats[i]
        for s in range(n):
            out[g, HEAD + s] = total[s]
            better = 0
            for o in range(n):
                if match_games > 0:  # a match ranks by the sums only
                    if total[o] > total[s]:
                        better += 1
                elif (
                    keys[o, 0] > keys[s, 0]
                    or (keys[o, 0] == keys[s, 0] and keys[o, 1] > keys[s, 1])
                    or (keys[o, 0] == keys[s, 0] and keys[o, 1] == keys[s, 1]
                        and keys[o, 2] > keys[s, 2])
                ):  # fmt: skip
                    better += 1
            out[g, HEAD + n + s] = 1 + better
        if record:
            hist_len[g] = hpos - game_start
    if overflow:
        return -1
    return total_decisions


@helper
def _offerer(phase, active, done, n):
    """The seat whose offer turn it is, ``done`` offer turns into the spin.
    [RG-TRADE-2, RG-FINAL-3]"""
    if phase == FINAL_TRADE:
        return (active + done) % n
    if done % 2 == 0:
        return active
    return (active + 1 + (done // 2) % (n - 1)) % n


@helper
def _draw(
    swhere, stack, sl, hand, hsize, dcount, stamp_kind, seat, count, n, n_stamps, k,
    mt, sb, ss, gbuf,
    gt, gl, chance, work, stats, fresh,
):  # fmt: skip
    """``seat`` draws ``count`` stamps from the stack (``stack[:sl]``, top last),
    reshuffling the discards when it runs out, drawing fewer when there are none;
    returns the stack's size and the game's chance count. [RG-STAMP-2]"""
    fresh[seat] = 0
    for _ in range(count):
        if sl == 0:
            discarded = 0
            for i in range(k):
                discarded += dcount[i]
            if discarded == 0:
                break
            chance += 1
            sl = _reshuffle(swhere, stack, dcount, n, n_stamps, k, mt, sb, ss, gbuf, gt, gl, chance,
                            work, stats)  # fmt: skip
        sl -= 1
        sid = stack[sl]
        swhere[sid] = seat
        hand[seat, stamp_kind[sid]] += 1
        hsize[seat] += 1
    return sl, chance


@helper
def _reshuffle(
    swhere, stack, dcount, n, n_stamps, k, mt, sb, ss, gbuf, gt, gl, chance, work, stats
):
    """The discarded stamps, by id, shuffled into the (empty) stack by chance event
    ``(seed, 'reshuffle', chance)``; returns the stack's size. [RG-STAMP-2]"""
    m = 0
    for sid in range(n_stamps):
        if swhere[sid] == n + 1:
            stack[m] = sid
            swhere[sid] = n
            m += 1
    for i in range(k):
        dcount[i] = 0
    _event(mt, sb, ss, gbuf, gt, gl, _L_RESHUFFLE, chance, work)
    _event_shuffle(mt, sb, ss, gbuf, stack, m, work)
    stats[ST_RESHUFFLES] += 1
    return m


@helper
def _speculator_shops(
    row, rl, cstack, cl, row_size, queue, ql, die_sides, mt, sb, ss, gbuf, gt, gl, chance,
    work, stats,
):  # fmt: skip
    """If the speculator heads the queue: the die picks the card he takes out of the
    game (a chance event), his pawn goes to the back, the row is refilled. Returns the
    row's and the shopping stack's lengths and the game's chance count (a row left
    short begins the final turn). [RG-SPEC-3]"""
    if queue[0] != SPECULATOR:
        return rl, cl, chance
    chance += 1
    if die_sides > 1:
        _event(mt, sb, ss, gbuf, gt, gl, _L_DIE, chance, work)
        roll = 1 + _event_below(mt, sb, ss, gbuf, die_sides, work)
    else:
        roll = 1  # a draw below 1 is 0, whatever the generator
    for i in range(roll - 1, rl - 1):
        row[i] = row[i + 1]
    rl -= 1
    stats[ST_SPEC_BUYS] += 1
    _to_back(queue, ql, SPECULATOR)
    while rl < row_size and cl > 0:
        cl -= 1
        row[rl] = cstack[cl]
        rl += 1
    return rl, cl, chance


@helper
def _index(queue, ql, pawn):
    for i in range(ql):
        if queue[i] == pawn:
            return i
    return -1


@helper
def _to_back(queue, ql, pawn):
    i = _index(queue, ql, pawn)
    for j in range(i, ql - 1):
        queue[j] = queue[j + 1]
    queue[ql - 1] = pawn


@helper
def _swap(queue, ql, a, b):
    i = _index(queue, ql, a)
    j = _index(queue, ql, b)
    queue[i] = b
    queue[j] = a


@helper
def _held(hand, seat, k, cap, level, bits):
    """The bit set (int64 words) of what ``seat``'s hand holds, into ``bits[seat]``: the
    ``and``, over the kinds, of ``level[kind, count held (capped)]``."""
    for w in range(bits.shape[1]):
        bits[seat, w] = -1
    for i in range(k):
        c = hand[seat, i]
        if c > cap:
            c = cap
        for w in range(bits.shape[1]):
            bits[seat, w] &= level[i, c, w]


@helper
def _offer_at(i, per, tgt, rheld, bcum, seat, run_start, run_len, codes):
    """The ``i``-th listed offer of ``seat``'s offer turn (``per`` offers to each target,
    in the held runs ``rheld[seat]``, ``bcum[seat, b]`` of them in the blocks before
    ``b``): the block of eight runs that holds it, then its run among the block's held
    runs, then the offer (``codes``: the table's actions, to no target)."""
    t = i // per
    j = i - t * per
    b = 0
    while bcum[seat, b + 1] <= j:
        b += 1
    j -= bcum[seat, b]
    pattern = (rheld[seat, b >> 3] >> ((b & 7) << 3)) & 255
    while True:
        r = 8 * b + _LOW[pattern]
        if j < run_len[r]:
            break
        j -= run_len[r]
        pattern &= pattern - 1
    return codes[run_start[r] + j] | (tgt[t] << 4)


_LOW = np.array([(p & -p).bit_length() - 1 if p else 8 for p in range(256)], dtype=np.int64)
"""The lowest set bit of a byte (8 for none)."""


@helper
def _tail_at(i, full, npr, pheld, seat, price_sets):
    """The ``i``-th action of ``seat``'s offer turn's tail: ``pass``, then (the active
    seat) the speculator draws and swaps it can pay (``pheld[seat]``), and ``stop``."""
    if i == 0:
        return code_of(V_PASS, 0, 0, 0, 0)
    if i == 1 + 2 * npr:
        return code_of(V_STOP, 0, 0, 0, 0)
    j = (i - 1) % npr if npr else 0
    verb = V_DRAW if i - 1 < npr else V_SWAP
    for q in range(price_sets.shape[0]):
        if (pheld[seat, q >> 6] >> (q & 63)) & 1:
            if j == 0:
                return code_of(verb, price_sets[q], 0, 0, 0)
            j -= 1
    return code_of(V_PASS, 0, 0, 0, 0)  # unreachable: i is below the tail's length


@helper
def _greedy_offer(
    hand, seat, active, phase, n, k, row, rl, mult, card_cost, card_need, card_cat,
    card_icons, h2, tgt, ms, n_offer, st, outs, mpos, col, queue, ql, full, npr, pheld,
    price_sets,
):  # fmt: skip
    """The greedy bot's offer turn (``ReglamentacjaGreedyBot._offer_turn``): the best
    one-for-one swap by value to a random target, else (the active seat, behind the
    speculator) a cheap swap with him, else stop half the time, else pass."""
    for i in range(k):
        h2[i] = hand[seat, i]
    base = _value(h2, row, rl, mult, card_cost, card_need, card_cat, card_icons, k)
    best_gain = 0.05
    bg = -1
    bt = -1
    for gk in range(k):
        if not hand[seat, gk]:
            continue
        for tk in range(k):
            if tk == gk:
                continue
            for i in range(k):
                h2[i] = hand[seat, i]
            h2[gk] -= 1
            h2[tk] += 1
            gain = _value(h2, row, rl, mult, card_cost, card_need, card_cat, card_icons, k) - base
            if gain > best_gain:
                best_gain = gain
                bg = gk
                bt = tk
    if bg >= 0:
        if phase == TRADE and seat != active:
            target = active
        else:  # the other seats in numeric order
            target = randbelow_ahead(st, outs, mpos, col, n - 1)
            if target >= seat:
                target += 1
        if phase == TRADE and seat != active:
            randbelow_ahead(st, outs, mpos, col, 1)
        # the unit multisets: give one of bg, take one of bt
        gi = _unit_index(ms, n_offer, k, bg)
        ti = _unit_index(ms, n_offer, k, bt)
        return code_of(V_OFFER, target, gi, ti, 0)  # always legal: bg is held
    if full:
        if _index(queue, ql, SPECULATOR) >= 0 and _index(queue, ql, SPECULATOR) < _index(
            queue, ql, seat
        ):
            for q in range(price_sets.shape[0]):
                if (pheld[seat, q >> 6] >> (q & 63)) & 1:
                    for i in range(k):
                        h2[i] = hand[seat, i] - ms[price_sets[q], i]
                    after = _value(h2, row, rl, mult, card_cost, card_need, card_cat,
                                   card_icons, k)  # fmt: skip
                    if base - after < 0.5:
                        return code_of(V_SWAP, price_sets[q], 0, 0, 0)
        if _random01(st, outs, mpos, col) < 0.5:
            return code_of(V_STOP, 0, 0, 0, 0)
    return code_of(V_PASS, 0, 0, 0, 0)


@helper
def _unit_index(ms, n_offer, k, kind):
    """The index of the multiset of one stamp of ``kind``."""
    for m in range(n_offer):
        if ms[m, kind] == 1:
            total = 0
            for i in range(k):
                total += ms[m, i]
            if total == 1:
                return m
    return -1
