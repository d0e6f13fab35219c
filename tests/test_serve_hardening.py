"""``cardshop serve`` against what an attacker, a heavy bot or a bad disk does: what a
match table sends, a search bot's table beside the others, the bots' budget, tables
per client, damaged and foreign databases, writes the database refuses, strictly
typed messages and the security headers of every response."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from cardshop.core.chance import derive_seed
from cardshop.serve import Store
from cardshop.serve.app import API_CSP, PAGE_CSP, SECURITY_HEADERS
from cardshop.serve.tables import BotBudget
from serve_support import (
    HERE,
    WAIT,
    Peer,
    Server,
    claim,
    free_socket,
    open_table,
    request,
)

pytestmark = [pytest.mark.xdist_group("serve"), pytest.mark.build_independent]

SMALL = HERE / "fixtures" / "small.yaml"
MATCH_SEED = 7192252385607097754


# --------------------------------------------------------------------------- a match


def _backs_only(zone: dict[str, Any]) -> bool:
    return all(card.get("back") and "face" not in card for card in zone["cards"])


def test_a_match_table_sends_no_seed_and_no_hidden_card() -> None:
    """Every message of a klunker-zh table (a match), to each seat and a spectator,
    until the second game is under way: no seed of the match or of its games, and
    no card of another seat's hand or of the deck. The match is drawn as a table."""
    with Server() as srv:
        table = open_table(
            srv.url, variant="klunker-zh", seats=["human", "human", "greedy"], seed=MATCH_SEED,
            bot_delay=0,
        )  # fmt: skip
        tid = table["id"]
        series = srv.lobby.tables[tid].game
        seeds = {str(MATCH_SEED)} | {
            str(derive_seed(MATCH_SEED, "game", i)) for i in range(series.games)
        }
        assert series.current.seed == derive_seed(MATCH_SEED, "game", 0)
        tokens = [claim(srv.url, tid, seat) for seat in (0, 1)]
        rng = random.Random(3)
        with (
            Peer(srv.ws_url(tid), tokens[0]) as a,
            Peer(srv.ws_url(tid), tokens[1]) as b,
            Peer(srv.ws_url(tid)) as watcher,
        ):
            peers = {0: a, 1: b}
            step, second_game_steps = 0, 0
            while second_game_steps < 5:
                state = a.at(step)
                step = state["step"]
                assert not state["over"]
                (seat,) = state["acting"]
                if seat in peers:
                    mine = peers[seat].at(step)
                    action = rng.choice(mine["legal"]["actions"])
                    peers[seat].send({"type": "act", "action": action, "step": step})
                step += 1
                if series.game_index >= 1:
                    second_game_steps += 1
            for peer in (a, b, watcher):  # what is already on its way
                peer.send({"type": "ping"})
                peer.until(lambda m: m["type"] == "pong")
            received = {0: a.texts, 1: b.texts, None: watcher.texts}
        for seat, texts in received.items():
            states = [json.loads(t) for t in texts if json.loads(t)["type"] == "state"]
            assert len(states) > 150  # the whole first game and the start of the second
            for text in texts:
                for seed in seeds:
                    assert seed not in text, f"seat {seat} was sent a seed: {text[:300]}"
            for state in states:
                view = state["view"]
                assert state["text"] is None
                assert view is not None
                assert view["headline"].startswith("Match: game ")
                (deck,) = [z for z in view["zones"] if z["title"] == "deck"]
                assert _backs_only(deck)
                for shown in view["seats"]:
                    hands = [z for z in shown["zones"] if z["title"] == "hand"]
                    if shown["seat"] != seat:
                        assert hands
                        assert all(_backs_only(z) for z in hands)
        assert any('"headline":"Match: game 2 of 3' in t for t in a.texts)


# --------------------------------------------------------------------------- bots


