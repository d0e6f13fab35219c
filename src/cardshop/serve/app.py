"""The ASGI application of ``cardshop serve`` (Starlette): pages, a JSON API, WebSockets.

::

    from cardshop.serve import create_app
    app = create_app("tables.sqlite")        # uvicorn module:app, or mount it

Routes (docs/serve.md has the message protocol):

* ``GET /`` the page (lobby, table, replay viewer); ``/static/...`` its script and style,
  shipped in the package: the page loads nothing from anywhere else;
* ``GET /api/variants``, ``GET /api/tables``, ``POST /api/tables`` (a
  :class:`~cardshop.serve.protocol.TableSpec`), ``GET /api/tables/{id}``,
  ``POST /api/tables/{id}/claim`` (``{"seat": 0, "name": "Ann"}`` -> ``{"token": ...}``),
  ``GET /api/tables/{id}/record`` (a finished game's record);
* ``POST /api/replay?seat=N`` a record's text -> every step's table, verified first;
* ``WS /ws/{id}`` a table's updates; the first message is ``hello``.

The app resumes the stored tables on its first request or at start-up (its lifespan),
so it works mounted inside another application too, whose lifespan Starlette does
not pass on to mounted apps. Every response carries the security headers
(:data:`SECURITY_HEADERS`; the page its Content-Security-Policy, :data:`PAGE_CSP`),
and every refusal is a JSON ``{"error", "message"}``, an unforeseen fault too.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from cardshop.core.errors import (
    CardshopError,
    SetupError,
)
from cardshop.core.family import event_text
from cardshop.core.loader import (
    builtin_variants,
    load_variant,
)
from cardshop.core.series import family_for
from cardshop.core.variant import VariantBase
from cardshop.records import GameRecord
from cardshop.serve.protocol import (
    PROTOCOL,
    Act,
    AnyMessage,
    Claim,
    Hello,
    Parts,
    Ping,
    ProtocolError,
    TableSpec,
    error,
    loads,
    parse_message,
)
from cardshop.serve.store import Store, StoreError
from cardshop.serve.tables import (
    BOT_THREADS,
    DEFAULT_BOT_BUDGET,
    LEGAL_LIMIT,
    MAX_TABLES_PER_CLIENT,
    SPECTATOR,
    BotBudget,
    Client,
    Lobby,
    Table,
    describe_variants,
)

__all__ = [
    "API_CSP",
    "MAX_BODY_BYTES",
    "MAX_REPLAY_STEPS",
    "PAGE_CSP",
    "SECURITY_HEADERS",
    "create_app",
]

STATIC = Path(__file__).parent / "static"
MAX_BODY_BYTES = 8_000_000
"""The largest request body (a record to replay)."""
MAX_REPLAY_STEPS = 20_000
"""The longest record the replay viewer steps through."""
RATE = 20.0
"""Messages per second a client may send on average..."""
BURST = 40.0
"""...and at once; more are refused with ``too-fast``."""
MAX_STRIKES = 200
"""Refused messages after which a client is disconnected."""

PAGE_CSP = (
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The page's Content-Security-Policy: its own script, style and WebSocket (CSP level 3
lets ``'self'`` cover ``ws:``/``wss:`` to the same host) and nothing else."""
API_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
"""The Content-Security-Policy of every other response: nothing runs from it."""
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
"""Sent with every HTTP response and WebSocket handshake of the app."""
_STATUS = {"storage": 503, "too-many-tables": 429, "no-table": 404, "damaged": 409}


def _variants(extra: Iterable[str | Path | VariantBase]) -> dict[str, VariantBase]:
    found = {name: load_variant(name) for name in builtin_variants()}
    for ref in extra:
        variant = load_variant(ref)
        found[variant.name] = variant
    return found


