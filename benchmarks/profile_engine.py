"""Profile the engine with cProfile: ``python benchmarks/profile_engine.py [--games N]``.

First, without a profiler, the parts of the public random-play loop (setup, ``apply``,
``legal_actions``, the random choice), which also holds for the compiled build, whose
engine a profiler does not see into; then the cost of ``apply`` by action verb (window,
store, buy...) weighted by how often each verb is played, and of a first
``legal_actions``. Then it plays
random klunker-en games (4 players by default) through the public API under
cProfile and prints where the time of one decision goes, function by function (own
time and cumulative time, in microseconds per decision), then does the same for
``observation``, ``clone`` and the JSON round trip. cProfile adds a fixed cost to
every Python call, so the absolute figures are inflated; the shares are what count.
``--pstats FILE`` keeps the raw profile for snakeviz, pyinstrument or pstats.
"""

from __future__ import annotations

import argparse
import cProfile
import inspect
import pstats
import random
import sys
from collections.abc import Callable
from pathlib import Path

from _harness import CLOCK
from _sections import play_random, record_game, record_moves, simulate_function

import cardshop
from cardshop import Game


def _table(stats: pstats.Stats, per: int, unit: str, limit: int) -> str:
    rows = []
    raw = stats.stats  # type: ignore[attr-defined]
    for (file, line, name), (_cc, calls, tottime, cumtime, _callers) in raw.items():
        where = f"{Path(file).name}:{line}({name})" if line else name
        rows.append((tottime, cumtime, calls, where))
    rows.sort(reverse=True)
    total = sum(r[0] for r in rows)
    head = f"{'own us/' + unit:>12} {'share':>6} {'cum us/' + unit:>12} {'calls/' + unit:>10}"
    out = [f"{head}  function"]
    for tottime, cumtime, calls, where in rows[:limit]:
        out.append(
            f"{1e6 * tottime / per:12.3f} {100 * tottime / total:5.1f}% "
            f"{1e6 * cumtime / per:12.3f} {calls / per:10.2f}  {where}"
        )
    out.append(f"{1e6 * total / per:12.3f}  total own time per {unit} (profiled)")
    return "\n".join(out)


def profile(fn: Callable[[], int], unit: str, limit: int, keep: Path | None) -> str:
    prof = cProfile.Profile()
    prof.enable()
    count = fn()
    prof.disable()
    if keep is not None:
        prof.dump_stats(keep)
    return _table(pstats.Stats(prof), count, unit, limit)


def loop_parts(variant: cardshop.Variant, players: int, games: int, rounds: int = 5) -> str:
    """The public random-play loop taken apart, in microseconds per decision (no profiler).

    Four loops over the same seeded games, in turns, best of ``rounds`` each: setup alone
    (``new_game``); setup and the recorded actions applied; the same with a
    ``legal_actions()`` call before each; the whole loop with its random choice. The
    differences are the parts.
    """
    seeds = range(games)
    plays = [[a for _, a in record_moves(variant, players, seed)] for seed in seeds]
    decisions = sum(len(p) for p in plays)

    def setup() -> None:
        for seed in seeds:
            cardshop.new_game(variant, players, seed=seed)

    def replay() -> None:
        for seed, actions in zip(seeds, plays, strict=True):
            game = cardshop.new_game(variant, players, seed=seed)
            for action in actions:
                game.apply(action)

    def replay_asking() -> None:
        for seed, actions in zip(seeds, plays, strict=True):
            game = cardshop.new_game(variant, players, seed=seed)
            for action in actions:
                game.legal_actions()
                game.apply(action)

    def loop() -> None:
        play_random(variant, players, seeds)

    loops = (setup, replay, replay_asking, loop)
    times: list[list[float]] = [[] for _ in loops]
    for _ in range(rounds):  # in turns, so that all four see the same machine
        for fn, kept in zip(loops, times, strict=True):
            start = CLOCK()
            fn()
            kept.append(CLOCK() - start)
    t_setup, t_replay, t_asking, t_loop = (1e6 * min(t) / decisions for t in times)
    rows = [
        ("new_game (setup, per decision)", t_setup),
        ("apply, its legal actions included", t_replay - t_setup),
        ("legal_actions() (a copy of the cached list)", t_asking - t_replay),
        ("the random choice and the loop", t_loop - t_asking),
    ]
    build = "compiled" if cardshop.compiled else "pure"
    lines = [f"{decisions / games:.1f} decisions per game; {build} build"]
    lines += [f"{name:45} {us:7.3f} us" for name, us in rows]
    lines.append(f"{'whole loop':45} {t_loop:7.3f} us = {1 / t_loop:,.3f}M decisions/s")
    return "\n".join(lines)


