"""The Klunker house-rules cookbook (docs/cookbook/klunker.md): every recipe loads
without warnings, plays seeded games with greedy bots, and shows an effect that only
its rule produces, most often against the same seeds on klunker-en."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import cardshop
from cardshop import Action
from cardshop.bots import RandomBot
from cardshop.klunker import Game, Termination, Variant, new_game
from cardshop.klunker import events as ev
from cardshop.klunker.kernel import unavailable
from cookbook_support import check_recipe, of, recipe_loader, recipe_paths
from cookbook_support import play as play_game

PATHS = recipe_paths("klunker")
recipe = recipe_loader("klunker", Variant)
BASE = cardshop.load_variant("klunker-en")
SEEDS = range(12)


def play(
    variant: object, seed: int, players: int = 4, bot: str = "greedy"
) -> tuple[Game, list[Any]]:
    """A whole game of greedy (or random) bots, with every invariant checked as it
    goes; the game and its events."""
    assert isinstance(variant, Variant)
    return play_game(variant, seed, players, bot)


def turns(variant: Variant, seed: int, players: int = 4) -> Iterator[tuple[Game, Action]]:
    """A game of random bots: the game and the action its seat chose, before each
    action; the caller applies it."""
    game = new_game(variant, players, seed=seed)
    bots = [RandomBot(seed * 10 + s) for s in range(players)]
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        yield game, bots[seat].choose(game.observation(seat), list(game.legal_actions()))


def purchase_steps(events: list[object]) -> list[list[ev.Bought]]:
    """The purchases of each round."""
    rounds: list[list[ev.Bought]] = [[]]
    for e in events:
        if isinstance(e, ev.Bought):
            rounds[-1].append(e)
        elif isinstance(e, ev.RoundEnded):
            rounds.append([])
    return rounds


def test_window_cap_keeps_every_window_at_three_cards() -> None:
    """FILL-3: no window ever holds more than 3 cards, while the same seeds on the
    edition fill windows past 3; a full window offers only done."""
    variant = recipe("window-cap")
    most = base_most = 0
    full = 0
    for seed in SEEDS:
        for game, action in turns(variant, seed):
            window = sum(game.zone_counts(f"window:{game.current_player}").values())
            most = max(most, window)
            if game.phase.value == "fill" and window >= 3:
                assert [str(a) for a in game.legal_actions()] == ["done"]
                assert not game.is_legal(f"window {next(iter(variant.cards))}")
                full += 1
            game.apply(action)
        _, events = play(BASE, seed, bot="random")
        base_most = max(base_most, *(len(b.cards) for b in of(events, ev.Bought)))
    assert most <= 3 < base_most
    assert full > 0


def test_two_purchases_let_a_seat_buy_twice_in_a_round() -> None:
    """BUY-7: some seat buys two windows in one round; never in the edition."""
    variant = recipe("two-purchases")
    twice = 0
    for seed in SEEDS:
        _, events = play(variant, seed)
        twice += sum(
            max(Counter(b.seat for b in step).values(), default=0) >= 2
            for step in purchase_steps(events)
        )
        _, base = play(BASE, seed)
        for step in purchase_steps(base):
            assert max(Counter(b.seat for b in step).values(), default=0) <= 1
    assert twice > 0


def test_price_per_two_cards_charges_by_the_window() -> None:
    """BUY-3: every purchase of another's window costs max(1, cards / 2), as far as the
    buyer's cash goes; some cost 2 or more, which the edition's price never does."""
    variant = recipe("price-per-two-cards")
    dear = 0
    for seed in SEEDS:
        _, events = play(variant, seed, bot="random")
        for b in of(events, ev.Bought):
            assert isinstance(b, ev.Bought)
            if b.owner != b.seat:
                assert b.price <= max(1, len(b.cards) // 2)
                dear += b.price >= 2
        base = of(play(BASE, seed, bot="random")[1], ev.Bought)
        assert all(b.price <= 1 for b in base)
    assert dear > 0


def test_first_player_starts_with_one_cash_less() -> None:
    """SETUP-3: the first start player's bank starts empty, every other seat's with
    one card; the deck holds one card more than the edition's on the same seed."""
    variant = recipe("first-player-less-cash")
    for seed in SEEDS:
        for players in (3, 4, 5):
            game = new_game(variant, players, seed=seed)
            base = new_game(BASE, players, seed=seed)
            cash = [game.cash(s) for s in range(players)]
            first = game.first_player
            assert cash[first] == 0
            assert all(cash[s] == 1 for s in range(players) if s != first)
            assert len(game.zones()["deck"]) == len(base.zones()["deck"]) + 1


def test_three_rounds_end_as_finished_games() -> None:
    """TERM-2: games stop after round 3 with outcome finished, though the deck could
    still refill every hand; on the edition the same seeds go past round 3."""
    variant = recipe("three-rounds")
    stopped = 0
    for seed in SEEDS:
        game, _ = play(variant, seed)
        base, _ = play(BASE, seed)
        assert game.termination is Termination.FINISHED
        assert game.round <= 3
        if base.round > 3:
            assert game.round == 3
            stopped += 1
        assert Game.from_json(game.to_json()) == game
    assert stopped > 0


def test_three_rounds_do_not_fail_the_default_audit() -> None:
    """TERM-2: a game of a fixed number of rounds is no capped game."""
    from cardshop.audit import run_audit

    report = run_audit(recipe("three-rounds"), players=[4], games=20, seed=3)
    assert all(pc.capped == 0 for pc in report.player_counts)
    assert report.ok


