"""The benchmark sections of issue 5, each a function from a :class:`Context` to data.

Every section returns a JSON-ready dict with ``status`` (``"ok"`` or ``"skipped"``),
``note`` (what was measured, or why it was skipped) and its figures. Games are played
by a seeded uniform random choice among the legal actions: game ``i`` of a run uses
seed ``i`` for the deal and ``random.Random(i)`` for the choices, so every repeat plays
exactly the same games.
"""

from __future__ import annotations

import gc
import inspect
import json
import os
import pickle
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from _harness import CLOCK, Budget, measure_per_call, measure_rate
from verify import section_verify

import cardshop
from cardshop import Action, Game, Variant, new_game, parse_variant

__all__ = ["SECTIONS", "Context"]

Data = dict[str, Any]

BUILTIN_PLAYERS = {
    name: tuple(range(variant.players.min, variant.players.max + 1))
    for name in cardshop.builtin_variants()
    for variant in [cardshop.load_variant(name)]
}
"""Every built-in variant (of every family) with each of its player counts."""


@dataclass
class Context:
    """What every section needs: the time budget and a few loaded variants."""

    budget: Budget
    quick: bool
    smoke: bool = False  # the least work that still runs every section (the tests' run)
    variants: dict[str, Variant] = field(default_factory=dict)
    _moves: dict[tuple[str, int], list[list[tuple[Game, Action]]]] = field(default_factory=dict)

    def variant(self, name: str) -> Variant:
        if name not in self.variants:
            self.variants[name] = cardshop.load_variant(name)
        return self.variants[name]

    def moves(self, name: str = "klunker-en", players: int = 4) -> list[list[tuple[Game, Action]]]:
        """Every decision point of a few random games with its move (one list per game)."""
        key = (name, players)
        if key not in self._moves:
            games = 4 if self.quick else 24
            self._moves[key] = [
                record_moves(self.variant(name), players, 10_000 + i) for i in range(games)
            ]
        return self._moves[key]

    def states(self, name: str = "klunker-en", players: int = 4) -> list[list[Game]]:
        """Clones of every decision point of a few random games (one list per game)."""
        return [[state for state, _ in game] for game in self.moves(name, players)]

    def points(self, name: str = "klunker-en", players: int = 4) -> dict[str, list[Game]]:
        """States at the start, the middle and the end (last decision) of each game."""
        games = self.states(name, players)
        return {
            "start": [g[0] for g in games],
            "middle": [g[len(g) // 2] for g in games],
            "end": [g[-1] for g in games],
        }


# ------------------------------------------------------------------- playing games


def play_random(variant: Variant, players: int, seeds: range) -> int:
    """Play one random game per seed through the public API; return the decisions made."""
    decisions = 0
    for seed in seeds:
        game = new_game(variant, players, seed=seed)
        choose = random.Random(seed).random
        if game.dynamics is cardshop.Dynamics.SIMULTANEOUS:
            while not game.is_over:
                joint = {}
                for seat in game.acting:
                    actions = game.legal_actions(seat)
                    joint[seat] = actions[int(choose() * len(actions))]
                game.apply_joint(joint)
                decisions += len(joint)
            continue
        while not game.is_over:
            actions = game.legal_actions()
            game.apply(actions[int(choose() * len(actions))])
            decisions += 1
    return decisions


def record_game(variant: Variant, players: int, seed: int) -> list[Game]:
    """A clone of the game at each of its decision points, in order."""
    return [state for state, _ in record_moves(variant, players, seed)]


def record_moves(variant: Variant, players: int, seed: int) -> list[tuple[Game, Action]]:
    """Each decision point of a random game (a clone) with the action taken there."""
    game = new_game(variant, players, seed=seed)
    choose = random.Random(seed).random
    moves = []
    while not game.is_over:
        state = game.clone()
        actions = game.legal_actions()
        action = actions[int(choose() * len(actions))]
        moves.append((state, action))
        game.apply(action)
    return moves


def fresh_states(moves: list[tuple[Game, Action]]) -> list[Game]:
    """New games at the decision points that follow each move, as ``apply`` leaves them.

    What a game computes lazily and keeps (legal actions, say) is not computed yet in
    these, so an operation timed on them costs what it costs right after a move.
    """
    states = []
    for state, action in moves:
        game = state.clone()
        game.apply(action)
        if not game.is_over:
            states.append(game)
    return states


def _playout_row(variant: Variant, players: int, budget: Budget) -> Data:
    sizes: dict[int, int] = {}

    def run(games: int) -> int:
        decisions = play_random(variant, players, range(games))
        sizes[games] = decisions
        return decisions

    rate = measure_rate(run, budget)
    games = next(g for g, d in sizes.items() if d == rate.units_per_run)
    per_game = rate.units_per_run / games
    return {
        "variant": variant.name,
        "players": players,
        "decisions_per_s": rate.median,
        "decisions_per_s_min": rate.low,
        "decisions_per_s_max": rate.high,
        "games_per_s": rate.median / per_game,
        "decisions_per_game": per_game,
        "games_per_run": games,
    }


def section_playouts_public(ctx: Context) -> Data:
    rows = []
    for name, counts in BUILTIN_PLAYERS.items():
        for players in counts:
            rows.append(_playout_row(ctx.variant(name), players, ctx.budget))
    en = ctx.variant("klunker-en")

    def deal(size: int) -> int:
        for seed in range(size):
            new_game(en, 4, seed=seed)
        return size

    setup = measure_per_call(deal, ctx.budget)
    return {
        "status": "ok",
        "note": (
            "new_game + loop of legal_actions(), seeded uniform choice, apply() until the game "
            "is over; setup is included in every rate"
        ),
        "rows": rows,
        "new_game_us_klunker_en_4p": setup["us"],
    }


# ---------------------------------------------------------------- the simulate path


def simulate_function() -> tuple[Callable[..., Any] | None, str]:
    """The simulation entry point the sections time, and its name."""
    return cardshop.simulate, "cardshop.simulate"


def _call_simulate(
    fn: Callable[..., Any], variant: Variant, players: int, games: int, workers: int
) -> Any:
    params = inspect.signature(fn).parameters
    kwargs: dict[str, Any] = {"players": players, "games": games, "seed": 1}
    if "workers" in params:
        kwargs["workers"] = workers
    if "engine" in params:  # the reference engine: the kernel has its own benchmark
        kwargs["engine"] = "reference"
    if "bots" in params and params["bots"].default is inspect.Parameter.empty:
        kwargs["bots"] = ["random"] * players
    return fn(variant, **kwargs)


def _records_decisions(records: Any) -> int | None:
    total = 0
    for record in records:
        value = record.get("decisions") if isinstance(record, dict) else None
        if value is None:
            value = getattr(record, "decisions", None)
        if not isinstance(value, int):
            return None
        total += value
    return total


def section_playouts_simulate(ctx: Context) -> Data:
    fn, where = simulate_function()
    if fn is None:
        return {"status": "skipped", "note": where}
    rows = []
    for name, counts in BUILTIN_PLAYERS.items():
        for players in counts[:1] if ctx.smoke else counts:
            variant = ctx.variant(name)
            decisions: dict[int, int] = {}

            def run(
                games: int,
                variant: Variant = variant,
                players: int = players,
                decisions: dict[int, int] = decisions,
            ) -> int:
                records = _call_simulate(fn, variant, players, games, 1)
                decisions[games] = _records_decisions(records) or 0
                return games

            rate = measure_rate(run, ctx.budget)
            per_game = decisions.get(rate.units_per_run, 0) / rate.units_per_run
            rows.append(
                {
                    "variant": name,
                    "players": players,
                    "games_per_s": rate.median,
                    "decisions_per_s": rate.median * per_game if per_game else None,
                    "decisions_per_game": per_game or None,
                }
            )
    return {
        "status": "ok",
        "note": f"{where}(..., workers=1) with random bots, records included in the cost",
        "rows": rows,
    }


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its finished (waited-for) child processes."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def section_simulate_workers(ctx: Context) -> Data:
    fn, where = simulate_function()
    if fn is None:
        return {"status": "skipped", "note": where}
    variant = ctx.variant("klunker-en")
    games = 40 if ctx.smoke else 200 if ctx.quick else 2000
    out: Data = {"status": "ok", "games": games, "variant": "klunker-en", "players": 4}
    for workers in (1, 2):
        _call_simulate(fn, variant, 4, 20, workers)  # warm-up: start-up paths, pools
        rates, cores, cpu_per_game = [], [], []
        for _ in range(max(1, min(ctx.budget.repeats, 3))):
            cpu = _cpu_seconds()
            start = time.perf_counter()
            _call_simulate(fn, variant, 4, games, workers)
            wall = time.perf_counter() - start
            cpu = _cpu_seconds() - cpu
            rates.append(games / wall)
            cores.append(cpu / wall)
            cpu_per_game.append(cpu / games)
        out[f"games_per_s_{workers}"] = statistics.median(rates)
        out[f"cores_used_{workers}"] = statistics.median(cores)
        out[f"cpu_ms_per_game_{workers}"] = 1e3 * statistics.median(cpu_per_game)
    out["speedup"] = out["games_per_s_2"] / out["games_per_s_1"]
    # What 2 workers would give if both cores were free: twice the work per CPU second.
    out["speedup_if_cores_free"] = 2 * out["cpu_ms_per_game_1"] / out["cpu_ms_per_game_2"]
    out["note"] = (
        f"{where}(klunker-en, 4 players, {games} games, workers=1 and 2): wall-clock games/s, "
        "median; cores_used = CPU seconds (this process and its workers) per wall second, "
        "which shows how much of the machine other processes left free"
    )
    return out


# -------------------------------------------------------------- single operations


def _per_call_over(states: Sequence[Any], op: Callable[[Any], object], budget: Budget) -> Data:
    def run(passes: int) -> int:
        for _ in range(passes):
            for game in states:
                op(game)
        return passes * len(states)

    return measure_per_call(run, budget)


def section_clone(ctx: Context) -> Data:
    out: Data = {"status": "ok", "note": "Game.clone() on klunker-en 4p states"}
    for point, states in ctx.points().items():
        out[point] = _per_call_over(states, Game.clone, ctx.budget)
        out[point]["history_len"] = statistics.mean(len(g.history) for g in states)
    return out


def _cold_and_warm(ctx: Context, op: Callable[[Game], object]) -> Data:
    """``op`` per call on states fresh from a move (cold) and again on the same (warm).

    The cold states are clones of states that ``op`` never ran on, made before the
    clock starts; the garbage collector is paused while the batch is made and ``op``
    runs on it, as ``timeit`` does, so that scanning the batch is not billed to ``op``.
    """
    pristine = fresh_states([move for game in ctx.moves() for move in game])

    def cold(passes: int) -> tuple[int, float]:
        spent = 0.0
        for _ in range(passes):
            gc.disable()
            try:
                states = [game.clone() for game in pristine]  # not timed
                start = CLOCK()
                for game in states:
                    op(game)
                spent += CLOCK() - start
            finally:
                gc.enable()
        return passes * len(pristine), spent

    warm_states = [game.clone() for game in pristine]
    for game in warm_states:
        op(game)
    # Making the batches costs more than timing them: a quarter of the budget will do.
    cold_budget = Budget(ctx.budget.seconds / 4, ctx.budget.repeats)
    return {
        "states": len(pristine),
        **measure_per_call(cold, cold_budget),
        "warm": _per_call_over(warm_states, op, ctx.budget),
    }


def section_observation(ctx: Context) -> Data:
    return {
        "status": "ok",
        "note": (
            "observation(current seat) at every decision point of random klunker-en 4p games: "
            "first call after the move (us) and repeated (warm)"
        ),
        **_cold_and_warm(ctx, lambda game: game.observation(game.current_player or 0)),
    }


def section_legal_actions(ctx: Context) -> Data:
    return {
        "status": "ok",
        "note": (
            "legal_actions() at every decision point of random klunker-en 4p games: first call "
            "after the move (us) and repeated (warm)"
        ),
        **_cold_and_warm(ctx, Game.legal_actions),
    }


def section_json(ctx: Context) -> Data:
    out: Data = {"status": "ok", "note": "to_json() then Game.from_json(), klunker-en 4p"}
    for point, states in ctx.points().items():
        texts = [g.to_json() for g in states]
        assert all(Game.from_json(t) == g for t, g in zip(texts, states, strict=True))
        dump = _per_call_over(states, Game.to_json, ctx.budget)
        load = _per_call_over(texts, Game.from_json, ctx.budget)
        out[point] = {
            "to_json_us": dump["us"],
            "from_json_us": load["us"],
            "round_trip_us": dump["us"] + load["us"],
            "bytes": statistics.mean(len(t) for t in texts),
        }
    return out


def _bytes_per_clone(game: Game, copies: int) -> float:
    keep: list[Game | None] = [None] * copies
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(copies):
            keep[i] = game.clone()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return (after - before) / copies


def _layout(game: Game) -> Data:
    """sys.getsizeof of the game object and of each mutable list it owns."""
    sizes = {"Game object": sys.getsizeof(game)}
    for name in ("_where", "_counts", "_totals", "_deck", "_held", "history"):
        sizes[name] = sys.getsizeof(getattr(game, name))
    return sizes


def section_memory(ctx: Context) -> Data:
    copies = 200 if ctx.quick else 2000
    out: Data = {
        "status": "ok",
        "note": f"tracemalloc over {copies} clones of one klunker-en 4p state; pickle protocol 5",
    }
    for point, states in ctx.points().items():
        game = states[len(states) // 2]
        try:
            blob = pickle.dumps(game, protocol=pickle.HIGHEST_PROTOCOL)
            pickles = pickle.loads(blob) == game
            batch = pickle.dumps(states, protocol=pickle.HIGHEST_PROTOCOL)
            pickle_bytes: float | None = len(blob)
            batch_bytes: float | None = len(batch) / len(states)
        except Exception as exc:  # a finding to report, not a crash
            pickles, pickle_bytes, batch_bytes = False, None, None
            out["pickle_error"] = f"{type(exc).__name__}: {exc}"
        out[point] = {
            "bytes_per_state": _bytes_per_clone(game, copies),
            "history_len": len(game.history),
            "pickle_bytes": pickle_bytes,
            "pickle_bytes_per_game_in_batch": batch_bytes,
            "pickle_round_trip_equal": pickles,
            "getsizeof": _layout(game),
        }
    variant = ctx.variant("klunker-en")
    out["variant_pickle_bytes"] = len(pickle.dumps(variant, protocol=pickle.HIGHEST_PROTOCOL))
    clone = pickle.loads(pickle.dumps(ctx.points()["middle"][0]))
    out["unpickled_game_shares_variant"] = clone.variant is variant
    return out


def section_import_time(ctx: Context) -> Data:
    code = (
        "import time; w = time.perf_counter(); c = time.process_time(); import cardshop; "
        "print(time.process_time() - c, time.perf_counter() - w)"
    )
    runs = 1 if ctx.smoke else 3 if ctx.quick else 9
    cpu, wall = [], []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
        )
        c, w = done.stdout.split()
        cpu.append(float(c))
        wall.append(float(w))
    return {
        "status": "ok",
        "note": f"`import cardshop` in a fresh interpreter, median of {runs} runs "
        "(interpreter start-up excluded); CPU time, wall time beside it",
        "seconds": statistics.median(cpu),
        "seconds_min": min(cpu),
        "seconds_max": max(cpu),
        "wall_seconds": statistics.median(wall),
    }


# ------------------------------------------------------------------- cost growth


def rounds_profile(
    variant: Variant, players: int, seeds: range
) -> tuple[dict[int, list[float]], list[float]]:
    """Seconds and decisions spent in each round (by round number, and in the last round).

    Returns ``{round: [seconds, decisions, games]}`` and ``[seconds, decisions, games]``
    summed over the final rounds of all games. Setup (``new_game``) is not counted.
    """
    by_round: dict[int, list[float]] = {}
    last = [0.0, 0.0, 0.0]
    clock = CLOCK
    for seed in seeds:
        game = new_game(variant, players, seed=seed)
        choose = random.Random(seed).random
        current = game.round
        decisions = 0
        start = clock()
        while not game.is_over:
            actions = game.legal_actions()
            game.apply(actions[int(choose() * len(actions))])
            decisions += 1
            if game.round != current:
                now = clock()
                cell = by_round.setdefault(current, [0.0, 0.0, 0.0])
                cell[0] += now - start
                cell[1] += decisions
                cell[2] += 1
                current, decisions, start = game.round, 0, now
        spent = clock() - start
        cell = by_round.setdefault(current, [0.0, 0.0, 0.0])
        cell[0] += spent
        cell[1] += decisions
        cell[2] += 1
        last[0] += spent
        last[1] += decisions
        last[2] += 1
    return by_round, last


def _growth(variant: Variant, players: int, ctx: Context, games: int) -> Data:
    repeats = max(1, ctx.budget.repeats)
    play_random(variant, players, range(min(games, 5)))  # warm-up
    runs = [rounds_profile(variant, players, range(games)) for _ in range(repeats)]
    rounds = sorted(runs[0][0])
    per_round = []
    for r in rounds:
        rates = [run[0][r][1] / run[0][r][0] for run in runs if run[0][r][0] > 0]
        per_round.append(
            {
                "round": r,
                "games": int(runs[0][0][r][2]),
                "decisions": int(runs[0][0][r][1]),
                "decisions_per_s": statistics.median(rates),
            }
        )
    first = per_round[0]["decisions_per_s"]
    last = statistics.median(run[1][1] / run[1][0] for run in runs)
    total = statistics.median(
        sum(c[1] for c in run[0].values()) / sum(c[0] for c in run[0].values()) for run in runs
    )
    return {
        "variant": variant.name,
        "players": players,
        "cards": variant.rules.n_cards,
        "kinds": len(variant.rules.kinds),
        "games": games,
        "rounds_per_game": sum(c[2] for c in runs[0][0].values()) / games,
        "decisions_per_game": sum(c[1] for c in runs[0][0].values()) / games,
        "decisions_per_s": total,
        "first_round_decisions_per_s": first,
        "last_round_decisions_per_s": last,
        "last_over_first": last / first,
        "by_round": per_round,
    }


def big_variant_yaml(counts_times: int = 10, kinds_times: int = 1) -> str:
    """klunker-en with every kind's count multiplied, or every kind repeated, as YAML."""
    base = {
        "tongue-bob": 14,
        "ear-pendant": 14,
        "gold-tooth": 14,
        "shoes": 14,
        "diadem": 14,
        "monocle": 14,
        "necklace": 10,
    }
    cards = []
    for copy in range(kinds_times):
        suffix = f"-{copy}" if kinds_times > 1 else ""
        cards += [f"  {kind}{suffix}: {count * counts_times}" for kind, count in base.items()]
    name = f"bench-x{counts_times}-counts-x{kinds_times}-kinds"
    overrides = ", ".join(
        f"necklace{f'-{c}' if kinds_times > 1 else ''}: 4" for c in range(kinds_times)
    )
    return "\n".join(
        [
            "family: klunker",
            f"name: {name}",
            "players: {min: 3, max: 5}",
            "cards:",
            *cards,
            "hand_size: 6",
            "starting_cash: {3: 1, 4: 1, 5: 1}",
            "steps: [fill, store, purchase, refill]",
            "sale:",
            "  set_size: 4",
            "  payout: [4, 3, 2, 1]",
            f"  overrides: {{{overrides}}}",
            "purchase: {price: 1, broke_may_buy: false, decline: ends_phase}",
            "tiebreak: [fewest_safe_and_window]",
            "round_cap: 200",
            "",
        ]
    )


def section_growth(ctx: Context) -> Data:
    base_games = 10 if ctx.quick else 300
    big_games = 1 if ctx.quick else 20
    base = _growth(ctx.variant("klunker-en"), 4, ctx, base_games)
    counts = parse_variant(big_variant_yaml(counts_times=10), source="<bench x10 counts>")
    kinds = parse_variant(
        big_variant_yaml(counts_times=1, kinds_times=10), source="<bench x10 kinds>"
    )
    big_counts = _growth(counts, 4, ctx, big_games)
    big_kinds = _growth(kinds, 4, ctx, big_games)
    for row in (big_counts, big_kinds):
        row["vs_base"] = row["decisions_per_s"] / base["decisions_per_s"]
    return {
        "status": "ok",
        "note": (
            "decisions/s by round (setup excluded), 4 players; the large decks are klunker-en "
            "with 10x the count of each kind (940 cards) and with 10x the kinds (70 kinds, "
            "940 cards)"
        ),
        "klunker-en": base,
        "x10_counts": big_counts,
        "x10_kinds": big_kinds,
    }


SECTIONS: dict[str, Callable[[Context], Data]] = {
    "playouts_public": section_playouts_public,
    "playouts_simulate": section_playouts_simulate,
    "clone": section_clone,
    "observation": section_observation,
    "legal_actions": section_legal_actions,
    "json_round_trip": section_json,
    "memory": section_memory,
    "simulate_workers": section_simulate_workers,
    "import_time": section_import_time,
    "growth": section_growth,
    "verify": section_verify,
}


def dumps(data: Data) -> str:
    """Strict JSON (no NaN or infinity)."""
    return json.dumps(data, indent=2, allow_nan=False)
