"""Game records: a game of any family written down step by step, in JSON Lines.

A record is a text file with one JSON object per line (docs/records.md)::

    {"format": "cardshop-record/2", "family": "klunker", "variant": "klunker-en",
     "variant_hash": "9f2c…", "variant_data": {...}, "players": 4, "seed": 7,
     "options": {"first_player": 2}, "bots": ["human", "greedy", "greedy", "greedy"]}
    {"step": 0, "actions": [{"seat": 2, "action": "window shoes"}], "events": [...]}
    {"step": 1, "actions": [{"seat": 2, "action": "done"}], "events": [...]}
    ...
    {"result": {"scores": [...], "ranks": [...], "winners": [...], ...}}

The first line (the header) says how the game was set up: its family, the variant by
name, the content hash of the resolved variant and the resolved variant itself, the
number of players, the seed, the setup options given to the family's ``new_game``
and who played each seat. Then one line per step (one call of ``apply`` or
``apply_joint``; in a simultaneous game, one tick): its number, the action of each
seat that acted and the events the step caused, as the family's ``event_to_dict``
writes them. A finished game ends with its result (:meth:`cardshop.Result.to_dict`).

:func:`record_game` records any game started by ``new_game``; a :class:`Recorder`
records a game while the driver plays it (``driver.play(game, bots,
on_step=recorder.add)``). :func:`replay_record` sets the game up again, plays every
step and checks that it is legal and causes the recorded events. A record that does
not replay raises :class:`~cardshop.RecordError` naming the file and line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from cardshop import driver
from cardshop.core.actions import (
    Action,
    Seat,
)
from cardshop.core.chance import ChanceScriptError, ScriptedChance, drawing_from, is_seed
from cardshop.core.errors import (
    ActionError,
    CardshopError,
    GameStateError,
    RecordError,
)
from cardshop.core.family import (
    Family,
    game_options,
)
from cardshop.core.frontdoor import new_game
from cardshop.core.game import (
    Event,
    Game,
)
from cardshop.core.loader import (
    builtin_variants,
    load_variant,
    variant_from_data,
)
from cardshop.core.registry import get_family
from cardshop.core.series import family_for
from cardshop.core.variant import VariantBase
from cardshop.support.files import (
    read_text_bounded,
    write_text_atomic,
)

__all__ = [
    "OLD_FORMATS",
    "RECORD_FORMAT",
    "GameRecord",
    "RecordedAction",
    "RecordedStep",
    "Recorder",
    "read_record",
    "record_game",
    "replay_record",
    "setup_options",
]

RECORD_FORMAT = "cardshop-record/2"
"""The ``format`` value of a record's header line."""
OLD_FORMATS = ("cardshop-record/1",)
"""Formats of earlier releases: refused with a message that says so."""

MAX_RECORD_BYTES = 64_000_000
"""The largest record read, in bytes (a capped 6-player game is far smaller)."""
MAX_LINE_BYTES = 1_000_000
"""The longest line of a record (the header carries the variant)."""
MAX_STEPS = 1_000_000
"""The most step lines a record may hold."""
MAX_EVENTS = 1_000
"""The most events one step line may list."""
MAX_ACTION_CHARS = 1_000
"""The longest action text a step line may hold (the family parses it on replay)."""
MAX_BOT_NAME = 200
MAX_OPTIONS = 16
"""The most setup options a header may hold."""
MAX_OPTION_TEXT = 200

_HEADER = ("format", "family", "variant", "variant_hash", "variant_data", "players", "seed",
           "options", "bots", "chance")  # fmt: skip
MAX_CHANCE_CHOICES = 100_000
"""The most chance choices the setup or one step line may state."""


def _plain(data: Any) -> Any:
    """``data`` as it reads back from JSON (tuples become lists, keys become text)."""
    return json.loads(json.dumps(data))


def _events(family: Family, events: Sequence[Event]) -> tuple[dict[str, Any], ...]:
    return tuple(_plain([family.event_to_dict(e) for e in events]))


class RecordedAction(NamedTuple):
    """One seat's action of a recorded step (the text, as the record holds it)."""

    step: int
    seat: Seat
    action: str


