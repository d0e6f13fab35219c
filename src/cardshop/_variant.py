"""What every family's variant model shares: the common keys and the checks' shape.

A family's variant model subclasses :class:`VariantBase`, fixes ``family`` to its own
name with a ``Literal`` and adds its keys. The loader (``cardshop.load_variant``)
reads the YAML, resolves ``extends``, picks the model by ``family`` and turns every
problem, including those of :meth:`VariantBase.semantic_errors`, into a
:class:`~cardshop.VariantError` naming the file, line and key.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["MAX_PLAYERS", "KeyPath", "Players", "Slug", "VariantBase"]

MAX_PLAYERS = 12
"""The most seats any variant may have: more than any shopping game is played with."""

Slug = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$", max_length=40)]
"""A short lower-case name: variant names, card kinds, attribute values."""

KeyPath = tuple[str | int, ...]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


class Players(_Model):
    """Allowed player counts, inclusive."""

    min: int = Field(ge=1, le=MAX_PLAYERS, description="Fewest players.")
    max: int = Field(ge=1, le=MAX_PLAYERS, description="Most players.")


class VariantBase(_Model):
    """The keys every variant has, whatever its family.

    ``title`` and ``description`` describe this file only: they are never inherited
    through ``extends``.
    """

    family: str = Field(description="The family of games this variant belongs to.")
    name: Slug = Field(description="Short name, used to load the variant and in records.")
    title: str = Field("", max_length=200, description="Human title.")
    description: str = Field("", max_length=10_000, description="Free text for people.")
    extends: str | None = Field(
        None,
        max_length=500,
        description=(
            "Another variant (a built-in name, or a path inside this file's folder) whose "
            "keys this file overrides; mappings merge key by key, lists and values replace."
        ),
    )
    players: Players

    def semantic_errors(self) -> list[tuple[KeyPath, str]]:
        """Problems a schema alone cannot see, as (key path, reason); none by default."""
        if self.players.max < self.players.min:
            return [(("players", "max"), "max is smaller than min")]
        return []

    def to_data(self) -> dict[str, Any]:
        """The resolved variant as plain data (``extends`` dropped: already applied)."""
        return self.model_dump(mode="json", exclude={"extends"})

    @property
    def content_hash(self) -> str:
        """SHA-256 of the resolved variant's canonical JSON: changes when the rules do."""
        text = json.dumps(self.to_data(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()
