"""Computer players for every family: a protocol, generic bots and a registry by name.

A bot is shown only what its seat may know, by construction: ``choose`` receives the
seat's observation and the legal actions, never the game::

    bot = cardshop.bots.make_bot("ismcts", "klunker-en", seed=1)
    action = bot.choose(game.observation(seat), game.legal_actions(seat))

Built-in bots (docs/bots.md):

* :class:`RandomBot` picks uniformly among the legal actions (any family);
* :class:`BaselineBot` picks a kind of action (a verb) uniformly, then one action of
  it (any family; Reglamentacja has its own ``baseline``, which picks an offer's parts
  one at a time);
* :class:`ISMCTSBot` runs information-set Monte Carlo tree search: every iteration
  deals the hidden cards at random, consistently with the observation (the family's
  ``sampler``), and walks one shared tree. In a simultaneous tick every acting seat
  chooses by its own statistics (decoupled UCT). It needs a family that can sample;
* :class:`PIMCBot` (``pimc``) compares the root actions by determinized playouts of
  the family's playout policy (flat Monte Carlo with successive halving), keeping the
  policy's own choice unless another action is clearly better. It needs a sampler too;
* a family adds its own (Klunker: ``greedy``) through its :class:`~cardshop.Family`.

Every bot is seeded and never touches the global ``random`` module, so a game
played by bots is reproducible from its seeds.
"""

from __future__ import annotations

import math
import random
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from cardshop.core.actions import (
    Action,
    Seat,
    choose_by_verb,
)
from cardshop.core.errors import SetupError
from cardshop.core.family import (
    CandidatePolicy,
    RolloutPolicy,
    optionless_bot,
)
from cardshop.core.frontdoor import Resolved, resolve
from cardshop.core.game import Game
from cardshop.core.loader import load_variant
from cardshop.core.series import family_for
from cardshop.core.variant import VariantBase

__all__ = [
    "BOTS",
    "MAX_ITERATIONS",
    "MAX_PLAYOUT",
    "MAX_ROOT_ACTIONS",
    "MAX_SECONDS",
    "MAX_TREES",
    "MIN_SECONDS",
    "BaselineBot",
    "Bot",
    "BotFactory",
    "ISMCTSBot",
    "PIMCBot",
    "RandomBot",
    "RootParallelBot",
    "bot_names",
    "choose_by_verb",
    "make_bot",
    "parse_bot_spec",
    "register_bot",
    "seat_bots",
]

MAX_ITERATIONS = 100_000
"""The most ISMCTS iterations per decision (``ismcts:100000``): a minute or more of
search per decision on the built-in variants; 100, the default, takes milliseconds."""
MAX_SECONDS = 600.0
"""The longest ISMCTS search per decision, in seconds (``ismcts:600s``)."""
MIN_SECONDS = 0.001
"""The shortest ISMCTS time budget (its name, ``ismcts:0.001s``, reads back)."""
MAX_PLAYOUT = 1_000_000
"""The most steps of one ISMCTS playout."""
MAX_SPEC = 200
"""The longest bot spec (``name:option``) read."""

_ITERATIONS = re.compile(r"[0-9]{1,9}")
_SECONDS = re.compile(r"(?:[0-9]{1,9}(?:\.[0-9]{0,9})?|\.[0-9]{1,9})s")


@runtime_checkable
class Bot(Protocol):
    """What a computer player offers: a name and a choice among legal actions.

    ``choose`` gets what the acting seat may know (its observation) and its legal
    actions, and returns one of those actions. Write your own by giving a class these
    two members; :func:`register_bot` makes it available by name to :func:`make_bot`,
    ``cardshop.simulate`` and the command line.
    """

    name: str

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action: ...


# --------------------------------------------------------------------------- random


class RandomBot:
    """Picks one of the legal actions uniformly at random (seeded).

    Uniform over the legal actions as listed: every action has the same chance, so
    where one kind of action is listed thousands of times (Reglamentacja's offers) it
    nearly always picks that kind. :class:`BaselineBot` chooses the kind first.
    """

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        return self._rng.choice(legal_actions)

    def __repr__(self) -> str:
        return "RandomBot()"


class BaselineBot:
    """Chooses the kind of action first: a verb uniformly among those of the legal
    actions (``pass``, ``buy``, ``offer``, ...), then one action of that verb uniformly.

    The generic baseline, for a family whose lists are short; a family with huge lists
    registers its own ``baseline`` that picks the parts of an action one at a time
    (Reglamentacja: the offer's counterparty, what is given, what is taken, the place).
    """

    name = "baseline"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        return choose_by_verb(legal_actions, self._rng)

    def __repr__(self) -> str:
        return "BaselineBot()"


