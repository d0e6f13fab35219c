"""Shared test setup: hypothesis profiles and small helpers.

Profiles (``CARDSHOP_HYPOTHESIS_PROFILE``): ``ci`` is deterministic and bounded and is
the default when ``CI`` is set; ``dev`` (default elsewhere) is a little larger;
``deep`` runs many more examples, for hand runs.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=40,
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(
    os.environ.get("CARDSHOP_HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev")
)
