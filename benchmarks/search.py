"""The search bots' cost per decision: CPU milliseconds a decision, per family.

    python benchmarks/search.py                          # ismcts:50 and pimc:100
    python benchmarks/search.py --bots ismcts:50,pimc:400 --variants klunker-en
    python benchmarks/search.py --quick                  # fewer states, one repeat

For each variant it collects a fixed set of decisions (an observation and the legal
actions of a seat that has more than one), spread over seeded games of the family's
``greedy`` bots (``random`` where a family has none), and times every bot on exactly
those decisions: a fresh bot with the same seed per repeat, CPU time of this process
(``_harness.CLOCK``), the median of ``--repeats`` runs and their spread. Decisions with
a single legal action cost no search and are left out, so the figures are the cost of
a decision that searches.
"""

from __future__ import annotations

import argparse
import random
import statistics
from typing import Any

from _harness import CLOCK, cpu_model

from cardshop import Game, load_variant, new_game
from cardshop.bots import bot_names, make_bot

DEFAULT_VARIANTS = ("klunker-en:3", "wuhltisch:2", "reglamentacja:3")


def decisions(variant: str, players: int, count: int, seed: int) -> list[tuple[Any, Any]]:
    """``count`` (observation, legal actions) pairs that need a choice, from seeded games."""
    loaded = load_variant(variant)
    name = "greedy" if "greedy" in bot_names(loaded) else "random"
    found: list[tuple[Any, Any]] = []
    rng = random.Random(seed)
    game_no = 0
    while len(found) < count:
        game: Game = new_game(loaded, players=players, seed=seed + game_no)
        bots = [make_bot(name, loaded, seed=seed + s) for s in range(players)]
        seen: list[tuple[Any, Any]] = []
        while not game.is_over:
            acting = game.acting
            joint = {}
            for s in acting:
                legal = game.legal_actions(s)
                if len(legal) > 1:
                    seen.append((game.observation(s), legal))
                joint[s] = bots[s].choose(game.observation(s), legal)
            if len(acting) == 1:
                game.apply(joint[acting[0]], acting[0])
            else:
                game.apply_joint(joint)
        if not seen:
            raise SystemExit(f"{variant}: a game of {name} bots had no decision to search")
        # Spread over the game: an even share of the wanted states from each game.
        take = min(len(seen), max(1, count // 3))
        found += [seen[i] for i in sorted(rng.sample(range(len(seen)), take))]
        game_no += 1
    return found[:count]


def per_decision(
    spec: str, variant: str, states: list[tuple[Any, Any]], repeats: int
) -> list[float]:
    """Milliseconds a decision of bot ``spec`` over ``states``, one figure per repeat."""
    loaded = load_variant(variant)
    out = []
    for _ in range(repeats):
        bot = make_bot(spec, loaded, seed=1)
        start = CLOCK()
        for observation, legal in states:
            bot.choose(observation, legal)
        out.append(1000 * (CLOCK() - start) / len(states))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="ismcts:50,pimc:100", help="bot specs, comma-separated")
    parser.add_argument(
        "--variants",
        default=",".join(DEFAULT_VARIANTS),
        help="VARIANT:PLAYERS, comma-separated (players: the variant's smallest if left out)",
    )
    parser.add_argument("--states", type=int, default=30, help="decisions per variant")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="6 decisions, 1 repeat")
    args = parser.parse_args()
    states_n, repeats = (6, 1) if args.quick else (args.states, args.repeats)
    specs = [s.strip() for s in args.bots.split(",") if s.strip()]
    print(f"search cost per decision, CPU time, {cpu_model()}")
    print(f"{'variant':<22} {'bot':<20} {'ms/decision':>12} {'min':>9} {'max':>9}")
    for item in args.variants.split(","):
        variant, _, players_text = item.strip().partition(":")
        players = int(players_text) if players_text else load_variant(variant).players.min
        states = decisions(variant, players, states_n, args.seed)
        for spec in specs:
            ms = per_decision(spec, variant, states, repeats)
            label = f"{variant} {players}p"
            print(
                f"{label:<22} {spec:<20} {statistics.median(ms):>12.1f} "
                f"{min(ms):>9.1f} {max(ms):>9.1f}"
            )


if __name__ == "__main__":
    main()
