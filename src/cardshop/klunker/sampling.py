"""Sampling the hidden cards: complete games that agree with what one seat knows.

An :class:`~cardshop.Observation` shows a seat its own hand and everything public
(windows, safes, discards, the sizes of hands, banks and deck). The cards it cannot
see are the *unseen* cards: the variant's card list minus every card it can see.
They lie in the other players' hands, in every bank (cash cards are face down, even
to their owner) and in the deck. [CARD-2]

A *determinization* deals the unseen cards at random into those places, keeping
each place's size, and sets the game up from that position with
:meth:`Game.from_position`. Every sampled game has the same observation for the
seat as the real game; the hidden parts are uniform at random. Information-set
Monte Carlo tree search (``cardshop.bots.ISMCTSBot``) plays many such games.

Not in an observation, and so not reproduced: a seat that declined earlier in a
purchase phase whose variant lets the phase go on (``decline: skip_turn``). Sampled
games of such a phase keep the current start player for the next round.
"""

from __future__ import annotations

import random
from typing import Any

from cardshop.core import GameStateError, Seat
from cardshop.klunker.game import Game, Observation, Phase
from cardshop.klunker.variant import Variant

__all__ = ["Determinizer", "sample_game", "sample_position", "unseen_cards"]


def unseen_cards(observation: Observation, variant: Variant) -> tuple[int, ...]:
    """Cards the observing seat cannot see, as counts in the variant's kind order."""
    rules = variant.rules
    if observation.kinds != rules.kinds:
        raise GameStateError(
            f"the observation's card kinds {observation.kinds} are not those of "
            f"variant {rules.name!r}"
        )
    k = len(rules.kinds)
    left = [rules.kind_start[i + 1] - rules.kind_start[i] for i in range(k)]
    seen = [observation.hand, observation.discard, *observation.windows, *observation.safes]
    for counts in seen:
        for i, c in enumerate(counts):
            left[i] -= c
    if min(left) < 0:
        raise GameStateError("the observation shows more cards than the variant has")
    hidden = sum(observation.cash) + observation.deck_size
    hidden += sum(size for s, size in enumerate(observation.hand_sizes) if s != observation.seat)
    if sum(left) != hidden:
        raise GameStateError(
            f"the observation does not add up: {sum(left)} unseen cards for {hidden} hidden places"
        )
    return tuple(left)


def _kinds(kinds: tuple[str, ...], counts: list[int] | tuple[int, ...]) -> dict[str, int]:
    return {kind: c for kind, c in zip(kinds, counts, strict=True) if c}


def sample_position(
    observation: Observation, variant: Variant, rng: random.Random
) -> dict[str, Any]:
    """A position (docs/positions.md) that agrees with ``observation``.

    The unseen cards are shuffled with ``rng`` and dealt to the other hands, every
    bank and the deck, each keeping its size. The position's seed, which drives
    later chance events such as reshuffles, is drawn from ``rng`` too.
    """
    if observation.phase is Phase.OVER:
        raise GameStateError("the game is over: there is nothing hidden left to sample")
    kinds = observation.kinds
    pool = [i for i, c in enumerate(unseen_cards(observation, variant)) for _ in range(c)]
    rng.shuffle(pool)
    n = observation.players
    seats: list[dict[str, Any]] = []
    for s in range(n):
        if s == observation.seat:
            hand = list(observation.hand)
        else:
            hand = [0] * len(kinds)
            for _ in range(observation.hand_sizes[s]):
                hand[pool.pop()] += 1
        cash = [0] * len(kinds)
        for _ in range(observation.cash[s]):
            cash[pool.pop()] += 1
        seats.append(
            {
                "hand": _kinds(kinds, hand),
                "window": _kinds(kinds, observation.windows[s]),
                "safe": _kinds(kinds, observation.safes[s]),
                "cash": _kinds(kinds, cash),
            }
        )
    position: dict[str, Any] = {
        "players": n,
        "seed": rng.getrandbits(63),
        "round": observation.round,
        "phase": observation.phase.value,
        "start_player": observation.start_player,
        "turn": observation.current_player,
        "purchase_cards": list(observation.purchase_cards),
        "seats": seats,
        "discard": _kinds(kinds, observation.discard),
        "deck": [kinds[i] for i in pool],
    }
    return position


def sample_game(observation: Observation, variant: Variant, rng: random.Random) -> Game:
    """A game set up from :func:`sample_position`: one determinization."""
    return Game.from_position(sample_position(observation, variant, rng), variant)


class Determinizer:
    """Many determinizations of one observation, cheaply.

    The first sample is set up (and checked) by :meth:`Game.from_position`; each
    :meth:`sample` then clones it and deals its hidden cards anew, writing the
    engine's card table directly (the state layout documented in
    ``cardshop.klunker.game``), which is several times faster than setting up a
    position. The result has the same distribution as :func:`sample_game`: all
    unseen cards shuffled into the other hands, the banks and the deck.
    """

    def __init__(self, observation: Observation, variant: Variant, rng: random.Random) -> None:
        self.observation = observation
        self.variant = variant
        self._base = sample_game(observation, variant, rng)
        n = observation.players
        self._zones: list[tuple[int, int]] = [
            (3 * s, observation.hand_sizes[s]) for s in range(n) if s != observation.seat
        ]
        self._zones += [(3 * n + s, observation.cash[s]) for s in range(n)]
        hidden = {z for z, _ in self._zones}
        hidden.add(4 * n)
        self._hidden = [c for c, z in enumerate(self._base._where) if z in hidden]
        self._deck_zone = 4 * n

    @property
    def seat(self) -> Seat:
        return self.observation.seat

    def sample(self, rng: random.Random) -> Game:
        """A fresh determinization: a game whose hidden cards are dealt at random."""
        game = self._base.clone()
        cards = self._hidden.copy()
        rng.shuffle(cards)
        where = game._where
        i = 0
        for zone, size in self._zones:
            for card in cards[i : i + size]:
                where[card] = zone
            i += size
        deck = cards[i:]
        for card in deck:
            where[card] = self._deck_zone
        game._deck = deck
        game.seed = rng.getrandbits(63)
        game._check_counts()
        game._legal = None  # hands changed: legal actions are worked out afresh
        return game
