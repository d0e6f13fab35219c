"""``cardshop verify`` beyond one process and one sitting: the work shared over worker
processes and a real Dask cluster on loopback gives the very report one process
gives; a search stopped by a budget, a signal or an exception half-way through a
merge is saved to a checkpoint and goes on from it to the same report; a checkpoint
file is read as hostile input.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cardshop.core import SetupError, VariantBase, variant_from_data
from cardshop.verify import CheckpointError, Search, SearchWorkerLostError, make_report
from dask_support import DASK, loopback_cluster
from tinyfamily import TinyGame
from verify_support import GUARD, HERE, TINY_CLI, TINY_SMALL, tiny_mini
from verify_support import tiny_cli as cli

pytestmark = [pytest.mark.usefixtures("tiny_registered"), pytest.mark.build_independent]


def mini(**changes: Any) -> VariantBase:
    """:data:`TINY_SMALL` (verify_support) with ``changes``."""
    return tiny_mini(TINY_SMALL, **changes)


def same(search: Search) -> dict[str, Any]:
    """The report without its times, which differ from run to run."""
    data = make_report(search).to_dict()
    del data["seconds"], data["states_per_second"]
    return data


def whole(variant: VariantBase, **settings: Any) -> dict[str, Any]:
    """The report of a search of ``variant`` to its end in one process (found once per
    variant and settings in a test process: every caller asks with the rules as they
    are, none patched)."""
    data = json.dumps(variant.to_data(), sort_keys=True)
    return copy.deepcopy(_whole(data, tuple(sorted(settings.items()))))


@functools.cache
def _whole(data: str, settings: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    search = Search(variant_from_data(json.loads(data)), 2, **dict(settings))
    search.run()
    return same(search)


# ---------------------------------------------------------------- sharing out


@pytest.mark.parametrize("dynamics", ["sequential", "simultaneous"])
def test_worker_processes_give_the_report_one_process_gives(dynamics: str) -> None:
    variant = mini(dynamics=dynamics)
    alone = whole(variant)
    shared = Search(variant, 2)
    shared.run(workers=2)
    assert same(shared) == alone
    assert alone["complete"]
    assert alone["states"] > 1000


def _plant(monkeypatch: pytest.MonkeyPatch) -> None:
    """A defect in a copy of the rules: after step 4, when seat 0 holds a pile, its top
    card vanishes; and a step raises where seat 1's pile is empty at step 3. Worker
    processes are forked, so they play the changed rules too."""
    play = TinyGame._play

    def broken(self: TinyGame, actions: Any) -> list[Any]:
        if self._step == 3 and not self.piles[1]:
            raise RuntimeError("a planted fault")
        events = play(self, actions)
        if self._step == 4 and self.piles[0]:
            self.piles[0].pop()
        return events

    monkeypatch.setattr(TinyGame, "_play", broken)


def test_worker_processes_find_the_same_faults_and_counterexamples(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _plant(monkeypatch)
    alone = Search(mini(), 2, keep_going=True)
    alone.run()
    shared = Search(mini(), 2, keep_going=True)
    shared.run(workers=2)
    assert {f.check for f in alone.faults} == {"invariants", "playability"}
    assert shared.faults == alone.faults
    assert same(shared) == same(alone)
    first = make_report(alone).counterexamples[0]
    again = make_report(shared).counterexamples[0]
    assert first.record.dumps() == again.record.dumps()


def test_a_budget_stops_shared_work_where_it_stops_one_process() -> None:
    one = Search(mini(), 2)
    one.run(max_states=1500)  # into depth 4 (the layers: 90, 180, 360, 522, 735, ...)
    two = Search(mini(), 2)
    two.run(max_states=1500, workers=2)
    assert not one.complete
    assert not two.complete
    # chunks end where a budget is seen, so the counts may differ; the depth to which
    # the search is exhaustive and the layers to it are the same
    d = min(same(one)["exhaustive_to"], same(two)["exhaustive_to"])
    assert d >= 2
    assert same(one)["layers"][: d + 1] == same(two)["layers"][: d + 1]
    two.run(workers=2)
    assert same(two) == whole(mini())


@DASK
def test_a_dask_cluster_gives_the_report_one_process_gives() -> None:
    with loopback_cluster() as (_, client):
        search = Search(mini(dynamics="simultaneous"), 2)
        search.run(executor=client)
    assert same(search) == whole(mini(dynamics="simultaneous"))


@DASK
def test_the_command_line_shares_a_mini_variant_over_a_dask_cluster(tmp_path: Path) -> None:
    path = tmp_path / "tiny-small.yaml"
    path.write_text(json.dumps(TINY_SMALL))
    with loopback_cluster() as (cluster, _):  # its worker runs here, with the tiny family
        done = cli(
            "verify", str(path), "--dask", cluster.scheduler_address,
            "--json", str(tmp_path / "dask.json"),
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "dask.json").read_text())
    del report["seconds"], report["states_per_second"]
    assert report == whole(mini())
    assert report["complete"]


def _dying(pid: int) -> Callable[[TinyGame, Any], list[Any]]:
    """The tiny game's step, except in a worker process at step 3: it dies there."""
    play = TinyGame._play

    def dying(self: TinyGame, actions: Any) -> list[Any]:
        if os.getpid() != pid and self._step == 3:
            os._exit(3)  # as a worker killed by the system would end
        return play(self, actions)

    return dying


