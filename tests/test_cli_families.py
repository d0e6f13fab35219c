"""The game commands (demo, play, variants, show, validate) on families the command line
does not know: the tiny test family (registered at run time, in this process and in
real subprocesses) and the built-in Wühltisch (simultaneous) and Reglamentacja
(turn-based, with thousands of negotiation actions).

Every transcript is checked against the engine: the steps the command printed are
replayed with :func:`cardshop.core.frontdoor.replay` and must give the result it printed.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tinyfamily
from cardshop.cli import _basic, app
from cardshop.core.actions import (
    Action,
    Seat,
)
from cardshop.core.frontdoor import replay
from cardshop.core.game import (
    Dynamics,
    Game,
)
from cardshop.core.loader import load_variant
from cardshop.core.registry import (
    get_family,
    unregister_family,
)
from cardshop.records import GameRecord

ROOT = Path(__file__).resolve().parents[1]
TINY = {
    "tiny-seq": ROOT / "tests" / "tinyfamily" / "tiny-seq.yaml",
    "tiny-sim": ROOT / "tests" / "tinyfamily" / "tiny-sim.yaml",
}
runner = CliRunner()

REGISTERED_MAIN = (
    "import sys; sys.path.insert(0, 'tests'); import tinyfamily; tinyfamily.register(); "
    "from cardshop.__main__ import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.fixture(autouse=True, scope="module")
def _tiny_family() -> Iterator[None]:
    """The tiny family is known only while these tests run."""
    tinyfamily.register()
    yield
    unregister_family(tinyfamily.NAME)


def tiny_cardshop(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The command line in a real process that registered the tiny family first."""
    return subprocess.run(
        [sys.executable, "-c", REGISTERED_MAIN, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: a command takes seconds, this is 100 times that
        check=False,
        cwd=ROOT,
    )


def one_paragraph(stderr: str, *fragments: str) -> None:
    assert "Traceback" not in stderr
    text = stderr.strip()
    assert text.startswith("cardshop: error: "), stderr
    assert "\n" not in text, stderr
    for fragment in fragments:
        assert fragment in text, stderr


# ------------------------------------------------------------ transcripts

PROMPT = re.compile(r"^(?:seat \d+> )+")
TICK = re.compile(r"^\s*tick (\d+): (.+)$")
TICK_PART = re.compile(r"seat (\d+)(?: \([^)]*\))? (.+)")
# A demo's turn: "  fill     seat 2: window shoes" (a phase or "step N" label); a
# play's: "seat 2 (random): window shoes". Tables and events never have these shapes.
TURN = re.compile(r"^(?:  \S+(?: \d+)?\s+seat (\d+)|seat (\d+) \([^)]*\)): (.+)$")
SCORE = re.compile(r"^  seat (\d+)(?: \(([^)]*)\))?: score (-?\d+) \(rank (\d+)\)(  winner)?$")


def lines_of(out: str) -> list[str]:
    """A transcript's lines without the prompts (piped input is not echoed after them)."""
    return [PROMPT.sub("", line) for line in out.splitlines()]


def steps_of(out: str, dynamics: Dynamics) -> list[Mapping[Seat, str] | str]:
    """The steps a demo or play transcript printed, as ``replay`` takes them."""
    steps: list[Mapping[Seat, str] | str] = []
    for line in lines_of(out):
        if SCORE.match(line):
            continue
        if dynamics is Dynamics.SIMULTANEOUS:
            tick = TICK.match(line)
            if tick:
                assert int(tick.group(1)) == len(steps), line  # ticks numbered from 0
                parts = [TICK_PART.fullmatch(p) for p in tick.group(2).split(", ")]
                assert all(parts), line
                steps.append({int(p.group(1)): p.group(2) for p in parts if p})
        else:
            turn = TURN.match(line)
            if turn:
                steps.append(turn.group(3))
    return steps


def printed_result(out: str) -> tuple[dict[int, int], dict[int, int], set[int], dict[int, str]]:
    """Scores, ranks, winners and names from the result lines of a transcript."""
    scores: dict[int, int] = {}
    ranks: dict[int, int] = {}
    winners: set[int] = set()
    names: dict[int, str] = {}
    for line in out.splitlines():
        m = SCORE.match(line)
        if m:
            seat = int(m.group(1))
            scores[seat], ranks[seat] = int(m.group(3)), int(m.group(4))
            names[seat] = m.group(2) or ""
            if m.group(5):
                winners.add(seat)
    return scores, ranks, winners, names


def check_against_engine(
    out: str, variant: str | Path, players: int, seed: int, **options: int
) -> Game:
    """Replay the printed steps; the game must end with the printed result."""
    loaded = load_variant(variant)
    steps = steps_of(out, replay(loaded, players, seed, **options).dynamics)
    assert steps, out[:2000]
    game = replay(loaded, players, seed, actions=steps, **options)
    assert game.is_over
    result = game.result()
    scores, ranks, winners, _ = printed_result(out)
    assert scores == dict(enumerate(result.scores))
    assert ranks == dict(enumerate(result.ranks))
    assert winners == set(result.winners)
    unit = get_family(loaded.family).length_unit  # what the game counts: turns, steps
    plural = "" if result.rounds == 1 else "s"
    assert f"Game {result.termination.value} after {result.rounds} {unit}{plural}." in out
    return game


# ------------------------------------------------------------------ demo


@pytest.mark.parametrize("name", sorted(TINY))
def test_demo_plays_the_tiny_family_step_by_step(name: str) -> None:
    path = TINY[name]
    result = runner.invoke(app, ["demo", str(path), "--players", "3", "--seed", "5"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "(tinymarket family, " in out.splitlines()[0]
    assert out.count("market: ") == 2  # the table at the start and at the end
    game = check_against_engine(out, path, 3, 5)
    if name == "tiny-sim":
        assert re.search(r"^  tick 0: seat 0 \S+.*, seat 1 .*, seat 2 ", out, re.M)
    # Every event of every step is printed, once, right under its step.
    replayed = replay(load_variant(path), 3, 5)
    events = []
    for move_step in sorted({m.step for m in game.moves}):
        moves = {m.seat: m.action for m in game.moves if m.step == move_step}
        events += [str(e) for e in replayed.apply_joint(moves)]
    printed = [line.strip() for line in out.splitlines() if line.startswith(" " * 11)]
    assert printed == events
    again = runner.invoke(app, ["demo", str(path), "--players", "3", "--seed", "5"])
    assert again.stdout == out  # seeded: the same game every time


@pytest.mark.parametrize("name", sorted(TINY))
def test_demo_in_a_real_process_that_registers_the_family(name: str) -> None:
    proc = tiny_cardshop("demo", str(TINY[name]), "--players", "2", "--seed", "9")
    assert proc.returncode == 0, proc.stderr
    check_against_engine(proc.stdout, TINY[name], 2, 9)


def test_demo_first_player_only_for_families_that_take_it() -> None:
    bad = runner.invoke(app, ["demo", str(TINY["tiny-seq"]), "--first-player", "1"])
    assert bad.exit_code == 2
    one_paragraph(bad.stderr, "--first-player: a tinymarket game has no first player")
    klunker = runner.invoke(
        app, ["demo", "klunker-en", "--players", "3", "--seed", "2", "--first-player", "2"]
    )
    assert klunker.exit_code == 0, klunker.output
    assert "seat 2: cash 1 (to act, start player)" in klunker.stdout
    check_against_engine(klunker.stdout, "klunker-en", 3, 2, first_player=2)


def test_demo_of_simultaneous_wuhltisch_prints_ticks() -> None:
    result = runner.invoke(app, ["demo", "wuhltisch", "--players", "2", "--seed", "3"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.splitlines()[0] == "Wühltisch: 2 players, seed 3 (wuhltisch family, simultaneous)"
    assert "Round 1" in out  # headers from the observation's round
    assert "Round 2" in out
    assert re.search(r"^  tick 0: seat 0 \w+, seat 1 \w+$", out, re.M)
    game = check_against_engine(out, "wuhltisch", 2, 3)
    assert f"  details: capped_rounds 0, ticks {game.result().details['ticks']}" in out


def test_demo_of_reglamentacja_with_negotiation() -> None:
    result = runner.invoke(app, ["demo", "reglamentacja", "--players", "3", "--seed", "4"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert re.search(r"^  \w+\s+seat \d: offer \d", out, re.M)  # offers with their terms
    check_against_engine(out, "reglamentacja", 3, 4)


# ------------------------------------------------------------------ play

PLAY_SCRIPT = ["help", "actions take", "actions zz", "dance", "take 9", "7", "table"]


def _play_checks(out: str, name: str, seed: int) -> None:
    assert "you are seat 1" in out
    assert "actions [TEXT]" in out  # help
    assert "no legal action starts with 'zz'" in out
    assert "cannot parse action 'dance'" in out
    assert "not now: " in out  # 'take 9' names no market slot
    assert "7 is not in the list" in out
    assert "market: " in out  # the family's table
    game = check_against_engine(out, TINY[name], 3, seed)
    assert any(m.seat == 1 for m in game.moves)  # the person's actions are in the game
    _, _, _, names = printed_result(out)
    assert names == {0: "random", 1: "you", 2: "random"}
    if name == "tiny-sim":
        ticks = [line for line in lines_of(out) if TICK.match(line)]
        assert ticks
        assert all("seat 1 (you) " in t for t in ticks)  # each tick waits for the person


@pytest.mark.parametrize("name", sorted(TINY))
def test_play_the_tiny_family_from_a_script_in_process(name: str) -> None:
    script = PLAY_SCRIPT + ["2", "1"] * 200
    result = runner.invoke(
        app,
        ["play", str(TINY[name]), "--players", "3", "--seat", "1", "--bot", "random",
         "--seed", "6"],
        input="\n".join(script) + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    _play_checks(result.stdout, name, 6)


@pytest.mark.parametrize("name", sorted(TINY))
def test_play_the_tiny_family_from_a_script_in_a_real_process(name: str) -> None:
    script = PLAY_SCRIPT + ["2", "1"] * 200
    proc = tiny_cardshop(
        "play", str(TINY[name]), "--players", "3", "--seat", "1", "--bot", "random",
        "--seed", "8", stdin="\n".join(script) + "\n",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    _play_checks(proc.stdout, name, 8)


def test_play_tiny_undo_only_before_another_seat_acts() -> None:
    # Two players, turn-based: every action of the person ends its turn, so the bot
    # moves and there is never anything to undo.
    seq = runner.invoke(
        app,
        ["play", str(TINY["tiny-seq"]), "--players", "2", "--bot", "random", "--seed", "1"],
        input="2\nundo\nquit\n",
    )
    assert seq.exit_code == 0, seq.output
    assert "nothing to undo" in seq.stdout
    assert "undone" not in seq.stdout


def test_play_end_of_input_and_unknown_bot_on_the_tiny_family() -> None:
    proc = tiny_cardshop("play", str(TINY["tiny-sim"]), "--bot", "random", stdin="help\n")
    assert proc.returncode == 0, proc.stderr
    assert "end of input: leaving the game unfinished" in proc.stderr
    bot = runner.invoke(app, ["play", str(TINY["tiny-seq"]), "--bot", "greedy"])
    assert bot.exit_code == 2
    one_paragraph(bot.stderr, "unknown bot 'greedy' for tiny-seq")
    first = runner.invoke(
        app, ["play", str(TINY["tiny-seq"]), "--bot", "random", "--first-player", "1"]
    )
    assert first.exit_code == 2
    one_paragraph(first.stderr, "--first-player: a tinymarket game has no first player")


def test_play_wuhltisch_ticks_join_the_person_and_the_bots() -> None:
    result = runner.invoke(
        app,
        ["play", "wuhltisch", "--players", "3", "--seat", "2", "--bot", "random", "--seed",
         "3"],
        input="wait\nlook\nundo\nkeep\nquit\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.stdout
    ticks = [line for line in lines_of(out) if TICK.match(line)]
    assert ticks[0].startswith("tick 0: ")
    assert "seat 2 (you) wait" in ticks[0]
    assert "seat 2 (you) look" in ticks[1]
    assert "nothing to undo" in out  # the bots acted in the same tick
    assert "Game finished" not in out  # left unfinished
    assert "game left unfinished" in out
    # What was printed is what happened: replaying the ticks gives a game in progress.
    steps = steps_of(out, Dynamics.SIMULTANEOUS)
    game = replay("wuhltisch", 3, 3, actions=steps)
    assert not game.is_over
    assert get_family("wuhltisch").render(game, 2) in out  # the table as seat 2 sees it
    assert get_family("wuhltisch").render(game, None) not in out  # others' cards hidden
    # Events as seat 2 may know them: its own cards by face, nobody else's at all.
    events = [line.strip() for line in out.splitlines() if line.startswith("    seat ")]
    others = [e for e in events if not e.startswith("seat 2 ")]
    assert any("looks at a card" in e for e in others)
    assert not [e for e in others if "#" in e]
    wuhl = load_variant("wuhltisch")
    own = [e for e in events if e.startswith("seat 2 looks at #")]
    assert own
    for line in own:
        card = int(line.split("#")[1].split(" ")[0])
        assert line == f"seat 2 looks at #{card} ({wuhl.rules.describe(card)})"


def test_play_reglamentacja_summarises_thousands_of_actions() -> None:
    game = get_family("reglamentacja").new_game(load_variant("reglamentacja"), 3, 6)
    legal = game.legal_actions(0)
    assert len(legal) > 1000
    offers = [a for a in legal if str(a).startswith("offer 1 give alcohol alcohol")]
    result = runner.invoke(
        app,
        ["play", "reglamentacja", "--players", "3", "--seat", "0", "--bot", "random",
         "--seed", "6"],
        input=f"actions offer 1 give alcohol alcohol\nhelp\n{len(legal)}\nquit\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"Your move: {len(legal):,} legal actions (" in out
    for action in offers[:50]:
        assert f"  {legal.index(action) + 1}) {action}\n" in out
    if len(offers) > 50:
        assert f"... and {len(offers) - 50:,} more" in out
    assert "  offer         e.g. " in out  # help: the kinds of action with examples
    assert f"seat 0 (you): {legal[-1]}" in out  # chosen by its number


# ----------------------------------------------- variants, show, validate


def test_variants_lists_each_variant_with_its_family_and_the_families() -> None:
    result = runner.invoke(app, ["variants"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    for name, family in [("klunker-en", "klunker"), ("wuhltisch", "wuhltisch"),
                         ("reglamentacja", "reglamentacja")]:  # fmt: skip
        assert any(line.split()[:2] == [name, family] for line in lines), lines
    assert lines[-1].startswith("families: ")
    assert "wuhltisch (simultaneous)" in lines[-1]
    assert "tinymarket (sequential)" in lines[-1]  # registered at run time


def test_variants_reports_a_variant_that_fails_to_load_in_one_paragraph(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = _basic.load_variant

    def broken(name: str, **kwargs: bool) -> object:
        if name == "wuhltisch":
            raise RuntimeError("the family's module is broken\nin two lines")
        return real(name, **kwargs)

    monkeypatch.setattr(_basic, "load_variant", broken)
    result = runner.invoke(app, ["variants"])
    assert result.exit_code == 2
    one_paragraph(
        result.stderr, "wuhltisch: RuntimeError: the family's module is broken in two lines"
    )
    assert "klunker-en" in result.stdout
    assert "reglamentacja" in result.stdout


@pytest.mark.parametrize("name", ["wuhltisch", "reglamentacja", *TINY])
def test_show_and_validate_any_family(name: str, tmp_path: Path) -> None:
    ref = str(TINY.get(name, name))
    for form, suffix in ((["--json"], ".json"), ([], ".yaml")):
        shown = runner.invoke(app, ["show", ref, *form])
        assert shown.exit_code == 0, shown.output
        path = tmp_path / f"shown{suffix}"
        path.write_text(shown.stdout, encoding="utf-8")
        checked = runner.invoke(app, ["validate", str(path)])
        assert checked.exit_code == 0, checked.output
        variant = load_variant(ref)
        assert f"ok ({variant.name}, {variant.family} family" in checked.stdout
        assert load_variant(path).content_hash == variant.content_hash
    data = json.loads(runner.invoke(app, ["show", ref, "--json"]).stdout)
    assert data["family"] == load_variant(ref).family


def test_validate_a_tiny_file_in_a_real_process_and_a_broken_one(tmp_path: Path) -> None:
    ok = tiny_cardshop("validate", str(TINY["tiny-sim"]))
    assert ok.returncode == 0, ok.stderr
    assert "ok (tiny-sim, tinymarket family, 2-4 players)" in ok.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text(TINY["tiny-seq"].read_text().replace("market: 3", "market: 99"))
    proc = tiny_cardshop("validate", str(bad))
    assert proc.returncode == 2
    one_paragraph(proc.stderr, f"{bad}:", "market")


def test_actions_parse_back_for_every_family_in_play() -> None:
    """What ``play`` lists the person can type back: texts round-trip for each family."""
    for ref in ("klunker-en", "wuhltisch", "reglamentacja", TINY["tiny-sim"]):
        variant = load_variant(ref)
        game = get_family(variant.family).new_game(variant, 3, 2)
        seat = game.acting[0]
        for action in game.legal_actions(seat)[:200]:
            assert game.parse_action(str(action), seat) == action
            assert isinstance(action, Action)


@pytest.mark.parametrize("name", sorted(TINY))
def test_play_save_resume_and_record_the_tiny_family(name: str, tmp_path: Path) -> None:
    """A saved game resumes where it was; a recorded whole game replays in a real process."""
    saved = tmp_path / "saved.jsonl"
    result = runner.invoke(
        app,
        ["play", str(TINY[name]), "--players", "2", "--seat", "1", "--bot", "random",
         "--seed", "3"],
        input=f"2\nsave {saved}\n1\nquit\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"saved to {saved}" in result.stdout
    record = GameRecord.read(saved)
    assert record.bots == ("random", "human")
    game = record.replay()
    resumed = runner.invoke(app, ["play", "--resume", str(saved)], input="quit\n")
    assert resumed.exit_code == 0, resumed.output
    assert f"{len(record.actions)} actions replayed and verified" in resumed.stdout
    assert "you are seat 1" in resumed.stdout
    assert get_family("tinymarket").render(game, 1) in resumed.stdout  # where it was saved

    path = tmp_path / "whole.jsonl"
    proc = tiny_cardshop(
        "play", str(TINY[name]), "--players", "3", "--seat", "0", "--bot", "random",
        "--seed", "4", "--record", str(path), stdin="2\n1\n" * 200,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    played = check_against_engine(proc.stdout, TINY[name], 3, 4)
    assert GameRecord.read(path).replay().to_dict() == played.to_dict()
    replayed = tiny_cardshop("replay", str(path))
    assert replayed.returncode == 0, replayed.stderr
    assert "ok" in replayed.stdout


def test_play_wuhltisch_saves_a_simultaneous_game_that_resumes(tmp_path: Path) -> None:
    saved = tmp_path / "w.jsonl"
    result = runner.invoke(
        app,
        ["play", "wuhltisch", "--players", "2", "--bot", "random", "--seed", "5"],
        input=f"wait\nlook\nsave {saved}\nquit\n",
    )
    assert result.exit_code == 0, result.output
    record = GameRecord.read(saved)
    assert [step.seats for step in record.steps] == [(0, 1), (0, 1)]  # two ticks
    assert record.steps[0].actions[0] == (0, "wait")
    resumed = runner.invoke(app, ["play", "--resume", str(saved)], input="quit\n")
    assert resumed.exit_code == 0, resumed.output
    assert "4 actions replayed and verified" in resumed.stdout
