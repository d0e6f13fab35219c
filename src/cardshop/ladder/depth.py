"""Graded bot strengths and the skill depth of a game (docs/skill.md).

Two measures of how much skill a variant rewards, both built of *steps*: one seat of
a stronger bot against every other seat held by a weaker bot, on the same deals, the
seats rotated so that the stronger bot plays every seat of every deal once::

    from cardshop.ladder.depth import graded_steps, skill_depth
    graded = graded_steps("klunker-en", ["baseline", "random", "greedy", "ismcts:50"],
                          players=4, deals=20)
    depth = skill_depth("klunker-en", "ismcts", 5, max_doublings=4, players=4, deals=20)
    print(graded.to_text(), depth.to_text())

* :func:`graded_steps` plays a ladder of rungs (weakest first): each adjacent pair is a
  step, and the graded ladder *holds* when every step is won significantly.
* :func:`skill_depth` doubles a searching bot's budget (``ismcts:5``, ``ismcts:10``,
  ...) and counts the doublings, from the start, that still win significantly: the
  game's skill depth in the sense of SkillTrace (a deeper game keeps rewarding more
  search). It stops at the first doubling that does not win significantly, or after
  ``max_doublings`` (the depth is then "at least" that many).

A step's measure is the stronger bot's win share (first place; k seats sharing it
count 1/k each) over its games, with the 95% Wilson interval; the step is significant
when the interval's low end lies above the fair share 1/N of N seats. Every step plays
the same deals: deal d is set up from the seed :func:`cardshop.simulate` gives its
game d, whatever the bots (paired deals). The games are played by the ladder's
runner (:mod:`cardshop.ladder`), on local processes or any executor.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardshop.bots import bot_names, make_bot, parse_bot_spec
from cardshop.core.chance import MASTER_SEED_LIMIT, check_seed
from cardshop.core.errors import CardshopError, SetupError
from cardshop.core.frontdoor import resolve
from cardshop.core.game import check_players
from cardshop.core.variant import VariantBase
from cardshop.ladder._play import MAX_DEALS, Job, LadderGame, play
from cardshop.support.files import read_text_bounded
from cardshop.support.stats import Interval, mean_ci, wilson

__all__ = [
    "DEPTH_SCHEMA",
    "GRADED_SCHEMA",
    "MAX_DOUBLINGS",
    "MAX_GAMES",
    "MAX_JSON_BYTES",
    "MAX_RUNGS",
    "DepthResult",
    "GradedResult",
    "SkillError",
    "Step",
    "check_depth_bot",
    "check_rungs",
    "climb",
    "default_rungs",
    "depth_of",
    "graded_steps",
    "read_result",
    "read_result_file",
    "skill_depth",
    "step_from_games",
]

GRADED_SCHEMA = "cardshop-graded/1"
DEPTH_SCHEMA = "cardshop-skill-depth/1"
MAX_RUNGS = 16
"""The most rungs of a graded ladder (15 steps)."""
MAX_DOUBLINGS = 16
"""The most budget doublings of a skill-depth measure."""
MAX_GAMES = 2_000_000
"""The most games of one measure: steps x deals x seats."""
MAX_JSON_BYTES = 1024 * 1024
"""The largest result JSON text read back (a result holds its steps' counts only)."""
MAX_PLAYERS = 64
DEFAULT_START = 5
"""The first ISMCTS budget of the default rungs (``ismcts:5``)."""
DEFAULT_DOUBLINGS = 3
"""The ISMCTS rungs of the default graded ladder after the first (5, 10, 20, 40)."""


class SkillError(CardshopError, ValueError):
    """A graded-ladder or skill-depth JSON text cannot be read: another schema, a
    missing key, a value out of range."""


# --------------------------------------------------------------------------- steps


@dataclass(frozen=True, slots=True)
class Step:
    """One step: one seat of ``stronger`` against ``weaker`` in every other seat.

    ``games`` games (deals x seats), ``wins`` the stronger bot's wins (first place;
    shared first places count 1/k each), ``score_diff`` the mean of the stronger
    seat's score minus the mean score of the other seats, with ``score_ci`` the
    half-width of its 95% interval. The win share's 95% Wilson interval and the
    significance against the fair share ``1 / players`` are derived.
    """

    weaker: str
    stronger: str
    players: int
    games: int
    wins: float
    score_diff: float
    score_ci: float

    @property
    def fair(self) -> float:
        """The fair share of N seats: 1/N."""
        return 1.0 / self.players

    @property
    def win(self) -> Interval:
        """The stronger bot's win share with its 95% Wilson interval."""
        return wilson(min(self.wins, self.games), self.games)

    @property
    def significant(self) -> bool:
        """Whether the win share's interval lies above the fair share."""
        return self.games > 0 and self.win.low > self.fair

    @property
    def name(self) -> str:
        """``"greedy > random"``: the step's claim."""
        return f"{self.stronger} > {self.weaker}"

    def to_dict(self) -> dict[str, Any]:
        win = self.win
        return {
            "weaker": self.weaker,
            "stronger": self.stronger,
            "games": self.games,
            "wins": round(self.wins, 6),
            "win_share": round(win.estimate, 6),
            "win_low": round(win.low, 6),
            "win_high": round(win.high, 6),
            "fair": round(self.fair, 6),
            "significant": self.significant,
            "score_diff": round(self.score_diff, 6),
            "score_ci": round(self.score_ci, 6),
        }

    @classmethod
    def from_dict(cls, data: object, players: int) -> Step:
        """Inverse of :meth:`to_dict`; the interval and the significance are computed
        again from the counts (never trusted from the text)."""
        if not isinstance(data, dict):
            raise SkillError("a step is a JSON object")
        games = _count(data.get("games"), "a step's games", 1, MAX_GAMES)
        wins = _number(data.get("wins"), "a step's wins")
        if not 0 <= wins <= games:
            raise SkillError(f"a step's wins must be within 0..{games} (its games)")
        score_ci = _number(data.get("score_ci"), "a step's score_ci")
        if score_ci < 0:
            raise SkillError("a step's score_ci is a half-width: 0 or more")
        return cls(
            weaker=_text(data.get("weaker"), "a step's weaker bot"),
            stronger=_text(data.get("stronger"), "a step's stronger bot"),
            players=players,
            games=games,
            wins=wins,
            score_diff=_number(data.get("score_diff"), "a step's score_diff"),
            score_ci=score_ci,
        )

    def row(self) -> list[str]:
        """The step as cells of a table (text and Markdown)."""
        return [
            self.name,
            f"{self.games:,}",
            str(self.win),
            f"{100 * self.fair:.1f}%",
            _signed(self.score_diff, self.score_ci),
            "yes" if self.significant else "no",
        ]


HEADINGS = ["Step", "Games", "Win share [95% CI]", "Fair", "Score diff [95% CI]", "Significant"]


def step_from_games(weaker: str, stronger: str, games: Sequence[LadderGame], seat: int) -> Step:
    """A step from its games: ``seat`` is the stronger bot's index in each game's
    ``seats`` (the other indices are the weaker bot)."""
    if not games:
        raise SetupError("a step needs at least one game")
    players = len(games[0].seats)
    wins = 0.0
    diffs: list[float] = []
    for g in games:
        at = g.seats.index(seat)
        firsts = sum(1 for r in g.ranks if r == 1)
        if g.ranks[at] == 1:
            wins += 1.0 / firsts
        others = [x for s, x in enumerate(g.scores) if s != at]
        diffs.append(g.scores[at] - sum(others) / len(others))
    mean, half = mean_ci(diffs)
    # Rounded as the JSON text keeps them, so that a result read back equals itself.
    return Step(
        weaker, stronger, players, len(games), round(wins, 6), round(mean, 6), round(half, 6)
    )


# ------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class _Common:
    family: str
    variant: str
    variant_hash: str
    players: int
    deals: int
    seed: int
    steps: tuple[Step, ...]
    seconds: float = field(default=0.0, compare=False)

    def _head(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "variant": self.variant,
            "variant_hash": self.variant_hash,
            "players": self.players,
            "deals": self.deals,
            "seed": self.seed,
            "steps": [s.to_dict() for s in self.steps],
            "seconds": round(self.seconds, 1),
        }

    def _setup(self) -> str:
        return (
            f"{self.variant} ({self.family}), {self.players} players, {self.deals:,} deals "
            f"x {self.players} seats per step, seed {self.seed}"
        )

    def _table_text(self) -> list[str]:
        rows = [HEADINGS] + [s.row() for s in self.steps]
        widths = [max(len(r[i]) for r in rows) for i in range(len(HEADINGS))]
        out = []
        for r in rows:
            cells = [r[0].ljust(widths[0])] + [
                c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)
            ]
            out.append("  ".join(cells).rstrip())
        return out

    def _table_markdown(self) -> list[str]:
        out = ["| " + " | ".join(HEADINGS) + " |", "|---" + "|--:" * (len(HEADINGS) - 1) + "|"]
        for s in self.steps:
            cells = s.row()
            cells[0] = f"`{_md(s.stronger)}` > `{_md(s.weaker)}`"
            out.append("| " + " | ".join(cells) + " |")
        return out

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def to_json(self) -> str:
        """The result as JSON text (:meth:`to_dict`)."""
        return json.dumps(self.to_dict(), indent=1, allow_nan=False) + "\n"


