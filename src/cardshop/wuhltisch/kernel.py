"""The Wühltisch batch kernel: whole games of the random, baseline and greedy bots,
compiled with numba.

It plays exactly the games :func:`cardshop.simulate` plays on the reference engine
(same seeds, same shuffles and throw-backs, same bot choices, same outcomes), and is
what ``simulate(engine="auto")`` uses when it can (docs/kernel.md)::

    from cardshop.wuhltisch import kernel
    kernel.unavailable(variant, 4, ("greedy",))          # None: the kernel can play it
    outcomes = kernel.play(variant, 4, ("greedy",), seed=7, start=0, stop=10_000)

The variant's rules are passed as plain integer arrays (:class:`KernelRules`, made
from :class:`~cardshop.wuhltisch.rules.WuhltischRules`). numba is an optional extra
(``python -m pip install ".[kernel]"``); it is imported only when a kernel runs, never
by ``import cardshop``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, NamedTuple

from cardshop.core import Action, SetupError, VariantBase, actions_by_verb
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
from cardshop.wuhltisch.variant import WuhltischVariant

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
    "house_rules",
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

COMPILING = "compiling the Wühltisch batch kernel (first run only, about half a minute)..."
"""The message logged (``INFO``, logger ``cardshop.wuhltisch.kernel``) when a run must
compile the kernel (docs/kernel.md). The ``simulate`` command shows it."""

MAX_GAMES = 1_000_000
"""The most games one call plays (``stop - start``)."""
MAX_HISTORY_GAMES = 1_000
"""The most games one :func:`histories` call plays (every seat's action of every tick is
kept: a game of random bots runs to some 44,000 of them at 4 players)."""

_log = logging.getLogger(__name__)


def chunk_games(players: int, bots: Sequence[object]) -> int:
    """The most games ``simulate`` gives the kernel in one task (a task runs without a
    pause, so a stop or a progress report waits for it): a tenth of a second or so of
    play. Random and baseline players play into the tick cap (some 150 and 570 games a
    second at 4 players), greedy ones call their rounds (some 3,000 a second)."""
    names = {str(b).strip() for b in bots}
    if "random" in names:
        return 20
    return 60 if "baseline" in names else 400


_VERBS = ("look", "keep", "swap", "throw", "drop", "buy", "wait")


class KernelRules(NamedTuple):
    """A variant's rules as the kernel's arguments, in the order
    :func:`cardshop.wuhltisch._kernel_jit.play` takes them (ints and int64 arrays)."""

    n_shirts: int
    first_list: int
    n_cards: int
    lost_value: Any  # int64[cards]
    matches: Any  # int64[lists, shirts]
    price: Any  # int64[shirts]
    luxury: Any  # int64[shirts]
    list_size: int
    set_size: int
    budget: int
    threshold: int
    max_matches: int
    all_match_bonus: int
    luxury_bonus: int
    caller_all_or_nothing: bool
    round_ticks: int
    rounds: int
    lists_per_player: int
    cheapest: int
    legal_code: Any  # int64[2, set_size + 1, most]: the sorted legal actions, coded
    legal_n: Any  # int64[2, set_size + 1]
    group_start: Any  # int64[2, set_size + 1, verbs]: each verb's first action there
    group_len: Any  # int64[2, set_size + 1, verbs]
    group_n: Any  # int64[2, set_size + 1]
    chance: int  # the variant's chance model (docs/chance.md)


def house_rules(variant: WuhltischVariant) -> list[str]:
    """The keys of ``variant`` that the kernel does not play (docs/kernel.md): its score
    terms, which are expressions (WT-SCORE-6/7). Every other key is played."""
    keys = [
        f"score.{'per_set' if level == 'set' else 'per_round'}.{name} (a score term)"
        for level, name, _ in variant.score.sources()
    ]
    return keys


def unavailable(
    variant: VariantBase, players: int, bots: Sequence[object], seed: int = 0
) -> str | None:
    """Why the kernel cannot play these games, or ``None`` when it can."""
    if not isinstance(variant, WuhltischVariant):
        return f"the kernel plays Wühltisch variants, not the {variant.family!r} family"
    return why_not(bots, BOTS, house_rules(variant), seed)


def _code(action: Action) -> int:
    return (_VERBS.index(action.verb) << 4) | (action.arg if isinstance(action.arg, int) else 0)


_COMPILED: dict[str, KernelRules] = {}


def compile_rules(variant: WuhltischVariant) -> KernelRules:
    """The kernel's arrays for ``variant`` (made once, then cached).

    Raises :class:`~cardshop.SetupError` for a variant of another family or one with
    score terms."""
    if not isinstance(variant, WuhltischVariant):
        family = getattr(variant, "family", type(variant).__name__)
        raise SetupError(f"the kernel compiles Wühltisch variants, not the {family!r} family")
    house = house_rules(variant)
    if house:
        raise SetupError(f"the kernel cannot play {', '.join(house)}; the reference engine will")
    made = _COMPILED.get(variant.content_hash)
    if made is not None:
        return made
    import numpy as np

    rules = variant.rules
    k = rules.set_size
    table = rules.legal_table
    most = max(len(actions) for row in table for actions in row)
    legal_code = np.zeros((2, k + 1, most), dtype=np.int64)
    legal_n = np.zeros((2, k + 1), dtype=np.int64)
    group_start = np.zeros((2, k + 1, len(_VERBS)), dtype=np.int64)
    group_len = np.zeros((2, k + 1, len(_VERBS)), dtype=np.int64)
    group_n = np.zeros((2, k + 1), dtype=np.int64)
    for view in range(2):
        for held in range(k + 1):
            actions = table[view][held]
            legal_n[view, held] = len(actions)
            for i, action in enumerate(actions):
                legal_code[view, held, i] = _code(action)
            # The baseline bot's verbs, in the order choose_by_verb lists them; the
            # actions of a verb are next to each other in the sorted list.
            by_verb = actions_by_verb(actions)
            group_n[view, held] = len(by_verb)
            for g, same in enumerate(by_verb.values()):
                at = actions.index(same[0])
                assert list(actions[at : at + len(same)]) == same
                group_start[view, held, g] = at
                group_len[view, held, g] = len(same)
    made = KernelRules(
        n_shirts=rules.n_shirts,
        first_list=rules.first_list,
        n_cards=rules.n_cards,
        lost_value=np.array(rules.lost_value, dtype=np.int64),
        matches=np.array(rules.matches, dtype=np.int64).reshape(rules.n_lists, rules.n_shirts),
        price=np.array(rules.price, dtype=np.int64),
        luxury=np.array([1 if x else 0 for x in rules.luxury], dtype=np.int64),
        list_size=rules.list_size,
        set_size=k,
        budget=rules.budget,
        threshold=rules.threshold,
        max_matches=rules.max_matches,
        all_match_bonus=rules.all_match_bonus,
        luxury_bonus=rules.luxury_bonus,
        caller_all_or_nothing=rules.caller_all_or_nothing,
        round_ticks=rules.round_ticks,
        rounds=rules.rounds,
        lists_per_player=rules.lists_per_player,
        cheapest=min(rules.price),
        legal_code=legal_code,
        legal_n=legal_n,
        group_start=group_start,
        group_len=group_len,
        group_n=group_n,
        chance=variant.chance,
    )
    _COMPILED[variant.content_hash] = made
    return made


def _check(
    variant: VariantBase, players: int, bots: Sequence[object], seed: int
) -> WuhltischVariant:
    check_call(variant, players, bots, unavailable(variant, players, bots, seed))
    assert isinstance(variant, WuhltischVariant)
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
    from cardshop.wuhltisch import _kernel_jit

    rules = compile_rules(_check(variant, players, bots, seed))
    layout = (BOTS, 5 + 2 * players, 4096)  # bots, the table's columns, room for a game
    return play_games(
        _kernel_jit.play, rules, variant, players, bots, seed, start, stop, rotate, record,
        layout, _log, COMPILING,
    )  # fmt: skip


def prepare(variant: VariantBase, players: int) -> None:
    """Load the kernel's compiled code into this process (the first time: numba's
    import and the cached machine code; nothing after)."""
    if unavailable(variant, players, ("random",)) is None:
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
    """Games ``start .. stop-1`` of a simulation as arrays, for many games at once.

    Returns ``(table, seeds)``: ``table[i]`` is ``[rounds, decisions, termination (1
    finished, 2 capped), ticks, capped rounds, score of each seat..., rank of each
    seat...]`` (int64) and ``seeds[i]`` the game's seed (uint64), for game ``start + i``.
    """
    out, seeds, _, _ = _run(variant, players, bots, seed, start, stop, rotate, False)
    return out, seeds


def _details(ticks: int, capped_rounds: int, games: int) -> dict[str, int]:
    """A game's ``details`` (a match's: its games' summed, and how many games)."""
    if games:
        return {"ticks": ticks, "capped_rounds": capped_rounds, "games": games}
    return {"ticks": ticks, "capped_rounds": capped_rounds}