@dataclass(frozen=True, slots=True)
class RecordedStep:
    """One step line: the action text of each seat that acted, and the step's events."""

    actions: tuple[tuple[Seat, str], ...]
    events: tuple[dict[str, Any], ...]
    chance: tuple[int, ...] | None = None
    """The step's chance outcomes, as choices of :class:`~cardshop.core.ScriptedChance`,
    in a record that states them (:attr:`GameRecord.chance`); None in a seeded one."""

    @classmethod
    def of(
        cls, actions: Mapping[Seat, Action | str], events: Sequence[Event], family: Family
    ) -> RecordedStep:
        """A step from the actions the driver applied and the events they caused."""
        texts = tuple((seat, str(actions[seat])) for seat in sorted(actions))
        return cls(texts, _events(family, events))

    @property
    def seats(self) -> tuple[Seat, ...]:
        return tuple(seat for seat, _ in self.actions)

    def to_dict(self, number: int) -> dict[str, Any]:
        line: dict[str, Any] = {
            "step": number,
            "actions": [{"seat": seat, "action": text} for seat, text in self.actions],
            "events": list(self.events),
        }
        if self.chance is not None:
            line["chance"] = list(self.chance)
        return line

    def describe(self) -> str:
        """``action 'done'`` for one seat, ``actions seat 0 'take 1', seat 1 'pass'``."""
        if len(self.actions) == 1:
            return f"action {self.actions[0][1]!r}"
        return "actions " + ", ".join(f"seat {seat} {text!r}" for seat, text in self.actions)


def setup_options(game: Game) -> dict[str, Any]:
    """The setup options of ``game`` (:meth:`Game.setup_options
    <cardshop.Game.setup_options>`; ``{}`` for a game set up from a position)."""
    return dict(game.setup_options() or {})


