"""Computer players: a protocol for bots, three built-in bots and a registry by name.

A bot is shown only what its seat may know, by construction: ``choose`` receives the
seat's :class:`~cardshop.Observation` and the legal actions, never the game::

    bot = cardshop.bots.make_bot("greedy", "klunker-en", seed=1)
    action = bot.choose(game.observation(seat), game.legal_actions())

Built-in bots (docs/bots.md):

* :class:`RandomBot` picks uniformly among the legal actions;
* :class:`GreedyBot` looks one action ahead with a documented heuristic (the sale
  value of its safe, how much its window is worth to the opponents, cash);
* :class:`ISMCTSBot` runs information-set Monte Carlo tree search: every iteration
  deals the hidden cards at random, consistently with the observation
  (:mod:`cardshop.klunker.sampling`), and walks one shared tree.

Every bot is seeded and never touches the global ``random`` module, so a game
played by bots is reproducible from its seeds.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from cardshop._core import Action, Seat
from cardshop._errors import SetupError
from cardshop._loader import load_variant
from cardshop.klunker.game import Game, Observation, Phase
from cardshop.klunker.sampling import Determinizer
from cardshop.klunker.variant import Rules, Variant

__all__ = [
    "BOTS",
    "Bot",
    "BotFactory",
    "GreedyBot",
    "ISMCTSBot",
    "RandomBot",
    "bot_names",
    "make_bot",
    "register_bot",
]


@runtime_checkable
class Bot(Protocol):
    """What a computer player offers: a name and a choice among legal actions.

    ``choose`` gets what the seat to act may know (its observation) and the legal
    actions, and returns one of those actions. Write your own by giving a class
    these two members; :func:`register_bot` makes it available by name to
    :func:`make_bot`, ``cardshop.simulate`` and the command line.
    """

    name: str

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action: ...


# --------------------------------------------------------------------------- random


class RandomBot:
    """Picks one of the legal actions uniformly at random (seeded)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        return self._rng.choice(legal_actions)

    def __repr__(self) -> str:
        return "RandomBot()"


# ------------------------------------------------------------------------ heuristic

Counts = tuple[int, ...]

PARTIAL_WEIGHT = 0.6
"""How much an incomplete row counts, as a share of what it would pay if sold now."""


class Heuristic:
    """The sale worth of safes under one variant's rules, with memos (safes repeat a lot).

    * :meth:`potential` -- what a safe's incomplete rows are worth in cash: each
      counts ``PARTIAL_WEIGHT x (cards / set size) x payout``, with the payout of a
      row sold while the safe holds its present number of rows (SELL-3, SELL-5). A
      new kind in the safe thus lowers the worth of every other row.
    * :meth:`settle` -- sell the complete rows in the best order: the one that earns
      most, then leaves the most valuable safe (SELL-2..SELL-6).
    * :meth:`gain` -- cash earned plus the change of potential when cards go in.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.size = rules.set_size
        k = len(rules.kinds)
        most = rules.n_cards // self.size + 2
        self._pay = [[rules.pay_for(kind, rows) for rows in range(most)] for kind in range(k)]
        self._potential: dict[Counts, float] = {}
        self._settle: dict[tuple[Counts, int], tuple[Counts, int]] = {}
        self._gain: dict[tuple[Counts, Counts, int], float] = {}

    MEMO_LIMIT = 500_000
    """Memos are emptied when they grow past this many entries (bounded memory)."""

    def _trim(self) -> None:
        if len(self._gain) > self.MEMO_LIMIT or len(self._settle) > self.MEMO_LIMIT:
            self._gain.clear()
            self._settle.clear()
            self._potential.clear()

    def _rows(self, safe: Counts) -> int:
        size = self.size
        return sum((c + size - 1) // size for c in safe)

    def potential(self, safe: Counts) -> float:
        """The cash worth of the safe's incomplete rows."""
        value = self._potential.get(safe)
        if value is None:
            size = self.size
            rows = min(self._rows(safe), len(self._pay[0]) - 1)
            total = 0.0
            for kind, c in enumerate(safe):
                part = c % size
                if part:
                    total += part / size * self._pay[kind][rows]
            value = self._potential[safe] = PARTIAL_WEIGHT * total
        return value

    def settle(self, safe: Counts, first: int = -1) -> tuple[Counts, int]:
        """(safe after, cash earned) selling complete rows best first; ``first`` forced."""
        key = (safe, first)
        hit = self._settle.get(key)
        if hit is not None:
            return hit
        size = self.size
        full = [kind for kind, c in enumerate(safe) if c >= size]
        if not full:
            out: tuple[Counts, int] = (safe, 0)
        else:
            best: tuple[float, Counts, int] | None = None
            rows = min(self._rows(safe), len(self._pay[0]) - 1)
            for kind in [first] if first >= 0 else full:
                pay = self._pay[kind][rows]
                after = list(safe)
                after[kind] -= size
                rest, more = self.settle(tuple(after))
                score = pay + more + self.potential(rest)
                if best is None or score > best[0]:
                    best = (score, rest, pay + more)
            assert best is not None
            out = (best[1], best[2])
        self._settle[key] = out
        return out

    def gain(self, safe: Counts, cards: Counts, first: int = -1) -> float:
        """Cash earned plus the change of potential when ``cards`` go into ``safe``."""
        key = (safe, cards, first)
        value = self._gain.get(key)
        if value is None:
            self._trim()
            after, cash = self.settle(_add(safe, cards), first)
            value = self._gain[key] = cash + self.potential(after) - self.potential(safe)
        return value


