"""The ``replay`` command: re-run a game record of any family (docs/records.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from cardshop.cli._app import app, console, user_errors
from cardshop.core.family import (
    Family,
    event_text,
)
from cardshop.core.game import Dynamics
from cardshop.core.loader import builtin_variants, load_variant
from cardshop.core.series import family_for
from cardshop.core.variant import VariantBase
from cardshop.records import GameRecord, RecordedStep


def _event_text(family: Family, variant: VariantBase, event: dict[str, Any]) -> str:
    """An event's readable line (the family's words for it), or its JSON if it has none."""
    try:
        return event_text(family, variant, family.event_from_dict(event), None)
    except Exception:  # a verified record's events read back; never fail the listing
        return json.dumps(event, separators=(",", ":"))


def step_lines(
    family: Family, variant: VariantBase, n: int, step: RecordedStep, simultaneous: bool
) -> list[str]:
    """A step as text: its actions on one line (a tick's seats together), then its events."""
    actions = "; ".join(f"seat {seat}: {text}" for seat, text in step.actions)
    head = f"tick {n:>4}  {actions}" if simultaneous else f"{n:>4}  {actions}"
    events = (f"        {_event_text(family, variant, event)}" for event in step.events)
    return [head, *events]


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
    moves: Annotated[
        bool, typer.Option("--moves", help="Print every step (tick) with its events.")
    ] = False,
) -> None:
    """Re-run a game record of any family and verify every action and event.

    Exit code 0 when the record replays exactly; 2 with the file and line of the
    first problem otherwise (a changed variant, an action that no longer fits).
    """
    record = GameRecord.read(file)
    game = record.replay(variant, recorded_variant=recorded_variant)
    if moves:
        family = family_for(game.variant)
        simultaneous = game.dynamics is Dynamics.SIMULTANEOUS
        for n, step in enumerate(record.steps):
            for line in step_lines(family, game.variant, n, step, simultaneous):
                console.print(line, markup=False)
    if game.is_over:
        result = game.result()
        length = family_for(game.variant).length(result.rounds)
        status = f"{result.termination.value} after {length}, scores {list(result.scores)}"
    else:
        acting = ", ".join(map(str, game.acting))
        status = f"not finished (step {len(record.steps)}, seat {acting} to act)"
    model = ""
    if variant is None and not recorded_variant and record.variant_name in builtin_variants():
        now = load_variant(record.variant_name).chance
        if now != game.variant.chance:  # a record from before the built-in's model changed
            model = (
                f" under chance model {game.variant.chance}, the record's "
                f"({record.variant_name} now draws by model {now})"
            )
    console.print(
        f"{file}: ok - {record.variant_name} ({record.family}), {record.players} players, "
        f"seed {record.seed}, {len(record.steps)} steps, {len(record.actions)} actions "
        f"verified{model}; game {status}",
        markup=False,
    )
