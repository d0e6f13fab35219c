"""The game protocol of :mod:`cardshop._core`, kept apart so it is never compiled.

mypyc (the compiled build) turns the classes of the modules it compiles into classes of
its own kind; a ``runtime_checkable`` protocol must stay a plain ``typing.Protocol``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from cardshop._core import Action, Seat

__all__ = ["SupportsGame"]


@runtime_checkable
class SupportsGame(Protocol):
    """What every game of every family offers; bots, simulation and audits use only this."""

    @property
    def current_player(self) -> Seat | None: ...

    @property
    def is_over(self) -> bool: ...

    def legal_actions(self) -> Sequence[Action]: ...

    def parse_action(self, text: str) -> Action: ...
