"""Game records: a game written down action by action, in JSON Lines (docs/records.md).

A record is a text file with one JSON object per line::

    {"format": "cardshop-record/1", "variant": "klunker-en", "variant_hash": "9f2c…",
     "variant_data": {...}, "players": 4, "seed": 7, "first_player": 2,
     "bots": ["human", "greedy", "greedy", "greedy"]}
    {"n": 1, "seat": 2, "action": "window shoes", "events": [{"type": "Placed", ...}]}
    {"n": 2, "seat": 2, "action": "done", "events": [...]}
    ...
    {"result": {"scores": [...], "ranks": [...], "winners": [...], ...}}

The first line (the header) says how the game was set up: the variant by name, the
content hash of the resolved variant and the resolved variant itself, the number of
players, the seed, the first start player and who played each seat. Then one line
per action: its number, the seat that took it, its text and the events it caused
(:func:`~cardshop.event_to_dict`). A finished game ends with its result.

:func:`replay_record` sets the game up again, plays every action and checks that
each one is legal and causes the recorded events. A record that does not replay
raises :class:`~cardshop.RecordError` naming the file and line.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardshop._core import MAX_ACTION_TEXT, Action, Seat, is_seed
from cardshop._errors import ActionError, CardshopError, RecordError
from cardshop._loader import builtin_variants, load_variant, variant_from_data
from cardshop.klunker._serial import history_cap
from cardshop.klunker.events import event_to_dict
from cardshop.klunker.game import Game, Result, new_game
from cardshop.klunker.variant import Variant, as_klunker

__all__ = [
    "RECORD_FORMAT",
    "GameRecord",
    "RecordedAction",
    "read_record",
    "record_game",
    "replay_record",
]

RECORD_FORMAT = "cardshop-record/1"
"""The ``format`` value of a record's header line."""

MAX_RECORD_BYTES = 64_000_000
"""The largest record read, in bytes (a capped 6-player game is far smaller)."""
MAX_LINE_BYTES = 1_000_000
"""The longest line of a record (the header carries the variant)."""
MAX_EVENTS = 1_000
"""The most events one action line may list."""
MAX_BOT_NAME = 200


@dataclass(frozen=True, slots=True)
class RecordedAction:
    """One line of a record: the seat that acted, the action and the events it caused."""

    seat: Seat
    action: Action
    events: tuple[dict[str, Any], ...]

    def to_dict(self, n: int) -> dict[str, Any]:
        return {"n": n, "seat": self.seat, "action": str(self.action), "events": list(self.events)}


def _result_dict(result: Result) -> dict[str, Any]:
    return {
        "scores": list(result.scores),
        "ranks": list(result.ranks),
        "winners": list(result.winners),
        "termination": result.termination.value,
        "rounds": result.rounds,
    }


