"""Public-API playout speed of two revisions of cardshop, measured side by side.

    python benchmarks/compare.py BASE [HEAD] [--variant klunker-en] [--players 4]

checks both revisions out into temporary git worktrees, then alternates between them:
each round runs the same seeded random playouts (``new_game``, then ``legal_actions``
and ``apply`` until the game is over) in a fresh interpreter for each revision, in
turn, so that both see the same machine from minute to minute. Prints decisions per
second for each round and the median ratio HEAD / BASE.

``--instructions`` counts machine instructions instead, under valgrind's callgrind:
the count does not move with the machine's load, so it compares revisions on a busy
machine too. It runs ``games`` and ``2 x games`` playouts and divides the difference
of the counts by the difference of the decisions (start-up and imports cancel out).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PLAYOUTS = """
import json, random, sys, time
import cardshop
variant = cardshop.load_variant(sys.argv[1])
players, games = int(sys.argv[2]), int(sys.argv[3])
new_game = cardshop.new_game
def run():
    decisions = 0
    for seed in range(games):
        game = new_game(variant, players, seed=seed)
        choose = random.Random(seed).random
        while not game.is_over:
            actions = game.legal_actions()
            game.apply(actions[int(choose() * len(actions))])
            decisions += 1
    return decisions
run()  # warm up
start = time.perf_counter()
decisions = run()
print(json.dumps({"decisions": decisions, "seconds": time.perf_counter() - start}))
"""


COUNT = (
    PLAYOUTS.replace("run()  # warm up", "")
    .replace("start = time.perf_counter()\n", "")
    .replace('"seconds": time.perf_counter() - start', '"seconds": 0')
)


def instructions(tree: Path, variant: str, players: int, games: int) -> tuple[int, int]:
    """Instructions of a whole run (callgrind) and the decisions it made."""
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    proc = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            COUNT,
            variant,
            str(players),
            str(games),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tree,
    )
    collected = [line for line in proc.stderr.splitlines() if "Collected :" in line]
    decisions = json.loads(proc.stdout.strip().splitlines()[-1])["decisions"]
    return int(collected[-1].split(":")[-1].strip()), int(decisions)


def per_decision(tree: Path, variant: str, players: int, games: int) -> float:
    small, d_small = instructions(tree, variant, players, games)
    big, d_big = instructions(tree, variant, players, 2 * games)
    return (big - small) / (d_big - d_small)


def measure(tree: Path, variant: str, players: int, games: int) -> float:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    out = subprocess.run(
        [sys.executable, "-c", PLAYOUTS, variant, str(players), str(games)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tree,
    ).stdout
    data = json.loads(out.strip().splitlines()[-1])
    return float(data["decisions"]) / float(data["seconds"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", help="the revision to compare against (e.g. a commit)")
    parser.add_argument("head", nargs="?", default="HEAD", help="the revision measured")
    parser.add_argument("--variant", default="klunker-en")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=300, help="games per measurement")
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions (callgrind) instead"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cardshop-compare-") as tmp:
        trees = {}
        for label, rev in (("base", args.base), ("head", args.head)):
            tree = Path(tmp) / label
            subprocess.run(
                ["git", "worktree", "add", "--detach", "--quiet", str(tree), rev],
                cwd=ROOT,
                check=True,
            )
            trees[label] = tree
        try:
            if args.instructions:
                games = max(1, args.games // 10)
                counts = {
                    label: per_decision(tree, args.variant, args.players, games)
                    for label, tree in trees.items()
                }
                print(
                    f"{args.variant} {args.players}p, instructions per decision "
                    f"(callgrind, {games} vs {2 * games} games): base {args.base} "
                    f"{counts['base']:,.0f}, head {args.head} {counts['head']:,.0f}; "
                    f"head/base {counts['head'] / counts['base']:.3f}"
                )
                return 0
            rates: dict[str, list[float]] = {"base": [], "head": []}
            for i in range(args.rounds):
                order = ("base", "head") if i % 2 == 0 else ("head", "base")
                for label in order:
                    rates[label].append(
                        measure(trees[label], args.variant, args.players, args.games)
                    )
                print(
                    f"round {i + 1}: base {rates['base'][-1]:,.0f}/s  "
                    f"head {rates['head'][-1]:,.0f}/s"
                )
            ratios = [h / b for b, h in zip(rates["base"], rates["head"], strict=True)]
            base, head = statistics.median(rates["base"]), statistics.median(rates["head"])
            print(
                f"{args.variant} {args.players}p, {args.games} games per run, "
                f"{args.rounds} rounds: base {args.base} median {base:,.0f} decisions/s, "
                f"head {args.head} median {head:,.0f} decisions/s; median ratio "
                f"head/base {statistics.median(ratios):.3f} "
                f"(range {min(ratios):.3f}-{max(ratios):.3f})"
            )
        finally:
            for tree in trees.values():
                subprocess.run(
                    ["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
