"""Temporary stand-ins for the core protocol modules (removed once they land)."""

from __future__ import annotations

from abc import ABC
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any, ClassVar, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from cardshop._core import Seat

Slug = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$", max_length=40)]


class Dynamics(StrEnum):
    SEQUENTIAL = "sequential"
    SIMULTANEOUS = "simultaneous"


class Termination(StrEnum):
    FINISHED = "finished"
    CAPPED = "capped"


@dataclass(frozen=True, slots=True)
class Result:
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    winners: tuple[Seat, ...]
    termination: Termination
    rounds: int
    details: Mapping[str, int] = field(default_factory=dict)

    @property
    def order(self) -> tuple[Seat, ...]:
        return tuple(sorted(range(len(self.ranks)), key=lambda s: (self.ranks[s], s)))


def rank_seats(keys: Sequence[tuple[int, ...]]) -> tuple[tuple[int, ...], tuple[Seat, ...]]:
    ranks = tuple(1 + sum(1 for other in keys if other > key) for key in keys)
    winners = tuple(s for s in range(len(keys)) if ranks[s] == 1)
    return ranks, winners


class Move(NamedTuple):
    step: int
    seat: Seat
    action: Any


class Players(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)
    min: Annotated[int, Field(ge=1, le=12)]
    max: Annotated[int, Field(ge=1, le=12)]


class VariantBase(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)
    family: str
    name: Slug
    title: str = ""
    description: str = ""
    extends: str | None = None
    players: Players

    def semantic_errors(self) -> list[tuple[tuple[str | int, ...], str]]:
        return []

    def to_data(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude={"extends"})


class Game(ABC):  # noqa: B024
    family: ClassVar[str]
    dynamics: ClassVar[Dynamics]
