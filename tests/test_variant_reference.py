"""The variant key reference, docs/reference/variant.md, committed and in step.

``scripts/variant_reference.py`` writes the page from the families' variant models;
tests/test_generated_pages.py regenerates it and compares; these tests check that
every key of every family is on it.
"""

from __future__ import annotations

from types import ModuleType

import pytest
from pydantic import BaseModel

import cardshop
from pages_support import load_script


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    return load_script("variant_reference")


@pytest.fixture(scope="module")
def page(generator: ModuleType) -> str:
    text: str = generator.render()
    return text


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
