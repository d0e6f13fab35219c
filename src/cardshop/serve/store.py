"""Where the tables live between runs: SQLite (a file, or ``:memory:``).

Two tables: ``tables`` holds each table's setup (the variant's data, players, seed,
options, seats and their token hashes, settings) as one JSON document; ``moves`` holds
every action applied, one row per seat and step, each step in one transaction written
before the step is applied (and so before any client hears of it). A restarted server sets each
game up again and replays its moves (:meth:`Store.tables`), so no move is lost.

A file is checked before anything is written into it (:class:`Store`): it must be a
cardshop serve database of this schema (SQLite's ``application_id`` and
``user_version``, or the tables of one written before the id), undamaged
(``PRAGMA quick_check``) and writable, or an empty or missing file, which becomes
one. Anything else is a :class:`StoreError` and the file is left as it was: it is
read in SQLite's immutable mode (which writes nothing) until it has passed.
"""

from __future__ import annotations

import json
import sqlite3
import stat
import time
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardshop.core.actions import Seat
from cardshop.core.errors import CardshopError

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "Store", "StoreError", "StoredTable"]

SCHEMA_VERSION = 1
"""The layout of the tables this version reads and writes (``PRAGMA user_version``)."""
APPLICATION_ID = 0x63534856
"""The ``PRAGMA application_id`` of a cardshop serve database (``cSHV``)."""
_TABLES = {"meta", "tables", "moves"}
_NOTADB = 26  # SQLite's primary result code for a file that is not a database

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


class StoreError(CardshopError):
    """The database of the tables cannot be used: not a cardshop serve database, of
    another schema, damaged, or refusing a write. Nothing was changed."""


@dataclass(frozen=True, slots=True)
class StoredTable:
    """A table as stored: its setup document and its steps (seat -> action text).

    ``damage`` says why a row cannot be read (then ``spec`` is empty and ``steps``
    may be): that table stops alone, the others are read.
    """

    id: str
    created: float
    spec: dict[str, Any]
    steps: list[dict[Seat, str]]
    damage: str | None = None


def _reason(exc: sqlite3.Error) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


