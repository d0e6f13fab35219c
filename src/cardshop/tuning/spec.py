"""The tuning spec: which knobs of which variant to turn, towards which measures.

A spec is a YAML file (docs/tuning.md)::

    base: klunker-planted.yaml        # a built-in variant name or a file
    knobs:
      - {path: hand_size, low: 1, high: 8}          # integers 1..8
      - {path: "sale.payout[0]", choices: [3, 4]}
    objectives:
      - {measure: first_player_advantage, target: 0, tolerance: 0.02}
      - {measure: rounds, direction: minimize}
      - measure: win_rate_matrix      # one seat of the row's bot against the column's
        bots: [random, greedy]
        target: [[null, 0.2], [0.8, null]]
        tolerance: 0.05
    bots: [greedy]                    # one for every seat, or one per seat
    players: [4]
    replays: 1                        # 2 or more: each deal played so often (luck)
    budget: {games: 200000, cpu_seconds: 600, batch: 2000, batches: 5}
    seed: 1

It is read like a variant file: the YAML reader of :mod:`cardshop.core.source` (bounded,
positions kept) and a pydantic model whose errors become :class:`TuneError` naming
the file, line and key. The checks a schema cannot make (the knob path exists in the
base variant and holds a number, the range is not empty, the measure is known and
applies to these games, the bots and player counts fit the variant) are made when
the spec is read, before any game is played.
"""

from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cardshop.bots import make_bot
from cardshop.core.errors import (
    SetupError,
    VariantError,
    format_path,
)
from cardshop.core.loader import load_variant
from cardshop.core.source import (
    KeyPath,
    Sourced,
    load_yaml,
    read_text,
    validation_errors,
)
from cardshop.core.variant import VariantBase
from cardshop.measures import LUCK_MEASURES, MAX_REPLAYS, MEASURE_IDS
from cardshop.tuning.matrix import MATRIX, MAX_BOTS

__all__ = [
    "OUTCOME_MEASURES",
    "TRACE_MEASURES",
    "Budget",
    "Knob",
    "Objective",
    "TuneError",
    "TuneSpec",
    "apply_knobs",
    "load_spec",
    "parse_path",
]

OUTCOME_MEASURES = frozenset(
    {
        "luck",
        "luck_score",
        "balance",
        "first_player_advantage",
        "skill_gap_win_rate",
        "skill_gap_score",
        "ties",
        "completion",
        "capped",
        "rounds",
        "ticks",
        "score_spread",
        "winning_margin",
    }
)
"""Measures taken from the games' outcomes alone (and ``win_share_<k>``): ``simulate``
plays these games, on a family's kernel where it can."""
TRACE_MEASURES = frozenset(
    {"decisions", "branching", "forced_share", "lead_changes", "drama", "drama_depth"}
    | {"decisiveness"}
)
"""Measures that need every decision and the scores after each round: these games are
played on the reference engine, each seat's choices counted (:class:`cardshop.measures.Tracker`)."""

_WIN_SHARE = re.compile(r"win_share_(\d{1,2})")
_SEGMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)|\[(\d{1,6}|[A-Za-z_][A-Za-z0-9_-]*)\]|(\.)")


class TuneError(VariantError):
    """A tuning spec (or a tuning run's option) is invalid; the message names file, line and key."""

    noun = "tuning spec"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


Number = int | float


class Knob(_Model):
    """One value of the variant to tune: a range (``low``..``high``) or ``choices``."""

    path: Annotated[str, Field(min_length=1, max_length=200)] = Field(
        description="Where the value is in the variant: keys joined by dots, list entries "
        "and player-count keys in brackets (sale.payout[0], starting_cash[4])."
    )
    low: Number | None = Field(None, description="Smallest value of a range.")
    high: Number | None = Field(None, description="Largest value of a range.")
    step: Number | None = Field(None, gt=0, description="Step of a range (integers: 1).")
    log: bool = Field(False, description="Sample the range on a log scale.")
    choices: list[int | float | str | bool] | None = Field(
        None, max_length=1000, description="The values to choose among (instead of a range)."
    )
    type: Literal["int", "real"] | None = Field(
        None, description="int or real; default: the type of the base variant's value."
    )


