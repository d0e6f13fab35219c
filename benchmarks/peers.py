"""cardshop against its compiled peers, in one run: ``python benchmarks/peers.py``.

Measures random play in decisions per second (a decision is one player's action; chance
steps are not counted) and in games per second (a family whose random player makes many
small decisions, as Reglamentacja's offers, looks fast in decisions and not in games),
every subject in a fresh interpreter, in turns: each round runs
every subject once, in an order that rotates from round to round, so that all of them
see the same machine from minute to minute; a subject's figure is the median over the
rounds. Time is the CPU time of the measuring process (as in ``run.py``).

Subjects (those whose package is missing are reported as skipped):

* cardshop's public API (``new_game``, ``legal_actions``, a seeded random choice,
  ``apply``; setup included), every built-in variant, on the **pure** build (the
  checkout's ``src/`` first on ``sys.path``) and the **compiled** one (the interpreter
  given by ``--compiled``, or this one when its cardshop is compiled);
* cardshop's bots through ``driver.play`` (``make_bot`` for each seat), every built-in
  variant, compiled build when there is one: ``baseline`` (uniform over the kinds of
  action, then over the actions of that kind: the meaningful random player where one
  kind has many more actions than the others) and ``greedy``;
* OpenSpiel (``open_spiel``, the ``bench`` extra): C++ ``hearts`` and
  ``crazy_eights`` stepped from Python (``legal_actions``, a random choice,
  ``apply_action``; chance outcomes drawn by their probabilities), and whole random
  playouts of hearts inside C++ (``evaluate_bots`` with uniform random bots; its
  decisions per game are those of the Python-stepped hearts games);
* cardshop's batch kernels (``cardshop.klunker.kernel``, ``cardshop.wuhltisch.kernel``
  and ``cardshop.reglamentacja.kernel``, the ``kernel`` extra: numba), klunker-en,
  wuhltisch and reglamentacja at 4 players with random bots, each as built in and
  with ``chance: 2`` (chance model 2, docs/chance.md): ``kernel.play_arrays``
  over batches of whole games (2,000 of Klunker's, 20 of Wühltisch's, 500 of
  Reglamentacja's; docs/kernel.md), against OpenSpiel's whole
  playouts;
* RLCard's UNO (``rlcard``, the ``bench`` extra) through its game object
  (``get_legal_actions`` and ``step``, without the environment's feature encoding,
  which cardshop's loop has no counterpart of).

It prints a table and the ratios of the performance issue, and writes every figure
as JSON (``--json``). Options: ``--rounds``, ``--seconds`` (CPU time per measurement),
``--quick`` (a smoke run: tiny budget, figures meaningless), ``--only``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _harness import cpu_model

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "peers.json"

# ------------------------------------------------------------------ the measuring code
# Run with `python -c WORKER SUBJECT SECONDS SAMPLE`: plays games until SECONDS of CPU
# time have passed (after one warm-up call), then prints {"decisions", "seconds",
# "games"}; each call of a subject's play(seed) returns (decisions, games). SAMPLE: how
# many stepped hearts games give evaluate_bots' decisions per game.

WORKER = r"""
import json, random, sys, time

subject, budget, sample = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
clock = time.process_time


def cardshop_player(name, players):
    import cardshop
    variant = cardshop.load_variant(name)
    new_game = cardshop.new_game
    simultaneous = cardshop.Dynamics.SIMULTANEOUS

    def play(seed):
        game = new_game(variant, players, seed=seed)
        choose = random.Random(seed).random
        decisions = 0
        if game.dynamics is simultaneous:
            while not game.is_over:
                joint = {}
                for seat in game.acting:
                    actions = game.legal_actions(seat)
                    joint[seat] = actions[int(choose() * len(actions))]
                game.apply_joint(joint)
                decisions += len(joint)
            return decisions, 1
        while not game.is_over:
            actions = game.legal_actions()
            game.apply(actions[int(choose() * len(actions))])
            decisions += 1
        return decisions, 1

    return play, {"compiled": cardshop.compiled}


def bots_player(name, players, bot):
    import cardshop
    from cardshop import driver
    from cardshop.bots import make_bot
    variant = cardshop.load_variant(name)
    new_game = cardshop.new_game

    def play(seed):
        game = new_game(variant, players, seed=seed)
        seats = [make_bot(bot, variant, seed * players + p) for p in range(players)]
        decisions = 0

        def count(step):
            nonlocal decisions
            decisions += len(step.actions)

        driver.play(game, seats, on_step=count)
        return decisions, 1

    return play, {"compiled": cardshop.compiled}


