"""Game records: the JSON Lines format and its verified replay (docs/records.md)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import cardshop
import tinyfamily
from cardshop import Game, RecordError, driver, load_variant, new_game
from cardshop.bots import RandomBot, make_bot
from cardshop.cli import app
from cardshop.core.registry import unregister_family
from cardshop.klunker import event_to_dict
from cardshop.records import (
    MAX_STEPS,
    RECORD_FORMAT,
    GameRecord,
    Recorder,
    read_record,
    record_game,
    replay_record,
)
from cardshop.simulation import play_game
from cardshop.wuhltisch import WuhltischGame

NAMES = ["greedy", "random", "greedy"]
TINY = Path(__file__).parent / "tinyfamily"
runner = CliRunner()


@pytest.fixture(autouse=True, scope="module")
def _tiny_family() -> Iterator[None]:
    """The tiny family is known only while these tests run."""
    tinyfamily.register()
    yield
    unregister_family(tinyfamily.NAME)


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
    assert head["format"] == RECORD_FORMAT == "cardshop-record/2"
    assert head["family"] == "klunker"
    assert head["variant"] == "klunker-en"
    assert head["variant_hash"] == load_variant("klunker-en").content_hash
    assert head["variant_data"] == load_variant("klunker-en").to_data()
    assert (head["players"], head["seed"]) == (3, 77)
    assert head["options"] == {"first_player": finished.first_player}
    assert head["bots"] == NAMES
    steps = rows[1:-1]
    # Klunker is turn-based: one action per step, in the order of the game's history.
    assert [row["actions"] for row in steps] == [
        [{"seat": m.seat, "action": str(m.action)}] for m in finished.moves
    ]
    assert [row["step"] for row in steps] == list(range(len(finished.history)))
    # The events of each line are those the engine returns for that action.
    again = new_game("klunker-en", 3, 77, finished.first_player)
    for row in steps:
        ((action,),) = [row["actions"]]
        assert action["seat"] == again.current_player
        assert row["events"] == [event_to_dict(e) for e in again.apply(action["action"])]
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
    assert rows[-1]["result"] == result.to_dict()


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
    i = next(i for i, row in enumerate(rows) if i > 5 and row["actions"][0]["action"] == "done")
    rows[i]["actions"][0]["action"] = "decline"
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
    seat = rows[4]["actions"][0]["seat"]
    rows[4]["actions"][0]["seat"] = (seat + 1) % 3
    write_lines(record_file, rows)
    with pytest.raises(RecordError, match=rf"game\.jsonl:5: the record has seat {(seat + 1) % 3} "):
        replay_record(record_file)
    rows[4]["actions"][0]["seat"] = seat
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
        (
            lambda rows, text: text.replace('"step":1,', '"step":7,', 1),
            r":3: expected step number 1",
        ),
        (lambda rows, text: text + '{"step": 1}\n', r"a line after the result line"),
        (
            lambda rows, text: text.replace(RECORD_FORMAT, "cardshop-record/1", 1),
            r":1: the record has the old format 'cardshop-record/1' of cardshop 0\.1",
        ),
    ],
    ids=["empty", "json", "object", "format", "header", "hash", "number", "after-result", "old"],
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
        ("options", {"first_player": 3}, "first_player must be a seat 0..2, not 3"),
        ("options", {"first_player": False}, "first_player must be a seat"),
        ("options", {"first_player": [1]}, "option 'first_player' must be a number"),
        ("options", {"dealer": 1}, "a klunker game takes no option 'dealer'"),
        ("options", [], "'options' is missing or not a dict"),
        ("family", "tinymarket2", "unknown family 'tinymarket2'"),
        ("family", 7, "'family' is missing or not a str"),
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


def test_every_header_key_is_required(record_file: Path) -> None:
    rows = lines_of(record_file)
    assert set(rows[0]) == {"format", "family", "variant", "variant_hash", "variant_data",
                            "players", "seed", "options", "bots"}  # fmt: skip
    for key in rows[0]:
        head = {k: v for k, v in rows[0].items() if k != key}
        with pytest.raises(RecordError, match=r"<record>:1: "):
            GameRecord.loads(json.dumps(head) + "\n")


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


def test_record_lines_are_bounded(
    record_file: Path, finished: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = lines_of(record_file)
    head = json.dumps(rows[0])
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(RecordError, match=":2: JSON nested too deeply"):
        GameRecord.loads(head + "\n" + deep + "\n")
    with pytest.raises(RecordError, match="line longer than"):
        GameRecord.loads(head + "\n" + '"' + "x" * 1_100_000 + '"\n')
    assert MAX_STEPS >= 1_000_000
    monkeypatch.setattr("cardshop.records.MAX_STEPS", 10)  # the bound, without a 70 MB text
    step = json.dumps({"step": 0, "actions": [{"seat": 0, "action": "done"}], "events": []})
    with pytest.raises(RecordError, match=r"<record>:12: more than 10 steps"):
        GameRecord.loads(head + "\n" + (step + "\n") * 11)
    done = [{"seat": 0, "action": "done"}]
    many = {"step": 0, "actions": done, "events": [{}] * 1001}
    with pytest.raises(RecordError, match="at most 1000"):
        GameRecord.loads(head + "\n" + json.dumps(many))
    for bad, match in (
        ({"step": True, "actions": done, "events": []}, "step number"),
        ({"step": 0, "actions": [{"seat": 7, "action": "done"}], "events": []}, "'seat'"),
        ({"step": 0, "actions": [{"seat": 0, "action": "x" * 1001}], "events": []}, "'action'"),
        ({"step": 0, "actions": [{"seat": 0, "action": 5}], "events": []}, "'action'"),
        ({"step": 0, "actions": [{"seat": 0}], "events": []}, "'seat' and 'action'"),
        ({"step": 0, "actions": [], "events": []}, "'actions'"),
        ({"step": 0, "actions": done * 4, "events": []}, "'actions'"),
        ({"step": 0, "actions": done * 2, "events": []}, "listed once each, in order"),
        ({"step": 0, "actions": done, "events": [], "x": 1}, "unknown key"),
    ):
        with pytest.raises(RecordError, match=re.escape(match)):
            GameRecord.loads(head + "\n" + json.dumps(bad))
    # An action text is the family's to parse: on replay, with the line named.
    seat = rows[1]["actions"][0]["seat"]
    digit = {"step": 0, "actions": [{"seat": seat, "action": "buy \u00b2"}], "events": []}
    with pytest.raises(RecordError, match=r"<record>:2: action 'buy ²' no longer fits.*ASCII"):
        GameRecord.loads(head + "\n" + json.dumps(digit)).replay()
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


# ------------------------------------------------------------- any family


def builtin_of_each_family() -> list[str]:
    """One built-in variant of every family that has one."""
    first: dict[str, str] = {}
    for name in cardshop.builtin_variants():
        first.setdefault(load_variant(name).family, name)
    return sorted(first.values())


def play_recorded(variant: Any, players: int, seed: int) -> tuple[Game, GameRecord]:
    """A game played by random bots through the driver, recorded while it is played."""
    game = new_game(variant, players, seed=seed)
    recorder = Recorder(game, bots=["random"] * players)
    driver.play(game, [RandomBot(seed + s) for s in range(players)], on_step=recorder.add)
    return game, recorder.record()


def tiny(name: str) -> Any:
    return load_variant(TINY / f"{name}.yaml")


@pytest.mark.parametrize("name", ["tiny-seq", "tiny-sim"])
def test_the_tiny_family_round_trips(name: str, tmp_path: Path) -> None:
    variant = tiny(name)
    players = variant.players.max
    game, record = play_recorded(variant, players, seed=21)
    assert game.is_over
    path = tmp_path / "tiny.jsonl"
    record.write(path)
    rows = lines_of(path)
    assert rows[0]["family"] == "tinymarket"
    assert rows[0]["options"] == {}
    steps = rows[1:-1]
    assert [row["step"] for row in steps] == list(range(len(steps)))
    by_step: dict[int, list[dict[str, Any]]] = {}
    for move in game.moves:
        by_step.setdefault(move.step, []).append({"seat": move.seat, "action": str(move.action)})
    assert [row["actions"] for row in steps] == [by_step[n] for n in sorted(by_step)]
    if name == "tiny-sim":  # every seat acts in every tick, on one line
        assert all(len(row["actions"]) == players for row in steps)
    else:
        assert all(len(row["actions"]) == 1 for row in steps)
    assert rows[-1]["result"] == json.loads(json.dumps(game.result().to_dict()))
    # The events written while playing are those record_game finds by replaying.
    assert record_game(game, ["random"] * players).dumps() == path.read_text()
    again = replay_record(path)
    assert again.to_dict() == game.to_dict()
    assert read_record(path).dumps() == path.read_text()


@pytest.mark.parametrize("name", ["tiny-seq", "tiny-sim"])
def test_a_tampered_tiny_record_names_the_line(name: str, tmp_path: Path) -> None:
    _, record = play_recorded(tiny(name), 3, seed=4)
    path = tmp_path / "tiny.jsonl"
    record.write(path)
    rows = lines_of(path)
    i = next(i for i, row in enumerate(rows) if i > 1 and row.get("events"))
    tampered = [dict(row) for row in rows]
    tampered[i] = {**rows[i], "events": [*rows[i]["events"][1:], {"type": "Took", "seat": 0}]}
    write_lines(path, tampered)
    with pytest.raises(RecordError, match=rf"tiny\.jsonl:{i + 1}: .* other events than recorded"):
        replay_record(path)
    # An action no slot allows; a seat that does not act now (in a tick: one missing).
    tampered = json.loads(json.dumps(rows))
    tampered[i]["actions"][0]["action"] = "take 99"
    write_lines(path, tampered)
    with pytest.raises(RecordError, match=rf"tiny\.jsonl:{i + 1}: .*'take 99'.* no longer fit"):
        replay_record(path)
    tampered = json.loads(json.dumps(rows))
    if name == "tiny-sim":
        del tampered[i]["actions"][-1]
    else:
        tampered[i]["actions"][0]["seat"] = (rows[i]["actions"][0]["seat"] + 1) % 3
    write_lines(path, tampered)
    with pytest.raises(RecordError, match=rf"tiny\.jsonl:{i + 1}: the record has seat"):
        replay_record(path)


def test_a_record_of_an_unfinished_simultaneous_game_resumes(tmp_path: Path) -> None:
    variant = tiny("tiny-sim")
    game = new_game(variant, 3, seed=8)
    bots = [RandomBot(s) for s in range(3)]
    driver.run_until(game, bots, lambda g: len(g.moves) >= 6)
    assert not game.is_over
    recorder = Recorder(game)  # records the two ticks so far by replaying them
    driver.play(game, bots, on_step=recorder.add)
    record = recorder.record()
    assert record.dumps() == record_game(game).dumps()
    assert len(record.actions) == len(game.moves)
    half = GameRecord(variant, 3, 8, steps=record.steps[:1])
    half.write(tmp_path / "half.jsonl")
    again = replay_record(tmp_path / "half.jsonl")
    assert not again.is_over
    assert len(again.moves) == 3


def test_a_recorder_that_missed_a_step_says_so() -> None:
    game = new_game(tiny("tiny-seq"), 2, seed=1)
    recorder = Recorder(game)
    bots = [RandomBot(0), RandomBot(1)]
    recorder.add(driver.step(game, bots))
    driver.step(game, bots)  # not given to the recorder
    with pytest.raises(RecordError, match="holds 1 actions but the game has had 2"):
        recorder.record()


def test_a_replay_with_a_variant_of_another_family_is_refused(tmp_path: Path) -> None:
    _, record = play_recorded(tiny("tiny-seq"), 2, seed=3)
    with pytest.raises(RecordError, match="is a klunker variant; the record is a tinymarket game"):
        record.replay("klunker-en")
    # The caller's own file of the same rules is accepted.
    assert record.replay(TINY / "tiny-seq.yaml").is_over


@pytest.mark.parametrize("name", builtin_of_each_family())
def test_every_builtin_family_round_trips(name: str, tmp_path: Path) -> None:
    variant = load_variant(name)
    game, record = play_recorded(variant, variant.players.min, seed=13)
    path = tmp_path / "game.jsonl"
    record.write(path)
    assert lines_of(path)[0]["family"] == variant.family
    again = replay_record(path)
    assert again.to_dict() == game.to_dict()
    assert record_game(game, ["random"] * variant.players.min).dumps() == path.read_text()
    rows = lines_of(path)
    rows[2]["events"] = [{"type": "Nothing"}]
    write_lines(path, rows)
    with pytest.raises(RecordError, match=r"game\.jsonl:3: .* other events than recorded"):
        replay_record(path)


def test_the_replay_command_prints_a_simultaneous_game_tick_by_tick(tmp_path: Path) -> None:
    game, record = play_recorded(tiny("tiny-sim"), 3, seed=5)
    path = tmp_path / "sim.jsonl"
    record.write(path)
    result = runner.invoke(app, ["replay", str(path), "--moves"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    first = record.steps[0]
    actions = "; ".join(f"seat {seat}: {text}" for seat, text in first.actions)
    assert f"tick    0  {actions}" in out
    assert out.count("tick ") == len(record.steps)
    assert f"        the game ends; scores {list(game.result().scores)}" in out
    assert f"{len(record.steps)} steps, {len(game.moves)} actions verified; game finished" in out
    rows = lines_of(path)
    rows[1]["actions"][0]["action"] = "take 99"
    write_lines(path, rows)
    broken = runner.invoke(app, ["replay", str(path)])
    assert broken.exit_code == 2
    assert f"{path}:2:" in " ".join(broken.stderr.split())


def test_replay_moves_names_the_cards_of_a_family_that_describes_its_events(
    tmp_path: Path,
) -> None:
    """Wühltisch events hold card numbers; ``replay --moves`` follows each with its face."""
    variant = cardshop.parse_variant(
        "extends: wuhltisch\nname: wuhltisch-short\nrounds: 1\nround_ticks: 60\n"
    )
    game, record = play_recorded(variant, 2, seed=4)
    path = tmp_path / "wt.jsonl"
    record.write(path)
    result = runner.invoke(app, ["replay", str(path), "--recorded-variant", "--moves"])
    assert result.exit_code == 0, result.output
    named = re.findall(r"#(\d+) \(([^)]*)\)", result.stdout)
    assert named
    assert isinstance(game, WuhltischGame)
    for number, words in named:
        assert words == game.describe(int(number)).removeprefix("list:")
