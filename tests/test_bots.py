"""Bots and the sampling of hidden cards they search with (docs/bots.md)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardshop import Action, Game, GameStateError, SetupError, load_variant, new_game, parse_variant
from cardshop.bots import Bot, ISMCTSBot, RandomBot, bot_names, make_bot, register_bot
from cardshop.core import LegalActions
from cardshop.klunker import Observation, Phase
from cardshop.klunker import new_game as klunker_game
from cardshop.klunker.bots import GreedyBot, Heuristic
from cardshop.klunker.sampling import Determinizer, sample_game, sample_position, unseen_cards
from cardshop.simulation import play_game, simulate

VARIANTS = ("klunker-en", "klunker-es", "klunker-zh")


def advance(game: Game, rng: random.Random, steps: int) -> Game:
    """Play up to ``steps`` random actions (fewer if the game ends)."""
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def random_state(variant: str, players: int, seed: int, steps: int) -> Game:
    """A live Klunker game (klunker-zh: one game of its match, as a bot sees it)."""
    rng = random.Random(seed)
    game = advance(klunker_game(variant, players, seed=seed), rng, steps)
    if game.is_over:  # back off to a live state
        game = advance(klunker_game(variant, players, seed=seed), random.Random(seed), steps // 3)
    assert not game.is_over
    return game


states = st.builds(
    lambda v, p, seed, steps: (v, random_state(v, p, seed, steps)),
    st.sampled_from(VARIANTS),
    st.integers(3, 5),
    st.integers(0, 10_000),
    st.integers(0, 200),
)


def hidden_zones(game: Game, seat: int) -> dict[str, tuple[str, ...]]:
    """Kinds in the zones ``seat`` cannot see: other hands, every bank, the deck."""
    zones = game.zones()
    names = [f"hand:{s}" for s in range(game.players) if s != seat]
    names += [f"bank:{s}" for s in range(game.players)]
    out = {z: tuple(sorted(game.card_kind(c) for c in zones[z])) for z in names}
    out["deck"] = tuple(game.card_kind(c) for c in zones["deck"])
    return out


# --------------------------------------------------------------------- sampling


@given(states, st.integers(0, 2**32))
def test_a_sampled_game_looks_the_same_to_the_observing_seat(
    state: tuple[str, Game], seed: int
) -> None:
    variant, game = state
    var = load_variant(variant)
    rng = random.Random(seed)
    for seat in range(game.players):
        obs = game.observation(seat)
        sampled = sample_game(obs, var, rng)
        assert sampled.observation(seat) == obs
        sampler = Determinizer(obs, var, rng)
        sampler._base.legal_actions()  # a cached answer must not outlive a new deal
        quick = sampler.sample(rng)
        assert quick.observation(seat) == obs
        again = Game.from_position(quick.to_position(), var)
        assert quick.legal_actions() == again.legal_actions()
        if seat == game.current_player:
            assert sampled.legal_actions() == game.legal_actions()
            assert quick.legal_actions() == game.legal_actions()


@given(states)
def test_sampling_deals_exactly_the_unseen_cards(state: tuple[str, Game]) -> None:
    variant, game = state
    var = load_variant(variant)
    seat = game.current_player
    assert seat is not None
    obs = game.observation(seat)
    unseen = unseen_cards(obs, var)
    # The real game's hidden zones hold exactly the unseen cards ...
    real = [k for cards in hidden_zones(game, seat).values() for k in cards]
    pool = [k for k, c in zip(var.rules.kinds, unseen, strict=True) for _ in range(c)]
    assert sorted(real) == sorted(pool)
    # ... and so do a sampled game's, zone sizes kept.
    sampled = Determinizer(obs, var, random.Random(1)).sample(random.Random(2))
    fake = hidden_zones(sampled, seat)
    assert sorted(k for cards in fake.values() for k in cards) == sorted(real)
    assert {z: len(c) for z, c in fake.items()} == {
        z: len(c) for z, c in hidden_zones(game, seat).items()
    }


def test_samples_differ_and_spread_the_unseen_cards_evenly() -> None:
    var = load_variant("klunker-en")
    game = new_game(var, 4, seed=3)
    seat = game.current_player
    assert seat is not None
    obs = game.observation(seat)
    unseen = unseen_cards(obs, var)
    total = sum(unseen)
    sampler = Determinizer(obs, var, random.Random(0))
    rng = random.Random(1)
    other = (seat + 1) % 4
    n = 3000
    sums = [0] * len(unseen)
    seen_hands = set()
    for _ in range(n):
        hand = sampler.sample(rng).observation(other).hand
        seen_hands.add(hand)
        for i, c in enumerate(hand):
            sums[i] += c
    assert len(seen_hands) > 100  # the other hand really is dealt at random
    for i, count in enumerate(unseen):
        expected = 6 * count / total  # hypergeometric mean of 6 cards drawn from the unseen
        assert sums[i] / n == pytest.approx(expected, abs=0.08), var.rules.kinds[i]


def test_sample_position_is_a_valid_position_with_a_fresh_seed() -> None:
    var = load_variant("klunker-es")
    game = random_state("klunker-es", 6, seed=5, steps=40)
    obs = game.observation(2)
    pos1 = sample_position(obs, var, random.Random(1))
    pos2 = sample_position(obs, var, random.Random(2))
    assert pos1["seed"] != pos2["seed"]
    assert Game.from_position(pos1, var).observation(2) == obs
    assert pos1["seats"][2]["hand"] == Game.from_position(pos2, var).zone_counts("hand:2")


def test_sampling_rejects_an_observation_of_another_variant_or_a_finished_game() -> None:
    game = new_game("klunker-en", 3, seed=1)
    obs = game.observation(0)
    with pytest.raises(GameStateError, match="does not add up: 91 unseen cards for 88"):
        unseen_cards(obs, load_variant("klunker-es"))  # same kinds, other counts
    fewer_kinds = parse_variant(
        "family: klunker\nname: two-kinds\nplayers: {min: 3, max: 5}\n"
        "cards: {shoes: 47, diadem: 47}\n"
        "starting_cash: {3: 1, 4: 1, 5: 1}\nsteps: [fill, store, purchase, refill]\n"
        "sale: {payout: [4, 3]}\n"
    )
    with pytest.raises(GameStateError, match="kinds"):
        unseen_cards(obs, fewer_kinds)
    over = play_game("klunker-en", 3, [RandomBot(s) for s in range(3)], seed=2)
    with pytest.raises(GameStateError, match="over"):
        sample_position(over.observation(0), load_variant("klunker-en"), random.Random(0))


# ------------------------------------------------------------------ heuristic


def test_heuristic_sells_the_rulebook_example() -> None:
    """Safe Tongue Bob 2 + Ear Pendant 3, buying 2 + 2 more: the rows pay 2 then 3 and
    one Ear Pendant stays (the worked example of the rulebooks, SELL-3)."""
    var = load_variant("klunker-en")
    h = Heuristic(var.rules)
    k = var.rules.kind_index
    safe = [0] * len(var.rules.kinds)
    safe[k["tongue-bob"]], safe[k["ear-pendant"]] = 4, 5
    after, cash = h.settle(tuple(safe))
    assert cash == 5
    left = [0] * len(safe)
    left[k["ear-pendant"]] = 1
    assert after == tuple(left)


def test_heuristic_picks_the_better_order_of_sale() -> None:
    """Necklace 4 + Shoes 4 + Diadem 1: Necklace first pays 4 + 3, Shoes first 2 + 4."""
    var = load_variant("klunker-en")
    h = Heuristic(var.rules)
    k = var.rules.kind_index
    safe = [0] * len(var.rules.kinds)
    safe[k["necklace"]], safe[k["shoes"]], safe[k["diadem"]] = 4, 4, 1
    assert h.settle(tuple(safe))[1] == 7
    assert h.settle(tuple(safe), first=k["necklace"])[1] == 7
    assert h.settle(tuple(safe), first=k["shoes"])[1] == 6


def test_heuristic_a_new_kind_lowers_the_worth_of_the_other_rows() -> None:
    var = load_variant("klunker-en")
    h = Heuristic(var.rules)
    k = var.rules.kind_index

    def safe(**counts: int) -> tuple[int, ...]:
        return tuple(counts.get(kind.replace("-", "_"), 0) for kind in var.rules.kinds)

    shoes, diadem = safe(shoes=3), safe(diadem=1)
    assert h.potential(safe(shoes=3, diadem=1)) < h.potential(shoes) + h.potential(diadem)
    one_shoe = tuple(1 if i == k["shoes"] else 0 for i in range(7))
    one_diadem = tuple(1 if i == k["diadem"] else 0 for i in range(7))
    assert h.settle(safe(shoes=4)) == (safe(), 4)  # the only row: pays 4 (SELL-3)
    assert h.gain(shoes, one_shoe) == pytest.approx(4 - h.potential(shoes))
    assert h.gain(shoes, one_diadem) < h.gain(safe(shoes=2), one_shoe)
    one_monocle = tuple(1 if i == k["monocle"] else 0 for i in range(7))
    assert h.gain(safe(shoes=3, diadem=2), one_monocle) < 0  # a third kind costs more


# ----------------------------------------------------------------- positions


def sell_position() -> dict[str, Any]:
    """Seat 0 must choose the order of sale of Necklace and Shoes rows (SELL-6)."""
    return {
        "variant": "klunker-en",
        "phase": "sell",
        "turn": 0,
        "start_player": 1,
        "purchase_cards": [1, 2, 3, 4],
        "seats": [
            {"safe": {"necklace": 4, "shoes": 4, "diadem": 1}, "cash": 2, "hand": {"monocle": 2}},
            {"window": {"gold-tooth": 1}, "cash": 1, "hand": {"shoes": 3}},
            {"window": {"tongue-bob": 2}, "cash": 1, "hand": {"diadem": 3}},
            {"window": {"monocle": 1}, "cash": 1, "hand": {"gold-tooth": 2}},
        ],
    }


def buy_position() -> dict[str, Any]:
    """Seat 0 buys first; only seat 2's window (a Necklace) completes a row for it."""
    return {
        "variant": "klunker-en",
        "phase": "purchase",
        "turn": 0,
        "start_player": 0,
        "purchase_cards": [1, 2, 3, 4],
        "seats": [
            {"safe": {"necklace": 3}, "cash": 2, "hand": {"shoes": 1}},
            {"window": {"gold-tooth": 2, "diadem": 1}, "cash": 1, "hand": {"shoes": 2}},
            {"window": {"necklace": 1}, "cash": 1, "hand": {"diadem": 2}},
            {"window": {"monocle": 1, "shoes": 1}, "cash": 1, "safe": {"monocle": 2}},
        ],
    }


