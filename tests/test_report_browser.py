"""The HTML report in a real headless browser: the written file, opened offline through
file://, loads without a console error, draws every chart, requests nothing beyond
itself, and shows hostile variant text as text.

The browser is the system's Chromium (Debian: ``apt-get install chromium``; .ci/run
installs it), driven by playwright without a browser download of its own. One browser
serves the whole module. Without any Chromium the tests skip, saying so; under CI
(``CI`` set) a missing browser is a failure, never a skip.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from browser_support import launch
from cardshop.report import render_html, write_html
from test_report import HOSTILE, sample_report

# Its module-scoped fixtures (the browser and the reports it opens) are built once:
# under pytest -n one worker runs the module.
pytestmark = [pytest.mark.xdist_group("report-browser"), pytest.mark.build_independent]

CHARTS_PER_COUNT = 8


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


@dataclass
class Visit:
    """A report page opened offline, with all it printed and asked for."""

    page: Page
    url: str
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def js(self, script: str) -> Any:
        return self.page.evaluate(script)


def _open(browser: Browser, folder: Path, report: dict[str, Any]) -> Iterator[Visit]:
    path = folder / "report.html"
    write_html(report, path)
    yield from _visit(browser, path)


def _visit(browser: Browser, path: Path) -> Iterator[Visit]:
    context = browser.new_context(offline=True, viewport={"width": 1300, "height": 900})
    page = context.new_page()
    seen = Visit(page, path.as_uri())
    page.on("console", lambda m: seen.console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: seen.errors.append(str(e)))
    page.on("request", lambda r: seen.requests.append(r.url))
    page.goto(seen.url, wait_until="load")
    page.wait_for_selector("body[data-charts-rendered], body[data-charts-failed]")
    yield seen
    context.close()


@pytest.fixture(scope="module")
def audit(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Visit]:
    """An audit of one variant at two player counts, of a family with ticks."""
    report = sample_report(counts=(3, 4), ticks=True)
    yield from _open(browser, tmp_path_factory.mktemp("audit"), report)


@pytest.fixture(scope="module")
def comparison(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Visit]:
    """A comparison whose variant A is named, titled and played by hostile text."""
    report = sample_report(compare=True, title=HOSTILE, counts=(4,))
    report["variants"][0]["variant"] = HOSTILE
    report["variants"][0]["bots"] = [HOSTILE]
    report["variants"][0]["player_counts"][0]["charts"]["win_rate_by_bot"][0]["bot"] = HOSTILE
    yield from _open(browser, tmp_path_factory.mktemp("comparison"), report)


@dataclass
class CliRun:
    """``cardshop audit A B --json --html FILE``: the JSON it printed and the page it wrote."""

    report: dict[str, Any]
    page: Path
    visit: Visit


@pytest.fixture(scope="module")
def cli(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[CliRun]:
    """End to end: the command line audits and compares two built-in variants with the
    real measures, and writes the page."""
    page = tmp_path_factory.mktemp("cli") / "comparison.html"
    command = [sys.executable, "-m", "cardshop", "audit", "klunker-en", "klunker-es"]
    command += ["--players", "3", "--games", "10", "--examples", "0", "--quiet"]
    command += ["--bots", "random", "--bots", "greedy", "--json", "--html", str(page)]
    # A hang guard: the audit takes seconds, 1800 s is 100 times that.
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    for seen in _visit(browser, page):
        yield CliRun(report, page, seen)


@pytest.fixture(scope="module")
def single(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[CliRun]:
    """``cardshop audit klunker-en --html report.html`` (with few games): one variant,
    real measures, no comparison."""
    page = tmp_path_factory.mktemp("single") / "report.html"
    command = [sys.executable, "-m", "cardshop", "audit", "klunker-en", "--html", str(page)]
    command += ["--players", "4", "--games", "6", "--examples", "0", "--quiet", "--json"]
    # A hang guard: the audit takes seconds, 1800 s is 100 times that.
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode == 0, done.stderr
    for seen in _visit(browser, page):
        yield CliRun(json.loads(done.stdout), page, seen)


def _charts(seen: Visit) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = seen.js(
        """Array.from(document.querySelectorAll('div.chart')).map(c => ({
            id: c.id,
            rendered: c.getAttribute('data-rendered'),
            svg: c.querySelectorAll('svg.main-svg').length,
            traces: c.querySelectorAll('g.trace').length,
            width: c.getBoundingClientRect().width,
            legend: Array.from(c.querySelectorAll('.legendtext')).map(t => t.textContent),
            title: (c.querySelector('.gtitle') || {}).textContent,
        }))"""
    )
    return found


def _seen(which: str, request: pytest.FixtureRequest) -> Visit:
    found = request.getfixturevalue(which)
    return found.visit if isinstance(found, CliRun) else found


@pytest.mark.parametrize("which", ["audit", "comparison", "cli", "single"])
def test_the_page_loads_offline_without_errors_or_requests(
    which: str, request: pytest.FixtureRequest
) -> None:
    seen = _seen(which, request)
    assert seen.errors == []
    assert [m for m in seen.console if m.startswith(("error", "warning"))] == []
    assert seen.requests == [seen.url]  # the file itself, and nothing else
    assert seen.js("document.body.getAttribute('data-charts-failed')") is None


@pytest.mark.parametrize(
    ("which", "count"), [("audit", 2), ("comparison", 1), ("cli", 1), ("single", 1)]
)
def test_every_chart_is_drawn(which: str, count: int, request: pytest.FixtureRequest) -> None:
    seen = _seen(which, request)
    charts = _charts(seen)
    assert len(charts) == count * CHARTS_PER_COUNT
    assert seen.js("document.body.getAttribute('data-charts-rendered')") == str(len(charts))
    for chart in charts:
        assert chart["rendered"] == "true", chart
        assert chart["svg"] >= 1, chart
        assert chart["traces"] >= 1, chart  # something is drawn, not just empty axes
        assert chart["width"] > 300, chart
        assert chart["title"], chart


def test_an_audit_shows_its_tables_and_error_bars(audit: Visit) -> None:
    titles = {c["title"] for c in _charts(audit)}
    assert "Win rate per seat" in titles
    assert "Branching factor over the course of a game" in titles
    rows = audit.js("document.querySelectorAll('#players-4 table.measures tbody tr').length")
    assert rows == 12
    # one error bar per seat of the seat chart, one per bot kind of the bot chart
    assert audit.js("document.querySelectorAll('#chart-4-win_seat g.errorbar').length") == 4
    assert audit.js("document.querySelectorAll('#chart-3-win_bot g.errorbar').length") == 2
    assert audit.js("document.querySelectorAll('table.comparison').length") == 0


def test_a_comparison_overlays_both_variants_in_every_chart(comparison: Visit) -> None:
    for chart in _charts(comparison):
        assert set(chart["legend"]) == {f"A: {HOSTILE}", "B: gentle.yaml"}, chart["id"]
    marked = comparison.js("document.querySelectorAll('table.comparison tr.significant').length")
    assert marked == 1


def test_hostile_text_shows_as_text_and_never_runs(comparison: Visit) -> None:
    seen = comparison
    assert seen.js("typeof window.__xss") == "undefined"
    assert seen.js("document.querySelectorAll('main img, main script').length") == 0
    assert seen.js("document.querySelector('table.variants td:nth-child(2)').textContent") == (
        HOSTILE
    )
    assert seen.js("document.title") == f"cardshop audit: {HOSTILE} vs gentle.yaml"
    ticks = seen.js(
        "Array.from(document.querySelectorAll('#chart-4-win_bot .xtick text'))"
        ".map(t => t.textContent)"
    )
    assert HOSTILE in ticks


def test_a_single_audit_has_every_chart_and_no_comparison(single: CliRun) -> None:
    seen = single.visit
    titles = [c["title"] for c in _charts(seen)]
    assert titles == [
        "Final scores per seat",
        "Game length",
        "Win rate per seat",
        "Win rate per bot",
        "Lead changes per game",
        "Drama: how far behind the eventual winner was",
        "Branching factor over the course of a game",
        "Legal actions per decision",
    ]
    assert seen.js("document.querySelectorAll('table.comparison').length") == 0
    measures = seen.js(
        "Array.from(document.querySelectorAll('#players-4 table.measures tbody tr'))"
        ".map(r => r.getAttribute('data-measure'))"
    )
    assert {"balance", "first_player_advantage", "branching", "forced_share"} <= set(measures)
    # The distribution chart's share at 1 legal action is the forced decisions' share.
    trace = seen.js(
        "JSON.parse(document.getElementById('cardshop-charts').textContent)['4-choices'].data[0]"
    )
    forced = trace["y"][trace["x"].index(1)] / sum(trace["y"])
    (count,) = single.report["variants"][0]["player_counts"]
    assert forced == pytest.approx(count["measures"]["forced_share"]["value"], abs=1e-6)


def test_the_command_line_writes_its_json_report_as_the_page(cli: CliRun) -> None:
    assert cli.report["schema"] == "cardshop-audit/2"
    assert cli.page.read_text(encoding="utf-8") == render_html(cli.report)
    for chart in _charts(cli.visit):
        assert set(chart["legend"]) == {"A: klunker-en", "B: klunker-es"}, chart["id"]
    measures = cli.visit.js(
        "Array.from(document.querySelectorAll('#players-3 table.measures tbody tr'))"
        ".map(r => r.getAttribute('data-measure'))"
    )
    assert {"balance", "skill_gap_win_rate", "lead_changes", "drama"} <= set(measures)
    compared = cli.visit.js("document.querySelectorAll('table.comparison tbody tr').length")
    assert compared == len(cli.report["comparison"]["player_counts"][0]["measures"])
