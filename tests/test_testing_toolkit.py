"""cardshop.testing: the hypothesis toolkit users run on their own variants, used here
on the built-ins and on generated variants.

The state machines run under the hypothesis profile of tests/conftest.py (``ci`` is
deterministic and bounded; ``CARDSHOP_HYPOTHESIS_PROFILE=deep`` runs many more
examples).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import run_state_machine_as_test

import cardshop
import tinyfamily
from cardshop import Game
from cardshop.core.registry import get_family
from cardshop.core.variant import VariantBase
from cardshop.invariants import CheckedGame, InvariantViolation, invariant_names, invariants_of
from cardshop.klunker.events import Sold
from cardshop.testing import (
    FamilyTests,
    Playthrough,
    action_sequences,
    family_variants,
    game_machine,
    games,
    variants,
)
from tinyfamily import PASS

SMALL = Path(__file__).parent / "fixtures" / "small.yaml"
INVARIANTS = invariant_names(invariants_of("klunker"))

STEPS = 25  # steps per state machine run; each step plays 1 to 20 actions


def machine_case(variant: str) -> Any:
    case = game_machine(variant).TestCase
    case.settings = settings(case.settings, stateful_step_count=STEPS)
    return case


# One stateful test per built-in variant: every invariant after every step.
TestKlunkerEn = machine_case("klunker-en")
TestKlunkerEs = machine_case("klunker-es")
TestKlunkerZh = machine_case("klunker-zh")


# ------------------------------------------------------------------ variants()


@given(variants())
def test_generated_variants_are_valid_and_load_from_yaml(variant: cardshop.Variant) -> None:
    """What variants() makes passes every check a variant file gets (SETUP-1, ROUND-1)."""
    assert variant.semantic_errors() == []
    text = yaml.safe_dump(variant.model_dump(exclude={"extends"}), sort_keys=False)
    again = cardshop.parse_variant(text)
    assert again == variant
    assert again.content_hash == variant.content_hash
    steps = variant.steps
    assert steps.index("store") < steps.index("purchase")
    assert {"fill", "store", "purchase", "refill"} <= set(steps)


def test_show_prints_a_variant_that_loads_back(capsys: pytest.CaptureFixture[str]) -> None:
    from cardshop.cli import run

    assert run(["show", "klunker-en"]) == 0
    again = cardshop.parse_variant(capsys.readouterr().out)
    assert again == cardshop.load_variant("klunker-en")


@given(variants(max_players=3, tax=True, reshuffle=False, max_round_cap=5, max_kinds=2))
def test_variant_options_are_respected(variant: cardshop.Variant) -> None:
    assert "tax" in variant.steps
    assert "reshuffle" not in variant.steps
    assert variant.players.max <= 3
    assert variant.round_cap <= 5
    assert len(variant.cards) <= 2


@pytest.mark.parametrize(
    ("options", "message"),
    [({"min_players": 1}, "players"), ({"min_kinds": 3, "max_kinds": 2}, "kinds")],
)
def test_variant_options_are_checked(options: dict[str, int], message: str) -> None:
    @given(variants(**options))
    def draw(variant: cardshop.Variant) -> None:
        pass  # pragma: no cover - never reached

    with pytest.raises(ValueError, match=message):
        draw()


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    variant=variants(
        max_kinds=5, max_cards_per_kind=12, max_hand_size=6, min_round_cap=3, max_round_cap=8
    ),
    data=st.data(),
)
def test_games_of_generated_variants_keep_every_invariant(
    variant: cardshop.Variant, data: st.DataObject
) -> None:
    """The engine never crashes and every invariant holds, for any valid variant.

    A whole game in debug mode (CARD-1, SELL-3, END-4, TERM-1 ...), with a seeded
    random player: the variants' small round caps keep games short.
    """
    players = data.draw(st.integers(variant.players.min, variant.players.max), label="players")
    seed = data.draw(st.integers(0, 2**16), label="seed")
    checked = CheckedGame(cardshop.klunker.new_game(variant, players, seed=seed), every=8)
    rng = random.Random(seed)
    while not checked.is_over:
        checked.apply(rng.choice(checked.legal_actions()))
    result = checked.result()
    assert result.rounds <= variant.round_cap
    assert len(result.scores) == players


# ------------------------------------------------------- games() and sequences


@given(action_sequences("klunker-es", players=[5, 6], max_actions=60))
def test_action_sequences_replay(playthrough: Playthrough) -> None:
    game = playthrough.replay()
    assert [str(a) for a in game.history] == list(playthrough.actions)
    assert game.players in (5, 6)
    assert len(playthrough.actions) == 60 or game.is_over
    assert repr(playthrough).startswith("Playthrough('klunker-es', players=")


@given(games("klunker-en", players=3, max_actions=30))
def test_games_are_legal_positions_of_the_variant(game: Game) -> None:
    assert game.variant.name == "klunker-en"
    assert game.players == 3
    assert len(game.history) <= 30
    CheckedGame(game)  # a game mid-way is checked from where it stands


@given(action_sequences(variants(max_round_cap=3), to_end=True))
def test_action_sequences_to_the_end_finish(playthrough: Playthrough) -> None:
    assert playthrough.replay().is_over


# ------------------------------------------------------------- the machine


@pytest.mark.pure_only
@pytest.mark.usefixtures("sale_drops_a_card")
def test_the_machine_finds_and_shrinks_an_injected_fault() -> None:
    """CARD-1: a sale that drops a card is found, and the counterexample replays."""
    variant = cardshop.load_variant(SMALL)
    machine = game_machine(variant, checks=["conservation"])
    with pytest.raises(InvariantViolation) as info:
        run_state_machine_as_test(
            machine,
            settings=settings(
                max_examples=30,
                stateful_step_count=STEPS,
                phases=[Phase.generate, Phase.shrink],
                database=None,
                derandomize=True,
                deadline=None,
                print_blob=False,
            ),
        )
    found = info.value
    assert found.invariant == "conservation"
    example = found.counterexample
    assert example is not None
    assert example.variant == "small"
    # Shrunk: the last action is the one that sold (and dropped) a card, and the
    # shortest way there is a few placements, a store and a purchase.
    assert len(example.actions) <= 12
    game = cardshop.replay(
        variant, example.players, example.seed, example.first_player, example.actions[:-1]
    )
    events = game.apply(example.actions[-1])
    assert any(isinstance(e, Sold) and e.discarded for e in events)


def test_game_machine_rejects_bad_options() -> None:
    with pytest.raises(ValueError, match="3 to 5 players"):
        game_machine("klunker-en", players=[2, 3])
    with pytest.raises(ValueError, match="unknown invariants"):
        game_machine("klunker-en", checks=["conservation", "nope"])
    machine = game_machine("klunker-es", players=6, checks=["conservation"])
    assert machine.player_counts == (6,)
    assert machine.checks == frozenset({"conservation"})
    assert set(game_machine("klunker-zh").checks) == set(INVARIANTS)


# ------------------------------------------------------- any family: the tiny one

TINY = Path(__file__).parent / "tinyfamily"
TINY_SEQ = str(TINY / "tiny-seq.yaml")
TINY_SIM = str(TINY / "tiny-sim.yaml")


@pytest.fixture(autouse=True)
def _tiny_family() -> None:
    """The tiny family is registered at run time (other modules unregister it)."""
    tinyfamily.register()


@given(action_sequences(TINY_SIM, players=[2, 3], max_actions=8))
def test_action_sequences_of_a_simultaneous_game_are_ticks_that_replay(
    playthrough: Playthrough,
) -> None:
    game = playthrough.replay()
    assert playthrough.first_player is None  # the tiny family takes no first player
    assert all(isinstance(step, dict) for step in playthrough.actions)
    for step in playthrough.actions:
        assert isinstance(step, dict)
        assert sorted(step) == list(range(game.players))  # every seat acts in a tick
    ticks: dict[int, dict[int, str]] = {}
    for move in game.moves:
        ticks.setdefault(move.step, {})[move.seat] = str(move.action)
    assert list(ticks.values()) == list(playthrough.actions)
    assert len(playthrough.actions) == 8 or game.is_over


@given(games(TINY_SEQ, players=3, max_actions=6))
def test_games_of_a_registered_family(game: cardshop.Game) -> None:
    assert game.variant.family == "tinymarket"
    assert len(game.moves) <= 6
    CheckedGame(game)


@pytest.mark.parametrize("variant", [TINY_SEQ, TINY_SIM])
def test_the_machine_plays_any_family(variant: str) -> None:
    machine = game_machine(variant)
    assert "conservation" in machine.checks  # the family's own invariant
    assert {"acting", "legal_actions", "determinism", "result"} <= machine.checks
    run_state_machine_as_test(
        machine, settings=settings(max_examples=8, stateful_step_count=10, deadline=None)
    )


def test_the_machine_shrinks_a_fault_of_a_simultaneous_family(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A clash that loses its card (instead of discarding it) breaks conservation."""
    original = tinyfamily.TinyGame._play

    def losing(self: tinyfamily.TinyGame, actions: dict[int, Any]) -> list[Any]:
        events = original(self, actions)
        if any(isinstance(e, tinyfamily.Clashed) for e in events):
            self.discard.pop()
        return events

    monkeypatch.setattr(tinyfamily.TinyGame, "_play", losing)
    machine = game_machine(TINY_SIM, checks=["conservation"])
    with pytest.raises(InvariantViolation) as info:
        run_state_machine_as_test(
            machine,
            settings=settings(
                max_examples=50,
                stateful_step_count=10,
                phases=[Phase.generate, Phase.shrink],
                database=None,
                derandomize=True,
                deadline=None,
                print_blob=False,
            ),
        )
    found = info.value
    assert found.invariant == "conservation"
    example = found.counterexample
    assert example is not None
    assert example.first_player is None
    # Shrunk to the one tick of a clash, which replays to the fault.
    assert len(example.actions) == 1
    (tick,) = example.actions
    assert isinstance(tick, dict)
    assert len(set(tick.values())) < len(tick)  # two seats took the same card
    game = cardshop.replay(example.variant, example.players, example.seed, None, example.actions)
    assert tinyfamily.conservation(game) is not None
    assert "apply_joint" not in example.to_code()
    assert "cardshop.replay(" in example.to_code()


