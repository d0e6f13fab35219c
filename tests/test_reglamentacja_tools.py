"""Reglamentacja through the tools: the demo in a real process, generated variants
through the strategies and the invariant checks, and the core's ISMCTS with the
family's sampler and search hooks."""

from __future__ import annotations

import math
import random
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cardshop.bots import ISMCTSBot, make_bot
from cardshop.core.actions import Action
from cardshop.core.frontdoor import (
    new_game,
    replay,
)
from cardshop.core.loader import load_variant
from cardshop.core.registry import get_family
from cardshop.invariants import CheckedGame
from cardshop.reglamentacja import FAMILY, ReglamentacjaGame, ReglamentacjaVariant
from cardshop.reglamentacja.bots import hand_value
from cardshop.reglamentacja.rules import Rules
from cardshop.reglamentacja.sampling import determinizer
from cardshop.reglamentacja.search import (
    SEARCH,
    candidate_policy,
    evaluate,
    progress,
    rollout_policy,
)
from cardshop.reglamentacja.strategies import variants
from cardshop.testing.strategies import action_sequences, draw_step, family_variants, games

ROOT = Path(__file__).resolve().parents[1]
FEW = settings(max_examples=max(4, settings.default.max_examples // 8))
"""A few examples under the ci profile (5), many more under the deep one."""

# ------------------------------------------------------------------ demo

TURN = re.compile(r"^  (\S+)\s+seat (\d): (.+)$")
SCORE = re.compile(r"^  seat (\d): score (-?\d+) \(rank (\d)\)")


def test_demo_prints_a_whole_game_with_its_trades_and_scores_in_a_real_process() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cardshop", "demo", "reglamentacja", "--players", "4",
         "--seed", "1"],
        capture_output=True, text=True, timeout=900, check=False, cwd=ROOT,
    )  # fmt: skip  # a hang guard: a demo game takes a second or two
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    out = done.stdout
    lines = out.splitlines()
    assert lines[0].startswith("Reglamentacja: Gra na Kartki: 4 players, seed 1")
    steps = [m.group(3) for m in map(TURN.match, lines) if m]
    verbs = {s.split()[0] for s in steps}
    assert {"offer", "accept", "reject", "buy"} <= verbs
    # Each offer and answer is followed by its readable event.
    for i, line in enumerate(lines):
        m = TURN.match(line)
        if m and m.group(3).startswith("offer "):
            target = m.group(3).split()[1]
            assert f"seat {m.group(2)} offers seat {target}: " in lines[i + 1]
        if m and m.group(3) in ("accept", "reject"):
            assert f"seat {m.group(2)} {m.group(3)}s seat " in lines[i + 1]
    # What was printed is what happened: replaying the steps gives the printed result.
    game = replay("reglamentacja", 4, 1, actions=steps)
    assert game.is_over
    result = game.result()
    printed = {int(m.group(1)): int(m.group(2)) for m in map(SCORE.match, lines) if m}
    assert printed == dict(enumerate(result.scores))
    assert f"Final scores: {list(result.scores)}" in out
    assert f"trades {result.details['trades']}" in out
    # A game is counted in shopping turns, and says so.
    assert f"Game finished after {result.rounds} turns." in out


def test_simulate_counts_the_games_in_turns_once() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cardshop", "simulate", "reglamentacja", "--players", "3",
         "--games", "2", "--seed", "1", "--workers", "1"],
        capture_output=True, text=True, timeout=900, check=False, cwd=ROOT,
    )  # fmt: skip  # a hang guard: a demo game takes a second or two
    assert done.returncode == 0, done.stderr
    (line,) = [x for x in done.stdout.splitlines() if "endings:" in x]
    assert line.startswith("mean turns ")
    assert "rounds" not in line


# ------------------------------------------------------------ strategies


def test_the_family_names_its_variant_strategy_and_the_package_does_not_import_it() -> None:
    assert FAMILY.variant_strategy == "cardshop.reglamentacja.strategies:variants"
    code = (
        "import sys, cardshop, cardshop.reglamentacja; "
        "from cardshop.core.registry import get_family; get_family('reglamentacja'); "
        "print(sorted(m for m in sys.modules if m.startswith(('hypothesis', "
        "'cardshop.reglamentacja.strategies'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=900, check=True
    )  # a hang guard: an import takes about a second
    assert done.stdout.strip() == "[]"


