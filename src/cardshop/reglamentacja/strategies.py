"""Hypothesis strategies of valid Reglamentacja variants, for property-based tests.

Needs hypothesis (``python -m pip install ".[testing]"``); the family's package never
imports this module: the core's :func:`cardshop.testing.strategies.family_variants`
finds it through ``Family.variant_strategy``::

    from cardshop.testing.strategies import action_sequences, family_variants

    @given(action_sequences(family_variants("reglamentacja", max_turn_cap=10)))
    def test_short_games_replay(playthrough): ...

Every knob of the variant format is drawn: stamp kinds and copies, categories, the
shopping cards (costs, categories, icons), the visit cards, the row size, the deal,
allocation and shop draw, the hand limit, the spin range, the trade limit, the
speculator's die and price or no speculator, whether places in the queue are traded,
the final turn's stamps, the turn cap, the player range (2 to 6, ``max_trade`` by
player count or not), the three-player option and (when asked) a match. Each variant
is validated by the family's variant model and passes its semantic checks.
"""

from __future__ import annotations

from math import comb
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import DrawFn, SearchStrategy

from cardshop.core import check_range
from cardshop.reglamentacja.variant import (
    MAX_ACTION_SPACE,
    MAX_CHOICE,
    MAX_GAME_WORK,
    ReglamentacjaVariant,
)

__all__ = ["KIND_NAMES", "variants"]

KIND_NAMES = (
    "sugar", "meat", "flour", "alcohol", "butter", "soap", "chocolate",
    "coffee", "tea", "eggs", "milk", "oil",
)  # fmt: skip
"""Stamp kind names the strategy draws from (the rulebook's seven first)."""

CATEGORY_NAMES = ("fix-up", "meal", "cake", "event", "party", "gift")


