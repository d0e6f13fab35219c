"""Both chance models (a variant's ``chance``) in every built-in family. The built-in
variants draw by model 2; a variant that names no model, and every game and record of a
built-in from before they drew by model 2, by model 1. Here: the conformance battery on
the built-ins under model 1 (tests/test_conformance.py runs it on them as they are),
records and game JSON that carry the model, records of model-1 games that replay
unchanged, the kernels that play both models, and a family that refuses model 2.

The draws themselves are checked against the models' definitions in tests/test_chance.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cardshop import driver, load_variant, new_game
from cardshop.core import (
    CHANCE_MODELS,
    Game,
    RecordError,
    VariantError,
    variant_from_data,
)
from cardshop.records import GameRecord, record_game, replay_record
from cardshop.simulation import kernel_note
from cardshop.testing import FamilyTests
from diff_support import under_model

FIXTURES = Path(__file__).parent / "fixtures"
TINY = Path(__file__).parent / "tinyfamily"
BUILT_IN = ("klunker-en", "klunker-es", "klunker-zh", "wuhltisch", "reglamentacja")


def twister(name: str) -> str:
    """The built-in ``name`` under chance model 1: tests/fixtures/chance1/."""
    return str(FIXTURES / "chance1" / f"{name}-twister.yaml")


class TestKlunkerTwister(FamilyTests):
    variants = (twister("klunker-es"), twister("klunker-zh"))
    seeds = (0, 1)


class TestWuhltischTwister(FamilyTests):
    variants = (twister("wuhltisch"),)
    players = (3,)
    seeds = (0,)
    check_every = 500  # as tests/test_conformance.py: random searchers play long games
    positions_keep_observations = False


class TestReglamentacjaTwister(FamilyTests):
    variants = (twister("reglamentacja"),)
    seeds = (0, 1)


def _play_out(game: Game, seed: int) -> Game:
    """Play ``game`` to its end (at most 3,000 steps), every seat taking the
    ``seed``-th legal action modulo their number, as a record's bots would."""
    step = 0
    while not game.is_over and step < 3_000:
        choices = {}
        for seat in game.acting:
            actions = game.legal_actions(seat)
            choices[seat] = actions[(seed + step + seat) % len(actions)]
        driver.apply(game, choices)
        step += 1
    return game


@pytest.mark.parametrize("name", BUILT_IN)
def test_the_model_is_the_variants_and_changes_the_games_of_a_seed(name: str) -> None:
    """One seed, two models, other games; one model, one seed, the same game."""
    ones = load_variant(twister(name))
    twos = load_variant(name)
    assert (ones.chance, twos.chance) == (1, 2)
    players = ones.players.min
    differ = 0
    for seed in range(4):
        first = new_game(twos, players, seed)
        again = new_game(twos, players, seed)
        assert first.to_json() == again.to_json()
        differ += first.to_json() != new_game(ones, players, seed).to_json()
    assert differ >= 3


@pytest.mark.parametrize("name", ["klunker-es", "wuhltisch", "reglamentacja"])
def test_a_record_of_model_2_carries_it_and_replays(name: str, tmp_path: Path) -> None:
    variant = load_variant(name)
    game = _play_out(new_game(variant, variant.players.min, 11), 3)
    record = record_game(game)
    path = tmp_path / "game.jsonl"
    record.write(path)
    header = json.loads(path.read_text().splitlines()[0])
    assert header["variant_data"]["chance"] == 2
    replayed = replay_record(path)
    assert replayed.to_json() == game.to_json()
    # A caller's variant must have the recorded hash: the same rules under model 1 are
    # refused, with the reason, and the error says how to replay the recorded rules.
    ones = under_model(name, 1)
    with pytest.raises(RecordError, match="draws by chance model 1; the record's game by 2"):
        GameRecord.read(path).replay(ones)


def test_a_model_1_variant_keeps_its_data_and_hash() -> None:
    """``chance: 1`` is the default and left out of a variant's data: a built-in under
    model 1 has the data and content hash it had before the built-ins drew by model 2,
    and differs from the built-in in its ``chance`` key alone."""
    for name in BUILT_IN:
        variant = under_model(name, 1)
        data = variant.to_data()
        assert "chance" not in data
        assert variant.to_data(all_keys=True)["chance"] == 1
        assert variant_from_data(data).content_hash == variant.content_hash
        now = load_variant(name).to_data()
        assert now.pop("chance") == 2
        assert now == data