class Objective(_Model):
    """A measure to bring to a target (within a tolerance) or to push one way."""

    measure: Annotated[str, Field(min_length=1, max_length=60)] = Field(
        description="A measure id (docs/measures.md): first_player_advantage, balance, ..."
    )
    target: (
        float
        | int
        | Annotated[
            list[Annotated[list[float | int | None], Field(max_length=64)]], Field(max_length=64)
        ]
        | None
    ) = Field(
        None,
        description="The value wanted (win_rate_matrix: a square matrix, null entries "
        "not targeted).",
    )
    tolerance: float | int | None = Field(
        None, ge=0, description="How far from the target is good enough (its 95% interval inside)."
    )
    direction: Literal["minimize", "maximize"] | None = Field(
        None, description="Instead of a target: make the measure as small or as large as can be."
    )
    bots: list[Annotated[str, Field(min_length=1, max_length=200)]] | None = Field(
        None,
        max_length=64,
        description="win_rate_matrix only: the bots of the matrix's rows and columns "
        "(2 to 6, weakest first by convention).",
    )

    @property
    def goal_target(self) -> float | None:
        """The target as racing sees it: the number, or 0 (no deviation) for a matrix."""
        if self.target is None:
            return None
        return 0.0 if isinstance(self.target, list) else float(self.target)


class Budget(_Model):
    """How much the whole study may play, and how a candidate is played."""

    games: Annotated[int, Field(gt=0, le=10**9)] = Field(
        100_000, description="Most games of the whole study (every candidate, every count)."
    )
    cpu_seconds: Annotated[float | int, Field(gt=0)] | None = Field(
        None, description="Most CPU seconds of the whole study (this process and its workers)."
    )
    trials: Annotated[int, Field(gt=0, le=100_000)] = Field(
        100, description="Most candidates tried."
    )
    batch: Annotated[int, Field(gt=0, le=10**7)] = Field(
        1000, description="Games of one batch, per player count."
    )
    batches: Annotated[int, Field(gt=0, le=1000)] = Field(
        5, description="Batches of a candidate played in full (racing may stop it sooner)."
    )


class TuneSpec(_Model):
    """A whole tuning spec (see the module docstring)."""

    base: Annotated[str, Field(min_length=1, max_length=4096)] = Field(
        description="The variant to tune: a built-in name or a YAML file (relative to the spec)."
    )
    name: Annotated[str, Field(min_length=1, max_length=80)] | None = Field(
        None, description="Name of the tuned variant (default: the base's name + '-tuned')."
    )
    knobs: list[Knob] = Field(min_length=1, max_length=50)
    objectives: list[Objective] = Field(min_length=1, max_length=10)
    bots: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        default_factory=lambda: ["random"], min_length=1, max_length=64
    )
    players: list[Annotated[int, Field(ge=1, le=64)]] | None = Field(
        None, min_length=1, max_length=64, description="Player counts (default: all)."
    )
    budget: Budget = Field(default_factory=lambda: Budget())
    replays: Annotated[int, Field(ge=1, le=MAX_REPLAYS)] = Field(
        1,
        description="How many times each deal is played, the same bots in the same seats "
        "seeded anew: 2 or more for the measures luck and luck_score (docs/tuning.md).",
    )
    seed: int = 0
    racing: bool = Field(True, description="Drop a candidate once it cannot beat the best.")
    alpha: Annotated[float, Field(gt=0, lt=1)] = Field(
        0.05, description="Racing's chance of dropping a candidate that is not worse."
    )
    sampler: Literal["tpe", "random"] = "tpe"
    stop_when_met: bool = Field(
        True, description="Stop once a candidate meets every target (its intervals inside)."
    )


# ------------------------------------------------------------------ knob paths


def parse_path(text: str) -> KeyPath:
    """``sale.payout[0]`` as the key path ``("sale", "payout", 0)``; ValueError if malformed."""
    out: list[str | int] = []
    pos = 0
    dot_ok = False
    while pos < len(text):
        m = _SEGMENT.match(text, pos)
        if m is None:
            raise ValueError(f"cannot read the path {text!r} at character {pos + 1}")
        name, index, dot = m.groups()
        if dot is not None:
            if not dot_ok or m.end() == len(text):
                raise ValueError(f"misplaced '.' in the path {text!r}")
            dot_ok = False
            after = _SEGMENT.match(text, m.end())
            if after is None or after.group(1) is None:
                raise ValueError(f"a '.' must be followed by a key in the path {text!r}")
        elif name is not None:
            if out and dot_ok:
                raise ValueError(f"keys are joined by '.' in the path {text!r}")
            out.append(name)
            dot_ok = True
        else:
            out.append(int(index) if index.isdigit() else index)
            dot_ok = True
        pos = m.end()
    if not out or not isinstance(out[0], str):
        raise ValueError(f"the path {text!r} must start with a key")
    return tuple(out)