@dataclass(frozen=True, slots=True)
class GradedResult(_Common):
    """The outcome of :func:`graded_steps`: the rungs (weakest first) and one step per
    adjacent pair. ``seconds`` (the wall time) is not part of equality."""

    rungs: tuple[str, ...] = ()

    @property
    def holds(self) -> bool:
        """Whether every step is won significantly."""
        return bool(self.steps) and all(s.significant for s in self.steps)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data (schema :data:`GRADED_SCHEMA`)."""
        return {
            "schema": GRADED_SCHEMA,
            **self._head(),
            "rungs": list(self.rungs),
            "holds": self.holds,
        }

    @classmethod
    def from_json(cls, text: str | bytes) -> GradedResult:
        """A result from :meth:`to_json`'s text; :class:`SkillError` says what is wrong."""
        found = read_result(text)
        if not isinstance(found, GradedResult):
            raise SkillError(f"not a graded ladder (schema {GRADED_SCHEMA})")
        return found

    def summary(self) -> str:
        """One sentence: whether the ladder holds, and which steps do not."""
        if self.holds:
            n = len(self.steps)
            which = "its one step is" if n == 1 else f"all {n} steps are"
            return f"The graded ladder holds: {which} significant."
        weak = ", ".join(s.name for s in self.steps if not s.significant)
        return f"The graded ladder does not hold: not significant: {weak}."

    def to_text(self) -> str:
        lines = [f"Graded ladder of {self._setup()}", *self._table_text(), self.summary()]
        return "\n".join(lines) + "\n"

    def to_markdown(self, heading: str = "##") -> str:
        rungs = ", ".join(f"`{_md(r)}`" for r in self.rungs)
        lines = [
            f"{heading} Graded ladder: {self.variant}, {self.players} players",
            "",
            f"Rungs {rungs}; {self._setup()}.",
            "",
            *self._table_markdown(),
            "",
            self.summary(),
        ]
        return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class DepthResult(_Common):
    """The outcome of :func:`skill_depth`: the steps played (budget ``start * 2**k``
    against ``start * 2**(k-1)``, k = 1, 2, ...), the ``depth`` (the significant
    steps from the start) and ``at_least`` (every one of ``max_doublings`` steps was
    significant, so the depth may be larger)."""

    bot: str = "ismcts"
    start: int = DEFAULT_START
    max_doublings: int = 1

    @property
    def depth(self) -> int:
        """The number of consecutive significant doublings from the start."""
        return depth_of([s.significant for s in self.steps])

    @property
    def at_least(self) -> bool:
        """Whether the measure stopped at ``max_doublings`` with every step significant."""
        return len(self.steps) >= self.max_doublings and self.depth == len(self.steps)

    def budgets(self) -> list[int]:
        """The budgets compared: ``start, 2 start, ...`` up to the last step's."""
        return [self.start * 2**k for k in range(len(self.steps) + 1)]

    def depth_text(self) -> str:
        """``"2"`` or ``"at least 4"``."""
        return f"at least {self.depth}" if self.at_least else str(self.depth)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data (schema :data:`DEPTH_SCHEMA`)."""
        return {
            "schema": DEPTH_SCHEMA,
            **self._head(),
            "bot": self.bot,
            "start": self.start,
            "max_doublings": self.max_doublings,
            "depth": self.depth,
            "at_least": self.at_least,
        }

    @classmethod
    def from_json(cls, text: str | bytes) -> DepthResult:
        """A result from :meth:`to_json`'s text; :class:`SkillError` says what is wrong."""
        found = read_result(text)
        if not isinstance(found, DepthResult):
            raise SkillError(f"not a skill-depth result (schema {DEPTH_SCHEMA})")
        return found

    def summary(self) -> str:
        """One sentence: the depth and where it stopped."""
        first = f"{self.bot}:{self.start}"
        if self.at_least:
            return (
                f"Skill depth of {self.bot} from {first}: at least {self.depth} (every "
                f"doubling measured, {self.max_doublings}, wins significantly)."
            )
        stop = self.steps[self.depth] if self.depth < len(self.steps) else None
        where = f"; {stop.name} is not significant" if stop is not None else ""
        return f"Skill depth of {self.bot} from {first}: {self.depth}{where}."

    def to_text(self) -> str:
        lines = [
            f"Skill depth of {self.bot} on {self._setup()}",
            *self._table_text(),
            self.summary(),
        ]
        return "\n".join(lines) + "\n"

    def to_markdown(self, heading: str = "##") -> str:
        lines = [
            f"{heading} Skill depth: {self.variant}, {self.players} players",
            "",
            f"`{_md(self.bot)}` from `{_md(self.bot)}:{self.start}`, at most "
            f"{_plural(self.max_doublings, 'doubling')}; {self._setup()}.",
            "",
            *self._table_markdown(),
            "",
            f"**Skill depth: {self.depth_text()}.** {self.summary()}",
        ]
        return "\n".join(lines) + "\n"