def _outcomes(made: Outcomes) -> list[Any]:
    """The rows of the kernel's table (:func:`play_arrays`)."""
    players = made.players
    head = 5 + players
    tail = 5 + 2 * players
    result: list[Any] = []
    for game, game_seed, row, seated in made.seated():
        ranks = tuple(row[head:tail])
        result.append(
            OutcomeRow(
                game,
                game_seed,
                None,
                seated,
                tuple(row[5:head]),
                ranks,
                winners_of(ranks),
                row[0],
                row[1],
                TERMINATIONS[row[2]],
                row[3],
                _details(row[3], row[4], made.match_games),
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
    """Like :func:`play`, with each game's moves in order (every seat's action of each
    tick, seat by seat: the game's ``moves``), for differential tests."""
    out, seeds, lengths, hist = _run(variant, players, bots, seed, start, stop, rotate, True)
    assert isinstance(variant, WuhltischVariant)
    by_text = variant.rules.actions_by_text
    decoded: list[list[Action]] = []
    pos = 0
    flat = hist[: int(lengths.sum())].tolist()
    for length in lengths.tolist():
        actions = []
        for code in flat[pos : pos + length]:
            verb, arg = _VERBS[code >> 4], code & 15
            actions.append(by_text[f"{verb} {arg}" if verb in ("swap", "drop") else verb])
        decoded.append(actions)
        pos += length
    outcomes = Outcomes.of(variant, players, bots, start, rotate, out, seeds, _outcomes)
    return list(zip(outcomes, decoded, strict=True))
