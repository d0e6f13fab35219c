"""The rules digest (docs/rules.md) stays in step with the tests, the code and the docs.

- The digest defines exactly the agreed clause IDs, each once, in order.
- Every clause is cited by at least one test function (its name, docstring, body or
  decorators), outside this file.
- Every clause-like ID cited anywhere (tests, src, variants, docs, README) exists.
- The digest's key table covers the whole variant format, and its editions table
  matches the built-in variant files.
- Every YAML block marked ``<!-- position -->`` in docs/ loads as a position, and
  every one marked ``<!-- position: rejected -->`` is refused with a PositionError.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path
from typing import Any, get_args

import pytest
import yaml
from pydantic import BaseModel

import cardshop
from cardshop import PositionError, load_variant
from cardshop.klunker import Variant

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RULES = DOCS / "rules.md"
THIS = Path(__file__).resolve()

CLAUSES = (
    "CARD-1",
    "CARD-2",
    "SETUP-1",
    "SETUP-2",
    "SETUP-3",
    "SETUP-4",
    "ROUND-1",
    "FILL-1",
    "FILL-2",
    "FILL-3",
    "STORE-1",
    "STORE-2",
    "STORE-3",
    "STORE-4",
    "BUY-1",
    "BUY-2",
    "BUY-3",
    "BUY-4",
    "BUY-5",
    "BUY-6",
    "BUY-7",
    "SELL-1",
    "SELL-2",
    "SELL-3",
    "SELL-4",
    "SELL-5",
    "SELL-6",
    "SELL-7",
    "END-1",
    "END-2",
    "END-3",
    "END-4",
    "END-5",
    "SCORE-1",
    "SCORE-2",
    "MATCH-1",
    "TERM-1",
    "TERM-2",
)

LABEL = re.compile(r"\*\*([A-Z]+-\d+)\*\*")

# A clause-like citation: a word of 3-6 capitals, a hyphen and a number of 1-2 digits,
# not inside a longer token. Shorthands name more clauses of the same family:
# "SETUP-3/4" (3 and 4), "SELL-1..6" and "SELL-1..SELL-6" (1 to 6).
CITATION = re.compile(
    r"(?<![\w-])([A-Z]{3,6})-(\d{1,2})((?:/\d{1,2})*)(?:\.\.(?:\1-)?(\d{1,2}))?(?![\w-])"
)
# Tokens of that shape that are not clause IDs.
NOT_CLAUSES = frozenset({"UTF-8", "UTF-16", "UTF-32", "PEP-8"})

METADATA_KEYS = frozenset({"family", "name", "title", "description", "extends"})
EDITIONS = {"en": "klunker-en", "es": "klunker-es", "zh": "klunker-zh"}


# ------------------------------------------------------------- reading sources


def cited(text: str) -> list[tuple[int, str]]:
    """Clause-like IDs in ``text`` as (line number, ID), shorthands expanded."""
    out: list[tuple[int, str]] = []
    for m in CITATION.finditer(text):
        family, first, more, last = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        if f"{family}-{first}" in NOT_CLAUSES:
            continue
        numbers = [first, *(int(x) for x in more.split("/") if x)]
        if last is not None:
            numbers += range(first + 1, int(last) + 1)
        line = text.count("\n", 0, m.start()) + 1
        out += [(line, f"{family}-{n}") for n in numbers]
    return out


def texts_of_test_functions(path: Path) -> str:
    """The source of every test function in a file, decorators included."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    chunks: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test"
        ):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            chunks.append("\n".join(lines[start - 1 : node.end_lineno]))
    return "\n".join(chunks)


def section(text: str, heading: str) -> str:
    """The body of a ``## heading`` section of a Markdown text."""
    m = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert m, f"docs/rules.md has no section '## {heading}'"
    return m.group(1)


def table_rows(text: str) -> list[list[str]]:
    """The body rows of the first Markdown table in ``text``, as stripped cells."""
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line.lstrip().startswith("|")
    ]
    assert len(rows) > 2, "expected a table with a header, a rule and rows"
    return rows[2:]


def code(cell: str) -> str:
    """The first `code span` of a table cell."""
    m = re.search(r"`([^`]+)`", cell)
    assert m, f"table cell {cell!r} has no `code` value"
    return m.group(1)


def model_of(annotation: Any) -> type[BaseModel] | None:
    for t in (annotation, *get_args(annotation)):
        if isinstance(t, type) and issubclass(t, BaseModel):
            return t
    return None


def leaf_keys(model: type[BaseModel], prefix: str = "") -> set[str]:
    """Dotted YAML keys of a model, nested models flattened (``sale.payout``)."""
    keys: set[str] = set()
    for name, field in model.model_fields.items():
        sub = model_of(field.annotation)
        keys |= {prefix + name} if sub is None else leaf_keys(sub, f"{prefix}{name}.")
    return keys


def value_at(variant: Variant, key: str) -> Any:
    value: Any = variant
    for part in key.split("."):
        value = None if value is None else getattr(value, part)
    return value.model_dump() if isinstance(value, BaseModel) else value


def key_table() -> list[list[str]]:
    return table_rows(section(RULES.read_text(encoding="utf-8"), "YAML key → clauses it controls"))


def position_blocks() -> list[tuple[str, int, str, str]]:
    """(file, line, mark, yaml) for every marked YAML block in docs/*.md."""
    out: list[tuple[str, int, str, str]] = []
    pattern = re.compile(r"^<!-- (position(?:: rejected)?) -->\n```yaml\n(.*?)^```", re.M | re.S)
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        for m in pattern.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append((path.name, line, m.group(1), m.group(2)))
    return out