RECORDS = sorted((FIXTURES / "records").glob("*-model-1.jsonl"))
"""Records of greedy games of the built-ins under chance model 1, written as every record
was before they drew by model 2: ``variant_data`` without a ``chance`` key."""


@pytest.mark.parametrize("path", RECORDS, ids=lambda p: p.stem)
def test_a_record_of_a_model_1_game_of_a_built_in_replays_unchanged(path: Path) -> None:
    """The default replay finds the built-in by its recorded name; its rules are the
    record's but for the chance model, so the record replays under its own model, with
    no option, and plays the recorded events and result again."""
    record = GameRecord.read(path)
    assert "chance" not in json.loads(path.read_text().splitlines()[0])["variant_data"]
    assert record.variant.chance == 1
    assert load_variant(record.variant_name).chance == 2
    game = replay_record(path)
    assert game.variant.chance == 1
    assert game.is_over
    assert game.variant.content_hash == record.variant_hash


def test_the_command_line_replays_a_record_of_a_model_1_game() -> None:
    assert len(RECORDS) == 4  # one per family, two Klunker editions
    out = subprocess.run(
        [sys.executable, "-m", "cardshop", "replay", str(RECORDS[0])],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: the replay takes about a second
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"{RECORDS[0]}: ok - klunker-es (klunker)"), out.stdout
    words = "verified under chance model 1, the record's (klunker-es now draws by model 2)"
    assert words in " ".join(out.stdout.split()), out.stdout
    # naming the built-in is asking for its rules, model 2 included: refused, exit 2
    named = subprocess.run(
        [sys.executable, "-m", "cardshop", "replay", str(RECORDS[0]), "--variant", "klunker-es"],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard, as above
        check=False,
    )
    assert named.returncode == 2, named.stderr
    error = " ".join(named.stderr.split())
    assert "variant 'klunker-es' draws by chance model 2; the record's game by 1" in error
    assert "--recorded-variant" in error
    assert "Traceback" not in named.stderr


def test_game_json_carries_the_model() -> None:
    variant = load_variant("reglamentacja")
    game = _play_out(new_game(variant, 3, 5), 1)
    again = Game.from_json(game.to_json())
    assert again.variant.chance == 2
    assert again.to_json() == game.to_json()


def test_a_model_that_is_not_one_is_refused_with_the_models() -> None:
    data = load_variant("wuhltisch").to_data()
    for value in (0, 3, -1):
        with pytest.raises(VariantError, match=r"at chance: .* \(the models: 1, 2\)"):
            variant_from_data({**data, "chance": value})
    for value in ("2", 2.0, True):  # true is no 1, as for a seed
        with pytest.raises(VariantError, match="at chance: chance must be a whole number"):
            variant_from_data({**data, "chance": value})
    assert sorted(CHANCE_MODELS) == [1, 2]


def test_a_family_that_draws_by_model_1_only_refuses_model_2(tmp_path: Path) -> None:
    """The tiny family (written from the docs) passes no model to chance_source, so it
    declares no other: its variant with ``chance: 2`` is refused, not played by model 1."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import tinyfamily; "
        "tinyfamily.register(); from cardshop.core import load_variant; "
        "from cardshop import CardshopError\n"
        "try:\n    load_variant(sys.argv[2])\n"
        "except CardshopError as exc:\n    print(exc)"
    )
    variant = tmp_path / "tiny-chance-2.yaml"
    variant.write_text((TINY / "tiny-seq.yaml").read_text() + "chance: 2\n")
    out = subprocess.run(
        [sys.executable, "-c", code, str(TINY.parent), str(variant)],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: the script takes about a second
        check=True,
    ).stdout
    assert "chance" in out
    assert "by model 1 only, not 2" in out


@pytest.mark.parametrize("model", [1, 2])
@pytest.mark.parametrize("name", BUILT_IN)
def test_every_kernel_plays_both_models(name: str, model: int) -> None:
    """The kernels play both models' games (game by game: tests/test_kernel.py,
    tests/test_wuhltisch_kernel.py, tests/test_reglamentacja_kernel.py)."""
    variant = under_model(name, model)
    family = variant.family
    assert kernel_note(variant, 3, ("random",), 4) == (f"cardshop.{family}.kernel", "")