@FEW
@given(family_variants("reglamentacja", max_kinds=7, max_trade=3, match=None))
def test_generated_variants_load_through_the_model_and_the_loader(
    v: ReglamentacjaVariant,
) -> None:
    assert isinstance(v, ReglamentacjaVariant)
    assert v.semantic_errors() == []
    again = get_family("reglamentacja").variant_model.model_validate(v.to_data())
    assert again.content_hash == v.content_hash
    # Through the loader, from a YAML file, as an author would write it.
    import tempfile

    import yaml

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "generated.yaml"
        path.write_text(yaml.safe_dump(v.to_data(), sort_keys=False), encoding="utf-8")
        loaded = load_variant(path)
    assert loaded.content_hash == v.content_hash
    players = v.players.min
    game = new_game(v, players, seed=1)
    assert not game.is_over or v.match is None


def test_the_strategy_checks_its_options() -> None:
    import pytest

    for bad in ({"min_players": 1}, {"max_players": 7}, {"max_trade": 5}, {"max_kinds": 13},
                {"min_turn_cap": 5, "max_turn_cap": 4}):  # fmt: skip
        with pytest.raises(ValueError, match="need"):
            variants(**bad)  # type: ignore[arg-type]


@FEW
@given(st.data())
def test_generated_variants_keep_every_invariant_at_every_step(data: st.DataObject) -> None:
    v = data.draw(variants(max_turn_cap=6), label="variant")
    players = data.draw(st.integers(v.players.min, v.players.max), label="players")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    game = CheckedGame(new_game(v, players, seed))  # conservation and the family's own
    checked = {inv.name for inv in game.invariants if inv.name in game.checks}
    assert {inv.name for inv in FAMILY.invariants} <= checked
    steps = 0
    while not game.is_over and steps < 400:
        actions = draw_step(data.draw, game.game)
        ((seat, action),) = actions.items()
        game.apply(action, seat)
        steps += 1
    assert game.is_over  # a turn cap of 6 ends every game within 400 steps


@FEW
@given(action_sequences(variants(max_turn_cap=4, max_players=4), to_end=True))
def test_generated_playthroughs_replay_to_the_same_end(playthrough: object) -> None:
    from cardshop.testing import Playthrough

    assert isinstance(playthrough, Playthrough)
    game = playthrough.replay()
    assert game.is_over
    assert isinstance(game, ReglamentacjaGame)
    assert ReglamentacjaGame.from_json(game.to_json()) == game


@FEW
@given(games(variants(max_turn_cap=8), max_actions=40))
def test_generated_games_sample_and_encode_for_every_seat(game: ReglamentacjaGame) -> None:
    family = get_family("reglamentacja")
    assert family.sampler is not None
    if game.is_over:
        return
    encoder = family.observation_encoder(game.variant, game.players)
    space = set(family.action_space(game.variant, game.players))
    assert set(game.legal_actions()) <= space
    for seat in range(game.players):
        obs = game.observation(seat)
        numbers = encoder.encode(obs)
        assert all(
            lo <= x <= hi for lo, x, hi in zip(encoder.low, numbers, encoder.high, strict=True)
        )
        sampled = family.sampler(obs, game.variant, random.Random(seat))
        assert sampled.observation(seat) == obs


# ---------------------------------------------------------------- search


def _small(**over: object) -> ReglamentacjaVariant:
    base = load_variant("reglamentacja").to_data()
    return ReglamentacjaVariant.model_validate({**base, **over})


def test_the_rollout_policy_plays_legal_actions_to_the_end_of_any_game() -> None:
    policy = rollout_policy(load_variant("reglamentacja"), 0)
    for seed in range(4):
        game = new_game("reglamentacja", 3 + seed % 3, seed)
        rng = random.Random(seed)
        seen: set[str] = set()
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            action = policy(game, seat, rng)
            assert game.is_legal(action, seat), (game.phase, action)
            seen.add(action.verb)
            before = progress(game)
            game.apply(action, seat)
            assert progress(game) >= before
            if not game.is_over:
                values = evaluate(game)
                assert len(values) == game.players
                assert all(0.0 <= x <= 1.0 and not math.isnan(x) for x in values)
        assert game.termination is not None
        assert {"stop", "buy"} <= seen  # it ends trading and shops


