"""``Checked[T]``: an argument of type ``T`` that the function checks itself at run time.

For type checkers ``Checked[T]`` is ``T``. The public entry points of the engine take
hostile input: they test an argument's type and raise the library's own error
(``ActionError``, ``SetupError``, ...) for a wrong one. A module compiled by mypyc would
check the annotated type on entry and raise ``TypeError`` first; the compiled build
(``hatch_build.py``) therefore compiles against a stub of this module in which
``Checked[T]`` admits any object, so that both builds raise the same errors.
"""

import abc
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

__all__ = ["Checked", "own_abc_caches"]

T = TypeVar("T")

Checked = Annotated[T, "checked at run time"]

_ABC_INIT: Callable[[type], None] = vars(abc)["_abc_init"]


def own_abc_caches(cls: type[Any]) -> None:
    """Give ``cls``, a subclass of an abstract base class, ABC caches of its own.

    Python gives every class that ``ABCMeta`` makes its own registry and caches for
    ``isinstance``; mypyc makes a compiled class without ``ABCMeta.__new__``, so the
    class would share its base's, and once ``isinstance(x, Base)`` held for an ``x``
    of another subclass, ``isinstance(x, cls)`` would hold too. A module compiled by
    mypyc calls this after each such class; for a class Python made it changes nothing.

    It also points the class's sequence-length slot at its own ``__len__``: mypyc fills
    only the mapping-length slot, and the sequence one, inherited from a base such as
    ``collections.abc.Sequence``, would reach the compiled ``__len__`` through a method
    lookup on every ``len()`` (about four times the cost). Setting the attribute again
    makes Python fill both slots from it.
    """
    if "_abc_impl" not in cls.__dict__:
        _ABC_INIT(cls)
    own_len = cls.__dict__.get("__len__")
    if own_len is not None:
        type.__setattr__(cls, "__len__", own_len)