# --------------------------------------------------------------------------- ISMCTS


class _Edge:
    """One seat's statistics for one action at a node."""

    __slots__ = ("avail", "total", "visits")

    def __init__(self) -> None:
        self.visits = 0
        self.avail = 1
        self.total = 0.0


class _Node:
    """A node of the search tree: per acting seat, the statistics of its actions."""

    __slots__ = ("children", "edges")

    def __init__(self) -> None:
        self.edges: dict[Seat, dict[Action, _Edge]] = {}
        self.children: dict[tuple[Action, ...], _Node] = {}


def _random_rollout(game: Game, seat: Seat, rng: random.Random) -> Action:
    return rng.choice(game.legal_actions(seat))


def _final_rewards(game: Game) -> list[float]:
    """Rewards in [0, 1] per seat at the end: 0.7 x win share + 0.3 x squashed lead."""
    result = game.result()
    n = game.players
    share = 1.0 / len(result.winners)
    values = [float(x) for x in result.scores]
    out = []
    for s in range(n):
        lead = values[s] - max((values[o] for o in range(n) if o != s), default=values[s])
        margin = 0.5 + 0.5 * math.tanh(lead / 4.0)
        out.append(0.7 * (share if s in result.winners else 0.0) + 0.3 * margin)
    return out


def _check_whole(owner: str, checks: Sequence[tuple[str, Any, int, int]]) -> None:
    """Raise :class:`SetupError` unless every ``(key, value, low, high)`` is a whole
    number ``low..high`` (not a bool)."""
    for key, value, low, high in checks:
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise SetupError(f"{owner} {key} must be a whole number {low}..{high:,}, not {value!r}")


ROLLOUT_BOTS_EXCLUDED = ("ismcts", "pimc", "rootpar")
"""Bots a search may not use as its playout policy (``rollout="bot:NAME"``): searches."""


def _rollout_bot_name(owner: str, rollout: Any) -> str | None:
    """The bot a ``rollout`` of ``"bot:NAME"`` names (None for ``family``/``random``)."""
    usage = (
        f"{owner} rollout must be 'family', 'random' or 'bot:NAME' with NAME a bot "
        f"of the variant that is not a search ({', '.join(ROLLOUT_BOTS_EXCLUDED)}), "
        f"not {rollout!r}"
    )
    if not isinstance(rollout, str) or len(rollout) > MAX_SPEC:
        raise SetupError(usage[:400])
    if rollout in ("family", "random"):
        return None
    prefix, _, name = rollout.partition(":")
    if prefix != "bot" or not name or ":" in name or name in ROLLOUT_BOTS_EXCLUDED:
        raise SetupError(usage)
    return name


class _BotRollout:
    """A playout policy that asks a named bot, one bot per seat (made when first
    needed, seeded from the search's seed): ``bot.choose(observation, legal)``."""

    def __init__(self, name: str, variant: VariantBase, seed: int) -> None:
        self.name = name
        self.variant = variant
        self.seed = seed
        self.bots: dict[Seat, Bot] = {}

    def __call__(self, game: Game, seat: Seat, rng: random.Random) -> Action:
        bot = self.bots.get(seat)
        if bot is None:
            bot = self.bots[seat] = make_bot(self.name, self.variant, seed=self.seed + 7919 * seat)
        legal = game.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        return bot.choose(game.observation(seat), legal)