def test_the_rollout_accepts_only_offers_that_raise_its_value() -> None:
    v = load_variant("reglamentacja")
    assert isinstance(v, ReglamentacjaVariant)
    rules = v.rules
    policy = rollout_policy(v, 0)
    rng = random.Random(0)
    answers = []
    for seed in range(10):
        game = new_game(v, 3, seed)
        seat = game.current_player
        assert seat is not None
        offers = [a for a in game.legal_actions(seat) if a.verb == "offer"]
        for action in offers[::61]:
            trial = game.clone()
            trial.apply(action, seat)
            target = trial.current_player
            assert target is not None
            assert target != seat
            o = trial.observation(target)
            assert o.pending is not None
            _, give, take, _ = o.pending
            answer = policy(trial, target, rng)
            assert trial.is_legal(answer, target)
            if Action("accept") not in trial.legal_actions(target):
                assert answer == Action("reject")
                continue
            after = [h + g - t for h, g, t in zip(o.hand, give, take, strict=True)]
            visit = o.visits[target]
            gain = hand_value(rules, after, o.row, visit) - hand_value(rules, o.hand, o.row, visit)
            assert answer == (Action("accept") if gain > 0 else Action("reject"))
            answers.append(answer.verb)
    assert {"accept", "reject"} <= set(answers)


def test_ismcts_uses_the_hooks_and_makes_legal_choices_on_offer_turns() -> None:
    bot = make_bot("ismcts:8", "reglamentacja", seed=3)
    assert isinstance(bot, ISMCTSBot)
    assert FAMILY.search is SEARCH
    game = new_game("reglamentacja", 3, 2)
    seat = game.current_player
    assert seat is not None
    legal = game.legal_actions(seat)
    assert len(legal) > 1000  # an offer turn
    action = bot.choose(game.observation(seat), legal)
    assert action in legal


def test_ismcts_plays_whole_small_games_with_legal_choices() -> None:
    v = _small(max_trade=1, turn_cap=6, spin={"min": 1, "max": 3})
    verbs: set[str] = set()
    for seed in range(2):
        bot = ISMCTSBot(v, iterations=10, seed=seed)
        other = make_bot("random", v, seed=seed)
        game = new_game(v, 3, seed)
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            legal = game.legal_actions(seat)
            chooser = bot if seat == 0 else other
            action = chooser.choose(game.observation(seat), legal)
            assert action in legal
            if seat == 0 and len(legal) > 1:
                verbs.add(action.verb)
            game.apply(action, seat)
        assert game.termination is not None
    assert "offer" in verbs or "pass" in verbs or "stop" in verbs  # it chose on offer turns


def test_an_offer_for_more_stamps_than_the_game_holds_encodes_within_bounds() -> None:
    """One sugar stamp in the game, and an offer may still ask for two (max_trade):
    the encoder's upper bound of "offer takes" is max_trade, not the stamps there are
    (found by test_generated_games_sample_and_encode_for_every_seat)."""
    visits = [{"name": f"v{i}", "double": [("meal", "party")[i % 2]]} for i in range(8)]
    cards = [
        {"name": "roast", "cost": ["meat"], "category": "meal", "icons": 2},
        {"name": "cake", "cost": ["sugar"], "category": "party", "icons": 1},
    ]
    v = _small(
        name="scarce", players={"min": 4, "max": 4}, stamps={"meat": 2, "flour": 2, "sugar": 1},
        categories=["meal", "party"], cards=cards, visits=visits, row_size=1, deal=1,
        allocation=0, shop_draw=0, spin={"min": 5, "max": 5}, max_trade=2,
        speculator={"die_sides": 1, "price": 2}, three_players_without_meal_visits=False,
        chance=1,  # the deal of seed 1 the fault was found with
    )  # fmt: skip
    game = new_game(v, 4, 1)
    seat = game.current_player
    assert seat is not None
    asks_two = [a for a in game.legal_actions(seat) if str(a) == "offer 0 take sugar sugar"]
    assert asks_two, "no offer asks for two sugar stamps"
    game.apply(asks_two[0], seat)
    encoder = get_family("reglamentacja").observation_encoder(v, 4)
    for s in range(4):
        numbers = encoder.encode(game.observation(s))
        outside = [
            (label, x)
            for label, lo, x, hi in zip(
                encoder.labels, encoder.low, numbers, encoder.high, strict=True
            )
            if not lo <= x <= hi
        ]
        assert outside == [], f"seat {s}"


