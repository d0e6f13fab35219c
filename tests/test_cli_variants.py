"""The variant commands of the CLI: validate, show, schema, variants."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import cardshop
import cardshop.klunker
from cardshop.cli import run

ROOT = Path(__file__).resolve().parents[1]


def test_validate_reports_each_file_and_exits_2_on_any_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = ROOT / "variants" / "klunker-es.yaml"
    bad = tmp_path / "bad.yaml"
    bad.write_text("extends: klunker-en\nname: bad\nsale: {payout: [4, 9]}\n")
    assert run(["validate", str(good)]) == 0
    assert "ok (klunker-es, klunker family, 3-6 players)" in capsys.readouterr().out
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
    assert schema == cardshop.variant_schema()
    # one model per registered family, each closed to unknown keys
    models = {b["then"]["else"]["$ref"].rsplit("/", 1)[-1] for b in schema["allOf"]}
    assert len(models) == len(cardshop.families())
    for model in models:
        assert schema["$defs"][model]["type"] == "object"
        assert schema["$defs"][model]["additionalProperties"] is False
    assert set(schema["$defs"]["Variant"]["properties"]) == set(
        cardshop.klunker.Variant.model_fields
    )


def test_variants_lists_the_builtins(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["variants"]) == 0
    out = capsys.readouterr().out
    for name in cardshop.builtin_variants():
        assert name in out
    assert "3-6 players" in out


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


def test_validate_prints_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "many.yaml"
    bad.write_text(
        MINIMAL.replace("ruby: 8", "ruby: -1").replace("hand_size: 2", "hand_size: two")
        + "colour: blue\n"
    )
    assert run(["validate", str(bad)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    assert all(line.startswith("cardshop: error: ") for line in lines)
    assert f"{bad}:3:" in lines[0]
    assert "cards.ruby" in lines[0]
    assert f"{bad}:4:" in lines[1]
    assert "hand_size" in lines[1]
    assert f"{bad}:9:" in lines[2]
    assert "colour" in lines[2]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("name: x\ncards: " + "[" * 40_000 + "\n", "nested deeper than 32 levels"),
        (MINIMAL.replace("max: 3", "max: 1000000000"), "players.max"),
        (MINIMAL.replace("ruby: 8", "ruby: 1000000000"), "cards.ruby"),
        (MINIMAL.replace("hand_size: 2", "hand_size: " + "9" * 5000), "number longer than"),
        (MINIMAL.replace("hand_size: 2", "hand_size: !!int 'abc'"), "YAML tags"),
        ("name: x\nextends: /etc/passwd\n", "absolute path"),
    ],
)
def test_validate_hostile_files_exit_2_in_one_paragraph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, needle: str
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    assert run(["validate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_validate_refuses_special_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["validate", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.yaml"
        os.mkfifo(fifo)
        assert run(["validate", str(fifo)]) == 2
        assert "named pipe" in capsys.readouterr().err
    if os.path.exists("/dev/zero"):
        assert run(["show", "/dev/zero"]) == 2
        assert "is a device" in capsys.readouterr().err


def test_extends_anywhere_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "base.yaml").write_text(MINIMAL)
    child = tmp_path / "sub" / "child.yaml"
    child.parent.mkdir()
    child.write_text("extends: ../base.yaml\nname: child\n")
    assert run(["validate", str(child)]) == 2
    err = capsys.readouterr().err
    assert "outside the folder" in err
    assert "--extends-anywhere" in err
    assert run(["validate", "--extends-anywhere", str(child)]) == 0
    assert "ok (child, klunker family, 2-3 players)" in capsys.readouterr().out
    assert run(["show", str(child)]) == 2
    assert "outside the folder" in capsys.readouterr().err
    assert run(["show", "--extends-anywhere", "--json", str(child)]) == 0
    assert json.loads(capsys.readouterr().out)["cards"] == {"ruby": 8, "pearl": 8}


@pytest.mark.parametrize("name", cardshop.builtin_variants())
def test_show_json_loads_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    assert run(["show", name, "--json"]) == 0
    out = tmp_path / f"{name}.json"
    out.write_text(capsys.readouterr().out)
    assert cardshop.load_variant(out).content_hash == cardshop.load_variant(name).content_hash
    assert run(["validate", str(out)]) == 0


def test_schema_has_draft_and_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$schema"].startswith("http://json-schema.org/")
    assert schema["$id"] == cardshop.klunker.variant.SCHEMA_ID


def test_validate_deep_nesting_in_a_real_process(tmp_path: Path) -> None:
    bad = tmp_path / "deep.yaml"
    bad.write_text("name: x\ncards: " + "[" * 40_000 + "\n")
    proc = subprocess.run(
        [sys.executable, "-m", "cardshop", "validate", str(bad)],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: it fails in about a second
    )
    assert proc.returncode == 2
    assert "nested deeper than 32 levels" in proc.stderr
    assert "Traceback" not in proc.stderr