@dataclass(slots=True)
class GameRecord:
    """A game's setup and its actions with their events; see the module docstring.

    ``lines[i]`` is the line of the file that action ``i`` was read from (1-based),
    or ``None`` for a record made in memory.
    """

    variant: Variant
    players: int
    seed: int
    first_player: Seat
    bots: tuple[str, ...]
    actions: list[RecordedAction] = field(default_factory=list)
    result: dict[str, Any] | None = None
    source: str = "<record>"
    variant_name: str = ""
    variant_hash: str = ""
    lines: list[int | None] = field(default_factory=list)
    result_line: int | None = None

    def __post_init__(self) -> None:
        self.variant_name = self.variant_name or self.variant.name
        self.variant_hash = self.variant_hash or self.variant.content_hash
        if not self.lines:
            self.lines = [None] * len(self.actions)

    # ---------------------------------------------------------------- writing

    def header(self) -> dict[str, Any]:
        """The first line of the record, as data."""
        return {
            "format": RECORD_FORMAT,
            "variant": self.variant_name,
            "variant_hash": self.variant_hash,
            "variant_data": self.variant.to_data(),
            "players": self.players,
            "seed": self.seed,
            "first_player": self.first_player,
            "bots": list(self.bots),
        }

    def dumps(self) -> str:
        """The record as JSON Lines text (ending with a newline)."""
        lines = [json.dumps(self.header(), separators=(",", ":"))]
        for i, recorded in enumerate(self.actions):
            lines.append(json.dumps(recorded.to_dict(i + 1), separators=(",", ":")))
        if self.result is not None:
            lines.append(json.dumps({"result": self.result}, separators=(",", ":")))
        return "\n".join(lines) + "\n"

    def write(self, path: str | Path) -> None:
        """Write the record to ``path`` (UTF-8 JSON Lines)."""
        Path(path).write_text(self.dumps(), encoding="utf-8")

    # ---------------------------------------------------------------- reading

    @classmethod
    def loads(cls, text: str, source: str = "<record>") -> GameRecord:
        """Read a record from JSON Lines text; :class:`RecordError` names the bad line."""
        if not isinstance(text, str):
            raise RecordError(f"{source}: a record is text, not {type(text).__name__}")
        if len(text) * 4 > MAX_RECORD_BYTES and len(text.encode()) > MAX_RECORD_BYTES:
            raise RecordError(f"{source}: record is larger than {MAX_RECORD_BYTES} bytes")
        rows: list[tuple[int, dict[str, Any]]] = []
        record: GameRecord | None = None
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            if len(line) > MAX_LINE_BYTES:
                raise RecordError(f"{source}:{number}: line longer than {MAX_LINE_BYTES} bytes")
            try:
                data = json.loads(line)
            except RecursionError:
                raise RecordError(f"{source}:{number}: JSON nested too deeply") from None
            except ValueError as exc:
                raise RecordError(f"{source}:{number}: not JSON: {exc}") from None
            if not isinstance(data, dict):
                raise RecordError(f"{source}:{number}: each line must be a JSON object")
            if record is None:
                record = cls._from_header(data, source, number)
                continue
            if len(rows) >= record.max_actions:
                raise RecordError(
                    f"{source}:{number}: more than {record.max_actions} actions; no game of "
                    f"{record.players} players of {record.variant.name} is that long"
                )
            rows.append((number, data))
        if record is None:
            raise RecordError(f"{source}: empty record: the header line is missing")
        for number, data in rows:
            if record.result is not None:
                raise RecordError(f"{source}:{number}: a line after the result line")
            if set(data) == {"result"}:
                if not isinstance(data["result"], dict):
                    raise RecordError(f"{source}:{number}: 'result' must be an object")
                record.result = data["result"]
                record.result_line = number
                continue
            record.actions.append(
                _action_line(data, source, number, len(record.actions) + 1, record.players)
            )
            record.lines.append(number)
        return record

    @classmethod
    def _from_header(cls, head: dict[str, Any], source: str, line: int) -> GameRecord:
        where = f"{source}:{line}"
        if head.get("format") != RECORD_FORMAT:
            raise RecordError(
                f"{where}: not a cardshop record: the header's format is "
                f"{head.get('format')!r}, expected {RECORD_FORMAT!r}"
            )
        expected = {
            "variant": str,
            "variant_hash": str,
            "variant_data": dict,
            "players": int,
            "seed": int,
            "first_player": int,
            "bots": list,
        }
        for key, kind in expected.items():
            value = head.get(key)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise RecordError(
                    f"{where}: header key {key!r} is missing or not a {kind.__name__}"
                )
        unknown = sorted(set(head) - {"format", *expected})
        if unknown:
            raise RecordError(f"{where}: unknown header key {unknown[0][:60]!r}")
        name = head["variant"]
        if (
            len(name) > 100
            or not name
            or any(c in name for c in "/\\\0")
            or name.endswith((".yaml", ".yml"))
        ):
            raise RecordError(
                f"{where}: header key 'variant' must be a variant's name, not "
                f"{name[:60]!r}; a record never makes cardshop open a file: to replay with "
                "the rules of a file, pass it explicitly (replay_record(record, variant=PATH), "
                "cardshop replay --variant PATH)"
            )
        try:
            variant = as_klunker(
                variant_from_data(head["variant_data"], source=f"{where} (variant_data)")
            )
        except CardshopError as exc:
            raise RecordError(f"{where}: the recorded variant is invalid: {exc}") from None
        if variant.content_hash != head["variant_hash"]:
            raise RecordError(
                f"{where}: the header's variant_data does not match its variant_hash "
                "(the record was edited)"
            )
        if name != variant.name:
            raise RecordError(
                f"{where}: header key 'variant' is {name[:60]!r}, but variant_data is "
                f"variant {variant.name!r}"
            )
        rules = variant.rules
        players, seed, first = head["players"], head["seed"], head["first_player"]
        if not rules.min_players <= players <= rules.max_players:
            raise RecordError(
                f"{where}: header key 'players': {players} is outside {variant.name}'s range "
                f"{rules.min_players}..{rules.max_players}"
            )
        if not is_seed(seed):
            raise RecordError(f"{where}: header key 'seed' is not an int of at most 64 bits")
        if not 0 <= first < players:
            raise RecordError(
                f"{where}: header key 'first_player': {first} is not a seat 0..{players - 1}"
            )
        bots = head["bots"]
        if len(bots) != players or not all(
            isinstance(b, str) and len(b) <= MAX_BOT_NAME for b in bots
        ):
            raise RecordError(
                f"{where}: header key 'bots' must name the player of each of the {players} "
                f"seats (texts of at most {MAX_BOT_NAME} characters)"
            )
        return cls(
            variant=variant,
            players=head["players"],
            seed=head["seed"],
            first_player=head["first_player"],
            bots=tuple(bots),
            source=source,
            variant_name=head["variant"],
            variant_hash=head["variant_hash"],
            lines=[],
        )

    @property
    def max_actions(self) -> int:
        """The most actions a record of this setup can hold (from the round cap)."""
        return history_cap(self.variant.rules, self.players)

    @classmethod
    def read(cls, path: str | Path) -> GameRecord:
        """Read a record file: a regular file of at most :data:`MAX_RECORD_BYTES`."""
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except (OSError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) else str(exc)
            raise RecordError(f"{str(path)[:200]}: cannot read the record: {why}") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise RecordError(f"{path}: not a regular file; a record is a JSON Lines file")
            if info.st_size > MAX_RECORD_BYTES:
                raise RecordError(f"{path}: record is larger than {MAX_RECORD_BYTES} bytes")
            with os.fdopen(fd, "rb", closefd=False) as f:
                raw = f.read(MAX_RECORD_BYTES + 1)
        except OSError as exc:
            raise RecordError(f"{path}: cannot read the record: {exc.strerror}") from None
        finally:
            os.close(fd)
        if len(raw) > MAX_RECORD_BYTES:
            raise RecordError(f"{path}: record is larger than {MAX_RECORD_BYTES} bytes")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise RecordError(f"{path}: not a text file (UTF-8 JSON Lines expected)") from None
        return cls.loads(text, str(path))

    # -------------------------------------------------------------- replaying

    def where(self, index: int) -> str:
        """``file:line`` of action ``index`` (or ``file: action n`` for an in-memory one)."""
        line = self.lines[index] if index < len(self.lines) else None
        return f"{self.source}:{line}" if line is not None else f"{self.source}: action {index + 1}"

    def replay(
        self, variant: Variant | str | Path | None = None, *, recorded_variant: bool = False
    ) -> Game:
        """Set the game up again and replay every action, checking each.

        See :func:`replay_record`.
        """
        rules = self._variant_for_replay(variant, recorded_variant)
        try:
            game = new_game(rules, self.players, self.seed, self.first_player)
        except CardshopError as exc:
            raise RecordError(f"{self.source}:1: the game cannot be set up again: {exc}") from None
        for i, recorded in enumerate(self.actions):
            where = self.where(i)
            if game.is_over:
                raise RecordError(f"{where}: action {str(recorded.action)!r} after the game ended")
            if recorded.seat != game.current_player:
                raise RecordError(
                    f"{where}: the record has seat {recorded.seat} acting, but it is seat "
                    f"{game.current_player}'s turn"
                )
            try:
                events = game.apply(game.parse_action(str(recorded.action)))
            except ActionError as exc:
                raise RecordError(
                    f"{where}: action {str(recorded.action)!r} no longer fits: {exc}"
                ) from None
            replayed = [event_to_dict(e) for e in events]
            if replayed != list(recorded.events):
                diff = _first_difference(list(recorded.events), replayed)
                raise RecordError(
                    f"{where}: action {str(recorded.action)!r} now causes other events than "
                    f"recorded: {diff}"
                )
        if self.result is not None:
            where = (
                f"{self.source}:{self.result_line}"
                if self.result_line is not None
                else f"{self.source}: result"
            )
            if not game.is_over:
                raise RecordError(f"{where}: the record has a result but the game is not over")
            now = _result_dict(game.result())
            if now != self.result:
                raise RecordError(
                    f"{where}: the recorded result {self.result} differs from the replay's {now}"
                )
        return game

    def _variant_for_replay(self, variant: Variant | str | Path | None, recorded: bool) -> Variant:
        if recorded:
            return self.variant
        where = f"{self.source}:1"
        if variant is not None:
            # the caller's choice: a name, path or Variant
            current = as_klunker(load_variant(variant))
        elif self.variant_name in builtin_variants():
            current = as_klunker(load_variant(self.variant_name))
        else:
            # Not a built-in name: the recorded rules decide. The name is never opened
            # as a file; pass a file explicitly with ``variant=``.
            return self.variant
        if current.content_hash != self.variant_hash:
            raise RecordError(
                f"{where}: variant {self.variant_name!r} has changed since the record was "
                f"written (recorded hash {self.variant_hash[:12]}, now "
                f"{current.content_hash[:12]}); replay with the recorded rules instead "
                "(cardshop replay --recorded-variant)"
            )
        return current


