"""Bounds on the work small inputs can cause, and the newcomer's path: bot specs,
simulations, the variant figures of Wühltisch and Reglamentacja, the tutorial's
schema and the deprecation wording."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import jsonschema
import pytest
import yaml

import cardshop
from cardshop import SetupError, VariantError
from cardshop.bots import MAX_ITERATIONS, parse_bot_spec, seat_bots
from cardshop.reglamentacja.variant import MAX_CHOICE, MAX_GAME_WORK, offer_count
from cardshop.wuhltisch.variant import MAX_SEAT_TICKS

ROOT = Path(__file__).resolve().parents[1]


def test_a_short_bot_list_is_repeated_in_python_as_on_the_command_line() -> None:
    sim = cardshop.simulate("klunker-en", players=4, games=2, bots="greedy,random", workers=1)
    assert {o.bots for o in sim} == {("greedy", "random", "greedy", "random")}
    assert seat_bots(["a", "b", "c"], 4) == ["a", "b", "c", "a"]
    with pytest.raises(SetupError, match="3 bots for 2 seats"):
        seat_bots("a,b,c", 2)


def test_bot_specs_are_read_once_with_bounded_budgets() -> None:
    assert parse_bot_spec(" ISMCTS:500 ") == ("ismcts", "500")
    bot = cardshop.make_bot(f"ismcts:{MAX_ITERATIONS}:0.5s", "klunker-en")
    assert cardshop.make_bot(bot.name, "klunker-en").name == bot.name  # the name reads back
    with pytest.raises(SetupError, match=r"ismcts:100001.*1\.\.100,000"):
        cardshop.make_bot(f"ismcts:{MAX_ITERATIONS + 1}", "klunker-en")


def test_offers_are_counted_as_the_engine_builds_them() -> None:
    base = cardshop.load_variant("reglamentacja").to_data()
    for kinds in range(1, 6):
        for trade in range(1, 4):
            data = {
                **base,
                "max_trade": trade,
                "stamps": {f"k{chr(97 + i)}": 30 for i in range(kinds)},
            }
            data["cards"] = [{**c, "cost": ["ka"]} for c in base["cards"]]
            variant = cardshop.parse_variant(yaml.safe_dump(data))
            assert variant.rules.offers_per_target() == offer_count(kinds, trade)  # type: ignore[attr-defined]


def test_the_built_in_variants_are_within_the_work_bounds() -> None:
    regl = cardshop.load_variant("reglamentacja")
    assert regl.most_choice() == 53_150 <= MAX_CHOICE  # type: ignore[attr-defined]
    assert regl.game_work() == 128_197_800 <= MAX_GAME_WORK  # type: ignore[attr-defined]
    assert cardshop.load_variant("wuhltisch").seat_ticks() == 100_000 <= MAX_SEAT_TICKS  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "key", "figure"),
    [
        (
            "extends: wuhltisch\nname: x\nrounds: 20\nround_ticks: 100000\n",
            "round_ticks",
            "10,000,000",
        ),
        (
            "extends: reglamentacja\nname: x\nplayers: {min: 3, max: 4}\n"
            "stamps: {coffee: 5, tea: 5, eggs: 5, milk: 5, oil: 5}\n",
            "max_trade",
            "711,677",
        ),
        (
            "extends: reglamentacja\nname: x\nspin: {min: 1, max: 100}\nturn_cap: 5000\n",
            "turn_cap",
            "26,580,315,000",
        ),
    ],
)
def test_a_variant_past_a_work_bound_names_the_key_and_the_figure(
    text: str, key: str, figure: str
) -> None:
    with pytest.raises(VariantError, match=rf"at {key}: .*{figure}"):
        cardshop.parse_variant(text)


def test_the_tutorials_schema_accepts_the_tutorials_files(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    files = dict(re.findall(r'```yaml title="([^"]+)"\n(.*?)```', page, re.S))
    code = next(b for b in re.findall(r"```python\n(.*?)```", page, re.S) if "schema.json" in b)
    namespace = {"cardshop": cardshop, "Path": lambda name: tmp_path / name}
    exec(code, namespace)  # what the tutorial has the reader type
    schema = json.loads((tmp_path / "variant.schema.json").read_text())
    for name in ("flea-market.yaml", "flea-market-tax.yaml"):
        jsonschema.validate(yaml.safe_load(files[name]), schema)


def test_the_deprecation_warning_names_no_future_version() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cardshop.GreedyBot  # noqa: B018
    (warning,) = caught
    assert "since 0.2" not in str(warning.message)
    assert cardshop.__version__ in str(warning.message)
