"""Tables: games in progress with their seats, clients, clocks and move logs.

A :class:`Table` owns one game and is its only authority: every action goes through
the game's ``apply``/``apply_joint`` (:func:`cardshop.driver.apply`), once it is written
to the :class:`~cardshop.serve.store.Store`, and only then is told to the clients, each of whom
gets the table as its own seat may see it (a spectator: what every seat may know).

A simultaneous game (``game.dynamics``) advances on a clock of ``ticks_per_second``:
at each tick every bot chooses, every person's latest action for the tick is used if
it is still legal, and a person who sent nothing idles (:data:`IDLE_ACTIONS`: ``wait``
where the rules allow it). The clock runs once every person's seat is claimed and
while at least one person is connected (a table of bots only runs at once). A
turn-based game waits for the person whose turn it is, up to the table's
``move_timer`` if it has one (then the seat idles); bots act after ``bot_delay``.

Everything that changes a table runs on the server's event loop without awaiting in
between, so no two changes interleave.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import sqlite3
import time
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardshop import driver
from cardshop.bots import Bot, bot_names, make_bot
from cardshop.core.actions import (
    Action,
    Seat,
)
from cardshop.core.chance import derive_seed
from cardshop.core.errors import (
    CardshopError,
    GameStateError,
    IllegalActionError,
    SetupError,
)
from cardshop.core.family import (
    Family,
    event_text,
)
from cardshop.core.frontdoor import new_game
from cardshop.core.game import (
    Dynamics,
    Event,
    Game,
)
from cardshop.core.loader import variant_from_data
from cardshop.core.series import family_for
from cardshop.core.variant import VariantBase
from cardshop.records import record_game
from cardshop.serve.protocol import Act, ProtocolError, TableSpec
from cardshop.serve.store import Store, StoredTable

__all__ = ["HUMAN", "IDLE_ACTIONS", "Client", "Lobby", "Table"]

log = logging.getLogger("cardshop.serve")

HUMAN = "human"
"""The seat kind of a person (any other kind names a bot)."""
IDLE_ACTIONS = ("wait", "pass", "done", "reject", "throw")
"""What a person who sends nothing in time does: the first of these that is legal,
else the first legal action."""
LEGAL_LIMIT = 300
"""At most this many legal actions go into a state message; ``legal`` asks for more."""
EVENT_LOG = 40
"""The last events each state message carries."""
QUEUE = 256
"""Messages waiting for a slow client; a client further behind is disconnected."""
SPECTATOR: Seat = -1
"""The seat a spectator's event texts are written for: one that holds no card."""
MAX_NAME = 40


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _clean_name(name: str) -> str:
    return "".join(ch for ch in name if ch.isprintable()).strip()[:MAX_NAME]


