"""The search: optuna proposes knob values, racing plays them, the study is stored.

:func:`tune` runs a spec (:mod:`cardshop.tuning.spec`):

1. the base variant is played in full (``budget.batches`` batches of ``budget.batch``
   games per player count): its losses start the front, its measures are the
   "before" figures. Each objective's measure must apply to its games: that is
   checked on the first batch, before the study's storage is made;
2. optuna's sampler (TPE, or random) asks for knob values; the candidate variant is
   the base's data with those values, checked as any variant is. One that fails its
   own validation is rejected with the reason and never played;
3. the candidate is played batch by batch (every candidate on the same game seeds,
   which makes their differences less noisy) and, with racing, dropped as soon as
   the test of :mod:`cardshop.tuning.racing` says it cannot beat the front; otherwise
   its losses are told to optuna;
4. it stops at the budget (games, CPU seconds, trials), when every value of a finite
   space has been tried, or, with ``stop_when_met``, when a candidate meets every
   target (its 95% intervals inside the tolerances) on the search's games *and* on
   its confirmation;
5. the tuned candidate (the best of the front) is **confirmed**: played again as much
   on fresh seeds, never used by the search. The search chose it because its games
   looked best, so their figures flatter it (the winner's curse); whether the targets
   are met is judged on the confirmation's games alone.

Games run where :func:`cardshop.simulate` runs them (one process, a pool, an
executor or a Dask client; a family's kernel when it can play them). Measures that
need every decision (lead changes, drama, branching, ...) are played on the reference
engine with a :class:`cardshop.measures.Tracker`, in this process or on the executor.

The study is kept in optuna's SQLite storage when ``storage`` names a file: run the
same spec again and it goes on where it stopped. It keeps the base's batches (their
game summaries), every finished candidate (its losses; the best is played again
from its seeds when needed), the confirmations, and the games and CPU seconds spent.
A stop (Ctrl-C, or any interruption that is not an error) keeps all of that; a
candidate cut short is proposed again first when the study resumes. A proposal of
values already tried is told to optuna and is not a trial.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import importlib
import json
import math
import os
import resource
import time
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardshop import driver
from cardshop.bots import make_bot
from cardshop.core.chance import derive_seed
from cardshop.core.errors import (
    VariantError,
    format_path,
)
from cardshop.core.frontdoor import new_game
from cardshop.core.loader import variant_from_data
from cardshop.core.source import KeyPath
from cardshop.core.variant import VariantBase
from cardshop.measures import (
    IDENTICAL_REPLAYS,
    LUCK_MEASURES,
    GamesFileError,
    GameSummary,
    Measure,
    Tracker,
    luck,
    outcome_summaries,
)
from cardshop.simulation import bot_seed, game_seed, simulate
from cardshop.support.stopping import is_interruption
from cardshop.tuning.matrix import (
    MATRIX,
    Lineup,
    deviation,
    lineup_bots,
    matrix_data,
    matrix_measure,
    targeted,
)
from cardshop.tuning.racing import (
    Estimate,
    Goal,
    Race,
    estimate,
    loss,
    report_measures,
    z_of,
)
from cardshop.tuning.spec import KnobSpace, LoadedSpec, TuneError, TuneSpec, apply_knobs, load_spec

__all__ = ["Candidate", "Confirmation", "TuneInterrupted", "TuneResult", "tune"]

Z95 = z_of(0.95)
Played = tuple[list[GameSummary], dict[tuple[int, int, int], list[GameSummary]]]
"""A batch at one player count: the spec's line-up's games, and each win-rate matrix
line-up's, by (objective, i, j)."""
MAX_DUPLICATES = 50
"""Proposals in a row of values already tried before a finite space counts as searched."""


@dataclass
class Candidate:
    """One set of knob values and what playing it showed."""

    number: int
    """The optuna trial number (-1: the base variant)."""
    values: dict[str, Any]
    state: str
    """``complete``, ``dropped`` (by racing), ``rejected`` (invalid variant), ``stopped``."""
    games: int = 0
    batches: int = 0
    losses: list[float] | None = None
    reason: str = ""
    measured: list[float] | None = None
    """The losses at the point estimates of the games played, dropped or not."""
    summaries: dict[int, list[GameSummary]] = field(default_factory=dict, repr=False)
    lineups: dict[Lineup, list[GameSummary]] = field(default_factory=dict, repr=False)
    """The games of the win-rate matrices' line-ups: (objective, players, i, j)."""

    def forget(self) -> None:
        """Drop the games (a candidate off the front, or dropped, keeps its losses)."""
        self.summaries = {}
        self.lineups = {}

    def add(self, players: int, played: Played) -> int:
        """Keep a batch's games at one player count; the number of games."""
        main, lineups = played
        self.summaries.setdefault(players, []).extend(main)
        for (j, i, jj), games in lineups.items():
            self.lineups.setdefault((j, players, i, jj), []).extend(games)
        return len(main) + sum(len(g) for g in lineups.values())

    def matrix_games(
        self, objective: int, players: int
    ) -> dict[tuple[int, int], list[GameSummary]]:
        """The line-ups' games of matrix objective ``objective`` at ``players``, by (i, j)."""
        return {
            (i, jj): games
            for (j, n, i, jj), games in self.lineups.items()
            if j == objective and n == players
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "trial": self.number,
            "values": self.values,
            "state": self.state,
            "games": self.games,
            "batches": self.batches,
            "losses": None if self.losses is None else [round(x, 6) for x in self.losses],
            "measured": None if self.measured is None else [round(x, 6) for x in self.measured],
            "reason": self.reason or None,
        }


