"""Graded bot strengths and the skill depth (cardshop.ladder.depth, docs/skill.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import tinyfamily
from cardshop.bots import MAX_ITERATIONS, bot_names
from cardshop.core.errors import SetupError
from cardshop.core.frontdoor import resolve
from cardshop.ladder.depth import (
    DEPTH_SCHEMA,
    GRADED_SCHEMA,
    MAX_JSON_BYTES,
    DepthResult,
    GradedResult,
    SkillError,
    Step,
    _play_cells,
    climb,
    default_rungs,
    depth_of,
    graded_steps,
    read_result,
    read_result_file,
    skill_depth,
)
from cardshop.simulation import game_seed
from pages_support import ROOT, load_script

TINY = Path(__file__).parent / "tinyfamily" / "tiny-seq.yaml"


def _step(weaker: str, stronger: str, wins: float, games: int = 40, players: int = 4) -> Step:
    return Step(weaker, stronger, players, games, wins, 1.5, 0.25)


def _depth(significant: list[bool], max_doublings: int) -> DepthResult:
    """A depth result of synthetic steps: 30 of 40 wins is significant, 10 is not."""
    steps = tuple(
        _step(f"ismcts:{5 * 2**k}", f"ismcts:{10 * 2**k}", 30.0 if ok else 10.0)
        for k, ok in enumerate(significant)
    )
    return DepthResult(
        family="klunker",
        variant="klunker-en",
        variant_hash="x" * 64,
        players=4,
        deals=10,
        seed=3,
        steps=steps,
        bot="ismcts",
        start=5,
        max_doublings=max_doublings,
    )


# --------------------------------------------------------------------- planted steps


def test_a_planted_strength_order_is_significant_and_a_null_step_is_not() -> None:
    graded = graded_steps(
        "klunker-en", ["random", "random", "greedy"], players=4, deals=10, seed=0, workers=1
    )
    null, real = graded.steps
    assert (null.weaker, null.stronger) == ("random", "random")
    assert (real.weaker, real.stronger) == ("random", "greedy")
    assert null.games == real.games == 40
    assert not null.significant
    assert null.win.low <= 0.25 <= null.win.high
    assert real.significant
    assert real.win.low > 0.25
    assert real.score_diff > 0
    assert not graded.holds
    assert "does not hold" in graded.summary()
    assert "random > random" in graded.summary()


def test_the_ladder_holds_when_every_step_is_significant() -> None:
    graded = graded_steps("klunker-en", "random,greedy", players=4, deals=10, workers=1)
    assert graded.rungs == ("random", "greedy")
    assert graded.holds
    assert "holds" in graded.to_text()


def test_every_step_plays_the_same_deals_and_the_stronger_bot_every_seat() -> None:
    var = resolve("klunker-en").variant
    bots = ["random", "baseline", "greedy"]
    cells = _play_cells(var, 3, 11, bots, [(0, 1), (1, 2)], 4, 1, None, None)
    assert sorted(cells) == [(i, d) for i in range(2) for d in range(4)]
    for (step, deal), games in cells.items():
        stronger, weaker = step + 1, step
        assert len(games) == 3
        # every game of the deal, in every step, is set up from the same seed
        assert {g.seed for g in games} == {game_seed(11, deal)}
        # the stronger bot plays each seat once, the weaker every other seat
        assert sorted(g.seats.index(stronger) for g in games) == [0, 1, 2]
        for g in games:
            assert g.seats.count(stronger) == 1
            assert g.seats.count(weaker) == 2


def test_two_steps_between_equal_bots_play_identical_games() -> None:
    # The bots of a seat are seeded by deal, rotation and seat only: on paired deals,
    # two steps between the same bots must come out the same, game for game.
    graded = graded_steps(
        "klunker-en", ["random", "random", "random"], players=3, deals=6, seed=5, workers=1
    )
    first, second = graded.steps
    assert (first.wins, first.score_diff, first.score_ci) == (
        second.wins,
        second.score_diff,
        second.score_ci,
    )


def test_the_default_rungs_follow_the_family() -> None:
    rungs = default_rungs("klunker-en", 5, 2)
    assert rungs == ["baseline", "random", "ismcts:5", "ismcts:10", "ismcts:20", "greedy"]
    tinyfamily.register()
    tiny = default_rungs(TINY)
    assert "greedy" not in bot_names(TINY)
    assert tiny[:2] == ["baseline", "random"]
    assert "greedy" not in tiny


# ------------------------------------------------------------------------ the depth


def test_the_depth_stops_at_the_first_step_that_is_not_significant() -> None:
    outcomes = [True, True, False, True, True]
    asked: list[int] = []

    def play_step(k: int) -> Step:
        asked.append(k)
        return _step(f"b:{k}", f"b:{k + 1}", 30.0 if outcomes[k - 1] else 10.0)

    steps = climb(play_step, 5)
    assert asked == [1, 2, 3]  # nothing past the first non-significant step is played
    assert [s.significant for s in steps] == [True, True, False]
    assert depth_of([s.significant for s in steps]) == 2
    result = _depth([True, True, False], 5)
    assert result.depth == 2
    assert not result.at_least
    assert result.depth_text() == "2"
    assert "ismcts:40 > ismcts:20 is not significant" in result.summary()


def test_a_depth_that_reaches_the_last_doubling_is_at_least() -> None:
    asked: list[int] = []

    def play_step(k: int) -> Step:
        asked.append(k)
        return _step(f"b:{k}", f"b:{k + 1}", 30.0)

    assert len(climb(play_step, 3)) == 3
    assert asked == [1, 2, 3]
    result = _depth([True, True, True], 3)
    assert result.depth == 3
    assert result.at_least
    assert result.depth_text() == "at least 3"
    assert _depth([False], 3).depth == 0
    assert not _depth([False], 3).at_least
    assert depth_of([False, True]) == 0


def test_a_step_is_significant_only_above_the_fair_share() -> None:
    assert _step("a", "b", 10.0).win.estimate == 0.25
    assert not _step("a", "b", 10.0).significant
    assert not _step("a", "b", 14.0).significant  # 35%: its interval reaches 25%
    assert _step("a", "b", 20.0).significant
    assert not _step("a", "b", 20.0, players=2).significant  # 50% of 2 seats is fair
    assert _step("a", "b", 30.0, players=2).significant


def test_skill_depth_plays_doublings_of_a_budget() -> None:
    result = skill_depth(
        "klunker-en", "ismcts", 1, max_doublings=1, players=3, deals=2, seed=1, workers=1
    )
    assert len(result.steps) == 1
    step = result.steps[0]
    assert (step.weaker, step.stronger, step.games) == ("ismcts:1", "ismcts:2", 6)
    assert result.depth in (0, 1)
    assert result.at_least == (result.depth == 1)
    assert read_result(result.to_json()) == result


@pytest.mark.parametrize(
    ("bot", "start", "doublings", "message"),
    [
        ("random", 5, 2, "takes no option"),
        ("ismcts:5", 5, 2, "without a budget"),
        ("nosuch", 5, 2, "unknown bot"),
        ("ismcts", MAX_ITERATIONS, 1, "bad ISMCTS budget"),
        ("ismcts", 0, 2, "start budget"),
        ("ismcts", 5, 0, "doublings"),
        ("ismcts", 5, True, "doublings"),
    ],
)
def test_skill_depth_refuses_a_bot_without_a_numeric_budget(
    bot: str, start: int, doublings: int, message: str
) -> None:
    with pytest.raises(SetupError, match=message):
        skill_depth("klunker-en", bot, start, max_doublings=doublings, deals=1, workers=1)


@pytest.mark.parametrize(
    ("rungs", "kwargs", "message"),
    [
        (["random"], {}, "2 to 16 rungs"),
        (["random", "nosuch"], {}, "unknown bot 'nosuch'"),
        (["random", "greedy:3"], {}, "takes no option"),
        (["random", ""], {}, "a rung is a bot spec"),
        (["random", "greedy"], {"deals": 0}, "deals"),
        (["random", "greedy"], {"players": 9}, "players"),
        (["random", "greedy"], {"seed": True}, "seed"),
        (["random"] * 6, {"deals": 100_000, "players": 5}, "at most 2,000,000"),
    ],
)
def test_graded_steps_refuses_bad_arguments(
    rungs: list[str], kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(SetupError, match=message):
        graded_steps("klunker-en", rungs, workers=1, **kwargs)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- JSON


def test_results_round_trip_through_json(tmp_path: Path) -> None:
    depth = _depth([True, False], 4)
    assert read_result(depth.to_json()) == depth
    assert DepthResult.from_json(depth.to_json()) == depth
    data = json.loads(depth.to_json())
    assert data["schema"] == DEPTH_SCHEMA
    assert (data["depth"], data["at_least"]) == (1, False)
    graded = GradedResult(
        family="klunker",
        variant="klunker-en",
        variant_hash="x" * 64,
        players=4,
        deals=10,
        seed=0,
        steps=(_step("random", "greedy", 33.5),),
        rungs=("random", "greedy"),
    )
    assert GradedResult.from_json(graded.to_json()) == graded
    assert json.loads(graded.to_json())["schema"] == GRADED_SCHEMA
    path = tmp_path / "g.json"
    path.write_text(graded.to_json(), encoding="utf-8")
    assert read_result_file(path) == graded
    with pytest.raises(SkillError, match="not a skill-depth result"):
        DepthResult.from_json(graded.to_json())
    with pytest.raises(SkillError, match="not a graded ladder"):
        GradedResult.from_json(depth.to_json())


def _hostile() -> list[tuple[str, str]]:
    good = json.loads(_depth([True, False], 4).to_json())

    def edit(**changes: object) -> str:
        return json.dumps({**good, **changes})

    def edit_step(**changes: object) -> str:
        return json.dumps({**good, "steps": [{**good["steps"][0], **changes}, good["steps"][1]]})

    return [
        ("", "not a skill JSON text"),
        ("[" * 100_000 + "]" * 100_000, "not a skill JSON text|a JSON object"),
        ("[]", "a JSON object"),
        (" " * (MAX_JSON_BYTES + 1), "at most"),
        (edit(schema="cardshop-ladder/1"), "unknown schema"),
        (edit(players=True), "players"),
        (edit(players=10**30), "players"),
        (edit(deals=-1), "deals"),
        (edit(steps="many"), "steps"),
        (edit(steps=[]), "steps"),
        (edit(steps=[good["steps"][0]] * 40), "steps"),
        (edit(variant=None), "variant"),
        (edit(variant="v" * 10_000), "variant"),
        (edit(max_doublings=1), "max_doublings"),
        (edit(start=10), "one per doubling"),
        (edit_step(wins=41), "wins"),
        (edit_step(wins=-1), "wins"),
        (edit_step(games=41), "deals x players"),
        (edit_step(score_diff=float("nan")), "finite"),
        (edit_step(score_diff="1"), "finite"),
        (edit_step(score_ci=1e300), "1e12"),
        (edit_step(score_ci=-0.5), "half-width"),
        (edit_step(stronger="ismcts:11"), "one per doubling"),
        (json.dumps({**good, "steps": [good["steps"][1], good["steps"][0]]}), "doubling"),
        (json.dumps({**good, "steps": [good["steps"][0]]}), "stops at the first"),
    ]


@pytest.mark.parametrize(("text", "message"), _hostile())
def test_hostile_json_is_refused(text: str, message: str) -> None:
    with pytest.raises(SkillError, match=message):
        read_result(text)


def test_graded_json_must_match_its_rungs() -> None:
    graded = GradedResult(
        family="klunker",
        variant="klunker-en",
        variant_hash="x" * 64,
        players=4,
        deals=10,
        seed=0,
        steps=(_step("random", "greedy", 33.5),),
        rungs=("random", "greedy"),
    )
    data = json.loads(graded.to_json())
    with pytest.raises(SkillError, match="adjacent pair"):
        read_result(json.dumps({**data, "rungs": ["random", "baseline"]}))
    with pytest.raises(SkillError, match="rungs"):
        read_result(json.dumps({**data, "rungs": ["random"] * 40}))


def test_a_file_that_is_not_a_regular_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SkillError, match="cannot read"):
        read_result_file(tmp_path / "missing.json")
    with pytest.raises(SkillError, match="not a regular file"):
        read_result_file(tmp_path)


def test_markdown_keeps_table_cells_whole() -> None:
    graded = GradedResult(
        family="klunker",
        variant="klunker-en",
        variant_hash="x" * 64,
        players=4,
        deals=10,
        seed=0,
        steps=(_step("a|b", "c`d", 33.5),),
        rungs=("a|b", "c`d"),
    )
    row = next(line for line in graded.to_markdown().splitlines() if line.startswith("| `"))
    assert row.startswith("| `c'd` > `a\\|b` |")
    assert row.count(" | ") == 5


# ---------------------------------------------------------------------------- CLI


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """The command line in a new process (the command registers when its module is
    imported)."""
    code = "import sys; from cardshop.cli import _depth, run; sys.exit(run(sys.argv[1:]))"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: the commands take seconds
        check=False,
    )


def test_the_command_plays_a_graded_ladder_and_writes_json_and_markdown(tmp_path: Path) -> None:
    out, md = tmp_path / "g.json", tmp_path / "g.md"
    proc = _cli(
        "skill-depth", "klunker-en", "--graded", "random,greedy", "-p", "4", "-d", "3",
        "-w", "1", "-q", "--json", str(out), "--markdown", str(md),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "greedy > random" in proc.stdout
    result = read_result(out.read_text(encoding="utf-8"))
    assert isinstance(result, GradedResult)
    assert result.rungs == ("random", "greedy")
    assert result.steps[0].games == 12
    assert md.read_text(encoding="utf-8") == result.to_markdown()


def test_the_command_measures_a_depth(tmp_path: Path) -> None:
    out = tmp_path / "d.json"
    proc = _cli(
        "skill-depth", "klunker-en", "--bot", "ismcts", "--start", "1", "--doublings", "1",
        "-p", "3", "-d", "2", "-w", "1", "-q", "--json", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Skill depth of ismcts" in proc.stdout
    result = read_result(out.read_text(encoding="utf-8"))
    assert isinstance(result, DepthResult)
    assert result.budgets() == [1, 2]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bot", "nosuch"], "unknown bot 'nosuch:5'"),
        (["--graded", "random,nosuch"], "unknown bot 'nosuch'"),
        (["--graded", "random"], "2 to 16 rungs"),
        (["--deals", "0"], "--deals must be at least 1"),
    ],
)
def test_user_errors_exit_2_with_one_paragraph(args: list[str], message: str) -> None:
    proc = _cli("skill-depth", "klunker-en", "-q", *args)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("cardshop: error: ")
    assert message in lines[0]
    assert "Traceback" not in proc.stderr


def test_graded_default_names_the_default_rungs() -> None:
    from cardshop.cli._depth import _rungs

    var = resolve("klunker-en").variant
    assert _rungs("default", 5, 1, var) == default_rungs(var, 5, 1)
    assert _rungs(" random , greedy ", 5, 1, var) == ["random", "greedy"]
    with pytest.raises(SetupError, match="at most"):
        _rungs("random," * 2000, 5, 1, var)


# ---------------------------------------------------------------------------- page


def test_the_committed_page_is_the_rendering_of_the_committed_results() -> None:
    script = load_script("skill_page")
    assert (ROOT / "docs" / "skill.md").read_text(encoding="utf-8") == script.render()
    for path in sorted((ROOT / "docs" / "skill").glob("*.json")):
        read_result(path.read_text(encoding="utf-8"))  # each reads back