def test_a_worker_that_dies_leaves_a_search_that_is_saved_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    play = TinyGame._play
    monkeypatch.setattr(TinyGame, "_play", _dying(os.getpid()))
    search = Search(mini(), 2)
    with pytest.raises(SearchWorkerLostError, match="a worker process died"):
        search.run(workers=2)
    assert not search.complete
    monkeypatch.setattr(TinyGame, "_play", play)
    search.save(tmp_path / "lost.zip")
    again = Search.load(tmp_path / "lost.zip")
    again.run()
    assert same(again) == whole(mini())


def test_the_command_line_saves_the_search_when_a_worker_dies(tmp_path: Path) -> None:
    path = tmp_path / "tiny-small.yaml"
    path.write_text(json.dumps(TINY_SMALL))
    saved = tmp_path / "lost.zip"
    code = (
        f"import os, sys; sys.path.insert(0, {str(HERE)!r}); import tinyfamily; "
        "tinyfamily.register(); from test_verify_scale import _dying; "
        "tinyfamily.TinyGame._play = _dying(os.getpid()); "
        "from cardshop.__main__ import main; sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "verify", str(path), "-w", "2", "--checkpoint", str(saved)],
        capture_output=True,
        text=True,
        timeout=GUARD,
    )
    assert done.returncode == 2, done.stderr
    assert "a worker process died" in done.stderr
    assert f"go on with cardshop verify --resume {saved}" in done.stderr
    assert "Traceback" not in done.stderr
    resumed = cli("verify", "--resume", str(saved), "--json", str(tmp_path / "r.json"))
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    del report["seconds"], report["states_per_second"]
    assert report == whole(mini())


def test_workers_and_an_executor_are_refused_together_and_workers_are_bounded() -> None:
    with pytest.raises(SetupError, match="not both"):
        Search(mini(), 2).run(workers=2, executor=object())
    for bad in (0, -1, 10_000, True):
        with pytest.raises(SetupError, match="workers must be"):
            Search(mini(), 2).run(workers=bad)


# ---------------------------------------------------------------- checkpoints


@pytest.mark.parametrize("exact", [False, True])
def test_a_search_saved_at_a_budget_goes_on_to_the_same_report(tmp_path: Path, exact: bool) -> None:
    path = tmp_path / "search.zip"
    first = Search(mini(), 2, exact=exact)
    first.run(max_states=400)
    first.save(path)
    second = Search.load(path)
    assert same(second) == same(first)
    second.run(max_states=1500)
    second.save(path)
    third = Search.load(path)
    third.run(workers=2)
    assert third.complete
    assert same(third) == whole(mini(), exact=exact)


