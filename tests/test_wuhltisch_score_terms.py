"""Wühltisch's score terms, threshold and warnings as variant data: WT-SCORE-2's
threshold bound and expression, the set and round terms (WT-SCORE-6/7), the settings
that cannot matter (WT-SCORE-8), and the tools that play variants with terms."""

from __future__ import annotations

import pickle
import random
from pathlib import Path

import pytest

import cardshop
from cardshop import VariantError
from cardshop.wuhltisch import WuhltischGame, WuhltischGreedyBot, WuhltischVariant, new_game
from cardshop.wuhltisch.invariants import INVARIANTS, state_problems
from diff_support import under_model

BASE = cardshop.load_variant("wuhltisch")
assert isinstance(BASE, WuhltischVariant)


def load(tmp_path: Path, text: str) -> WuhltischVariant:
    """A variant file that extends the built-in edition, loaded as a designer would."""
    path = tmp_path / "house.yaml"
    path.write_text("extends: wuhltisch\nname: house\n" + text, encoding="utf-8")
    variant = cardshop.load_variant(path)
    assert isinstance(variant, WuhltischVariant)
    return variant


def luxury_set(variant: WuhltischVariant) -> tuple[int, tuple[int, ...]]:
    """A list and three luxury shirts that score on it (7 or 8 matches)."""
    rules = variant.rules
    lux = [s for s in range(rules.n_shirts) if rules.luxury[s]]
    for i in range(rules.n_lists):
        row = rules.matches[i]
        best = tuple(sorted(lux, key=lambda s: -row[s])[:3])
        if sum(row[s] for s in best) >= rules.threshold:
            return rules.first_list + i, best
    raise AssertionError("no scoring luxury set")


def cheap_full_set(variant: WuhltischVariant) -> tuple[int, tuple[int, ...]]:
    """A list and three shirts matching it fully at 10, 20 and 30 euro (60 in all)."""
    rules = variant.rules
    row = rules.matches[0]
    full = [s for s in range(rules.n_shirts) if row[s] == rules.list_size]
    picked = tuple(sorted(full, key=lambda s: rules.price[s])[:3])
    return rules.first_list, picked


def test_the_built_in_edition_is_unchanged() -> None:
    """No terms, the same hash (under chance model 1, which it drew by before), no
    ``score`` key in its dump."""
    assert under_model("wuhltisch", 1).content_hash.startswith("41f0d1320bc6a904")
    assert "score" not in BASE.to_data()
    rules = BASE.rules
    assert (rules.set_terms, rules.round_terms) == ((), ())
    assert (rules.min_set_score, rules.max_set_score, rules.max_round_score) == (7, 19, 73)


def test_wt_score_2_threshold_above_the_matches_names_both_sizes(tmp_path: Path) -> None:
    """WT-SCORE-2: a threshold above set_size x list size is refused with both numbers."""
    with pytest.raises(VariantError) as err:
        load(tmp_path, "match_threshold: 10\n")
    text = str(err.value)
    assert "match_threshold" in text
    assert "set_size 3 x 3 attributes" in text
    assert "at most 9" in text
    with pytest.raises(VariantError, match=r"'max_matches \+ 1' gives 10"):
        load(tmp_path, 'match_threshold: "max_matches + 1"\n')


def test_wt_score_2_threshold_as_an_expression_follows_the_set_size(tmp_path: Path) -> None:
    """WT-SCORE-2: "max_matches - 2" is 7 for sets of 3, 10 for sets of 4, and reads back."""
    three = load(tmp_path, 'match_threshold: "max_matches - 2"\n')
    assert three.rules.threshold == 7
    assert three.to_data()["match_threshold"] == "max_matches - 2"
    four = load(
        tmp_path,
        'set_size: 4\nplayers: {min: 2, max: 4}\nmatch_threshold: "max_matches * 7 / 9"\n',
    )
    assert four.rules.threshold == 12 * 7 // 9
    with pytest.raises(VariantError, match=r"house.yaml:3:\d+: .*unknown name 'max_match'"):
        load(tmp_path, 'match_threshold: "max_match - 2"\n')