def test_a_search_bot_table_leaves_the_server_free() -> None:
    """Two searching bots (half a second a decision each) play Wühltisch, a game of
    thousands of ticks, while another table's client pings: every ping is answered
    (a hang guard only: they came at once on the event loop while the bots searched
    in their thread), and the search table plays on meanwhile."""
    with Server(max_bot_budget="0.5s") as srv:
        search = open_table(srv.url, variant="wuhltisch", seats=["ismcts:0.5s", "ismcts:0.5s"],
                            ticks_per_second=50, seed=1)  # fmt: skip
        other = open_table(srv.url, variant="klunker-en", seats=["human", "human", "human"])
        searching = srv.lobby.tables[search["id"]]
        with Peer(srv.ws_url(search["id"])) as watcher:
            watcher.state(lambda m: m["step"] >= 1)  # the bots search, tick by tick
            with Peer(srv.ws_url(other["id"])) as peer:
                for _ in range(5):
                    peer.send({"type": "ping"})
                    assert peer.until(lambda m: m["type"] == "pong")["step"] == 0
                    time.sleep(0.1)
            watcher.state(lambda m: m["step"] >= 2)
        assert not searching.game.is_over
        assert searching.error is None


def test_a_search_above_the_servers_budget_is_refused() -> None:
    with Server(max_bot_budget="500:0.5s") as srv:
        for seats in (["ismcts:600s", "human"], ["human", "ismcts:501"], ["ismcts:400:2s"] * 2):
            status, body = request(srv.url + "api/tables", {"variant": "wuhltisch", "seats": seats})
            assert (status, body["error"]) == (400, "bot-budget"), body
            assert "--max-bot-budget" in body["message"]
            assert "500 iterations and 0.5 s" in body["message"]
        assert request(srv.url + "api/tables")[1]["tables"] == []
        made = open_table(
            srv.url, variant="klunker-en", seats=["human", "ismcts:500", "ismcts:0.2s"]
        )
        bots = [s.bot for s in srv.lobby.tables[made["id"]].seats]
        assert (bots[1].iterations, bots[1].time_limit) == (500, 0.5)  # stops at 0.5 s too
        assert (bots[2].iterations, bots[2].time_limit) == (None, 0.2)


@pytest.mark.parametrize(
    ("text", "budget"),
    [
        ("1000:1s", BotBudget(1000, 1.0)),
        ("500", BotBudget(500, 600.0)),
        ("0.25s", BotBudget(100_000, 0.25)),
        (" 20:.5s ", BotBudget(20, 0.5)),
    ],
)
def test_a_bot_budget_reads_as_an_ismcts_budget(text: str, budget: BotBudget) -> None:
    assert BotBudget.parse(text) == budget


@pytest.mark.parametrize("text", ["", "s", "1s:100", "0", "100001", "601s", "1:2:3s", "1e3", "x"])
def test_a_bad_bot_budget_is_refused(text: str) -> None:
    from cardshop import SetupError

    with pytest.raises(SetupError, match="bad bot budget"):
        BotBudget.parse(text)


def test_the_command_line_refuses_a_bad_bot_budget(tmp_path: Path) -> None:
    done = _serve(tmp_path / "t.sqlite", "--max-bot-budget", "lots")
    _one_paragraph(done, "bad bot budget 'lots'")
    assert not (tmp_path / "t.sqlite").exists()


def test_one_client_opens_a_bounded_number_of_tables() -> None:
    with Server(max_tables_per_client=2) as srv:
        for _ in range(2):
            open_table(srv.url, variant="klunker-en", seats=["human"] * 3)
        status, body = request(srv.url + "api/tables", {"variant": "klunker-en"})
        assert (status, body["error"]) == (429, "too-many-tables")
        assert len(request(srv.url + "api/tables")[1]["tables"]) == 2


# --------------------------------------------------------------------------- the file


