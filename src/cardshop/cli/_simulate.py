"""The ``simulate`` and ``replay`` commands (docs/simulation.md, docs/records.md)."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from cardshop._errors import SetupError
from cardshop._loader import load_variant
from cardshop.cli._app import app, console, err_console, fail, user_errors
from cardshop.klunker.events import event_from_dict
from cardshop.records import GameRecord
from cardshop.simulation import SimulationResult, check_arguments, simulate


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def summary_table(sim: SimulationResult) -> Table:
    """Per bot: seats played, win share and mean score with 95% intervals, mean rank."""
    table = Table(title=f"{len(sim):,} games of {sim.variant.name}, {sim.players} players")
    for column in ("Bot", "Seats", "Win share (95% CI)", "Mean score (95% CI)", "Mean rank"):
        table.add_column(column, justify="left" if column == "Bot" else "right")
    for b in sim.summary():
        table.add_row(
            b.bot,
            f"{b.seats:,}",
            f"{_pct(b.win_share)} ± {_pct(b.win_ci)}",
            f"{b.mean_score:.2f} ± {b.score_ci:.2f}",
            f"{b.mean_rank:.2f}",
        )
    return table


def _write_json(path: Path, sim: SimulationResult, bots: list[str]) -> None:
    doc: dict[str, Any] = {
        "variant": sim.variant.name,
        "variant_hash": sim.variant.content_hash,
        "players": sim.players,
        "seed": sim.seed,
        "bots": bots,
        "games": [o.to_dict() for o in sim],
    }
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


def _write_csv(path: Path, sim: SimulationResult) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=sim.columns())
        writer.writeheader()
        writer.writerows(sim.to_rows())


def _dask_client(address: str) -> Any:
    try:
        from distributed import Client
    except ImportError:
        raise SetupError(
            "--dask needs the 'distributed' extra: pip install 'cardshop[distributed]'"
        ) from None
    return Client(address)  # type: ignore[no-untyped-call]


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
            help="Comma-separated bots, repeated to fill the seats: random, greedy, ismcts[:N].",
        ),
    ] = "random",
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", help="Worker processes (default: CPUs).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Master seed.")] = 0,
    rotate: Annotated[
        bool,
        typer.Option(
            "--rotate/--fixed-seats",
            help="Turn the seats one place per game so every bot plays every seat.",
        ),
    ] = True,
    dask: Annotated[
        str | None,
        typer.Option("--dask", help="Run on a Dask cluster: the scheduler's address."),
    ] = None,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Write every game's outcome as JSON.")
    ] = None,
    csv_file: Annotated[
        Path | None, typer.Option("--csv", help="Write one row per game as CSV.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Play GAMES games between bots and summarise how each bot did.

    Game i's seed derives from the master seed, so the results are the same for any
    number of workers. Fewer bots than seats are repeated in order
    (--bots greedy,random at 4 players: greedy, random, greedy, random).
    """
    names = [b.strip() for b in bots.split(",") if b.strip()]
    if not names:
        raise SetupError("--bots names no bot")
    var = load_variant(variant)
    specs = [names[s % len(names)] for s in range(players)] if len(names) > 1 else names
    check_arguments(var, players, games, specs, workers)  # before the progress bar shows
    executor = _dask_client(dask) if dask else None
    start = time.perf_counter()
    with Progress(
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        disable=quiet,
    ) as progress:
        task = progress.add_task("games", total=games)
        sim = simulate(
            var,
            players,
            games,
            specs,
            seed=seed,
            workers=workers,
            executor=executor,
            rotate=rotate and len(set(specs)) > 1,
            progress=lambda n: progress.advance(task, n),
        )
    elapsed = time.perf_counter() - start
    if executor is not None:
        executor.close()
    console.print(summary_table(sim))
    rounds = sum(o.rounds for o in sim) / len(sim) if len(sim) else 0.0
    endings = ", ".join(f"{k} {v:,}" for k, v in sorted(sim.terminations().items()))
    console.print(
        f"mean rounds {rounds:.2f}; endings: {endings or '-'}; {elapsed:.1f} s", markup=False
    )
    try:
        if json_file is not None:
            _write_json(json_file, sim, specs)
            console.print(f"wrote {json_file}", markup=False)
        if csv_file is not None:
            _write_csv(csv_file, sim)
            console.print(f"wrote {csv_file}", markup=False)
    except OSError as exc:
        raise fail(f"cannot write {exc.filename}: {exc.strerror}") from None


@app.command()
@user_errors
def replay(
    file: Annotated[Path, typer.Argument(help="A game record (JSON Lines).")],
    variant: Annotated[
        str | None,
        typer.Option("--variant", help="Replay with this variant (name or file) instead."),
    ] = None,
    recorded_variant: Annotated[
        bool,
        typer.Option("--recorded-variant", help="Replay with the rules stored in the record."),
    ] = False,
    moves: Annotated[bool, typer.Option("--moves", help="Print every action and event.")] = False,
) -> None:
    """Re-run a game record and verify every action and event.

    Exit code 0 when the record replays exactly; 2 with the file and line of the
    first problem otherwise (a changed variant, an action that no longer fits).
    """
    record = GameRecord.read(file)
    game = record.replay(variant, recorded_variant=recorded_variant)
    if moves:
        for i, recorded in enumerate(record.actions, start=1):
            console.print(f"{i:>4}  seat {recorded.seat}: {recorded.action}", markup=False)
            for event in recorded.events[1:]:
                console.print(f"        {event_from_dict(dict(event))}", markup=False)
    status = (
        f"finished after {game.round} rounds, scores {list(game.scores())}"
        if game.is_over
        else f"not finished (round {game.round}, seat {game.current_player} to act)"
    )
    console.print(
        f"{file}: ok - {record.variant_name}, {record.players} players, seed {record.seed}, "
        f"{len(record.actions)} actions verified; game {status}",
        markup=False,
    )
