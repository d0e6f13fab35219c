"""Game records: the JSON Lines format and its verified replay (docs/records.md)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

import cardshop
from cardshop import Game, RecordError, load_variant, new_game
from cardshop.bots import make_bot
from cardshop.klunker import event_to_dict
from cardshop.records import (
    RECORD_FORMAT,
    GameRecord,
    read_record,
    record_game,
    replay_record,
)
from cardshop.simulation import play_game

NAMES = ["greedy", "random", "greedy"]


@pytest.fixture(scope="module")
def finished() -> Game:
    bots = [make_bot(name, "klunker-en", seed=s) for s, name in enumerate(NAMES)]
    return play_game("klunker-en", 3, bots, seed=77)


@pytest.fixture
def record_file(finished: Game, tmp_path: Path) -> Path:
    path = tmp_path / "game.jsonl"
    record_game(finished, NAMES).write(path)
    return path


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_the_format_line_by_line(finished: Game, record_file: Path) -> None:
    rows = lines_of(record_file)
    head = rows[0]
    assert head["format"] == RECORD_FORMAT
    assert head["variant"] == "klunker-en"
    assert head["variant_hash"] == load_variant("klunker-en").content_hash
    assert head["variant_data"] == load_variant("klunker-en").to_data()
    assert (head["players"], head["seed"], head["first_player"]) == (3, 77, finished.first_player)
    assert head["bots"] == NAMES
    actions = rows[1:-1]
    assert [row["action"] for row in actions] == [str(a) for a in finished.history]
    assert [row["n"] for row in actions] == list(range(1, len(finished.history) + 1))
    # The events of each line are those the engine returns for that action.
    again = new_game("klunker-en", 3, 77, finished.first_player)
    for row in actions:
        assert row["seat"] == again.current_player
        assert row["events"] == [event_to_dict(e) for e in again.apply(row["action"])]
    result = finished.result()
    assert rows[-1] == {
        "result": {
            "scores": list(result.scores),
            "ranks": list(result.ranks),
            "winners": list(result.winners),
            "termination": "finished",
            "rounds": result.rounds,
        }
    }


def test_replay_reproduces_the_game(finished: Game, record_file: Path) -> None:
    game = replay_record(record_file)
    assert game == finished
    assert game.history == finished.history
    record = read_record(record_file)
    assert record.bots == tuple(NAMES)
    assert GameRecord.loads(record.dumps()).dumps() == record_file.read_text()


def test_an_unfinished_game_records_and_resumes(tmp_path: Path) -> None:
    game = new_game("klunker-en", 4, seed=5)
    for _ in range(30):
        game.apply(game.legal_actions()[-1])
    path = tmp_path / "half.jsonl"
    record_game(game).write(path)
    rows = lines_of(path)
    assert "result" not in rows[-1]
    assert rows[0]["bots"] == ["unknown"] * 4
    again = replay_record(path)
    assert again == game
    assert not again.is_over


def test_a_changed_variant_is_rejected_at_line_1(finished: Game, tmp_path: Path) -> None:
    changed = tmp_path / "cheaper.yaml"
    changed.write_text("extends: klunker-en\nname: klunker-en\npurchase: {price: 2}\n")
    record = record_game(finished, NAMES)
    with pytest.raises(RecordError, match=r"<record>:1: variant 'klunker-en' has changed"):
        record.replay(changed)
    # A record of an older edition of a built-in: its stored rules still replay it.
    bots = [make_bot("random", changed, seed=s) for s in range(3)]
    old = play_game(load_variant(changed), 3, bots, seed=3)
    path = tmp_path / "old.jsonl"
    record_game(old).write(path)
    with pytest.raises(RecordError, match=r"old\.jsonl:1: variant 'klunker-en' has changed"):
        replay_record(path)
    assert replay_record(path, recorded_variant=True) == old


def test_a_variant_known_only_from_the_record_replays(tmp_path: Path) -> None:
    own = tmp_path / "own.yaml"
    own.write_text("extends: klunker-en\nname: my-shop\nhand_size: 5\n")
    bots = [make_bot("random", own, seed=s) for s in range(3)]
    game = play_game(load_variant(own), 3, bots, seed=9)
    path = tmp_path / "own.jsonl"
    record_game(game).write(path)
    assert replay_record(path) == game  # 'my-shop' is no built-in: the stored rules decide
    assert replay_record(path, own) == game


def test_an_action_that_no_longer_fits_names_its_line(record_file: Path) -> None:
    rows = lines_of(record_file)
    i = next(i for i, row in enumerate(rows) if i > 5 and row.get("action") == "done")
    rows[i]["action"] = "decline"
    write_lines(record_file, rows)
    with pytest.raises(RecordError, match=rf"game\.jsonl:{i + 1}: action 'decline' no longer"):
        replay_record(record_file)


def test_other_events_than_recorded_name_the_line(record_file: Path) -> None:
    rows = lines_of(record_file)
    i = next(i for i, row in enumerate(rows) if row.get("events") and i > 3)
    rows[i]["events"][0]["seat"] = 99
    write_lines(record_file, rows)
    with pytest.raises(RecordError, match=rf"game\.jsonl:{i + 1}: .* other events"):
        replay_record(record_file)


def test_a_wrong_seat_or_result_is_found(record_file: Path) -> None:
    rows = lines_of(record_file)
    rows[4]["seat"] = (rows[4]["seat"] + 1) % 3
    write_lines(record_file, rows)
    with pytest.raises(RecordError, match=r"game\.jsonl:5: the record has seat"):
        replay_record(record_file)
    rows[4]["seat"] = (rows[4]["seat"] - 1) % 3
    rows[-1]["result"]["scores"][0] += 1
    write_lines(record_file, rows)
    with pytest.raises(RecordError, match=rf"game\.jsonl:{len(rows)}: the recorded result"):
        replay_record(record_file)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda rows, text: "", r"empty record"),
        (lambda rows, text: "not json\n" + text, r":1: not JSON"),
        (lambda rows, text: text + "[1, 2]\n", r":\d+: each line must be a JSON object"),
        (lambda rows, text: text.replace(RECORD_FORMAT, "other/9", 1), r":1: not a cardshop rec"),
        (lambda rows, text: text.replace('"players":3', '"players":"3"', 1), r":1: header key"),
        (lambda rows, text: text.replace('"hand_size":6', '"hand_size":5', 1), r":1: .*edited"),
        (lambda rows, text: text.replace('"n":2,', '"n":7,', 1), r":3: expected action number 2"),
        (lambda rows, text: text + '{"n": 1}\n', r"a line after the result line"),
    ],
    ids=["empty", "json", "object", "format", "header", "hash", "number", "after-result"],
)
def test_a_malformed_record_names_the_line(record_file: Path, edit: Any, message: str) -> None:
    text = record_file.read_text()
    record_file.write_text(edit(lines_of(record_file), text))
    with pytest.raises(RecordError, match=message):
        replay_record(record_file)


def test_a_missing_file_and_a_game_from_a_position(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read the record"):
        read_record(tmp_path / "absent.jsonl")
    for hand in ({}, {"shoes": 6}):
        seats = [{"hand": hand}, {}, {}]
        game = Game.from_position({"variant": "klunker-en", "seats": seats})
        game.apply(game.legal_actions()[0])
        with pytest.raises(RecordError, match="only games started by new_game"):
            record_game(game)
    with pytest.raises(RecordError, match="bots names 2 players"):
        record_game(new_game("klunker-en", 3, seed=1), ["a", "b"])


# ----------------------------------------------------------- hostile records


def _header(record_file: Path) -> dict[str, Any]:
    return lines_of(record_file)[0]


@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        ("variant", "/dev/zero", "never makes cardshop open a file"),
        ("variant", "../secret/app.yaml", "never makes cardshop open a file"),
        ("variant", "klunker-es", "variant_data is variant 'klunker-en'"),
        ("players", True, "'players'"),
        ("players", 9, "'players'"),
        ("seed", 10**30, "'seed'"),
        ("seed", 1.5, "'seed'"),
        ("first_player", 3, "'first_player'"),
        ("first_player", False, "'first_player'"),
        ("bots", ["a"], "'bots'"),
        ("bots", ["a", 1, "b"], "'bots'"),
        ("extra", 1, "unknown header key"),
    ],
)
def test_a_bad_header_is_a_record_error(
    record_file: Path, key: str, value: Any, match: str
) -> None:
    rows = lines_of(record_file)
    rows[0][key] = value
    write_lines(record_file, rows)
    with pytest.raises(RecordError, match=re.escape(match)):
        read_record(record_file)


def test_a_record_of_a_variant_not_built_in_replays_its_own_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The header's name is a label: a file of that name beside the record is not read."""
    mine = tmp_path / "mine.yaml"
    mine.write_text("extends: klunker-en\nname: mine\nround_cap: 3\n")
    variant = load_variant(str(mine))
    game = new_game(variant, 3, seed=4)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    path = tmp_path / "mine.jsonl"
    record_game(game).write(path)
    mine.write_text("this: [is not, a variant")  # never read by the replay
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").write_text("nor this")
    again = replay_record(path)
    assert again == game
    with pytest.raises(cardshop.VariantError):
        replay_record(path, variant=str(mine))  # the caller's file is read when given


