"""Simulation: results that do not depend on where games run (docs/simulation.md)."""

from __future__ import annotations

import contextlib
import csv
import importlib
import json
import math
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import psutil
import pytest
from typer.testing import CliRunner

import tinyfamily
from cardshop import SetupError, derive_seed, load_variant, new_game
from cardshop import simulation as simulation_module
from cardshop.bots import RandomBot, make_bot
from cardshop.cli import app
from cardshop.core.actions import Action
from cardshop.core.loader import builtin_variants
from cardshop.core.registry import (
    ENTRY_POINT_GROUP,
    families,
    unregister_family,
)
from cardshop.driver import Step
from cardshop.klunker.bots import GreedyBot
from cardshop.klunker.variant import Variant
from cardshop.simulation import (
    GameOutcome,
    SimulationResult,
    WorkerLostError,
    game_seed,
    kernel_note,
    play_game,
    seat_specs,
    simulate,
)
from cardshop.support.stats import (
    mean_ci,
    wilson,
)
from dask_support import DASK, loopback_cluster
from kernel_compiles import first_compile, first_run

BOTS = ["greedy", "random", "random", "random"]


@pytest.fixture(scope="module")
def reference() -> SimulationResult:
    """Twelve games played in this process: what every executor must reproduce."""
    return simulate("klunker-en", 4, 12, BOTS, seed=31, workers=1, rotate=True)


def greedy_factory(variant: Variant, seed: int) -> GreedyBot:
    return GreedyBot(seed, variant)


def test_outcomes_in_game_order_with_derived_seeds(reference: SimulationResult) -> None:
    assert [o.game for o in reference] == list(range(12))
    assert [o.seed for o in reference] == [derive_seed(31, "game", i) for i in range(12)]
    assert len({o.seed for o in reference}) == 12
    for o in reference:
        assert o.termination in ("finished", "capped")
        assert len(o.scores) == len(o.ranks) == len(o.bots) == 4
        assert o.winners == tuple(s for s in range(4) if o.ranks[s] == 1)
        assert o.rounds >= 1
        assert o.decisions > 0


def test_an_outcome_is_the_game_replayed_from_its_seed(reference: SimulationResult) -> None:
    o = reference[5]
    bots = [
        make_bot(name, "klunker-en", derive_seed(31, "bot", 5, s)) for s, name in enumerate(o.bots)
    ]
    game = play_game("klunker-en", 4, bots, seed=o.seed)
    result = game.result()
    assert (result.scores, result.rounds, len(game.history)) == (o.scores, o.rounds, o.decisions)
    assert game.first_player == o.first_player
    assert new_game("klunker-en", 4, seed=game_seed(31, 5)).first_player == o.first_player


def test_rotation_gives_every_bot_every_seat(reference: SimulationResult) -> None:
    greedy_seats = [o.bots.index("greedy") for o in reference]
    assert greedy_seats == [i % 4 for i in range(12)]
    assert seat_specs(["a", "b"], 2, 1, rotate=True) == ["b", "a"]
    assert seat_specs(["a"], 3, 7, rotate=True) == ["a", "a", "a"]


def test_process_pool_gives_the_same_results(reference: SimulationResult) -> None:
    done: list[int] = []
    sim = simulate(
        "klunker-en",
        4,
        12,
        BOTS,
        seed=31,
        workers=2,
        rotate=True,
        chunk_size=5,
        progress=done.append,
    )
    assert sim == reference
    assert sorted(done) == [2, 5, 5]  # chunks of 5, 5 and 2 games


def test_any_executor_gives_the_same_results(reference: SimulationResult) -> None:
    with ThreadPoolExecutor(max_workers=3) as pool:
        sim = simulate("klunker-en", 4, 12, BOTS, seed=31, executor=pool, rotate=True, chunk_size=1)
    assert sim == reference
    other_seed = simulate("klunker-en", 4, 12, BOTS, seed=32, workers=1, rotate=True)
    assert other_seed != reference


@DASK
def test_a_dask_cluster_gives_the_same_results(reference: SimulationResult) -> None:
    with loopback_cluster() as (cluster, client):
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        by_client = simulate("klunker-en", 4, 12, BOTS, seed=31, executor=client, rotate=True)
        by_executor = simulate(
            "klunker-en", 4, 12, BOTS, seed=31, executor=client.get_executor(), rotate=True
        )
    assert by_client == reference
    assert by_executor == reference


def test_bot_factories_and_a_comma_separated_text() -> None:
    by_name = simulate("klunker-en", 3, 4, "greedy, random, random", seed=2, workers=1)
    by_factory = simulate(
        "klunker-en", 3, 4, [greedy_factory, "random", "random"], seed=2, workers=2
    )
    assert by_name == by_factory
    assert all(o.bots == ("greedy", "random", "random") for o in by_name)


