"""``extends`` that edits: ``key: null`` deletes, list markers ($replace, $remove,
$merge, $prepend, $append), warnings for a replaced list and an empty mapping, the
warnings returned with the variant, ``show --changes`` and ``validate [--strict]``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import cardshop
from cardshop.cli import app
from cardshop.core.loader import inspect_variant, variant_changes, variant_warnings
from cardshop.core.source import VariantWarning
from cardshop.klunker.variant import Variant as KlunkerVariant

runner = CliRunner()


def write(tmp_path: Path, text: str, name: str = "v.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str) -> cardshop.VariantError:
    with pytest.raises(cardshop.VariantError) as info:
        cardshop.load_variant(write(tmp_path, text))
    return info.value


def test_null_deletes_keys_at_any_depth(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "extends: klunker-en\nname: x\ncards:\n  necklace: null\nsale:\n  overrides: null\n",
    )
    variant = cardshop.load_variant(path)
    base = cardshop.load_variant("klunker-en")
    assert "necklace" in base.cards
    assert "necklace" not in variant.cards
    assert set(variant.cards) == set(base.cards) - {"necklace"}
    assert base.sale.overrides
    assert dict(variant.sale.overrides) == {}  # the model's default
    assert variant_warnings(variant) == []


def test_deleting_a_key_the_base_has_not_names_what_it_has(tmp_path: Path) -> None:
    err = error_of(tmp_path, "extends: klunker-en\nname: x\ncards:\n  neckalce: null\n")
    assert err.path == ("cards", "neckalce")
    assert err.location is not None
    assert err.location.line == 4
    assert "necklace" in err.reason
    assert "did you mean 'necklace'?" in err.reason
    assert "tongue-bob" in err.reason


def test_null_without_extends_is_left_to_the_model(tmp_path: Path) -> None:
    text = cardshop.load_variant("reglamentacja").to_data()
    assert text["speculator"] is not None
    import yaml

    data = yaml.safe_load(
        (Path(__file__).parents[1] / "variants" / "reglamentacja.yaml").read_text()
    )
    data["speculator"] = None
    path = write(tmp_path, yaml.safe_dump(data))
    variant, problems = inspect_variant(path)
    # The model decides: either it accepts None (no speculator) or it says why not.
    assert variant is not None or problems
    assert not any("deletes a key" in p.reason for p in problems)


def test_empty_mapping_over_a_base_mapping_warns(tmp_path: Path) -> None:
    path = write(tmp_path, "extends: klunker-en\nname: x\nsale:\n  overrides: {}\n")
    variant = cardshop.load_variant(path)
    assert dict(variant.sale.overrides) == {"necklace": 4}  # kept, as before
    [warning] = variant_warnings(path)
    assert isinstance(warning, VariantWarning)
    assert warning.path == ("sale", "overrides")
    assert warning.location is not None
    assert warning.location.line == 4
    assert "write null to delete the key" in warning.reason


def test_markers_edit_a_plain_list(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "extends: klunker-es\nname: x\nsteps:\n  $remove: [tax, reshuffle]\n"
        "  $prepend: [reshuffle]\n  $append: [tax]\n",
    )
    variant = cardshop.load_variant(path)
    assert list(variant.steps) == ["reshuffle", "fill", "store", "purchase", "refill", "tax"]
    assert variant_warnings(variant) == []


def test_markers_edit_a_keyed_list(tmp_path: Path) -> None:
    new = "{name: pierogi, title: pierogi, cost: [flour, meat, butter], category: meal, icons: 2}"
    path = write(
        tmp_path,
        "extends: reglamentacja\nname: x\ncards:\n  $remove: [buffet]\n"
        f"  $merge:\n    - {{name: brownie, icons: 5}}\n    - {new}\n",
    )
    variant = cardshop.load_variant(path)
    base = cardshop.load_variant("reglamentacja")
    names = [c.name for c in variant.cards]
    assert "buffet" not in names
    assert names[-1] == "pierogi"
    assert len(names) == len(base.cards)  # one removed, one added
    brownie = next(c for c in variant.cards if c.name == "brownie")
    old = next(c for c in base.cards if c.name == "brownie")
    assert brownie.icons == 5
    assert brownie.cost == old.cost  # merged key by key
    kinds = [c.kind for c in variant_changes(path)]
    assert kinds.count("remove") == 1
    assert kinds.count("merge") == 2


def test_replace_marker_replaces_without_warning(tmp_path: Path) -> None:
    path = write(tmp_path, "extends: klunker-en\nname: x\nsale:\n  payout: {$replace: [4, 1]}\n")
    variant = cardshop.load_variant(path)
    assert list(variant.sale.payout) == [4, 1]
    assert variant_warnings(variant) == []


def test_plain_list_over_an_inherited_list_warns_with_counts(tmp_path: Path) -> None:
    card = "{name: pierogi, title: p, cost: [flour, meat, butter], category: meal, icons: 2}"
    path = write(tmp_path, f"extends: reglamentacja\nname: x\ncards:\n  - {card}\n")
    _, problems = inspect_variant(path)
    warnings = [p for p in problems if isinstance(p, VariantWarning)]
    assert warnings, problems
    first = warnings[0]
    assert first.path == ("cards",)
    assert "20 items with 1" in first.reason
    assert "$append" in first.reason
    assert "$replace" in first.reason
    assert "$merge" in first.reason
    # The warning comes first: it explains any error the short list causes.
    assert problems[0] is first or isinstance(problems[0], VariantWarning)


def test_a_table_of_numbers_given_whole_is_a_value_not_a_list_to_warn_of(
    tmp_path: Path,
) -> None:
    """A payout table replaces the base's without a warning (``$append`` would make no
    sense of it), while a plain list of steps, even one that keeps the base's, warns."""
    path = write(tmp_path, "extends: klunker-en\nname: x\nsale:\n  payout: [4, 3, 2, 1, 0]\n")
    assert list(cardshop.load_variant(path).sale.payout) == [4, 3, 2, 1, 0]
    assert variant_warnings(path) == []
    (change,) = [c for c in variant_changes(path) if c.path == ("sale", "payout")]
    assert change.kind == "set"
    steps = "steps: [fill, store, purchase, refill, tax]\ntax: {per_player_count: {3: 1}}\n"
    path = write(tmp_path, f"extends: klunker-en\nname: x\n{steps}", "steps.yaml")
    assert [w.path for w in variant_warnings(path)] == [("steps",)]


