"""Reading games back from JSON data, and the full consistency check of a state.

Everything read is hostile until checked: types first (ints are never bools),
then sizes against the variant, before any work proportional to the input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from cardshop.core import (
    MAX_COUNTER,
    SEED_LIMIT,
    ActionParseError,
    HistoryCheck,
    PositionError,
    VariantError,
    format_value,
    read_game_json,
)

if TYPE_CHECKING:
    from cardshop.reglamentacja.game import ReglamentacjaGame
    from cardshop.reglamentacja.variant import ReglamentacjaVariant

MAX_MOVES = 1_000_000


def _int(value: Any, what: str, lo: int, hi: int) -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise PositionError(f"{what} must be an int in {lo}..{hi}, not {format_value(value)}")
    return value


def _ints(value: Any, what: str, lo: int, hi: int, max_len: int) -> list[int]:
    if not isinstance(value, list) or len(value) > max_len:
        raise PositionError(f"{what} must be a list of at most {max_len} ints")
    return [_int(v, f"{what}[{i}]", lo, hi) for i, v in enumerate(value)]


def variant_from_data(data: Any) -> ReglamentacjaVariant:
    """Validate a variant given as plain data (schema and cross-field checks)."""
    from cardshop.reglamentacja.variant import ReglamentacjaVariant

    if not isinstance(data, dict):
        raise PositionError("'variant' must be a mapping")
    try:
        variant = ReglamentacjaVariant.model_validate(data)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        raise PositionError(f"invalid variant at {list(err['loc'])}: {err['msg']}") from None
    problems = variant.semantic_errors()
    if problems:
        path, reason = problems[0]
        raise PositionError(f"invalid variant at {list(path)}: {reason}")
    return variant


def game_from_data(cls: type[ReglamentacjaGame], data: Mapping[str, Any]) -> ReglamentacjaGame:
    """Rebuild a game from :meth:`ReglamentacjaGame.to_dict` data, checking everything."""
    from cardshop.reglamentacja.game import PHASES, STATS

    data = read_game_json(data)
    expected = {"family", "format", "variant_hash", "players", "seed", "first_player"}
    expected |= {"moves", "state", "variant"}
    if not expected <= set(data) <= expected | {"from_setup"}:
        raise PositionError(
            f"game data must have exactly the keys {sorted(expected)} (and from_setup)"
        )
    from_setup = data.get("from_setup", True)
    if type(from_setup) is not bool:
        raise PositionError(f"from_setup must be true or false, not {from_setup!r:.60}")
    if data["family"] != cls.family or data["format"] != cls.FORMAT:
        raise PositionError(f"not a {cls.family} game ({data['family']!r}, {data['format']!r})")
    try:
        variant = variant_from_data(data["variant"])
    except VariantError as exc:  # pragma: no cover - variant_from_data raises PositionError
        raise PositionError(str(exc)) from None
    if data["variant_hash"] != variant.content_hash:
        raise PositionError("variant_hash does not match the variant")
    n = _int(data["players"], "players", variant.players.min, variant.players.max)
    rules = variant.rules_for(n)
    seed = _int(data["seed"], "seed", 1 - SEED_LIMIT, SEED_LIMIT - 1)
    first = _int(data["first_player"], "first_player", 0, n - 1)
    st = data["state"]
    keys = {
        "chance", "stamps", "stamp_stack", "row", "shop_stack", "bought", "removed",
        "visits", "box", "queue", "active", "phase", "turn", "spin", "offer_turns",
        "pending", "final_buyers", "termination", "stats", "step",
    }  # fmt: skip
    if not isinstance(st, dict) or set(st) != keys:
        raise PositionError(f"state must have exactly the keys {sorted(keys)}")
    g = cls._empty(variant, n, seed)
    g.first_player = first
    g._from_setup = from_setup
    g._chance = _int(st["chance"], "chance", 0, MAX_COUNTER)
    ns, nc = rules.n_stamps, rules.n_cards
    g._swhere = _ints(st["stamps"], "stamps", 0, n + 1, ns)
    if len(g._swhere) != ns:
        raise PositionError(f"stamps must list the zone of each of the {ns} stamps")
    g._stack = _ints(st["stamp_stack"], "stamp_stack", 0, ns - 1, ns)
    g._row = _ints(st["row"], "row", 0, nc - 1, rules.row_size)
    g._cstack = _ints(st["shop_stack"], "shop_stack", 0, nc - 1, nc)
    bought = st["bought"]
    if not isinstance(bought, list) or len(bought) != n:
        raise PositionError(f"bought must list {n} seats")
    g._bought = [_ints(b, f"bought[{s}]", 0, nc - 1, nc) for s, b in enumerate(bought)]
    g._removed = _ints(st["removed"], "removed", 0, nc - 1, nc)
    g._visit = _ints(st["visits"], "visits", 0, rules.n_visits - 1, n)
    g._box = _ints(st["box"], "box", 0, rules.n_visits - 1, rules.n_visits)
    g._queue = _ints(st["queue"], "queue", -1, n - 1, n + 1)
    g._active = _int(st["active"], "active", 0, n - 1)
    if st["phase"] not in PHASES:
        raise PositionError(f"phase must be one of {', '.join(PHASES)}")
    g._phase = PHASES.index(st["phase"])
    g._turn = _int(st["turn"], "turn", 0, rules.turn_cap + 1)
    g._spin = _int(st["spin"], "spin", 0, rules.spin_max)
    g._done = _int(st["offer_turns"], "offer_turns", 0, rules.spin_max)
    g._fs = _int(st["final_buyers"], "final_buyers", 0, n)
    g._termination = _int(st["termination"], "termination", 0, 2)
    g._stats = _ints(st["stats"], "stats", 0, MAX_COUNTER, len(STATS))
    if len(g._stats) != len(STATS):
        raise PositionError(f"stats must hold {len(STATS)} counters")
    g._step = _int(st["step"], "step", 0, MAX_MOVES)
    g._rebuild_counts()
    pending = st["pending"]
    if pending is not None:
        set_pending(g, pending)
    # The moves, counted before any is read: one seat acts at a time, so step i is the
    # move i and there are exactly as many moves as steps. A game dealt by new_game is
    # replayed as its moves are read, so the first move that cannot be stops the read.
    moves = data["moves"]
    if not isinstance(moves, list) or len(moves) != g._step:
        raise PositionError(
            f"moves must be a list of the {g._step} moves of the state's {g._step} steps "
            "(one move a step)"
        )
    check = HistoryCheck(g)
    for i, m in enumerate(moves):
        if not (isinstance(m, list) and len(m) == 3 and isinstance(m[2], str)):
            raise PositionError(f"moves[{i}] must be [step, seat, action text]")
        step = _int(m[0], f"moves[{i}] step", i, i)
        seat = _int(m[1], f"moves[{i}] seat", 0, n - 1)
        try:
            action = g.parse_action(m[2])
        except ActionParseError as exc:
            raise PositionError(f"moves[{i}]: {exc}") from None
        check.add(step, seat, action)
        g._moves.append((step, seat, action))
    problems = state_problems(g)
    if problems:
        raise PositionError("inconsistent game state: " + "; ".join(problems[:5]))
    check.finish(g)
    return g


def set_pending(g: ReglamentacjaGame, text: Any) -> None:
    """Install a pending offer from its text (``"offer 2 give meat"`` or ``"2 give meat"``)."""
    if not isinstance(text, str):
        raise PositionError(f"a pending offer must be an offer text, not {text!r}")
    if not text.startswith("offer"):
        text = f"offer {text}"
    try:
        action = g.parse_action(text)
        d = g._decode(action)
    except ActionParseError as exc:
        raise PositionError(f"pending offer: {exc}") from None
    g._pt, g._pg, g._pk, g._pp = d[1], d[2], d[3], d[4]


def state_problems(g: ReglamentacjaGame) -> list[str]:
    """Every inconsistency of a state with the rules (conservation, queue, phases...)."""
    from cardshop.reglamentacja.game import (
        DISCARD,
        FINAL_SHOP,
        FINAL_TRADE,
        OVER,
        SHOP,
        SPECULATOR,
        TRADE,
    )

    rules = g.rules
    n = g.n
    out: list[str] = []
    # Stamps: each in one zone; the stack lists exactly the stamps in zone n. [RG-CARD-1]
    if len(g._swhere) != rules.n_stamps:
        out.append("not every stamp has a zone")
        return out
    in_stack = sorted(i for i, z in enumerate(g._swhere) if z == n)
    if sorted(g._stack) != in_stack:
        out.append("the stamp stack does not hold exactly the stamps in the stack zone")
    if any(not 0 <= z <= n + 1 for z in g._swhere):
        out.append("a stamp lies in no zone")
    # Shopping cards: each exactly once in row, stack, bought or removed. [RG-CARD-1]
    cards = [*g._row, *g._cstack, *g._removed]
    for b in g._bought:
        cards.extend(b)
    if sorted(cards) != list(range(rules.n_cards)):
        out.append("the shopping cards are not each in exactly one zone")
    # Visits: one per seat, distinct; the rest in the box.
    visits = [*g._visit, *g._box]
    if sorted(visits) != list(range(rules.n_visits)):
        out.append("the visit cards are not each in exactly one place")
    if n == 3 and rules.without_meal_visits and set(g._visit) & set(rules.meal_visits):
        out.append("a meal visit was dealt though the 3-player option removes them")
    # Queue: a permutation of the seats, with the speculator until the final turn.
    phase = g._phase
    has_spec = SPECULATOR in g._queue
    if sorted(p for p in g._queue if p != SPECULATOR) != list(range(n)) or (
        g._queue.count(SPECULATOR) > 1
    ):
        out.append("the queue is not a permutation of the pawns")
    final = phase in (FINAL_TRADE, FINAL_SHOP)
    if final and has_spec:
        out.append("the speculator is still in the queue in the final turn")
    if phase in (TRADE, DISCARD, SHOP) and not has_spec and rules.has_speculator:
        out.append("the speculator left the queue before the final turn")
    if has_spec and not rules.has_speculator:
        out.append("the variant has no speculator, but the queue holds his pawn")
    # The row is full while the game runs normally, and whenever the stack has cards.
    if len(g._row) > rules.row_size:
        out.append("the row is longer than row_size")
    if phase in (TRADE, DISCARD, SHOP) and len(g._row) != rules.row_size:
        out.append("the row is not full during a normal turn")
    if g._cstack and len(g._row) != rules.row_size:
        out.append("the row is short although the shopping stack has cards")
    if not 0 <= g._active < n:
        out.append("the top holder is not a seat")
    # Phase details.
    trading = phase in (TRADE, FINAL_TRADE)
    if trading:
        if not rules.spin_min <= g._spin <= rules.spin_max:
            out.append(f"spin {g._spin} is outside {rules.spin_min}..{rules.spin_max}")
        if not 0 <= g._done < g._spin:
            out.append("offer_turns must be below the spin")
    if g._pt >= 0:
        if not trading:
            out.append("an offer is pending outside trading")
        else:
            offerer = g._offerer()
            if g._pt not in g._targets(offerer):
                out.append(f"seat {offerer} may not make an offer to seat {g._pt}")
            elif not g._holds(offerer, rules.multisets[g._pg]):
                out.append(f"seat {offerer} does not hold the stamps it offers")
    if phase == DISCARD and g._hsize[g._active] <= rules.hand_limit:
        out.append("the discard phase needs the active player above the hand limit")
    if phase == SHOP:
        if g._queue and g._queue[0] == SPECULATOR:
            out.append("the speculator cannot be at the counter when a player shops")
        previous = (g._active - 1) % n
        if g._hsize[previous] > rules.hand_limit:
            out.append("the last active player is above the hand limit (RG-LIMIT-1)")
    if phase == FINAL_SHOP and not 0 <= g._fs < n:
        out.append("final_buyers must be a seat count below players")
    if (phase == OVER) != (g._termination != 0):
        out.append("termination must be set exactly when the game is over")
    if g._turn < 1:
        out.append("turn must be at least 1")
    return out