def test_table_and_rows_have_the_shape_pandas_takes(reference: SimulationResult) -> None:
    table = reference.to_table()
    assert list(table) == reference.columns()
    assert {len(column) for column in table.values()} == {12}
    assert table["score_2"] == [o.scores[2] for o in reference]
    assert table["bot_0"][:2] == ["greedy", "random"]
    rows = reference.to_rows()
    assert len(rows) == 12
    assert all(list(row) == reference.columns() for row in rows)
    json.dumps(table)  # plain data only
    long = reference.seat_rows()
    assert len(long) == 48
    assert set(long[0]) == {"game", "seat", "bot", "score", "rank", "win"}
    # Each game's wins add up to one, shared among tied winners.
    for o in reference:
        assert sum(r["win"] for r in long if r["game"] == o.game) == pytest.approx(1.0)


def test_summary_counts_every_seat_and_every_win(reference: SimulationResult) -> None:
    summary = {b.bot: b for b in reference.summary()}
    assert summary["greedy"].seats == 12
    assert summary["random"].seats == 36
    total_wins = sum(b.win_share * b.seats for b in summary.values())
    assert total_wins == pytest.approx(12)
    scores = [o.scores[o.bots.index("greedy")] for o in reference]
    mean, half = mean_ci(scores)
    assert summary["greedy"].mean_score == pytest.approx(sum(scores) / 12)
    assert summary["greedy"].score_ci == pytest.approx(half)
    lo, hi = summary["greedy"].score_interval
    assert lo < mean < hi


def test_win_share_interval_is_wilson_and_never_collapses() -> None:
    """0 wins out of 12 seats is not "0.0% +- 0.0%": the upper end stays above 0."""
    sim = simulate("klunker-en", 3, 4, "greedy,random,random", seed=2, workers=1)
    for b in sim.summary():
        wins = sum(o.win_share(s) for o in sim for s in range(3) if o.bots[s] == b.bot)
        expected = wilson(wins, b.seats)
        assert (b.win_share, b.win_low, b.win_high) == pytest.approx(
            (expected.estimate, expected.low, expected.high)
        )
        assert b.win_interval == (b.win_low, b.win_high)
        assert b.win_low <= b.win_share <= b.win_high
        assert b.win_high > 0


def test_mean_ci() -> None:
    assert mean_ci([1, 1, 1]) == (1.0, 0.0)
    mean, half = mean_ci([0, 1] * 50)
    assert mean == 0.5
    assert half == pytest.approx(1.959964 * math.sqrt(0.25 * 100 / 99 / 100))
    assert math.isinf(mean_ci([3])[1])
    assert math.isnan(mean_ci([])[0])


def test_outcome_dict_round_trip(reference: SimulationResult) -> None:
    for o in reference:
        data = json.loads(json.dumps(o.to_dict()))
        assert GameOutcome.from_dict(data) == o


def test_no_games_is_an_empty_result() -> None:
    sim = simulate("klunker-en", 3, 0, "random", seed=1)
    assert len(sim) == 0
    assert sim.to_table() == {name: [] for name in sim.columns()}
    assert sim.summary() == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 7}, "3 to 5 players, not 7"),
        ({"bots": ["random"] * 5}, "5 bots for 4 seats"),
        ({"bots": "random,clever,random,random"}, "unknown bot 'clever'"),
        ({"games": -1}, "games must be"),
        ({"workers": 0}, "workers must be at least 1"),
        ({"executor": "cluster"}, "concurrent.futures.Executor or a dask"),
    ],
)
def test_bad_arguments_are_setup_errors(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"players": 4, "games": 2, "bots": "random"}
    args.update(kwargs)
    with pytest.raises(SetupError, match=message):
        simulate("klunker-en", seed=0, **args)  # type: ignore[arg-type]


def test_play_game_checks_the_bots() -> None:
    with pytest.raises(SetupError, match="one bot per seat"):
        play_game("klunker-en", 3, [RandomBot()], seed=1)
    seen: list[str] = []
    game = play_game(
        load_variant("klunker-en"),
        3,
        [RandomBot(s) for s in range(3)],
        seed=1,
        on_action=lambda g, seat, action, events: seen.append(str(action)),
    )
    assert seen == [str(a) for a in game.history]


# --------------------------------------------------------------------- faults


def _dies_in_a_worker(variant: Variant, seed: int) -> RandomBot:
    """A bot factory that kills the worker process it runs in (as the OOM killer would)."""
    if multiprocessing.parent_process() is not None:
        os._exit(9)
    return RandomBot(seed)


