"""Wühltisch with the generic tools: the demo in a real process, and the core's ISMCTS
with the family's sampler and search hooks."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import cardshop
from cardshop import driver
from cardshop.bots import ISMCTSBot, RandomBot, make_bot
from cardshop.core.registry import get_family
from cardshop.wuhltisch import WuhltischGame, WuhltischVariant, parse_wuhltisch
from cardshop.wuhltisch.search import STRIDE, estimates, evaluate, progress

ROOT = Path(__file__).resolve().parents[1]
TICK = re.compile(r"^  tick (\d+): (.*)$")
CARD = re.compile(r"#(\d+) \(([^)]*)\)")
ROUND = re.compile(
    r"^ +round (\d) \((called by \[[\d, ]*\]|capped), (\d+) ticks\) scores \[(.*)\]$"
)


def short_variant(rounds: int = 1, round_ticks: int = 40) -> WuhltischVariant:
    data = yaml.safe_load((ROOT / "variants" / "wuhltisch.yaml").read_text(encoding="utf-8"))
    data.update(name="wuhltisch-short", rounds=rounds, round_ticks=round_ticks)
    return parse_wuhltisch(yaml.safe_dump(data, sort_keys=False))


# ------------------------------------------------------------------- demo


def test_demo_prints_every_tick_and_the_round_scores_in_a_real_process() -> None:
    """`cardshop demo wuhltisch --players 4 --seed 1`: every tick's joint action, the
    scores at each round's end and the result; replaying the printed ticks gives the
    same round scores."""
    proc = subprocess.run(
        [sys.executable, "-m", "cardshop", "demo", "wuhltisch", "--players", "4", "--seed", "1"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=900,  # a hang guard: a demo game takes seconds, this is 100 times that
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "Wühltisch: 4 players, seed 1 (wuhltisch family, simultaneous)"
    assert [line for line in lines if line.startswith("Round ")] == [
        f"Round {r}" for r in (1, 2, 3, 4)
    ]
    game = cardshop.new_game("wuhltisch", 4, seed=1)
    assert isinstance(game, WuhltischGame)
    printed_rounds = []
    ticks = 0
    for line in lines:
        tick = TICK.match(line)
        if tick:
            assert int(tick.group(1)) == ticks
            parts = dict(part.split(" ", 2)[1:] for part in tick.group(2).split(", "))
            assert sorted(map(int, parts)) == [0, 1, 2, 3]  # every seat acts in every tick
            game.apply_joint({int(s): a for s, a in parts.items()})
            ticks += 1
        found = ROUND.match(line)
        if found:
            printed_rounds.append([int(x) for x in found.group(4).split(", ")])
    assert game.is_over
    assert ticks == game.ticks
    assert printed_rounds == [list(r) for r in game.round_scores]
    assert len(printed_rounds) == 4
    result = game.result()
    for seat in range(4):
        mark = "  winner" if seat in result.winners else ""
        line = f"  seat {seat}: score {result.scores[seat]} (rank {result.ranks[seat]}){mark}"
        assert line in lines
    assert sum(map(sum, printed_rounds)) == sum(result.scores)
    assert f"  details: capped_rounds 0, ticks {game.ticks}" in lines
    # Events name each card by its number and its face (lists without their prefix).
    named = [m.groups() for line in lines for m in CARD.finditer(line)]
    assert len(named) > 100
    for number, words in named:
        assert words == game.describe(int(number)).removeprefix("list:")
    assert not re.search(r"#\d+\b(?! \()", "\n".join(line for line in lines if "  seat " in line))


# ------------------------------------------------------------------ ISMCTS


def test_the_family_gives_the_search_a_sampler_and_hooks() -> None:
    family = get_family("wuhltisch")
    assert family.sampler is not None
    assert family.search is not None
    assert family.search.rollout is not None


def test_ismcts_plays_legal_actions_through_a_short_game() -> None:
    """The core's ISMCTS (family sampler, greedy playouts) plays a whole one-round game
    against random bots; the driver refuses any illegal action."""
    variant = short_variant()
    bot = make_bot("ismcts:6", variant, seed=3)
    assert isinstance(bot, ISMCTSBot)
    game = cardshop.new_game(variant, 3, seed=5)
    players = [bot, RandomBot(1), RandomBot(2)]
    chosen = []
    while not game.is_over:
        legal = game.legal_actions(0)
        done = driver.step(game, players)
        assert done.actions[0] in legal
        chosen.append(done.actions[0])
    assert game.result().rounds == 1
    assert {str(a) for a in chosen} & {"keep", "swap 0", "swap 1", "swap 2", "buy"}


def test_ismcts_is_reproducible_from_its_seed() -> None:
    game = cardshop.new_game("wuhltisch", 4, seed=2)
    driver.run_until(game, [RandomBot(s) for s in range(4)], lambda g: g.ticks >= 30)
    picks = [
        make_bot("ismcts:5", "wuhltisch", seed=7).choose(game.observation(1), game.legal_actions(1))
        for _ in range(2)
    ]
    assert picks[0] == picks[1]
    assert picks[0] in game.legal_actions(1)


def test_search_hooks_progress_and_evaluate() -> None:
    """A playout stops within STRIDE ticks, at a set laid down or at the round's end;
    the evaluation is in [0, 1] and favours the seat that scored more."""
    variant = short_variant(rounds=2)
    game = cardshop.new_game(variant, 2, seed=4)
    start = progress(game)
    bots = [make_bot("greedy", variant, seed=s) for s in range(2)]
    for _ in range(STRIDE):
        driver.step(game, bots)
    assert progress(game) > start  # STRIDE ticks move it at the latest
    values = evaluate(game)
    assert all(0.0 <= v <= 1.0 for v in values)
    while game.round == 1:
        driver.step(game, bots)
    scores = game.round_scores[0]
    assert estimates(game)[0] >= scores[0]
    if scores[0] != scores[1]:
        best = 0 if scores[0] > scores[1] else 1
        assert evaluate(game)[best] > evaluate(game)[1 - best]


def test_search_hooks_refuse_another_family_s_game() -> None:
    klunker = cardshop.new_game("klunker-en", 3, seed=1)
    with pytest.raises(TypeError, match="not a Wühltisch game"):
        progress(klunker)