def test_a_list_inside_a_merged_item_replaces_without_a_warning(tmp_path: Path) -> None:
    """``$merge`` states the item's fields: its cost list replaces the base's cost."""
    card = "{name: tea-sugar, title: t, cost: [sugar, sugar], category: event, icons: 2}"
    path = write(tmp_path, f"extends: reglamentacja\nname: x\ncards:\n  $merge: [{card}]\n")
    variant = cardshop.load_variant(path)
    (merged,) = [c for c in variant.cards if c.name == "tea-sugar"]  # type: ignore[attr-defined]
    assert list(merged.cost) == ["sugar", "sugar"]
    assert variant_warnings(path) == []


def test_an_unknown_key_of_a_file_that_extends_names_the_base_s_family(tmp_path: Path) -> None:
    err = error_of(tmp_path, "extends: reglamentacja\nname: x\nsale:\n  pay: 3\n")
    assert "unknown key 'sale'; the keys of a reglamentacja variant are" in str(err)
    assert "speculator" in str(err)


@pytest.mark.parametrize(
    ("text", "line", "fragments"),
    [
        ("steps: {$apend: [tax]}", 3, ["unknown edit marker '$apend'", "did you mean '$append'?"]),
        ("hand_size: {$append: [1]}", 3, ["edit markers change a list", "the value 6"]),
        ("steps: {$remove: [taxes]}", 3, ["has no item 'taxes'", "fill, store, purchase, refill"]),
        ("steps: {$append: tax}", 3, ["$append takes a list"]),
        ("window: {$append: [1]}", 3, ["the base has no 'window'"]),
        ("steps: {fill: 1}", 3, ["is a list", "$append"]),
    ],
)
def test_marker_errors_say_what_is_possible(
    tmp_path: Path, text: str, line: int, fragments: list[str]
) -> None:
    err = error_of(tmp_path, f"extends: klunker-en\nname: x\n{text}\n")
    assert err.location is not None
    assert err.location.line == line
    for fragment in fragments:
        assert fragment in err.reason


