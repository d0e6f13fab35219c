"""The library's readers and setups refuse what a stranger could send, early and clearly.

* Positions bound every number they carry: the seed (a seed as ``new_game`` takes one)
  and the running counts (chance events, statistics), by the core's shared types.
* Game JSON is counted and replayed as it is read: a game with a million moves is
  refused at its first move that cannot be, not after reading all of them.
* A bool is no seed anywhere (``True`` is the int 1 to one reader and not to another),
  by the core's one check, :func:`cardshop.core.check_seed`.
* ``Engine.new`` and ``Engine._empty`` set the setup fields every engine has, so a
  family's own hooks need not.
* The audit words a game's length in the family's unit (rounds, turns, steps).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pytest

import cardshop
import tinyfamily
from cardshop.core import (
    MASTER_SEED_LIMIT,
    SEED_LIMIT,
    Action,
    Engine,
    Game,
    LegalActions,
    PositionError,
    SetupError,
    StateField,
    check_seed,
    read_game_json,
    register_family,
)

# ------------------------------------------------------------ bounded positions

HUGE = 10**90  # a 90-digit number: a seed, a count, a statistic no game can have


@pytest.mark.parametrize(
    ("key", "allowed"),
    [("seed", "-2**64 < seed < 2**64"), ("chance", "from 0 to 2**62")],
)
@pytest.mark.parametrize("sign", [1, -1])
def test_reglamentacja_position_bounds_seed_and_chance(key: str, allowed: str, sign: int) -> None:
    position = cardshop.new_game("reglamentacja", players=3, seed=1).to_position()
    with pytest.raises(PositionError) as caught:
        cardshop.Game.from_position({**position, key: sign * HUGE})
    message = str(caught.value)
    assert f"at {key}:" in message, message
    assert allowed in message, message
    assert "an int of 299 bits" in message  # the value, by its size: not 90 digits


def test_reglamentacja_position_bounds_its_statistics() -> None:
    position = cardshop.new_game("reglamentacja", players=3, seed=1).to_position()
    stats = {"trades": HUGE}
    with pytest.raises(PositionError, match=r"at stats\.trades: .*from 0 to 2\*\*62"):
        cardshop.Game.from_position({**position, "stats": stats})
    # In range, the same counter is read and written back.
    game = cardshop.Game.from_position({**position, "stats": {"trades": 2**62}})
    assert game.to_position()["stats"] == {"trades": 2**62}


@pytest.mark.parametrize("variant", ["klunker-en", "wuhltisch", "reglamentacja"])
@pytest.mark.parametrize("seed", [1 - SEED_LIMIT, -5, SEED_LIMIT - 1])
def test_every_seed_new_game_takes_reads_back(variant: str, seed: int) -> None:
    """Any seed ``new_game`` takes, negative ones too, reads back from the game's JSON
    and from its position, in every family (the readers share one type of seed)."""
    game = cardshop.new_game(variant, players=3, seed=seed)
    assert cardshop.Game.from_json(game.to_json()).seed == seed
    assert cardshop.Game.from_position(game.to_position()).seed == seed
    for outside in (-SEED_LIMIT, SEED_LIMIT):
        with pytest.raises(PositionError, match="-2\\*\\*64 < seed < 2\\*\\*64"):
            cardshop.Game.from_position({**game.to_position(), "seed": outside})


@pytest.mark.parametrize("variant", ["klunker-en", "wuhltisch", "reglamentacja"])
def test_positions_refuse_a_bool_seed(variant: str) -> None:
    position = cardshop.new_game(variant, players=3, seed=1).to_position()
    with pytest.raises(PositionError, match="at seed"):
        cardshop.Game.from_position({**position, "seed": True})


# ------------------------------------------------------- game JSON read early

MILLION = 1_000_000


def _reglamentacja_data() -> dict[str, Any]:
    data: dict[str, Any] = cardshop.new_game("reglamentacja", players=3, seed=1).to_dict()
    return data


def test_reglamentacja_json_counts_its_moves_before_reading_them() -> None:
    """A million moves in a game whose state has played none: refused by the count, one
    move a step, before a move is read."""
    data = _reglamentacja_data()
    data["moves"] = [[i, 0, "pass"] for i in range(MILLION)]
    text = json.dumps(data, separators=(",", ":"))
    assert 16_000_000 < len(text) < 20_000_000  # within the size every reader allows
    with pytest.raises(PositionError, match="the 0 moves of the state's 0 steps"):
        cardshop.Game.from_json(text)


def test_reglamentacja_json_stops_at_the_first_move_that_cannot_be() -> None:
    """A game that claims a million steps and lists a million moves: read until the first
    one that does not replay from the setup, never to the last, which is not even an
    action of the game."""
    data = _reglamentacja_data()
    acting = cardshop.new_game("reglamentacja", players=3, seed=1).acting[0]
    other = (acting + 1) % 3  # not the seat that acts first
    data["moves"] = [[i, other, "pass"] for i in range(MILLION - 1)] + [
        [MILLION - 1, 0, "no such action"]
    ]
    data["state"]["step"] = MILLION
    with pytest.raises(PositionError) as caught:
        cardshop.Game.from_json(json.dumps(data, separators=(",", ":")))
    message = str(caught.value)
    assert "moves[0] (pass, step 0) does not replay" in message, message


def test_reglamentacja_json_moves_are_numbered_by_step() -> None:
    game = cardshop.new_game("reglamentacja", players=3, seed=1)
    game.apply(game.legal_actions()[0])
    data = game.to_dict()
    data["moves"][0][0] = 5
    with pytest.raises(PositionError, match=r"moves\[0\] step must be an int in 0\.\.0"):
        cardshop.Game.from_json(data)


def test_wuhltisch_json_stops_at_the_first_move_that_cannot_be() -> None:
    data: dict[str, Any] = cardshop.new_game("wuhltisch", players=3, seed=1).to_dict()
    steps = 50_000
    data["steps"] = steps
    # Seat 0 buys before it has looked at anything: the first step cannot be; the
    # last move is no action of the game at all.
    data["moves"] = [[i // 3, i % 3, "wait"] for i in range(3 * steps - 1)]
    data["moves"][0] = [0, 0, "buy"]
    data["moves"].append([steps - 1, 2, "no such action"])
    with pytest.raises(PositionError) as caught:
        cardshop.Game.from_json(data)
    message = str(caught.value)
    assert "moves[0] (buy, step 0) does not replay" in message, message


def test_wuhltisch_json_counts_its_moves_before_reading_them() -> None:
    data: dict[str, Any] = cardshop.new_game("wuhltisch", players=3, seed=1).to_dict()
    data["steps"] = 2
    data["moves"] = [[0, 0, "wait"]] * 7
    with pytest.raises(PositionError, match="7 moves cannot be made in 2 steps of 3 players"):
        cardshop.Game.from_json(data)


def test_game_json_is_walked_once_on_its_way_through_the_readers() -> None:
    """Data read_game_json returned is returned as it is; anything else is bounded."""
    text = cardshop.new_game("klunker-en", players=3, seed=1).to_json()
    data = read_game_json(text)
    assert read_game_json(data) is data
    copy = dict(data)
    assert read_game_json(copy) is not copy
    assert read_game_json(copy) == data
    for hostile, problem in (
        ({**data, "x": (1, {2}, 3)}, "a set is not JSON data"),
        ({**data, "x": [1, [2, 2**64]]}, r"larger than 2\*\*64"),
        ({**data, "x": {"a": float("nan")}}, "not finite"),
    ):
        with pytest.raises(PositionError, match=problem):
            read_game_json(hostile)


def test_game_json_nesting_is_bounded_exactly() -> None:
    from cardshop.core import MAX_GAME_JSON_DEPTH

    def nested(depth: int) -> Any:  # a list at depth 2 under the top-level object
        value: Any = 0
        for _ in range(depth - 1):
            value = [value]
        return value

    assert read_game_json({"x": nested(MAX_GAME_JSON_DEPTH)})
    with pytest.raises(PositionError, match="nest more than"):
        read_game_json({"x": nested(MAX_GAME_JSON_DEPTH + 1)})


# -------------------------------------------------------------- bools are no seeds


def test_check_seed_refuses_bools_and_names_the_range() -> None:
    assert check_seed(7) == 7
    assert check_seed(-(2**64) + 1) == -(2**64) + 1
    assert check_seed(2**70, limit=MASTER_SEED_LIMIT) == 2**70
    for bad in (True, False):
        with pytest.raises(SetupError, match="true and false are not seeds"):
            check_seed(bad)
    with pytest.raises(SetupError, match=r"master seed must be an int with -2\*\*1024"):
        check_seed(2**1024, "master seed", MASTER_SEED_LIMIT)
    for bad in (2**64, 1.0, "7", None):
        with pytest.raises(SetupError, match=r"seed must be an int with -2\*\*64 < seed"):
            check_seed(bad)


@pytest.mark.parametrize("engine", ["reference", "kernel"])
def test_simulate_refuses_a_bool_seed_on_either_engine(engine: str) -> None:
    with pytest.raises(SetupError, match="true and false are not seeds"):
        cardshop.simulate("klunker-en", 3, 2, seed=True, engine=engine, workers=1)


def test_the_kernel_refuses_a_bool_seed() -> None:
    pytest.importorskip("numba")
    from cardshop.klunker import kernel

    variant = cardshop.load_variant("klunker-en")
    assert kernel.unavailable(variant, 3, ("random",), 1) is None
    why = kernel.unavailable(variant, 3, ("random",), True)  # type: ignore[arg-type]
    assert why is not None
    assert "true and false are not seeds" in why
    with pytest.raises(SetupError, match="true and false are not seeds"):
        kernel.play(variant, 3, ("random",), True, 0, 1)  # type: ignore[arg-type]


def test_audit_refuses_a_bool_seed() -> None:
    from cardshop.audit import run_audit

    with pytest.raises(SetupError, match="true and false are not seeds"):
        run_audit("klunker-en", games=1, examples=0, seed=True, players=[3])


def test_new_game_checks_the_seed_for_every_family() -> None:
    """The core checks the seed before a family sees it, a third party's too."""
    tinyfamily.register()
    for seed in (True, 2**64, "1"):
        with pytest.raises(SetupError, match="seed must be an int"):
            cardshop.new_game("tiny-seq", 2, seed=seed)  # type: ignore[arg-type]
        with pytest.raises(SetupError, match="seed must be an int"):
            cardshop.replay("tiny-seq", 2, seed, None, [])  # type: ignore[arg-type]
    assert cardshop.new_game("tiny-seq", 2, seed=-3).seed == -3