class _Search:
    """What a determinized search takes from a variant's family: the sampler, the
    playout policy, the candidates, the progress counter and the evaluation, checked
    once (shared by :class:`ISMCTSBot` and :class:`PIMCBot`)."""

    def __init__(
        self, owner: str, variant: VariantBase | str | Path, seed: int, rollout: str
    ) -> None:
        bot_name = _rollout_bot_name(owner, rollout)
        self.variant = load_variant(variant)
        family = family_for(self.variant)
        if family.sampler is None:
            raise SetupError(
                f"{owner} cannot play the {family.name!r} family: it has no sampler "
                "to deal the hidden cards"
            )
        self.family = family
        self.rollout = rollout
        hooks = family.search
        self.policy: RolloutPolicy = _random_rollout
        if bot_name is not None:
            make_bot(bot_name, self.variant, seed=seed)  # an unknown name fails here
            self.policy = _BotRollout(bot_name, self.variant, seed)
        elif rollout == "family" and hooks is not None and hooks.rollout is not None:
            self.policy = hooks.rollout(self.variant, seed)
        self.evaluate = hooks.evaluate if hooks is not None else None
        self.candidates: CandidatePolicy | None = None
        if hooks is not None and hooks.candidates is not None:
            self.candidates = hooks.candidates(self.variant, seed)
        self.progress = hooks.progress if hooks is not None else None

    def sampler(self, observation: Any, rng: random.Random) -> Callable[[random.Random], Game]:
        """A function dealing a determinization of ``observation`` from a generator."""
        family = self.family
        if family.determinizer is not None:
            return family.determinizer(observation, self.variant, rng)
        sampler, variant = family.sampler, self.variant
        assert sampler is not None

        def sample(r: random.Random) -> Game:
            return sampler(observation, variant, r)

        return sample

    def play_on(
        self, game: Game, horizon: int, max_playout: int, rng: random.Random
    ) -> Sequence[float]:
        """Play ``game`` on by the playout policy (``horizon`` units of progress, at
        most ``max_playout`` steps); every seat's reward in [0, 1]."""
        policy = self.policy
        progress = self.progress
        start = progress(game) if progress is not None else 0
        steps = 0
        while not game.is_over and steps < max_playout:
            if progress is not None and progress(game) - start >= horizon:
                break
            acting = game.acting
            if len(acting) == 1:
                seat = acting[0]
                game.apply(policy(game, seat, rng), seat)
            else:
                game.apply_joint({s: policy(game, s, rng) for s in acting})
            steps += 1
        if game.is_over:
            return _final_rewards(game)
        if self.evaluate is not None:
            return self.evaluate(game)
        return [0.5] * game.players


