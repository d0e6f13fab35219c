"""Variant files: the built-ins load, and every kind of bad file gets a clear error."""

from __future__ import annotations

import json
import os
import time
from importlib import resources
from pathlib import Path

import pytest

import cardshop
import cardshop.klunker
from cardshop import VariantError, load_variant, parse_variant
from cardshop.core.loader import variant_from_data

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


def error_of(text: str, tmp_path: Path, name: str = "bad.yaml") -> VariantError:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(VariantError) as info:
        load_variant(path)
    return info.value


# ------------------------------------------------------------------ built-ins


def test_builtins_are_listed() -> None:
    """cardshop's own named variants; a family registered at run time (the tests' tiny
    one) adds the variants it ships, and only those."""
    shipped = {
        name
        for family in cardshop.families().values()
        if family.variants
        for name in (p.stem for p in Path(str(resources.files(family.variants))).glob("*.yaml"))
    }
    assert [n for n in cardshop.builtin_variants() if n not in shipped] == [
        "klunker-en",
        "klunker-es",
        "klunker-zh",
        "reglamentacja",
        "wuhltisch",
    ]


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
    assert v.purchase.price.constant == 1  # default: the constant expression 1


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
    assert err.location.line == 9


def test_unknown_nested_key(tmp_path: Path) -> None:
    err = error_of(MINIMAL.replace("sale: {payout", "sale: {pays: 1, payout"), tmp_path)
    assert err.path == ("sale", "pays")
    assert "sale.pays" in str(err)
    assert "'pay'" in str(err)  # the near miss it meant


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


# ------------------------------------------------------------- resource bounds


def test_bounds_are_in_the_schema() -> None:
    schema = cardshop.klunker.Variant.model_json_schema()
    defs = schema["$defs"]
    assert defs["Players"]["properties"]["max"]["maximum"] == 12
    assert schema["properties"]["cards"]["maxProperties"] == 100
    assert schema["properties"]["cards"]["patternProperties"]
    kind_count = next(iter(schema["properties"]["cards"]["patternProperties"].values()))
    assert kind_count["maximum"] == 1000
    assert defs["Sale"]["properties"]["payout"]["maxItems"] == 64
    assert schema["properties"]["starting_cash"]["maxProperties"] == 12
    assert defs["Tax"]["properties"]["per_player_count"]["maxProperties"] == 12
    assert schema["properties"]["round_cap"]["maximum"] == 1_000_000


@pytest.mark.parametrize(
    ("old", "new", "path", "bound"),
    [
        ("max: 3", "max: 1000000000", ("players", "max"), "12"),
        ("min: 2", "min: 13", ("players", "min"), "12"),
        ("ruby: 8", "ruby: 1000000000", ("cards", "ruby"), "1000"),
        ("hand_size: 2", "hand_size: 101", ("hand_size",), "100"),
        ("{payout: [4, 3, 2, 1]}", "{set_size: 101, payout: [1]}", ("sale", "set_size"), "100"),
        ("{payout: [4, 3, 2, 1]}", "{payout: [1001]}", ("sale", "payout", 0), "1000"),
        ("{payout: [4, 3, 2, 1]}", "{payout: [" + "1, " * 65 + "1]}", ("sale", "payout"), "64"),
        ("{2: 1, 3: 1}", "{2: 1, 3: 1, 13: 1}", ("starting_cash", 13), "12"),
        ("{2: 1, 3: 1}", "{2: 1, 3: 1001}", ("starting_cash", 3), "1000"),
        ("steps: [", "round_cap: 1000001\nsteps: [", ("round_cap",), "1000000"),
        ("steps: [", "purchase: {price: 1001}\nsteps: [", ("purchase", "price"), "1000"),
        (
            "steps: [",
            "tax: {per_player_count: {99: 1}}\nsteps: [",
            ("tax", "per_player_count", 99),
            "12",
        ),
        (
            "steps: [",
            "match: {games_per_player: 101}\nsteps: [",
            ("match", "games_per_player"),
            "100",
        ),
        ("name: tiny", "name: tiny\ntitle: " + "t" * 201, ("title",), "200"),
        ("refill]", "refill, tax, reshuffle, fill]", ("steps",), "6"),
    ],
)
def test_numbers_out_of_bounds_name_key_and_bound(
    tmp_path: Path, old: str, new: str, path: tuple[str | int, ...], bound: str
) -> None:
    assert old in MINIMAL
    err = error_of(MINIMAL.replace(old, new), tmp_path)
    assert err.path == path
    assert bound in err.reason
    assert err.location is not None


