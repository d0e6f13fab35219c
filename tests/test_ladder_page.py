"""docs/ladder.md is what scripts/ladder_page.py renders from the committed results."""

from __future__ import annotations

import json

from cardshop.ladder import LadderResult
from pages_support import ROOT, load_script


def test_the_ladder_page_is_the_generated_one() -> None:
    generated = load_script("ladder_page").render()
    assert (ROOT / "docs" / "ladder.md").read_text(encoding="utf-8") == generated, (
        "docs/ladder.md is not what docs/ladder/*.json say: run python scripts/ladder_page.py"
    )


def test_the_committed_results_are_the_ladders_the_script_runs() -> None:
    script = load_script("ladder_page")
    for ladder in script.LADDERS:
        data = json.loads((ROOT / "docs" / "ladder" / f"{ladder.variant}.json").read_text())
        result = LadderResult.from_dict(data)
        assert (result.variant, result.players, result.bots, result.deals, result.seed) == (
            ladder.variant,
            ladder.players,
            ladder.bots,
            ladder.deals,
            ladder.seed,
        )
        assert result.played == len(result.lineups) * result.deals * result.players
        assert data["cost"]["cpu_seconds"] > 0
