"""Hypothesis strategies: games and legal action sequences of any family's variants,
and random valid variants of the Klunker family.

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

:func:`variants` generates Klunker data (``family: klunker``) and validates it with
the model the registry gives for that family; generated variants always pass
``semantic_errors()``: they are variants a user could write, not just ones the schema
accepts.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import DrawFn, SearchStrategy

from cardshop import driver
from cardshop._core import Action, Seat
from cardshop._family import game_options, get_family, new_game, replay
from cardshop._game import Dynamics, Game
from cardshop._loader import load_variant
from cardshop._variant import VariantBase

__all__ = [
    "KIND_NAMES",
    "Playthrough",
    "action_sequences",
    "draw_step",
    "family_variants",
    "games",
    "variants",
]

KIND_NAMES = ("amber", "beryl", "coral", "jade", "onyx", "opal", "pearl", "ruby", "topaz")
"""The card kinds that generated variants draw their names from."""

_TIEBREAKS = ("fewest_safe_and_window", "fewest_safe", "fewest_window")
_SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def _check_range(name: str, low: int, high: int, floor: int) -> None:
    if low < floor or high < low:
        raise ValueError(f"{name}: need {floor} <= min <= max, got {low}..{high}")


@st.composite
def variants(
    draw: DrawFn,
    *,
    min_kinds: int = 1,
    max_kinds: int = 7,
    min_players: int = 2,
    max_players: int = 6,
    max_cards_per_kind: int = 20,
    max_hand_size: int = 8,
    max_set_size: int = 5,
    min_round_cap: int = 1,
    max_round_cap: int = 30,
    tax: bool | None = None,
    reshuffle: bool | None = None,
    name: str = "generated",
) -> VariantBase:
    """A random valid variant of the Klunker family.

    Everything varies: card kinds and counts, player range, starting cash, hand
    size, the round's steps and their order (``tax`` and ``reshuffle`` included
    when true, left out when false, either when None), set size, payout table and
    overrides, where unpaid cards and tax go, price, the decline and no-cash rules,
    tiebreaks, match format and a small round cap (``min_round_cap`` to
    ``max_round_cap``).
    """
    _check_range("kinds", min_kinds, max_kinds, 1)
    _check_range("round cap", min_round_cap, max_round_cap, 1)
    _check_range("players", min_players, max_players, 2)
    if max_kinds > len(KIND_NAMES):
        raise ValueError(f"max_kinds is at most {len(KIND_NAMES)}")
    order = draw(st.permutations(KIND_NAMES))
    kinds = list(order[: draw(st.integers(min_kinds, max_kinds))])
    set_size = draw(st.integers(1, max_set_size))
    low = draw(st.integers(min_players, max_players))
    high = draw(st.integers(low, max_players))
    hand_size = draw(st.integers(1, max_hand_size))
    starting_cash = {n: draw(st.integers(0, 3)) for n in range(low, high + 1)}
    counts = [draw(st.integers(1, max_cards_per_kind)) for _ in kinds]
    need = max(n * (starting_cash[n] + hand_size) for n in starting_cash)
    if sum(counts) < need:  # the deck must deal the setup at every player count
        counts[0] += need - sum(counts)

    steps = ["fill", "store", "purchase", "refill"]
    for step, wanted in (("tax", tax), ("reshuffle", reshuffle)):
        if wanted or (wanted is None and draw(st.booleans())):
            steps.append(step)
    steps = list(draw(st.permutations(steps)))
    store, purchase = steps.index("store"), steps.index("purchase")
    if store > purchase:
        steps[store], steps[purchase] = "purchase", "store"

    data: dict[str, Any] = {
        "family": "klunker",
        "name": name,
        "players": {"min": low, "max": high},
        "cards": dict(zip(kinds, counts, strict=True)),
        "hand_size": hand_size,
        "starting_cash": starting_cash,
        "steps": steps,
        "sale": {
            "set_size": set_size,
            "payout": draw(st.lists(st.integers(0, set_size), min_size=1, max_size=5)),
            "overrides": draw(
                st.dictionaries(st.sampled_from(kinds), st.integers(0, set_size), max_size=2)
            ),
            "unpaid_to": draw(st.sampled_from(["discard", "deck"])),
        },
        "purchase": {
            "price": draw(st.integers(0, 2)),
            "broke_may_buy": draw(st.booleans()),
            "decline": draw(st.sampled_from(["ends_phase", "skip_turn"])),
        },
        "tiebreak": draw(st.lists(st.sampled_from(_TIEBREAKS), unique=True, max_size=3)),
        "round_cap": draw(st.integers(min_round_cap, max_round_cap)),
    }
    if "tax" in steps:
        data["tax"] = {
            "per_player_count": draw(
                st.dictionaries(st.integers(low, high), st.integers(0, 3), max_size=high - low + 1)
            ),
            "to": draw(st.sampled_from(["deck", "discard"])),
        }
    if draw(st.booleans()):
        data["match"] = {"games_per_player": draw(st.integers(1, 2))}
    variant = get_family("klunker").variant_model.model_validate(data)
    problems = variant.semantic_errors()
    if problems:  # pragma: no cover - a bug in this strategy
        raise AssertionError(f"variants() built an invalid variant: {problems} from {data}")
    return variant


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
        seat: draw(st.sampled_from(game.legal_actions(seat)), label=f"seat {seat}")
        for seat in game.acting
    }


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
