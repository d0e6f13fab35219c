"""Generated Wühltisch variants (``cardshop.wuhltisch.strategies``) set up and play.

Hypothesis draws the variant, the player count, the seed and every seat's action of
every tick, so a failure shrinks to a small variant and a short run of ticks. Every
tick goes through the core's :class:`~cardshop.invariants.CheckedGame`: conservation
and the family's other invariants, plus the generic ones, after every tick. The
variants' tick caps are small, so whole games take a few dozen ticks.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import cardshop
from cardshop.core.game import Dynamics
from cardshop.core.registry import get_family
from cardshop.core.variant import VariantBase
from cardshop.invariants import CheckedGame, InvariantViolation, invariant_names, invariants_of
from cardshop.testing import Playthrough, action_sequences, draw_step, family_variants, games
from cardshop.wuhltisch import WuhltischGame, WuhltischVariant
from cardshop.wuhltisch.invariants import conservation_problems, state_problems
from cardshop.wuhltisch.strategies import variants

SMALL = {"max_rounds": 2, "max_round_ticks": 12}
"""Options for whole games: at most 2 rounds of at most 12 ticks."""


def _wuhltisch(game: Any) -> WuhltischGame:
    """The current Wühltisch game of a game or a match."""
    current = getattr(game, "current", game)
    assert isinstance(current, WuhltischGame)
    return current


def test_the_family_names_its_strategy_and_the_library_does_not_import_hypothesis() -> None:
    assert get_family("wuhltisch").variant_strategy == "cardshop.wuhltisch.strategies:variants"
    code = (
        "import sys, cardshop; from cardshop.core.registry import get_family; "
        "get_family('wuhltisch'); cardshop.new_game('wuhltisch', 2, seed=1); "
        "print(sorted(m for m in sys.modules if m.startswith(('hypothesis', 'cardshop.testing', "
        "'cardshop.wuhltisch.strategies'))))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "[]"


@settings(max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(family_variants("wuhltisch", match=None))
def test_generated_variants_are_valid_and_load_from_yaml(variant: VariantBase) -> None:
    assert isinstance(variant, WuhltischVariant)
    assert variant.semantic_errors() == []
    text = yaml.safe_dump(variant.to_data(), sort_keys=False, allow_unicode=True)
    again = cardshop.parse_variant(text)
    assert again == variant
    assert again.content_hash == variant.content_hash
    rules = variant.rules
    assert rules.n_shirts == variant.shirt_count() >= 1
    assert rules.n_lists >= variant.lists_per_player * variant.players.max
    assert 1 <= variant.players.min <= variant.players.max <= 5


@settings(max_examples=10)
@given(
    variants(
        max_attributes=2,
        min_players=2,
        max_players=3,
        max_prices=2,
        max_set_size=2,
        max_lists_per_player=1,
        max_rounds=1,
        min_round_ticks=3,
        max_round_ticks=5,
        match=True,
        name="small-one",
    )
)
def test_variant_options_are_respected(variant: WuhltischVariant) -> None:
    assert variant.name == "small-one"
    assert len(variant.attributes) <= 2
    assert 2 <= variant.players.min <= variant.players.max <= 3
    assert variant.set_size <= 2
    assert variant.lists_per_player == 1
    assert variant.rounds == 1
    assert 3 <= variant.round_ticks <= 5
    assert variant.match is not None
    # prices are added beyond those drawn only once copies are at their most (8)
    assert isinstance(variant.shirts, list)  # the generated shirts, listed
    copies = max(Counter(variant.shirts).values())
    assert len(set(variant.rules.price)) <= 2 or copies == 8
    assert len(variant.shirts) == copies * len(set(variant.shirts))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"min_attributes": 0}, "attributes"),
        ({"max_attributes": 7}, "attributes"),
        ({"min_players": 3, "max_players": 2}, "players"),
        ({"max_set_size": 6}, "set size"),
        ({"min_round_ticks": 0}, "round ticks"),
        ({"max_copies": 9}, "copies"),
    ],
)
def test_variant_options_are_checked(options: dict[str, int], message: str) -> None:
    @given(variants(**options))
    def draw(variant: WuhltischVariant) -> None:
        raise AssertionError("no variant is drawn with bad options")

    with pytest.raises(ValueError, match=message):
        draw()


@settings(max_examples=20, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(variant=family_variants("wuhltisch", match=None, **SMALL), data=st.data())
def test_generated_games_keep_every_invariant_at_every_tick(
    variant: VariantBase, data: st.DataObject
) -> None:
    """Whole games of generated variants, joint actions drawn by hypothesis, checked
    thoroughly (copies, hidden information, conservation, score bounds, caller rule)
    after every tick, and replayed from the seed at the end."""
    players = data.draw(st.integers(variant.players.min, variant.players.max), label="players")
    seed = data.draw(st.integers(0, 2**16), label="seed")
    checked = CheckedGame(cardshop.new_game(variant, players, seed=seed))
    assert {"conservation", "hand-size", "score-bounds", "caller-rule"} <= checked.checks
    assert checked.dynamics is Dynamics.SIMULTANEOUS
    ticks = 0
    while not checked.is_over:
        acting = checked.acting
        assert list(acting) == list(range(players))  # everyone acts in every tick
        actions = draw_step(data.draw, checked.game)
        checked.apply_joint(actions)
        assert conservation_problems(_wuhltisch(checked.game)) == []
        ticks += 1
    games_per_match = players * variant.match.games_per_player if variant.match else 1
    assert ticks <= games_per_match * variant.rounds * variant.round_ticks  # type: ignore[attr-defined]
    result = checked.result()
    assert len(result.scores) == players
    assert all(score >= 0 for score in result.scores)


@settings(max_examples=15)
@given(action_sequences(family_variants("wuhltisch"), max_actions=15))
def test_action_sequences_of_generated_variants_are_ticks_that_replay(
    playthrough: Playthrough,
) -> None:
    game = playthrough.replay()
    assert playthrough.first_player is None  # Wühltisch games have no first player
    for step in playthrough.actions:
        assert isinstance(step, dict)
        assert sorted(step) == list(range(game.players))
    assert len(playthrough.actions) == 15 or game.is_over
    assert isinstance(game, WuhltischGame)
    assert game.ticks == len(playthrough.actions)


@settings(max_examples=15)
@given(games(family_variants("wuhltisch", max_players=3), max_actions=20))
def test_games_of_generated_variants_are_legal_states(game: cardshop.Game) -> None:
    assert isinstance(game, WuhltischGame)
    assert state_problems(game) == []
    again = WuhltischGame.from_dict(game.to_dict())
    assert again == game
    CheckedGame(game)  # a game mid-way is checked from where it stands


@pytest.mark.pure_only  # patches WuhltischGame._throw_back: a compiled class's are fixed
def test_a_lost_card_is_found_and_shrinks_to_a_short_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """An injected fault: a card thrown back in a tick where two seats throw is lost.

    The generated-variant test finds it and hypothesis shrinks the run to the one
    tick that loses the card, in a small variant."""
    original = WuhltischGame._throw_back

    def losing(self: WuhltischGame, cards: list[int]) -> None:
        original(self, cards[1:] if len(cards) > 1 else cards)

    monkeypatch.setattr(WuhltischGame, "_throw_back", losing)
    found: list[tuple[int, list[dict[int, str]]]] = []

    @settings(
        max_examples=100,
        phases=[Phase.generate, Phase.shrink],
        database=None,
        derandomize=True,
        deadline=None,
        print_blob=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(variant=variants(match=False, **SMALL), data=st.data())
    def play(variant: WuhltischVariant, data: st.DataObject) -> None:
        players = data.draw(st.integers(variant.players.min, variant.players.max))
        checked = CheckedGame(
            cardshop.new_game(variant, players, seed=data.draw(st.integers(0, 9))),
            checks=["conservation"],
        )
        ticks: list[dict[int, str]] = []
        try:
            while not checked.is_over:
                actions = draw_step(data.draw, checked.game)
                ticks.append({s: str(a) for s, a in actions.items()})
                checked.apply_joint(actions)
        except InvariantViolation:
            found.append((players, ticks))
            raise

    with pytest.raises(InvariantViolation) as info:
        play()
    assert info.value.invariant == "conservation"
    players, ticks = found[-1]  # hypothesis plays the shrunk example last
    assert 1 <= players <= 2
    assert 1 <= len(ticks) <= 3  # two cards thrown back in one tick need only a few


def test_the_invariants_checked_are_the_family_s() -> None:
    names = invariant_names(invariants_of("wuhltisch"))
    assert {"conservation", "hand-size", "score-bounds", "caller-rule"} <= set(names)


class _Zones:
    """A game's rules and zones, some zones changed: what conservation_problems reads."""

    def __init__(self, game: WuhltischGame, changes: dict[str, tuple[int, ...]]) -> None:
        self.rules = game.rules
        self._zones = {**game.zones(), **changes}

    def zones(self) -> dict[str, tuple[int, ...]]:
        return self._zones


