"""Game-quality measures: pure functions over compact summaries of played games.

An audit (:mod:`cardshop.audit`) plays games and keeps one :class:`GameSummary` per
game: who played each seat, the final scores, ranks and winners, how the game ended,
its length, the number of legal actions at each decision and the scores after each
round. Every measure here is a function of a sequence of summaries only, so a report
can be computed again from saved summaries (:func:`write_games`, :func:`read_games`)
without playing or replaying anything; a summary can also be made from a full game
record (:func:`summary_from_record`), which replays the record.

Each measure comes back as a :class:`Measure`: a value with its 95% interval, a unit
and a one-line meaning (docs/measures.md explains them all). The intervals:

* shares (win shares, ties, capped games, drama): the Wilson score interval
  (:func:`cardshop.support.stats.wilson`);
* means over games (rounds, lead changes, score spread, ...): the mean plus or minus
  1.96 standard errors (normal approximation);
* ratios pooled over decisions (branching factor, forced decisions): the same, with a
  standard error that treats each game as one cluster (the delta method), because the
  decisions of one game are not independent;
* the balance figure (a maximum minus a minimum): a band that holds every position's
  win share at once, from a seeded bootstrap over games (1000 resamples), and the
  balances the band allows; it holds the figure (see :func:`_balance`).
* the luck measures (games whose deals were replayed, :func:`luck`): the share of the
  outcomes' variance between deals (a one-way random-effects analysis of variance,
  :func:`decompose`), with a seeded percentile bootstrap over deals (1000 resamples).

:func:`compare` puts two sets of measures side by side: the difference ``b - a`` with
its 95% interval (Newcombe's hybrid score interval for shares, the normal interval
for means and ratios, the bands of both sets for balance) and whether it excludes 0.

Running scores: lead changes, drama and decisiveness need the scores after each
round. The rule, for any family: the game's :meth:`~cardshop.Game.scores`, read
whenever its :meth:`~cardshop.Game.progress` (rounds, turns: the family's unit)
changes, and once at the end (then the final scores). For a match
(:class:`cardshop.Series`) the totals of the finished games plus the current game's
running scores, counting progress across games. A game whose ``scores()`` is ``None``
has no running scores, and those three measures are absent.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardshop.core.actions import Action
from cardshop.core.chance import derive_seed
from cardshop.core.errors import CardshopError
from cardshop.core.game import Game
from cardshop.support.files import (
    read_text_bounded,
    write_text_atomic,
)
from cardshop.support.stats import (
    Z95,
    wilson,
)

__all__ = [
    "CHART_BINS",
    "GAMES_FORMAT",
    "LUCK_MEASURES",
    "MAX_REPLAYS",
    "MEASURE_IDS",
    "Decomposition",
    "Difference",
    "GameSummary",
    "GamesFileError",
    "GamesSection",
    "Measure",
    "Tracker",
    "bot_groups",
    "charts",
    "compare",
    "decompose",
    "dump_games",
    "luck",
    "luck_interval",
    "measure_all",
    "outcome_summaries",
    "read_games",
    "round_counter",
    "running_scores",
    "summary_from_record",
    "write_games",
]

GAMES_FORMAT = "cardshop-games/1"
"""The ``format`` of a section header line of a saved-games file."""
CHART_BINS = 20
"""Bins of the branching-by-progress chart (each 1/20 of a game's decisions)."""
BOOTSTRAP = 1000
"""Resamples of the bootstrap intervals."""

MAX_GAMES_BYTES = 64_000_000
"""The largest saved-games file read: read and reported in seconds (about 900
Wühltisch games of 3 players, whose summaries count every decision, or 100,000
Klunker games)."""
MAX_GAMES_LINE = 8_000_000
"""The longest line of a saved-games file."""
MAX_GAMES = 50_000
"""The most game summaries one file may hold (and one audit may play)."""
MAX_SECTIONS = 2
"""Sections (variants) in one file: one audit, or the two of a comparison."""
MAX_PLAYERS = 64
MAX_ROUNDS_ROWS = 200_000
MAX_NUMBER = 2**53
MAX_TEXT = 200

MEASURE_IDS = (
    "balance",
    "first_player_advantage",
    "skill_gap_win_rate",
    "skill_gap_score",
    "ties",
    "completion",
    "capped",
    "rounds",
    "decisions",
    "ticks",
    "branching",
    "forced_share",
    "lead_changes",
    "drama",
    "drama_depth",
    "decisiveness",
    "score_spread",
    "winning_margin",
    "luck",
    "luck_score",
)
"""Every measure id, in report order (``win_share_<k>`` measures follow ``balance``)."""

LUCK_MEASURES = ("luck", "luck_score")
"""The measures of replayed deals (:func:`luck`)."""
MAX_REPLAYS = 100
"""The most replays of one deal (:func:`luck`; ``cardshop audit --replays``)."""


class GamesFileError(CardshopError, ValueError):
    """A saved-games file (or summary data) is not valid; the message names line and key."""


# ------------------------------------------------------------------- summaries


@dataclass(frozen=True, slots=True)
class GameSummary:
    """What the measures need to know of one played game.

    ``legal`` has the number of legal actions of each decision in order (one
    decision is one seat's choice; a simultaneous tick has one per acting seat), so
    ``decisions == len(legal)``; ``steps`` counts turns or ticks. ``round_scores``
    holds each seat's score after each round, the final scores last, or nothing when
    the family offers no running score. ``first_player`` is the seat that started,
    for families with one.
    """

    players: int
    bots: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    termination: str
    rounds: int
    steps: int
    legal: tuple[int, ...]
    round_scores: tuple[tuple[int, ...], ...] = ()
    first_player: int | None = None
    ticks: int | None = None
    seed: int | None = None
    replay: int = 0
    """Which replay of its deal the game is (0: the deal's first game; a replay plays
    the same deal, ``seed``, with the same bots in the same seats, seeded anew)."""

    @property
    def decisions(self) -> int:
        return len(self.legal)

    @property
    def capped(self) -> bool:
        return self.termination == "capped"

    def position(self, seat: int) -> int:
        """``seat``'s place in turn order from the first player (the seat without one)."""
        first = self.first_player
        return seat if first is None else (seat - first) % self.players

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "players": self.players,
            "bots": list(self.bots),
            "first_player": self.first_player,
            "seed": self.seed,
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "winners": list(self.winners),
            "termination": self.termination,
            "rounds": self.rounds,
            "steps": self.steps,
            "ticks": self.ticks,
            "decisions": self.decisions,
            "legal": list(self.legal),
            "round_scores": [list(r) for r in self.round_scores],
        }
        if self.replay:  # only replays say so: a game without replays is saved as before
            data["replay"] = self.replay
        return data

    @classmethod
    def from_dict(cls, data: Any, where: str = "<summary>") -> GameSummary:
        """A summary from :meth:`to_dict` data, every key checked (:class:`GamesFileError`)."""
        if not isinstance(data, dict):
            raise GamesFileError(f"{where}: a game summary is a JSON object")
        keys = set(GameSummary.__slots__) - {"legal"} | {"legal", "decisions"}
        unknown = sorted(set(data) - keys)
        if unknown:
            raise GamesFileError(f"{where}: unknown key {unknown[0][:60]!r} in a game summary")
        missing = sorted(keys - set(data) - {"replay"})
        if missing:
            raise GamesFileError(f"{where}: key {missing[0]!r} is missing from a game summary")

        def number(key: str, low: int, high: int, value: Any = None) -> int:
            value = data[key] if value is None else value
            if type(value) is not int or not low <= value <= high:
                raise GamesFileError(f"{where}: key {key!r} must be a whole number {low}..{high}")
            return value

        def optional(key: str, low: int, high: int) -> int | None:
            return None if data[key] is None else number(key, low, high)

        def numbers(key: str, value: Any, size: int | None, low: int, high: int) -> tuple[int, ...]:
            if not isinstance(value, list) or (size is not None and len(value) != size):
                count = f"{size} " if size is not None else ""
                raise GamesFileError(f"{where}: key {key!r} must be a list of {count}numbers")
            if value and (set(map(type, value)) != {int} or min(value) < low or max(value) > high):
                raise GamesFileError(
                    f"{where}: key {key!r} must hold whole numbers within {low}..{high}"
                )
            return tuple(value)

        n = number("players", 1, MAX_PLAYERS)
        bots = data["bots"]
        if not isinstance(bots, list) or len(bots) != n:
            raise GamesFileError(f"{where}: key 'bots' must name the bot of each of {n} seats")
        if not all(isinstance(b, str) and 0 < len(b) <= MAX_TEXT for b in bots):
            raise GamesFileError(f"{where}: key 'bots' must hold names of 1..{MAX_TEXT} characters")
        scores = numbers("scores", data["scores"], n, -MAX_NUMBER, MAX_NUMBER)
        ranks = numbers("ranks", data["ranks"], n, 1, n)
        winners = numbers("winners", data["winners"], None, 0, n - 1)
        if list(winners) != [s for s in range(n) if ranks[s] == 1] or not winners:
            raise GamesFileError(f"{where}: key 'winners' must list the seats of rank 1, in order")
        termination = data["termination"]
        if termination not in ("finished", "capped"):
            raise GamesFileError(f"{where}: key 'termination' must be 'finished' or 'capped'")
        legal = data["legal"]
        if not isinstance(legal, list):
            raise GamesFileError(f"{where}: key 'legal' must be a list of numbers")
        legal_t = numbers("legal", legal, None, 1, MAX_NUMBER)
        number("decisions", len(legal_t), len(legal_t))
        rows = data["round_scores"]
        if not isinstance(rows, list) or len(rows) > MAX_ROUNDS_ROWS:
            raise GamesFileError(
                f"{where}: key 'round_scores' must be a list of at most {MAX_ROUNDS_ROWS} rows"
            )
        table = tuple(numbers("round_scores", r, n, -MAX_NUMBER, MAX_NUMBER) for r in rows)
        if table and table[-1] != scores:
            raise GamesFileError(f"{where}: the last row of 'round_scores' must be the scores")
        return cls(
            players=n,
            bots=tuple(bots),
            scores=scores,
            ranks=ranks,
            winners=winners,
            termination=termination,
            rounds=number("rounds", 0, MAX_NUMBER),
            steps=number("steps", 0, MAX_NUMBER),
            legal=legal_t,
            round_scores=table,
            first_player=optional("first_player", 0, n - 1),
            ticks=optional("ticks", 0, MAX_NUMBER),
            seed=optional("seed", 0, 2**64 - 1),
            replay=number("replay", 0, MAX_REPLAYS - 1) if "replay" in data else 0,
        )