_HEURISTICS: dict[str, Heuristic] = {}


def heuristic(rules: Rules) -> Heuristic:
    """The shared :class:`Heuristic` of a variant's rules (one per process)."""
    h = _HEURISTICS.get(rules.content_hash)
    if h is None:
        h = _HEURISTICS[rules.content_hash] = Heuristic(rules)
    return h


def _add(a: Counts, b: Counts) -> Counts:
    return tuple([x + y for x, y in zip(a, b, strict=True)])


def _one(kinds: int, kind: int) -> Counts:
    return tuple([1 if i == kind else 0 for i in range(kinds)])


class GreedyBot:
    """One action of lookahead with a fixed heuristic (docs/bots.md).

    The worth of a safe is its cash to come: complete rows are sold in the best
    order, and incomplete rows count a share of their payout (:class:`Heuristic`).
    By phase:

    * **purchase** -- buy the window with the highest gain (cash from sales plus the
      safe's change of worth, minus the price and a share of the price for helping
      an opponent); decline when that is legal and nothing gains;
    * **sell** -- sell first the row that leaves the most;
    * **store** -- store the hand card with the highest gain if it beats the worth
      of passing now (half the best purchase on offer, less for later purchase cards);
    * **fill** -- with an empty window, place the card that is worth least to the
      opponents who could buy it and to the bot itself; then stop (``done``).

    Ties are broken at random with the bot's seeded generator. ``variant`` gives the
    rules (payouts, set size, price); by default those of ``klunker-en``.
    """

    name = "greedy"

    def __init__(self, seed: int = 0, variant: Variant | str | Path | None = None) -> None:
        self._rng = random.Random(seed)
        self.variant = load_variant(variant if variant is not None else "klunker-en")
        self.rules = self.variant.rules
        self.heuristic = heuristic(self.rules)

    def __repr__(self) -> str:
        return f"GreedyBot(variant={self.variant.name!r})"

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]
        scores = [self.score(observation, a) for a in legal_actions]
        best = max(scores)
        top = [a for a, s in zip(legal_actions, scores, strict=True) if s >= best - 1e-9]
        return top[0] if len(top) == 1 else self._rng.choice(top)

    def _buy_gain(self, obs: Observation, buyer: Seat, owner: Seat) -> float:
        rules = self.rules
        price = 0 if owner == buyer else min(rules.price, obs.cash[buyer])
        value = self.heuristic.gain(obs.safes[buyer], obs.windows[owner]) - price
        if price and obs.players > 1:
            value -= price / (obs.players - 1)  # the price helps one opponent
        return value

    def score(self, obs: Observation, action: Action) -> float:
        """The heuristic worth of ``action`` for the seat to act (higher is better)."""
        rules = self.rules
        me = obs.seat
        verb, arg = action
        k = len(obs.kinds)
        if verb == "buy":
            assert isinstance(arg, int)
            return self._buy_gain(obs, me, arg)
        if verb == "decline":
            return 0.0
        if verb == "sell":
            assert isinstance(arg, str)
            first = rules.kind_index[arg]
            after, cash = self.heuristic.settle(obs.safes[me], first)
            return cash + self.heuristic.potential(after)
        if verb == "store":
            assert isinstance(arg, str)
            return self.heuristic.gain(obs.safes[me], _one(k, rules.kind_index[arg]))
        if verb == "pass":
            on_offer = [
                self._buy_gain(obs, me, w) for w in range(obs.players) if any(obs.windows[w])
            ]
            best = max(on_offer, default=0.0)
            taken = sum(1 for c in obs.purchase_cards if c)
            return 0.5 * max(best, 0.0) * 0.8**taken
        if verb == "window":
            assert isinstance(arg, str)
            if any(obs.windows[me]):
                return -100.0  # one card is enough: stop filling
            card = _one(k, rules.kind_index[arg])
            window = _add(obs.windows[me], card)
            to_others = max(
                (self.heuristic.gain(obs.safes[o], window) for o in range(obs.players) if o != me),
                default=0.0,
            )
            to_me = max(0.0, self.heuristic.gain(obs.safes[me], card))
            return -(to_others + to_me)
        if verb == "done":
            return 0.0
        return -1000.0  # an action this heuristic does not know: last resort


