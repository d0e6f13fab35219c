"""cardshop tune: the spec, the racing statistics on synthetic games, small studies of
real variants, resuming, Ctrl-C, the outputs, and the command's errors (docs/tuning.md)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import cardshop
from cardshop.measures import GameSummary, measure_all
from cardshop.tuning import TuneError, load_spec, to_dict, tune, tuned_yaml
from cardshop.tuning.racing import Race, estimate, loss_lower_bound, report_measures, z_of
from cardshop.tuning.spec import parse_path

pytest.importorskip("optuna")

KLUNKER_PLANTED = """\
extends: klunker-en
name: klunker-planted
title: Klunker with one card in hand
hand_size: 1
"""


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _klunker_spec(folder: Path, extra: str = "") -> Path:
    _write(folder, "planted.yaml", KLUNKER_PLANTED)
    return _write(
        folder,
        "spec.yaml",
        "base: planted.yaml\n"
        "knobs:\n  - {path: hand_size, low: 1, high: 8}\n"
        "objectives:\n  - {measure: first_player_advantage, target: 0, tolerance: 0.02}\n"
        "bots: [greedy]\nplayers: [4]\n"
        "budget: {games: 60000, batch: 2500, batches: 2, trials: 12}\nseed: 3\n" + extra,
    )


# ----------------------------------------------------------------------- spec


def test_knob_paths() -> None:
    assert parse_path("sale.payout[0]") == ("sale", "payout", 0)
    assert parse_path("starting_cash[4]") == ("starting_cash", 4)
    assert parse_path("lost_property.values[2]") == ("lost_property", "values", 2)
    for bad in ("", "[0]", "a..b", "a.", ".a", "a[x", "a b"):
        with pytest.raises(ValueError, match="path"):
            parse_path(bad)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('knobs:\n  - {path: "sale.payoff[0]", low: 1, high: 2}\n', 5, "has no sale.payoff"),
        ("knobs:\n  - {path: hand_size, low: 6, high: 2}\n", 5, "the range is empty"),
        ("knobs:\n  - {path: hand_size, choices: []}\n", 5, "the list of choices is empty"),
        ("knobs:\n  - {path: title, choices: [a]}\n", 5, "cannot be tuned"),
        ("objectives:\n  - {measure: fun, target: 0}\n", 5, "unknown measure 'fun'"),
        ("budget: {games: 0}\n", 4, "greater than 0"),
        ("players: [9]\n", 4, "3 to 5 players, not 9"),
        ("bots: [grumpy]\n", 4, "grumpy"),
    ],
)
def test_spec_errors_name_file_line_and_key(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    defaults = {
        "knobs": "knobs:\n  - {path: hand_size, low: 1, high: 8}\n",
        "objectives": "objectives:\n  - {measure: first_player_advantage, target: 0}\n",
    }
    key = text.split(":")[0]
    body = "base: klunker-en\nseed: 1\n# the key under test\n" + text
    body += "".join(v for k, v in defaults.items() if k != key)
    spec = _write(tmp_path, "bad.yaml", body)
    with pytest.raises(TuneError) as info:
        load_spec(spec)
    assert message in str(info.value)
    assert f"bad.yaml:{line}:" in str(info.value)
    assert "invalid tuning spec at" in str(info.value)


def test_a_missing_spec_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(TuneError, match=r"nothing\.yaml"):
        load_spec(tmp_path / "nothing.yaml")


# ------------------------------------------------------------ the statistics


def _games(rng: random.Random, count: int, p_first: float, players: int = 4) -> list[GameSummary]:
    """Synthetic games: the first player wins with probability ``p_first``, else another
    seat at random; lengths and scores random too."""
    out = []
    for _ in range(count):
        first = rng.randrange(players)
        winner = (
            first
            if rng.random() < p_first
            else rng.choice([s for s in range(players) if s != first])
        )
        scores = tuple(10 if s == winner else rng.randrange(10) for s in range(players))
        ranks = tuple(1 if s == winner else 2 for s in range(players))
        out.append(
            GameSummary(
                players=players,
                bots=("a",) * players,
                scores=scores,
                ranks=ranks,
                winners=(winner,),
                termination="capped" if rng.random() < 0.05 else "finished",
                rounds=rng.randrange(10, 30),
                steps=1,
                legal=(),
                first_player=first,
            )
        )
    return out


def test_estimates_equal_the_audit_intervals() -> None:
    games = _games(random.Random(1), 400, 0.3)
    audit = measure_all(games, seed=0)
    for key in ("first_player_advantage", "win_share_2", "completion", "capped", "rounds", "ties"):
        mine = estimate(key, games, z_of(0.95))
        assert mine is not None
        assert mine.value == pytest.approx(audit[key].value)
        assert mine.low == pytest.approx(audit[key].low)
        assert mine.high == pytest.approx(audit[key].high)
    shown = report_measures(["first_player_advantage"], games)
    assert shown["first_player_advantage"].text() == audit["first_player_advantage"].text()


def test_losses_and_their_lower_bounds() -> None:
    from cardshop.tuning.racing import Estimate, loss

    assert loss(0.05, (0.0, None, 0.02)) == pytest.approx(0.03)
    assert loss(-0.01, (0.0, None, 0.02)) == 0.0  # inside the tolerance: good enough
    assert loss(3.0, (None, "maximize", 0.0)) == -3.0
    target = (0.0, None, 0.0)
    assert loss_lower_bound(Estimate(0.1, 0.05, 0.15), target) == pytest.approx(0.05)
    assert loss_lower_bound(Estimate(0.1, 0.05, 0.15), (0.0, None, 0.02)) == pytest.approx(0.03)
    assert loss_lower_bound(Estimate(0.1, 0.05, 0.15), (0.0, None, 0.1)) == 0.0
    assert loss_lower_bound(Estimate(0.0, -0.05, 0.05), target) == 0.0
    assert loss_lower_bound(Estimate(3.0, 2.0, 4.0), (None, "minimize", 0.0)) == 2.0
    assert loss_lower_bound(Estimate(3.0, 2.0, 4.0), (None, "maximize", 0.0)) == -4.0
    assert loss_lower_bound(Estimate(3.0, None, None), target) == float("-inf")


def _race(rng: random.Random, race: Race, p_first: float, incumbent: float, batch: int) -> int:
    """Race a synthetic candidate against an incumbent of loss ``incumbent``
    (first-player advantage, target 0): the batch it was dropped after (0: never)."""
    games: list[GameSummary] = []
    for k in range(1, race.looks + 1):
        games += _games(rng, batch, p_first)
        if k == race.looks:
            break
        e = estimate("first_player_advantage", games, race.z)
        assert e is not None
        if race.drop({(0, 4): e}, [(0.0, None, 0.0)], [4], [[incumbent]]):
            return k
    return 0


def test_a_candidate_known_worse_is_dropped_early() -> None:
    rng = random.Random(7)
    race = Race(alpha=0.05, looks=5, pairs=1)
    # The incumbent is fair (loss 0.005); the candidate gives the first player 40% at
    # four players: an advantage of 15 points.
    drops = [_race(rng, race, 0.40, 0.005, 300) for _ in range(20)]
    assert all(d == 1 for d in drops)
    # A small advantage (5 points) takes more games, but is found before the end.
    later = [_race(rng, race, 0.30, 0.005, 300) for _ in range(20)]
    assert sum(1 for d in later if d) >= 15
    assert sum(later) > sum(drops)


def test_false_drops_stay_below_alpha() -> None:
    """Candidates exactly as good as the incumbent (the same true loss) are dropped in at
    most alpha of races; with a large alpha the test does drop some (it is not vacuous)."""
    rng = random.Random(11)
    races = 300
    for alpha, low in ((0.05, 0.0), (0.6, 0.02)):
        race = Race(alpha=alpha, looks=4, pairs=1)
        # True advantage 0.02; the incumbent was measured at exactly that loss.
        dropped = sum(1 for _ in range(races) if _race(rng, race, 0.27, 0.02, 200))
        rate = dropped / races
        margin = 3 * (alpha * (1 - alpha) / races) ** 0.5
        assert low <= rate <= alpha + margin, (alpha, rate)


def test_dominance_across_objectives() -> None:
    assert Race.dominated([0.3, 0.3], [[0.1, 0.2]])
    assert not Race.dominated([0.3, 0.1], [[0.1, 0.2]])
    assert Race.dominated([0.3, 0.1], [[0.1, 0.2], [0.2, 0.05]])
    assert Race.dominated([0.0, 0.3], [[0.0, 0.2]])  # as good in one, worse in the other
    assert not Race.dominated([0.1, 0.2], [[0.1, 0.2]])  # as good in both: kept


# ------------------------------------------------------------------ studies


@pytest.fixture(scope="module")
def klunker_result(tmp_path_factory: pytest.TempPathFactory) -> cardshop.TuneResult:
    pytest.importorskip("numba")  # the kernel plays these games in seconds
    folder = tmp_path_factory.mktemp("klunker")
    return tune(_klunker_spec(folder), storage=None)


def test_a_planted_first_player_advantage_is_tuned_away(
    klunker_result: cardshop.TuneResult,
) -> None:
    r = klunker_result
    before = r.before[4]["first_player_advantage"]
    after = r.after[4]["first_player_advantage"]
    assert before.low is not None
    assert before.low > 0.02
    assert after.low is not None
    assert after.high is not None
    assert after.low >= -0.02
    assert after.high <= 0.02
    assert r.met
    assert r.stopped == "met"
    assert r.best.values["hand_size"] != 1
    assert r.games == r.base.games + sum(c.games for c in r.trials)


def test_the_tuned_file_extends_the_base_and_sets_only_the_knob(
    klunker_result: cardshop.TuneResult, tmp_path: Path
) -> None:
    r = klunker_result
    folder = r.loaded.folder
    assert folder is not None
    out = folder / "tuned.yaml"
    text = tuned_yaml(r, out)
    out.write_text(text, encoding="utf-8")
    assert 'extends: "planted.yaml"' in text
    lines = [x for x in text.splitlines() if x and not x.startswith("#")]
    assert [x.split(":")[0] for x in lines] == ["extends", "name", "title", "hand_size"]
    assert "first_player_advantage (4p)" in text
    assert "->" in text
    tuned = cardshop.load_variant(str(out))
    assert tuned.hand_size == r.best.values["hand_size"]  # type: ignore[attr-defined]
    data = to_dict(r)
    json.dumps(data)
    assert data["knobs"][0] == {
        "path": "hand_size",
        "kind": "int",
        "base": 1,
        "tuned": r.best.values["hand_size"],
    }


def test_a_study_is_reproducible_from_its_seed(
    klunker_result: cardshop.TuneResult, tmp_path: Path
) -> None:
    again = tune(_klunker_spec(tmp_path), storage=None)
    assert [c.to_dict() for c in again.trials] == [c.to_dict() for c in klunker_result.trials]
    assert (
        again.after[4]["first_player_advantage"]
        == klunker_result.after[4]["first_player_advantage"]
    )


def test_racing_plays_fewer_games_for_the_same_answer(tmp_path: Path) -> None:
    """No first-player advantage (within 2 points) and games as short as can be: a
    candidate with longer games is dropped after its first batch, since the front has
    shorter ones, and its advantage can be no better than the front's (inside the band)."""
    pytest.importorskip("numba")
    spec = _klunker_spec(tmp_path, "stop_when_met: false\n")
    text = spec.read_text().replace("trials: 12", "trials: 6").replace("batches: 2", "batches: 3")
    text = text.replace("batch: 2500", "batch: 1000")
    text = text.replace(
        "tolerance: 0.02}", "tolerance: 0.02}\n  - {measure: rounds, direction: minimize}"
    )
    spec.write_text(text)
    on = tune(spec, storage=None, racing=True)
    off = tune(spec, storage=None, racing=False)
    assert [c.values for c in on.trials] == [c.values for c in off.trials]
    assert on.games < off.games
    assert any(c.state == "dropped" and c.batches == 1 for c in on.trials)
    assert not any(c.state == "dropped" for c in off.trials)
    assert on.best.values == off.best.values


