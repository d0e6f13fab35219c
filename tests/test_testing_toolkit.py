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
from cardshop import Game
from cardshop.invariants import INVARIANTS, CheckedGame, InvariantViolation
from cardshop.klunker.events import Sold
from cardshop.testing import Playthrough, action_sequences, game_machine, games, variants

SMALL = Path(__file__).parent / "fixtures" / "small.yaml"

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