# ------------------------------------------------------- collecting while playing


def running_scores(game: Game) -> tuple[int, ...] | None:
    """Each seat's score now (:meth:`Game.scores <cardshop.Game.scores>`; None: the game
    keeps no running score)."""
    return game.scores()


def round_counter(game: Game) -> Callable[[], int] | None:
    """A function giving ``game``'s progress now (:meth:`Game.progress
    <cardshop.Game.progress>`, in its family's unit); None: the game has no counter."""
    if game.progress() is None:
        return None

    def counter() -> int:
        now = game.progress()
        return 0 if now is None else now

    return counter


def _steps_so_far(game: Game) -> int:
    """The steps ``game`` has had (none for a game fresh from its setup)."""
    if not game.moves:
        return 0
    from cardshop.invariants import steps_of

    return len(steps_of(game))


class _Counting:
    """A player that notes the number of legal actions of each decision, then asks its bot."""

    __slots__ = ("bot", "counts")

    def __init__(self, bot: Any, counts: list[int]) -> None:
        self.bot = bot
        self.counts = counts

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        self.counts.append(len(legal_actions))
        action: Action = self.bot.choose(observation, legal_actions)
        return action


class Tracker:
    """Collects a :class:`GameSummary` while the driver plays a game::

        tracker = Tracker(game, bots, names)
        while not game.is_over:
            driver.apply(game, driver.choose(game, tracker.players))
            tracker.after_step()
        summary = tracker.summary()

    :attr:`players` wraps the bots so that each decision's legal actions are counted
    as the driver offers them (the engine is not asked again); :meth:`after_step`
    reads the running scores when the round counter moved.
    """

    def __init__(self, game: Any, bots: Sequence[Any], names: Sequence[str]) -> None:
        self.game = game
        self.names = tuple(names)
        self.legal: list[int] = []
        self.players = [_Counting(bot, self.legal) for bot in bots]
        self._counter = round_counter(game)
        self._scores = running_scores(game) is not None
        self._last = self._counter() if self._counter is not None else 0
        self.rows: list[tuple[int, ...]] = []
        # The steps are counted as they are played: a match's moves, read at the end,
        # are built anew move by move.
        self._steps = _steps_so_far(game)

    def after_step(self) -> None:
        """Call after each step the driver applied."""
        self._steps += 1
        if self._counter is None or not self._scores or self.game.is_over:
            return
        now = self._counter()
        if now != self._last:
            self._last = now
            scores = running_scores(self.game)
            if scores is not None:
                self.rows.append(scores)

    def summary(self) -> GameSummary:
        """The finished game's summary."""
        from cardshop.invariants import game_setup

        game = self.game
        result = game.result()
        first = game_setup(game).get("first_player")
        ticks = result.details.get("ticks")
        rows = (*self.rows, tuple(result.scores)) if self._scores and self._counter else ()
        return GameSummary(
            players=game.players,
            bots=self.names,
            scores=tuple(result.scores),
            ranks=tuple(result.ranks),
            winners=tuple(result.winners),
            termination=result.termination.value,
            rounds=result.rounds,
            steps=self._steps,
            legal=tuple(self.legal),
            round_scores=rows,
            first_player=first if isinstance(first, int) else None,
            ticks=ticks if isinstance(ticks, int) else None,
            seed=game.seed,
        )


