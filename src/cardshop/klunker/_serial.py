"""Rebuilding a :class:`Game` from its JSON form (see ``Game.to_dict``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError

from cardshop._errors import PositionError, VariantError, format_path
from cardshop._loader import variant_from_data
from cardshop.klunker.variant import Variant

if TYPE_CHECKING:
    from cardshop.klunker.game import Game

_VARIANTS: dict[str, tuple[Variant, dict[str, Any]]] = {}


class _State(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)
    chance: int
    where: list[int]
    deck: list[int]
    held: list[int]
    next_card: int
    buying: int
    decliner: int
    acted: int
    termination: int
    phase: int
    turn: int
    start: int
    round: int
    step: int


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)
    format: str
    variant: dict[str, Any]
    variant_hash: str
    players: int
    seed: int
    first_player: int
    history: list[str]
    state: _State


def _variant(data: dict[str, Any], claimed: str) -> Variant:
    """The variant a game JSON carries, validated once per distinct content."""
    cached = _VARIANTS.get(claimed)
    if cached is not None and cached[1] == data:
        return cached[0]
    digest = hashlib.sha256(json.dumps(data, separators=(",", ":")).encode()).hexdigest()
    if digest != claimed:
        raise PositionError("game JSON: variant_hash does not match the variant it carries")
    variant = variant_from_data(data, source="<game JSON>")
    if variant.content_hash != digest:
        raise PositionError("game JSON: the variant it carries is not in resolved form")
    _VARIANTS[digest] = (variant, data)
    return variant


def game_from_data(cls: type[Game], source: str | bytes | Mapping[str, Any]) -> Game:
    """Validate a game's JSON text (or its parsed data) and rebuild the game."""
    try:
        if isinstance(source, Mapping):
            doc = _Doc.model_validate(dict(source))
        else:
            doc = _Doc.model_validate_json(source)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        if err["type"] == "json_invalid":
            raise PositionError(f"not a game in JSON: {err['msg']}") from None
        path = tuple(p for p in err["loc"] if isinstance(p, (str, int)))
        raise PositionError(f"not a valid game JSON at {format_path(path)}: {err['msg']}") from None
    if doc.format != cls.FORMAT:
        raise PositionError(f"game JSON has format {doc.format!r}; expected {cls.FORMAT!r}")
    try:
        variant = _variant(doc.variant, doc.variant_hash)
    except VariantError as exc:
        raise PositionError(f"game JSON carries an invalid variant: {exc}") from None
    rules = variant.rules
    n = doc.players
    st = doc.state
    if not rules.min_players <= n <= rules.max_players:
        raise PositionError(f"game JSON: {n} players is outside the variant's range")
    n_zones = 4 * n + 2
    if len(st.where) != rules.n_cards or (
        st.where and (min(st.where) < 0 or max(st.where) >= n_zones)
    ):
        raise PositionError("game JSON: 'where' does not place every card in a zone")
    if sorted(st.deck) != [c for c, z in enumerate(st.where) if z == 4 * n]:
        raise PositionError("game JSON: 'deck' does not list exactly the cards in the deck")
    if len(st.held) != n or not 0 <= st.phase <= 4 or not -1 <= st.turn < n:
        raise PositionError("game JSON: inconsistent turn, phase or purchase cards")
    game = cls.__new__(cls)
    game._init_empty(variant, n, doc.seed)
    game.first_player = doc.first_player
    by_text = rules.actions_by_text
    history = [by_text.get(t) for t in doc.history]
    if None in history or any(a.verb == "buy" and a.arg >= n for a in history):  # type: ignore[union-attr, operator]
        raise PositionError("game JSON: the history holds an action this game cannot have")
    game.history = history  # type: ignore[assignment]
    game._chance = st.chance
    game._where = list(st.where)
    game._deck = list(st.deck)
    game._held = list(st.held)
    game._next_card = st.next_card
    game._buying = st.buying
    game._decliner = st.decliner
    game._acted = st.acted
    game._termination = st.termination
    game._phase = st.phase
    game._turn = st.turn
    game._start = st.start
    game._round = st.round
    game._step = st.step
    game._check_counts()
    return game
