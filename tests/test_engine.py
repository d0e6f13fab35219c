"""Generic engine properties over every built-in variant and player count.

Like a conformance test: random games end with every card accounted for; legal
actions are sorted and unique; every action's text parses back; illegal actions change
nothing; replay, clone and JSON reproduce the game exactly.
"""

from __future__ import annotations

import enum
import hashlib
import itertools
import json
import random
import weakref
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import cardshop
from cardshop import Action, Game, IllegalActionError, PositionError
from cardshop.klunker import Phase

SETUPS = [
    (name, players)
    for name in cardshop.builtin_variants()
    if cardshop.load_variant(name).family == "klunker"  # other families: test_conformance
    for players in range(
        cardshop.load_variant(name).players.min, cardshop.load_variant(name).players.max + 1
    )
]


def random_game(name: str, players: int, seed: int) -> Iterator[tuple[Game, Action]]:
    """Yield (game before the action, action) along a seeded random game.

    One game of the variant's rules: ``cardshop.klunker.new_game`` plays klunker-zh as a
    single game too (``cardshop.new_game`` plays it as a match, tests/test_series.py).
    """
    game = cardshop.klunker.new_game(name, players, seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        action = rng.choice(game.legal_actions())
        yield game, action
        game.apply(action)


def play_out(name: str, players: int, seed: int) -> tuple[Game, list[str], list[object]]:
    game = cardshop.klunker.new_game(name, players, seed=seed)
    rng = random.Random(seed)
    texts: list[str] = []
    events: list[object] = []
    while not game.is_over:
        action = rng.choice(game.legal_actions())
        texts.append(str(action))
        events.extend(game.apply(action))
    return game, texts, events


@pytest.mark.parametrize(("name", "players"), SETUPS)
def test_random_games_end_with_every_card_accounted_for(name: str, players: int) -> None:
    """CARD-1 over whole games: conservation at every step, a result at the end."""
    n_cards = cardshop.load_variant(name).rules.n_cards
    for seed in range(3):
        for game, _ in random_game(name, players, seed):
            cards = sorted(c for zone in game.zones().values() for c in zone)
            assert cards == list(range(n_cards))
        final, _, _ = play_out(name, players, seed)
        assert final.is_over
        zones = final.zones()
        assert sorted(c for zone in zones.values() for c in zone) == list(range(n_cards))
        result = final.result()
        assert result.scores == tuple(len(zones[f"bank:{s}"]) for s in range(players))
        assert set(result.winners) <= set(range(players))
        assert min(result.ranks) == 1


@pytest.mark.parametrize(("name", "players"), SETUPS)
def test_legal_actions_sorted_unique_and_parse_back(name: str, players: int) -> None:
    for game, _ in random_game(name, players, seed=11):
        legal = game.legal_actions()
        assert legal, "a running game always offers an action"
        assert legal == sorted(legal)
        assert len(set(legal)) == len(legal)
        for action in legal:
            assert game.parse_action(str(action)) == action
            assert Action.from_text(str(action)) == action
            assert eval(repr(action), {"Action": Action}) == action
            assert game.is_legal(action)


def all_texts(game: Game) -> list[str]:
    kinds = game.rules.kinds
    texts = ["done", "pass", "decline"]
    texts += [f"{verb} {k}" for verb in ("window", "store", "sell") for k in kinds]
    texts += [f"buy {s}" for s in range(game.players)]
    return texts


@pytest.mark.parametrize("name", ["klunker-en", "klunker-es"])
def test_illegal_actions_raise_and_change_nothing(name: str) -> None:
    checked = 0
    for game, _ in itertools.islice(random_game(name, 4, seed=5), 0, None, 3):
        legal = {str(a) for a in game.legal_actions()}
        before = game.to_json()
        for text in all_texts(game):
            if text in legal:
                continue
            assert not game.is_legal(text)
            with pytest.raises(IllegalActionError, match="illegal action"):
                game.apply(text)
            checked += 1
        assert game.to_json() == before
    assert checked > 100


def test_apply_after_game_over_is_illegal() -> None:
    game, _, _ = play_out("klunker-en", 3, seed=1)
    with pytest.raises(IllegalActionError, match="game is over"):
        game.apply("done")
    with pytest.raises(cardshop.GameStateError):
        cardshop.new_game("klunker-en", 3, seed=1).result()


@pytest.mark.parametrize(
    "text", ["", "fly", "window", "window rubies", "buy x", "buy 7", "done now", "a b c"]
)
def test_unparseable_actions(text: str) -> None:
    game = cardshop.new_game("klunker-en", 3, seed=1)
    with pytest.raises(cardshop.ActionParseError):
        game.parse_action(text)
    with pytest.raises(cardshop.ActionError):
        game.apply(text)


@pytest.mark.parametrize(("name", "players"), [("klunker-en", 4), ("klunker-es", 6)])
def test_replay_reproduces_state_and_events(name: str, players: int) -> None:
    game, texts, events = play_out(name, players, seed=21)
    again = cardshop.new_game(name, players, seed=21)
    replayed: list[object] = []
    for text in texts:
        replayed.extend(again.apply(text))
    assert replayed == events
    assert again == game
    via_replay = cardshop.replay(name, players, 21, game.first_player, texts)
    assert via_replay == game
    assert [str(a) for a in game.history] == texts


def test_replay_rejects_an_action_that_no_longer_fits() -> None:
    _, texts, _ = play_out("klunker-en", 3, seed=2)
    texts[5] = "decline"
    with pytest.raises(IllegalActionError, match="action 6"):
        cardshop.replay("klunker-en", 3, 2, None, texts)


def test_different_seeds_give_different_games() -> None:
    a, _, _ = play_out("klunker-en", 4, seed=1)
    b, _, _ = play_out("klunker-en", 4, seed=2)
    assert a != b


@pytest.mark.parametrize("name", ["klunker-en", "klunker-es"])
def test_clone_is_equal_and_independent(name: str) -> None:
    rng = random.Random(3)
    for i, (game, action) in enumerate(random_game(name, 5, seed=3)):
        if i % 7:
            continue
        snapshot = game.to_json()
        copy = game.clone()
        assert copy == game
        # playing on the clone never changes the original
        for _ in range(10):
            if copy.is_over:
                break
            copy.apply(rng.choice(copy.legal_actions()))
        assert game.to_json() == snapshot
        # and the clone follows the same action to the same state
        twin = game.clone()
        assert twin.apply(action) == game.clone().apply(action)


def test_a_game_refuses_weak_references_on_both_builds() -> None:
    """A game's ``__slots__`` have no ``__weakref__``; the compiled class must agree.

    mypyc's own weak reference support frees the reference when the game dies while
    its holder still has it (hatch_build.py, ``_no_weakrefs``); hypothesis weakly
    references every value it draws, so that crashed the interpreter."""
    game = cardshop.klunker.new_game("klunker-en", 3, seed=1)
    with pytest.raises(TypeError, match="weak reference"):
        weakref.ref(game)
    with pytest.raises(TypeError, match="weak reference"):
        weakref.ref(game.clone())


@pytest.mark.parametrize(("name", "players"), [("klunker-en", 3), ("klunker-es", 5)])
def test_json_round_trip_at_many_points(name: str, players: int) -> None:
    points = 0
    for game, action in random_game(name, players, seed=8):
        text = game.to_json()
        back = Game.from_json(text)
        assert back == game
        assert back.to_json() == text
        assert back.legal_actions() == game.legal_actions()
        assert back.rules.kinds == game.rules.kinds  # kind order fixes the card ids
        assert back.observation(game.players - 1) == game.observation(game.players - 1)
        assert back.clone().apply(action) == game.clone().apply(action)
        points += 1
    assert points > 50


def test_json_round_trip_of_a_finished_game() -> None:
    game, _, _ = play_out("klunker-zh", 4, seed=3)
    back = Game.from_json(game.to_json())
    assert back.result() == game.result()


def rehash(data: dict[str, Any], **changes: Any) -> None:
    """Change the variant a game JSON carries and give it a matching hash."""
    data["variant"].update(changes)
    canonical = json.dumps(data["variant"], separators=(",", ":"))
    data["variant_hash"] = hashlib.sha256(canonical.encode()).hexdigest()


@pytest.mark.parametrize(
    ("mutate", "match"),
    [
        (lambda d: d.update(format="other/9"), "format"),
        (lambda d: d["state"].update(where=d["state"]["where"][:-1]), "where"),
        (lambda d: d["state"].update(deck=d["state"]["deck"][1:]), "deck"),
        (lambda d: d.update(variant_hash="0" * 64), "variant_hash"),
        (lambda d: d.pop("seed"), "seed"),
        (lambda d: d["variant"].update(hand_size=5), "variant_hash does not match"),
        (lambda d: rehash(d, hand_size=-1), "invalid variant.*hand_size"),
    ],
)
def test_bad_game_json_is_rejected(mutate: object, match: str) -> None:
    data = json.loads(cardshop.new_game("klunker-en", 3, seed=1).to_json())
    mutate(data)  # type: ignore[operator]
    with pytest.raises(cardshop.PositionError, match=match):
        Game.from_json(json.dumps(data))
    with pytest.raises(cardshop.PositionError):
        Game.from_json("{not json")


@pytest.mark.parametrize(("name", "players"), [("klunker-en", 4), ("klunker-es", 6)])
def test_position_round_trip(name: str, players: int) -> None:
    for i, (game, _) in enumerate(random_game(name, players, seed=4)):
        if i % 5:
            continue
        pos = game.to_position()
        back = Game.from_position(pos)
        assert back.to_position() == pos
        assert back.legal_actions() == game.legal_actions()
        assert back.observation(0) == game.observation(0)
        # positions pass through JSON text too
        assert Game.from_position(json.dumps(pos)).to_position() == pos


def test_observation_shows_only_what_a_seat_may_know() -> None:
    """CARD-2: own hand by kind; others as counts; cash only as pile sizes."""
    game = cardshop.new_game("klunker-en", 4, seed=9)
    obs = game.observation(2)
    own = game.zone_counts("hand:2")
    assert dict(zip(obs.kinds, obs.hand, strict=True)) == {k: own.get(k, 0) for k in obs.kinds}
    assert obs.hand_sizes == (6, 6, 6, 6)
    assert obs.cash == (1, 1, 1, 1)
    assert obs.deck_size == 94 - 28
    fields = set(obs._fields)
    assert not fields & {"deck", "hands", "banks", "bank"}
    with pytest.raises(cardshop.GameStateError):
        game.observation(4)


def test_observation_is_unchanged_by_hidden_swaps() -> None:
    """CARD-2: swapping two hidden cards (another hand vs the deck) is invisible."""
    game = cardshop.new_game("klunker-en", 3, seed=12)
    data = json.loads(game.to_json())
    where = data["state"]["where"]
    deck = data["state"]["deck"]
    hand1 = [c for c, z in enumerate(where) if z == 3]  # seat 1's hand
    kinds = game.rules.kind_of
    swap_in = next(d for d in deck if kinds[d] != kinds[hand1[0]])
    out = hand1[0]
    where[out], where[swap_in] = where[swap_in], where[out]
    deck[deck.index(swap_in)] = out
    with pytest.raises(PositionError, match="does not lead from the setup"):
        Game.from_json(json.dumps(data))  # the seed did not deal these cards
    data["from_setup"] = False
    other = Game.from_json(json.dumps(data))
    assert other.observation(0) == game.observation(0)
    assert other.observation(2) == game.observation(2)
    assert other.observation(1) != game.observation(1)


def test_phase_and_current_player_through_a_round() -> None:
    game = cardshop.new_game("klunker-en", 3, seed=1, first_player=2)
    assert game.phase == Phase.FILL
    assert game.current_player == 2
    seen = []
    while game.round == 1:
        if not seen or seen[-1] != game.phase:
            seen.append(game.phase)
        game.apply(game.legal_actions()[-1])
    assert seen[:3] == [Phase.FILL, Phase.STORE, Phase.PURCHASE]
    assert repr(game).startswith("<Game klunker-en players=3")


# ------------------------------------------------------- hostile actions and setup


@pytest.mark.parametrize(
    "text",
    [
        "window \u00b2",  # superscript two
        "buy \u00b2",
        "buy \u0661",  # Arabic-Indic one
        "buy \uff15",  # fullwidth five
        "store \uff13",
        "buy -\u00b2",
        "buy 1\u0660",
    ],
)
def test_action_texts_take_ascii_digits_only(text: str) -> None:
    """``"²".isdigit()`` is true in Python; an action number is ASCII 0-9 only."""
    game = cardshop.new_game("klunker-en", 3, seed=1)
    before = game.to_json()
    with pytest.raises(cardshop.ActionParseError, match="ASCII digits"):
        game.parse_action(text)
    with pytest.raises(cardshop.ActionParseError):
        game.apply(text)
    assert not game.is_legal(text)
    assert game.to_json() == before
    with pytest.raises(cardshop.ActionParseError):
        Action.from_text(text)


def test_action_text_length_is_bounded() -> None:
    game = cardshop.new_game("klunker-en", 3, seed=1)
    with pytest.raises(cardshop.ActionParseError, match="longer than"):
        game.apply("window " + "a" * 200)
    with pytest.raises(cardshop.ActionParseError, match="longer than"):
        Action.from_text(" " * 10_000 + "done")


@pytest.mark.parametrize(
    "thing", [None, 5, 2.5, ("done", None), ["done"], b"done", {"verb": "done"}, object()]
)
def test_apply_refuses_what_is_not_an_action(thing: Any) -> None:
    game = cardshop.new_game("klunker-en", 3, seed=1)
    before = game.to_json()
    with pytest.raises(cardshop.ActionError, match="Action or its text"):
        game.apply(thing)
    assert not game.is_legal(thing)
    assert game.to_json() == before
    with pytest.raises(cardshop.ActionParseError):
        game.parse_action(thing)


def _purchase_game() -> Game:
    """A game in the purchase phase where ``buy 1`` is legal."""
    return Game.from_position(
        {
            "variant": "klunker-en",
            "phase": "purchase",
            "purchase_cards": [1, 2, 3],
            "turn": 0,
            "seats": [{"cash": 1}, {"window": {"shoes": 1}}, {"window": {"diadem": 1}}],
        }
    )


@pytest.mark.parametrize("arg", [True, 1.0, 1 + 0j])
def test_an_argument_equal_to_a_seat_but_not_an_int_is_refused(arg: Any) -> None:
    """True == 1 in Python: Action("buy", True) must not pass as buy 1."""
    game = _purchase_game()
    assert game.is_legal(Action("buy", 1))
    forged = Action("buy", arg)
    assert forged == Action("buy", 1)  # which is why apply must look at the type
    assert not game.is_legal(forged)
    before = game.to_json()
    with pytest.raises(cardshop.ActionParseError, match="argument"):
        game.apply(forged)
    assert game.to_json() == before
    game.apply(Action("buy", 1))
    assert [str(a) for a in game.history] == ["buy 1"]


def test_a_str_subclass_or_a_tuple_is_not_taken_for_an_action() -> None:
    game = _purchase_game()
    with pytest.raises(cardshop.ActionError):
        game.apply(("buy", 1))  # equal to Action("buy", 1), but a plain tuple
    assert game.history == []


@pytest.mark.parametrize(
    ("keys", "match"),
    [
        ({"seed": 10**4400}, "seed must be an int"),
        ({"seed": 2**64}, "seed must be an int"),
        ({"seed": -(2**64)}, "seed must be an int"),
        ({"seed": True}, "seed must be an int"),
        ({"seed": 1.5}, "seed must be an int"),
        ({"seed": "7"}, "seed must be an int"),
        ({"players": True}, "players"),
        ({"players": 10**4400}, "players, not an int of"),
        ({"players": 3.0}, "players"),
        ({"first_player": True}, "first_player"),
        ({"first_player": 3}, "first_player"),
    ],
)
def test_new_game_refuses_bad_setup_arguments(keys: dict[str, Any], match: str) -> None:
    args: dict[str, Any] = {"players": 3, "seed": 1}
    args.update(keys)
    with pytest.raises(cardshop.SetupError, match=match):
        cardshop.new_game("klunker-en", **args)


def test_seeds_up_to_64_bits_work() -> None:
    for seed in (0, 2**64 - 1, -(2**64) + 1):
        game = cardshop.new_game("klunker-en", 3, seed=seed)
        assert game.seed == seed
        assert Game.from_json(game.to_json()) == game


def test_match_and_replay_refuse_bad_seeds() -> None:
    with pytest.raises(cardshop.SetupError, match="seed"):
        cardshop.klunker.new_match("klunker-zh", 3, seed=10**4400)
    with pytest.raises(cardshop.SetupError, match="players"):
        cardshop.klunker.new_match("klunker-zh", True)
    with pytest.raises(cardshop.SetupError, match="seed"):
        cardshop.new_game("klunker-zh", 3, seed=10**4400)
    with pytest.raises(cardshop.SetupError, match="players"):
        cardshop.new_game("klunker-zh", True)
    with pytest.raises(cardshop.SetupError, match="seed"):
        cardshop.replay("klunker-en", 3, 2**70, None, [])


def test_replay_reports_a_bad_action_as_an_action_error() -> None:
    with pytest.raises(cardshop.IllegalActionError, match="action 1"):
        cardshop.replay("klunker-en", 3, 1, 0, [None])  # type: ignore[list-item]


@given(
    st.integers(-(2**64) + 1, 2**64 - 1),
    st.integers(0, 10**6),
    st.integers(0, 200),
)
def test_the_payment_draw_seed_is_derive_seed(seed: int, chance: int, draw: int) -> None:
    """The engine writes the text of ``derive_seed(seed, "pay", chance, draw)`` itself,
    for speed; it must hash to the same seed (records and the kernel depend on it)."""
    from cardshop.klunker.game import _pay_draw, _pay_hasher, _pay_seed

    want = cardshop.derive_seed(seed, "pay", chance, draw)
    assert _pay_seed(seed, chance, draw) == want  # a payment of one card
    assert _pay_draw(_pay_hasher(seed, chance), draw) == want  # of several


def test_the_payment_draw_seed_hashes_the_repr_of_an_int_subclass() -> None:
    """A seed of an int subclass is written as ``derive_seed`` writes it, by its repr."""
    from cardshop.klunker.game import _pay_draw, _pay_hasher, _pay_seed

    class Named(int):
        def __repr__(self) -> str:
            return "Named(7)"

    seed = Named(7)
    assert _pay_seed(seed, 3, 1) == cardshop.derive_seed(seed, "pay", 3, 1)
    assert _pay_draw(_pay_hasher(seed, 3), 1) == cardshop.derive_seed(seed, "pay", 3, 1)


def test_a_seed_of_an_int_subclass_plays_the_game_of_its_value() -> None:
    """A seed is read as a plain int: an IntEnum seed (whose repr is no number) deals
    the game of its value, on either build (the compiled one keeps a plain int)."""

    class Seeds(enum.IntEnum):
        LUCKY = 7

    for name in ("klunker-es", "klunker-zh"):
        game = cardshop.new_game(name, 4, seed=Seeds.LUCKY)
        plain = cardshop.new_game(name, 4, seed=7)
        assert type(game.seed) is int
        rng = random.Random(1)
        while not plain.is_over:
            action = rng.choice(plain.legal_actions())
            assert game.apply(action) == plain.apply(action)
        assert game.result() == plain.result()


@given(st.lists(st.integers(0, 3), min_size=1, max_size=60), st.data())
def test_the_nth_card_of_a_zone_is_found_as_by_index(where: list[int], data: st.DataObject) -> None:
    """The compiled engine's payments find the j-th card of a kind in a bank with one scan
    (``_nth``); it must be the card the pure engine's chain of ``list.index`` finds."""
    from cardshop.klunker.game import _nth

    zone = data.draw(st.sampled_from(where))
    lo = data.draw(st.integers(0, where.index(zone)))
    j = data.draw(st.integers(0, where[lo:].count(zone) - 1))
    card = where.index(zone, lo)
    for _ in range(j):
        card = where.index(zone, card + 1)
    assert _nth(where, zone, lo, j) == card
