"""``cardshop mcp``: games as MCP tools, played by the SDK's own client over stdio
against a real ``python -m cardshop mcp`` subprocess, and the tools in-process."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.server.mcpserver.exceptions import ToolError

import cardshop
from cardshop import CardshopError
from cardshop.records import GameRecord
from cardshop.serve.mcp import Games, make_server, plain

pytestmark = [pytest.mark.xdist_group("mcp"), pytest.mark.build_independent]

GUARD = 600  # seconds: a hang guard, never a measure of speed


@asynccontextmanager
async def session(*args: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "cardshop", "mcp", *args])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        yield client


def data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return dict(result.structured_content)
    return dict(json.loads(result.content[0].text))


def error_text(result: Any) -> str:
    assert result.is_error
    return "".join(block.text for block in result.content)


def run(body: Callable[[ClientSession], Awaitable[None]], *args: str) -> None:
    async def main() -> None:
        async with session(*args) as client:
            await body(client)

    asyncio.run(asyncio.wait_for(main(), timeout=GUARD))


async def play_out(client: ClientSession, game_id: str) -> int:
    """Play the client's seat to the end with its first legal action; the acts played."""
    seen = data(await client.call_tool("observe", {"game_id": game_id}))
    legal, over, played = seen["legal_actions"], seen["over"], 0
    while not over:
        assert legal, seen
        answer = data(await client.call_tool("act", {"game_id": game_id, "action": legal[0]}))
        legal, over, played = answer["legal_actions"], answer["over"], played + 1
    return played


def test_tools_and_variants_over_stdio() -> None:
    async def body(client: ClientSession) -> None:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert {"list_variants", "new_game", "observe", "act", "result"} <= tools
        variants = data(await client.call_tool("list_variants", {}))["variants"]
        by_name = {v["name"]: v for v in variants}
        # The server's process knows the installed families' variants; this one may know
        # more (a test may have registered a family in it).
        editions = {"klunker-en", "klunker-es", "klunker-zh", "wuhltisch", "reglamentacja"}
        assert editions <= set(by_name) <= set(cardshop.builtin_variants())
        klunker = by_name["klunker-en"]
        assert klunker["family"] == "klunker"
        assert klunker["players"] == {"min": 3, "max": 5}
        assert "random" in klunker["bots"]
        assert klunker["title"]
        assert by_name["wuhltisch"]["simultaneous"] is True

    run(body)


def test_a_klunker_game_to_its_end_over_stdio() -> None:
    async def body(client: ClientSession) -> None:
        opened = data(
            await client.call_tool("new_game", {"variant": "klunker-en", "players": 3, "seat": 1})
        )
        game_id = opened["game_id"]
        assert opened["seats"] == ["random", "client", "random"]
        seen = data(await client.call_tool("observe", {"game_id": game_id}))
        assert "seed" not in json.dumps(seen)
        early = await client.call_tool("result", {"game_id": game_id})
        message = error_text(early)
        assert "not over" in message
        assert "seed" not in message
        # an illegal action is refused with the legal ones, and changes nothing
        refused = await client.call_tool("act", {"game_id": game_id, "action": "buy 7"})
        message = error_text(refused)
        for action in seen["legal_actions"]:
            assert action in message
        again = data(await client.call_tool("observe", {"game_id": game_id}))
        assert again["observation"] == seen["observation"]
        assert again["steps"] == seen["steps"]
        assert await play_out(client, game_id) > 0
        final = data(await client.call_tool("result", {"game_id": game_id}))
        assert final["winners"]
        assert len(final["scores"]) == len(final["ranks"]) == 3
        record = GameRecord.loads(final["record"])
        game = cardshop.replay_record(record)
        assert game.is_over
        assert list(game.result().scores) == final["scores"]
        assert game.seed == final["seed"]

    run(body)


