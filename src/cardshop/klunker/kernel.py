"""The Klunker batch kernel: whole games of random and greedy bots, compiled with numba.

It plays exactly the games :func:`cardshop.simulate` plays on the reference engine
(same seeds, same chance, same bot choices, same outcomes), about a hundred times
faster, and is what ``simulate(engine="auto")`` uses when it can (docs/kernel.md)::

    from cardshop.klunker import kernel
    kernel.unavailable(variant, 4, ("random",))          # None: the kernel can play it
    outcomes = kernel.play(variant, 4, ("random",), seed=7, start=0, stop=10_000)

The variant is compiled once into :class:`KernelRules`, plain integer arrays (the
"compiled rules" of the kernel, made from :class:`~cardshop.klunker.variant.Rules`).
numba is an optional extra (``python -m pip install ".[kernel]"``); it is imported only
when a kernel runs, never by ``import cardshop``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, NamedTuple

from cardshop.core import Action, SetupError, VariantBase, check_players
from cardshop.kernels import (
    MAX_SEED_TEXT,
    TERMINATIONS,
    OutcomeRow,
    Outcomes,
    available,
    check_call,
    check_range,
    run,
    seat_bot_codes,
    why_not,
)
from cardshop.klunker.variant import Rules, Variant

__all__ = [
    "BOTS",
    "COMPILING",
    "MAX_GAMES",
    "MAX_HISTORY_GAMES",
    "MAX_SEED_TEXT",
    "RELEASES_GIL",
    "KernelRules",
    "OutcomeRow",
    "Outcomes",
    "available",
    "compile_rules",
    "histories",
    "play",
    "play_arrays",
    "prepare",
    "unavailable",
]

BOTS = ("random", "greedy")
"""The bots the kernel plays (their names as :func:`cardshop.bots.make_bot` takes them)."""

RELEASES_GIL = True
"""The compiled game loop runs without the GIL, so ``simulate`` runs its workers as
threads of the calling process: no process to start, no outcomes to pickle back, and
the compiled code loaded once."""

COMPILING = "compiling the Klunker batch kernel (first run only, about a minute)..."
"""The message logged (``INFO``, logger ``cardshop.klunker.kernel``) when a run must
compile the kernel: once a process, on a cache without its machine code (the first run
after an install or an upgrade; docs/kernel.md). The ``simulate`` command shows it."""

_log = logging.getLogger(__name__)
MAX_GAMES = 1_000_000
"""The most games one call plays (``stop - start``): its outcome arrays take up to
about 200 MB. ``simulate`` sends the kernel chunks of a few thousand games."""
MAX_HISTORY_GAMES = 10_000
"""The most games one :func:`histories` call plays (each game's actions are kept)."""

_TIEBREAKS = {"fewest_safe_and_window": 0, "fewest_safe": 1, "fewest_window": 2}
_VERBS = ("window", "done", "store", "pass", "buy", "decline", "sell")


class KernelRules(NamedTuple):
    """A variant's rules for one player count as the kernel's arguments (ints and
    int64 arrays, in the order :func:`cardshop.klunker._kernel_jit.play` takes them)."""

    k: int
    kind_count: Any  # int64[k]: cards of each kind
    alpha: Any  # int64[k]: kind indices in alphabetical order of their names
    hand_size: int
    cash: int  # starting cash of each player
    steps: Any  # int64[steps]: the round's step codes (variant.STEP_CODES)
    set_size: int
    payout: Any  # int64[entries]
    override: Any  # int64[k]: a kind's fixed payout, or -1
    unpaid_to_deck: bool
    price: int
    broke_may_buy: bool
    decline_ends_phase: bool
    tax_due: int  # tax each player pays at this player count
    tax_to_deck: bool
    tiebreak: Any  # int64[rules]: 0 safe and window, 1 safe, 2 window
    round_cap: int
    match_games: int  # games in a match (players x games per player), 0 for no match
    paytab: Any  # int64[k, rows]: the greedy heuristic's payout table
    pow08: Any  # float64[players + 1]: 0.8 ** taken purchase cards
    chance: int  # the variant's chance model (docs/chance.md)


def house_rules(variant: Variant) -> list[str]:
    """The keys of ``variant`` that the kernel does not play, set away from their
    default (docs/kernel.md): the kernel refuses such a variant."""
    keys: list[str] = [key for key in sorted(Variant.OMIT_AT_DEFAULT) if key in variant.to_data()]
    if variant.purchase.price.constant is None:
        keys.append("purchase.price (an expression)")
    if variant.purchase.per_round != 1:
        keys.append("purchase.per_round")
    if variant.sale.pay is not None:
        keys.append("sale.pay")
    if variant.sale.extra_from != "none":
        keys.append("sale.extra_from")
    if any(rule not in _KERNEL_TIEBREAKS for rule in variant.tiebreak):
        other = ", ".join(r for r in variant.tiebreak if r not in _KERNEL_TIEBREAKS)
        keys.append(f"tiebreak ({other})")
    return keys


_KERNEL_TIEBREAKS = frozenset({"fewest_safe_and_window", "fewest_safe", "fewest_window"})


def unavailable(
    variant: VariantBase, players: int, bots: Sequence[object], seed: int = 0
) -> str | None:
    """Why the kernel cannot play these games, or ``None`` when it can."""
    if not isinstance(variant, Variant):
        return f"the kernel plays Klunker variants, not the {variant.family!r} family"
    return why_not(bots, BOTS, house_rules(variant), seed)


_COMPILED: dict[tuple[str, int], KernelRules] = {}


def compile_rules(variant: Variant, players: int) -> KernelRules:
    """The kernel's arrays for ``variant`` at ``players`` (made once, then cached).

    Raises :class:`~cardshop.SetupError` for a variant of another family or a player
    count outside the variant's range."""
    if not isinstance(variant, Variant):
        family = getattr(variant, "family", type(variant).__name__)
        raise SetupError(f"the kernel compiles Klunker variants, not the {family!r} family")
    check_players(variant, players)
    house = house_rules(variant)
    if house:
        raise SetupError(f"the kernel cannot play {', '.join(house)}; the reference engine will")
    import numpy as np

    key = (variant.content_hash, players)
    made = _COMPILED.get(key)
    if made is not None:
        return made
    rules: Rules = variant.rules
    k = rules.k
    start = rules.kind_start
    most = rules.n_cards // rules.set_size + 2
    made = KernelRules(
        k=k,
        kind_count=np.array([start[i + 1] - start[i] for i in range(k)], dtype=np.int64),
        alpha=np.array(rules.alpha, dtype=np.int64),
        hand_size=rules.hand_size,
        cash=rules.starting_cash[players],
        steps=np.array(rules.steps, dtype=np.int64),
        set_size=rules.set_size,
        payout=np.array(rules.payout, dtype=np.int64),
        override=np.array(rules.override, dtype=np.int64),
        unpaid_to_deck=rules.unpaid_to_deck,
        price=rules.price,
        broke_may_buy=rules.broke_may_buy,
        decline_ends_phase=rules.decline_ends_phase,
        tax_due=rules.tax.get(players, 0),
        tax_to_deck=rules.tax_to_deck,
        tiebreak=np.array([_TIEBREAKS[t] for t in rules.tiebreak], dtype=np.int64),
        round_cap=rules.round_cap,
        match_games=players * rules.games_per_player if rules.games_per_player else 0,
        paytab=np.array(
            [[rules.pay_for(kind, rows) for rows in range(most)] for kind in range(k)],
            dtype=np.int64,
        ),
        pow08=np.array([0.8**t for t in range(players + 1)], dtype=np.float64),
        chance=variant.chance,
    )
    _COMPILED[key] = made
    return made


def _check(variant: VariantBase, players: int, bots: Sequence[object], seed: int) -> Variant:
    check_call(variant, players, bots, unavailable(variant, players, bots, seed))
    assert isinstance(variant, Variant)
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
    import numpy as np

    from cardshop.klunker import _kernel_jit

    var = _check(variant, players, bots, seed)
    rules = compile_rules(var, players)
    count = stop - start
    out = np.zeros((count, 4 + 2 * players), dtype=np.int64)
    seeds = np.zeros(count, dtype=np.uint64)
    lengths = np.zeros(count, dtype=np.int64)
    text = np.frombuffer(repr(seed).encode(), dtype=np.uint8).copy()
    args = (
        *rules, players, text, start, count, seat_bot_codes(bots, players, BOTS), rotate,
        record,
    )  # fmt: skip
    _, hist = run(
        _kernel_jit.play, (*args, out, seeds, lengths), 512 * count if record else 1, _log,
        COMPILING,
    )  # fmt: skip
    return out, seeds, lengths, hist


def prepare(variant: VariantBase, players: int) -> None:
    """Load the kernel's compiled code into this process (importing numba, reading
    the cached machine code: about 1.5 s of CPU the first time, nothing after).

    ``simulate`` calls it before it starts a pool of forked worker processes, which
    then inherit the loaded code instead of each loading it again."""
    if isinstance(variant, Variant) and available():
        _run(variant, players, ("random",), 0, 0, 1, False, False)


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
    """Games ``start .. stop-1`` of a simulation as arrays, for audits of many games.

    Returns ``(table, seeds)``: ``table[i]`` is ``[first_player, rounds, decisions,
    termination (1 finished, 2 capped), score of each seat..., rank of each seat...]``
    (int64) and ``seeds[i]`` the game's seed (uint64), for game ``start + i``.
    """
    out, seeds, _, _ = _run(variant, players, bots, seed, start, stop, rotate, False)
    return out, seeds


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
    rotate=rotate)`` as a sequence of :class:`OutcomeRow` (the fields of its
    ``GameOutcome`` objects; :class:`Outcomes`: compact arrays until read)."""
    out, seeds, _, _ = _run(variant, players, bots, seed, start, stop, rotate, False)
    return Outcomes.of(variant, players, bots, start, rotate, out, seeds, _outcomes)


_new = tuple.__new__
"""Builds an :class:`OutcomeRow` from a tuple of its fields without the named tuple's
Python-level ``__new__`` (a third of the time of making the rows)."""


def _outcomes(made: Outcomes) -> list[Any]:
    """The rows of the kernel's table: ``[first_player, rounds, decisions,
    termination, scores..., ranks...]``."""
    players = made.players
    details = {"games": made.match_games} if made.match_games else {}
    head = 4 + players
    tail = 4 + 2 * players
    result: list[Any] = []
    append = result.append
    for game, game_seed, row, seated in made.seated():
        ranks = tuple(row[head:tail])
        append(
            _new(  # OutcomeRow(...) without its Python-level __new__
                OutcomeRow,
                (
                    game,
                    game_seed,
                    row[0],
                    seated,
                    tuple(row[4:head]),
                    ranks,
                    tuple([s for s in range(players) if ranks[s] == 1]),
                    row[1],
                    row[2],
                    TERMINATIONS[row[3]],
                    row[2],
                    dict(details),
                ),
            )
        )
    return result


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
    """Like :func:`play`, with each game's actions in order (for differential tests)."""
    out, seeds, lengths, hist = _run(variant, players, bots, seed, start, stop, rotate, True)
    assert isinstance(variant, Variant)
    rules = variant.rules
    decoded: list[list[Action]] = []
    pos = 0
    flat = hist[: int(lengths.sum())].tolist()
    for length in lengths.tolist():
        actions = []
        for code in flat[pos : pos + length]:
            verb, arg = _VERBS[code >> 10], code & 1023
            if verb in ("window", "store", "sell"):
                actions.append(Action(verb, rules.kinds[arg]))
            elif verb == "buy":
                actions.append(Action(verb, arg))
            else:
                actions.append(Action(verb))
        decoded.append(actions)
        pos += length
    outcomes = Outcomes.of(variant, players, bots, start, rotate, out, seeds, _outcomes)
    return list(zip(outcomes, decoded, strict=True))
