"""Tables: games in progress with their seats, clients, clocks and move logs.

A :class:`Table` owns one game and is its only authority: every action goes through
the game's ``apply``/``apply_joint`` (:func:`cardshop.driver.apply`), once it is written
to the :class:`~cardshop.serve.store.Store`, and only then is told to the clients, each of whom
gets the table as its own seat may see it (a spectator: what every seat may know).

A simultaneous game (``game.dynamics``) advances on a clock of ``ticks_per_second``:
at each tick every bot's choice is played, every person's latest action for the tick
is used if it is still legal, and a person who sent nothing idles
(:data:`IDLE_ACTIONS`: ``wait`` where the rules allow it). The bots think while the
tick runs (they see the state the tick starts from); a tick whose bots have not
chosen when it is due waits for them: the table slows down, its bots never forfeit,
so a seeded table of bots plays the same game however loaded the server is. The
clock runs once every person's seat is claimed and while at least one person is
connected (a table of bots only runs at once). A turn-based game waits for the
person whose turn it is, up to the table's ``move_timer`` if it has one (then the
seat idles); bots act after ``bot_delay``.

Bots think off the event loop, in the lobby's pool of bot threads (a table's bots one
at a time), so no table's bots hold up another table or the HTTP API; a search is
bounded by the server's :class:`BotBudget`. Everything that changes a table runs on
the server's event loop without awaiting in between, so no two changes interleave.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import hmac
import json
import logging
import math
import re
import secrets
import time
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from cardshop import driver
from cardshop.bots import (
    MAX_ITERATIONS,
    MAX_SECONDS,
    MIN_SECONDS,
    Bot,
    ISMCTSBot,
    bot_names,
    make_bot,
)
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
from cardshop.core.factored import ActionFactors
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
from cardshop.core.series import current_game, family_for
from cardshop.core.variant import VariantBase
from cardshop.records import record_game
from cardshop.serve.parts import PartsError, parts_answer
from cardshop.serve.protocol import Act, Parts, ProtocolError, TableSpec
from cardshop.serve.store import Store, StoredTable, StoreError

__all__ = ["HUMAN", "IDLE_ACTIONS", "BotBudget", "Client", "Lobby", "Table"]

log = logging.getLogger("cardshop.serve")

HUMAN = "human"
"""The seat kind of a person (any other kind names a bot)."""
IDLE_ACTIONS = ("wait", "pass", "done", "reject", "throw")
"""What a person who sends nothing in time does: the first of these that is legal,
else the first legal action."""
LEGAL_LIMIT = 300
"""At most this many legal actions go into a state message; ``legal`` asks for more."""
PART_LOOKAHEAD = 12
"""A first part that leads to at most this many actions lists them in the state
message (one click each, as a short verb is shown); a larger one is built part by
part."""
EVENT_LOG = 40
"""The last events each state message carries."""
QUEUE = 256
"""Messages waiting for a slow client; a client further behind is disconnected."""
SPECTATOR: Seat = -1
"""The seat a spectator's event texts are written for: one that holds no card."""
MAX_NAME = 40
BOT_THREADS = 2
"""The threads the bots of every table think in, by default."""
MAX_TABLES_PER_CLIENT = 20
"""Unfinished tables one client address may have opened, by default."""
SWITCH_INTERVAL = 0.0005
"""The interpreter's thread switch interval (seconds) ``cardshop serve`` sets, a tenth
of Python's default: a bot searching in its thread hands the interpreter back to the
event loop that often, so that a search delays other tables' messages by about a
millisecond at each turn of the loop rather than five (``sys.setswitchinterval``)."""

_BUDGET = re.compile(
    r"(?:([0-9]{1,9}):)?(?:([0-9]{1,9})|([0-9]{1,9}(?:\.[0-9]{0,9})?|\.[0-9]{1,9})s)"
)


