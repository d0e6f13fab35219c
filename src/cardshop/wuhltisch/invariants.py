"""Invariants of a Wühltisch game, for the core harness and for loading states.

``INVARIANTS`` is a tuple of the core's :class:`~cardshop.core.family.Invariant` (a name
and a check): each check takes a game and returns ``None`` when the property holds,
else a short description of what is wrong.
:func:`state_problems` is the full structural check that ``from_dict`` and
``from_position`` run before they hand out a game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardshop.core import Game, Invariant

if TYPE_CHECKING:
    from cardshop.wuhltisch.game import WuhltischGame

__all__ = [
    "INVARIANTS",
    "check_caller_rule",
    "check_conservation",
    "check_hands",
    "check_score_bounds",
    "conservation_problems",
    "state_problems",
]


def conservation_problems(game: WuhltischGame) -> list[str]:
    """Every card in exactly one zone, and each zone holding its kind of card. [WT-CARD-1]"""
    rules = game.rules
    n_cards = rules.n_cards
    # Card ids run shirts, then lost property, then lists: a card's sort is a range
    # (rules.is_shirt, is_lost and is_list, written out: this runs at every step).
    first_lost, first_list, lost_value = rules.first_lost, rules.first_list, rules.lost_value
    problems: list[str] = []
    seen = [0] * n_cards
    for name, cards in game.zones().items():
        zone = name.split(":")[0]
        for i, card in enumerate(cards):
            if type(card) is not int or not 0 <= card < n_cards:
                problems.append(f"{name} holds {card!r}, not a card id")
                continue
            seen[card] += 1
            if zone in ("view", "hand"):
                if card >= rules.n_shirts:
                    problems.append(f"{name} holds #{card}, which is not a shirt")
            elif zone == "heap":
                if card >= first_list:
                    problems.append(f"the heap holds list #{card}")
            elif zone == "found":
                if not (first_lost <= card < first_list and lost_value[card]):
                    problems.append(f"{name} holds #{card}, which is not useful lost property")
            elif zone in ("box", "stack", "list"):
                if card < first_list:
                    problems.append(f"{name} holds #{card}, which is not a list")
            elif zone == "set" and (
                (card >= first_list) != (i == 0) or first_lost <= card < first_list
            ):
                problems.append(f"{name} must be one list and then shirts")
    lost = [c for c in range(n_cards) if seen[c] == 0]
    twice = [c for c in range(n_cards) if seen[c] > 1]
    if lost:
        problems.append(f"cards in no zone: {lost[:10]}")
    if twice:
        problems.append(f"cards in more than one place: {twice[:10]}")
    return problems


def state_problems(game: WuhltischGame) -> list[str]:
    """Everything that makes a state impossible (empty when the state is legal)."""
    rules = game.rules
    n = game.n
    k = rules.set_size
    per = rules.lists_per_player
    problems = conservation_problems(game)
    over = game._over
    if not 1 <= game._round <= rules.rounds:
        problems.append(f"round {game._round} is outside 1..{rules.rounds}")
    if not over and not 0 <= game._tick < rules.round_ticks:
        problems.append(f"tick {game._tick} is outside 0..{rules.round_ticks - 1}")
    if game._ticks < game._tick or game._chance < 0:
        problems.append("the tick or chance counters are inconsistent")
    played = game._round if over else game._round - 1
    if len(game._round_scores) != played or len(game._callers) != played:
        problems.append(f"the score sheet must list {played} finished round(s)")
    for r, scores in enumerate(game._round_scores):
        top = rules.max_round_score
        if len(scores) != n or any(not 0 <= x <= top for x in scores):
            problems.append(f"round {r + 1}'s scores {scores} are not {n} scores in 0..{top}")
    for r, callers in enumerate(game._callers):
        if callers != sorted(set(callers)) or any(not 0 <= c < n for c in callers):
            problems.append(f"round {r + 1}'s callers {callers} are not sorted seats")
        elif (r + 1 in game._capped) == bool(callers):
            problems.append(f"round {r + 1} must have callers or be capped, not both")
    if game._capped != sorted(set(game._capped)) or any(not 1 <= r <= played for r in game._capped):
        problems.append(f"capped rounds {game._capped} are not finished rounds in order")
    for s in range(n):
        hand = game._hands[s]
        sets = game._sets[s]
        if len(hand) > k:
            problems.append(f"seat {s} holds {len(hand)} shirts, more than {k}")
        if hand != sorted(hand):
            problems.append(f"seat {s}'s hand is not in card order")
        for i, st in enumerate(sets):
            if len(st) != 1 + k:
                problems.append(f"seat {s}'s set {i} has {len(st) - 1} shirts, not {k}")
        dealt = len(game._stacks[s]) + len(sets) + (game._active[s] >= 0)
        if dealt != per:
            problems.append(f"seat {s} has {dealt} lists in play, not {per}")
        if not over:
            if game._active[s] < 0:
                problems.append(f"seat {s} has no face-up list in a running round")
            if len(sets) >= per:
                problems.append(f"seat {s} laid down all {per} sets but the round goes on")
        elif hand or game._view[s] >= 0:
            problems.append(f"seat {s} still holds shirts after the game")
        if not 0 <= game._in_front[s] <= rules.n_cards:
            problems.append(f"seat {s}'s cards in front {game._in_front[s]} are out of range")
        for st in game._last_sets[s]:
            if (
                len(st) != 1 + k
                or not rules.is_list(st[0])
                or any(not rules.is_shirt(c) for c in st[1:])
            ):
                problems.append(f"seat {s}'s last-round set {st} is not a list and {k} shirts")
        if any(not (rules.is_lost(c) and rules.lost_value[c]) for c in game._last_found[s]):
            problems.append(f"seat {s}'s last-round lost property is not useful lost property")
    return problems


def _game(game: Game) -> WuhltischGame:
    from cardshop.wuhltisch.game import WuhltischGame

    if not isinstance(game, WuhltischGame):
        raise TypeError(f"not a Wühltisch game: {game!r}")
    return game


def check_conservation(game: Game) -> str | None:
    """Every card in exactly one zone at every tick. [WT-CARD-1]"""
    problems = conservation_problems(_game(game))
    return "; ".join(problems) if problems else None


def check_hands(game: Game) -> str | None:
    """Nobody holds more than ``set_size`` shirts; a card in view is a shirt. [WT-TICK-4]"""
    g = _game(game)
    k = g.rules.set_size
    for s in range(g.n):
        if len(g._hands[s]) > k:
            return f"seat {s} holds {len(g._hands[s])} shirts, more than {k}"
        v = g._view[s]
        if v >= 0 and not g.rules.is_shirt(v):
            return f"seat {s} has #{v} in view, which is not a shirt"
    return None


def check_score_bounds(game: Game) -> str | None:
    """A set scores 0 or threshold..max (0..max with set terms); round scores stay in
    bounds. [WT-SCORE-1..4, WT-SCORE-6/7]"""
    g = _game(game)
    rules = g.rules
    lo, hi = rules.min_set_score, rules.max_set_score
    for s in range(g.n):
        for st in (*g._sets[s], *g._last_sets[s]):
            score = rules.set_score(st[0], st[1:])
            if score != 0 and not lo <= score <= hi:
                return f"seat {s}'s set {st} scores {score}, not 0 or {lo}..{hi}"
    top = rules.max_round_score
    for r, scores in enumerate(g._round_scores):
        if any(not 0 <= x <= top for x in scores):
            return f"round {r + 1} scores {scores}, outside 0..{top}"
    return None


def check_caller_rule(game: Game) -> str | None:
    """The last round's scores follow from its revealed sets and lost property, with the
    caller's all-or-nothing rule and the round terms (the game's own scoring function);
    every caller laid down all his lists. [WT-SCORE-4/5/7]"""
    g = _game(game)
    if not g._round_scores:
        return None
    rules = g.rules
    callers = g._callers[-1]
    scores = g._round_scores[-1]
    for s in range(g.n):
        sets = g._last_sets[s]
        if s in callers and len(sets) != rules.lists_per_player:
            return f"caller {s} laid down {len(sets)} sets, not {rules.lists_per_player}"
        total = rules.round_score(
            [rules.set_score(st[0], st[1:]) for st in sets],
            sum(rules.lost_value[c] for c in g._last_found[s]),
            caller=s in callers,
            callers=len(callers),
            capped=len(g._round_scores) in g._capped,
            round_=len(g._round_scores),
            players=g.n,
        )
        if total != scores[s]:
            return f"seat {s} scored {scores[s]} in the last round; its sets give {total}"
    return None


INVARIANTS: tuple[Invariant, ...] = (
    Invariant("conservation", check_conservation, "every card in exactly one zone"),
    Invariant("hand-size", check_hands, "at most set_size shirts held, one shirt in view"),
    Invariant("score-bounds", check_score_bounds, "a set scores 0 or in its bounds"),
    Invariant("caller-rule", check_caller_rule, "round scores follow the caller rule"),
)
"""The family's checks, conservation first, for the core harness (after every step)."""
