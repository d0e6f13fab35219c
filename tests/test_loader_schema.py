"""The JSON Schema of the variant format agrees with ``validate``.

Editors check YAML against the schema after turning it into JSON (keys become text),
so every case here goes through the same conversion. A file the loader accepts must
pass the schema; a file the schema rejects must be rejected by the loader too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

import cardshop
from cardshop import VariantError, parse_variant

ROOT = Path(__file__).resolve().parents[1]

MINIMAL = """\
name: tiny
players: {min: 2, max: 3}
cards: {ruby: 8, pearl: 8}
hand_size: 2
starting_cash: {2: 1, 3: 1}
steps: [fill, store, purchase, refill]
sale: {payout: [4, 3, 2, 1]}
family: klunker
"""


@pytest.fixture(scope="module")
def validator() -> Any:
    schema = cardshop.variant_schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def as_editor_sees(text: str) -> Any:
    return json.loads(json.dumps(yaml.safe_load(text)))


def schema_accepts(validator: Any, text: str) -> bool:
    return not list(validator.iter_errors(as_editor_sees(text)))


def loader_accepts(text: str, base_dir: Path | None = None) -> bool:
    try:
        parse_variant(text, base_dir=base_dir)
    except VariantError:
        return False
    return True


def test_schema_says_its_draft_and_id() -> None:
    schema = cardshop.variant_schema()
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert schema["$id"] == "urn:cardshop:schema:variant:1"


FILES = sorted([*(ROOT / "variants").glob("*.yaml"), *(ROOT / "tests" / "fixtures").glob("*.yaml")])


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_shipped_file_passes_the_schema(validator: Any, path: Path) -> None:
    assert cardshop.check_variant(path) == []
    assert list(validator.iter_errors(as_editor_sees(path.read_text()))) == []


ACCEPTED = [
    MINIMAL,
    "extends: klunker-en\nname: klunker-gentle\nsale:\n  payout: [4, 3, 3, 2]\n",
    "extends: klunker-en\nname: mine\nsale: {set_size: 5}\n",
    "extends: klunker-es\nname: mine\ntiebreak: [fewest_safe]\npurchase: {price: 2}\n",
    "extends: klunker-zh\nname: mine\ntitle: Mine\nmatch: {games_per_player: 2}\n",
    MINIMAL.replace("{2: 1, 3: 1}", '{"2": 1, "3": 1}'),
    MINIMAL.replace("refill]", "tax, refill]") + "tax: {per_player_count: {3: 1}}\n",
    MINIMAL + "extends: null\n",
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_what_the_loader_accepts_the_schema_accepts(validator: Any, text: str) -> None:
    assert loader_accepts(text)
    assert schema_accepts(validator, text)


REJECTED = [
    MINIMAL + "colour: blue\n",  # unknown key
    MINIMAL.replace("sale: {payout", "sale: {pays: 1, payout"),  # unknown nested key
    MINIMAL.replace("hand_size: 2", 'hand_size: "2"'),  # text, not a number
    MINIMAL.replace("hand_size: 2", "hand_size: true"),
    MINIMAL.replace("ruby: 8", "ruby: 0"),
    MINIMAL.replace("ruby: 8", "Ruby Red: 8"),  # not a kind name
    MINIMAL.replace("max: 3", "max: 1000000000"),
    MINIMAL.replace("ruby: 8", "ruby: 1000000000"),
    MINIMAL.replace("{2: 1, 3: 1}", "{2: 1, 3: 1, 13: 1}"),
    MINIMAL.replace("{2: 1, 3: 1}", '{2: 1, "three": 1}'),
    MINIMAL.replace("hand_size: 2\n", "hand_size: 2\nround_cap: 0\n"),
    MINIMAL.replace("refill]", "refill, fill]"),  # a step twice
    MINIMAL.replace(", refill]", "]"),  # no refill
    MINIMAL.replace("purchase, refill]", "purchase, dance, refill]"),
    MINIMAL.replace("sale: {payout: [4, 3, 2, 1]}", "sale: {payout: []}"),
    MINIMAL.replace("sale: {payout: [4, 3, 2, 1]}\n", ""),  # required key missing
    MINIMAL.replace("players: {min: 2, max: 3}", "players: {min: 2}"),  # nested required
    MINIMAL + "family: poker\n",
    "extends: klunker-en\nsale: {set_size: 3}\n",  # a file that extends needs a name
    "extends: klunker-en\nname: mine\ncolour: red\n",
    "extends: klunker-en\nname: mine\nplayers: {max: 13}\n",
    "extends: klunker-en\nname: mine\nsteps: [fill, store, purchase]\n",
    "extends: klunker-en\nname: Not A Slug\n",
]


@pytest.mark.parametrize("text", REJECTED)
def test_what_the_schema_rejects_the_loader_rejects(validator: Any, text: str) -> None:
    assert not schema_accepts(validator, text)
    assert not loader_accepts(text)


def test_consistency_the_schema_cannot_say_is_left_to_the_loader(validator: Any) -> None:
    # Sums and cross-key rules are beyond JSON Schema: it accepts, the loader refuses.
    text = MINIMAL.replace("ruby: 8, pearl: 8", "ruby: 600, pearl: 600")
    assert schema_accepts(validator, text)
    assert not loader_accepts(text)
