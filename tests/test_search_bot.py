"""The search bots beside ``ismcts``: determinized flat Monte Carlo (``pimc``) and
root-parallel ISMCTS (``rootpar``), docs/bots.md."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

import cardshop
from cardshop import Game, SetupError, new_game
from cardshop.bots import MAX_ITERATIONS, MAX_TREES, PIMCBot, RootParallelBot, make_bot
from cardshop.simulation import simulate

FAMILY_VARIANTS = (
    ("klunker-en", 3),
    ("wuhltisch", 2),
    ("reglamentacja", 3),
)
"""A built-in variant of each built-in family, at its smallest player count."""


def play(game: Game, bots: list[Any], check: bool = True) -> list[str]:
    """Play ``game`` to its end with one bot per seat; every choice's text, in order.

    With ``check``, every choice must be one of the acting seat's legal actions."""
    chosen: list[str] = []
    while not game.is_over:
        acting = game.acting
        joint = {}
        for seat in acting:
            legal = game.legal_actions(seat)
            action = bots[seat].choose(game.observation(seat), legal)
            if check:
                assert action in legal, (bots[seat].name, str(action))
            joint[seat] = action
            chosen.append(str(action))
        if len(acting) == 1:
            game.apply(joint[acting[0]], acting[0])
        else:
            game.apply_joint(joint)
    return chosen


# ----------------------------------------------------------------- names and options


def test_plain_name_is_the_default_budget() -> None:
    bot = make_bot("pimc", "klunker-en", seed=1)
    assert isinstance(bot, PIMCBot)
    assert bot.playouts == 100
    assert bot.name == "pimc:100"


@pytest.mark.parametrize(
    ("spec", "name", "margin"),
    [
        ("pimc:1", "pimc:1", 0.0),
        ("pimc:37", "pimc:37", 0.0),
        (f"pimc:{MAX_ITERATIONS}", f"pimc:{MAX_ITERATIONS}", 0.0),
        ("PIMC:5", "pimc:5", 0.0),
        ("pimc:5:0", "pimc:5", 0.0),
        ("pimc:50:0.02", "pimc:50:0.02", 0.02),
        ("pimc:50:.5", "pimc:50:0.5", 0.5),
        ("pimc:50:1", "pimc:50:1", 1.0),
        ("pimc:50:0.000001", "pimc:50:0.000001", 0.000001),
        ("pimc:50:greedy", "pimc:50:greedy", 0.0),
        ("pimc:50:0.02:GREEDY", "pimc:50:0.02:greedy", 0.02),
        ("pimc:50:0:random", "pimc:50:random", 0.0),
        ("pimc:50:h2:greedy", "pimc:50:h2:greedy", 0.0),
        ("pimc:50:0.02:H3", "pimc:50:0.02:h3", 0.02),
        ("pimc:50:h1", "pimc:50", 0.0),
    ],
)
def test_a_name_reads_back(spec: str, name: str, margin: float) -> None:
    bot = make_bot(spec, "klunker-en", seed=0)
    assert isinstance(bot, PIMCBot)
    assert bot.name == name
    assert bot.margin == margin
    again = make_bot(bot.name, "klunker-en", seed=0)
    assert isinstance(again, PIMCBot)
    assert (again.name, again.margin, again.playouts) == (bot.name, bot.margin, bot.playouts)
    last = name.rsplit(":", 1)[1]
    assert again.rollout == bot.rollout == (f"bot:{last}" if last.isalpha() else "family")
    horizon = next((int(p[1:]) for p in name.split(":") if p.startswith("h")), 1)
    assert again.horizon == bot.horizon == horizon


def test_a_margin_given_to_the_class_reads_back() -> None:
    bot = PIMCBot("klunker-en", playouts=9, margin=0.0123456789)
    again = make_bot(bot.name, "klunker-en")
    assert isinstance(again, PIMCBot)
    assert again.margin == bot.margin == 0.012346


@pytest.mark.parametrize(
    "spec",
    [
        "pimc:0",
        f"pimc:{MAX_ITERATIONS + 1}",
        "pimc:1000000000",
        "pimc:-3",
        "pimc:1.5",
        "pimc:0.5s",
        "pimc:nan",
        "pimc:1e3",
        "pimc:10:20",
        "pimc:10:1.5",
        "pimc:10:-0.1",
        "pimc:10:nan",
        "pimc:10:1e-3",
        "pimc:10:0.0000001",
        "pimc:10:",
        "pimc:10:0.1:2",
        "pimc:10:h0",
        "pimc:10:h2:h2",
        "pimc:10:greedy:h2",
        "pimc:10:h2:0.1",
        "pimc:h2",
        "pimc: 5",
    ],
)
def test_bad_options_are_refused_with_the_bounds(spec: str) -> None:
    with pytest.raises(SetupError, match=r"pimc:.*1\.\.100,000.*margin 0 to 1"):
        make_bot(spec, "klunker-en", seed=0)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("playouts", 0),
        ("playouts", True),
        ("playouts", 2.0),
        ("playouts", MAX_ITERATIONS + 1),
        ("horizon", 0),
        ("max_actions", 1),
        ("max_actions", 10_000),
        ("max_playout", 0),
        ("margin", -0.1),
        ("margin", 1.5),
        ("margin", math.nan),
        ("margin", True),
        ("rollout", "greedy"),
        ("rollout", "bot:"),
        ("rollout", "bot:ismcts"),
        ("rollout", "bot:pimc"),
        ("rollout", "bot:greedy:2"),
        ("rollout", 5),
    ],
)
def test_class_options_are_bounded(option: str, value: object) -> None:
    with pytest.raises(SetupError, match=f"PIMCBot {option}"):
        PIMCBot("klunker-en", **{option: value})


