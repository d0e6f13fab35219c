"""The RL index space, the observation encoder and the plain-text table.

The action space of a variant at ``N`` players lists every action any seat may
ever take, sorted like legal actions (by verb, then argument). Its size is::

    4 + row_size + K + 2 * P + N * (2 * Q - 1)

4 for ``accept``, ``pass``, ``reject`` and ``stop``; ``row_size`` buys; ``K``
discards (one per stamp kind); ``P = C(K + price - 1, price)`` payments to the
speculator, for each of ``draw`` and ``swap``; and per seat offered to, ``Q`` the
ordered pairs (give, take) of multisets of at most ``max_trade`` stamps that share
no kind, with and without ``place``, less the empty offer. For the built-in
variant (K = 7, max_trade = 3, price = 2): Q = 6637, so 13,273 offers per seat and
39,892 / 53,165 / 66,438 actions at 3 / 4 / 5 players.

For learning agents :class:`ReglamentacjaFactors` chooses the same actions part by part (the
family record's ``factored``): the kind of action, then an offer's seat, the counts
given and taken of each stamp kind and the place flag, each a choice of at most 9.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardshop.core import Action, Game, Seat, VariantBase
from cardshop.reglamentacja.offers import offer_table

__all__ = [
    "ObservationEncoder",
    "ReglamentacjaFactors",
    "action_factors",
    "action_space",
    "observation_encoder",
    "render",
]

_SPACES: dict[tuple[str, int], tuple[Action, ...]] = {}


def _variant(variant: VariantBase) -> Any:
    from cardshop.reglamentacja.variant import ReglamentacjaVariant

    if not isinstance(variant, ReglamentacjaVariant):
        raise TypeError(f"not a Reglamentacja variant: {type(variant).__name__}")
    return variant


def action_space(variant: VariantBase, players: int) -> Sequence[Action]:
    """Every action any seat may take at ``players`` players, sorted. [RG-ACT-2]"""
    from cardshop.reglamentacja.game import ACCEPT, PASS, REJECT, STOP

    rules = _variant(variant).rules_for(players)
    key = (rules.content_hash, players)
    space = _SPACES.get(key)
    if space is None:
        acts: list[Action] = [ACCEPT, PASS, REJECT, STOP]
        acts += rules.buy_actions
        acts += rules.discard_actions
        acts += rules.draw_actions
        acts += rules.swap_actions
        for target in range(players):
            acts += rules.offers_to(target)[0]
        space = tuple(sorted(acts))
        if len(_SPACES) > 16:
            _SPACES.clear()
        _SPACES[key] = space
    return space


VERB_OPTIONS = (
    "pass",
    "offer",
    "accept",
    "reject",
    "speculate draw",
    "speculate swap",
    "stop",
    "discard",
    "buy",
)
"""The options of the first step, the kind of action."""
(
    O_PASS,
    O_OFFER,
    O_ACCEPT,
    O_REJECT,
    O_DRAW,
    O_SWAP,
    O_STOP,
    O_DISCARD,
    O_BUY,
) = range(len(VERB_OPTIONS))


class ReglamentacjaFactors:
    """Reglamentacja's actions chosen part by part (the family's factored space).

    Steps, with ``K`` stamp kinds in the variant's order::

        verb             pass, offer, accept, reject, speculate draw, speculate swap,
                         stop, discard, buy
        offer to         the seat offered to: 0 .. N-1
        give KIND (K)    how many stamps of that kind are given: 0 .. hand_cap
        take KIND (K)    how many are asked for: 0 .. max_trade
        place            0 no, 1 yes: swap places in the queue
        discard          the kind discarded
        buy              the row position less one: 0 .. row_size - 1

    ``pass``, ``accept``, ``reject`` and ``stop`` are whole actions; an offer is
    ``verb, offer to, give x K, take x K, place``; a payment to the speculator is
    ``verb, give x K`` (the stamps paid, exactly the speculator's price); ``discard``
    and ``buy`` take one more step. :meth:`next` lists exactly the options that lead
    to a legal action (see :class:`cardshop.core.ActionFactors`).
    """

    def __init__(self, variant: VariantBase, players: int) -> None:
        rules = _variant(variant).rules_for(players)
        self.rules = rules
        self.players = players
        k = rules.k
        self.give_step = 2
        self.take_step = 2 + k
        self.place_step = 2 + 2 * k
        self.discard_step = 3 + 2 * k
        self.buy_step = 4 + 2 * k
        counts = tuple(str(c) for c in range(rules.hand_cap + 1))
        self.steps: tuple[str, ...] = (
            "verb",
            "offer to",
            *(f"give {kind}" for kind in rules.kinds),
            *(f"take {kind}" for kind in rules.kinds),
            "place",
            "discard",
            "buy",
        )
        self.options: tuple[tuple[str, ...], ...] = (
            VERB_OPTIONS,
            tuple(str(s) for s in range(players)),
            *((counts,) * k),
            *((counts[: rules.max_trade + 1],) * k),
            ("no", "yes") if rules.queue_places else ("no",),
            rules.kinds,
            tuple(str(p) for p in range(1, rules.row_size + 1)),
        )
        price = {rules.multisets[m]: i for i, m in enumerate(rules.price_sets)}
        self._price = price
        self._payments = {O_DRAW: rules.draw_actions, O_SWAP: rules.swap_actions}
        self._decoded: dict[Action, tuple[int, ...]] = {}

    # ----------------------------------------------------------------- choices

    def next(self, game: Game, seat: Seat, chosen: Sequence[int]) -> tuple[int, list[int]] | None:
        """The next step after ``chosen`` and its legal options, or None when done.

        Everything legal comes from the game: its offer parts
        (:meth:`~cardshop.reglamentacja.game.ReglamentacjaGame.offer_parts`) on an offer
        turn, its legal actions otherwise (a handful), never a list of every offer.
        """
        g = _regl(game)
        if not chosen:
            return 0, self._verbs(g, seat)
        verb = chosen[0]
        pos = len(chosen)
        rules = self.rules
        k = rules.k
        ms = rules.multisets
        if verb == O_OFFER:
            if pos == 1:
                return 1, sorted(g.offer_parts((), seat))
            target = chosen[1]
            if pos < self.take_step:
                gives = [ms[m] for m in g.offer_parts((target,), seat)]
                return pos, _next_count(gives, chosen[2:pos])
            give = rules.ms_index[tuple(chosen[2 : 2 + k])]
            if pos < self.place_step:
                takes = [ms[m] for m in g.offer_parts((target, give), seat)]
                return pos, _next_count(takes, chosen[self.take_step : pos])
            if pos == self.place_step:
                take = rules.ms_index[tuple(chosen[self.take_step : self.place_step])]
                return pos, list(g.offer_parts((target, give, take), seat))
            return None
        if verb in (O_DRAW, O_SWAP):
            if pos > k:
                return None
            legal = g.legal_actions(seat)
            paid = [self.decompose(a)[1:] for a in self._payments[verb] if a in legal]
            return self.give_step + pos - 1, _next_count(paid, chosen[1:pos])
        if verb in (O_DISCARD, O_BUY) and pos == 1:
            step = self.discard_step if verb == O_DISCARD else self.buy_step
            legal = g.legal_actions(seat)
            return step, sorted({c[1] for c in map(self.decompose, legal) if c[0] == verb})
        return None

    def _verbs(self, game: Any, seat: Seat) -> list[int]:
        """The kinds of action ``seat`` may take now."""
        from cardshop.reglamentacja.game import PASS, STOP

        legal = game.legal_actions(seat)
        if not game.offer_parts((), seat):  # not an offer turn: a handful of actions
            return sorted({self.decompose(a)[0] for a in legal})
        verbs = [O_OFFER]  # an offer turn: its offers are never listed
        if PASS in legal:
            verbs.append(O_PASS)
        for verb, payments in self._payments.items():
            if any(a in legal for a in payments):
                verbs.append(verb)
        if STOP in legal:
            verbs.append(O_STOP)
        return sorted(verbs)

    def compose(self, chosen: Sequence[int]) -> Action:
        """The action of a complete sequence of choices."""
        from cardshop.reglamentacja.game import ACCEPT, PASS, REJECT, STOP

        rules = self.rules
        k = rules.k
        verb = chosen[0]
        simple = {O_PASS: PASS, O_ACCEPT: ACCEPT, O_REJECT: REJECT, O_STOP: STOP}
        if verb in simple:
            return simple[verb]
        if verb == O_OFFER:
            give = rules.ms_index[tuple(chosen[2 : 2 + k])]
            take = rules.ms_index[tuple(chosen[2 + k : 2 + 2 * k])]
            return Action("offer", rules.offer_text(chosen[1], give, take, bool(chosen[-1])))
        found: Action
        if verb in (O_DRAW, O_SWAP):
            i = self._price[tuple(chosen[1 : 1 + k])]
            found = (rules.draw_actions if verb == O_DRAW else rules.swap_actions)[i]
        elif verb == O_DISCARD:
            found = rules.discard_actions[chosen[1]]
        else:
            found = rules.buy_actions[chosen[1]]
        return found

    def decompose(self, action: Action) -> tuple[int, ...]:
        """The choices that make ``action`` (an action of the family's action space)."""
        found = self._decoded.get(action)
        if found is None:
            found = self._decode(action)
            if len(self._decoded) > 200_000:
                self._decoded.clear()
            self._decoded[action] = found
        return found

    def _decode(self, action: Action) -> tuple[int, ...]:
        rules = self.rules
        k = rules.k
        verb, arg = action
        simple = {"pass": O_PASS, "accept": O_ACCEPT, "reject": O_REJECT, "stop": O_STOP}
        if verb in simple:
            return (simple[verb],)
        if verb == "buy" and isinstance(arg, int):
            return (O_BUY, arg - 1)
        words = str(arg).split()
        if verb == "discard":
            return (O_DISCARD, rules.kind_index[words[0]])
        if verb == "speculate":
            paid = [0] * k
            for word in words[1:]:
                paid[rules.kind_index[word]] += 1
            return (O_DRAW if words[0] == "draw" else O_SWAP, *paid)
        if verb == "offer":  # a listed offer: found in the offer table, not parsed again
            table = offer_table(rules)
            located = table.locate(action)
            if located is not None:
                target, pos = located
                give, take = rules.multisets[table.gives[pos]], rules.multisets[table.takes[pos]]
                return (O_OFFER, target, *give, *take, table.places[pos])
        raise ValueError(f"not a Reglamentacja action: {action!r}")


def _next_count(sets: Sequence[Sequence[int]], chosen: Sequence[int]) -> list[int]:
    """The counts of the next kind among the multisets (counts per kind) that begin
    with the counts ``chosen``, ascending."""
    i = len(chosen)
    prefix = tuple(chosen)
    return sorted({m[i] for m in sets if tuple(m[:i]) == prefix})


def _regl(game: Game) -> Any:
    from cardshop.reglamentacja.game import ReglamentacjaGame

    if not isinstance(game, ReglamentacjaGame):
        raise TypeError(f"not a Reglamentacja game: {type(game).__name__}")
    return game


def action_factors(variant: VariantBase, players: int) -> ReglamentacjaFactors:
    """The factored action space of ``variant`` at ``players`` players."""
    return ReglamentacjaFactors(variant, players)


class ObservationEncoder:
    """An observation as a fixed-length list of floats, with labels and bounds."""

    def __init__(self, variant: VariantBase, players: int) -> None:
        from cardshop.reglamentacja.game import PHASES

        rules = _variant(variant).rules_for(players)
        self.rules = rules
        self.players = players
        n, k = players, rules.k
        per_kind = [float(rules.kind_start[i + 1] - rules.kind_start[i]) for i in range(k)]
        total_icons = float(sum(rules.card_icons))
        labels: list[str] = []
        high: list[float] = []

        def add(label: str, top: float) -> None:
            labels.append(label)
            high.append(top)

        for phase in PHASES:
            add(f"phase {phase}", 1.0)
        add("I act", 1.0)
        add("I hold the top", 1.0)
        add("my offer turn", 1.0)
        for i, kind in enumerate(rules.kinds):
            add(f"my {kind}", per_kind[i])
        for cat in rules.categories:
            add(f"my visit doubles {cat}", 1.0)
        for s in range(n):
            add(f"hand size {s}", float(rules.n_stamps))
        for p in range(rules.row_size):
            for kind in rules.kinds:
                add(f"row {p + 1} costs {kind}", 6.0)
            for cat in rules.categories:
                add(f"row {p + 1} is {cat}", 1.0)
            add(f"row {p + 1} icons", 9.0)
        for s in range(n):
            add(f"queue place of {s}", float(n))
        add("queue place of the speculator", float(n))
        for s in range(n):
            add(f"top at {s}", 1.0)
        add("stamp stack", float(rules.n_stamps))
        add("shop stack", float(rules.n_cards))
        for kind_i, kind in enumerate(rules.kinds):
            add(f"discarded {kind}", per_kind[kind_i])
        for s in range(n):
            for cat in rules.categories:
                add(f"bought {cat} icons {s}", total_icons)
        add("removed cards", float(rules.n_cards))
        add("offer turns played", float(rules.spin_max))
        add("offer pending", 1.0)
        add("offer is to me", 1.0)
        for i, kind in enumerate(rules.kinds):
            add(f"offer gives {kind}", min(per_kind[i], float(rules.max_trade)))
        for kind in rules.kinds:  # an offer may ask for more than the game holds
            add(f"offer takes {kind}", float(rules.max_trade))
        add("offer swaps places", 1.0)
        add("final buyers done", float(n))
        add("turn", float(rules.turn_cap + 1))
        self.labels: tuple[str, ...] = tuple(labels)
        self.low: tuple[float, ...] = tuple(-1.0 if "queue place" in x else 0.0 for x in labels)
        self.high: tuple[float, ...] = tuple(high)

    def encode(self, observation: Any) -> list[float]:
        """The observation's numbers, in the order of :attr:`labels`."""
        from cardshop.reglamentacja.game import PHASES, SPECULATOR

        rules = self.rules
        o = observation
        me = o.seat
        n = self.players
        out: list[float] = [1.0 if o.phase == p else 0.0 for p in PHASES]
        out.append(1.0 if o.acting == me else 0.0)
        out.append(1.0 if o.active == me else 0.0)
        out.append(1.0 if o.offerer == me else 0.0)
        out.extend(map(float, o.hand))
        visit = o.visits[me]
        mult = rules.visit_mult[visit] if visit >= 0 else (1,) * len(rules.categories)
        out.extend(1.0 if m == 2 else 0.0 for m in mult)
        out.extend(map(float, o.hand_sizes))
        width = rules.k + len(rules.categories) + 1
        for p in range(rules.row_size):
            if p < len(o.row):
                card = o.row[p]
                out.extend(map(float, rules.card_cost[card]))
                out.extend(1.0 if rules.card_cat[card] == i else 0.0 for i in range(len(mult)))
                out.append(float(rules.card_icons[card]))
            else:
                out.extend([0.0] * width)
        queue = list(o.queue)
        for s in range(n):
            out.append(float(queue.index(s)))
        out.append(float(queue.index(SPECULATOR)) if SPECULATOR in queue else -1.0)
        out.extend(1.0 if o.active == s else 0.0 for s in range(n))
        out.append(float(o.stamp_stack))
        out.append(float(o.shop_stack))
        out.extend(map(float, o.discard))
        for s in range(n):
            icons = [0.0] * len(rules.categories)
            for card in o.bought[s]:
                icons[rules.card_cat[card]] += rules.card_icons[card]
            out.extend(icons)
        out.append(float(len(o.removed)))
        out.append(float(o.offer_turns))
        pending = o.pending
        if pending is None:
            out.extend([0.0, 0.0, *([0.0] * (2 * rules.k)), 0.0])
        else:
            target, give, take, place = pending
            out.append(1.0)
            out.append(1.0 if target == me else 0.0)
            out.extend(map(float, give))
            out.extend(map(float, take))
            out.append(1.0 if place else 0.0)
        out.append(float(o.final_buyers))
        out.append(float(o.turn))
        return out


def observation_encoder(variant: VariantBase, players: int) -> ObservationEncoder:
    """The encoder of observations of ``variant`` at ``players`` players."""
    return ObservationEncoder(variant, players)


def _stamps(kinds: tuple[str, ...], counts: Sequence[int]) -> str:
    parts = [f"{kind} x{c}" if c > 1 else kind for kind, c in zip(kinds, counts, strict=True) if c]
    return ", ".join(parts) if parts else "none"


def render(game: Game, seat: Seat | None) -> str:
    """The table as plain text, as ``seat`` may see it (``None``: everything)."""
    from cardshop.reglamentacja.game import SPECULATOR, ReglamentacjaGame

    if not isinstance(game, ReglamentacjaGame):
        raise TypeError(f"not a Reglamentacja game: {type(game).__name__}")
    rules = game.rules
    n = game.n
    o = game.observation(0 if seat is None else seat)
    lines = [
        f"Reglamentacja ({rules.name}), turn {o.turn}, {o.phase}; "
        f"seat {o.active} holds the top"
        + (f"; seat {o.acting} to act" if o.acting is not None else "; the game is over")
    ]
    lines.append("Row:")
    for p, card in enumerate(o.row, start=1):
        cost = " ".join(
            rules.kinds[i] for i in rules.alpha for _ in range(rules.card_cost[card][i])
        )
        cat = rules.categories[rules.card_cat[card]]
        lines.append(f"  {p}. {rules.card_titles[card]}: {cost} -> {cat} x{rules.card_icons[card]}")
    queue = ", ".join("speculator" if p == SPECULATOR else f"seat {p}" for p in o.queue)
    lines.append(f"Queue (head first): {queue}")
    lines.append(
        f"Stamp stack: {o.stamp_stack}; shopping stack: {o.shop_stack}; "
        f"discarded: {_stamps(rules.kinds, o.discard)}; removed by the speculator: {len(o.removed)}"
    )
    for s in range(n):
        bought = ", ".join(rules.card_titles[c] for c in o.bought[s]) or "nothing"
        line = f"Seat {s}: {o.hand_sizes[s]} stamps"
        if seat is None or s == seat:
            k = rules.k
            line += f" ({_stamps(rules.kinds, game._hand[s * k : s * k + k])})"
            line += f"; visit: {rules.visit_titles[game._visit[s]]}"
        elif o.visits[s] >= 0:
            line += f"; visit: {rules.visit_titles[o.visits[s]]}"
        line += f"; bought: {bought}"
        if seat is None or s == seat or game.is_over:
            line += f"; score {game.score(s)}"
        lines.append(line)
    if o.offerer is not None:
        lines.append(f"Offer turns played: {o.offer_turns}; seat {o.offerer}'s offer turn")
    if o.pending is not None:
        target, give, take, place = o.pending
        text = f"Seat {o.offerer} offers seat {target}: {_stamps(rules.kinds, give)}"
        text += f" for {_stamps(rules.kinds, take)}"
        if place:
            text += ", and to swap places in the queue"
        lines.append(text)
        lines.append(f"Seat {target}: accept or reject?")
    elif o.phase in ("trade", "final-trade") and o.offerer is not None:
        lines.append(
            "Offer with: offer SEAT give KIND... take KIND... [place]; or pass"
            + (
                "; speculate draw|swap KIND KIND"
                if o.phase == "trade" and rules.has_speculator
                else ""
            )
            + ("; stop" if o.phase == "trade" else "")
        )
    elif o.phase == "discard":
        lines.append(f"Seat {o.active}: discard KIND down to {rules.hand_limit} stamps")
    elif o.phase in ("shop", "final-shop") and o.acting is not None:
        lines.append(f"Seat {o.acting} at the counter: buy POSITION or pass")
    if game.is_over:
        result = game.result()
        lines.append(f"Final scores: {list(result.scores)}; winners: {list(result.winners)}")
    return "\n".join(lines)
