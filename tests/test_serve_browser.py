"""``cardshop serve`` in a real headless browser: people play short games of every
family by clicking the page, two people share a Klunker table from two tabs, no seat's
page ever shows another seat's hidden cards, and a record steps through the replay
viewer. The page must load nothing from anywhere but the server.

The browser is the system's Chromium, driven by playwright without a download of its
own (as in test_report_browser.py); without one the tests skip, and under CI (``CI``
set) a missing browser is a failure.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import Error as PlaywrightError

import cardshop
from browser_support import launch
from serve_support import HERE, SERVE_FIXTURES, Server

pytestmark = [pytest.mark.xdist_group("serve-browser"), pytest.mark.build_independent]

SMALL = HERE / "fixtures" / "small.yaml"
GUARD_MS = 60_000
"""A hang guard for each wait in the page, far above a normal one."""
MAX_CLICKS = 400


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    variants = [SMALL, SERVE_FIXTURES / "wuhltisch-short.yaml",
                SERVE_FIXTURES / "reglamentacja-short.yaml"]  # fmt: skip
    with Server(variants=variants) as srv:
        yield srv


class Tab:
    """One browser tab on the server, with what it printed and asked for."""

    def __init__(self, context: BrowserContext, server: Server) -> None:
        self.page: Page = context.new_page()
        self.page.set_default_timeout(GUARD_MS)
        self.errors: list[str] = []
        self.foreign: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        origin = server.url.rstrip("/")
        self.page.on(
            "request",
            lambda r: None if r.url.startswith((origin, "ws://127.0.0.1")) or
            r.url.startswith("data:") else self.foreign.append(r.url),
        )  # fmt: skip
        self.page.goto(server.url)
        self.page.wait_for_selector("#create")

    def step(self) -> int:
        return int(self.page.get_attribute("#board", "data-step") or -1)

    def over(self) -> bool:
        return self.page.get_attribute("#board", "data-over") == "true"

    def clean(self) -> None:
        assert self.errors == []
        assert self.foreign == []


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context(accept_downloads=True)
    yield ctx
    ctx.close()


def _open_table(tab: Tab, variant: str, seats: list[str], **fields: str) -> str:
    """Open a table from the lobby's form; the tab lands on its first person's seat."""
    page = tab.page
    page.select_option("#variant", variant)
    page.fill("#players", str(len(seats)))
    page.dispatch_event("#players", "change")
    for seat, kind in enumerate(seats):
        page.select_option(f'select.kind[data-seat="{seat}"]', kind)
    for name, value in fields.items():
        page.fill(f"#{name}", value)
    page.click("#open")
    page.wait_for_selector("#board[data-step]")
    table = page.url.split("#/t/")[1].split("/")[0]
    return table


def _click_a_move(tab: Tab, prefer: tuple[str, ...] = (), timeout: float = GUARD_MS) -> None:
    """Click one of the seat's legal moves (``prefer``red verbs first)."""
    page = tab.page
    for verb in prefer:
        button = page.locator(f'#actions [data-verb="{verb}"] button.act').first
        if button.count():
            button.click(timeout=timeout)
            return
    page.locator("#actions button.act").first.click(timeout=timeout)


def _hidden_faces(tab: Tab, seat: int, zone: str) -> int:
    """How many face-up cards the page shows in another seat's private zone."""
    selector = f'article[data-seat="{seat}"] [data-zone="{zone}"] .card:not(.back)'
    return tab.page.locator(selector).count()


