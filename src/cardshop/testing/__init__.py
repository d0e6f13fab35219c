"""Property-based testing of variants of every family, for your own test suite.

Needs hypothesis (``python -m pip install ".[testing]"``). Two parts:

* :mod:`cardshop.testing.strategies`: hypothesis strategies for valid variants
  (:func:`variants`), games (:func:`games`) and legal action sequences
  (:func:`action_sequences`);
* :mod:`cardshop.testing.stateful`: :func:`game_machine`, a hypothesis
  ``RuleBasedStateMachine`` that plays a variant with hypothesis choosing every
  action and checks every invariant of :mod:`cardshop.invariants` after every step.

Auditing your own variant file takes one line in a test module::

    from cardshop.testing import game_machine

    TestMyVariant = game_machine("variants/my-variant.yaml").TestCase

See docs/auditing.md.
"""

from __future__ import annotations

try:
    import hypothesis  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        "cardshop.testing needs hypothesis; install it with: python -m pip install "
        '".[testing]" in a clone of cardshop'
    ) from exc

from cardshop.testing.conformance import FamilyTests
from cardshop.testing.stateful import game_machine
from cardshop.testing.strategies import (
    Playthrough,
    action_sequences,
    draw_step,
    family_variants,
    games,
    variants,
)

__all__ = [
    "FamilyTests",
    "Playthrough",
    "action_sequences",
    "draw_step",
    "family_variants",
    "game_machine",
    "games",
    "variants",
]
