"""The command line's failure modes, through real processes: typer's usage errors,
hostile input at the ``play`` prompt, a fault inside ``play``, ``--version`` and
shell completion."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardshop import new_game
from cardshop.cli import _play, app
from cardshop.cli._app import atomic_output
from cardshop.records import read_record

runner = CliRunner()


def cardshop(
    *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m cardshop ARGS`` in a real process (stdin as raw bytes)."""
    proc = subprocess.run(
        [sys.executable, "-m", "cardshop", *args],
        input=stdin,
        capture_output=True,
        timeout=900,  # a hang guard: a command takes seconds, this is 100 times that
        check=False,
        env={**os.environ, **(env or {})},
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )


def assert_one_paragraph(stderr: str, *fragments: str) -> None:
    assert "Traceback" not in stderr
    text = stderr.strip()
    assert text.startswith("cardshop: error: "), stderr
    assert "\n" not in text, stderr  # one paragraph: a single line
    for fragment in fragments:
        assert fragment in text, stderr


# Every command with at least one usage error: an unknown option, a missing
# argument, a value of the wrong type, an extra argument.
USAGE_ERRORS = [
    ([], "Missing command"),
    (["nosuch"], "No such command 'nosuch'"),
    (["--nosuch"], "No such option: --nosuch"),
    (["demo", "--players", "abc"], "Invalid value for '--players'"),
    (["demo", "--seed"], "requires an argument"),
    (["variants", "extra"], "Got unexpected extra argument"),
    (["validate"], "Missing argument"),
    (["show"], "Missing argument"),
    (["show", "klunker-en", "--yaml"], "No such option: --yaml"),
    (["schema", "--json"], "No such option: --json"),
    (["diff", "klunker-en"], "Missing argument"),
    (["compare", "klunker-en", "klunker-es", "--games", "many"], "Invalid value for '--games'"),
    (["audit"], "name a variant to audit"),
    (["audit", "klunker-en", "--games", "many"], "Invalid value for '--games'"),
    (["audit", "klunker-en", "--max-cap-share", "x"], "Invalid value for '--max-cap-share'"),
    (["play", "--seat", "first"], "Invalid value for '--seat'"),
    (["play", "klunker-en", "--bogus"], "No such option: --bogus"),
    (["simulate"], "Missing argument"),
    (["simulate", "klunker-en", "--workers", "2.5"], "Invalid value for '--workers'"),
    (["simulate", "klunker-en", "--dask-timeout", "soon"], "Invalid value for '--dask-timeout'"),
    (["ladder"], "Missing argument"),
    (["verify"], "name a VARIANT to verify"),
    (["verify", "klunker-mini", "--max-states", "lots"], "Invalid value for '--max-states'"),
    (["skill-depth"], "Missing argument"),
    (["skill-depth", "klunker-en", "--deals", "many"], "Invalid value for '--deals'"),
    (
        ["ladder", "klunker-en", "--bots", "random,greedy", "--deals", "many"],
        "Invalid value for '--deals'",
    ),
    (["replay"], "Missing argument"),
    (["tune"], "Missing argument"),
    (["tune", "spec.yaml", "--workers", "two"], "Invalid value for '--workers'"),
    (["replay", "a.jsonl", "b.jsonl"], "Got unexpected extra argument"),
    (["serve", "--port", "http"], "Invalid value for '--port'"),
    (["serve", "extra"], "Got unexpected extra argument"),
    (["mcp", "--max-games", "many"], "Invalid value for '--max-games'"),
]


