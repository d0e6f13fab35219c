"""Every house-rule recipe of the cookbook (docs/cookbook/*/*.yaml) is played by every
tool, not only by ``new_game``: a simulation (the engine ``auto`` picks), a record
that replays, a position, JSON and a pickle that restore the same game, and the
Gymnasium environment. Each recipe's own effect is checked in its family's cookbook
test; this one checks that no tool refuses or garbles a house rule."""

from __future__ import annotations

import pickle
import random
from pathlib import Path

import pytest

import cardshop
from cardshop.records import record_game, replay_record

ROOT = Path(__file__).resolve().parents[1]
RECIPES = sorted((ROOT / "docs" / "cookbook").glob("*/*.yaml"))
ENV_STEPS = 300  # enough to cross rounds; a Wühltisch game of random ticks lasts longer


def players_of(variant: cardshop.VariantBase) -> int:
    return max(variant.players.min, min(3, variant.players.max))


def step_once(game: cardshop.Game, rng: random.Random) -> None:
    actions = {seat: rng.choice(game.legal_actions(seat)) for seat in game.acting}
    if len(actions) == 1:
        ((seat, action),) = actions.items()
        game.apply(action, seat)
    else:
        game.apply_joint(actions)


@pytest.mark.parametrize("path", RECIPES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_tool_plays_the_recipe(path: Path) -> None:
    variant = cardshop.load_variant(path)
    n = players_of(variant)
    result = cardshop.simulate(variant, n, 4, bots="random", seed=2, workers=1)
    assert len(result) == 4
    assert all(outcome.scores for outcome in result)

    game = cardshop.new_game(variant, players=n, seed=5)
    rng = random.Random(5)
    for _ in range(40):
        if game.is_over:
            break
        step_once(game, rng)
    assert cardshop.Game.from_json(game.to_json()) == game
    assert pickle.loads(pickle.dumps(game)) == game
    position = game.to_position()
    assert type(game).from_position(position, variant).to_position() == position
    record = record_game(game)
    assert replay_record(record, variant) == game

    gymnasium = pytest.importorskip("gymnasium")
    from cardshop.envs import ShopGymEnv

    env = ShopGymEnv(variant, n, opponents="random")
    assert isinstance(env, gymnasium.Env)
    _, info = env.reset(seed=1)
    for _ in range(ENV_STEPS):
        legal = [i for i, ok in enumerate(info["action_mask"]) if ok]
        _, _, terminated, truncated, info = env.step(rng.choice(legal))
        if terminated or truncated:
            break
