"""The search: optuna proposes knob values, racing plays them, the study is stored.

:func:`tune` runs a spec (:mod:`cardshop.tuning.spec`):

1. the base variant is played in full (``budget.batches`` batches of ``budget.batch``
   games per player count): its losses start the front, its measures are the
   "before" figures;
2. optuna's sampler (TPE, or random) asks for knob values; the candidate variant is
   the base's data with those values, checked as any variant is. One that fails its
   own validation is rejected with the reason and never played;
3. the candidate is played batch by batch (every candidate on the same game seeds,
   which makes their differences less noisy) and, with racing, dropped as soon as
   the test of :mod:`cardshop.tuning.racing` says it cannot beat the front; otherwise
   its losses are told to optuna;
4. it stops at the budget (games, CPU seconds, trials), when every value of a finite
   space has been tried, or, with ``stop_when_met``, when a candidate's 95% intervals
   are inside every target's tolerance.

Games run where :func:`cardshop.simulate` runs them (one process, a pool, an
executor or a Dask client; a family's kernel when it can play them). Measures that
need every decision (lead changes, drama, branching, ...) are played on the reference
engine with a :class:`cardshop.measures.Tracker`, in this process or on the executor.

The study is kept in optuna's SQLite storage when ``storage`` names a file: run the
same spec again and it goes on where it stopped (every finished candidate is kept,
Ctrl-C included).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import os
import resource
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardshop import driver
from cardshop.bots import make_bot
from cardshop.core.chance import derive_seed
from cardshop.core.errors import VariantError
from cardshop.core.frontdoor import new_game
from cardshop.core.loader import variant_from_data
from cardshop.core.source import KeyPath
from cardshop.core.variant import VariantBase
from cardshop.measures import GameSummary, Measure, Tracker
from cardshop.simulation import bot_seed, game_seed, simulate
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

__all__ = ["Candidate", "TuneResult", "tune"]

Z95 = z_of(0.95)
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

    @property
    def spec(self) -> TuneSpec:
        return self.loaded.spec

    @property
    def met(self) -> bool:
        """Whether the best candidate's 95% intervals are inside every target's tolerance
        (objectives with a direction have none: they never fail this)."""
        return _meets(self.loaded, self.best, targets_only=True)

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
) -> list[GameSummary]:
    """Games ``start..stop`` on the reference engine, each decision counted (a worker task).

    Game ``i`` and its bots have the seeds :func:`cardshop.simulate` gives them.
    """
    key = json.dumps(variant_data, sort_keys=True)
    variant = _TRACE_VARIANTS.get(key)
    if variant is None:
        variant = _TRACE_VARIANTS.setdefault(key, variant_from_data(variant_data))
    names = [bots[s % len(bots)] for s in range(players)]
    out = []
    for i in range(start, stop):
        game = new_game(variant, players, game_seed(seed, i))
        seats = [make_bot(names[s], variant, bot_seed(seed, i, s)) for s in range(players)]
        tracker = Tracker(game, seats, [b.name for b in seats])
        while not game.is_over:
            driver.apply(game, driver.choose(game, tracker.players))
            tracker.after_step()
        out.append(tracker.summary())
    return out


def _outcome_summaries(variant: VariantBase, players: int, sim: Any) -> list[GameSummary]:
    """Game summaries from simulate's outcomes (no decisions counted, no round scores)."""
    return [
        GameSummary(
            players=players,
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
        )
        for o in sim
    ]