class _Leaky(FamilyTests):
    variants = (TINY_SEQ,)
    seeds = (0,)

    def register(self) -> None:
        tinyfamily.register()

    def hidden_twin(self, game: cardshop.Game, seat: int, rng: random.Random) -> Any:
        assert isinstance(game, tinyfamily.TinyGame)
        twin = game.clone()
        rng.shuffle(twin.deck)
        return twin


def test_the_conformance_suite_catches_a_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    """An observation that shows the top of the deck fails the hidden-information test."""
    suite = _Leaky()
    suite.setup_method()
    suite.test_hidden_information()  # honest observations pass
    original = tinyfamily.TinyGame.observation

    def leaky(self: tinyfamily.TinyGame, seat: int) -> Any:
        return original(self, seat)._replace(deck_size=self.deck[-1] if self.deck else 0)

    monkeypatch.setattr(tinyfamily.TinyGame, "observation", leaky)
    with pytest.raises(AssertionError, match="observation changes"):
        suite.test_hidden_information()


def _render_seed(game: Any, seat: int | None) -> str:
    return f"{tinyfamily.render(game, seat)}   game {game.seed}"


def _render_next_card(game: Any, seat: int | None) -> str:
    return f"{tinyfamily.render(game, seat)}   next {game.deck[-1] if game.deck else '-'}"


