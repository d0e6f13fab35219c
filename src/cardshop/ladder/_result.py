"""A ladder's result: ratings, win-rate matrix, cycles; JSON, text, Markdown and HTML."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from cardshop.core.errors import CardshopError
from cardshop.ladder._play import MAX_BOTS, MAX_DEALS, MAX_GAMES, MAX_LINEUPS, LadderGame

__all__ = ["MAX_JSON_BYTES", "SCHEMA", "LadderError", "LadderResult"]

SCHEMA = "cardshop-ladder/1"
MAX_JSON_BYTES = 256 * 1024 * 1024
"""The largest ladder JSON text read back."""
MAX_PLAYERS = 64


class LadderError(CardshopError, ValueError):
    """A ladder's JSON cannot be read: another schema, a missing key, a bad value."""


Matrix = list[list[float | None]]


@dataclass(frozen=True, slots=True)
class LadderResult:
    """The outcome of :func:`cardshop.ladder.run_ladder`.

    ``ratings[i]`` is bot i's rating in Elo-like points (the bots' mean is 0; a
    difference of D points means the first finishes ahead of the second with
    probability 1 / (1 + 10^(-D/400))), with its 95% bootstrap interval
    ``[rating_low[i], rating_high[i]]``. ``wins[a][b]`` is the share of the games with
    both a and b in which a finished ahead of b (ties count half; ``None`` on the
    diagonal), ``win_low``/``win_high`` its interval and ``pair_games[a][b]`` the
    number of such games. ``cycles`` lists the significant cycles a > b > c > a by
    bot index. ``games`` are the games played (empty when read from JSON written
    without them). ``seconds`` (the wall time) is not part of equality.
    """

    family: str
    variant: str
    variant_hash: str
    players: int
    bots: tuple[str, ...]
    deals: int
    seed: int
    resamples: int
    lineups: tuple[tuple[int, ...], ...]
    played: int
    ratings: list[float]
    rating_low: list[float]
    rating_high: list[float]
    wins: Matrix
    win_low: Matrix
    win_high: Matrix
    pair_games: list[list[int]]
    cycles: list[tuple[int, int, int]]
    games: list[LadderGame] = field(default_factory=list)
    seconds: float = field(default=0.0, compare=False)

    # ------------------------------------------------------------------ reading

    def order(self) -> list[int]:
        """Bot indices, best rating first (ties by name)."""
        return sorted(range(len(self.bots)), key=lambda i: (-self.ratings[i], self.bots[i]))

    def cycle_names(self) -> list[tuple[str, str, str]]:
        """The significant cycles by bot name."""
        return [(self.bots[a], self.bots[b], self.bots[c]) for a, b, c in self.cycles]

    # --------------------------------------------------------------------- JSON

    def to_dict(self, games: bool = True) -> dict[str, Any]:
        """JSON-ready data (schema :data:`SCHEMA`); without the games if ``games`` is false."""
        return {
            "schema": SCHEMA,
            "family": self.family,
            "variant": self.variant,
            "variant_hash": self.variant_hash,
            "players": self.players,
            "bots": list(self.bots),
            "deals": self.deals,
            "seed": self.seed,
            "resamples": self.resamples,
            "lineups": [list(x) for x in self.lineups],
            "played": self.played,
            "ratings": self.ratings,
            "rating_low": self.rating_low,
            "rating_high": self.rating_high,
            "wins": self.wins,
            "win_low": self.win_low,
            "win_high": self.win_high,
            "pair_games": self.pair_games,
            "cycles": [list(c) for c in self.cycles],
            "games": [g.to_list() for g in self.games] if games else [],
            "seconds": round(self.seconds, 1),
        }

    def to_json(self, games: bool = True) -> str:
        """The result as JSON text (see :meth:`to_dict`), one line per key."""
        return json.dumps(self.to_dict(games), indent=1, allow_nan=False) + "\n"

    @classmethod
    def from_json(cls, text: str | bytes) -> LadderResult:
        """A result from :meth:`to_json`'s text; :class:`LadderError` says what is wrong."""
        if len(text) > MAX_JSON_BYTES:
            raise LadderError(f"a ladder JSON text is at most {MAX_JSON_BYTES} bytes")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise LadderError(f"not a ladder JSON text: {exc}") from None
        try:
            return cls.from_dict(data)
        except (KeyError, TypeError, ValueError, RecursionError) as exc:
            if isinstance(exc, LadderError):
                raise
            reason = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
            raise LadderError(f"not a ladder JSON text: {reason}") from None

    @classmethod
    def from_dict(cls, data: object) -> LadderResult:
        """A result from :meth:`to_dict`'s data, checked."""
        if not isinstance(data, dict):
            raise LadderError("a ladder JSON text is an object")
        if data.get("schema") != SCHEMA:
            raise LadderError(
                f"not a ladder JSON text of schema {SCHEMA!r}: {data.get('schema')!r}"
            )
        players = _count(data["players"], "players", 2, MAX_PLAYERS)
        bots = data["bots"]
        if not isinstance(bots, list) or not 2 <= len(bots) <= MAX_BOTS:
            raise LadderError(f"bots: a list of 2 to {MAX_BOTS} names")
        if not all(isinstance(b, str) and 0 < len(b) <= 200 for b in bots):
            raise LadderError("bots: names of 1 to 200 characters")
        n = len(bots)
        lineups = data["lineups"]
        if not isinstance(lineups, list) or not 1 <= len(lineups) <= MAX_LINEUPS:
            raise LadderError(f"lineups: a list of 1 to {MAX_LINEUPS} line-ups")
        lineup_tuples = []
        for lineup in lineups:
            if (
                not isinstance(lineup, list)
                or len(lineup) != players
                or not all(_is_int(b) and 0 <= b < n for b in lineup)
            ):
                raise LadderError(f"lineups: each a list of {players} bot indices")
            lineup_tuples.append(tuple(lineup))
        raw_games = data["games"]
        if not isinstance(raw_games, list) or len(raw_games) > MAX_GAMES:
            raise LadderError(f"games: a list of at most {MAX_GAMES} games")
        try:
            games = [LadderGame.from_list(g, n, players) for g in raw_games]
        except ValueError as exc:
            raise LadderError(f"games: {exc}") from None
        cycles = data["cycles"]
        if not isinstance(cycles, list) or len(cycles) > n**3:
            raise LadderError("cycles: a list of bot index triples")
        cycle_tuples = []
        for c in cycles:
            if (
                not isinstance(c, list)
                or len(c) != 3
                or not all(_is_int(b) and 0 <= b < n for b in c)
            ):
                raise LadderError("cycles: a list of bot index triples")
            cycle_tuples.append((c[0], c[1], c[2]))
        seconds = data.get("seconds", 0.0)
        return cls(
            family=_text(data["family"], "family"),
            variant=_text(data["variant"], "variant"),
            variant_hash=_text(data["variant_hash"], "variant_hash"),
            players=players,
            bots=tuple(bots),
            deals=_count(data["deals"], "deals", 1, MAX_DEALS),
            seed=_count(data["seed"], "seed", 0, 2**64),
            resamples=_count(data["resamples"], "resamples", 0, 100_000),
            lineups=tuple(lineup_tuples),
            played=_count(data["played"], "played", 0, MAX_GAMES),
            ratings=_numbers(data["ratings"], n, "ratings"),
            rating_low=_numbers(data["rating_low"], n, "rating_low"),
            rating_high=_numbers(data["rating_high"], n, "rating_high"),
            wins=_matrix(data["wins"], n, "wins"),
            win_low=_matrix(data["win_low"], n, "win_low"),
            win_high=_matrix(data["win_high"], n, "win_high"),
            pair_games=[
                [_count(x, "pair_games", 0, MAX_GAMES) for x in row]
                for row in _rows(data["pair_games"], n, "pair_games")
            ],
            cycles=cycle_tuples,
            games=games,
            seconds=float(seconds) if _is_number(seconds) else 0.0,
        )

    # ---------------------------------------------------------------- rendering

    def _rating(self, i: int) -> str:
        return f"{self.ratings[i]:+.0f} [{self.rating_low[i]:+.0f}, {self.rating_high[i]:+.0f}]"

    def _win(self, a: int, b: int) -> str:
        value, low, high = self.wins[a][b], self.win_low[a][b], self.win_high[a][b]
        if value is None or low is None or high is None:
            return "-"
        return f"{100 * value:.0f}% [{100 * low:.0f}, {100 * high:.0f}]"

    def _games_line(self) -> str:
        return (
            f"{self.played:,} games of {self.variant} at {self.players} players: "
            f"{len(self.lineups)} line-ups x {self.deals:,} deals x {self.players} rotations; "
            f"seed {self.seed}; {self.resamples} bootstrap resamples"
        )

    def cycles_text(self) -> str:
        """The significant cycles in words, or that there is none."""
        if not self.cycles:
            return (
                "No significant cycle: every cycle a > b > c > a has a step whose "
                "interval includes 50%."
            )
        return "Significant cycles: " + "; ".join(
            f"{a} > {b} > {c} > {a}" for a, b, c in self.cycle_names()
        )

    def to_text(self) -> str:
        """A plain-text summary: ratings, the win-rate matrix and the cycles."""
        width = max(len(b) for b in self.bots)
        lines = [self._games_line(), "", "Ratings (Elo-like points, mean 0, 95% intervals):"]
        for place, i in enumerate(self.order(), start=1):
            lines.append(f"  {place:>2}. {self.bots[i]:<{width}}  {self._rating(i)}")
        lines += ["", "Win rates: row finishes ahead of column (ties half), 95% intervals:"]
        for a in self.order():
            cells = ", ".join(f"{self.bots[b]} {self._win(a, b)}" for b in self.order() if b != a)
            lines.append(f"  {self.bots[a]:<{width}}  {cells}")
        lines += ["", self.cycles_text()]
        return "\n".join(lines) + "\n"

    def to_markdown(self, heading: str = "##") -> str:
        """Markdown: a ratings table, the win-rate matrix and the cycles."""
        order = self.order()
        lines = [
            f"{self._games_line()}.",
            "",
            f"{heading} Ratings",
            "",
            "| Rank | Bot | Rating | 95% interval |",
            "|---:|---|---:|---|",
        ]
        for place, i in enumerate(order, start=1):
            lines.append(
                f"| {place} | `{self.bots[i]}` | {self.ratings[i]:+.0f} | "
                f"{self.rating_low[i]:+.0f} to {self.rating_high[i]:+.0f} |"
            )
        lines += [
            "",
            f"{heading} Win rates",
            "",
            "Row ahead of column, ties half, with the 95% interval; every cell is "
            f"{self._pair_games_text()}.",
            "",
            "| ahead of | " + " | ".join(f"`{self.bots[b]}`" for b in order) + " |",
            "|---|" + "---|" * len(order),
        ]
        for a in order:
            lines.append(
                f"| `{self.bots[a]}` | " + " | ".join(self._win(a, b) for b in order) + " |"
            )
        lines += ["", self.cycles_text()]
        return "\n".join(lines) + "\n"

    def _pair_games_text(self) -> str:
        counts = sorted(
            {c for a, row in enumerate(self.pair_games) for b, c in enumerate(row) if a != b}
        )
        if len(counts) == 1:
            return f"{counts[0]:,} games"
        return f"{counts[0]:,} to {counts[-1]:,} games"

    def to_html(self) -> str:
        """A self-contained HTML page: the tables, a ratings chart with interval bars and
        a win-rate heat map (plotly.js inlined; needs the ``report`` extra)."""
        from cardshop.ladder._html import page

        return page(self)


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x: object) -> bool:
    return (isinstance(x, int | float) and not isinstance(x, bool)) and math.isfinite(x)