def test_a_wuhltisch_game_to_its_end_over_stdio() -> None:
    async def body(client: ClientSession) -> None:
        opened = data(
            await client.call_tool(
                "new_game", {"variant": "wuhltisch", "players": 2, "seat": 0, "bots": ["greedy"]}
            )
        )
        game_id = opened["game_id"]
        assert opened["seats"] == ["client", "greedy"]
        assert await play_out(client, game_id) > 0
        final = data(await client.call_tool("result", {"game_id": game_id}))
        assert len(final["scores"]) == 2
        assert cardshop.replay_record(GameRecord.loads(final["record"])).is_over

    run(body)


def test_a_reglamentacja_game_to_its_end_over_stdio_building_offers_by_parts() -> None:
    """Reglamentacja's offers number thousands: the client builds them part by part
    (action_parts), always taking the last option, and plays the game to its end."""

    async def body(client: ClientSession) -> None:
        opened = data(
            await client.call_tool(
                "new_game", {"variant": "reglamentacja", "players": 3, "seat": 0}
            )
        )
        game_id = opened["game_id"]
        seen = data(await client.call_tool("observe", {"game_id": game_id}))
        over, built = seen["over"], 0
        while not over:
            action = seen["legal_actions"][0]
            if seen["parts"] and seen["legal_total"] > len(seen["legal_actions"]):
                chosen: list[int] = []
                while True:
                    answer = data(
                        await client.call_tool(
                            "action_parts", {"game_id": game_id, "chosen": chosen}
                        )
                    )
                    assert "seed" not in json.dumps(answer)
                    if answer["action"] is not None:
                        break
                    chosen = [*answer["chosen"], answer["next"]["options"][-1]["value"]]
                action, built = answer["action"], built + 1
            answer = data(await client.call_tool("act", {"game_id": game_id, "action": action}))
            assert answer["played"] == action
            over = answer["over"]
            if not over:
                seen = data(await client.call_tool("observe", {"game_id": game_id}))
        assert built > 0
        final = data(await client.call_tool("result", {"game_id": game_id}))
        assert len(final["scores"]) == 3
        game = cardshop.replay_record(GameRecord.loads(final["record"]))
        assert game.is_over
        assert list(game.result().scores) == final["scores"]

    run(body)


def test_bounds_and_refusals_over_stdio() -> None:
    async def body(client: ClientSession) -> None:
        async def refused(tool: str, arguments: dict[str, Any]) -> str:
            return error_text(await client.call_tool(tool, arguments))

        assert "no built-in variant" in await refused(
            "new_game", {"variant": "variants/klunker-en.yaml", "players": 3}
        )
        assert "3 to 5 players" in await refused(
            "new_game", {"variant": "klunker-en", "players": 9}
        )
        assert "seat" in await refused(
            "new_game", {"variant": "klunker-en", "players": 3, "seat": 3}
        )
        assert "unknown bot" in await refused(
            "new_game", {"variant": "klunker-en", "players": 3, "bots": ["nobody"]}
        )
        assert "bots at this server search at most 1000 iterations" in await refused(
            "new_game", {"variant": "klunker-en", "players": 3, "bots": ["ismcts:600s"]}
        )
        assert "no game" in await refused("observe", {"game_id": "nope"})
        assert "characters" in await refused("observe", {"game_id": "x" * 5000})
        first = data(await client.call_tool("new_game", {"variant": "klunker-en", "players": 3}))
        data(await client.call_tool("new_game", {"variant": "klunker-en", "players": 3}))
        assert "at most 2 games" in await refused(
            "new_game", {"variant": "klunker-en", "players": 3}
        )
        await play_out(client, first["game_id"])  # a finished game makes room
        data(await client.call_tool("new_game", {"variant": "klunker-en", "players": 3}))
        assert "no game" in await refused("observe", {"game_id": first["game_id"]})

    run(body, "--max-games", "2")


def test_without_the_extra_the_command_names_it() -> None:
    code = (
        "import sys; sys.modules['mcp'] = None\n"
        "from cardshop.cli import run\n"
        "sys.exit(run(['mcp']))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=GUARD
    )
    assert proc.returncode == 2, proc.stderr
    assert 'pip install "cardshop[mcp]"' in proc.stderr
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------- in-process


