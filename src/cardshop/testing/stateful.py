"""A hypothesis state machine that plays a variant of any family and checks every invariant.

:func:`game_machine` builds a ``RuleBasedStateMachine`` class for one variant.
Hypothesis sets up games (player count, seed, and a first player for families that
take one), picks every acting seat's action among its legal ones (all seats of a
simultaneous tick), and every step goes through
:class:`~cardshop.invariants.CheckedGame`: the generic invariants and the family's
own (``Family.invariants``, with its monitors following the game) are checked after
every step. When one fails, hypothesis shrinks the run and prints it as a script of
``game.apply(...)`` / ``game.apply_joint(...)`` lines; the
:class:`~cardshop.invariants.InvariantViolation` it raises carries the same steps as
a :class:`~cardshop.invariants.Counterexample`.

In a test module::

    from cardshop.testing import game_machine

    TestMyVariant = game_machine("my-variant.yaml").TestCase

or, to run it from code, ``hypothesis.stateful.run_state_machine_as_test(machine)``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from cardshop.core.family import game_options
from cardshop.core.frontdoor import new_game
from cardshop.core.game import Dynamics
from cardshop.core.loader import load_variant
from cardshop.core.registry import get_family
from cardshop.core.variant import VariantBase
from cardshop.invariants import CheckedGame, invariant_names, invariants_of
from cardshop.testing.strategies import draw_step

__all__ = ["GameMachine", "game_machine"]


class GameMachine(RuleBasedStateMachine):
    """Plays games of :attr:`variant` in debug mode; any violation fails the run.

    Subclasses made by :func:`game_machine` set the class attributes.
    """

    variant: VariantBase
    variant_ref: str = ""
    player_counts: tuple[int, ...] = ()
    checks: frozenset[str] = frozenset()
    max_actions_per_step: int = 10

    def __init__(self) -> None:
        super().__init__()
        self.game: CheckedGame | None = None

    # ------------------------------------------------------------------ rules

    @initialize(data=st.data(), seed=st.integers(0, 2**32 - 1))
    def start(self, data: st.DataObject, seed: int) -> None:
        """Set up a game: player count, seed and (if the family takes one) first player."""
        self._new_game(data, seed)

    @precondition(lambda self: self.game is not None and self.game.is_over)
    @rule(data=st.data(), seed=st.integers(0, 2**32 - 1))
    def next_game(self, data: st.DataObject, seed: int) -> None:
        """After a game ends, set up another."""
        self._new_game(data, seed)

    @precondition(lambda self: self.game is not None and not self.game.is_over)
    @rule(data=st.data())
    def act(self, data: st.DataObject) -> None:
        """Play one step chosen by hypothesis, checked thoroughly."""
        self._act(data, full=True)

    @precondition(lambda self: self.game is not None and not self.game.is_over)
    @rule(data=st.data())
    def act_several(self, data: st.DataObject) -> None:
        """Play several steps; the last is checked thoroughly, the others quickly."""
        count = data.draw(st.integers(1, self.max_actions_per_step), label="steps")
        for i in range(count):
            game = self.game
            if game is None or game.is_over:
                return
            self._act(data, full=i == count - 1)

    # -------------------------------------------------------------- helpers

    def _new_game(self, data: st.DataObject, seed: int) -> None:
        players = data.draw(st.sampled_from(self.player_counts), label="players")
        options: dict[str, Any] = {}
        if "first_player" in game_options(get_family(self.variant.family)):
            options["first_player"] = data.draw(st.integers(0, players - 1), label="first_player")
        shown = "".join(f", {k}={v}" for k, v in options.items())
        note(
            f"game = cardshop.new_game({self.variant_ref!r}, players={players}, seed={seed}{shown})"
        )
        game = new_game(self.variant, players, seed, **options)
        self.game = CheckedGame(game, checks=self.checks, variant_ref=self.variant_ref)

    def _act(self, data: st.DataObject, *, full: bool) -> None:
        checked = self.game
        assert checked is not None
        game = checked.game
        actions = draw_step(data.draw, game)
        if game.dynamics is Dynamics.SEQUENTIAL and len(actions) == 1:
            ((seat, action),) = actions.items()
            note(f"game.apply({str(action)!r}, {seat})")
            checked.apply(action, seat, thorough=full)
        else:
            texts = {seat: str(action) for seat, action in actions.items()}
            note(f"game.apply_joint({texts!r})")
            checked.apply_joint(actions, thorough=full)


def game_machine(
    variant: VariantBase | str | Path,
    *,
    players: int | Sequence[int] | None = None,
    checks: Collection[str] | None = None,
    max_actions_per_step: int = 10,
    name: str | None = None,
) -> type[GameMachine]:
    """A state machine class that plays ``variant`` and checks every invariant.

    ``variant`` is a built-in name, a YAML path or a loaded variant of any family.
    ``players`` limits the player counts (default: the variant's whole range);
    ``checks`` limits the invariants checked (names of
    :func:`cardshop.invariants.invariants_of` for its family); each step plays 1 to
    ``max_actions_per_step`` steps of the game. Use its ``TestCase`` attribute in a
    test module, or run it with ``hypothesis.stateful.run_state_machine_as_test``.
    """
    v = load_variant(variant)
    ref = v.name if isinstance(variant, VariantBase) else str(variant)
    if players is None:
        counts = tuple(range(v.players.min, v.players.max + 1))
    elif isinstance(players, int):
        counts = (players,)
    else:
        counts = tuple(players)
    bad = [n for n in counts if not v.players.min <= n <= v.players.max]
    if bad or not counts:
        raise ValueError(
            f"{v.name} is played by {v.players.min} to {v.players.max} players, not {bad or counts}"
        )
    names = invariant_names(invariants_of(v.family))
    wanted = frozenset(names if checks is None else checks)
    unknown = wanted - set(names)
    if unknown:
        raise ValueError(f"unknown invariants {sorted(unknown)}; known: {', '.join(names)}")
    title = name or "".join(part.capitalize() for part in v.name.split("-")) + "Machine"
    attrs: dict[str, Any] = {
        "variant": v,
        "variant_ref": ref,
        "player_counts": counts,
        "checks": wanted,
        "max_actions_per_step": max(1, max_actions_per_step),
        "__doc__": f"Plays {v.name} and checks every invariant after every step.",
    }
    return type(title, (GameMachine,), attrs)
