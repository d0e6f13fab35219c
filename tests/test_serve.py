"""``cardshop serve`` through its protocol: a real uvicorn server on 127.0.0.1, real
WebSocket clients. Games of every family, what each client may see, the clock of a
simultaneous game, hostile clients, the SQLite log and the records."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

import cardshop
from cardshop.records import GameRecord
from cardshop.serve import IDLE_ACTIONS, Store
from cardshop.serve.protocol import MAX_MESSAGE_BYTES
from serve_support import (
    HERE,
    SERVE_FIXTURES,
    WAIT,
    Peer,
    Server,
    claim,
    open_table,
    request,
    subprocess_server,
)

pytestmark = pytest.mark.xdist_group("serve")

SMALL = HERE / "fixtures" / "small.yaml"
WUHL = SERVE_FIXTURES / "wuhltisch-short.yaml"
REGL = SERVE_FIXTURES / "reglamentacja-short.yaml"
VARIANTS = [SMALL, WUHL, REGL]


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with Server(variants=VARIANTS) as srv:
        yield srv


def _play_turns(peers: dict[int, Peer], pick: int = 0) -> dict[str, Any]:
    """Play a turn-based table to its end through its seats' clients; the final state."""
    step = 0
    any_peer = next(iter(peers.values()))
    while True:
        state = any_peer.at(step)
        step = state["step"]  # bots may have played on
        if state["over"]:
            return state
        (seat,) = state["acting"]
        if seat in peers:  # nothing happens until this seat acts
            mine = peers[seat].at(step)
            actions = mine["legal"]["actions"]
            peers[seat].send({"type": "act", "action": actions[pick % len(actions)], "step": step})
        step += 1


def _moves(srv: Server, table: str) -> list[tuple[int, int, str]]:
    return [(m.step, m.seat, str(m.action)) for m in srv.lobby.tables[table].game.moves]