def _action_line(
    data: dict[str, Any], source: str, line: int, n: int, players: int
) -> RecordedAction:
    where = f"{source}:{line}"
    number = data.get("n")
    if type(number) is not int or number != n:
        shown = repr(number)[:60]
        raise RecordError(f"{where}: expected action number {n}, found {shown}")
    seat, text, events = data.get("seat"), data.get("action"), data.get("events")
    unknown = sorted(set(data) - {"n", "seat", "action", "events"})
    if unknown:
        raise RecordError(f"{where}: unknown key {unknown[0][:60]!r} in an action line")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
        raise RecordError(f"{where}: 'seat' is missing or not a seat 0..{players - 1}")
    if not isinstance(text, str) or len(text) > MAX_ACTION_TEXT:
        raise RecordError(f"{where}: 'action' is missing or not an action text")
    if (
        not isinstance(events, list)
        or len(events) > MAX_EVENTS
        or not all(isinstance(e, dict) for e in events)
    ):
        raise RecordError(
            f"{where}: 'events' is missing or not a list of at most {MAX_EVENTS} objects"
        )
    try:
        action = Action.from_text(text)
    except ActionError as exc:
        raise RecordError(f"{where}: {exc}") from None
    return RecordedAction(seat, action, tuple(events))


def _first_difference(recorded: list[dict[str, Any]], replayed: list[dict[str, Any]]) -> str:
    for i, (a, b) in enumerate(zip(recorded, replayed, strict=False)):
        if a != b:
            return f"event {i + 1} was {a}, now {b}"
    return f"{len(recorded)} event(s) recorded, {len(replayed)} now"


