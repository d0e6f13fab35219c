"""The ``skill-depth`` command: a variant's skill depth, or a graded ladder (docs/skill.md)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated

import typer

from cardshop.cli._app import app, console, err_console, user_errors, write_outputs
from cardshop.cli._ladder import Players, Quiet, Seed, Workers
from cardshop.cli._stop import GamesBar, games_bar, signals_stop, stop_signal
from cardshop.core.errors import SetupError
from cardshop.core.frontdoor import resolve
from cardshop.core.game import check_players
from cardshop.core.variant import VariantBase
from cardshop.ladder.depth import (
    DepthResult,
    GradedResult,
    check_depth_bot,
    check_rungs,
    default_rungs,
    graded_steps,
    skill_depth,
)

MAX_RUNGS_TEXT = 4000
"""The longest ``--graded`` text read."""


def _rungs(text: str, start: int, doublings: int, variant: VariantBase) -> list[str]:
    if len(text) > MAX_RUNGS_TEXT:
        raise SetupError(f"--graded is at most {MAX_RUNGS_TEXT} characters")
    if text.strip().lower() == "default":
        return default_rungs(variant, start, doublings)
    return check_rungs(variant, text)


@app.command("skill-depth")
@user_errors
def skill_depth_command(
    variant: Annotated[str, typer.Argument(help="Built-in variant name or YAML file.")],
    bot: Annotated[
        str,
        typer.Option("--bot", help="A searching bot whose option is its budget: ismcts, pimc."),
    ] = "ismcts",
    start: Annotated[int, typer.Option("--start", help="The first budget (iterations).")] = 5,
    doublings: Annotated[
        int, typer.Option("--doublings", help="The most doublings of the budget measured.")
    ] = 4,
    graded: Annotated[
        str | None,
        typer.Option(
            "--graded",
            help=(
                "Play a graded ladder instead: comma-separated bots, weakest first "
                "(baseline,random,greedy,ismcts:50), or 'default' (baseline, random, "
                "ismcts budgets from --start, --doublings times doubled, then the "
                "family's greedy)."
            ),
        ),
    ] = None,
    players: Players = None,
    deals: Annotated[
        int, typer.Option("--deals", "-d", help="Deals per step, each played once per seat.")
    ] = 20,
    seed: Seed = 0,
    workers: Workers = None,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Write the result as JSON.")
    ] = None,
    markdown_file: Annotated[
        Path | None, typer.Option("--markdown", help="Write the result as Markdown.")
    ] = None,
    quiet: Quiet = False,
) -> None:
    """Measure how many doublings of a searching bot's budget still win significantly
    (one seat of the larger budget against the smaller in every other seat), or with
    --graded whether each bot of a ladder beats the one below it.

    Every step plays the same deals, each once per rotation of the seats. A step is
    significant when the 95% Wilson interval of the stronger bot's win share lies
    above the fair share 1/N.
    """
    var = resolve(variant).variant
    count = var.players.min if players is None else check_players(var, players)
    if deals < 1:
        raise SetupError(f"--deals must be at least 1, not {deals}")
    rungs: list[str] = []
    if graded is not None:
        rungs = _rungs(graded, start, doublings, var)
        total = (len(rungs) - 1) * deals * count
    else:
        check_depth_bot(var, bot, start, doublings)
        total = doublings * deals * count
    bar: GamesBar | None = None
    result: GradedResult | DepthResult
    try:
        with signals_stop(), games_bar("playing", total, quiet=quiet) as bar:
            if graded is not None:
                result = graded_steps(
                    var,
                    rungs,
                    players=count,
                    deals=deals,
                    seed=seed,
                    workers=workers,
                    progress=bar.advance,
                )
            else:
                result = skill_depth(
                    var,
                    bot,
                    start,
                    max_doublings=doublings,
                    players=count,
                    deals=deals,
                    seed=seed,
                    workers=workers,
                    progress=bar.advance,
                )
    except BaseException as exc:
        signum = stop_signal(exc)
        if signum is None:
            raise
        err_console.print(
            f"cardshop: stopped by {signal.Signals(signum).name} after "
            f"{bar.played if bar else 0:,} games; "
            "the workers are stopped and no file was written",
            markup=False,
        )
        raise typer.Exit(128 + signum) from None
    console.print(result.to_text().rstrip("\n"), markup=False)
    write_outputs((json_file, result.to_json()), (markdown_file, result.to_markdown()))