def depth_of(significant: Sequence[bool]) -> int:
    """How many steps from the first are significant before the first that is not."""
    depth = 0
    for ok in significant:
        if not ok:
            break
        depth += 1
    return depth


def climb(play_step: Callable[[int], Step], max_doublings: int) -> list[Step]:
    """The steps of a skill-depth measure: ``play_step(k)`` for k = 1, 2, ... until a
    step is not significant (it is kept: it shows where the depth stopped) or
    ``max_doublings`` steps are played. No step past the first non-significant one is
    played."""
    steps: list[Step] = []
    for k in range(1, max_doublings + 1):
        step = play_step(k)
        steps.append(step)
        if not step.significant:
            break
    return steps


# ------------------------------------------------------------------------- reading


def read_result(text: str | bytes) -> GradedResult | DepthResult:
    """A graded ladder or a skill-depth result from its JSON text (by its schema),
    checked: at most :data:`MAX_JSON_BYTES`, every count within its bounds. Raises
    :class:`SkillError` saying what is wrong."""
    if len(text) > MAX_JSON_BYTES:
        raise SkillError(f"a skill JSON text is at most {MAX_JSON_BYTES:,} bytes")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise SkillError(f"not a skill JSON text: {str(exc)[:200]}") from None
    if not isinstance(data, dict):
        raise SkillError("a skill JSON text is a JSON object")
    schema = data.get("schema")
    if schema not in (GRADED_SCHEMA, DEPTH_SCHEMA):
        raise SkillError(
            f"unknown schema {str(schema)[:60]!r}: expected {GRADED_SCHEMA} or {DEPTH_SCHEMA}"
        )
    players = _count(data.get("players"), "players", 2, MAX_PLAYERS)
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list) or not 1 <= len(raw_steps) <= MAX_RUNGS + MAX_DOUBLINGS:
        raise SkillError(f"steps: a list of 1 to {MAX_RUNGS + MAX_DOUBLINGS} steps")
    steps = tuple(Step.from_dict(s, players) for s in raw_steps)
    seconds = data.get("seconds", 0.0)
    common: dict[str, Any] = {
        "family": _text(data.get("family"), "family"),
        "variant": _text(data.get("variant"), "variant"),
        "variant_hash": _text(data.get("variant_hash"), "variant_hash"),
        "players": players,
        "deals": _count(data.get("deals"), "deals", 1, MAX_DEALS),
        "seed": _count(data.get("seed"), "seed", -MASTER_SEED_LIMIT, MASTER_SEED_LIMIT),
        "steps": steps,
        "seconds": _number(seconds, "seconds") if seconds is not None else 0.0,
    }
    if any(s.games != common["deals"] * players for s in steps):
        raise SkillError("every step has deals x players games")
    if schema == GRADED_SCHEMA:
        rungs = data.get("rungs")
        if not isinstance(rungs, list) or not 2 <= len(rungs) <= MAX_RUNGS:
            raise SkillError(f"rungs: a list of 2 to {MAX_RUNGS} bots")
        names = tuple(_text(r, "a rung") for r in rungs)
        if len(steps) != len(names) - 1 or any(
            (s.weaker, s.stronger) != (names[i], names[i + 1]) for i, s in enumerate(steps)
        ):
            raise SkillError("steps: one per adjacent pair of rungs, weaker first")
        return GradedResult(**common, rungs=names)
    bot = _text(data.get("bot"), "bot")
    start = _count(data.get("start"), "start", 1, 2**31)
    most = _count(data.get("max_doublings"), "max_doublings", 1, MAX_DOUBLINGS)
    budgets = [f"{bot}:{start * 2**k}" for k in range(len(steps) + 1)]
    if len(steps) > most or any(
        (s.weaker, s.stronger) != (budgets[i], budgets[i + 1]) for i, s in enumerate(steps)
    ):
        raise SkillError("steps: one per doubling of the start budget, at most max_doublings")
    result = DepthResult(**common, bot=bot, start=start, max_doublings=most)
    if not result.at_least and result.depth != len(steps) - 1:
        raise SkillError("steps: the measure stops at the first step that is not significant")
    return result


