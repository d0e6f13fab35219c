"""Commands about variants and the demo game: ``demo``, ``variants``, ``validate``,
``show``, ``schema``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
import yaml

from cardshop._core import derive_rng
from cardshop._loader import builtin_variants, inspect_variant, load_variant
from cardshop.cli._app import app, console, err_console, user_errors
from cardshop.klunker.game import new_game
from cardshop.klunker.variant import Variant


@app.command()
@user_errors
def demo(
    variant: Annotated[str, typer.Argument(help="Built-in variant name or YAML file.")] = (
        "klunker-en"
    ),
    players: Annotated[int, typer.Option("--players", "-p", help="Number of players.")] = 4,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the game and players.")] = 1,
    first_player: Annotated[
        int | None, typer.Option("--first-player", help="First start player (seat).")
    ] = None,
) -> None:
    """Play one seeded game with random players, printing it move by move."""
    game = new_game(variant, players, seed=seed, first_player=first_player)
    rng = derive_rng(seed, "demo-players")
    console.print(
        f"{game.variant.title or game.variant.name}: {players} players, seed {seed}, "
        f"seat {game.first_player} starts"
    )
    last_round = 0
    while not game.is_over:
        if game.round != last_round:
            last_round = game.round
            console.print(f"\n[bold]Round {last_round}[/bold]")
        seat = game.current_player
        phase = game.phase.value
        action = rng.choice(game.legal_actions())
        events = game.apply(action)
        console.print(f"  {phase:<8} seat {seat}: {action}", markup=False)
        for event in events:  # all of them: a sale chosen by 'sell KIND' has no echo event
            console.print(f"           {event}", markup=False)
    result = game.result()
    console.print(f"\nGame {result.termination.value} after {result.rounds} rounds.")
    for seat in result.order:
        mark = "  winner" if seat in result.winners else ""
        console.print(
            f"  seat {seat}: {result.scores[seat]} cash (rank {result.ranks[seat]}){mark}"
        )


EXTENDS_ANYWHERE_HELP = (
    "Let `extends` name any file, not only built-in variants and files inside the "
    "variant's own folder. Use it only for files you trust."
)


@app.command("variants")
@user_errors
def list_variants() -> None:
    """List the built-in variants."""
    for name in builtin_variants():
        v = load_variant(name)
        console.print(
            f"{name:<14} {v.players.min}-{v.players.max} players  {v.title}", markup=False
        )


@app.command()
def validate(
    files: Annotated[list[Path], typer.Argument(help="Variant YAML files to check.")],
    extends_anywhere: Annotated[
        bool, typer.Option("--extends-anywhere", help=EXTENDS_ANYWHERE_HELP)
    ] = False,
) -> None:
    """Check variant files; print each problem with file, line and key. Exit 2 on any error."""
    bad = 0
    for path in files:
        variant, problems = inspect_variant(path, extends_anywhere=extends_anywhere)
        for problem in problems:
            err_console.print(f"cardshop: error: {' '.join(str(problem).split())}", markup=False)
        if variant is None:
            bad += 1
        else:
            console.print(
                f"{path}: ok ({variant.name}, {variant.rules.n_cards} cards)", markup=False
            )
    if bad:
        raise typer.Exit(2)


@app.command()
@user_errors
def show(
    variant: Annotated[str, typer.Argument(help="Built-in variant name or YAML file.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of YAML.")] = False,
    extends_anywhere: Annotated[
        bool, typer.Option("--extends-anywhere", help=EXTENDS_ANYWHERE_HELP)
    ] = False,
) -> None:
    """Print a variant as resolved (after ``extends``), with every default filled in.

    Both forms load back as a variant file (in JSON, player counts are string keys).
    """
    loaded = load_variant(variant, extends_anywhere=extends_anywhere)
    if as_json:
        console.print(json.dumps(loaded.to_data(), indent=2), markup=False)
    else:
        # Python mode keeps player-count keys as numbers, so the YAML loads back as is.
        data = loaded.model_dump(exclude={"extends"})
        console.print(yaml.safe_dump(data, sort_keys=False).rstrip(), markup=False)


@app.command()
def schema() -> None:
    """Print the JSON Schema of the variant format (for editor completion and checks)."""
    console.print(json.dumps(Variant.model_json_schema(), indent=2), markup=False)
