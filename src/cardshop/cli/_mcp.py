"""The ``mcp`` command: games served to language-model agents as MCP tools (the ``mcp``
extra; docs/mcp.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from cardshop.cli._app import app, fail, user_errors


@app.command()
@user_errors
def mcp(
    max_games: Annotated[
        int,
        typer.Option(
            "--max-games",
            help="Most games the session holds at once (the oldest finished ones make room).",
            min=1,
            max=1000,
        ),
    ] = 8,
) -> None:
    """Serve games to an MCP client (an LLM agent) over standard input and output.

    The client plays one seat of each game it opens, bots the others, through the
    tools list_variants, new_game, observe, act and result. It sees only its own
    seat's view, and a game's seed and record only once the game is over.
    """
    try:
        from cardshop.serve.mcp import run_stdio, sdk

        sdk()  # the SDK (the extra) is there
    except ImportError as exc:
        raise fail(
            f"cardshop mcp needs the 'mcp' extra ({exc.name} is missing): "
            'pip install "cardshop[mcp]" (or python -m pip install ".[mcp]" in a clone '
            "of cardshop)"
        ) from None
    run_stdio(max_games)
