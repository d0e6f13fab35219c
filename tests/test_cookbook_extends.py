"""The extends cookbook (docs/cookbook/extends.md): each recipe edits a built-in
variant with ``null`` or a list marker, loads (without warnings, but for the recipe
that shows one), plays seeded games with every invariant checked, and shows an effect
only its edit produces, against the base on the same seeds; the warning of a plain
list goes through ``cardshop validate [--strict]`` in a real process, and ``cardshop
show --changes`` lists each recipe's edits."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import cardshop
from cardshop.cli import app
from cardshop.klunker import Variant as KlunkerVariant
from cardshop.klunker import events as kev
from cardshop.reglamentacja import ReglamentacjaVariant
from cardshop.reglamentacja import events as rev
from cardshop.wuhltisch import WuhltischVariant
from cardshop.wuhltisch import events as wev
from cardshop.wuhltisch import new_game as wuhltisch_game
from cookbook_support import COOKBOOK, check_recipe, of, play, recipe_loader, recipe_paths

RECIPES = COOKBOOK / "extends"
PATHS = recipe_paths("extends")
SEEDS = range(8)
WARNS = {"steps-written-out"}
"""The recipes that show a warning; every other loads without one."""
recipe: Callable[[str], Any] = recipe_loader("extends", cardshop.Variant, WARNS)


def klunker(variant: Any, seed: int, players: int = 4) -> tuple[Any, list[Any]]:
    """A whole game of greedy bots, every invariant checked; the game and its events."""
    assert isinstance(variant, KlunkerVariant)
    return play(variant, seed, players)


def reglamentacja(variant: Any, seed: int, players: int = 3) -> list[Any]:
    """The events of a whole game of greedy bots, the setup's row first."""
    assert isinstance(variant, ReglamentacjaVariant)
    return play(variant, seed, players, setup=lambda game: [rev.RowDealt(game.row)])[1]


def shown(events: list[Any]) -> set[str]:
    """Every Reglamentacja shopping card laid out in the row during a game."""
    return {c for e in of(events, rev.RowDealt) + of(events, rev.RowRefilled) for c in e.cards}


def test_no_monocles_deals_no_monocle_and_the_deck_suffices() -> None:
    """CARD-1: ``monocle: null`` takes the kind out of the deck (94 - 14 = 80 cards):
    every game ends by the rules, and no card placed, stored or sold is a Monocle,
    where the edition's games on the same seeds deal Monocles."""
    variant = recipe("no-monocles")
    base = cardshop.load_variant("klunker-en")
    assert "monocle" not in variant.rules.kinds
    assert variant.rules.n_cards == base.rules.n_cards - 14
    base_kinds: set[str] = set()
    for seed in SEEDS:
        game, events = klunker(variant, seed)
        assert game.result().termination == cardshop.Termination.FINISHED
        kinds = {e.kind for e in of(events, kev.Placed) + of(events, kev.Stored)}
        kinds |= {e.kind for e in of(events, kev.Sold)}
        assert kinds
        assert "monocle" not in kinds
        dealt = {c for e in of(events, kev.Dealt) for c in e.cards}
        assert all(c < variant.rules.n_cards for c in dealt)
        _, played = klunker(base, seed)
        base_kinds |= {e.kind for e in of(played, kev.Placed)}
    assert "monocle" in base_kinds


def test_necklaces_by_the_table_pay_the_table() -> None:
    """SELL-5: without the override, a row of Necklaces pays ``payout[k - 1]`` for ``k``
    rows in the safe, like any kind; the edition pays 4 whatever ``k``."""
    variant = recipe("necklaces-by-the-table")
    base = cardshop.load_variant("klunker-en")
    table = list(variant.sale.payout)
    below = 0
    for seed in SEEDS:
        for e in of(klunker(variant, seed)[1], kev.Sold):
            assert e.payout == table[min(e.rows, len(table)) - 1]
            below += e.kind == "necklace" and e.payout < 4
        for e in of(klunker(base, seed)[1], kev.Sold):
            if e.kind == "necklace":
                assert e.payout == 4
    assert below > 0


def test_tax_every_round_takes_a_cash_card_from_each_seat() -> None:
    """ROUND-1, END-2: the appended tax step runs at the end of each round (the base's
    steps kept before it): each seat with cash pays one card; the edition taxes none."""
    variant = recipe("tax-every-round")
    base = cardshop.load_variant("klunker-en")
    assert list(variant.steps) == [*base.steps, "tax"]
    paid = 0
    for seed in SEEDS:
        events = klunker(variant, seed)[1]
        assert of(events, kev.Taxed)
        assert all(len(e.cards) <= 1 for e in of(events, kev.Taxed))
        paid += sum(len(e.cards) for e in of(events, kev.Taxed))
        last = max(i for i, e in enumerate(events) if isinstance(e, kev.RoundEnded))
        assert any(isinstance(e, kev.Taxed) for e in events[:last])
        assert not of(klunker(base, seed)[1], kev.Taxed)
    assert paid > 0


def test_steps_written_out_play_as_the_marker_and_warn() -> None:
    """A plain list plays what it says (the same games as ``$append``) but warns."""
    variant = recipe("steps-written-out")
    marker = recipe("tax-every-round")
    assert list(variant.steps) == list(marker.steps)
    [warning] = cardshop.variant_warnings(variant)
    assert isinstance(warning, cardshop.VariantWarning)
    assert warning.path == ("steps",)
    assert warning.location is not None
    assert warning.location.line == 6
    assert "$append" in warning.reason
    for seed in SEEDS[:2]:
        assert klunker(variant, seed)[1] == klunker(marker, seed)[1]


