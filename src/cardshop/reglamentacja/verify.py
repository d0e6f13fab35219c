"""What ``cardshop verify`` needs of the Reglamentacja family: a canonical state key,
the rule clauses each action verb and event carries out, and a shrinker that derives a
small variant from any variant of the family.

Clause IDs refer to docs/reglamentacja-rules.md.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from cardshop.core import Game, SetupError, VariantBase, VerifyHooks
from cardshop.reglamentacja.game import ReglamentacjaGame
from cardshop.reglamentacja.variant import ReglamentacjaVariant

__all__ = ["CLAUSES", "VERIFY", "shrink", "state_key"]

_TRADE = 0
_FINAL_TRADE = 3
_FINAL_SHOP = 4


def state_key(game: Game) -> Hashable:
    """The state as nested tuples of ints, with every stamp written by its kind.

    The rules never tell two stamps of one kind apart (hands, the discard pile and the
    legal actions name kinds, observations count them), so hands and the discard pile
    are counts per kind and the stamp stack is its sequence of kinds, top last.
    Shopping cards and visit cards are unique and named, so they keep their ids (the
    row, the shopping stack and the bought and removed cards in order, as the
    observation shows them). Left out: the seed, the count of chance events, the
    moves, the counters of what happened (the result's details; they record the
    history, not the state), the first player, the unused visits (every visit not
    dealt), the hand sizes (the sums of the hand counts) and the cached legal
    actions. The spin, the offer turns played and the pending offer count only while
    the top spins, the buyers of the final shopping only then: outside those phases the
    game keeps stale values that nothing reads.
    """
    assert isinstance(game, ReglamentacjaGame)
    kind_of = game.rules.stamp_kind
    phase = game._phase
    if phase in (_TRADE, _FINAL_TRADE):
        trade: tuple[int, ...] = (
            game._spin,
            game._done,
            game._pt,
            game._pg,
            game._pk,
            game._pp,
        )
    else:
        trade = ()
    return (
        phase,
        game._turn,
        game._active,
        game._termination,
        game._fs if phase == _FINAL_SHOP else 0,
        trade,
        tuple(game._queue),
        tuple(game._hand),
        tuple(game._dcount),
        tuple([kind_of[sid] for sid in game._stack]),
        tuple(game._row),
        tuple(game._cstack),
        tuple([tuple(b) for b in game._bought]),
        tuple(game._removed),
        tuple(game._visit),
    )


CLAUSES: dict[str, tuple[str, ...]] = {
    # What a deal carries out (the search does not see a new game's own events).
    "setup": ("RG-SETUP-1", "RG-SETUP-2", "RG-SETUP-3", "RG-SETUP-4", "RG-SETUP-5"),
    # Action verbs (RG-ACT-1).
    "offer": ("RG-TRADE-2", "RG-TRADE-3"),
    "accept": ("RG-TRADE-4",),
    "reject": ("RG-TRADE-4",),
    "speculate": ("RG-SPEC-1", "RG-SPEC-2"),
    "stop": ("RG-TRADE-6",),
    "pass": ("RG-TRADE-7", "RG-SHOP-2"),
    "discard": ("RG-LIMIT-1", "RG-STAMP-1"),
    "buy": ("RG-SHOP-1", "RG-SHOP-2"),
    # Events, by class name.
    "RowDealt": ("RG-SETUP-1",),
    "VisitDrawn": ("RG-SETUP-3",),
    "QueueFormed": ("RG-SETUP-4", "RG-SETUP-5"),
    "TurnBegan": ("RG-TURN-2",),
    "StampsDrawn": ("RG-SETUP-2", "RG-TURN-1", "RG-SHOP-3", "RG-FINAL-2"),
    "Reshuffled": ("RG-STAMP-2",),
    "TopSpun": ("RG-TRADE-1",),
    "Offered": ("RG-TRADE-3",),
    "Accepted": ("RG-TRADE-4", "RG-TRADE-5"),
    "Rejected": ("RG-TRADE-4",),
    "OfferTurnPassed": ("RG-TRADE-7",),
    "Speculated": ("RG-SPEC-1", "RG-SPEC-2", "RG-STAMP-1"),
    "TopStopped": ("RG-TRADE-1", "RG-TRADE-6"),
    "HandLimited": ("RG-LIMIT-1", "RG-STAMP-1"),
    "TopPassed": ("RG-TURN-3",),
    "Bought": ("RG-SHOP-2", "RG-ROW-1", "RG-STAMP-1"),
    "ShopPassed": ("RG-SHOP-2", "RG-SHOP-3"),
    "SpeculatorBought": ("RG-SPEC-3", "RG-ROW-1"),
    "RowRefilled": ("RG-ROW-1",),
    "FinalTurnBegan": ("RG-FINAL-1", "RG-FINAL-3"),
    "GameEnded": ("RG-FINAL-4", "RG-SCORE-1", "RG-SCORE-2", "RG-CAP-1"),
}
"""The rule clauses each action verb and each event class carries out."""


def shrink(variant: VariantBase, players: int) -> tuple[VariantBase, tuple[str, ...]]:
    """A small variant derived from ``variant`` for ``players`` players, and what was
    shrunk, one line each.

    Two stamp kinds (the first two that cards cost) with ``players + 1`` stamps, so a
    draw soon empties the stack and reshuffles the discards (RG-STAMP-2); the first two
    shopping cards of the variant, re-costed at one stamp and at one of each kind, and a
    row of one, so the speculator's die has one side and the row runs short once both
    cards have left it (RG-SPEC-3, RG-FINAL-1); only the visit cards the seats draw;
    one stamp dealt, allocated, drawn at the counter and in the final turn; a hand limit of two
    (RG-LIMIT-1); a spin of exactly one offer turn of at most one stamp a side; a
    speculator (if the variant has one) of price one; two turns before the cap
    (RG-CAP-1). Offers of places stay as the variant has them (RG-TRADE-5, RG-TRADE-8).
    Refuses (:class:`~cardshop.SetupError`) a player count the variant does not play.
    """
    from cardshop.core import variant_from_data

    var = ReglamentacjaVariant.of_family(variant)
    lo, hi = var.players.min, var.players.max
    if type(players) is not int or not lo <= players <= hi:
        raise SetupError(
            f"{var.name!r} plays {lo} to {hi} players, not {players!r}: nothing to shrink"
        )
    costed: list[str] = []
    for kind in var.stamps:
        if any(kind in card.cost for card in var.cards) and kind not in costed:
            costed.append(kind)
    kinds = (costed or list(var.stamps))[:2]
    total = players + 1
    if len(kinds) == 1:
        stamps = {kinds[0]: total}
    else:
        stamps = {kinds[0]: total - total // 2, kinds[1]: total // 2}
    costs = [[kinds[0]], list(kinds)]
    cards: list[dict[str, Any]] = []
    for card, cost in zip(var.cards, costs, strict=False):
        cards.append({**card.model_dump(mode="json"), "cost": cost})
    visits = [v.model_dump(mode="json") for v in var.visits[:players]]
    data = var.to_data()
    data.update(
        name=f"{var.name}-shrunk",
        players={"min": players, "max": players},
        match=None,
        stamps=stamps,
        cards=cards,
        visits=visits,
        row_size=1,
        deal=1,
        allocation=1,
        shop_draw=1,
        hand_limit=2,
        spin={"min": 1, "max": 1},
        max_trade=1,
        final_stamps=1,
        turn_cap=2,
        three_players_without_meal_visits=False,
    )
    spec = var.speculator
    if spec is not None:
        data["speculator"] = {"die_sides": 1, "price": 1}
    small = variant_from_data(data, source=f"{var.name} shrunk for {players} players")
    old_stamps = ", ".join(f"{k} {c}" for k, c in var.stamps.items())
    new_stamps = ", ".join(f"{k} {c}" for k, c in stamps.items())
    card_text = ", ".join(f"{c['name']} ({' '.join(c['cost'])})" for c in cards)
    lines = [
        f"players: {lo} to {hi} -> {players}",
        f"stamps: {old_stamps} -> {new_stamps}",
        f"cards: {len(var.cards)} -> {len(cards)}, re-costed: {card_text}",
        f"visits: {len(var.visits)} -> {len(visits)} (one for each seat)",
        f"row_size: {var.row_size} -> 1",
        f"deal: {var.deal_for(players)} -> 1; allocation: {var.allocation} -> 1; "
        f"shop_draw: {var.shop_draw} -> 1; final_stamps: {var.final_stamps_for(players)} -> 1",
        f"hand_limit: {var.hand_limit} -> 2",
        f"spin: {var.spin.min} to {var.spin.max} -> 1 offer turn",
        f"max_trade: {var.trade_for(players)} -> 1",
        f"turn_cap: {var.turn_cap} -> 2",
    ]
    if spec is not None:
        lines.append(
            f"speculator: die of {spec.die_sides}, price {spec.price} -> die of 1, price 1"
        )
    if var.three_players_without_meal_visits:
        lines.append("three_players_without_meal_visits: true -> false (each seat's visit is kept)")
    return small, tuple(lines)


VERIFY = VerifyHooks(state_key=state_key, clauses=CLAUSES, shrink=shrink)
"""The family's hooks for ``cardshop verify``."""
