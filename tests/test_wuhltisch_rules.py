"""One scenario per clause of the Wühltisch digest (docs/wuhltisch-rules.md), built from
positions, the rulebook's three worked examples, and the digest kept in step with the tests.

Positions name only what matters; unplaced shirts and lost property lie in the heap and
unplaced lists in the box.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from cardshop import ActionParseError, GameStateError, IllegalActionError, SetupError
from cardshop.core.game import Termination
from cardshop.wuhltisch import (
    WuhltischGame,
    WuhltischVariant,
    load_wuhltisch,
    new_game,
    parse_wuhltisch,
)
from cardshop.wuhltisch import events as ev

ROOT = Path(__file__).resolve().parents[1]
DIGEST = ROOT / "docs" / "wuhltisch-rules.md"
V = load_wuhltisch()
R = V.rules
LISTS = [R.card_name[c] for c in range(R.first_list, R.n_cards)]
SRS = "list:stripes/red/xl/*"  # seat 0's list in most scenarios: stripes, red, XL


def seat(face_up: str, stack: list[str], **zones: Any) -> dict[str, Any]:
    return {"face_up": face_up, "stack": stack, **zones}


def two_seats(s0: dict[str, Any] | None = None, s1: dict[str, Any] | None = None) -> list[Any]:
    return [
        {"face_up": SRS, "stack": [LISTS[0], LISTS[1]], **(s0 or {})},
        {"face_up": LISTS[2], "stack": [LISTS[3], LISTS[4]], **(s1 or {})},
    ]


def game_at(
    seats: list[dict[str, Any]], variant: WuhltischVariant = V, **keys: Any
) -> WuhltischGame:
    return WuhltischGame.from_position({"seats": seats, **keys}, variant)


def tick(game: WuhltischGame, *actions: str) -> list[Any]:
    return game.apply_joint(dict(enumerate(actions)))


def card(name: str) -> int:
    return R.ids_by_name[name][0]


def names(cards: tuple[int, ...] | list[int]) -> list[str]:
    return [R.card_name[c] for c in cards]


def heap_after(game: WuhltischGame, top: list[str]) -> list[str]:
    """A full heap listing, top first: the given cards, then every other heap card."""
    rest = names(game.zones()["heap"])
    for name in top:
        rest.remove(name)
    return top + rest


def variant_with(**changes: Any) -> WuhltischVariant:
    data = yaml.safe_load((ROOT / "variants" / "wuhltisch.yaml").read_text(encoding="utf-8"))
    data.update(changes)
    return parse_wuhltisch(yaml.safe_dump(data, sort_keys=False))


# ------------------------------------------------------------------ cards


def test_wt_card_1_every_card_in_exactly_one_zone_and_keeps_its_identity() -> None:
    """WT-CARD-1: zones partition the 110 cards; a kept card is the card looked at."""
    game = new_game(V, 3, seed=4)
    for _ in range(30):
        cards = sorted(c for zone in game.zones().values() for c in zone)
        assert cards == list(range(110))
        events = tick(game, "look", "wait", "wait")
        looked = [e.card for e in events if isinstance(e, ev.Looked) and e.seat == 0]
        if game._view[0] >= 0:
            kept = tick(game, "keep" if len(game._hands[0]) < 3 else "throw", "wait", "wait")
            if isinstance(kept[0], ev.Kept):
                assert kept[0].card == looked[0]
                assert looked[0] in game.zones()["hand:0"]
        if game._hands[0] and len(game._hands[0]) == 3:
            tick(game, "drop 0", "wait", "wait")


def test_wt_card_2_shirts_are_generated_from_attributes_prices_and_copies() -> None:
    """WT-CARD-2: 16 combinations x 5 prices = 80 shirts; 16 of them luxury."""
    assert R.n_shirts == 80
    assert R.attributes == ("pattern", "colour", "size", "sleeves")
    assert sorted(set(R.price)) == [10, 20, 30, 40, 80]
    assert sum(R.luxury) == 16
    assert len(set(R.card_name[:80])) == 80
    assert R.card_name[0] == "stripes/red/s/long@10"
    double = variant_with(shirts={"prices": [10, 80], "copies": 2})
    assert double.rules.n_shirts == 16 * 2 * 2


def test_wt_card_3_lost_property_useless_and_useful() -> None:
    """WT-CARD-3: 7 useless cards and 7 useful with values 1,1,2,2,3,3,4."""
    values = [R.lost_value[c] for c in range(R.first_lost, R.first_list)]
    assert values == [0] * 7 + [1, 1, 2, 2, 3, 3, 4]


def test_wt_card_4_lists_name_three_attributes_odd_second_values() -> None:
    """WT-CARD-4: 16 lists, 3 attributes each, an odd number of second values."""
    assert R.n_lists == 16
    assert all(len(w) == 3 and sum(x for _, x in w) % 2 == 1 for w in R.list_wants)
    assert len(set(R.list_wants)) == 16
    bad = (ROOT / "variants" / "wuhltisch.yaml").read_text(encoding="utf-8")
    bad = bad.replace(
        "{colour: red, size: s, sleeves: short}", "{colour: red, size: m, sleeves: short}"
    )
    with pytest.raises(Exception, match="size has no value 'm'"):
        parse_wuhltisch(bad)


# ------------------------------------------------------------------ setup


def test_wt_setup_1_player_counts_and_enough_lists() -> None:
    """WT-SETUP-1: 2 to 5 players; the lists must cover 3 per seat at the largest table."""
    for n in (2, 5):
        assert new_game(V, n, seed=1).players == n
    for n in (1, 6):
        with pytest.raises(SetupError):
            new_game(V, n, seed=1)
    text = (ROOT / "variants" / "wuhltisch.yaml").read_text(encoding="utf-8")
    with pytest.raises(Exception, match="16 lists; 6 players need 3 each"):
        parse_wuhltisch(text.replace("players: {min: 2, max: 5}", "players: {min: 2, max: 6}"))


def test_wt_setup_2_round_setup_deals_lists_and_shuffles_the_heap() -> None:
    """WT-SETUP-2: heap of 94, 3 lists per seat (top face up), the rest in the box."""
    game = new_game(V, 4, seed=7)
    zones = game.zones()
    assert len(zones["heap"]) == 94
    assert len(zones["box"]) == 16 - 12
    for s in range(4):
        assert len(zones[f"list:{s}"]) == 1
        assert len(zones[f"stack:{s}"]) == 2
        assert zones[f"hand:{s}"] == ()
        assert zones[f"view:{s}"] == ()
    assert new_game(V, 4, seed=8).zones()["heap"] != zones["heap"]
    assert [type(e).__name__ for e in game.setup_events][:2] == ["RoundStarted", "ListTurned"]


# ------------------------------------------------------------------ ticks


def test_wt_tick_1_everyone_acts_and_looks_draw_distinct_cards() -> None:
    """WT-TICK-1: all seats act; seat 0 gets the heap's top card, seat 1 the next."""
    top = ["dots/blue/s/short@20", "stripes/red/xl/long@10"]
    game = game_at(two_seats())
    game = game_at(two_seats(), heap=heap_after(game, top))
    assert game.acting == (0, 1)
    events = tick(game, "look", "look")
    assert [(e.seat, R.card_name[e.card]) for e in events] == [(0, top[0]), (1, top[1])]
    assert "look" not in map(str, game.legal_actions(0))  # something is in view


