"""``Checked[T]``: an argument of type ``T`` that the function checks itself at run time.

For type checkers ``Checked[T]`` is ``T``. The public entry points of the engine take
hostile input: they test an argument's type and raise the library's own error
(``ActionError``, ``SetupError``, ...) for a wrong one. A module compiled by mypyc would
check the annotated type on entry and raise ``TypeError`` first; the compiled build
(``hatch_build.py``) therefore compiles against a stub of this module in which
``Checked[T]`` admits any object, so that both builds raise the same errors.
"""

from typing import Annotated, TypeVar

__all__ = ["Checked"]

T = TypeVar("T")

Checked = Annotated[T, "checked at run time"]
