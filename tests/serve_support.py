"""Helpers for the tests of ``cardshop serve``: a real uvicorn server on loopback, in a
thread of the test process or in a subprocess, and small HTTP and WebSocket clients."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import uvicorn
from websockets.sync.client import ClientConnection, connect

from cardshop.serve import create_app

HERE = Path(__file__).parent
SERVE_FIXTURES = HERE / "fixtures" / "serve"
WAIT = 60.0
"""A hang guard far above any normal wait (seconds)."""


def free_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


class Server:
    """A server on 127.0.0.1 in a thread of this process; ``url`` ends with a slash."""

    def __init__(self, db: str = ":memory:", **options: Any) -> None:
        self.app = create_app(db, **options)
        self.sock = free_socket()
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        config = uvicorn.Config(self.app, log_level="warning", ws_max_size=1_048_576, lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + WAIT
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(WAIT)
        self.sock.close()

    @property
    def lobby(self) -> Any:
        return self.app.state.lobby

    def ws_url(self, table: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/{table}"


def request(url: str, data: Any = None, *, raw: bytes | None = None) -> tuple[int, Any]:
    """(status, parsed JSON or text) of a GET, or a POST of ``data`` as JSON."""
    body = raw if raw is not None else None if data is None else json.dumps(data).encode()
    req = urllib.request.Request(url, data=body, method="POST" if body is not None else "GET")
    req.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=WAIT) as response:
            status, text, kind = response.status, response.read(), response.headers
    except urllib.error.HTTPError as exc:
        status, text, kind = exc.code, exc.read(), exc.headers
    decoded = text.decode()
    if "json" in kind.get("content-type", "") and "jsonl" not in kind.get("content-type", ""):
        return status, json.loads(decoded)
    return status, decoded


def open_table(base: str, **spec: Any) -> dict[str, Any]:
    status, body = request(base + "api/tables", spec)
    assert status == 201, body
    return dict(body)


def claim(base: str, table: str, seat: int, name: str = "") -> str:
    status, body = request(base + f"api/tables/{table}/claim", {"seat": seat, "name": name})
    assert status == 200, body
    return str(body["token"])


class Peer:
    """A WebSocket client of one table: sends messages, reads them in order."""

    def __init__(self, url: str, token: str | None = None, hello: bool = True) -> None:
        # entered as a context manager, as websockets asks (closed by close())
        self.ws: ClientConnection = connect(url, open_timeout=WAIT, max_size=None).__enter__()
        self.last: dict[str, Any] | None = None
        self.texts: list[str] = []  # every message received, as sent
        if hello:
            self.send({"type": "hello", "token": token})
            welcome = self.recv()
            assert welcome["type"] == "welcome", welcome
            self.welcome = welcome

    def send(self, message: Any) -> None:
        self.ws.send(message if isinstance(message, (str, bytes)) else json.dumps(message))

    def recv(self) -> dict[str, Any]:
        text = self.ws.recv(timeout=WAIT)
        self.texts.append(str(text))
        message = json.loads(text)
        assert isinstance(message, dict)
        if message.get("type") == "state":
            self.last = message
        return message

    def until(self, check: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Read messages until one passes ``check``; return it."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            message = self.recv()
            if check(message):
                return message
        raise AssertionError("no such message came")

    def state(self, check: Callable[[dict[str, Any]], bool] = lambda m: True) -> dict[str, Any]:
        return self.until(lambda m: m.get("type") == "state" and check(m))

    def at(self, step: int) -> dict[str, Any]:
        """The latest state of step ``step`` or later (read on until one comes)."""
        if self.last is not None and self.last["step"] >= step:
            return self.last
        return self.state(lambda m: m["step"] >= step)

    def turn(self) -> dict[str, Any]:
        """The latest state if the client's seat must act in it, else the next such."""
        if self.last is not None and self.last["legal"] is not None:
            return self.last
        return self.state(lambda m: m["legal"] is not None)

    def error(self) -> dict[str, Any]:
        return self.until(lambda m: m.get("type") == "error")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()

    def __enter__(self) -> Peer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def subprocess_server(db: Path, *extra: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``cardshop serve`` in a subprocess on a free port; yields (process, base url)."""
    sock = free_socket()
    port = sock.getsockname()[1]
    sock.close()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "cardshop", "serve", "--db", str(db), "--port", str(port),
               *extra]  # fmt: skip
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + WAIT
        while True:
            try:
                with urllib.request.urlopen(base + "api/variants", timeout=WAIT):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    _out, err = process.communicate(timeout=WAIT)
                    raise RuntimeError(f"cardshop serve did not start: {err.decode()}") from None
                time.sleep(0.05)
        yield process, base
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(WAIT)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
