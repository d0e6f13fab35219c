"""The benchmark suite runs end to end and writes every section (no timing is checked).

``benchmarks/run.py --smoke`` (the least work that runs every section) is run as a real
subprocess, as a user would run it; its figures mean nothing, so only the shape of the
report is tested. Every run's timeout is a guard against a hang only, far above a
normal run; a run that hits it is killed with every process it started.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import psutil
import pytest

import cardshop

# Its module-scoped fixtures (the quick benchmark run) are built once: under pytest -n one
# worker runs the module.
pytestmark = pytest.mark.xdist_group("benchmarks-smoke")

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "run.py"

SECTIONS = {
    "playouts_public",
    "playouts_simulate",
    "clone",
    "observation",
    "legal_actions",
    "json_round_trip",
    "memory",
    "simulate_workers",
    "import_time",
    "growth",
    "verify",
}
NEED_SIMULATE = {"playouts_simulate", "simulate_workers"}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"JSON holds {name}, which is not valid JSON")


def _run(args: list[str], guard: float) -> subprocess.CompletedProcess[str]:
    """Run a benchmark script in a session of its own; past ``guard`` seconds kill the
    whole session (the script and its workers), so that none outlives the test."""
    proc = subprocess.Popen(
        [sys.executable, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=guard)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{' '.join(args)} still ran after {guard} s (a hang guard)")
    finally:
        with contextlib.suppress(ProcessLookupError):  # workers the script left behind
            os.killpg(proc.pid, signal.SIGKILL)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


SMOKE_GUARD = 900
"""A ``--smoke`` run takes about 6 s of CPU (35 s of wall time on 2 cores under a load of
6); the guard is 25 times that wall time."""


def test_a_run_past_its_guard_is_killed_with_its_children(tmp_path: Path) -> None:
    """What a hung benchmark meets: it and the processes it started are gone."""
    pid_file = tmp_path / "child.pid"
    script = tmp_path / "hang.py"
    script.write_text(
        "import pathlib, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(3600)'])\n"
        f"pathlib.Path({str(pid_file)!r}).write_text(str(child.pid))\n"
        "time.sleep(3600)\n"
    )
    with pytest.raises(pytest.fail.Exception, match="still ran after"):
        _run([str(script)], 20)  # the script only waits: a guard that must trigger
    child = int(pid_file.read_text())
    with contextlib.suppress(psutil.NoSuchProcess):
        process = psutil.Process(child)
        process.wait(timeout=600)  # a guard: SIGKILL ends it at once
        assert process.status() == psutil.STATUS_ZOMBIE


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any]]:
    out = tmp_path_factory.mktemp("bench") / "figures.json"
    done = _run([str(SCRIPT), "--smoke", "--json", str(out)], SMOKE_GUARD)
    assert done.returncode == 0, done.stderr
    return done.stdout, json.loads(out.read_text(), parse_constant=_reject_constant)


def test_every_section_is_measured_or_says_why_not(
    quick_run: tuple[str, dict[str, Any]],
) -> None:
    _, report = quick_run
    sections = report["sections"]
    assert set(sections) == SECTIONS
    for name, section in sections.items():
        assert section["status"] == "ok", f"{name}: {section['note']}"
        assert section["note"]


def test_playouts_cover_every_builtin_variant_and_player_count(
    quick_run: tuple[str, dict[str, Any]],
) -> None:
    _, report = quick_run
    rows = report["sections"]["playouts_public"]["rows"]
    expected = set()
    built_in = {"klunker", "wuhltisch", "reglamentacja"}  # the benchmark's process knows no other
    for name in cardshop.builtin_variants():
        if cardshop.load_variant(name).family not in built_in:
            continue
        rules = cardshop.load_variant(name).rules
        expected |= {(name, n) for n in range(rules.min_players, rules.max_players + 1)}
    assert {(r["variant"], r["players"]) for r in rows} == expected
    for row in rows:
        assert row["decisions_per_s"] > 0
        assert row["games_per_s"] > 0
        assert row["decisions_per_game"] >= 1


def test_figures_are_positive_and_targets_judged(quick_run: tuple[str, dict[str, Any]]) -> None:
    stdout, report = quick_run
    s = report["sections"]
    for point in ("start", "middle", "end"):
        assert s["clone"][point]["us"] > 0
        assert s["json_round_trip"][point]["round_trip_us"] > 0
        assert s["memory"][point]["bytes_per_state"] > 0
    assert s["observation"]["us"] > 0
    assert s["legal_actions"]["us"] > 0
    assert s["import_time"]["seconds"] > 0
    growth = s["growth"]
    assert growth["x10_counts"]["cards"] == 10 * growth["klunker-en"]["cards"]
    assert growth["x10_kinds"]["kinds"] == 10 * growth["klunker-en"]["kinds"]
    targets = report["targets"]
    assert len({t["name"] for t in targets}) == len(targets)
    for target in targets:
        if target["value"] is None:
            assert target["status"] == "SKIP"
        else:
            assert target["status"] in ("PASS", "MISS")
        assert f"{target['shown']}" in stdout
    assert "Targets" in stdout
    assert report["machine"]["nproc"] >= 1


def test_unknown_section_is_a_usage_error() -> None:
    done = _run([str(SCRIPT), "--only", "no-such-section"], 300)  # it ends in a second
    assert done.returncode == 2
    assert "no-such-section" in done.stderr


# ------------------------------------------------------------------- the peers

PEERS = ROOT / "benchmarks" / "peers.py"


def test_peers_runs_and_reports_every_subject(tmp_path: Path) -> None:
    """``benchmarks/peers.py --quick``: cardshop's subjects are always measured; the
    OpenSpiel and RLCard ones (the ``bench`` extra, not in ``dev``: OpenSpiel and SciPy
    weigh some 150 MB) are measured when installed, else reported as skipped."""
    import importlib.util

    out = tmp_path / "peers.json"
    only = "klunker-en,wuhltisch,hearts,uno"
    # A hang guard: the run takes about 6 s, and 100 s when it first compiles the kernel
    # (on 2 busy cores): 900 s is nine times the longest.
    done = _run([str(PEERS), "--quick", "--only", only, "--json", str(out)], 900)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text(), parse_constant=_reject_constant)
    rows = {row["subject"]: row for row in report["rows"]}
    builds = ["pure", "compiled"] if cardshop.compiled else ["pure"]
    expected = {f"cardshop {v} 4p {b}" for v in ("klunker-en", "wuhltisch") for b in builds}
    expected |= {  # the families' bots through driver.play, on the compiled build if any
        f"cardshop {v} 4p {bot} {builds[-1]}"
        for v in ("klunker-en", "wuhltisch")
        for bot in ("baseline", "greedy")
    }
    have = {m: importlib.util.find_spec(m) is not None for m in ("pyspiel", "rlcard", "numba")}
    if have["numba"]:  # the batch kernels (the kernel extra)
        expected |= {  # each as built in (chance model 2) and under chance model 1
            f"kernel {v}{model} 4p"
            for v in ("klunker-en", "wuhltisch")
            for model in ("", " chance 1")
        }
    else:
        assert any("numba is not installed" in n for n in report["notes"])
    if have["pyspiel"]:
        expected |= {"openspiel:hearts", "openspiel-loop:hearts"}
    else:
        assert any("pyspiel is not installed" in n for n in report["notes"])
    if have["rlcard"]:
        expected.add("rlcard:uno")
    else:
        assert any("rlcard is not installed" in n for n in report["notes"])
    assert set(rows) == expected
    for row in rows.values():
        assert row["decisions_per_s"] > 0, row
        assert row["min"] <= row["decisions_per_s"] <= row["max"]
        # games per second beside decisions: every game takes more than one decision
        assert 0 < row["games_per_s"] < row["decisions_per_s"], row
        assert row["subject"] in done.stdout or row["label"] in done.stdout
    assert all(row["compiled"] is (row["subject"].endswith("compiled")) for row in rows.values()
               if row["subject"].startswith("cardshop"))  # fmt: skip
    ratios = {(q["of"], q["to"]) for q in report["ratios"]}
    if have["pyspiel"]:
        assert ("cardshop klunker-en 4p pure", "openspiel:hearts") in ratios
    if not cardshop.compiled:
        assert any("compiled build: skipped" in n for n in report["notes"])
    if not have["pyspiel"]:
        assert report["rows"][0]["vs_hearts"] is None


# -------------------------------------------------------------------- the verifier

VERIFY = ROOT / "benchmarks" / "verify.py"
MINIS = ("klunker-mini", "wuhltisch-mini", "reglamentacja-mini")


def _mini_rows() -> set[tuple[str, int]]:
    """Each mini variant the verifier benchmark measures, at each of its player counts."""
    from cardshop.verify import resolve_variant

    return {
        (name, n)
        for name in MINIS
        for span in [resolve_variant(name).players]
        for n in range(span.min, span.max + 1)
    }


def _check_rows(rows: list[dict[str, Any]], labels: set[str], max_states: int) -> None:
    from cardshop.verify import CHECKS

    assert {(r["variant"], r["players"], r["checks_label"]) for r in rows} == {
        (name, n, label) for name, n in _mini_rows() for label in labels
    }
    for row in rows:
        assert row["checks"] == (list(CHECKS) if row["checks_label"] == "all" else ["invariants"])
        assert row["ok"], row
        assert row["faults"] == 0
        # The minis have thousands of states: a search stops at the budget, unfinished.
        assert row["states"] >= max_states, row
        assert not row["complete"]
        # A tiny budget can be spent on the deals alone (wuhltisch-mini has 216).
        assert row["generated"] >= 0
        assert row["depth"] >= 0
        assert row["cpu_seconds"] > 0
        assert row["wall_seconds"] >= 0
        assert row["states_per_s"] == pytest.approx(row["states"] / row["cpu_seconds"])
        assert row["generated_per_s"] == pytest.approx(row["generated"] / row["cpu_seconds"])
        assert row["states_per_s_min"] <= row["states_per_s"] <= row["states_per_s_max"]
    assert any(row["generated"] >= 1 for row in rows)


def test_verify_benchmark_measures_every_mini_and_names_the_build(tmp_path: Path) -> None:
    """``benchmarks/verify.py`` on a tiny budget: a row per mini variant, player count
    and check set (every check, the invariants only), and the build that ran."""
    out = tmp_path / "verify.json"
    # A hang guard: the run takes about 3 s of CPU.
    done = _run([str(VERIFY), "--quick", "--json", str(out)], 600)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text(), parse_constant=_reject_constant)
    build = "compiled" if cardshop.compiled else "pure"
    assert report["build"] == build
    assert report["compiled"] is cardshop.compiled
    assert f"; {build} build" in done.stdout.splitlines()[0]
    _check_rows(report["rows"], {"all", "invariants"}, report["max_states"])
    for row in report["rows"]:
        assert row["variant"] in done.stdout
        assert row["repeats"] == 1


def test_verify_benchmark_as_a_run_section() -> None:
    """``section_verify``, ready for run.py's sections: every check, each mini."""
    code = (
        "import json, sys, types; sys.path.insert(0, 'benchmarks'); "
        "from verify import QUICK_STATES, section_verify; "
        "out = section_verify(types.SimpleNamespace(quick=True)); "
        "print(json.dumps({**out, 'quick_states': QUICK_STATES}))"
    )
    done = _run(["-c", code], 600)  # a hang guard: it takes about 2 s
    assert done.returncode == 0, done.stderr
    section = json.loads(done.stdout.splitlines()[-1])
    assert section["status"] == "ok"
    assert section["note"]
    assert section["build"] == ("compiled" if cardshop.compiled else "pure")
    _check_rows(section["rows"], {"all"}, section["quick_states"])


def test_verify_benchmark_unknown_check_is_a_usage_error() -> None:
    done = _run([str(VERIFY), "--checks", "all,no-such-check"], 300)  # it ends in a second
    assert done.returncode == 2
    assert "no-such-check" in done.stderr
