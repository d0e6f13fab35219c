"""The one place that plays a game with players: turn-based and simultaneous alike.

Simulation, audits, the environments, game records, ``cardshop play`` and ``cardshop
demo`` all advance games through these functions, so scheduling (who acts, in what
order, who sees what) is decided here once::

    from cardshop import driver, new_game
    from cardshop.bots import RandomBot

    game = new_game("klunker-en", players=4, seed=1)
    driver.play(game, [RandomBot(seed) for seed in range(4)])

A *player* is anything with ``choose(observation, legal_actions) -> Action``
(:class:`cardshop.bots.Bot`). In every step each acting seat's player is shown that
seat's observation and legal actions only; in a simultaneous tick no seat sees what
the others chose before the tick resolves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from cardshop.core.actions import (
    Action,
    Seat,
)
from cardshop.core.errors import (
    GameStateError,
    IllegalActionError,
)
from cardshop.core.game import (
    Event,
    Game,
)

__all__ = ["Player", "Step", "TickBuffer", "choose", "play", "run_until", "step"]


class Player(Protocol):
    """What the driver needs of a player: a choice among the legal actions."""

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action: ...


Players = Mapping[Seat, Player] | Sequence[Player]


class Step(NamedTuple):
    """One step of a game: its number, the action of each seat that acted, the events."""

    number: int
    actions: dict[Seat, Action]
    events: list[Event]


def choose(
    game: Game, players: Players, given: Mapping[Seat, Action] | None = None
) -> dict[Seat, Action]:
    """The action of every acting seat: ``given`` ones as they are, others by their player."""
    chosen: dict[Seat, Action] = {}
    for seat in game.acting:
        if given is not None and seat in given:
            chosen[seat] = given[seat]
        else:
            chosen[seat] = players[seat].choose(game.observation(seat), game.legal_actions(seat))
    return chosen


def apply(game: Game, actions: Mapping[Seat, Action]) -> list[Event]:
    """Apply one step's actions: one seat's through ``apply``, several together."""
    if len(actions) == 1:
        ((seat, action),) = actions.items()
        if game.acting == (seat,):
            return game.apply(action, seat)
    return game.apply_joint(actions)


def step(
    game: Game, players: Players, given: Mapping[Seat, Action] | None = None, *, index: int = 0
) -> Step:
    """Play one step (one turn, or one tick of every acting seat); raise if it is over."""
    if game.is_over:
        raise GameStateError("the game is over: no step to play")
    actions = choose(game, players, given)
    return Step(index, actions, apply(game, actions))


def run_until(
    game: Game,
    players: Players,
    stop: Callable[[Game], bool],
    *,
    on_step: Callable[[Step], None] | None = None,
    max_steps: int | None = None,
) -> int:
    """Play steps until ``stop(game)`` is true or the game is over; return how many.

    ``max_steps`` bounds the loop (a :class:`~cardshop.GameStateError` when reached
    first, so that a family without a cap cannot hang a caller).
    """
    played = 0
    while not game.is_over and not stop(game):
        if max_steps is not None and played >= max_steps:
            raise GameStateError(f"the game did not end within {max_steps} steps")
        done = step(game, players, index=played)
        played += 1
        if on_step is not None:
            on_step(done)
    return played


def play(
    game: Game,
    players: Players,
    *,
    on_step: Callable[[Step], None] | None = None,
    max_steps: int | None = None,
) -> Game:
    """Play ``game`` to its end with ``players`` (one per seat); return the game."""
    run_until(game, players, lambda g: False, on_step=on_step, max_steps=max_steps)
    return game


class TickBuffer:
    """Collects the acting seats' actions one at a time; resolves the step when complete.

    For callers that meet one seat at a time (a person at a terminal, a PettingZoo
    AEC environment): each :meth:`submit` is checked for legality at once and kept
    out of sight of the other seats; the last acting seat's submission applies the
    whole step and returns its events. In a turn-based game every submission
    completes a step.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self._pending: dict[Seat, Action] = {}

    @property
    def waiting(self) -> tuple[Seat, ...]:
        """Acting seats that have not submitted yet this step."""
        return tuple(s for s in self.game.acting if s not in self._pending)

    @property
    def submitted(self) -> tuple[Seat, ...]:
        """Seats whose action for this step is held back until the step resolves."""
        return tuple(sorted(self._pending))

    def submit(self, seat: Seat, action: Action | str) -> list[Event] | None:
        """Hold ``seat``'s action; apply the step once every acting seat has one.

        Returns the step's events when it resolved, else ``None``. An illegal action
        raises :class:`~cardshop.IllegalActionError` and is not held.
        """
        game = self.game
        if seat not in self.waiting:
            raise GameStateError(f"seat {seat!r} does not act now or has already submitted")
        if isinstance(action, str):
            action = game.parse_action(action, seat)
        if action not in game.legal_actions(seat):
            raise IllegalActionError(f"{str(action)!r} is not legal for seat {seat} now")
        self._pending[seat] = action
        if self.waiting:
            return None
        actions, self._pending = self._pending, {}
        return apply(game, actions)

    def clear(self) -> None:
        """Forget the held actions (after an undo, say)."""
        self._pending = {}
