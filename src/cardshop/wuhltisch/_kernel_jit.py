# mypy: ignore-errors
"""The numba-compiled part of the Wühltisch batch kernel (see
:mod:`cardshop.wuhltisch.kernel`).

This module imports numba and is imported only by the kernel, never by ``import
cardshop``. mypy does not check it: numba's types are not expressible in mypy's, and
every function here is checked instead, game by game, against the reference engine
(tests/test_wuhltisch_kernel.py).

It plays whole games on plain integer arrays, tick by tick as
:meth:`cardshop.wuhltisch.game.WuhltischGame.apply_joint` resolves them, with the
reference engine's chance (the compiled seeded chance of
:mod:`cardshop.kernels.chance`, by the variant's chance model): each round's shuffle of
the heap and the lists from ``(seed, 'round', n)``, each throw-back's places from
``(seed, 'heap', n)``. A round's
last throw-back (hands off) draws nothing that matters, as the next round shuffles a
fresh heap, but it counts as a chance event, as it does in the engine.

Clause IDs refer to docs/wuhltisch-rules.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardshop.kernels.chance import (
    CHAINS,
    N,
    helper,
    label,
    match_game_text,
    put_uint,
    randbelow_col,
    seed_event,
    seed_events,
    seed_games,
    shuffle,
    stream_below,
    stream_event,
    stream_shuffle,
)

_L_ROUND = label("round")
_L_HEAP = label("heap")

# Verbs, as the kernel codes actions: verb * 16 + argument (a slot).
LOOK, KEEP, SWAP, THROW, DROP, BUY, WAIT = range(7)
RANDOM_BOT, BASELINE_BOT, GREEDY_BOT = range(3)


@helper
def _set_score(cand, size, row, matches, price, luxury, sr):
    """What a set of the shirts ``cand[:size]`` with list row ``row`` scores (the rules'
    ``set_score`` without score terms; ``sr``: the variant's scoring numbers, as
    :func:`play` packs them). [WT-SCORE-1..3]"""
    set_size, budget, threshold, max_matches, all_match_bonus, luxury_bonus, _, _ = sr
    if size != set_size:
        return 0
    spent = 0
    all_lux = True
    m = 0
    for i in range(size):
        c = cand[i]
        spent += price[c]
        if not luxury[c]:
            all_lux = False
        m += matches[row, c]
    if spent > budget and not all_lux:
        return 0
    if m < threshold:
        return 0
    score = m
    if m == max_matches:
        score += all_match_bonus
    if all_lux:
        score += luxury_bonus
    return score


@helper
def _hand_score(hand, s, cand, row, matches, price, luxury, sr):
    """What seat ``s``'s full hand scores as a set with list row ``row``."""
    for i in range(sr[0]):
        cand[i] = hand[s, i]
    return _set_score(cand, sr[0], row, matches, price, luxury, sr)


@helper
def _fits(cand, size, row, matches, price, luxury, sr):
    """The greedy bot's test: can a hand of ``cand[:size]`` still score?"""
    set_size, budget, threshold, max_matches, _, _, list_size, cheapest = sr
    mismatches = 0
    spent = 0
    all_lux = True
    for i in range(size):
        c = cand[i]
        mismatches += list_size - matches[row, c]
        spent += price[c]
        if not luxury[c]:
            all_lux = False
    if mismatches > max_matches - threshold:
        return False
    if all_lux:
        return True
    return spent + (set_size - size) * cheapest <= budget