def create_app(
    db: str | Path = ":memory:",
    *,
    variants: Iterable[str | Path | VariantBase] = (),
    uploads: bool = True,
    max_tables: int = 1000,
    max_bot_budget: BotBudget | str = DEFAULT_BOT_BUDGET,
    bot_threads: int = BOT_THREADS,
    max_tables_per_client: int | None = MAX_TABLES_PER_CLIENT,
) -> Starlette:
    """The server as an ASGI app: tables stored in ``db`` (a SQLite file or ``:memory:``).

    ``variants`` are offered besides the built-in ones (names, files the operator
    trusts, or loaded variants, of any registered family); ``uploads`` lets clients
    open tables of a variant they send as YAML. ``max_bot_budget`` bounds the bots'
    search per decision (a :class:`~cardshop.serve.tables.BotBudget` or its text,
    ``"1000:1s"``), ``bot_threads`` how many bots of all tables think at once, and
    ``max_tables_per_client`` the unfinished tables one client address may open
    (``None``: no bound). The :class:`Lobby` is ``app.state.lobby``.

    Raises :class:`~cardshop.serve.store.StoreError` for a ``db`` that is not a
    cardshop serve database of this version, is damaged or cannot be written
    (nothing is written into it then).
    """
    budget = BotBudget.parse(max_bot_budget) if isinstance(max_bot_budget, str) else max_bot_budget
    for name, value in (("bot_threads", bot_threads), ("max_tables", max_tables)):
        if type(value) is not int or value < 1:
            raise SetupError(f"{name} must be a whole number of at least 1, not {value!r}")
    lobby = Lobby(
        Store(db),
        _variants(variants),
        uploads=uploads,
        max_tables=max_tables,
        budget=budget,
        bot_threads=bot_threads,
        max_tables_per_client=max_tables_per_client,
    )
    page = (STATIC / "index.html").read_text(encoding="utf-8")

    async def ready() -> None:
        await lobby.start()

    async def index(request: Request) -> Response:
        return HTMLResponse(page)

    async def api_variants(request: Request) -> Response:
        return JSONResponse({"variants": describe_variants(lobby.variants)})

    async def api_tables(request: Request) -> Response:
        await ready()
        if request.method == "GET":
            return JSONResponse({"tables": lobby.summaries()})
        data = await _json_body(request, 300_000)
        try:
            spec = TableSpec.model_validate(data)
            table = lobby.create(spec, request.client.host if request.client else None)
        except ValidationError as exc:
            return _refuse("bad-request", _first_problem(exc))
        except StoreError as exc:
            return _refuse("storage", str(exc), 503)
        except ProtocolError as exc:
            return _refuse(exc.code, str(exc), _STATUS.get(exc.code, 400))
        except CardshopError as exc:
            return _refuse("bad-request", str(exc))
        return JSONResponse(table.summary(), status_code=201)

    async def api_table(request: Request) -> Response:
        await ready()
        damaged = lobby.damaged.get(request.path_params["table"])
        if damaged is not None:
            return JSONResponse(damaged)
        try:
            table = lobby.get(request.path_params["table"])
        except ProtocolError as exc:
            return _refuse(exc.code, str(exc), 404)
        return JSONResponse(table.summary())

    async def api_claim(request: Request) -> Response:
        await ready()
        data = await _json_body(request, 10_000)
        try:
            table = lobby.get(request.path_params["table"])
        except ProtocolError as exc:
            return _refuse(exc.code, str(exc), _STATUS.get(exc.code, 404))
        try:
            claim = Claim.model_validate(data)
        except ValidationError as exc:
            return _refuse("bad-request", _first_problem(exc) + "; claim with {'seat', 'name'}")
        try:
            token = table.claim(claim.seat, claim.name)
        except StoreError as exc:
            return _refuse("storage", str(exc), 503)
        except ProtocolError as exc:
            return _refuse(exc.code, str(exc), 409)
        return JSONResponse({"table": table.id, "seat": claim.seat, "token": token})

    async def api_record(request: Request) -> Response:
        await ready()
        try:
            table = lobby.get(request.path_params["table"])
            text = table.record_text()
        except ProtocolError as exc:
            return _refuse(exc.code, str(exc), _STATUS.get(exc.code, 409))
        name = f"cardshop-{table.variant.name}-{table.id}.jsonl"
        return PlainTextResponse(
            text,
            media_type="application/jsonl",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def api_replay(request: Request) -> Response:
        body = await _body(request, MAX_BODY_BYTES)
        seat_text = request.query_params.get("seat", "")
        if seat_text and not (seat_text.isascii() and seat_text.isdigit() and len(seat_text) < 3):
            return _refuse("bad-request", "seat must be a seat's number (0 to 99), or left out")
        seat = int(seat_text) if seat_text else None
        try:
            text = body.decode("utf-8")
            frames = await asyncio.to_thread(replay_frames, text, seat)
        except UnicodeDecodeError:
            return _refuse("bad-record", "a record is UTF-8 text")
        except CardshopError as exc:
            return _refuse("bad-record", str(exc))
        return JSONResponse(frames)

    async def ws_table(websocket: WebSocket) -> None:
        await ready()
        try:
            await websocket.accept()
        except (WebSocketDisconnect, OSError):
            return  # the client left at once
        try:
            table = lobby.get(websocket.path_params["table"])
        except ProtocolError as exc:
            await _answer(websocket, error(exc), close=4404)
            return
        await _serve_client(websocket, table)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await lobby.start()
        try:
            yield
        finally:
            await lobby.stop()
            lobby.store.close()

    routes = [
        Route("/", index),
        Route("/api/variants", api_variants),
        Route("/api/tables", api_tables, methods=["GET", "POST"]),
        Route("/api/tables/{table}", api_table),
        Route("/api/tables/{table}/claim", api_claim, methods=["POST"]),
        Route("/api/tables/{table}/record", api_record),
        Route("/api/replay", api_replay, methods=["POST"]),
        WebSocketRoute("/ws/{table}", ws_table),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders)],
        exception_handlers={
            _TooBig: _refused_body,
            _BadJson: _refused_body,
            Exception: _fault,
        },
    )
    app.state.lobby = lobby
    return app


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` and a Content-Security-Policy
    (:data:`PAGE_CSP` for HTML, :data:`API_CSP` for everything else) on every HTTP
    response, and :data:`SECURITY_HEADERS` on every WebSocket handshake."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in _headers(headers.get("content-type", "")).items():
                    headers[name] = value
            elif message["type"] == "websocket.accept":
                extra = [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_secured)


def _headers(content_type: str) -> dict[str, str]:
    policy = PAGE_CSP if content_type.startswith("text/html") else API_CSP
    return {**SECURITY_HEADERS, "Content-Security-Policy": policy}


def _refuse(code: str, message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": code, "message": message[:500]}, status_code=status)


def _first_problem(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "body"
    return f"field {where[:60]!r}: {first['msg'][:200]}"


async def _fault(request: Request, exc: Exception) -> Response:
    """An unforeseen fault: a JSON 500 (the server logs the traceback). This answer
    leaves the app outside its middleware, so it carries the headers itself."""
    response = _refuse("internal", "the server failed to answer this request; it is logged", 500)
    response.headers.update(_headers("application/json"))
    return response


async def _body(request: Request, limit: int) -> bytes:
    size = request.headers.get("content-length", "")
    if size.isdigit() and int(size) > limit:
        raise _TooBig(limit)
    chunks = []
    total = 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limit:
            raise _TooBig(limit)
        chunks.append(chunk)
    return b"".join(chunks)


async def _json_body(request: Request, limit: int) -> dict[str, Any]:
    body = await _body(request, limit)
    try:
        data = loads(body or b"{}")
    except (ValueError, RecursionError):
        raise _BadJson() from None
    if not isinstance(data, dict):
        raise _BadJson()
    return data


async def _refused_body(request: Request, exc: Exception) -> Response:
    status = 413 if isinstance(exc, _TooBig) else 400
    return _refuse("too-big" if status == 413 else "bad-request", str(exc), status)


class _TooBig(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"a request body is at most {limit} bytes")


class _BadJson(Exception):
    def __init__(self) -> None:
        super().__init__("the request body must be a JSON object")


async def _serve_client(websocket: WebSocket, table: Table) -> None:
    """One connection: ``hello`` first, then actions, until it closes."""
    try:
        first = await asyncio.wait_for(websocket.receive(), timeout=60)
        if first["type"] == "websocket.disconnect":
            return
        hello = parse_message(first.get("text") if "text" in first else first.get("bytes"))
        if not isinstance(hello, Hello):
            raise ProtocolError("bad-message", "the first message must be 'hello'")
        seat = table.seat_of(hello.token) if hello.token is not None else None
    except ProtocolError as exc:
        await _answer(websocket, error(exc), close=4400)
        return
    except (TimeoutError, WebSocketDisconnect):
        return
    client = Client(seat)
    welcomed = await _answer(
        websocket,
        {
            "type": "welcome",
            "protocol": PROTOCOL,
            "table": table.id,
            "seat": seat,
            "family": table.variant.family,
            "variant": table.variant.name,
            "title": table.variant.title or table.variant.name,
            "players": table.game.players,
            "dynamics": table.game.dynamics.value,
        },
    )
    if not welcomed:
        return
    sender = asyncio.get_running_loop().create_task(_send_loop(websocket, client))
    table.join(client)
    allowance, last, strikes = BURST, time.monotonic(), 0
    try:
        while not client.dropped:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            now = time.monotonic()
            allowance = min(BURST, allowance + (now - last) * RATE)
            last = now
            try:
                if allowance < 1:
                    raise ProtocolError("too-fast", f"at most {RATE:g} messages a second")
                allowance -= 1
                raw = frame.get("text") if frame.get("text") is not None else frame.get("bytes")
                message = parse_message(raw)
                _handle(table, client, message)
            except CardshopError as exc:
                strikes += 1
                client.send(error(exc))
                if strikes >= MAX_STRIKES:
                    client.send({"type": "bye", "message": "too many refused messages"})
                    break
    except WebSocketDisconnect:
        pass
    finally:
        table.leave(client)
        with contextlib.suppress(asyncio.QueueFull):
            client.outbox.put_nowait(None)
        try:
            await asyncio.wait_for(sender, timeout=5)
        except (TimeoutError, asyncio.CancelledError):
            sender.cancel()


async def _answer(websocket: WebSocket, message: dict[str, Any], close: int | None = None) -> bool:
    """Send one message before the client has joined (and close, with ``close``);
    whether it went. A client whose connection has already ended (it left, or sent a
    frame over the limit, which closes it) is not told: that is not a fault."""
    try:
        await websocket.send_json(message)
        if close is not None:
            await websocket.close(close)
    except (WebSocketDisconnect, OSError):
        return False
    except RuntimeError:  # the server's WebSocket layer has closed the connection itself
        return False
    return True


def _handle(table: Table, client: Client, message: AnyMessage) -> None:
    if isinstance(message, Ping):
        client.send({"type": "pong", "step": table.step})
    elif isinstance(message, Hello):
        raise ProtocolError("bad-message", "already joined: 'hello' comes once")
    elif client.seat is None:
        raise ProtocolError("watching", "a spectator cannot act: claim a seat to play")
    elif isinstance(message, Act):
        table.act(client.seat, message)
    elif isinstance(message, Parts):
        client.send(table.parts(client.seat, message))
    else:
        game = table.game
        if client.seat not in game.acting:
            raise ProtocolError("not-your-turn", f"seat {client.seat} does not act now")
        matching = [
            str(a) for a in game.legal_actions(client.seat) if str(a).startswith(message.prefix)
        ]
        client.send(
            {
                "type": "legal",
                "step": table.step,
                "prefix": message.prefix,
                "actions": matching[:LEGAL_LIMIT],
                "total": len(matching),
            }
        )


async def _send_loop(websocket: WebSocket, client: Client) -> None:
    try:
        while True:
            message = await client.outbox.get()
            if message is None:
                break
            await websocket.send_text(message)
        await websocket.close()
    except Exception:  # the peer went away: nothing more to send
        return


def replay_frames(text: str, seat: int | None = None) -> dict[str, Any]:
    """A record's game step by step for the replay viewer: the record is verified
    first (:meth:`GameRecord.replay`), then every state is drawn as ``seat`` would
    have seen it (``None``: the public view)."""
    from cardshop import driver
    from cardshop.core.frontdoor import new_game

    record = GameRecord.loads(text, source="<uploaded record>")
    if len(record.steps) > MAX_REPLAY_STEPS:
        raise ProtocolError(
            "too-long", f"the replay viewer steps through at most {MAX_REPLAY_STEPS} steps"
        )
    final = record.replay()
    if seat is not None and not 0 <= seat < record.players:
        seat = None
    game = new_game(final.variant, record.players, record.seed, **record.options)
    family = family_for(game.variant)
    view = family.table_view  # a match's draws its current game
    reader = SPECTATOR if seat is None else seat

    def frame(number: int, actions: list[list[Any]], events: list[str]) -> dict[str, Any]:
        return {
            "step": number,
            "actions": actions,
            "events": events,
            "view": view(game, seat) if view is not None else None,
            "text": family.render(game, seat) if view is None and seat is not None else None,
        }

    frames = [frame(0, [], [])]
    for number, step in enumerate(record.steps, start=1):
        actions = {s: game.parse_action(t, s) for s, t in step.actions}
        events = driver.apply(game, actions)
        texts = [event_text(family, game.variant, e, reader) for e in events]
        frames.append(frame(number, [[s, t] for s, t in step.actions], texts))
    return {
        "family": record.family,
        "variant": record.variant_name,
        "players": record.players,
        "seats": list(record.bots),
        "seat": seat,
        "result": record.result,
        "frames": frames,
    }
