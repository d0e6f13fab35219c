"""What ``cardshop verify`` needs of the Klunker family: a canonical state key, the rule
clauses each action verb and event carries out, and a shrinker that derives a small
variant from any variant of the family.

Clause IDs refer to the rules digest, docs/rules.md.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from cardshop.core import Game as CoreGame
from cardshop.core import SetupError, VariantBase, VerifyHooks, variant_from_data
from cardshop.klunker.game import S_TAX, Game
from cardshop.klunker.variant import Rules, as_klunker

__all__ = ["CLAUSES", "VERIFY", "shrink", "state_key"]

_CHARS = "".join(chr(48 + i) for i in range(1100))
"""One character per count or kind (0..1099: more than any variant's cards or kinds)."""


def _reads_rows_sold(rules: Rules) -> bool:
    """Whether the score or a tiebreak reads the rows each seat sold (SCORE-1, SCORE-2)."""
    return rules.score_weights[4] != 0 or any(r.endswith("rows_sold") for r in rules.tiebreak)


def _cash_faces_matter(rules: Rules, players: int) -> bool:
    """Whether a cash card ever leaves the banks: only a tax does (END-2). Payments move
    cash from bank to bank, and nothing else reads a cash card's face (CARD-2)."""
    return S_TAX in rules.steps and rules.tax.get(players, 0) > 0


def state_key(game: CoreGame) -> Hashable:
    """The state as a tuple of ints and strs, every card written by its kind.

    The rules never tell two cards of one kind apart: actions name kinds, observations
    count them, the engine moves the lowest id of a kind, and a payment draws a card
    whose face only a tax can ever bring back into play. So hands, windows, safes and
    the discard pile are kind counts, the deck its sequence of kinds (top last), and
    each bank its kind counts where a tax can send cash cards on, else only its size.
    The counts are packed one character each into a str (compact, quick to hash).

    Left out: the seed, the count of chance events, the moves, the first player (read
    only at setup), the cached legal actions, the deck's kind counts (the sequence has
    them), and fields that follow from the others whenever they are read: the step of
    the round (from the phase), the seats done filling (from the turn and the start
    player), the next free purchase card (from the cards held) and the card whose turn
    it is to buy (the turn's card). The rows each seat sold count only where the score
    or a tiebreak reads them.
    """
    if type(game) is not Game:
        raise TypeError(f"a Klunker state key needs a Klunker game, not {type(game).__name__}")
    rules = game.rules
    n = game.n
    k = rules.k
    counts = game._counts
    totals = game._totals
    chars = _CHARS
    kind_of = rules.kind_of
    if _cash_faces_matter(rules, n):
        zones = "".join([chars[c] for c in counts[: 4 * n * k]])
    else:
        zones = "".join([chars[c] for c in counts[: 3 * n * k]]) + "".join(
            [chars[c] for c in totals[3 * n : 4 * n]]
        )
    discard = "".join([chars[c] for c in counts[(4 * n + 1) * k : (4 * n + 2) * k]])
    deck = "".join([chars[kind_of[c]] for c in game._deck])
    rows = tuple(totals[4 * n + 2 : 5 * n + 2]) if _reads_rows_sold(rules) else ()
    return (
        game._phase,
        game._turn,
        game._start,
        game._round,
        game._decliner,
        game._termination,
        totals[5 * n + 2],  # purchase laps done (BUY-7); 0 outside the purchase step
        tuple(game._held),
        rows,
        zones,
        discard,
        deck,
    )


CLAUSES: dict[str, tuple[str, ...]] = {
    # What a deal carries out (the search does not see a new game's own events).
    "setup": ("SETUP-1", "SETUP-2", "SETUP-3", "SETUP-4"),
    # Action verbs.
    "window": ("FILL-1", "FILL-3"),
    "done": ("FILL-1", "FILL-2"),
    "store": ("STORE-1",),
    "pass": ("STORE-2", "STORE-3", "STORE-4"),
    "buy": ("BUY-1", "BUY-2", "BUY-3", "BUY-4", "BUY-6", "BUY-7"),
    "decline": ("BUY-5", "END-1"),
    "sell": ("SELL-6",),
    # Events, by class name.
    "Dealt": ("SETUP-1", "SETUP-2", "SETUP-3", "SETUP-4", "END-5"),
    "Placed": ("FILL-1",),
    "WindowDone": ("FILL-1",),
    "Stored": ("STORE-1",),
    "Passed": ("STORE-2", "STORE-4"),
    "Bought": ("BUY-2", "BUY-3"),
    "Declined": ("BUY-5",),
    "Sold": ("SELL-1", "SELL-2", "SELL-3", "SELL-4", "SELL-5", "SELL-7"),
    "Taxed": ("END-2",),
    "Reshuffled": ("END-3",),
    "RoundEnded": ("ROUND-1", "END-1"),
    "GameEnded": ("END-4", "TERM-1", "TERM-2", "SCORE-1", "SCORE-2"),
}
"""The rule clauses each action verb and each event class carries out."""


def shrink(variant: VariantBase, players: int) -> tuple[VariantBase, tuple[str, ...]]:
    """A small variant derived from ``variant`` for ``players`` players, and what was
    shrunk, one line each.

    At most two kinds (a kind with a fixed payout, if any, then those the variant
    lists first: two kinds can still complete rows at once, SELL-6), two cards in a
    hand, rows of at most two cards with the payout table (its first four entries) and
    the fixed payouts scaled to the smaller row, at most one starting cash card a seat,
    a window cap of at most two, at most two purchase turns a round, taxes of at most
    one card, and a round cap of two (a game of ``rounds`` keeps at most two). Each
    kind keeps enough cards to complete rows in two safes; the first kind gets more if
    the setup and one refill of a card a seat need them (END-5). A payout expression
    stays, its surplus over the smaller row paid from the deck (SELL-7). The round's
    steps, the price, the decline and no-cash rules, the score, the tiebreaks and where
    cards go stay as the variant has them. A match becomes one game. Refuses
    (:class:`~cardshop.SetupError`) a player count the variant does not play.
    """
    var = as_klunker(variant)
    lo, hi = var.players.min, var.players.max
    if type(players) is not int or not lo <= players <= hi:
        raise SetupError(
            f"{var.name!r} plays {lo} to {hi} players, not {players!r}: nothing to shrink"
        )
    lines: list[str] = [f"players: {lo} to {hi} -> {players}"]
    data: dict[str, Any] = var.to_data()
    # The first kind with a fixed payout (SELL-5), if any, and the first others.
    fixed = [kind for kind in var.cards if kind in var.sale.overrides][:1]
    others = [kind for kind in var.cards if kind not in fixed]
    chosen = {*fixed, *others[: 2 - len(fixed)]}
    kinds = [kind for kind in var.cards if kind in chosen]  # in the variant's order
    set_size = min(var.sale.set_size, 2)
    hand_size = min(var.hand_size, 2)
    by_seat = var.starting_cash_by_seat.get(players)
    if by_seat is not None:
        seat_cash = [min(c, 1) for c in by_seat]
    else:
        seat_cash = [min(var.starting_cash.get(players, 0), 1)] * players
    need = sum(seat_cash) + players * hand_size + players  # and a card a seat to refill
    cards = {kind: min(var.cards[kind], 2 * set_size) for kind in kinds}
    short = need - sum(cards.values())
    if short > 0:
        cards[kinds[0]] += short
    extra = var.sale.extra_from != "none"
    sale = data["sale"]
    old_size = var.sale.set_size

    def scaled(pay: int) -> int:  # a payout for the smaller row, rounded half up
        return (pay * set_size + old_size // 2) // old_size

    payout = [scaled(pay) for pay in var.sale.payout[:4]]
    overrides = {kind: scaled(pay) for kind, pay in var.sale.overrides.items() if kind in cards}
    sale.update(set_size=set_size, payout=payout, overrides=overrides)
    if var.sale.pay is not None and not extra:
        # The expression may pay more than the smaller row: the rest then comes from
        # the deck, as far as it goes (SELL-7).
        sale["extra_from"] = "deck"
        lines.append(
            "sale.extra_from: none -> deck (the payout expression may pay more than a row)"
        )
    data.update(
        name=f"{var.name}-shrunk",
        players={"min": players, "max": players},
        match=None,
        cards=cards,
        hand_size=hand_size,
        round_cap=2,
    )
    if by_seat is not None:
        data["starting_cash_by_seat"] = {players: seat_cash}
        data["starting_cash"] = {}
    else:
        data["starting_cash"] = {players: seat_cash[0]}
        data["starting_cash_by_seat"] = {}
    if var.window_cap is not None:
        data["window_cap"] = min(var.window_cap, 2)
    if var.rounds is not None:
        data["rounds"] = min(var.rounds, 2)
    purchase = data["purchase"]
    if var.purchase.per_round > 2:
        purchase["per_round"] = 2
    tax = var.tax.per_player_count.get(players)
    data["tax"] = {
        **data.get("tax", {}),
        "per_player_count": {players: min(tax, 1)} if tax is not None else {},
    }
    small = variant_from_data(data, source=f"{var.name} shrunk for {players} players")
    old_cards = ", ".join(f"{k} {c}" for k, c in var.cards.items())
    new_cards = ", ".join(f"{k} {c}" for k, c in cards.items())
    lines += [
        f"cards: {old_cards} -> {new_cards}",
        f"hand_size: {var.hand_size} -> {hand_size}",
        f"sale.set_size: {var.sale.set_size} -> {set_size}; payout: "
        f"{list(var.sale.payout)} -> {payout}; overrides: {dict(var.sale.overrides)} -> "
        f"{overrides}",
        f"starting cash for {players} players: -> {seat_cash}",
        f"round_cap: {var.round_cap} -> 2",
    ]
    if var.window_cap is not None:
        lines.append(f"window_cap: {var.window_cap} -> {data['window_cap']}")
    if var.rounds is not None:
        lines.append(f"rounds: {var.rounds} -> {data['rounds']}")
    if var.purchase.per_round > 2:
        lines.append(f"purchase.per_round: {var.purchase.per_round} -> 2")
    if tax:
        lines.append(f"tax for {players} players: {tax} -> {min(tax, 1)}")
    if var.match is not None:
        lines.append("match: -> none (one game)")
    return small, tuple(lines)


VERIFY = VerifyHooks(state_key=state_key, clauses=CLAUSES, shrink=shrink)
"""The family's hooks for ``cardshop verify``."""
