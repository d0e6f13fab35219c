"""Where the tables live between runs: SQLite (a file, or ``:memory:``).

Two tables: ``tables`` holds each table's setup (the variant's data, players, seed,
options, seats and their token hashes, settings) as one JSON document; ``moves`` holds
every action applied, one row per seat and step, each step in one transaction written
before the step is applied (and so before any client hears of it). A restarted server sets each
game up again and replays its moves (:meth:`Store.load`), so no move is lost.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardshop.core.actions import Seat

__all__ = ["SCHEMA_VERSION", "Store", "StoredTable"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    spec TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    table_id TEXT NOT NULL REFERENCES tables(id),
    step INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (table_id, step, seat)
);
"""


@dataclass(frozen=True, slots=True)
class StoredTable:
    """A table as stored: its setup document and its steps (seat -> action text)."""

    id: str
    created: float
    spec: dict[str, Any]
    steps: list[dict[Seat, str]]


class Store:
    """The tables and their move logs in one SQLite database.

    Used from the server's event loop only (one connection). WAL journal: a killed
    server process loses no committed step.
    """

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        row = self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is None:
            self._db.execute(
                "INSERT INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
            )
        elif row[0] != str(SCHEMA_VERSION):
            raise sqlite3.DatabaseError(
                f"{self.path}: a cardshop serve database of schema {row[0]}, "
                f"this version reads {SCHEMA_VERSION}"
            )

    def close(self) -> None:
        self._db.close()

    def add_table(self, table_id: str, created: float, spec: Mapping[str, Any]) -> None:
        self._db.execute(
            "INSERT INTO tables (id, created, spec) VALUES (?, ?, ?)",
            (table_id, created, json.dumps(spec)),
        )

    def update_spec(self, table_id: str, spec: Mapping[str, Any]) -> None:
        self._db.execute("UPDATE tables SET spec = ? WHERE id = ?", (json.dumps(spec), table_id))

    def add_step(self, table_id: str, step: int, actions: Mapping[Seat, str]) -> None:
        """Write one step's actions, all or none."""
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany(
                "INSERT INTO moves (table_id, step, seat, action) VALUES (?, ?, ?, ?)",
                [(table_id, step, seat, text) for seat, text in sorted(actions.items())],
            )

    def remove_step(self, table_id: str, step: int) -> None:
        """Take back a step written but not played."""
        self._db.execute("DELETE FROM moves WHERE table_id = ? AND step = ?", (table_id, step))

    def tables(self) -> Iterator[StoredTable]:
        """Every stored table with its steps, oldest first."""
        rows = self._db.execute("SELECT id, created, spec FROM tables ORDER BY created, id")
        for table_id, created, spec in rows.fetchall():
            steps: list[dict[Seat, str]] = []
            moves = self._db.execute(
                "SELECT step, seat, action FROM moves WHERE table_id = ? ORDER BY step, seat",
                (table_id,),
            )
            for step, seat, action in moves:
                while len(steps) <= step:
                    steps.append({})
                steps[step][seat] = action
            yield StoredTable(table_id, created, json.loads(spec), steps)
