"""The ``verify`` command: every reachable state of a small variant, checked
(docs/verify.md)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated

import typer

from cardshop.cli._app import app, console, err_console, fail, user_errors, write_outputs
from cardshop.cli._dask import DaskAddress, DaskTimeout, check_dask_timeout, dask_client
from cardshop.cli._ladder import Seed
from cardshop.cli._stop import raise_if_stopped, signals_stop, stop_signal
from cardshop.core.errors import SetupError
from cardshop.core.game import check_players
from cardshop.support.files import check_writable
from cardshop.verify import (
    CHECKS,
    Search,
    SearchWorkerLostError,
    make_report,
    resolve_variant,
    shrink_variant,
)
from cardshop.verify._search import check_bitstate, check_workers

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
        str | None,
        typer.Argument(
            help="A mini variant's name (klunker-mini), a built-in name or a YAML file "
            "(none with --resume)."
        ),
    ] = None,
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
    bitstate: Annotated[
        int | None,
        typer.Option(
            "--bitstate",
            help="Keep a table of 2**BITS bits instead of the visited set (less memory; "
            "the report says how many states may have been missed).",
        ),
    ] = None,
    shrink: Annotated[
        bool,
        typer.Option("--shrink", help="Verify the family's small variant derived from VARIANT."),
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", help="Worker processes that check and expand the states."),
    ] = None,
    dask: DaskAddress = None,
    dask_timeout: DaskTimeout = 10.0,
    checkpoint: Annotated[
        Path | None,
        typer.Option(
            "--checkpoint",
            help="When the search stops before it is complete (a budget, Ctrl-C), write "
            "it to this file; --resume goes on from it.",
        ),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option("--resume", help="Go on with the search a --checkpoint file holds."),
    ] = None,
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
    for name, value in (("--max-states", max_states), ("--max-seconds", max_seconds)):
        if value is not None and not value > 0:
            raise SetupError(f"{name} must be above 0, not {value}")
    check_dask_timeout(dask_timeout)
    check_workers(workers)
    if bitstate is not None:
        check_bitstate(bitstate)
    if dask is not None and workers is not None:
        raise SetupError("give --workers or --dask, not both: a Dask cluster has its own workers")
    shrunk: tuple[str, ...] = ()
    if resume is not None:
        given = [
            n
            for n, v in (
                ("VARIANT", variant),
                ("--players", players),
                ("--checks", checks),
                ("--exact", exact or None),
                ("--keep-going", keep_going or None),
                ("--shrink", shrink or None),
                ("--bitstate", bitstate),
            )
            if v is not None
        ]
        if given:
            raise SetupError(
                f"--resume goes on with the search the checkpoint holds, its variant and "
                f"settings included; leave out {', '.join(given)}"
            )
        search = Search.load(resume)
    else:
        if variant is None:
            raise fail(
                "name a VARIANT to verify, or --resume a checkpoint file "
                "(see 'cardshop verify --help')"
            )
        rules = resolve_variant(variant)
        count = rules.players.min if players is None else check_players(rules, players)
        wanted = _checks(checks)
        if shrink:
            rules, shrunk = shrink_variant(rules, count)
        search = Search(rules, count, seed, {}, wanted, exact, keep_going, bitstate or 0)
    if checkpoint is not None:
        try:
            check_writable(checkpoint)
        except OSError as exc:
            raise fail(f"cannot write {checkpoint}: {exc.strerror or exc}") from None
    executor = dask_client(dask, dask_timeout) if dask else None
    where = f"; Ctrl-C stops it and saves it to {checkpoint}" if checkpoint else ""
    err_console.print(
        f"cardshop: verifying {search.variant.name}, {search.players} players"
        + (f", on from {search.states:,} states" if search.started else "")
        + where,
        markup=False,
    )
    try:
        with signals_stop():
            search.run(
                max_states=max_states,
                max_seconds=max_seconds,
                progress=lambda _: raise_if_stopped(),
                workers=workers,
                executor=executor,
            )
    except SearchWorkerLostError as exc:
        saved = _save(search, checkpoint)
        where = f"; saved in {saved}: go on with cardshop verify --resume {saved}"
        raise fail(f"{exc}{where if saved else ' (give --checkpoint FILE to save it)'}") from None
    except BaseException as exc:
        signum = stop_signal(exc)
        if signum is None:
            raise
        saved = _save(search, checkpoint)
        err_console.print(
            f"cardshop: stopped by {signal.Signals(signum).name} after {search.states:,} "
            "states; "
            + (
                f"the search is saved in {saved}: go on with cardshop verify --resume {saved}"
                if saved
                else "no file was written"
            ),
            markup=False,
        )
        raise typer.Exit(128 + signum) from None
    finally:
        if executor is not None:
            executor.close()
    report = make_report(search, shrunk)
    console.print(report.text(), markup=False)
    if not search.complete and checkpoint is not None and not search.stopped:  # a budget
        saved = _save(search, checkpoint)
        console.print(f"wrote {saved}: go on with cardshop verify --resume {saved}", markup=False)
    write_outputs((json_file, report.to_json() + "\n"), (html_file, report.html()))
    if out is not None and report.counterexamples:
        try:
            for path in report.write_counterexamples(out):
                console.print(f"wrote {path}", markup=False)
        except OSError as exc:
            raise fail(f"cannot write into {out}: {exc.strerror or exc}") from None
    if not report.ok:
        raise typer.Exit(1)


def _save(search: Search, path: Path | None) -> Path | None:
    if path is None:
        return None
    try:
        return search.save(path)
    except OSError as exc:
        raise fail(f"cannot write {path}: {exc.strerror or exc}") from None
