"""Games served to language-model agents as MCP tools (``cardshop mcp``; the ``mcp`` extra).

One server session holds a few games (:data:`MAX_GAMES` by default), each with one
seat played by the client and bots in the others. The client sees what its seat may
know and nothing more: its own observation, its legal actions, the events as its seat
may know them; the seed of a game (from which the deck follows) is drawn at the server
and shown only with the result, once the game is over. Variants are the built-in ones,
named: the client never makes the server open a file. See docs/mcp.md::

    from cardshop.serve.mcp import make_server
    make_server(max_games=8).run("stdio")

:class:`Games` holds the games and carries out every tool; :func:`make_server` wraps
it in the SDK's server, whose tools turn a :class:`~cardshop.CardshopError` into a
tool error (the game unchanged).
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import itertools
import secrets
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cardshop import driver
from cardshop.bots import Bot, bot_names, make_bot
from cardshop.core.actions import Action, Seat
from cardshop.core.chance import derive_seed
from cardshop.core.errors import CardshopError, GameStateError, SetupError
from cardshop.core.factored import ActionFactors
from cardshop.core.family import event_text
from cardshop.core.frontdoor import Resolved, resolve
from cardshop.core.game import Dynamics, Event, Game
from cardshop.core.loader import builtin_variants
from cardshop.records import record_game
from cardshop.serve.parts import PartsError, parts_answer
from cardshop.serve.tables import DEFAULT_BOT_BUDGET, shown_actions

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["MAX_GAMES", "Games", "make_server", "run_stdio", "sdk"]

MAX_GAMES = 8
"""Games one server session holds at once, by default."""
MAX_NAME = 100
"""The longest variant name, game id or bot spec a tool takes."""
MAX_ACTION = 2000
"""The longest action text a tool takes."""
MAX_EVENTS = 100
"""Events kept for the next ``observe`` (the older ones are dropped)."""
PLAYER = "client"
"""How a record names the client's seat."""
DEFAULT_BOT = "random"


class ToolRefusal(CardshopError):
    """A tool call the server refuses (nothing changed)."""


def plain(value: Any) -> Any:
    """``value`` as JSON data: named tuples and dataclasses as objects, enums as their
    values, tuples and sets as lists, mappings with text keys; anything else as text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, enum.Enum):
        return plain(value.value)
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return [plain(v) for v in items]
    return str(value)


def _text(value: object, what: str, limit: int = MAX_NAME) -> str:
    if not isinstance(value, str):
        raise ToolRefusal(f"{what} is a text, not {type(value).__name__}")
    if not value or len(value) > limit:
        raise ToolRefusal(f"{what} is a text of 1 to {limit} characters")
    return value


@dataclass
class OpenGame:
    """One game of the session: the client's seat and the bots of the others."""

    id: str
    order: int
    resolved: Resolved
    game: Game
    seat: Seat
    players: list[str]
    """Each seat's player: :data:`PLAYER` for the client's, else a bot spec."""
    bots: dict[Seat, Bot]
    steps: int = 0
    """Steps played (a turn, or a tick of every acting seat)."""
    events: list[str] = field(default_factory=list)
    """What happened since the client's last ``observe``, as its seat may know it."""
    factors: ActionFactors | None = None
    """The family's factored action space, made on the first ``action_parts``."""


