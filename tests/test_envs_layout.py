"""The observation layouts: they cover the vector exactly, every part of a built-in
family is explained, and docs/envs.md holds the tables the code draws."""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

import cardshop
import tinyfamily
from cardshop.core.registry import get_family, unregister_family
from cardshop.envs import ShopAECEnv, layout_table, observation_layout
from cardshop.envs._layout import LAYOUT_BEGIN, LAYOUT_END, meaning
from pages_support import load_script
from tinyfamily import TinyVariant

ROOT = Path(__file__).resolve().parents[1]
TINY = Path(__file__).parent / "tinyfamily"


@pytest.fixture(autouse=True, scope="module")
def _tiny_family() -> Iterator[None]:
    tinyfamily.register()
    yield
    unregister_family(tinyfamily.NAME)


def _setups() -> list[Any]:
    out: list[Any] = []
    for name in cardshop.builtin_variants():
        variant = cardshop.load_variant(name)
        kinds = ["flat"]
        if get_family(variant.family).factored is not None:
            kinds.append("factored")
        for players in sorted({variant.players.min, variant.players.max}):
            out += [pytest.param(name, players, a, id=f"{name}-{players}p-{a}") for a in kinds]
    return out


@pytest.mark.parametrize(("variant", "players", "actions"), _setups())
def test_the_parts_cover_the_observation_space_exactly(
    variant: str, players: int, actions: Any
) -> None:
    aec = ShopAECEnv(variant, players, actions=actions)
    box = aec.observation_space("player_0")["observation"]
    parts = observation_layout(variant, players, actions)
    assert parts[0].start == 0
    assert all(a.stop == b.start for a, b in itertools.pairwise(parts))
    assert parts[-1].stop == box.shape[0]
    labels = [label for p in parts for label in p.labels]
    assert labels == [*aec.encoder.names, *aec.chooser.names]
    assert np.array_equal(np.array([x for p in parts for x in p.low], dtype=np.float32), box.low)
    assert np.array_equal(np.array([x for p in parts for x in p.high], dtype=np.float32), box.high)
    assert all(p.added is (p.start >= len(aec.encoder)) for p in parts)
    family = aec.variant.family
    unexplained = [p.name for p in parts if not meaning(family, p.name)]
    assert unexplained == [], f"parts of {family} without a meaning in cardshop.envs._layout"
    # a part's slice is where its elements are in a real observation
    aec.reset(seed=1)
    vector = aec.observe("player_0")["observation"]
    expected = aec.encoder.encode(aec.game.observation(0))  # type: ignore[union-attr]
    for part in parts:
        if not part.added:
            assert np.array_equal(vector[part.start : part.stop], expected[part.start : part.stop])


def test_a_family_without_meanings_still_gets_its_table() -> None:
    tiny = TinyVariant.model_validate(yaml.safe_load((TINY / "tiny-seq.yaml").read_text()))
    table = layout_table(tiny, 3)
    parts = observation_layout(tiny, 3)
    assert table.count("\n") == len(parts) + 2
    assert sum(len(p.labels) for p in parts) == len(ShopAECEnv(tiny, 3).encoder)


def test_klunker_parts_are_the_documented_ones() -> None:
    parts = {p.name: p for p in observation_layout("klunker-en", 4)}
    assert list(parts)[:5] == ["phase", "seat", "current_player", "start_player", "round"]
    cash = parts["cash"]
    names = ShopAECEnv("klunker-en", 4).encoder.names
    assert (cash.start, cash.stop) == (names.index("cash[0]"), names.index("cash[3]") + 1)
    assert len(parts["windows"].labels) == 4 * 7


def test_docs_envs_page_holds_the_layouts_the_code_draws() -> None:
    # In a fresh interpreter: this module registers the tiny family, whose variants
    # would join the built-in ones.
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "envs_layout.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard: it takes about a second
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_layouts_section_is_drawn_between_the_markers() -> None:
    rendered = load_script("envs_layout").render()
    assert rendered.count(LAYOUT_BEGIN) == rendered.count(LAYOUT_END) == 1
    for name in ("klunker", "reglamentacja", "wuhltisch"):
        if name in cardshop.families():
            assert f"### Family `{name}`" in rendered
