"""The ``simulate`` command (docs/simulation.md).

It works for any family: it knows variants, bots and outcomes only through the core
and :mod:`cardshop.simulation`.
"""

from __future__ import annotations

import contextlib
import csv
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from cardshop.bots import seat_bots
from cardshop.cli._app import app, atomic_output, console, err_console, fail, paragraph, user_errors
from cardshop.cli._dask import DaskAddress, DaskTimeout, check_dask_timeout, dask_client
from cardshop.cli._stop import GamesBar, games_bar, signals_stop, stop_signal
from cardshop.core.errors import SetupError
from cardshop.core.loader import load_variant
from cardshop.core.series import family_for
from cardshop.simulation import (
    ENGINES,
    SimulationResult,
    WorkerLostError,
    check_arguments,
    kernel_note,
    simulate,
)
from cardshop.support.stats import Interval


def score_text(mean: float, half: float) -> str:
    """A mean score with its 95% interval: ``3.18 [3.16, 3.20]``."""
    return f"{mean:.2f} [{mean - half:.2f}, {mean + half:.2f}]"


def summary_table(sim: SimulationResult) -> Table:
    """Per bot: seats played, win share (95% Wilson interval), mean score (95% interval
    of the mean), mean rank."""
    table = Table(title=f"{len(sim):,} games of {sim.variant.name}, {sim.players} players")
    for column in ("Bot", "Seats", "Win share [95% CI]", "Mean score [95% CI]", "Mean rank"):
        table.add_column(column, justify="left" if column == "Bot" else "right")
    for b in sim.summary():
        table.add_row(
            b.bot,
            f"{b.seats:,}",
            str(Interval(b.win_share, b.win_low, b.win_high)),
            score_text(b.mean_score, b.score_ci),
            f"{b.mean_rank:.2f}",
        )
    return table


def _write_json(path: Path, sim: SimulationResult, bots: list[str]) -> None:
    doc: dict[str, Any] = {
        "family": sim.family,
        "variant": sim.variant.name,
        "variant_hash": sim.variant.content_hash,
        "players": sim.players,
        "seed": sim.seed,
        "bots": bots,
        "games": [o.to_dict() for o in sim],
    }
    with atomic_output(path) as f:
        f.write(json.dumps(doc, indent=1) + "\n")


def _write_csv(path: Path, sim: SimulationResult, bots: list[str]) -> None:
    with atomic_output(path, newline="") as f:
        writer = csv.DictWriter(f, fieldnames=sim.columns())
        writer.writeheader()
        writer.writerows(sim.to_rows())


def _lengths(sim: SimulationResult) -> str:
    """Mean length (rounds, or the family's unit), mean of each of the family's result
    details, and the endings."""
    n = len(sim)
    unit = family_for(sim.variant).length_unit
    means = [(f"{unit}s", sum(o.rounds for o in sim) / n if n else 0.0)]
    for key in sorted({key for o in sim for key in o.details}):
        means.append((key, sum(o.details.get(key, 0) for o in sim) / n))
    endings = ", ".join(f"{k} {v:,}" for k, v in sorted(sim.terminations().items()))
    return "; ".join(
        [*(f"mean {name} {value:.2f}" for name, value in means), f"endings: {endings or '-'}"]
    )


def _engine(sim: SimulationResult) -> str:
    """Which engine played the games, and why not the kernel when it did not."""
    if sim.engine == "kernel" or sim.engine_note == "the reference engine was asked for":
        return f"engine: {sim.engine}"
    return f"engine: reference ({sim.engine_note})"


class _Notes(logging.Handler):
    """The library's notes (``INFO`` records of the ``cardshop`` loggers), one line each
    on stderr: a kernel's first compile says so."""

    def emit(self, record: logging.LogRecord) -> None:
        err_console.print(f"cardshop: {paragraph(record.getMessage())}", markup=False)


@contextlib.contextmanager
def _library_notes() -> Iterator[None]:
    logger = logging.getLogger("cardshop")
    handler = _Notes(logging.INFO)
    level = logger.level
    logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