def read_result_file(path: str | Path) -> GradedResult | DepthResult:
    """:func:`read_result` of a file (a regular file of at most :data:`MAX_JSON_BYTES`)."""
    text = read_text_bounded(
        path,
        MAX_JSON_BYTES,
        SkillError,
        what="the skill result",
        kind="a skill result is",
        too_large="the skill result",
    )
    return read_result(text)


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _text(x: object, key: str) -> str:
    if not isinstance(x, str) or not 0 < len(x) <= 200:
        raise SkillError(f"{key}: a text of 1 to 200 characters")
    return x


def _count(x: object, key: str, low: int, high: int) -> int:
    if not _is_int(x) or not low <= x <= high:  # type: ignore[operator]
        raise SkillError(f"{key}: a whole number {low}..{high}")
    assert isinstance(x, int)
    return x


def _number(x: object, key: str) -> float:
    if not (isinstance(x, int | float) and not isinstance(x, bool)) or not math.isfinite(x):
        raise SkillError(f"{key}: a finite number")
    if abs(x) > 1e12:
        raise SkillError(f"{key}: a number within +-1e12")
    return float(x)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _md(name: str) -> str:
    """A bot's name inside Markdown code in a table (no backtick, no bare bar)."""
    return name.replace("`", "'").replace("|", "\\|")


