"""Helpers for the tests of the house-rules cookbook (docs/cookbook/): each folder of
recipes (``docs/cookbook/<folder>/<name>.yaml``) has its page (``<folder>.md``) and its
test file (``tests/test_cookbook_<folder>.py``), which loads the recipes with
:func:`recipe_loader`, plays them with :func:`play` and runs :func:`check_recipe` on
each."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import yaml

import cardshop
from cardshop.core import variant_from_data
from cardshop.invariants import CheckedGame

ROOT = Path(__file__).resolve().parents[1]
COOKBOOK = ROOT / "docs" / "cookbook"
FEWEST = 7
"""Each folder holds at least this many recipes (a glob that finds none fails)."""

V = TypeVar("V")
T = TypeVar("T")


def recipe_paths(folder: str) -> list[Path]:
    """The recipes of a folder of the cookbook, sorted by name."""
    paths = sorted((COOKBOOK / folder).glob("*.yaml"))
    assert len(paths) >= FEWEST, f"docs/cookbook/{folder}/ holds {len(paths)} recipes"
    return paths


def recipe_loader(folder: str, kind: type[V], warns: Collection[str] = ()) -> Callable[[str], V]:
    """The ``recipe(name)`` of a folder: the variant of ``<folder>/<name>.yaml``, a
    ``kind``, without a semantic warning (a setting without effect); its edits of the
    base warn (``cardshop validate --strict`` fails) for the names in ``warns`` only."""

    def recipe(name: str) -> V:
        path = COOKBOOK / folder / f"{name}.yaml"
        variant = cardshop.load_variant(path)
        assert isinstance(variant, kind)
        assert variant.semantic_warnings() == []
        warned = cardshop.variant_warnings(path)
        assert bool(warned) == (name in warns), warned
        return variant

    return recipe


def play(
    variant: Any,
    seed: int,
    players: int,
    bot: str = "greedy",
    *,
    checked: bool = True,
    setup: Callable[[Any], list[Any]] | None = None,
) -> tuple[Any, list[Any]]:
    """A whole seeded game of ``bot`` players (seat ``s`` seeded ``seed * 10 + s``),
    with every invariant checked as it goes unless ``checked`` is False; the game and
    its events, after ``setup(game)``'s events of the new game if given."""
    game = cardshop.new_game(variant, players, seed=seed)
    runner = CheckedGame(game) if checked else game
    bots = [cardshop.make_bot(bot, variant, seed * 10 + s) for s in range(players)]
    events: list[Any] = [] if setup is None else setup(game)
    while not game.is_over:
        events += runner.apply_joint(
            {s: bots[s].choose(game.observation(s), game.legal_actions(s)) for s in game.acting}
        )
    return game, events


def of(events: Iterable[object], kind: type[T]) -> list[T]:
    """The events of a kind, in order."""
    return [e for e in events if isinstance(e, kind)]


@cache
def _base_hash(name: str) -> str:
    return cardshop.load_variant(name).content_hash


def check_recipe(path: Path) -> None:
    """A recipe is a house rule, shown whole on its folder's page and tested in its
    folder's test file, and a variant of its own: it round-trips through its data with
    its hash, which differs from the hash of the base it extends."""
    folder, name = path.parent.name, path.stem
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# House rule: ")
    page = (COOKBOOK / f"{folder}.md").read_text(encoding="utf-8")
    assert f"{folder}/{name}.yaml" in page, f"{folder}.md does not name {name}.yaml"
    assert f"```yaml\n{text}```" in page, f"{folder}.md does not show {name}.yaml whole"
    tests = (ROOT / "tests" / f"test_cookbook_{folder}.py").read_text(encoding="utf-8")
    assert f'recipe("{name}")' in tests, f"{name}.yaml has no test"
    variant = cardshop.load_variant(path)
    assert variant_from_data(variant.to_data()).content_hash == variant.content_hash
    assert variant.content_hash != _base_hash(yaml.safe_load(text)["extends"])