# ------------------------------------------- Engine sets what every engine needs


class Countdown(Engine):
    """An engine whose hooks set only its own fields, as a third party's may: seats
    take turns saying ``go`` until the counter reaches 0."""

    family = "tinymarket"
    STATE = (
        *Engine.SETUP_STATE,
        StateField("left"),
        StateField("_termination"),
        *Game.MOVES_STATE,
    )
    PROGRESS = "_step"

    def _init_empty(self, variant: Any, players: int, seed: int) -> None:
        self.rules = None
        self.left = 0
        self._termination = 0
        self._moves = []
        self._step = 0

    def _setup(self, first_player: int | None) -> None:
        self.left = 2 * self.n

    @property
    def acting(self) -> tuple[int, ...]:
        return () if self.is_over else (self._step % self.n,)

    @property
    def is_over(self) -> bool:
        return self._termination != 0

    def legal_actions(self, seat: int | None = None) -> LegalActions:
        self.require_seat(seat)
        return LegalActions([Action("go")])

    def parse_action(self, text: str, seat: int | None = None) -> Action:
        return Action.from_text(text)

    def _play(self, actions: Mapping[int, Action]) -> list[Any]:
        self.left -= 1
        if not self.left:
            self._termination = 1
        return []

    def scores(self) -> tuple[int, ...]:
        return tuple(0 for _ in range(self.n))

    def _rank_key(self, seat: int) -> tuple[int, ...]:
        return (0,)

    def observation(self, seat: int) -> Sequence[int]:
        return (seat, self.left)

    def to_dict(self) -> dict[str, Any]:
        return {"left": self.left}