@st.composite
def _variants(
    draw: DrawFn,
    *,
    name: str,
    min_players: int,
    max_players: int,
    max_kinds: int,
    max_copies: int,
    max_cards: int,
    max_row_size: int,
    max_trade: int,
    max_spin: int,
    min_turn_cap: int,
    max_turn_cap: int,
    three_players_option: bool | None,
    match: bool | None,
    chance: int | None,
) -> ReglamentacjaVariant:
    low = draw(st.integers(min_players, max_players), label="players.min")
    high = draw(st.integers(low, max_players), label="players.max")
    # Stamps: kinds and copies, enough to deal.
    k = draw(st.integers(1, max_kinds), label="kinds")
    kinds = list(draw(st.permutations(KIND_NAMES[:max_kinds]))[:k])
    copies = [draw(st.integers(1, max_copies)) for _ in kinds]
    deal = draw(st.integers(0, min(6, sum(copies) // high)), label="deal")
    # Categories: "meal" among them whenever the three-player option is on.
    option = three_players_option
    if option is None:
        option = draw(st.booleans(), label="three_players_without_meal_visits")
    n_cats = draw(st.integers(2 if option else 1, 4), label="categories")
    categories = list(draw(st.permutations(CATEGORY_NAMES))[:n_cats])
    if option and "meal" not in categories:
        categories[0] = "meal"
    # The shopping cards and the row.
    row_size = draw(st.integers(1, max_row_size), label="row_size")
    n_cards = draw(st.integers(row_size, max(row_size, max_cards)), label="cards")
    cards = [
        {
            "name": f"card-{i}",
            "cost": draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=4)),
            "category": draw(st.sampled_from(categories)),
            "icons": draw(st.integers(1, 4)),
        }
        for i in range(n_cards)
    ]
    # Visit cards: at least one per seat, and three without "meal" for the option.
    doubles = st.lists(st.sampled_from(categories), min_size=1, max_size=2, unique=True)
    visits = [{"name": f"visit-{i}", "double": draw(doubles)} for i in range(high)]
    spare = draw(st.integers(0, 2), label="spare visits")
    visits += [{"name": f"visit-{high + i}", "double": draw(doubles)} for i in range(spare)]
    if option:
        others = [c for c in categories if c != "meal"]
        plain = sum(1 for v in visits if "meal" not in v["double"])
        visits += [
            {"name": f"visit-{len(visits) + i}", "double": [draw(st.sampled_from(others))]}
            for i in range(max(0, 3 - plain))
        ]
    # Trading: offers bounded so that the action index space stays within its limit.
    trade = draw(st.integers(1, max_trade), label="max_trade")
    while trade > 1 and high * 2 * comb(k + trade, trade) ** 2 > MAX_ACTION_SPACE:
        trade -= 1
    spin_min = draw(st.integers(1, max_spin), label="spin.min")
    data: dict[str, Any] = {
        "family": "reglamentacja",
        "name": name,
        "players": {"min": low, "max": high},
        "stamps": dict(zip(kinds, copies, strict=True)),
        "categories": categories,
        "cards": cards,
        "visits": visits,
        "row_size": row_size,
        "deal": deal,
        "allocation": draw(st.integers(0, 3), label="allocation"),
        "shop_draw": draw(st.integers(0, 2), label="shop_draw"),
        "hand_limit": draw(st.integers(1, 8), label="hand_limit"),
        "spin": {"min": spin_min, "max": draw(st.integers(spin_min, max_spin), label="spin.max")},
        "max_trade": trade,
        "speculator": {
            "die_sides": draw(st.integers(1, row_size), label="die_sides"),
            "price": draw(st.integers(1, 3), label="price"),
        },
        "final_stamps": draw(st.integers(0, 3), label="final_stamps"),
        "turn_cap": draw(st.integers(min_turn_cap, max_turn_cap), label="turn_cap"),
        "three_players_without_meal_visits": option,
    }
    if not draw(st.booleans(), label="speculator"):
        data["speculator"] = None  # RG-SPEC: no speculator
    if not draw(st.booleans(), label="queue_trading"):
        data["queue_trading"] = False  # RG-TRADE-5: no places traded
    if high > low and draw(st.booleans(), label="max_trade by players"):
        data["max_trade"] = {low: trade, high: draw(st.integers(1, trade), label="max_trade.max")}
    if match or (match is None and draw(st.booleans(), label="match")):
        data["match"] = {"games_per_player": draw(st.integers(1, 2), label="games_per_player")}
    model = chance if chance is not None else draw(st.sampled_from((1, 2)), label="chance")
    if model != 1:
        data["chance"] = model
    variant = ReglamentacjaVariant.model_validate(data)
    while variant.trade_for(high) > 1 and variant.most_choice() > MAX_CHOICE:
        data["max_trade"] = variant.trade_for(high) - 1  # one decision's choice bounded
        variant = ReglamentacjaVariant.model_validate(data)
    if variant.game_work() > MAX_GAME_WORK:  # the turn cap lowered to bound a game's work
        most = max(variant.most_choice(n) for n in range(low, high + 1))
        data["turn_cap"] = MAX_GAME_WORK // (variant.spin.max * most) - 1
        variant = ReglamentacjaVariant.model_validate(data)
    problems = variant.semantic_errors()
    if problems:  # pragma: no cover - a bug in this strategy
        raise AssertionError(f"variants() built an invalid variant: {problems} from {data}")
    return variant


def variants(
    *,
    name: str = "generated",
    min_players: int = 2,
    max_players: int = 6,
    max_kinds: int = 4,
    max_copies: int = 6,
    max_cards: int = 10,
    max_row_size: int = 6,
    max_trade: int = 2,
    max_spin: int = 6,
    min_turn_cap: int = 1,
    max_turn_cap: int = 30,
    three_players_option: bool | None = None,
    match: bool | None = False,
    chance: int | None = None,
) -> SearchStrategy[ReglamentacjaVariant]:
    """Valid Reglamentacja variants (all options keyword-only).

    Players between ``min_players`` and ``max_players`` (2 to 6); 1 to ``max_kinds``
    stamp kinds (at most 12) of 1 to ``max_copies`` copies; 1 to ``max_row_size``
    cards in the row and up to ``max_cards`` shopping cards (never fewer than the row)
    costing 1 to 4 stamps; offers of up to ``max_trade`` stamps each way (1 to 4,
    lowered if the action index space or one decision's choice would pass its
    limit); spins of 1 to ``max_spin`` offer turns; a turn cap from ``min_turn_cap``
    to ``max_turn_cap`` (lowered if a game's work would pass its limit).
    ``three_players_option`` and ``match`` fix the three-player option and whether
    the variant is played as a match (``None``: drawn); ``chance`` the chance model,
    1 or 2 (docs/chance.md; ``None``: drawn). The defaults keep variants small, so
    that games are quick.
    """
    check_range("players", min_players, max_players, 2, 6)
    check_range("max_kinds", 1, max_kinds, 1, len(KIND_NAMES))
    check_range("max_copies", 1, max_copies, 1, 40)
    check_range("max_row_size", 1, max_row_size, 1, 12)
    check_range("max_cards", 1, max_cards, 1, 60)
    check_range("max_trade", 1, max_trade, 1, 4)
    check_range("max_spin", 1, max_spin, 1, 100)
    check_range("turn cap", min_turn_cap, max_turn_cap, 1, 5000)
    return _variants(
        name=name,
        min_players=min_players,
        max_players=max_players,
        max_kinds=max_kinds,
        max_copies=max_copies,
        max_cards=max_cards,
        max_row_size=max_row_size,
        max_trade=max_trade,
        max_spin=max_spin,
        min_turn_cap=min_turn_cap,
        max_turn_cap=max_turn_cap,
        three_players_option=three_players_option,
        match=match,
        chance=chance,
    )