@dataclass(slots=True)
class GameRecord:
    """A game's setup and its steps with their events; see the module docstring.

    ``lines[i]`` is the line of the file that step ``i`` was read from (1-based), or
    ``None`` for a step recorded in memory.
    """

    variant: VariantBase
    players: int
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    bots: tuple[str, ...] = ()
    steps: list[RecordedStep] = field(default_factory=list)
    result: dict[str, Any] | None = None
    source: str = "<record>"
    variant_name: str = ""
    variant_hash: str = ""
    lines: list[int | None] = field(default_factory=list)
    result_line: int | None = None
    chance: tuple[int, ...] | None = None
    """The setup's chance outcomes, for a record that states its chance instead of
    drawing it from the seed (a counterexample of ``cardshop verify``, whose deal and
    draws are chosen, not seeded): the choices of a
    :class:`~cardshop.core.ScriptedChance` for the setup; each step's are
    :attr:`RecordedStep.chance` (none: the step draws nothing). None: seeded."""

    def __post_init__(self) -> None:
        self.variant_name = self.variant_name or self.variant.name
        self.variant_hash = self.variant_hash or self.variant.content_hash
        if not self.bots:
            self.bots = ("unknown",) * self.players
        if len(self.lines) < len(self.steps):
            self.lines += [None] * (len(self.steps) - len(self.lines))

    @property
    def family(self) -> str:
        """The name of the game's family."""
        return self.variant.family

    @property
    def actions(self) -> list[RecordedAction]:
        """Every recorded action in order, with its step and seat."""
        return [
            RecordedAction(n, seat, text)
            for n, step in enumerate(self.steps)
            for seat, text in step.actions
        ]

    # ---------------------------------------------------------------- writing

    def header(self) -> dict[str, Any]:
        """The first line of the record, as data."""
        return {
            "format": RECORD_FORMAT,
            "family": self.family,
            "variant": self.variant_name,
            "variant_hash": self.variant_hash,
            "variant_data": self.variant.to_data(),
            "players": self.players,
            "seed": self.seed,
            "options": dict(self.options),
            "bots": list(self.bots),
            **({} if self.chance is None else {"chance": list(self.chance)}),
        }

    def dumps(self) -> str:
        """The record as JSON Lines text (ending with a newline)."""
        lines = [json.dumps(self.header(), separators=(",", ":"))]
        for n, step in enumerate(self.steps):
            lines.append(json.dumps(step.to_dict(n), separators=(",", ":")))
        if self.result is not None:
            lines.append(json.dumps({"result": self.result}, separators=(",", ":")))
        return "\n".join(lines) + "\n"

    def write(self, path: str | Path) -> None:
        """Write the record to ``path`` (UTF-8 JSON Lines): the whole file or nothing.

        The text goes to a new file beside ``path`` that replaces it once complete, so
        an error (a full disk) never leaves a record cut short. Raises ``OSError``.
        """
        text = self.dumps()
        write_text_atomic(path, text)

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
            if len(rows) >= MAX_STEPS:
                raise RecordError(f"{source}:{number}: more than {MAX_STEPS} steps")
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
            record.steps.append(
                _step_line(data, f"{source}:{number}", len(record.steps), record.players)
            )
            record.lines.append(number)
        return record

    @classmethod
    def _from_header(cls, head: dict[str, Any], source: str, line: int) -> GameRecord:
        where = f"{source}:{line}"
        form = head.get("format")
        if form in OLD_FORMATS:
            raise RecordError(
                f"{where}: the record has the old format {form!r} of cardshop 0.1, which "
                f"this version does not read (it reads {RECORD_FORMAT!r}); its games do not "
                "replay under the current rules anyway: record them again"
            )
        if form != RECORD_FORMAT:
            raise RecordError(
                f"{where}: not a cardshop record: the header's format is "
                f"{str(form)[:60]!r}, expected {RECORD_FORMAT!r}"
            )
        expected = {
            "family": str,
            "variant": str,
            "variant_hash": str,
            "variant_data": dict,
            "players": int,
            "seed": int,
            "options": dict,
            "bots": list,
        }
        chance = _chance_line(head.get("chance"), where) if "chance" in head else None
        for key, kind in expected.items():
            value = head.get(key)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise RecordError(
                    f"{where}: header key {key!r} is missing or not a {kind.__name__}"
                )
        unknown = sorted(set(head) - set(_HEADER))
        if unknown:
            raise RecordError(f"{where}: unknown header key {unknown[0][:60]!r}")
        name = head["variant"]
        if (
            len(name) > 100
            or not name
            or any(c in name for c in "/\\\0")
            or name.endswith((".yaml", ".yml", ".json"))
        ):
            raise RecordError(
                f"{where}: header key 'variant' must be a variant's name, not "
                f"{name[:60]!r}; a record never makes cardshop open a file: to replay with "
                "the rules of a file, pass it explicitly (replay_record(record, variant=PATH), "
                "cardshop replay --variant PATH)"
            )
        try:
            family = get_family(head["family"][:100])
        except CardshopError as exc:
            raise RecordError(f"{where}: header key 'family': {exc}") from None
        try:
            variant = variant_from_data(head["variant_data"], source=f"{where} (variant_data)")
        except CardshopError as exc:
            raise RecordError(f"{where}: the recorded variant is invalid: {exc}") from None
        if variant.family != family.name:
            raise RecordError(
                f"{where}: header key 'family' is {family.name!r}, but variant_data is a "
                f"variant of family {variant.family!r}"
            )
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
        players, seed = head["players"], head["seed"]
        low, high = variant.players.min, variant.players.max
        if not low <= players <= high:
            raise RecordError(
                f"{where}: header key 'players': {players} is outside {variant.name}'s range "
                f"{low}..{high}"
            )
        if not is_seed(seed):
            raise RecordError(f"{where}: header key 'seed' is not an int of at most 64 bits")
        options = _options(head["options"], family, where)
        bots = head["bots"]
        if len(bots) != players or not all(
            isinstance(b, str) and len(b) <= MAX_BOT_NAME for b in bots
        ):
            raise RecordError(
                f"{where}: header key 'bots' must name the player of each of the {players} "
                f"seats (texts of at most {MAX_BOT_NAME} characters)"
            )
        try:  # the setup must set a game up: options are the family's to check
            _set_up(variant, players, seed, options, chance)
        except CardshopError as exc:
            raise RecordError(f"{where}: the header sets up no game: {exc}") from None
        return cls(
            chance=chance,
            variant=variant,
            players=players,
            seed=seed,
            options=options,
            bots=tuple(bots),
            source=source,
            variant_name=name,
            variant_hash=head["variant_hash"],
        )

    @classmethod
    def read(cls, path: str | Path) -> GameRecord:
        """Read a record file: a regular file of at most :data:`MAX_RECORD_BYTES`."""
        text = read_text_bounded(
            path,
            MAX_RECORD_BYTES,
            RecordError,
            what="the record",
            kind="a record is",
            too_large="record",
        )
        return cls.loads(text, str(path))

    # -------------------------------------------------------------- replaying

    def where(self, index: int) -> str:
        """``file:line`` of step ``index`` (or ``file: step n`` for an in-memory one)."""
        line = self.lines[index] if index < len(self.lines) else None
        return f"{self.source}:{line}" if line is not None else f"{self.source}: step {index}"

    def replay(
        self, variant: VariantBase | str | Path | None = None, *, recorded_variant: bool = False
    ) -> Game:
        """Set the game up again and replay every step, checking each.

        See :func:`replay_record`.
        """
        rules = self._variant_for_replay(variant, recorded_variant)
        family = family_for(rules)
        try:
            game = _set_up(rules, self.players, self.seed, self.options, self.chance)
        except CardshopError as exc:
            raise RecordError(f"{self.source}:1: the game cannot be set up again: {exc}") from None
        for i, step in enumerate(self.steps):
            where = self.where(i)
            if game.is_over:
                raise RecordError(f"{where}: {step.describe()} after the game ended")
            acting = game.acting
            if step.seats != acting:
                if len(acting) == 1 and len(step.seats) == 1:
                    now = f"it is seat {acting[0]}'s turn"
                else:
                    now = f"seats {list(acting)} act now"
                seats = ", ".join(map(str, step.seats))
                raise RecordError(
                    f"{where}: the record has seat{'s' if len(step.seats) > 1 else ''} "
                    f"{seats} acting, but {now}"
                )
            try:
                actions = {seat: game.parse_action(text, seat) for seat, text in step.actions}
                if self.chance is None:
                    events = driver.apply(game, actions)
                else:
                    events = _scripted(step.chance or (), partial(driver.apply, game, actions))
            except ChanceScriptError as exc:
                raise RecordError(f"{where}: {step.describe()}: {exc}") from None
            except (ActionError, GameStateError) as exc:
                fit = "fits" if len(step.actions) == 1 else "fit"
                raise RecordError(f"{where}: {step.describe()} no longer {fit}: {exc}") from None
            replayed = list(_events(family, events))
            if replayed != list(step.events):
                diff = _first_difference(list(step.events), replayed)
                raise RecordError(
                    f"{where}: {step.describe()} now causes other events than recorded: {diff}"
                )
        if self.result is not None:
            where = (
                f"{self.source}:{self.result_line}"
                if self.result_line is not None
                else f"{self.source}: result"
            )
            if not game.is_over:
                raise RecordError(f"{where}: the record has a result but the game is not over")
            now = _plain(game.result().to_dict())
            if now != self.result:
                raise RecordError(
                    f"{where}: the recorded result {str(self.result)[:300]} differs from the "
                    f"replay's {now}"
                )
        return game

    def _variant_for_replay(
        self, variant: VariantBase | str | Path | None, recorded: bool
    ) -> VariantBase:
        if recorded:
            return self.variant
        where = f"{self.source}:1"
        if variant is not None:
            # the caller's choice: a name, path or variant
            current = load_variant(variant)
        elif self.variant_name in builtin_variants():
            current = load_variant(self.variant_name)
        else:
            # Not a built-in name: the recorded rules decide. The name is never opened
            # as a file; pass a file explicitly with ``variant=``.
            return self.variant
        if current.family != self.family:
            raise RecordError(
                f"{where}: variant {current.name!r} is a {current.family} variant; the record "
                f"is a {self.family} game"
            )
        if current.content_hash == self.variant_hash:
            return current
        stored = self.variant
        if _same_but_chance(current, stored):
            if variant is None:
                # The built-in's rules, drawn by another chance model: a record of a
                # built-in's game from before the built-ins drew by model 2 carries model
                # 1 in its variant_data, and replays under the model it was played under.
                return stored
            raise RecordError(
                f"{where}: variant {current.name!r} draws by chance model {current.chance}; "
                f"the record's game by {stored.chance} (docs/chance.md). Replay with the "
                "recorded rules instead (cardshop replay --recorded-variant)"
            )
        raise RecordError(
            f"{where}: variant {self.variant_name!r} has changed since the record was "
            f"written (recorded hash {self.variant_hash[:12]}, now "
            f"{current.content_hash[:12]}); replay with the recorded rules instead "
            "(cardshop replay --recorded-variant)"
        )