def test_conservation_finds_each_card_out_of_its_place() -> None:
    """Each sort of card (shirt, lost property, list) held where it may not be is found
    with its own message, and so are a card lost and a card in two places."""
    game = cardshop.new_game("wuhltisch", 3, seed=1)
    assert isinstance(game, WuhltischGame)
    rules, zones = game.rules, game.zones()
    assert conservation_problems(game) == []
    shirt, lst = zones["heap"][0], zones["list:0"][0]
    assert shirt < rules.n_shirts <= rules.first_list <= lst
    useless = rules.first_lost  # lost property worth nothing
    assert rules.lost_value[useless] == 0
    heap = tuple(c for c in zones["heap"] if c != shirt)
    cases = {
        "hand:0 holds #{lst}, which is not a shirt": {
            "hand:0": (lst,), "list:0": ()},
        "the heap holds list #{lst}": {"heap": (*zones["heap"], lst), "list:0": ()},
        "found:1 holds #{shirt}, which is not useful lost property": {
            "found:1": (shirt,), "heap": heap},
        "box holds #{shirt}, which is not a list": {
            "box": (*zones["box"], shirt), "heap": heap},
        "set:0:0 must be one list and then shirts": {"set:0:0": (shirt,), "heap": heap},
        "cards in no zone: [{shirt}]": {"heap": heap},
        "cards in more than one place: [{shirt}]": {"view:2": (shirt,)},
    }  # fmt: skip
    for want, changes in cases.items():
        found = conservation_problems(_Zones(game, changes))  # type: ignore[arg-type]
        assert found == [want.format(shirt=shirt, lst=lst)], (want, found)
    found = conservation_problems(_Zones(game, {"found:0": (useless,), "heap": heap[1:]}))  # type: ignore[arg-type]
    assert f"found:0 holds #{useless}, which is not useful lost property" in found
