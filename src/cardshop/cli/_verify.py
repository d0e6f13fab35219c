"""The ``verify`` command: every reachable state of a small variant, checked
(docs/verify.md)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated

import typer

from cardshop.cli._app import app, atomic_output, console, err_console, fail, user_errors
from cardshop.cli._ladder import Seed
from cardshop.cli._stop import signals_stop, stop_signal
from cardshop.core.errors import SetupError
from cardshop.core.game import check_players
from cardshop.verify import CHECKS, Search, make_report, resolve_variant, shrink_variant

MAX_CHECKS_TEXT = 400
"""The longest ``--checks`` text read."""


def _checks(text: str | None) -> tuple[str, ...]:
    if text is None:
        return tuple(CHECKS)
    if len(text) > MAX_CHECKS_TEXT:
        raise SetupError(f"--checks is at most {MAX_CHECKS_TEXT} characters")
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    unknown = [n for n in names if n not in CHECKS]
    if unknown or not names:
        what = f"unknown check {unknown[0][:40]!r}" if unknown else "no check"
        raise SetupError(f"--checks {text[:80]!r}: {what}; the checks are {', '.join(CHECKS)}")
    return names


@app.command("verify")
@user_errors
def verify_command(
    variant: Annotated[
        str,
        typer.Argument(
            help="A mini variant's name (klunker-mini), a built-in name or a YAML file."
        ),
    ],
    players: Annotated[
        int | None, typer.Option("--players", "-p", help="Players (default: the fewest).")
    ] = None,
    seed: Seed = 0,
    checks: Annotated[
        str | None,
        typer.Option(
            "--checks", help=f"Comma-separated checks (default all: {', '.join(CHECKS)})."
        ),
    ] = None,
    max_states: Annotated[
        int | None,
        typer.Option("--max-states", help="Stop once this many distinct states are known."),
    ] = None,
    max_seconds: Annotated[
        float | None, typer.Option("--max-seconds", help="Stop after this many seconds.")
    ] = None,
    exact: Annotated[
        bool, typer.Option("--exact", help="Keep whole state keys, not 64-bit fingerprints.")
    ] = False,
    keep_going: Annotated[
        bool, typer.Option("--keep-going", help="Go on past the first fault.")
    ] = False,
    shrink: Annotated[
        bool,
        typer.Option("--shrink", help="Verify the family's small variant derived from VARIANT."),
    ] = False,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Write the report as JSON.")
    ] = None,
    html_file: Annotated[
        Path | None, typer.Option("--html", help="Write the report as HTML.")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", help="Write each counterexample's record and position into this folder."
        ),
    ] = None,
) -> None:
    """Check every reachable state of a small variant: every deal and chance outcome,
    every line of play. Exit 1 when a check fails, with its shortest counterexample."""
    rules = resolve_variant(variant)
    count = rules.players.min if players is None else check_players(rules, players)
    for name, value in (("--max-states", max_states), ("--max-seconds", max_seconds)):
        if value is not None and not value > 0:
            raise SetupError(f"{name} must be above 0, not {value}")
    wanted = _checks(checks)
    shrunk: tuple[str, ...] = ()
    if shrink:
        rules, shrunk = shrink_variant(rules, count)
    search = Search(rules, count, seed, {}, wanted, exact, keep_going)
    try:
        with signals_stop():
            search.run(max_states=max_states, max_seconds=max_seconds)
    except BaseException as exc:
        signum = stop_signal(exc)
        if signum is None:
            raise
        err_console.print(
            f"cardshop: stopped by {signal.Signals(signum).name} after {search.states:,} "
            "states; no file was written",
            markup=False,
        )
        raise typer.Exit(128 + signum) from None
    report = make_report(search, shrunk)
    console.print(report.text(), markup=False)
    for path, text in ((json_file, report.to_json() + "\n"), (html_file, report.html())):
        if path is None:
            continue
        try:
            with atomic_output(path) as f:
                f.write(text)
        except OSError as exc:
            raise fail(f"cannot write {path}: {exc.strerror or exc}") from None
        console.print(f"wrote {path}", markup=False)
    if out is not None and report.counterexamples:
        try:
            for path in report.write_counterexamples(out):
                console.print(f"wrote {path}", markup=False)
        except OSError as exc:
            raise fail(f"cannot write into {out}: {exc.strerror or exc}") from None
    if not report.ok:
        raise typer.Exit(1)
