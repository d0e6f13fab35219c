"""What the table server's benchmarks share: a ``cardshop serve`` of their own on a free
loopback port, and its JSON API.

:func:`served` starts the server on a fresh database, waits until it answers, hands the
caller its address, and stops it however the caller ends; the report it returns carries
the server's traceback, if it wrote one, and the machine's CPU count.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

START_GUARD = 60.0
"""Seconds the server may take to start, or one request to be answered (a hang guard)."""
STOP_GUARD = 30.0
"""Seconds the server may take to stop once asked, before it is killed."""


def http(url: str, data: Any = None) -> Any:
    """GET ``url`` (or POST ``data`` as JSON) and its JSON answer."""
    body = None if data is None else json.dumps(data).encode()
    req = urllib.request.Request(url, data=body, method="POST" if body else "GET")
    req.add_header("content-type", "application/json")
    with urllib.request.urlopen(req, timeout=START_GUARD) as response:
        return json.loads(response.read())


def served(options: Sequence[str], measure: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    """``measure(base_url)`` against a ``cardshop serve`` started with ``options`` on a
    new database and a free loopback port; its report, with ``server_errors`` (the
    server's traceback, if any) and ``cpus``."""
    with tempfile.TemporaryDirectory() as folder:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        base = f"http://127.0.0.1:{port}/"
        command = [sys.executable, "-m", "cardshop", "serve", "--db",
                   str(Path(folder) / "bench.sqlite"), "--port", str(port), *options]  # fmt: skip
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _wait_until_up(server, base)
            report = measure(base)
        finally:
            errors = _stop(server)
    report["server_errors"] = errors[-2000:] if "Traceback" in errors else ""
    report["cpus"] = os.cpu_count()
    return report


def _wait_until_up(server: subprocess.Popen[bytes], base: str) -> None:
    deadline = time.monotonic() + START_GUARD
    while True:
        try:
            http(base + "api/variants")
            return
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("cardshop serve did not start") from None
            time.sleep(0.05)


def _stop(server: subprocess.Popen[bytes]) -> str:
    """Stop the server (killed if it does not stop in time); what it wrote to stderr."""
    server.terminate()
    try:
        server.wait(STOP_GUARD)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    assert server.stderr is not None
    errors = server.stderr.read().decode()
    server.stderr.close()
    return errors