def test_too_many_kinds(tmp_path: Path) -> None:
    kinds = ", ".join(f"k{i}: 1" for i in range(101))
    err = error_of(MINIMAL.replace("ruby: 8, pearl: 8", kinds), tmp_path)
    assert err.path == ("cards",)
    assert "100" in err.reason


def test_too_many_cards_in_all(tmp_path: Path) -> None:
    err = error_of(MINIMAL.replace("ruby: 8, pearl: 8", "ruby: 600, pearl: 600"), tmp_path)
    assert err.path == ("cards",)
    assert "1200 cards; at most 1000" in err.reason


def test_too_many_overrides(tmp_path: Path) -> None:
    many = ", ".join(f"k{i}: 1" for i in range(101))
    text = MINIMAL.replace("{payout: [4, 3, 2, 1]}", f"{{payout: [4], overrides: {{{many}}}}}")
    err = error_of(text, tmp_path)
    assert err.path == ("sale", "overrides")
    assert "100" in err.reason


def test_huge_counts_fail_without_building_anything() -> None:
    # The semantic checks loop over player counts and the rules list every card: a
    # bound checked first keeps 10^9 from ever reaching them.
    with pytest.raises(VariantError, match="less than or equal to 12"):
        parse_variant(MINIMAL.replace("max: 3", "max: 1000000000"))
    with pytest.raises(VariantError, match="less than or equal to 1000"):
        parse_variant(MINIMAL.replace("ruby: 8", "ruby: 1000000000"))


# ------------------------------------------------------------ YAML while parsing


@pytest.mark.parametrize("depth", [33, 900, 40_000])
def test_deep_flow_nesting_is_refused_while_parsing(depth: int) -> None:
    with pytest.raises(VariantError, match="nested deeper than 32 levels") as info:
        parse_variant("name: x\ncards: " + "[" * depth)
    assert info.value.location is not None
    assert info.value.location.line == 2


def test_deep_block_nesting_is_refused() -> None:
    text = "".join(" " * i + f"k{i}:\n" for i in range(40)) + " " * 40 + "x\n"
    with pytest.raises(VariantError, match="nested deeper than 32 levels") as info:
        parse_variant(text)
    assert info.value.location is not None


def test_nesting_within_the_limit_parses_then_fails_on_the_schema() -> None:
    with pytest.raises(VariantError, match="unknown key 'deep'"):
        parse_variant(MINIMAL + "deep: " + "[" * 30 + "]" * 30 + "\n")


def test_too_many_nodes_are_refused_while_parsing() -> None:
    text = "name: x\ncards: [" + ",".join(["1"] * 10_001) + "]\n"
    with pytest.raises(VariantError, match="more than 10000 nodes"):
        parse_variant(text)


def test_size_limit_counts_bytes_not_characters(tmp_path: Path) -> None:
    text = "name: x\ndescription: " + "é" * 200_000 + "\n"  # 200,021 characters
    assert len(text) < 256_000 < len(text.encode())
    with pytest.raises(VariantError, match="larger than 256000 bytes"):
        parse_variant(text)
    err = error_of(text, tmp_path)
    assert "larger than 256000 bytes" in err.reason


def test_file_size_limit_is_checked_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"#" * 256_001)
    with pytest.raises(VariantError, match="larger than 256000 bytes"):
        load_variant(path)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("9" * 5000, "number longer than 100 characters"),
        ("-" + "1" * 101, "number longer than 100 characters"),
        ("1." + "5" * 200, "number longer than 100 characters"),
        ("!!int 'abc'", "YAML tags"),
        ("!!timestamp xyz", "YAML tags"),
        ("!!binary '@@@not base64'", "YAML tags"),
        ("!!python/object:os.system x", "YAML tags"),
        ("!mine 3", "YAML tags"),
        ("! 3", "YAML tags"),
        ("!!set {a: null}", "YAML tags"),
        ("2024-02-30", "cannot read the value '2024-02-30'"),
    ],
)
def test_scalars_that_cannot_be_built(tmp_path: Path, value: str, reason: str) -> None:
    err = error_of(MINIMAL.replace("hand_size: 2", f"hand_size: {value}"), tmp_path)
    assert reason in err.reason
    assert err.location is not None
    assert (err.location.line, err.location.column) == (4, 12)
    assert f"{tmp_path / 'bad.yaml'}:4:12" in str(err)


def test_merge_key_refused(tmp_path: Path) -> None:
    err = error_of(MINIMAL + "purchase:\n  <<: {price: 2}\n", tmp_path)
    assert "merge keys" in err.reason
    assert err.location is not None
    assert err.location.line == 10


