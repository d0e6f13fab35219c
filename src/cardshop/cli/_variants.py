"""Commands that describe or weigh the variant format: ``schema``, ``diff``, ``compare``."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from cardshop.cli._app import app, console, fail, user_errors
from cardshop.cli._audit import (
    AsJson,
    AsMarkdown,
    Bots,
    CapPolicy,
    CheckEvery,
    CheckGames,
    Examples,
    Games,
    Html,
    MaxCapShare,
    PlayerCounts,
    Quiet,
    Replays,
    SaveGames,
    Seed,
    Workers,
    audit,
)
from cardshop.core.loader import schema as variant_schema
from cardshop.core.registry import families
from cardshop.core.schema import family_schema
from cardshop.variantdiff import changes_text, diff_variants


@app.command()
def schema(
    family: Annotated[
        str | None,
        typer.Option(
            "--family",
            "-f",
            help="Print the schema of this family's variant files only (default: the "
            "combined schema of every family, its branch picked by the family key).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Print the JSON Schema of the variant format (for editor completion and checks).

    Without --family: one schema for every family, which checks a file against the
    schema of the family its family key names. A file that extends another and leaves
    out family is checked against every family's schema; cardshop validate checks it
    against its base's family. Exit code 2: no family of that name.
    """
    if family is None:
        found = variant_schema()
    else:
        known = families()
        if family not in known:
            raise fail(f"unknown family {family!r}; the families are: {', '.join(known)}")
        found = family_schema(family)
    console.print(json.dumps(found, indent=2), markup=False)


@app.command()
@user_errors
def diff(
    a: Annotated[str, typer.Argument(help="Variant A: a built-in name or a YAML file.")],
    b: Annotated[str, typer.Argument(help="Variant B: a built-in name or a YAML file.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the changes as JSON.")] = False,
) -> None:
    """List every key that differs from variant A to variant B, after extends.

    Each line is a key path with its old and new value (sale.payout[2]: 3 -> 4), or a
    key or list item added or removed, followed by what the key means and its rule
    clause. Exit code 0 (with "no differences" if none); 2: a variant cannot be
    loaded, or the two are of different families.
    """
    changes = diff_variants(a, b)
    if as_json:
        data = {"a": a, "b": b, "changes": [c.to_dict() for c in changes]}
        console.print(json.dumps(data, indent=2, ensure_ascii=False), markup=False)
    else:
        console.print(changes_text(changes, a, b), markup=False)


@app.command()
def compare(
    a: Annotated[str, typer.Argument(help="Variant A: a built-in name or a YAML file.")],
    b: Annotated[str, typer.Argument(help="Variant B: a built-in name or a YAML file.")],
    games: Games = None,
    players: PlayerCounts = None,
    seed: Seed = 0,
    examples: Examples = 50,
    check_every: CheckEvery = None,
    check_games: CheckGames = None,
    max_cap_share: MaxCapShare = None,
    cap_policy: CapPolicy = None,
    workers: Workers = None,
    bots: Bots = None,
    as_json: AsJson = False,
    as_markdown: AsMarkdown = False,
    html: Html = None,
    save_games: SaveGames = None,
    quiet: Quiet = False,
    replays: Replays = 1,
) -> None:
    """Weigh a change: the keys that differ from A to B, then both played on the same
    seeds by the same bots.

    The paired audit of cardshop audit A B: the keys that differ (as cardshop diff),
    each seat's mean score in A and B, and every measure of both side by side with the
    difference B-A and its 95% interval. Exit code 0: everything held; 1: an
    invariant was violated or too many games were capped; 2: bad input (a variant
    that cannot be loaded, two families, no shared player count).
    """
    audit(
        [a, b],
        games=games,
        players=players,
        seed=seed,
        examples=examples,
        check_every=check_every,
        check_games=check_games,
        max_cap_share=max_cap_share,
        cap_policy=cap_policy,
        workers=workers,
        bots=bots,
        as_json=as_json,
        as_markdown=as_markdown,
        html=html,
        save_games=save_games,
        quiet=quiet,
        replays=replays,
    )
