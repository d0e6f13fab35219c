"""Matches: several games of one variant with summed scores. [MATCH-1]"""

from __future__ import annotations

from dataclasses import dataclass

from cardshop._core import Action, Seat, derive_seed, is_seed
from cardshop._errors import GameStateError, SetupError
from cardshop.klunker.events import Event
from cardshop.klunker.game import Game, Result
from cardshop.klunker.variant import Variant, as_klunker

__all__ = ["Match", "MatchResult", "new_match"]


@dataclass(frozen=True, slots=True)
class MatchResult:
    """Summed scores over a match's games; ties share the win."""

    totals: tuple[int, ...]
    games: tuple[Result, ...]
    ranks: tuple[int, ...]
    winners: tuple[Seat, ...]


class Match:
    """A match as the variant's ``match`` key declares it: ``players x games_per_player``
    games, game ``i`` with seat ``i mod players`` as first start player, each game's
    seed derived from the match seed. Acts like a game: ``legal_actions``, ``apply``,
    ``current_player`` and ``is_over`` refer to the game being played.
    """

    def __init__(self, variant: Variant, players: int, seed: int) -> None:
        per = variant.rules.games_per_player
        if not is_seed(seed):
            text = f"an int of {seed.bit_length()} bits" if isinstance(seed, int) else repr(seed)
            raise SetupError(f"seed must be an int with -2**64 < seed < 2**64, not {text[:60]}")
        if per is None:
            raise SetupError(f"{variant.name} declares no match (its YAML has no 'match' key)")
        self.variant = variant
        self.players = players
        self.seed = seed
        self.n_games = players * per
        self.results: list[Result] = []
        self.game = self._new_game(0)

    def _new_game(self, i: int) -> Game:
        return Game(
            self.variant, self.players, derive_seed(self.seed, "match", i), i % self.players
        )

    @property
    def game_index(self) -> int:
        """Index of the game being played (== number of games finished while running)."""
        return len(self.results)

    @property
    def is_over(self) -> bool:
        return len(self.results) == self.n_games

    @property
    def current_player(self) -> Seat | None:
        return None if self.is_over else self.game.current_player

    def legal_actions(self) -> list[Action]:
        return [] if self.is_over else self.game.legal_actions()

    def parse_action(self, text: str) -> Action:
        return self.game.parse_action(text)

    def apply(self, action: Action | str) -> list[Event]:
        """Apply to the current game; when it ends, the next game starts."""
        if self.is_over:
            raise GameStateError("the match is over")
        events = self.game.apply(action)
        if self.game.is_over:
            self.results.append(self.game.result())
            if not self.is_over:
                self.game = self._new_game(len(self.results))
        return events

    def totals(self) -> tuple[int, ...]:
        """Scores summed over the finished games."""
        return tuple(sum(r.scores[s] for r in self.results) for s in range(self.players))

    def result(self) -> MatchResult:
        if not self.is_over:
            raise GameStateError(
                f"the match is not over: {len(self.results)} of {self.n_games} games played"
            )
        totals = self.totals()
        ranks = tuple(1 + sum(1 for t in totals if t > mine) for mine in totals)
        winners = tuple(s for s in range(self.players) if ranks[s] == 1)
        return MatchResult(totals, tuple(self.results), ranks, winners)


def new_match(variant: Variant | str, players: int, seed: int = 0) -> Match:
    """Start a match of a variant that declares one (e.g. ``klunker-zh``)."""
    from cardshop._loader import load_variant

    return Match(as_klunker(load_variant(variant)), players, seed)
