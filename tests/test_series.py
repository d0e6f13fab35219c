"""Matches played as one game (cardshop.core.series): the tiny family's turn-based and
simultaneous variants with a ``match`` key, and klunker-zh (MATCH-1) through
``cardshop.new_game``."""

from __future__ import annotations

import copy
import json
import pickle
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import cardshop
import tinyfamily
from cardshop import GameStateError, PositionError, RecordError, SetupError, driver
from cardshop.bots import RandomBot, make_bot
from cardshop.core.chance import derive_seed
from cardshop.core.game import (
    Dynamics,
    Game,
    Termination,
)
from cardshop.core.registry import (
    get_family,
    unregister_family,
)
from cardshop.core.series import (
    SERIES_LABELS,
    Series,
    SeriesGameEnded,
    SeriesObservation,
    current_game,
    event_from_dict,
    event_to_dict,
    new_series,
    render,
    series_encoder,
)
from tinyfamily import TinyGame, TinyVariant

TINY = Path(__file__).parent / "tinyfamily"


@pytest.fixture(autouse=True, scope="module")
def _tiny_family() -> Iterator[None]:
    tinyfamily.register()
    yield
    unregister_family(tinyfamily.NAME)


def tiny_match(name: str, games_per_player: int = 2) -> TinyVariant:
    """A tiny variant from tests/tinyfamily with a ``match`` key."""
    data = yaml.safe_load((TINY / f"{name}.yaml").read_text())
    data |= {"name": f"{name}-match", "match": {"games_per_player": games_per_player}}
    return TinyVariant.model_validate(data)


def random_players(n: int, seed: int = 0) -> list[RandomBot]:
    return [RandomBot(seed + s) for s in range(n)]


def play_to_game(series: Series, index: int, seed: int = 0) -> None:
    """Play random actions until the series is in game ``index``."""
    players = random_players(series.players, seed)
    driver.run_until(series, players, lambda g: series.game_index >= index)


# ---------------------------------------------------------------- the tiny family


@pytest.mark.parametrize("name", ["tiny-seq", "tiny-sim"])
@pytest.mark.parametrize("players", [2, 3])
def test_a_tiny_match_plays_every_game_and_sums_the_scores(name: str, players: int) -> None:
    variant = tiny_match(name, games_per_player=2)
    series = cardshop.new_game(variant, players, seed=7)
    assert isinstance(series, Series)
    assert series.family == tinyfamily.NAME
    assert series.games == 2 * players
    assert series.dynamics is Dynamics(variant.dynamics)  # type: ignore[attr-defined]
    ended: list[SeriesGameEnded] = []
    steps: list[driver.Step] = []

    def on_step(step: driver.Step) -> None:
        steps.append(step)
        ended.extend(e for e in step.events if isinstance(e, SeriesGameEnded))

    driver.play(series, random_players(players), on_step=on_step)
    assert series.is_over
    assert series.acting == ()
    assert len(series.results) == series.games
    assert [e.game for e in ended] == list(range(series.games))
    assert all(e.next_first == -1 for e in ended)  # the tiny family has no first player
    result = series.result()
    sums = tuple(sum(r.scores[s] for r in series.results) for s in range(players))
    assert result.scores == sums == series.totals == ended[-1].totals
    best = max(sums)
    assert result.winners == tuple(s for s in range(players) if sums[s] == best)
    assert result.ranks == tuple(1 + sum(t > mine for t in sums) for mine in sums)
    assert result.rounds == sum(r.rounds for r in series.results)
    assert result.details["games"] == series.games
    assert result.termination is Termination.FINISHED
    # Steps are numbered across the games: 0, 1, 2, ... one per driver step.
    moves = series.moves
    assert sorted({m.step for m in moves}) == list(range(len(steps)))
    for step in steps:
        assert sorted(m.seat for m in moves if m.step == step.number) == sorted(step.actions)


def test_each_game_of_a_tiny_match_has_its_own_derived_seed() -> None:
    series = cardshop.new_game(tiny_match("tiny-seq"), 2, seed=3)
    assert isinstance(series, Series)
    seen = []
    while not series.is_over:
        if not seen or seen[-1][0] != series.game_index:
            seen.append((series.game_index, series.current.seed))
        series.apply(series.legal_actions()[0])
    assert seen == [(i, derive_seed(3, "game", i)) for i in range(4)]
    with pytest.raises(SetupError, match="first_player"):
        cardshop.new_game(tiny_match("tiny-seq"), 2, seed=3, first_player=1)


