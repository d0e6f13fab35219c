"""The driver plays turn-based and simultaneous games with the same calls."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from cardshop import driver
from cardshop.core.actions import Action
from cardshop.core.errors import (
    GameStateError,
    IllegalActionError,
)
from cardshop.core.game import Dynamics
from tinyfamily import TinyGame, TinyVariant, new_game

HERE = Path(__file__).parent / "tinyfamily"


def tiny(name: str, players: int = 3, seed: int = 1) -> TinyGame:
    variant = TinyVariant.model_validate(yaml.safe_load((HERE / f"{name}.yaml").read_text()))
    return new_game(variant, players, seed)


class Recorder:
    """A seeded random player that remembers what it was shown."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.seen: list[Any] = []

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        self.seen.append(observation)
        return self.rng.choice(legal_actions)


@pytest.mark.parametrize("name", ["tiny-seq", "tiny-sim"])
def test_play_reaches_the_end_and_each_player_sees_only_its_seat(name: str) -> None:
    game = tiny(name)
    players = [Recorder(s) for s in range(3)]
    steps: list[driver.Step] = []
    driver.play(game, players, on_step=steps.append)
    assert game.is_over
    assert [s.number for s in steps] == list(range(len(steps)))
    for seat, player in enumerate(players):
        assert player.seen, f"seat {seat} never acted"
        assert all(obs.seat == seat for obs in player.seen)
    moves = game.moves
    assert len(moves) == sum(len(s.actions) for s in steps)
    if game.dynamics is Dynamics.SIMULTANEOUS:
        assert all(len(s.actions) == 3 for s in steps)
    else:
        assert all(len(s.actions) == 1 for s in steps)


def test_play_is_reproducible_from_seeds() -> None:
    def run() -> list[driver.Step]:
        steps: list[driver.Step] = []
        driver.play(tiny("tiny-sim"), [Recorder(s) for s in range(3)], on_step=steps.append)
        return steps

    assert run() == run()


def test_given_actions_are_used_for_their_seats() -> None:
    game = tiny("tiny-sim")
    done = driver.step(game, [Recorder(s) for s in range(3)], {1: Action("pass")})
    assert done.actions[1] == Action("pass")
    assert game.moves[1].action == Action("pass")


def test_max_steps_bounds_the_loop() -> None:
    game = tiny("tiny-seq")
    with pytest.raises(GameStateError, match="within 2 steps"):
        driver.play(game, [Recorder(s) for s in range(3)], max_steps=2)
    assert len(game.moves) == 2


def test_tick_buffer_resolves_when_every_seat_has_submitted() -> None:
    game = tiny("tiny-sim")
    buffer = driver.TickBuffer(game)
    before = game.clone()
    assert buffer.submit(0, "take 0") is None
    assert buffer.waiting == (1, 2)
    assert game == before, "a held submission must not change the game"
    with pytest.raises(IllegalActionError):
        buffer.submit(1, Action("take", 9))
    with pytest.raises(GameStateError):
        buffer.submit(0, "pass")
    assert buffer.submit(1, "take 0") is None
    events = buffer.submit(2, "pass")
    assert events is not None
    assert "discarded" in str(events[0])
    assert buffer.waiting == (0, 1, 2)


def test_tick_buffer_on_a_turn_based_game_resolves_each_submission() -> None:
    game = tiny("tiny-seq")
    buffer = driver.TickBuffer(game)
    assert buffer.submit(0, "take 1") is not None
    assert game.acting == (1,)


def test_step_on_a_finished_game_is_an_error() -> None:
    game = tiny("tiny-seq")
    driver.play(game, [Recorder(s) for s in range(3)])
    with pytest.raises(GameStateError):
        driver.step(game, [Recorder(s) for s in range(3)])