def encode(message: dict[str, Any]) -> str:
    """A message as the compact JSON text of one WebSocket frame."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def shown_actions(actions: Sequence[Action], limit: int = LEGAL_LIMIT) -> list[str]:
    """Up to ``limit`` of the legal actions, in their order, every verb among them: each
    verb's actions all if they fit, the first of the most numerous verbs otherwise."""
    if len(actions) <= limit:
        return [str(a) for a in actions]
    counts = Counter(action.verb for action in actions)
    room = limit
    share: dict[str, int] = {}
    for verb, count in sorted(counts.items(), key=lambda item: item[1]):
        share[verb] = min(count, max(1, room // (len(counts) - len(share))))
        room -= share[verb]
    shown = []
    for action in actions:
        if share[action.verb] > 0:
            share[action.verb] -= 1
            shown.append(str(action))
    return shown


class Client:
    """One connection to a table: its seat (``None``: watching) and its outbox."""

    def __init__(self, seat: Seat | None) -> None:
        self.seat = seat
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(maxsize=QUEUE)
        self.dropped = False

    def send(self, message: dict[str, Any] | str) -> None:
        """Queue a message (or its JSON text); a client too far behind is dropped (its
        socket closed)."""
        if self.dropped:
            return
        text = message if isinstance(message, str) else encode(message)
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.dropped = True
            while not self.outbox.empty():
                self.outbox.get_nowait()
            self.outbox.put_nowait(None)


@dataclass(slots=True)
class SeatState:
    kind: str  # HUMAN or a bot's name
    name: str
    token_hash: str | None = None
    bot: Bot | None = None
    connected: int = 0

    @property
    def human(self) -> bool:
        return self.kind == HUMAN


@dataclass(slots=True)
class _Logged:
    step: int
    texts: list[str]  # per seat, then the spectator's


@dataclass(slots=True)
class Settings:
    ticks_per_second: float = 1.0
    move_timer: float | None = None
    bot_delay: float = 0.6

    def to_dict(self) -> dict[str, Any]:
        return {
            "ticks_per_second": self.ticks_per_second,
            "move_timer": self.move_timer,
            "bot_delay": self.bot_delay,
        }


class Table:
    """One game at the server: see the module docstring."""

    def __init__(
        self,
        table_id: str,
        created: float,
        spec: dict[str, Any],
        game: Game,
        store: Store,
    ) -> None:
        self.id = table_id
        self.created = created
        self.spec = spec
        self.game = game
        self.store = store
        self.variant: VariantBase = game.variant
        self.family: Family = family_for(game.variant)
        self.view = self.family.table_view if game.variant.match is None else None
        self.settings = Settings(**spec["settings"])
        self.seats = [
            SeatState(s["kind"], s.get("name") or "", s.get("token_hash")) for s in spec["seats"]
        ]
        for seat, state in enumerate(self.seats):
            if not state.human:
                state.bot = make_bot(state.kind, self.variant, derive_seed(game.seed, "bot", seat))
        moves = game.moves
        self.step = moves[-1].step + 1 if moves else 0
        self.events: deque[_Logged] = deque(maxlen=EVENT_LOG)
        self.clients: set[Client] = set()
        self.pending: dict[Seat, Action] = {}
        self.deadline: float | None = None
        self.error: str | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ what is public

    @property
    def simultaneous(self) -> bool:
        return self.game.dynamics is Dynamics.SIMULTANEOUS

    def summary(self) -> dict[str, Any]:
        """What the lobby lists (public)."""
        return {
            "id": self.id,
            "family": self.variant.family,
            "variant": self.variant.name,
            "title": self.variant.title or self.variant.name,
            "players": self.game.players,
            "dynamics": self.game.dynamics.value,
            "seats": self._seats(),
            "step": self.step,
            "over": self.game.is_over,
            "error": self.error,
            "settings": self.settings.to_dict(),
            "created": self.created,
        }

    def _seats(self) -> list[dict[str, Any]]:
        return [
            {
                "seat": seat,
                "player": state.kind,
                "name": state.name or (f"seat {seat}" if state.human else state.kind),
                "claimed": state.token_hash is not None or not state.human,
                "connected": state.connected > 0 or not state.human,
            }
            for seat, state in enumerate(self.seats)
        ]

    def status(self) -> str:
        if self.error:
            return f"stopped: {self.error}"
        if self.game.is_over:
            return "the game is over"
        if not self._everyone_seated():
            return "waiting for people to take their seats"
        if self.simultaneous and not self._clock_may_run():
            return "paused: nobody is at the table"
        return "playing"

    def state_for(self, seat: Seat | None) -> dict[str, Any]:
        """The ``state`` message for a client of ``seat`` (``None``: a spectator)."""
        game = self.game
        view = self.view(game, seat) if self.view is not None else None
        text = None
        if view is None and seat is not None:
            text = self.family.render(game, seat)
        legal = None
        if seat is not None and seat in game.acting and not self.error:
            actions = game.legal_actions(seat)
            legal = {
                "actions": shown_actions(actions),
                "total": len(actions),
                "verbs": dict(Counter(action.verb for action in actions)),
            }
        column = game.players if seat is None else seat
        message: dict[str, Any] = {
            "type": "state",
            "table": self.id,
            "seat": seat,
            "step": self.step,
            "acting": list(game.acting),
            "over": game.is_over,
            "status": self.status(),
            "view": view,
            "text": text,
            "legal": legal,
            "pending": str(self.pending[seat]) if seat in self.pending else None,
            "events": [{"step": e.step, "text": e.texts[column]} for e in self.events],
            "seats": self._seats(),
            "result": game.result().to_dict() if game.is_over else None,
            "deadline": (
                max(0.0, round(self.deadline - time.time(), 1)) if self.deadline else None
            ),
            "clock": (
                {
                    "ticks_per_second": self.settings.ticks_per_second,
                    "running": self._clock_may_run() and not game.is_over,
                }
                if self.simultaneous
                else None
            ),
        }
        return message

    def broadcast(self) -> None:
        """Send every client the table as its seat sees it (computed once per seat)."""
        cache: dict[Seat | None, str] = {}
        for client in list(self.clients):
            message = cache.get(client.seat)
            if message is None:
                message = cache[client.seat] = encode(self.state_for(client.seat))
            client.send(message)

    def send_state(self, seat: Seat | None) -> None:
        message = encode(self.state_for(seat))
        for client in self.clients:
            if client.seat == seat:
                client.send(message)

    # ------------------------------------------------------------ seats

    def claim(self, seat: int, name: str = "") -> str:
        """Give a person's free seat to a client: the secret token that acts for it."""
        if not 0 <= seat < len(self.seats):
            raise ProtocolError("bad-seat", f"table {self.id} has seats 0..{len(self.seats) - 1}")
        state = self.seats[seat]
        if not state.human:
            raise ProtocolError("bad-seat", f"seat {seat} is played by the bot {state.kind!r}")
        if state.token_hash is not None:
            raise ProtocolError("taken", f"seat {seat} of table {self.id} is taken")
        token = secrets.token_urlsafe(24)
        state.token_hash = _hash(token)
        state.name = _clean_name(name) or state.name
        self.spec["seats"][seat].update(token_hash=state.token_hash, name=state.name)
        self.store.update_spec(self.id, self.spec)
        self.broadcast()
        self._wake.set()
        return token

    def seat_of(self, token: str) -> Seat:
        """The seat a token was given for; :class:`ProtocolError` for any other token."""
        digest = _hash(token)
        for seat, state in enumerate(self.seats):
            if state.token_hash is not None and hmac.compare_digest(state.token_hash, digest):
                return seat
        raise ProtocolError("bad-token", f"that token holds no seat at table {self.id}")

    def join(self, client: Client) -> None:
        self.clients.add(client)
        if client.seat is not None:
            self.seats[client.seat].connected += 1
            self._wake.set()
        self.broadcast()

    def leave(self, client: Client) -> None:
        if client not in self.clients:
            return
        self.clients.discard(client)
        if client.seat is not None:
            self.seats[client.seat].connected -= 1
        self.broadcast()

    def _everyone_seated(self) -> bool:
        return all(s.token_hash is not None for s in self.seats if s.human)

    def _clock_may_run(self) -> bool:
        humans = [s for s in self.seats if s.human]
        return self._everyone_seated() and (not humans or any(s.connected for s in humans))

    # ------------------------------------------------------------ acting

    def act(self, seat: Seat, message: Act) -> None:
        """A person's action for ``seat``: applied now (a turn) or held for the tick.

        Raises :class:`ProtocolError` or an :class:`~cardshop.ActionError`; then
        nothing changed.
        """
        game = self.game
        if self.error:
            raise ProtocolError("stopped", f"table {self.id} is stopped: {self.error}")
        if game.is_over:
            raise ProtocolError("over", "the game is over")
        if message.step is not None and message.step != self.step:
            raise ProtocolError(
                "stale", f"that action was for step {message.step}; the table is at {self.step}"
            )
        if seat not in game.acting:
            raise ProtocolError("not-your-turn", f"seat {seat} does not act now")
        action = game.parse_action(message.action, seat)
        if action not in game.legal_actions(seat):
            raise IllegalActionError(f"{str(action)!r} is not legal for seat {seat} now")
        if self.simultaneous:
            self.pending[seat] = action
            self.send_state(seat)
            return
        self.apply({seat: action})

    def apply(self, actions: Mapping[Seat, Action]) -> list[Event]:
        """Apply one step, log it and tell everyone (an illegal step changes nothing).

        The step is written to the log first and applied after (a write-ahead log): a
        step the log cannot take is not played, and the table stops.
        """
        game = self.game
        if sorted(actions) != list(game.acting):
            raise GameStateError(f"a step needs the acting seats {list(game.acting)}")
        for seat, action in actions.items():
            if action not in game.legal_actions(seat):
                raise IllegalActionError(f"{str(action)!r} is not legal for seat {seat} now")
        try:
            self.store.add_step(self.id, self.step, {s: str(a) for s, a in actions.items()})
        except sqlite3.Error as exc:
            self.error = f"the move log cannot be written ({exc})"
            log.error("table %s: %s", self.id, self.error)
            self.broadcast()
            raise ProtocolError("stopped", f"table {self.id} is stopped: {self.error}") from None
        try:
            events = driver.apply(game, actions)
        except CardshopError:
            self.store.remove_step(self.id, self.step)
            raise
        players = self.game.players
        for event in events:
            texts = [event_text(self.family, self.variant, event, s) for s in range(players)]
            texts.append(event_text(self.family, self.variant, event, SPECTATOR))
            self.events.append(_Logged(self.step, texts))
        self.step += 1
        self.pending.clear()
        self.deadline = None
        self.broadcast()
        self._wake.set()
        return events

    def idle(self, seat: Seat) -> Action:
        legal = self.game.legal_actions(seat)
        for name in IDLE_ACTIONS:
            for action in legal:
                if str(action) == name:
                    return action
        return legal[0]

    def _bot_action(self, seat: Seat) -> Action:
        bot = self.seats[seat].bot
        assert bot is not None
        return bot.choose(self.game.observation(seat), self.game.legal_actions(seat))

    # ------------------------------------------------------------ running

    def start(self) -> None:
        if self._task is None and not self.game.is_over and not self.error:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=self.id)

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for client in list(self.clients):
            client.send({"type": "bye", "message": "the server is stopping"})

    async def _run(self) -> None:
        try:
            if self.simultaneous:
                await self._run_clock()
            else:
                await self._run_turns()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a fault of the server or a bot: stop this table only
            self.error = self.error or f"{type(exc).__name__}: {str(exc)[:200]}"
            log.exception("table %s stopped", self.id)
            self.broadcast()

    async def _run_clock(self) -> None:
        loop = asyncio.get_running_loop()
        period = 1.0 / self.settings.ticks_per_second
        game = self.game
        due = loop.time() + period
        while not game.is_over:
            if not self._clock_may_run():
                self._wake.clear()
                await self._wake.wait()
                due = loop.time() + period
                continue
            delay = due - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            due = max(due + period, loop.time())  # late ticks are not made up in a burst
            if game.is_over:
                break
            actions: dict[Seat, Action] = {}
            for seat in game.acting:
                if not self.seats[seat].human:
                    actions[seat] = self._bot_action(seat)
                    continue
                held = self.pending.get(seat)
                ok = held is not None and held in game.legal_actions(seat)
                actions[seat] = held if held is not None and ok else self.idle(seat)
            self.apply(actions)

    async def _run_turns(self) -> None:
        game = self.game
        while not game.is_over:
            seat = game.acting[0]
            step = self.step
            state = self.seats[seat]
            if not state.human:
                await asyncio.sleep(self.settings.bot_delay)  # (0: still lets others run)
                assert state.bot is not None
                observation, legal = game.observation(seat), game.legal_actions(seat)
                if state.kind.startswith("ismcts"):  # a search: off the event loop
                    action = await asyncio.to_thread(state.bot.choose, observation, legal)
                else:
                    action = state.bot.choose(observation, legal)
                if self.step == step:
                    self.apply({seat: action})
                continue
            self._wake.clear()
            timer = self.settings.move_timer
            if timer is None or state.token_hash is None:
                await self._wake.wait()
                continue
            if self.deadline is None:
                self.deadline = time.time() + timer
                self.broadcast()
            try:
                await asyncio.wait_for(self._wake.wait(), max(0.0, self.deadline - time.time()))
            except TimeoutError:
                if self.step == step and not game.is_over:
                    self.apply({seat: self.idle(seat)})

    # ------------------------------------------------------------ records

    def record_text(self) -> str:
        """The finished game's record (JSON Lines) that ``cardshop replay`` verifies."""
        if not self.game.is_over:
            raise ProtocolError(
                "not-over", "a game's record is given once it is over (it shows every card)"
            )
        names = [state.kind for state in self.seats]
        return record_game(self.game, names, options=self.spec["options"]).dumps()


@dataclass
class Lobby:
    """Every table of a server, with the store that keeps them."""

    store: Store
    variants: dict[str, VariantBase]
    uploads: bool = True
    max_tables: int = 1000
    tables: dict[str, Table] = field(default_factory=dict)
    started: bool = False

    async def start(self) -> None:
        """Resume every stored table from its log (once)."""
        if self.started:
            return
        self.started = True
        for stored in self.store.tables():
            table = self._restore(stored)
            self.tables[table.id] = table
            table.start()

    async def stop(self) -> None:
        for table in self.tables.values():
            await table.stop()
        self.started = False

    def _restore(self, stored: StoredTable) -> Table:
        spec = stored.spec
        variant = variant_from_data(spec["variant_data"], source=f"table {stored.id}")
        game = new_game(variant, spec["players"], spec["seed"], **spec["options"])
        error = None
        for number, actions in enumerate(stored.steps):
            try:
                parsed = {seat: game.parse_action(text, seat) for seat, text in actions.items()}
                driver.apply(game, parsed)
            except CardshopError as exc:
                error = f"step {number} of the stored log does not replay: {exc}"
                log.error("table %s: %s", stored.id, error)
                break
        table = Table(stored.id, stored.created, spec, game, self.store)
        table.error = error
        return table

    def create(self, request: TableSpec) -> Table:
        """Open a table; :class:`~cardshop.CardshopError` for a request that cannot be met."""
        if len(self.tables) >= self.max_tables:
            raise ProtocolError("full", f"this server holds at most {self.max_tables} tables")
        variant = self._variant(request)
        players = request.players or (len(request.seats) if request.seats else variant.players.min)
        seats = request.seats or [HUMAN] + ["random"] * (players - 1)
        if len(seats) != players:
            raise SetupError(f"{len(seats)} seat(s) named for a game of {players} players")
        seed = request.seed if request.seed is not None else secrets.randbits(63)
        options: dict[str, Any] = {}
        if request.first_player is not None:
            options["first_player"] = request.first_player
        game = new_game(variant, players, seed, **options)
        for seat, kind in enumerate(seats):
            if kind != HUMAN:
                make_bot(kind, variant, derive_seed(seed, "bot", seat))  # an unknown bot fails
        names = [_clean_name(n) for n in request.names] + [""] * players
        spec = {
            "variant_name": variant.name,
            "variant_data": variant.to_data(),
            "players": players,
            "seed": seed,
            "options": options,
            "seats": [{"kind": kind, "name": names[s]} for s, kind in enumerate(seats)],
            "settings": {
                "ticks_per_second": request.ticks_per_second,
                "move_timer": request.move_timer,
                "bot_delay": request.bot_delay,
            },
        }
        table_id = secrets.token_urlsafe(6)
        while table_id in self.tables:
            table_id = secrets.token_urlsafe(6)
        created = time.time()
        self.store.add_table(table_id, created, spec)
        table = Table(table_id, created, spec, game, self.store)
        self.tables[table_id] = table
        table.start()
        return table

    def _variant(self, request: TableSpec) -> VariantBase:
        from cardshop.core.loader import parse_variant

        if request.variant_yaml is not None:
            if not self.uploads:
                raise ProtocolError("no-uploads", "this server plays only the variants it offers")
            return parse_variant(request.variant_yaml, source="<uploaded variant>")
        name = request.variant or next(iter(self.variants), None)
        if name is None or name not in self.variants:
            offered = ", ".join(self.variants) or "none"
            raise ProtocolError("bad-variant", f"no variant {name!r} here (offered: {offered})")
        return self.variants[name]

    def get(self, table_id: str) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise ProtocolError("no-table", f"no table {table_id[:40]!r}")
        return table


def describe_variants(variants: Mapping[str, VariantBase]) -> list[dict[str, Any]]:
    """The variants a server offers, with their families' bots (``GET /api/variants``)."""
    out = []
    for name, variant in variants.items():
        family = family_for(variant)
        out.append(
            {
                "name": name,
                "title": variant.title or name,
                "family": variant.family,
                "dynamics": family.dynamics.value,
                "players": {"min": variant.players.min, "max": variant.players.max},
                "bots": bot_names(variant),
            }
        )
    return out
