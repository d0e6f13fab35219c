"""An action built part by part: the walk through a family's factored action space that
the browser table and the MCP tools share.

A family with a factored space (:attr:`~cardshop.core.family.Family.factored`, such as
Reglamentacja's offers: whom to offer, what to give, what to take, the queue place)
lets a person or an agent choose an action one part at a time, each part listing only
the options that can still lead to a legal action, where the flat list of legal actions
runs to thousands. :func:`parts_answer` checks the options chosen so far against the
space and says what comes next: the next part's options, or the whole action.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cardshop.core.actions import Seat
from cardshop.core.errors import CardshopError, GameStateError
from cardshop.core.factored import ActionFactors
from cardshop.core.game import Game
from cardshop.serve.protocol import MAX_PART_OPTION, MAX_PARTS

__all__ = ["PartsError", "leaves", "parts_answer"]


class PartsError(CardshopError, ValueError):
    """Parts that do not lead to a legal action (the message names the first that does
    not and lists the legal options in its place); nothing changes."""


def parts_answer(
    factors: ActionFactors,
    game: Game,
    seat: Seat,
    chosen: Sequence[int],
    *,
    follow: bool,
    lookahead: int = 0,
) -> dict[str, Any]:
    """After the options ``chosen`` (one per part, in order), the next part's legal
    options for ``seat`` in ``game``, or the whole action they make.

    Each option is checked against the options the space lists at its place
    (:meth:`~cardshop.core.ActionFactors.next`); ``follow`` chooses every part with a
    single legal option at once (``forced`` in the answer's ``path``). With
    ``lookahead``, each listed option whose actions number at most ``lookahead`` lists
    their texts (one click each). The answer: ``chosen`` (every option, forced ones
    included), ``path`` (each part's name, value, label and whether it was forced),
    ``next`` (the next part's ``step``, ``name`` and ``options``, or None) and
    ``action`` (the text of the whole action, or None). Raises :class:`PartsError`.
    """
    if len(chosen) > MAX_PARTS:
        raise PartsError(f"at most {MAX_PARTS} parts, not {len(chosen)}")
    for option in chosen:
        if isinstance(option, bool) or not isinstance(option, int):
            raise PartsError(f"an option is a whole number, not {str(option)[:20]!r}")
        if not 0 <= option <= MAX_PART_OPTION:
            raise PartsError(f"an option is a whole number 0..{MAX_PART_OPTION}, not {option}")
    path: list[dict[str, Any]] = []
    picked: list[int] = []
    for option in chosen:
        found = factors.next(game, seat, picked)
        if found is None:
            raise PartsError(
                f"the first {len(picked)} part(s) already make the action "
                f"{str(factors.compose(picked))!r}: nothing follows them"
            )
        step, options = found
        if option not in options:
            labels = ", ".join(f"{o} ({factors.options[step][o]})" for o in options[:20])
            more = f" and {len(options) - 20} more" if len(options) > 20 else ""
            raise PartsError(
                f"part {len(picked)} ({factors.steps[step]}): option {option} is not legal "
                f"here; the legal options are {labels}{more}"
            )
        path.append(_part(factors, step, option, forced=False))
        picked.append(option)
    while True:
        found = factors.next(game, seat, picked)
        if found is None or not follow or len(found[1]) != 1 or len(picked) >= MAX_PARTS:
            break
        step, (option,) = found
        path.append(_part(factors, step, option, forced=True))
        picked.append(option)
    action = None
    nxt = None
    if found is None:
        composed = factors.compose(picked)
        if composed not in game.legal_actions(seat):  # the space promises it is
            raise GameStateError(f"the parts {picked} make {str(composed)!r}, not legal now")
        action = str(composed)
    else:
        step, options = found
        listed = []
        for option in options:
            entry: dict[str, Any] = {"value": option, "label": factors.options[step][option]}
            if lookahead:
                entry["actions"] = leaves(factors, game, seat, [*picked, option], lookahead)
            listed.append(entry)
        nxt = {"step": step, "name": factors.steps[step], "options": listed}
    return {"chosen": picked, "path": path, "next": nxt, "action": action}


def _part(factors: ActionFactors, step: int, option: int, *, forced: bool) -> dict[str, Any]:
    return {
        "step": step,
        "name": factors.steps[step],
        "value": option,
        "label": factors.options[step][option],
        "forced": forced,
    }


def leaves(
    factors: ActionFactors, game: Game, seat: Seat, chosen: list[int], limit: int
) -> list[str] | None:
    """The texts of the actions that begin with ``chosen``, in the space's order, if
    there are at most ``limit`` of them; ``None`` if there are more (found without
    listing them: the walk stops at the first one over)."""
    found: list[str] = []
    stack = [chosen]
    while stack:
        picked = stack.pop()
        nxt = factors.next(game, seat, picked)
        if nxt is None:
            found.append(str(factors.compose(picked)))
            if len(found) > limit:
                return None
            continue
        stack.extend([*picked, option] for option in reversed(nxt[1]))
    return found
