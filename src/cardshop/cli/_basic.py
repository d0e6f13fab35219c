"""Commands about variants and the demo game: ``demo``, ``variants``, ``validate``,
``show``.

Every command here works for any registered family: it finds the family of a variant
with :func:`cardshop.core.registry.get_family` and uses only the core's protocol (the
family's ``render``, the game's ``acting``, ``observation``, ``result``, the driver).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml

from cardshop.bots import RandomBot
from cardshop.cli._app import app, console, err_console, paragraph, user_errors
from cardshop.core.actions import (
    Action,
    Seat,
)
from cardshop.core.chance import derive_seed
from cardshop.core.errors import (
    CardshopError,
    SetupError,
    format_path,
)
from cardshop.core.family import (
    Family,
    event_text,
    game_options,
)
from cardshop.core.frontdoor import new_game as new_family_game
from cardshop.core.game import (
    Dynamics,
    Game,
    Result,
)
from cardshop.core.loader import (
    builtin_variants,
    inspect_variant,
    load_variant,
    variant_changes,
)
from cardshop.core.registry import (
    ENTRY_POINT_GROUP,
    families,
)
from cardshop.core.series import family_for
from cardshop.core.source import VariantWarning
from cardshop.core.variant import VariantBase
from cardshop.driver import step as driver_step

DEFAULT_PLAYERS = 4
"""Players in a demo unless told: 4, or the nearest count the variant allows."""

MAX_DEMO_STEPS = 1_000_000
"""A demo stops with an error after this many steps (a family without a length cap)."""


# ----------------------------------------------------------- shared with play


def stage(game: Game) -> tuple[int | None, str | None]:
    """The round and the phase of ``game`` if its family's observations name them.

    A family's observation is its own named tuple; many carry a public ``round``
    counter and a ``phase`` name (Klunker: both; Wühltisch: ``round``). Both are
    optional: a family without them simply gets no round headers or phase labels.
    """
    if game.players < 1:
        return None, None
    acting = game.acting
    observation = game.observation(acting[0] if acting else 0)
    round_ = getattr(observation, "round", None)
    phase = getattr(observation, "phase", None)
    return (
        round_ if isinstance(round_, int) and not isinstance(round_, bool) else None,
        str(phase) if isinstance(phase, str) else None,
    )


def step_lines(
    number: int,
    actions: Mapping[Seat, Action],
    dynamics: Dynamics,
    *,
    label: str | None = None,
    names: Sequence[str] | None = None,
) -> str:
    """One step's actions as a line: ``tick 12: seat 0 look, seat 1 keep`` for a
    simultaneous tick, ``fill     seat 2: window shoes`` for a turn (``label`` is
    the phase, or the step number when the family names no phase)."""

    def who(seat: Seat) -> str:
        return f"seat {seat}" if names is None else f"seat {seat} ({names[seat]})"

    if dynamics is Dynamics.SIMULTANEOUS or len(actions) > 1:
        parts = ", ".join(f"{who(s)} {a}" for s, a in sorted(actions.items()))
        return f"tick {number}: {parts}"
    ((seat, action),) = actions.items()
    return f"{label or f'step {number}':<8} {who(seat)}: {action}"


def result_lines(family: Family, result: Result, names: Sequence[str] | None = None) -> list[str]:
    """The end of a game: how it ended and after how long (in the family's unit), each
    seat's score and rank (best first), the winners and the family's further counts."""
    lines = [f"Game {result.termination.value} after {family.length(result.rounds)}."]
    for seat in result.order:
        who = f"seat {seat}" if names is None else f"seat {seat} ({names[seat]})"
        mark = "  winner" if seat in result.winners else ""
        lines.append(f"  {who}: score {result.scores[seat]} (rank {result.ranks[seat]}){mark}")
    winners = ", ".join(map(str, result.winners)) or "none"
    lines.append(f"  winners: seat{'s' if len(result.winners) != 1 else ''} {winners}")
    if result.details:
        details = ", ".join(f"{k} {v}" for k, v in sorted(result.details.items()))
        lines.append(f"  details: {details}")
    return lines


def first_player_option(family: Family, first_player: int | None) -> dict[str, Any]:
    """``{"first_player": F}`` for families whose games take it; an error for others."""
    if first_player is None:
        return {}
    if "first_player" not in game_options(family):
        raise SetupError(
            f"--first-player: a {family.name} game has no first player to choose "
            f"(its options: {', '.join(game_options(family)) or 'none'})"
        )
    return {"first_player": first_player}


# ----------------------------------------------------------------------- demo


def _demo_players(variant: VariantBase, players: int | None) -> int:
    if players is not None:
        return players
    return min(max(DEFAULT_PLAYERS, variant.players.min), variant.players.max)


@app.command()
@user_errors
def demo(
    variant: Annotated[str, typer.Argument(help="Built-in variant name or YAML file.")] = (
        "klunker-en"
    ),
    players: Annotated[
        int | None,
        typer.Option(
            "--players", "-p", help="Number of players (default 4, or the nearest allowed)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the game and players.")] = 1,
    first_player: Annotated[
        int | None,
        typer.Option(
            "--first-player", help="First start player (seat), for families that have one."
        ),
    ] = None,
) -> None:
    """Play one seeded game with random players, printing every step and every event.

    The table is drawn at the start and at the end (everything shown); a turn prints
    its seat and action, a simultaneous tick every acting seat's action, then the
    events. The same seed prints the same game.
    """
    loaded = load_variant(variant)
    family = family_for(loaded)
    count = _demo_players(loaded, players)
    game = new_family_game(loaded, count, seed, **first_player_option(family, first_player))
    bots = [RandomBot(derive_seed(seed, "demo-player", s)) for s in range(count)]
    console.print(
        f"{loaded.title or loaded.name}: {count} players, seed {seed} "
        f"({family.name} family, {game.dynamics.value})",
        markup=False,
    )
    console.print(family.render(game, None), markup=False)
    last_round: int | None = None
    number = 0
    while not game.is_over:
        if number >= MAX_DEMO_STEPS:
            raise CardshopError(f"the game did not end within {MAX_DEMO_STEPS:,} steps")
        round_, phase = stage(game)
        if round_ is not None and round_ != last_round:
            last_round = round_
            console.print(f"\nRound {round_}", markup=False)
        done = driver_step(game, bots, index=number)
        console.print(
            "  " + step_lines(number, done.actions, game.dynamics, label=phase), markup=False
        )
        for event in done.events:  # all of them: an action may have no echo event of its own
            console.print(f"           {event_text(family, loaded, event, None)}", markup=False)
        number += 1
    console.print("", markup=False)
    console.print(family.render(game, None), markup=False)
    for line in result_lines(family, game.result()):
        console.print(line, markup=False)


EXTENDS_ANYWHERE_HELP = (
    "Let `extends` name any file, not only built-in variants and files inside the "
    "variant's own folder. Use it only for files you trust."
)


def _fault(exc: BaseException) -> str:
    """An error as one paragraph: a user error's message, else its type and message."""
    if isinstance(exc, CardshopError):
        return paragraph(str(exc))
    return paragraph(f"{type(exc).__name__}: {exc}") or type(exc).__name__


def _broken_families() -> list[str]:
    """One paragraph per family entry point that cannot be loaded."""
    problems = []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            ep.load()
        except Exception as exc:  # a broken plugin: say which and why, never a traceback
            problems.append(f"family {ep.name!r} ({ep.value}) cannot be loaded: {_fault(exc)}")
    return problems


@app.command("variants")
def list_variants() -> None:
    """List the named variants (cardshop's and the registered families') with their
    family, then the registered families.

    A variant (or a family) that cannot be loaded is reported in one paragraph on
    stderr and the others are still listed; the exit code is then 2.
    """
    bad = 0
    for name in builtin_variants():
        try:
            v = load_variant(name)
        except Exception as exc:  # one broken variant must not hide the others
            err_console.print(f"cardshop: error: {name}: {_fault(exc)}", markup=False)
            bad += 1
            continue
        console.print(
            f"{name:<14} {v.family:<14} {v.players.min}-{v.players.max} players  {v.title}",
            markup=False,
        )
    try:
        known = families()
    except Exception as exc:
        problems = _broken_families() or [f"the families cannot be listed: {_fault(exc)}"]
        for problem in problems:
            err_console.print(f"cardshop: error: {problem}", markup=False)
        raise typer.Exit(2) from None
    listed = ", ".join(f"{f.name} ({f.dynamics.value})" for f in known.values())
    console.print(f"families: {listed or 'none'}", markup=False)
    if bad:
        raise typer.Exit(2)


@app.command()
def validate(
    files: Annotated[list[Path], typer.Argument(help="Variant YAML files to check.")],
    extends_anywhere: Annotated[
        bool, typer.Option("--extends-anywhere", help=EXTENDS_ANYWHERE_HELP)
    ] = False,
    strict: Annotated[
        bool,
        typer.Option("--strict", help="Fail (exit 2) on warnings too, not only on errors."),
    ] = False,
) -> None:
    """Check variant files of any family; print each problem with file, line and key.

    Errors (``cardshop: error:``) and warnings (``cardshop: warning:``: the variant
    plays, but maybe not as written) are printed in line order, one paragraph each.
    Exit 2 on any error, and with ``--strict`` on any warning too; exit 0 otherwise.
    """
    bad = 0
    for path in files:
        try:
            variant, problems = inspect_variant(path, extends_anywhere=extends_anywhere)
        except Exception as exc:  # a broken family: one paragraph, not a traceback
            err_console.print(f"cardshop: error: {path}: {_fault(exc)}", markup=False)
            bad += 1
            continue
        warned = 0
        for problem in problems:
            kind = "warning" if isinstance(problem, VariantWarning) else "error"
            warned += kind == "warning"
            err_console.print(f"cardshop: {kind}: {paragraph(str(problem))}", markup=False)
        if variant is None or (strict and warned):
            bad += 1
        if variant is not None:
            players = variant.players
            note = f", {warned} warning{'s' if warned != 1 else ''}" if warned else ""
            verdict = "fails --strict" if strict and warned else "ok"
            console.print(
                f"{path}: {verdict} ({variant.name}, {variant.family} family, "
                f"{players.min}-{players.max} players{note})",
                markup=False,
            )
    if bad:
        raise typer.Exit(2)


@app.command()
@user_errors
def show(
    variant: Annotated[str, typer.Argument(help="Built-in variant name or YAML file.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of YAML.")] = False,
    changes: Annotated[
        bool,
        typer.Option(
            "--changes",
            help="Instead of the variant, list what the file changes in the variant it "
            "extends: each key set, added or deleted, each list replaced and each item "
            "removed, merged, prepended or appended, with its line.",
        ),
    ] = False,
    extends_anywhere: Annotated[
        bool, typer.Option("--extends-anywhere", help=EXTENDS_ANYWHERE_HELP)
    ] = False,
) -> None:
    """Print a variant as resolved (after ``extends``), with every default filled in.

    Both forms load back as a variant file (in JSON, player counts are string keys).
    With ``--changes``, list the edits of a file that extends another, in line order.
    """
    loaded = load_variant(variant, extends_anywhere=extends_anywhere)
    if changes:
        edits = sorted(
            variant_changes(variant, extends_anywhere=extends_anywhere),
            key=lambda c: (
                (c.location.file, c.location.line, c.location.column)
                if c.location is not None
                else ("", 0, 0)
            ),
        )
        if as_json:
            rows = [
                {
                    "kind": c.kind,
                    "key": format_path(c.path),
                    "location": str(c.location) if c.location is not None else None,
                    "detail": c.detail,
                }
                for c in edits
            ]
            console.print(json.dumps(rows, indent=2, ensure_ascii=False), markup=False)
        elif not edits:
            console.print(f"{variant}: extends nothing, or changes nothing", markup=False)
        for c in [] if as_json else edits:
            console.print(str(c), markup=False)
        return
    if as_json:
        console.print(json.dumps(loaded.to_data(), indent=2), markup=False)
    else:
        # Python mode keeps player-count keys as numbers, so the YAML loads back as is.
        data = loaded.model_dump(exclude={"extends"})
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
        console.print(text.rstrip(), markup=False)
