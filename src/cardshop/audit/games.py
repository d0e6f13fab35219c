"""The audit's games: simulated games played by bots, each checked in debug mode.

The games of one player count are a :class:`GamesJob`; :func:`play_games` plays and
checks them, in this process or in chunks on a pool of worker processes, and yields
each game's violation (if any) and summary in the order of the games.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass

from cardshop import driver
from cardshop.bots import Bot, make_bot
from cardshop.core.chance import derive_seed
from cardshop.core.frontdoor import Resolved
from cardshop.core.game import (
    Dynamics,
    Game,
)
from cardshop.invariants import (
    CheckedGame,
    Counterexample,
    InvariantViolation,
    LegalMemo,
    active_memo,
    shared_memo,
)
from cardshop.measures import (
    GameSummary,
    Tracker,
)

__all__ = ["CHUNK", "GamesJob", "Played", "audit_bots", "audit_game", "play_games"]


def audit_bots(
    names: Sequence[str], subject: Resolved, seed: int, players: int, index: int, replay: int = 0
) -> list[Bot]:
    """The bots of game ``index`` of ``players``: ``names`` seat by seat in turn, each
    seeded from the audit's seed, the game and the seat (and, for replay ``replay`` above
    0 of the game's deal, the replay: the same bots in the same seats, seeded anew)."""
    return [
        make_bot(names[seat % len(names)], subject, _bot_seed(seed, players, index, seat, replay))
        for seat in range(players)
    ]


def _bot_seed(seed: int, players: int, index: int, seat: int, replay: int) -> int:
    if replay == 0:  # the game's bots without replays
        return derive_seed(seed, "audit-bot", players, index, seat)
    return derive_seed(seed, "audit-bot", players, index, seat, "replay", replay)


def audit_game(
    subject: Resolved,
    players: int,
    seed: int,
    index: int,
    checks: frozenset[str],
    every: int,
    names: Sequence[str],
    replay: int = 0,
) -> tuple[Game, InvariantViolation | None, GameSummary | None]:
    """Play one simulated game with bots, in debug mode until the first violation.

    The game comes back unfinished, without a summary, if a step failed (a fault of
    the engine). ``replay`` above 0 plays the deal of game ``index`` again with the same
    bots in the same seats, seeded anew (:func:`audit_bots`); its summary says which
    replay it is.
    """
    game = subject.new_game(players, derive_seed(seed, "audit-game", players, index))
    tracker = Tracker(
        game,
        audit_bots(names, subject, seed, players, index, replay),
        [names[seat % len(names)] for seat in range(players)],
    )
    bots = tracker.players
    violation: InvariantViolation | None = None
    checked: CheckedGame | None = None
    if checks:
        try:
            checked = CheckedGame(game, checks=checks, every=every, variant_ref=subject.ref)
        except InvariantViolation as exc:
            violation = exc
    turn_based = game.dynamics is Dynamics.SEQUENTIAL
    while not game.is_over:
        # The checked steps so far (not len(game.moves): a game's moves are built anew
        # on each reading, which on every step made long games quadratic).
        played = 0 if checked is None else checked.steps
        try:
            actions = driver.choose(game, bots)
            if checked is None:
                driver.apply(game, actions)
            elif turn_based and len(actions) == 1:
                ((seat, action),) = actions.items()
                checked.apply(action, seat)
            else:
                checked.apply_joint(actions)
        except InvariantViolation as exc:
            failed = checked is not None and checked.steps == played  # the step itself
            violation, checked = exc, None
            if failed:
                break
        except Exception:  # an engine fault that no invariant still checked reports
            break
        tracker.after_step()
    summary: GameSummary | None = None
    if game.is_over:
        try:
            summary = tracker.summary()
        except Exception:  # a result the engine cannot give: an engine fault
            summary = None
    if summary is not None and replay:
        summary = dataclasses.replace(summary, replay=replay)
    return game, violation, summary


@dataclass(frozen=True, slots=True)
class GamesJob:
    """What a worker needs to play and check the simulated games of one player count
    (it pickles: a :class:`~cardshop.core.frontdoor.Resolved` pickles as its variant)."""

    subject: Resolved
    players: int
    seed: int
    every: int
    names: tuple[str, ...]
    replays: int = 1
    """Game ``i`` of the job is replay ``i % replays`` of deal ``i // replays``."""
    checked: int | None = None
    """The deals played in debug mode (every replay of deals ``0 .. checked - 1``);
    later ones are played and measured only (``None``: every deal is checked)."""


Played = tuple[tuple[str, Counterexample | None] | None, GameSummary | None]
"""One simulated game: the violation found (invariant, counterexample), its summary."""

CHUNK = 8
"""Simulated games a worker plays per task (after the first tasks, which play fewer)."""


def _play_chunk(job: GamesJob, indices: range, checks: frozenset[str]) -> list[Played]:
    """Play and check the games ``indices`` of ``job`` (in a worker, or here)."""
    global _WORKER_MEMO
    memo = active_memo()
    if memo is None:  # a worker process: one memo for every task it runs
        memo = _WORKER_MEMO = _WORKER_MEMO or LegalMemo()
    out: list[Played] = []
    with shared_memo(memo):
        for i in indices:
            deal, replay = divmod(i, job.replays)
            wanted = checks if job.checked is None or deal < job.checked else frozenset()
            _game, violation, summary = audit_game(
                job.subject, job.players, job.seed, deal, wanted, job.every, job.names, replay
            )
            fault = None if violation is None else (violation.invariant, violation.counterexample)
            if fault is not None:
                checks = checks - {fault[0]}
            out.append((fault, summary))
    return out


_WORKER_MEMO: LegalMemo | None = None
"""The memo of the legal-actions check of a worker process's games."""


def play_games(
    job: GamesJob, games: int, checks: frozenset[str], pool: Executor | None
) -> Iterator[Played]:
    """The games of ``job`` in order, played here one by one or by ``pool`` in chunks.

    Without a pool, a violation found stops that invariant's checks in later games;
    with one, chunks already sent check what held when they were sent."""
    if pool is None:
        for i in range(games):
            ((fault, summary),) = _play_chunk(job, range(i, i + 1), checks)
            if fault is not None:
                checks = checks - {fault[0]}
            yield fault, summary
        return
    ahead = 2 * max(1, getattr(pool, "_max_workers", 1))  # chunks sent before they are due

    def sizes() -> Iterator[range]:  # one game a chunk at first: the first games come soon
        start, size = 0, 1
        while start < games:
            yield range(start, min(start + size, games))
            start, size = start + size, min(CHUNK, size + 1)

    waiting: deque[Future[list[Played]]] = deque()
    chunks = sizes()
    while True:
        while len(waiting) < ahead and (chunk := next(chunks, None)) is not None:
            waiting.append(pool.submit(_play_chunk, job, chunk, checks))
        if not waiting:
            return
        for fault, summary in waiting.popleft().result():
            if fault is not None:
                checks = checks - {fault[0]}
            yield fault, summary