@pytest.mark.parametrize(
    ("make", "position", "best"),
    [
        (lambda v, s: GreedyBot(s, v), sell_position, "sell necklace"),
        (lambda v, s: GreedyBot(s, v), buy_position, "buy 2"),
        (lambda v, s: ISMCTSBot(v, iterations=60, seed=s), sell_position, "sell necklace"),
        (lambda v, s: ISMCTSBot(v, iterations=60, seed=s), buy_position, "buy 2"),
    ],
    ids=["greedy-sell", "greedy-buy", "ismcts-sell", "ismcts-buy"],
)
def test_bots_find_the_clearly_best_action(make: Any, position: Any, best: str) -> None:
    game = Game.from_position(position())
    seat = game.current_player
    assert seat is not None
    legal = game.legal_actions()
    assert len(legal) > 1
    for seed in range(3):
        bot = make(game.variant, seed)
        assert str(bot.choose(game.observation(seat), legal)) == best


# ---------------------------------------------------------------- behaviour


class Spy:
    """A bot that keeps what it was given."""

    name = "spy"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.calls: list[tuple[Any, ...]] = []

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        self.calls.append((observation, legal_actions))
        return self.rng.choice(legal_actions)


def _values(obj: Any) -> list[Any]:
    if isinstance(obj, LegalActions):
        return [*obj, obj.structure]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    if isinstance(obj, (tuple, list)):
        return list(obj)
    return []