def _step(node: Any, part: str | int) -> tuple[bool, Any, str | int]:
    """Whether ``node`` has ``part`` (a player-count key matches its digits), its value,
    and the key as stored."""
    if isinstance(node, dict):
        for key in (part, str(part)):
            if key in node:
                return True, node[key], key
        return False, None, part
    if isinstance(node, list) and isinstance(part, int) and part < len(node):
        return True, node[part], part
    return False, None, part


def lookup(data: Any, path: KeyPath) -> Any:
    """The value at ``path`` in variant data; KeyError naming the first missing part."""
    node = data
    for i, part in enumerate(path):
        found, node, _ = _step(node, part)
        if not found:
            raise KeyError(format_path(path[: i + 1]))
    return node


def apply_knobs(data: dict[str, Any], values: dict[KeyPath, Any]) -> dict[str, Any]:
    """A copy of variant data with each path set to its value (every path must exist)."""
    out = copy.deepcopy(data)
    for path, value in values.items():
        node: Any = out
        for part in path[:-1]:
            _, node, _ = _step(node, part)
        _, _, key = _step(node, path[-1])
        node[key] = value
    return out


# ------------------------------------------------------------------- reading


@dataclass(frozen=True, slots=True)
class KnobSpace:
    """A checked knob: its key path, kind and values."""

    label: str
    path: KeyPath
    kind: Literal["int", "real", "choice"]
    low: float = 0.0
    high: float = 0.0
    step: float | None = None
    log: bool = False
    choices: tuple[Any, ...] = ()
    base_value: Any = None

    def size(self) -> float:
        """How many values (infinite for a real range)."""
        if self.kind == "choice":
            return len(self.choices)
        if self.kind == "int":
            return (self.high - self.low) // (self.step or 1) + 1
        if self.step:
            return math.floor((self.high - self.low) / self.step + 1e-9) + 1
        return math.inf


@dataclass(frozen=True)
class LoadedSpec:
    """A spec read and checked, with its base variant loaded."""

    spec: TuneSpec
    source: str
    folder: Path | None
    base: VariantBase
    base_ref: str
    knobs: tuple[KnobSpace, ...]
    players: tuple[int, ...]
    sourced: Sourced | None = None

    @property
    def needs_trace(self) -> bool:
        return any(o.measure in TRACE_MEASURES for o in self.spec.objectives)

    def error(self, reason: str, path: KeyPath = ()) -> TuneError:
        return _error(self.sourced, self.source, reason, path)


def _error(sourced: Sourced | None, source: str, reason: str, path: KeyPath) -> TuneError:
    if sourced is None:
        return TuneError(reason, source=source, path=path)
    found = sourced.error(reason, path)
    return TuneError(reason, source=found.source, path=path, location=found.location)


def _known_measure(measure: str, players: int) -> bool:
    if measure in MEASURE_IDS or measure == MATRIX:
        return True
    m = _WIN_SHARE.fullmatch(measure)
    return m is not None and int(m.group(1)) < players