@dataclass
class Confirmation:
    """A candidate played again on fresh seeds (never used by the search), as many games
    as the search played it in full: what its figures are when nothing chose them."""

    number: int
    """The candidate's trial number (-1: the base)."""
    games: int
    met: list[bool]
    """For each objective, whether its 95% intervals (every player count) are inside the
    target's tolerance on these games (False for an objective without a target)."""
    measures: dict[int, dict[str, Measure]] = field(default_factory=dict)
    """The report's measures of these games, by player count, with 95% intervals."""
    matrices: dict[str, Any] = field(default_factory=dict)
    """The win-rate matrices measured on these games (:func:`matrices_data`)."""

    def meets(self, spec: TuneSpec) -> bool:
        """Whether every target is met (objectives with a direction have none)."""
        return all(m or o.target is None for m, o in zip(self.met, spec.objectives, strict=True))

    def to_dict(self) -> dict[str, Any]:
        return {
            "trial": self.number,
            "games": self.games,
            "met": list(self.met),
            "measures": {
                str(n): {k: _measure_data(m) for k, m in ms.items()}
                for n, ms in self.measures.items()
            },
            "matrices": self.matrices,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Confirmation:
        return cls(
            int(data["trial"]),
            int(data["games"]),
            [bool(x) for x in data["met"]],
            {
                int(n): {k: Measure(**m) for k, m in ms.items()}
                for n, ms in data["measures"].items()
            },
            dict(data.get("matrices") or {}),
        )


def _measure_data(m: Measure) -> dict[str, Any]:
    return {
        "id": m.id,
        "label": m.label,
        "value": m.value,
        "low": m.low,
        "high": m.high,
        "unit": m.unit,
        "meaning": m.meaning,
        "method": m.method,
    }


class TuneInterrupted(KeyboardInterrupt):
    """A study stopped (Ctrl-C, or any interruption that is not an error) before its
    base variant was played in full: no candidate yet, so no result. It says what was
    kept; the interruption is its ``__cause__``."""

    def __init__(self, batches: int, of: int, games: int, storage: str | None, study: str) -> None:
        super().__init__("the study was stopped while its base variant was played")
        self.batches = batches
        """Batches of the base played in full (every player count) and kept."""
        self.of = of
        """Batches of the base in all."""
        self.games = games
        """Games of the base kept (in the storage, or none without one)."""
        self.storage = storage
        self.study = study


@dataclass
class TuneResult:
    """A finished (or stopped) study: the best candidate, the front, every trial."""

    loaded: LoadedSpec
    base: Candidate
    best: Candidate
    front: list[Candidate]
    trials: list[Candidate]
    games: int
    cpu_seconds: float
    wall_seconds: float
    stopped: str
    study_name: str
    storage: str | None
    before: dict[int, dict[str, Measure]] = field(default_factory=dict)
    after: dict[int, dict[str, Measure]] = field(default_factory=dict)
    """The tuned candidate's measures on the search's games."""
    confirmation: Confirmation | None = None
    """The tuned candidate on fresh seeds (None: a stop came first)."""
    confirmations: list[Confirmation] = field(default_factory=list)
    """Every confirmation of the study, the tuned candidate's included (a failed one
    lets the search go on, with ``stop_when_met``)."""
    interruption: BaseException | None = field(default=None, repr=False)
    """What stopped the study when :attr:`stopped` is ``interrupted``."""

    @property
    def spec(self) -> TuneSpec:
        return self.loaded.spec

    @property
    def met(self) -> bool:
        """Whether the best candidate's 95% intervals *on its confirmation* (fresh seeds)
        are inside every target's tolerance (objectives with a direction have none:
        they never fail this). False when it was not confirmed (a stop came first)."""
        return self.confirmation is not None and self.confirmation.meets(self.spec)

    @property
    def search_met(self) -> bool:
        """The same judged on the search's own games, which chose the candidate (and
        so flatter it)."""
        return _meets(self.loaded, self.best, targets_only=True)

    @property
    def confirmed(self) -> dict[int, dict[str, Measure]]:
        """The tuned candidate's measures on its confirmation (empty: none)."""
        return {} if self.confirmation is None else self.confirmation.measures

    def tuned_values(self) -> dict[KeyPath, Any]:
        return {k.path: self.best.values[k.label] for k in self.loaded.knobs}


def _cpu() -> float:
    own = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + children.ru_utime + children.ru_stime


# ------------------------------------------------------------------ playing


_TRACE_VARIANTS: dict[str, VariantBase] = {}


def traced_games(
    variant_data: dict[str, Any],
    players: int,
    bots: Sequence[str],
    seed: int,
    start: int,
    stop: int,
    repeats: int = 1,
) -> list[GameSummary]:
    """Games ``start..stop`` on the reference engine, each decision counted (a worker task).

    Game ``i`` and its bots have the seeds :func:`cardshop.simulate` gives them (with
    ``repeats``, game ``i`` is replay ``i % repeats`` of deal ``i // repeats``).
    """
    key = json.dumps(variant_data, sort_keys=True)
    variant = _TRACE_VARIANTS.get(key)
    if variant is None:
        variant = _TRACE_VARIANTS.setdefault(key, variant_from_data(variant_data))
    names = [bots[s % len(bots)] for s in range(players)]
    out = []
    for i in range(start, stop):
        deal, replay = divmod(i, repeats)
        game = new_game(variant, players, game_seed(seed, deal))
        seats = [
            make_bot(names[s], variant, bot_seed(seed, deal, s, replay)) for s in range(players)
        ]
        tracker = Tracker(game, seats, [b.name for b in seats])
        while not game.is_over:
            driver.apply(game, driver.choose(game, tracker.players))
            tracker.after_step()
        summary = tracker.summary()
        out.append(dataclasses.replace(summary, replay=replay) if replay else summary)
    return out


@dataclass
class _Player:
    """Plays batches of a variant where the caller asked."""

    loaded: LoadedSpec
    workers: int | None
    executor: Executor | Any | None
    on_games: Callable[[int], None]
    pool: Executor | None = None
    counting: bool = True
    """Whether the games played now are new (not a replay of a stored candidate)."""

    def batch_seed(self, players: int, k: int, confirming: int | None = None) -> int:
        """The seed of batch ``k``: the search's, or, for the confirmation of candidate
        ``confirming``, one the search never uses."""
        if confirming is None:
            return derive_seed(self.loaded.spec.seed, "tune-batch", players, k)
        return derive_seed(self.loaded.spec.seed, "tune-confirm", confirming, players, k)

    def play(
        self, variant: VariantBase, players: int, k: int, confirming: int | None = None
    ) -> list[GameSummary]:
        spec = self.loaded.spec
        games = spec.budget.batch
        seed = self.batch_seed(players, k, confirming)
        if not self.loaded.needs_trace:
            sim = simulate(
                variant,
                players,
                games,
                bots=list(spec.bots),
                seed=seed,
                workers=self.workers,
                executor=self.executor,
                progress=self.on_games,
                repeats=spec.replays,
            )
            return outcome_summaries(sim)
        data = variant.to_data()
        bots = list(spec.bots)
        executor = self.executor or self._pool()
        if executor is None:
            out = []
            step = max(1, games // 20)
            for start in range(0, games, step):
                out += traced_games(
                    data, players, bots, seed, start, min(games, start + step), spec.replays
                )
                self.on_games(min(games, start + step) - start)
            return out
        from cardshop.simulation import as_executor

        pool = as_executor(executor)
        step = max(1, min(200, math.ceil(games / 8)))
        futures = [
            pool.submit(
                traced_games, data, players, bots, seed, s, min(games, s + step), spec.replays
            )
            for s in range(0, games, step)
        ]
        out = []
        for future in futures:
            part = future.result()
            self.on_games(len(part))
            out += part
        return out

    def play_all(
        self, variant: VariantBase, players: int, k: int, confirming: int | None = None
    ) -> Played:
        """Batch ``k`` at ``players``: the spec's bots' games, then every line-up of every
        win-rate matrix objective on the same seed (the same deals)."""
        return self.play(variant, players, k, confirming), self.play_lineups(
            variant, players, k, confirming
        )

    def play_lineups(
        self, variant: VariantBase, players: int, k: int, confirming: int | None = None
    ) -> dict[tuple[int, int, int], list[GameSummary]]:
        """Each matrix line-up's batch: one seat of ``bots[i]``, the others ``bots[j]``,
        the seats rotated (game ``g``: the lone seat is ``g % players``)."""
        spec = self.loaded.spec
        out: dict[tuple[int, int, int], list[GameSummary]] = {}
        for j, objective in enumerate(spec.objectives):
            if objective.measure != MATRIX or not isinstance(objective.target, list):
                continue
            bots = list(objective.bots or ())
            for i, jj in targeted(objective.target):
                sim = simulate(
                    variant,
                    players,
                    spec.budget.batch,
                    bots=lineup_bots(bots, i, jj, players),
                    seed=self.batch_seed(players, k, confirming),
                    workers=self.workers,
                    executor=self.executor,
                    progress=self.on_games,
                    rotate=True,
                )
                out[(j, i, jj)] = outcome_summaries(sim)
        return out

    def _pool(self) -> Executor | None:
        if self.workers == 1 or (self.workers is None and (os.cpu_count() or 1) == 1):
            return None
        if self.pool is None:
            from concurrent.futures import ProcessPoolExecutor

            self.pool = ProcessPoolExecutor(max_workers=self.workers or os.cpu_count() or 1)
        return self.pool

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)


# ------------------------------------------------------------------ judging


def _report(loaded: LoadedSpec, c: Candidate, n: int) -> dict[str, Measure]:
    """The report's measures of ``c``'s games at ``n`` players, the matrices' deviations
    among them."""
    s = loaded.spec
    out = report_measures([o.measure for o in s.objectives], c.summaries.get(n, []), seed=s.seed)
    for j, objective in enumerate(s.objectives):
        if objective.measure == MATRIX and isinstance(objective.target, list):
            found = matrix_measure(c.matrix_games(j, n), objective.target)
            if found is not None:
                out[MATRIX if MATRIX not in out else f"{MATRIX}:{j}"] = found
    return out


def matrices_data(loaded: LoadedSpec, c: Candidate) -> dict[str, Any]:
    """Every win-rate matrix objective's target and measured matrix on ``c``'s games:
    ``{"<objective>": {"<players>": matrix_data(...)}}`` (empty: no such objective)."""
    out: dict[str, Any] = {}
    for j, objective in enumerate(loaded.spec.objectives):
        if objective.measure == MATRIX and isinstance(objective.target, list):
            out[str(j)] = {
                str(n): matrix_data(
                    c.matrix_games(j, n), list(objective.bots or ()), objective.target
                )
                for n in loaded.players
            }
    return out


def _objectives(loaded: LoadedSpec) -> list[Goal]:
    return [(o.goal_target, o.direction, float(o.tolerance or 0)) for o in loaded.spec.objectives]


def _estimates(loaded: LoadedSpec, c: Candidate, z: float) -> dict[tuple[int, int], Estimate]:
    out = {}
    for j, objective in enumerate(loaded.spec.objectives):
        for n in loaded.players:
            if objective.measure == MATRIX and isinstance(objective.target, list):
                e = deviation(c.matrix_games(j, n), objective.target, z)
            else:
                e = estimate(objective.measure, c.summaries.get(n, []), z, seed=loaded.spec.seed)
            if e is not None:
                out[(j, n)] = e
    return out


def _losses(loaded: LoadedSpec, c: Candidate) -> list[float]:
    """Each objective's loss at the point estimates, its worst player count."""
    est = _estimates(loaded, c, Z95)
    return [
        max(loss(est[(j, n)].value, goal) for n in loaded.players if (j, n) in est)
        for j, goal in enumerate(_objectives(loaded))
    ]


def _met(loaded: LoadedSpec, c: Candidate) -> list[bool]:
    """For each objective, whether ``c``'s 95% intervals (every player count) are inside
    the target's tolerance (False for an objective without one). A candidate of an
    earlier run, whose games are not at hand: whether its measured loss is 0."""
    objectives = loaded.spec.objectives
    if not c.summaries:
        return [
            o.tolerance is not None and c.losses is not None and c.losses[j] == 0
            for j, o in enumerate(objectives)
        ]
    est = _estimates(loaded, c, Z95)
    out = []
    for j, objective in enumerate(objectives):
        if objective.target is None or objective.tolerance is None:
            out.append(False)
            continue
        t, tol = float(objective.goal_target or 0.0), float(objective.tolerance)
        inside = True
        for n in loaded.players:
            e = est.get((j, n))
            if e is None or e.low is None or e.high is None or e.low < t - tol or e.high > t + tol:
                inside = False
        out.append(inside)
    return out


def _meets(loaded: LoadedSpec, c: Candidate, *, targets_only: bool = False) -> bool:
    """Whether ``c``'s 95% intervals are inside every target's tolerance (and, unless
    ``targets_only``, every objective is such a target)."""
    if not c.summaries:
        return False
    met = _met(loaded, c)
    objectives = loaded.spec.objectives
    return all(
        m or (targets_only and o.target is None) for m, o in zip(met, objectives, strict=True)
    )


def _pareto(candidates: Sequence[Candidate]) -> list[Candidate]:
    done = [c for c in candidates if c.losses is not None]
    front = []
    for c in done:
        assert c.losses is not None
        if not any(_dominates(o, c) for o in done if o is not c):
            front.append(c)
    return front


def _dominates(o: Candidate, c: Candidate) -> bool:
    """Whether ``o`` is at least as good as ``c`` everywhere and better somewhere (equal
    candidates both stay on the front)."""
    assert o.losses is not None
    assert c.losses is not None
    pairs = list(zip(o.losses, c.losses, strict=True))
    return all(a <= b for a, b in pairs) and any(a < b for a, b in pairs)


def _choose(
    loaded: LoadedSpec,
    front: Sequence[Candidate],
    base: Candidate,
    confirmations: dict[int, Confirmation] | None = None,
) -> Candidate:
    """The tuned candidate: of the front, the one whose 95% intervals are inside most
    targets' tolerances (on its confirmation, once it has one), then the one nearest
    the targets (and best in the directions), each objective in units of its tolerance
    (or of the base's value), summed; then the earliest."""
    confirmed = confirmations or {}
    goals = _objectives(loaded)
    scales = []
    for (target, _, tolerance), b in zip(goals, _raw(loaded, base), strict=True):
        scale = tolerance if target is not None and tolerance > 0 else abs(b)
        scales.append(scale if scale > 0 else 1.0)

    def key(c: Candidate) -> tuple[int, float, int]:
        near = sum(x / s for x, s in zip(_raw(loaded, c), scales, strict=True))
        check = confirmed.get(c.number)
        return (-sum(_met(loaded, c) if check is None else check.met), near, c.number)

    return min(front, key=key)


def _raw(loaded: LoadedSpec, c: Candidate) -> list[float]:
    """Each objective's distance to its target (no tolerance), or its signed value."""
    if not c.summaries:
        return list(c.losses or [])
    est = _estimates(loaded, c, Z95)
    return [
        max(loss(est[(j, n)].value, (t, d, 0.0)) for n in loaded.players if (j, n) in est)
        for j, (t, d, _) in enumerate(_objectives(loaded))
    ]


# ------------------------------------------------------------------- search


def _space_size(knobs: Sequence[KnobSpace]) -> float:
    size = 1.0
    for k in knobs:
        size *= k.size()
    return size


def _inside(knob: KnobSpace, value: Any) -> bool:
    """Whether the search space of ``knob`` holds ``value``."""
    if knob.kind == "choice":
        return any(value == c and type(value) is type(c) for c in knob.choices)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if not knob.low <= value <= knob.high:
        return False
    step = knob.step or (1 if knob.kind == "int" else None)
    return step is None or abs((value - knob.low) / step - round((value - knob.low) / step)) < 1e-9


def _suggest(trial: Any, knob: KnobSpace) -> Any:
    if knob.kind == "choice":
        return trial.suggest_categorical(knob.label, list(knob.choices))
    if knob.kind == "int":
        return trial.suggest_int(
            knob.label, int(knob.low), int(knob.high), step=int(knob.step or 1), log=knob.log
        )
    return trial.suggest_float(knob.label, knob.low, knob.high, step=knob.step, log=knob.log)


def study_name(loaded: LoadedSpec) -> str:
    """The study's name in the storage: the base's name and a hash of the spec and the
    base's content (another spec, or a changed base, starts another study)."""
    spec = loaded.spec
    # Without replays the spec's data is as before they existed: its studies resume.
    data = spec.model_dump(mode="json", exclude={"replays"} if spec.replays == 1 else None)
    text = json.dumps([data, loaded.base.content_hash], sort_keys=True)
    return f"{loaded.base.name}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def _import_optuna() -> Any:
    try:
        # By name, so that type checking (and the compiled build, which type-checks
        # what cardshop imports) needs no optuna: it is an optional extra.
        optuna = importlib.import_module("optuna")
    except ImportError:
        raise TuneError(
            'tuning needs optuna: python -m pip install ".[tune]" in a clone of cardshop',
            source="cardshop tune",
        ) from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


_BLOCK = "base:{players}:{batch}"
"""The study's user attribute holding one batch of the base at one player count."""
_LINEUP = "base:{players}:{batch}:matrix:{objective}:{i}:{j}"
"""The same for the games of one line-up of a win-rate matrix objective."""


def _pack(summaries: Sequence[GameSummary]) -> str:
    text = json.dumps([s.to_dict() for s in summaries], separators=(",", ":"))
    return base64.b64encode(zlib.compress(text.encode(), 6)).decode("ascii")


def _unpack(text: Any, where: str) -> list[GameSummary] | None:
    """The summaries of a stored batch (None, to play it again, if they cannot be read)."""
    try:
        data = json.loads(zlib.decompress(base64.b64decode(str(text), validate=True)))
        return [GameSummary.from_dict(d, where) for d in data]
    except (ValueError, TypeError, zlib.error, GamesFileError):
        return None


def _listed(t: Any, state: Any) -> bool:
    """Whether a stored optuna trial is a trial of the study: not a proposal of values
    already tried (told to optuna, never played), not one waiting to be asked, not a
    proposal stopped before any game."""
    if t.state in (state.WAITING, state.RUNNING) or "duplicate_of" in t.user_attrs:
        return False
    if t.state == state.FAIL and "rejected" not in t.user_attrs:
        return int(t.user_attrs.get("games", 0)) > 0
    return True


def tune(
    spec: str | Path | TuneSpec | dict[str, Any],
    *,
    storage: str | Path | None = "auto",
    workers: int | None = None,
    executor: Executor | Any | None = None,
    racing: bool | None = None,
    on_games: Callable[[int], None] | None = None,
    on_trial: Callable[[Candidate], None] | None = None,
    on_confirmation: Callable[[Candidate, Confirmation], None] | None = None,
) -> TuneResult:
    """Tune a variant by a spec (a YAML file, a :class:`TuneSpec` or its data).

    ``storage``: an SQLite file for the study (``"auto"``: ``<spec>.tune.db`` beside a
    spec file, in memory otherwise; ``None``: in memory). The same spec run again with
    the same storage resumes the study. The file is made once the base's first batch
    has shown that every objective's measure applies to its games (a spec whose
    measure does not apply raises :class:`TuneError` and leaves no file).
    ``workers``/``executor`` are :func:`cardshop.simulate`'s. ``racing`` overrides the
    spec's. ``on_games(n)`` is called with the games just played, ``on_trial(candidate)``
    after each candidate, ``on_confirmation(candidate, confirmation)`` after each
    confirmation on fresh seeds. Ctrl-C (``KeyboardInterrupt``, or any interruption that
    is not an error) during the search stops it with everything finished kept; the
    result then says ``stopped == "interrupted"``. Before the base is played in full it
    raises :class:`TuneInterrupted`, having kept the base's finished batches. Any error
    raised while a stop is requested (:mod:`cardshop.support.stopping`) is such an
    interruption too: a library the stop lands in may wrap it in an error of its own.
    """
    optuna = _import_optuna()
    loaded = load_spec(spec)
    if racing is not None:
        loaded = LoadedSpec(
            loaded.spec.model_copy(update={"racing": racing}),
            loaded.source,
            loaded.folder,
            loaded.base,
            loaded.base_ref,
            loaded.knobs,
            loaded.players,
            loaded.sourced,
        )
    s = loaded.spec
    url: str | None = None
    if storage == "auto":
        source = Path(loaded.source)
        stem = source.name.removesuffix(source.suffix).removesuffix(".tune")
        storage = (
            source.with_name(f"{stem}.tune.db")
            if loaded.sourced is not None
            and loaded.folder is not None
            and loaded.source != "<spec>"
            else None
        )
    if storage is not None:
        url = f"sqlite:///{Path(storage).resolve()}"
    name = study_name(loaded)
    start_wall = time.monotonic()
    start_cpu = _cpu()
    new_games = [0]
    """Games played in this run for the first time (replays of stored work are not)."""

    player = _Player(loaded, workers, executor, lambda n: None)

    def count(n: int) -> None:
        if player.counting:
            new_games[0] += n
        if on_games is not None:
            on_games(n)

    player.on_games = count
    objectives = _objectives(loaded)
    race = Race(s.alpha, s.budget.batches, len(objectives) * len(loaded.players))
    state = optuna.trial.TrialState

    def sampler() -> Any:
        if s.sampler == "random":
            return optuna.samplers.RandomSampler(seed=s.seed)
        return optuna.samplers.TPESampler(seed=s.seed)

    def open_study(create: bool) -> Any:
        if create:
            return optuna.create_study(
                study_name=name,
                storage=url,
                directions=["minimize"] * len(objectives),
                sampler=sampler(),
                load_if_exists=True,
            )
        try:
            return optuna.load_study(study_name=name, storage=url, sampler=sampler())
        except KeyError:
            return None

    # An existing file may hold this study: its base batches are not played again.
    # A new one is made only once the measures are known to apply.
    study = open_study(False) if url is not None and Path(str(storage)).is_file() else None
    stored = dict(study.user_attrs) if study is not None else {}
    base_values = {k.label: k.base_value for k in loaded.knobs}
    base = Candidate(-1, base_values, "complete")
    unsaved: list[tuple[int, int, Played]] = []
    kept_games = [0]

    def keep(n: int, k: int, block: Played) -> None:
        """Store one batch of the base, once the study exists (and has a file)."""
        if study is None:
            unsaved.append((n, k, block))
        elif url is not None:
            main, lineups = block
            study.set_user_attr(_BLOCK.format(players=n, batch=k), _pack(main))
            for (j, i, jj), games in lineups.items():
                key = _LINEUP.format(players=n, batch=k, objective=j, i=i, j=jj)
                study.set_user_attr(key, _pack(games))
            kept_games[0] += len(main) + sum(len(g) for g in lineups.values())

    def stored_block(n: int, k: int) -> Played | None:
        """Batch ``k`` of the base at ``n`` players as stored (None: play it)."""
        key = _BLOCK.format(players=n, batch=k)
        main = _unpack(stored[key], key) if key in stored else None
        if main is None or len(main) != s.budget.batch:
            return None
        lineups: dict[tuple[int, int, int], list[GameSummary]] = {}
        for j, objective in enumerate(s.objectives):
            if objective.measure != MATRIX or not isinstance(objective.target, list):
                continue
            for i, jj in targeted(objective.target):
                key = _LINEUP.format(players=n, batch=k, objective=j, i=i, j=jj)
                games = _unpack(stored[key], key) if key in stored else None
                if games is None or len(games) != s.budget.batch:
                    return None
                lineups[(j, i, jj)] = games
        return main, lineups

    def check(counts: Sequence[int]) -> None:
        est = _estimates(loaded, base, Z95)
        for j, objective in enumerate(s.objectives):
            missing = [n for n in counts if (j, n) not in est]
            if missing and objective.measure in LUCK_MEASURES:
                taken = {n: luck(base.summaries.get(n, [])).get(objective.measure) for n in missing}
                alike = [n for n, m in taken.items() if m and m.meaning == IDENTICAL_REPLAYS]
                if alike:
                    raise loaded.error(
                        f"the measure {objective.measure!r} cannot be taken: every replay of "
                        f"every deal of {loaded.base.name} with "
                        f"{', '.join(map(str, alike))} players had the same outcome (the bots "
                        f"{', '.join(s.bots)} choose alike on the same deal): luck cannot be "
                        "separated with deterministic bots; use bots that choose at random "
                        "(random, ismcts)",
                        ("objectives", j, "measure"),
                    )
            if missing:
                raise loaded.error(
                    f"the measure {objective.measure!r} does not apply to the games of "
                    f"{loaded.base.name} with {', '.join(map(str, missing))} players "
                    "(docs/measures.md says when each measure is absent)",
                    ("objectives", j, "measure"),
                )

    def begin() -> Any:
        """The study, made now if it was not there: the first batch passed its check."""
        nonlocal study
        if study is None:
            study = open_study(True)
            for block in unsaved:
                keep(*block)
            unsaved.clear()
        return study

    done = 0
    try:
        for k in range(s.budget.batches):
            for n in loaded.players:
                block = stored_block(n, k)
                if block is not None:
                    kept_games[0] += len(block[0]) + sum(len(g) for g in block[1].values())
                else:
                    block = player.play_all(loaded.base, n, k)
                    keep(n, k, block)
                base.add(n, block)
            done = k + 1
            if k == 0:
                check(loaded.players)
                begin()
    except BaseException as exc:
        if not is_interruption(exc):
            player.close()
            raise
        player.close()
        if done == 0 and unsaved:  # the first batch of some counts: keep what applies
            counts = sorted({n for n, _, _ in unsaved})
            for n in [n for n in loaded.players if n not in counts]:
                base.summaries.pop(n, None)
                for key in [key for key in base.lineups if key[1] == n]:
                    base.lineups.pop(key)
            check(counts)
            begin()
        if study is not None:
            study.set_user_attr(
                "cpu_seconds", float(stored.get("cpu_seconds", 0.0)) + _cpu() - start_cpu
            )
        raise TuneInterrupted(
            done,
            s.budget.batches,
            kept_games[0] if url is not None else 0,
            None if url is None else str(storage),
            name,
        ) from exc
    study = begin()
    base.batches = s.budget.batches
    base.games = sum(len(v) for v in base.summaries.values()) + sum(
        len(v) for v in base.lineups.values()
    )
    check(loaded.players)
    base.losses = base.measured = _losses(loaded, base)

    earlier = [t for t in study.get_trials(deepcopy=False) if _listed(t, state)]
    for old in study.get_trials(deepcopy=False, states=(state.RUNNING,)):
        study._storage.set_trial_state_values(old._trial_id, state=state.FAIL)
    confirmations: dict[int, Confirmation] = {}
    for key, value in stored.items():
        if key.startswith("confirm:") and isinstance(value, dict):
            with contextlib.suppress(KeyError, TypeError, ValueError):
                found = Confirmation.from_dict(value)
                confirmations[found.number] = found
    # Every game the study has played: the base's, the listed trials', the confirmations'.
    games_before = (
        base.games
        + sum(int(t.user_attrs.get("games", 0)) for t in earlier)
        + sum(c.games for c in confirmations.values())
    )
    base_new = new_games[0]
    cpu_before = float(stored.get("cpu_seconds", 0.0))

    def used_games() -> int:
        return games_before + new_games[0] - base_new

    def used_cpu() -> float:
        return cpu_before + _cpu() - start_cpu

    def out_of_budget() -> str:
        if used_games() >= s.budget.games:
            return "games"
        if s.budget.cpu_seconds is not None and used_cpu() >= s.budget.cpu_seconds:
            return "cpu_seconds"
        return ""

    def confirm(c: Candidate) -> Confirmation:
        """``c`` played again on fresh seeds (or its stored confirmation)."""
        found = confirmations.get(c.number)
        if found is not None:
            return found
        variant = _variant_of(loaded, c)
        fresh = Candidate(c.number, c.values, "complete")
        played = 0
        for k in range(s.budget.batches):
            for n in loaded.players:
                played += fresh.add(n, player.play_all(variant, n, k, c.number))
        found = Confirmation(
            c.number,
            played,
            _met(loaded, fresh),
            {n: _report(loaded, fresh, n) for n in loaded.players},
            matrices_data(loaded, fresh),
        )
        confirmations[c.number] = found
        study.set_user_attr(f"confirm:{c.number}", found.to_dict())
        if on_confirmation is not None:
            on_confirmation(c, found)
        return found

    trials: list[Candidate] = [_from_trial(t, loaded, state) for t in earlier]
    stopped = ""
    interruption: BaseException | None = None
    try:
        kept: dict[int, Candidate] = {}
        # The base's own values, if the space holds them, are not played again.
        inside = all(_inside(k, k.base_value) for k in loaded.knobs)
        tried: dict[tuple[Any, ...], Candidate] = {c_key(base, loaded): base} if inside else {}
        tried.update({c_key(c, loaded): c for c in trials if c.state != "stopped"})
        duplicates = 0
        size = _space_size(loaded.knobs)
        while not stopped:
            front = _pareto([base, *trials])
            best = _choose(loaded, front, base, confirmations)
            if sum(c.state != "stopped" for c in trials) >= s.budget.trials:
                stopped = "trials"
            elif out_of_budget():
                stopped = out_of_budget()
            elif (
                s.stop_when_met
                and _meets(loaded, _replayed(loaded, player, best))
                and confirm(best).meets(s)
            ):
                stopped = "met"
            elif len(tried) >= size or duplicates >= MAX_DUPLICATES:
                stopped = "searched"
            if stopped:
                break
            trial = study.ask()
            values = {k.label: _suggest(trial, k) for k in loaded.knobs}
            seen = tried.get(tuple(values[k.label] for k in loaded.knobs))
            if seen is not None:
                duplicates += 1
                trial.set_user_attr("duplicate_of", seen.number)
                if seen.losses is not None and seen.state == "complete":
                    study.tell(trial, seen.losses)
                else:
                    study.tell(trial, state=state.PRUNED if seen.state == "dropped" else state.FAIL)
                continue
            duplicates = 0
            c = Candidate(trial.number, values, "complete")
            tried[tuple(values.values())] = c
            trials.append(c)
            knob_values = {k.path: values[k.label] for k in loaded.knobs}
            try:
                variant = variant_from_data(
                    apply_knobs(loaded.base.to_data(all_keys=True), knob_values),
                    source=f"<trial {trial.number}>",
                )
            except VariantError as exc:
                c.state, c.reason = "rejected", exc.reason
                if exc.path:
                    c.reason = f"{format_path(exc.path)}: {exc.reason}"
                trial.set_user_attr("rejected", c.reason)
                study.tell(trial, state=state.FAIL)
                if on_trial is not None:
                    on_trial(c)
                continue
            front_losses = [f.losses for f in front if f.losses is not None]
            try:
                for k in range(s.budget.batches):
                    if out_of_budget():
                        c.state, c.reason = "stopped", f"the budget ({out_of_budget()}) ran out"
                        break
                    for n in loaded.players:
                        c.games += c.add(n, player.play_all(variant, n, k))
                    c.batches = k + 1
                    if (
                        s.racing
                        and k < s.budget.batches - 1
                        and race.drop(
                            _estimates(loaded, c, race.z), objectives, loaded.players, front_losses
                        )
                    ):
                        c.state = "dropped"
                        c.reason = (
                            f"dropped by racing after {c.batches} of {s.budget.batches} batches"
                        )
                        break
            except BaseException as exc:
                if not is_interruption(exc):
                    raise
                # Played again first when the study resumes.
                c.state, c.reason = "stopped", "interrupted"
                trial.set_user_attr("games", c.games)
                study.tell(trial, state=state.FAIL)
                study.enqueue_trial(values, user_attrs={"resumes": trial.number})
                if c.games == 0:
                    trials.remove(c)
                raise
            trial.set_user_attr("games", c.games)
            trial.set_user_attr("batches", c.batches)
            if c.summaries:
                c.measured = _losses(loaded, c)
                trial.set_user_attr("measured", c.measured)
            if c.state == "complete":
                c.losses = _losses(loaded, c)
                study.tell(trial, c.losses)
                kept[c.number] = c
            else:
                c.forget()
                study.tell(trial, state=state.PRUNED if c.state == "dropped" else state.FAIL)
                if c.state == "stopped":
                    stopped = out_of_budget() or "games"
            front = _pareto([base, *trials])
            for number in [x for x in kept if x not in {f.number for f in front}]:
                kept.pop(number).forget()
            if on_trial is not None:
                on_trial(c)
    except BaseException as exc:
        if not is_interruption(exc):
            player.close()
            raise
        stopped, interruption = "interrupted", exc
    confirmation: Confirmation | None = None
    try:
        front = _pareto([base, *trials])
        best = _choose(loaded, front, base, confirmations)
        _replayed(loaded, player, best)
        confirmation = confirmations.get(best.number)
        if confirmation is None and interruption is None:
            confirmation = confirm(best)
    except BaseException as exc:
        if not is_interruption(exc):
            raise
        stopped, interruption = "interrupted", interruption or exc
    finally:
        player.close()
        study.set_user_attr("cpu_seconds", used_cpu())
    result = TuneResult(
        loaded=loaded,
        base=base,
        best=best,
        front=front,
        trials=trials,
        games=used_games(),
        cpu_seconds=used_cpu(),
        wall_seconds=time.monotonic() - start_wall,
        stopped=stopped,
        study_name=name,
        storage=None if storage is None else str(storage),
        confirmation=confirmation,
        confirmations=list(confirmations.values()),
        interruption=interruption,
    )
    for n in loaded.players:
        result.before[n] = _report(loaded, base, n)
        result.after[n] = _report(loaded, best, n)
    return result


def _replayed(loaded: LoadedSpec, player: _Player, c: Candidate) -> Candidate:
    """``c`` with its games: a complete candidate of an earlier run of the study is
    played again (the same seeds give the same games)."""
    if c.summaries or c.losses is None:
        return c
    variant = _variant_of(loaded, c)
    player.counting = False  # played before: counted then
    try:
        for k in range(loaded.spec.budget.batches):
            for n in loaded.players:
                c.add(n, player.play_all(variant, n, k))
    finally:
        player.counting = True
    return c


def c_key(c: Candidate, loaded: LoadedSpec) -> tuple[Any, ...]:
    return tuple(c.values.get(k.label) for k in loaded.knobs)


def _variant_of(loaded: LoadedSpec, c: Candidate) -> VariantBase:
    if c.number < 0:
        return loaded.base
    values = {k.path: c.values[k.label] for k in loaded.knobs}
    return variant_from_data(apply_knobs(loaded.base.to_data(all_keys=True), values))


def _from_trial(t: Any, loaded: LoadedSpec, state: Any) -> Candidate:
    """A candidate of an earlier run, from the storage (its games are not kept)."""
    values = {k.label: t.params.get(k.label) for k in loaded.knobs}
    kind = {
        state.COMPLETE: "complete",
        state.PRUNED: "dropped",
    }.get(t.state, "rejected" if "rejected" in t.user_attrs else "stopped")
    return Candidate(
        t.number,
        values,
        kind,
        games=int(t.user_attrs.get("games", 0)),
        batches=int(t.user_attrs.get("batches", 0)),
        losses=list(t.values) if t.state == state.COMPLETE else None,
        reason=str(t.user_attrs.get("rejected", "")),
        measured=t.user_attrs.get("measured"),
    )