def _same_but_chance(current: VariantBase, recorded: VariantBase) -> bool:
    """Whether two variants hold the same rules and differ at most in their chance model
    (docs/chance.md): the variant's data with its ``chance`` key left out."""

    def rules(variant: VariantBase) -> dict[str, Any]:
        data = variant.to_data()
        data.pop("chance", None)
        return data

    return rules(current) == rules(recorded)


def _options(options: dict[str, Any], family: Family, where: str) -> dict[str, Any]:
    known = game_options(family)
    if len(options) > MAX_OPTIONS:
        raise RecordError(f"{where}: header key 'options' holds more than {MAX_OPTIONS} options")
    for key, value in options.items():
        if key not in known:
            raise RecordError(
                f"{where}: header key 'options': a {family.name} game takes no option "
                f"{key[:60]!r} (its options: {', '.join(known) or 'none'})"
            )
        if not (
            value is None
            or isinstance(value, bool)
            or is_seed(value)
            or (isinstance(value, str) and len(value) <= MAX_OPTION_TEXT)
        ):
            raise RecordError(
                f"{where}: header key 'options': option {key!r} must be a number of at most "
                f"64 bits, a text of at most {MAX_OPTION_TEXT} characters, true, false or null"
            )
    return dict(options)


def _step_line(data: dict[str, Any], where: str, n: int, players: int) -> RecordedStep:
    number = data.get("step")
    if type(number) is not int or number != n:
        raise RecordError(f"{where}: expected step number {n}, found {repr(number)[:60]}")
    unknown = sorted(set(data) - {"step", "actions", "events", "chance"})
    if unknown:
        raise RecordError(f"{where}: unknown key {unknown[0][:60]!r} in a step line")
    actions, events = data.get("actions"), data.get("events")
    if not isinstance(actions, list) or not 1 <= len(actions) <= players:
        raise RecordError(
            f"{where}: 'actions' is missing or not a list of 1..{players} seats' actions"
        )
    texts: list[tuple[Seat, str]] = []
    for item in actions:
        if not isinstance(item, dict) or set(item) != {"seat", "action"}:
            raise RecordError(f"{where}: each of 'actions' is an object with 'seat' and 'action'")
        seat, text = item["seat"], item["action"]
        if type(seat) is not int or not 0 <= seat < players:
            raise RecordError(f"{where}: 'seat' is not a seat 0..{players - 1}")
        if texts and seat <= texts[-1][0]:
            raise RecordError(f"{where}: the seats of a step must be listed once each, in order")
        if not isinstance(text, str) or len(text) > MAX_ACTION_CHARS:
            raise RecordError(f"{where}: 'action' is not an action text")
        texts.append((seat, text))
    if (
        not isinstance(events, list)
        or len(events) > MAX_EVENTS
        or not all(isinstance(e, dict) for e in events)
    ):
        raise RecordError(
            f"{where}: 'events' is missing or not a list of at most {MAX_EVENTS} objects"
        )
    chance = _chance_line(data["chance"], where) if "chance" in data else None
    return RecordedStep(tuple(texts), tuple(events), chance)


