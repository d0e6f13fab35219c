"""The variant key reference, docs/reference/variant.md, committed and in step.

``scripts/variant_reference.py`` writes the page from the families' variant models;
these tests regenerate it and compare, so that a key added to a model without
regenerating the page fails here with the command that brings it in step.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from pydantic import BaseModel

import cardshop

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "reference" / "variant.md"


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "variant_reference", ROOT / "scripts" / "variant_reference.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def page(generator: ModuleType) -> str:
    text: str = generator.render()
    return text


def test_the_committed_page_is_the_generated_one(page: str) -> None:
    assert PAGE.read_text(encoding="utf-8") == page, (
        "docs/reference/variant.md is not what the variant models say: "
        "run python scripts/variant_reference.py and commit the page"
    )


def models_of(model: type[BaseModel], generator: ModuleType) -> list[type[BaseModel]]:
    found = [model]
    for sub in generator._nested(model).values():
        found += [m for m in models_of(sub, generator) if m not in found]
    return found


@pytest.mark.parametrize("family", sorted(cardshop.families()))
def test_every_key_of_a_family_is_in_its_section(
    page: str, generator: ModuleType, family: str
) -> None:
    sections = page.split("\n## ")
    (mine,) = [s for s in sections if s.startswith(f"{family} ")]
    digest = cardshop.get_family(family).digest
    for model in models_of(cardshop.get_family(family).variant_model, generator):
        for field, info in model.model_fields.items():
            assert f"| `{field}` |" in mine, f"{family}: key {field!r} is not on the page"
            for clause in generator.CLAUSE.findall(info.description or ""):
                assert f"[{clause}](../{digest})" in mine, (family, field, clause)


def test_a_key_shows_its_type_default_and_range(page: str) -> None:
    model = cardshop.get_family("wuhltisch").variant_model
    info = model.model_fields["rounds"]
    schema = model.model_json_schema()["properties"]["rounds"]
    row = next(
        line
        for line in page.split("\n## wuhltisch ", 1)[1].splitlines()
        if line.startswith("| `rounds` |")
    )
    assert f"| `{info.get_default()}` |" in row
    assert f"| {schema['minimum']}..{schema['maximum']} |" in row
    assert "| integer |" in row