@dataclass
class _Player:
    """Plays batches of a variant where the caller asked."""

    loaded: LoadedSpec
    workers: int | None
    executor: Executor | Any | None
    on_games: Callable[[int], None]
    pool: Executor | None = None

    def batch_seed(self, players: int, k: int) -> int:
        return derive_seed(self.loaded.spec.seed, "tune-batch", players, k)

    def play(self, variant: VariantBase, players: int, k: int) -> list[GameSummary]:
        spec = self.loaded.spec
        games = spec.budget.batch
        seed = self.batch_seed(players, k)
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
            )
            return _outcome_summaries(variant, players, sim)
        data = variant.to_data()
        bots = list(spec.bots)
        executor = self.executor or self._pool()
        if executor is None:
            out = []
            step = max(1, games // 20)
            for start in range(0, games, step):
                out += traced_games(data, players, bots, seed, start, min(games, start + step))
                self.on_games(min(games, start + step) - start)
            return out
        from cardshop.simulation import _as_executor

        pool = _as_executor(executor)
        step = max(1, min(200, math.ceil(games / 8)))
        futures = [
            pool.submit(traced_games, data, players, bots, seed, s, min(games, s + step))
            for s in range(0, games, step)
        ]
        out = []
        for future in futures:
            part = future.result()
            self.on_games(len(part))
            out += part
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


def _objectives(loaded: LoadedSpec) -> list[Goal]:
    return [
        (None if o.target is None else float(o.target), o.direction, float(o.tolerance or 0))
        for o in loaded.spec.objectives
    ]


def _estimates(loaded: LoadedSpec, c: Candidate, z: float) -> dict[tuple[int, int], Estimate]:
    out = {}
    for j, objective in enumerate(loaded.spec.objectives):
        for n in loaded.players:
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
        t, tol = float(objective.target), float(objective.tolerance)
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


def _choose(loaded: LoadedSpec, front: Sequence[Candidate], base: Candidate) -> Candidate:
    """The tuned candidate: of the front, the one whose 95% intervals are inside most
    targets' tolerances, then the one nearest the targets (and best in the directions),
    each objective in units of its tolerance (or of the base's value), summed; then the
    earliest."""
    goals = _objectives(loaded)
    scales = []
    for (target, _, tolerance), b in zip(goals, _raw(loaded, base), strict=True):
        scale = tolerance if target is not None and tolerance > 0 else abs(b)
        scales.append(scale if scale > 0 else 1.0)

    def key(c: Candidate) -> tuple[int, float, int]:
        near = sum(x / s for x, s in zip(_raw(loaded, c), scales, strict=True))
        return (-sum(_met(loaded, c)), near, c.number)

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
    text = json.dumps(
        [loaded.spec.model_dump(mode="json"), loaded.base.content_hash], sort_keys=True
    )
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


def tune(
    spec: str | Path | TuneSpec | dict[str, Any],
    *,
    storage: str | Path | None = "auto",
    workers: int | None = None,
    executor: Executor | Any | None = None,
    racing: bool | None = None,
    on_games: Callable[[int], None] | None = None,
    on_trial: Callable[[Candidate], None] | None = None,
) -> TuneResult:
    """Tune a variant by a spec (a YAML file, a :class:`TuneSpec` or its data).

    ``storage``: an SQLite file for the study (``"auto"``: ``<spec>.tune.db`` beside a
    spec file, in memory otherwise; ``None``: in memory). The same spec run again with
    the same storage resumes the study. ``workers``/``executor`` are
    :func:`cardshop.simulate`'s. ``racing`` overrides the spec's. ``on_games(n)`` is
    called with the games just played, ``on_trial(candidate)`` after each candidate.
    Ctrl-C (``KeyboardInterrupt``) during a candidate stops the study with every
    finished candidate kept; the result then says ``stopped == "interrupted"``.
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
    played = [0]

    def count(n: int) -> None:
        played[0] += n
        if on_games is not None:
            on_games(n)

    player = _Player(loaded, workers, executor, count)
    objectives = _objectives(loaded)
    race = Race(s.alpha, s.budget.batches, len(objectives) * len(loaded.players))
    sampler = (
        optuna.samplers.RandomSampler(seed=s.seed)
        if s.sampler == "random"
        else optuna.samplers.TPESampler(seed=s.seed)
    )
    study = optuna.create_study(
        study_name=name,
        storage=url,
        directions=["minimize"] * len(objectives),
        sampler=sampler,
        load_if_exists=True,
    )
    state = optuna.trial.TrialState
    for old in study.get_trials(deepcopy=False, states=(state.RUNNING,)):
        study._storage.set_trial_state_values(old._trial_id, state=state.FAIL)
    earlier = [t for t in study.get_trials(deepcopy=False) if t.state != state.RUNNING]
    games_before = int(study.user_attrs.get("base_games", 0)) + sum(
        int(t.user_attrs.get("games", 0)) for t in earlier
    )
    cpu_before = float(study.user_attrs.get("cpu_seconds", 0.0))

    def used_games() -> int:
        return games_before + played[0] - (base_games if counted_base else 0)

    def used_cpu() -> float:
        return cpu_before + _cpu() - start_cpu

    def out_of_budget() -> str:
        if used_games() >= s.budget.games:
            return "games"
        if s.budget.cpu_seconds is not None and used_cpu() >= s.budget.cpu_seconds:
            return "cpu_seconds"
        return ""

    counted_base = "base_games" in study.user_attrs
    base_games = 0
    base_values = {k.label: k.base_value for k in loaded.knobs}
    base = Candidate(-1, base_values, "complete")
    trials: list[Candidate] = []
    stopped = ""
    try:
        for k in range(s.budget.batches):
            for n in loaded.players:
                base.summaries.setdefault(n, []).extend(player.play(loaded.base, n, k))
        base.batches = s.budget.batches
        base.games = sum(len(v) for v in base.summaries.values())
        base_games = base.games
        est = _estimates(loaded, base, Z95)
        for j, objective in enumerate(s.objectives):
            missing = [n for n in loaded.players if (j, n) not in est]
            if missing:
                raise loaded.error(
                    f"the measure {objective.measure!r} does not apply to the games of "
                    f"{loaded.base.name} with {', '.join(map(str, missing))} players "
                    "(docs/measures.md says when each measure is absent)",
                    ("objectives", j, "measure"),
                )
        base.losses = base.measured = _losses(loaded, base)
        if not counted_base:
            study.set_user_attr("base_games", base_games)
        for t in earlier:
            trials.append(_from_trial(t, loaded, state))
        kept: dict[int, Candidate] = {}
        # The base's own values, if the space holds them, are not played again.
        inside = all(_inside(k, k.base_value) for k in loaded.knobs)
        tried: dict[tuple[Any, ...], Candidate] = {c_key(base, loaded): base} if inside else {}
        tried.update({c_key(c, loaded): c for c in trials if c.state != "stopped"})
        duplicates = 0
        size = _space_size(loaded.knobs)
        while not stopped:
            front = _pareto([base, *trials])
            best = _choose(loaded, front, base)
            if sum(c.state != "stopped" for c in trials) >= s.budget.trials:
                stopped = "trials"
            elif out_of_budget():
                stopped = out_of_budget()
            elif s.stop_when_met and _meets(loaded, _replayed(loaded, player, best)):
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
                    apply_knobs(loaded.base.to_data(), knob_values),
                    source=f"<trial {trial.number}>",
                )
            except VariantError as exc:
                c.state, c.reason = "rejected", exc.reason
                if exc.path:
                    from cardshop.core.errors import format_path

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
                        batch = player.play(variant, n, k)
                        c.summaries.setdefault(n, []).extend(batch)
                        c.games += len(batch)
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
            except KeyboardInterrupt:
                c.state, c.reason = "stopped", "interrupted"
                trial.set_user_attr("games", c.games)
                study.tell(trial, state=state.FAIL)
                stopped = "interrupted"
                break
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
                c.summaries = {}
                study.tell(trial, state=state.PRUNED if c.state == "dropped" else state.FAIL)
                if c.state == "stopped":
                    stopped = out_of_budget() or "games"
            front = _pareto([base, *trials])
            for number in [x for x in kept if x not in {f.number for f in front}]:
                kept.pop(number).summaries = {}
            if on_trial is not None:
                on_trial(c)
    except KeyboardInterrupt:
        if base.losses is None:
            player.close()
            raise
        stopped = "interrupted"
    try:
        front = _pareto([base, *trials])
        best = _choose(loaded, front, base)
        _replayed(loaded, player, best)
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
    )
    ids = [o.measure for o in s.objectives]
    for n in loaded.players:
        result.before[n] = report_measures(ids, base.summaries[n], seed=s.seed)
        result.after[n] = report_measures(ids, best.summaries[n], seed=s.seed)
    return result


def _replayed(loaded: LoadedSpec, player: _Player, c: Candidate) -> Candidate:
    """``c`` with its games: a complete candidate of an earlier run of the study is
    played again (the same seeds give the same games)."""
    if c.summaries or c.losses is None:
        return c
    variant = _variant_of(loaded, c)
    for k in range(loaded.spec.budget.batches):
        for n in loaded.players:
            c.summaries.setdefault(n, []).extend(player.play(variant, n, k))
    return c


def c_key(c: Candidate, loaded: LoadedSpec) -> tuple[Any, ...]:
    return tuple(c.values.get(k.label) for k in loaded.knobs)


def _variant_of(loaded: LoadedSpec, c: Candidate) -> VariantBase:
    if c.number < 0:
        return loaded.base
    values = {k.path: c.values[k.label] for k in loaded.knobs}
    return variant_from_data(apply_knobs(loaded.base.to_data(), values))


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