def validate(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "cardshop", "validate", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )


def test_validate_warns_and_strict_fails_on_the_plain_list() -> None:
    """``cardshop validate`` prints the warning and exits 0; ``--strict`` exits 2.
    A recipe written with markers passes ``--strict``."""
    path = str(RECIPES / "steps-written-out.yaml")
    done = validate(path)
    assert done.returncode == 0, done.stderr
    assert "warning" in done.stderr
    assert "steps" in done.stderr
    assert "1 warning" in done.stdout
    strict = validate("--strict", path)
    assert strict.returncode == 2
    assert "fails --strict" in strict.stdout
    clean = validate("--strict", str(RECIPES / "tax-every-round.yaml"))
    assert clean.returncode == 0, clean.stderr


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("no-monocles", ["delete cards.monocle"]),
        ("necklaces-by-the-table", ["delete sale.overrides"]),
        ("tax-every-round", ["append steps", "add tax"]),
        ("steps-written-out", ["replace steps", "add tax"]),
        ("no-triple-stamps", ["remove cards"] * 3),
        ("pierogi", ["append cards"]),
        ("no-red-small-short", ["remove lists"]),
    ],
)
def test_show_changes_lists_each_edit(name: str, expected: list[str]) -> None:
    """``cardshop show --changes`` lists every edit of the recipe (its own name among
    them), each with its line."""
    done = CliRunner().invoke(app, ["show", "--changes", str(RECIPES / f"{name}.yaml")])
    assert done.exit_code == 0, done.output
    lines = [line for line in done.output.splitlines() if line.strip()]
    found = [" ".join(line.split(": ")[1].split()[:2]) for line in lines]
    assert sorted(found) == sorted([*expected, "set name"])
    assert all(line.startswith(f"{RECIPES / name}.yaml:") for line in lines)


def test_no_triple_stamps_never_shows_the_removed_cards() -> None:
    """RG-CARD-2: ``$remove`` by name takes three cards out of the box: 17 remain, none
    of the three is ever laid out or bought, where the box's games show them."""
    variant = recipe("no-triple-stamps")
    base = cardshop.load_variant("reglamentacja")
    gone = {"great-laundry", "tea-sugar", "meat-roulade"}
    names = [c.name for c in variant.cards]
    assert len(names) == len(base.cards) - 3
    assert not gone & set(names)
    base_shown: set[str] = set()
    for seed in SEEDS:
        events = reglamentacja(variant, seed)
        assert of(events, rev.GameEnded)
        assert not gone & shown(events)
        assert not gone & {e.card for e in of(events, rev.Bought)}
        base_shown |= shown(reglamentacja(base, seed))
    assert gone <= base_shown


def test_pierogi_joins_the_twenty_of_the_box_and_is_bought() -> None:
    """RG-CARD-2: ``$append`` keeps the box's twenty cards, in their order, and adds
    pierogi, which some seeded game buys; the box never shows it."""
    variant = recipe("pierogi")
    base = cardshop.load_variant("reglamentacja")
    names = [c.name for c in variant.cards]
    assert names == [*(c.name for c in base.cards), "pierogi"]
    bought = 0
    for seed in SEEDS:
        events = reglamentacja(variant, seed)
        bought += sum(e.card == "pierogi" for e in of(events, rev.Bought))
        assert "pierogi" not in shown(reglamentacja(base, seed))
    assert bought > 0


def wants(variant: WuhltischVariant, card: int) -> dict[str, str]:
    """What a list card of a Wühltisch game asks for, by attribute name."""
    rules = variant.rules
    return {
        rules.attributes[a]: rules.values[a][v]
        for a, v in rules.list_wants[card - rules.first_list]
    }


def turned(variant: WuhltischVariant, seed: int, players: int = 5) -> list[dict[str, str]]:
    """The lists turned up in a whole game of greedy bots."""
    events = play(variant, seed, players)[1]
    return [wants(variant, e.card) for e in of(events, wev.ListTurned)]


def test_no_red_small_short_never_deals_that_list() -> None:
    """WT-CARD-4: ``$remove`` by whole value leaves 15 lists, all dealt to 5 players
    each round; the removed list is never turned up, where the edition's 16 lists on
    the same seeds turn it up."""
    variant = recipe("no-red-small-short")
    base = cardshop.load_variant("wuhltisch")
    assert isinstance(variant, WuhltischVariant)
    assert isinstance(base, WuhltischVariant)
    gone = {"colour": "red", "size": "s", "sleeves": "short"}
    assert variant.rules.n_lists == base.rules.n_lists - 1 == 15
    seen = 0
    for seed in SEEDS:
        game = wuhltisch_game(variant, 5, seed=seed)
        dealt = [
            c
            for zone, ids in game.zones().items()
            if zone.startswith(("stack:", "list:"))
            for c in ids
        ]
        assert sorted(dealt) == list(range(variant.rules.first_list, variant.rules.n_cards))
        lists = turned(variant, seed)
        assert lists
        assert gone not in lists
        seen += gone in turned(base, seed)
    assert seen > 0


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_every_recipe_is_tested_and_on_the_page(path: Path) -> None:
    check_recipe(path)