@pytest.mark.parametrize("spec", ["pimc:10:ismcts", "pimc:10:rootpar", "pimc:10:nosuchbot"])
def test_a_playout_bot_must_be_a_bot_of_the_variant_and_no_search(spec: str) -> None:
    with pytest.raises(SetupError, match=r"pimc:.*margin 0 to 1.*playout bot is one of .*greedy"):
        make_bot(spec, "klunker-en", seed=0)


def test_an_unknown_playout_bot_given_to_the_class_is_refused() -> None:
    with pytest.raises(SetupError, match="unknown bot 'nosuchbot'"):
        PIMCBot("klunker-en", rollout="bot:nosuchbot")


class CountingBot:
    """A bot that plays the first legal action and records what it was shown."""

    name = "counting"

    def __init__(self, calls: list[tuple[int, int]]) -> None:
        self.calls = calls

    def choose(self, observation: Any, legal_actions: Any) -> Any:
        self.calls.append((observation.seat, len(legal_actions)))
        return legal_actions[0]


@pytest.mark.parametrize("kind", ["pimc", "ismcts"])
def test_a_playout_bot_plays_the_playouts(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, int]] = []
    monkeypatch.setitem(cardshop.bots.BOTS, "counting", lambda _v, _s, _o: CountingBot(calls))
    game = new_game("klunker-en", players=3, seed=4)
    while len(game.legal_actions(game.acting[0])) < 2:
        seat = game.acting[0]
        game.apply(game.legal_actions(seat)[0], seat)
    seat = game.acting[0]
    legal = game.legal_actions(seat)
    bot: Any
    if kind == "pimc":
        bot = PIMCBot(game.variant, playouts=8, seed=1, rollout="bot:counting")
    else:
        bot = cardshop.bots.ISMCTSBot(game.variant, iterations=8, seed=1, rollout="bot:counting")
    assert bot.rollout == "bot:counting"
    assert bot.choose(game.observation(seat), legal) in legal
    assert calls, "the playouts never asked the playout bot"
    assert all(0 <= s < 3 and n >= 2 for s, n in calls)  # a forced move is not asked
    assert len({s for s, _ in calls}) >= 2  # every seat's moves come from the bot


def test_a_family_without_a_sampler_is_refused() -> None:
    import tinyfamily

    tinyfamily.register()
    assert cardshop.families()[tinyfamily.NAME].sampler is None
    for spec in ("pimc:5", "rootpar:2x5"):
        with pytest.raises(SetupError, match="no sampler"):
            make_bot(spec, "tiny-seq", seed=0)


# ------------------------------------------------------------------------- rootpar


def test_rootpar_default_and_names() -> None:
    bot = make_bot("rootpar", "klunker-en", seed=1)
    assert isinstance(bot, RootParallelBot)
    assert (bot.trees, bot.iterations, bot.name) == (4, 100, "rootpar:4x100")
    for spec in ("rootpar:1x1", "ROOTPAR:3x7", f"rootpar:{MAX_TREES}x10", "rootpar:2x50000"):
        made = make_bot(spec, "klunker-en", seed=0)
        assert made.name == spec.lower()
        assert make_bot(made.name, "klunker-en").name == made.name


@pytest.mark.parametrize(
    "spec",
    [
        "rootpar:0x10",
        f"rootpar:{MAX_TREES + 1}x10",
        "rootpar:2x0",
        "rootpar:2x50001",
        "rootpar:4",
        "rootpar:4x",
        "rootpar:x4",
        "rootpar:4X100",
        "rootpar:4x100:1s",
        "rootpar:4x1e3",
    ],
)
def test_rootpar_bad_budgets_are_refused_with_the_bounds(spec: str) -> None:
    with pytest.raises(SetupError, match=rf"rootpar:.*trees 1\.\.{MAX_TREES}.*100,000"):
        make_bot(spec, "klunker-en", seed=0)


@pytest.mark.parametrize(
    ("trees", "iterations"), [(0, 5), (MAX_TREES + 1, 5), (2, 0), (True, 5), (2, 1.0), (4, 30_000)]
)
def test_rootpar_class_options_are_bounded(trees: Any, iterations: Any) -> None:
    with pytest.raises(SetupError, match="RootParallelBot"):
        RootParallelBot("klunker-en", trees=trees, iterations=iterations)


