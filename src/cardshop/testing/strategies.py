"""Hypothesis strategies: games and legal action sequences of any family's variants,
and random valid variants of any family that generates them.

Every option is keyword-only. For example::

    from hypothesis import given
    from cardshop.testing.strategies import action_sequences, variants

    @given(action_sequences("tests/tinyfamily/tiny-sim.yaml", max_actions=20))
    def test_ticks_replay(playthrough):
        playthrough.replay()

    @given(variants(max_players=4, tax=True))
    def test_small_variants_set_up(variant):
        ...

:func:`games` and :func:`action_sequences` work for every family: hypothesis picks
each acting seat's action among its legal ones (every seat of a simultaneous tick,
one draw each), so failures shrink to short games of simple choices.

:func:`family_variants` finds a family's generator through the registry
(``Family.variant_strategy``: Klunker's is :mod:`cardshop.klunker.strategies`);
generated variants always pass ``semantic_errors()``: they are variants a user could
write, not just ones the schema accepts. :func:`variants` is ``family_variants("klunker")``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import DrawFn, SearchStrategy

from cardshop import driver
from cardshop.core.actions import (
    Action,
    Seat,
)
from cardshop.core.family import game_options
from cardshop.core.frontdoor import (
    new_game,
    replay,
)
from cardshop.core.game import (
    Dynamics,
    Game,
)
from cardshop.core.loader import load_variant
from cardshop.core.registry import get_family
from cardshop.core.variant import VariantBase

__all__ = [
    "Playthrough",
    "action_sequences",
    "draw_step",
    "family_variants",
    "games",
    "variants",
]


_SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def variants(**options: Any) -> SearchStrategy[VariantBase]:
    """Valid variants of the Klunker family: ``family_variants("klunker", **options)``
    (the options of :func:`cardshop.klunker.strategies.variants`)."""
    return family_variants("klunker", **options)


def family_variants(family: str, **options: Any) -> SearchStrategy[VariantBase]:
    """Valid variants of any registered family, from its ``Family.variant_strategy``.

    ``options`` go to the family's function (for Klunker, those of :func:`variants`).
    A :class:`~cardshop.VariantError` names a family that is not registered; a
    ``ValueError`` one that generates no variants.
    """
    fam = get_family(family)
    if not fam.variant_strategy:
        raise ValueError(f"the {family!r} family generates no variants (no variant_strategy)")
    module_name, _, attr = fam.variant_strategy.partition(":")
    factory = getattr(importlib.import_module(module_name), attr)
    strategy: SearchStrategy[VariantBase] = factory(**options)
    return strategy


AnyVariant = VariantBase | str | SearchStrategy[VariantBase] | None
"""A variant (loaded, a built-in name or a path), a strategy of variants, or None for
a generated Klunker variant (:func:`family_variants` for other families)."""

Step = str | dict[Seat, str]
"""One step of a playthrough: an action text, or each acting seat's text in a tick."""


def _resolve(draw: DrawFn, variant: AnyVariant) -> VariantBase:
    if variant is None:
        return draw(variants())
    if isinstance(variant, SearchStrategy):
        return draw(variant)
    return load_variant(variant)


def _players(draw: DrawFn, variant: VariantBase, players: int | Sequence[int] | None) -> int:
    if players is None:
        return draw(st.integers(variant.players.min, variant.players.max))
    if isinstance(players, int):
        return players
    return draw(st.sampled_from(list(players)))


@dataclass(frozen=True, slots=True)
class Playthrough:
    """A game's setup and a list of legal steps as text: replayable anywhere.

    A step is an action text, or (simultaneous games) a mapping of each acting seat
    to its action text. ``replay()`` plays it with :func:`cardshop.replay`; the repr
    is a readable record to paste into a bug report. ``first_player`` is ``None`` for
    a family whose games take no first player.
    """

    variant: VariantBase
    players: int
    seed: int
    first_player: Seat | None
    actions: tuple[Step, ...]

    def replay(self) -> Game:
        """The game after every step."""
        return replay(self.variant, self.players, self.seed, self.first_player, self.actions)

    def __repr__(self) -> str:
        first = "" if self.first_player is None else f", first_player={self.first_player}"
        return (
            f"Playthrough({self.variant.name!r}, players={self.players}, seed={self.seed}"
            f"{first}, actions={list(self.actions)!r})"
        )


def draw_step(draw: Callable[..., Any], game: Game) -> dict[Seat, Action]:
    """One legal action for every acting seat of ``game``, each drawn by hypothesis.

    ``draw`` is a composite strategy's ``draw`` or ``st.data()``'s ``data.draw``.
    """
    return {
        seat: draw(_one_of(game.legal_actions(seat)), label=f"seat {seat}") for seat in game.acting
    }


def _one_of(legal: Sequence[Action]) -> SearchStrategy[Action]:
    """One of ``legal``, each draw made as ``st.sampled_from(legal)`` makes it (an
    index below the length, shrinking towards the first), labelled as a sampled
    ``range``: hypothesis labels a sampled list by hashing every element, which costs
    more than the step itself for a list of thousands of offers. The label is the same
    for every list of one length, so hypothesis's mutations may carry a choice from one
    step to another with as many actions (the examples it explores are not those a
    sampled list gave)."""
    return st.sampled_from(range(len(legal))).map(legal.__getitem__)


def _play(
    draw: DrawFn,
    variant: AnyVariant,
    players: int | Sequence[int] | None,
    max_actions: int,
    to_end: bool,
) -> tuple[Playthrough, Game]:
    v = _resolve(draw, variant)
    n = _players(draw, v, players)
    seed = draw(_SEEDS)
    takes_first = "first_player" in game_options(get_family(v.family))
    first = draw(st.integers(0, n - 1)) if takes_first else None
    game = new_game(v, n, seed, first)
    steps: list[Step] = []
    joint = game.dynamics is Dynamics.SIMULTANEOUS
    while not game.is_over and (to_end or len(steps) < max_actions):
        actions = draw_step(draw, game)
        driver.apply(game, actions)
        if joint:
            steps.append({seat: str(action) for seat, action in actions.items()})
        else:
            steps.append(str(next(iter(actions.values()))))
    return Playthrough(v, n, seed, first, tuple(steps)), game


@st.composite
def action_sequences(
    draw: DrawFn,
    variant: AnyVariant = None,
    *,
    players: int | Sequence[int] | None = None,
    max_actions: int = 200,
    to_end: bool = False,
) -> Playthrough:
    """A setup of ``variant`` (default: a generated Klunker variant) and legal steps.

    Hypothesis chooses every action among the legal ones (each acting seat's, in a
    simultaneous tick), so failures shrink to short games of simple choices. At most
    ``max_actions`` steps are played, or, with ``to_end``, as many as it takes to end
    the game.
    """
    return _play(draw, variant, players, max_actions, to_end)[0]


@st.composite
def games(
    draw: DrawFn,
    variant: AnyVariant = None,
    *,
    players: int | Sequence[int] | None = None,
    max_actions: int = 0,
) -> Game:
    """A game of ``variant`` (default: a generated Klunker variant) with a seed (and a
    first player, for families that take one) drawn by hypothesis, after 0 to
    ``max_actions`` legal steps chosen by hypothesis."""
    count = draw(st.integers(0, max_actions)) if max_actions else 0
    return _play(draw, variant, players, count, False)[1]