def test_wt_tick_2_lost_property_laid_out_or_thrown_back_at_once() -> None:
    """WT-TICK-2: lost:3 is laid out in front of the finder; lost:0 goes back to the heap."""
    game = game_at(two_seats())
    game = game_at(two_seats(), heap=heap_after(game, ["lost:3", "lost:0"]))
    events = tick(game, "look", "look")
    assert ev.FoundLostProperty(0, card("lost:3"), 3) in events
    assert names(game.zones()["found:0"]) == ["lost:3"]
    assert game._view == [-1, -1]
    assert R.ids_by_name["lost:0"][0] in game.zones()["heap"]
    assert len(game.zones()["heap"]) == 94 - 1


def test_wt_tick_3_thrown_cards_return_at_random_places_after_the_looks() -> None:
    """WT-TICK-3: a thrown shirt goes back into the heap, not to the seat looking this tick."""
    thrown = "dots/blue/s/short@20"
    base = game_at(two_seats({"view": thrown}))
    places = set()
    for seed in range(6):
        game = game_at(two_seats({"view": thrown}), seed=seed, heap=names(base.zones()["heap"]))
        top = game.zones()["heap"][0]
        events = tick(game, "throw", "look")
        assert ev.Threw(0, card(thrown)) in events
        assert ev.Looked(1, top) in events
        heap = game.zones()["heap"]
        assert card(thrown) in heap
        places.add(heap.index(card(thrown)))
    assert len(places) > 1  # the place is drawn with the seed