def test_wt_score_6_set_terms_add_to_a_scoring_set_exactly(tmp_path: Path) -> None:
    """WT-SCORE-6: each term adds to a scoring set (after the bonuses); a set that does
    not score gains nothing; a set never scores below 0."""
    house = load(
        tmp_path,
        "score:\n  per_set:\n    lux: '2 * luxury'\n    bargain: 'budget_left >= 20 ? 3 : 0'\n",
    )
    lst, shirts = luxury_set(BASE)
    base = BASE.rules.set_score(lst, shirts)
    assert house.rules.set_score(lst, shirts) == base + 6
    lst, shirts = cheap_full_set(BASE)
    assert BASE.rules.set_score(lst, shirts) == 14
    assert house.rules.set_score(lst, shirts) == 14 + 3
    # a set over budget scores 0 in both
    dear = (lst, tuple(s for s in range(BASE.rules.n_shirts) if BASE.rules.price[s] == 40)[:3])
    assert BASE.rules.set_score(*dear) == house.rules.set_score(*dear) == 0
    harsh = load(tmp_path, "score:\n  per_set:\n    harsh: -100\n")
    assert harsh.rules.set_score(lst, shirts) == 0
    assert harsh.rules.min_set_score == 0


def test_wt_score_7_round_terms_follow_the_callers_risk(tmp_path: Path) -> None:
    """WT-SCORE-7: a round term comes after the caller's risk and lost property; a
    round never scores below 0; the names describe the seat's round."""
    house = load(
        tmp_path,
        "score:\n  per_round:\n    bonus: '3 * caller'\n    fails: '-failed_sets'\n"
        "    late: 'round == 4 && players > 2 ? 1 : 0'\n",
    )
    rules = house.rules
    common = {"callers": 1, "capped": False, "players": 3}
    assert rules.round_score([9, 8, 7], 2, caller=True, round_=1, **common) == 24 + 2 + 3
    # the caller's risk takes the sets, not the terms: 0 + lost 2 + 3 - 1
    assert rules.round_score([9, 0, 7], 2, caller=True, round_=1, **common) == 4
    assert rules.round_score([9, 0, 7], 2, caller=False, round_=4, **common) == 16 + 2 - 1 + 1
    assert rules.round_score([0, 0, 0], 0, caller=False, round_=1, **common) == 0  # not -3
    assert rules.max_round_score == 73 + 3 + 1


def test_wt_score_8_settings_that_cannot_matter_are_warnings(tmp_path: Path) -> None:
    """WT-SCORE-8: each setting with no effect is named with its reason; the variant plays."""
    cases = {
        "luxury_price: 90\n": (("luxury_price",), "no shirt costs 90"),
        "score:\n  per_set:\n    nothing: 0\n": (
            ("score", "per_set", "nothing"),
            "written as 0",
        ),
        "score:\n  per_set:\n    never: 'over_budget * 0'\n": (
            ("score", "per_set", "never"),
            "always 0",
        ),
        "score:\n  per_round:\n    none: 'min(lost_property, 0)'\n": (
            ("score", "per_round", "none"),
            "always 0",
        ),
        "attributes: {pattern: [stripes, dots], colour: [red, blue, green], size: [s, xl], "
        "sleeves: [long, short]}\n": (
            ("attributes", "colour"),
            "no shopping list wants colour green",
        ),
        "shirts: {prices: [10, 20, 30, 40, 80], copies: 1}\nbonuses: {luxury: 5}\n"
        "match_threshold: 9\n": (("bonuses", "luxury"), "no set of 3 luxury shirts"),
        "bonuses: {all_match: 5}\nbudget: 30\n": (("bonuses", "all_match"), "never paid"),
    }
    for text, (path, words) in cases.items():
        variant = load(tmp_path, text)
        warnings = variant.semantic_warnings()
        assert [w for w in warnings if w[0] == path and words in w[1]], (text, warnings)
        new_game(variant, 2, seed=1)  # it plays
    assert BASE.semantic_warnings() == []