def test_rootpar_votes_are_the_trees_visits_summed() -> None:
    game = new_game("klunker-en", players=3, seed=5)
    seat = game.acting[0]
    observation, legal = game.observation(seat), game.legal_actions(seat)
    bot = RootParallelBot(game.variant, trees=3, iterations=12, seed=2)
    votes = bot.votes(observation)
    assert sum(votes.values()) == 3 * 12
    assert set(votes) <= set(legal)
    again = RootParallelBot(game.variant, trees=3, iterations=12, seed=2)
    assert again.choose(observation, legal) == max(legal, key=lambda a: (votes[a], -legal.index(a)))


# ------------------------------------------------------------ reproducible and legal


@pytest.mark.parametrize(("variant", "players"), FAMILY_VARIANTS)
@pytest.mark.parametrize("spec", ["pimc:3", "rootpar:2x3", "pimc:3:greedy"])
def test_same_seed_same_choices(variant: str, players: int, spec: str) -> None:
    def choices(seed: int) -> list[str]:
        game = new_game(variant, players=players, seed=11)
        bots = [make_bot(spec, game.variant, seed=seed + s) for s in range(players)]
        out: list[str] = []
        for _ in range(40):  # the first decisions of the game
            if game.is_over:
                break
            acting = game.acting
            joint = {s: bots[s].choose(game.observation(s), game.legal_actions(s)) for s in acting}
            out += [str(joint[s]) for s in acting]
            if len(acting) == 1:
                game.apply(joint[acting[0]], acting[0])
            else:
                game.apply_joint(joint)
        return out

    first = choices(5)
    assert first == choices(5)
    assert len(first) >= 20


@pytest.mark.parametrize(("variant", "players"), FAMILY_VARIANTS)
@pytest.mark.parametrize("spec", ["pimc:2", "rootpar:2x2"])
def test_every_choice_is_legal_through_a_whole_game(variant: str, players: int, spec: str) -> None:
    game = new_game(variant, players=players, seed=3)
    others = "greedy" if variant == "wuhltisch" else "random"
    bots: list[Any] = [make_bot(spec, game.variant, seed=1)]
    bots += [make_bot(others, game.variant, seed=s) for s in range(1, players)]
    chosen = play(game, bots)
    assert game.is_over
    assert chosen


@pytest.mark.parametrize(("variant", "players"), FAMILY_VARIANTS)
@pytest.mark.parametrize("spec", ["pimc:2", "rootpar:2x2", "pimc:2:greedy"])
def test_plays_whole_games_through_simulate(variant: str, players: int, spec: str) -> None:
    others = "greedy" if variant == "wuhltisch" else "random"
    result = simulate(
        variant,
        players,
        2,
        bots=[spec] + [others] * (players - 1),
        seed=4,
        rotate=True,
        workers=1,
    )
    assert len(result) == 2
    names = {b.bot for b in result.summary()}
    assert spec in names


def test_the_ranking_covers_legal_actions_only() -> None:
    game = new_game("reglamentacja", players=3, seed=2)
    bot = PIMCBot(game.variant, playouts=30, seed=0)
    rng = random.Random(0)
    ranked_turns = 0
    while not game.is_over and ranked_turns < 6:
        seat = game.acting[0]
        legal = game.legal_actions(seat)
        if len(legal) > 1:
            ranked = bot.rank(game.observation(seat), legal)
            assert ranked
            assert all(a in legal for a, _, _ in ranked)
            assert len({a for a, _, _ in ranked}) == len(ranked)
            assert all(0.0 <= mean <= 1.0 and n >= 1 for _, mean, n in ranked)
            ranked_turns += 1
        game.apply(rng.choice(legal), seat)
    assert ranked_turns == 6


# -------------------------------------------------------------------------- strength


def test_beats_random_players_at_a_small_budget() -> None:
    """An honest, cheap check: one pimc seat against two random seats wins more than
    its fair share (a third), the whole 95% interval above it."""
    result = simulate(
        "klunker-en",
        3,
        24,
        bots=["pimc:10", "random", "random"],
        seed=7,
        rotate=True,
        workers=1,
    )
    mine = next(b for b in result.summary() if b.bot == "pimc:10")
    assert mine.seats == 24
    assert mine.win_low > 1 / 3, mine


def test_long_lists_are_cut_to_max_actions() -> None:
    game = new_game("reglamentacja", players=3, seed=2)
    rng = random.Random(1)
    while len(game.legal_actions(game.acting[0])) <= 100:  # an offer turn
        game.apply(rng.choice(game.legal_actions(game.acting[0])), game.acting[0])
    seat = game.acting[0]
    legal = game.legal_actions(seat)
    for candidates in (True, False):
        # One playout: the search stops after its first round, which has every root action.
        bot = PIMCBot(game.variant, playouts=1, seed=0, max_actions=5)
        if not candidates:
            bot._candidates = None  # as for a family without the hook
        ranked = bot.rank(game.observation(seat), legal)
        if candidates:
            assert 2 <= len(ranked) <= 5
        else:
            assert len(ranked) == 5
        assert len({a for a, _, _ in ranked}) == len(ranked)
        assert all(a in legal for a, _, _ in ranked)