def _chance_line(value: object, where: str) -> tuple[int, ...]:
    """A record's ``chance`` list: chance choices, each an int from 0."""
    if (
        not isinstance(value, list)
        or len(value) > MAX_CHANCE_CHOICES
        or not all(type(c) is int and 0 <= c < 2**31 for c in value)
    ):
        raise RecordError(
            f"{where}: 'chance' must be a list of at most {MAX_CHANCE_CHOICES} chance "
            "choices, each an int from 0"
        )
    return tuple(value)


T = TypeVar("T")


def _scripted(choices: Sequence[int], run: Callable[[], T]) -> T:
    """``run()`` with every chance outcome taken from ``choices``, all of which it must
    use (:class:`~cardshop.core.ChanceScriptError` otherwise)."""
    source = ScriptedChance(choices, strict=True)
    with drawing_from(source):
        out = run()
    source.done()
    return out


def _set_up(
    variant: VariantBase,
    players: int,
    seed: int,
    options: Mapping[str, Any],
    chance: Sequence[int] | None,
) -> Game:
    """The record's game set up: seeded, or with the setup's chance outcomes stated."""
    if chance is None:
        return new_game(variant, players, seed, **options)
    try:
        return _scripted(chance, lambda: new_game(variant, players, seed, **options))
    except ChanceScriptError as exc:
        raise RecordError(f"the setup's chance: {exc}") from None


def _first_difference(recorded: list[dict[str, Any]], replayed: list[dict[str, Any]]) -> str:
    for i, (a, b) in enumerate(zip(recorded, replayed, strict=False)):
        if a != b:
            return f"event {i + 1} was {str(a)[:300]}, now {b}"
    return f"{len(recorded)} event(s) recorded, {len(replayed)} now"


