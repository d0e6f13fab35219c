"""Legal actions as views: the core's LegalActions, Reglamentacja's offer parts and the
baseline bots that choose the kind of action first.

The conformance battery (tests/test_conformance.py) checks every family's view against
its own enumeration on sampled states; these tests pin the rest: the view's list-like
behaviour, the offer turn's parts and order against a plain enumeration of the rules,
and what the baseline bots choose.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import compress

import pytest

import cardshop
from cardshop import ActionParseError, IllegalActionError
from cardshop.bots import BaselineBot, RandomBot, make_bot
from cardshop.core import Action, LegalActions
from cardshop.reglamentacja import ReglamentacjaBaselineBot, ReglamentacjaGame
from cardshop.reglamentacja.game import OFFER_PARTS, PASS
from cardshop.reglamentacja.offers import OfferTurn

BUY1, BUY2, PASS_ = Action("buy", 1), Action("buy", 2), Action("pass")


def test_a_view_reads_like_the_list_it_wraps() -> None:
    items = [BUY1, BUY2, PASS_]
    view = LegalActions(items)
    assert len(view) == 3
    assert list(view) == items
    assert view[0] == BUY1
    assert view[-1] == PASS_
    assert view[1:] == [BUY2, PASS_]
    assert BUY2 in view
    assert Action("buy", 3) not in view
    assert view.index(PASS_) == 2
    assert view.count(BUY1) == 1
    assert view == items
    assert items == view
    assert view == LegalActions(tuple(items))
    assert view != items[:2]
    assert view != "buy 1"
    with pytest.raises(IndexError):
        view[3]
    with pytest.raises(ValueError, match="is not in list"):
        view.index(Action("stop"))
    with pytest.raises(TypeError):
        hash(view)
    assert "LegalActions([" in repr(view)


def test_a_view_is_read_only() -> None:
    view = LegalActions([BUY1])
    assert not hasattr(view, "append")
    with pytest.raises(TypeError):
        view[0] = BUY2  # type: ignore[index]


def test_sample_is_the_pick_of_one_draw_over_the_length() -> None:
    view = LegalActions([Action("take", i) for i in range(37)])
    for seed in range(20):
        rng, twin = random.Random(seed), random.Random(seed)
        assert view.sample(rng) == twin.choice(list(view))
        assert rng.random() == twin.random()  # one draw each, so they stay in step
    with pytest.raises(IndexError):
        LegalActions([]).sample(random.Random(0))


def _offer_turn(players: int = 4, seed: int = 3) -> ReglamentacjaGame:
    game = cardshop.new_game("reglamentacja", players, seed=seed)
    assert isinstance(game, ReglamentacjaGame)
    return game


def _plain_offers(game: ReglamentacjaGame) -> list[Action]:
    """The offer turn's legal offers as the rules state them, from the variant's lists."""
    rules = game.rules
    seat = game.current_player
    assert seat is not None
    hand = game._hand[seat * rules.k : seat * rules.k + rules.k]
    held = [all(h >= c for h, c in zip(hand, ms, strict=True)) for ms in rules.multisets]
    out: list[Action] = []
    for target in game._targets(seat):
        actions, gives = rules.offers_to(target)
        out.extend(compress(actions, map(held.__getitem__, gives)))
    return out


def test_an_offer_turn_lists_the_offers_of_the_rules_in_their_order() -> None:
    game = _offer_turn()
    view = game.legal_actions()
    assert isinstance(view.structure, OfferTurn)
    offers = _plain_offers(game)
    assert len(offers) > 5000
    assert list(view)[: len(offers)] == offers
    assert view[len(offers)] == PASS
    for i in random.Random(1).sample(range(len(offers)), 500):
        assert view[i] == offers[i]
        assert view.index(offers[i]) == i
    assert [str(a) for a in view] == sorted(str(a) for a in view)


def test_offer_parts_lead_step_by_step_to_legal_offers() -> None:
    game = _offer_turn()
    seat = game.current_player
    assert OFFER_PARTS == ("target", "give", "take", "place")
    targets = game.offer_parts()
    assert targets == tuple(sorted((s for s in range(4) if s != seat), key=str))
    rules = game.rules
    hand = game._hand[seat * rules.k : seat * rules.k + rules.k]  # type: ignore[operator]
    gives = game.offer_parts((targets[0],))
    assert 0 in gives
    for g in gives:
        assert all(h >= c for h, c in zip(hand, rules.multisets[g], strict=True))
    give = max(gives)
    takes = game.offer_parts((targets[0], give))
    assert takes
    for t in takes:
        assert not any(
            a and b for a, b in zip(rules.multisets[give], rules.multisets[t], strict=True)
        )
    assert game.offer_parts((targets[0], 0, 0)) == (1,)  # an empty offer must swap places
    assert game.offer_parts((targets[0], give, takes[-1])) == (0, 1)
    action = game.offer_action(targets[0], give, takes[-1], 1)
    assert action in game.legal_actions()
    assert game.offer_of(action) == (targets[0], give, takes[-1], 1)
    assert game.offer_of(str(action)) == (targets[0], give, takes[-1], 1)
    assert game.offer_of("pass") is None
    game.apply(action)
    assert game.moves[-1].action == action
    assert game.offer_parts() == ()  # an answer is due, not an offer


def test_parts_that_are_not_legal_lead_nowhere_and_bad_ones_compose_nothing() -> None:
    game = _offer_turn()
    seat = game.current_player
    assert seat is not None
    targets = game.offer_parts()
    assert game.offer_parts((seat,)) == ()  # not to oneself
    assert game.offer_parts((targets[0], 10_000)) == ()
    assert game.offer_parts((targets[0], 0, 10_000)) == ()
    assert game.offer_parts((targets[0], 0, 1, 0, 0)) == ()
    rules = game.rules
    missing = next(
        i for i, ms in enumerate(rules.multisets) if i not in game.offer_parts((targets[0],))
    )
    assert game.offer_parts((targets[0], missing)) == ()
    illegal = game.offer_action(targets[0], missing, 0, 0)  # well formed, not held
    assert illegal not in game.legal_actions()
    before = game.to_json()
    with pytest.raises(IllegalActionError):
        game.apply(illegal)
    assert game.to_json() == before
    for parts in [(seat + 9, 1, 0, 0), (targets[0], 0, 0, 0), (targets[0], 1, 1, 0)]:
        with pytest.raises(ActionParseError):
            game.offer_action(*parts)


def test_a_non_canonical_offer_is_not_listed_but_applies_as_its_canonical_form() -> None:
    game = _offer_turn()
    target = game.offer_parts()[0]
    give = game.offer_parts((target,))[1]
    take = game.offer_parts((target, give))[-1]
    canonical = game.offer_action(target, give, take, 1)
    assert canonical.arg is not None
    words = f"take {rules_text(game, take)} give {rules_text(game, give)} place"
    shuffled = Action("offer", f"{target} {words}")
    assert shuffled not in game.legal_actions()
    assert game.offer_of(shuffled) == game.offer_of(canonical)
    game.apply(shuffled)
    assert game.moves[-1].action == canonical


def rules_text(game: ReglamentacjaGame, ms: int) -> str:
    return game.rules.ms_text[ms]


def test_reglamentacja_baseline_chooses_the_kind_first() -> None:
    game = _offer_turn()
    bot = make_bot("baseline", "reglamentacja", seed=4)
    assert isinstance(bot, ReglamentacjaBaselineBot)
    seat = game.current_player
    assert seat is not None
    view = game.legal_actions()
    picks = Counter(bot.choose(game.observation(seat), view).verb for _ in range(400))
    verbs = {a.verb for a in view.structure.tail} | {"offer"}  # type: ignore[attr-defined]
    assert set(picks) == verbs
    share = picks["offer"] / 400
    assert 1 / len(verbs) - 0.1 < share < 1 / len(verbs) + 0.1
    rnd = RandomBot(4)
    random_offers = sum(rnd.choose(None, view).verb == "offer" for _ in range(400))
    assert random_offers > 390  # uniform over the listed actions: nearly always an offer
    for _ in range(50):
        assert bot.choose(game.observation(seat), view) in view


def test_generic_baseline_chooses_a_verb_then_an_action() -> None:
    view = LegalActions([BUY1, BUY2, Action("buy", 3), PASS_])
    bot = BaselineBot(9)
    picks = Counter(bot.choose(None, view) for _ in range(3000))
    assert 0.42 < picks[PASS_] / 3000 < 0.58  # the one pass is half, each buy a sixth
    assert set(picks) == set(view)
    assert isinstance(make_bot("baseline", "klunker-en"), BaselineBot)
    assert isinstance(make_bot("baseline", "wuhltisch"), BaselineBot)


def test_an_offer_as_listed_applies_as_one_read_from_its_text() -> None:
    """The offer a view listed last is applied without being read again: the game
    ends up as if its text had been applied, on the game and on a clone alike."""
    rng = random.Random(5)
    for seed in range(4):
        game, twin = _offer_turn(seed=seed), _offer_turn(seed=seed)
        for _ in range(120):
            if game.is_over:
                break
            view = game.legal_actions()
            action = view[rng.randrange(len(view))]
            twin.legal_actions()
            copy = game.clone()
            expected = twin.apply(str(action))
            assert copy.apply(action) == expected
            assert game.apply(action) == expected
            assert game == twin == copy
            assert game.moves == twin.moves


def test_the_fast_paths_still_check_the_seat_and_the_state() -> None:
    game = _offer_turn()
    seat = game.current_player
    assert seat is not None
    view = game.legal_actions()
    offer = view[0]
    assert offer.verb == "offer"
    other = (seat + 1) % game.players
    before = game.clone()
    with pytest.raises(cardshop.GameStateError):
        game.apply(offer, seat=other)  # listed for the acting seat, not for another
    assert game == before
    game.apply(offer)
    with pytest.raises(IllegalActionError):
        game.apply(offer)  # listed by an earlier state's view: an answer is due now
    answers = game.legal_actions()
    assert Action("reject") in answers
    if Action("accept") not in answers:  # the target cannot pay: accept is refused
        with pytest.raises(IllegalActionError):
            game.apply(Action("accept"))
    game.apply(answers[-1])
    assert game.moves[-1].action == Action("reject")