def test_record_lines_are_bounded(record_file: Path, finished: Game) -> None:
    rows = lines_of(record_file)
    text = record_file.read_text()
    head = json.dumps(rows[0])
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(RecordError, match=":2: JSON nested too deeply"):
        GameRecord.loads(head + "\n" + deep + "\n")
    with pytest.raises(RecordError, match="line longer than"):
        GameRecord.loads(head + "\n" + '"' + "x" * 1_100_000 + '"\n')
    cap = GameRecord.loads(text).max_actions
    action = json.dumps({"n": 1, "seat": 0, "action": "done", "events": []})
    with pytest.raises(RecordError, match=f"more than {cap} actions"):
        GameRecord.loads(head + "\n" + (action + "\n") * (cap + 1))
    many = {"n": 1, "seat": 0, "action": "done", "events": [{}] * 1001}
    with pytest.raises(RecordError, match="at most 1000"):
        GameRecord.loads(head + "\n" + json.dumps(many))
    for bad, match in (
        ({"n": True, "seat": 0, "action": "done", "events": []}, "action number"),
        ({"n": 1, "seat": 7, "action": "done", "events": []}, "'seat'"),
        ({"n": 1, "seat": 0, "action": "buy \u00b2", "events": []}, "ASCII digits"),
        ({"n": 1, "seat": 0, "action": "x" * 500, "events": []}, "'action'"),
        ({"n": 1, "seat": 0, "action": "done", "events": [], "x": 1}, "unknown key"),
    ):
        with pytest.raises(RecordError, match=re.escape(match)):
            GameRecord.loads(head + "\n" + json.dumps(bad))
    with pytest.raises(RecordError, match="a record is text"):
        GameRecord.loads(b"{}")  # type: ignore[arg-type]


def test_only_regular_files_are_read_as_records(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="not a regular file"):
        read_record(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(RecordError, match="not a regular file"):
        read_record(fifo)  # opened without blocking, refused without reading
    with pytest.raises(RecordError, match="cannot read"):
        read_record(tmp_path / "a\x00b")
    with pytest.raises(RecordError, match="cannot read"):
        read_record(tmp_path / ("x" * 5000))