@pytest.mark.parametrize(
    ("args", "message"), USAGE_ERRORS, ids=[" ".join(args) or "-" for args, _ in USAGE_ERRORS]
)
def test_usage_errors_are_one_paragraph_with_exit_2(args: list[str], message: str) -> None:
    proc = cardshop(*args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert_one_paragraph(proc.stderr, message, "--help")
    assert proc.stdout == ""


def test_every_command_has_a_usage_error_case() -> None:
    help_text = cardshop("--help").stdout
    listed = help_text.split("Commands:")[1].splitlines()
    commands = {line.split()[0] for line in listed if line.startswith("  ") and line.strip()}
    assert {"demo", "play", "simulate", "audit"} <= commands
    covered = {args[0] for args, _ in USAGE_ERRORS if args and not args[0].startswith("-")}
    assert commands <= covered, commands - covered


def test_version() -> None:
    import cardshop as package

    proc = cardshop("--version")
    assert proc.returncode == 0, proc.stderr
    build = "compiled" if package.compiled else "pure Python"
    assert proc.stdout.strip() == f"cardshop {package.__version__} ({build})"


def test_shell_completion_is_offered() -> None:
    proc = cardshop("--help")
    assert "--install-completion" in proc.stdout
    completed = cardshop(env={"_CARDSHOP_COMPLETE": "complete_bash", "COMP_WORDS": "cardshop si",
                              "COMP_CWORD": "1"})  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["simulate"]


# --------------------------------------------------------------------- demo


def test_demo_prints_every_event_of_a_sale() -> None:
    """A 'sell KIND' action has no echo event: its first event is the sale itself."""
    result = runner.invoke(app, ["demo", "klunker-en", "--players", "3", "--seed", "1"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    sells = [i for i, line in enumerate(lines) if ": sell " in line]
    assert sells, "the seeded game has sales"
    for i in sells:
        seat_kind = lines[i].split("seat ", 1)[1]  # "2: sell tongue-bob"
        seat, kind = seat_kind.split(": sell ")
        assert lines[i + 1].strip().startswith(f"seat {seat} sells a row of {kind} "), lines[i + 1]
    # Every action's own event is printed too: each placed card appears.
    assert sum("places" in line for line in lines) == sum(": window " in line for line in lines)


# --------------------------------------------------------------------- play

HOSTILE_LINES = [
    "buy ²".encode(),
    "²".encode(),
    "window ²".encode(),
    "buy \u0661".encode(),  # ARABIC-INDIC DIGIT ONE
    b"",
    b"   ",
    b"\xff\xfe not text",
    b"x" * 2_000_000,
    b"9" * 5000,
    b"9" * 900,
    b"buy 99999999999999999999",
    b"window \x00",
    b"save",
    b"save /nonexistent-folder/x.jsonl",
    "store \u202e".encode(),
    b"-1",
    b"0",
]


def test_play_survives_hostile_input_then_stops_at_end_of_input(tmp_path: Path) -> None:
    record = tmp_path / "r.jsonl"
    stdin = b"\n".join(HOSTILE_LINES) + b"\n"
    proc = cardshop(
        "play", "klunker-en", "--players", "3", "--seed", "4", "--bot", "random",
        "--record", str(record), stdin=stdin,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "end of input: leaving the game unfinished" in proc.stderr
    out = proc.stdout
    assert out.count("write numbers with the digits 0-9") == 4
    assert "that line has 2,000,000 characters" in out
    assert "that line has 5,000 characters" in out
    assert "999999999... is not in the list" in out
    assert "save needs a file name" in out
    assert "cannot save to '/nonexistent-folder/x.jsonl'" in out
    assert "0 is not in the list" in out
    recorded = read_record(record)
    assert recorded.bots[0] == "human"
    assert all(r.seat != 0 for r in recorded.actions)  # no input became a move


def test_a_fault_in_play_saves_a_recovery_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    real_act = _play.Session.act
    calls = []

    def faulty(self: _play.Session, action: object) -> None:
        calls.append(action)
        if len(calls) == 2:
            raise RuntimeError("injected fault")
        real_act(self, action)  # type: ignore[arg-type]

    monkeypatch.setattr(_play.Session, "act", faulty)
    result = runner.invoke(
        app,
        ["play", "klunker-en", "--players", "3", "--seed", "4", "--first-player", "0",
         "--bot", "random"],
        input="1\n1\n1\n",
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    saved = list(tmp_path.glob("cardshop-recovery-*.jsonl"))
    assert len(saved) == 1
    assert "Traceback" not in result.stderr
    message = " ".join(result.stderr.split())
    assert "cardshop: internal error: RuntimeError: injected fault" in message
    assert f"the game so far is saved in {saved[0]}" in message
    assert f"cardshop play --resume {saved[0]}" in message
    record = read_record(saved[0])
    assert [str(r.action) for r in record.actions] == [str(calls[0])]
    assert record.seed == new_game("klunker-en", 3, seed=4).seed
    monkeypatch.undo()
    resumed = runner.invoke(app, ["play", "--resume", str(saved[0])], input="quit\n")
    assert resumed.exit_code == 0, resumed.output
    assert "1 actions replayed and verified" in resumed.stdout


# ------------------------------------------------------------- atomic files


def test_atomic_output_is_complete_or_absent(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    with atomic_output(path) as f:
        f.write("first\n")
    assert path.read_text() == "first\n"
    with pytest.raises(KeyboardInterrupt), atomic_output(path) as f:  # noqa: PT012
        f.write("half of the second")
        raise KeyboardInterrupt
    assert path.read_text() == "first\n"  # the old file, untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]  # no temporary left
    fresh = tmp_path / "fresh.txt"
    with pytest.raises(OSError, match="disk full"), atomic_output(fresh):
        raise OSError("disk full")
    assert not fresh.exists()
    assert (path.stat().st_mode & 0o777) == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# ------------------------------------------------------------- output targets


def _device(folder: Path, name: str, minor: int) -> Path:
    """A character device like /dev/null (minor 3) or /dev/full (minor 7), made in
    ``folder``, so that a writer that replaced devices would not harm the system's
    own (needs root, else the test is skipped: only root can replace a device)."""
    path = folder / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    except PermissionError:
        pytest.skip("making a device node needs root")
    return path


def test_output_to_a_device_writes_into_it_and_never_replaces_it(tmp_path: Path) -> None:
    device = _device(tmp_path, "null", 3)
    proc = cardshop(
        "simulate", "klunker-en", "--games", "2", "-q", "--json", str(device), "--csv",
        str(device),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(device.stat().st_mode)  # still the device, not a file renamed over it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]  # no temporary left


def test_output_to_a_full_device_is_a_user_error(tmp_path: Path) -> None:
    device = _device(tmp_path, "full", 7)
    proc = cardshop("simulate", "klunker-en", "--games", "2", "-q", "--json", str(device))
    assert proc.returncode == 2, proc.stderr
    assert_one_paragraph(proc.stderr, f"cannot write {device}", "No space left on device")
    assert stat.S_ISCHR(device.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]


def test_output_to_a_fifo_streams_to_its_reader_and_refuses_one_nobody_reads(
    tmp_path: Path,
) -> None:
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    proc = cardshop("simulate", "klunker-en", "--games", "2", "-q", "--json", str(fifo))
    assert proc.returncode == 2, proc.stderr
    assert_one_paragraph(proc.stderr, f"cannot write {fifo}", "a FIFO that no process reads")
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    time.sleep(0.2)  # the reader opens the FIFO before the command writes
    proc = cardshop("simulate", "klunker-en", "--games", "2", "-q", "--json", str(fifo))
    reader.join(timeout=600)  # a hang guard: the command takes about a second
    assert proc.returncode == 0, proc.stderr
    assert [game["game"] for game in json.loads(received[0])["games"]] == [0, 1]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_output_through_a_symlink_replaces_its_target_and_keeps_the_link(tmp_path: Path) -> None:
    target = tmp_path / "results.json"
    target.write_text("old\n")
    link = tmp_path / "latest.json"
    link.symlink_to(target.name)
    proc = cardshop("simulate", "klunker-en", "--games", "2", "-q", "--json", str(link))
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink()
    assert json.loads(target.read_text())["variant"] == "klunker-en"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest.json", "results.json"]


@pytest.mark.parametrize("kind", ["folder", "socket"])
def test_the_writer_refuses_other_kinds_of_file(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "out"
    if kind == "folder":
        path.mkdir()
    else:
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.close()
    with pytest.raises(OSError, match="out") as info, atomic_output(path) as f:
        f.write("x")
    assert str(path) in str(info.value)
    assert path.is_dir() if kind == "folder" else stat.S_ISSOCK(path.lstat().st_mode)


# ------------------------------------------------------------------ play exits


def test_ctrl_c_in_play_exits_130_after_writing_the_record(tmp_path: Path) -> None:
    # Python turns SIGINT into KeyboardInterrupt only in a process that does not start
    # with it ignored, and a child inherits an ignored SIGINT (this run may be a
    # script's background job, or under nohup), where a handled one is reset to its
    # default at exec: handled here while the child starts.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cardshop", "play", "klunker-en", "--players", "3",
             "--seed", "1", "--bot", "random", "--record", str(tmp_path / "r.jsonl")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )  # fmt: skip
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        assert proc.stdout is not None
        seen = b""
        deadline = time.monotonic() + 120  # a guard far above a normal start (about 2 s)
        while b"seat 0>" not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if ready:
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                seen += chunk
        assert b"seat 0>" in seen, seen
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=600)  # a hang guard: it stops at once
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    text = err.decode()
    assert proc.returncode == 130, text
    assert "Traceback" not in text
    assert "interrupted: leaving the game unfinished" in text
    assert read_record(tmp_path / "r.jsonl").bots[0] == "human"


def test_quit_in_play_exits_0() -> None:
    proc = cardshop(
        "play", "klunker-en", "--players", "3", "--seed", "1", "--bot", "random",
        stdin=b"quit\n",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "game left unfinished" in proc.stdout


def test_a_mistyped_action_in_play_gets_a_suggestion() -> None:
    proc = cardshop(
        "play", "klunker-en", "--players", "3", "--seed", "5", "--bot", "random",
        stdin=b"windw shoes\nquit\n",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if "windw shoes" in x)
    assert "'windw shoes' is not an action; did you mean window shoes?" in line
    assert "buy SEAT" not in line  # not every syntax at once