def cost_by_verb(variant: cardshop.Variant, players: int, games: int, rounds: int = 9) -> str:
    """Cost of ``apply`` by action verb (no profiler), and of a first ``legal_actions``.

    Each decision point of ``games`` random games is cloned, its legal actions are
    computed (as a playout does before choosing), and the recorded action is applied;
    the best of ``rounds`` passes is kept, the least disturbed by other processes.
    """
    moves = [m for seed in range(games) for m in record_moves(variant, players, 5000 + seed)]
    by_verb: dict[str, list[tuple[Game, cardshop.Action]]] = {}
    for state, action in moves:
        by_verb.setdefault(action.verb, []).append((state, action))
    lines = [f"{'verb':8} {'share':>6} {'apply us':>9} {'us/decision':>12}"]
    weighted = 0.0
    for verb, group in sorted(by_verb.items(), key=lambda kv: -len(kv[1])):
        best = float("inf")
        for _ in range(rounds):
            states = [state.clone() for state, _ in group]
            for game in states:
                game.legal_actions()
            start = CLOCK()
            for game, (_, action) in zip(states, group, strict=True):
                game.apply(action)
            best = min(best, (CLOCK() - start) / len(states))
        share = len(group) / len(moves)
        weighted += share * best
        lines.append(f"{verb:8} {100 * share:5.1f}% {1e6 * best:9.2f} {1e6 * share * best:12.2f}")
    lines.append(f"apply, weighted by share: {1e6 * weighted:.2f} us per decision")
    best = float("inf")
    for _ in range(rounds):
        states = [state.clone() for state, _ in moves]
        start = CLOCK()
        for game in states:
            game.legal_actions()
        best = min(best, (CLOCK() - start) / len(states))
    lines.append(f"legal_actions(), first call at a decision point: {1e6 * best:.2f} us")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--variant", default="klunker-en")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--limit", type=int, default=30, help="rows per table")
    parser.add_argument("--pstats", type=Path, help="write the playout profile here")
    args = parser.parse_args()
    variant = cardshop.load_variant(args.variant)
    play_random(variant, args.players, range(20))  # warm-up

    print(f"== the public loop's parts, {args.variant} {args.players}p, no profiler ==")
    print(loop_parts(variant, args.players, 200))

    print()
    print(f"== apply() by verb and legal_actions(), {args.variant} {args.players}p, no profiler ==")
    print(cost_by_verb(variant, args.players, 60))

    print(f"\n== random playouts, {args.variant} {args.players}p, {args.games} games ==")
    print(
        profile(
            lambda: play_random(variant, args.players, range(args.games)),
            "decision",
            args.limit,
            args.pstats,
        )
    )

    states = [g for seed in range(50) for g in record_game(variant, args.players, seed)]
    rng = random.Random(0)
    sample = rng.sample(states, min(len(states), 400))

    def observe() -> int:
        for _ in range(25):
            for game in states:
                game.observation(game.current_player or 0)
        return 25 * len(states)

    def clone() -> int:
        for _ in range(25):
            for game in states:
                game.clone()
        return 25 * len(states)

    def round_trip() -> int:
        for game in sample:
            Game.from_json(game.to_json())
        return len(sample)

    simulate, _ = simulate_function()
    if simulate is not None:
        games = max(1, args.games // 4)
        params = inspect.signature(simulate).parameters
        reference = {"engine": "reference"} if "engine" in params else {}  # not the kernel
        print(f"\n== simulate(workers=1), random bots, {args.variant} {args.players}p ==")
        print(
            profile(
                lambda: sum(
                    o.decisions
                    for o in simulate(variant, args.players, games, workers=1, **reference)
                ),
                "decision",
                args.limit,
                None,
            )
        )

    for title, fn, unit in (
        ("observation(seat)", observe, "call"),
        ("clone()", clone, "call"),
        ("to_json() + Game.from_json()", round_trip, "trip"),
    ):
        print(f"\n== {title} ==")
        print(profile(fn, unit, args.limit, None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