def openspiel_player(name):
    import pyspiel
    game = pyspiel.load_game(name)

    def play(seed):
        state = game.new_initial_state()
        choose = random.Random(seed).random
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                x, acc = choose(), 0.0
                action = outcomes[-1][0]
                for outcome, p in outcomes:
                    acc += p
                    if x < acc:
                        action = outcome
                        break
                state.apply_action(action)
                continue
            actions = state.legal_actions()
            state.apply_action(actions[int(choose() * len(actions))])
            decisions += 1
        return decisions, 1

    return play, {}


def openspiel_whole_loop(name):
    import pyspiel
    game = pyspiel.load_game(name)
    stepped, _ = openspiel_player(name)
    counts = [stepped(seed)[0] for seed in range(sample)]  # decisions per game, for the rate
    per_game = sum(counts) / len(counts)
    players = game.num_players()

    def play(seed):
        bots = [pyspiel.make_uniform_random_bot(p, seed * players + p) for p in range(players)]
        pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
        return per_game, 1

    return play, {"decisions_per_game": per_game}


def kernel_player(name, players):
    import importlib

    import cardshop
    from cardshop.core import variant_from_data
    from cardshop.core.registry import get_family

    name, _, model = name.partition(" chance ")  # "wuhltisch chance 1": chance model 1
    variant = cardshop.load_variant(name)
    if model:
        data = {**variant.to_data(), "chance": int(model), "name": f"{name}-chance-{model}"}
        variant = variant_from_data(data)
    kernel = importlib.import_module(get_family(variant.family).kernel)
    # Games per call (the kernel plays a batch, no Python object per game), and the
    # column of a game's decisions in the family's table (docs/kernel.md): a random
    # Wühltisch game runs to the tick cap, some forty thousand decisions; a random
    # Reglamentacja game some six hundred, nearly all offers and answers.
    batch, column = {"klunker": (2000, 2), "wuhltisch": (20, 1), "reglamentacja": (500, 2)}[
        variant.family
    ]

    def play(seed):
        start = seed * batch
        table, _ = kernel.play_arrays(variant, players, ("random",), 1, start, start + batch)
        return int(table[:, column].sum()), batch

    return play, {"games_per_call": batch}


def rlcard_player(name):
    from rlcard.games.uno.game import UnoGame
    import numpy as np

    game = UnoGame()

    def play(seed):
        game.np_random = np.random.RandomState(seed)
        _, player = game.init_game()
        choose = random.Random(seed).random
        decisions = 0
        while not game.is_over():
            actions = game.get_legal_actions()
            _, player = game.step(actions[int(choose() * len(actions))])
            decisions += 1
        return decisions, 1

    return play, {}


kind, _, rest = subject.partition(":")
if kind == "cardshop":
    name, players = rest.rsplit(":", 1)
    play, extra = cardshop_player(name, int(players))
elif kind == "bots":
    name, players, bot = rest.rsplit(":", 2)
    play, extra = bots_player(name, int(players), bot)
elif kind == "kernel":
    name, players = rest.rsplit(":", 1)
    play, extra = kernel_player(name, int(players))
elif kind == "openspiel":
    play, extra = openspiel_player(rest)
elif kind == "openspiel-loop":
    play, extra = openspiel_whole_loop(rest)
else:
    play, extra = rlcard_player(rest)

play(10**6)  # warm up
decisions = games = calls = 0
start = clock()
while clock() - start < budget or calls == 0:
    made, played = play(calls)
    decisions += made
    games += played
    calls += 1
