"""The verifier's speed: distinct states a second of ``cardshop verify`` on each mini variant.

    python benchmarks/verify.py                       # every mini to completion, twice
    python benchmarks/verify.py --variants klunker-mini --checks all
    python benchmarks/verify.py --quick               # 300 states a search: checks it runs

For each mini variant of ``variants/mini`` (klunker-mini, wuhltisch-mini,
reglamentacja-mini, at each of its player counts) it runs
``cardshop.verify.verify`` to completion, or to ``--max-states`` / ``--max-seconds``:
once with every check on (``all``, what ``cardshop verify`` runs by default) and once
with the invariants only (``invariants``); ``--checks`` chooses the sets. It reports
the distinct states, the steps played (generated), the search's depth, the seconds and
the distinct states per second, and which build ran (pure or compiled).

Time is the CPU time of this process (``_harness.CLOCK``) around the whole call, as for
every single-process figure of the suite (the search runs in this process); the variant
is loaded before the clock starts, and a search of a few states warms up imports and
caches first. The search's own wall-clock figures (the report's ``seconds`` and
``states_per_second``) are kept beside. With ``--repeats R`` each search runs R times
and the row is the middle run by rate (the median), with the spread of the rates. The
figures are printed as a table and written as JSON (default
``benchmarks/results/verify.json``). A search that finds a fault stops there: its row
says so, and its figures are not those of a whole search.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from _harness import CLOCK

import cardshop
from cardshop.verify import CHECKS, resolve_variant, verify

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_JSON = ROOT / "benchmarks" / "results" / "verify.json"
DEFAULT_VARIANTS = ("klunker-mini", "wuhltisch-mini", "reglamentacja-mini")
DEFAULT_CHECKS = ("all", "invariants")
QUICK_STATES = 300
WARM_UP_STATES = 50

Data = dict[str, Any]


def build() -> str:
    """``"compiled"`` when the running cardshop is the mypyc build, else ``"pure"``."""
    return "compiled" if cardshop.compiled else "pure"


def parse_checks(label: str) -> tuple[str, ...]:
    """``all`` (every check of :data:`CHECKS`) or check names joined by ``+``."""
    if label == "all":
        return tuple(CHECKS)
    names = tuple(n.strip() for n in label.split("+") if n.strip())
    unknown = [n for n in names if n not in CHECKS]
    if unknown or not names:
        raise ValueError(
            f"unknown check {unknown[0] if unknown else label!r}; "
            f"the checks are all, or of {', '.join(CHECKS)} joined by +"
        )
    return names


def measure(
    name: str,
    players: int,
    label: str,
    *,
    max_states: int | None,
    max_seconds: float | None,
    repeats: int,
) -> Data:
    """One row: ``verify(name, players)`` with the checks of ``label``, ``repeats`` times."""
    variant = resolve_variant(name)  # loaded before the clock starts
    checks = parse_checks(label)
    verify(variant, players, checks=checks, max_states=WARM_UP_STATES)  # warm-up
    runs = []
    for _ in range(repeats):
        start = CLOCK()
        report = verify(
            variant, players, checks=checks, max_states=max_states, max_seconds=max_seconds
        )
        runs.append((CLOCK() - start, report))
    cpu = [max(seconds, 1e-9) for seconds, _ in runs]
    rates = [r.data["states"] / s for s, (_, r) in zip(cpu, runs, strict=True)]
    middle = sorted(range(repeats), key=lambda i: rates[i])[repeats // 2]
    report = runs[middle][1]
    d = report.data
    return {
        "variant": d["variant"],
        "family": d["family"],
        "players": players,
        "checks_label": label,
        "checks": d["checks"],
        "complete": d["complete"],
        "ok": report.ok,
        "faults": len(report.counterexamples),
        "states": d["states"],
        "generated": d["generated"],
        "deals": d["deals"],
        "depth": d["depth"],
        "exhaustive_to": d["exhaustive_to"],
        "cpu_seconds": cpu[middle],
        "states_per_s": rates[middle],
        "states_per_s_min": min(rates),
        "states_per_s_max": max(rates),
        "generated_per_s": d["generated"] / cpu[middle],
        "wall_seconds": d["seconds"],
        "wall_states_per_s": d["states_per_second"],
        "repeats": repeats,
    }


def measure_all(
    targets: list[tuple[str, int]],
    labels: list[str],
    *,
    max_states: int | None,
    max_seconds: float | None,
    repeats: int,
) -> list[Data]:
    rows = []
    for name, players in targets:
        for label in labels:
            print(f"verifying {name} {players}p, checks {label} ...", file=sys.stderr, flush=True)
            rows.append(
                measure(
                    name,
                    players,
                    label,
                    max_states=max_states,
                    max_seconds=max_seconds,
                    repeats=repeats,
                )
            )
    return rows


def default_targets() -> list[tuple[str, int]]:
    """Each default mini variant at each of its player counts."""
    out = []
    for name in DEFAULT_VARIANTS:
        span = resolve_variant(name).players
        out += [(name, n) for n in range(span.min, span.max + 1)]
    return out


def section_verify(ctx: Any) -> Data:
    """This benchmark as a section of ``benchmarks/run.py`` (a ``_sections.Context``):
    every check on, each mini to completion (300 states a search with ``--quick``)."""
    max_states = QUICK_STATES if ctx.quick else None
    rows = measure_all(
        default_targets(), ["all"], max_states=max_states, max_seconds=None, repeats=1
    )
    return {
        "status": "ok",
        "note": f"cardshop verify with every check on, each mini variant "
        f"{f'to {max_states} states' if max_states else 'to completion'}; {build()} build; "
        "states per CPU second",
        "build": build(),
        "rows": rows,
    }


def render(rows: list[Data], header: str) -> str:
    cols = [
        "variant",
        "players",
        "checks",
        "states",
        "generated",
        "depth",
        "complete",
        "CPU s",
        "states/s",
        "min-max",
        "generated/s",
        "wall s",
    ]
    body = [
        [
            r["variant"],
            str(r["players"]),
            r["checks_label"],
            f"{r['states']:,}",
            f"{r['generated']:,}",
            str(r["depth"]),
            ("yes" if r["complete"] else "no") + ("" if r["ok"] else f", {r['faults']} FAULT"),
            f"{r['cpu_seconds']:.1f}",
            f"{r['states_per_s']:,.0f}",
            f"{r['states_per_s_min']:,.0f}-{r['states_per_s_max']:,.0f}",
            f"{r['generated_per_s']:,.0f}",
            f"{r['wall_seconds']:.1f}",
        ]
        for r in rows
    ]
    widths = [max(len(c) for c in col) for col in zip(cols, *body, strict=True)]

    def fmt(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < 3 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    line = "  ".join("-" * w for w in widths)
    return "\n".join([header, fmt(cols), line, *(fmt(b) for b in body)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--variants",
        help="VARIANT[:PLAYERS], comma-separated (default: "
        f"{', '.join(DEFAULT_VARIANTS)} at each of their player counts); a variant without "
        "players runs at each of its player counts",
    )
    parser.add_argument(
        "--checks",
        default=",".join(DEFAULT_CHECKS),
        help="check sets, comma-separated: all, or check names joined by + "
        f"(default {','.join(DEFAULT_CHECKS)}); the checks are {', '.join(CHECKS)}",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"{QUICK_STATES} states a search, one repeat: checks the script runs, the "
        "figures mean little",
    )
    parser.add_argument("--max-states", type=int, help="stop each search at N distinct states")
    parser.add_argument("--max-seconds", type=float, help="stop each search after S seconds")
    parser.add_argument("--repeats", type=int, default=1, help="searches per row (default 1)")
    parser.add_argument(
        "--json", type=Path, default=DEFAULT_JSON, help=f"where to write JSON ({DEFAULT_JSON})"
    )
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    max_states = args.max_states
    if max_states is None and args.quick:
        max_states = QUICK_STATES
    if max_states is not None and max_states < 1:
        parser.error("--max-states must be at least 1")
    labels = [c.strip() for c in args.checks.split(",") if c.strip()]
    try:
        for label in labels:
            parse_checks(label)
    except ValueError as exc:
        parser.error(str(exc))
    targets = default_targets()
    if args.variants:
        targets = []
        for item in args.variants.split(","):
            name, _, players = item.strip().partition(":")
            try:
                span = resolve_variant(name).players
            except cardshop.CardshopError as exc:
                parser.error(str(exc))
            if players and not players.isdigit():
                parser.error(f"players of {name} must be a number, not {players!r}")
            counts = [int(players)] if players else list(range(span.min, span.max + 1))
            targets += [(name, n) for n in counts]

    from run import machine  # run.py's machine line (imported here: it loads every variant)

    started = time.time()
    info = machine()
    rows = measure_all(
        targets,
        labels,
        max_states=max_states,
        max_seconds=args.max_seconds,
        repeats=args.repeats,
    )
    header = (
        f"cardshop verify, distinct states per CPU second; {build()} build "
        f"(cardshop.compiled = {cardshop.compiled}); {info['cpu']}, {os.cpu_count()} CPUs"
    )
    print(render(rows, header))
    for r in rows:
        if not r["ok"]:
            print(
                f"{r['variant']} {r['players']}p ({r['checks_label']}): the search stopped at a "
                "fault; its figures are not those of a whole search (run cardshop verify)"
            )
    data: Data = {
        "format": "cardshop-verify-benchmark/1",
        "command": " ".join(["python", "benchmarks/verify.py", *(argv or sys.argv[1:])]),
        "build": build(),
        "compiled": cardshop.compiled,
        "quick": args.quick,
        "max_states": max_states,
        "max_seconds": args.max_seconds,
        "machine": {**info, "load_average_after": os.getloadavg()},
        "clock": "CPU time of the process (time.process_time) around each verify() call; "
        "wall_seconds and wall_states_per_s are the search's own wall-clock figures",
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "seconds": time.time() - started,
        "rows": rows,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(data, indent=2, allow_nan=False) + "\n")
    print(f"\nfigures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