def test_wt_tick_3_a_card_thrown_back_on_top_is_seen_only_in_a_later_tick() -> None:
    """WT-TICK-3: in every seed the look takes the old top card, even in the seeds that
    put the thrown shirt back on top (so it was put back after the look); the next
    tick's look finds it there."""
    thrown = "dots/blue/s/short@20"
    heap = names(game_at(two_seats({"view": thrown})).zones()["heap"])
    on_top = 0
    for seed in range(300):
        game = game_at(two_seats({"view": thrown}), seed=seed, heap=heap)
        old_top = game.zones()["heap"][0]
        assert ev.Looked(1, old_top) in tick(game, "throw", "look")
        if game.zones()["heap"][0] == card(thrown):
            on_top += 1
            assert ev.Looked(0, card(thrown)) in tick(game, "look", "throw")
    assert on_top >= 1  # some seeds put it back on top: the case this test is about


def test_wt_tick_4_keep_and_swap_never_more_than_three_held() -> None:
    """WT-TICK-4: keep with fewer than 3 held; with 3, only swap S; hand stays at 3."""
    hand = ["stripes/red/xl/long@10", "stripes/red/xl/short@20", "dots/red/xl/long@30"]
    view = "stripes/red/s/long@10"
    game = game_at(two_seats({"hand": hand[:2], "view": view}))
    tick(game, "keep", "wait")
    assert names(game.zones()["hand:0"]) == sorted([*hand[:2], view], key=card)
    game = game_at(two_seats({"hand": hand, "view": view}))
    assert "keep" not in map(str, game.legal_actions(0))
    before = game.to_json()
    with pytest.raises(IllegalActionError):
        tick(game, "keep", "wait")
    assert game.to_json() == before
    events = tick(game, "swap 2", "wait")  # slot 2 = the highest card id
    assert events[0] == ev.Swapped(0, card("dots/red/xl/long@30"), card(view))
    assert len(game.zones()["hand:0"]) == 3
    assert card("dots/red/xl/long@30") in game.zones()["heap"]


def test_wt_tick_5_drop_by_slot_any_time() -> None:
    """WT-TICK-5: drop S removes slot S of the sorted hand, with or without a view."""
    hand = ["dots/red/xl/long@30", "stripes/red/xl/long@10"]
    game = game_at(two_seats({"hand": hand}))
    assert game.observation(0).hand == tuple(sorted(card(h) for h in hand))
    tick(game, "drop 0", "wait")
    assert names(game.zones()["hand:0"]) == ["dots/red/xl/long@30"]
    game = game_at(two_seats({"hand": hand, "view": "stripes/blue/xl/long@10"}))
    assert "drop 1" in map(str, game.legal_actions(0))
    tick(game, "drop 1", "wait")
    assert names(game.zones()["view:0"]) == ["stripes/blue/xl/long@10"]
    with pytest.raises(IllegalActionError):
        tick(game, "drop 1", "wait")  # only one shirt held now


def test_wt_tick_6_buy_lays_down_a_set_and_turns_the_next_list() -> None:
    """WT-TICK-6: buy needs 3 held and nothing in view; even a bad set may be laid."""
    bad = ["dots/blue/s/short@80", "dots/blue/s/long@80", "dots/blue/xl/short@40"]
    game = game_at(two_seats({"hand": bad}))
    events = tick(game, "buy", "wait")
    assert events[0] == ev.LaidDown(0, card(SRS), tuple(sorted(card(b) for b in bad)), False)
    assert events[1] == ev.ListTurned(0, card(LISTS[0]))
    assert game.zones()["set:0:0"] == (card(SRS), *sorted(card(b) for b in bad))
    assert game.observation(1).sets_laid == (1, 0)
    assert game.observation(0).lists[0] == card(LISTS[0])
    for s0 in ({"hand": bad[:2]}, {"hand": bad, "view": "stripes/red/xl/long@10"}):
        game = game_at(two_seats(s0))
        assert "buy" not in map(str, game.legal_actions(0))