@dataclass(frozen=True, slots=True)
class BotBudget:
    """The most a bot of the server may search per decision: ``iterations`` and
    ``seconds`` (``cardshop serve --max-bot-budget``, written as an ISMCTS budget:
    ``1000:1s``, ``500``, ``0.5s``; a part left out is the library's bound).

    A table whose bot asks for more is refused (:meth:`check`); every search bot at
    the server also stops at ``seconds`` (:meth:`enforce`), an iteration budget too,
    so that no decision takes longer whatever the machine.
    """

    iterations: int = 1000
    seconds: float = 1.0

    @classmethod
    def parse(cls, text: str) -> BotBudget:
        """A budget from its text; :class:`~cardshop.SetupError` for another text."""
        found = _BUDGET.fullmatch(text.strip()) if isinstance(text, str) else None
        usage = (
            f"bad bot budget {str(text)[:40]!r}: write iterations and seconds as for "
            f"ISMCTS, '1000:1s' (iterations 1..{MAX_ITERATIONS:,}, seconds "
            f"{MIN_SECONDS:g}..{MAX_SECONDS:g}), or one of them, '500' or '0.5s'"
        )
        if found is None:
            raise SetupError(usage)
        first, alone, timed = found.groups()
        if first is not None and (alone is not None or timed is None):
            raise SetupError(usage)
        iterations = int(first or alone or MAX_ITERATIONS)
        seconds = float(timed) if timed else MAX_SECONDS
        if not 1 <= iterations <= MAX_ITERATIONS or not MIN_SECONDS <= seconds <= MAX_SECONDS:
            raise SetupError(usage)
        return cls(iterations, seconds)

    def __str__(self) -> str:
        return f"{self.iterations} iterations and {self.seconds:g} s"

    def check(
        self,
        bot: Bot,
        seat: Seat,
        spec: str,
        *,
        set_by: str = "the server's operator sets it: cardshop serve --max-bot-budget",
    ) -> None:
        """Refuse (``bot-budget``) a search bot that asks for more than this budget;
        the message ends with who sets it (``set_by``)."""
        if not isinstance(bot, ISMCTSBot):
            return
        asked = []
        if bot.iterations is not None and bot.iterations > self.iterations:
            asked.append(f"{bot.iterations} iterations")
        if bot.time_limit is not None and bot.time_limit > self.seconds:
            asked.append(f"{bot.time_limit:g} s")
        if asked:
            raise ProtocolError(
                "bot-budget",
                f"seat {seat}'s bot {spec[:60]!r} asks for {' and '.join(asked)} a decision; "
                f"bots at this server search at most {self} a decision ({set_by})",
            )

    def enforce(self, bot: Bot) -> None:
        """Hold a search bot to this budget: it stops at ``seconds`` a decision."""
        if isinstance(bot, ISMCTSBot):
            if bot.iterations is not None:
                bot.iterations = min(bot.iterations, self.iterations)
            limit = bot.time_limit if bot.time_limit is not None else math.inf
            bot.time_limit = min(limit, self.seconds)


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


DEFAULT_BOT_BUDGET = BotBudget()
"""A server's bot budget unless its operator says otherwise: 1000 iterations and 1 s."""