def record_game(game: Game, bots: Sequence[str] | None = None) -> GameRecord:
    """The record of ``game`` so far (finished or not), with who played each seat.

    The events are found by replaying the game's history from its setup, so the game
    must have been started by :func:`cardshop.new_game` (not from a position).
    ``bots`` names each seat's player (default ``"unknown"``).
    """
    names = tuple(bots) if bots is not None else ("unknown",) * game.players
    if len(names) != game.players:
        raise RecordError(f"bots names {len(names)} players; the game has {game.players}")
    not_from_setup = RecordError(
        "the game's history does not lead from its setup to its state (was it set up "
        "from a position?); only games started by new_game can be recorded"
    )
    again = new_game(game.variant, game.players, game.seed, game.first_player)
    actions = []
    for action in game.history:
        seat = again.current_player
        if seat is None:
            raise not_from_setup
        try:
            events = again.apply(action)
        except ActionError:
            raise not_from_setup from None
        actions.append(RecordedAction(seat, action, tuple(event_to_dict(e) for e in events)))
    if again != game:
        raise not_from_setup
    result = _result_dict(game.result()) if game.is_over else None
    return GameRecord(
        variant=game.variant,
        players=game.players,
        seed=game.seed,
        first_player=game.first_player,
        bots=names,
        actions=actions,
        result=result,
    )


def read_record(path: str | Path) -> GameRecord:
    """Read a record file (raises :class:`RecordError` naming the line of a problem)."""
    return GameRecord.read(path)


def replay_record(
    record: GameRecord | str | Path,
    variant: Variant | str | Path | None = None,
    *,
    recorded_variant: bool = False,
) -> Game:
    """Replay a record (or a record file) and verify it; return the replayed game.

    The rules: ``variant`` if given, else the variant loaded by the recorded name,
    which must still have the recorded content hash; a name that cannot be loaded
    here falls back on the rules stored in the record, as ``recorded_variant=True``
    always does. Every action must be the turn of its recorded seat, be legal, and
    cause exactly the recorded events; a recorded result must match. Any mismatch
    raises :class:`RecordError` naming the file and line.
    """
    if not isinstance(record, GameRecord):
        record = GameRecord.read(record)
    return record.replay(variant, recorded_variant=recorded_variant)