def test_engine_new_sets_the_setup_fields_a_familys_hooks_leave_out() -> None:
    tinyfamily.register()
    variant = cardshop.load_variant("tiny-seq")
    game = Countdown.new(variant, 3, seed=11)
    assert (game.variant, game.players, game.seed) == (variant, 3, 11)
    assert game.setup_options() == {}  # dealt by new_game: its moves replay from it
    while not game.is_over:
        game.apply("go")
    assert game.result().rounds == 6
    blank = Countdown._empty(variant, 2, 5)
    assert (blank.variant, blank.players, blank.seed) == (variant, 2, 5)
    assert blank.setup_options() is None  # a reader's blank game was not dealt
    assert game.clone() == game


# ------------------------------------------------- the audit's words for a game's length


@pytest.fixture
def tiny_in_turns() -> Iterator[None]:
    """The tiny family registered as counting its games in turns (it counts steps)."""
    register_family(dataclasses.replace(tinyfamily.FAMILY, length_unit="turn"), replace=True)
    yield
    tinyfamily.register()


@pytest.mark.usefixtures("tiny_in_turns")
def test_the_audit_words_a_games_length_in_the_familys_unit() -> None:
    """A family whose unit is turns gets turns in the text, the Markdown, the JSON's
    length measure and the HTML report, and no rounds anywhere."""
    from cardshop.audit import report_schema, run_audit

    report = run_audit("tiny-seq", games=12, players=[2], examples=0, seed=3)
    text, markdown = report.to_text(), report.to_markdown()
    assert "  turns:     " in text
    assert "| Turns: mean (sd) |" in markdown
    for words in (text, markdown):  # ("a JSON round trip" is another round)
        assert not re.search(r"\brounds\b|\bround cap\b", words, re.I), words
    data = json.loads(json.dumps(report.to_dict()))
    entry = data["variants"][0]
    assert entry["length_unit"] == "turn"
    length = entry["player_counts"][0]["measures"]["rounds"]
    assert (length["label"], length["unit"]) == ("Turns", "turns")
    for measure in entry["player_counts"][0]["measures"].values():  # "rounds" is an id
        words = " ".join((measure["label"], measure["unit"], measure["meaning"]))
        assert not re.search(r"\brounds?\b", words), measure
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(data, report_schema())
    pytest.importorskip("plotly")
    from cardshop.report import render_html

    page = render_html(data)
    assert "turns per game" in page
    assert "rounds per game" not in page


def test_the_audit_names_the_cap_in_the_familys_unit() -> None:
    """The cap is the variant's key in the family's unit: the tiny family counts steps
    and caps them with step_cap; Klunker counts rounds, capped by round_cap."""
    from cardshop.audit import run_audit

    tinyfamily.register()
    tiny = run_audit("tiny-seq", games=4, players=[2], examples=0)
    assert (tiny.length_unit, tiny.length_cap) == ("step", 200)
    assert "reached the step cap of 200" in tiny.to_text()
    assert "  steps:      " in tiny.to_text()
    klunker = run_audit("klunker-en", games=2, players=[3], examples=0)
    assert (klunker.length_unit, klunker.length_cap, klunker.round_cap) == ("round", 200, 200)
    assert "reached the round cap of 200" in klunker.to_text()