@pytest.mark.parametrize(("variant", "players"), [("klunker-en", 3), ("reglamentacja", 4)])
def test_observe_shows_the_seat_s_own_observation_only(variant: str, players: int) -> None:
    """observe gives the seat's own observation and text, never another seat's."""
    games = Games()
    game_id = games.new_game(variant, players, 1)["game_id"]
    opened = games.games[game_id]
    game = opened.game
    for _ in range(60):
        seen = games.observe(game_id)
        if seen["over"]:
            break
        assert seen["observation"] == plain(game.observation(1))
        assert seen["text"] == opened.resolved.family.render(game, 1)
        for other in (0, *range(2, players)):
            assert seen["observation"] != plain(game.observation(other))
        assert str(game.seed) not in json.dumps(seen)
        games.act(game_id, seen["legal_actions"][-1])


def test_a_klunker_text_shows_one_hand() -> None:
    games = Games()
    game_id = games.new_game("klunker-en", 4, 2)["game_id"]
    game = games.games[game_id].game
    kinds = plain(game.observation(2))["kinds"]
    for _ in range(30):
        seen = games.observe(game_id)
        if seen["over"]:
            break
        hands = [line for line in seen["text"].splitlines() if line.strip().startswith("hand")]
        assert len(hands) == 4
        shown = [line for line in hands if any(kind in line for kind in kinds)]
        assert len(shown) <= 1  # the seat's own (none when its hand is empty)
        games.act(game_id, seen["legal_actions"][0])


def test_action_parts_lists_exactly_the_legal_actions_and_refuses_what_is_not() -> None:
    """Every path through the options action_parts lists makes a legal action, and
    together they make every legal action once; bad parts change nothing."""
    games = Games()
    game_id = games.new_game("reglamentacja", 3, 0)["game_id"]
    game = games.games[game_id].game
    seen = games.observe(game_id)
    assert seen["parts"] is True
    made: list[str] = []
    stack: list[list[int]] = [[]]
    while stack:
        answer = games.action_parts(game_id, stack.pop())
        if answer["action"] is not None:
            made.append(answer["action"])
        else:
            stack.extend([*answer["chosen"], o["value"]] for o in answer["next"]["options"])
    assert sorted(made) == sorted(str(a) for a in game.legal_actions(0))
    before = game.to_json()
    for chosen, message in (
        ([9_999], "not legal here"),
        ([-1], "0..9999"),
        ([True], "whole number"),
        (["0"], "whole number"),
        ([0] * 65, "at most 64"),
    ):
        with pytest.raises(CardshopError, match=message):
            games.action_parts(game_id, chosen)
    with pytest.raises(CardshopError, match="list of option numbers"):
        games.action_parts(game_id, "0")  # type: ignore[arg-type]
    assert game.to_json() == before
    klunker = games.new_game("klunker-en", 3, 0)["game_id"]
    assert games.observe(klunker)["parts"] is False
    with pytest.raises(CardshopError, match="not built part by part"):
        games.action_parts(klunker, [])


def test_the_server_s_tools_in_process() -> None:
    """A Wühltisch tick: the client's action is played with the bots' of the same tick
    (one joint step); an unreadable one is a tool error that changes nothing."""
    games = Games(max_games=1)
    server = make_server(games=games)

    async def main() -> None:
        await server.call_tool("new_game", {"variant": "wuhltisch", "players": 3, "seat": 2})
        (game_id,) = games.games
        game = games.games[game_id].game
        seen = games.observe(game_id)
        assert seen["your_turn"]
        before = game.to_json()
        with pytest.raises(ToolError, match="Legal actions"):
            await server.call_tool("act", {"game_id": game_id, "action": "no such thing"})
        assert game.to_json() == before
        acting = set(game.acting)
        assert acting == {0, 1, 2}
        await server.call_tool("act", {"game_id": game_id, "action": seen["legal_actions"][0]})
        first = [move for move in game.moves if move.step == game.moves[0].step]
        assert {move.seat for move in first} == acting
        assert str(first[[m.seat for m in first].index(2)].action) == seen["legal_actions"][0]

    asyncio.run(asyncio.wait_for(main(), timeout=GUARD))
