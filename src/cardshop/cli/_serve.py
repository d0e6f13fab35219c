"""The ``serve`` command: play in the browser (the ``serve`` extra; docs/serve.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from cardshop.cli._app import app, console, fail, user_errors

WS_MAX_BYTES = 1_048_576
"""Frames larger than this are refused by the WebSocket layer itself (close code 1009);
smaller ones beyond the protocol's own limit get an ``error`` message."""


@app.command()
@user_errors
def serve(
    db: Annotated[
        str,
        typer.Option("--db", help="SQLite file of the tables and their moves (or :memory:)."),
    ] = "cardshop-tables.sqlite",
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    variant: Annotated[
        list[str] | None,
        typer.Option(
            "--variant", help="Offer this variant too (a name or a YAML file); repeatable."
        ),
    ] = None,
    no_uploads: Annotated[
        bool, typer.Option("--no-uploads", help="Refuse tables of variants sent by clients.")
    ] = False,
    max_tables: Annotated[
        int, typer.Option("--max-tables", help="Most tables the server holds.", min=1)
    ] = 1000,
    max_tables_per_client: Annotated[
        int,
        typer.Option(
            "--max-tables-per-client",
            help="Most unfinished tables one client address may open (0: no bound).",
            min=0,
        ),
    ] = 20,
    max_bot_budget: Annotated[
        str,
        typer.Option(
            "--max-bot-budget",
            help="Most search a bot may do per decision, as an ISMCTS budget: "
            "ITERATIONS:SECONDSs ('1000:1s'), or one of them.",
        ),
    ] = "1000:1s",
    bot_threads: Annotated[
        int,
        typer.Option("--bot-threads", help="Bots of all tables thinking at once.", min=1, max=64),
    ] = 2,
) -> None:
    """Host tables of any family in the browser: people, bots and spectators.

    Opens a page at http://HOST:PORT/ to create tables, take seats, play, watch and
    step through game records. Tables and their moves are kept in --db, so a
    restarted server resumes every game.
    """
    try:
        import uvicorn

        from cardshop.serve import create_app
        from cardshop.serve.tables import SWITCH_INTERVAL
    except ImportError as exc:
        raise fail(
            f"cardshop serve needs the 'serve' extra ({exc.name} is missing): "
            'python -m pip install ".[serve]" in a clone of cardshop'
        ) from None
    application = create_app(
        db if db == ":memory:" else Path(db),
        variants=variant or (),
        uploads=not no_uploads,
        max_tables=max_tables,
        max_bot_budget=max_bot_budget,
        bot_threads=bot_threads,
        max_tables_per_client=max_tables_per_client or None,
    )
    sys.setswitchinterval(SWITCH_INTERVAL)  # searching bots share the interpreter
    console.print(f"cardshop serve: http://{host}:{port}/ (tables in {db})", markup=False)
    uvicorn.run(application, host=host, port=port, ws_max_size=WS_MAX_BYTES, log_level="warning")