def _signed(mean: float, half: float) -> str:
    if not math.isfinite(half):
        return f"{mean:+.2f}"
    return f"{mean:+.2f} [{mean - half:+.2f}, {mean + half:+.2f}]"


# ------------------------------------------------------------------------- playing


def default_rungs(
    variant: VariantBase | str | Path,
    start: int = DEFAULT_START,
    doublings: int = DEFAULT_DOUBLINGS,
) -> list[str]:
    """The default rungs for a variant, in the order the ladder measured them in every
    built-in family (docs/ladder.md): ``baseline``, ``random``, then ``ismcts:start``,
    ``ismcts:2 start``, ... (``doublings`` doublings) if ISMCTS can play it (its
    family deals hidden cards), then ``greedy`` if the family has one (its rule beat
    ISMCTS of up to 20 iterations in every built-in family)."""
    var = resolve(variant).variant
    names = bot_names(var)
    rungs: list[str] = [r for r in ("baseline", "random") if r in names]
    try:
        make_bot(f"ismcts:{start}", var, 0)
    except SetupError:
        pass
    else:
        rungs += [f"ismcts:{start * 2**k}" for k in range(doublings + 1)]
    return rungs + (["greedy"] if "greedy" in names else [])


def check_rungs(variant: VariantBase, rungs: object) -> list[str]:
    """The rungs of a graded ladder, checked: 2 to :data:`MAX_RUNGS` bot specs (a list
    or a comma-separated text) that :func:`make_bot` can make for ``variant``."""
    if isinstance(rungs, str):
        rungs = rungs.split(",")
    if not isinstance(rungs, Sequence) or not 2 <= len(rungs) <= MAX_RUNGS:
        raise SetupError(
            f"a graded ladder has 2 to {MAX_RUNGS} rungs, weakest first, such as "
            "baseline,random,greedy,ismcts:50"
        )
    return [_check_spec(variant, r) for r in rungs]


