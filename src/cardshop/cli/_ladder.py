"""The ``ladder`` command: rate bots on paired deals (docs/ladder.md)."""

from __future__ import annotations

import importlib.util
import signal
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from cardshop.cli._app import app, console, err_console, fail, user_errors, write_output
from cardshop.cli._dask import dask_client
from cardshop.cli._stop import GamesBar, games_bar, signals_stop, stop_signal
from cardshop.core.errors import SetupError
from cardshop.core.frontdoor import resolve
from cardshop.ladder import LadderResult, count_games, run_ladder
from cardshop.support.files import check_writable

REPORT_EXTRA = 'python -m pip install ".[report]" in a clone of cardshop'


def _check_writable(option: str, path: Path) -> None:
    try:
        check_writable(path)
    except OSError as exc:
        raise fail(f"{option} {path}: cannot write there: {exc.strerror or exc}") from None


# Options that cardshop skill-depth declares the same way.
Players = Annotated[
    int | None,
    typer.Option("--players", "-p", help="Seats per game (default: the variant's fewest)."),
]
Seed = Annotated[int, typer.Option("--seed", "-s", help="Master seed.")]
Workers = Annotated[
    int | None,
    typer.Option("--workers", "-w", help="Worker processes (default: one per CPU)."),
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]


def _scheduler(address: str) -> Any:
    """A Dask client of the scheduler at ``address`` (errors name --scheduler)."""
    return dask_client(address, 5.0, option="--scheduler")


@app.command("ladder")
@user_errors
def ladder_command(
    variant: Annotated[str, typer.Argument(help="Built-in variant name or YAML file.")],
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            "-b",
            help="Comma-separated bots to rank, 2 to 12: random, baseline, ismcts[:N], "
            "or the family's own (greedy).",
        ),
    ],
    players: Players = None,
    deals: Annotated[
        int, typer.Option("--deals", "-d", help="Deals played by every line-up.")
    ] = 100,
    seed: Seed = 0,
    workers: Workers = None,
    scheduler: Annotated[
        str | None,
        typer.Option("--scheduler", help="Run on a Dask cluster: the scheduler's address."),
    ] = None,
    checkpoint: Annotated[
        Path | None,
        typer.Option(
            "--checkpoint",
            help="JSON Lines file that keeps every finished deal; rerun to resume.",
        ),
    ] = None,
    resamples: Annotated[
        int, typer.Option("--resamples", help="Bootstrap resamples of the deals.")
    ] = 200,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Write the result (with every game) as JSON.")
    ] = None,
    html_file: Annotated[
        Path | None,
        typer.Option("--html", help="Write a self-contained HTML page (the 'report' extra)."),
    ] = None,
    markdown_file: Annotated[
        Path | None, typer.Option("--markdown", help="Write the result as Markdown.")
    ] = None,
    quiet: Quiet = False,
) -> None:
    """Rank BOTS by a Plackett-Luce fit of their finishing orders on paired deals.

    Every line-up of the bots plays the same deals, each once per rotation of the
    seats; ratings are Elo-like points with 95% bootstrap intervals over the deals.
    """
    var = resolve(variant).variant
    names = [b.strip() for b in bots.split(",")]
    if html_file is not None and importlib.util.find_spec("plotly") is None:
        raise fail(
            f"--html {html_file}: an HTML page needs the 'report' extra (plotly is not "
            f"installed): {REPORT_EXTRA}; or leave out --html and use --json or --markdown"
        )
    for option, path in (
        ("--json", json_file),
        ("--html", html_file),
        ("--markdown", markdown_file),
    ):
        if path is not None:
            _check_writable(option, path)
    if workers is not None and workers < 1:
        raise SetupError(f"--workers must be at least 1, not {workers}")
    # Every argument checked (run_ladder checks them again) before the progress bar shows.
    total = count_games(var, names, players=players, deals=deals, seed=seed)
    bar: GamesBar | None = None
    executor = None
    start = time.perf_counter()
    try:
        with signals_stop():
            executor = _scheduler(scheduler) if scheduler else None
            with games_bar("ladder", total, quiet=quiet) as bar:
                result = run_ladder(
                    var,
                    names,
                    players=players,
                    deals=deals,
                    seed=seed,
                    workers=workers,
                    executor=executor,
                    progress=bar.advance,
                    checkpoint=checkpoint,
                    resamples=resamples,
                )
    except BaseException as exc:
        signum = stop_signal(exc)
        if signum is None:
            raise
        if checkpoint is not None:
            kept = (
                f"the games played are kept in {checkpoint}; run the same command again to resume"
            )
        else:
            kept = "no checkpoint was kept: add --checkpoint FILE to be able to resume"
        err_console.print(
            f"cardshop: stopped by {signal.Signals(signum).name} after "
            f"{bar.played if bar else 0:,} of "
            f"{total:,} games; the workers are stopped and {kept}",
            markup=False,
        )
        raise typer.Exit(128 + signum) from None
    finally:
        if executor is not None:
            executor.close()
    _show(result, time.perf_counter() - start)
    if json_file is not None:
        write_output(json_file, result.to_json(), "--json")
    if markdown_file is not None:
        write_output(markdown_file, result.to_markdown(), "--markdown")
    if html_file is not None:
        write_output(html_file, result.to_html(), "--html")


def _show(result: LadderResult, seconds: float) -> None:
    console.print(result.to_text(), markup=False, end="")
    console.print(f"{seconds:.1f} s", markup=False)