seconds = clock() - start
print(json.dumps({"decisions": decisions, "seconds": seconds, "games": games, **extra}))
"""

# --------------------------------------------------------------------------- subjects

CARDSHOP = {  # variant: players of the row
    "klunker-en": 4,
    "klunker-es": 6,
    "klunker-zh": 4,
    "wuhltisch": 4,
    "reglamentacja": 4,
}
PEERS = {
    "openspiel:hearts": ("OpenSpiel hearts (C++, stepped from Python)", "pyspiel"),
    "openspiel:crazy_eights": ("OpenSpiel crazy_eights (C++, stepped from Python)", "pyspiel"),
    "openspiel-loop:hearts": ("OpenSpiel hearts, whole loop in C++ (evaluate_bots)", "pyspiel"),
    "rlcard:uno": ("RLCard UNO (game object)", "rlcard"),
}
KERNELS = {  # the batch kernels (numba, the ``kernel`` extra): variant: players
    "klunker-en": 4,
    "wuhltisch": 4,
    "reglamentacja": 4,
    # the same variants under ``chance: 1``, the model they drew by before model 2
    # (docs/chance.md)
    "klunker-en chance 1": 4,
    "wuhltisch chance 1": 4,
    "reglamentacja chance 1": 4,
}
BOTS = ("baseline", "greedy")  # played through driver.play on every built-in variant


def has_module(python: str, module: str) -> bool:
    probe = f"import importlib.util as u, sys; sys.exit(u.find_spec({module!r}) is None)"
    return subprocess.run([python, "-c", probe], capture_output=True, check=False).returncode == 0


def is_compiled(python: str, env: dict[str, str]) -> bool | None:
    done = subprocess.run(
        [python, "-c", "import cardshop; print(cardshop.compiled)"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    return None if done.returncode else done.stdout.strip() == "True"


class Runner:
    """One subject: what it runs, with which interpreter and environment."""

    def __init__(self, key: str, label: str, python: str, env: dict[str, str]) -> None:
        self.key, self.label, self.python, self.env = key, label, python, env
        self.rates: list[float] = []  # decisions per CPU second, one per round
        self.game_rates: list[float] = []  # games per CPU second, one per round
        self.extra: dict[str, Any] = {}

    def run(self, subject: str, seconds: float, sample: int) -> None:
        done = subprocess.run(
            [self.python, "-c", WORKER, subject, str(seconds), str(sample)],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=ROOT,
            check=False,
        )
        if done.returncode:
            raise SystemExit(f"peers.py: {self.key} failed:\n{done.stderr.strip()}")
        data = json.loads(done.stdout.strip().splitlines()[-1])
        seconds = max(data.pop("seconds"), 1e-9)
        self.rates.append(data.pop("decisions") / seconds)
        self.game_rates.append(data.pop("games") / seconds)
        self.extra = data


def build_runners(args: argparse.Namespace) -> tuple[dict[str, tuple[Runner, str]], list[str]]:
    """{key: (runner, subject)} and the notes on what is skipped."""
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    pure_env = dict(base, PYTHONPATH=str(ROOT / "src"))
    notes: list[str] = []
    compiled_python = args.compiled
    if compiled_python is None and is_compiled(sys.executable, base):
        compiled_python = sys.executable
    builds = {"pure": (sys.executable, pure_env)}
    if compiled_python is None:
        notes.append(
            "compiled build: skipped (this interpreter's cardshop is pure Python; "
            "give --compiled PYTHON of an environment with the compiled wheel)"
        )
    elif not is_compiled(compiled_python, base):
        raise SystemExit(f"peers.py: {compiled_python} does not import a compiled cardshop")
    else:
        builds["compiled"] = (compiled_python, base)
    runners: dict[str, tuple[Runner, str]] = {}
    for variant, players in CARDSHOP.items():
        for build, (python, env) in builds.items():
            key = f"cardshop {variant} {players}p {build}"
            subject = f"cardshop:{variant}:{players}"
            runners[key] = (Runner(key, key, python, env), subject)
    python, env = builds.get("compiled", builds["pure"])
    build = "compiled" if "compiled" in builds else "pure"
    for variant, players in CARDSHOP.items():
        for bot in BOTS:
            key = f"cardshop {variant} {players}p {bot} {build}"
            label = f"{key} (driver.play)"
            runners[key] = (Runner(key, label, python, env), f"bots:{variant}:{players}:{bot}")
    for variant, players in KERNELS.items():
        key = f"kernel {variant} {players}p"
        if has_module(sys.executable, "numba"):
            label = f"cardshop kernel {variant} {players}p (play_arrays, whole games)"
            runners[key] = (
                Runner(key, label, sys.executable, pure_env),
                f"kernel:{variant}:{players}",
            )
        else:
            notes.append(f"{key}: skipped (numba is not installed: the 'kernel' extra)")
    for subject, (label, module) in PEERS.items():
        if has_module(sys.executable, module):
            runners[subject] = (Runner(subject, label, sys.executable, base), subject)
        else:
            notes.append(f"{label}: skipped ({module} is not installed: the 'bench' extra)")
    if args.only:
        wanted = [w.strip() for w in args.only.split(",") if w.strip()]
        runners = {k: v for k, v in runners.items() if any(w in k for w in wanted)}
    return runners, notes


# ----------------------------------------------------------------------------- report


def median(runners: dict[str, tuple[Runner, str]], key: str) -> float | None:
    entry = runners.get(key)
    return statistics.median(entry[0].rates) if entry and entry[0].rates else None


def ratios(runners: dict[str, tuple[Runner, str]]) -> list[dict[str, Any]]:
    """The ratios the issues name (numerator / denominator), where both were measured,
    with their targets: every Klunker edition's compiled engine at least 1.5x OpenSpiel
    hearts stepped, every family's kernel as built in at least 5x OpenSpiel's whole
    loop (the kernels under ``chance: 1`` are shown beside them, with no target)."""
    en_c, en_p = "cardshop klunker-en 4p compiled", "cardshop klunker-en 4p pure"
    wanted: list[tuple[str, str, float | None]] = [
        *[
            (f"cardshop {v} {p}p compiled", "openspiel:hearts", 1.5)
            for v, p in CARDSHOP.items()
            if v.startswith("klunker")
        ],
        (en_p, "openspiel:hearts", None),
        (en_c, "openspiel:crazy_eights", None),
        (en_c, "rlcard:uno", None),
        (en_c, "openspiel-loop:hearts", None),
        *[
            (f"kernel {v} {p}p", "openspiel-loop:hearts", None if " chance " in v else 5.0)
            for v, p in KERNELS.items()
        ],
        *[
            (f"cardshop {v} {p}p compiled", f"cardshop {v} {p}p pure", 1.0)
            for v, p in CARDSHOP.items()
        ],
    ]
    out = []
    for top, bottom, least in wanted:
        a, b = median(runners, top), median(runners, bottom)
        if a is None or b is None:
            continue
        value = a / b
        target = "" if least is None else f">= {least:.1f} (target)"
        status = "" if least is None else ("PASS" if value >= least else "MISS")
        out.append({"of": top, "to": bottom, "ratio": value, "target": target, "status": status})
    return out


def machine() -> dict[str, Any]:
    cpu = cpu_model()
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_before": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compiled", metavar="PYTHON", help="interpreter of the compiled build")
    parser.add_argument("--rounds", type=int, default=7, help="rounds (default 7)")
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU s per measurement")
    parser.add_argument("--quick", action="store_true", help="smoke run: 1 round, tiny budget")
    parser.add_argument("--only", help="run only subjects whose key contains one of these")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.seconds = 1, 0.01
    info = machine()
    runners, notes = build_runners(args)
    keys = list(runners)
    started = time.time()
    for round_ in range(args.rounds):
        shift = round_ % max(1, len(keys))
        for key in keys[shift:] + keys[:shift]:
            runner, subject = runners[key]
            runner.run(subject, args.seconds, 5 if args.quick else 500)
        print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr)
    info["load_after"] = os.getloadavg()
    info["wall_seconds"] = time.time() - started

    hearts = median(runners, "openspiel:hearts")
    rows = []
    for key, (runner, _) in runners.items():
        mid = statistics.median(runner.rates)
        rows.append(
            {
                "subject": key,
                "label": runner.label,
                "decisions_per_s": mid,
                "games_per_s": statistics.median(runner.game_rates),
                "min": min(runner.rates),
                "max": max(runner.rates),
                "vs_hearts": mid / hearts if hearts else None,
                **runner.extra,
            }
        )
    found = ratios(runners)
    width = max([len(r["label"]) for r in rows] + [7])
    print(
        f"Decisions/s and games/s (CPU time), median of {args.rounds} interleaved rounds "
        f"of {args.seconds:g} s; {info['nproc']} cores, load {info['load_before'][0]:.1f} "
        f"before, {info['load_after'][0]:.1f} after"
    )
    head = f"{'decisions/s':>12}  {'min-max':>21}  {'x hearts':>8}  {'games/s':>10}"
    print(f"{'subject':<{width}}  {head}")
    print(f"{'-' * width}  {'-' * 12}  {'-' * 21}  {'-' * 8}  {'-' * 10}")
    for r in rows:
        spread = f"{r['min']:,.0f}-{r['max']:,.0f}"
        versus = f"{r['vs_hearts']:.2f}" if r["vs_hearts"] is not None else "-"
        rate = f"{r['decisions_per_s']:>12,.0f}  {spread:>21}  {versus:>8}"
        print(f"{r['label']:<{width}}  {rate}  {r['games_per_s']:>10,.1f}")
    print("\nRatios")
    for q in found:
        print(f"  {q['of']} / {q['to']}: {q['ratio']:.2f} {q['target']} {q['status']}".rstrip())
    for note in notes:
        print(f"  {note}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(
        json.dumps(
            {
                "machine": info,
                "rounds": args.rounds,
                "seconds": args.seconds,
                "rows": rows,
                "ratios": found,
                "notes": notes,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