def outcome_summaries(sim: Any) -> list[GameSummary]:
    """The summaries of a simulation's games (:func:`cardshop.simulate`'s result, in
    game order): no decisions counted, no round scores; with replayed deals, each
    game's replay (``game % sim.repeats``)."""
    repeats = getattr(sim, "repeats", 1)
    return [
        GameSummary(
            players=sim.players,
            bots=o.bots,
            scores=o.scores,
            ranks=o.ranks,
            winners=o.winners,
            termination=o.termination,
            rounds=o.rounds,
            steps=o.steps,
            legal=(),
            first_player=o.first_player,
            ticks=o.details.get("ticks"),
            seed=o.seed,
            replay=o.game % repeats,
        )
        for o in sim
    ]


def summary_from_record(record: Any) -> GameSummary:
    """The summary of a finished game record (:class:`cardshop.records.GameRecord`).

    Sets the game up again and applies each recorded step, counting the legal actions
    each acting seat had; a step that does not apply raises
    :class:`~cardshop.RecordError`. (Use :func:`cardshop.replay_record` to check the
    recorded events too.)
    """
    from cardshop import driver
    from cardshop.core.errors import RecordError
    from cardshop.core.frontdoor import new_game

    game = new_game(record.variant, record.players, record.seed, **record.options)
    tracker = Tracker(game, [], record.bots)
    for i, step in enumerate(record.steps):
        if game.is_over:
            raise RecordError(f"{record.where(i)}: a step after the game ended")
        try:
            actions = {seat: game.parse_action(text, seat) for seat, text in step.actions}
            if sorted(actions) != list(game.acting):
                raise RecordError(f"{record.where(i)}: other seats act now")
            for seat in sorted(actions):
                tracker.legal.append(len(game.legal_actions(seat)))
            driver.apply(game, actions)
        except CardshopError as exc:
            if isinstance(exc, RecordError):
                raise
            raise RecordError(
                f"{record.where(i)}: {step.describe()} does not apply: {exc}"
            ) from None
        tracker.after_step()
    if not game.is_over:
        raise RecordError(f"{record.source}: the recorded game is not finished")
    return tracker.summary()


# -------------------------------------------------------------------- measures


@dataclass(frozen=True, slots=True)
class Measure:
    """One figure of a report with its 95% interval (``low``/``high`` None: none).

    ``method`` says how the interval was made (``wilson``, ``normal``, ``ratio``,
    ``bootstrap``); the other fields keep what :func:`compare` needs (for the luck
    measures, ``replicates`` holds the bootstrap's shares, sorted, and ``se`` their
    standard deviation).
    """

    id: str
    label: str
    value: float
    low: float | None
    high: float | None
    unit: str
    meaning: str
    method: str
    successes: float = 0.0
    trials: int = 0
    se: float = 0.0
    replicates: tuple[float, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "value": _round(self.value),
            "low": None if self.low is None else _round(self.low),
            "high": None if self.high is None else _round(self.high),
            "unit": self.unit,
            "meaning": self.meaning,
            "interval": self.method,
        }

    def text(self) -> str:
        """``0.93 [0.88, 0.97]`` (shares in percent); a luck measure of identical
        replays says so instead of a figure."""
        if self.meaning == IDENTICAL_REPLAYS:
            return "none: all replays identical (deterministic bots)"
        return _fmt(self.value, self.low, self.high, self.unit)


def _round(x: float) -> float:
    return round(float(x), 6)


def _fmt(value: float, low: float | None, high: float | None, unit: str) -> str:
    if unit == "share":
        body = f"{100 * value:.1f}%"
        return (
            body if low is None or high is None else f"{body} [{100 * low:.1f}, {100 * high:.1f}]"
        )
    digits = 3 if unit == "ratio" else 2
    body = f"{value:.{digits}f}"
    return body if low is None or high is None else f"{body} [{low:.{digits}f}, {high:.{digits}f}]"


def _share(
    id: str, label: str, successes: float, trials: int, meaning: str, offset: float = 0.0
) -> Measure:
    iv = wilson(successes, trials)
    return Measure(
        id,
        label,
        iv.estimate - offset,
        iv.low - offset,
        iv.high - offset,
        "share",
        meaning,
        "wilson",
        successes=successes,
        trials=trials,
    )


def _mean(
    id: str,
    label: str,
    values: Sequence[float],
    unit: str,
    meaning: str,
    bounds: tuple[float, float] = (0.0, math.inf),
) -> Measure:
    """The mean with its normal interval, kept within ``bounds`` (the values' range)."""
    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return Measure(id, label, mean, None, None, unit, meaning, "normal", se=math.inf)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    se = math.sqrt(var / n)
    low = max(bounds[0], mean - Z95 * se)
    high = min(bounds[1], mean + Z95 * se)
    return Measure(id, label, mean, low, high, unit, meaning, "normal", se=se)


def _ratio_se(nums: Sequence[float], dens: Sequence[float]) -> tuple[float, float]:
    """The pooled ratio ``sum(nums) / sum(dens)`` and its cluster (delta-method) error."""
    total = math.fsum(dens)
    if total <= 0:
        return (math.nan, math.inf)
    r = math.fsum(nums) / total
    g = len(dens)
    if g < 2:
        return (r, math.inf)
    mean_d = total / g
    var = math.fsum((n - r * d) ** 2 for n, d in zip(nums, dens, strict=True)) / (g * (g - 1))
    return (r, math.sqrt(var) / mean_d)


def _ratio(
    id: str,
    label: str,
    nums: Sequence[float],
    dens: Sequence[float],
    unit: str,
    meaning: str,
    bounds: tuple[float, float] = (-math.inf, math.inf),
) -> Measure:
    r, se = _ratio_se(nums, dens)
    if math.isinf(se):
        return Measure(id, label, r, None, None, unit, meaning, "ratio", se=se)
    low = max(bounds[0], r - Z95 * se)
    high = min(bounds[1], r + Z95 * se)
    return Measure(id, label, r, low, high, unit, meaning, "ratio", se=se)


def _position_wins(s: GameSummary) -> list[tuple[int, float]]:
    share = 1 / len(s.winners)
    return [(s.position(w), share) for w in s.winners]