# --------------------------------------------------------------------------- ISMCTS


class _Node:
    """A node of the search tree: reached by ``action``, chosen by seat ``player``."""

    __slots__ = ("action", "avail", "children", "player", "total", "visits")

    def __init__(self, action: Action | None, player: Seat) -> None:
        self.action = action
        self.player = player
        self.children: dict[Action, _Node] = {}
        self.visits = 0
        self.avail = 1
        self.total = 0.0


def _values(game: Game) -> list[float]:
    """Each seat's worth in a (sampled) game: cash plus the potential of its safe."""
    obs = game.observation(0)
    h = heuristic(game.rules)
    return [obs.cash[s] + h.potential(obs.safes[s]) for s in range(game.players)]


def _rewards(game: Game) -> list[float]:
    """Rewards in [0, 1] per seat: win share at the end, else a squashed lead."""
    n = game.players
    if game.is_over:
        result = game.result()
        share = 1.0 / len(result.winners)
        values = [float(x) for x in result.scores]
        win = [share if s in result.winners else 0.0 for s in range(n)]
    else:
        values = _values(game)
        win = None
    out = []
    for s in range(n):
        lead = values[s] - max(values[o] for o in range(n) if o != s)
        margin = 0.5 + 0.5 * math.tanh(lead / 4.0)
        out.append(margin if win is None else 0.7 * win[s] + 0.3 * margin)
    return out


class ISMCTSBot:
    """Information-set Monte Carlo tree search (single observer).

    Each iteration samples a determinization of the observation (the hidden cards
    dealt at random, :class:`~cardshop.klunker.sampling.Determinizer`), descends the
    one shared tree choosing among the actions legal in that sample by UCB1 with
    availability counts (``exploration`` is the UCB constant), adds one node, plays
    on until ``horizon`` round ends or the game's end, and backs up for every seat a
    reward in [0, 1]: the win share at the end, else the squashed lead of the seat's
    cash plus safe potential over the best opponent. The action visited most at the
    root is played.

    The playout (``rollout``) is ``"greedy"`` by default: every seat plays as
    :class:`GreedyBot` does, except that a seat filling an empty window places a
    random card, then stops. ``"random"`` plays uniformly at random (``done`` and
    ``pass`` taken half of the time when legal): cheaper, and much weaker.

    The budget is ``iterations`` per decision, or ``time_limit`` seconds, or both
    (the first reached stops the search). Only an iteration budget is reproducible.
    A decision with a single legal action is played without search.
    """

    def __init__(
        self,
        variant: Variant | str | Path,
        iterations: int | None = 100,
        time_limit: float | None = None,
        seed: int = 0,
        *,
        exploration: float = 0.7,
        horizon: int = 1,
        rollout: Literal["greedy", "random"] = "greedy",
    ) -> None:
        if iterations is None and time_limit is None:
            raise SetupError("ISMCTSBot needs a budget: iterations, time_limit or both")
        if iterations is not None and iterations < 1:
            raise SetupError(f"ISMCTSBot iterations must be at least 1, not {iterations}")
        if time_limit is not None and time_limit <= 0:
            raise SetupError(f"ISMCTSBot time_limit must be positive, not {time_limit}")
        if rollout not in ("greedy", "random"):
            raise SetupError(f"ISMCTSBot rollout must be 'greedy' or 'random', not {rollout!r}")
        self.variant = load_variant(variant)
        self.iterations = iterations
        self.time_limit = time_limit
        self.exploration = exploration
        self.horizon = horizon
        self.rollout = rollout
        self._policy = GreedyBot(seed, self.variant)
        self._rng = random.Random(seed)
        if time_limit is None:
            self.name = f"ismcts:{iterations}"
        elif iterations is None:
            self.name = f"ismcts:{time_limit}s"
        else:
            self.name = f"ismcts:{iterations}:{time_limit}s"

    def __repr__(self) -> str:
        return (
            f"ISMCTSBot({self.variant.name!r}, iterations={self.iterations}, "
            f"time_limit={self.time_limit})"
        )

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]
        root = self.search(observation)
        legal = set(legal_actions)
        ranked = sorted(
            (child for a, child in root.children.items() if a in legal),
            key=lambda c: (-c.visits, str(c.action)),
        )
        if not ranked:  # pragma: no cover - every legal action is tried first
            return legal_actions[0]
        action = ranked[0].action
        assert action is not None
        return action

    def search(self, observation: Observation) -> _Node:
        """Run the search from ``observation``; return the root of the tree."""
        rng = self._rng
        sampler = Determinizer(observation, self.variant, rng)
        root = _Node(None, observation.seat)
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        done = 0
        while True:
            if self.iterations is not None and done >= self.iterations:
                break
            if deadline is not None and done and time.perf_counter() >= deadline:
                break
            self._iterate(root, sampler.sample(rng), rng)
            done += 1
        return root

    def _iterate(self, root: _Node, game: Game, rng: random.Random) -> None:
        node = root
        path: list[_Node] = []
        c = self.exploration
        # Selection and expansion.
        while not game.is_over:
            legal = game.legal_actions()
            children = node.children
            untried = [a for a in legal if a not in children]
            player = game.current_player
            assert player is not None
            if untried:
                action = untried[0] if len(untried) == 1 else rng.choice(untried)
                child = _Node(action, player)
                children[action] = child
                for a in legal:
                    if a in children:
                        children[a].avail += 1
                game.apply(action)
                path.append(child)
                break
            best: _Node | None = None
            best_ucb = -1.0
            for a in legal:
                ch = children[a]
                ch.avail += 1
                ucb = ch.total / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                if ucb > best_ucb:
                    best, best_ucb = ch, ucb
            assert best is not None
            assert best.action is not None
            game.apply(best.action)
            path.append(best)
            node = best
        # Playout.
        start_round = game.round
        greedy = self.rollout == "greedy"
        policy = self._policy
        while not game.is_over and game.round - start_round < self.horizon:
            legal = game.legal_actions()
            first = legal[0]
            if len(legal) == 1:
                action = first
            elif greedy:
                if first.verb == "done":  # the window holds a card: stop filling
                    action = first
                elif game.phase is Phase.FILL:
                    action = rng.choice(legal)
                else:
                    seat = game.current_player
                    assert seat is not None
                    action = policy.choose(game.observation(seat), legal)
            elif first.verb in ("done", "pass") and rng.random() < 0.5:
                action = first
            else:
                action = rng.choice(legal)
            game.apply(action)
        rewards = _rewards(game)
        for n in path:
            n.visits += 1
            n.total += rewards[n.player]


