"""A ladder's HTML page in a real headless browser: opened offline through file://, it
draws both charts, asks for nothing beyond itself and logs no error (the system's
Chromium, as in test_report_browser.py; without one the test skips, under CI fails)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("choix")
pytest.importorskip("plotly")

from playwright.sync_api import Browser

from browser_support import launch
from cardshop.ladder import run_ladder

pytestmark = [pytest.mark.xdist_group("ladder-browser"), pytest.mark.build_independent]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


def test_the_ladder_page_draws_its_charts_offline(browser: Browser, tmp_path: Path) -> None:
    ladder = run_ladder(
        "klunker-en",
        ["random", "greedy", "baseline"],
        players=3,
        deals=2,
        workers=1,
        resamples=10,
    )
    path = tmp_path / "ladder.html"
    path.write_text(ladder.to_html(), encoding="utf-8")
    context = browser.new_context(offline=True, viewport={"width": 1300, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    requests: list[str] = []
    console: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_selector("body[data-charts-rendered]")
    assert page.evaluate("document.body.getAttribute('data-charts-rendered')") == "2"
    for chart in ("chart-ratings", "chart-wins"):
        assert page.evaluate(f"document.getElementById('{chart}').dataset.rendered") == "true"
        assert page.evaluate(f"document.querySelectorAll('#{chart} svg').length") >= 1
    assert errors == []
    assert [m for m in console if m.startswith(("error", "warning"))] == []
    assert requests == [path.as_uri()]
    context.close()