@app.command("simulate")
@user_errors
def simulate_command(
    variant: Annotated[str, typer.Argument(help="Built-in variant name or YAML file.")],
    players: Annotated[int, typer.Option("--players", "-p", help="Number of players.")] = 4,
    games: Annotated[int, typer.Option("--games", "-n", help="Number of games.")] = 1000,
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            "-b",
            help=(
                "Comma-separated bots, repeated to fill the seats: random, ismcts[:N], or "
                "the family's own (Klunker: greedy)."
            ),
        ),
    ] = "random",
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            "-w",
            help=(
                "Workers: processes, or threads when the kernel plays (default: CPUs; at "
                "most one per game)."
            ),
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Master seed.")] = 0,
    rotate: Annotated[
        bool,
        typer.Option(
            "--rotate/--fixed-seats",
            help="Turn the seats one place per game so every bot plays every seat.",
        ),
    ] = True,
    dask: DaskAddress = None,
    dask_timeout: DaskTimeout = 5.0,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Write every game's outcome as JSON.")
    ] = None,
    csv_file: Annotated[
        Path | None, typer.Option("--csv", help="Write one row per game as CSV.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help=(
                "auto: the family's compiled kernel when it can play the games (Klunker: "
                "random and greedy bots; Wühltisch: random, baseline and greedy), else the "
                "reference engine; kernel: the kernel or "
                "an error; reference: never the kernel. Both give the same games."
            ),
        ),
    ] = "auto",
) -> None:
    """Play GAMES games between bots and summarise how each bot did.

    Game i's seed derives from the master seed, so the results are the same for any
    number of workers. Fewer bots than seats are repeated in order
    (--bots greedy,random at 4 players: greedy, random, greedy, random).
    """
    check_dask_timeout(dask_timeout)
    var = load_variant(variant)
    specs = seat_bots(bots, players)  # the library reads bots the same way
    check_arguments(var, players, games, specs, workers)  # before the progress bar shows
    if engine not in ENGINES:
        raise SetupError(f"--engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "kernel":
        module, why = kernel_note(var, players, specs, seed)
        if module is None:
            raise SetupError(
                f"--engine kernel cannot play these games of {var.name}: {why}; use "
                "--engine auto to fall back to the reference engine"
            )
    cpus = os.cpu_count() or 1
    if dask is None and workers is not None and min(workers, games) > cpus:
        err_console.print(
            f"cardshop: warning: {min(workers, games)} workers on {cpus} CPUs; "
            "the games will not run faster than with one per CPU",
            markup=False,
        )
    bar: GamesBar | None = None
    executor = None
    written: list[str] = []
    start = time.perf_counter()
    try:
        with signals_stop(), _library_notes():
            executor = dask_client(dask, dask_timeout) if dask else None
            with games_bar("simulating", games, quiet=quiet) as bar:
                sim = simulate(
                    var,
                    players,
                    games,
                    specs,
                    seed=seed,
                    workers=workers,
                    executor=executor,
                    rotate=rotate and len(set(specs)) > 1,
                    progress=bar.advance,
                    engine=engine,
                )
            elapsed = time.perf_counter() - start
            console.print(summary_table(sim))
            console.print(f"{_lengths(sim)}; {elapsed:.1f} s; {_engine(sim)}", markup=False)
            for path, write in ((json_file, _write_json), (csv_file, _write_csv)):
                if path is None:
                    continue
                try:
                    write(path, sim, specs)
                except OSError as exc:
                    raise fail(f"cannot write {path}: {exc.strerror or exc}") from None
                written.append(str(path))
                console.print(f"wrote {path}", markup=False)
    except WorkerLostError as exc:
        err_console.print(
            f"cardshop: error: {paragraph(str(exc))}; no file was written", markup=False
        )
        raise typer.Exit(1) from None
    except BaseException as exc:
        signum = stop_signal(exc)
        if signum is None:
            raise
        files = f"only {', '.join(written)} was written" if written else "no file was written"
        err_console.print(
            f"cardshop: stopped by {signal.Signals(signum).name} after "
            f"{bar.played if bar else 0:,} of "
            f"{games:,} games; the workers are stopped and {files}",
            markup=False,
        )
        if executor is not None:
            executor.close()
            executor = None
        if threading.active_count() > 1:
            # A thread that cannot be stopped still runs (the kernel's first compile,
            # stopped half-way): the interpreter's exit would wait on it for seconds.
            # Nothing is left to do (no worker, no file), so this process ends now.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(128 + signum)
        raise typer.Exit(128 + signum) from None
    finally:
        if executor is not None:
            executor.close()