def test_a_dead_worker_is_a_worker_lost_error() -> None:
    with pytest.raises(WorkerLostError, match="worker process died") as info:
        simulate("klunker-en", 3, 6, [_dies_in_a_worker, "random", "random"], workers=2)
    assert info.value.played + info.value.lost == 6
    assert info.value.lost > 0
    assert f"{info.value.lost:,} lost" in str(info.value)


class _Counting(ThreadPoolExecutor):
    """A thread pool that counts how many of its tasks are waiting or running at most."""

    def __init__(self, max_workers: int) -> None:
        super().__init__(max_workers=max_workers)
        self.submitted = 0
        self.outstanding = 0
        self.most = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submitted += 1
        self.outstanding += 1
        self.most = max(self.most, self.outstanding)
        future = super().submit(fn, *args, **kwargs)
        future.add_done_callback(lambda _: self._done())
        return future

    def _done(self) -> None:
        self.outstanding -= 1


class _Enough(Exception):
    pass


def test_tasks_are_made_lazily_a_few_per_worker() -> None:
    with _Counting(2) as pool:
        sim = simulate("klunker-en", 3, 30, "random", seed=1, executor=pool, chunk_size=1)
    assert len(sim) == 30
    assert pool.submitted == 30
    assert pool.most <= 4  # two tasks ahead per worker, never the whole list

    # A number of games no list could hold: the first finished game stops it.
    def stop(n: int) -> None:
        raise _Enough

    with _Counting(2) as pool, pytest.raises(_Enough):
        simulate("klunker-en", 3, 10_000_000, "random", executor=pool, chunk_size=1, progress=stop)
    assert pool.submitted <= 4


def test_workers_are_capped_at_the_number_of_games(monkeypatch: pytest.MonkeyPatch) -> None:
    sizes: list[int] = []
    real = simulation_module.process_pool

    def spy(workers: int) -> Any:
        sizes.append(workers)
        return real(workers)

    monkeypatch.setattr(simulation_module, "process_pool", spy)
    sim = simulate("klunker-en", 3, 3, "random", seed=3, workers=1000)
    assert sizes == [3]
    assert sim == simulate("klunker-en", 3, 3, "random", seed=3, workers=1)
    simulate("klunker-en", 3, 4, "random", seed=3, workers=8, chunk_size=2)
    assert sizes[-1] == 2  # two tasks: two processes


runner = CliRunner()


def test_cli_warns_above_the_cpu_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    args = ["simulate", "klunker-en", "-p", "3", "--games", "2", "--workers", "1000", "-q"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "cardshop: warning: 2 workers on 1 CPUs" in result.stderr


def test_cli_dask_address_that_does_not_answer_fails_fast() -> None:
    pytest.importorskip("distributed")  # imported before the clock starts: seconds of it
    start = time.monotonic()
    result = runner.invoke(
        app,
        ["simulate", "klunker-en", "--games", "4", "-q", "--dask", "tcp://127.0.0.1:1",
         "--dask-timeout", "1"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    text = result.stderr.strip()
    assert text.startswith("cardshop: error: --dask: cannot reach a Dask scheduler")
    assert "'tcp://127.0.0.1:1' within 1 s" in text
    assert "\n" not in text
    # Not the client's 30 s default: about 1.5 s here, 25 s is a margin of 16 times.
    assert time.monotonic() - start < 25
    bad = runner.invoke(app, ["simulate", "klunker-en", "--dask", "x", "--dask-timeout", "0"])
    assert bad.exit_code == 2
    assert "--dask-timeout must be a number of seconds above 0" in bad.stderr


EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "tuning"


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["simulate", "klunker-en", "--games", "2", "-q"], "--dask"),
        (["verify", "klunker-mini"], "--dask"),
        (["tune", str(EXAMPLES / "klunker-fpa.tune.yaml"), "--no-storage", "-q"], "--dask"),
        (["ladder", "klunker-en", "--bots", "random,greedy", "--deals", "1", "-q"], "--scheduler"),
    ],
    ids=["simulate", "verify", "tune", "ladder"],
)
def test_every_command_with_dask_says_in_one_paragraph_it_cannot_reach_the_scheduler(
    args: list[str], option: str
) -> None:
    """simulate, verify, tune and ladder share one Dask client and one error."""
    pytest.importorskip("distributed")
    address = ["--dask-timeout", "1", "--dask"] if option == "--dask" else ["--scheduler"]
    result = runner.invoke(app, [*args, *address, "tcp://127.0.0.1:1"])
    assert result.exit_code == 2, result.output
    text = result.stderr.strip()
    assert (
        f"cardshop: error: {option}: cannot reach a Dask scheduler at 'tcp://127.0.0.1:1'" in text
    )
    assert "\n" not in text
    if option == "--dask":  # a bad timeout is refused before any work, with or without --dask
        bad = runner.invoke(app, [*args, "--dask-timeout", "0"])
        assert bad.exit_code == 2, bad.output
        assert "--dask-timeout must be a number of seconds above 0, not 0.0" in bad.stderr


