"""An audit that checks the first games of each player count and measures them all
(``check_games``, ``--check-games``): which games are checked, that the games and
measures do not change, what the report says, and the errors."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest

from cardshop.audit import AuditError, games, run_audit
from cardshop.core import AuditDefaults, SetupError
from cardshop.report import render_html


def _count_checked(monkeypatch: pytest.MonkeyPatch) -> Counter[int]:
    """How many games of each player count the audit plays in debug mode."""
    made: Counter[int] = Counter()
    real = games.CheckedGame

    def counted(game: Any, **options: Any) -> Any:
        made[game.players] += 1
        return real(game, **options)

    monkeypatch.setattr(games, "CheckedGame", counted)
    return made


def test_only_the_first_games_of_each_player_count_are_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = _count_checked(monkeypatch)
    report = run_audit("klunker-en", games=7, players=[3, 4], examples=0, check_games=3)
    assert made == {3: 3, 4: 3}
    assert report.check_games == 3
    assert [pc.games for pc in report.player_counts] == [7, 7]  # every game measured
    made.clear()
    run_audit("klunker-en", games=4, players=[3], examples=0, check_games="all")
    assert made == {3: 4}
    made.clear()
    run_audit("klunker-en", games=4, players=[3], examples=0, check_games=0)
    assert made == {}


def test_with_replays_every_replay_of_a_checked_deal_is_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = _count_checked(monkeypatch)
    run_audit("klunker-en", games=5, players=[3], examples=0, check_games=2, replays=3)
    assert made == {3: 2 * 3}


def test_checking_fewer_games_changes_no_game_and_no_measure() -> None:
    """The same games are played, checked or not: every measure is the same."""
    options: dict[str, Any] = {"games": 12, "players": [3], "examples": 0, "seed": 5}
    every = run_audit("klunker-en", check_games="all", **options).to_dict()
    few = run_audit("klunker-en", check_games=2, **options).to_dict()
    for report in (every, few):
        del report["command"]
        for variant in report["variants"]:
            del variant["check_games"], variant["command"]
    assert few == every


def test_klunker_checks_its_first_100_games_by_default_and_says_so() -> None:
    report = run_audit("klunker-en", games=102, players=[3], examples=0)
    assert report.check_games == 100
    assert "check_games" in report.defaults
    assert "the first 100 games of each player count checked" in report.defaults_text()
    text = report.to_text()
    assert (
        "the first 100 simulated games of each player count in debug mode, "
        "the other 2 played and measured only" in text
    )
    assert "--check-games" not in report.command()  # a default: not repeated
    assert "The first 100 simulated games" in report.to_markdown()
    data = report.to_dict()
    assert data["variants"][0]["check_games"] == 100
    assert "invariants checked in the first 100 games of each player count" in render_html(data)


def test_a_family_without_the_default_checks_every_game() -> None:
    report = run_audit("wuhltisch", games=2, players=[2], examples=0)
    assert report.check_games is None
    assert "every simulated game in debug mode" in report.to_text()
    assert report.to_dict()["variants"][0]["check_games"] is None
    html = render_html(report.to_dict())
    assert "invariants checked in the first" not in html


def test_the_command_repeats_a_check_games_that_was_given() -> None:
    options: dict[str, Any] = {"games": 2, "players": [3], "examples": 0}
    assert run_audit("klunker-en", check_games=1, **options).command().endswith("--check-games 1")
    given_all = run_audit("klunker-en", check_games="all", **options)
    assert given_all.command().endswith("--check-games all")
    assert given_all.check_games is None
    assert "every simulated game in debug mode" in given_all.to_text()


@pytest.mark.parametrize("bad", [-1, "some", 2.5, True, "-3"])
def test_a_bad_check_games_is_refused_before_any_game(bad: object) -> None:
    with pytest.raises(AuditError, match="check_games is a whole number 0 or more, or 'all'"):
        run_audit("klunker-en", games=2, players=[3], examples=0, check_games=bad)  # type: ignore[arg-type]


def test_family_defaults_refuse_a_bad_check_games() -> None:
    with pytest.raises(SetupError, match="check_games is 0 or more, or None"):
        AuditDefaults(check_games=-1)


def _cardshop(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardshop", *args],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: each run takes seconds
        check=False,
    )


def test_the_command_line_checks_the_games_it_is_told_to() -> None:
    base = ("audit", "klunker-en", "--players", "3", "--games", "3", "--examples", "0", "-q")
    done = _cardshop(*base, "--check-games", "1", "--json")
    assert done.returncode == 0, done.stderr
    variant = json.loads(done.stdout)["variants"][0]
    assert variant["check_games"] == 1
    assert variant["command"].endswith("--check-games 1")
    every = _cardshop(*base, "--check-games", "ALL", "--json")
    assert every.returncode == 0, every.stderr
    assert json.loads(every.stdout)["variants"][0]["check_games"] is None
    bad = _cardshop(*base, "--check-games", "half")
    assert bad.returncode == 2
    assert bad.stderr.startswith("cardshop: error: ")
    assert "check_games is a whole number 0 or more, or 'all'" in bad.stderr
    assert "'half'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    assert "Traceback" not in bad.stderr


def test_a_comparison_checks_the_same_games_of_both_variants(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = _count_checked(monkeypatch)
    from cardshop.audit.paired import compare_variants

    paired = compare_variants(
        "klunker-en", "klunker-es", games=4, players=[3], examples=0, check_games=1
    )
    assert made == {3: 2}  # one game of each variant
    assert paired.a.check_games == paired.b.check_games == 1
