"""The exceptions cardshop raises.

Every error is a :class:`CardshopError`, so ``except cardshop.CardshopError`` catches
them all; each kind of failure has its own subclass::

    CardshopError
    ├── VariantError          a variant file or spec is invalid (names file, line, key)
    ├── PositionError         a position does not describe a legal game state
    ├── SetupError            a game asked for what its variant does not allow
    ├── ActionError
    │   ├── ActionParseError  an action text is not understood
    │   └── IllegalActionError  a well-formed action that the rules forbid now
    ├── GameStateError        a call that the game's state does not allow
    ├── RecordError           a game record cannot be read or no longer replays
    └── InvariantViolation    an invariant does not hold: a fault in an engine

All but GameStateError and InvariantViolation also subclass :class:`ValueError`: they
are complaints about an input. Nothing is changed when one of them is raised.
InvariantViolation is an :class:`AssertionError` too; the invariant harness
(:mod:`cardshop.invariants`) raises it, and a family's own checks may raise it.
"""

from __future__ import annotations

__all__ = [
    "ActionError",
    "ActionParseError",
    "CardshopError",
    "Counterexample",
    "GameStateError",
    "IllegalActionError",
    "InvariantViolation",
    "PositionError",
    "RecordError",
    "SetupError",
    "SourceLocation",
    "VariantError",
]

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar


class CardshopError(Exception):
    """Base class of every error raised by cardshop."""


@dataclass(frozen=True, slots=True)
class SourceLocation:
    """Where in a file a value was written (1-based line and column)."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


def format_path(path: tuple[str | int, ...]) -> str:
    """Render a key path the way a YAML author reads it: ``sale.payout[2]``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "<top level>"


def format_value(value: object) -> str:
    """A hostile value as an error message shows it: its ``repr``, cut to 60 characters,
    or an int of 64 bits or more by its size (one of over 4300 digits has no ``repr``)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**64:
        return f"an int of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class VariantError(CardshopError, ValueError):
    """A variant file or spec is invalid.

    ``source`` is the file (or ``<string>``), ``location`` the line and column of
    the offending value when known, ``path`` the key path (``sale.payout[2]``) and
    ``reason`` the plain explanation.
    """

    def __init__(
        self,
        reason: str,
        *,
        source: str = "<string>",
        path: tuple[str | int, ...] = (),
        location: SourceLocation | None = None,
    ) -> None:
        self.reason = reason
        self.source = source
        self.path = path
        self.location = location
        where = str(location) if location is not None else source
        key = f" at {format_path(path)}" if path else ""
        super().__init__(f"{where}: {self.verdict()}{key}: {reason}")

    noun: ClassVar[str] = "variant"
    """What the file is, in the message: a subclass for another kind of file names it."""

    @classmethod
    def verdict(cls) -> str:
        """What the message calls the problem, after the file: ``invalid variant``."""
        return f"invalid {cls.noun}"


class PositionError(CardshopError, ValueError):
    """A position (see docs/positions.md) does not describe a legal game state."""


class SetupError(CardshopError, ValueError):
    """A new game or match asked for what its variant does not allow (e.g. 7 players)."""


class ActionError(CardshopError, ValueError):
    """Base class of errors about an action."""


class ActionParseError(ActionError):
    """An action text could not be parsed."""


class IllegalActionError(ActionError):
    """An action that the rules do not allow in the current state."""


class GameStateError(CardshopError):
    """A call that the game's current state does not allow (e.g. ``result()`` mid-game)."""


class RecordError(CardshopError, ValueError):
    """A game record cannot be read, or its actions no longer replay."""


@dataclass(frozen=True, slots=True)
class Counterexample:
    """A game that breaks an invariant, as a replayable list of steps.

    Each step is an action text (turn-based games) or a mapping of seat to action
    text (a simultaneous tick). ``cardshop.replay(variant, players, seed, first_player,
    actions, **options)`` plays it again; :meth:`to_code` prints that call.
    ``variant`` is a built-in name or the path of the variant file; ``first_player``
    is ``None`` for a family whose games do not take one.
    """

    invariant: str
    detail: str
    variant: str
    players: int
    seed: int
    first_player: int | None
    actions: tuple[str | Mapping[int, str], ...]
    options: Mapping[str, Any] = field(default_factory=dict)

    def to_code(self) -> str:
        """Python that replays the counterexample up to the step that broke the invariant."""
        setup = f"    {self.variant!r}, players={self.players}, seed={self.seed},"
        if self.first_player is not None:
            setup += f" first_player={self.first_player},"
        lines = ["import cardshop", "game = cardshop.replay(", setup]
        lines += [f"    {name}={value!r}," for name, value in sorted(self.options.items())]
        lines.append("    actions=[")
        for step in self.actions:
            text = step if isinstance(step, str) else dict(step)
            lines.append(f"        {text!r},")
        lines += ["    ],", ")"]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (a tick's seats become string keys)."""
        data: dict[str, Any] = {
            "invariant": self.invariant,
            "detail": self.detail,
            "variant": self.variant,
            "players": self.players,
            "seed": self.seed,
            "first_player": self.first_player,
            "actions": [
                step if isinstance(step, str) else {str(s): a for s, a in step.items()}
                for step in self.actions
            ],
        }
        if self.options:
            data["options"] = dict(self.options)
        return data


class InvariantViolation(CardshopError, AssertionError):
    """An invariant does not hold: a fault in the engine (or in a patched engine).

    ``invariant`` is the name, ``detail`` says what was found, and
    ``counterexample`` (when the game can be replayed from its setup) gives the steps
    that lead to the fault. A family's checks raise it without one; the harness
    (:class:`cardshop.invariants.CheckedGame`) adds the steps from the game's setup.
    """

    def __init__(
        self, invariant: str, detail: str, counterexample: Counterexample | None = None
    ) -> None:
        self.invariant = invariant
        self.detail = detail
        self.counterexample = counterexample
        message = f"invariant {invariant!r} violated: {detail}"
        if counterexample is not None:
            message += (
                f"\n{len(counterexample.actions)} step(s) from setup reproduce it:\n"
                + counterexample.to_code()
            )
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.invariant, self.detail, self.counterexample))
