"""The system's Chromium for the browser tests, driven by playwright without a browser
download of its own (Debian: ``apt-get install chromium``; .ci/run installs it).

Without any Chromium a browser test skips, saying so; under CI (``CI`` set) a missing
browser is a failure, never a skip.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def chromium() -> str | None:
    """The browser to drive: ``$CARDSHOP_CHROMIUM``, else the first candidate on PATH."""
    wanted = os.environ.get("CARDSHOP_CHROMIUM")
    if wanted:
        return wanted
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def launch() -> Iterator[Browser]:
    """A headless browser for a module-scoped fixture to yield (skip or fail without)."""
    path = chromium()
    if path is None:
        reason = (
            "no Chromium found (looked for " + ", ".join(CANDIDATES) + " on PATH and "
            "$CARDSHOP_CHROMIUM); install it with: apt-get install chromium"
        )
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=path, headless=True)
        yield launched
        launched.close()