@helper
def _greedy(hand, s, h, v, row, matches, price, luxury, sr, cand, slots, st, mpos, col):
    """What the greedy bot (``cardshop.wuhltisch.bots``) of seat ``s`` wants, holding
    ``h`` shirts with ``v`` in view (-1 none) and list row ``row`` face up (-1 none):
    an action code, which :func:`_pick` replaces by the first legal one if it is not
    legal. Its ties between swaps draw from its generator (column ``col``)."""
    k = sr[0]
    if row < 0:
        return WAIT << 4
    if v >= 0:
        if h < k:
            for i in range(h):
                cand[i] = hand[s, i]
            cand[h] = v
            return (KEEP if _fits(cand, h + 1, row, matches, price, luxury, sr) else THROW) << 4
        now = _hand_score(hand, s, cand, row, matches, price, luxury, sr)
        best = now
        ns = 0
        for i in range(k):
            p = 0
            for j in range(k):
                if j != i:
                    cand[p] = hand[s, j]
                    p += 1
            cand[p] = v
            sc = _set_score(cand, k, row, matches, price, luxury, sr)
            if sc > best:
                best = sc
                slots[0] = i
                ns = 1
            elif sc == best and sc > now:
                slots[ns] = i
                ns += 1
        if ns:
            return (SWAP << 4) | slots[randbelow_col(st, mpos, col, ns)]
        return THROW << 4
    if h < k:
        return LOOK << 4
    if _hand_score(hand, s, cand, row, matches, price, luxury, sr) > 0:
        return BUY << 4
    worst = 0  # the first of the shirts with the most mismatches, then the dearest
    wm = -1
    wp = -1
    list_size = sr[6]
    for i in range(k):
        c = hand[s, i]
        mm = list_size - matches[row, c]
        if mm > wm or (mm == wm and price[c] > wp):
            worst = i
            wm = mm
            wp = price[c]
    return (DROP << 4) | worst


@helper
def _lay_down(hand, s, cand, row, matches, price, luxury, sr, sets_n, sets_sum, sets_failed):
    """Seat ``s`` lays its full hand down as a set with list row ``row``, scored now (a
    set's score depends on nothing else). [WT-TICK-6, WT-END-2]"""
    sc = _hand_score(hand, s, cand, row, matches, price, luxury, sr)
    sets_n[s] += 1
    sets_sum[s] += sc
    if sc == 0:
        sets_failed[s] += 1


@helper
def _pick(want, codes, nl):
    """``want`` if it is among the legal ``codes[:nl]``, else the first of them."""
    for i in range(nl):
        if codes[i] == want:
            return want
    return codes[0]


@helper
def _insort(hand, s, held, card):
    """Put ``card`` into seat ``s``'s sorted hand of ``held`` shirts."""
    i = held
    while i > 0 and hand[s, i - 1] > card:
        hand[s, i] = hand[s, i - 1]
        i -= 1
    hand[s, i] = card


@helper
def _remove(hand, s, held, slot):
    """Take the shirt in ``slot`` out of seat ``s``'s hand of ``held``; return it."""
    card = hand[s, slot]
    for i in range(slot, held - 1):
        hand[s, i] = hand[s, i + 1]
    return card


_AHEAD = 64
"""Throw-backs whose generators are seeded at once, ahead of their ticks: nearly
every tick throws a card back, and seeding a Mersenne Twister for each (about 1,250
dependent steps) would be most of a tick's time; seeded as a block, the steps of many
generators run side by side (:func:`cardshop.kernels.chance.seed_chains`)."""


@helper
def _insert(heap, hl, place, card):
    """``heap.insert(place, card)`` for the heap ``heap[:hl]``; returns its new length."""
    for j in range(hl, place, -1):
        heap[j] = heap[j - 1]
    heap[place] = card
    return hl + 1


@helper
def _throw_back(heap, hl, back, nb, hst, hpos, col):
    """Cards go back into the heap, each at a random place, from one generator (column
    ``col`` of the block): ``heap.insert(place, card)`` for each in turn. [WT-TICK-3]"""
    for i in range(nb):
        hl = _insert(heap, hl, randbelow_col(hst, hpos, col, hl + 1), back[i])
    return hl