def load_spec(
    spec: str | Path | TuneSpec | dict[str, Any], *, base_dir: str | Path | None = None
) -> LoadedSpec:
    """Read and check a tuning spec: a YAML file, a :class:`TuneSpec` or its plain data.

    Raises :class:`TuneError` naming the file, line and key of the first problem. A
    ``base`` that is a file is found relative to the spec's folder (or ``base_dir``).
    """
    sourced: Sourced | None = None
    folder = Path(base_dir) if base_dir is not None else None
    if isinstance(spec, TuneSpec):
        model, source = spec, "<spec>"
    else:
        if isinstance(spec, dict):
            sourced, source = Sourced(spec, {}, "<spec>"), "<spec>"
        else:
            source = str(spec)
            path = Path(spec)
            try:
                text, _ = read_text(path, source)
            except VariantError as exc:
                raise TuneError(exc.reason, source=source) from None
            try:
                sourced = load_yaml(text, source)
            except VariantError as exc:
                raise TuneError(exc.reason, source=source, location=exc.location) from None
            folder = folder or path.parent
        if not isinstance(sourced.data, dict):
            raise TuneError(
                "a tuning spec is a mapping (base, knobs, objectives, ...)", source=source
            )
        try:
            model = TuneSpec.model_validate(sourced.data)
        except ValidationError as exc:
            problems = validation_errors(exc, sourced)
            first = problems[0]
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise TuneError(
                first.reason + more, source=first.source, path=first.path, location=first.location
            ) from None

    def fail(reason: str, path: KeyPath) -> TuneError:
        return _error(sourced, source, reason, path)

    ref = model.base
    if folder is not None and not Path(ref).is_absolute() and (folder / ref).is_file():
        ref = str(folder / ref)
    try:
        base = load_variant(ref)
    except VariantError as exc:
        raise fail(f"the base variant cannot be loaded: {exc}", ("base",)) from None
    data = base.to_data(all_keys=True)  # a knob may set a key the base leaves at its default
    low, high = base.players.min, base.players.max
    counts = tuple(sorted(set(model.players))) if model.players else tuple(range(low, high + 1))
    for i, n in enumerate(model.players or ()):
        if not low <= n <= high:
            raise fail(f"{base.name} is played by {low} to {high} players, not {n}", ("players", i))
    for i, bot in enumerate(model.bots):
        try:
            make_bot(bot, base, 0)
        except SetupError as exc:
            raise fail(str(exc), ("bots", i)) from None
    if len(model.bots) > 1 and any(len(model.bots) != n for n in counts):
        raise fail(
            f"give one bot for every seat or one per seat: {len(model.bots)} bots for "
            f"{', '.join(map(str, counts))} players",
            ("bots",),
        )
    knobs = []
    seen: set[KeyPath] = set()
    for i, knob in enumerate(model.knobs):
        knobs.append(_knob(knob, data, fail, ("knobs", i)))
        if knobs[-1].path in seen:
            raise fail(f"the knob {knob.path!r} is given twice", ("knobs", i, "path"))
        seen.add(knobs[-1].path)
    for i, objective in enumerate(model.objectives):
        where = ("objectives", i)
        if not all(_known_measure(objective.measure, n) for n in counts):
            known = ", ".join(MEASURE_IDS)
            raise fail(
                f"unknown measure {objective.measure!r}; measures are {known}, "
                f"win_share_<position> (docs/measures.md) and {MATRIX} (docs/tuning.md)",
                (*where, "measure"),
            )
        _check_matrix(objective, base, fail, where)
        has_target = objective.target is not None
        if has_target == (objective.direction is not None):
            raise fail("give a target (with a tolerance) or a direction, not both", where)
        if objective.tolerance is not None and not has_target:
            raise fail("a tolerance goes with a target", (*where, "tolerance"))
        if objective.measure in LUCK_MEASURES and model.replays < 2:
            raise fail(
                f"the measure {objective.measure!r} compares replays of the same deals: "
                "give replays: 2 or more (the times each deal is played; 4 is a good start)",
                (*where, "measure"),
            )
    lucky = any(o.measure in LUCK_MEASURES for o in model.objectives)
    if model.replays > 1 and not lucky:
        raise fail(
            f"replays: {model.replays} plays each deal {model.replays} times for the "
            "measures luck and luck_score, and no objective is one of them: leave "
            "replays out (1)",
            ("replays",),
        )
    if model.budget.batch % model.replays:
        raise fail(
            f"a batch of {model.budget.batch} games does not split into deals of "
            f"{model.replays} replays: give a batch that is a multiple of replays",
            ("budget", "batch"),
        )
    return LoadedSpec(model, source, folder, base, ref, tuple(knobs), counts, sourced)


