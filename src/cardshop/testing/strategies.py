"""Hypothesis strategies: random valid variants, games, and legal action sequences.

Every option is keyword-only. For example::

    from hypothesis import given
    from cardshop.testing.strategies import variants, action_sequences

    @given(variants(max_players=4, tax=True))
    def test_small_variants_set_up(variant):
        ...

Generated variants always pass :meth:`cardshop.Variant.semantic_errors`: they are
variants a user could write, not just ones the schema accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import DrawFn, SearchStrategy

from cardshop._core import Seat
from cardshop._loader import load_variant
from cardshop.klunker.game import Game, new_game, replay
from cardshop.klunker.variant import Variant, as_klunker

__all__ = ["KIND_NAMES", "Playthrough", "action_sequences", "games", "variants"]

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
) -> Variant:
    """A random valid :class:`~cardshop.Variant`.

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
    variant = Variant.model_validate(data)
    problems = variant.semantic_errors()
    if problems:  # pragma: no cover - a bug in this strategy
        raise AssertionError(f"variants() built an invalid variant: {problems} from {data}")
    return variant


def _resolve(draw: DrawFn, variant: Variant | str | SearchStrategy[Variant] | None) -> Variant:
    if variant is None:
        return draw(variants())
    if isinstance(variant, SearchStrategy):
        return draw(variant)
    return as_klunker(load_variant(variant))


def _players(draw: DrawFn, variant: Variant, players: int | Sequence[int] | None) -> int:
    if players is None:
        return draw(st.integers(variant.players.min, variant.players.max))
    if isinstance(players, int):
        return players
    return draw(st.sampled_from(list(players)))


@dataclass(frozen=True, slots=True)
class Playthrough:
    """A game's setup and a list of legal action texts: replayable anywhere.

    ``replay()`` plays it with :func:`cardshop.replay`; the repr is a readable
    record to paste into a bug report.
    """

    variant: Variant
    players: int
    seed: int
    first_player: Seat
    actions: tuple[str, ...]

    def replay(self) -> Game:
        """The game after every action."""
        return replay(self.variant, self.players, self.seed, self.first_player, self.actions)

    def __repr__(self) -> str:
        return (
            f"Playthrough({self.variant.name!r}, players={self.players}, seed={self.seed}, "
            f"first_player={self.first_player}, actions={list(self.actions)!r})"
        )


def _play(
    draw: DrawFn,
    variant: Variant | str | SearchStrategy[Variant] | None,
    players: int | Sequence[int] | None,
    max_actions: int,
    to_end: bool,
) -> tuple[Playthrough, Game]:
    v = _resolve(draw, variant)
    n = _players(draw, v, players)
    seed = draw(_SEEDS)
    first = draw(st.integers(0, n - 1))
    game = new_game(v, n, seed, first)
    actions: list[str] = []
    while not game.is_over and (to_end or len(actions) < max_actions):
        action = draw(st.sampled_from(game.legal_actions()))
        game.apply(action)
        actions.append(str(action))
    return Playthrough(v, n, seed, first, tuple(actions)), game


@st.composite
def action_sequences(
    draw: DrawFn,
    variant: Variant | str | SearchStrategy[Variant] | None = None,
    *,
    players: int | Sequence[int] | None = None,
    max_actions: int = 200,
    to_end: bool = False,
) -> Playthrough:
    """A setup of ``variant`` (default: a generated variant) and legal actions from it.

    Hypothesis chooses every action among the legal ones, so failures shrink to
    short games of simple choices. At most ``max_actions`` are played, or, with
    ``to_end``, as many as it takes to end the game.
    """
    return _play(draw, variant, players, max_actions, to_end)[0]


@st.composite
def games(
    draw: DrawFn,
    variant: Variant | str | SearchStrategy[Variant] | None = None,
    *,
    players: int | Sequence[int] | None = None,
    max_actions: int = 0,
) -> Game:
    """A game of ``variant`` (default: a generated variant) with a seed and first player
    drawn by hypothesis, after 0 to ``max_actions`` legal actions chosen by hypothesis."""
    count = draw(st.integers(0, max_actions)) if max_actions else 0
    return _play(draw, variant, players, count, False)[1]
