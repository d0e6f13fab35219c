"""The bot tournament behind docs/tournament.md: ISMCTS vs greedy vs random, 4 players.

Reproduce the report (about 20 minutes on 2 cores)::

    python scripts/tournament.py --out docs/tournament.md

Each pairing "A vs B" plays ``--games`` games of ``--variant`` with one seat of A and
three seats of B; the seats turn one place per game, so A plays every seat equally
often. Every pairing uses the same master seed, so game ``i`` deals the same cards in
every pairing. ``--games 40`` gives a quick look. ``--save-json FILE`` keeps every
game's outcome; ``--from-json FILE`` writes the report again from such a file.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path
from typing import Any

from cardshop import load_variant
from cardshop.simulation import GameOutcome, SimulationResult, mean_ci, simulate

Run = tuple[str, str, SimulationResult, float, float]
"""One pairing: A, B, the games, wall seconds, CPU seconds of the worker processes."""

PAIRINGS = (("ismcts:{budget}", "greedy"), ("ismcts:{budget}", "random"), ("greedy", "random"))


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def interval(mean: float, half: float, percent: bool = True) -> str:
    if percent:
        return f"{pct(mean)} ({pct(mean - half)} to {pct(mean + half)})"
    return f"{mean:.2f} ({mean - half:.2f} to {mean + half:.2f})"


def seat_values(sim: SimulationResult, bot: str, key: str) -> list[float]:
    return [float(r[key]) for r in sim.seat_rows() if r["bot"] == bot]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_pairing(variant: str, games: int, seed: int, workers: int, a: str, b: str) -> Run:
    start = time.perf_counter()
    cpu = children_cpu()
    done = 0
    step = max(1, games // 10)

    def progress(n: int) -> None:
        nonlocal done
        before = done
        done += n
        if done // step != before // step or done == games:
            elapsed = time.perf_counter() - start
            print(f"  {a} vs {b}: {done}/{games} games, {elapsed:.0f} s", file=sys.stderr)

    sim = simulate(
        variant, 4, games, [a, b, b, b], seed=seed, workers=workers, rotate=True, progress=progress
    )
    return a, b, sim, time.perf_counter() - start, children_cpu() - cpu


def report(args: argparse.Namespace, results: list[Run]) -> str:
    wall = sum(r[3] for r in results)
    cpu = sum(r[4] for r in results)
    lines = [
        "# Bot tournament",
        "",
        "How strong are the built-in bots? Measured, not guessed: each pairing below is",
        f"{args.games:,} games of `{args.variant}` at 4 players. In a pairing *A vs B* one seat",
        "is played by A and three by B; the seats turn one place per game, so A plays",
        "every seat equally often. A fair share of the wins is 25% for A's one seat.",
        "",
        "A game's win goes to its winners (SCORE-1, SCORE-2); k tied winners get 1/k each.",
        "Intervals are 95% confidence intervals, the mean plus or minus 1.96 standard",
        "errors over the games (normal approximation). All pairings use the same master",
        "seed, so game number i deals the same cards in each pairing.",
        "",
        "## Results",
        "",
        "| A vs B | A's win share | B's win share per seat | A's mean score | "
        "B's mean score | A's mean rank |",
        "|---|---|---|---|---|---|",
    ]
    for a, b, sim, _, _ in results:
        a_win = mean_ci(seat_values(sim, a, "win"))
        b_win = mean_ci(seat_values(sim, b, "win"))
        a_score = mean_ci(seat_values(sim, a, "score"))
        b_score = mean_ci(seat_values(sim, b, "score"))
        a_rank = sum(seat_values(sim, a, "rank")) / len(seat_values(sim, a, "rank"))
        lines.append(
            f"| {a} vs {b} | {interval(*a_win)} | {interval(*b_win)} | "
            f"{interval(*a_score, percent=False)} | {interval(*b_score, percent=False)} | "
            f"{a_rank:.2f} |"
        )
    lines += ["", "What the games looked like:", ""]
    lines += ["| A vs B | games | mean rounds | mean decisions | endings | wall time | CPU time |"]
    lines += ["|---|---|---|---|---|---|---|"]
    for a, b, sim, seconds, cpu_seconds in results:
        rounds = sum(o.rounds for o in sim) / len(sim)
        decisions = sum(o.decisions for o in sim) / len(sim)
        endings = ", ".join(f"{k} {v}" for k, v in sorted(sim.terminations().items()))
        lines.append(
            f"| {a} vs {b} | {len(sim):,} | {rounds:.2f} | {decisions:.1f} | {endings} | "
            f"{seconds / 60:.1f} min | {cpu_seconds / 60:.1f} min |"
        )
    budget = args.budget
    lines += [
        "",
        "## Reading the results",
        "",
        "A bot is stronger than its opponents when its win share's interval lies above",
        "25% (and weaker when it lies below). Mean scores are cash cards at the end.",
        "",
    ]
    for a, b, sim, _, _ in results:
        share, half = mean_ci(seat_values(sim, a, "win"))
        lead = mean_ci(seat_values(sim, a, "score"))[0] - mean_ci(seat_values(sim, b, "score"))[0]
        verdict = (
            "stronger"
            if share - half > 0.25
            else "weaker"
            if share + half < 0.25
            else "not measurably different"
        )
        lines.append(
            f"* `{a}` against three `{b}`: {pct(share)} of the wins, {share / 0.25:.2f} times "
            f"a fair share, and {lead:+.2f} cash cards against their mean: {verdict}."
        )
    lines += [
        "",
        "## The bots",
        "",
        "* `random` picks uniformly among the legal actions.",
        "* `greedy` looks one action ahead with a fixed heuristic ([Bots](bots.md)).",
        f"* `ismcts:{budget}` is information-set Monte Carlo tree search with {budget}",
        "  iterations per decision: each iteration deals the hidden cards at random,",
        "  consistently with what the bot sees, and plays to the end of the round with",
        "  greedy play for every seat ([Bots](bots.md)). Decisions with one legal action",
        "  are played without search.",
        "",
        f"The budget of {budget} iterations per decision was chosen so that the whole",
        f"tournament fits in about 20 minutes on 2 cores: it took {cpu / 60:.0f} minutes of "
        "CPU time,",
        f"about {cpu / 120:.0f} minutes of wall time on 2 otherwise idle cores. A larger "
        "budget plays",
        "more slowly; at 20 iterations the search was no better than greedy play in",
        "trial runs.",
        "",
        "## Reproduce",
        "",
        "```",
        f"python scripts/tournament.py --games {args.games} --budget {budget} "
        f"--seed {args.seed} --workers {args.workers} --out docs/tournament.md",
        "```",
        "",
        "(`--save-json FILE` keeps every game's outcome; `--from-json FILE` writes the",
        "report again from it without playing.)",
        "",
        f"Measured with {args.workers} worker processes on a machine with "
        f"{os.cpu_count()} cores, Python {platform.python_version()}:",
        f"{wall / 60:.1f} minutes of wall time and {cpu / 60:.1f} minutes of CPU time in all",
        "(the machine was shared with other work, so wall time says less than CPU time).",
        "The results depend only on the seed and the code, not on the number of workers.",
        "",
    ]
    return "\n".join(lines)


def save_runs(path: Path, args: argparse.Namespace, results: list[Run]) -> None:
    doc: dict[str, Any] = {
        "variant": args.variant,
        "games": args.games,
        "budget": args.budget,
        "seed": args.seed,
        "workers": args.workers,
        "pairings": [
            {"a": a, "b": b, "wall": wall, "cpu": cpu, "outcomes": [o.to_dict() for o in sim]}
            for a, b, sim, wall, cpu in results
        ],
    }
    path.write_text(json.dumps(doc) + "\n", encoding="utf-8")


def load_runs(path: Path, args: argparse.Namespace) -> list[Run]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    for key in ("variant", "games", "budget", "seed", "workers"):
        setattr(args, key, doc[key])
    variant = load_variant(doc["variant"])
    runs: list[Run] = []
    for p in doc["pairings"]:
        outcomes = [GameOutcome.from_dict(o) for o in p["outcomes"]]
        sim = SimulationResult(variant, 4, doc["seed"], outcomes)
        runs.append((p["a"], p["b"], sim, p["wall"], p["cpu"]))
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="klunker-en")
    parser.add_argument("--games", type=int, default=1000, help="games per pairing")
    parser.add_argument("--budget", type=int, default=50, help="ISMCTS iterations per decision")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, help="write the Markdown report here")
    parser.add_argument("--save-json", type=Path, help="keep every game's outcome here")
    parser.add_argument("--from-json", type=Path, help="report on games saved by --save-json")
    args = parser.parse_args(argv)
    if args.from_json:
        results = load_runs(args.from_json, args)
    else:
        results = []
        for a_pattern, b in PAIRINGS:
            a = a_pattern.format(budget=args.budget)
            results.append(run_pairing(args.variant, args.games, args.seed, args.workers, a, b))
        if args.save_json:
            save_runs(args.save_json, args, results)
    text = report(args, results)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
