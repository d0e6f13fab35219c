"""Each family's audit defaults (bots, games, check interval, cap policy), the cap
policy that reports capped games, the audit's workers, and the incremental checks of
:class:`cardshop.invariants.CheckedGame` (a JSON round trip at doubling intervals, the
legal-actions memo) still catching the defects planted for them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import cardshop
import tinyfamily
from cardshop import driver, invariants
from cardshop.audit import AuditError, run_audit
from cardshop.bots import make_bot
from cardshop.core import Action, AuditDefaults, SetupError
from cardshop.core.registry import get_family
from cardshop.invariants import (
    CheckedGame,
    InvariantViolation,
    LegalMemo,
    check_legal_actions,
    shared_memo,
)
from cardshop.reglamentacja.game import ReglamentacjaGame
from cardshop.wuhltisch.game import WuhltischGame

# ----------------------------------------------------------------- the defaults


def test_families_declare_audit_defaults() -> None:
    wuhltisch = get_family("wuhltisch").audit
    assert wuhltisch.bots == ("greedy",)
    assert wuhltisch.cap_policy == "report"
    assert get_family("reglamentacja").audit.bots == ("greedy",)
    klunker = get_family("klunker").audit
    assert (klunker.bots, klunker.games, klunker.cap_policy) == (("random",), 1000, "fail")
    assert klunker.check_games == 100  # of each player count's games, in debug mode
    assert "--check-games all" in klunker.note
    assert wuhltisch.check_games is None  # every game
    for bad in (
        {"cap_policy": "ignore"},
        {"bots": ()},
        {"check_every": 0},
        {"max_cap_share": 2.0},
        {"check_games": -1},
    ):
        with pytest.raises(SetupError):
            AuditDefaults(**bad)


def test_an_audit_without_options_takes_the_family_defaults_and_says_so() -> None:
    report = run_audit("wuhltisch", games=2, players=[2], examples=0)
    assert report.ok
    assert report.bots == ("greedy",)
    assert report.cap_policy == "report"
    assert report.check_every == get_family("wuhltisch").audit.check_every
    assert report.defaults == ("bots", "check_every", "cap_policy", "check_games")  # not games
    assert report.player_counts[0].summaries[0].bots == ("greedy", "greedy")
    text = report.to_text()
    assert "wuhltisch audit defaults used: bots greedy" in text
    assert "cap policy report" in text
    assert "wuhltisch audit defaults used" in report.to_markdown()
    data = report.to_dict()["variants"][0]
    assert data["defaults"] == ["bots", "check_every", "cap_policy", "check_games"]
    assert data["cap_policy"] == "report"
    assert report.command().endswith("--bots greedy --cap-policy report")


def test_explicit_options_override_the_defaults() -> None:
    report = run_audit(
        "wuhltisch",
        games=1,
        players=[2],
        examples=0,
        bots="greedy,random",
        check_every=50,
        cap_policy="fail",
        check_games="all",
    )
    assert report.defaults == ()
    assert report.bots == ("greedy", "random")
    assert report.check_every == 50
    assert report.cap_policy == "fail"
    assert "audit defaults used" not in report.to_text()
    with pytest.raises(AuditError, match="cap policy"):
        run_audit("wuhltisch", games=1, players=[2], examples=0, cap_policy="ignore")
    with pytest.raises(AuditError, match="workers"):
        run_audit("wuhltisch", games=1, players=[2], examples=0, workers=0)


def test_the_command_uses_the_family_defaults() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "cardshop", "audit", "wuhltisch", "--players", "2",
         "--games", "1", "--examples", "0", "--json", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (variant,) = json.loads(proc.stdout)["variants"]
    assert variant["bots"] == ["greedy"]
    assert variant["cap_policy"] == "report"
    assert variant["defaults"] == ["bots", "check_every", "cap_policy", "check_games"]
    assert variant["defaults_note"]


# ------------------------------------------------------------------ cap policy


@pytest.fixture
def short_rounds(tmp_path: Path) -> str:
    """A Wühltisch variant whose rounds reach the tick cap at once."""
    path = tmp_path / "short.yaml"
    path.write_text("extends: wuhltisch\nname: short-rounds\nround_ticks: 3\n", encoding="utf-8")
    return str(path)


def test_the_report_policy_reports_capped_games_and_passes(short_rounds: str) -> None:
    report = run_audit(short_rounds, games=3, players=[2], examples=0, cap_policy="report")
    (pc,) = report.player_counts
    assert pc.capped == 3
    assert pc.measures["capped"].value == 1.0
    assert not report.games_end  # more than max_cap_share of the games were capped
    assert report.ok  # but the policy only reports them
    assert "Termination: reported 3 of 3 simulated games" in report.to_text()
    failing = run_audit(short_rounds, games=3, players=[2], examples=0, cap_policy="fail")
    assert not failing.ok
    assert "Termination: FAIL 3 of 3" in failing.to_text()


def test_saved_games_keep_the_cap_policy(short_rounds: str, tmp_path: Path) -> None:
    from cardshop.audit import AuditReport, report_from_games

    report = run_audit(short_rounds, games=2, players=[2], examples=0)
    assert report.cap_policy == "report"
    assert report.ok
    path = tmp_path / "games.jsonl"
    report.save_games(path)
    again = report_from_games(path)
    assert isinstance(again, AuditReport)
    assert again.cap_policy == "report"
    assert again.ok


# --------------------------------------------------------------------- workers


def test_workers_give_the_same_report() -> None:
    one = run_audit("klunker-en", games=10, players=[3], examples=0, seed=4)
    two = run_audit("klunker-en", games=10, players=[3], examples=0, seed=4, workers=2)
    assert two.to_dict() == one.to_dict()


def test_a_fault_is_found_by_workers_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each worker checks its games: a planted fault is reported, and it replays."""
    tinyfamily.register()
    original = tinyfamily.TinyGame._play

    def losing(self: tinyfamily.TinyGame, actions: dict[int, Any]) -> list[Any]:
        events = original(self, actions)
        if any(isinstance(e, tinyfamily.Clashed) for e in events):
            self.discard.pop()
        return events

    monkeypatch.setattr(tinyfamily.TinyGame, "_play", losing)
    path = str(Path(tinyfamily.__file__).parent / "tiny-sim.yaml")
    report = run_audit(path, games=30, players=[3], examples=0, seed=1, workers=2)
    assert not report.ok
    assert "conservation" in {f.name for f in report.violations}
    (finding,) = [f for f in report.violations if f.name == "conservation"]
    example = finding.counterexample
    assert example is not None
    game = cardshop.replay(example.variant, example.players, example.seed, None, example.actions)
    assert tinyfamily.conservation(game) is not None