def _check_matrix(objective: Objective, base: VariantBase, fail: Any, where: KeyPath) -> None:
    """The checks of a win-rate matrix objective (and that no other takes its keys)."""
    if objective.measure != MATRIX:
        if objective.bots is not None:
            raise fail(
                f"bots go with the measure {MATRIX} (the spec's bots play the other "
                "measures' games)",
                (*where, "bots"),
            )
        if isinstance(objective.target, list):
            raise fail(
                f"a matrix of targets goes with the measure {MATRIX}; the target of "
                f"{objective.measure!r} is a number",
                (*where, "target"),
            )
        return
    bots = objective.bots
    if bots is None:
        raise fail(
            f"the measure {MATRIX} needs bots: the bots of the matrix's rows and columns, "
            f"2 to {MAX_BOTS} (for example bots: [random, greedy])",
            where,
        )
    if not 2 <= len(bots) <= MAX_BOTS:
        raise fail(
            f"a win-rate matrix is between 2 and {MAX_BOTS} bots, not {len(bots)}",
            (*where, "bots"),
        )
    for i, bot in enumerate(bots):
        try:
            make_bot(bot, base, 0)
        except SetupError as exc:
            raise fail(str(exc), (*where, "bots", i)) from None
        if bot in bots[:i]:
            raise fail(f"the bot {bot!r} is given twice", (*where, "bots", i))
    if objective.direction is not None:
        raise fail(
            f"the measure {MATRIX} takes a target matrix (with a tolerance), not a direction",
            (*where, "direction"),
        )
    target = objective.target
    k = len(bots)
    if not isinstance(target, list):
        raise fail(
            f"the target of {MATRIX} is a {k} x {k} matrix, a row per bot (null for an entry "
            "not targeted, such as the diagonal)",
            (*where, "target"),
        )
    if len(target) != k:
        raise fail(
            f"the target has {len(target)} rows for {k} bots: give a {k} x {k} matrix",
            (*where, "target"),
        )
    for i, row in enumerate(target):
        if len(row) != k:
            raise fail(
                f"the target's row {i} has {len(row)} entries for {k} bots: give a {k} x {k} "
                "matrix",
                (*where, "target", i),
            )
        for j, t in enumerate(row):
            if t is None:
                continue
            if isinstance(t, bool) or not 0 <= t <= 1:
                raise fail(
                    f"the entry {t!r} is not a win share: give a number from 0 to 1, or null",
                    (*where, "target", i, j),
                )
            if i == j:
                raise fail(
                    f"the entry [{i}][{i}] pits {bots[i]} against itself: give null "
                    "(the diagonal is not targeted)",
                    (*where, "target", i, j),
                )
    if not any(t is not None for row in target for t in row):
        raise fail("every entry of the target is null: target at least one", (*where, "target"))


def _knob(knob: Knob, data: dict[str, Any], fail: Any, where: KeyPath) -> KnobSpace:
    try:
        path = parse_path(knob.path)
    except ValueError as exc:
        raise fail(str(exc), (*where, "path")) from None
    if path[0] in ("family", "name", "extends", "title", "description"):
        raise fail(f"the key {path[0]!r} cannot be tuned", (*where, "path"))
    try:
        value = lookup(data, path)
    except KeyError as exc:
        raise fail(
            f"the base variant has no {exc.args[0]} (knob path {knob.path!r})", (*where, "path")
        ) from None
    if knob.choices is not None:
        if knob.low is not None or knob.high is not None:
            raise fail("give choices or a range (low, high), not both", where)
        if not knob.choices:
            raise fail("the list of choices is empty", (*where, "choices"))
        if len(set(map(repr, knob.choices))) != len(knob.choices):
            raise fail("a choice is given twice", (*where, "choices"))
        return KnobSpace(knob.path, path, "choice", choices=tuple(knob.choices), base_value=value)
    if knob.low is None or knob.high is None:
        raise fail("give a range (low and high) or a list of choices", where)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(
            f"the value at {knob.path!r} is {value!r}, not a number: give choices", (*where, "path")
        )
    kind = knob.type or ("int" if isinstance(value, int) else "real")
    if kind == "int" and not all(
        isinstance(x, int) or (x is not None and float(x).is_integer())
        for x in (knob.low, knob.high, knob.step)
        if x is not None
    ):
        raise fail("an integer knob takes whole numbers for low, high and step", where)
    if knob.low > knob.high:
        raise fail(f"the range is empty: low {knob.low} is above high {knob.high}", where)
    if knob.log and knob.low <= 0:
        raise fail("a log-scale range needs low above 0", (*where, "low"))
    if knob.log and knob.step is not None:
        raise fail("a log-scale range takes no step", (*where, "step"))
    return KnobSpace(
        knob.path,
        path,
        kind,
        float(knob.low),
        float(knob.high),
        None if knob.step is None else float(knob.step),
        knob.log,
        base_value=value,
    )
