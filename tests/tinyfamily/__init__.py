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

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from cardshop.core import (
    MAX_PLAYERS,
    SEEDED,
    Action,
    ActionParseError,
    Copy,
    Dynamics,
    EventCodec,
    Family,
    Game,
    GameStateError,
    HistoryCheck,
    Invariant,
    LegalActions,
    PositionError,
    PositionSeed,
    PositionVariant,
    Result,
    Seat,
    StateField,
    Termination,
    VariantBase,
    VerifyHooks,
    chance_source,
    check_setup,
    position_data,
    position_players,
    position_variant,
    rank_seats,
    read_game_json,
    read_position,
    register_family,
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


Card = Annotated[int, Field(ge=-1, le=200)]  # a card of at most 200, or -1: none
Cards = Annotated[list[Card], Field(max_length=200)]
Count = Annotated[int, Field(ge=0, le=100_000)]
Text = Annotated[str, Field(max_length=40)]


class TinyData(BaseModel):
    """A tiny game's data, as ``to_dict`` writes it: every number and list bounded."""

    model_config = ConfigDict(extra="forbid", strict=True)
    family: Literal["tinymarket"]
    variant: PositionVariant
    seed: PositionSeed
    players: Annotated[int, Field(ge=1, le=MAX_PLAYERS)] | None = None
    deck: Cards
    secrets: Annotated[Cards, Field(min_length=1, max_length=MAX_PLAYERS)]
    market: Annotated[Cards, Field(max_length=10)]
    piles: Annotated[list[Cards], Field(max_length=MAX_PLAYERS)]
    discard: Cards
    turn: Annotated[int, Field(ge=0, lt=MAX_PLAYERS)]
    passes: Count
    step: Count
    over: Literal["finished", "capped"] | None
    seeded: bool = True  # false: dealt by another chance source than the seed (verify's)
    moves: Annotated[
        list[Annotated[list[Count | Text], Field(min_length=3, max_length=3)]],
        Field(max_length=100_000),
    ]


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
        StateField("seeded", compared=False),
        *Game.MOVES_STATE,  # the moves, which the core's apply records
    )

    def __init__(self, variant: TinyVariant, players: int, seed: int) -> None:
        """A new game, dealt (``new_game`` checks the setup first)."""
        self._init_empty(variant, players, seed)
        self.deck = list(range(len(variant.cards)))
        # Through the core's chance source, so that cardshop verify can enumerate every
        # deal; cards of one value are interchangeable.
        chance_source().shuffle((self.deck,), seed, "deal", kinds=variant.cards)
        self.secrets = [self.deck.pop() for _ in range(players)]
        self.market = [self.deck.pop() if self.deck else -1 for _ in range(variant.market)]

    def _init_empty(self, variant: TinyVariant, players: int, seed: int) -> None:
        """Every field as before the deal: what ``TinyGame._empty``, the blank game the
        reader fills, holds."""
        self.variant = variant
        self.seed = seed
        self.n = players
        self.chance = 0
        self.deck: list[int] = []
        self.secrets: list[int] = []
        self.market = [-1] * variant.market
        self.piles: list[list[int]] = [[] for _ in range(players)]
        self.discard: list[int] = []
        self.turn = 0
        self.passes = 0
        self.over: Termination | None = None
        self.seeded = chance_source() is SEEDED
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

    def setup_options(self) -> dict[str, Any] | None:
        # A tiny game's moves start at its deal (its positions hold them), which its seed
        # deals again unless another chance source dealt it (cardshop verify's).
        return {} if self.seeded else None

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
            "seeded": self.seeded,
            "moves": [[step, seat, str(action)] for step, seat, action in self._moves],
        }

    def to_position(self) -> dict[str, Any]:
        return self.to_dict()

    @classmethod
    def from_dict(cls, data: object, check_history: bool = True) -> TinyGame:
        """A game from its ``to_dict`` data (or JSON text): bounded, checked, replayed."""
        doc = read_position(read_game_json(data), TinyData)  # shape and bounds first
        variant = position_variant(doc.variant, None, TinyVariant)  # data, never a path
        players = position_players(len(doc.secrets), doc.players, variant)
        cards = len(variant.cards)
        if len(doc.market) != variant.market or len(doc.piles) != players:
            raise PositionError("not a tinymarket game: a market slot or a pile is missing")
        if not 0 <= doc.turn < players or any(c >= cards for c in doc.market):
            raise PositionError("not a tinymarket game: no such seat or card")
        game = cls._empty(variant, players, doc.seed)  # the blank game, to fill
        game.deck, game.secrets, game.discard = doc.deck, doc.secrets, doc.discard
        game.market, game.piles = doc.market, doc.piles
        game.turn, game.passes, game._step = doc.turn, doc.passes, doc.step
        game.over = Termination(doc.over) if doc.over else None
        game.seeded = doc.seeded
        check = HistoryCheck(game) if check_history else None  # replays as it reads
        for i, (step, seat, text) in enumerate(doc.moves):
            if not (isinstance(step, int) and isinstance(seat, int) and isinstance(text, str)):
                raise PositionError(f"moves[{i}] is not [step, seat, action text]")
            if seat >= players:
                raise PositionError(f"moves[{i}]: seat {seat} is not a seat 0..{players - 1}")
            try:
                action = game.parse_action(text)
            except ActionParseError as exc:
                raise PositionError(f"moves[{i}]: {exc}") from None
            if check is not None:
                check.add(step, seat, action)  # the first move that cannot be stops here
            game._moves.append((step, seat, action))
        problem = conservation(game)
        if problem:
            raise PositionError(f"not a tinymarket game: {problem}")
        if check is not None:
            check.finish(game)  # the moves lead from the deal to this very state
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
    return TinyGame(variant, players, check_setup(variant, players, seed))


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


def state_key(game: Game) -> tuple[Any, ...]:
    """The state for ``cardshop verify``: cards by value (two cards of one value are
    never told apart), the seed, the chance count and the moves left out."""
    assert isinstance(game, TinyGame)
    v = game.variant.cards
    return (
        tuple(v[c] for c in game.deck),
        tuple(v[c] for c in game.secrets),
        tuple(v[c] if c >= 0 else 0 for c in game.market),
        tuple(tuple(sorted(v[c] for c in pile)) for pile in game.piles),
        tuple(sorted(v[c] for c in game.discard)),
        game.turn,
        game.passes,
        None if game.over is None else game.over.value,
        game._step,
    )


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
    length_unit="step",  # a tiny game's length (progress, Result.rounds) counts steps
    invariants=(Invariant("conservation", conservation, "every card in one place, once"),),
    verify=VerifyHooks(
        state_key=state_key,
        clauses={
            "take": ("TINY-TAKE",),
            "pass": ("TINY-PASS",),
            "Took": ("TINY-TAKE",),
            "Clashed": ("TINY-CLASH",),
            "Ended": ("TINY-END",),
        },
    ),
)


def register() -> None:
    """Make the family known to cardshop in this process."""
    register_family(FAMILY, replace=True)