def _binomial(rng: random.Random, n: int, p: float) -> int:
    """A draw of Binomial(n, p), exactly, in O(log n) steps: the median of n uniforms
    is a beta variate; the count below p recurses into one half (Knuth, TAOCP 3.4.1)."""
    count = 0
    while n > 16:
        i = (n + 1) // 2
        x = rng.betavariate(i, n + 1 - i)
        if x <= p:
            count += i
            n, p = n - i, (p - x) / (1 - x) if x < 1 else 0.0
        else:
            n, p = i - 1, p / x
    return count + sum(rng.random() < p for _ in range(n))


def _multinomial(rng: random.Random, n: int, weights: Sequence[int]) -> list[int]:
    """Counts of ``n`` draws with replacement from items weighing ``weights``: how a
    bootstrap resample of ``n`` games counts each kind, in O(kinds x log n) steps."""
    counts = []
    left = sum(weights)
    for w in weights:
        drawn = _binomial(rng, n, w / left) if left > w else n
        counts.append(drawn)
        n -= drawn
        left -= w
    return counts


def _balance_of(totals: Sequence[float], games: int) -> float:
    return 1 - (max(totals) - min(totals)) / games


def balance_interval(
    value: float, deviations: Sequence[float], level: float = 0.95
) -> tuple[float, float]:
    """The interval of balance ``value`` of the given ``level`` from the bootstrap's
    ``deviations`` (each resample's largest distance of a position's win share from the
    games' share; see :func:`_balance`): every share within ``c`` of its estimate, ``c``
    the deviations' ``level`` quantile, puts the gap between the largest and the
    smallest share within ``2c`` of the games' gap (and at least 0)."""
    ordered = sorted(deviations)
    c = ordered[min(len(ordered) - 1, math.ceil(level * (len(ordered) - 1)))]
    return max(0.0, value - 2 * c), min(1.0, value + 2 * c)


def _balance(summaries: Sequence[GameSummary], seed: int) -> Measure:
    """Balance with its interval: a simultaneous bootstrap band of the win shares.

    Balance is 1 minus a maximum minus a minimum, which a percentile bootstrap of its
    own does not estimate well: a resample spreads the win shares further apart than
    the games did, so resampled balances lie below the games' balance (near a fair
    game, all of them: the interval missed both the figure and the truth). The band
    bootstraps instead the largest distance of any position's share from its estimate,
    a smooth quantity; its 95% quantile ``c`` puts every true share within ``c`` of
    its estimate at once (95%), and with it the gap within ``2c`` of the games' gap.
    The interval holds the figure by construction. The deviations are kept (as
    ``replicates``) for :func:`compare` and the tuner's intervals at other levels.
    """
    n, games = summaries[0].players, len(summaries)
    wins = [_position_wins(s) for s in summaries]
    totals = [0.0] * n
    for game in wins:
        for p, share in game:
            totals[p] += share
    value = _balance_of(totals, games)
    rng = random.Random(derive_seed(seed, "bootstrap", "balance", n))
    # Games with the same winners weigh the same: a resample counts each outcome.
    outcomes: dict[tuple[tuple[int, float], ...], int] = {}
    kind = [outcomes.setdefault(tuple(game), len(outcomes)) for game in wins]
    patterns = list(outcomes)
    weights = list(Counter(kind).values())  # outcomes are numbered as first met
    deviations = []
    for _ in range(BOOTSTRAP):
        t = [0.0] * n
        for k, times in enumerate(_multinomial(rng, games, weights)):
            for p, share in patterns[k]:
                t[p] += share * times
        deviations.append(max(abs(a - b) for a, b in zip(t, totals, strict=True)) / games)
    low, high = balance_interval(value, deviations) if games > 1 else (None, None)
    by = "position from the first player" if summaries[0].first_player is not None else "seat"
    return Measure(
        "balance",
        "Balance across seats",
        value,
        low,
        high,
        "ratio",
        f"1 minus the gap between the most and the least winning {by} "
        "(1: every one wins as often; noise alone keeps it a little below 1)",
        "bootstrap",
        replicates=tuple(deviations),
    )


def bot_groups(summaries: Sequence[GameSummary]) -> tuple[str, set[str]] | None:
    """The stronger bot's name and the weaker bots' names of a skill-gap comparison
    (the first bot that is not ``random``, against ``random`` or the rest); None for
    games of one bot."""
    bots = summaries[0].bots
    names = list(dict.fromkeys(bots))
    if len(names) < 2:
        return None
    strong = next(b for b in names if b != "random")
    weak = {"random"} if "random" in names else set(names) - {strong}
    return strong, weak


# ------------------------------------------------------------------------ luck


@dataclass(frozen=True, slots=True)
class Decomposition:
    """A one-way random-effects decomposition of an outcome over deals (pooled over seats).

    ``between`` is the variance component of the deal (how far deals' means lie apart,
    beyond what the replays' spread alone makes), ``within`` the variance between the
    replays of one deal; both are summed over the seats. ``share`` is the intraclass
    correlation ``between / (between + within)`` clipped to 0..1, None when it is not
    defined (fewer than two deals, no deal played twice, or one outcome everywhere).
    """

    deals: int
    games: int
    between: float
    within: float
    share: float | None

    @property
    def identical(self) -> bool:
        """Whether every replay of every deal had the same outcome as its deal's others."""
        return self.within == 0.0 and self.games > self.deals


def _deal_stats(
    groups: Sequence[Sequence[Sequence[float]]],
) -> list[tuple[int, tuple[float, ...], float, float]]:
    """Per deal: its games, each seat's total, the sum over seats of squared totals
    over games, and the sum over seats of squared deviations from the deal's means."""
    out = []
    for games in groups:
        k = len(games)
        seats = len(games[0])
        totals = tuple(math.fsum(g[s] for g in games) for s in range(seats))
        squares = math.fsum(t * t for t in totals) / k
        spread = math.fsum((g[s] - totals[s] / k) ** 2 for g in games for s in range(seats))
        out.append((k, totals, squares, spread))
    return out


def _decompose(
    stats: Sequence[tuple[int, tuple[float, ...], float, float]],
    counts: Sequence[int] | None = None,
) -> Decomposition:
    """The decomposition of deals ``stats``, each taken ``counts[d]`` times (a bootstrap
    resample) or once."""
    weights = counts if counts is not None else [1] * len(stats)
    deals = sum(weights)
    games = sum(c * st[0] for c, st in zip(weights, stats, strict=True))
    if deals < 2 or games <= deals:
        return Decomposition(deals, games, 0.0, 0.0, None)
    seats = len(stats[0][1])
    grand = [
        math.fsum(c * st[1][s] for c, st in zip(weights, stats, strict=True)) for s in range(seats)
    ]
    squares = math.fsum(c * st[2] for c, st in zip(weights, stats, strict=True))
    between_ss = max(0.0, squares - math.fsum(t * t for t in grand) / games)
    within_ss = math.fsum(c * st[3] for c, st in zip(weights, stats, strict=True))
    msb = between_ss / (deals - 1)
    msw = within_ss / (games - deals)
    sizes = math.fsum(c * st[0] * st[0] for c, st in zip(weights, stats, strict=True))
    n0 = (games - sizes / games) / (deals - 1)  # the mean replays of a deal, adjusted
    between = (msb - msw) / n0
    total = msb + (n0 - 1) * msw
    if total <= 1e-12 * max(1.0, msb, msw):
        return Decomposition(deals, games, between, msw, None)
    share = min(1.0, max(0.0, (msb - msw) / total))
    return Decomposition(deals, games, between, msw, share)