def test_cash_plus_rows_sold_scores_each_row_sold() -> None:
    """SCORE-1: the final score is cash plus one per row the seat sold, in the result,
    the end event and the game's JSON."""
    variant = recipe("cash-plus-rows-sold")
    bonus = 0
    for seed in SEEDS:
        game, events = play(variant, seed)
        sold = Counter(e.seat for e in of(events, ev.Sold))
        want = tuple(game.cash(s) + sold[s] for s in range(4))
        assert game.result().scores == want
        assert of(events, ev.GameEnded)[-1].scores == want
        assert Game.from_json(game.to_json()).result().scores == want
        bonus += sum(sold.values())
    assert bonus > 0


def test_hand_penalty_costs_each_card_left_in_hand() -> None:
    """SCORE-1: the same seeds play the same game as the edition (the score does not
    change play here), and each seat scores its cash less the cards in its hand."""
    variant = recipe("hand-penalty")
    docked = 0
    for seed in SEEDS:
        game, _ = play(variant, seed)
        base, _ = play(BASE, seed)
        assert [str(a) for a in game.history] == [str(a) for a in base.history]
        hands = [sum(game.zone_counts(f"hand:{s}").values()) for s in range(4)]
        assert game.result().scores == tuple(
            c - h for c, h in zip(base.result().scores, hands, strict=True)
        )
        docked += sum(hands)
    assert docked > 0


def test_most_rows_sold_tiebreak_decides_between_equal_cash() -> None:
    """SCORE-2: seats with equal cash are ranked by rows sold first; on some seed it
    ranks two seats otherwise than the edition's tiebreak does."""
    variant = recipe("most-rows-sold-tiebreak")
    differs = 0
    for seed in range(40):
        game, _ = play(variant, seed, players=5)
        base, _ = play(BASE, seed, players=5)
        assert game.result().scores == base.result().scores
        ranks = game.result().ranks
        for a in range(5):
            for b in range(5):
                if game.cash(a) == game.cash(b) and game.rows_sold(a) > game.rows_sold(b):
                    assert ranks[a] < ranks[b]
        differs += ranks != base.result().ranks
    assert differs > 0


def test_lone_row_pays_six_from_the_deck() -> None:
    """SELL-7: a lone row pays its 4 cards and 2 from the deck (while the deck holds
    them); the edition's lone row pays 4."""
    variant = recipe("lone-row-pays-six")
    six = 0
    for seed in SEEDS:
        _, events = play(variant, seed)
        for s in of(events, ev.Sold):
            assert isinstance(s, ev.Sold)
            if s.rows == 1 and s.kind != "necklace":
                assert len(s.cash) == s.payout <= 6
                six += s.payout == 6
        for s in of(play(BASE, seed)[1], ev.Sold):
            assert isinstance(s, ev.Sold)
            assert s.payout <= 4
    assert six > 0


def test_more_rows_pay_more() -> None:
    """SELL-3: with sale.pay "min(4, rows)" every row pays the rows in the safe (up to
    4; Necklaces keep their override), so a row sold with two or three rows pays 2 or 3,
    which the edition's table pays only the other way round (3 with two, 2 with three)."""
    variant = recipe("more-rows-pay-more")
    crowded = 0
    for seed in SEEDS:
        _, events = play(variant, seed, bot="random")
        for s in of(events, ev.Sold):
            assert isinstance(s, ev.Sold)
            assert s.payout == (4 if s.kind == "necklace" else min(4, s.rows))
            crowded += s.kind != "necklace" and s.rows in (2, 3)
        for s in of(play(BASE, seed, bot="random")[1], ev.Sold):
            assert isinstance(s, ev.Sold)
            if s.kind != "necklace" and s.rows in (2, 3):
                assert s.payout == 5 - s.rows
    assert crowded > 0


def test_second_purchase_costs_double() -> None:
    """BUY-7, BUY-3: a window bought in the second turn of a purchase step costs 2
    (as far as the buyer's cash goes), in the first turn 1."""
    variant = recipe("second-purchase-costs-double")
    second = 0
    for seed in SEEDS:
        for game, action in turns(variant, seed):
            lap, cash = game.purchase_lap, game.cash(game.current_player or 0)
            for e in game.apply(action):
                if isinstance(e, ev.Bought) and e.owner != e.seat:
                    assert e.price == min(lap, cash)
                    second += lap == 2 and e.price == 2
    assert second > 0


def test_rich_owner_discount_makes_some_purchases_free() -> None:
    """BUY-3: buying another's window from a richer owner costs nothing; the edition
    always charges 1 to a buyer with cash."""
    variant = recipe("rich-owner-discount")
    free = 0
    for seed in SEEDS:
        for game, action in turns(variant, seed):
            banks = [game.cash(s) for s in range(4)]
            for e in game.apply(action):
                if isinstance(e, ev.Bought) and e.owner != e.seat:
                    richer = banks[e.owner] > banks[e.seat]
                    assert e.price == (0 if richer else min(1, banks[e.seat]))
                    free += richer
    assert free > 0


def test_the_kernel_refuses_house_rules_and_auto_falls_back() -> None:
    """The kernel names the house rule it cannot play; simulate(engine="auto") plays
    such a variant on the reference engine."""
    for path in PATHS:
        why = unavailable(cardshop.load_variant(path), 4, ["random"], 1)
        assert why is not None
        assert "the reference engine will" in why
    base = unavailable(BASE, 4, ["random"], 1)  # None, or numba is missing
    assert base is None or "house rule" not in base
    result = cardshop.simulate(
        recipe("three-rounds"),
        players=4,
        games=600,
        seed=2,
        engine="auto",
    )
    assert result.engine == "reference"


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_every_recipe_is_tested_and_on_the_page(path: Path) -> None:
    check_recipe(path)
