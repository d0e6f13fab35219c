"""Actions built part by part at ``cardshop serve``: a family with a factored action
space (Reglamentacja: its offers, thousands a turn) is offered to a person one part at
a time, each part listing only the options that still lead to a legal action.

The server's side is checked exhaustively: on several positions, every path through
the options the server lists (the state's first part, then ``parts`` answers) ends in
a legal action, and every legal action is the end of one such path; the protocol
refuses hostile ``parts`` messages with a clear error and answers a seat about its own
actions only. The page's side runs in a real headless browser (the system's Chromium,
as in test_serve_browser.py): a person builds an offer with clicks only, goes back,
starts over, and submits one, which the table then shows as made.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import Error as PlaywrightError

import cardshop
from browser_support import launch
from cardshop.serve import Lobby, ProtocolError, Store, Table, TableSpec
from cardshop.serve.protocol import MAX_PART_OPTION, MAX_PARTS, Act, Parts
from serve_support import HERE, SERVE_FIXTURES, Peer, Server, claim, open_table

pytestmark = [pytest.mark.xdist_group("serve-offer-builder"), pytest.mark.build_independent]

SMALL = HERE / "fixtures" / "small.yaml"
REGL = SERVE_FIXTURES / "reglamentacja-short.yaml"
GUARD_MS = 60_000
"""A hang guard for each wait in the page, far above a normal one."""


# ------------------------------------------------------------------ the server's side


def _walk(table: Table, seat: int) -> tuple[list[str], dict[int, list[str]]]:
    """Every action reached by following the options the server lists for ``seat``,
    as the page would: the state's first part, then a ``parts`` answer for each
    option; and the actions reached under each first option."""
    state = table.state_for(seat)
    first = state["legal"]["parts"]
    assert first["chosen"] == []
    assert first["path"] == []
    assert first["action"] is None
    reached: list[str] = []
    under: dict[int, list[str]] = {}
    for option in first["next"]["options"]:
        found: list[str] = []
        stack = [[option["value"]]]
        while stack:
            chosen = stack.pop()
            answer = table.parts(seat, Parts(type="parts", chosen=chosen, step=table.step))
            assert answer["type"] == "parts"
            assert answer["step"] == table.step
            assert answer["chosen"][: len(chosen)] == chosen  # then the forced parts
            assert len(answer["path"]) == len(answer["chosen"])
            assert [p["value"] for p in answer["path"]] == answer["chosen"]
            assert [p["forced"] for p in answer["path"][: len(chosen)]] == [False] * len(chosen)
            assert all(p["forced"] for p in answer["path"][len(chosen) :])
            if answer["action"] is not None:
                assert answer["next"] is None
                found.append(answer["action"])
                continue
            options = answer["next"]["options"]
            assert options, "a listed option must lead somewhere"
            assert len(options) > 1 or len(answer["chosen"]) == MAX_PARTS  # else forced
            values = [o["value"] for o in options]
            assert values == sorted(set(values))
            stack.extend([*answer["chosen"], value] for value in reversed(values))
        under[option["value"]] = found
        reached += found
    return reached, under


def _check_position(table: Table, seat: int) -> None:
    legal = [str(a) for a in table.game.legal_actions(seat)]
    reached, under = _walk(table, seat)
    assert Counter(reached) == Counter(legal)  # each legal action by exactly one path
    # a first part that leads to a few actions lists them, in full, in the state
    for option in table.state_for(seat)["legal"]["parts"]["next"]["options"]:
        few = under[option["value"]]
        if len(few) <= 12:
            assert option["actions"] is not None
            assert sorted(option["actions"]) == sorted(few)
        else:
            assert option["actions"] is None


async def _positions(seed: int, moves: int) -> list[str]:
    """Play a seeded random game of the short Reglamentacja at a table of three people,
    checking the parts the server offers at each of its first ``moves`` decisions; the
    kinds of decision met (their verbs)."""
    variant = cardshop.load_variant(REGL)
    lobby = Lobby(Store(":memory:"), {variant.name: variant})
    table = lobby.create(TableSpec(variant=variant.name, seats=["human"] * 3, seed=seed))
    rng = random.Random(seed)
    met = []
    try:
        for _ in range(moves):
            if table.game.is_over:
                break
            (seat,) = table.game.acting
            _check_position(table, seat)
            legal = table.game.legal_actions(seat)
            met.append(" ".join(sorted({a.verb for a in legal})))
            table.act(seat, Act(type="act", action=str(rng.choice(legal))))
    finally:
        await lobby.stop()
        lobby.store.close()
    return met


def test_every_path_of_listed_parts_is_a_legal_action_and_back() -> None:
    met = asyncio.run(_positions(seed=0, moves=10))
    assert len(met) == 10
    kinds = set(met)
    assert "offer pass speculate stop" in kinds  # the active player's offer turn
    assert "offer pass" in kinds  # another seat's offer turn
    assert {"reject", "accept reject"} & kinds  # an answer to an offer
    assert "discard" in kinds


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with Server(variants=[SMALL, REGL]) as srv:
        yield srv


def _offer_table(server: Server, seed: int = 0) -> tuple[str, Peer, Peer, Peer]:
    """A short Reglamentacja table of three people, seat 0 on its offer turn; a client
    for each seat and a spectator."""
    table = open_table(server.url, variant="reglamentacja-short", seats=["human"] * 3, seed=seed)
    peers = [Peer(server.ws_url(table["id"]), claim(server.url, table["id"], s)) for s in (0, 1)]
    watcher = Peer(server.ws_url(table["id"]))
    return table["id"], peers[0], peers[1], watcher


def test_a_seat_builds_an_offer_through_the_protocol_and_makes_it(server: Server) -> None:
    table, mine, other, watcher = _offer_table(server)
    try:
        state = mine.turn()
        parts = state["legal"]["parts"]
        assert parts["next"]["name"] == "verb"
        labels = {o["label"]: o for o in parts["next"]["options"]}
        assert labels["pass"]["actions"] == ["pass"]  # one click, as before
        assert labels["offer"]["actions"] is None  # thousands: built part by part
        assert other.state()["legal"] is None  # no seat learns of another's parts
        chosen = [labels["offer"]["value"]]
        while True:
            mine.send({"type": "parts", "chosen": chosen, "step": state["step"]})
            answer = mine.until(lambda m: m["type"] in ("parts", "error"))
            assert answer["type"] == "parts", answer
            if answer["action"] is not None:
                break
            chosen = [*answer["chosen"], answer["next"]["options"][-1]["value"]]
        made = answer["action"]
        assert made.startswith("offer ")
        assert made in [str(a) for a in server.lobby.tables[table].game.legal_actions(0)]
        mine.send({"type": "act", "action": made, "step": state["step"]})
        after = watcher.state(lambda m: m["step"] == state["step"] + 1)
        assert server.lobby.tables[table].game.moves[0].seat == 0
        assert str(server.lobby.tables[table].game.moves[0].action) == made
        assert after["acting"] != [0]
    finally:
        for peer in (mine, other, watcher):
            peer.close()


@pytest.mark.parametrize(
    ("who", "message", "code", "words"),
    [
        ("watcher", {"type": "parts", "chosen": []}, "watching", "spectator"),
        ("other", {"type": "parts", "chosen": []}, "not-your-turn", "does not act now"),
        ("mine", {"type": "parts", "chosen": [MAX_PART_OPTION]}, "bad-parts", "legal options"),
        ("mine", {"type": "parts", "chosen": [1, 99]}, "bad-parts", "offer to"),
        ("mine", {"type": "parts", "chosen": [0, 0]}, "bad-parts", "nothing follows"),
        ("mine", {"type": "parts", "chosen": [1], "step": 7}, "stale", "step 7"),
        ("mine", {"type": "parts", "chosen": [0] * (MAX_PARTS + 1)}, "bad-message", "chosen"),
        ("mine", {"type": "parts", "chosen": [-1]}, "bad-message", "chosen"),
        ("mine", {"type": "parts", "chosen": [MAX_PART_OPTION + 1]}, "bad-message", "chosen"),
        ("mine", {"type": "parts", "chosen": [True]}, "bad-message", "chosen"),
        ("mine", {"type": "parts", "chosen": ["1"]}, "bad-message", "chosen"),
        ("mine", {"type": "parts", "chosen": [1.0]}, "bad-message", "chosen"),
        ("mine", {"type": "parts", "chosen": 1}, "bad-message", "chosen"),
        ("mine", {"type": "parts", "chosen": [], "seat": 1}, "bad-message", "seat"),
        ("mine", {"type": "parts", "chosen": [], "step": "0"}, "bad-message", "step"),
    ],
)
def test_a_hostile_parts_message_is_refused_and_changes_nothing(
    server: Server, who: str, message: dict[str, Any], code: str, words: str
) -> None:
    table, mine, other, watcher = _offer_table(server)
    peer = {"mine": mine, "other": other, "watcher": watcher}[who]
    try:
        mine.turn()
        peer.send(message)
        refused = peer.until(lambda m: m["type"] in ("parts", "error"))
        assert refused["type"] == "error", refused
        assert refused["code"] == code
        assert words in refused["message"]
        # nothing changed, and the seat still builds and the connection still serves
        assert server.lobby.tables[table].step == 0
        mine.send({"type": "parts", "chosen": []})
        fine = mine.until(lambda m: m["type"] in ("parts", "error"))
        assert fine["type"] == "parts"
        assert fine["next"]["name"] == "verb"
    finally:
        for each in (mine, other, watcher):
            each.close()


def test_a_family_without_a_factored_space_refuses_parts(server: Server) -> None:
    table = open_table(server.url, variant="small", seats=["human", "human"], first_player=0)
    with Peer(server.ws_url(table["id"]), claim(server.url, table["id"], 0)) as peer:
        state = peer.turn()
        assert state["legal"]["parts"] is None
        peer.send({"type": "parts", "chosen": []})
        refused = peer.error()
        assert refused["code"] == "no-parts"
        assert "'legal'" in refused["message"]


def test_parts_out_of_turn_and_at_the_end_are_refused() -> None:
    async def run() -> None:
        variant = cardshop.load_variant(REGL)
        lobby = Lobby(Store(":memory:"), {variant.name: variant})
        table = lobby.create(TableSpec(variant=variant.name, seats=["human"] * 3, seed=1))
        try:
            ask = Parts(type="parts", chosen=[])
            with pytest.raises(ProtocolError, match="does not act now") as refused:
                table.parts(1, ask)
            assert refused.value.code == "not-your-turn"
            rng = random.Random(1)
            while not table.game.is_over:
                (seat,) = table.game.acting
                legal = table.game.legal_actions(seat)
                table.act(seat, Act(type="act", action=str(rng.choice(legal))))
            with pytest.raises(ProtocolError, match="over") as refused:
                table.parts(0, ask)
            assert refused.value.code == "over"
        finally:
            await lobby.stop()
            lobby.store.close()

    asyncio.run(run())


# ------------------------------------------------------------------ the page


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    ctx = browser.new_context()
    yield ctx
    ctx.close()


def _seat_page(context: BrowserContext, server: Server, errors: list[str]) -> tuple[str, Page]:
    """A short Reglamentacja table opened from the lobby by clicks (a person and two
    greedy bots, seat 0 first to act: an offer turn); the person's page."""
    page = context.new_page()
    page.set_default_timeout(GUARD_MS)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(server.url)
    page.select_option("#variant", "reglamentacja-short")
    page.fill("#players", "3")
    page.dispatch_event("#players", "change")
    page.select_option('select.kind[data-seat="1"]', "greedy")
    page.select_option('select.kind[data-seat="2"]', "greedy")
    page.fill("#seed", "0")
    page.fill("#delay", "0")
    page.click("#open")
    page.wait_for_selector('#board[data-step="0"]')
    table = page.url.split("#/t/")[1].split("/")[0]
    return table, page