def decompose(groups: Sequence[Sequence[Sequence[float]]]) -> Decomposition:
    """The share of an outcome's variance that the deal explains, from replayed deals.

    ``groups[d][r][s]`` is seat ``s``'s outcome in replay ``r`` of deal ``d`` (every
    game of one number of seats; deals may have different numbers of replays). The
    one-way random-effects analysis of variance for each seat, the seats' mean squares
    summed: ``(MSB - MSW) / (MSB + (n0 - 1) MSW)``, where ``n0`` is the number of
    replays of a deal (adjusted when deals have different numbers), clipped to 0..1.
    """
    groups = [g for g in groups if g]
    if not groups:
        return Decomposition(0, 0, 0.0, 0.0, None)
    return _decompose(_deal_stats(groups))


def luck_interval(
    groups: Sequence[Sequence[Sequence[float]]],
    seed: int,
    resamples: int = BOOTSTRAP,
    level: float = 0.95,
) -> tuple[Decomposition, tuple[float, ...], tuple[float, float] | None]:
    """:func:`decompose` with a percentile bootstrap over deals (``resamples``
    resamples of the deals with replacement, seeded by ``seed``): the decomposition,
    the resamples' shares (sorted) and the ``level`` interval (None: not defined)."""
    groups = [g for g in groups if g]
    if not groups:
        return Decomposition(0, 0, 0.0, 0.0, None), (), None
    stats = _deal_stats(groups)
    found = _decompose(stats)
    if found.share is None:
        return found, (), None
    rng = random.Random(seed)
    d = len(stats)
    shares = []
    for _ in range(resamples):
        counts = [0] * d
        for i in rng.choices(range(d), k=d):
            counts[i] += 1
        share = _decompose(stats, counts).share
        if share is not None:
            shares.append(share)
    if len(shares) < resamples / 2:
        return found, tuple(sorted(shares)), None
    ordered = tuple(sorted(shares))
    return found, ordered, percentile_interval(ordered, level)


def percentile_interval(ordered: Sequence[float], level: float) -> tuple[float, float]:
    """The ``level`` percentile interval of sorted bootstrap replicates."""
    tail = (1 - level) / 2
    last = len(ordered) - 1
    low = ordered[max(0, min(last, math.floor(tail * last)))]
    high = ordered[max(0, min(last, math.ceil((1 - tail) * last)))]
    return low, high


IDENTICAL_REPLAYS = (
    "all replays identical: luck cannot be separated with deterministic bots "
    "(the same deal and seats gave the same outcome every time)"
)
"""The meaning of a luck measure whose replays never differed."""


def deals(summaries: Sequence[GameSummary]) -> list[list[GameSummary]]:
    """The games grouped by deal (their ``seed``), in the order deals first appear;
    games without a seed are left out."""
    by_seed: dict[int, list[GameSummary]] = {}
    for s in summaries:
        if s.seed is not None:
            by_seed.setdefault(s.seed, []).append(s)
    return list(by_seed.values())


def luck(summaries: Sequence[GameSummary], *, seed: int = 0) -> dict[str, Measure]:
    """The luck measures of replayed games of one player count, by id (none when no
    deal was played twice).

    ``luck``: the share of the variance of each seat's win share (1/k in a win shared
    by k, else 0) that the deal explains; ``luck_score``: the same for the final
    scores. Each is the intraclass correlation of :func:`decompose` with a 95%
    percentile bootstrap interval over deals (1000 resamples seeded by ``seed``).
    When no replay ever differed from its deal's others (deterministic bots), the
    figure is 1 with no interval and a meaning that says so: luck and skill are then
    not told apart.
    """
    grouped = deals(summaries)
    if not any(len(g) > 1 for g in grouped):
        return {}
    n = summaries[0].players

    def wins(s: GameSummary) -> list[float]:
        return [1 / len(s.winners) if x in s.winners else 0.0 for x in range(n)]

    def scores(s: GameSummary) -> list[float]:
        return [float(x) for x in s.scores]

    readings: tuple[tuple[str, str, Callable[[GameSummary], list[float]], str], ...] = (
        ("luck", "Luck: the deal's share (wins)", wins, "win share"),
        ("luck_score", "Luck: the deal's share (scores)", scores, "final score"),
    )
    out: dict[str, Measure] = {}
    for id, label, outcome, what in readings:
        groups = [[outcome(s) for s in g] for g in grouped]
        found, shares, interval = luck_interval(groups, derive_seed(seed, "bootstrap", id, n))
        replays = found.games / found.deals if found.deals else 0.0
        if found.identical:
            out[id] = Measure(
                id, label, 1.0, None, None, "ratio", IDENTICAL_REPLAYS, "bootstrap", se=math.inf
            )
            continue
        if found.share is None:
            continue
        se = statistics.stdev(shares) if len(shares) > 1 else math.inf
        out[id] = Measure(
            id,
            label,
            found.share,
            None if interval is None else interval[0],
            None if interval is None else interval[1],
            "ratio",
            f"share of the variance of each seat's {what} explained by the deal, over "
            f"{found.deals} deals played {replays:.3g} times each with reseeded bots "
            "(0: the deal does not matter; 1: the deal decides everything)",
            "bootstrap",
            se=se,
            replicates=shares,
        )
    return out


def measure_all(summaries: Sequence[GameSummary], *, seed: int = 0) -> dict[str, Measure]:
    """Every measure that applies to ``summaries`` (games of one player count), by id.

    The games must share a player count and seat bots. Absent: ``first_player_advantage``
    when games have no first player, the skill gap when one bot plays every seat,
    ``ticks`` when games report none, the lead measures without running scores,
    ``drama_depth`` when no winner was ever behind, ``luck`` and ``luck_score`` when no
    deal was replayed. No games: no measures. ``seed`` seeds the bootstraps.

    Replays (summaries whose ``replay`` is above 0) count for the luck measures only:
    every other measure is taken over the first game of each deal, so that its games
    are independent and its figure is the one of the same audit without replays.
    """
    if not summaries:
        return {}
    n = summaries[0].players
    if any(s.players != n or s.bots != summaries[0].bots for s in summaries):
        raise GamesFileError("measures are taken over games of one player count and seat bots")
    first = [s for s in summaries if s.replay == 0]
    out = _measures(first, seed) if first else {}
    out.update(luck(summaries, seed=seed))
    return _ordered(out, n)