STOP_GUARD = 60
"""Seconds a stopped ``simulate`` may take to be gone, a guard against a hang only: a
stop here ends the run and its workers in about 0.2 s (300 times less), while the
500-game chunks the workers would otherwise finish take minutes."""


def _simulation(tmp_path: Path, engine: str, games: int) -> subprocess.Popen[str]:
    """``cardshop simulate`` with two workers, writing files into ``tmp_path``."""
    return subprocess.Popen(
        [sys.executable, "-m", "cardshop", "simulate", "klunker-en", "--games", str(games),
         "--workers", "2", "--engine", engine, "--json", str(tmp_path / "out.json"),
         "--csv", str(tmp_path / "out.csv")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def _start_simulation(tmp_path: Path) -> tuple[subprocess.Popen[str], list[psutil.Process]]:
    """A simulation on the reference engine (its workers are processes) and, once they
    have started, its worker processes."""
    proc = _simulation(tmp_path, "reference", 1_000_000)
    parent = psutil.Process(proc.pid)
    deadline = time.monotonic() + 120
    children: list[psutil.Process] = []
    while time.monotonic() < deadline and proc.poll() is None:
        children = parent.children(recursive=True)
        if len(children) >= 2:
            break
        time.sleep(0.05)
    assert len(children) >= 2, "the workers did not start"
    return proc, children


def _gone(process: psutil.Process) -> bool:
    try:
        return process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _assert_all_gone(children: list[psutil.Process]) -> None:
    _, alive = psutil.wait_procs(children, timeout=STOP_GUARD)
    assert all(_gone(p) for p in alive), [p.pid for p in alive]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_simulate_and_its_workers(sig: signal.Signals, tmp_path: Path) -> None:
    proc, children = _start_simulation(tmp_path)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=STOP_GUARD)
    assert proc.returncode == 128 + sig, err
    assert "Traceback" not in err
    assert f"cardshop: stopped by {sig.name} after" in err
    assert "the workers are stopped and no file was written" in err
    _assert_all_gone(children)
    assert list(tmp_path.iterdir()) == []  # no output file, no temporary file


def _family_simulation(
    tmp_path: Path,
    family: str,
    games: int,
    *,
    env: dict[str, str] | None = None,
    engine: str = "auto",
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "cardshop", "simulate", family, "--games", str(games),
         "--workers", "2", "--engine", engine, "--json", str(tmp_path / "out.json")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip


def _wait_gone(proc: subprocess.Popen[str], others: list[psutil.Process]) -> str:
    """Wait (up to the guard) for ``proc`` and ``others`` to be gone; ``proc``'s stderr.
    Whatever is still running then is killed, and the test fails."""
    try:
        _, err = proc.communicate(timeout=STOP_GUARD)
    except subprocess.TimeoutExpired:
        for p in [psutil.Process(proc.pid), *others]:
            with contextlib.suppress(psutil.NoSuchProcess):
                p.kill()
        proc.communicate()
        pytest.fail(f"simulate still ran {STOP_GUARD} s after the stop signal")
    _, alive = psutil.wait_procs(others, timeout=STOP_GUARD)
    left = [p.pid for p in alive if not _gone(p)]
    for p in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()
    assert left == [], f"workers left running: {left}"
    return err


def _assert_stopped(proc: subprocess.Popen[str], sig: signal.Signals, err: str) -> None:
    assert proc.returncode == 128 + sig, err
    assert "Traceback" not in err, err
    assert "Error" not in err, err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"cardshop: stopped by {sig.name} after"), err
    assert last.endswith("the workers are stopped and no file was written"), err


@pytest.mark.parametrize("family", ["wuhltisch", "reglamentacja"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_long_games_and_their_workers_at_once(
    family: str, sig: signal.Signals, tmp_path: Path
) -> None:
    """Each worker's task is 500 games of minutes: the stop must not wait for them (on
    the reference engine, whose workers are processes)."""
    proc = _family_simulation(tmp_path, family, 5_000, engine="reference")
    parent = psutil.Process(proc.pid)
    deadline = time.monotonic() + 120
    children: list[psutil.Process] = []
    while time.monotonic() < deadline and proc.poll() is None and len(children) < 2:
        children = parent.children(recursive=True)
        time.sleep(0.05)
    assert len(children) >= 2, "the workers did not start"
    time.sleep(0.5)  # the workers are inside their first games
    proc.send_signal(sig)
    proc.send_signal(sig)  # a second signal changes nothing
    err = _wait_gone(proc, children)
    _assert_stopped(proc, sig, err)
    assert list(tmp_path.iterdir()) == []  # no output file, no temporary file


@pytest.fixture(scope="module")
def kernel_runs(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[dict[str, str], list[subprocess.CompletedProcess[str]]]:
    """An environment whose kernel cache holds the compiled kernel, and the two runs
    that filled and then read it: the library with logging on (the whole suite's first
    compile, or one of its own in an empty cache: :mod:`kernel_compiles`), then the
    command line."""
    pytest.importorskip("numba", reason="the kernel needs the kernel extra (numba)")
    from cardshop.klunker.kernel import COMPILING

    env, first = first_compile("klunker", COMPILING, tmp_path_factory.mktemp("numba-cache"))
    assert first.returncode == 0, first.stderr
    second = subprocess.run(
        [sys.executable, "-m", "cardshop", "simulate", "klunker-en", "--games", "600",
         "--engine", "kernel", "--workers", "2"],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert second.returncode == 0, second.stderr
    return env, [first, second]


def _signals_stop_the_kernel_threads(variant: str, env: dict[str, str], tmp_path: Path) -> None:
    """A kernel simulation of ``variant`` (its compiled code in ``env``'s cache) runs its
    workers as threads of the process (the kernel runs without the GIL); SIGTERM and
    SIGINT each stop it at once, cleanly, nothing written."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        out = tmp_path / sig.name
        out.mkdir()
        proc = _family_simulation(out, variant, 10_000_000, env=env, engine="kernel")
        parent = psutil.Process(proc.pid)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None and parent.num_threads() < 3:
            time.sleep(0.05)
        assert parent.num_threads() >= 3, "the kernel's threads did not start"
        assert parent.children(recursive=True) == []  # no worker process
        time.sleep(0.5)  # some games played
        proc.send_signal(sig)
        proc.send_signal(sig)  # a second signal changes nothing (it killed the process)
        _assert_stopped(proc, sig, _wait_gone(proc, []))
        assert list(out.iterdir()) == []  # no output file


@pytest.mark.build_independent
def test_the_first_compile_is_logged_and_cached_and_a_signal_stops_the_threads(
    kernel_runs: tuple[dict[str, str], list[subprocess.CompletedProcess[str]]], tmp_path: Path
) -> None:
    """The first compile is logged once and read from the cache by the next process;
    the kernel's workers are threads of the process (it runs without the GIL), which
    SIGTERM and SIGINT stop. One test, so that the kernel compiles once."""
    from cardshop.klunker.kernel import COMPILING

    env, (first, second) = kernel_runs
    assert first.stdout.split() == ["kernel", "600"]
    assert first.stderr.count(f"cardshop.klunker.kernel:INFO:{COMPILING}") == 1, first.stderr
    assert "compiling" not in second.stderr  # read from the cache: no compile, no word
    assert "600 games of klunker-en" in second.stdout
    _signals_stop_the_kernel_threads("klunker-en", env, tmp_path)


@pytest.mark.build_independent
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_the_first_compile_stops_cleanly(
    sig: signal.Signals, tmp_path: Path
) -> None:
    """A stop while numba compiles the kernel: the one-line message and 128 + signal,
    not numba's own error; nothing written, nothing left running."""
    pytest.importorskip("numba", reason="the kernel needs the kernel extra (numba)")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    (tmp_path / "out").mkdir()
    proc = _family_simulation(tmp_path / "out", "klunker-en", 600, env=env, engine="kernel")
    assert proc.stderr is not None
    first = proc.stderr.readline()
    from cardshop.klunker.kernel import COMPILING

    assert first == f"cardshop: {COMPILING}\n"  # the kernel's words, from the command
    time.sleep(3)  # well inside the compile (tens of seconds)
    proc.send_signal(sig)
    proc.send_signal(sig)
    err = first + _wait_gone(proc, [])
    _assert_stopped(proc, sig, err)
    assert list((tmp_path / "out").iterdir()) == []


def test_a_killed_worker_is_reported_with_the_games_lost(tmp_path: Path) -> None:
    proc, children = _start_simulation(tmp_path)
    children[0].kill()
    _, err = proc.communicate(timeout=STOP_GUARD)
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    message = err.strip().splitlines()[-1]
    assert message.startswith("cardshop: error: a worker process died")
    assert "of 1,000,000 games were played and" in message
    assert message.endswith("lost; no file was written")
    _assert_all_gone(children)
    assert list(tmp_path.iterdir()) == []


_FORKED_INSIDE_A_STOP = """
import multiprocessing, os, signal, sys, time
from cardshop.cli._stop import signals_stop

def child(sig):
    os.kill(os.getpid(), sig)
    time.sleep(0.2)  # an ignored SIGINT: the child goes on and ends normally

with signals_stop():
    process = multiprocessing.get_context("fork").Process(target=child, args=(int(sys.argv[1]),))
    process.start()
    process.join()
print(process.exitcode)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_process_forked_during_a_stoppable_command_acts_as_a_worker(sig: int) -> None:
    """A pool's worker receives the pool's SIGTERM before its own setup has run (the
    fork's first steps): the handler it inherited lets it die of SIGTERM quietly and
    ignores SIGINT, instead of raising the command's stop inside the worker."""
    run = subprocess.run(
        [sys.executable, "-c", _FORKED_INSIDE_A_STOP, str(int(sig))],
        capture_output=True, text=True, timeout=STOP_GUARD,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    assert run.stdout.split() == [str(-sig if sig == signal.SIGTERM else 0)]


_STOP_REQUESTED = """
import os, signal, time
from cardshop.cli._stop import Stopped, signals_stop, stop_signal
from cardshop.support.stopping import is_interruption, requested_stop

print(requested_stop(), is_interruption(ValueError()))
try:
    with signals_stop():
        print(requested_stop(), is_interruption(ValueError()))
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(60)
        except Stopped:
            print(requested_stop(), is_interruption(ValueError()))
            raise
except Stopped:
    print(requested_stop(), is_interruption(ValueError()), stop_signal(ValueError()))
"""


def test_a_caught_signal_requests_a_stop_while_the_command_unwinds() -> None:
    """While a stoppable command unwinds from a signal, the library's loops count any
    error as the stop (a library it lands in may wrap it); once the block is left,
    errors are errors again, while the command still knows which signal stopped it."""
    run = subprocess.run(
        [sys.executable, "-c", _STOP_REQUESTED],
        capture_output=True, text=True, timeout=STOP_GUARD,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines == ["None False", "None False", "15 True", f"None False {int(signal.SIGTERM)}"]


# ------------------------------------------------------------ any family


TINY = Path(__file__).parent / "tinyfamily"
TINY_VARIANTS = [TINY / "tiny-seq.yaml", TINY / "tiny-sim.yaml"]


@pytest.fixture(scope="module")
def tiny() -> Iterator[None]:
    """The tiny test family, registered in this process only (no entry point)."""
    tinyfamily.register()
    yield
    unregister_family(tinyfamily.NAME)


def _replayed(variant: Any, players: int, seed: int, o: GameOutcome) -> tuple[Any, list[Step]]:
    """The outcome's game played again by the same bots, and its driver steps."""
    bots = [make_bot(name, variant, derive_seed(seed, "bot", o.game, s)) for s, name in
            enumerate(o.bots)]  # fmt: skip
    steps: list[Step] = []
    game = play_game(variant, players, bots, seed=o.seed, on_step=lambda g, s: steps.append(s))
    return game, steps


def _check_outcomes(sim: SimulationResult, variant: Any, seed: int) -> None:
    """Every outcome is its game replayed from its seeds, read through the core Result."""
    assert [o.game for o in sim] == list(range(len(sim)))
    for o in sim:
        game, steps = _replayed(variant, sim.players, seed, o)
        result = game.result()
        assert o.seed == game_seed(seed, o.game) == game.seed
        assert (o.scores, o.ranks, o.winners) == (result.scores, result.ranks, result.winners)
        assert (o.rounds, o.termination) == (result.rounds, result.termination.value)
        assert o.details == dict(result.details)
        assert o.decisions == len(game.moves) == sum(len(s.actions) for s in steps)
        assert o.steps == len(steps) == len({m.step for m in game.moves})
        assert GameOutcome.from_dict(json.loads(json.dumps(o.to_dict()))) == o


@pytest.mark.parametrize("path", TINY_VARIANTS, ids=lambda p: p.stem)
def test_a_family_no_tool_knows_simulates_in_process(tiny: None, path: Path) -> None:
    variant = load_variant(path)
    sim = simulate(path, 3, 10, "random", seed=5, workers=1)
    assert sim.family == "tinymarket"
    assert len(sim) == 10
    _check_outcomes(sim, variant, 5)
    for o in sim:
        assert o.first_player is None  # the family does not choose a first seat
        assert o.termination in ("finished", "capped")
        if variant.dynamics == "simultaneous":  # type: ignore[attr-defined]
            assert o.decisions == 3 * o.steps  # all three seats act in every tick
        else:
            assert o.decisions == o.steps
    rows = sim.to_rows()
    assert [r["steps"] for r in rows] == [o.steps for o in sim]
    assert rows[0]["first_player"] is None
    assert sim.columns() == list(rows[0])
    summary = {b.bot: b for b in sim.summary()}
    assert summary["random"].seats == 30
    assert sum(b.win_share * b.seats for b in summary.values()) == pytest.approx(10)


def test_a_family_without_a_kernel_plays_on_the_reference_engine(tiny: None) -> None:
    """Every built-in family has a kernel; a family from elsewhere need not."""
    path = TINY_VARIANTS[0]
    assert kernel_note(load_variant(path), 3, ("random",), 0) == (
        None,
        "the tinymarket family has no kernel",
    )
    sim = simulate(path, 3, 600, "random", seed=5, workers=1)
    assert (sim.engine, sim.engine_note) == ("reference", "the tinymarket family has no kernel")
    with pytest.raises(SetupError, match=r"engine 'kernel' cannot play .*tinymarket family has no"):
        simulate(path, 3, 2, "random", seed=5, workers=1, engine="kernel")


def test_play_game_on_a_simultaneous_family_goes_tick_by_tick(tiny: None) -> None:
    """In a tick every bot sees the table before anyone's choice; callbacks per step."""
    seen: list[tuple[int, Any]] = []

    class Spy(RandomBot):
        def __init__(self, seed: int) -> None:
            super().__init__(seed)
            self.step = 0

        def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
            seen.append((self.step, observation.market))
            self.step += 1
            return super().choose(observation, legal_actions)

    steps: list[Step] = []
    actions: list[tuple[int, str, int]] = []
    spies = [Spy(s) for s in range(3)]
    game = play_game(
        TINY / "tiny-sim.yaml",
        3,
        spies,
        seed=4,
        on_action=lambda g, seat, action, events: actions.append((seat, str(action), len(events))),
        on_step=lambda g, step: steps.append(step),
    )
    assert game.is_over
    assert all(sorted(s.actions) == [0, 1, 2] for s in steps)
    assert [(seat, a) for seat, a, _ in actions] == [
        (seat, str(step.actions[seat])) for step in steps for seat in range(3)
    ]
    # The step's events go with the last seat of the tick, none with the others.
    assert [n for _, _, n in actions] == [n for step in steps for n in (0, 0, len(step.events))]
    markets: dict[int, set[Any]] = {}
    for step, market in seen:
        markets.setdefault(step, set()).add(market)
    assert len(markets) == len(steps)
    assert all(len(m) == 1 for m in markets.values())  # one market per tick, for all


def test_first_player_only_for_families_that_choose_one(tiny: None) -> None:
    bots = [RandomBot(s) for s in range(3)]
    assert play_game("klunker-en", 3, bots, seed=1, first_player=2).first_player == 2  # type: ignore[attr-defined]
    with pytest.raises(SetupError, match="takes no option 'first_player'"):
        play_game(TINY / "tiny-seq.yaml", 3, bots, seed=1, first_player=2)
    with pytest.raises(SetupError, match="2 to 4 players, not 5"):
        simulate(TINY / "tiny-seq.yaml", 5, 2, "random")
    with pytest.raises(SetupError, match="setup must be a function"):
        simulate(TINY / "tiny-seq.yaml", 2, 2, "random", setup="tinyfamily.register")  # type: ignore[arg-type]


@pytest.mark.parametrize("path", TINY_VARIANTS, ids=lambda p: p.stem)
def test_a_family_registered_at_run_time_in_two_worker_processes(tiny: None, path: Path) -> None:
    """Workers forked from this process inherit the registry; ``setup`` registers the
    family in workers that start afresh (spawned here, as on macOS, Windows and, from
    Python 3.14, Linux: and on a cluster)."""
    reference = simulate(path, 2, 6, "random", seed=9, workers=1)
    forked = simulate(path, 2, 6, "random", seed=9, workers=2, chunk_size=2)
    assert forked == reference
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=2, mp_context=spawn) as pool:
        with pytest.raises(SetupError, match="'tinymarket' is not registered in the process"):
            simulate(path, 2, 6, "random", seed=9, executor=pool, chunk_size=3)
        spawned = simulate(
            path, 2, 6, "random", seed=9, executor=pool, chunk_size=3, setup=tinyfamily.register
        )
        pids = set(pool.submit(_worker_pid).result() for _ in range(4))
    assert spawned == reference
    assert os.getpid() not in pids


def _worker_pid() -> int:
    return os.getpid()


@pytest.mark.parametrize("path", TINY_VARIANTS, ids=lambda p: p.stem)
def test_cli_simulates_a_family_no_tool_knows(tiny: None, path: Path, tmp_path: Path) -> None:
    out_json, out_csv = tmp_path / "games.json", tmp_path / "games.csv"
    result = runner.invoke(
        app,
        ["simulate", str(path), "-p", "3", "-n", "5", "-w", "1", "-s", "3", "-q",
         "--json", str(out_json), "--csv", str(out_csv)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"5 games of {path.stem}, 3 players" in result.stdout
    expected = simulate(path, 3, 5, "random", seed=3, workers=1)
    doc = json.loads(out_json.read_text())
    assert (doc["family"], doc["variant"]) == ("tinymarket", path.stem)
    assert doc["games"] == [o.to_dict() for o in expected]
    with out_csv.open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == expected.columns()
    assert [int(r["steps"]) for r in rows] == [o.steps for o in expected]
    assert {r["first_player"] for r in rows} == {""}


def _outcome(game: int, details: dict[str, int]) -> GameOutcome:
    return GameOutcome(game, 1, None, ("a", "b"), (3, 1), (1, 2), (0,), 4, 9, "finished", 5,
                       details)  # fmt: skip


def test_result_details_become_columns() -> None:
    sim = SimulationResult(
        load_variant("klunker-en"), 2, 0, [_outcome(0, {"ticks": 7, "rounds": 2}), _outcome(1, {})]
    )
    assert sim.detail_columns() == ["detail_rounds", "ticks"]
    assert sim.columns()[-2:] == ["detail_rounds", "ticks"]
    rows = sim.to_rows()
    assert [(r["rounds"], r["detail_rounds"], r["ticks"]) for r in rows] == [(4, 2, 7), (4, 0, 0)]
    assert sim.to_table()["ticks"] == [7, 0]
    assert _outcome(0, {"ticks": 7}) != _outcome(0, {"ticks": 8})
    assert hash(_outcome(0, {"ticks": 7})) == hash(_outcome(0, {"ticks": 8}))  # still hashable


def test_an_outcome_written_before_steps_and_details_reads_back(
    reference: SimulationResult,
) -> None:
    old = reference[0].to_dict()
    del old["steps"], old["details"]
    o = GameOutcome.from_dict(old)
    assert (o.steps, o.details, o.scores) == (0, {}, reference[0].scores)


BUILTIN = builtin_variants()


def test_every_installed_family_has_a_builtin_variant_here() -> None:
    """The built-in variants below cover every family installed by entry point."""
    installed = {ep.load().name for ep in entry_points(group=ENTRY_POINT_GROUP)}
    assert installed <= set(families())
    assert {load_variant(name).family for name in BUILTIN} == installed


@pytest.mark.parametrize("name", BUILTIN)
def test_every_builtin_family_simulates_anywhere(name: str) -> None:
    variant = load_variant(name)
    players = variant.players.min
    sim = simulate(name, players, 2, "random", seed=2, workers=1)
    assert sim.family == variant.family
    _check_outcomes(sim, variant, 2)
    assert simulate(name, players, 2, "random", seed=2, workers=2, chunk_size=1) == sim
    for row, o in zip(sim.to_rows(), sim, strict=True):
        assert all(row[key] == value for key, value in o.details.items() if key in row)


@pytest.mark.build_independent
@pytest.mark.parametrize("family", ["wuhltisch", "reglamentacja"])
def test_the_other_kernels_say_they_compile_and_stop_cleanly(family: str, tmp_path: Path) -> None:
    """Wühltisch's and Reglamentacja's kernels as Klunker's: the first compile logged
    once, then read from the cache without a word; the workers threads of the process,
    which SIGTERM and SIGINT stop, nothing written. One test a family, so that its
    kernel compiles once (about 30 s of CPU), or not at all when the whole suite's
    first compile logged it (:mod:`kernel_compiles`)."""
    pytest.importorskip("numba", reason="the kernel needs the kernel extra (numba)")
    compiling = importlib.import_module(f"cardshop.{family}.kernel").COMPILING

    env, first = first_compile(family, compiling, tmp_path / "cache")
    runs = [first, first_run(family, env)]
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert run.stdout.split() == ["kernel", "600"]
    assert runs[0].stderr.count(f"cardshop.{family}.kernel:INFO:{compiling}") == 1
    assert "compiling" not in runs[1].stderr
    _signals_stop_the_kernel_threads(family, env, tmp_path)