# ------------------------------------------------------------------------- registry

BotFactory = Callable[[Variant, int, str | None], Bot]
"""Makes a bot for a variant, a seed and an option text (``"500"`` in ``"ismcts:500"``)."""


def _make_random(variant: Variant, seed: int, option: str | None) -> Bot:
    if option is not None:
        raise SetupError(f"bot 'random' takes no option (got 'random:{option}')")
    return RandomBot(seed)


def _make_greedy(variant: Variant, seed: int, option: str | None) -> Bot:
    if option is not None:
        raise SetupError(f"bot 'greedy' takes no option (got 'greedy:{option}')")
    return GreedyBot(seed, variant)


def _make_ismcts(variant: Variant, seed: int, option: str | None) -> Bot:
    iterations: int | None = 100
    time_limit: float | None = None
    if option is not None:
        iterations = None
        for part in option.split(":"):
            try:
                if part.endswith("s"):
                    time_limit = float(part[:-1])
                else:
                    iterations = int(part)
            except ValueError:
                raise SetupError(
                    f"bad ISMCTS budget {option!r}: use iterations ('ismcts:500'), "
                    "seconds ('ismcts:0.5s') or both ('ismcts:500:0.5s')"
                ) from None
    return ISMCTSBot(variant, iterations=iterations, time_limit=time_limit, seed=seed)


BOTS: dict[str, BotFactory] = {
    "random": _make_random,
    "greedy": _make_greedy,
    "ismcts": _make_ismcts,
}
"""Bot name -> factory. :func:`register_bot` adds to it."""


def register_bot(name: str, factory: BotFactory) -> None:
    """Make a bot available by ``name`` to :func:`make_bot`, simulations and the CLI."""
    if not name or ":" in name or "," in name or name != name.strip():
        raise SetupError(f"bot name {name!r} must be non-empty without ':', ',' or spaces")
    BOTS[name] = factory


def bot_names() -> list[str]:
    """The registered bot names."""
    return sorted(BOTS)


def make_bot(name: str, variant: Variant | str | Path, seed: int = 0) -> Bot:
    """A bot by name: ``"random"``, ``"greedy"``, ``"ismcts"`` or a registered one.

    An option follows a colon: ``"ismcts:500"`` searches 500 iterations per decision,
    ``"ismcts:0.5s"`` half a second. Raises :class:`~cardshop.SetupError` for an
    unknown name.
    """
    base, _, option = name.strip().partition(":")
    factory = BOTS.get(base.lower())
    if factory is None:
        raise SetupError(f"unknown bot {name!r}; bots are: {', '.join(bot_names())}")
    return factory(load_variant(variant), seed, option or None)
