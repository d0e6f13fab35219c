"""Hypothesis strategies of valid Klunker variants, for property-based tests.

Needs hypothesis (``python -m pip install ".[testing]"``); the family's package never
imports this module: :func:`cardshop.testing.strategies.family_variants` finds it
through ``Family.variant_strategy``::

    from cardshop.testing.strategies import action_sequences, family_variants

    @given(action_sequences(family_variants("klunker", max_players=4, tax=True)))
    def test_short_games_replay(playthrough): ...
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import DrawFn

from cardshop.core import check_range
from cardshop.klunker.variant import Variant

__all__ = ["KIND_NAMES", "variants"]

KIND_NAMES = ("amber", "beryl", "coral", "jade", "onyx", "opal", "pearl", "ruby", "topaz")
"""The card kinds that generated variants draw their names from."""

_TIEBREAKS = ("fewest_safe_and_window", "fewest_safe", "fewest_window")


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
    house_rules: bool = False,
    chance: int | None = None,
    name: str = "generated",
) -> Variant:
    """A random valid variant of the Klunker family.

    Everything varies: card kinds and counts, player range, starting cash, hand
    size, the round's steps and their order (``tax`` and ``reshuffle`` included
    when true, left out when false, either when None), set size, payout table and
    overrides, where unpaid cards and tax go, price, the decline and no-cash rules,
    tiebreaks, match format and a small round cap (``min_round_cap`` to
    ``max_round_cap``). With ``house_rules``, also the keys the editions leave at
    their default (the kernel does not play them): a window cap, several purchases a
    round, a price expression, starting cash by seat, a number of rounds, a weighted
    score, any tiebreak, payouts above the set size paid from the deck and payout
    expressions. ``chance``: the chance model (docs/chance.md), 1 or 2; None draws
    either.
    """
    check_range("kinds", min_kinds, max_kinds, 1)
    check_range("round cap", min_round_cap, max_round_cap, 1)
    check_range("players", min_players, max_players, 2)
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
    if house_rules:
        _house_rules(draw, data, set_size, hand_size)
    model = chance if chance is not None else draw(st.sampled_from((1, 2)), label="chance")
    if model != 1:
        data["chance"] = model
    variant = Variant.model_validate(data)
    problems = variant.semantic_errors()
    if problems:  # pragma: no cover - a bug in this strategy
        raise AssertionError(f"variants() built an invalid variant: {problems} from {data}")
    return variant


_PRICES = (
    "max(1, window / 2)",
    "lap",
    "owner_cash > buyer_cash ? 0 : 2",
    "round % 3",
    "players - 2",
)


_PAYS = ("min(4, rows)", "rows", "kind_count / 3", "rows > 2 ? 0 : 5")


def _house_rules(draw: DrawFn, data: dict[str, Any], set_size: int, hand_size: int) -> None:
    """Draw the house-rule keys into ``data`` (see :func:`variants`)."""
    from cardshop.klunker.rules import SCORE_TERMS, TIEBREAK_TERMS

    if draw(st.booleans()):
        data["window_cap"] = draw(st.integers(1, hand_size + 1))
    data["purchase"]["per_round"] = draw(st.integers(1, 3))
    if draw(st.booleans()):
        data["purchase"]["price"] = draw(st.sampled_from(_PRICES))
    players = data["players"]
    cash = data["starting_cash"]
    by_seat = {}
    for n in range(players["min"], players["max"] + 1):
        if draw(st.booleans()):  # the same total as starting_cash: the deck suffices
            seats = [cash[n]] * n
            if cash[n] and n > 1:
                seats[0] -= 1
                seats[-1] += 1
            by_seat[n] = seats
    if by_seat:
        data["starting_cash_by_seat"] = by_seat
    if draw(st.booleans()):
        data["rounds"] = draw(st.integers(1, data["round_cap"]))
    if draw(st.booleans()):
        data["score"] = {t: draw(st.integers(-2, 2)) for t in SCORE_TERMS}
    rules = [f"{most}_{term}" for most in ("fewest", "most") for term in TIEBREAK_TERMS]
    data["tiebreak"] = draw(st.lists(st.sampled_from(rules), unique=True, max_size=3))
    if draw(st.booleans()):
        data["sale"]["extra_from"] = "deck"
        if draw(st.booleans()):
            data["sale"]["pay"] = draw(st.sampled_from(_PAYS))
        data["sale"]["payout"] = draw(
            st.lists(st.integers(0, 2 * set_size), min_size=1, max_size=5)
        )
