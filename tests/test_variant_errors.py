"""Variant errors say what is possible, in our words: each pydantic error type that can
reach a variant, through a real file (the Python API, and ``cardshop validate`` in a
real process for a few), with no pydantic phrase in any message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import cardshop

PYDANTIC_PHRASES = (
    "Input should",
    "valid dictionary",
    "instance of",
    "Value error",
    "Field required",
    "Extra inputs",
)

# (family base, lines of the file after extends/name, error type exercised, line, fragments)
CASES = [
    (
        "klunker-en",
        "hand_sise: 3",
        "extra_forbidden",
        3,
        ["unknown key 'hand_sise'", "hand_size", "did you mean 'hand_size'?"],
    ),
    (
        "klunker-en",
        "sale:\n  payot:\n    - 1",
        "extra_forbidden",
        4,
        ["unknown key 'payot'", "did you mean 'payout'?", "set_size"],
    ),
    (
        "klunker-en",
        "hand_size: x",
        "int_type",
        3,
        ["hand_size must be a whole number from 1", "(got 'x')"],
    ),
    (
        "klunker-en",
        "sale: {set_size: true}",
        "int_type (bool)",
        3,
        ["set_size must be a whole number"],
    ),
    (
        "klunker-en",
        "purchase: {broke_may_buy: 3}",
        "bool_type",
        3,
        ["broke_may_buy must be true or false"],
    ),
    (
        "klunker-en",
        "steps: {$replace: [taxes, fill, store, purchase, refill]}",
        "literal_error",
        3,
        ["'taxes' is not one of", "fill, store, purchase, tax", "did you mean 'tax'?"],
    ),
    ("klunker-en", "sale: {overrides: [1]}", "dict_type", 3, ["overrides must be a mapping of"]),
    ("klunker-en", "tiebreak: most_cash", "list_type", 3, ["tiebreak must be a list"]),
    (
        "klunker-en",
        "players: 3",
        "model_type",
        3,
        ["players must be a mapping of its keys (min, max)"],
    ),
    (
        "reglamentacja",
        "speculator: 3",
        "model_type (optional)",
        3,
        ["speculator must be a mapping of its keys (die_sides, price), or null for none"],
    ),
    ("klunker-en", "title: 3", "string_type", 3, ["title must be text"]),
    (
        "klunker-en",
        "sale: {payout: {$replace: []}}",
        "too_short",
        3,
        ["payout must have at least 1 item (it has 0)"],
    ),
    (
        "klunker-en",
        "title: " + "x" * 300,
        "string_too_long",
        3,
        ["title must have at most", "characters"],
    ),
    (
        "klunker-en",
        "cards: {ruby: 0}",
        "greater_than",
        3,
        ["ruby must be greater than 0", "got 0", "from 1 to"],
    ),
    (
        "reglamentacja",
        "hand_limit: 99",
        "less_than_equal",
        3,
        ["hand_limit must be less than or equal to 30", "got 99"],
    ),
    (
        "klunker-en",
        "starting_cash: {x: 1}",
        "int_parsing (key)",
        3,
        ["the key 'x' of starting_cash must be a whole number"],
    ),
    (
        "reglamentacja",
        "max_trade: x",
        "union",
        3,
        ["max_trade must be a whole number from 1 to 4"],
    ),
    (
        "klunker-en",
        "name: Bad Name",
        "string_pattern_mismatch",
        2,
        ["name must be a name of lowercase letters"],
    ),
    ("klunker-en", "purchase: {price: 'cards +'}", "value_error (ours)", 3, ["expression"]),
    (
        "klunker-en",
        "cards:\n  Ruby: 3",
        "key pattern",
        4,
        ["the key 'Ruby' of cards must be a name"],
    ),
]


def write(tmp_path: Path, base: str, body: str) -> Path:
    name = "name: x\n" if not body.startswith("name:") else ""
    path = tmp_path / "v.yaml"
    path.write_text(f"extends: {base}\n{name}{body}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("base", "body", "kind", "line", "fragments"), CASES, ids=[c[2] for c in CASES]
)
def test_each_error_says_what_is_possible(
    tmp_path: Path, base: str, body: str, kind: str, line: int, fragments: list[str]
) -> None:
    problems = cardshop.check_variant(write(tmp_path, base, body))
    assert problems, kind
    text = " ".join(p.reason for p in problems)
    for phrase in PYDANTIC_PHRASES:
        assert phrase not in text
    for fragment in fragments:
        assert fragment in text
    assert problems[0].location is not None
    assert problems[0].location.line == line


def test_missing_required_key(tmp_path: Path) -> None:
    path = tmp_path / "v.yaml"
    path.write_text("family: klunker\nname: x\nplayers: {min: 3, max: 4}\ncards: {ruby: 9}\n")
    problems = cardshop.check_variant(path)
    text = " ".join(p.reason for p in problems)
    assert "required key 'sale' is missing" in text
    for phrase in PYDANTIC_PHRASES:
        assert phrase not in text


def test_unknown_key_holding_a_mapping_is_placed_at_its_own_line(tmp_path: Path) -> None:
    path = write(tmp_path, "klunker-en", "sales:\n  set_size: 3\n  payout: [1]")
    [problem] = cardshop.check_variant(path)
    assert problem.location is not None
    assert problem.location.line == 3
    assert "did you mean 'sale'?" in problem.reason


def test_problems_come_in_line_order(tmp_path: Path) -> None:
    path = write(tmp_path, "klunker-en", "round_cap: x\nhand_size: x\nsale: {set_size: x}")
    lines = [p.location.line for p in cardshop.check_variant(path) if p.location is not None]
    assert lines == [3, 4, 5]


def test_validate_in_a_real_process_has_our_words(tmp_path: Path) -> None:
    path = write(tmp_path, "reglamentacja", "speculator: 3\nhand_limt: 4\nmax_trade: x")
    proc = subprocess.run(
        [sys.executable, "-m", "cardshop", "validate", str(path)],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard far above the second a check takes
        check=False,
        env=dict(os.environ),
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 3
    assert all(line.startswith("cardshop: error: ") for line in lines)
    assert "did you mean 'hand_limit'?" in lines[1]
    for phrase in PYDANTIC_PHRASES:
        assert phrase not in proc.stderr