def record_game(
    game: Game, bots: Sequence[str] | None = None, *, options: Mapping[str, Any] | None = None
) -> GameRecord:
    """The record of ``game`` so far (finished or not), with who played each seat.

    The events are found by replaying the game's moves (:attr:`Game.moves`, grouped by
    step) from its setup, so the game must have been started by ``new_game`` (not from
    a position). ``bots`` names each seat's player (default ``"unknown"``). ``options``
    are the setup options the game was started with (default: :func:`setup_options`).
    """
    names = tuple(bots) if bots is not None else ("unknown",) * game.players
    if len(names) != game.players:
        raise RecordError(f"bots names {len(names)} players; the game has {game.players}")
    family = family_for(game.variant)
    setup = dict(options) if options is not None else setup_options(game)
    for key, value in setup.items():
        if not (value is None or isinstance(value, (bool, int, str))):
            raise RecordError(
                f"setup option {key!r} is a {type(value).__name__}; a record holds options "
                "that are numbers, texts, true, false or null"
            )
    not_from_setup = RecordError(
        "the game's moves do not lead from its setup to its state (was it set up from a "
        "position?); only games started by new_game can be recorded"
    )
    try:
        again = new_game(game.variant, game.players, game.seed, **setup)
    except CardshopError:
        raise not_from_setup from None
    steps: list[RecordedStep] = []
    moves = game.moves
    i = 0
    while i < len(moves):
        j = i + 1
        while j < len(moves) and moves[j].step == moves[i].step:
            j += 1
        actions = {m.seat: m.action for m in moves[i:j]}
        try:
            events = driver.apply(again, actions)
        except CardshopError:
            raise not_from_setup from None
        steps.append(RecordedStep.of(actions, events, family))
        i = j
    if again.to_dict() != game.to_dict():
        raise not_from_setup
    return GameRecord(
        variant=game.variant,
        players=game.players,
        seed=game.seed,
        options=_plain(setup),
        bots=names,
        steps=steps,
        result=_plain(game.result().to_dict()) if game.is_over else None,
    )


class Recorder:
    """Records a game while it is played, keeping the events the steps caused::

        recorder = Recorder(game, bots=["random", "greedy"])
        driver.play(game, players, on_step=recorder.add)
        recorder.record().write("game.jsonl")

    Give it every step played after it was made (``on_step`` of :func:`driver.play`,
    :func:`driver.run_until`, or :func:`driver.step`'s return value); a game that has
    moves already is recorded up to now first (:func:`record_game`).
    """

    def __init__(
        self,
        game: Game,
        bots: Sequence[str] | None = None,
        *,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        self.game = game
        self._family = family_for(game.variant)
        self._record = record_game(game, bots, options=options)
        self._actions = sum(len(step.actions) for step in self._record.steps)

    def add(self, step: driver.Step) -> None:
        """Write down one step the driver played (its actions and events)."""
        self._record.steps.append(RecordedStep.of(step.actions, step.events, self._family))
        self._record.lines.append(None)
        self._actions += len(step.actions)

    def record(self) -> GameRecord:
        """The record so far, with the result once the game is over."""
        if self._actions != len(self.game.moves):
            raise RecordError(
                f"the recorder holds {self._actions} actions but the game has had "
                f"{len(self.game.moves)}: give the recorder every step (on_step=recorder.add)"
            )
        rec = self._record
        result = _plain(self.game.result().to_dict()) if self.game.is_over else None
        return GameRecord(
            variant=rec.variant,
            players=rec.players,
            seed=rec.seed,
            options=dict(rec.options),
            bots=rec.bots,
            steps=list(rec.steps),
            result=result,
        )


def read_record(path: str | Path) -> GameRecord:
    """Read a record file (raises :class:`RecordError` naming the line of a problem)."""
    return GameRecord.read(path)


def replay_record(
    record: GameRecord | str | Path,
    variant: VariantBase | str | Path | None = None,
    *,
    recorded_variant: bool = False,
) -> Game:
    """Replay a record (or a record file) of any family and verify it; return the game.

    The rules: ``variant`` if given, else the variant loaded by the recorded name,
    which must still have the recorded content hash; a name that is not built in
    falls back on the rules stored in the record, as ``recorded_variant=True`` always
    does. Every step must have exactly the acting seats of the replayed game, its
    actions must be legal and cause exactly the recorded events; a recorded result
    must match. Any mismatch raises :class:`RecordError` naming the file and line.
    """
    if not isinstance(record, GameRecord):
        record = GameRecord.read(record)
    return record.replay(variant, recorded_variant=recorded_variant)