def test_a_variant_without_match_is_one_game_and_new_series_refuses_it() -> None:
    plain = TinyVariant.model_validate(yaml.safe_load((TINY / "tiny-seq.yaml").read_text()))
    assert plain.match is None
    assert isinstance(cardshop.new_game(plain, 2, seed=1), TinyGame)
    with pytest.raises(SetupError, match="declares no match"):
        new_series(plain, 2, seed=1)
    with pytest.raises(SetupError, match="players"):
        cardshop.new_game(tiny_match("tiny-seq"), 9, seed=1)
    with pytest.raises(SetupError, match="seed"):
        cardshop.new_game(tiny_match("tiny-seq"), 2, seed=2**80)
    assert isinstance(cardshop.new_game(tiny_match("tiny-seq"), 2).seed, int)  # a fresh seed


def test_the_match_key_is_on_every_family_s_variants_and_bounded() -> None:
    text = (TINY / "tiny-seq.yaml").read_text()
    loaded = cardshop.parse_variant(text + "match: {games_per_player: 3}\n")
    assert loaded.match is not None
    assert loaded.match.games_per_player == 3
    with pytest.raises(cardshop.VariantError, match="games_per_player"):
        cardshop.parse_variant(text + "match: {games_per_player: 101}\n")
    with pytest.raises(cardshop.VariantError, match="match"):
        cardshop.parse_variant(text + "match: {rounds: 3}\n")


@pytest.mark.parametrize("name", ["tiny-seq", "tiny-sim"])
def test_clone_and_json_round_trip_in_the_middle_of_a_tiny_match(name: str) -> None:
    series = cardshop.new_game(tiny_match(name), 3, seed=5)
    assert isinstance(series, Series)
    play_to_game(series, 2)
    assert series.game_index == 2
    text = series.to_json()
    back = Series.from_json(text)
    assert isinstance(back, Series)
    assert back.to_dict() == series.to_dict() == json.loads(text)
    assert back.moves == series.moves
    assert back.totals == series.totals
    copy_ = series.clone()
    assert copy_.to_dict() == series.to_dict()
    # The three play on identically, and the copies never share state.
    before = series.to_dict()
    driver.play(copy_, random_players(3, 1))
    assert series.to_dict() == before
    driver.play(back, random_players(3, 1))
    driver.play(series, random_players(3, 1))
    assert back.result() == series.result() == copy_.result()
    assert back.moves == series.moves
    finished = Series.from_json(series.to_json())
    assert finished.is_over
    assert finished.result() == series.result()


# ---------------------------------------------------------------- klunker-zh


def test_klunker_zh_is_a_match_game_through_new_game() -> None:
    series = cardshop.new_game("klunker-zh", 3, seed=4)
    assert isinstance(series, Series)
    assert isinstance(series, Game)
    assert series.family == "klunker"
    assert series.players == 3
    assert series.games == 3
    assert series.variant.name == "klunker-zh"
    assert "game 1/3" in repr(series)
    firsts = []
    while not series.is_over:
        if len(firsts) == series.game_index:
            firsts.append(series.current.first_player)  # type: ignore[attr-defined]
        series.apply(series.legal_actions()[-1])
    assert firsts == [0, 1, 2]  # MATCH-1: game i is started by seat i mod players
    with pytest.raises(GameStateError, match="over"):
        series.apply("done")
    with pytest.raises(GameStateError, match="over"):
        series.legal_actions()


def test_klunker_zh_first_player_shifts_the_rotation() -> None:
    series = cardshop.new_game("klunker-zh", 4, seed=4, first_player=1)
    assert isinstance(series, Series)
    firsts = []
    while not series.is_over:
        if len(firsts) == series.game_index:
            firsts.append(series.current.first_player)  # type: ignore[attr-defined]
        series.apply(series.legal_actions()[0])
    assert firsts == [1, 2, 3, 0]
    with pytest.raises(SetupError, match="first_player"):
        cardshop.new_game("klunker-zh", 4, seed=4, first_player=4)


def test_klunker_zh_driver_play_with_the_family_s_bots() -> None:
    """The bots see a SeriesObservation, which answers with the game's own fields."""
    variant = cardshop.load_variant("klunker-zh")
    series = cardshop.new_game(variant, 3, seed=8)
    bots = [make_bot("greedy", variant, 0), make_bot("ismcts:4", variant, 1), RandomBot(2)]
    driver.play(series, bots)
    assert isinstance(series, Series)
    assert series.is_over
    result = series.result()
    assert result.scores == tuple(sum(r.scores[s] for r in series.results) for s in range(3))
    assert result.details["games"] == 3


def test_klunker_zh_observation_is_the_counters_and_the_game_s_observation() -> None:
    series = cardshop.new_game("klunker-zh", 3, seed=2)
    assert isinstance(series, Series)
    play_to_game(series, 1)
    for seat in range(3):
        obs = series.observation(seat)
        inner = series.current.observation(seat)
        assert isinstance(obs, SeriesObservation)
        assert obs == SeriesObservation(1, 3, series.results[0].scores, inner)
        assert obs.seat == inner.seat == seat  # fields read through to the game's
        assert obs.hand == inner.hand
    with pytest.raises(AttributeError):
        _ = series.observation(0).no_such_field
    obs = series.observation(0)
    assert copy.deepcopy(obs) == obs


