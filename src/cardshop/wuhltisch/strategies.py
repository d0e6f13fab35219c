"""Hypothesis strategies of valid Wühltisch variants (needs hypothesis: the test extra).

The family names :func:`variants` as its ``Family.variant_strategy``, so
``cardshop.testing.strategies.family_variants("wuhltisch", **options)`` finds it. This
module is imported only then (never by the package's ``__init__``): the run-time
library does not need hypothesis.

Everything the variant format has varies: the attributes (1 to 6, with 2 or 3 values
each), the shirt prices and copies, the luxury price, the lost property, the shopping
lists (how many attributes each names, and which), lists per player, set size,
budget, match threshold (an integer or an expression), bonuses, score terms, the
caller rule, rounds, the tick cap and the player range. Every variant passes the
family's model and its ``semantic_errors()``: they are variants an author could
write. Counts the checks need (enough lists for every seat, a heap that never runs
dry) are made up after the draws, so every draw gives a variant and shrinking stays
simple.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import DrawFn

from cardshop.core import check_range
from cardshop.wuhltisch.variant import MAX_SEAT_TICKS, WuhltischVariant

__all__ = ["ATTRIBUTES", "variants"]

ATTRIBUTES: dict[str, tuple[str, str, str]] = {
    "pattern": ("stripes", "dots", "checks"),
    "colour": ("red", "blue", "green"),
    "size": ("s", "xl", "m"),
    "sleeves": ("long", "short", "none"),
    "collar": ("round", "vee", "polo"),
    "fabric": ("cotton", "linen", "silk"),
}
"""The attributes generated variants draw from, each with up to three values."""

_PRICES = (0, 5, 10, 20, 30, 40, 50, 80, 120)
_MAX_COPIES = 8
_MAX_USELESS = 50
_MAX_LISTS = 64


_SET_TERMS = ("2 * luxury", "-2 * mismatches", "budget_left >= 20 ? 3 : 0", "4 * all_match")
"""Set terms (WT-SCORE-6) that give a value in -100..100 in every variant."""
_ROUND_TERMS = ("3 * caller", "-failed_sets", "round == 1 ? 2 : 0", "-5 * capped")
"""Round terms (WT-SCORE-7) that give a value in -100..100 in every variant."""


@st.composite
def variants(
    draw: DrawFn,
    *,
    min_attributes: int = 1,
    max_attributes: int = 4,
    min_players: int = 1,
    max_players: int = 5,
    max_prices: int = 5,
    max_copies: int = 2,
    max_set_size: int = 4,
    max_lists_per_player: int = 3,
    max_rounds: int = 4,
    min_round_ticks: int = 1,
    max_round_ticks: int = 60,
    match: bool | None = False,
    chance: int | None = None,
    name: str = "generated",
) -> WuhltischVariant:
    """A random valid Wühltisch variant.

    ``min_``/``max_`` options bound what is drawn: attributes, players, distinct
    prices, copies of each shirt, set size, lists per player, rounds and the tick cap
    (``round_ticks``; small by default, so games stay short; lowered where rounds x
    ticks x players would pass ``MAX_SEAT_TICKS``). ``match``: True gives
    every variant a ``match`` key (a series of games), False none, None either.
    ``chance``: the chance model (docs/chance.md), 1 or 2; None draws either.
    Copies (up to 8), then prices, then useless lost property (up to 50) may be
    raised above what was drawn so that the heap is large enough for the most players.
    """
    check_range("attributes", min_attributes, max_attributes, 1, len(ATTRIBUTES))
    check_range("players", min_players, max_players, 1, 5)
    check_range("prices", 1, max_prices, 1, len(_PRICES))
    check_range("copies", 1, max_copies, 1, _MAX_COPIES)
    check_range("set size", 1, max_set_size, 1, 5)
    check_range("lists per player", 1, max_lists_per_player, 1, 5)
    check_range("rounds", 1, max_rounds, 1, 20)
    check_range("round ticks", min_round_ticks, max_round_ticks, 1, 100_000)

    order = draw(st.permutations(list(ATTRIBUTES)))
    chosen = order[: draw(st.integers(min_attributes, max_attributes), label="attributes")]
    attributes = {
        a: list(ATTRIBUTES[a][: draw(st.integers(2, 3), label=f"{a} values")]) for a in chosen
    }
    low = draw(st.integers(min_players, max_players), label="min players")
    high = draw(st.integers(low, max_players), label="max players")
    set_size = draw(st.integers(1, max_set_size), label="set size")
    per = draw(st.integers(1, max_lists_per_player), label="lists per player")
    prices = sorted(draw(st.sets(st.sampled_from(_PRICES), min_size=1, max_size=max_prices)))
    copies = draw(st.integers(1, max_copies), label="copies")
    values = draw(st.lists(st.integers(1, 5), max_size=8), label="lost property values")
    useless = draw(st.integers(0, 8), label="useless lost property")

    # The lists: every one names the same number of attributes, at least one per seat.
    size = draw(st.integers(1, len(attributes)), label="attributes per list")
    attrs = list(attributes)
    wanted = st.tuples(
        st.permutations(attrs), st.lists(st.integers(0, 2), min_size=size, max_size=size)
    )
    need_lists = per * high
    drawn = draw(st.lists(wanted, min_size=1, max_size=_MAX_LISTS), label="lists")
    first = len(drawn)
    while len(drawn) < need_lists:  # repeat the drawn lists (a deck may hold copies)
        drawn.append(drawn[len(drawn) % first])
    lists = []
    for named, picks in drawn:
        named_attrs = sorted(named[:size], key=attrs.index)
        lists.append(
            {
                a: attributes[a][i % len(attributes[a])]
                for a, i in zip(named_attrs, picks, strict=True)
            }
        )

    # Make the heap large enough: every seat holding a full hand, a card in view and
    # every set laid down must still leave a card per seat to look at. [WT-TICK-1]
    combos = 1
    for vs in attributes.values():
        combos *= len(vs)
    out = high * (1 + set_size * (per + 1))
    while combos * len(prices) * copies + useless < out + high:
        if copies < _MAX_COPIES:
            copies += 1
        elif len(prices) < len(_PRICES):
            prices = sorted({*prices, min(set(_PRICES) - set(prices))})
        elif useless < _MAX_USELESS:
            useless += 1
        else:  # pragma: no cover - cannot happen within the bounds checked above
            raise AssertionError("variants() cannot make the heap large enough")

    threshold = draw(st.integers(0, set_size * size), label="match threshold")
    data: dict[str, Any] = {
        "family": "wuhltisch",
        "name": name,
        "players": {"min": low, "max": high},
        "rounds": draw(st.integers(1, max_rounds), label="rounds"),
        "attributes": attributes,
        "shirts": {"prices": prices, "copies": copies},
        "luxury_price": draw(st.sampled_from(prices[-1:] + list(_PRICES)), label="luxury"),
        "lost_property": {"useless": useless, "values": values},
        "lists": lists,
        "lists_per_player": per,
        "set_size": set_size,
        "budget": draw(st.sampled_from((0, 30, 60, 80, 100, 200)), label="budget"),
        "match_threshold": threshold,
        "bonuses": {
            "all_match": draw(st.integers(0, 5), label="all-match bonus"),
            "luxury": draw(st.integers(0, 5), label="luxury bonus"),
        },
        "caller_all_or_nothing": draw(st.booleans(), label="caller rule"),
        "round_ticks": draw(st.integers(min_round_ticks, max_round_ticks), label="round ticks"),
    }
    if draw(st.booleans(), label="threshold as an expression"):
        data["match_threshold"] = f"max_matches - {set_size * size - threshold}"
    set_terms = draw(
        st.lists(st.sampled_from(_SET_TERMS), max_size=2, unique=True), label="set terms"
    )
    round_terms = draw(
        st.lists(st.sampled_from(_ROUND_TERMS), max_size=2, unique=True), label="round terms"
    )
    if set_terms or round_terms:
        data["score"] = {
            "per_set": {f"s{i}": t for i, t in enumerate(set_terms)},
            "per_round": {f"r{i}": t for i, t in enumerate(round_terms)},
        }
    if match or (match is None and draw(st.booleans(), label="match")):
        data["match"] = {"games_per_player": draw(st.integers(1, 2), label="games per player")}
    model = chance if chance is not None else draw(st.sampled_from((1, 2)), label="chance")
    if model != 1:
        data["chance"] = model
    most_ticks = MAX_SEAT_TICKS // (data["rounds"] * high)
    if data["round_ticks"] > most_ticks:  # lowered: a game's decisions are bounded
        data["round_ticks"] = most_ticks
    variant = WuhltischVariant.model_validate(data)
    problems = variant.semantic_errors()
    if problems:  # pragma: no cover - a bug in this strategy
        raise AssertionError(f"variants() built an invalid variant: {problems} from {data}")
    return variant
