"""The Wühltisch shirts written compactly or listed, and ``cardshop show`` printing the
resolved list (WT-CARD-2): the issue asks that either way an author sees every shirt."""

from __future__ import annotations

import hashlib
import itertools
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

import cardshop
from cardshop import VariantError, driver
from cardshop.bots import make_bot
from cardshop.records import GameRecord, record_game
from cardshop.wuhltisch import WuhltischGame, load_wuhltisch, parse_wuhltisch

ROOT = Path(__file__).resolve().parents[1]
V = load_wuhltisch()


def text_with(**changes: object) -> str:
    data = yaml.safe_load((ROOT / "variants" / "wuhltisch.yaml").read_text(encoding="utf-8"))
    data.update(changes)
    return yaml.safe_dump(data, sort_keys=False)


def test_wt_card_2_show_prints_every_shirt_and_loads_back_as_the_same_variant(
    tmp_path: Path,
) -> None:
    """WT-CARD-2: `cardshop show wuhltisch`, in a real process, lists the 80 shirts."""
    proc = subprocess.run(
        [sys.executable, "-m", "cardshop", "show", "wuhltisch"],
        capture_output=True,
        text=True,
        check=True,
    )
    shown = yaml.safe_load(proc.stdout)
    assert len(shown["shirts"]) == 80
    assert shown["shirts"][:6] == [
        "stripes/red/s/long@10",
        "stripes/red/s/long@20",
        "stripes/red/s/long@30",
        "stripes/red/s/long@40",
        "stripes/red/s/long@80",
        "stripes/red/s/short@10",
    ]
    assert shown["shirts"] == list(V.rules.card_name[:80])
    path = tmp_path / "shown.yaml"
    path.write_text(proc.stdout, encoding="utf-8")
    again = cardshop.load_variant(path)
    assert again == V
    assert again.content_hash == V.content_hash
    assert again.rules.card_name == V.rules.card_name


def test_wt_card_2_listed_shirts_are_the_cards_in_the_order_given() -> None:
    """WT-CARD-2: a listed shirt list gives those cards, copies included, in that order."""
    listed = ["dots/blue/xl/short@20"] * 30 + ["stripes/red/s/long@80"] * 60
    v = parse_wuhltisch(text_with(shirts=listed))
    r = v.rules
    assert r.n_shirts == 90
    assert r.card_name[:90] == tuple(listed)
    assert sum(r.luxury) == 60
    assert r.price[0] == 20
    assert r.first_lost == 90
    game = cardshop.new_game(v, 2, seed=1)
    assert sorted(c for zone in game.zones().values() for c in zone) == list(range(r.n_cards))


def test_wt_card_2_compact_and_listed_forms_are_the_same_variant() -> None:
    compact = parse_wuhltisch(text_with(shirts={"prices": [10, 80], "copies": 3}))
    assert isinstance(compact.shirts, list)
    assert len(compact.shirts) == 16 * 2 * 3
    listed = parse_wuhltisch(text_with(shirts=list(compact.shirts)))
    assert listed == compact
    assert listed.content_hash == compact.content_hash


def test_a_listed_form_replaces_the_compact_one_through_extends(tmp_path: Path) -> None:
    child = tmp_path / "child.yaml"
    child.write_text(
        "extends: wuhltisch\nname: listed\nshirts: ["
        + ", ".join(["stripes/red/s/long@10"] * 90)
        + "]\n",
        encoding="utf-8",
    )
    v = cardshop.load_variant(child)
    assert v.rules.n_shirts == 90  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("shirts", "message"),
    [
        (["stripes/red/m/long@10"], r"shirts\[0\].*size has no value 'm'"),
        (["stripes/red@10"], r"shirts\[0\].*names 2 values"),
        (["stripes/red/s/long@20000"], r"shirts\[0\].*the price is at most 10000"),
        (["Stripes/red/s/long@1"], r"shirts\[0\].*should match pattern"),
        ([], r"shirts.*at least 1 item"),
        ({"prices": [10], "copies": 9}, r"shirts\.copies.*less than or equal to 8"),
        ({"prices": [10], "cost": 1}, r"shirts\.cost.*unknown key"),
        (12, r"shirts.*a mapping \{prices, copies\}.*or a list of shirts"),
    ],
)
def test_bad_shirts_are_refused_at_their_key(shirts: object, message: str) -> None:
    with pytest.raises(VariantError, match=message):
        parse_wuhltisch(text_with(shirts=shirts))


