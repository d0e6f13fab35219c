"""The JSON Schema per family and the combined one, whose branch ``family`` picks.

Every variant the loader accepts (built-ins, the cookbook's recipes, the examples)
passes its family's schema and the combined one; a key of another family is refused in
the branch of the file's own family, by the key's name; a file that extends another
and leaves out ``family`` passes the combined schema, and the loader checks it against
its base's family. Expectations come from the family models, not from lists of keys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

import cardshop
from cardshop.cli import run
from cardshop.core.schema import combined_schema, family_name, family_schema

ROOT = Path(__file__).resolve().parents[1]
FAMILIES = sorted(cardshop.families())
FILES = sorted(
    [
        *(ROOT / "variants").glob("*.yaml"),
        *(ROOT / "docs" / "cookbook").rglob("*.yaml"),
        *(ROOT / "docs" / "examples").rglob("*.yaml"),
    ]
)


def validator(schema: dict[str, Any]) -> Any:
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def as_editor_sees(text: str) -> Any:
    """YAML as an editor checks it: turned into JSON, keys become text."""
    return json.loads(json.dumps(yaml.safe_load(text)))


def fields(family: str) -> set[str]:
    return set(cardshop.get_family(family).variant_model.model_fields)


def foreign_key(family: str) -> tuple[str, str]:
    """A top-level key of another family that ``family`` has not, and that family."""
    for other in FAMILIES:
        extra = sorted(fields(other) - fields(family))
        if other != family and extra:
            return extra[0], other
    raise AssertionError(f"every family has every key of {family}")


@pytest.fixture(scope="module")
def combined() -> Any:
    return validator(cardshop.variant_schema())


def test_the_python_api_and_the_command_print_the_same_schemas(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == cardshop.variant_schema() == combined_schema()
    for family in FAMILIES:
        assert run(["schema", "--family", family]) == 0
        schema = json.loads(capsys.readouterr().out)
        assert schema == family_schema(family)
        assert schema["$id"].endswith(f":{family}")
        model = schema["$defs"][cardshop.get_family(family).variant_model.__name__]
        assert set(model["properties"]) == fields(family)
        assert model["properties"]["family"]["const"] == family


def test_an_unknown_family_exits_2_listing_the_families(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["schema", "--family", "poker"]) == 2
    err = capsys.readouterr().err
    assert "poker" in err
    for family in FAMILIES:
        assert family in err


def test_the_combined_schema_has_a_branch_per_family() -> None:
    schema = combined_schema()
    registered = sorted(cardshop.families())  # now: another test may have added one
    assert schema["properties"]["family"]["enum"] == registered
    picked = {b["if"]["properties"]["family"]["const"]: b["then"] for b in schema["allOf"]}
    assert set(picked) == set(registered)
    for family, ref in picked.items():
        model = cardshop.get_family(family).variant_model
        assert family_name(model) == family
        assert ref == {
            "if": {"required": ["extends"], "properties": {"extends": {"type": "string"}}},
            "then": {"$ref": f"#/$defs/{model.__name__}Extends"},
            "else": {"$ref": f"#/$defs/{model.__name__}"},
        }


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_variant_the_loader_reads_passes_both_schemas(combined: Any, path: Path) -> None:
    family = cardshop.load_variant(path).family
    data = as_editor_sees(path.read_text(encoding="utf-8"))
    assert list(validator(family_schema(family)).iter_errors(data)) == []
    assert list(combined.iter_errors(data)) == []


@pytest.mark.parametrize("family", FAMILIES)
def test_a_key_of_another_family_is_refused_in_the_files_own_branch(
    combined: Any, family: str
) -> None:
    key, _other = foreign_key(family)
    base = cardshop.builtin_variants()
    name = next(n for n in base if cardshop.load_variant(n).family == family)
    data = {"extends": name, "family": family, "name": "mine", key: 1}
    for checker in (combined, validator(family_schema(family))):
        errors = list(checker.iter_errors(data))
        assert errors, key
        best = jsonschema.exceptions.best_match(errors)
        assert repr(key) in best.message
        assert "not valid under any" not in best.message
    (error,) = combined.iter_errors(data)
    path = list(error.schema_path)
    assert path[0] == "allOf", path  # in a family's branch, not the branches' union
    branch = combined.schema["allOf"][path[1]]
    assert branch["if"]["properties"]["family"]["const"] == family
    assert path[-1] == "additionalProperties"


@pytest.mark.parametrize("family", FAMILIES)
def test_an_extends_file_without_family_passes_and_the_loader_checks_its_base(
    combined: Any, family: str, tmp_path: Path
) -> None:
    name = next(n for n in cardshop.builtin_variants() if cardshop.load_variant(n).family == family)
    assert list(combined.iter_errors({"extends": name, "name": "mine"})) == []
    key, other = foreign_key(family)
    path = tmp_path / "mine.yaml"
    path.write_text(f"extends: {name}\nname: mine\n{key}: 1\n", encoding="utf-8")
    problems = cardshop.check_variant(path)
    assert problems, f"a {family} file with the {other} key {key!r} was accepted"
    assert any(repr(key) in str(p) and p.path[:1] == (key,) for p in problems)
    assert any(str(p).startswith(f"{path}:3:") for p in problems)


def test_a_file_without_family_nor_extends_is_refused(combined: Any) -> None:
    errors = list(combined.iter_errors({"name": "mine"}))
    assert any("'extends' is a required property" in e.message for e in errors)
    bad = list(combined.iter_errors({"family": "poker", "name": "mine"}))
    assert any("'poker' is not one of" in e.message for e in bad)


def test_an_extends_file_may_delete_keys_and_edit_lists(combined: Any) -> None:
    """``key: null`` and a list given as a mapping of edit markers pass in a file that
    extends another, and only there; an unknown marker is refused."""
    model = cardshop.get_family("klunker").variant_model
    lists = [k for k, f in model.model_fields.items() if "list" in str(f.annotation)]
    assert lists
    edited = {"extends": "klunker-en", "family": "klunker", "name": "mine", "match": None}
    for marker in ("$append", "$remove", "$merge", "$replace", "$prepend"):
        data = {**edited, lists[0]: {marker: []}}
        assert list(combined.iter_errors(data)) == [], marker
    assert list(combined.iter_errors({**edited, lists[0]: {"$add": []}})) != []
    full = as_editor_sees((ROOT / "variants" / "klunker-en.yaml").read_text(encoding="utf-8"))
    if "extends" not in full:
        assert list(combined.iter_errors({**full, lists[0]: {"$append": []}})) != []


def test_an_extends_file_may_delete_an_entry_of_a_mapping_written_in_place(
    combined: Any,
) -> None:
    """Klunker's ``cards`` is a mapping of kinds written in place: a file that extends
    another deletes a kind with ``null`` and gives one kind alone; a count is still
    checked, and ``null`` is refused in a file of its own."""
    edited = {"extends": "klunker-en", "family": "klunker", "name": "mine"}
    assert list(combined.iter_errors({**edited, "cards": {"monocle": None}})) == []
    assert list(combined.iter_errors({**edited, "cards": {"ruby": 9}})) == []
    assert list(combined.iter_errors({**edited, "cards": {"ruby": "nine"}})) != []
    full = as_editor_sees((ROOT / "variants" / "klunker-en.yaml").read_text(encoding="utf-8"))
    assert "extends" not in full
    assert list(combined.iter_errors(full)) == []
    assert list(combined.iter_errors({**full, "cards": {**full["cards"], "ruby": None}})) != []


def test_the_markers_are_the_loaders() -> None:
    from cardshop.core import source
    from cardshop.core.schema import MARKERS

    assert set(MARKERS) == set(getattr(source, "MARKERS", MARKERS))