class Table:
    """One game at the server: see the module docstring."""

    def __init__(
        self,
        table_id: str,
        created: float,
        spec: dict[str, Any],
        game: Game,
        store: Store,
        *,
        bots: Executor | None = None,
        budget: BotBudget | None = None,
        client: str | None = None,
    ) -> None:
        self.id = table_id
        self.created = created
        self.spec = spec
        self.game = game
        self.store = store
        self.bots = bots
        """Where the bots think (``None``: the event loop's default executor)."""
        self.client = client
        """The address that opened the table (``None``: restored, or opened by code)."""
        self.variant: VariantBase = game.variant
        self.family: Family = family_for(game.variant)
        self.view = self.family.table_view  # a match's draws its current game
        self.settings = Settings(**spec["settings"])
        self.seats = [
            SeatState(s["kind"], s.get("name") or "", s.get("token_hash")) for s in spec["seats"]
        ]
        for seat, state in enumerate(self.seats):
            if not state.human:
                state.bot = make_bot(state.kind, self.variant, derive_seed(game.seed, "bot", seat))
                (budget or DEFAULT_BOT_BUDGET).enforce(state.bot)
        moves = game.moves
        self.step = moves[-1].step + 1 if moves else 0
        self.events: deque[_Logged] = deque(maxlen=EVENT_LOG)
        self.clients: set[Client] = set()
        self.pending: dict[Seat, Action] = {}
        self.deadline: float | None = None
        self.error: str | None = None
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._factors: ActionFactors | None = None

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
            "damaged": False,
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
                "parts": self._parts(seat, (), follow=False, lookahead=PART_LOOKAHEAD)
                if self.factors is not None
                else None,
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
        """Give a person's free seat to a client: the secret token that acts for it.

        The seat is stored first and taken in memory after: a :class:`StoreError`
        leaves it free."""
        if not 0 <= seat < len(self.seats):
            raise ProtocolError("bad-seat", f"table {self.id} has seats 0..{len(self.seats) - 1}")
        state = self.seats[seat]
        if not state.human:
            raise ProtocolError("bad-seat", f"seat {seat} is played by the bot {state.kind!r}")
        if state.token_hash is not None:
            raise ProtocolError("taken", f"seat {seat} of table {self.id} is taken")
        token = secrets.token_urlsafe(24)
        digest, shown = _hash(token), _clean_name(name) or state.name
        spec = copy.deepcopy(self.spec)
        spec["seats"][seat].update(token_hash=digest, name=shown)
        self.store.update_spec(self.id, spec)  # written first: a refused write changes nothing
        self.spec = spec
        state.token_hash, state.name = digest, shown
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
        self._check_turn(seat, message.step, "that action was")
        game = self.game
        action = game.parse_action(message.action, seat)
        if action not in game.legal_actions(seat):
            raise IllegalActionError(f"{str(action)!r} is not legal for seat {seat} now")
        if self.simultaneous:
            self.pending[seat] = action
            self.send_state(seat)
            return
        self.apply({seat: action})

    def _check_turn(self, seat: Seat, step: int | None, what: str) -> None:
        """Refuse a message of ``seat`` sent for ``step`` (``what``: "that action was",
        say) unless the table runs, the game goes on, the step is the table's and the
        seat acts."""
        if self.error:
            raise ProtocolError("stopped", f"table {self.id} is stopped: {self.error}")
        if self.game.is_over:
            raise ProtocolError("over", "the game is over")
        if step is not None and step != self.step:
            raise ProtocolError("stale", f"{what} for step {step}; the table is at {self.step}")
        if seat not in self.game.acting:
            raise ProtocolError("not-your-turn", f"seat {seat} does not act now")

    # ------------------------------------------------------------ part by part

    @property
    def factors(self) -> ActionFactors | None:
        """The family's factored action space at this table (``None``: the family has
        none), made on first use."""
        if self._factors is None and self.family.factored is not None:
            self._factors = self.family.factored(self.variant, self.game.players)
        return self._factors

    def parts(self, seat: Seat, message: Parts) -> dict[str, Any]:
        """The ``parts`` answer for ``seat``: after the options ``message.chosen``, the
        next part's legal options, or the whole action they make.

        Only the seat's own legal actions are read, and only while it acts; every
        option chosen is checked against the options the space lists at its place
        (:meth:`~cardshop.core.ActionFactors.next`), so a refused message names the
        first part that is not legal and the options that are. A part with a single
        legal option is chosen at once (``forced`` in the answer's ``path``).
        Raises :class:`ProtocolError`; nothing changes either way.
        """
        self._check_turn(seat, message.step, "those parts were")
        if self.factors is None:
            raise ProtocolError(
                "no-parts",
                f"{self.variant.family}'s actions are not chosen part by part: "
                "ask for them with 'legal' (and a prefix)",
            )
        return self._parts(seat, message.chosen, follow=True, lookahead=0)

    def _parts(
        self, seat: Seat, chosen: Sequence[int], *, follow: bool, lookahead: int
    ) -> dict[str, Any]:
        factors = self.factors
        assert factors is not None
        game = current_game(self.game)
        try:
            answer = parts_answer(factors, game, seat, chosen, follow=follow, lookahead=lookahead)
        except PartsError as exc:
            raise ProtocolError("bad-parts", str(exc)) from None
        return {"type": "parts", "step": self.step, **answer}

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
        except StoreError as exc:
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

    async def _choose(self, seats: Sequence[Seat]) -> dict[Seat, Action]:
        """The bots of ``seats`` choose, one after another, in a bot thread (the event
        loop serves every other table and client meanwhile). Each sees its observation
        and legal actions of now: nothing changes the game while its bots think."""
        if not seats:
            return {}
        game = self.game
        asks = []
        for seat in seats:
            bot = self.seats[seat].bot
            assert bot is not None
            asks.append((seat, bot, game.observation(seat), game.legal_actions(seat)))

        def think() -> dict[Seat, Action]:
            return {seat: bot.choose(seen, legal) for seat, bot, seen, legal in asks}

        return await asyncio.get_running_loop().run_in_executor(self.bots, think)

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
        except ProtocolError:
            if not self.error:  # else the table has stopped and said why
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
        while not game.is_over and not self.error:
            if not self._clock_may_run():
                self._wake.clear()
                await self._wake.wait()
                due = loop.time() + period
                continue
            step = self.step
            thinking = loop.create_task(
                self._choose([s for s in game.acting if not self.seats[s].human])
            )
            try:
                await asyncio.sleep(max(0.0, due - loop.time()))  # a late tick yields too
                chosen = await thinking  # bots slower than the clock slow this table down
            finally:
                thinking.cancel()
            due = max(due + period, loop.time())  # late ticks are not made up in a burst
            if game.is_over or self.step != step:
                continue
            actions: dict[Seat, Action] = {}
            for seat in game.acting:
                if seat in chosen:
                    actions[seat] = chosen[seat]
                    continue
                held = self.pending.get(seat)
                ok = held is not None and held in game.legal_actions(seat)
                actions[seat] = held if held is not None and ok else self.idle(seat)
            self.apply(actions)

    async def _run_turns(self) -> None:
        game = self.game
        while not game.is_over and not self.error:
            seat = game.acting[0]
            step = self.step
            state = self.seats[seat]
            if not state.human:
                await asyncio.sleep(self.settings.bot_delay)  # (0: still lets others run)
                chosen = await self._choose([seat])
                if self.step == step and not game.is_over:
                    self.apply(chosen)
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
    """Every table of a server, with the store that keeps them.

    ``budget`` bounds the bots' search (:class:`BotBudget`), ``bot_threads`` how many
    bots of all tables think at once, ``max_tables`` the tables held and
    ``max_tables_per_client`` the unfinished tables one client address may have
    opened (``None``: no bound). A stored table that cannot be set up again stops
    alone: it is listed as damaged (``damaged``) and the others play on.
    """

    store: Store
    variants: dict[str, VariantBase]
    uploads: bool = True
    max_tables: int = 1000
    budget: BotBudget = DEFAULT_BOT_BUDGET
    bot_threads: int = BOT_THREADS
    max_tables_per_client: int | None = MAX_TABLES_PER_CLIENT
    tables: dict[str, Table] = field(default_factory=dict)
    damaged: dict[str, dict[str, Any]] = field(default_factory=dict)
    started: bool = False
    _pool: ThreadPoolExecutor | None = field(default=None, repr=False)

    @property
    def pool(self) -> ThreadPoolExecutor:
        """The threads the bots think in (made on first use)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(
                max_workers=self.bot_threads, thread_name_prefix="cardshop-bot"
            )
        return self._pool

    async def start(self) -> None:
        """Resume every stored table from its log (once); a table that cannot be
        resumed is listed as damaged, and the others are resumed all the same."""
        if self.started:
            return
        self.started = True
        for stored in self.store.tables():
            try:
                if stored.damage is not None:
                    raise _Damaged(stored.damage)
                table = self._restore(stored)
            except Exception as exc:  # a damaged row stops its own table only
                reason = str(exc) if isinstance(exc, _Damaged) else f"{type(exc).__name__}: {exc}"
                self._damage(stored, reason[:300])
                continue
            self.tables[table.id] = table
            table.start()

    def _damage(self, stored: StoredTable, reason: str) -> None:
        log.error("table %s cannot be resumed: %s", stored.id, reason)
        self.damaged[stored.id] = {
            "id": stored.id,
            "family": None,
            "variant": None,
            "title": f"damaged table {stored.id}",
            "players": 0,
            "dynamics": None,
            "seats": [],
            "step": 0,
            "over": False,
            "error": f"this table cannot be resumed: {reason}",
            "damaged": True,
            "settings": None,
            "created": stored.created,
        }

    async def stop(self) -> None:
        for table in self.tables.values():
            await table.stop()
        self.started = False
        pool, self._pool = self._pool, None
        if pool is not None:  # a search still running ends within the bot budget
            pool.shutdown(wait=False, cancel_futures=True)

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
        table = Table(
            stored.id, stored.created, spec, game, self.store, bots=self.pool, budget=self.budget
        )
        table.error = error
        return table

    def summaries(self) -> list[dict[str, Any]]:
        """Every table's summary (``GET /api/tables``), damaged ones included."""
        return [*self.damaged.values(), *(t.summary() for t in self.tables.values())]

    def create(self, request: TableSpec, client: str | None = None) -> Table:
        """Open a table for ``client`` (an address; ``None``: unbounded);
        :class:`~cardshop.CardshopError` for a request that cannot be met (nothing is
        kept then: the table is stored first, held in memory after)."""
        if len(self.tables) >= self.max_tables:
            raise ProtocolError("full", f"this server holds at most {self.max_tables} tables")
        bound = self.max_tables_per_client
        if client is not None and bound is not None:
            mine = sum(
                1
                for t in self.tables.values()
                if t.client == client and not t.game.is_over and not t.error
            )
            if mine >= bound:
                raise ProtocolError(
                    "too-many-tables",
                    f"one client may have at most {bound} unfinished tables at this server; "
                    "finish or leave one first",
                )
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
            if kind != HUMAN:  # an unknown bot fails, a search above the budget too
                bot = make_bot(kind, variant, derive_seed(seed, "bot", seat))
                self.budget.check(bot, seat, kind)
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
        while table_id in self.tables or table_id in self.damaged:
            table_id = secrets.token_urlsafe(6)
        created = time.time()
        table = Table(
            table_id,
            created,
            spec,
            game,
            self.store,
            bots=self.pool,
            budget=self.budget,
            client=client,
        )
        self.store.add_table(table_id, created, spec)
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
            damaged = self.damaged.get(table_id)
            if damaged is not None:
                raise ProtocolError("damaged", f"table {table_id}: {damaged['error']}")
            raise ProtocolError("no-table", f"no table {table_id[:40]!r}")
        return table


class _Damaged(Exception):
    """A stored row that cannot be read (its reason)."""


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