def _serve(db: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``cardshop serve`` on ``db``, which is expected to refuse to start."""
    sock = free_socket()
    port = sock.getsockname()[1]
    sock.close()
    command = [sys.executable, "-m", "cardshop", "serve", "--db", str(db), "--port", str(port),
               *extra]  # fmt: skip
    # A hang guard: a server that starts runs until the guard stops it, and fails.
    return subprocess.run(command, capture_output=True, text=True, timeout=WAIT)


def _one_paragraph(done: subprocess.CompletedProcess[str], words: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("cardshop: error: ")
    assert "\n\n" not in done.stderr.strip()
    assert words in " ".join(done.stderr.split()), done.stderr


def _cardshop_db(path: Path, tables: int = 1) -> None:
    store = Store(path)
    for n in range(tables):
        store.add_table(f"t{n}", float(n), {"padding": "x" * 300})
        store.add_step(f"t{n}", 0, {0: "done"})
    store.close()


def _random_bytes(path: Path) -> str:
    path.write_bytes(random.Random(1).randbytes(16_384))
    return "is not an SQLite database"


def _corrupt_pages(path: Path) -> str:
    _cardshop_db(path, 200)
    data = bytearray(path.read_bytes())
    page = 4096
    data[2 * page : 2 * page + 64] = random.Random(2).randbytes(64)  # a b-tree page's header
    path.write_bytes(bytes(data))
    return "is damaged"


def _other_schema(path: Path) -> str:
    _cardshop_db(path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()
    return "of schema 2; this version of cardshop reads schema 1"


def _foreign(path: Path) -> str:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    db.execute("INSERT INTO customers (name) VALUES ('Ann')")
    db.commit()
    db.close()
    return "is not a cardshop serve database (it holds the tables customers)"


@pytest.mark.parametrize("make", [_random_bytes, _corrupt_pages, _other_schema, _foreign])
def test_a_file_that_is_no_cardshop_database_is_refused_and_left_alone(
    tmp_path: Path, make: Any
) -> None:
    db = tmp_path / "tables.sqlite"
    words = make(db)
    before = db.read_bytes()
    done = _serve(db)
    _one_paragraph(done, words)
    assert db.read_bytes() == before  # not one byte written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tables.sqlite"]


def test_a_database_that_refuses_writes_is_refused_at_start(tmp_path: Path) -> None:
    db = tmp_path / "tables.sqlite"
    _cardshop_db(db)
    other = sqlite3.connect(db)  # as a full disk or a read-only file would
    for table in ("meta", "tables", "moves"):
        other.execute(
            f"CREATE TRIGGER no_{table} BEFORE INSERT ON {table} "
            "BEGIN SELECT RAISE(FAIL, 'no room'); END"
        )
    other.commit()
    other.close()
    done = _serve(db)
    _one_paragraph(done, "the tables' database cannot be written (no room)")


def _refuse_writes(db: Path, what: str) -> None:
    other = sqlite3.connect(db)
    other.execute(f"CREATE TRIGGER refuse {what} BEGIN SELECT RAISE(FAIL, 'disk full'); END")
    other.commit()
    other.close()


def _allow_writes(db: Path) -> None:
    other = sqlite3.connect(db)
    other.execute("DROP TRIGGER refuse")
    other.commit()
    other.close()


def test_a_claim_or_a_table_the_database_refuses_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "tables.sqlite"
    with Server(str(db)) as srv:
        tid = open_table(srv.url, variant="klunker-en", seats=["human"] * 3)["id"]
        _refuse_writes(db, "BEFORE UPDATE ON tables")
        status, body = request(srv.url + f"api/tables/{tid}/claim", {"seat": 0, "name": "Ann"})
        assert (status, body["error"]) == (503, "storage"), body
        assert "disk full" in body["message"]
        summary = request(srv.url + f"api/tables/{tid}")[1]
        assert summary["seats"][0]["claimed"] is False
        assert summary["seats"][0]["name"] == "seat 0"
        _allow_writes(db)
        token = claim(srv.url, tid, 0, "Ann")  # the seat is free: nothing was half done
        with Peer(srv.ws_url(tid), token) as peer:
            assert peer.welcome["seat"] == 0

        _refuse_writes(db, "BEFORE INSERT ON tables")
        status, body = request(srv.url + "api/tables", {"variant": "klunker-en"})
        assert (status, body["error"]) == (503, "storage"), body
        assert [t["id"] for t in request(srv.url + "api/tables")[1]["tables"]] == [tid]
        _allow_writes(db)
    with Server(str(db)) as again:  # memory and the file said the same
        (table,) = again.lobby.tables.values()
        assert table.id == tid
        assert [s.name for s in table.seats] == ["Ann", "", ""]


def test_a_damaged_table_stops_alone(tmp_path: Path) -> None:
    db = tmp_path / "tables.sqlite"
    with Server(str(db), variants=[SMALL]) as srv:
        ids = [
            open_table(srv.url, variant="small", seats=["human", "human"], seed=n)["id"]
            for n in range(3)
        ]
    other = sqlite3.connect(db)
    other.execute("UPDATE tables SET spec = 'not json {' WHERE id = ?", (ids[0],))
    other.execute("UPDATE tables SET spec = '{\"players\": 2}' WHERE id = ?", (ids[1],))
    other.commit()
    other.close()
    with Server(str(db), variants=[SMALL]) as srv:
        status, listed = request(srv.url + "api/tables")
        assert status == 200
        found = {t["id"]: t for t in listed["tables"]}
        assert set(found) == set(ids)
        assert found[ids[2]]["damaged"] is False
        assert found[ids[2]]["error"] is None
        for bad in ids[:2]:
            assert found[bad]["damaged"] is True
            assert found[bad]["error"].startswith("this table cannot be resumed")
            assert request(srv.url + f"api/tables/{bad}")[1]["damaged"] is True
            peer = Peer(srv.ws_url(bad), hello=False)
            assert peer.error()["code"] == "damaged"
            peer.close()
        assert "not a JSON object" in found[ids[0]]["error"]
        token = claim(srv.url, ids[2], 0)  # the sound table plays on
        with Peer(srv.ws_url(ids[2]), token) as peer:
            assert peer.state()["seat"] == 0


# --------------------------------------------------------------------------- messages


def test_a_wrongly_typed_field_is_a_bad_message() -> None:
    """No field of a message is coerced: a step as a text, a bool or a float, an
    action or a prefix that is not a text, are refused and change nothing."""
    with Server(variants=[SMALL]) as srv:
        tid = open_table(srv.url, variant="small", seats=["human", "human"], seed=1)["id"]
        acting = srv.lobby.tables[tid].game.acting[0]
        token = claim(srv.url, tid, acting)
        with Peer(srv.ws_url(tid), token) as peer:
            action = peer.turn()["legal"]["actions"][0]
            hostile: list[Any] = [
                {"type": "act", "action": action, "step": "0"},
                {"type": "act", "action": action, "step": True},
                {"type": "act", "action": action, "step": False},
                {"type": "act", "action": action, "step": 0.0},
                {"type": "act", "action": action, "step": [0]},
                {"type": "act", "action": [action], "step": 0},
                {"type": "act", "action": True},
                {"type": "act", "action": 0},
                {"type": "legal", "prefix": 0},
                {"type": "legal", "prefix": None},
                {"type": True},
                {"type": "ping", "step": 0},
                '{"type": "act", "action": "done", "step": NaN}',
            ]
            for message in hostile:
                peer.send(message)
                assert peer.error()["code"] == "bad-message", message
            assert srv.lobby.tables[tid].step == 0
            peer.send({"type": "act", "action": action, "step": 0})
            assert peer.state(lambda m: m["step"] == 1)["step"] == 1
        stranger = Peer(srv.ws_url(tid), hello=False)
        stranger.send({"type": "hello", "token": 12345})
        assert stranger.error()["code"] == "bad-message"
        stranger.close()


def test_requests_take_no_coerced_values() -> None:
    with Server(variants=[SMALL]) as srv:
        for field, value in [
            ("players", True),
            ("players", 2.0),
            ("seed", "5"),
            ("first_player", False),
            ("ticks_per_second", "2"),
            ("bot_delay", True),
            ("seats", "human"),
            ("names", [1, 2]),
        ]:
            status, body = request(srv.url + "api/tables", {"variant": "small", field: value})
            assert (status, body["error"]) == (400, "bad-request"), (field, body)
            assert field in body["message"]
        status, body = request(srv.url + "api/tables", raw=b'{"variant": "small", "seed": NaN}')
        assert (status, body["error"]) == (400, "bad-request")
        assert request(srv.url + "api/tables")[1]["tables"] == []
        tid = open_table(srv.url, variant="small", seats=["human", "human"], ticks_per_second=2)[
            "id"
        ]
        for body_sent in ({"seat": True}, {"seat": 0.0}, {"seat": "0"}, {"seat": 0, "name": 5}):
            status, body = request(srv.url + f"api/tables/{tid}/claim", body_sent)
            assert (status, body["error"]) == (400, "bad-request"), body_sent
        assert not any(s["claimed"] for s in request(srv.url + f"api/tables/{tid}")[1]["seats"])
        status, body = request(srv.url + "api/replay?seat=%C2%B2", raw=b"{}")
        assert (status, body["error"]) == (400, "bad-request")


# --------------------------------------------------------------------------- headers


def _headers(url: str, data: Any = None, *, raw: bytes | None = None) -> tuple[int, Any]:
    import urllib.error
    import urllib.request

    body = raw if raw is not None else None if data is None else json.dumps(data).encode()
    req = urllib.request.Request(url, data=body, method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=WAIT) as response:
            return response.status, response.headers
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers


def test_every_response_carries_the_security_headers() -> None:
    with Server(variants=[SMALL]) as srv:
        status, headers = _headers(srv.url)
        assert status == 200
        assert headers["Content-Security-Policy"] == PAGE_CSP
        policy = dict(part.strip().split(" ", 1) for part in PAGE_CSP.split(";"))
        assert policy["connect-src"] == "'self'"  # WebSockets to this host only
        assert policy["base-uri"] == "'none'"
        assert policy["form-action"] == "'self'"
        assert policy["frame-ancestors"] == "'none'"
        tid = open_table(srv.url, variant="small", seats=["human", "human"])["id"]
        others = [
            ("api/variants", None, None, 200),
            ("api/tables", None, None, 200),
            (f"api/tables/{tid}", None, None, 200),
            (f"api/tables/{tid}/record", None, None, 409),
            ("api/tables", {"variant": "nope"}, None, 400),
            ("api/tables", None, b"[1]", 400),
            ("static/app.js", None, None, 200),
            ("static/style.css", None, None, 200),
            ("static/missing.js", None, None, 404),
            ("no/such/page", None, None, 404),
        ]
        for path, data, raw, expected in others:
            status, headers = _headers(srv.url + path, data, raw=raw)
            assert status == expected, path
            assert headers["Content-Security-Policy"] == API_CSP, path
            for name, value in SECURITY_HEADERS.items():
                assert headers[name] == value, (path, name)

        def boom() -> Any:
            raise RuntimeError("a fault nobody foresaw")

        srv.lobby.summaries = boom
        status, headers = _headers(srv.url + "api/tables")
        assert status == 500
        assert headers["Content-Type"] == "application/json"
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert request(srv.url + "api/tables")[1]["error"] == "internal"
        peer = Peer(srv.ws_url(tid))
        response = peer.ws.response
        assert response is not None
        for name, value in SECURITY_HEADERS.items():
            assert response.headers[name] == value, name
        peer.close()
