"""How many games the differential tests (a family's kernel against its reference
engine, game by game) play, in each lane of the suite.

* the default lane (``python -m pytest``): a thousand and more games per family;
* the slow lane (``CARDSHOP_SLOW_LANE=1``, which ``.ci/run`` sets for its compiled
  stage, where the reference engine is fastest): tens of thousands per family;
* ``CARDSHOP_DIFF_GAMES=N`` overrides both, for a deep run by hand (docs/kernel.md).
"""

from __future__ import annotations

import os

__all__ = ["SLOW_LANE", "diff_games"]

SLOW_LANE = os.environ.get("CARDSHOP_SLOW_LANE", "") not in ("", "0")
"""Whether this run is the slow lane."""


def diff_games(default: int, slow: int, *, share: int = 1) -> int:
    """The games a differential test plays per built-in variant, player count and
    line-up: ``default``, or ``slow`` in the slow lane; in a deep run,
    ``CARDSHOP_DIFF_GAMES`` divided by ``share`` (a line-up whose games cost more
    plays a share of them), at least 2."""
    given = os.environ.get("CARDSHOP_DIFF_GAMES")
    if given:
        return max(2, int(given) // share)
    return slow if SLOW_LANE else default