@pytest.mark.parametrize(
    ("leak", "message"),
    [(_render_seed, "shows the seed"), (_render_next_card, "changes when only")],
)
def test_the_conformance_suite_catches_a_render_that_leaks(leak: Any, message: str) -> None:
    """A text rendering that shows the seed, or a card the seat cannot see (the top of
    the deck), fails the render test; the honest one passes."""
    from dataclasses import replace

    from cardshop.core.registry import register_family

    suite = _Leaky()
    suite.setup_method()
    suite.test_render_shows_a_seat_only_what_it_may_see()

    class Leaking(_Leaky):
        def register(self) -> None:
            register_family(replace(tinyfamily.FAMILY, render=leak), replace=True)

    leaking = Leaking()
    try:
        leaking.setup_method()
        with pytest.raises(AssertionError, match=message):
            leaking.test_render_shows_a_seat_only_what_it_may_see()
    finally:
        tinyfamily.register()


def test_the_conformance_suite_catches_an_illegal_action_that_plays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    suite = _Leaky()
    suite.setup_method()
    suite.test_illegal_actions_change_nothing()
    monkeypatch.setattr(tinyfamily.TinyGame, "checked_action", lambda self, action, seat: PASS)
    with pytest.raises(AssertionError, match="was accepted"):
        suite.test_illegal_actions_change_nothing()


@settings(max_examples=10)
@given(family_variants("klunker", max_players=4, tax=True))
def test_family_variants_dispatch_to_the_family_strategy(variant: VariantBase) -> None:
    assert variant.family == "klunker"
    assert variant.players.max <= 4
    assert "tax" in variant.steps  # type: ignore[attr-defined]


def test_family_variants_name_a_family_without_a_strategy() -> None:
    from dataclasses import replace

    from cardshop.core.registry import (
        register_family,
        unregister_family,
    )

    bare = replace(get_family("klunker"), name="bare-test", variant_strategy="")
    register_family(bare)
    try:
        with pytest.raises(ValueError, match="'bare-test' family generates no variants"):
            family_variants("bare-test")
    finally:
        unregister_family("bare-test")
