"""The tiny family's tour of every tool: none of them knows it, all of them play it.

``tests/tinyfamily`` is registered at run time (and, in the command-line runs, in the
child process) and goes through simulation, records and replay, the audit, the
environments, ``play`` on a script of inputs, ``demo``, ``validate`` and ``schema``,
in its turn-based and its simultaneous variant. The family's own tests and the other
tools' tests go deeper; this one proves that the boundary holds end to end.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import cardshop
import tinyfamily
from cardshop import driver
from cardshop.bots import RandomBot
from cardshop.records import Recorder, replay_record

pytestmark = pytest.mark.build_independent

HERE = Path(__file__).resolve().parent
VARIANTS = {name: HERE / "tinyfamily" / f"{name}.yaml" for name in ("tiny-seq", "tiny-sim")}
CLI = (
    "import sys; sys.path.insert(0, {tests!r}); import tinyfamily; tinyfamily.register(); "
    "from cardshop.__main__ import main; sys.exit(main(sys.argv[1:]))"
)


@pytest.fixture(autouse=True)
def registered() -> None:
    tinyfamily.register()


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The command line in a child process that knows the tiny family."""
    return subprocess.run(
        [sys.executable, "-c", CLI.format(tests=str(HERE)), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: a command takes seconds, this is 100 times that
    )


@pytest.mark.parametrize("name", VARIANTS)
def test_simulate(name: str) -> None:
    variant = cardshop.load_variant(VARIANTS[name])
    sim = cardshop.simulate(variant, players=3, games=12, bots="random", seed=4)
    assert len(sim) == 12
    assert all(o.termination in ("finished", "capped") for o in sim)
    again = cardshop.simulate(variant, players=3, games=12, bots="random", seed=4)
    assert [o.scores for o in sim] == [o.scores for o in again]


@pytest.mark.parametrize("name", VARIANTS)
def test_record_and_replay(name: str, tmp_path: Path) -> None:
    game = cardshop.new_game(VARIANTS[name], 3, seed=5)
    bots = [RandomBot(s) for s in range(3)]
    recorder = Recorder(game, ["random"] * 3)
    driver.play(game, bots, on_step=recorder.add)
    path = tmp_path / f"{name}.jsonl"
    recorder.record().write(path)
    replayed = replay_record(path)
    assert replayed.result() == game.result()
    lines = path.read_text().splitlines()
    step = json.loads(lines[1])
    step["actions"][0]["action"] = "take 9"
    lines[1] = json.dumps(step)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(cardshop.RecordError, match=":2"):
        replay_record(path)


@pytest.mark.parametrize("name", VARIANTS)
def test_environments(name: str) -> None:
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test, parallel_api_test

    from cardshop import envs

    variant = cardshop.load_variant(VARIANTS[name])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if name == "tiny-seq":
            api_test(envs.env(variant, players=3), num_cycles=200)
        else:
            parallel_api_test(envs.parallel_env(variant, players=3), num_cycles=200)
    # PettingZoo's checker warns about dict observations (the action mask rides along)
    assert {str(w.message).split(",")[0] for w in caught} <= {
        "Observation space for each agent probably should be gymnasium.spaces.box or "
        "gymnasium.spaces.discrete",
        "Observation is not a NumPy array",
    }
    gym_env = envs.ShopGymEnv(variant, players=3)
    check_env(gym_env, skip_render_check=True)
    gym_env.reset(seed=1)
    mask = gym_env.action_masks()
    assert mask.any()


@pytest.mark.parametrize("name", VARIANTS)
def test_command_line(name: str, tmp_path: Path) -> None:
    path = str(VARIANTS[name])
    checked = cli("validate", path)
    assert checked.returncode == 0, checked.stderr
    assert "tinymarket family" in checked.stdout
    schema = json.loads(cli("schema").stdout)
    assert "TinyVariant" in schema["$defs"]
    demo = cli("demo", path, "--players", "3", "--seed", "2")
    assert demo.returncode == 0, demo.stderr
    assert "winner" in demo.stdout
    record = tmp_path / "played.jsonl"
    script = "pass\n" * 200 + "quit\n"
    played = cli(
        *("play", path, "--players", "3", "--seat", "0", "--bot", "random", "--seed", "3"),
        *("--record", str(record)),
        stdin=script,
    )
    assert "Traceback" not in played.stderr
    assert played.returncode == 0, played.stderr
    assert record.exists()
    replayed = cli("replay", str(record))
    assert replayed.returncode == 0, replayed.stderr
    audit = cli("audit", path, "--players", "3", "--games", "10", "--examples", "5")
    assert audit.returncode == 0, audit.stdout + audit.stderr
    bad = cli("demo", path, "--players", "many")
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr
