"""The play, simulate and replay commands, end to end: typer's runner and a real process."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardshop import new_game
from cardshop.cli import app
from cardshop.core.registry import get_family
from cardshop.records import read_record, replay_record
from cardshop.simulation import simulate
from dask_support import DASK

runner = CliRunner()


def cardshop(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``python -m cardshop ARGS`` in a real process."""
    return subprocess.run(
        [sys.executable, "-m", "cardshop", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: a command takes seconds, this is 100 times that
        check=False,
    )


def one_paragraph_error(stderr: str, *fragments: str) -> None:
    """A user error: one paragraph on stderr, no traceback."""
    assert "Traceback" not in stderr
    text = stderr.strip()
    assert text.startswith("cardshop: error: ")
    assert "\n\n" not in text
    for fragment in fragments:
        assert fragment in " ".join(text.split()), stderr


# ------------------------------------------------------------------- simulate


def test_simulate_summary_json_and_csv(tmp_path: Path) -> None:
    out_json, out_csv = tmp_path / "games.json", tmp_path / "games.csv"
    args = ["simulate", "klunker-en", "--players", "3", "--games", "6", "--bots", "greedy,random"]
    args += ["--workers", "1", "--seed", "2", "--json", str(out_json), "--csv", str(out_csv)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "6 games of klunker-en, 3 players" in result.stdout
    assert "Win share [95% CI]" in result.stdout
    assert "±" not in result.stdout
    assert "greedy" in result.stdout
    expected = simulate(
        "klunker-en", 3, 6, ["greedy", "random", "greedy"], seed=2, workers=1, rotate=True
    )
    doc = json.loads(out_json.read_text())
    assert doc["bots"] == ["greedy", "random", "greedy"]
    assert doc["games"] == [o.to_dict() for o in expected]
    with out_csv.open() as f:
        rows = list(csv.DictReader(f))
    assert [int(r["score_1"]) for r in rows] == [o.scores[1] for o in expected]
    assert list(rows[0]) == expected.columns()


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--bots", "random,clever"], ["unknown bot 'clever'"]),
        (["--players", "9"], ["3 to 5 players, not 9"]),
        (["--workers", "0"], ["workers must be at least 1"]),
    ],
)
def test_simulate_user_errors_exit_2(args: list[str], fragments: list[str]) -> None:
    result = runner.invoke(app, ["simulate", "klunker-en", "--games", "2", *args])
    assert result.exit_code == 2
    one_paragraph_error(result.stderr, *fragments)