def test_klunker_zh_json_and_clone_mid_match_and_the_core_reader() -> None:
    series = cardshop.new_game("klunker-zh", 4, seed=6)
    assert isinstance(series, Series)
    play_to_game(series, 2, seed=3)
    back = Series.from_json(series.to_json())
    assert back.to_dict() == series.to_dict()
    assert back.moves == series.moves
    clone = series.clone()
    pickled = pickle.loads(pickle.dumps(series))
    assert type(pickled) is type(series)
    assert pickled == series
    assert pickled.moves == series.moves
    assert pickled.zones() == series.zones()  # read through to the game being played
    rng = random.Random(0)
    while not series.is_over:
        action = rng.choice(series.legal_actions())
        events = series.apply(action)
        assert clone.apply(action) == back.apply(action) == pickled.apply(action) == events
    assert clone.result() == back.result() == pickled.result() == series.result()
    assert clone.moves == back.moves == pickled.moves == series.moves


def test_a_match_equals_one_whose_finished_games_have_its_moves_and_no_other() -> None:
    """Finished games are compared by their moves: a clone shares them, a JSON copy
    holds games of its own with the same moves, and a finished game of other moves
    (the results and totals left alike) makes the matches differ."""
    series = cardshop.new_game("klunker-zh", 3, seed=6)
    assert isinstance(series, Series)
    play_to_game(series, 2, seed=3)
    back = Series.from_json(series.to_json())
    assert back == series
    assert series.clone() == series
    other = cardshop.new_game("klunker-zh", 3, seed=7)
    assert isinstance(other, Series)
    play_to_game(other, 1, seed=4)
    changed = series.clone()
    changed._finished = (other._finished[0], *series._finished[1:])
    assert changed._results == series._results
    assert changed._game == series._game
    assert changed != series
    assert series != changed


def test_klunker_zh_moves_count_steps_across_the_games() -> None:
    series = cardshop.new_game("klunker-zh", 3, seed=9)
    assert isinstance(series, Series)
    applied = []
    while not series.is_over:
        action = series.legal_actions()[0]
        seat = series.acting[0]
        series.apply(action)
        applied.append((seat, action))
    moves = series.moves
    assert [(m.seat, m.action) for m in moves] == applied
    assert [m.step for m in moves] == list(range(len(applied)))


def test_klunker_zh_events_end_each_game_and_round_trip_as_data() -> None:
    series = cardshop.new_game("klunker-zh", 3, seed=1)
    assert isinstance(series, Series)
    family = get_family("klunker")
    ended = []
    while not series.is_over:
        for event in series.apply(series.legal_actions()[0]):
            data = event_to_dict(family, event)
            assert event_from_dict(family, json.loads(json.dumps(data))) == event
            if isinstance(event, SeriesGameEnded):
                ended.append(event)
    assert [e.next_first for e in ended] == [1, 2, -1]
    assert str(ended[0]).startswith(f"game 1 of 3 ends: scores {list(ended[0].scores)}")
    assert str(ended[0]).endswith("game 2 begins, seat 1 starts")
    assert str(ended[-1]).endswith("the series is over")
    with pytest.raises(RecordError):
        event_from_dict(family, {"type": "SeriesGameEnded", "game": "x"})


def test_klunker_zh_position_render_encoder_and_current_game() -> None:
    series = cardshop.new_game("klunker-zh", 3, seed=1)
    assert isinstance(series, Series)
    play_to_game(series, 1)
    position = series.to_position()
    assert position["series"] == {"game": 1, "games": 3, "totals": list(series.totals)}
    inner = series.current.to_position()
    assert {k: v for k, v in position.items() if k != "series"} == inner
    assert current_game(series) is series.current
    assert current_game(series.current) is series.current
    text = render(series, 0)
    assert text.startswith(f"match klunker-zh: game 2 of 3, totals {list(series.totals)}\n")
    family = get_family("klunker")
    assert text.endswith(family.render(series.current, 0))
    encoder = series_encoder(family, series.variant, 3)
    assert tuple(encoder.labels[:2]) == SERIES_LABELS
    vector = encoder.encode(series.observation(2))
    assert vector[:5] == [1.0, 1.0, *map(float, series.totals)]
    assert vector[5:] == family.observation_encoder(series.variant, 3).encode(
        series.current.observation(2)
    )
    plain = cardshop.load_variant("klunker-en")
    assert type(series_encoder(family, plain, 3)) is type(family.observation_encoder(plain, 3))