def _check_spec(variant: VariantBase, spec: object) -> str:
    if not isinstance(spec, str) or not spec.strip():
        raise SetupError(f"a rung is a bot spec such as 'greedy' or 'ismcts:5', not {spec!r}")
    spec = spec.strip()
    try:
        make_bot(spec, variant, 0)
    except SetupError as exc:
        raise SetupError(
            f"the rung {spec[:60]!r} cannot play {variant.name}: {exc} (a searching bot "
            "takes its budget: ismcts:5)"
        ) from None
    return spec


def _check_common(
    var: VariantBase, players: int | None, deals: object, seed: object, workers: object
) -> tuple[int, int, int]:
    count = var.players.min if players is None else check_players(var, players)
    seed = check_seed(seed, "seed", MASTER_SEED_LIMIT)
    if not _is_int(deals) or not 1 <= deals <= MAX_DEALS:  # type: ignore[operator]
        raise SetupError(f"deals must be a whole number 1..{MAX_DEALS:,}, not {deals!r}")
    if workers is not None and (not _is_int(workers) or workers < 1):  # type: ignore[operator]
        raise SetupError(f"workers must be a whole number of at least 1, not {workers!r}")
    assert isinstance(deals, int)
    assert isinstance(seed, int)
    return count, deals, seed


def _check_total(steps: int, deals: int, players: int) -> None:
    games = steps * deals * players
    if games > MAX_GAMES:
        raise SetupError(
            f"{steps} steps x {deals:,} deals x {players} seats make {games:,} games; at "
            f"most {MAX_GAMES:,}: fewer deals or fewer steps"
        )


def _lineup(stronger: int, weaker: int, players: int) -> tuple[int, ...]:
    return (stronger,) + (weaker,) * (players - 1)


def _play_cells(
    var: VariantBase,
    players: int,
    seed: int,
    bots: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    deals: int,
    workers: int | None,
    executor: Executor | Any | None,
    progress: Callable[[int], None] | None,
) -> dict[tuple[int, int], list[LadderGame]]:
    """The games of the steps ``pairs`` (weaker index, stronger index into ``bots``) by
    (step, deal): each deal 0..deals-1 once per rotation of the seats, all in one pool
    (the ladder's runner: deal d from the seed :func:`cardshop.simulate` gives game d)."""
    lineups = tuple(_lineup(s, w, players) for w, s in pairs)
    job = Job(var.to_data(), var.content_hash, players, seed, tuple(bots), lineups)
    cells: dict[tuple[int, int], list[LadderGame]] = {}

    def done(games: list[LadderGame]) -> None:
        cells[(games[0].lineup, games[0].deal)] = games
        if progress is not None:
            progress(len(games))

    todo = [(i, d) for d in range(deals) for i in range(len(lineups))]
    play(job, todo, done, workers, executor)
    return cells


def _play_steps(
    var: VariantBase,
    players: int,
    seed: int,
    bots: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    deals: int,
    workers: int | None,
    executor: Executor | Any | None,
    progress: Callable[[int], None] | None,
) -> list[Step]:
    """Play the steps ``pairs`` (see :func:`_play_cells`); one :class:`Step` each."""
    cells = _play_cells(var, players, seed, bots, pairs, deals, workers, executor, progress)
    steps = []
    for i, (w, s) in enumerate(pairs):
        games = [g for d in range(deals) for g in cells[(i, d)]]
        steps.append(step_from_games(bots[w], bots[s], games, s))
    return steps


def graded_steps(
    variant: VariantBase | str | Path,
    rungs: Sequence[str] | str | None = None,
    *,
    players: int | None = None,
    deals: int = 20,
    seed: int = 0,
    workers: int | None = None,
    executor: Executor | Any | None = None,
    progress: Callable[[int], None] | None = None,
) -> GradedResult:
    """Play a graded ladder of ``rungs`` (bot specs, weakest first; default
    :func:`default_rungs`) on ``variant``.

    For each adjacent pair (weaker, stronger), ``deals`` deals are played once per
    rotation of the seats with one seat of the stronger bot and every other seat the
    weaker: ``deals x players`` games, the stronger bot in every seat of every deal
    once. Every step plays the same deals. ``players`` defaults to the variant's
    smallest count; ``workers``/``executor``/``progress`` as in
    :func:`cardshop.ladder.run_ladder`. A rung may be named twice (a step between
    equals: a null step that should not be significant).
    """
    var = resolve(variant).variant
    count, deals, seed = _check_common(var, players, deals, seed, workers)
    if rungs is None:
        rungs = default_rungs(var)
    specs = check_rungs(var, rungs)
    _check_total(len(specs) - 1, deals, count)
    start = time.perf_counter()
    pairs = [(i, i + 1) for i in range(len(specs) - 1)]
    steps = _play_steps(var, count, seed, specs, pairs, deals, workers, executor, progress)
    return GradedResult(
        family=var.family,
        variant=var.name,
        variant_hash=var.content_hash,
        players=count,
        deals=deals,
        seed=seed,
        steps=tuple(steps),
        seconds=time.perf_counter() - start,
        rungs=tuple(specs),
    )


