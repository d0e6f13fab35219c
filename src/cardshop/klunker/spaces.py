"""The Klunker family for learning agents: its fixed action numbering, its observation
vector and its table drawing.

Plain Python (no numpy): the environments in :mod:`cardshop.envs` turn these lists and
tuples into arrays. Both spaces depend on a variant and a player count only, so an agent
trained on one game of a variant can play any other game of it with as many players.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from cardshop.core import Action, Seat, SetupError, check_players
from cardshop.klunker.game import Game, Observation, Phase
from cardshop.klunker.variant import Variant

if TYPE_CHECKING:
    from cardshop.core import Game as CoreGame
    from cardshop.core import VariantBase

__all__ = ["Encoder", "action_space", "render"]

_PHASES = tuple(Phase)


def _klunker_variant(variant: VariantBase | Variant, players: int) -> Variant:
    """``variant`` as a Klunker variant that ``players`` may play, else SetupError."""
    if not isinstance(variant, Variant):
        raise SetupError(f"not a Klunker variant: {variant!r:.80}")
    check_players(variant, players)
    return variant


def action_space(variant: VariantBase | Variant, players: int) -> list[Action]:
    """Every action of a variant at a player count, in a fixed order.

    With ``K`` card kinds (in the variant's ``cards`` order) and ``N`` players::

        window KIND   K actions   fill: put a hand card of KIND in your window
        done          1           fill: finish filling your window
        store KIND    K actions   store: put a hand card of KIND in your safe
        pass          1           store: stop storing, take the lowest purchase card
        buy SEAT      N actions   purchase: buy all of SEAT's window (seats 0..N-1)
        decline       1           purchase: buy nothing
        sell KIND     K actions   sell: choose which completed row to sell first

    so there are ``3K + N + 3`` actions.
    """
    kinds = _klunker_variant(variant, players).rules.kinds
    actions: list[Action] = [Action("window", k) for k in kinds]
    actions.append(Action("done"))
    actions += [Action("store", k) for k in kinds]
    actions.append(Action("pass"))
    actions += [Action("buy", s) for s in range(players)]
    actions.append(Action("decline"))
    actions += [Action("sell", k) for k in kinds]
    return actions


class Encoder:
    """Turns one seat's :class:`~cardshop.Observation` into a flat list of numbers.

    Only the observation of one seat is read, so the numbers hold exactly what that
    seat may know. With ``K`` kinds and ``N`` players, in this order:

    ========================  ======  ==========================================
    part                      length  values
    ========================  ======  ==========================================
    ``phase``                 5       one-hot: fill, store, purchase, sell, over
    ``seat``                  N       one-hot: the observing seat
    ``current_player``        N       one-hot (all 0 when the game is over)
    ``start_player``          N       one-hot
    ``round``                 1       the round number, from 1
    ``hand``                  K       own hand, cards per kind
    ``hand_sizes``            N       cards in each seat's hand
    ``windows``               N x K   cards per kind in each seat's window
    ``safes``                 N x K   cards per kind in each seat's safe
    ``cash``                  N       cash cards in each seat's bank (the scores)
    ``purchase_cards``        N       purchase card each seat holds, 0 = none
    ``buying``                1       the purchase card whose turn it is, 0 = none
    ``deck_size``             1       cards left in the deck
    ``discard``               K       cards per kind in the discard
    ========================  ======  ==========================================

    Seats are absolute (seat 0 first), counts are raw card counts; :attr:`labels`
    names every number (``"safes[2].shoes"``) and :attr:`low` / :attr:`high` bound
    it: 0 below; above, the variant's card counts, its round cap, the player count.
    """

    def __init__(self, variant: VariantBase | Variant, players: int) -> None:
        self.variant = _klunker_variant(variant, players)
        self.players = players
        rules = self.variant.rules
        kinds = rules.kinds
        per_kind = [float(self.variant.cards[k]) for k in kinds]
        total = float(rules.n_cards)
        n = players
        labels: list[str] = []
        high: list[float] = []

        def part(label: str, items: Iterable[str], bound: Iterable[float] | float) -> None:
            names = list(items)
            bounds = list(bound) if isinstance(bound, Iterable) else [bound] * len(names)
            labels.extend(f"{label}{x}" for x in names)
            high.extend(bounds)

        seats = [f"[{s}]" for s in range(n)]
        part("phase.", [p.value for p in _PHASES], 1.0)
        for label in ("seat", "current_player", "start_player"):
            part(label, seats, 1.0)
        part("round", [""], float(rules.round_cap))
        part("hand.", kinds, per_kind)
        part("hand_sizes", seats, total)
        for zone in ("windows", "safes"):
            for s in range(n):
                part(f"{zone}[{s}].", kinds, per_kind)
        part("cash", seats, total)
        part("purchase_cards", seats, float(n))
        part("buying", [""], float(n))
        part("deck_size", [""], total)
        part("discard.", kinds, per_kind)
        self.labels: tuple[str, ...] = tuple(labels)
        """The name of every number, in order."""
        self.low: tuple[float, ...] = (0.0,) * len(labels)
        """Lower bounds (all 0)."""
        self.high: tuple[float, ...] = tuple(high)
        """Upper bounds."""

    def __len__(self) -> int:
        return len(self.labels)

    def encode(self, observation: Any) -> list[float]:
        """The numbers of one seat's observation (a new list on every call)."""
        n = self.players
        if not isinstance(observation, Observation):
            raise SetupError(
                f"this encoder is for {self.variant.name}; a {type(observation).__name__} "
                "is not a Klunker observation"
            )
        obs = observation
        if obs.players != n or obs.kinds != self.variant.rules.kinds:
            raise SetupError(
                f"this encoder is for {self.variant.name} with {n} players; the observation "
                f"is of a game with {obs.players} players and kinds {', '.join(obs.kinds)}"
            )
        values = [0.0] * (5 + 3 * n)
        values[_PHASES.index(obs.phase)] = 1.0
        values[5 + obs.seat] = 1.0
        if obs.current_player is not None:
            values[5 + n + obs.current_player] = 1.0
        values[5 + 2 * n + obs.start_player] = 1.0
        values.append(float(obs.round))
        values += map(float, obs.hand)
        values += map(float, obs.hand_sizes)
        for window in obs.windows:
            values += map(float, window)
        for safe in obs.safes:
            values += map(float, safe)
        values += map(float, obs.cash)
        values += map(float, obs.purchase_cards)
        values.append(float(obs.buying))
        values.append(float(obs.deck_size))
        values += map(float, obs.discard)
        return values


def _counts(game: Game, zone: str) -> str:
    counts = game.zone_counts(zone)
    return ", ".join(f"{kind} {c}" for kind, c in counts.items()) or "-"


def render(game: CoreGame | Game, seat: Seat | None = None) -> str:
    """The table as text: as ``seat`` may see it, or everything when ``seat`` is None.

    A seat sees its own hand and the sizes of the others; ``None`` (a spectator's or a
    debugger's view) shows every hand. Windows, safes, banks and discards are public.
    The text holds nothing a seat's observation hides: not the seed (from which every
    hand and the deck's order follow), so a server may send it to the seat.
    """
    # Until the Klunker game implements the core protocol it may come wrapped in the
    # family's adapter, which forwards every Klunker member to the game.
    g = cast("Game", game)
    turn = "over" if g.is_over else f"seat {g.current_player} to act"
    lines = [f"{g.rules.name}, {g.players} players: round {g.round}, {g.phase.value} phase, {turn}"]
    held = g.purchase_cards
    for s in range(g.players):
        marks = []
        if s == g.current_player:
            marks.append("to act")
        if s == g.start_player:
            marks.append("start player")
        if held[s]:
            marks.append(f"purchase card {held[s]}")
        head = f"seat {s}: cash {g.cash(s)}"
        lines.append(head + (f" ({', '.join(marks)})" if marks else ""))
        if seat is None or seat == s:
            lines.append(f"  {'hand':<7}{_counts(g, f'hand:{s}')}")
        else:
            size = sum(g.zone_counts(f"hand:{s}").values())
            lines.append(f"  {'hand':<7}{size} cards")
        for zone in ("window", "safe"):
            lines.append(f"  {zone:<7}{_counts(g, f'{zone}:{s}')}")
    lines.append(f"deck {len(g.zones()['deck'])} cards; discard: {_counts(g, 'discard')}")
    if g.is_over:
        result = g.result()
        lines.append(
            f"game {result.termination.value}: scores {list(result.scores)}, "
            f"winners {list(result.winners)}"
        )
    return "\n".join(lines)