# ------------------------------------------------- the incremental determinism


def _play(checked: CheckedGame, seed: int = 0) -> None:
    game = checked.game
    bots = [make_bot("greedy", game.variant, seed + s) for s in range(game.players)]
    while not checked.is_over:
        checked.apply_joint(driver.choose(game, bots))


def test_json_round_trips_run_at_doubling_intervals(monkeypatch: pytest.MonkeyPatch) -> None:
    """A JSON copy reads and replays the whole history: it is made O(log n) times."""
    made: list[int] = []
    original = invariants._json_copy

    def counting(game: cardshop.Game, text: str | None = None) -> cardshop.Game:
        made.append(1)
        return original(game, text)

    monkeypatch.setattr(invariants, "_json_copy", counting)
    checked = CheckedGame(cardshop.new_game("wuhltisch", 2, seed=3), every=1)
    _play(checked)
    steps = checked.steps
    assert steps > 100
    assert 0 < len(made) <= steps.bit_length() + 1


def test_a_json_fault_of_late_states_is_still_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy that loses part of the state only after some rounds is found."""
    original = WuhltischGame.to_dict

    def lossy(self: WuhltischGame) -> dict[str, Any]:
        data = original(self)
        if self._round >= 2 and data["state"]["in_front"]:
            data["state"]["in_front"] = [x + 1 for x in data["state"]["in_front"]]
        return data

    monkeypatch.setattr(WuhltischGame, "to_dict", lossy)
    checked = CheckedGame(cardshop.new_game("wuhltisch", 2, seed=3), every=10)
    with pytest.raises(InvariantViolation) as info:
        _play(checked)
    assert info.value.invariant == "determinism"
    assert "JSON round trip" in info.value.detail


# ------------------------------------------------------ the legal-actions memo


def _offer_turn() -> ReglamentacjaGame:
    game = cardshop.new_game("reglamentacja", 3, seed=1)
    assert isinstance(game, ReglamentacjaGame)
    bots = [make_bot("greedy", game.variant, s) for s in range(3)]
    while len(game.legal_actions()) < 100:
        driver.apply(game, driver.choose(game, bots))
    return game


def test_the_memo_catches_a_text_deep_in_the_list(monkeypatch: pytest.MonkeyPatch) -> None:
    game = _offer_turn()
    legal = game.legal_actions()
    bad = legal[len(legal) // 2]
    original = ReglamentacjaGame.parse_action

    def wrong(self: ReglamentacjaGame, text: str, seat: int | None = None) -> Any:
        if text == str(bad):
            return legal[0]
        return original(self, text, seat)

    monkeypatch.setattr(ReglamentacjaGame, "parse_action", wrong)
    problem = check_legal_actions(game, LegalMemo())
    assert problem is not None
    assert "does not parse back" in problem
    with pytest.raises(InvariantViolation, match="does not parse back"):
        CheckedGame(game)


def test_the_memo_catches_an_unsorted_list(monkeypatch: pytest.MonkeyPatch) -> None:
    game = _offer_turn()
    memo = LegalMemo()
    assert check_legal_actions(game, memo) is None
    original = ReglamentacjaGame.legal_actions
    monkeypatch.setattr(
        ReglamentacjaGame,
        "legal_actions",
        lambda self, seat=None: [*original(self, seat)[1:], original(self, seat)[0]],
    )
    problem = check_legal_actions(game, memo)
    assert problem is not None
    assert "not sorted" in problem


@pytest.mark.parametrize("memo", [LegalMemo(), None], ids=["memo", "no-memo"])
def test_an_action_offered_twice_is_caught(
    monkeypatch: pytest.MonkeyPatch, memo: LegalMemo | None
) -> None:
    """Sorted and distinct are checked in one pass: two equal actions side by side, in a
    list sorted otherwise, are found with or without the memo."""
    game = _offer_turn()
    original = ReglamentacjaGame.legal_actions

    def doubled(self: ReglamentacjaGame, seat: int | None = None) -> list[Action]:
        legal = list(original(self, seat))
        i = len(legal) // 2
        return [*legal[: i + 1], legal[i], *legal[i + 1 :]]

    monkeypatch.setattr(ReglamentacjaGame, "legal_actions", doubled)
    problem = check_legal_actions(game, memo)
    assert problem is not None
    assert "sorted by text and distinct" in problem


def test_the_memo_parses_each_action_once_per_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    game = _offer_turn()
    parsed: list[str] = []
    original = ReglamentacjaGame.parse_action

    def counting(self: ReglamentacjaGame, text: str, seat: int | None = None) -> Any:
        parsed.append(text)
        return original(self, text, seat)

    monkeypatch.setattr(ReglamentacjaGame, "parse_action", counting)
    memo = LegalMemo()
    n = len(game.legal_actions())
    assert check_legal_actions(game, memo) is None
    assert len(parsed) == n
    assert check_legal_actions(game.clone(), memo) is None
    assert len(parsed) == n  # the same list again: nothing parsed
    other = cardshop.new_game("reglamentacja", 4, seed=1)  # another player count
    assert check_legal_actions(other, memo) is None
    assert len(parsed) == n + len(other.legal_actions())
    with shared_memo() as shared:
        assert CheckedGame(cardshop.new_game("reglamentacja", 3, seed=1)).memo is shared


def test_a_clone_that_loses_a_move_is_still_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The moves of copies are compared at the doubling intervals: a clone that drops
    the first move (its state right) is found."""
    original = WuhltischGame.clone

    def forgetful(self: WuhltischGame) -> WuhltischGame:
        copy = original(self)
        copy._moves = copy._moves[1:]
        return copy

    monkeypatch.setattr(WuhltischGame, "clone", forgetful)
    checked = CheckedGame(cardshop.new_game("wuhltisch", 2, seed=3), every=10)
    with pytest.raises(InvariantViolation) as info:
        _play(checked)
    assert info.value.invariant == "determinism"
    assert "clone()" in info.value.detail
