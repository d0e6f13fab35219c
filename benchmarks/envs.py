"""Environment steps per second: ``python benchmarks/envs.py [--quick] [--json PATH]``.

Plays random legal actions (a uniform choice among the mask's ones, numpy's
``default_rng``) through cardshop's PettingZoo environments and through PettingZoo's
own classic games, and reports how many environment steps each makes per second of
CPU time (as ``run.py``: the median of repeats after a warm-up that sizes them).
A step is one call of ``step``: in the AEC API one agent's action (a finished agent's
``step(None)`` included), in the Parallel API one step of every agent at once: a turn
of the acting seat in a turn-based game, a tick of every acting seat in a simultaneous
one. Resets at the end of each game are counted in the time, not as steps.

Subjects (a missing package is reported as skipped):

* every built-in variant of cardshop (listed at run time) at its smallest player
  count, through ``cardshop.envs.env`` (AEC, with its usual wrappers) and
  ``cardshop.envs.parallel_env`` (Parallel), with flat actions, and with factored ones
  for a family that offers them;
* PettingZoo's classic ``tictactoe_v3`` and ``connect_four_v3`` (which need pygame:
  ``pygame-ce``) through their ``env()`` (AEC, with PettingZoo's wrappers) and through
  ``turn_based_aec_to_parallel`` (Parallel), and ``rps_v2``'s ``parallel_env``.

Options: ``--seconds`` (CPU seconds per repeat), ``--repeats``, ``--quick`` (a smoke
run: tiny budget, figures meaningless), ``--only TEXT`` (subjects whose name holds it),
``--json PATH`` (default ``benchmarks/results/envs.json``).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _harness import Budget, cpu_model, measure_rate

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "envs.json"

Maker = Callable[[], Any]


def _choice(rng: np.random.Generator, mask: Any) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def aec_run(make: Maker, seed: int = 0) -> Callable[[int], int]:
    """``run(size)``: ``size`` AEC steps with random masked actions, new games as needed
    (one environment for every run: building it is not timed)."""
    env = make()

    def run(size: int) -> int:
        rng = np.random.default_rng(seed)
        games = 0
        env.reset(seed=seed)
        steps = 0
        while steps < size:
            if not env.agents:
                games += 1
                env.reset(seed=seed + games)
            obs, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else _choice(rng, obs["action_mask"]))
            steps += 1
        return steps

    return run


def parallel_run(make: Maker, seed: int = 0) -> Callable[[int], int]:
    """``run(size)``: ``size`` Parallel steps with random masked actions for the agents
    whose mask is not empty (the others send nothing), new games as needed (one
    environment for every run: building it is not timed)."""
    env = make()

    def run(size: int) -> int:
        rng = np.random.default_rng(seed)
        games = 0
        obs, _ = env.reset(seed=seed)
        steps = 0
        while steps < size:
            if not env.agents:
                games += 1
                obs, _ = env.reset(seed=seed + games)
            actions = {}
            for agent in env.agents:
                mask = obs[agent]["action_mask"] if isinstance(obs[agent], dict) else None
                if mask is None:
                    actions[agent] = env.action_space(agent).sample()
                elif mask.any():
                    actions[agent] = _choice(rng, mask)
            obs, *_ = env.step(actions)
            steps += 1
        return steps

    return run


def subjects() -> list[tuple[str, str, Maker | str]]:
    """(name, API, maker) for every subject; a maker that is a string says why it is
    skipped."""
    import cardshop
    from cardshop.core.registry import get_family
    from cardshop.envs import env, parallel_env

    out: list[tuple[str, str, Maker | str]] = []
    for name in cardshop.builtin_variants():
        variant = cardshop.load_variant(name)
        players = variant.players.min
        kinds = ["flat"]
        if get_family(variant.family).factored is not None:
            kinds.append("factored")
        for actions in kinds:
            label = f"cardshop {name} {players}p" + (" factored" if actions == "factored" else "")
            out.append((label, "AEC", lambda n=name, p=players, a=actions: env(n, p, actions=a)))
            out.append(
                (
                    label,
                    "Parallel",
                    lambda n=name, p=players, a=actions: parallel_env(n, p, actions=a),
                )
            )
    try:
        with warnings.catch_warnings():  # PettingZoo 1.25+ would have its registry used
            warnings.simplefilter("ignore", DeprecationWarning)
            from pettingzoo.classic import connect_four_v3, rps_v2, tictactoe_v3
        from pettingzoo.utils.conversions import turn_based_aec_to_parallel
    except ImportError as exc:  # pygame (pygame-ce) is missing
        why = f"skipped: {exc.name} is not installed (pip install pygame-ce)"
        out += [
            (f"pettingzoo {g}", api, why)
            for g in ("tictactoe_v3", "connect_four_v3")
            for api in ("AEC", "Parallel")
        ]
        out.append(("pettingzoo rps_v2", "Parallel", why))
        return out
    for game, module in (("tictactoe_v3", tictactoe_v3), ("connect_four_v3", connect_four_v3)):
        out.append((f"pettingzoo {game}", "AEC", module.env))
        out.append(
            (
                f"pettingzoo {game}",
                "Parallel",
                lambda m=module: turn_based_aec_to_parallel(m.env()),
            )
        )
    out.append(("pettingzoo rps_v2", "Parallel", rps_v2.parallel_env))
    return out


def steps_per_game(make: Maker, api: str, games: int = 5) -> float:
    """The mean number of steps of a few seeded games."""
    total = 0
    for seed in range(games):
        env = make()
        rng = np.random.default_rng(seed)
        if api == "AEC":
            env.reset(seed=seed)
            while env.agents:
                obs, _, terminated, truncated, _ = env.last()
                env.step(None if terminated or truncated else _choice(rng, obs["action_mask"]))
                total += 1
        else:
            obs, _ = env.reset(seed=seed)
            while env.agents:
                actions = {}
                for agent in env.agents:
                    mask = obs[agent]["action_mask"] if isinstance(obs[agent], dict) else None
                    if mask is None:
                        actions[agent] = env.action_space(agent).sample()
                    elif mask.any():
                        actions[agent] = _choice(rng, mask)
                obs, *_ = env.step(actions)
                total += 1
    return total / games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per repeat")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="a smoke run (figures meaningless)")
    parser.add_argument("--only", default="", help="only the subjects whose name holds this")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args(argv)
    if not 0 < args.seconds <= 600 or not 1 <= args.repeats <= 100:
        parser.error("--seconds must be in (0, 600] and --repeats in 1..100")
    budget = Budget(0.02, 1) if args.quick else Budget(args.seconds, args.repeats)

    rows: list[dict[str, Any]] = []
    for name, api, make in subjects():
        if args.only and args.only not in name:
            continue
        row: dict[str, Any] = {"subject": name, "api": api}
        if isinstance(make, str):
            row["skipped"] = make
        else:
            run = aec_run(make) if api == "AEC" else parallel_run(make)
            rate = measure_rate(run, budget)
            row.update(rate.as_dict())
            row["steps_per_game"] = steps_per_game(make, api, 1 if args.quick else 5)
        rows.append(row)
        print(_line(row), flush=True)

    import pettingzoo  # type: ignore[import-untyped]

    import cardshop

    report = {
        "machine": {
            "cpu": cpu_model(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cardshop": cardshop.__version__,
            "pettingzoo": pettingzoo.__version__,
            "numpy": np.__version__,
        },
        "budget": {"seconds": budget.seconds, "repeats": budget.repeats},
        "rows": rows,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.json}")
    return 0


def _line(row: dict[str, Any]) -> str:
    head = f"{row['subject']:<40} {row['api']:<9}"
    if "skipped" in row:
        return f"{head} {row['skipped']}"
    return (
        f"{head} {row['median']:>10,.0f} steps/s  ({row['min']:,.0f} to {row['max']:,.0f}; "
        f"{row['steps_per_game']:,.0f} steps a game)"
    )


if __name__ == "__main__":
    sys.exit(main())