@njit(cache=True, error_model="numpy", nogil=True)
def play(
    n_shirts,
    first_list,
    n_cards,
    lost_value,  # int64[n_cards]
    matches,  # int64[lists, shirts]
    price,  # int64[shirts]
    luxury,  # int64[shirts]: 1 for a luxury shirt
    list_size,
    set_size,
    budget,
    threshold,
    max_matches,
    all_match_bonus,
    luxury_bonus,
    caller_all_or_nothing,
    round_ticks,
    rounds,
    per,  # lists dealt to each player
    cheapest,
    legal_code,  # int64[2, set_size + 1, most]: [has view][held] -> sorted actions
    legal_n,  # int64[2, set_size + 1]
    group_start,  # int64[2, set_size + 1, verbs]: the baseline bot's verbs
    group_len,
    group_n,  # int64[2, set_size + 1]
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
    2 greedy). ``out[g]`` receives rounds, decisions, termination (1 finished, 2
    capped), ticks, capped rounds, then the scores and the ranks of the seats; for a
    match, of the whole match (every game with its own seed, the same bots, the scores
    summed and ranked by the sums alone, as ``cardshop.core.series`` plays it). With
    ``record``, every seat's action of every tick is written into ``hist``, game after
    game, and ``hist_len[g]`` is each game's count; the return value is -1 if
    ``hist`` was too small, else the total decisions played.
    """
    k = set_size
    sr = (
        set_size, budget, threshold, max_matches, all_match_bonus, luxury_bonus, list_size,
        cheapest,
    )  # fmt: skip
    heap = np.zeros(n_cards + 1, np.int64)
    lists = np.zeros(n_cards + 1, np.int64)
    stacks = np.zeros((n, per), np.int64)
    sl = np.zeros(n, np.int64)
    active = np.zeros(n, np.int64)
    view = np.zeros(n, np.int64)
    hand = np.zeros((n, k + 1), np.int64)
    held = np.zeros(n, np.int64)
    found_n = np.zeros(n, np.int64)
    found_v = np.zeros(n, np.int64)
    sets_n = np.zeros(n, np.int64)
    sets_sum = np.zeros(n, np.int64)
    sets_failed = np.zeros(n, np.int64)
    total = np.zeros(n, np.int64)
    in_front = np.zeros(n, np.int64)
    is_caller = np.zeros(n, np.int64)
    acts = np.zeros(n, np.int64)
    back = np.zeros(n_cards + 1, np.int64)
    cand = np.zeros(k + 1, np.int64)
    slots = np.zeros(k + 1, np.int64)
    bots = np.zeros(n, np.int64)
    block = max(1, CHAINS // n)  # games whose bots' generators are seeded together
    st = np.zeros((N, block * n), np.uint32)
    mpos = np.zeros(block * n, np.int64)
    cseeds = np.zeros(block * n, np.uint64)
    lo = np.zeros(block * n, np.uint32)
    hi1 = np.zeros(block * n, np.uint32)
    mt = np.zeros(N + 1, np.int64)
    hst = np.zeros((N, _AHEAD), np.uint32)
    hmpos = np.zeros(_AHEAD, np.int64)
    hseeds = np.zeros(_AHEAD, np.uint64)
    hlo = np.zeros(_AHEAD, np.uint32)
    hhi1 = np.zeros(_AHEAD, np.uint32)
    hmsgs = np.zeros((_AHEAD, 128), np.uint8)  # a game's seed and a label: one block
    hlengths = np.zeros(_AHEAD, np.int64)
    hm = np.zeros((16, _AHEAD), np.uint64)
    buf = np.zeros(seed_text.shape[0] + 128, np.uint8)
    gbuf = np.zeros(64, np.uint8)
    gt = np.zeros(24, np.uint8)
    mt_text = np.zeros(24, np.uint8)
    n_sub = match_games if match_games > 0 else 1
    work = np.zeros(40, np.uint64)
    sb = np.zeros(64, np.uint8)  # chance model 2: the block of the event's stream read
    ss = np.zeros(2, np.int64)  # and where
    hpos = 0
    total_decisions = 0
    overflow = False

    for g in range(count):
        b = g % block
        if b == 0:
            # ---- the seeds of the next block of games, and their bots' generators
            nb = min(block, count - g)
            seed_games(
                buf, seed_text, first_game + g, nb, n, seeds_out, g, cseeds, st, mpos, lo, hi1,
                mt, work,
            )  # fmt: skip
        game = first_game + g
        mbase = b * n
        shift = game % n if rotate else 0
        for s in range(n):
            bots[s] = seat_bots[(s - shift) % n]
            total[s] = 0
            in_front[s] = 0
        game_start = hpos
        ticks = 0
        capped_rounds = 0
        m_rounds = 0
        for sub in range(n_sub):
            if match_games > 0:  # game ``sub`` of a match: its own seed
                gl = match_game_text(gt, gbuf, mt_text, seeds_out[g], sub, work)
            else:
                gl = put_uint(gt, 0, seeds_out[g])
            chance = 0
            hfirst = -_AHEAD  # the chance event of the block's first generator
            rnd = 1
            new_round = True
            over = False
            tick = 0
            while not over:
                if new_round:
                    # ---- a round: shuffle everything into the heap, deal the lists,
                    # turn the top ones [WT-SETUP-2]
                    new_round = False
                    chance += 1
                    hl = first_list
                    for c in range(first_list):
                        heap[c] = c
                    nlists = n_cards - first_list
                    for c in range(nlists):
                        lists[c] = first_list + c
                    if chance_model == 2:
                        tl = stream_event(sb, ss, gbuf, gt, gl, _L_ROUND, chance, work)
                        stream_shuffle(sb, ss, heap, hl, gbuf, tl, work)
                        stream_shuffle(sb, ss, lists, nlists, gbuf, tl, work)
                    else:
                        seed_event(mt, gbuf, gt, gl, _L_ROUND, chance, work)
                        shuffle(mt, heap, hl)
                        shuffle(mt, lists, nlists)
                    for s in range(n):
                        for i in range(per):
                            stacks[s, i] = lists[s * per + i]
                        sl[s] = per - 1
                        active[s] = stacks[s, per - 1]
                        view[s] = -1
                        held[s] = 0
                        found_n[s] = 0
                        found_v[s] = 0
                        sets_n[s] = 0
                        sets_sum[s] = 0
                        sets_failed[s] = 0
                    tick = 0

                # ---- every seat's choice, from what it sees [WT-TICK-1]
                for s in range(n):
                    vi = 1 if view[s] >= 0 else 0
                    h = held[s]
                    codes = legal_code[vi, h]
                    nl = legal_n[vi, h]
                    col = mbase + s
                    bot = bots[s]
                    if bot == RANDOM_BOT:
                        action = codes[randbelow_col(st, mpos, col, nl)]
                    elif bot == BASELINE_BOT:
                        gi = randbelow_col(st, mpos, col, group_n[vi, h])
                        at = group_start[vi, h, gi]
                        action = codes[at + randbelow_col(st, mpos, col, group_len[vi, h, gi])]
                    else:
                        row = active[s] - first_list if active[s] >= 0 else -1
                        want = _greedy(
                            hand, s, h, view[s], row, matches, price, luxury, sr, cand, slots,
                            st, mpos, col,
                        )  # fmt: skip
                        action = _pick(want, codes, nl)
                    acts[s] = action
                    if record:
                        if hpos < hist.shape[0]:
                            hist[hpos] = action
                            hpos += 1
                        else:
                            overflow = True

                # ---- the tick resolved: looks first, seat by seat [WT-TICK-1/2]
                nb = 0
                for s in range(n):
                    if acts[s] >> 4 == LOOK:
                        hl -= 1
                        card = heap[hl]
                        if card < n_shirts:
                            view[s] = card
                        elif lost_value[card]:
                            found_n[s] += 1
                            found_v[s] += lost_value[card]
                        else:
                            back[nb] = card
                            nb += 1
                ncall = 0
                for s in range(n):
                    is_caller[s] = 0
                    verb = acts[s] >> 4
                    arg = acts[s] & 15
                    if verb == KEEP:  # WT-TICK-4
                        _insort(hand, s, held[s], view[s])
                        held[s] += 1
                        view[s] = -1
                    elif verb == SWAP:  # WT-TICK-4
                        back[nb] = _remove(hand, s, held[s], arg)
                        nb += 1
                        _insort(hand, s, held[s] - 1, view[s])
                        view[s] = -1
                    elif verb == THROW:  # WT-TICK-3
                        back[nb] = view[s]
                        nb += 1
                        view[s] = -1
                    elif verb == DROP:  # WT-TICK-5
                        back[nb] = _remove(hand, s, held[s], arg)
                        nb += 1
                        held[s] -= 1
                    elif verb == BUY:  # WT-TICK-6
                        _lay_down(
                            hand, s, cand, active[s] - first_list, matches, price, luxury, sr,
                            sets_n, sets_sum, sets_failed,
                        )  # fmt: skip
                        held[s] = 0
                        if sl[s] > 0:
                            sl[s] -= 1
                            active[s] = stacks[s, sl[s]]
                        else:
                            active[s] = -1
                            is_caller[s] = 1  # WT-END-1
                            ncall += 1
                if nb and chance_model == 2:
                    chance += 1
                    tl = stream_event(sb, ss, gbuf, gt, gl, _L_HEAP, chance, work)
                    for i in range(nb):  # each card at a random place, in turn [WT-TICK-3]
                        hl = _insert(
                            heap, hl, stream_below(sb, ss, hl + 1, gbuf, tl, work), back[i]
                        )
                elif nb:
                    chance += 1
                    if chance >= hfirst + _AHEAD:
                        hfirst = chance
                        seed_events(
                            hst, hmpos, hseeds, hlo, hhi1, mt, hmsgs, hlengths, hm, gt, gl,
                            _L_HEAP, hfirst,
                        )  # fmt: skip
                    hl = _throw_back(heap, hl, back, nb, hst, hmpos, chance - hfirst)
                tick += 1
                ticks += 1
                capped = False
                if ncall == 0:
                    if tick < round_ticks:
                        continue
                    capped = True  # WT-CAP-1
                # ---- hands off: full hands laid down, the rest thrown back [WT-END-2]
                nb = 0
                for s in range(n):
                    if view[s] >= 0:
                        nb += 1
                        view[s] = -1
                    if held[s] == k and active[s] >= 0:
                        _lay_down(
                            hand, s, cand, active[s] - first_list, matches, price, luxury, sr,
                            sets_n, sets_sum, sets_failed,
                        )  # fmt: skip
                        active[s] = -1
                    else:
                        nb += held[s]
                    held[s] = 0
                if nb:
                    chance += 1  # a throw-back whose places no later draw reads
                # ---- the round scored [WT-SCORE-4/5]
                for s in range(n):
                    points = sets_sum[s]
                    if is_caller[s] and sets_failed[s] and caller_all_or_nothing:
                        points = 0
                    total[s] += points + found_v[s]
                    in_front[s] = sets_n[s] * (k + 1) + found_n[s]
                if capped:
                    capped_rounds += 1
                if rnd >= rounds:  # WT-END-3
                    over = True
                else:
                    rnd += 1
                    new_round = True
            m_rounds += rnd

        # ---- the result: total score, then most cards in front [WT-END-3]
        decisions = ticks * n
        total_decisions += decisions
        out[g, 0] = m_rounds
        out[g, 1] = decisions
        out[g, 2] = 2 if capped_rounds else 1
        out[g, 3] = ticks
        out[g, 4] = capped_rounds
        for s in range(n):
            out[g, 5 + s] = total[s]
            better = 0
            for o in range(n):
                if total[o] > total[s]:
                    better += 1
                elif total[o] == total[s] and match_games == 0 and in_front[o] > in_front[s]:
                    better += 1  # a match ranks by the sums only
            out[g, 5 + n + s] = 1 + better
        if record:
            hist_len[g] = hpos - game_start
    if overflow:
        return -1
    return total_decisions
