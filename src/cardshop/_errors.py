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
    └── RecordError           a game record cannot be read or no longer replays

All but GameStateError also subclass :class:`ValueError`: they are all complaints about an
input. Nothing is changed when one of them is raised.
"""

from __future__ import annotations

__all__ = [
    "ActionError",
    "ActionParseError",
    "CardshopError",
    "GameStateError",
    "IllegalActionError",
    "PositionError",
    "RecordError",
    "SetupError",
    "SourceLocation",
    "VariantError",
]

from dataclasses import dataclass


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
        super().__init__(f"{where}: invalid variant{key}: {reason}")


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
