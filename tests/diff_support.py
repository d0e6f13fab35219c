"""How many games the differential tests (a family's kernel against its reference
engine, game by game) play, in each lane of the suite.

* the default lane (``python -m pytest``): a thousand and more games per family;
* the slow lane (``CARDSHOP_SLOW_LANE=1``, which ``.ci/run`` sets for its compiled
  stage, where the reference engine is fastest): tens of thousands per family;
* ``CARDSHOP_DIFF_GAMES=N`` overrides both, for a deep run by hand (docs/kernel.md).

:func:`check_same` plays the games both ways and compares them; :func:`reference`
plays one on the reference engine as ``simulate`` does.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from cardshop import load_variant
from cardshop.bots import make_bot
from cardshop.core import variant_from_data
from cardshop.core.actions import Action
from cardshop.core.variant import VariantBase
from cardshop.simulation import GameOutcome, bot_seed, game_seed, play_game, seat_specs
from cardshop.verify import mini_variants

__all__ = [
    "CHUNK",
    "LINEUPS",
    "SLOW_LANE",
    "check_same",
    "diff_games",
    "load_builtin",
    "reference",
    "seat_specs_of",
]

CHUNK = 100
"""Games one ``histories`` call of :func:`check_same` plays (within every kernel's
``MAX_HISTORY_GAMES``)."""

SLOW_LANE = os.environ.get("CARDSHOP_SLOW_LANE", "") not in ("", "0")
"""Whether this run is the slow lane."""


def diff_games(default: int, slow: int, *, share: int = 1) -> int:
    """The games a differential test plays per built-in variant, player count and
    line-up: ``default``, or ``slow`` in the slow lane; in a deep run,
    ``CARDSHOP_DIFF_GAMES`` divided by ``share`` (a line-up whose games cost more
    plays a share of them), at least 2."""
    given = os.environ.get("CARDSHOP_DIFF_GAMES")
    if given:
        return max(2, int(given) // share)
    return slow if SLOW_LANE else default


LINEUPS = {
    "greedy": ("greedy",),
    "random": ("random",),
    "baseline": ("baseline",),
    "mixed": ("greedy", "random", "baseline"),  # by seat, turning with rotate
}
"""The line-ups of the kernels that play the random, baseline and greedy bots
(Wühltisch's and Reglamentacja's): one bot everywhere, or the three by seat."""


def seat_specs_of(lineup: tuple[str, ...], players: int) -> tuple[str, ...]:
    """The bots of a line-up as a simulation takes them: one for every seat, or the
    line-up's bots seat by seat, repeated."""
    if len(lineup) == 1:
        return lineup
    return tuple(lineup[s % len(lineup)] for s in range(players))


def load_builtin(name: str) -> VariantBase:
    """A built-in variant, or a mini variant that ships with cardshop."""
    return load_variant(mini_variants().get(name, name))


def under_model(name: str, model: int) -> VariantBase:
    """The built-in variant ``name`` under chance ``model`` (docs/chance.md). The built-ins
    draw by model 2; under model 1 this is exactly the variant their games were played
    with before, the same data and content hash."""
    return variant_from_data({**load_variant(name).to_data(), "chance": model})


def reference(
    variant: VariantBase, players: int, bots: tuple[str, ...], seed: int, game: int, rotate: bool
) -> tuple[GameOutcome, list[Action]]:
    """Game ``game`` of a simulation, played by the reference engine and its bots: its
    outcome as ``simulate`` reports it, and its moves."""
    specs = seat_specs(bots, players, game, rotate)
    seated = [make_bot(str(s), variant, bot_seed(seed, game, i)) for i, s in enumerate(specs)]
    steps: list[int] = []
    played = play_game(
        variant, players, seated, game_seed(seed, game), on_step=lambda g, s: steps.append(1)
    )
    result = played.result()
    moves = played.moves  # a new list at each reading
    first = (played.setup_options() or {}).get("first_player")
    outcome = GameOutcome(
        game=game,
        seed=played.seed,  # type: ignore[attr-defined]
        first_player=first if isinstance(first, int) else None,
        bots=tuple(b.name for b in seated),
        scores=result.scores,
        ranks=result.ranks,
        winners=result.winners,
        rounds=result.rounds,
        decisions=len(moves),
        termination=result.termination.value,
        steps=len(steps),
        details=dict(result.details),
    )
    return outcome, [m.action for m in moves]


def check_same(
    kernel: Any,
    variant: VariantBase,
    players: int,
    bots: tuple[str, ...],
    seed: int,
    games: int,
    rotate: bool = True,
) -> int:
    """Play ``games`` games of a simulation both on ``kernel`` (a family's kernel module)
    and on the reference engine, and compare them game by game: every move, then the
    outcome. Returns the moves compared."""
    compared = 0
    played = (
        kernel.histories(
            variant, players, bots, seed, start, min(start + CHUNK, games), rotate=rotate
        )
        for start in range(0, games, CHUNK)
    )
    for outcome, actions in (game for chunk in played for game in chunk):
        ref_outcome, ref_actions = reference(variant, players, bots, seed, outcome.game, rotate)
        if actions != ref_actions:
            at = next(
                (i for i, (a, b) in enumerate(zip(actions, ref_actions, strict=False)) if a != b),
                min(len(actions), len(ref_actions)),
            )
            pytest.fail(
                f"{variant.name} {players}p bots={bots} seed={seed} game {outcome.game}: "
                f"moves differ at {at}: kernel {actions[at : at + 3]}, "
                f"reference {ref_actions[at : at + 3]}"
            )
        assert GameOutcome(*outcome) == ref_outcome, (outcome, ref_outcome)
        compared += len(actions)
    return compared