# --------------------------------------------------------------- the clauses


def test_digest_defines_exactly_the_clause_ids_in_order() -> None:
    labels = LABEL.findall(RULES.read_text(encoding="utf-8"))
    twice = sorted(i for i, c in Counter(labels).items() if c > 1)
    assert not twice, f"clause IDs defined more than once in docs/rules.md: {twice}"
    assert labels == list(CLAUSES)


def test_every_clause_is_cited_by_a_test() -> None:
    found: set[str] = set()
    for path in sorted((ROOT / "tests").glob("*.py")):
        if path.resolve() != THIS:
            found |= {cid for _, cid in cited(texts_of_test_functions(path))}
    missing = [c for c in CLAUSES if c not in found]
    assert not missing, (
        f"no test function in tests/*.py names these clauses of docs/rules.md: {', '.join(missing)}"
    )


def citing_files() -> list[Path]:
    paths = [
        *sorted((ROOT / "tests").glob("*.py")),
        *sorted((ROOT / "src").rglob("*.py")),
        *sorted((ROOT / "variants").glob("*.yaml")),
        *sorted(DOCS.rglob("*.md")),
        ROOT / "seeds" / "README.md",
        ROOT / "README.md",
    ]
    return [p for p in paths if p.is_file()]


def test_every_cited_clause_exists() -> None:
    known = set(CLAUSES)
    unknown = [
        f"{path.relative_to(ROOT)}:{line}: {cid}"
        for path in citing_files()
        for line, cid in cited(path.read_text(encoding="utf-8"))
        if cid not in known
    ]
    assert not unknown, (
        "these clause IDs are not in docs/rules.md (if one is not meant as a clause, "
        "add it to NOT_CLAUSES in tests/test_digest.py):\n" + "\n".join(unknown)
    )


def test_citation_shorthands_are_expanded() -> None:
    assert [cid for _, cid in cited("[SETUP-3/4] SELL-1..3, END-1..END-2 SHA-256 UTF-8")] == [
        "SETUP-3",
        "SETUP-4",
        "SELL-1",
        "SELL-2",
        "SELL-3",
        "END-1",
        "END-2",
    ]


# ------------------------------------------------------------------ the tables


def test_key_table_covers_the_whole_variant_format() -> None:
    keys = [code(row[0]) for row in key_table()]
    assert len(keys) == len(set(keys)), f"a key is listed twice: {keys}"
    leaves = leaf_keys(Variant)
    strays = [k for k in keys if not any(leaf == k or leaf.startswith(k + ".") for leaf in leaves)]
    assert not strays, f"the key table lists keys the variant format does not have: {strays}"
    uncovered = sorted(
        leaf for leaf in leaves if not any(leaf == k or leaf.startswith(k + ".") for k in keys)
    )
    assert not uncovered, f"variant keys missing from the key table: {uncovered}"


def test_key_table_names_clauses_for_every_rule_key() -> None:
    for row in key_table():
        key, clauses = code(row[0]), row[1]
        ids = [cid for _, cid in cited(clauses)]
        if key in METADATA_KEYS:
            assert not ids, f"{key} is not a rule key but names clauses {ids}"
        else:
            assert ids, f"the key table gives no clause for {key}"
            assert set(ids) <= set(CLAUSES), f"{key}: unknown clauses {ids}"


def test_editions_table_matches_the_variant_files() -> None:
    text = section(RULES.read_text(encoding="utf-8"), "Where the editions differ")
    header = next(line for line in text.splitlines() if line.startswith("|"))
    columns = [c.strip() for c in header.strip().strip("|").split("|")][1:]
    assert columns == list(EDITIONS)
    variants = {ed: load_variant(name) for ed, name in EDITIONS.items()}
    listed: list[str] = []
    for row in table_rows(text):
        key = code(row[0])
        listed.append(key)
        for ed, cell in zip(EDITIONS, row[1:], strict=True):
            assert yaml.safe_load(code(cell)) == value_at(variants[ed], key), (
                f"docs/rules.md says {key} is {code(cell)} in {ed}, but "
                f"{EDITIONS[ed]} has {value_at(variants[ed], key)!r}"
            )
    rule_keys = [code(row[0]) for row in key_table() if code(row[0]) not in METADATA_KEYS]
    differing = [k for k in rule_keys if len({repr(value_at(v, k)) for v in variants.values()}) > 1]
    assert sorted(listed) == sorted(differing)


# -------------------------------------------------------------- the positions

BLOCKS = position_blocks()


def test_positions_doc_has_examples_and_marks_every_yaml_block() -> None:
    text = (DOCS / "positions.md").read_text(encoding="utf-8")
    yaml_blocks = len(re.findall(r"^```yaml$", text, re.M))
    marked = [b for b in BLOCKS if b[0] == "positions.md"]
    assert yaml_blocks == len(marked), "every YAML block in docs/positions.md needs a mark"
    assert any(mark == "position" for _, _, mark, _ in marked)


@pytest.mark.parametrize(
    ("mark", "text"),
    [pytest.param(mark, text, id=f"{name}:{line}") for name, line, mark, text in BLOCKS],
)
def test_documented_position_loads_or_is_rejected(mark: str, text: str) -> None:
    if mark == "position: rejected":
        with pytest.raises(PositionError):
            cardshop.Game.from_position(text)
        return
    game = cardshop.Game.from_position(text)
    assert not game.is_over
    assert game.legal_actions()
    written = game.to_position()
    assert cardshop.Game.from_position(written).to_position() == written