def _measures(summaries: Sequence[GameSummary], seed: int) -> dict[str, Measure]:
    """The measures of independent games (every one but the luck measures)."""
    n = summaries[0].players
    games = len(summaries)
    out: dict[str, Measure] = {}

    def add(m: Measure) -> None:
        out[m.id] = m

    # -- balance and seats
    add(_balance(summaries, seed))
    with_first = all(s.first_player is not None for s in summaries)
    totals = [0.0] * n
    for s in summaries:
        for p, share in _position_wins(s):
            totals[p] += share
    for p in range(n):
        name = ("first player" if p == 0 else f"first player +{p}") if with_first else f"seat {p}"
        add(
            _share(
                f"win_share_{p}",
                f"Win share, {name}",
                totals[p],
                games,
                f"share of games won by the {name} (a win shared by k counts 1/k; fair: 1/{n})",
            )
        )
    if with_first:
        add(
            _share(
                "first_player_advantage",
                "First-player advantage",
                totals[0],
                games,
                f"the first player's win share minus the fair share 1/{n} (0: no advantage)",
                offset=1 / n,
            )
        )

    # -- skill
    groups = bot_groups(summaries)
    if groups is not None:
        strong, weak = groups
        bots = summaries[0].bots
        strong_seats = [s for s in range(n) if bots[s] == strong]
        weak_seats = [s for s in range(n) if bots[s] in weak]
        wins = sum(1 / len(g.winners) for g in summaries for w in g.winners if w in strong_seats)
        against = "random" if weak == {"random"} else "the other bots"
        add(
            _share(
                "skill_gap_win_rate",
                "Skill gap: win rate",
                wins,
                games * len(strong_seats),
                f"win rate per seat of {strong} against {against} (fair share 1/{n})",
            )
        )
        diffs = [
            math.fsum(g.scores[s] for s in strong_seats) / len(strong_seats)
            - math.fsum(g.scores[s] for s in weak_seats) / len(weak_seats)
            for g in summaries
        ]
        add(
            _mean(
                "skill_gap_score",
                "Skill gap: score",
                diffs,
                "points",
                f"mean score of a {strong} seat minus that of a seat of {against}, per game",
                (-math.inf, math.inf),
            )
        )

    # -- ends
    add(
        _share(
            "ties",
            "Ties (shared wins)",
            sum(len(s.winners) > 1 for s in summaries),
            games,
            "share of games whose win is shared by two or more seats",
        )
    )
    capped = sum(s.capped for s in summaries)
    add(
        _share(
            "completion",
            "Completion",
            games - capped,
            games,
            "share of games that ended by the rules, not by the cap on their length",
        )
    )
    add(
        _share(
            "capped",
            "Capped games",
            capped,
            games,
            "share of games stopped by the cap on their length",
        )
    )

    # -- duration
    add(
        _mean(
            "rounds",
            "Rounds",
            [s.rounds for s in summaries],
            "rounds",
            "mean length of a game in the family's rounds (or turns)",
        )
    )
    add(
        _mean(
            "decisions",
            "Decisions",
            [s.decisions for s in summaries],
            "decisions",
            "mean number of decisions in a game (one seat choosing one action)",
        )
    )
    if all(s.ticks is not None for s in summaries):
        add(
            _mean(
                "ticks",
                "Ticks",
                [float(s.ticks or 0) for s in summaries],
                "ticks",
                "mean number of ticks (simultaneous steps) in a game",
            )
        )

    # -- choices
    dens = [float(s.decisions) for s in summaries]
    if not any(dens):
        return out
    add(
        _ratio(
            "branching",
            "Branching factor",
            [float(sum(s.legal)) for s in summaries],
            dens,
            "count",
            "mean number of legal actions a seat chooses among at a decision",
            (0.0, math.inf),
        )
    )
    add(
        _ratio(
            "forced_share",
            "Forced decisions",
            [float(sum(1 for x in s.legal if x == 1)) for s in summaries],
            dens,
            "share",
            "share of decisions with only one legal action (no real choice)",
            (0.0, 1.0),
        )
    )

    # -- the course of the game
    tracked = [s for s in summaries if s.round_scores]
    if tracked:
        add(
            _mean(
                "lead_changes",
                "Lead changes",
                [lead_changes(s) for s in tracked],
                "count",
                "mean number of times a game's sole leader changes, from the scores each round",
            )
        )
        depth = [worst_deficit(s) for s in tracked]
        behind = [d for d in depth if d > 0]
        add(
            _share(
                "drama",
                "Drama",
                len(behind),
                len(tracked),
                "share of games whose eventual winner was behind after some round",
            )
        )
        if behind:
            add(
                _mean(
                    "drama_depth",
                    "Drama: depth",
                    behind,
                    "points",
                    "in those games, how far the winner was behind at worst (points, mean)",
                )
            )
        decided = [d for d in (decisive_point(s) for s in tracked) if d is not None]
        if decided:
            add(
                _mean(
                    "decisiveness",
                    "Decisiveness",
                    decided,
                    "ratio",
                    "share of the rounds played when the winner took a lead they kept "
                    "(low: decided early; 1: only at the end)",
                    (0.0, 1.0),
                )
            )

    # -- scores
    add(
        _mean(
            "score_spread",
            "Score spread",
            [max(s.scores) - min(s.scores) for s in summaries],
            "points",
            "mean gap between the best and the worst final score of a game",
        )
    )
    if n > 1:
        add(
            _mean(
                "winning_margin",
                "Winning margin",
                [margin(s) for s in summaries],
                "points",
                "mean lead of the best final score over the second best (0 in a shared win)",
            )
        )
    return out


def _ordered(out: dict[str, Measure], n: int) -> dict[str, Measure]:
    order = [*MEASURE_IDS[:1], *(f"win_share_{p}" for p in range(n)), *MEASURE_IDS[1:]]
    return {k: out[k] for k in order if k in out}


# ------------------------------------------------------------ per-game figures


def _leader(row: Sequence[int]) -> int | None:
    best = max(row)
    leaders = [s for s, x in enumerate(row) if x == best]
    return leaders[0] if len(leaders) == 1 else None


def lead_changes(s: GameSummary) -> int:
    """How often the sole leader changed from one round to a later one (a tie leads no one)."""
    changes = 0
    last: int | None = None
    for row in s.round_scores:
        leader = _leader(row)
        if leader is None:
            continue
        if last is not None and leader != last:
            changes += 1
        last = leader
    return changes