def test_a_stored_study_resumes_and_keeps_interrupted_work(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    spec = _klunker_spec(tmp_path, "stop_when_met: false\n")
    spec.write_text(spec.read_text().replace("trials: 12", "trials: 4"))
    store = tmp_path / "study.db"
    played = [0]

    def stop_in_the_third(n: int) -> None:
        played[0] += n
        if played[0] > 5000 + 2 * 5000 + 2500:  # the base, two candidates, half the third
            raise KeyboardInterrupt

    first = tune(spec, storage=store, on_games=stop_in_the_third)
    assert first.stopped == "interrupted"
    finished = [c for c in first.trials if c.state in ("complete", "dropped")]
    assert len(finished) >= 2
    second = tune(spec, storage=store)
    assert [c.values for c in second.trials[: len(finished)]] == [c.values for c in finished]
    assert len([c for c in second.trials if c.state != "stopped"]) == 4
    assert second.stopped == "trials"


def test_a_slow_family_knob_and_a_rejected_candidate(tmp_path: Path) -> None:
    """Reglamentacja (no kernel): game length by the hand limit; a row of 4 fails the
    variant's own check (the speculator's die counts along a row of 6) and is never played."""
    spec = _write(
        tmp_path,
        "rg.yaml",
        "base: reglamentacja\n"
        "knobs:\n  - {path: hand_limit, choices: [4, 9]}\n  - {path: row_size, choices: [4, 6]}\n"
        "objectives:\n  - {measure: rounds, target: 22, tolerance: 6}\n"
        "players: [3]\nbudget: {games: 200, batch: 6, batches: 1, trials: 6}\nseed: 2\n"
        "stop_when_met: false\n",
    )
    r = tune(spec, storage=None, workers=1)
    rejected = [c for c in r.trials if c.state == "rejected"]
    assert rejected
    assert all(c.games == 0 and "die" in c.reason for c in rejected)
    assert all(c.values["row_size"] == 4 for c in rejected)
    assert r.best.values == {"hand_limit": 9, "row_size": 6}
    assert r.after[3]["rounds"].value < r.before[3]["rounds"].value


# ------------------------------------------------------------ command line


def _cardshop(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cardshop", *args],
        capture_output=True,
        text=True,
        timeout=900,  # a hang guard: a tune command here takes seconds to a minute
        check=False,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200"},
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("hand_size, low", "hand_sise, low"), "the base variant has no hand_sise"),
        (("low: 1, high: 8", "low: 8, high: 1"), "the range is empty"),
        (("first_player_advantage", "first_player_edge"), "unknown measure 'first_player_edge'"),
        (("games: 60000", "games: 0"), "budget.games"),
    ],
)
def test_command_errors_exit_2_in_one_paragraph(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    spec = _klunker_spec(tmp_path)
    spec.write_text(spec.read_text().replace(*change))
    proc = _cardshop("tune", "spec.yaml", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("cardshop: error: spec.yaml:")
    assert message in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert not (tmp_path / "spec.tune.db").exists()


def test_command_writes_the_tuned_variant_json_and_html(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    pytest.importorskip("plotly")
    _klunker_spec(tmp_path)
    proc = _cardshop(
        "tune", "spec.yaml", "--json", "s.json", "--html", "s.html", "-q", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert "every target met" in proc.stdout
    assert (tmp_path / "spec.tune.db").is_file()
    tuned = cardshop.load_variant(str(tmp_path / "spec.tuned.yaml"))
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["schema"] == "cardshop-tune/1"
    assert data["met"]
    assert tuned.hand_size == data["knobs"][0]["tuned"]  # type: ignore[attr-defined]
    page = (tmp_path / "s.html").read_text()
    assert "Content-Security-Policy" in page
    assert "Optimisation history" in page
    # Run again: the stored study resumes (no new candidate: the target is met).
    again = _cardshop("tune", "spec.yaml", "--json", "t.json", "-q", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert json.loads((tmp_path / "t.json").read_text())["trials"] == data["trials"]


# ---------------------------------------------------------------- precision


def test_audit_plays_until_the_precision_is_reached() -> None:
    from cardshop.audit import run_audit
    from cardshop.audit.precision import audit_to_precision, half_widths, precision_reached

    quick = {"players": [3], "examples": 0, "check_every": 1000}
    report = audit_to_precision("klunker-en", 0.12, max_games=1000, first_games=40, **quick)
    assert precision_reached(report, 0.12, ["win_share_*"])
    assert 40 < report.games < 1000  # more than the first run, far fewer than the cap
    # The same as an audit of that many games; the first run's 40 were not enough.
    plain = run_audit("klunker-en", games=report.games, **quick)
    assert plain.to_dict() == report.to_dict()
    first = run_audit("klunker-en", games=40, **quick)
    assert not precision_reached(first, 0.12, ["win_share_*"])
    capped = run_audit("klunker-en", precision=0.001, games=50, **quick)
    assert capped.games == 50
    assert not precision_reached(capped, 0.001, ["win_share_*"])
    assert max(half_widths(capped, ["win_share_*"]).values()) > 0.001


def test_audit_precision_on_the_command_line(tmp_path: Path) -> None:
    args = ("audit", "klunker-en", "-p", "3", "--examples", "0", "--check-every", "1000")
    proc = _cardshop(*args, "--precision", "0.1", "--games", "300", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    games = json.loads(proc.stdout)["games"]
    assert f"precision 0.1 reached: {games:,} games per player count" in proc.stderr
    bad = _cardshop(*args, "--precision", "0", cwd=tmp_path)
    assert bad.returncode == 2
    assert "precision must be a number above 0" in bad.stderr
