"""The variant commands of the CLI: validate, show, schema, variants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cardshop
from cardshop.cli import run

ROOT = Path(__file__).resolve().parents[1]


def test_validate_reports_each_file_and_exits_2_on_any_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = ROOT / "variants" / "klunker-es.yaml"
    bad = tmp_path / "bad.yaml"
    bad.write_text("extends: klunker-en\nname: bad\nsale: {payout: [4, 9]}\n")
    assert run(["validate", str(good)]) == 0
    assert "ok (klunker-es, 97 cards)" in capsys.readouterr().out
    assert run(["validate", str(good), str(bad)]) == 2
    out, err = capsys.readouterr()
    assert "klunker-es" in out
    assert f"{bad}:3:" in err
    assert "sale.payout[1]" in err
    assert "Traceback" not in err


def test_validate_a_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["validate", "no/such/file.yaml"]) == 2
    assert "file not found" in capsys.readouterr().err


def test_show_resolves_extends_and_loads_back(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["show", "klunker-zh", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["name"] == "klunker-zh"
    assert data["match"] == {"games_per_player": 1}
    assert data["cards"]["necklace"] == 10  # inherited from klunker-en
    assert run(["show", "klunker-zh"]) == 0
    again = cardshop.parse_variant(capsys.readouterr().out)
    assert again.content_hash == cardshop.load_variant("klunker-zh").content_hash


def test_schema_is_the_variant_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["type"] == "object"
    assert set(schema["properties"]) == set(cardshop.Variant.model_fields)
    assert schema["additionalProperties"] is False


def test_variants_lists_the_builtins(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["variants"]) == 0
    out = capsys.readouterr().out
    for name in cardshop.builtin_variants():
        assert name in out
    assert "3-6 players" in out
