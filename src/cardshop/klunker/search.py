"""What the Klunker family adds to the core's information-set search (``ismcts``).

:data:`SEARCH` gives the core's :class:`~cardshop.bots.ISMCTSBot` a greedy playout
that stops at the end of the round and a value for the seats of an unfinished game:
cash plus the potential of a safe, by the greedy bot's heuristic
(:class:`~cardshop.klunker.bots.Heuristic`).
"""

from __future__ import annotations

import math
import random

from cardshop.core import Action, SearchHooks, Seat, VariantBase
from cardshop.core import Game as AnyGame
from cardshop.klunker.bots import GreedyBot, heuristic
from cardshop.klunker.game import Game, Phase
from cardshop.klunker.variant import Variant

__all__ = ["SEARCH"]


def _values(game: Game) -> list[float]:
    """Each seat's worth in a (sampled) game: cash plus the potential of its safe."""
    obs = game.observation(0)
    h = heuristic(game.rules)
    return [obs.cash[s] + h.potential(obs.safes[s]) for s in range(game.players)]


def _rewards(game: Game) -> list[float]:
    """Rewards in [0, 1] per seat: win share at the end, else a squashed lead."""
    n = game.players
    if game.is_over:
        result = game.result()
        share = 1.0 / len(result.winners)
        values = [float(x) for x in result.scores]
        win = [share if s in result.winners else 0.0 for s in range(n)]
    else:
        values = _values(game)
        win = None
    out = []
    for s in range(n):
        lead = values[s] - max(values[o] for o in range(n) if o != s)
        margin = 0.5 + 0.5 * math.tanh(lead / 4.0)
        out.append(margin if win is None else 0.7 * win[s] + 0.3 * margin)
    return out


class _Rollout:
    """The playout policy: greedy, except that filling an empty window is random."""

    def __init__(self, variant: VariantBase, seed: int) -> None:
        assert isinstance(variant, Variant)
        self.greedy = GreedyBot(seed, variant)

    def __call__(self, game: AnyGame, seat: Seat, rng: random.Random) -> Action:
        assert isinstance(game, Game)
        legal = game.legal_actions()
        first = legal[0]
        if len(legal) == 1 or first.verb == "done":  # the window holds a card: stop filling
            return first
        if game.phase is Phase.FILL:
            return rng.choice(legal)
        return self.greedy.choose(game.observation(seat), legal)


def _progress(game: AnyGame) -> int:
    assert isinstance(game, Game)
    return game.round


def _evaluate(game: AnyGame) -> list[float]:
    assert isinstance(game, Game)
    return _rewards(game)


SEARCH = SearchHooks(rollout=_Rollout, evaluate=_evaluate, progress=_progress)
"""Search hooks for the core's ISMCTS: greedy playouts for one round, then a value."""