def test_simulate_in_a_real_process_with_two_workers() -> None:
    proc = cardshop(
        "simulate", "klunker-en", "--players", "4", "--games", "8", "--workers", "2",
        "--seed", "5", "--bots", "greedy,random,random,random",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "8 games of klunker-en, 4 players" in proc.stdout
    assert "8/8" in proc.stderr  # the progress bar, finished
    summary = {
        b.bot: b
        for b in simulate(
            "klunker-en", 4, 8, "greedy,random,random,random", 5, workers=1, rotate=True
        ).summary()
    }
    greedy = summary["greedy"]
    low, high = greedy.score_interval
    assert f"{greedy.mean_score:.2f} [{low:.2f}, {high:.2f}]" in proc.stdout
    wins = (
        f"{100 * greedy.win_share:.1f}% [{100 * greedy.win_low:.1f}, {100 * greedy.win_high:.1f}]"
    )
    assert wins in proc.stdout


@DASK
def test_simulate_on_a_dask_scheduler_by_address(tmp_path: Path) -> None:
    import distributed  # the 'distributed' extra, part of 'dev'

    out = tmp_path / "dask.json"
    with distributed.LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=1, processes=False, protocol="tcp://", host="127.0.0.1", dashboard_address=None
    ) as cluster:
        result = runner.invoke(
            app,
            ["simulate", "klunker-en", "--players", "3", "--games", "6", "--seed", "4",
             "--bots", "greedy,random,random", "--dask", cluster.scheduler_address,
             "--json", str(out), "--quiet"],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    expected = simulate("klunker-en", 3, 6, "greedy,random,random", seed=4, workers=1, rotate=True)
    assert json.loads(out.read_text())["games"] == [o.to_dict() for o in expected]


# --------------------------------------------------------------------- replay


def test_replay_ok_and_broken(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    played = runner.invoke(
        app,
        ["play", "klunker-en", "--players", "3", "--seat", "2", "--bot", "random",
         "--seed", "8", "--record", str(path)],
        input="1\n" * 400,
    )  # fmt: skip
    assert played.exit_code == 0, played.output
    result = runner.invoke(app, ["replay", str(path), "--moves"])
    assert result.exit_code == 0, result.output
    n = len(read_record(path).actions)
    assert f"{n} actions verified; game finished" in result.stdout
    lines = path.read_text().splitlines()
    row = json.loads(lines[3])
    row["actions"][0]["action"] = "decline"  # never legal in the first fill phase
    lines[3] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n")
    broken = runner.invoke(app, ["replay", str(path)])
    assert broken.exit_code == 2
    one_paragraph_error(broken.stderr, f"{path}:4: action 'decline' no longer fits")
    proc = cardshop("replay", str(tmp_path / "absent.jsonl"))
    assert proc.returncode == 2
    one_paragraph_error(proc.stderr, "cannot read the record")


# ----------------------------------------------------------------------- play


def test_play_commands_validation_undo_save_and_resume(tmp_path: Path) -> None:
    game = new_game("klunker-en", 3, seed=4, first_player=0)  # what the command will deal
    hand = game.observation(0).hand
    kinds = game.rules.kinds
    legal = [str(a) for a in game.legal_actions()]
    saved = tmp_path / "saved.jsonl"
    script = "\n".join(
        [
            "help",  # the commands
            "dance",  # not an action
            "99",  # not in the list
            "buy 1",  # an action, but not now
            "undo",  # nothing to undo yet
            "1",  # a first card into the window
            "undo",  # taken back
            legal[-1],  # another card, by its text
            "save " + str(saved),
            "quit",
        ]
    )
    result = runner.invoke(
        app,
        ["play", "klunker-en", "--players", "3", "--seat", "0", "--bot", "random", "--seed",
         "4", "--first-player", "0"],
        input=script + "\n",
    )  # fmt: skip
    out = result.stdout
    assert result.exit_code == 0, result.output
    # The table is the family's drawing for seat 0: its own hand, the others' sizes.
    assert get_family("klunker").render(game, 0) in out
    assert get_family("klunker").render(game, None) not in out
    shown = ", ".join(f"{k} {c}" for k, c in zip(kinds, hand, strict=True) if c)
    assert f"hand   {shown}" in out
    assert "hand   6 cards" in out  # the other seats' hands: sizes only
    assert "Your move: " + "  ".join(f"{i}) {a}" for i, a in enumerate(legal, 1)) in out
    assert "take back your last action of this turn" in out  # help
    assert "unknown action 'dance'" in out
    assert f"99 is not in the list: choose 1 to {len(legal)}" in out
    assert "not now: illegal action 'buy 1'" in out
    assert "nothing to undo" in out
    assert "undone" in out
    assert f"saved to {saved}" in out
    assert "game left unfinished" in out
    record = read_record(saved)
    assert record.bots == ("human", "random", "random")
    assert [str(r.action) for r in record.actions] == [legal[-1]]  # the undone card is gone

    resumed = runner.invoke(app, ["play", "--resume", str(saved)], input="done\nquit\n")
    assert resumed.exit_code == 0, resumed.output
    assert "1 actions replayed and verified" in resumed.stdout
    assert "you are seat 0" in resumed.stdout
    assert "seat 1 (random):" in resumed.stdout  # the bots play on after 'done'


def test_play_user_errors_exit_2(tmp_path: Path) -> None:
    bad = runner.invoke(app, ["play", "klunker-en", "--players", "3", "--seat", "5"])
    assert bad.exit_code == 2
    one_paragraph_error(bad.stderr, "--seat must be a seat 0..2")
    bot = runner.invoke(app, ["play", "klunker-en", "--bot", "genius"])
    assert bot.exit_code == 2
    one_paragraph_error(bot.stderr, "unknown bot 'genius'")
    missing = runner.invoke(app, ["play", "--resume", str(tmp_path / "none.jsonl")])
    assert missing.exit_code == 2
    one_paragraph_error(missing.stderr, "cannot read the record")


def test_undo_never_crosses_another_players_move() -> None:
    # Seat 0 starts: its window gets cards, then 'done' ends its turn; the bots move.
    script = "1\n2\nundo\ndone\nundo\nquit\n"
    result = runner.invoke(
        app,
        ["play", "klunker-en", "--players", "3", "--seat", "0", "--bot", "random", "--seed",
         "4", "--first-player", "0"],
        input=script,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.count("undone") == 1
    assert "nothing to undo" in out


def test_play_a_whole_game_in_a_real_process_from_scripted_input(tmp_path: Path) -> None:
    path = tmp_path / "whole.jsonl"
    proc = cardshop(
        "play", "klunker-en", "--players", "3", "--seat", "1", "--bot", "greedy",
        "--seed", "11", "--record", str(path),
        stdin="table\n" + "1\n" * 400,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Game finished after" in proc.stdout
    assert "seat 1 (you):" in proc.stdout
    game = replay_record(path)
    assert game.is_over
    assert read_record(path).bots == ("greedy", "human", "greedy")
    replayed = cardshop("replay", str(path))
    assert replayed.returncode == 0, replayed.stderr
    assert "game finished" in replayed.stdout


def test_play_stops_cleanly_at_the_end_of_input() -> None:
    proc = cardshop(
        "play", "klunker-en", "--players", "4", "--seat", "3", "--seed", "2", stdin="help\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert "end of input: leaving the game unfinished" in proc.stderr
    assert "Traceback" not in proc.stderr