def test_ismcts_plays_a_match_of_the_family() -> None:
    """A match (series) variant: the search samples and plays inside the current game."""
    v = _small(name="short-match", turn_cap=4, match={"games_per_player": 1})
    bot = ISMCTSBot(v, iterations=5, seed=1)
    other = make_bot("greedy", v, seed=1)
    game = new_game(v, 3, 1)
    games_seen: set[int] = set()
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        observation = game.observation(seat)
        games_seen.add(observation.game_index)
        legal = game.legal_actions(seat)
        action = (bot if seat == 0 else other).choose(observation, legal)
        assert action in legal
        game.apply(action, seat)
    assert games_seen == {0, 1, 2}
    assert len(game.result().scores) == 3


def _offer_turns(players: int, seed: int, every: int = 5) -> list[ReglamentacjaGame]:
    """Offer turns (no offer pending) of a game played at random, one in ``every``."""
    game = new_game("reglamentacja", players, seed)
    assert isinstance(game, ReglamentacjaGame)
    rng = random.Random(seed)
    found: list[ReglamentacjaGame] = []
    step = 0
    while not game.is_over and len(found) < 12:
        seat = game.current_player
        assert seat is not None
        obs = game.observation(seat)
        if game.phase in ("trade", "final-trade") and obs.pending is None:
            step += 1
            if step % every == 0:
                found.append(game.clone())
        game.apply(rng.choice(game.legal_actions(seat)), seat)
    return found


def test_search_candidates_are_few_distinct_legal_and_the_same_for_every_sample() -> None:
    v = load_variant("reglamentacja")
    policy = candidate_policy(v, 5)
    verbs: set[str] = set()
    for players in (3, 4, 5):
        for game in _offer_turns(players, players):
            seat = game.current_player
            assert seat is not None
            legal = set(game.legal_actions(seat))
            found = policy(game, seat)
            assert found is not None
            assert len(set(found)) == len(found) <= 40 < len(legal)
            assert set(found) <= legal
            assert Action("pass") in found
            assert (Action("stop") in found) == (Action("stop") in legal)
            verbs.update(a.verb for a in found)
            # Other samples of the seat's information set: the same candidates.
            deal = determinizer(game.observation(seat), v, random.Random(1))
            for i in range(3):
                assert policy(deal(random.Random(i)), seat) == found
    assert {"offer", "pass", "stop", "speculate"} <= verbs
    # Answers, discards and shopping: every legal action is a candidate (None).
    game = new_game(v, 3, 1)
    rng = random.Random(1)
    seen: set[str] = set()
    while not game.is_over and len(seen) < 3:
        seat = game.current_player
        assert seat is not None
        obs = game.observation(seat)
        if obs.pending is not None or game.phase in ("discard", "shop"):
            assert policy(game, seat) is None
            seen.add("answer" if obs.pending is not None else game.phase)
        game.apply(rng.choice(game.legal_actions(seat)), seat)
    assert seen == {"answer", "discard", "shop"}


def test_the_determinizer_deals_checked_games_that_look_the_same_and_differ() -> None:
    v = load_variant("reglamentacja")
    for players in (3, 4, 5):
        games = _offer_turns(players, 10 + players, every=3)
        assert games
        for game in games[:4]:
            for seat in range(players):
                obs = game.observation(seat)
                deal = determinizer(obs, v, random.Random(seat))
                hidden = set()
                for i in range(4):
                    sample = deal(random.Random(i))
                    assert sample.problems() == []
                    assert sample.observation(seat) == obs
                    others = [sample.hand(s) for s in range(players) if s != seat]
                    visits = [sample.visit(s) for s in range(players) if s != seat]
                    hidden.add(repr((others, visits, sample.stamp_zones()["stack"])))
                assert len(hidden) > 1  # the hidden parts are dealt again