def test_too_many_generated_shirts_are_refused_before_they_are_listed() -> None:
    attributes = {f"a{i}": ["x", "y", "z"] for i in range(6)}
    with pytest.raises(VariantError, match="2187 shirts; at most 2000"):
        parse_wuhltisch(text_with(attributes=attributes, shirts={"prices": [1, 2, 3]}))


def test_wt_card_4_the_rulebook_example_list_is_among_the_assumed_lists() -> None:
    """WT-CARD-4, as the digest notes: the 16 lists name each value six times, and the
    worked example's list (dotted, small, long sleeves) is one of them."""
    r = V.rules
    named = Counter(want for wants in r.list_wants for want in wants)
    assert len(named) == 8
    assert set(named.values()) == {6}
    assert len(r.ids_by_name["list:dots/*/s/long"]) == 1


def test_the_content_hash_is_that_of_the_generating_mapping() -> None:
    """Listing the shirts does not change the hash: it is computed as it was when the
    resolved variant kept ``{prices, copies}``, so records written then still replay."""
    data = V.to_data()
    assert isinstance(data["shirts"], list)
    data["shirts"] = {"prices": [10, 20, 30, 40, 80], "copies": 1}
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    assert V.content_hash == hashlib.sha256(text.encode()).hexdigest()
    assert V.compact_shirts() == {"prices": [10, 20, 30, 40, 80], "copies": 1}
    shuffled = parse_wuhltisch(text_with(shirts=list(reversed(V.rules.card_name[:80]))))
    assert shuffled.compact_shirts() is None
    assert shuffled.content_hash != V.content_hash


def test_a_record_whose_header_keeps_the_generating_mapping_replays() -> None:
    """A record's header as written before shirts were listed: variant_data with the
    mapping, and its hash. Both it and a record written now replay, by name and with
    the recorded rules."""
    game = cardshop.new_game(V, 2, seed=5)
    bots = [make_bot("greedy", V, seed=s) for s in range(2)]
    for _ in range(40):
        driver.step(game, bots)
    text = record_game(game, ["greedy", "greedy"]).dumps()
    head, _, rest = text.partition("\n")
    header = json.loads(head)
    assert isinstance(header["variant_data"]["shirts"], list)
    header["variant_data"]["shirts"] = {"prices": [10, 20, 30, 40, 80], "copies": 1}
    old = json.dumps(header) + "\n" + rest
    for written in (text, old):
        record = GameRecord.loads(written)
        for recorded in (False, True):
            again = record.replay(recorded_variant=recorded)
            assert again.to_dict() == game.to_dict()


def test_wt_score_3_with_the_default_shirts_a_luxury_set_scores_at_most_13() -> None:
    """WT-SCORE-3, as the digest notes: only two luxury shirts fit a list exactly, so
    three luxury shirts match at most 8 times (8 + 5); without the luxury bonus a set
    scores at most 9 + 5."""
    r = V.rules
    luxury = [c for c in range(r.n_shirts) if r.luxury[c]]
    for lst in range(r.first_list, r.n_cards):
        best = max(r.set_score(lst, trio) for trio in itertools.combinations(luxury, 3))
        assert best == 8 + 5
        exact = [c for c in luxury if r.matches[lst - r.first_list][c] == r.list_size]
        assert len(exact) == 2
    assert r.max_set_score == 19


def test_game_json_round_trips_for_generated_and_listed_shirts() -> None:
    listed = parse_wuhltisch(text_with(shirts=list(reversed(V.rules.card_name[:80]))))
    for variant in (V, listed):
        game = cardshop.new_game(variant, 3, seed=2)
        game.apply_joint({0: "look", 1: "look", 2: "wait"})
        again = WuhltischGame.from_json(game.to_json())
        assert again == game
        assert again.variant == variant