def test_result_before_the_end_is_an_error() -> None:
    series = cardshop.new_game("klunker-zh", 3, seed=1)
    with pytest.raises(GameStateError, match="0 of 3 games"):
        series.result()


# ---------------------------------------------------------------- hostile JSON


@pytest.fixture(scope="module")
def mid_match() -> dict[str, Any]:
    series = cardshop.new_game("klunker-zh", 3, seed=12)
    assert isinstance(series, Series)
    play_to_game(series, 2)
    data: dict[str, Any] = json.loads(series.to_json())
    return data


def _tampered(data: dict[str, Any], change: Any) -> dict[str, Any]:
    out = copy.deepcopy(data)
    change(out)
    return out


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: d.pop("game"), "keys"),
        (lambda d: d.update(extra=1), "keys"),
        (lambda d: d["series"].update(seed=13), "does not replay|result|seed"),
        (lambda d: d["series"].update(players=4), "not game|replay|player"),
        (lambda d: d["series"].update(first_player=7), "first_player"),
        (lambda d: d["series"].update(first_player=True), "first_player"),
        (lambda d: d["series"]["finished"][0]["result"].update(scores=[99, 0, 0]), "result"),
        (lambda d: d["series"]["finished"][1]["moves"].pop(), "not over|replay|result"),
        (lambda d: d["series"]["finished"][0]["moves"].insert(0, [0, 0, "buy 1"]), "step"),
        (lambda d: d["series"]["finished"][0]["moves"][3].__setitem__(2, "bogus"), "replay"),
        (lambda d: d["series"]["finished"][0].update(moves="x"), "moves"),
        (lambda d: d["series"]["finished"].pop(), "not game|seat"),
        (lambda d: d["series"]["finished"].extend([{}] * 5), "fewer"),
        (lambda d: d["series"].update(options={"colour": 1}), "option|colour"),
        (lambda d: d["variant"].update(match=None), "no match|variant"),
        (lambda d: d.update(family="nosuch"), "family"),
        (lambda d: d.update(game=[]), "game"),
    ],
)
def test_invalid_series_json_is_refused(
    mid_match: dict[str, Any], change: Any, reason: str
) -> None:
    Series.from_json(mid_match)  # the untampered data reads
    with pytest.raises(PositionError, match=reason):
        Series.from_json(_tampered(mid_match, change))


def test_oversized_series_json_is_refused_before_parsing() -> None:
    from cardshop.core import MAX_GAME_JSON_BYTES

    with pytest.raises(PositionError, match="larger"):
        Series.from_json("[" * (MAX_GAME_JSON_BYTES + 1))


def test_a_match_has_every_member_its_games_have() -> None:
    """A match is a full game: members of its games (Klunker's zones()) are those of
    the game being played, and an unknown name is still an AttributeError."""
    match = cardshop.new_game("klunker-zh", players=3, seed=1)
    assert isinstance(match, Series)
    assert match.zones() == match.current.zones()
    with pytest.raises(AttributeError):
        _ = match.no_such_member
    with pytest.raises(AttributeError):
        _ = match._no_such_private


def test_a_match_checks_thoroughly_only_on_the_thorough_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The checks lifted to a match keep their quick forms: the hidden-information twins
    (thorough only) are built on every tenth step and at the end, as for one game, not
    on every step (which made a default audit of klunker-zh take ten times as long)."""
    from cardshop.core.series import family_for
    from cardshop.invariants import CheckedGame
    from cardshop.klunker import invariants as klunker_invariants

    variant = cardshop.load_variant("klunker-zh")
    single = get_family("klunker").invariants
    lifted = family_for(variant).invariants
    assert [inv.name for inv in lifted] == [inv.name for inv in single]
    for one, match in zip(single, lifted, strict=True):
        assert hasattr(match.check, "quick") == hasattr(one.check, "quick"), one.name
        if hasattr(one.check, "quick"):
            assert (match.check.quick is None) == (one.check.quick is None), one.name
    built: list[int] = []
    twin = klunker_invariants.quick_twin

    def counted(game: Any, seat: int, seed: int = 0) -> Any:
        built.append(seat)
        return twin(game, seat, seed)

    monkeypatch.setattr(klunker_invariants, "quick_twin", counted)
    checked = CheckedGame(cardshop.new_game(variant, players=3, seed=4), every=10)
    built.clear()  # the setup's thorough check
    rng = random.Random(4)
    thorough = 0
    while not checked.is_over:
        checked.apply(rng.choice(checked.legal_actions()))
        thorough += checked.steps % 10 == 0 and not checked.is_over
    assert checked.steps > 100
    assert len(built) == 3 * thorough  # a twin for each seat on each thorough step