def test_two_people_play_klunker_from_two_tabs(
    context: BrowserContext, server: Server, tmp_path: Path
) -> None:
    first = Tab(context, server)
    table = _open_table(first, "small", ["human", "human"], delay="0")
    second = Tab(context, server)
    second.page.click(f'.table-row[data-table="{table}"] button.take[data-seat="1"]')
    second.page.wait_for_selector("#board[data-step]")
    assert second.page.url.endswith(f"#/t/{table}/s/1")
    tabs = {0: first, 1: second}
    clicks = 0
    while not (first.over() and second.over()):
        assert clicks < MAX_CLICKS
        for seat, tab in tabs.items():
            assert _hidden_faces(tab, 1 - seat, "hand") == 0
        game = server.lobby.tables[table].game
        if game.is_over:
            for tab in tabs.values():
                tab.page.bring_to_front()
                tab.page.wait_for_selector("#result")
            continue
        (seat,) = game.acting
        tab = tabs[seat]
        tab.page.bring_to_front()  # as a person switches tabs (a hidden tab draws lazily)
        step = server.lobby.tables[table].step
        tab.page.wait_for_selector(f'#board[data-step="{step}"]')
        _click_a_move(tab)
        clicks += 1
        tab.page.wait_for_selector(f'#board:not([data-step="{step}"])')
    assert clicks == len(server.lobby.tables[table].game.moves)
    first.page.bring_to_front()
    with first.page.expect_download() as download:
        first.page.click("#download")
    path = tmp_path / "klunker.jsonl"
    download.value.save_as(path)
    replayed = cardshop.replay_record(path, SMALL)
    assert replayed.to_json() == server.lobby.tables[table].game.to_json()
    # the replay viewer steps through the same record
    first.page.goto(server.url + "#/replay")
    first.page.set_input_files("#record-file", str(path))
    first.page.wait_for_selector("#replay-step")
    steps = len(replayed.moves)
    assert first.page.text_content("#replay-step") == f"step 0 of {steps}"
    for _ in range(3):
        first.page.click("#replay-next")
    assert first.page.text_content("#replay-step") == f"step 3 of {steps}"
    first.page.click("#replay-prev")
    assert first.page.text_content("#replay-step") == f"step 2 of {steps}"
    first.page.click("#replay-last")
    assert first.page.text_content("#replay-step").startswith(f"step {steps} of {steps}")
    first.page.fill("#replay-jump", "10")
    first.page.dispatch_event("#replay-jump", "change")
    assert first.page.text_content("#replay-step") == f"step 10 of {steps}"
    assert first.page.locator("#replay-board .card").count() > 0
    first.page.select_option("#replay-seat", "1")
    expect(first.page.locator("#replay-step")).to_have_text(re.compile("^step 0 of"))
    first.clean()
    second.clean()


def test_wuhltisch_in_real_time_against_two_bots(context: BrowserContext, server: Server) -> None:
    tab = Tab(context, server)
    table = _open_table(tab, "wuhltisch-short", ["human", "greedy", "greedy"], tps="10")
    page = tab.page
    while not tab.over():
        for other in (1, 2):
            assert _hidden_faces(tab, other, "held shirts") == 0
            assert page.locator(f'article[data-seat="{other}"] [data-zone="in view"]').count() == 0
        buttons = page.locator("#actions button.act")
        if buttons.count():
            # the clock may redraw the moves under the pointer: then click again
            with contextlib.suppress(PlaywrightError):
                _click_a_move(tab, prefer=("buy", "keep", "look", "throw"), timeout=500)
        page.wait_for_timeout(50)  # pace the clicks; the clock is the server's
    page.wait_for_selector("#result")
    moves = server.lobby.tables[table].game.moves
    chosen = [m for m in moves if m.seat == 0 and str(m.action) != "wait"]
    assert any(str(m.action) == "look" for m in chosen)
    tab.clean()


def test_reglamentacja_against_bots_through_the_page(
    context: BrowserContext, server: Server
) -> None:
    tab = Tab(context, server)
    table = _open_table(tab, "reglamentacja-short", ["human", "greedy", "greedy"], delay="0")
    clicks = 0
    while not tab.over():
        assert clicks < MAX_CLICKS
        for other in (1, 2):  # (every visit card is shown once the game is over)
            shown = _hidden_faces(tab, other, "stamps") + _hidden_faces(tab, other, "visit card")
            assert shown == 0 or tab.over()
        game = server.lobby.tables[table].game
        if game.is_over or game.acting != (0,):
            tab.page.wait_for_timeout(20)
            continue
        step = server.lobby.tables[table].step
        tab.page.wait_for_selector(f'#board[data-step="{step}"]')
        _click_a_move(tab, prefer=("accept", "buy", "pass"))
        clicks += 1
        tab.page.wait_for_selector(f'#board:not([data-step="{step}"])')
    tab.page.wait_for_selector("#result")
    assert clicks == sum(1 for m in server.lobby.tables[table].game.moves if m.seat == 0)
    tab.clean()
