"""Variant files: the built-ins load, and every kind of bad file gets a clear error."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import cardshop
from cardshop import VariantError, load_variant, parse_variant

ROOT = Path(__file__).resolve().parents[1]

MINIMAL = """\
name: tiny
players: {min: 2, max: 3}
cards: {ruby: 8, pearl: 8}
hand_size: 2
starting_cash: {2: 1, 3: 1}
steps: [fill, store, purchase, refill]
sale: {payout: [4, 3, 2, 1]}
"""


def error_of(text: str, tmp_path: Path, name: str = "bad.yaml") -> VariantError:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(VariantError) as info:
        load_variant(path)
    return info.value


# ------------------------------------------------------------------ built-ins


def test_builtins_are_listed() -> None:
    assert cardshop.builtin_variants() == ["klunker-en", "klunker-es", "klunker-zh"]


def test_english_edition_card_list() -> None:
    en = load_variant("klunker-en")
    assert en.cards == {
        "tongue-bob": 14,
        "ear-pendant": 14,
        "gold-tooth": 14,
        "shoes": 14,
        "diadem": 14,
        "monocle": 14,
        "necklace": 10,
    }
    assert en.rules.n_cards == 94
    assert (en.players.min, en.players.max) == (3, 5)
    assert en.sale.overrides == {"necklace": 4}
    assert en.match is None


def test_spanish_edition_differs_only_in_data() -> None:
    es = load_variant("klunker-es")
    assert es.rules.n_cards == 97
    assert (es.players.min, es.players.max) == (3, 6)
    assert es.starting_cash == {3: 1, 4: 1, 5: 3, 6: 5}
    assert es.tax.per_player_count == {5: 1, 6: 2}
    assert es.steps == ["fill", "store", "purchase", "tax", "reshuffle", "refill"]
    assert es.sale.overrides == {}
    assert es.tiebreak == []


def test_chinese_edition_extends_english() -> None:
    en, zh = load_variant("klunker-en"), load_variant("klunker-zh")
    assert zh.match is not None
    assert zh.match.games_per_player == 1
    assert zh.cards == en.cards
    assert zh.sale == en.sale
    assert zh.content_hash != en.content_hash
    assert "extends" not in zh.to_data()


def test_load_by_path_and_name_agree() -> None:
    by_name = load_variant("klunker-en")
    by_path = load_variant(ROOT / "variants" / "klunker-en.yaml")
    assert by_name.content_hash == by_path.content_hash


def test_user_variant_extends_builtin_and_overrides_nested_key(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text(
        "extends: klunker-en\nname: mine\nsale:\n  payout: [4, 2, 1, 0]\n"
    )
    v = load_variant(tmp_path / "mine.yaml")
    assert v.sale.payout == [4, 2, 1, 0]
    assert v.sale.overrides == {"necklace": 4}  # kept from the parent mapping
    assert v.name == "mine"


def test_extends_relative_path(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text(MINIMAL)
    (tmp_path / "child.yaml").write_text("extends: base.yaml\nname: child\nhand_size: 3\n")
    v = load_variant(tmp_path / "child.yaml")
    assert (v.name, v.hand_size, v.cards) == ("child", 3, {"ruby": 8, "pearl": 8})


def test_parse_variant_from_text() -> None:
    v = parse_variant(MINIMAL)
    assert v.rules.kinds == ("ruby", "pearl")
    assert v.purchase.price == 1  # default


def test_reload_after_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "v.yaml"
    path.write_text(MINIMAL)
    assert load_variant(path).hand_size == 2
    time.sleep(0.01)
    path.write_text(MINIMAL.replace("hand_size: 2", "hand_size: 3"))
    assert load_variant(path).hand_size == 3


# --------------------------------------------------------------------- errors


def test_yaml_syntax_error(tmp_path: Path) -> None:
    err = error_of("name: x\ncards: {ruby: 3\n", tmp_path)
    assert "YAML syntax error" in str(err)
    assert err.location is not None
    assert err.location.line >= 2
    assert str(tmp_path / "bad.yaml") in str(err)


def test_unknown_key_names_line_and_key(tmp_path: Path) -> None:
    err = error_of(MINIMAL + "colour: blue\n", tmp_path)
    assert err.path == ("colour",)
    assert "unknown key 'colour'" in str(err)
    assert err.location is not None
    assert err.location.line == 8


def test_unknown_nested_key(tmp_path: Path) -> None:
    err = error_of(MINIMAL.replace("sale: {payout", "sale: {pay: 1, payout"), tmp_path)
    assert err.path == ("sale", "pay")
    assert "sale.pay" in str(err)


def test_wrong_type(tmp_path: Path) -> None:
    err = error_of(MINIMAL.replace("hand_size: 2", "hand_size: two"), tmp_path)
    assert err.path == ("hand_size",)
    assert err.location is not None
    assert err.location.line == 4
    assert "'two'" in str(err)


def test_strict_types_reject_string_numbers(tmp_path: Path) -> None:
    err = error_of(MINIMAL.replace("hand_size: 2", 'hand_size: "2"'), tmp_path)
    assert err.path == ("hand_size",)


@pytest.mark.parametrize("count", ["0", "-3"])
def test_zero_or_negative_count(tmp_path: Path, count: str) -> None:
    err = error_of(MINIMAL.replace("ruby: 8", f"ruby: {count}"), tmp_path)
    assert err.path == ("cards", "ruby")
    assert "greater than 0" in err.reason


def test_payout_larger_than_set_size(tmp_path: Path) -> None:
    err = error_of(MINIMAL.replace("payout: [4, 3, 2, 1]", "payout: [4, 3, 5, 1]"), tmp_path)
    assert err.path == ("sale", "payout", 2)
    assert "sale.payout[2]" in str(err)
    assert "more than the set size 4" in err.reason
    assert err.location is not None
    assert err.location.line == 7


def test_override_names_unknown_kind(tmp_path: Path) -> None:
    err = error_of(
        MINIMAL.replace(
            "sale: {payout: [4, 3, 2, 1]}", "sale: {payout: [4, 3, 2, 1], overrides: {opal: 4}}"
        ),
        tmp_path,
    )
    assert err.path == ("sale", "overrides", "opal")
    assert "unknown card kind 'opal'" in err.reason


def test_deck_too_small_for_max_players(tmp_path: Path) -> None:
    err = error_of(
        MINIMAL.replace("max: 3", "max: 6").replace(
            "{2: 1, 3: 1}", "{2: 1, 3: 1, 4: 1, 5: 1, 6: 1}"
        ),
        tmp_path,
    )
    assert err.path == ("cards",)
    assert "setting up 6 players needs 18" in err.reason


def test_unknown_round_step(tmp_path: Path) -> None:
    err = error_of(MINIMAL.replace("purchase, refill]", "purchase, dance, refill]"), tmp_path)
    assert err.path == ("steps", 3)
    assert "dance" in str(err)
    assert err.location is not None
    assert err.location.line == 6


def test_missing_required_step(tmp_path: Path) -> None:
    err = error_of(MINIMAL.replace("purchase, refill]", "purchase]"), tmp_path)
    assert "refill" in err.reason


def test_extends_missing_variant(tmp_path: Path) -> None:
    err = error_of("extends: klunker-xx\nname: y\n", tmp_path)
    assert err.path == ("extends",)
    assert "unknown variant 'klunker-xx'" in err.reason
    assert err.location is not None
    assert err.location.line == 1


def test_extends_cycle(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("extends: b.yaml\nname: a\n")
    (tmp_path / "b.yaml").write_text("extends: a.yaml\nname: b\n")
    with pytest.raises(VariantError, match="extends cycle") as info:
        load_variant(tmp_path / "a.yaml")
    assert info.value.path == ("extends",)


def test_starting_cash_missing_for_player_count(tmp_path: Path) -> None:
    err = error_of(MINIMAL.replace("{2: 1, 3: 1}", "{2: 1}"), tmp_path)
    assert err.path == ("starting_cash",)
    assert "no starting cash given for 3 players" in err.reason


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(VariantError, match="file not found"):
        load_variant(tmp_path / "nope.yaml")


def test_unknown_name() -> None:
    with pytest.raises(VariantError, match="unknown variant 'nope'"):
        load_variant("nope")


def test_missing_required_key(tmp_path: Path) -> None:
    err = error_of(MINIMAL.replace("hand_size: 2\n", "").replace("name: tiny\n", ""), tmp_path)
    assert err.path == ("name",)
    assert "required key 'name' is missing" in err.reason


def test_billion_laughs_fails_fast(tmp_path: Path) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    # Refused at the first alias, before anything is expanded (expanding would not end).
    err = error_of("\n".join(lines) + "\n", tmp_path)
    assert "aliases" in err.reason
    assert err.location is not None
    assert err.location.line == 2


def test_duplicate_key(tmp_path: Path) -> None:
    err = error_of(MINIMAL + "hand_size: 3\n", tmp_path)
    assert "appears twice" in err.reason


def test_not_a_mapping(tmp_path: Path) -> None:
    err = error_of("- just\n- a list\n", tmp_path)
    assert "mapping" in err.reason


def test_error_is_a_cardshop_error_and_value_error(tmp_path: Path) -> None:
    err = error_of("name: [\n", tmp_path)
    assert isinstance(err, cardshop.CardshopError)
    assert isinstance(err, ValueError)
