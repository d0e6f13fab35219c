"""Play in the browser: a table server for every family (``cardshop serve``).

An ASGI application (Starlette; the ``serve`` extra) that hosts tables of any
registered family and variant: people and bots at one table, spectators, real time
where the rules are simultaneous, every table and its move log in SQLite. See
docs/serve.md for running it, embedding it and its message protocol::

    from cardshop.serve import create_app
    app = create_app("tables.sqlite")
"""

from __future__ import annotations

from cardshop.serve.app import create_app, replay_frames
from cardshop.serve.protocol import PROTOCOL, ProtocolError, TableSpec
from cardshop.serve.store import Store
from cardshop.serve.tables import HUMAN, IDLE_ACTIONS, Lobby, Table

__all__ = [
    "HUMAN",
    "IDLE_ACTIONS",
    "PROTOCOL",
    "Lobby",
    "ProtocolError",
    "Store",
    "Table",
    "TableSpec",
    "create_app",
    "replay_frames",
]