def _options(page: Page) -> list[str]:
    return page.locator("#builder button.part-option").all_text_contents()


def test_a_person_builds_an_offer_with_clicks_goes_back_and_submits_it(
    context: BrowserContext, server: Server
) -> None:
    errors: list[str] = []
    frames: list[str] = []  # what the page's socket sent and received, for a failure's message
    context.on(
        "page",
        lambda page: page.on(
            "websocket",
            lambda ws: (
                ws.on("framesent", lambda f: frames.append(f"sent {f!s:.300}")),
                ws.on("framereceived", lambda f: frames.append(f"received {f!s:.300}")),
            ),
        ),
    )
    table, page = _seat_page(context, server, errors)
    game = server.lobby.tables[table].game
    # the short verbs are one click away; the offers are built part by part
    expect(page.locator('#actions [data-verb="pass"] button.act')).to_have_text("pass")
    expect(page.locator('#actions [data-verb="stop"] button.act')).to_have_text("stop")
    assert page.locator("#actions select.choose").count() == 0  # no list of thousands
    assert page.locator("#builder").is_hidden()
    page.click('#actions [data-verb="offer"] button.part-start')
    expect(page.locator("#builder legend")).to_have_text("Choose offer to")
    targets = _options(page)
    assert targets == ["1", "2"]  # the other seats; never the offerer itself
    # asking for the same part again (the verb, from the keyboard) redraws nothing: the
    # answer brings the focus back to the very buttons already shown
    first = page.locator("#builder button.part-option").first
    expect(first).to_be_focused()
    shown = first.element_handle()
    page.focus('#actions [data-verb="offer"] button.part-start')
    page.keyboard.press("Enter")
    expect(first).to_be_focused()
    assert shown.evaluate("node => node.isConnected && node === document.activeElement")
    assert _options(page) == targets
    page.click('#builder button.part-option[data-label="2"]')
    expect(page.locator("#build-summary")).to_contain_text("offer to: 2")
    first_give = page.locator("#builder legend").text_content()
    assert first_give is not None
    assert first_give.startswith("Choose give ")
    # back to the seat offered to, and a different one
    page.click("#part-back")
    expect(page.locator("#builder legend")).to_have_text("Choose offer to")
    expect(page.locator("#build-summary")).not_to_contain_text("offer to:")
    page.click('#builder button.part-option[data-label="1"]')
    expect(page.locator("#build-summary")).to_contain_text("offer to: 1")
    # the next part's first choice has the focus; Escape drops the build
    expect(page.locator("#builder button.part-option").first).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#builder")).to_be_hidden()
    expect(page.locator('#actions [data-verb="offer"] button.part-start')).to_be_focused()
    # start over: no build, nothing played
    page.click('#actions [data-verb="offer"] button.part-start')
    page.click('#builder button.part-option[data-label="2"]')
    expect(page.locator("#build-summary")).to_contain_text("offer to: 2")
    page.click("#part-reset")
    expect(page.locator("#builder")).to_be_hidden()
    assert server.lobby.tables[table].step == 0
    # build one: the seat offered to, then the most of each part it may give and take
    page.click('#actions [data-verb="offer"] button.part-start')
    page.click('#builder button.part-option[data-label="1"]')
    # the answer first: until it comes, the builder still shows the seats to offer to
    expect(page.locator("#build-summary")).to_contain_text("offer to: 1")
    clicks = 0
    while page.locator("#part-submit").count() == 0:
        assert clicks < 40
        parts = page.locator("#build-summary li").count()
        try:
            # The click event is dispatched in the page, the button found and clicked in
            # one task. A pointer click is checked after it is made, and here the answer
            # it brings redraws the builder at once: in one run on a busy machine the
            # check found its button gone, retried the click that was already made, and
            # waited for a button the finished build no longer shows. The pointer clicks
            # above check that a person's click works.
            page.locator("#builder button.part-option").last.dispatch_event("click")
        except PlaywrightError as exc:  # say what the page held and heard, then fail
            builder = page.locator("#builder").evaluate("node => node.outerHTML")
            raise AssertionError(f"{exc}\nthe builder: {builder}\nframes: {frames[-12:]}") from exc
        clicks += 1
        expect(page.locator("#build-summary li")).not_to_have_count(parts)
    made = page.locator("#build-action strong").text_content()
    assert made is not None
    assert made.startswith("offer 1 give ")
    assert made in [str(a) for a in game.legal_actions(0)]
    page.click("#part-submit")
    page.wait_for_selector('#board:not([data-step="0"])')
    assert str(game.moves[0].action) == made
    assert game.moves[0].seat == 0
    # the table shows the offer made: in its events, as the person's seat may know them
    expect(page.locator("#events")).to_contain_text("offer")
    assert errors == []


def test_a_person_may_list_every_action_instead(context: BrowserContext, server: Server) -> None:
    errors: list[str] = []
    table, page = _seat_page(context, server, errors)
    page.click("#list-all")
    expect(page.locator('#actions [data-verb="offer"] select.choose')).to_be_visible()
    page.click("#build-parts")
    expect(page.locator('#actions [data-verb="offer"] button.part-start')).to_be_visible()
    page.click('#actions [data-verb="pass"] button.act')
    page.wait_for_selector('#board:not([data-step="0"])')
    assert str(server.lobby.tables[table].game.moves[0].action) == "pass"
    assert errors == []