def test_ismcts_expands_offer_turns_among_the_candidates_only() -> None:
    v = load_variant("reglamentacja")
    game = _offer_turns(4, 3)[0]
    seat = game.current_player
    assert seat is not None
    obs = game.observation(seat)
    bot = ISMCTSBot(v, iterations=40, seed=2)
    root = bot.search(obs)
    found = candidate_policy(v, 2)(game, seat)
    assert found is not None
    assert set(root.edges[seat]) <= set(found)
    assert sum(e.visits for e in root.edges[seat].values()) == 40
    assert max(e.visits for e in root.edges[seat].values()) > 1  # searched, not just tried


def test_the_evaluation_values_a_bought_card_above_holding_its_stamps() -> None:
    # Seat 2 heads the queue holding exactly the cheesecake's stamps (flour flour sugar).
    game = ReglamentacjaGame.from_position(
        {
            "variant": "reglamentacja",
            "phase": "shop",
            "active": 1,
            "queue": [2, 0, "S", 1],
            "seats": [
                {"hand": {"meat": 1}},
                {"hand": {"soap": 1}},
                {"hand": {"flour": 2, "sugar": 1}},
            ],
            "row": ["cheesecake", "buffet", "brownie", "meat-balls", "great-laundry", "tea-sugar"],
        }
    )
    bought, passed = game.clone(), game.clone()
    bought.apply("buy 1", 2)
    passed.apply("pass", 2)
    assert bought.score(2) > 0 == passed.score(2)
    assert evaluate(bought)[2] > evaluate(passed)[2]


def test_the_greedy_bot_chooses_from_the_view_as_from_the_whole_list() -> None:
    """The greedy bot asks an offer turn's view about offers without listing them; its
    choices are those it makes from the list of every legal action, the same seed."""
    variant = load_variant("reglamentacja")
    for seed in range(3):
        game = ReglamentacjaGame.new(variant, 4, seed)
        viewing = [make_bot("greedy", variant, seed * 4 + p) for p in range(4)]
        listing = [make_bot("greedy", variant, seed * 4 + p) for p in range(4)]
        offers = 0
        while not game.is_over:
            seat = game.current_player
            legal = game.legal_actions()
            whole = list(legal)
            offers += any(a.verb == "offer" for a in whole)
            observation = game.observation(seat)
            chosen = viewing[seat].choose(observation, legal)
            assert listing[seat].choose(observation, whole) == chosen
            game.apply(chosen)
        assert offers > 10  # offer turns were met


def _hand_value_by_the_formula(rules: Rules, hand: list[int], row: list[int], visit: int) -> float:
    """The greedy bot's valuation as its docstring states it, term by term in the same
    order (the oracle of its faster form)."""
    mult = rules.visit_mult[visit] if visit >= 0 else (1,) * len(rules.categories)
    value = 0.0
    for card in row:
        cost = rules.card_cost[card]
        need = sum(cost)
        have = sum(min(h, c) for h, c in zip(hand, cost, strict=True) if c)
        points = rules.card_icons[card] * mult[rules.card_cat[card]]
        share = have / need
        value += points * share * share
        if have == need:
            value += points
    return value + 0.01 * sum(hand)


def test_hand_value_is_the_formula_to_the_last_bit() -> None:
    """The same float, bit for bit: the bot's choices, and so its games, stay the same."""
    rules = load_variant("reglamentacja").rules
    rng = random.Random(4)
    cards = range(len(rules.card_cost))
    for _ in range(3000):
        hand = [rng.randrange(6) for _ in range(rules.k)]
        row = rng.sample(cards, rng.randrange(1, 7))
        visit = rng.randrange(-1, len(rules.visit_mult))
        want = _hand_value_by_the_formula(rules, hand, row, visit)
        assert hand_value(rules, hand, row, visit) == want
