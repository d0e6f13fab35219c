"""Fuzz targets: random bytes and mutated valid documents for every parser of input.

Each target feeds cardshop either random bytes/text or a valid document (a variant's
YAML, a game's JSON, a position, a record, an action text) with keys, values and
types changed by hypothesis. The property is the same everywhere: the call succeeds
and its result is consistent (a loaded game has a legal action unless it is over,
and survives its own round trip), or it raises a :class:`cardshop.CardshopError`
subclass of the right kind. Anything else (``TypeError``, ``RecursionError``,
``KeyError``, ...) fails the test. Deterministic under the ``ci`` profile.
"""

from __future__ import annotations

import copy
import functools
import json
import random
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

import cardshop
from cardshop import (
    ActionError,
    ActionParseError,
    CardshopError,
    Game,
    GameRecord,
    RecordError,
)
from cardshop.klunker.game import VERBS

# ------------------------------------------------------------------ valid documents

VARIANT_YAML = """\
name: fuzzed
players: {min: 3, max: 5}
cards: {tongue-bob: 14, ear-pendant: 14, gold-tooth: 14, shoes: 14, diadem: 14,
        monocle: 14, necklace: 10}
hand_size: 6
starting_cash: {3: 1, 4: 1, 5: 1}
steps: [fill, store, purchase, tax, reshuffle, refill]
sale: {set_size: 4, payout: [4, 3, 2, 1], overrides: {necklace: 4}, unpaid_to: discard}
purchase: {price: 1, broke_may_buy: false, decline: ends_phase}
tax: {per_player_count: {5: 1}, to: deck}
tiebreak: [fewest_safe_and_window]
round_cap: 200
"""


@functools.cache
def _game() -> Game:
    """A klunker-es game in the middle of its second round (seeded random playout)."""
    game = cardshop.new_game("klunker-es", players=5, seed=3)
    rng = random.Random(3)
    while game.round < 2 or len(game.history) < 60:
        game.apply(rng.choice(game.legal_actions()))
    return game


def game_json() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_game().to_json())
    return data


def position() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(_game().to_position()))
    return data


def record_rows() -> list[dict[str, Any]]:
    text = cardshop.record_game(_game(), ["a", "b", "c", "d", "e"]).dumps()
    return [json.loads(line) for line in text.splitlines()]


# ------------------------------------------------------------------------ mutations

SPECIAL_TEXTS = [
    "",
    "²",
    "\u0661",
    "buy ²",
    "buy \u0661",
    "window ²",
    "klunker-en",
    "klunker-es",
    "../secret/x.yaml",
    "/etc/passwd",
    "/dev/zero",
    "a\x00b",
    "done",
    "buy 1",
    "x" * 300,
]
SPECIAL_INTS = [-1, 0, 1, 2, 3, 6, 99, 10**6, 10**9, 2**63, -(10**9), 10**40]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 120),
    st.sampled_from(SPECIAL_INTS),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(SPECIAL_TEXTS),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8) | st.sampled_from(SPECIAL_TEXTS), inner, max_size=4)
    ),
    max_leaves=8,
)