def test_wt_tick_7_wait_and_the_actions_with_a_shirt_in_view() -> None:
    """WT-TICK-7: wait does nothing; with a shirt in view: keep/swap, throw, drop."""
    game = game_at(two_seats())
    before = game.zones()
    assert tick(game, "wait", "wait") == []
    assert game.zones() == before
    assert game.tick == 1
    game = game_at(two_seats({"hand": ["stripes/red/xl/long@10"], "view": "dots/red/xl/long@30"}))
    assert list(map(str, game.legal_actions(0))) == ["drop 0", "keep", "throw"]
    game = game_at(two_seats({"hand": ["stripes/red/xl/long@10"]}))
    assert list(map(str, game.legal_actions(0))) == ["drop 0", "look", "wait"]


def test_wt_tick_8_action_texts_round_trip_and_illegal_ticks_change_nothing() -> None:
    """WT-TICK-8: every action text parses back; one illegal action refuses the tick."""
    game = game_at(two_seats())
    for action in R.actions:
        assert game.parse_action(str(action)) == action
    for text in ("swap 3", "look 1", "fly", "drop", "drop x"):
        with pytest.raises(ActionParseError):
            game.parse_action(text)
    before = game.to_json()
    with pytest.raises(IllegalActionError):
        tick(game, "look", "keep")
    with pytest.raises(GameStateError):
        game.apply_joint({0: "look"})
    assert game.to_json() == before


# ------------------------------------------------------------ round and game end


def full(lst: str, *, skip: tuple[str, ...] = ()) -> list[str]:
    """Three shirts matching every attribute of a list (9 of 9) for 60 euro or less,
    none of them listed in ``skip`` (so that several lists' sets never share a card)."""
    wants = lst.removeprefix("list:").split("/")
    out: list[str] = []
    for price in (10, 20, 30, 40):
        for name in R.card_name[: R.n_shirts]:
            values, at = name.split("@")
            ok = all(w in ("*", v) for w, v in zip(wants, values.split("/"), strict=True))
            if ok and int(at) == price and name not in skip and len(out) < 3:
                out.append(name)
                break
    return out


SETS0 = [[LISTS[0], *full(LISTS[0])], [LISTS[1], *full(LISTS[1], skip=tuple(full(LISTS[0])))]]
"""Seat 0's two full sets laid down, for the scenarios where it calls."""
USED0 = tuple(c for st in SETS0 for c in st[1:])
CALL = full(SRS, skip=USED0)
"""Seat 0's third, full hand (9 of 9 on its list)."""
USED = (*USED0, *CALL)
SETS1 = [[LISTS[3], *full(LISTS[3], skip=USED)]]
SETS1.append([LISTS[4], *full(LISTS[4], skip=(*USED, *SETS1[0][1:]))])
HAND1 = full(LISTS[2], skip=(*USED, *SETS1[0][1:], *SETS1[1][1:]))


def test_wt_full_helper_gives_distinct_scoring_sets() -> None:
    every = [*USED, *SETS1[0][1:], *SETS1[1][1:], *HAND1]
    assert len(every) == len(set(every)) == 18
    for lst, shirts in ((SRS, CALL), (LISTS[2], HAND1), *((st[0], st[1:]) for st in SETS0)):
        assert R.set_score(card(lst), [card(x) for x in shirts]) == 14


def test_wt_end_1_the_last_set_ends_the_round_after_the_tick() -> None:
    """WT-END-1: a seat laying down its last set calls; the tick still resolves; two callers."""
    s0 = {"stack": [], "sets": SETS0, "hand": CALL}
    s1 = {"hand": HAND1[:2], "view": HAND1[2]}
    game = game_at(two_seats(s0, s1))
    events = tick(game, "buy", "keep")
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("Kept") < kinds.index("HandsOff") < kinds.index("RoundScored")
    assert ev.HandsOff(1, (0,)) in events
    assert game.round == 2
    assert game.tick == 0
    game = game_at(two_seats(s0, {"stack": [], "sets": SETS1, "hand": HAND1}))
    events = tick(game, "buy", "buy")
    assert ev.HandsOff(1, (0, 1)) in events
    assert game.observation(0).callers == ((0, 1),)


