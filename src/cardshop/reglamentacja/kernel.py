"""The Reglamentacja batch kernel: whole games of the random, baseline and greedy bots,
compiled with numba.

It plays exactly the games :func:`cardshop.simulate` plays on the reference engine
(same seeds, same shuffles, spins, dice and reshuffles, same bot choices, same
outcomes), and is what ``simulate(engine="auto")`` uses when it can (docs/kernel.md)::

    from cardshop.reglamentacja import kernel
    kernel.unavailable(variant, 4, ("greedy",))          # None: the kernel can play it
    outcomes = kernel.play(variant, 4, ("greedy",), seed=7, start=0, stop=10_000)

The variant's rules at a player count are passed as plain integer arrays
(:class:`KernelRules`, made from :class:`~cardshop.reglamentacja.rules.Rules` and the
variant's offer table). Every key of the variant format is played. numba is an
optional extra (``python -m pip install ".[kernel]"``); it is imported only when a
kernel runs, never by ``import cardshop``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, NamedTuple

from cardshop.core import Action, SetupError, VariantBase
from cardshop.kernels import (
    TERMINATIONS,
    OutcomeRow,
    Outcomes,
    check_call,
    check_range,
    play_games,
    why_not,
    winners_of,
)
from cardshop.reglamentacja.game import ACCEPT, PASS, REJECT, STATS, STOP
from cardshop.reglamentacja.offers import offer_table
from cardshop.reglamentacja.variant import ReglamentacjaVariant

__all__ = [
    "BOTS",
    "COMPILING",
    "MAX_GAMES",
    "MAX_HISTORY_GAMES",
    "RELEASES_GIL",
    "KernelRules",
    "chunk_games",
    "compile_rules",
    "histories",
    "play",
    "play_arrays",
    "prepare",
    "unavailable",
]

BOTS = ("random", "baseline", "greedy")
"""The bots the kernel plays (their names as :func:`cardshop.bots.make_bot` takes them)."""

RELEASES_GIL = True
"""The compiled game loop runs without the GIL: ``simulate`` runs its workers as
threads of the calling process."""

COMPILING = "compiling the Reglamentacja batch kernel (first run only, about half a minute)..."
"""The message logged (``INFO``, logger ``cardshop.reglamentacja.kernel``) when a run
must compile the kernel (docs/kernel.md). The ``simulate`` command shows it."""

MAX_GAMES = 1_000_000
"""The most games one call plays (``stop - start``)."""
MAX_HISTORY_GAMES = 1_000
"""The most games one :func:`histories` call plays (every move is kept: a game of
random players makes some six hundred at 4 players, one at the turn cap thousands)."""

_log = logging.getLogger(__name__)

# The columns of the kernel's table before the scores (_kernel_jit.HEAD): first player,
# turns, decisions, termination, then the counters of game.stats.
_HEAD = 4 + len(STATS)


def chunk_games(players: int, bots: Sequence[object]) -> int:
    """The most games ``simulate`` gives the kernel in one task (a task runs without a
    pause, so a stop or a progress report waits for it): a tenth of a second or so of
    play. At 4 players the kernel plays some 3,000 games a second of greedy players
    and 5,000 of random or baseline ones (docs/kernel.md)."""
    names = {str(b).strip() for b in bots}
    return 300 if "greedy" in names else 500


class KernelRules(NamedTuple):
    """A variant's rules at a player count as the kernel's arguments, in the order
    :func:`cardshop.reglamentacja._kernel_jit.play` takes them (ints and int64 arrays)."""

    k: int
    n_stamps: int
    stamp_kind: Any  # int64[n_stamps]
    kind_start: Any  # int64[k + 1]
    alpha: Any  # int64[k]
    n_cards: int
    card_cost: Any  # int64[n_cards, k]
    card_need: Any  # int64[n_cards]
    card_cat: Any  # int64[n_cards]
    card_icons: Any  # int64[n_cards]
    visit_mult: Any  # int64[visits, categories]
    visit_pool: Any  # int64[visits dealt at this player count]
    row_size: int
    deal: int
    allocation: int
    shop_draw: int
    hand_limit: int
    spin_min: int
    spin_max: int
    has_spec: bool
    die_sides: int
    final_stamps: int
    turn_cap: int
    queue_places: bool
    ms: Any  # int64[multisets, k]
    n_offer: int
    price_sets: Any  # int64[prices]
    gives: Any  # int64[positions]: the offer table
    takes: Any
    places: Any
    run_start: Any  # int64[runs]
    run_len: Any
    cap: int  # rules.hand_cap
    give_level: Any  # int64[k, cap + 1, words]: bit sets of the gives a count allows
    run_level: Any  # int64[k, cap + 1, words]: of the runs
    price_level: Any  # int64[k, cap + 1, words]: of the speculator's prices
    block_sums: Any  # int64[blocks, 256]: offers per block of 8 runs and held runs
    takes_of: Any  # int64[n_offer, most]
    takes_n: Any  # int64[n_offer]
    others_text: Any  # int64[players, players - 1]
    chance: int  # the variant's chance model (docs/chance.md)


def unavailable(
    variant: VariantBase, players: int, bots: Sequence[object], seed: int = 0
) -> str | None:
    """Why the kernel cannot play these games, or ``None`` when it can. Every key of a
    Reglamentacja variant is played, so only the bots, the seed and numba decide."""
    if not isinstance(variant, ReglamentacjaVariant):
        return f"the kernel plays Reglamentacja variants, not the {variant.family!r} family"
    return why_not(bots, BOTS, (), seed)


_COMPILED: dict[tuple[str, int], KernelRules] = {}


def compile_rules(variant: ReglamentacjaVariant, players: int) -> KernelRules:
    """The kernel's arrays for ``variant`` at ``players`` players (made once, then
    cached). Raises :class:`~cardshop.SetupError` for a variant of another family."""
    if not isinstance(variant, ReglamentacjaVariant):
        family = getattr(variant, "family", type(variant).__name__)
        raise SetupError(f"the kernel compiles Reglamentacja variants, not the {family!r} family")
    key = (variant.content_hash, players)
    made = _COMPILED.get(key)
    if made is not None:
        return made
    import numpy as np

    def ints(values: Any) -> Any:
        return np.array(values, dtype=np.int64)

    rules = variant.rules_for(players)
    table = offer_table(rules)
    k = rules.k
    pool = list(range(rules.n_visits))
    if players == 3 and rules.without_meal_visits:
        pool = [v for v in pool if v not in rules.meal_visits]
    most = max(len(t) for t in table.takes_of)
    takes_of = np.zeros((table.n_offer, most), dtype=np.int64)
    for g, row in enumerate(table.takes_of):
        takes_of[g, : len(row)] = row
    others = [sorted((s for s in range(players) if s != seat), key=str) for seat in range(players)]
    ms = rules.multisets
    cap = rules.hand_cap
    made = KernelRules(
        k=k,
        n_stamps=rules.n_stamps,
        stamp_kind=ints(rules.stamp_kind),
        kind_start=ints(rules.kind_start),
        alpha=ints(rules.alpha),
        n_cards=rules.n_cards,
        card_cost=ints(rules.card_cost).reshape(rules.n_cards, k),
        card_need=ints([sum(cost) for cost in rules.card_cost]),
        card_cat=ints(rules.card_cat),
        card_icons=ints(rules.card_icons),
        visit_mult=ints(rules.visit_mult).reshape(rules.n_visits, len(rules.categories)),
        visit_pool=ints(pool),
        row_size=rules.row_size,
        deal=rules.deal,
        allocation=rules.allocation,
        shop_draw=rules.shop_draw,
        hand_limit=rules.hand_limit,
        spin_min=rules.spin_min,
        spin_max=rules.spin_max,
        has_spec=rules.has_speculator,
        die_sides=rules.die_sides,
        final_stamps=rules.final_stamps,
        turn_cap=rules.turn_cap,
        queue_places=rules.queue_places,
        ms=ints(rules.multisets).reshape(len(rules.multisets), k),
        n_offer=table.n_offer,
        price_sets=ints(rules.price_sets),
        gives=ints(table.gives),
        takes=ints(table.takes),
        places=ints(table.places),
        run_start=ints(table.run_start),
        run_len=ints(table.run_len),
        cap=cap,
        give_level=_levels(ms[: table.n_offer], k, cap),
        run_level=_levels([ms[g] for g in table.run_give], k, cap),
        price_level=_levels([ms[m] for m in rules.price_sets], k, cap),
        block_sums=ints(table.block_sums).reshape(table.n_blocks, 256),
        takes_of=takes_of,
        takes_n=ints([len(t) for t in table.takes_of]),
        others_text=ints(others).reshape(players, players - 1),
        chance=variant.chance,
    )
    _COMPILED[key] = made
    return made


def _levels(needs: Sequence[Sequence[int]], k: int, cap: int) -> Any:
    """Per kind and count held (capped at ``cap``): the bit set of the ``needs``
    (multisets, counts per kind) that need no more of that kind, as int64 words (bit
    ``j`` in word ``j // 64``); a hand holds a multiset when every kind's set has it."""
    import numpy as np

    words = max(1, (len(needs) + 63) // 64)
    out = np.zeros((k, cap + 1, words), dtype=np.int64)
    for i in range(k):
        for c in range(cap + 1):
            bits = sum(1 << j for j, need in enumerate(needs) if need[i] <= c)
            for w in range(words):
                word = bits >> (64 * w) & (2**64 - 1)
                out[i, c, w] = word - 2**64 if word >= 2**63 else word
    return out


def _check(
    variant: VariantBase, players: int, bots: Sequence[object], seed: int
) -> ReglamentacjaVariant:
    check_call(variant, players, bots, unavailable(variant, players, bots, seed))
    assert isinstance(variant, ReglamentacjaVariant)
    return variant


def _run(
    variant: VariantBase,
    players: int,
    bots: Sequence[object],
    seed: int,
    start: int,
    stop: int,
    rotate: bool,
    record: bool,
) -> tuple[Any, Any, Any, Any]:
    check_range(start, stop, MAX_HISTORY_GAMES if record else MAX_GAMES)
    from cardshop.reglamentacja import _kernel_jit

    rules = compile_rules(_check(variant, players, bots, seed), players)
    layout = (BOTS, _HEAD + 2 * players, 1024)  # bots, the table's columns, room for a game
    return play_games(
        _kernel_jit.play, rules, variant, players, bots, seed, start, stop, rotate, record,
        layout, _log, COMPILING,
    )  # fmt: skip


def prepare(variant: VariantBase, players: int) -> None:
    """Load the kernel's compiled code into this process (the first time: numba's
    import and the cached machine code; nothing after)."""
    if unavailable(variant, players, ("random",)) is None:
        _run(variant, players, ("greedy",), 0, 0, 1, False, False)


def play_arrays(
    variant: VariantBase,
    players: int,
    bots: Sequence[str],
    seed: int,
    start: int,
    stop: int,
    *,
    rotate: bool = False,
) -> tuple[Any, Any]:
    """Games ``start .. stop-1`` of a simulation as arrays, for many games at once.

    Returns ``(table, seeds)``: ``table[i]`` is ``[first player, turns, decisions,
    termination (1 finished, 2 capped), the counters of game.stats (in the order of
    cardshop.reglamentacja.game.STATS)..., score of each seat..., rank of each
    seat...]`` (int64) and ``seeds[i]`` the game's seed (uint64), for game
    ``start + i``."""
    out, seeds, _, _ = _run(variant, players, bots, seed, start, stop, rotate, False)
    return out, seeds


def _outcomes(made: Outcomes) -> list[Any]:
    """The rows of the kernel's table (:func:`play_arrays`)."""
    players = made.players
    tail = _HEAD + 2 * players
    result: list[Any] = []
    for game, game_seed, row, seated in made.seated():
        ranks = tuple(row[_HEAD + players : tail])
        details = dict(zip(STATS, row[4:_HEAD], strict=True))
        if made.match_games:
            details["games"] = made.match_games
        result.append(
            OutcomeRow(
                game,
                game_seed,
                row[0],
                seated,
                tuple(row[_HEAD : _HEAD + players]),
                ranks,
                winners_of(ranks),
                row[1],
                row[2],
                TERMINATIONS[row[3]],
                row[2],
                details,
            )
        )
    return result


def play(
    variant: VariantBase,
    players: int,
    bots: Sequence[str],
    seed: int,
    start: int,
    stop: int,
    *,
    rotate: bool = False,
) -> Outcomes:
    """Games ``start .. stop-1`` of ``simulate(variant, players, stop, bots, seed,
    rotate=rotate)`` as a sequence of :class:`~cardshop.kernels.OutcomeRow` (the fields
    of its ``GameOutcome`` objects; :class:`~cardshop.kernels.Outcomes`: compact arrays
    until read)."""
    out, seeds, _, _ = _run(variant, players, bots, seed, start, stop, rotate, False)
    return Outcomes.of(variant, players, bots, start, rotate, out, seeds, _outcomes)


def _action(variant: ReglamentacjaVariant, players: int, code: int) -> Action:
    """An action of the kernel's history (``_kernel_jit.code_of``) as the game's."""
    rules = variant.rules_for(players)
    verb, a = code & 15, (code >> 4) & 4095
    give, take, place = (code >> 16) & 4095, (code >> 28) & 4095, (code >> 40) & 1
    if verb == 0:
        return Action("offer", rules.offer_text(a, give, take, bool(place)))
    if verb in (3, 4):
        mode = "draw" if verb == 3 else "swap"
        return Action("speculate", f"{mode} {rules.ms_text[a]}")
    if verb == 7:
        return rules.discard_actions[a]
    if verb == 8:
        return rules.buy_actions[a - 1]
    return {1: ACCEPT, 2: REJECT, 5: STOP, 6: PASS}[verb]


def histories(
    variant: VariantBase,
    players: int,
    bots: Sequence[str],
    seed: int,
    start: int,
    stop: int,
    *,
    rotate: bool = False,
) -> list[tuple[Any, list[Action]]]:
    """Like :func:`play`, with each game's moves in order (a match's: its games' in
    turn), for differential tests."""
    out, seeds, lengths, hist = _run(variant, players, bots, seed, start, stop, rotate, True)
    assert isinstance(variant, ReglamentacjaVariant)
    decoded: list[list[Action]] = []
    pos = 0
    flat = hist[: int(lengths.sum())].tolist()
    for length in lengths.tolist():
        decoded.append([_action(variant, players, code) for code in flat[pos : pos + length]])
        pos += length
    outcomes = Outcomes.of(variant, players, bots, start, rotate, out, seeds, _outcomes)
    return list(zip(outcomes, decoded, strict=True))