def paths_of(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON-like document: the document itself and each nested value."""
    out = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            out.extend(paths_of(value, (*prefix, key)))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            out.extend(paths_of(value, (*prefix, i)))
    return out


@st.composite
def mutated(draw: st.DrawFn, original: Any, max_changes: int = 3) -> Any:
    """``original`` with one to ``max_changes`` values replaced, removed or added."""
    doc = copy.deepcopy(original)
    for _ in range(draw(st.integers(1, max_changes))):
        path = draw(st.sampled_from(paths_of(doc)))
        if not path:
            if draw(st.integers(0, 9)) == 0:  # now and then, the whole document
                doc = draw(values)
            continue
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        last = path[-1]
        op = draw(st.sampled_from(["replace", "replace", "remove", "add", "swap-type"]))
        if op == "replace":
            parent[last] = draw(values)
        elif op == "swap-type":
            old = parent[last]
            parent[last] = str(old) if not isinstance(old, str) else [old]
        elif op == "remove":
            del parent[last]
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=8) | st.sampled_from(SPECIAL_TEXTS))] = draw(values)
        else:
            parent.insert(last, draw(values))
    return doc


# ---------------------------------------------------------------------- consistency


def check_game(game: Game) -> None:
    """A game that loaded must be playable: a legal action unless over, a round trip."""
    if game.is_over:
        game.result()
        return
    legal = game.legal_actions()
    assert legal, f"{game!r} is not over but has no legal action"
    again = Game.from_json(game.to_json())
    assert again == game
    for action in legal[:3]:
        game.clone().apply(action)


def succeeds_or_refuses(call: Callable[[], Any], error: type[CardshopError] = CardshopError) -> Any:
    """The call's result, or None if it raised ``error`` (anything else fails)."""
    try:
        return call()
    except error:
        return None


def yaml_text(data: Any) -> str:
    try:
        return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    except yaml.YAMLError:  # a value YAML cannot write (e.g. a lone surrogate)
        return json.dumps(data, ensure_ascii=True)


# ------------------------------------------------------------------------- variants


def check_variant(variant: cardshop.Variant) -> None:
    players = variant.players.min
    game = succeeds_or_refuses(lambda: cardshop.new_game(variant, players, seed=0))
    if game is not None:
        check_game(game)


@given(st.binary(max_size=400))
def test_variant_loader_on_random_bytes(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    variant = succeeds_or_refuses(lambda: cardshop.parse_variant(text), cardshop.VariantError)
    if variant is not None:
        check_variant(variant)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "random.yaml"
        path.write_bytes(data)
        succeeds_or_refuses(lambda: cardshop.load_variant(path), cardshop.VariantError)


@given(st.text(max_size=300))
def test_variant_loader_on_random_text(text: str) -> None:
    variant = succeeds_or_refuses(lambda: cardshop.parse_variant(text), cardshop.VariantError)
    if variant is not None:
        check_variant(variant)


@given(mutated(yaml.safe_load(VARIANT_YAML)))
def test_variant_loader_on_mutated_variants(data: Any) -> None:
    text = yaml_text(data)
    variant = succeeds_or_refuses(lambda: cardshop.parse_variant(text), cardshop.VariantError)
    if variant is not None:
        check_variant(variant)


@given(st.integers(0, len(VARIANT_YAML)), st.text(max_size=6))
def test_variant_loader_on_spliced_text(at: int, insert: str) -> None:
    text = VARIANT_YAML[:at] + insert + VARIANT_YAML[at:]
    variant = succeeds_or_refuses(lambda: cardshop.parse_variant(text), cardshop.VariantError)
    if variant is not None:
        check_variant(variant)


# ------------------------------------------------------------------------ game JSON


@given(st.binary(max_size=300))
def test_game_json_on_random_bytes(data: bytes) -> None:
    game = succeeds_or_refuses(lambda: Game.from_json(data))
    if game is not None:
        check_game(game)


@given(mutated(game_json()))
def test_game_json_on_mutated_games(doc: Any) -> None:
    text = json.dumps(doc)
    game = succeeds_or_refuses(lambda: Game.from_json(text))
    if game is not None:
        check_game(game)


@given(st.integers(0, 20_000), st.integers(1, 40))
def test_game_json_truncated(at: int, cut: int) -> None:
    text = _game().to_json()
    at %= len(text)
    game = succeeds_or_refuses(lambda: Game.from_json(text[:at] + text[at + cut :]))
    if game is not None:
        check_game(game)


# ------------------------------------------------------------------------ positions


@given(mutated(position()))
def test_position_parser_on_mutated_positions(doc: Any) -> None:
    text = json.dumps(doc)
    game = succeeds_or_refuses(lambda: Game.from_position(text))
    if game is not None:
        check_game(game)
        if not game.is_over:
            again = Game.from_position(game.to_position())
            assert again.to_position() == game.to_position()


@given(st.text(max_size=300))
def test_position_parser_on_random_text(text: str) -> None:
    game = succeeds_or_refuses(lambda: Game.from_position(text))
    if game is not None:
        check_game(game)


# -------------------------------------------------------------------------- records


def replay_text(text: str) -> Game | None:
    def load_and_replay() -> Game:
        return GameRecord.loads(text, source="fuzz.jsonl").replay()

    return succeeds_or_refuses(load_and_replay, RecordError)  # type: ignore[no-any-return]


@given(st.binary(max_size=400))
def test_records_on_random_bytes(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "random.jsonl"
        path.write_bytes(data)
        game = succeeds_or_refuses(lambda: cardshop.replay_record(path), RecordError)
    if game is not None:
        check_game(game)


@given(mutated(record_rows()))
def test_records_on_mutated_records(rows: Any) -> None:
    if isinstance(rows, list):
        text = "".join(json.dumps(row) + "\n" for row in rows)
    else:
        text = json.dumps(rows) + "\n"
    game = replay_text(text)
    if game is not None:
        check_game(game)


# --------------------------------------------------------------------- action texts

digit_like = st.characters(categories=["Nd", "No", "Nl"])
words = st.one_of(
    st.sampled_from(sorted(VERBS)),
    st.sampled_from(_game().rules.kinds),
    st.text(max_size=6),
    st.text(digit_like, min_size=1, max_size=3),
    st.integers(-10, 10**6).map(str),
)


@given(st.lists(words, max_size=3).map(" ".join) | st.text(max_size=30))
def test_parse_action_on_texts(text: str) -> None:
    game = _game().clone()
    action = succeeds_or_refuses(lambda: game.parse_action(text), ActionParseError)
    if action is None:
        return
    assert game.parse_action(str(action)) == action, "an action's text must parse back"
    assert all(ch.isascii() for ch in str(action)), f"{text!r} became {action!r}"
    if game.is_legal(action):
        game.apply(action)
    else:
        before = game.to_json()
        succeeds_or_refuses(lambda: game.apply(action), ActionError)
        assert game.to_json() == before, "a refused action changed the game"


@given(values)
def test_apply_on_anything(value: Any) -> None:
    game = _game().clone()
    before = game.to_json()
    try:
        game.apply(value)
    except ActionError:
        assert game.to_json() == before, "a refused action changed the game"
        return
    assert isinstance(value, (str, cardshop.Action)), f"apply accepted {value!r}"
