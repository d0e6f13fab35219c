"""Positions of games of generated Wühltisch variants round-trip through YAML text.

Games come from hypothesis (generated variants, joint actions drawn tick by tick), so
copies of a shirt, three-valued attributes, lists naming any number of attributes and
several rounds are all written and read back."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import HealthCheck, given, settings

import cardshop
from cardshop import PositionError
from cardshop.testing import family_variants, games
from cardshop.wuhltisch import WuhltischGame
from cardshop.wuhltisch.invariants import state_problems


@settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(games(family_variants("wuhltisch", max_players=4, max_copies=3), max_actions=25))
def test_positions_of_generated_games_round_trip_as_yaml_text(game: cardshop.Game) -> None:
    assert isinstance(game, WuhltischGame)
    if game.is_over:  # as with Klunker, a finished game has no position to go on from
        with pytest.raises(PositionError, match="finished game"):
            game.to_position()
        return
    position = game.to_position()
    text = yaml.safe_dump(position, sort_keys=False, allow_unicode=True)
    again = WuhltischGame.from_position(text, game.variant)
    assert again.to_position() == position
    assert state_problems(again) == []
    assert again.scores() == game.scores()
    for seat in range(game.players):
        # The same cards by name in every zone a seat can see (ids of copies may differ).
        mine, theirs = again.observation(seat), game.observation(seat)
        assert [again.describe(c) for c in mine.hand] == [game.describe(c) for c in theirs.hand]
        assert mine.hand_sizes == theirs.hand_sizes
        assert mine.sets_laid == theirs.sets_laid
    assert again.acting == game.acting
    for seat in game.acting:
        assert list(map(str, again.legal_actions(seat))) == list(map(str, game.legal_actions(seat)))