def test_wt_score_8_an_attribute_no_list_names_is_a_warning(tmp_path: Path) -> None:
    """WT-SCORE-8: an attribute that no list names never scores."""
    lists = [dict(x) for x in BASE.lists]
    body = "attributes: {pattern: [stripes, dots], colour: [red, blue], size: [s, xl], "
    body += "sleeves: [long, short], collar: [round, v]}\nlists:\n"
    body += "".join(f"  - {lst}\n".replace("'", "") for lst in lists)
    variant = load(tmp_path, body)
    [(path, reason)] = variant.semantic_warnings()
    assert path == ("attributes", "collar")
    assert "no shopping list names collar" in reason


def test_wt_score_8_settings_that_cannot_be_right_are_errors(tmp_path: Path) -> None:
    """WT-SCORE-8: a term outside -100..100 for every value its names take in this
    variant is refused; a name a term may not read is refused with the valid ones."""
    with pytest.raises(
        VariantError, match=r"score.per_set.thrifty: the expression always gives -470..-260"
    ):
        load(tmp_path, "score:\n  per_set:\n    thrifty: 'spent - 500'\n")
    with pytest.raises(VariantError, match=r"unknown name 'caller'.*matches"):
        load(tmp_path, "score:\n  per_set:\n    x: '3 * caller'\n")
    with pytest.raises(VariantError, match=r"house.yaml:5:\d+: .*per_round"):
        load(tmp_path, "score:\n  per_round:\n    x: '3 * calller'\n")


def play(variant: WuhltischVariant, seed: int, players: int = 3) -> WuhltischGame:
    """Greedy and random seats, every invariant checked at every tick."""
    game = new_game(variant, players, seed=seed)
    rng = random.Random(seed)
    bots = {s: WuhltischGreedyBot(variant, seed + s) for s in range(players - 1)}
    while not game.is_over:
        joint = {}
        for s in game.acting:
            legal = game.legal_actions(s)
            bot = bots.get(s)
            joint[s] = bot.choose(game.observation(s), legal) if bot else rng.choice(legal)
        game.apply_joint(joint)
        for inv in INVARIANTS:
            assert inv.check(game) is None, inv.name
        assert state_problems(game) == []
    return game


TERMS = (
    "score:\n  per_set:\n    lux: '2 * luxury'\n    sloppy: '-2 * mismatches'\n"
    "  per_round:\n    caller: '3 * caller'\n    fails: '-2 * failed_sets'\n"
    "match_threshold: 'max_matches - 3'\n"
)


def test_tools_play_a_variant_with_terms(tmp_path: Path) -> None:
    """Invariants at every tick, JSON and pickle round trips, positions, simulate and the
    observation bounds all take the terms."""
    variant = load(tmp_path, TERMS)
    game = play(variant, seed=3)
    again = cardshop.Game.from_json(game.to_json())
    assert again.scores() == game.scores()
    copy = pickle.loads(pickle.dumps(game))
    assert copy.scores() == game.scores()
    assert copy.rules.set_terms
    running = new_game(variant, 3, seed=5)
    for _ in range(40):
        running.apply_joint({s: running.legal_actions(s)[0] for s in running.acting})
    back = WuhltischGame.from_position(running.to_position(), variant)
    assert back.to_position() == running.to_position()
    result = cardshop.simulate(variant, players=3, games=3, bots="greedy", workers=1)
    assert len(result.outcomes) == 3
    from cardshop.wuhltisch.spaces import observation_encoder

    encoder = observation_encoder(variant, 3)
    assert max(encoder.high) >= variant.rules.rounds * variant.rules.max_round_score