class Games:
    """The games of one server session and the tools that play them."""

    def __init__(self, max_games: int = MAX_GAMES) -> None:
        if not isinstance(max_games, int) or max_games < 1:
            raise SetupError(f"max_games is a whole number of at least 1, not {max_games!r}")
        self.max_games = max_games
        self.games: dict[str, OpenGame] = {}
        self._counter = itertools.count()

    # ------------------------------------------------------------ tools

    def list_variants(self) -> list[dict[str, Any]]:
        """The built-in variants: family, title, description, players, bots."""
        out = []
        for name in builtin_variants():
            resolved = resolve(name)
            variant = resolved.variant
            out.append(
                {
                    "name": name,
                    "family": variant.family,
                    "title": variant.title or name,
                    "description": " ".join(str(getattr(variant, "description", "") or "").split()),
                    "players": {"min": variant.players.min, "max": variant.players.max},
                    "simultaneous": resolved.family.dynamics is Dynamics.SIMULTANEOUS,
                    "bots": bot_names(variant),
                }
            )
        return out

    def new_game(
        self, variant: str, players: int, seat: int = 0, bots: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """Open a game of a built-in ``variant`` with the client at ``seat`` and bots in
        the other seats (one spec for all of them, or one per other seat in seat
        order; default ``random``); the bots play until the client's turn."""
        name = _text(variant, "variant")
        known = builtin_variants()
        if name not in known:
            raise ToolRefusal(f"no built-in variant {name!r}; variants are: {', '.join(known)}")
        resolved = resolve(name)
        bounds = resolved.variant.players
        if isinstance(players, bool) or not isinstance(players, int):
            raise ToolRefusal("players is a whole number")
        if not bounds.min <= players <= bounds.max:
            raise ToolRefusal(f"{name} is played by {bounds.min} to {bounds.max} players")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise ToolRefusal(f"seat is a whole number from 0 to {players - 1}")
        specs = self._bot_specs(bots, players)
        self._make_room()
        game_seed = secrets.randbits(63)
        game = resolved.new_game(players, game_seed)
        seats: list[str] = []
        made: dict[Seat, Bot] = {}
        others = iter(specs)
        for s in range(players):
            if s == seat:
                seats.append(PLAYER)
                continue
            spec = next(others)
            bot = make_bot(spec, resolved, derive_seed(game_seed, "bot", s))
            DEFAULT_BOT_BUDGET.check(bot, s, spec, set_by="the budget of cardshop mcp")
            DEFAULT_BOT_BUDGET.enforce(bot)
            seats.append(spec)
            made[s] = bot
        game_id = secrets.token_urlsafe(6)
        while game_id in self.games:
            game_id = secrets.token_urlsafe(6)
        opened = OpenGame(game_id, next(self._counter), resolved, game, seat, seats, made)
        self.games[game_id] = opened
        self._advance(opened)
        return {
            "game_id": game_id,
            "variant": name,
            "players": players,
            "seat": seat,
            "seats": seats,
            "over": game.is_over,
            "your_turn": seat in game.acting,
        }

    def observe(self, game_id: str) -> dict[str, Any]:
        """The client's seat's view of the game, its legal actions when it acts, and
        the events since the last call (bots act first until the client's turn)."""
        opened = self._get(game_id)
        self._advance(opened)
        game, seat = opened.game, opened.seat
        acts = seat in game.acting and not game.is_over
        legal = list(game.legal_actions(seat)) if acts else []
        events, opened.events = opened.events, []
        return {
            "game_id": opened.id,
            "variant": opened.resolved.ref,
            "family": opened.resolved.variant.family,
            "players": game.players,
            "seat": seat,
            "seats": opened.players,
            "steps": opened.steps,
            "over": game.is_over,
            "acting": list(game.acting),
            "your_turn": acts,
            "observation": plain(game.observation(seat)),
            "text": opened.resolved.family.render(game, seat),
            "legal_actions": shown_actions(legal),
            "legal_total": len(legal),
            "parts": acts and opened.resolved.family.factored is not None,
            "events": events,
            "result": game.result().to_dict() if game.is_over else None,
        }

    def act(self, game_id: str, action: str) -> dict[str, Any]:
        """Play the client's ``action`` (its text); the bots' actions of the same tick
        go with it in a simultaneous game, and the bots play on until the client's
        turn. An illegal or unreadable action is refused and changes nothing."""
        opened = self._get(game_id)
        text = _text(action, "action", MAX_ACTION)
        game, seat = self._turn(opened)
        legal = game.legal_actions(seat)
        try:
            chosen = game.parse_action(text.strip(), seat)
        except CardshopError as exc:
            raise ToolRefusal(self._refusal(f"cannot read {text[:80]!r} ({exc})", legal)) from None
        if chosen not in legal:
            raise ToolRefusal(self._refusal(f"{str(chosen)!r} is not legal now", legal))
        step: dict[Seat, Action] = {seat: chosen}
        step.update(self._choose(opened, [s for s in game.acting if s != seat]))
        self._apply(opened, step)
        self._advance(opened)
        acts = seat in game.acting and not game.is_over
        after = list(game.legal_actions(seat)) if acts else []
        return {
            "game_id": opened.id,
            "played": str(chosen),
            "over": game.is_over,
            "your_turn": acts,
            "legal_actions": shown_actions(after),
            "legal_total": len(after),
        }

    def action_parts(self, game_id: str, chosen: Sequence[int] = ()) -> dict[str, Any]:
        """Build the client's action part by part, where its family has a factored
        action space (Reglamentacja's offers: whom to offer, what to give, what to take,
        the queue place): after the options ``chosen`` so far, the next part's legal
        options (each one can still lead to a legal action), or the whole action's text
        to pass to ``act``. Parts with one legal option are chosen at once."""
        opened = self._get(game_id)
        game, seat = self._turn(opened)
        make = opened.resolved.family.factored
        if make is None:
            raise ToolRefusal(
                f"{opened.resolved.variant.family}'s actions are not built part by part: "
                "observe lists them whole"
            )
        if isinstance(chosen, str) or not isinstance(chosen, Sequence):
            raise ToolRefusal("chosen is a list of option numbers")
        if opened.factors is None:
            opened.factors = make(opened.resolved.variant, game.players)
        try:
            answer = parts_answer(opened.factors, game, seat, list(chosen), follow=True)
        except PartsError as exc:
            raise ToolRefusal(str(exc)) from None
        return {"game_id": opened.id, **answer}

    def result(self, game_id: str) -> dict[str, Any]:
        """The finished game's result and record (JSON Lines), with its seed."""
        opened = self._get(game_id)
        self._advance(opened)
        game = opened.game
        if not game.is_over:
            raise ToolRefusal(
                "the game is not over: its result and record (which show every card) are "
                "given at its end"
            )
        outcome = game.result().to_dict()
        return {
            "game_id": opened.id,
            "variant": opened.resolved.ref,
            "seat": opened.seat,
            "seats": opened.players,
            "seed": game.seed,
            "scores": outcome.get("scores"),
            "ranks": outcome.get("ranks"),
            "winners": outcome.get("winners"),
            "result": outcome,
            "record": record_game(game, opened.players).dumps(),
        }

    # ------------------------------------------------------------ inside

    def _get(self, game_id: str) -> OpenGame:
        key = _text(game_id, "game_id")
        opened = self.games.get(key)
        if opened is None:
            raise ToolRefusal(f"no game {key[:40]!r} in this session (new_game opens one)")
        return opened

    def _bot_specs(self, bots: Sequence[str] | None, players: int) -> list[str]:
        if bots is None:
            return [DEFAULT_BOT] * (players - 1)
        if isinstance(bots, str) or not isinstance(bots, Sequence):
            raise ToolRefusal("bots is a list of bot names")
        specs = [_text(b, "a bot name") for b in bots]
        if len(specs) == 1:
            return specs * (players - 1)
        if len(specs) != players - 1:
            raise ToolRefusal(
                f"bots names one bot for every other seat ({players - 1}), or one for all"
            )
        return specs

    def _make_room(self) -> None:
        if len(self.games) < self.max_games:
            return
        finished = sorted((g for g in self.games.values() if g.game.is_over), key=lambda g: g.order)
        if not finished:
            raise ToolRefusal(
                f"this server holds at most {self.max_games} games at once and none of them "
                "is over: finish one first"
            )
        del self.games[finished[0].id]

    @staticmethod
    def _refusal(reason: str, legal: Sequence[Action]) -> str:
        shown = shown_actions(legal)
        more = f" (and {len(legal) - len(shown)} more)" if len(legal) > len(shown) else ""
        return f"{reason}; nothing was played. Legal actions: {'; '.join(shown)}{more}"

    @staticmethod
    def _choose(opened: OpenGame, seats: Sequence[Seat]) -> dict[Seat, Action]:
        game = opened.game
        return {s: opened.bots[s].choose(game.observation(s), game.legal_actions(s)) for s in seats}

    def _apply(self, opened: OpenGame, actions: Mapping[Seat, Action]) -> None:
        events: list[Event] = driver.apply(opened.game, actions)
        opened.steps += 1
        variant = opened.resolved.variant
        family = opened.resolved.family
        opened.events.extend(event_text(family, variant, e, opened.seat) for e in events)
        del opened.events[:-MAX_EVENTS]

    def _turn(self, opened: OpenGame) -> tuple[Game, Seat]:
        """The game and the client's seat once the bots have played up to its turn;
        refused if the game is over."""
        self._advance(opened)
        game, seat = opened.game, opened.seat
        if game.is_over:
            raise ToolRefusal("the game is over: read its result")
        if seat not in game.acting:  # the bots stop at the client's turn or the end
            raise GameStateError(f"seat {seat} does not act in a game that is not over")
        return game, seat

    def _advance(self, opened: OpenGame) -> None:
        """The bots play until the client's seat acts or the game ends."""
        game = opened.game
        while not game.is_over and opened.seat not in game.acting:
            acting = list(game.acting)
            if not acting:
                raise GameStateError("no seat acts in a game that is not over")
            self._apply(opened, self._choose(opened, acting))


def sdk() -> tuple[Any, type[Exception]]:
    """The SDK's server class and tool error: ``MCPServer`` (mcp 2), else ``FastMCP``
    (mcp 1, whose tools are declared the same way)."""
    try:
        package = importlib.import_module("mcp.server.mcpserver")
        errors = importlib.import_module("mcp.server.mcpserver.exceptions")
        return package.MCPServer, errors.ToolError
    except ImportError:
        package = importlib.import_module("mcp.server.fastmcp")
        errors = importlib.import_module("mcp.server.fastmcp.exceptions")
        return package.FastMCP, errors.ToolError


def make_server(max_games: int = MAX_GAMES, games: Games | None = None) -> MCPServer[Any]:
    """The MCP server (the SDK's ``MCPServer``) whose tools play ``games`` (default: a
    fresh session of at most ``max_games`` games)."""
    server_class, tool_error = sdk()
    if games is None:
        games = Games(max_games)
    server: MCPServer[Any] = server_class(
        "cardshop",
        instructions=(
            "Play shopping card games against bots. list_variants shows the games; "
            "new_game opens one with you at a seat; observe shows your seat's view and "
            "legal actions; action_parts builds an action part by part where the list is "
            "long; act plays one of them by its text; result gives the scores "
            "and the game record once the game is over."
        ),
    )

    lock = threading.Lock()  # the SDK runs plain tools in worker threads: one at a time

    def call(method: Any, *args: Any) -> Any:
        with lock:
            try:
                return method(*args)
            except CardshopError as exc:
                raise tool_error(str(exc)) from None

    @server.tool()
    def list_variants() -> dict[str, Any]:
        """The built-in variants: name, family, title, description, players (min and
        max), whether its seats act together (simultaneous), and the bots it offers."""
        return {"variants": call(games.list_variants)}

    @server.tool()
    def new_game(
        variant: str, players: int, seat: int = 0, bots: list[str] | None = None
    ) -> dict[str, Any]:
        """Open a game of a built-in variant with you at `seat` (0 first) and bots in the
        other seats: `bots` names one bot for all of them or one per other seat in seat
        order (default random). Returns the game_id for the other tools."""
        return dict(call(games.new_game, variant, players, seat, bots))

    @server.tool()
    def observe(game_id: str) -> dict[str, Any]:
        """Your seat's view of the game: observation (data), text, whether it is your
        turn, your legal actions (as texts to pass to act), the events since the last
        observe, and the result once it is over."""
        return dict(call(games.observe, game_id))

    @server.tool()
    def act(game_id: str, action: str) -> dict[str, Any]:
        """Play one of your legal actions, written as observe lists it; the bots then
        play until your turn. Returns whether the game is over and your next legal
        actions. An illegal action is refused and changes nothing."""
        return dict(call(games.act, game_id, action))

    @server.tool()
    def action_parts(game_id: str, chosen: list[int] | None = None) -> dict[str, Any]:
        """Build your action one part at a time where observe says `parts` is true
        (Reglamentacja's offers, thousands of them: whom to offer, what to give, what to
        take, the queue place). Pass the option values chosen so far (none to start):
        the answer lists the next part's options, each of which can still lead to a
        legal action, or gives the finished `action` text to pass to act."""
        return dict(call(games.action_parts, game_id, chosen or []))

    @server.tool()
    def result(game_id: str) -> dict[str, Any]:
        """The finished game's scores, ranks and winners, its seed, and its record (JSON
        Lines, which `cardshop replay` verifies); refused before the game is over."""
        return dict(call(games.result, game_id))

    return server


def run_stdio(max_games: int = MAX_GAMES) -> None:
    """Serve one session over standard input and output until the client closes it."""
    make_server(max_games).run("stdio")