class ISMCTSBot:
    """Information-set Monte Carlo tree search (single observer; decoupled in ticks).

    Each iteration samples a determinization of the observation (the family's
    ``sampler`` deals the hidden cards at random), descends the one shared tree --
    every acting seat choosing among the actions legal for it in that sample by UCB1
    with availability counts (``exploration`` is the UCB constant; a family with a
    ``candidates`` hook narrows those actions to its candidates) -- adds one node,
    plays on with the family's playout policy (uniform random if it has none), and
    backs up for every seat a reward in [0, 1]. A family with a ``progress`` hook stops
    playouts after ``horizon`` units of it and values the game with its ``evaluate``
    hook; otherwise playouts run to the end (at most ``max_playout`` steps). The action
    visited most at the root is played.

    The budget is ``iterations`` per decision, or ``time_limit`` seconds, or both
    (the first reached stops the search). Only an iteration budget is reproducible.
    A decision with a single legal action is played without search.
    """

    def __init__(
        self,
        variant: VariantBase | str | Path,
        iterations: int | None = 100,
        time_limit: float | None = None,
        seed: int = 0,
        *,
        exploration: float = 0.7,
        horizon: int = 1,
        rollout: str = "family",
        max_playout: int = 10_000,
    ) -> None:
        if iterations is None and time_limit is None:
            raise SetupError("ISMCTSBot needs a budget: iterations, time_limit or both")
        if iterations is not None and (
            not isinstance(iterations, int)
            or isinstance(iterations, bool)
            or not 1 <= iterations <= MAX_ITERATIONS
        ):
            raise SetupError(
                f"ISMCTSBot iterations must be a whole number 1..{MAX_ITERATIONS:,}, "
                f"not {iterations!r}"
            )
        if time_limit is not None:
            if (
                not isinstance(time_limit, (int, float))
                or isinstance(time_limit, bool)
                or not math.isfinite(time_limit)
                or not MIN_SECONDS <= time_limit <= MAX_SECONDS
            ):
                raise SetupError(
                    f"ISMCTSBot time_limit must be {MIN_SECONDS:g} to {MAX_SECONDS:g} "
                    f"seconds, not {time_limit!r}"
                )
            time_limit = float(time_limit)
        _check_whole(
            "ISMCTSBot",
            (("horizon", horizon, 1, MAX_PLAYOUT), ("max_playout", max_playout, 1, MAX_PLAYOUT)),
        )
        if (
            not isinstance(exploration, (int, float))
            or isinstance(exploration, bool)
            or not math.isfinite(exploration)
            or exploration < 0
        ):
            raise SetupError(
                f"ISMCTSBot exploration must be a finite number >= 0, not {exploration!r}"
            )
        self._setup = _Search("ISMCTSBot", variant, seed, rollout)
        self.variant = self._setup.variant
        self.rollout = self._setup.rollout
        self.iterations = iterations
        self.time_limit = time_limit
        self.exploration = exploration
        self.horizon = horizon
        self.max_playout = max_playout
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

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]
        root = self.search(observation)
        seat: Seat = observation.seat
        stats = root.edges.get(seat, {})
        ranked = sorted(
            (a for a in legal_actions if a in stats),
            key=lambda a: (-stats[a].visits, str(a)),
        )
        return ranked[0] if ranked else legal_actions[0]

    def search(self, observation: Any) -> _Node:
        """Run the search from ``observation``; return the root of the tree."""
        rng = self._rng
        sample = self._setup.sampler(observation, rng)
        root = _Node()
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        done = 0
        while True:
            if self.iterations is not None and done >= self.iterations:
                break
            if deadline is not None and done and time.perf_counter() >= deadline:
                break
            self._iterate(root, sample(rng), rng)
            done += 1
        return root

    def _select(self, node: _Node, game: Game, rng: random.Random) -> tuple[list[Any], bool]:
        """Each acting seat's action at ``node``; whether one of them was untried."""
        c = self.exploration
        chosen: list[Any] = []
        expanded = False
        candidates = self._setup.candidates
        for seat in game.acting:
            legal = None if candidates is None else candidates(game, seat)
            if legal is None:
                legal = game.legal_actions(seat)
            edges = node.edges.setdefault(seat, {})
            untried = [a for a in legal if a not in edges]
            if untried:
                action = untried[0] if len(untried) == 1 else rng.choice(untried)
                edges[action] = _Edge()
                for a in legal:
                    if a in edges:
                        edges[a].avail += 1
                expanded = True
            else:
                best: Action | None = None
                best_ucb = -1.0
                for a in legal:
                    e = edges[a]
                    e.avail += 1
                    ucb = e.total / e.visits + c * math.sqrt(math.log(e.avail) / e.visits)
                    if ucb > best_ucb:
                        best, best_ucb = a, ucb
                assert best is not None
                action = best
            chosen.append((seat, action))
        return chosen, expanded

    def _iterate(self, root: _Node, game: Game, rng: random.Random) -> None:
        node = root
        path: list[tuple[_Node, list[Any]]] = []
        # Selection and expansion.
        while not game.is_over:
            chosen, expanded = self._select(node, game, rng)
            path.append((node, chosen))
            if len(chosen) == 1:
                game.apply(chosen[0][1], chosen[0][0])
            else:
                game.apply_joint(dict(chosen))
            key = tuple(a for _, a in chosen)
            child = node.children.get(key)
            if child is None:
                child = node.children[key] = _Node()
            node = child
            if expanded:
                break
        # Playout.
        rewards = self._setup.play_on(game, self.horizon, self.max_playout, rng)
        for node, chosen in path:
            for seat, action in chosen:
                e = node.edges[seat][action]
                e.visits += 1
                e.total += rewards[seat]


# --------------------------------------------------------------------------- PIMC

MAX_ROOT_ACTIONS = 1_000
"""The most root actions :class:`PIMCBot` may be told to compare (``max_actions``)."""


