"""The game protocol of :mod:`cardshop.core.actions`, kept apart so it is never compiled.

mypyc (the compiled build) turns the classes of the modules it compiles into classes of
its own kind; a ``runtime_checkable`` protocol must stay a plain ``typing.Protocol``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from cardshop.core.actions import (
        Action,
        Seat,
    )

__all__ = ["ActionList", "SupportsGame"]


class ActionList(Protocol):
    """What a :class:`~cardshop.core.LegalActions` view wraps: the actions, in order.

    A list or tuple of actions is one; so is any sequence of actions, or a class of a
    family's own that computes its answers without building every action (the view
    then does slices, equality and sampling itself from these).
    """

    def __len__(self) -> int: ...

    def __getitem__(self, index: int, /) -> Action: ...

    def __contains__(self, action: object, /) -> bool: ...

    def __iter__(self) -> Iterator[Action]: ...

    def index(self, value: Any, start: int = 0, stop: int = ..., /) -> int: ...

    def count(self, value: Any, /) -> int: ...


@runtime_checkable
class SupportsGame(Protocol):
    """What every game of every family offers; bots, simulation and audits use only this."""

    @property
    def current_player(self) -> Seat | None: ...

    @property
    def is_over(self) -> bool: ...

    def legal_actions(self) -> Sequence[Action]: ...

    def parse_action(self, text: str) -> Action: ...
