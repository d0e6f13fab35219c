"""Each family's ``table_view`` shows a seat what it may know and nothing more.

For games of every built-in family at many points of play, a second game is dealt
at random that the seat cannot tell from the first (the family's ``sampler``, from
the seat's observation): the seat's view, and the spectators' public view, must be
the same in both. A view that showed a hidden card would differ between them.
"""

from __future__ import annotations

import json
import random

import pytest

import cardshop
from cardshop.core.registry import get_family

GAMES = [("klunker-en", 3), ("wuhltisch", 3), ("reglamentacja", 3)]


@pytest.mark.parametrize(("variant", "players"), GAMES)
def test_a_view_depends_only_on_what_its_seat_may_know(variant: str, players: int) -> None:
    family = get_family(cardshop.load_variant(variant).family)
    assert family.table_view is not None
    assert family.sampler is not None
    for seed in range(3):
        game = cardshop.new_game(variant, players, seed=seed)
        rng = random.Random(seed)
        checked = 0
        while not game.is_over and checked < 12:
            for _ in range(rng.randrange(1, 15)):
                if game.is_over:
                    break
                game.apply_joint({s: rng.choice(game.legal_actions(s)) for s in game.acting})
            for seat in range(players):
                other = family.sampler(game.observation(seat), game.variant, rng)
                view = family.table_view(game, seat)
                assert json.dumps(view) == json.dumps(family.table_view(other, seat))
                assert family.table_view(game, None) == family.table_view(other, None)
            checked += 1
        assert checked > 0


@pytest.mark.parametrize(("variant", "players"), GAMES)
def test_a_spectator_sees_no_seat_s_private_cards(variant: str, players: int) -> None:
    family = get_family(cardshop.load_variant(variant).family)
    assert family.table_view is not None
    game = cardshop.new_game(variant, players, seed=4)
    public = family.table_view(game, None)
    for seat in range(players):
        mine = family.table_view(game, seat)
        assert mine != public  # a seat sees more than a spectator...
        own = json.dumps(mine["seats"][seat])
        assert json.dumps(public["seats"][seat]) != own  # ...of its own cards
