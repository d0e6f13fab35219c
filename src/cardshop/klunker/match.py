"""Matches of Klunker games (MATCH-1): deprecated, kept for compatibility.

A variant with a ``match`` key is now played as one game of any family:
``cardshop.new_game("klunker-zh", players, seed)`` returns a
:class:`cardshop.core.series.Series`, which simulation, audits, records and the
environments play like any other game. :class:`Match` and :func:`new_match` wrap such
a series in the old interface and warn (:class:`DeprecationWarning`) when used.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

from cardshop.core import Action, Seat, Series, SetupError, new_series
from cardshop.klunker.events import Event
from cardshop.klunker.game import Game, Result
from cardshop.klunker.variant import Variant, as_klunker

__all__ = ["Match", "MatchResult", "new_match"]

_NOTE = (
    "cardshop.klunker.Match and new_match are deprecated: cardshop.new_game on a variant "
    "with a 'match' key returns the whole match as one game (cardshop.core.series.Series)"
)


@dataclass(frozen=True, slots=True)
class MatchResult:
    """Summed scores over a match's games; ties share the win."""

    totals: tuple[int, ...]
    games: tuple[Result, ...]
    ranks: tuple[int, ...]
    winners: tuple[Seat, ...]


class Match:
    """Deprecated: a match in the old interface, over a :class:`~cardshop.core.series.Series`.

    ``players x games_per_player`` games, game ``i`` with seat ``i mod players`` as
    first start player. ``legal_actions``, ``apply``, ``current_player`` and
    ``is_over`` refer to the game being played; :attr:`series` is the match as a game.
    """

    def __init__(self, variant: Variant, players: int, seed: int) -> None:
        warnings.warn(_NOTE, DeprecationWarning, stacklevel=2)
        if variant.match is None:
            raise SetupError(f"{variant.name} declares no match (its YAML has no 'match' key)")
        self.series: Series = new_series(variant, players, seed)
        self.variant = variant
        self.players = players
        self.seed = seed
        self.n_games = self.series.games

    @property
    def game(self) -> Game:
        """The game being played (the last one once the match is over)."""
        game = self.series.current
        assert isinstance(game, Game)
        return game

    @property
    def results(self) -> list[Result]:
        """The results of the finished games."""
        return [r for r in self.series.results if isinstance(r, Result)]

    @property
    def game_index(self) -> int:
        """Index of the game being played (== number of games finished while running)."""
        return len(self.series.results) if not self.is_over else self.n_games

    @property
    def is_over(self) -> bool:
        return self.series.is_over

    @property
    def current_player(self) -> Seat | None:
        return self.series.current_player

    def legal_actions(self) -> Sequence[Action]:
        return [] if self.is_over else self.series.legal_actions()

    def parse_action(self, text: str) -> Action:
        return self.series.parse_action(text)

    def apply(self, action: Action | str) -> list[Event]:
        """Apply to the current game; when it ends, the next game starts."""
        return self.series.apply(action)

    def totals(self) -> tuple[int, ...]:
        """Scores summed over the finished games."""
        return self.series.totals

    def result(self) -> MatchResult:
        result = self.series.result()
        return MatchResult(result.scores, tuple(self.results), result.ranks, result.winners)


def new_match(variant: Variant | str, players: int, seed: int = 0) -> Match:
    """Deprecated: start a match of a variant that declares one (e.g. ``klunker-zh``);
    use ``cardshop.new_game``, which returns the match as one game."""
    from cardshop.core import load_variant

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        match = Match(as_klunker(load_variant(variant)), players, seed)
    warnings.warn(_NOTE, DeprecationWarning, stacklevel=2)
    return match
