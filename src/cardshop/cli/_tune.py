"""The ``tune`` command: tune knobs of a variant towards measures (docs/tuning.md)."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from cardshop.cli._app import app, atomic_output, console, err_console, fail, user_errors
from cardshop.cli._audit import _check_writable, _html_writer
from cardshop.cli._dask import DaskAddress, DaskTimeout, check_dask_timeout, dask_client
from cardshop.cli._stop import raise_if_stopped, signals_stop, stop_signal


@app.command("tune")
@user_errors
def tune_command(
    spec: Annotated[Path, typer.Argument(help="The tuning spec (YAML; docs/tuning.md).")],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Write the tuned variant here (default: SPEC's name, less .yaml and .tune, "
            "with .tuned.yaml).",
        ),
    ] = None,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Also write the study as JSON.")
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option("--html", help="Also write an HTML report (needs cardshop[report])."),
    ] = None,
    storage: Annotated[
        Path | None,
        typer.Option(
            "--storage",
            help="The study's SQLite file (default: SPEC's name, less .yaml and .tune, with "
            ".tune.db); running again resumes it.",
        ),
    ] = None,
    no_storage: Annotated[
        bool, typer.Option("--no-storage", help="Keep the study in memory only.")
    ] = False,
    racing: Annotated[
        bool | None,
        typer.Option(
            "--racing/--no-racing", help="Override the spec's racing.", show_default=False
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", help="Workers, as for simulate (default: CPUs)."),
    ] = None,
    dask: DaskAddress = None,
    dask_timeout: DaskTimeout = 5.0,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar or trial lines.")
    ] = False,
) -> None:
    """Tune the knobs of a variant named by SPEC so that its measures meet the objectives.

    Plays the base variant, then candidates proposed by optuna, each in batches,
    dropping those that racing shows cannot beat the best; confirms the best on fresh
    seeds, and judges the targets on those games; writes the tuned variant (a file
    that extends the base and sets the tuned knobs, commented with the measures before
    and after). Ctrl-C stops after writing what the finished candidates found, and
    says what the study kept; the same command resumes the study. Exit code 0: every
    target met; 1: not met within the budget; 2: bad input; 130: interrupted.
    """
    from cardshop.tuning import load_spec, to_dict, tune, tuned_yaml
    from cardshop.tuning.output import describe, describe_confirmation
    from cardshop.tuning.study import TuneInterrupted

    check_dask_timeout(dask_timeout)
    loaded = load_spec(spec)  # errors before any game is played
    if workers is not None and workers < 1:
        raise fail(f"--workers must be at least 1, not {workers}")
    stem = spec.name.removesuffix(spec.suffix).removesuffix(".tune")
    target = out or spec.with_name(f"{stem}.tuned.yaml")
    writer = _html_writer(html) if html is not None else None
    for option, path in (("--out", target), ("--json", json_file), ("--html", html)):
        if path is not None:
            _check_writable(option, path)
    store: Path | str | None = (
        None if no_storage else (storage or spec.with_name(f"{stem}.tune.db"))
    )
    executor: Any = None
    if dask is not None:
        executor = dask_client(dask, dask_timeout)
    budget = loaded.spec.budget.games
    with Progress(
        TextColumn("tuning"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=err_console,
        disable=quiet,
    ) as progress:
        task = progress.add_task("games", total=budget)

        def games(n: int) -> None:
            progress.advance(task, n)
            raise_if_stopped()

        def trial(c: Any) -> None:
            if not quiet:
                progress.console.print(describe(c), markup=False)

        def confirmation(c: Any, found: Any) -> None:
            if not quiet:
                progress.console.print(describe_confirmation(c, found, loaded.spec), markup=False)

        try:
            with signals_stop():
                result = tune(
                    loaded.spec if loaded.sourced is None else spec,
                    storage=store,
                    workers=workers,
                    executor=executor,
                    racing=racing,
                    on_games=games,
                    on_trial=trial,
                    on_confirmation=confirmation,
                )
        except TuneInterrupted as exc:
            progress.stop()
            signum = stop_signal(exc.__cause__ or exc) or signal.SIGINT
            err_console.print(_base_stop_note(signal.Signals(signum).name, exc), markup=False)
            raise typer.Exit(128 + signum) from None
    text = tuned_yaml(result, target)
    try:
        with atomic_output(target) as f:
            f.write(text)
        if json_file is not None:
            with atomic_output(json_file) as f:
                f.write(json.dumps(to_dict(result), indent=2) + "\n")
    except OSError as exc:
        raise fail(f"cannot write the results: {exc.strerror or exc}") from None
    if writer is not None and html is not None:
        from cardshop.tuning import write_html

        try:
            write_html(result, html)
        except OSError as exc:
            raise fail(f"--html {html}: cannot write the report: {exc.strerror or exc}") from None
    console.print(text, markup=False, end="")
    console.print(
        f"{_verdict(result)}; stopped: {result.stopped}; {result.games:,} games, "
        f"{result.cpu_seconds:.1f} CPU s, {result.wall_seconds:.1f} s; wrote {target}",
        markup=False,
    )
    if result.stopped == "interrupted":
        interruption = result.interruption or KeyboardInterrupt()
        signum = stop_signal(interruption) or signal.SIGINT
        err_console.print(
            _search_stop_note(signal.Signals(signum).name, result, target), markup=False
        )
        raise typer.Exit(128 + signum)
    if not result.met:
        raise typer.Exit(1)


def _verdict(result: Any) -> str:
    """Whether the targets are met, judged on the confirmation (fresh seeds)."""
    if result.confirmation is None:
        return "not confirmed (stopped first): targets not judged"
    games = result.confirmation.games // max(1, len(result.loaded.players))
    where = f"on {games:,} games per player count on fresh seeds"
    if result.met:
        return f"every target met, confirmed {where}"
    if result.search_met:
        return (
            f"not every target met: the search's games met every target, the "
            f"confirmation {where} did not"
        )
    return f"not every target met (confirmation {where})"


def _base_stop_note(name: str, exc: Any) -> str:
    """What a stop while the base was played kept, and how to go on."""
    head = f"cardshop: stopped by {name} while playing the base variant"
    if exc.storage is None:
        return (
            f"{head}; nothing was kept (the study had no storage: --no-storage): the same "
            "command starts again from the beginning."
        )
    if exc.games == 0:
        return (
            f"{head}, before any of its batches was finished; nothing was kept in "
            f"{exc.storage}: the same command starts again from the beginning."
        )
    return (
        f"{head}: kept its {exc.games:,} games played so far ({exc.batches} of {exc.of} "
        f"batches at every player count) in {exc.storage} (study {exc.study}); run the "
        "same command again to resume: the kept games are not played again."
    )


def _search_stop_note(name: str, result: Any, target: Path) -> str:
    """What a stop during the search kept, and how to go on."""
    finished = sum(c.state in ("complete", "dropped", "rejected") for c in result.trials)
    cut = [c for c in result.trials if c.state == "stopped" and c.reason == "interrupted"]
    again = (
        f"; trial {cut[-1].number}, cut short after {cut[-1].games:,} games, is played again first"
        if cut
        else ""
    )
    wrote = (
        f"wrote {target} from the finished candidates (not confirmed on fresh seeds: the "
        "targets are not judged)"
        if result.confirmation is None
        else f"wrote {target}"
    )
    if result.storage is None:
        return (
            f"cardshop: stopped by {name}; {wrote}; nothing else was kept (the study had no "
            "storage: --no-storage): the same command starts again from the beginning."
        )
    return (
        f"cardshop: stopped by {name}; kept the base and {finished} finished candidates "
        f"in {result.storage} (study {result.study_name}){again}; {wrote}; run the same "
        "command again to resume."
    )
