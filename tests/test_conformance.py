"""The conformance suite (cardshop.testing.FamilyTests) on every family in the tree.

Each class names a family's variants; the base class supplies the battery:
invariants over random playouts, round trips, illegal actions, hidden information,
action texts and space, and the observation encoder.
"""

from __future__ import annotations

import random
from pathlib import Path

import tinyfamily
from cardshop.core import LegalActions
from cardshop.core.game import Game
from cardshop.reglamentacja import ReglamentacjaGame
from cardshop.testing import FamilyTests

TINY = Path(__file__).parent / "tinyfamily"


class TestKlunkerEn(FamilyTests):
    variants = ("klunker-en",)


class TestKlunkerEs(FamilyTests):
    variants = ("klunker-es",)


class TestKlunkerZh(FamilyTests):
    variants = ("klunker-zh",)


class TestTinyFamily(FamilyTests):
    """The tiny family, registered at run time, in both its dynamics."""

    variants = (str(TINY / "tiny-seq.yaml"), str(TINY / "tiny-sim.yaml"))
    seeds = (0, 1, 2)

    def register(self) -> None:
        tinyfamily.register()

    def hidden_twin(self, game: Game, seat: int, rng: random.Random) -> Game | None:
        """The tiny family has no sampler: deal the hidden cards again by hand.

        Hidden from ``seat``: the deck's order and contents, and the other seats'
        secret cards. They are shuffled among the same places.
        """
        assert isinstance(game, tinyfamily.TinyGame)
        twin = game.clone()
        others = [s for s in range(game.players) if s != seat]
        pool = [*twin.deck, *(twin.secrets[s] for s in others)]
        rng.shuffle(pool)
        for s in others:
            twin.secrets[s] = pool.pop()
        twin.deck = pool
        return twin


class TestWuhltisch(FamilyTests):
    """A simultaneous family: every seat searches the heap in each tick."""

    variants = ("wuhltisch",)
    players = (2, 5)  # the fewest and the most; tests/test_wuhltisch_*.py cover 3 and 4
    seeds = (0,)
    check_every = 500  # random searchers play some ten thousand ticks a game; a check
    # copies the game through its JSON, which grows with the game
    # Its positions name the cards found by kind, while observations show card ids.
    positions_keep_observations = False


class TestReglamentacja(FamilyTests):
    """A turn-based family whose negotiation makes huge action spaces."""

    variants = ("reglamentacja",)

    composed_turns = 0

    def check_legal_view(self, game: Game, seat: int, view: LegalActions) -> None:
        """The offer parts compose exactly the listed offers, each once (on the first
        four offer turns met: composing some 10,000 offers each takes a while)."""
        assert isinstance(game, ReglamentacjaGame)
        listed = [a for a in view if a.verb == "offer"]
        if not listed or self.composed_turns >= 4:
            assert not game.offer_parts((), seat) or listed, "parts offered, none listed"
            return
        self.composed_turns += 1
        composed = []
        for target in game.offer_parts((), seat):
            for give in game.offer_parts((target,), seat):
                for take in game.offer_parts((target, give), seat):
                    for place in game.offer_parts((target, give, take), seat):
                        assert game.offer_parts((target, give, take, place), seat) == ()
                        composed.append(game.offer_action(target, give, take, place))
        assert len(composed) == len(listed), "the parts compose more or fewer offers"
        assert set(composed) == set(listed), "the parts compose other offers than listed"
        for action in random.Random(len(listed)).sample(listed, min(200, len(listed))):
            parts = game.offer_of(action)
            assert parts is not None
            assert game.offer_action(*parts) == action, f"{action} does not decompose"
        if listed:
            target = game.offer_parts((), seat)[0]
            assert game.offer_parts((game.players + 5,), seat) == ()
            assert game.offer_parts((target, 10**6), seat) == ()
