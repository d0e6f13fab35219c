"""The family's invariants, run by the core harness after every step.

Each check takes a game and returns ``None`` when the property holds, else a short
description of what is wrong. Conservation of every card's identity comes first.
"""

from __future__ import annotations

from cardshop.core import Game, Invariant

__all__ = ["INVARIANTS"]


def _game(game: Game) -> object:
    from cardshop.reglamentacja.game import ReglamentacjaGame

    if not isinstance(game, ReglamentacjaGame):
        raise TypeError(f"not a Reglamentacja game: {type(game).__name__}")
    return game


def stamp_conservation(game: Game) -> str | None:
    """Every stamp in exactly one zone (stack, a hand, discard), counts in step. [RG-CARD-1]"""
    from cardshop.reglamentacja.game import ReglamentacjaGame

    g = _game(game)
    assert isinstance(g, ReglamentacjaGame)
    rules = g.rules
    n = g.n
    if len(g._swhere) != rules.n_stamps:
        return f"{len(g._swhere)} stamps have a zone, the variant has {rules.n_stamps}"
    if any(not 0 <= z <= n + 1 for z in g._swhere):
        return "a stamp lies in no zone"
    in_stack = [sid for sid, z in enumerate(g._swhere) if z == n]
    if sorted(g._stack) != in_stack:
        return "the stamp stack's list and the stamps' zones disagree (lost or doubled stamps)"
    k = rules.k
    hand = [0] * (n * k)
    dcount = [0] * k
    for sid, z in enumerate(g._swhere):
        if z < n:
            hand[z * k + rules.stamp_kind[sid]] += 1
        elif z == n + 1:
            dcount[rules.stamp_kind[sid]] += 1
    if hand != g._hand or dcount != g._dcount:
        return "hand or discard counts are out of step with the stamps' zones"
    if [sum(hand[s * k : s * k + k]) for s in range(n)] != g._hsize:
        return "hand sizes are out of step with the hands"
    return None


def card_conservation(game: Game) -> str | None:
    """Every shopping card once in row, stack, bought or removed; visits once each."""
    from cardshop.reglamentacja.game import ReglamentacjaGame

    g = _game(game)
    assert isinstance(g, ReglamentacjaGame)
    cards = [*g._row, *g._cstack, *g._removed]
    for bought in g._bought:
        cards.extend(bought)
    if sorted(cards) != list(range(g.rules.n_cards)):
        return f"shopping cards lost or doubled: {sorted(cards)}"
    if sorted([*g._visit, *g._box]) != list(range(g.rules.n_visits)):
        return "visit cards lost or doubled"
    return None


def hand_limit(game: Game) -> str | None:
    """After trading, the player who traded holds at most hand_limit stamps. [RG-LIMIT-1]"""
    from cardshop.reglamentacja.game import DISCARD, SHOP, ReglamentacjaGame

    g = _game(game)
    assert isinstance(g, ReglamentacjaGame)
    limit = g.rules.hand_limit
    if g._phase == SHOP:
        previous = (g._active - 1) % g.n
        if g._hsize[previous] > limit:
            return f"seat {previous} traded and still holds {g._hsize[previous]} > {limit}"
    if g._phase == DISCARD and g._hsize[g._active] <= limit:
        return "the discard phase goes on at or below the hand limit"
    return None


def queue_permutation(game: Game) -> str | None:
    """The queue holds each seat once, and the speculator until the final turn."""
    from cardshop.reglamentacja.game import (
        DISCARD,
        FINAL_SHOP,
        FINAL_TRADE,
        SHOP,
        SPECULATOR,
        TRADE,
        ReglamentacjaGame,
    )

    g = _game(game)
    assert isinstance(g, ReglamentacjaGame)
    q = g._queue
    if sorted(p for p in q if p != SPECULATOR) != list(range(g.n)) or q.count(SPECULATOR) > 1:
        return f"the queue {q} is not a permutation of the pawns"
    if not g.rules.has_speculator:
        return (
            "the variant has no speculator, but the queue holds his pawn"
            if SPECULATOR in q
            else None
        )
    if g._phase in (TRADE, DISCARD, SHOP) and SPECULATOR not in q:
        return "the speculator left the queue before the final turn"
    if g._phase in (FINAL_TRADE, FINAL_SHOP) and SPECULATOR in q:
        return "the speculator is in the queue during the final turn"
    return None


def score_bounds(game: Game) -> str | None:
    """Each score lies between its icons and twice its icons. [RG-SCORE-1]"""
    from cardshop.reglamentacja.game import ReglamentacjaGame

    g = _game(game)
    assert isinstance(g, ReglamentacjaGame)
    icons = g.rules.card_icons
    for seat in range(g.n):
        plain = sum(icons[c] for c in g._bought[seat])
        score = g.score(seat)
        if not plain <= score <= 2 * plain:
            return f"seat {seat} scores {score}, outside {plain}..{2 * plain}"
    return None


def state_consistency(game: Game) -> str | None:
    """The whole state passes the same check that positions and JSON must pass."""
    from cardshop.reglamentacja.game import ReglamentacjaGame

    g = _game(game)
    assert isinstance(g, ReglamentacjaGame)
    problems = g.problems()
    return "; ".join(problems) if problems else None


INVARIANTS: tuple[Invariant, ...] = (
    Invariant("stamp-conservation", stamp_conservation, "every stamp in one zone, once"),
    Invariant("card-conservation", card_conservation, "every shopping and visit card once"),
    Invariant("hand-limit", hand_limit, "the active player keeps at most hand_limit stamps"),
    Invariant("queue", queue_permutation, "the queue is a permutation of the pawns"),
    Invariant("score-bounds", score_bounds, "scores between the icons and twice the icons"),
    Invariant("state", state_consistency, "the state is one a position could describe"),
)