def test_mapping_key_must_be_plain(tmp_path: Path) -> None:
    err = error_of(MINIMAL + "? [a, b]\n: 1\n", tmp_path)
    assert "mapping keys must be plain values" in err.reason


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin.yaml"
    path.write_bytes(MINIMAL.encode() + b"title: caf\xe9\n")
    with pytest.raises(VariantError, match="not UTF-8 text") as info:
        load_variant(path)
    assert "0xe9" in info.value.reason


# ------------------------------------------------------------------ file policy


def test_a_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dir.yaml").mkdir()
    with pytest.raises(VariantError, match="is a folder"):
        load_variant(tmp_path / "dir.yaml")


def test_a_device_is_refused() -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero on this system")
    with pytest.raises(VariantError, match="is a device"):
        load_variant("/dev/zero")


def test_a_fifo_is_refused_and_never_opened(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(VariantError, match=r"named pipe \(FIFO\)"):
        load_variant(fifo)
    # The same through extends: refused at the extends key, never blocking.
    (tmp_path / "child.yaml").write_text("extends: pipe.yaml\nname: child\n")
    with pytest.raises(VariantError, match="named pipe") as info:
        load_variant(tmp_path / "child.yaml")
    assert info.value.path == ("extends",)


def test_read_text_refuses_a_file_swapped_for_a_fifo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A regular file at stat time that is a FIFO when opened: O_NONBLOCK keeps the
    # open from hanging and the fstat of the opened file refuses it.
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    from cardshop.core import source as _source

    regular = tmp_path / "regular.yaml"
    regular.write_text(MINIMAL)
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    real_stat = os.stat
    monkeypatch.setattr(
        _source.os, "stat", lambda p, *a, **k: real_stat(regular if str(p) == str(fifo) else p)
    )
    with pytest.raises(VariantError, match="named pipe"):
        _source.read_text(fifo)


@pytest.mark.parametrize(
    ("ref", "reason"),
    [
        ("a\x00b.yaml", "NUL character"),
        ("a" * 100_000, "longer than 4096 characters"),
        ("x" * 300 + ".yaml", "cannot read file"),  # one name too long for the file system
    ],
)
def test_bad_file_names(ref: str, reason: str) -> None:
    with pytest.raises(VariantError, match=reason):
        load_variant(ref)
    [problem] = cardshop.check_variant(ref)
    assert reason in problem.reason


def test_not_a_name_nor_a_path() -> None:
    with pytest.raises(VariantError, match="got int"):
        load_variant(5)  # type: ignore[arg-type]


def _write_base(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    base = folder / "base.yaml"
    base.write_text(MINIMAL)
    return base


def test_extends_an_absolute_path_is_refused_unless_allowed(tmp_path: Path) -> None:
    base = _write_base(tmp_path / "elsewhere")
    child = tmp_path / "mine" / "child.yaml"
    child.parent.mkdir()
    child.write_text(f"name: child\nextends: {base}\n")
    with pytest.raises(VariantError, match="absolute path") as info:
        load_variant(child)
    assert info.value.path == ("extends",)
    assert info.value.location is not None
    assert info.value.location.line == 2
    assert "extends_anywhere" in info.value.reason
    assert load_variant(child, extends_anywhere=True).cards == {"ruby": 8, "pearl": 8}


def test_extends_etc_passwd_is_never_read(tmp_path: Path) -> None:
    child = tmp_path / "child.yaml"
    child.write_text("name: child\nextends: /etc/passwd\n")
    with pytest.raises(VariantError, match="absolute path") as info:
        load_variant(child)
    assert "root:" not in str(info.value)


def test_extends_dotdot_escape_is_refused_unless_allowed(tmp_path: Path) -> None:
    _write_base(tmp_path)
    child = tmp_path / "sub" / "child.yaml"
    child.parent.mkdir()
    child.write_text("extends: ../base.yaml\nname: child\n")
    with pytest.raises(VariantError, match="outside the folder") as info:
        load_variant(child)
    assert info.value.path == ("extends",)
    assert load_variant(child, extends_anywhere=True).name == "child"


def test_extends_a_file_in_a_subfolder(tmp_path: Path) -> None:
    _write_base(tmp_path / "parts")
    (tmp_path / "child.yaml").write_text("extends: parts/base.yaml\nname: child\n")
    assert load_variant(tmp_path / "child.yaml").hand_size == 2


def test_extends_through_a_symlink_out_of_the_folder_is_refused(tmp_path: Path) -> None:
    base = _write_base(tmp_path / "outside")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "link.yaml").symlink_to(base)
    (mine / "child.yaml").write_text("extends: link.yaml\nname: child\n")
    with pytest.raises(VariantError, match="symlinks resolved"):
        load_variant(mine / "child.yaml")
    inside = _write_base(mine / "parts")
    (mine / "link.yaml").unlink()
    (mine / "link.yaml").symlink_to(inside)
    assert load_variant(mine / "child.yaml").name == "child"


def test_text_may_extend_only_builtins_unless_base_dir(tmp_path: Path) -> None:
    _write_base(tmp_path)
    text = "extends: base.yaml\nname: child\n"
    with pytest.raises(VariantError, match="not read from a file") as info:
        parse_variant(text)
    assert info.value.path == ("extends",)
    assert parse_variant(text, base_dir=tmp_path).cards == {"ruby": 8, "pearl": 8}
    with pytest.raises(VariantError, match="outside the folder"):
        parse_variant("extends: ../base.yaml\nname: c\n", base_dir=tmp_path / "sub")
    assert parse_variant("extends: klunker-en\nname: c\n").rules.n_cards == 94


def test_data_may_extend_only_builtins_unless_base_dir(tmp_path: Path) -> None:
    base = _write_base(tmp_path)
    with pytest.raises(VariantError, match="not read from a file") as info:
        variant_from_data({"extends": str(base), "name": "child"})
    assert info.value.path == ("extends",)
    with pytest.raises(VariantError, match="not read from a file"):
        variant_from_data({"extends": "/etc/passwd", "name": "child"})
    data = {"extends": "base.yaml", "name": "child"}
    assert variant_from_data(data, base_dir=tmp_path).hand_size == 2
    assert variant_from_data({"extends": "klunker-es", "name": "c"}).rules.n_cards == 97


def test_extends_chain_length_is_bounded(tmp_path: Path) -> None:
    _write_base(tmp_path)
    prev = "base.yaml"
    for i in range(9):
        (tmp_path / f"v{i}.yaml").write_text(f"extends: {prev}\nname: v{i}\n")
        prev = f"v{i}.yaml"
    assert load_variant(tmp_path / "v5.yaml").name == "v5"
    with pytest.raises(VariantError, match="longer than 8 files"):
        load_variant(tmp_path / "v8.yaml")


def test_extends_a_missing_file(tmp_path: Path) -> None:
    err = error_of("name: x\nextends: nowhere.yaml\n", tmp_path)
    assert err.path == ("extends",)
    assert "file not found" in err.reason
    assert err.location is not None
    assert err.location.line == 2


def test_a_variant_that_extends_needs_its_own_name(tmp_path: Path) -> None:
    err = error_of("extends: klunker-en\nsale: {payout: [4, 3, 2, 1]}\n", tmp_path)
    assert err.path == ("name",)
    assert "its own name" in err.reason


def test_title_and_description_are_not_inherited(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text("extends: klunker-en\nname: mine\n")
    mine = load_variant(tmp_path / "mine.yaml")
    assert (mine.title, mine.description) == ("", "")
    (tmp_path / "titled.yaml").write_text("extends: klunker-en\nname: t\ntitle: Mine\n")
    assert load_variant(tmp_path / "titled.yaml").title == "Mine"
    zh = load_variant("klunker-zh")
    assert zh.title == "Klunker (Chinese edition, match)"
    assert "English" not in zh.title


def test_error_in_an_inherited_builtin_value_names_the_users_file(tmp_path: Path) -> None:
    err = error_of("extends: klunker-en\nname: mine\nplayers: {min: 3, max: 6}\n", tmp_path)
    assert err.path == ("starting_cash",)
    assert err.source == str(tmp_path / "bad.yaml")
    assert err.location is not None
    assert (err.location.file, err.location.line) == (str(tmp_path / "bad.yaml"), 1)
    assert "built-in variant 'klunker-en' through extends" in err.reason
    assert "klunker-en.yaml" not in str(err)


def test_error_in_a_users_own_parent_points_into_that_file(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text(MINIMAL.replace("{2: 1, 3: 1}", "{2: 1}"))
    err = error_of("extends: base.yaml\nname: child\n", tmp_path)
    assert err.path == ("starting_cash",)
    assert err.location is not None
    assert err.location.file.endswith("base.yaml")
    assert err.location.line == 5


# ----------------------------------------------------------------------- cache


def test_the_cache_sees_a_changed_parent(tmp_path: Path) -> None:
    base = _write_base(tmp_path)
    child = tmp_path / "child.yaml"
    child.write_text("extends: base.yaml\nname: child\n")
    assert load_variant(child).sale.payout == [4, 3, 2, 1]
    assert load_variant(child) is load_variant(child)  # cached while nothing changes
    base.write_text(MINIMAL.replace("[4, 3, 2, 1]", "[2, 1]"))
    assert load_variant(child).sale.payout == [2, 1]


def test_builtin_names_cost_no_file_work_once_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    first = load_variant("klunker-en")

    def no_file_work(*args: object, **kwargs: object) -> None:
        raise AssertionError("file system touched")

    with monkeypatch.context() as m:
        for name in ("stat", "lstat", "open", "listdir", "scandir"):
            m.setattr(os, name, no_file_work)
        m.setattr("builtins.open", no_file_work)
        assert load_variant("klunker-en") is first
        game = cardshop.new_game("klunker-en", 4, seed=1)
    assert game.variant is first


# ---------------------------------------------------------------- every problem


def test_check_variant_lists_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "many.yaml"
    path.write_text(
        MINIMAL.replace("ruby: 8", "ruby: -1").replace("hand_size: 2", "hand_size: two")
        + "colour: blue\n"
    )
    problems = cardshop.check_variant(path)
    assert [p.path for p in problems] == [("cards", "ruby"), ("hand_size",), ("colour",)]
    assert [p.location.line for p in problems if p.location] == [3, 4, 9]
    with pytest.raises(VariantError, match=r"\(and 2 more problems\)"):
        load_variant(path)


def test_check_variant_lists_every_consistency_problem(tmp_path: Path) -> None:
    path = tmp_path / "many.yaml"
    path.write_text(MINIMAL.replace("[4, 3, 2, 1]", "[5, 3, 6]").replace("refill]", "]"))
    problems = cardshop.check_variant(path)
    paths = [p.path for p in problems]
    assert ("sale", "payout", 0) in paths
    assert ("sale", "payout", 2) in paths
    assert ("steps",) in paths


def test_check_variant_of_good_and_unreadable_files(tmp_path: Path) -> None:
    assert cardshop.check_variant("klunker-zh") == []
    assert cardshop.check_variant(ROOT / "variants" / "klunker-es.yaml") == []
    [missing] = cardshop.check_variant(tmp_path / "nope.yaml")
    assert "file not found" in missing.reason
    [syntax] = cardshop.check_variant(_write_text(tmp_path / "s.yaml", "a: [\n"))
    assert "YAML syntax error" in syntax.reason


def _write_text(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# -------------------------------------------------------------- JSON loads back


@pytest.mark.parametrize("name", cardshop.builtin_variants())
def test_resolved_json_loads_back(tmp_path: Path, name: str) -> None:
    variant = load_variant(name)
    data = json.loads(json.dumps(variant.to_data()))
    if variant.family == "klunker":
        assert "3" in data["starting_cash"]  # JSON keys are text
    assert variant_from_data(data).content_hash == variant.content_hash
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    assert load_variant(path).content_hash == variant.content_hash


def test_player_count_keys_must_be_numbers() -> None:
    with pytest.raises(VariantError) as info:
        parse_variant(MINIMAL.replace("{2: 1, 3: 1}", '{2: 1, "three": 1}'))
    assert info.value.path == ("starting_cash", "three")


# ------------------------------------------------------------------ copies


@pytest.mark.parametrize("name", ["klunker-en", "wuhltisch", "reglamentacja"])
def test_a_copy_with_changed_fields_computes_its_rules_and_hash_again(name: str) -> None:
    """pydantic's model_copy keeps the instance's cached values: a copy with a new
    title would share the original's compiled rules and hash, and so would one with
    new rules, which would then play the old ones."""
    original = load_variant(name)
    before = original.content_hash  # computes and caches the rules
    retitled = original.model_copy(update={"title": "Another title"})
    assert retitled.content_hash != before  # the title is part of the resolved variant
    assert original.content_hash == before
    assert retitled.model_copy().content_hash == retitled.content_hash
    again = variant_from_data(retitled.to_data())
    assert again.content_hash == retitled.content_hash


def test_a_copy_with_new_rules_plays_them() -> None:
    original = load_variant("klunker-en")
    assert original.rules.hand_size == 6
    smaller = original.model_copy(update={"hand_size": 5})
    assert smaller.rules.hand_size == 5
    game = cardshop.new_game(smaller, 4, seed=1)
    assert game.observation(0).hand_sizes == (5, 5, 5, 5)