def test_a_stop_in_the_middle_of_a_merge_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    search = Search(mini(), 2)
    search.run(max_states=600)
    calls = 0
    add = Search._add

    def stopping(self: Search, *args: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 50:  # half-way through a chunk's successors
            raise KeyboardInterrupt
        return add(self, *args)

    monkeypatch.setattr(Search, "_add", stopping)
    before = same(search)
    with pytest.raises(KeyboardInterrupt):
        search.run()
    assert same(search)["states"] >= before["states"]
    monkeypatch.setattr(Search, "_add", add)
    search.save(tmp_path / "stopped.zip")
    again = Search.load(tmp_path / "stopped.zip")
    again.run()
    assert same(again) == whole(mini())


def test_faults_kept_going_past_are_saved_with_their_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _plant(monkeypatch)
    search = Search(mini(), 2, keep_going=True)
    search.run(max_states=1500)
    assert not search.complete
    assert any(f.step is not None for f in search.faults)
    search.save(tmp_path / "k.zip")
    loaded = Search.load(tmp_path / "k.zip")
    assert loaded.faults == search.faults
    loaded.run()
    search.run()
    assert same(loaded) == same(search)


def _checkpoint(tmp_path: Path) -> Path:
    path = tmp_path / "good.zip"
    search = Search(mini(), 2)
    search.run(max_states=400)
    search.save(path)
    return path


def _rewrite(src: Path, dst: Path, change: dict[str, Any]) -> Path:
    """A copy of checkpoint ``src`` with members replaced (bytes) or dropped (None)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            if info.filename in change:
                continue
            zout.writestr(info.filename, zin.read(info.filename))
        for name, data in change.items():
            if data is not None:
                zout.writestr(name, data)
    return dst


def _header(path: Path, **changes: Any) -> bytes:
    with zipfile.ZipFile(path) as zf:
        header = json.loads(zf.read("search.json"))
    for key, value in changes.items():
        if "." in key:
            outer, inner = key.split(".")
            header[outer][inner] = value
        else:
            header[key] = value
    return json.dumps(header).encode()


def _last_word(path: Path, member: str, value: int) -> bytes:
    """An array of the checkpoint with its last word changed."""
    with zipfile.ZipFile(path) as zf:
        data = bytearray(zf.read(member))
    data[-8:] = value.to_bytes(8, sys.byteorder, signed=True)
    return bytes(data)


def _bad_parents(path: Path) -> bytes:
    return _last_word(path, "parents.bin", 10**6)  # a parent after its child


def _bad_key(path: Path) -> bytes:
    return _last_word(path, "keys.bin", 12345)  # the key of no state


def _unread(path: Path) -> bytes:
    """The pending games, the last one's JSON broken: it is played again from its
    deal along its parents."""
    with zipfile.ZipFile(path) as zf:
        lines = zf.read("pending.jsonl").splitlines()
    number = lines[-1].split(b" ", 1)[0]
    return b"\n".join([*lines[:-1], number + b' {"format": 1}']) + b"\n"


def _swapped_game(path: Path) -> bytes:
    with zipfile.ZipFile(path) as zf:
        lines = zf.read("pending.jsonl").splitlines()
    numbers = [line.split(b" ", 1)[0] for line in lines]
    games = [line.split(b" ", 1)[1] for line in lines]
    games[0], games[1] = games[1], games[0]  # each game under another's number
    return b"\n".join(n + b" " + g for n, g in zip(numbers, games, strict=True)) + b"\n"


@pytest.mark.parametrize(
    ("case", "says"),
    [
        ("not a zip", "not a zip file"),
        ("no header", "no search.json"),
        ("header not JSON", "not JSON"),
        ("another format", "its format is not"),
        ("counts too big", "counts.states"),
        ("arrays short", "not the"),
        ("a parent after its child", "not an earlier state"),
        ("a game under another number", "not the state numbered so"),
        ("a line without a state number", "does not start with a state number"),
        ("a game of a state its parents do not reach", "not reached by its parents"),
        ("more games than its counts say", "more than the"),
        ("another variant hash", "content hash"),
    ],
)
def test_a_hostile_checkpoint_is_refused_with_a_reason(
    tmp_path: Path, case: str, says: str
) -> None:
    good = _checkpoint(tmp_path)
    bad = tmp_path / "bad.zip"
    if case == "not a zip":
        bad.write_bytes(b"PK\x03\x04 not really")
    elif case == "no header":
        _rewrite(good, bad, {"search.json": None})
    elif case == "header not JSON":
        _rewrite(good, bad, {"search.json": b"{not json"})
    elif case == "another format":
        _rewrite(good, bad, {"search.json": _header(good, format="cardshop-verify-checkpoint/9")})
    elif case == "counts too big":
        _rewrite(good, bad, {"search.json": _header(good, **{"counts.states": 2**40})})
    elif case == "arrays short":
        _rewrite(good, bad, {"depths.bin": b"\0" * 8})
    elif case == "a parent after its child":
        _rewrite(good, bad, {"parents.bin": _bad_parents(good)})
    elif case == "a game under another number":
        _rewrite(good, bad, {"pending.jsonl": _swapped_game(good)})
    elif case == "a line without a state number":
        _rewrite(good, bad, {"pending.jsonl": b'x {"format": 1}\n'})
    elif case == "a game of a state its parents do not reach":
        _rewrite(good, bad, {"pending.jsonl": _unread(good), "keys.bin": _bad_key(good)})
    elif case == "more games than its counts say":
        with zipfile.ZipFile(good) as zf:
            pending = zf.read("pending.jsonl")
        _rewrite(good, bad, {"pending.jsonl": pending + pending.splitlines(keepends=True)[0]})
    else:
        _rewrite(good, bad, {"search.json": _header(good, variant_hash="0" * 64)})
    with pytest.raises(CheckpointError, match=says) as refused:
        Search.load(bad)
    assert str(bad) in str(refused.value)
    done = cli("verify", "--resume", str(bad))
    assert done.returncode == 2
    assert says in done.stderr
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr


# ---------------------------------------------------------- bit-state hashing


def test_a_table_large_enough_finds_every_state_and_says_termination_is_unchecked() -> None:
    search = Search(mini(), 2, bitstate=28)
    search.run(workers=2)
    data, alone = same(search), whole(mini())
    assert data["states"] == alone["states"]
    assert data["layers"] == alone["layers"]
    assert data["coverage"] == alone["coverage"]
    assert "bit-state hashing: a table of 2**28 bits" in data["keys"]
    assert search.missed() < 1e-3  # about 4 n**3 / (3 m**2)
    assert data["termination"].startswith("not checked: bit-state hashing")
    assert data["complete"]


def test_a_table_too_small_misses_states_and_says_so() -> None:
    search = Search(mini(), 2, bitstate=10)  # 1,024 bits for 3,852 states
    search.run()
    assert search.states < whole(mini())["states"]
    assert search.missed() > 100
    assert f"about {search.missed():.3g} states were taken" in same(search)["keys"]


def test_bit_state_hashing_finds_the_shortest_counterexample(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _plant(monkeypatch)
    alone = Search(mini(), 2)
    alone.run()
    bits = Search(mini(), 2, bitstate=26)
    bits.run(max_states=700)
    bits.save(tmp_path / "bits.zip")
    again = Search.load(tmp_path / "bits.zip")
    again.run(workers=2)
    assert again.faults == alone.faults
    ours = make_report(again).counterexamples[0].record.dumps()
    assert ours == make_report(alone).counterexamples[0].record.dumps()


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"bitstate": 9}, "bitstate must be a whole number 10..36"),
        ({"bitstate": 37}, "bitstate must be"),
        ({"bitstate": True}, "bitstate must be"),
        ({"bitstate": 20, "exact": True}, "cannot be exact"),
    ],
)
def test_bad_bit_state_settings_are_refused(settings: dict[str, Any], says: str) -> None:
    with pytest.raises(SetupError, match=says):
        Search(mini(), 2, **settings)


# ------------------------------------------------------------- the command line


def test_the_command_line_saves_at_a_budget_and_resumes_with_workers(tmp_path: Path) -> None:
    path = tmp_path / "tiny-small.yaml"
    path.write_text(json.dumps(TINY_SMALL))
    saved = tmp_path / "search.zip"
    first = cli("verify", str(path), "--max-states", "900", "--checkpoint", str(saved))
    assert first.returncode == 0, first.stderr
    assert f"--resume {saved}" in first.stdout
    assert "exhaustive to depth" in first.stdout
    done = cli("verify", "--resume", str(saved), "-w", "2", "--json", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    del report["seconds"], report["states_per_second"]
    assert report == whole(mini())


def test_ctrl_c_saves_the_search_and_it_goes_on_to_the_same_report(tmp_path: Path) -> None:
    # 7,346 states, some 2.5 s of search on the test machine: the signal comes half a
    # second in, well before the end on a machine several times faster
    larger = {**TINY_SMALL, "name": "tiny-larger", "cards": [1, 2, 3, 1, 2, 4]}
    path = tmp_path / "tiny-larger.yaml"
    path.write_text(json.dumps(larger))
    saved = tmp_path / "search.zip"
    out = tmp_path / "out.txt"
    with out.open("w") as sink:
        run = subprocess.Popen(
            [sys.executable, "-c", TINY_CLI.format(tests=str(HERE)), "verify", str(path),
             "--checkpoint", str(saved)],
            stdout=sink, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + GUARD
            while "cardshop: verifying" not in out.read_text():  # the search has begun
                assert run.poll() is None, out.read_text()
                assert time.monotonic() < deadline, "the command never started its search"
                time.sleep(0.05)
            time.sleep(0.5)  # some states in: the checkpoint holds a search under way
            run.send_signal(signal.SIGINT)
            code = run.wait(GUARD)
        finally:
            run.kill()
    text = out.read_text()
    assert code == 130, text
    assert f"the search is saved in {saved}" in text
    done = cli("verify", "--resume", str(saved), "--json", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    assert "on from" in done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    del report["seconds"], report["states_per_second"]
    assert report == whole(tiny_mini(larger))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--resume", "x.zip", "-p", "2"], "leave out --players"),
        ([], "name a VARIANT"),
        (["wuhltisch-mini", "-w", "2", "--dask", "127.0.0.1:1"], "not both"),
        (["wuhltisch-mini", "--dask-timeout", "0"], "--dask-timeout"),
        (["wuhltisch-mini", "-w", "0"], "workers must be"),
        (["--resume", "missing.zip"], "missing.zip"),
        (["wuhltisch-mini", "--bitstate", "40"], "bitstate must be"),
        (["wuhltisch-mini", "--bitstate", "20", "--exact"], "cannot be exact"),
    ],
)
def test_the_command_line_refuses_bad_scale_options(
    tmp_path: Path, args: list[str], says: str
) -> None:
    done = cli("verify", *args, cwd=tmp_path)
    assert done.returncode == 2, done.stdout
    assert says in done.stderr
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