def test_a_bot_is_given_the_observation_and_legal_actions_only() -> None:
    spies = [Spy(s) for s in range(4)]
    play_game("klunker-en", 4, spies, seed=8)
    allowed = (int, str, Action, Phase, type(None))
    for seat, spy in enumerate(spies):
        assert spy.calls
        for obs, legal in spy.calls:
            assert isinstance(obs, Observation)
            assert obs.seat == seat == obs.current_player
            # Nothing but plain values is reachable from what a bot gets: no game.
            todo: list[Any] = [obs, legal]
            while todo:
                item = todo.pop()
                assert isinstance(item, (*allowed, Observation, tuple, list, LegalActions)), type(
                    item
                )
                todo.extend(_values(item))


@pytest.mark.parametrize("name", ["random", "greedy", "ismcts:4"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_bot_plays_legal_actions_to_the_end(name: str, variant: str) -> None:
    var = load_variant(variant)
    players = var.players.max
    # ISMCTS is slow: it plays one seat, random bots the others.
    names = [name] * players if not name.startswith("ismcts") else [name] + ["random"] * 5
    bots = [make_bot(names[s], var, seed=s) for s in range(players)]
    game = play_game(var, players, bots, seed=13)  # apply() rejects any illegal choice
    assert game.is_over
    assert game.result().termination.value == "finished"


def test_same_seed_same_choices_other_seed_other_choices() -> None:
    def history(name: str, seed: int) -> list[Action]:
        bots = [make_bot(name, "klunker-en", seed=seed + s) for s in range(3)]
        return play_game("klunker-en", 3, bots, seed=21).history

    for name in ("random", "greedy"):
        assert history(name, 1) == history(name, 1), name
    assert history("random", 1) != history("random", 2)
    # ISMCTS, decision by decision (a whole game of it is slow):
    game = new_game("klunker-en", 4, seed=2)
    rng = random.Random(0)
    checked = 0
    while not game.is_over and game.round < 2:
        seat = game.current_player
        assert seat is not None
        obs, legal = game.observation(seat), game.legal_actions()
        if len(legal) > 2:
            first, again = (ISMCTSBot("klunker-en", 12, seed=5).choose(obs, legal) for _ in "ab")
            assert first == again
            checked += 1
        game.apply(rng.choice(legal))
    assert checked > 5
    visits = [
        tuple(
            sorted(
                (seat, str(a), e.visits)
                for seat, edges in ISMCTSBot("klunker-en", 12, seed=s)
                .search(new_game("klunker-en", 4, seed=4).observation(1))
                .edges.items()
                for a, e in edges.items()
            )
        )
        for s in (1, 1, 2, 3)
    ]
    assert visits[0] == visits[1]
    assert len(set(visits[1:])) > 1


def test_greedy_beats_random() -> None:
    sim = simulate("klunker-en", 4, 40, ["greedy", "random", "random", "random"], 5, workers=1)
    by = {b.bot: b for b in sim.summary()}
    greedy, rnd = by["greedy"], by["random"]
    assert greedy.win_low > 0.25  # above a fair share, with confidence
    assert greedy.mean_score - greedy.score_ci > rnd.mean_score + rnd.score_ci


def test_ismcts_budgets() -> None:
    obs_game = random_state("klunker-en", 4, seed=4, steps=10)
    seat = obs_game.current_player
    assert seat is not None
    obs, legal = obs_game.observation(seat), obs_game.legal_actions()
    timed = ISMCTSBot("klunker-en", iterations=None, time_limit=0.02, seed=1)
    assert timed.choose(obs, legal) in legal
    assert timed.name == "ismcts:0.02s"
    root = ISMCTSBot("klunker-en", iterations=25, seed=1).search(obs)
    assert sum(edge.visits for edge in root.edges[seat].values()) == 25
    assert set(root.edges[seat]) <= set(legal)
    with pytest.raises(SetupError, match="budget"):
        ISMCTSBot("klunker-en", iterations=None)
    with pytest.raises(SetupError, match=r"1\.\.100,000, not 0"):
        ISMCTSBot("klunker-en", iterations=0)
    with pytest.raises(SetupError, match="rollout"):
        ISMCTSBot("klunker-en", rollout="clever")  # type: ignore[arg-type]


def _root_visits(bot: ISMCTSBot, obs: Any) -> list[tuple[int, str, int]]:
    return sorted(
        (seat, str(a), e.visits)
        for seat, edges in bot.search(obs).edges.items()
        for a, e in edges.items()
    )


def test_a_candidates_hook_limits_the_tree_to_its_candidates() -> None:
    from cardshop.core.family import (
        CandidatePolicy,
        SearchHooks,
    )
    from cardshop.core.registry import (
        get_family,
        register_family,
    )

    family = get_family("klunker")
    hooks = family.search or SearchHooks()
    game = random_state("klunker-en", 4, seed=7, steps=12)
    seat = game.current_player
    assert seat is not None
    obs, legal = game.observation(seat), game.legal_actions()
    assert len(legal) > 2
    calls: list[int] = []

    def some(variant: Any, seed: int) -> CandidatePolicy:
        def candidates(g: Game, s: int) -> Sequence[Action] | None:
            calls.append(s)
            return g.legal_actions(s)[-2:]  # the last two, legal in every sample

        return candidates

    def none(variant: Any, seed: int) -> CandidatePolicy:
        return lambda g, s: None

    plain = _root_visits(ISMCTSBot("klunker-en", 30, seed=4), obs)
    try:
        register_family(
            dataclasses.replace(family, search=dataclasses.replace(hooks, candidates=none)),
            replace=True,
        )
        # None means every legal action: the search is the one without the hook.
        assert _root_visits(ISMCTSBot("klunker-en", 30, seed=4), obs) == plain
        register_family(
            dataclasses.replace(family, search=dataclasses.replace(hooks, candidates=some)),
            replace=True,
        )
        bot = ISMCTSBot("klunker-en", 30, seed=4)
        root = bot.search(obs)
        assert calls
        assert set(root.edges[seat]) == set(legal[-2:])
        assert sum(e.visits for e in root.edges[seat].values()) == 30
        assert bot.choose(obs, legal) in legal[-2:]
    finally:
        register_family(family, replace=True)
    assert get_family("klunker") is family


def test_a_single_legal_action_is_played_without_search() -> None:
    game = Game.from_position(
        {"variant": "klunker-en", "phase": "store", "seats": [{}, {"hand": {"shoes": 1}}, {}]}
    )
    assert game.legal_actions() == [Action("pass")]
    # The largest budget: a search would take minutes.
    bot = ISMCTSBot(game.variant, iterations=100_000, seed=0)
    assert bot.choose(game.observation(0), game.legal_actions()) == Action("pass")


# ------------------------------------------------------------------ registry


def test_make_bot_by_name_and_option() -> None:
    assert isinstance(make_bot("random", "klunker-en"), RandomBot)
    assert isinstance(make_bot("greedy", "klunker-es"), GreedyBot)
    bot = make_bot("ISMCTS:40", "klunker-en", seed=3)
    assert isinstance(bot, ISMCTSBot)
    assert (bot.iterations, bot.time_limit, bot.name) == (40, None, "ismcts:40")
    both = make_bot("ismcts:40:0.5s", "klunker-en")
    assert isinstance(both, ISMCTSBot)
    assert (both.iterations, both.time_limit) == (40, 0.5)
    for each in (RandomBot(), GreedyBot(), bot):
        assert isinstance(each, Bot)
    with pytest.raises(
        SetupError, match="unknown bot 'clever' for klunker-en; bots are: baseline, greedy"
    ):
        make_bot("clever", "klunker-en")
    with pytest.raises(SetupError, match="bad ISMCTS budget"):
        make_bot("ismcts:lots", "klunker-en")
    with pytest.raises(SetupError, match="takes no option"):
        make_bot("greedy:3", "klunker-en")


def test_register_a_bot_of_your_own() -> None:
    class FirstLegal:
        name = "first-legal"

        def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
            return legal_actions[0]

    register_bot("first-legal", lambda variant, seed, option: FirstLegal())
    assert "first-legal" in bot_names()
    sim = simulate("klunker-en", 3, 2, "first-legal,random,random", seed=1, workers=1)
    assert all(o.bots[0] == "first-legal" for o in sim)
    game = play_game("klunker-en", 3, [FirstLegal(), RandomBot(1), RandomBot(2)], seed=1)
    assert game.is_over
    with pytest.raises(SetupError, match="must be non-empty"):
        register_bot("a:b", lambda variant, seed, option: FirstLegal())