def test_markers_in_a_file_without_extends_are_refused(tmp_path: Path) -> None:
    text = (Path(__file__).parents[1] / "variants" / "klunker-es.yaml").read_text()
    text = text.replace(
        "steps: [fill, store, purchase, tax, reshuffle, refill]", "steps: {$append: [tax]}"
    )
    err = error_of(tmp_path, text)
    assert "extends none" in err.reason
    assert err.path == ("steps",)


def test_markers_are_bounded_by_the_file_limits(tmp_path: Path) -> None:
    # Thousands of items in one marker: linear work, done well within any timeout.
    items = ", ".join(["fill"] * 4000)
    path = write(tmp_path, f"extends: klunker-en\nname: x\nsteps: {{$append: [{items}]}}\n")
    variant, _ = inspect_variant(path)
    assert variant is None or len(variant.steps) == 4004
    removes = ", ".join(["reshuffle"] * 4000)
    path = write(tmp_path, f"extends: klunker-es\nname: x\nsteps: {{$remove: [{removes}]}}\n")
    variant = cardshop.load_variant(path)
    assert "reshuffle" not in variant.steps


def test_semantic_warnings_come_with_the_variant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def stub(self: KlunkerVariant) -> list[tuple[tuple[str | int, ...], str]]:
        return [(("hand_size",), "a stub warning")]

    monkeypatch.setattr(KlunkerVariant, "semantic_warnings", stub)
    path = write(
        tmp_path,
        "extends: klunker-en\nname: x\nhand_size: 5\nsteps: [fill, store, purchase, refill, tax]\n",
    )
    variant = cardshop.load_variant(path)
    warnings = variant_warnings(variant)
    assert [w.path for w in warnings] == [("hand_size",), ("steps",)]  # line order
    assert warnings[0].location is not None
    assert warnings[0].location.line == 3
    assert "a stub warning" in str(warnings[0])
    assert str(warnings[0]).startswith(f"{path}:3:")


def test_show_changes_lists_each_edit_with_its_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "extends: klunker-en\nname: x\ncards:\n  necklace: null\nsteps:\n  $append: [tax]\n"
        "tiebreak: [most_cash]\nsale: {overrides: null}\n",
    )
    result = runner.invoke(app, ["show", "--changes", str(path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.endswith(":4:13: delete cards.necklace: back to the default") for line in lines)
    assert any(line.endswith(":6:13: append steps: tax") for line in lines), lines
    assert any(":7:" in line for line in lines if "replace tiebreak" in line), lines
    plain = runner.invoke(app, ["show", str(path)])
    assert "necklace" not in plain.output


def cardshop_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardshop", *args],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard far above the second a check takes
        check=False,
        env=dict(os.environ),
    )


def test_validate_prints_errors_and_warnings_in_line_order(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "extends: klunker-en\nname: x\nsale:\n  overrides: {}\nhand_sise: 3\n"
        "steps: [fill, store, purchase]\n",
    )
    proc = cardshop_cli("validate", str(path))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert [line.split(":")[1].strip() for line in lines] == [
        "warning",
        "error",
        "warning",
    ]
    numbers = [int(line.split(f"{path}:")[1].split(":")[0]) for line in lines]
    assert numbers == [4, 5, 6]
    assert "did you mean 'hand_size'?" in lines[1]


def test_validate_exit_codes_with_warnings(tmp_path: Path) -> None:
    path = write(tmp_path, "extends: klunker-en\nname: x\nsale:\n  overrides: {}\n")
    proc = cardshop_cli("validate", str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("cardshop: warning: ")
    assert "1 warning" in proc.stdout
    strict = cardshop_cli("validate", "--strict", str(path))
    assert strict.returncode == 2
    assert strict.stderr.startswith("cardshop: warning: ")
    clean = write(tmp_path, "extends: klunker-en\nname: y\nhand_size: 5\n", "clean.yaml")
    assert cardshop_cli("validate", "--strict", str(clean)).returncode == 0
