"""A tiny family of games that exists to prove the core's boundary: ``tinymarket``.

A shuffled deck of numbered cards; a market of face-up cards; each player holds one
secret card from the deal. ``take I`` takes the market card at position ``I`` (the slot
is refilled from the deck), ``pass`` takes nothing. A variant's ``dynamics`` key says
whether seats take turns (``sequential``) or all act in each tick (``simultaneous``;
a card claimed by two or more seats in one tick is discarded). The game ends when the
market is empty or a whole round of seats passed; a game longer than ``step_cap``
steps ends as capped. Score: the taken cards and the secret card, summed.

Nothing in cardshop's tools knows this family: the tests register it at run time
(:func:`register`) and send it through every tool.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple

from pydantic import Field

from cardshop.core import (
    Action,
    ActionParseError,
    Copy,
    Dynamics,
    EventCodec,
    Family,
    Game,
    GameStateError,
    Invariant,
    LegalActions,
    PositionError,
    Result,
    Seat,
    StateField,
    Termination,
    VariantBase,
    derive_rng,
    position_data,
    position_variant,
    rank_seats,
    register_family,
    shuffle,
    verify_history,
)

NAME = "tinymarket"
PASS = Action("pass")


class TinyVariant(VariantBase):
    family: Literal["tinymarket"] = "tinymarket"
    dynamics: Literal["sequential", "simultaneous"] = "sequential"
    cards: list[int] = Field(min_length=1, max_length=200)
    market: int = Field(3, ge=1, le=10)
    step_cap: int = Field(200, ge=1, le=100_000)

    def semantic_errors(self) -> list[tuple[tuple[str | int, ...], str]]:
        errs = super().semantic_errors()
        if len(self.cards) < self.players.max:
            errs.append((("cards",), "fewer cards than players: not every seat gets a secret"))
        return errs


class Took(NamedTuple):
    seat: Seat
    card: int
    value: int

    def __str__(self) -> str:
        return f"seat {self.seat} takes a {self.value}"


class Clashed(NamedTuple):
    seats: tuple[Seat, ...]
    card: int

    def __str__(self) -> str:
        return f"seats {', '.join(map(str, self.seats))} grab the same card; it is discarded"


class Ended(NamedTuple):
    scores: tuple[int, ...]

    def __str__(self) -> str:
        return f"the game ends; scores {list(self.scores)}"


EVENTS = EventCodec(NAME, (Took, Clashed, Ended))


class Observation(NamedTuple):
    seat: Seat
    market: tuple[int, ...]  # values, 0 for an empty slot
    taken: tuple[int, ...]  # per seat, the sum of taken values
    secret: int
    deck_size: int
    acting: tuple[Seat, ...]


class TinyGame(Game):
    family = NAME
    variant: TinyVariant
    # Its fields, declared once: clone, == and pickling come from the core.
    STATE = (
        StateField("variant", compared=False),
        StateField("seed"),
        StateField("n"),
        StateField("chance"),
        StateField("deck", Copy.LIST),
        StateField("secrets", Copy.LIST),
        StateField("market", Copy.LIST),
        StateField("piles", Copy.LISTS),
        StateField("discard", Copy.LIST),
        StateField("turn"),
        StateField("passes"),
        StateField("over"),
        *Game.MOVES_STATE,  # the moves, which the core's apply records
    )

    def __init__(self, variant: TinyVariant, players: int, seed: int) -> None:
        self.variant = variant
        self.seed = seed
        self.n = players
        self.chance = 0
        self.deck = list(range(len(variant.cards)))
        shuffle(derive_rng(seed, "deal"), self.deck)
        self.secrets = [self.deck.pop() for _ in range(players)]
        self.market = [self.deck.pop() if self.deck else -1 for _ in range(variant.market)]
        self.piles: list[list[int]] = [[] for _ in range(players)]
        self.discard: list[int] = []
        self.turn = 0
        self.passes = 0
        self.over: Termination | None = None
        self._moves: list[tuple[int, Seat, Action]] = []
        self._step = 0

    @property
    def dynamics(self) -> Dynamics:
        return Dynamics(self.variant.dynamics)

    @property
    def players(self) -> int:
        return self.n

    @property
    def acting(self) -> tuple[Seat, ...]:
        if self.over is not None:
            return ()
        if self.dynamics is Dynamics.SIMULTANEOUS:
            return tuple(range(self.n))
        return (self.turn,)

    @property
    def is_over(self) -> bool:
        return self.over is not None

    def legal_actions(self, seat: Seat | None = None) -> LegalActions:
        self.require_seat(seat)
        return LegalActions(
            [PASS] + [Action("take", i) for i, c in enumerate(self.market) if c >= 0]
        )

    def parse_action(self, text: str, seat: Seat | None = None) -> Action:
        if not isinstance(text, str) or len(text) > 40:
            raise ActionParseError(f"not an action text: {text!r:.60}")
        words = text.split()
        if words == ["pass"]:
            return PASS
        if len(words) == 2 and words[0] == "take" and words[1].isascii() and words[1].isdigit():
            return Action("take", int(words[1]))
        raise ActionParseError(f"cannot parse action {text!r}: expected 'take I' or 'pass'")

    def _play(self, actions: Mapping[Seat, Action]) -> list[Any]:
        # The core's apply and apply_joint have checked the seats and the actions and
        # recorded the moves (counting the step): only the rules are left.
        events: list[Any] = []
        values = self.variant.cards
        claims: dict[int, list[Seat]] = {}
        for seat, action in actions.items():
            if action.verb == "take":
                claims.setdefault(int(action.arg), []).append(seat)  # type: ignore[arg-type]
        for slot, seats in sorted(claims.items()):
            card = self.market[slot]
            if len(seats) == 1:
                self.piles[seats[0]].append(card)
                events.append(Took(seats[0], card, values[card]))
            else:
                self.discard.append(card)
                events.append(Clashed(tuple(seats), card))
            self.market[slot] = self.deck.pop() if self.deck else -1
        self.passes = 0 if claims else self.passes + len(actions)
        self.turn = (self.turn + 1) % self.n
        if all(c < 0 for c in self.market) or self.passes >= self.n:
            self.over = Termination.FINISHED
        elif self._step >= self.variant.step_cap:
            self.over = Termination.CAPPED
        if self.over is not None:
            events.append(Ended(self.scores()))
        return events

    def scores(self) -> tuple[int, ...]:
        values = self.variant.cards
        return tuple(
            sum(values[c] for c in self.piles[s]) + values[self.secrets[s]] for s in range(self.n)
        )

    def progress(self) -> int:
        return self._step  # a tiny game's length is counted in steps

    def result(self) -> Result:
        if self.over is None:
            raise GameStateError("the game is not over")
        scores = self.scores()
        ranks, winners = rank_seats([(s,) for s in scores])
        return Result(scores, ranks, winners, self.over, self._step)

    def observation(self, seat: Seat) -> Observation:
        values = self.variant.cards
        return Observation(
            seat,
            tuple(values[c] if c >= 0 else 0 for c in self.market),
            tuple(sum(values[c] for c in pile) for pile in self.piles),
            values[self.secrets[seat]],
            len(self.deck),
            self.acting,
        )

    def setup_options(self) -> dict[str, Any]:
        return {}  # a tiny game's moves always start at its deal (its positions hold them)

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": NAME,
            "variant": self.variant.to_data(),
            "seed": self.seed,
            "players": self.n,
            "deck": self.deck.copy(),
            "secrets": self.secrets.copy(),
            "market": self.market.copy(),
            "piles": [p.copy() for p in self.piles],
            "discard": self.discard.copy(),
            "turn": self.turn,
            "passes": self.passes,
            "step": self._step,
            "over": self.over.value if self.over else None,
            "moves": [[step, seat, str(action)] for step, seat, action in self._moves],
        }

    def to_position(self) -> dict[str, Any]:
        return self.to_dict()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], check_history: bool = True) -> TinyGame:
        try:
            variant = TinyVariant.model_validate(data["variant"], strict=False)
            game = cls(variant, int(data["players"]), int(data["seed"]))
            for key in ("deck", "secrets", "market", "discard"):
                setattr(game, key, [int(c) for c in data[key]])
            game.piles = [[int(c) for c in pile] for pile in data["piles"]]
            game.turn, game.passes, game._step = data["turn"], data["passes"], data["step"]
            game.over = Termination(data["over"]) if data["over"] else None
            game._moves = [(s, seat, game.parse_action(t)) for s, seat, t in data["moves"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise PositionError(f"not a tinymarket game: {exc}") from None
        problem = conservation(game)
        if problem:
            raise PositionError(f"not a tinymarket game: {problem}")
        if check_history:
            verify_history(game)
        return game


def conservation(game: Game) -> str | None:
    assert isinstance(game, TinyGame)
    cards = [*game.deck, *game.secrets, *(c for c in game.market if c >= 0), *game.discard]
    cards += [c for pile in game.piles for c in pile]
    if sorted(cards) != list(range(len(game.variant.cards))):
        return f"cards are lost or doubled: {sorted(cards)}"
    return None


def new_game(variant: VariantBase, players: int, seed: int | None = None) -> TinyGame:
    variant = TinyVariant.of_family(variant)  # a SetupError for another family's
    return TinyGame(variant, players, random.randrange(2**63) if seed is None else seed)


def action_space(variant: VariantBase, players: int) -> Sequence[Action]:
    assert isinstance(variant, TinyVariant)
    return [PASS, *(Action("take", i) for i in range(variant.market))]


class Encoder:
    def __init__(self, variant: VariantBase, players: int) -> None:
        assert isinstance(variant, TinyVariant)
        top = float(max(variant.cards))
        self.labels = (
            *(f"market {i}" for i in range(variant.market)),
            *(f"taken by {s}" for s in range(players)),
            "secret",
            "deck",
        )
        self.low = tuple(0.0 for _ in self.labels)
        self.high = (
            *(top for _ in range(variant.market)),
            *(top * len(variant.cards) for _ in range(players)),
            top,
            float(len(variant.cards)),
        )

    def encode(self, observation: Any) -> list[float]:
        o: Observation = observation
        return [*map(float, o.market), *map(float, o.taken), float(o.secret), float(o.deck_size)]


def render(game: Game, seat: Seat | None) -> str:
    assert isinstance(game, TinyGame)
    values = game.variant.cards
    market = " ".join(str(values[c]) if c >= 0 else "-" for c in game.market)
    return f"market: {market}   taken: {list(game.observation(0).taken)}   step {game._step}"


def from_position(position: object, variant: VariantBase | None) -> TinyGame:
    """A tiny position is its game's dict; its ``variant`` may be a name or the data,
    found by the core's reader (never a path)."""
    data = position_data(position)
    loaded = position_variant(data.get("variant"), variant, TinyVariant)
    return TinyGame.from_dict({**data, "variant": loaded.to_data()})


FAMILY = Family(
    name=NAME,
    dynamics=Dynamics.SEQUENTIAL,
    variant_model=TinyVariant,
    new_game=new_game,
    game_from_dict=TinyGame.from_dict,
    game_from_position=from_position,
    action_space=action_space,
    observation_encoder=Encoder,
    event_to_dict=EVENTS.to_dict,
    event_from_dict=EVENTS.from_dict,
    render=render,
    variants=__name__,  # tiny-seq.yaml and tiny-sim.yaml, beside this file
    invariants=(Invariant("conservation", conservation, "every card in one place, once"),),
)


def register() -> None:
    """Make the family known to cardshop in this process."""
    register_family(FAMILY, replace=True)