def test_wt_end_2_full_hands_laid_down_at_the_end_others_thrown_back() -> None:
    """WT-END-2: 3 held shirts are laid with the face-up list; fewer go back to the heap."""
    s0 = {"stack": [], "sets": SETS0, "hand": CALL}
    game = game_at(two_seats(s0, {"hand": HAND1}))
    events = tick(game, "buy", "wait")
    assert ev.LaidDown(1, card(LISTS[2]), tuple(sorted(map(card, HAND1))), True) in events
    scored = [e for e in events if isinstance(e, ev.SetScored) and e.seat == 1]
    assert [e.score for e in scored] == [14]
    game = game_at(two_seats(s0, {"hand": HAND1[:2], "view": HAND1[2]}))
    events = tick(game, "buy", "drop 0")
    back = next(e for e in events if isinstance(e, ev.ReturnedToHeap))
    assert back.seat == 1
    assert len(back.cards) == 2
    assert [e for e in events if isinstance(e, ev.SetScored) and e.seat == 1] == []


def test_wt_end_3_four_rounds_summed_tiebreak_by_cards_in_front() -> None:
    """WT-END-3: after round 4 the game ends; equal scores are split by cards in front."""
    s0 = {"stack": [], "sets": SETS0, "hand": CALL}  # 3 sets of 14 = 42
    s1 = {"stack": [], "sets": SETS1, "hand": HAND1[:2], "found": ["lost:4"]}  # 28 + 4
    earlier = {"scores": [[0, 10], [0, 0], [0, 0]], "callers": [[1], [0], [0]], "round": 4}
    game = game_at(two_seats(s0, s1), **earlier)
    events = tick(game, "buy", "wait")
    assert game.is_over
    assert isinstance(events[-1], ev.GameEnded)
    result = game.result()
    assert result.scores == (42, 42)
    assert game._in_front == [12, 9]  # 3 sets of 4 cards; 2 sets + 1 lost property
    assert result.ranks == (1, 2)
    assert result.winners == (0,)
    assert result.termination is Termination.FINISHED
    assert result.rounds == 4
    assert game.legal_actions(0) == []
    assert game.acting == ()
    # Equal scores and equal cards in front: the seats share the win.
    s1 = {"stack": [], "sets": SETS1, "hand": HAND1}  # 3 sets of 14 = 42, 12 cards
    earlier["scores"] = [[0, 0], [0, 0], [0, 0]]
    game = game_at(two_seats(s0, s1), **earlier)
    tick(game, "buy", "buy")
    result = game.result()
    assert result.scores == (42, 42)
    assert game._in_front == [12, 12]
    assert result.ranks == (1, 1)
    assert result.winners == (0, 1)


# ------------------------------------------------------------------ scoring


def example_score(shirts: list[str]) -> tuple[int, int, int]:
    """Matches, price and score of a set on the rulebook example's list (dotted, small,
    long sleeves), one of the default variant's lists."""
    r = R
    lst = r.ids_by_name["list:dots/*/s/long"][0]
    ids = [r.ids_by_name[s][0] for s in shirts]
    return r.set_matches(lst, ids), sum(r.price[c] for c in ids), r.set_score(lst, ids)


def test_wt_score_1_to_3_worked_example_7_of_9_at_80_euro_scores_7() -> None:
    """WT-SCORE-1, WT-SCORE-2, WT-SCORE-3: 2 dotted, 2 long, 3 small for 80 euro: 7 points."""
    shirts = ["dots/red/s/long@10", "dots/red/s/short@30", "stripes/blue/s/long@40"]
    assert example_score(shirts) == (7, 80, 7)


def test_wt_score_3_worked_example_8_of_9_three_luxury_scores_8_plus_5() -> None:
    """WT-SCORE-1, WT-SCORE-3: 2 dotted, 3 long, 3 small, all at 80 euro: 8 + 5."""
    shirts = ["dots/red/s/long@80", "dots/blue/s/long@80", "stripes/red/s/long@80"]
    assert example_score(shirts) == (8, 240, 13)


def test_wt_score_1_worked_example_7_of_9_at_120_euro_scores_0() -> None:
    """WT-SCORE-1: 3 dotted, 2 long, 2 small for 120 euro: over budget, 0 points."""
    shirts = ["dots/red/s/long@40", "dots/red/xl/long@40", "dots/red/s/short@40"]
    assert example_score(shirts) == (7, 120, 0)