class PIMCBot:
    """Determinized flat Monte Carlo (perfect-information Monte Carlo) with successive
    halving over the root actions and common random numbers.

    The root actions are the decision's legal actions, or, for a family with a
    ``candidates`` hook, its candidates for the seat, with the family playout policy's
    own choice added (at most ``max_actions``: a longer list without candidates is cut
    to a seeded random selection that keeps the playout policy's choice). The budget,
    ``playouts`` per decision, is spent in rounds of successive halving: each round
    deals fresh determinizations of the observation (the family's ``sampler``), plays
    every surviving action in each of them -- the same deal and the same generator for
    the playout after each action, so the actions are compared on equal terms -- and
    keeps the better half by mean reward. A playout is the family's playout policy for
    every seat (uniform random without one); it stops after ``horizon`` units of the
    family's ``progress`` and is valued by its ``evaluate`` (or runs to the end, at most
    ``max_playout`` steps, and is valued as :class:`ISMCTSBot` values it). In a
    simultaneous tick the other acting seats choose by the playout policy. The playout
    policy's own choice always survives the halving; the action with the best mean in
    the last round is played, unless it beats the policy's choice by no more than
    ``margin`` (0 to 1, on the reward scale; 0, the default, plays the best mean): a
    margin trusts a playout policy that is stronger than a shallow search, so the search
    only overrides it where it finds a clear gain. Each round gives every surviving
    action at least one playout, so a decision with more root actions than
    ``playouts`` takes one playout per action and round. A decision with a single legal
    action is played without search.
    """

    def __init__(
        self,
        variant: VariantBase | str | Path,
        playouts: int = 100,
        seed: int = 0,
        *,
        horizon: int = 1,
        max_actions: int = 64,
        margin: float = 0.0,
        rollout: str = "family",
        max_playout: int = 10_000,
    ) -> None:
        if (
            not isinstance(margin, (int, float))
            or isinstance(margin, bool)
            or not math.isfinite(margin)
            or not 0 <= margin <= 1
        ):
            raise SetupError(f"PIMCBot margin must be a number 0..1, not {margin!r}")
        _check_whole(
            "PIMCBot",
            (
                ("playouts", playouts, 1, MAX_ITERATIONS),
                ("horizon", horizon, 1, MAX_PLAYOUT),
                ("max_actions", max_actions, 2, MAX_ROOT_ACTIONS),
                ("max_playout", max_playout, 1, MAX_PLAYOUT),
            ),
        )
        self._setup = _Search("PIMCBot", variant, seed, rollout)
        self.variant = self._setup.variant
        self.rollout = self._setup.rollout
        self.playouts = playouts
        self.horizon = horizon
        self.max_actions = max_actions
        self.margin = round(float(margin), 6)
        self.max_playout = max_playout
        self._rng = random.Random(seed)
        shown = f"{self.margin:.6f}".rstrip("0").rstrip(".")
        self.name = f"pimc:{playouts}" if shown == "0" else f"pimc:{playouts}:{shown}"
        if horizon != 1:
            self.name += f":h{horizon}"
        if self.rollout.startswith("bot:"):
            self.name += ":" + self.rollout[4:]

    def __repr__(self) -> str:
        return f"PIMCBot({self.variant.name!r}, playouts={self.playouts})"

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]
        return self.rank(observation, legal_actions)[0][0]

    def rank(
        self, observation: Any, legal_actions: Sequence[Action]
    ) -> list[tuple[Action, float, int]]:
        """Search from ``observation``: the actions of the last round of successive
        halving, best first, each with its mean reward and its number of playouts in
        that round."""
        rng = self._rng
        seat: Seat = observation.seat
        sample = self._setup.sampler(observation, rng)
        actions, own = self._root_actions(sample(rng), seat, legal_actions, rng)
        if len(actions) == 1:
            return [(actions[0], 0.0, 0)]
        alive = actions
        rounds = max(1, math.ceil(math.log2(len(actions))))
        left = self.playouts
        while True:
            per_action = max(1, left // (len(alive) * rounds))
            totals = dict.fromkeys(alive, 0.0)
            for _ in range(per_action):
                world = sample(rng)
                play_seed = rng.getrandbits(64)
                for action in alive:
                    totals[action] += self._playout(world.clone(), seat, action, play_seed)
            left -= per_action * len(alive)
            rounds = max(1, rounds - 1)
            order = sorted(alive, key=lambda a: (-totals[a], str(a)))
            if len(alive) <= 2 or left <= 0:
                ranked = [(a, totals[a] / per_action, per_action) for a in order]
                if own is not None and own in totals:
                    mine = totals[own] / per_action
                    if ranked[0][1] - mine <= self.margin:  # keep the policy's choice
                        ranked.sort(key=lambda r: r[0] != own)
                return ranked
            alive = order[: (len(alive) + 1) // 2]
            if own is not None and own not in alive:
                alive.append(own)

    def _root_actions(
        self, game: Game, seat: Seat, legal: Sequence[Action], rng: random.Random
    ) -> tuple[list[Action], Action | None]:
        """The distinct actions compared at the root, in a fixed order, and the
        playout policy's own choice among them (None if it is not one)."""
        own = self._setup.policy(game.clone(), seat, random.Random(rng.getrandbits(64)))
        found: list[Action] | None = None
        if self._setup.candidates is not None:
            named = self._setup.candidates(game, seat)
            if named is not None:
                found = [a for a in dict.fromkeys(named) if a in legal]
        if found is None:
            if len(legal) <= self.max_actions:
                found = list(legal)
            else:
                picks = rng.sample(range(len(legal)), self.max_actions)
                found = list(dict.fromkeys(legal[i] for i in sorted(picks)))
        if own in legal and own not in found:
            found.insert(0, own)
        if len(found) > self.max_actions:
            mine = [own] if own in found else []
            rest = [a for a in found if a != own]
            keep = set(rng.sample(range(len(rest)), self.max_actions - len(mine)))
            found = mine + [a for i, a in enumerate(rest) if i in keep]
        if not found:
            return [legal[0]], None
        return found, own if own in found else None

    def _playout(self, game: Game, seat: Seat, action: Action, play_seed: int) -> float:
        """``seat``'s reward after ``action`` in ``game`` and a playout seeded ``play_seed``."""
        rng = random.Random(play_seed)
        policy = self._setup.policy
        acting = game.acting
        if len(acting) == 1:
            game.apply(action, seat)
        else:
            joint = {s: action if s == seat else policy(game, s, rng) for s in acting}
            game.apply_joint(joint)
        return float(self._setup.play_on(game, self.horizon, self.max_playout, rng)[seat])


# ------------------------------------------------------------------ root-parallel ISMCTS

MAX_TREES = 64
"""The most trees of :class:`RootParallelBot` (``rootpar:64x100``)."""


class RootParallelBot:
    """ISMCTS with root parallelization: ``trees`` independent searches of
    :class:`ISMCTSBot` (each ``iterations`` per decision, its own seeded samples and
    playouts), whose visit counts at the root are summed; the action with the most
    visits in all is played (ties by the action's text).

    Each tree sees other determinizations of the hidden cards, so summing them
    averages out what one tree's few samples happen to deal; the cost is ``trees x
    iterations`` iterations per decision. The trees run one after the other in this
    process (the search is reproducible from the seed). A decision with a single legal
    action is played without search.
    """

    def __init__(
        self,
        variant: VariantBase | str | Path,
        trees: int = 4,
        iterations: int = 100,
        seed: int = 0,
    ) -> None:
        _check_whole(
            "RootParallelBot",
            (("trees", trees, 1, MAX_TREES), ("iterations", iterations, 1, MAX_ITERATIONS)),
        )
        if trees * iterations > MAX_ITERATIONS:
            raise SetupError(
                f"RootParallelBot searches at most {MAX_ITERATIONS:,} iterations per decision "
                f"in all, not {trees} x {iterations:,}"
            )
        seeds = random.Random(seed)
        self._trees = [
            ISMCTSBot(variant, iterations=iterations, seed=seeds.getrandbits(63))
            for _ in range(trees)
        ]
        self.variant = self._trees[0].variant
        self.trees = trees
        self.iterations = iterations
        self.name = f"rootpar:{trees}x{iterations}"

    def __repr__(self) -> str:
        return (
            f"RootParallelBot({self.variant.name!r}, trees={self.trees}, "
            f"iterations={self.iterations})"
        )

    def choose(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        if len(legal_actions) == 1:
            return legal_actions[0]
        votes = self.votes(observation)
        ranked = sorted((a for a in legal_actions if a in votes), key=lambda a: (-votes[a], str(a)))
        return ranked[0] if ranked else legal_actions[0]

    def votes(self, observation: Any) -> dict[Action, int]:
        """Every tree's root visits of the observing seat's actions, summed."""
        seat: Seat = observation.seat
        votes: dict[Action, int] = {}
        for tree in self._trees:
            for action, edge in tree.search(observation).edges.get(seat, {}).items():
                votes[action] = votes.get(action, 0) + edge.visits
        return votes


# ------------------------------------------------------------------------- registry

BotFactory = Callable[[VariantBase, int, str | None], Bot]
"""Makes a bot for a variant, a seed and an option text (``"500"`` in ``"ismcts:500"``)."""


_make_random = optionless_bot("random", lambda _variant, seed: RandomBot(seed))
_make_baseline = optionless_bot("baseline", lambda _variant, seed: BaselineBot(seed))


def _make_ismcts(variant: VariantBase, seed: int, option: str | None) -> Bot:
    iterations, time_limit = _ismcts_budget(option)
    return ISMCTSBot(variant, iterations=iterations, time_limit=time_limit, seed=seed)


def _ismcts_budget(option: str | None) -> tuple[int | None, float | None]:
    """The budget an ``ismcts`` option names: iterations, seconds or both, each bounded."""
    if option is None:
        return 100, None
    usage = (
        f"bad ISMCTS budget 'ismcts:{option}': use iterations 1..{MAX_ITERATIONS:,} "
        f"('ismcts:500'), seconds {MIN_SECONDS:g} to {MAX_SECONDS:g} ('ismcts:0.5s') or "
        "both ('ismcts:500:0.5s')"
    )
    iterations: int | None = None
    time_limit: float | None = None
    parts = option.split(":")
    if len(parts) > 2:
        raise SetupError(usage)
    for part in parts:
        if _ITERATIONS.fullmatch(part) and iterations is None:
            iterations = int(part)
            if not 1 <= iterations <= MAX_ITERATIONS:
                raise SetupError(usage)
        elif _SECONDS.fullmatch(part) and time_limit is None:
            time_limit = float(part[:-1])
            if not MIN_SECONDS <= time_limit <= MAX_SECONDS:
                raise SetupError(usage)
        else:
            raise SetupError(usage)
    return iterations, time_limit


def _make_pimc(variant: VariantBase, seed: int, option: str | None) -> Bot:
    playouts, margin, horizon, rollout = _pimc_options(option, variant)
    return PIMCBot(
        variant, playouts=playouts, seed=seed, margin=margin, horizon=horizon, rollout=rollout
    )


_MARGIN = re.compile(r"(?:0|1)?\.[0-9]{1,6}|0|1")
_HORIZON = re.compile(r"h([0-9]{1,7})")
_BOT_NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")


def _pimc_options(option: str | None, variant: VariantBase) -> tuple[int, float, int, str]:
    """The playouts per decision, the margin, the horizon and the rollout a ``pimc``
    option names, bounded: ``200``, then optionally a margin (``200:0.02``), a horizon
    (``200:h2``) and a bot whose choices are the playout policy (``200:greedy``,
    ``rollout="bot:greedy"``), in that order (``200:0.02:h2:greedy``)."""
    if option is None:
        return 100, 0.0, 1, "family"
    usage = (
        f"bad PIMC option 'pimc:{option}': use playouts per decision, a whole number "
        f"1..{MAX_ITERATIONS:,} ('pimc:200'), optionally then a margin 0 to 1 "
        f"('pimc:200:0.02'), a horizon h1..h{MAX_PLAYOUT:,} ('pimc:200:h2') and a bot of "
        "the variant to play the playouts ('pimc:200:greedy', 'pimc:200:0.02:h2:greedy')"
    )
    parts = option.split(":")
    rollout = "family"
    last = parts[-1].lower()
    if len(parts) > 1 and _BOT_NAME.fullmatch(last) and not _HORIZON.fullmatch(last):
        parts.pop()
        playable = [n for n in bot_names(variant) if n not in ROLLOUT_BOTS_EXCLUDED]
        if last not in playable:
            raise SetupError(f"{usage}; the playout bot is one of {', '.join(playable)}")
        rollout = f"bot:{last}"
    horizon = 1
    found = _HORIZON.fullmatch(parts[-1].lower()) if len(parts) > 1 else None
    if found is not None:
        parts.pop()
        horizon = int(found[1])
        if not 1 <= horizon <= MAX_PLAYOUT:
            raise SetupError(usage)
    if len(parts) > 2:
        raise SetupError(usage)
    count = parts[0]
    if not _ITERATIONS.fullmatch(count) or not 1 <= int(count) <= MAX_ITERATIONS:
        raise SetupError(usage)
    if len(parts) == 1:
        return int(count), 0.0, horizon, rollout
    margin = parts[1]
    if not _MARGIN.fullmatch(margin) or not 0 <= float(margin) <= 1:
        raise SetupError(usage)
    return int(count), float(margin), horizon, rollout


_TREES = re.compile(r"([0-9]{1,9})x([0-9]{1,9})")


def _make_rootpar(variant: VariantBase, seed: int, option: str | None) -> Bot:
    trees, iterations = _rootpar_options(option)
    return RootParallelBot(variant, trees=trees, iterations=iterations, seed=seed)


def _rootpar_options(option: str | None) -> tuple[int, int]:
    """The trees and iterations per tree a ``rootpar`` option names, bounded."""
    if option is None:
        return 4, 100
    found = _TREES.fullmatch(option)
    if found is not None:
        trees, iterations = int(found[1]), int(found[2])
        if 1 <= trees <= MAX_TREES and iterations >= 1 and trees * iterations <= MAX_ITERATIONS:
            return trees, iterations
    raise SetupError(
        f"bad root-parallel budget 'rootpar:{option}': use TREESxITERATIONS, trees "
        f"1..{MAX_TREES} and iterations per tree 1 or more, at most {MAX_ITERATIONS:,} "
        "in all ('rootpar:4x100')"
    )


BOTS: dict[str, BotFactory] = {
    "baseline": _make_baseline,
    "random": _make_random,
    "ismcts": _make_ismcts,
    "pimc": _make_pimc,
    "rootpar": _make_rootpar,
}
"""Bot name -> factory for every family. :func:`register_bot` adds to it; a family's
own bots (its :class:`~cardshop.Family` ``bots``) come on top for its variants."""


def register_bot(name: str, factory: BotFactory) -> None:
    """Make a bot available by ``name`` to :func:`make_bot`, simulations and the CLI."""
    if not name or ":" in name or "," in name or name != name.strip():
        raise SetupError(f"bot name {name!r} must be non-empty without ':', ',' or spaces")
    BOTS[name] = factory


def _factories(subject: Resolved | None) -> dict[str, BotFactory]:
    found = dict(BOTS)
    if subject is not None:
        found.update(subject.family.bots)
    return found


def bot_names(variant: VariantBase | str | Path | Resolved | None = None) -> list[str]:
    """The bot names: for every family, or those that can play ``variant``."""
    return sorted(_factories(None if variant is None else resolve(variant)))


def make_bot(name: str, variant: VariantBase | str | Path | Resolved, seed: int = 0) -> Bot:
    """A bot by name: ``"random"``, ``"ismcts"``, one of the variant's family or a
    registered one.

    An option follows a colon: ``"ismcts:500"`` searches 500 iterations per decision,
    ``"ismcts:0.5s"`` half a second. Raises :class:`~cardshop.SetupError` for an
    unknown name.
    """
    subject = resolve(variant)
    base, option = parse_bot_spec(name)
    factories = _factories(subject)
    factory = factories.get(base)
    if factory is None:
        raise SetupError(
            f"unknown bot {name!r} for {subject.variant.name}; bots are: "
            f"{', '.join(sorted(factories))}"
        )
    return factory(subject.variant, seed, option)


def parse_bot_spec(spec: str) -> tuple[str, str | None]:
    """A bot spec's name (lower case) and option: ``"ISMCTS:500"`` -> ``("ismcts", "500")``.

    The one reader of ``name:option`` texts (the command line, simulations, audits,
    records all pass theirs to :func:`make_bot`). Raises :class:`~cardshop.SetupError`
    for a text that is not one, or longer than :data:`MAX_SPEC` characters; each
    factory checks its option and bounds it (``ismcts``: :data:`MAX_ITERATIONS`
    iterations, :data:`MAX_SECONDS` seconds).
    """
    if not isinstance(spec, str):
        raise SetupError(f"a bot spec is a text such as 'random' or 'ismcts:500', not {spec!r}")
    if len(spec) > MAX_SPEC:
        raise SetupError(f"bot spec {spec[:40]!r}... is longer than {MAX_SPEC} characters")
    base, colon, option = spec.strip().partition(":")
    if not base or (colon and not option):
        raise SetupError(f"bad bot spec {spec!r}: a name, then optionally ':' and an option")
    return base.lower(), option if colon else None


def seat_bots(bots: str | Sequence[Any], players: int) -> list[Any]:
    """The bot of each of ``players`` seats from a list (or a comma-separated text).

    Fewer bots than seats are repeated in order (``"greedy,random"`` at 4 players:
    greedy, random, greedy, random); the command line and :func:`cardshop.simulate`
    read ``--bots``/``bots`` this way. Texts are stripped; other entries (a function
    making a bot) are kept as they are. Raises :class:`~cardshop.SetupError` for no
    bot, an empty name or more bots than seats.
    """
    specs = bots.split(",") if isinstance(bots, str) else list(bots)
    specs = [s.strip() if isinstance(s, str) else s for s in specs]
    if not specs or any(s == "" for s in specs):
        raise SetupError(f"name a bot for the seats, such as 'random' (got {bots!r})"[:300])
    if len(specs) > players:
        raise SetupError(f"{len(specs)} bots for {players} seats: give at most one per seat")
    return [specs[s % len(specs)] for s in range(players)]