class Store:
    """The tables and their move logs in one SQLite database.

    Used from the server's event loop only (one connection). WAL journal: a killed
    server process loses no committed step. Opening checks the file first (see the
    module) and writes the time it was opened into it, so that a file the server
    cannot write is refused at once; every later write that fails raises
    :class:`StoreError` (the caller changes nothing in memory then).
    """

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        memory = self.path == ":memory:"
        if not memory:
            self._check_file(Path(self.path))
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(
                f"{self.path}: cannot open the tables' database ({_reason(exc)})"
            ) from None
        try:
            # Checked again on this connection, which sees a write-ahead log the
            # read-only look at the file alone did not, before anything is written.
            fresh = self._inspect(self._db, deep=False)
            if not memory:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
            with self._db:
                self._db.execute("BEGIN IMMEDIATE")
                if fresh:
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            self._db.execute(statement)
                self._db.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)",
                    (str(SCHEMA_VERSION),),
                )
                self._db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('opened', ?)",
                    (repr(time.time()),),
                )
                self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except StoreError:
            self._db.close()
            raise
        except sqlite3.Error as exc:
            self._db.close()
            raise StoreError(
                f"{self.path}: the tables' database cannot be written ({_reason(exc)}): "
                "cardshop serve keeps every table and move in it, so it does not start; "
                "give it a file it may write with --db"
            ) from None

    def _check_file(self, path: Path) -> None:
        """Check an existing file before anything opens it for writing: read through
        SQLite's immutable mode, which writes nothing, not even beside the file."""
        try:
            info = path.stat()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise StoreError(f"{path}: cannot read the tables' database ({exc.strerror})") from None
        if not stat.S_ISREG(info.st_mode):
            raise StoreError(
                f"{path} is not a regular file: --db names the SQLite file of the tables"
            )
        if info.st_size == 0:
            return
        uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?immutable=1"
        try:
            db = sqlite3.connect(uri, uri=True, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: cannot open the tables' database ({_reason(exc)})") from None
        try:
            self._inspect(db, deep=True)
        finally:
            db.close()

    def _inspect(self, db: sqlite3.Connection, *, deep: bool) -> bool:
        """Whether ``db`` is empty (the tables are to be made); :class:`StoreError` for
        a database that is not a cardshop serve one of this schema, or (``deep``) is
        damaged."""
        other = f"{self.path} is not a cardshop serve database"
        leave = "cardshop serve writes nothing into it; name another file with --db"
        try:
            app_id = db.execute("PRAGMA application_id").fetchone()[0]
            version = db.execute("PRAGMA user_version").fetchone()[0]
            found = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            names = {row[0] for row in found if not str(row[0]).startswith("sqlite_")}
            if app_id not in (0, APPLICATION_ID):
                raise StoreError(f"{other} (its SQLite application id is {app_id:#x}): {leave}")
            if app_id == 0 and not names:
                return True  # an empty database: ours to set up
            if not names >= _TABLES or (app_id == 0 and names != _TABLES):
                shown = ", ".join(sorted(names)[:8]) or "none"
                raise StoreError(f"{other} (it holds the tables {shown}): {leave}")
            if app_id == APPLICATION_ID:
                schema: object = version
            else:  # written before the application id: its schema is in meta
                row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
                schema = row[0] if row else None
            if str(schema) != str(SCHEMA_VERSION):
                raise StoreError(
                    f"{self.path} is a cardshop serve database of schema {schema}; this "
                    f"version of cardshop reads schema {SCHEMA_VERSION} only: {leave}"
                )
            if deep:
                checked = db.execute("PRAGMA quick_check").fetchmany(3)
                problems = [" ".join(str(row[0]).split()) for row in checked]
                if problems != ["ok"]:
                    raise StoreError(
                        f"{self.path} is damaged (SQLite's check: {'; '.join(problems)[:300]}): "
                        "cardshop serve writes nothing into a damaged database; restore it "
                        "from a copy, or name another file with --db"
                    )
            return False
        except sqlite3.Error as exc:
            code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
            if code == _NOTADB:
                raise StoreError(
                    f"{self.path} is not an SQLite database, so not a cardshop serve one "
                    f"(SQLite: {_reason(exc)}): {leave}"
                ) from None
            raise StoreError(
                f"{self.path} is damaged or not a cardshop serve database (SQLite: "
                f"{_reason(exc)}): cardshop serve writes nothing into it; restore it from a "
                "copy, or name another file with --db"
            ) from None

    def close(self) -> None:
        self._db.close()

    def _write(self, what: str, sql: str, parameters: tuple[Any, ...]) -> None:
        try:
            self._db.execute(sql, parameters)
        except sqlite3.Error as exc:
            raise StoreError(f"{what} cannot be written to {self.path} ({_reason(exc)})") from None

    def add_table(self, table_id: str, created: float, spec: Mapping[str, Any]) -> None:
        self._write(
            f"table {table_id}",
            "INSERT INTO tables (id, created, spec) VALUES (?, ?, ?)",
            (table_id, created, json.dumps(spec)),
        )

    def update_spec(self, table_id: str, spec: Mapping[str, Any]) -> None:
        self._write(
            f"table {table_id}",
            "UPDATE tables SET spec = ? WHERE id = ?",
            (json.dumps(spec), table_id),
        )

    def add_step(self, table_id: str, step: int, actions: Mapping[Seat, str]) -> None:
        """Write one step's actions, all or none."""
        try:
            with self._db:
                self._db.execute("BEGIN")
                self._db.executemany(
                    "INSERT INTO moves (table_id, step, seat, action) VALUES (?, ?, ?, ?)",
                    [(table_id, step, seat, text) for seat, text in sorted(actions.items())],
                )
        except sqlite3.Error as exc:
            raise StoreError(
                f"step {step} of table {table_id} cannot be written to {self.path} ({_reason(exc)})"
            ) from None

    def remove_step(self, table_id: str, step: int) -> None:
        """Take back a step written but not played."""
        self._write(
            f"taking back step {step} of table {table_id}",
            "DELETE FROM moves WHERE table_id = ? AND step = ?",
            (table_id, step),
        )

    def tables(self) -> Iterator[StoredTable]:
        """Every stored table with its steps, oldest first. A row that cannot be read
        comes with its ``damage`` (the others are read all the same)."""
        rows = self._db.execute(
            "SELECT id, created, spec FROM tables ORDER BY created, id"
        ).fetchall()
        for table_id, created, spec in rows:
            name = str(table_id)
            when = created if isinstance(created, (int, float)) else 0.0
            try:
                data = json.loads(spec) if isinstance(spec, (str, bytes)) else None
            except (ValueError, RecursionError):
                data = None
            if not isinstance(data, dict):
                yield StoredTable(name, when, {}, [], "its setup is not a JSON object")
                continue
            try:
                steps = self._steps(name)
            except (sqlite3.Error, TypeError, ValueError) as exc:
                yield StoredTable(name, when, {}, [], f"its moves cannot be read ({exc})")
                continue
            yield StoredTable(name, when, data, steps)

    def _steps(self, table_id: str) -> list[dict[Seat, str]]:
        steps: list[dict[Seat, str]] = []
        moves = self._db.execute(
            "SELECT step, seat, action FROM moves WHERE table_id = ? ORDER BY step, seat",
            (table_id,),
        )
        for step, seat, action in moves:
            if not (
                type(step) is int and type(seat) is int and isinstance(action, str)
            ) or not 0 <= step <= len(steps):
                raise ValueError(f"step {step!r} of seat {seat!r} is not a step of the log")
            while len(steps) <= step:
                steps.append({})
            steps[step][seat] = action
        return steps