def check_depth_bot(variant: VariantBase, bot: object, start: object, doublings: object) -> str:
    """The bot's name (lower case), checked: a bot whose option is a number (a budget
    of iterations or playouts), able to play ``variant`` at every budget of the measure."""
    if not _is_int(doublings) or not 1 <= doublings <= MAX_DOUBLINGS:  # type: ignore[operator]
        raise SetupError(
            f"the doublings must be a whole number 1..{MAX_DOUBLINGS}, not {doublings!r}"
        )
    if not _is_int(start) or not 1 <= start <= 2**31:  # type: ignore[operator]
        raise SetupError(f"the start budget must be a whole number of at least 1, not {start!r}")
    if not isinstance(bot, str):
        raise SetupError(f"the bot is a name such as 'ismcts', not {bot!r}")
    name, option = parse_bot_spec(bot)
    if option is not None:
        raise SetupError(
            f"name the bot without a budget ({name!r}, not {bot[:60]!r}): the budgets are "
            "the start and its doublings"
        )
    assert isinstance(start, int)
    assert isinstance(doublings, int)
    for budget in (start, start * 2**doublings):
        try:
            make_bot(f"{name}:{budget}", variant, 0)
        except SetupError as exc:
            searching = [
                b for b in bot_names(variant) if b in ("ismcts", "pimc") or b.startswith("mcts")
            ]
            raise SetupError(
                f"skill depth needs a bot whose option is a number of iterations that can "
                f"play {variant.name} at every budget from {start} to {start * 2**doublings} "
                f"({doublings} doublings); {name}:{budget}: {exc}"
                + (f" (searching bots: {', '.join(searching)})" if searching else "")
            ) from None
    return name


def skill_depth(
    variant: VariantBase | str | Path,
    bot: str = "ismcts",
    start: int = DEFAULT_START,
    *,
    max_doublings: int = 4,
    players: int | None = None,
    deals: int = 20,
    seed: int = 0,
    workers: int | None = None,
    executor: Executor | Any | None = None,
    progress: Callable[[int], None] | None = None,
) -> DepthResult:
    """The skill depth of ``variant`` for a searching ``bot`` (its option a number:
    ``ismcts``, ``pimc``, ...), from the budget ``start``.

    Step k (k = 1, 2, ...) pits one seat of ``bot:start*2**k`` against
    ``bot:start*2**(k-1)`` in every other seat, on ``deals`` deals once per rotation
    of the seats (the same deals for every step). The depth is the number of
    consecutive significant steps from the first; the measure stops at the first step
    that is not significant, or after ``max_doublings`` steps (the depth is then at
    least that). Other arguments as in :func:`graded_steps`.
    """
    var = resolve(variant).variant
    count, deals, seed = _check_common(var, players, deals, seed, workers)
    name = check_depth_bot(var, bot, start, max_doublings)
    _check_total(max_doublings, deals, count)
    began = time.perf_counter()

    def play_step(k: int) -> Step:
        specs = [f"{name}:{start * 2 ** (k - 1)}", f"{name}:{start * 2**k}"]
        found = _play_steps(var, count, seed, specs, [(0, 1)], deals, workers, executor, progress)
        return found[0]

    steps = climb(play_step, max_doublings)
    return DepthResult(
        family=var.family,
        variant=var.name,
        variant_hash=var.content_hash,
        players=count,
        deals=deals,
        seed=seed,
        steps=tuple(steps),
        seconds=time.perf_counter() - began,
        bot=name,
        start=start,
        max_doublings=max_doublings,
    )
