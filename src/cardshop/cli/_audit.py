"""The ``audit`` command: invariants and statistics of a variant (docs/auditing.md)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from cardshop.audit import run_audit
from cardshop.cli._app import app, console, err_console, fail, user_errors


@app.command()
@user_errors
def audit(
    variant: Annotated[str, typer.Argument(help="Built-in variant name or YAML file.")],
    games: Annotated[
        int, typer.Option("--games", "-n", help="Simulated games per player count.")
    ] = 1000,
    players: Annotated[
        list[int] | None,
        typer.Option("--players", "-p", help="Player count to audit (repeatable; default: all)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the whole audit.")] = 0,
    examples: Annotated[
        int,
        typer.Option("--examples", help="State machine runs (0 skips it; it needs hypothesis)."),
    ] = 50,
    check_every: Annotated[
        int,
        typer.Option(
            "--check-every",
            help="In simulated games, check hidden information and copies every N actions.",
        ),
    ] = 10,
    max_cap_share: Annotated[
        float,
        typer.Option(
            "--max-cap-share", help="Share of games allowed to reach the round cap (0..1)."
        ),
    ] = 0.0,
    bots: Annotated[
        list[str] | None,
        typer.Option(
            "--bots",
            "--policy",
            "-b",
            help="The bot the simulated players are (repeatable: one per seat in turn; "
            "default random). Any bot of the variant's family, e.g. Klunker's thrifty "
            "(holds cards back, to look for games that do not end).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    as_markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the report as Markdown.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress lines on stderr.")
    ] = False,
) -> None:
    """Check every invariant of VARIANT (of any family) and measure its games.

    Runs the invariant state machine and N simulated games per player count, played
    by bots, then reports each invariant (with a replayable counterexample if
    violated), the share of games that were capped, game lengths, win rates by seat
    and by position from the first player (95% Wilson intervals) and scores.
    Exit code 0: everything held; 1: an invariant was violated or too many games
    reached the round cap; 2: bad input.
    """
    if as_json and as_markdown:
        raise fail("choose one of --json and --markdown")

    def progress(line: str) -> None:
        if not quiet:
            err_console.print(f"audit: {line}", markup=False)

    report = run_audit(
        variant,
        games=games,
        players=players,
        seed=seed,
        examples=examples,
        check_every=check_every,
        max_cap_share=max_cap_share,
        bots=bots or ["random"],
        progress=progress,
    )
    if as_json:
        console.print(json.dumps(report.to_dict(), indent=2), markup=False)
    elif as_markdown:
        console.print(report.to_markdown(), markup=False)
    else:
        console.print(report.to_text(), markup=False)
    if not report.ok:
        raise typer.Exit(1)
