"""What ``cardshop verify`` needs of the Wühltisch family: the state key, the clauses
each action and event carries out, and the shrinking of a variant to a small one.

Cards of one kind are written by kind in the key (:func:`card_kinds`): two shirts of
one name (values and price), two lost-property cards of one value, two lists naming
the same wants. Held shirts are sorted by card id and a slot (``drop S``, ``swap S``)
names a place in that order, so two shirts are only of one kind when no shirt of
another name lies between them in card-id order: then a hand's order by id is its order
by kind, and a relabelling within kinds keeps every slot's kind. Clause IDs refer to
docs/wuhltisch-rules.md.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, cast

from cardshop.core import Game, SetupError, VariantBase, VerifyHooks

if TYPE_CHECKING:
    from cardshop.wuhltisch.game import WuhltischGame
    from cardshop.wuhltisch.rules import WuhltischRules

__all__ = ["CLAUSES", "VERIFY", "card_kinds", "shrink", "state_key"]


_KINDS: dict[str, tuple[int, ...]] = {}


def card_kinds(rules: WuhltischRules) -> tuple[int, ...]:
    """The kind of every card id, numbered from 0 (cached per variant).

    Shirts: one kind per run of shirts of one name in card-id order. Lost property:
    one kind per value (the useless cards are one kind). Lists: one kind per name
    (the attributes and values it wants). Kinds of the three sorts never coincide.
    """
    known = _KINDS.get(rules.content_hash)
    if known is not None:
        return known
    names = rules.card_name
    n_shirts = rules.n_shirts
    kinds: list[int] = []
    count = 0
    for card in range(n_shirts):  # a new run of shirts of one name: a new kind
        if card and names[card] != names[card - 1]:
            count += 1
        kinds.append(count)
    by_name: dict[str, int] = {}
    for card in range(n_shirts, rules.n_cards):  # lost property and lists: by name
        kinds.append(by_name.setdefault(names[card], count + 1 + len(by_name)))
    out = tuple(kinds)
    _KINDS[rules.content_hash] = out
    return out


def state_key(game: Game) -> Hashable:
    """The state as nested tuples of ints, cards written by kind (:func:`card_kinds`).

    Kept: the round, the tick in the round and in the game (the result counts them),
    whether the game is over, the heap in order, and per seat the card in view, the
    hand (in slot order), the lost property found (in the order found), the
    face-down stack in order, the face-up list, the sets laid down, and what the last
    scored round revealed; the score sheet (round scores, callers, capped rounds).
    Left out: the seed, the count of chance events, the moves and the step count (how
    the state was reached), the box (the lists not placed elsewhere: it is never read
    and the next round deals every list again) and the cards in front of each seat
    (counted from the last round's sets and lost property). Once the game is over the
    heap is left out too: nothing can be drawn from it any more, and no observation or
    result shows it.
    """
    game = cast("WuhltischGame", game)  # the family's hook: only its games come here
    kind = card_kinds(game.rules)
    view = game._view
    hands = game._hands
    found = game._found
    stacks = game._stacks
    active = game._active
    sets = game._sets
    last_sets = game._last_sets
    last_found = game._last_found
    seats: list[tuple[Any, ...]] = []
    for s in range(game.n):
        v = view[s]
        a = active[s]
        seats.append(
            (
                kind[v] if v >= 0 else -1,
                tuple([kind[c] for c in hands[s]]),
                tuple([kind[c] for c in found[s]]),
                tuple([kind[c] for c in stacks[s]]),
                kind[a] if a >= 0 else -1,
                tuple([tuple([kind[c] for c in st]) for st in sets[s]]),
                tuple([tuple([kind[c] for c in st]) for st in last_sets[s]]),
                tuple([kind[c] for c in last_found[s]]),
            )
        )
    return (
        game._round,
        game._tick,
        game._ticks,
        game._over,
        () if game._over else tuple([kind[c] for c in game._heap]),
        tuple(seats),
        tuple([tuple(r) for r in game._round_scores]),
        tuple([tuple(c) for c in game._callers]),
        tuple(game._capped),
    )


CLAUSES: dict[str, tuple[str, ...]] = {
    # What a deal carries out (the search does not see a new game's own events).
    "setup": ("WT-SETUP-1", "WT-SETUP-2"),
    # action verbs
    "look": ("WT-TICK-1", "WT-TICK-7", "WT-TICK-8"),
    "keep": ("WT-TICK-4", "WT-TICK-8"),
    "swap": ("WT-TICK-4", "WT-TICK-5", "WT-TICK-8"),
    "throw": ("WT-TICK-3", "WT-TICK-7", "WT-TICK-8"),
    "drop": ("WT-TICK-5", "WT-TICK-8"),
    "buy": ("WT-TICK-6", "WT-TICK-8"),
    "wait": ("WT-TICK-7", "WT-TICK-8"),
    # events
    "RoundStarted": ("WT-SETUP-2", "WT-CARD-1"),
    "ListTurned": ("WT-SETUP-2", "WT-TICK-6"),
    "Looked": ("WT-TICK-1",),
    "FoundLostProperty": ("WT-TICK-2", "WT-CARD-3"),
    "Kept": ("WT-TICK-4",),
    "Swapped": ("WT-TICK-4", "WT-TICK-3"),
    "Threw": ("WT-TICK-3", "WT-TICK-2"),
    "Dropped": ("WT-TICK-5", "WT-TICK-3"),
    "LaidDown": ("WT-TICK-6", "WT-END-2"),
    "HandsOff": ("WT-END-1",),
    "ReturnedToHeap": ("WT-END-2", "WT-TICK-3"),
    "SetScored": ("WT-SCORE-1", "WT-SCORE-2", "WT-SCORE-3", "WT-SCORE-6", "WT-KNOW-2"),
    "RoundScored": ("WT-SCORE-4", "WT-SCORE-5", "WT-SCORE-7", "WT-CAP-1"),
    "GameEnded": ("WT-END-3",),
}
"""The rule clauses each action verb and each event class carries out."""

SHRUNK_TICKS = 4
"""The tick cap of a shrunk variant: the fewest ticks in which every action can be
taken (look, keep, look, then swap with a full hand of one)."""


def shrink(variant: VariantBase, players: int) -> tuple[VariantBase, tuple[str, ...]]:
    """A small variant of the family for ``players`` seats, and what was shrunk.

    One round of at most :data:`SHRUNK_TICKS` ticks; sets of one shirt and one list
    per seat, so that a seat can buy, call the round, keep, swap and drop within the
    cap; one attribute of two values, the one the first list names; shopping lists
    wanting either value, in turn (a list no shirt fits makes a set that scores 0);
    shirts of the wanted value at the cheapest price, the budget, and one luxury shirt
    above it if the variant has a luxury price above the cheapest (within budget only
    by the luxury rule); one useless and one useful lost-property card where the
    variant has such cards. The bonuses, the caller's risk and the score terms are kept
    (terms that do not fit the small variant are dropped, and the lines say so).
    Raises :class:`~cardshop.SetupError` when ``players`` is not a player count of
    ``variant``.
    """
    from cardshop.core import VariantError, variant_from_data
    from cardshop.wuhltisch.variant import as_wuhltisch

    v = as_wuhltisch(variant)
    if not v.players.min <= players <= v.players.max:
        raise SetupError(
            f"variant {v.name!r} is for {v.players.min} to {v.players.max} players, not {players}"
        )
    lines: list[str] = [f"players: {players} only (was {v.players.min} to {v.players.max})"]
    attribute, wanted = next(iter(v.lists[0].items()))
    values = v.attributes[attribute]
    other = next(x for x in values if x != wanted)
    lines.append(
        f"attributes: {attribute} only, values {wanted} and {other} "
        f"(was {len(v.attributes)} attributes)"
    )
    prices = sorted({price for _, price in v.shirt_list()})
    cheap = prices[0]
    luxury = v.luxury_price if v.luxury_price > cheap else None
    useless = 1 if v.lost_property.useless else 0
    useful = [min(v.lost_property.values)] if v.lost_property.values else []
    # The heap must hold a card for every seat when each holds one shirt and one in
    # view and has laid down its set (the variant's own check): 4 cards a seat.
    fill = 4 * players - useless - (1 if luxury is not None else 0)
    shirts = [f"{wanted}@{cheap}"] * fill
    if luxury is not None:
        shirts.append(f"{wanted}@{luxury}")
    lines.append(
        f"shirts: {fill} x {wanted}@{cheap}"
        + (f" and one luxury {wanted}@{luxury}" if luxury is not None else "")
        + f" (was {v.shirt_count()})"
    )
    lost_was = v.lost_property.useless + len(v.lost_property.values)
    lines.append(
        f"lost property: {useless} useless, values {useful or 'none'} (was {lost_was} cards)"
    )
    lists = [{attribute: wanted if i % 2 == 0 else other} for i in range(max(2, players))]
    lines.append(
        f"lists: {len(lists)}, wanting {wanted} and {other} in turn, one per seat "
        f"(was {len(v.lists)}, {v.lists_per_player} per seat)"
    )
    lines.append(f"sets: 1 shirt, threshold 1 match (was {v.set_size} shirts, {v.threshold()})")
    lines.append(f"budget: {cheap} (was {v.budget})")
    ticks = min(v.round_ticks, SHRUNK_TICKS)
    lines.append(f"rounds: 1 of at most {ticks} ticks (was {v.rounds} of {v.round_ticks})")
    data: dict[str, Any] = v.model_dump(mode="json", exclude_none=True)
    data.pop("extends", None)
    data.update(
        name=f"{v.name[:33]}-shrunk",
        title=f"{v.title} (shrunk)",
        players={"min": players, "max": players},
        rounds=1,
        attributes={attribute: [wanted, other]},
        shirts=shirts,
        lost_property={"useless": useless, "values": useful},
        lists=lists,
        lists_per_player=1,
        set_size=1,
        budget=cheap,
        match_threshold=1,
        round_ticks=ticks,
    )
    try:
        small = variant_from_data(data, source=f"{v.name} shrunk")
    except VariantError:
        if "score" not in data:
            raise
        data.pop("score")
        small = variant_from_data(data, source=f"{v.name} shrunk")
        lines.append("score terms: dropped (they do not fit the shrunk variant)")
    return small, tuple(lines)


VERIFY = VerifyHooks(state_key=state_key, clauses=CLAUSES, shrink=shrink)
"""The hooks the family gives ``cardshop verify`` (``Family.verify``)."""