def worst_deficit(s: GameSummary) -> int:
    """How far the eventual winner(s) trailed the best score at worst, over the rounds
    before the end (0: never behind). With shared winners, the best placed of them."""
    worst = 0
    for row in s.round_scores[:-1]:
        worst = max(worst, max(row) - max(row[w] for w in s.winners))
    return worst


def decisive_point(s: GameSummary) -> float | None:
    """The share of rounds played when a winner led every other seat for good.

    A winner leads after a round when its score is above every non-winner's; the final
    scores always count as a lead (ties there are broken by the rules). ``(k + 1) / R``
    for the first of ``R`` rows ``k`` from which a winner leads in every row; None when
    every seat won or there are no rows.
    """
    rows = s.round_scores
    others = [x for x in range(s.players) if x not in s.winners]
    if not rows or not others:
        return None
    k = len(rows) - 1
    while k > 0:
        row = rows[k - 1]
        if max(row[w] for w in s.winners) > max(row[x] for x in others):
            k -= 1
        else:
            break
    return (k + 1) / len(rows)


def margin(s: GameSummary) -> int:
    ordered = sorted(s.scores, reverse=True)
    return ordered[0] - ordered[1]


# ---------------------------------------------------------------------- charts


def _bin_end(b: int, d: int) -> int:
    """The first decision index past chart bin ``b`` of a game of ``d`` decisions."""
    # The smallest i with (2i + 1) * BINS >= 2d(b + 1), i.e. i >= (2d(b + 1)/BINS - 1)/2.
    return max(0, -(-(2 * d * (b + 1) - CHART_BINS) // (2 * CHART_BINS)))


def charts(summaries: Sequence[GameSummary]) -> dict[str, Any]:
    """The raw series the report's charts are drawn from (docs/measures.md); replays
    (a ``replay`` above 0) are left out."""
    summaries = [s for s in summaries if s.replay == 0]
    if not summaries:
        return {
            "scores_by_seat": {},
            "length": {"rounds": [], "decisions": [], "ticks": None},
            "win_rate_by_seat": [],
            "win_rate_by_position": [],
            "win_rate_by_bot": [],
            "lead_changes": [],
            "drama": [],
            "branching": [],
            "branching_histogram": [],
        }
    n, games = summaries[0].players, len(summaries)
    by_seat = [0.0] * n
    by_position = [0.0] * n
    for s in summaries:
        share = 1 / len(s.winners)
        for w in s.winners:
            by_seat[w] += share
            by_position[s.position(w)] += share
    bots = summaries[0].bots
    by_bot = []
    for name in dict.fromkeys(bots):
        seats = [x for x in range(n) if bots[x] == name]
        wins = sum(by_seat[x] for x in seats)
        iv = wilson(wins, games * len(seats))
        by_bot.append(
            {
                "bot": name,
                "seats": seats,
                "rate": _round(iv.estimate),
                "low": _round(iv.low),
                "high": _round(iv.high),
            }
        )

    def rates(totals: list[float], key: str) -> list[dict[str, Any]]:
        out = []
        for x, w in enumerate(totals):
            iv = wilson(w, games)
            out.append(
                {
                    key: x,
                    "rate": _round(iv.estimate),
                    "low": _round(iv.low),
                    "high": _round(iv.high),
                }
            )
        return out

    sums = [[0.0] * games for _ in range(CHART_BINS)]
    counts = [[0.0] * games for _ in range(CHART_BINS)]
    histogram: dict[int, int] = {}
    tally: Counter[int] = Counter()
    for g, s in enumerate(summaries):
        d, legal = s.decisions, s.legal
        # Decision i falls in bin min(BINS - 1, (2i + 1) BINS // 2d); the bins are runs
        # of consecutive decisions, summed a run at a time.
        i = 0
        for b in range(CHART_BINS):
            end = d if b == CHART_BINS - 1 else _bin_end(b, d)
            if end > i:
                sums[b][g] += sum(legal[i:end])
                counts[b][g] += end - i
                i = end
        tally.update(legal)
    for x in sorted(tally):
        histogram[x] = tally[x]
    branching = []
    for b in range(CHART_BINS):
        if not any(counts[b]):
            continue
        r, se = _ratio_se(sums[b], counts[b])
        half = Z95 * se
        branching.append(
            {
                "progress": _round((b + 0.5) / CHART_BINS),
                "mean": _round(r),
                "low": None if math.isinf(half) else _round(max(0.0, r - half)),
                "high": None if math.isinf(half) else _round(r + half),
            }
        )
    tracked = [s for s in summaries if s.round_scores]
    return {
        "scores_by_seat": {str(x): [s.scores[x] for s in summaries] for x in range(n)},
        "length": {
            "rounds": [s.rounds for s in summaries],
            "decisions": [s.decisions for s in summaries],
            "ticks": [s.ticks for s in summaries]
            if all(s.ticks is not None for s in summaries)
            else None,
        },
        "win_rate_by_seat": rates(by_seat, "seat"),
        "win_rate_by_position": rates(by_position, "position"),
        "win_rate_by_bot": by_bot,
        "lead_changes": [lead_changes(s) for s in tracked],
        "drama": [worst_deficit(s) for s in tracked],
        "branching": branching,
        "branching_histogram": [
            {"actions": k, "decisions": histogram[k]} for k in sorted(histogram)
        ],
    }


# ------------------------------------------------------------------ comparison


@dataclass(frozen=True, slots=True)
class Difference:
    """A measure of two variants side by side: ``difference = b - a`` with its interval."""

    id: str
    label: str
    unit: str
    a: float
    b: float
    difference: float
    low: float | None
    high: float | None

    @property
    def significant(self) -> bool:
        """Whether the 95% interval of the difference excludes 0."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "unit": self.unit,
            "a": _round(self.a),
            "b": _round(self.b),
            "difference": _round(self.difference),
            "low": None if self.low is None else _round(self.low),
            "high": None if self.high is None else _round(self.high),
            "significant": self.significant,
        }

    def text(self) -> str:
        return _fmt(self.difference, self.low, self.high, self.unit)


def _difference(a: Measure, b: Measure) -> Difference:
    d = b.value - a.value
    low: float | None = None
    high: float | None = None
    if a.method == b.method == "wilson" and a.trials and b.trials:
        ia, ib = wilson(a.successes, a.trials), wilson(b.successes, b.trials)
        pa, pb = ia.estimate, ib.estimate
        low = d - math.sqrt((pb - ib.low) ** 2 + (ia.high - pa) ** 2)
        high = d + math.sqrt((ib.high - pb) ** 2 + (pa - ia.low) ** 2)
    elif a.id in LUCK_MEASURES:
        # Two sets of deals, independent: the bootstrap errors combine as normal ones.
        se = math.sqrt(a.se**2 + b.se**2)
        if math.isfinite(se):
            low, high = d - Z95 * se, d + Z95 * se
    elif a.method == b.method == "bootstrap" and a.replicates and b.replicates:
        # Balance: one band for the shares of both sets (each resample's larger
        # deviation), and the difference of the two intervals it gives.
        both = [max(x, y) for x, y in zip(a.replicates, b.replicates, strict=False)]
        a_low, a_high = balance_interval(a.value, both)
        b_low, b_high = balance_interval(b.value, both)
        low, high = b_low - a_high, b_high - a_low
    elif a.method in ("normal", "ratio") and b.method in ("normal", "ratio"):
        se = math.sqrt(a.se**2 + b.se**2)
        if math.isfinite(se):
            low, high = d - Z95 * se, d + Z95 * se
    return Difference(a.id, a.label, a.unit, a.value, b.value, d, low, high)


def compare(a: Mapping[str, Measure], b: Mapping[str, Measure]) -> dict[str, Difference]:
    """The difference of every measure both sets have, in ``a``'s order."""
    return {k: _difference(m, b[k]) for k, m in a.items() if k in b}


# ------------------------------------------------------------ saved summaries


@dataclass(frozen=True, slots=True)
class GamesSection:
    """One variant's audit settings (a header line) and its game summaries."""

    header: dict[str, Any]
    games: list[GameSummary] = field(default_factory=list)


_HEADER_KEYS = {
    "format": str,
    "variant": str,
    "name": str,
    "family": str,
    "title": str,
    "content_hash": str,
    "seed": int,
    "games": int,
    "bots": list,
    "players": list,
}
_OPTIONAL_KEYS = {"round_cap", "max_cap_share", "cap_policy", "cardshop", "replays"}


def dump_games(sections: Iterable[GamesSection]) -> str:
    """Sections of summaries as JSON Lines text: each header line, then its games."""
    lines = []
    for section in sections:
        lines.append(json.dumps({"format": GAMES_FORMAT, **section.header}, separators=(",", ":")))
        lines += [json.dumps(g.to_dict(), separators=(",", ":")) for g in section.games]
    return "\n".join(lines) + "\n"


def write_games(sections: Iterable[GamesSection], path: str | Path) -> None:
    """Write sections of summaries to ``path`` (:func:`dump_games`); raises ``OSError``.

    The file is written whole or not at all (:func:`cardshop.support.files.write_text_atomic`):
    a failure half-way leaves the old file, never a truncated one."""
    write_text_atomic(path, dump_games(sections))


def _header(data: dict[str, Any], where: str) -> dict[str, Any]:
    for key, kind in _HEADER_KEYS.items():
        value = data.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise GamesFileError(f"{where}: header key {key!r} is missing or not a {kind.__name__}")
        if isinstance(value, str) and len(value) > 1000:
            raise GamesFileError(f"{where}: header key {key!r} is longer than 1000 characters")
    unknown = sorted(set(data) - set(_HEADER_KEYS) - _OPTIONAL_KEYS)
    if unknown:
        raise GamesFileError(f"{where}: unknown header key {unknown[0][:60]!r}")
    bots, players = data["bots"], data["players"]
    if (
        not bots
        or len(bots) > MAX_PLAYERS
        or not all(isinstance(b, str) and 0 < len(b) <= MAX_TEXT for b in bots)
    ):
        raise GamesFileError(f"{where}: header key 'bots' must name 1..{MAX_PLAYERS} bots")
    if (
        not players
        or len(players) > MAX_PLAYERS
        or not all(type(p) is int and 1 <= p <= MAX_PLAYERS for p in players)
    ):
        raise GamesFileError(f"{where}: header key 'players' must list player counts")
    if not 0 <= data["games"] <= MAX_GAMES:
        raise GamesFileError(f"{where}: header key 'games' must be within 0..{MAX_GAMES}")
    cap = data.get("round_cap")
    if cap is not None and (type(cap) is not int or not 0 <= cap <= MAX_NUMBER):
        raise GamesFileError(f"{where}: header key 'round_cap' must be a whole number or null")
    share = data.get("max_cap_share", 0.0)
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 <= share <= 1:
        raise GamesFileError(f"{where}: header key 'max_cap_share' must be a number 0..1")
    replays = data.get("replays", 1)
    if type(replays) is not int or not 1 <= replays <= MAX_REPLAYS:
        raise GamesFileError(
            f"{where}: header key 'replays' must be a whole number 1..{MAX_REPLAYS}"
        )
    if data.get("cap_policy", "fail") not in ("fail", "report"):
        raise GamesFileError(f"{where}: header key 'cap_policy' must be 'fail' or 'report'")
    return {k: v for k, v in data.items() if k != "format"}


def read_games(path: str | Path) -> list[GamesSection]:
    """Read a saved-games file: 1 or 2 sections (an audit, a comparison), all checked.

    The file must be a regular UTF-8 JSON Lines file of at most
    :data:`MAX_GAMES_BYTES`; any problem raises :class:`GamesFileError` naming the line.
    """
    name = str(path)[:200]
    text = read_text_bounded(
        path,
        MAX_GAMES_BYTES,
        GamesFileError,
        what="the saved games",
        kind="saved games are",
        too_large="the file",
    )
    sections: list[GamesSection] = []
    count = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        if len(line) > MAX_GAMES_LINE:
            raise GamesFileError(f"{where}: line longer than {MAX_GAMES_LINE} characters")
        try:
            data = json.loads(line)
        except RecursionError:
            raise GamesFileError(f"{where}: JSON nested too deeply") from None
        except ValueError as exc:
            raise GamesFileError(f"{where}: not JSON: {exc}") from None
        if not isinstance(data, dict):
            raise GamesFileError(f"{where}: each line must be a JSON object")
        if "format" in data:
            if data["format"] != GAMES_FORMAT:
                raise GamesFileError(
                    f"{where}: not a saved-games file: format {str(data['format'])[:60]!r}, "
                    f"expected {GAMES_FORMAT!r}"
                )
            if len(sections) == MAX_SECTIONS:
                raise GamesFileError(f"{where}: more than {MAX_SECTIONS} sections (variants)")
            sections.append(GamesSection(_header(data, where)))
            continue
        if not sections:
            raise GamesFileError(
                f"{where}: a saved-games file starts with a header line with "
                f"'format': {GAMES_FORMAT!r}"
            )
        count += 1
        if count > MAX_GAMES:
            raise GamesFileError(f"{where}: more than {MAX_GAMES} games")
        summary = GameSummary.from_dict(data, where)
        header = sections[-1].header
        if summary.players not in header["players"]:
            raise GamesFileError(
                f"{where}: a game of {summary.players} players; the header lists "
                f"{header['players']}"
            )
        sections[-1].games.append(summary)
    if not sections:
        raise GamesFileError(f"{name}: empty: no header line")
    return sections