def test_two_people_play_klunker_and_the_record_verifies(server: Server, tmp_path: Path) -> None:
    table = open_table(server.url, variant="small", seats=["human", "human"], seed=4, bot_delay=0)
    tid = table["id"]
    tokens = [claim(server.url, tid, seat, name) for seat, name in enumerate(["Ann", "Bob"])]
    with Peer(server.ws_url(tid), tokens[0]) as a, Peer(server.ws_url(tid), tokens[1]) as b:
        assert (a.welcome["seat"], b.welcome["seat"]) == (0, 1)
        final = _play_turns({0: a, 1: b}, pick=1)
    assert final["result"]["termination"] == "finished"
    status, text = request(server.url + f"api/tables/{tid}/record")
    assert status == 200
    path = tmp_path / "game.jsonl"
    path.write_text(text)
    game = cardshop.replay_record(path)
    assert game.to_json() == server.lobby.tables[tid].game.to_json()
    assert GameRecord.read(path).bots == ("human", "human")
    done = subprocess.run(
        [sys.executable, "-m", "cardshop", "replay", str(path), "--variant", str(SMALL)],
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert done.returncode == 0, done.stderr


def test_a_record_is_given_only_once_the_game_is_over(server: Server) -> None:
    table = open_table(server.url, variant="small", seats=["human", "greedy"], bot_delay=0)
    status, body = request(server.url + f"api/tables/{table['id']}/record")
    assert status == 409
    assert body["error"] == "not-over"


def _hidden_zone_faces(state: dict[str, Any], seat: int, title: str) -> list[dict[str, Any]]:
    (zone,) = [z for z in state["view"]["seats"][seat]["zones"] if z["title"] == title]
    return list(zone["cards"])


def test_each_seat_sees_its_own_hand_and_only_backs_of_the_others(server: Server) -> None:
    table = open_table(server.url, variant="small", seats=["human", "human"], seed=9)
    tid = table["id"]
    tokens = [claim(server.url, tid, s) for s in (0, 1)]
    game = server.lobby.tables[tid].game
    with (
        Peer(server.ws_url(tid), tokens[0]) as a,
        Peer(server.ws_url(tid), tokens[1]) as b,
        Peer(server.ws_url(tid)) as watcher,
    ):
        for seat, peer in ((0, a), (1, b)):
            state = peer.state()
            own = _hidden_zone_faces(state, seat, "hand")
            kinds = game.observation(seat).kinds
            hand = game.observation(seat).hand
            assert {c["face"]: c["count"] for c in own} == {
                kinds[i]: n for i, n in enumerate(hand) if n
            }
            other = _hidden_zone_faces(state, 1 - seat, "hand")
            assert other
            assert all(c.get("back") for c in other)
            assert "face" not in json.dumps(other)
        seen = watcher.state()
        assert watcher.welcome["seat"] is None
        assert seen["legal"] is None
        for seat in (0, 1):
            assert all(c.get("back") for c in _hidden_zone_faces(seen, seat, "hand"))


def test_wuhltisch_runs_on_its_clock_and_a_silent_seat_idles(server: Server) -> None:
    table = open_table(
        server.url, variant="wuhltisch-short", seats=["human", "greedy", "greedy"], seed=5,
        ticks_per_second=20,
    )  # fmt: skip
    tid = table["id"]
    srv_table = server.lobby.tables[tid]
    time.sleep(0.2)
    assert srv_table.step == 0  # a person's seat is free: the clock waits
    token = claim(server.url, tid, 0)
    with Peer(server.ws_url(tid), token) as peer:
        peer.state(lambda m: m["legal"] is not None and "look" in m["legal"]["actions"])
        peer.send({"type": "act", "action": "look"})  # for the next tick, whichever it is
        held = peer.state(lambda m: m["pending"] == "look")  # held before that tick
        final = peer.state(lambda m: m["over"])
    mine = [(n, a) for n, s, a in _moves(server, tid) if s == 0]
    assert len(mine) == final["result"]["details"]["ticks"]  # one action a tick
    assert [n for n, a in mine if a == "look"] == [held["step"]]
    assert all(a in IDLE_ACTIONS for n, a in mine if a != "look")
    assert final["clock"]["ticks_per_second"] == 20


def test_reglamentacja_against_bots_and_its_offers(server: Server) -> None:
    table = open_table(
        server.url, variant="reglamentacja-short", seats=["human", "greedy", "greedy"], seed=2,
        bot_delay=0,
    )  # fmt: skip
    tid = table["id"]
    token = claim(server.url, tid, 0)
    with Peer(server.ws_url(tid), token) as peer:
        first = peer.state(lambda m: m["legal"] is not None)
        assert first["view"]["zones"][0]["title"] == "row"
        if first["legal"]["total"] > len(first["legal"]["actions"]):
            peer.send({"type": "legal", "prefix": "offer 1"})
            listed = peer.until(lambda m: m["type"] == "legal")
            assert listed["actions"]
            assert all(a.startswith("offer 1") for a in listed["actions"])
        final = _play_turns({0: peer}, pick=-1)
    assert final["result"]["termination"] == "capped"


def test_a_third_party_family_is_served_through_its_text(tmp_path: Path) -> None:
    from tinyfamily import register

    register()
    with Server(variants=[HERE / "tinyfamily" / "tiny-seq.yaml"]) as srv:
        table = open_table(srv.url, variant="tiny-seq", seats=["human", "random"], bot_delay=0)
        token = claim(srv.url, table["id"], 0)
        with Peer(srv.ws_url(table["id"]), token) as peer:
            state = peer.state(lambda m: m["legal"] is not None)
            assert state["view"] is None
            assert "market" in state["text"]
            final = _play_turns({0: peer})
        assert final["over"]


# --------------------------------------------------------------------------- hostile


def _snapshot(srv: Server, tid: str) -> tuple[int, str]:
    table = srv.lobby.tables[tid]
    return table.step, table.game.to_json()


def test_hostile_messages_get_errors_and_change_nothing(server: Server) -> None:
    table = open_table(server.url, variant="small", seats=["human", "human"], seed=1)
    tid = table["id"]
    tokens = [claim(server.url, tid, s) for s in (0, 1)]
    with Peer(server.ws_url(tid), tokens[0]) as a, Peer(server.ws_url(tid), tokens[1]) as b:
        state = a.state()
        (acting,) = state["acting"]
        mover, other = (a, b) if acting == 0 else (b, a)
        legal = mover.at(0)["legal"]["actions"]
        before = _snapshot(server, tid)
        hostile: list[tuple[Any, str]] = [
            ("not json", "bad-message"),
            ("[1, 2]", "bad-message"),
            ({"type": "dance"}, "bad-message"),
            ({"type": "act"}, "bad-message"),
            ({"type": "act", "action": legal[0], "seat": 1 - acting}, "bad-message"),
            ({"type": "act", "action": 7}, "bad-message"),
            ({"type": "hello", "token": tokens[acting]}, "bad-message"),
            (b"\x00\x01binary", "bad-message"),
            ("x" * (MAX_MESSAGE_BYTES + 1), "too-big"),
            ({"type": "act", "action": "window nothing-like-this"}, "illegal"),
            ({"type": "act", "action": legal[0], "step": 99}, "stale"),
        ]
        for message, code in hostile:
            mover.send(message)
            assert mover.error()["code"] == code, message
        other.send({"type": "act", "action": legal[0]})  # out of turn
        assert other.error()["code"] == "not-your-turn"
        assert _snapshot(server, tid) == before
        mover.send({"type": "act", "action": legal[0], "step": 0})
        assert mover.state(lambda m: m["step"] == 1)["step"] == 1


def test_another_seats_token_or_a_made_up_one_is_refused(server: Server) -> None:
    table = open_table(server.url, variant="small", seats=["human", "human"], seed=1)
    tid = table["id"]
    token = claim(server.url, tid, 0)
    status, body = request(server.url + f"api/tables/{tid}/claim", {"seat": 0})
    assert status == 409
    assert body["error"] == "taken"
    other = open_table(server.url, variant="small", seats=["human", "human"], seed=1)
    for url, tok in ((server.ws_url(other["id"]), token), (server.ws_url(tid), "guess" * 8)):
        peer = Peer(url, hello=False)
        peer.send({"type": "hello", "token": tok})
        assert peer.error()["code"] == "bad-token"
        with pytest.raises(ConnectionClosed):
            peer.recv()
    with Peer(server.ws_url(tid)) as watcher:
        watcher.send({"type": "act", "action": "done"})
        assert watcher.error()["code"] == "watching"
    assert server.lobby.tables[tid].step == 0


def _read_on(peer: Peer) -> None:
    while True:
        peer.recv()


def test_a_flood_is_slowed_and_a_huge_frame_closes_the_connection(server: Server) -> None:
    table = open_table(server.url, variant="small", seats=["human", "human"], seed=1)
    tid = table["id"]
    token = claim(server.url, tid, 0)
    before = _snapshot(server, tid)
    with Peer(server.ws_url(tid), token) as peer:
        for _ in range(120):
            peer.send({"type": "ping"})
        codes = []
        while len(codes) < 120:
            message = peer.recv()
            if message["type"] in ("pong", "error"):
                codes.append(message.get("code", "pong"))
        assert "too-fast" in codes
        assert "pong" in codes
        peer.send("y" * 2_000_000)
        with pytest.raises(ConnectionClosed) as closed:
            _read_on(peer)
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 1009
    assert _snapshot(server, tid) == before


def test_bad_requests_are_refused(server: Server) -> None:
    cases = [
        ({"variant": "no-such"}, "bad-variant"),
        ({"variant": "small", "seats": ["human", "no-such-bot"]}, "bad-request"),
        ({"variant": "small", "players": 9}, "bad-request"),
        ({"variant": "small", "ticks_per_second": 0}, "bad-request"),
        ({"variant": "small", "extra": 1}, "bad-request"),
    ]
    for spec, code in cases:
        status, body = request(server.url + "api/tables", spec)
        assert (status, body["error"]) == (400, code), (spec, body)
    status, body = request(server.url + "api/tables", raw=b"[1]")
    assert status == 400
    status, body = request(server.url + "api/replay", raw=b'{"format": "nope"}')
    assert status == 400
    assert body["error"] == "bad-record"
    status, body = request(server.url + "api/tables/nope/claim", {"seat": 0})
    assert status == 404


# --------------------------------------------------------------------------- the log


def test_a_new_server_on_the_same_database_resumes_every_table(tmp_path: Path) -> None:
    db = tmp_path / "tables.sqlite"
    with Server(str(db), variants=VARIANTS) as first:
        turns = open_table(first.url, variant="small", seats=["human", "greedy"], seed=3,
                           bot_delay=0)  # fmt: skip
        token = claim(first.url, turns["id"], 0)
        with Peer(first.ws_url(turns["id"]), token) as peer:
            for _ in range(3):
                state = peer.turn()
                peer.send({"type": "act", "action": state["legal"]["actions"][0],
                           "step": state["step"]})  # fmt: skip
                peer.state(lambda m, n=state["step"]: m["step"] > n)
            peer.turn()  # the bot has moved (it thinks in a thread): the person's turn
        before = first.lobby.tables[turns["id"]].game.to_json()
        moves = len(first.lobby.tables[turns["id"]].game.moves)
    assert moves >= 3
    with Server(str(db), variants=VARIANTS) as second:
        table = second.lobby.tables[turns["id"]]
        assert table.game.to_json() == before
        with Peer(second.ws_url(turns["id"]), token) as peer:  # the same token
            assert peer.state()["seat"] == 0
    rows = sqlite3.connect(db).execute("SELECT COUNT(*) FROM moves").fetchone()[0]
    assert rows == moves
    assert [t.id for t in Store(db).tables()] == [turns["id"]]


def test_a_step_the_log_cannot_take_is_not_played(tmp_path: Path) -> None:
    db = tmp_path / "tables.sqlite"
    with Server(str(db), variants=VARIANTS) as srv:
        table = open_table(srv.url, variant="small", seats=["human", "human"], seed=2)
        tid = table["id"]
        token = claim(srv.url, tid, srv.lobby.tables[tid].game.acting[0])
        before = _snapshot(srv, tid)
        other = sqlite3.connect(db)  # a disk that refuses every further move
        other.execute(
            "CREATE TRIGGER full BEFORE INSERT ON moves BEGIN SELECT RAISE(FAIL, 'full'); END"
        )
        other.commit()
        other.close()
        with Peer(srv.ws_url(tid), token) as peer:
            state = peer.turn()
            peer.send({"type": "act", "action": state["legal"]["actions"][0]})
            assert peer.error()["code"] == "stopped"
            assert peer.last is not None  # the table said so first, at step 0
            assert peer.last["status"].startswith("stopped: the move log cannot be written")
            assert peer.last["step"] == 0
            peer.send({"type": "act", "action": state["legal"]["actions"][0]})
            assert peer.error()["code"] == "stopped"
        assert _snapshot(srv, tid) == before


def test_killing_the_server_mid_game_loses_no_move(tmp_path: Path) -> None:
    db = tmp_path / "tables.sqlite"
    extra = [arg for v in VARIANTS for arg in ("--variant", str(v))]
    with subprocess_server(db, *extra) as (process, base):
        table = open_table(base, variant="small", seats=["human", "greedy"], seed=8, bot_delay=0)
        tid = table["id"]
        token = claim(base, tid, 0)
        ws = base.replace("http", "ws") + f"ws/{tid}"
        sent = 0
        with Peer(ws, token) as peer:
            while sent < 4:
                state = peer.turn()
                peer.send({"type": "act", "action": state["legal"]["actions"][-1],
                           "step": state["step"]})  # fmt: skip
                after = peer.state(lambda m, n=state["step"]: m["step"] > n)
                sent += 1
            seen = after["step"]
            process.kill()  # no shutdown: SIGKILL mid-game
            process.wait(WAIT)
    with subprocess_server(db, *extra) as (_, base):
        status, summary = request(base + f"api/tables/{tid}")
        assert status == 200
        assert summary["step"] >= seen
        ws = base.replace("http", "ws") + f"ws/{tid}"
        with Peer(ws, token) as peer:
            state = peer.state()
            assert state["seat"] == 0
            assert state["step"] == summary["step"]
            final = _play_turns({0: peer})
        assert final["over"]
        status, text = request(base + f"api/tables/{tid}/record")
        record = GameRecord.loads(text)
        assert sum(1 for a in record.actions if a.seat == 0) >= sent
        cardshop.replay_record(record, SMALL)


def test_the_replay_api_steps_through_a_record(server: Server, tmp_path: Path) -> None:
    game = cardshop.new_game(cardshop.load_variant(SMALL), 2, seed=6)
    bots = [cardshop.make_bot("random", game.variant, s) for s in range(2)]
    cardshop.driver.play(game, bots)
    text = cardshop.record_game(game, ["random", "random"]).dumps()
    status, data = request(server.url + "api/replay?seat=1", raw=text.encode())
    assert status == 200
    assert len(data["frames"]) == len(game.moves) + 1
    assert data["seat"] == 1
    last = data["frames"][-1]["view"]
    hand = next(z for z in last["seats"][1]["zones"] if z["title"] == "hand")
    assert all("face" in c for c in hand["cards"])
    tampered = text.replace('"action":"done"', '"action":"window jade"', 1)
    status, body = request(server.url + "api/replay", raw=tampered.encode())
    assert status == 400
    assert body["error"] == "bad-record"
