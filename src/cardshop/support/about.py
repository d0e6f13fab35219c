"""What this installation of cardshop is: its version, and which build of the engine.

The package's front module (``cardshop.__version__``, ``cardshop.compiled``) and the
tools (an audit report records both) read them here.
"""

from __future__ import annotations

from importlib.machinery import EXTENSION_SUFFIXES

from cardshop.core import actions as _actions

__all__ = ["VERSION", "compiled"]

VERSION = "0.1.0"
"""The version of cardshop (the same as ``pyproject.toml``'s)."""

compiled: bool = _actions.__file__.endswith(tuple(EXTENSION_SUFFIXES))
"""Whether the compiled build of the engine is in use (its hot modules built by mypyc
into C extensions), rather than pure Python; see docs/performance.md."""