def _text(x: object, key: str) -> str:
    if not isinstance(x, str) or len(x) > 1000:
        raise LadderError(f"{key}: a text of at most 1000 characters")
    return x


def _count(x: object, key: str, low: int, high: int) -> int:
    if not _is_int(x) or not low <= x <= high:  # type: ignore[operator]
        raise LadderError(f"{key}: a whole number {low}..{high}")
    assert isinstance(x, int)
    return x


def _rows(x: object, n: int, key: str) -> list[list[Any]]:
    if (
        not isinstance(x, list)
        or len(x) != n
        or not all(isinstance(r, list) and len(r) == n for r in x)
    ):
        raise LadderError(f"{key}: a {n} x {n} matrix")
    return x


def _numbers(x: object, n: int, key: str) -> list[float]:
    if not isinstance(x, list) or len(x) != n or not all(_is_number(v) for v in x):
        raise LadderError(f"{key}: a list of {n} numbers")
    return [float(v) for v in x]


def _matrix(x: object, n: int, key: str) -> Matrix:
    rows = _rows(x, n, key)
    out: Matrix = []
    for row in rows:
        if not all(v is None or (_is_number(v) and 0 <= v <= 1) for v in row):
            raise LadderError(f"{key}: shares 0..1 or null")
        out.append([None if v is None else float(v) for v in row])
    return out