def test_wt_score_2_fewer_than_seven_matches_score_nothing() -> None:
    """WT-SCORE-2: 6 matches within budget score 0; 7 score 7."""
    lst = card(SRS)
    six = ["stripes/red/s/long@10", "stripes/blue/xl/long@10", "dots/red/xl/long@10"]
    assert R.set_matches(lst, [card(s) for s in six]) == 6
    assert R.set_score(lst, [card(s) for s in six]) == 0
    seven = ["stripes/red/s/long@10", "stripes/red/xl/long@20", "stripes/blue/xl/short@10"]
    assert R.set_matches(lst, [card(s) for s in seven]) == 7
    assert R.set_score(lst, [card(s) for s in seven]) == 7
    strict = variant_with(match_threshold=8).rules
    assert strict.set_score(lst, [card(s) for s in seven]) == 0


def test_wt_score_3_bonuses_nine_matches_and_luxury() -> None:
    """WT-SCORE-3: 9 matches: 9 + 5; 9 matches with three luxury shirts: 9 + 5 + 5 = 19."""
    lst = card(SRS)
    cheap = ["stripes/red/xl/long@10", "stripes/red/xl/short@20", "stripes/red/xl/long@30"]
    assert R.set_score(lst, [card(s) for s in cheap]) == 14
    lux = [card("stripes/red/xl/long@80"), card("stripes/red/xl/short@80")]
    assert R.set_score(lst, [*lux, card("stripes/red/s/long@80")]) == 8 + 5
    # With one copy of each shirt only two luxury shirts fit a list exactly; with two
    # copies three do, and both bonuses are added.
    double = variant_with(shirts={"prices": [10, 20, 30, 40, 80], "copies": 2}).rules
    three = [
        *double.ids_by_name["stripes/red/xl/long@80"],
        double.ids_by_name["stripes/red/xl/short@80"][0],
    ]
    assert len(three) == 3
    assert double.set_score(double.first_list + (lst - R.first_list), three) == 9 + 5 + 5
    assert R.max_set_score == 19
    other = variant_with(bonuses={"all_match": 2, "luxury": 3}).rules
    assert other.set_score(lst, [card(s) for s in cheap]) == 9 + 2
    assert other.set_score(lst, [*lux, card("stripes/red/s/long@80")]) == 8 + 3


def test_wt_score_4_round_score_is_sets_plus_lost_property() -> None:
    """WT-SCORE-4: a non-caller's round: its scoring sets plus its lost property values."""
    s0 = {"stack": [], "sets": SETS0, "hand": CALL}
    bad = ["dots/blue/s/short@80", "dots/blue/s/long@80", "dots/blue/xl/short@40"]
    s1 = {"stack": [LISTS[4]], "sets": SETS1[:1], "hand": bad, "found": ["lost:2", "lost:3"]}
    game = game_at(two_seats(s0, s1))
    events = tick(game, "buy", "wait")
    scored = next(e for e in events if isinstance(e, ev.RoundScored))
    assert scored.scores == (42, 14 + 0 + 5)


def test_wt_score_5_the_caller_risks_the_whole_round() -> None:
    """WT-SCORE-5: a caller with one set scoring 0 keeps only his lost property."""
    bad = ["dots/blue/s/short@80", "dots/blue/s/long@80", "dots/blue/xl/short@40"]
    sets0 = [SETS0[0], [LISTS[1], *bad]]
    s0 = {"stack": [], "sets": sets0, "hand": CALL, "found": ["lost:1"]}
    game = game_at(two_seats(s0))
    events = tick(game, "buy", "wait")
    assert next(e for e in events if isinstance(e, ev.RoundScored)).scores == (1, 0)
    relaxed = variant_with(caller_all_or_nothing=False)
    game = game_at(two_seats(s0), variant=relaxed)
    events = tick(game, "buy", "wait")
    assert next(e for e in events if isinstance(e, ev.RoundScored)).scores == (14 + 14 + 1, 0)


# ------------------------------------------------------------------ the cap


def test_wt_cap_1_a_round_at_the_tick_cap_ends_uncalled_and_capped() -> None:
    """WT-CAP-1: the tick cap ends the round as if nobody called; the game goes on."""
    game = game_at(two_seats({"hand": CALL}), tick=4999)
    events = tick(game, "wait", "wait")
    scored = next(e for e in events if isinstance(e, ev.RoundScored))
    assert scored.capped
    assert scored.callers == ()
    assert scored.ticks == 5000
    assert scored.scores == (14, 0)
    assert game.round == 2
    assert not game.is_over
    assert game.capped_rounds == (1,)
    earlier = {"scores": [[0, 0]] * 3, "callers": [[0]] * 3, "round": 4, "tick": 4999}
    game = game_at(two_seats(), **earlier)
    tick(game, "wait", "wait")
    result = game.result()
    assert result.termination is Termination.CAPPED
    assert result.details["capped_rounds"] == 1


# ------------------------------------------------------------------ knowledge


def test_wt_know_1_observation_shows_public_and_own_private_cards_only() -> None:
    """WT-KNOW-1: games differing only in hidden cards look the same to seat 0; its own
    face-down lists are hidden from it too, and only their number shows."""
    hand = ["stripes/red/xl/long@10"]
    a = game_at(two_seats({"hand": hand}, {"hand": ["dots/red/xl/long@30"], "found": ["lost:2"]}))
    b = game_at(
        two_seats(
            {"hand": hand, "stack": [LISTS[1], LISTS[0]]},
            {
                "stack": [LISTS[4], LISTS[3]],
                "hand": ["dots/blue/s/long@80"],
                "found": ["lost:2"],
                "view": "dots/red/xl/long@10",
            },
        ),
        seed=5,
    )
    assert a.zones()["stack:0"] != b.zones()["stack:0"]
    assert a.observation(0) == b.observation(0)
    assert a.observation(1) != b.observation(1)
    obs = a.observation(0)
    assert obs.hand == (card(hand[0]),)
    assert obs.hand_sizes == (1, 1)
    assert obs.found == ((), (card("lost:2"),))
    assert obs.stack_sizes == (2, 2)


def test_wt_know_2_sets_face_down_until_the_round_is_scored() -> None:
    """WT-KNOW-2: a laid set shows only as a count, its owner included, until scoring."""
    game = game_at(two_seats({"hand": CALL}))
    tick(game, "buy", "wait")
    obs = game.observation(0)
    assert obs.sets_laid == (1, 0)
    assert obs.hand == ()
    assert obs.last_sets == ((), ())
    game = game_at(two_seats({"stack": [], "sets": SETS0, "hand": CALL}))
    tick(game, "buy", "wait")
    revealed = game.observation(1).last_sets[0]
    assert len(revealed) == 3
    assert revealed[2][0] == card(SRS)


# ------------------------------------------------------------------ the digest


def clause_ids() -> list[str]:
    return re.findall(r"\*\*(WT-[A-Z]+-\d+)\*\*", DIGEST.read_text(encoding="utf-8"))


WT_CITATION = re.compile(r"WT-([A-Z]+)-(\d+)(?:\.\.(?:WT-\1-)?(\d+)|((?:/\d+)+))?")


def cited(text: str) -> set[str]:
    out: set[str] = set()
    for m in WT_CITATION.finditer(text):
        family, first = m.group(1), int(m.group(2))
        numbers = [first]
        if m.group(3):
            numbers += range(first + 1, int(m.group(3)) + 1)
        if m.group(4):
            numbers += [int(x) for x in m.group(4).split("/") if x]
        out |= {f"WT-{family}-{n}" for n in numbers}
    return out


def test_digest_defines_each_clause_once() -> None:
    ids = clause_ids()
    assert len(ids) == len(set(ids))
    assert len(ids) >= 20


def test_every_wuhltisch_clause_is_cited_by_a_test() -> None:
    found: set[str] = set()
    for path in sorted((ROOT / "tests").glob("test_wuhltisch_*.py")):
        source = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_wt_"):
                found |= cited(ast.get_source_segment(source, node) or "")
    missing = [c for c in clause_ids() if c not in found]
    assert not missing, f"no test names these clauses: {missing}"


def test_every_cited_wuhltisch_clause_exists() -> None:
    known = set(clause_ids())
    files = [
        *sorted((ROOT / "src" / "cardshop" / "wuhltisch").glob("*.py")),
        ROOT / "variants" / "wuhltisch.yaml",
        *sorted((ROOT / "tests").glob("test_wuhltisch_*.py")),
        DIGEST,
    ]
    unknown = sorted(
        f"{p.name}: {cid}" for p in files for cid in cited(p.read_text(encoding="utf-8"))
    )
    unknown = [u for u in unknown if u.split(": ")[1] not in known]
    assert not unknown, unknown
