"""The game-quality measures on hand-built game summaries whose right values are known.

Each summary below is written by hand (the scores after each round, the winners, the
legal actions of each decision), so every figure can be worked out on paper; the
comments do so.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import cardshop
from cardshop import driver
from cardshop.bots import make_bot
from cardshop.invariants import steps_of
from cardshop.measures import (
    GamesFileError,
    GamesSection,
    GameSummary,
    Tracker,
    charts,
    compare,
    decisive_point,
    lead_changes,
    measure_all,
    read_games,
    summary_from_record,
    worst_deficit,
    write_games,
)
from cardshop.records import Recorder
from cardshop.support.stats import (
    Z95,
    wilson,
)


def game(
    rows: list[tuple[int, ...]],
    *,
    winners: tuple[int, ...] | None = None,
    first: int | None = 0,
    bots: tuple[str, ...] | None = None,
    legal: tuple[int, ...] = (2,),
    rounds: int | None = None,
    termination: str = "finished",
    ticks: int | None = None,
) -> GameSummary:
    """A summary whose final scores are the last row; winners: the best score by default."""
    final = rows[-1]
    n = len(final)
    if winners is None:
        winners = tuple(s for s in range(n) if final[s] == max(final))
    ranks = tuple(1 if s in winners else 1 + sum(x > final[s] for x in final) for s in range(n))
    return GameSummary(
        players=n,
        bots=bots or ("random",) * n,
        scores=final,
        ranks=ranks,
        winners=winners,
        termination=termination,
        rounds=len(rows) if rounds is None else rounds,
        steps=len(legal),
        legal=legal,
        round_scores=tuple(rows),
        first_player=first,
        ticks=ticks,
    )


def _iv(successes: float, trials: int) -> tuple[float, float, float]:
    w = wilson(successes, trials)
    return (w.estimate, w.low, w.high)


# ------------------------------------------------------------ the lead over time


def test_the_lead_changes_exactly_twice_in_three_games() -> None:
    games = [
        game([(1, 0), (0, 2), (3, 2)]),  # leaders 0, 1, 0: two changes
        game([(1, 1), (2, 1)]),  # a tie leads no one, then 0: none
        game([(0, 5), (0, 6)]),  # 1 throughout: none
    ]
    assert [lead_changes(g) for g in games] == [2, 0, 0]
    m = measure_all(games)["lead_changes"]
    assert m.value == pytest.approx(2 / 3)
    sd = math.sqrt(((4 / 3) ** 2 + 2 * (2 / 3) ** 2) / 2)
    assert 2 / 3 - Z95 * sd / math.sqrt(3) < 0
    assert m.low == 0  # a count's interval stops at 0
    assert m.high == pytest.approx(2 / 3 + Z95 * sd / math.sqrt(3))
    assert charts(games)["lead_changes"] == [2, 0, 0]


def test_a_tie_at_the_top_keeps_the_last_sole_leader() -> None:
    assert lead_changes(game([(1, 0), (1, 1), (2, 1)])) == 0  # 0, tie, 0 again
    assert lead_changes(game([(1, 0), (1, 1), (1, 2)])) == 1  # 0, tie, then 1


def test_drama_how_often_and_how_far_the_winner_was_behind() -> None:
    games = [
        game([(0, 3), (2, 4), (6, 4)]),  # winner 0 behind by 3, then by 2: worst 3
        game([(0, 1), (5, 1)]),  # behind by 1
        game([(2, 0), (3, 1)]),  # never behind
        game([(1, 1), (2, 2)], winners=(0, 1)),  # a shared win: never behind
    ]
    assert [worst_deficit(g) for g in games] == [3, 1, 0, 0]
    measures = measure_all(games)
    drama = measures["drama"]
    assert (drama.value, drama.low, drama.high) == pytest.approx(_iv(2, 4))
    depth = measures["drama_depth"]
    assert depth.value == 2.0  # the mean of 3 and 1, over the games with drama
    assert charts(games)["drama"] == [3, 1, 0, 0]
    # The final row never counts: a winner tied at the end won on a tiebreak.
    assert worst_deficit(game([(0, 0), (3, 3)], winners=(1,))) == 0


def test_no_winner_ever_behind_has_no_drama_depth() -> None:
    measures = measure_all([game([(1, 0), (2, 0)]), game([(0, 1), (0, 3)])])
    assert measures["drama"].value == 0
    assert "drama_depth" not in measures


def test_decisiveness_is_when_the_winner_takes_a_lead_they_keep() -> None:
    # Winner 0 leads after round 2, loses it in round 3, leads from round 4 on: the
    # lasting lead starts at row 4 of 5, so 4/5 of the game was played by then.
    late = game([(0, 1), (2, 1), (1, 3), (4, 3), (5, 3)])
    assert decisive_point(late) == pytest.approx(0.8)
    early = game([(1, 0), (2, 1), (3, 1), (4, 1)])  # leads from the first round: 1/4
    assert decisive_point(early) == pytest.approx(0.25)
    # Tied at the top after the last round but one: no lead yet; the end counts.
    end = game([(1, 0), (2, 2), (3, 2)], winners=(0,))
    assert decisive_point(end) == pytest.approx(1.0)
    assert decisive_point(game([(1, 1)], winners=(0, 1))) is None  # every seat won
    m = measure_all([late, early, end])["decisiveness"]
    assert m.value == pytest.approx((0.8 + 0.25 + 1.0) / 3)


def test_without_running_scores_the_lead_measures_are_absent() -> None:
    plain = [
        GameSummary(2, ("random",) * 2, (3, 1), (1, 2), (0,), "finished", 4, 8, (2,) * 8),
        GameSummary(2, ("random",) * 2, (0, 2), (2, 1), (1,), "finished", 5, 8, (1,) * 8),
    ]
    measures = measure_all(plain)
    for absent in (
        "lead_changes",
        "drama",
        "drama_depth",
        "decisiveness",
        "first_player_advantage",
    ):
        assert absent not in measures
    assert charts(plain)["lead_changes"] == []
    assert measures["win_share_0"].label == "Win share, seat 0"  # no first player: seats


# --------------------------------------------------------------- seats and bots


def test_balance_and_first_player_advantage() -> None:
    # Two players, the first player (seat 0 or 1) wins 3 of 4 games.
    games = [
        game([(2, 1)], first=0),
        game([(1, 2)], first=1),
        game([(5, 0)], first=0),
        game([(0, 3)], first=0),  # the second player wins
    ]
    measures = measure_all(games, seed=1)
    assert measures["win_share_0"].value == 0.75
    assert measures["win_share_1"].value == 0.25
    balance = measures["balance"]
    assert balance.value == pytest.approx(0.5)  # 1 - (0.75 - 0.25)
    assert balance.low is not None
    assert balance.high is not None
    assert 0 <= balance.low <= balance.value <= balance.high <= 1
    assert measure_all(games, seed=1)["balance"] == balance  # seeded
    advantage = measures["first_player_advantage"]
    w = wilson(3, 4)
    assert (advantage.value, advantage.low, advantage.high) == pytest.approx(
        (w.estimate - 0.5, w.low - 0.5, w.high - 0.5)
    )


def test_a_shared_win_counts_one_kth_to_each_winner() -> None:
    games = [game([(2, 2, 0)]), game([(3, 0, 0)])]
    measures = measure_all(games)
    assert measures["win_share_0"].value == 0.75
    assert measures["win_share_1"].value == 0.25
    ties = measures["ties"]
    assert (ties.value, ties.low, ties.high) == pytest.approx(_iv(1, 2))  # 1 of 2 shared
    assert sum(r["rate"] for r in charts(games)["win_rate_by_seat"]) == pytest.approx(1)


def test_the_skill_gap_of_a_stronger_bot_against_random() -> None:
    bots = ("greedy", "random", "greedy")
    games = [
        game([(5, 1, 2)], bots=bots),  # greedy seat 0 wins; greedy mean 3.5, random 1
        game([(1, 4, 3)], bots=bots),  # random wins; 2 - 4
        game([(2, 0, 6)], bots=bots),  # greedy seat 2 wins; 4 - 0
    ]
    measures = measure_all(games)
    gap = measures["skill_gap_win_rate"]
    # greedy plays 2 seats of 3 games: 2 wins out of 6 seat-games.
    assert (gap.value, gap.low, gap.high) == pytest.approx(_iv(2, 6))
    assert "greedy" in gap.meaning
    assert "random" in gap.meaning
    assert measures["skill_gap_score"].value == pytest.approx((2.5 - 2 + 4) / 3)
    rates = {r["bot"]: r["rate"] for r in charts(games)["win_rate_by_bot"]}
    assert rates == pytest.approx({"greedy": 2 / 6, "random": 1 / 3})
    # One bot on every seat: no skill gap.
    same = measure_all([game([(1, 0, 0)]), game([(0, 2, 0)])])
    assert "skill_gap_win_rate" not in same
    assert "skill_gap_score" not in same


def test_ends_and_lengths() -> None:
    games = [
        game([(1, 0)], rounds=4, legal=(1, 2, 3), ticks=10),
        game([(0, 1)], rounds=6, legal=(1, 1), termination="capped", ticks=20),
    ]
    measures = measure_all(games)
    capped, completion = measures["capped"], measures["completion"]
    assert (capped.value, capped.low, capped.high) == pytest.approx(_iv(1, 2))
    assert (completion.value, completion.low, completion.high) == pytest.approx(_iv(1, 2))
    assert measures["rounds"].value == 5
    # Means of two games: the mean +- 1.96 standard errors (sd of 4, 6 is sqrt(2)).
    assert (measures["rounds"].low, measures["rounds"].high) == pytest.approx(
        (5 - Z95 * math.sqrt(2) / math.sqrt(2), 5 + Z95 * math.sqrt(2) / math.sqrt(2))
    )
    assert measures["decisions"].value == 2.5
    assert measures["ticks"].value == 15
    assert "ticks" not in measure_all([game([(1, 0)], ticks=None)])


def test_branching_and_forced_decisions_pool_every_decision() -> None:
    games = [game([(1, 0)], legal=(3, 1, 2)), game([(0, 1)], legal=(1, 1))]
    measures = measure_all(games)
    branching = measures["branching"]
    assert branching.value == pytest.approx(8 / 5)
    # The cluster (delta-method) error: games as clusters of decisions.
    r, mean_d = 8 / 5, 5 / 2
    var = ((6 - r * 3) ** 2 + (2 - r * 2) ** 2) / (2 * 1)
    se = math.sqrt(var) / mean_d
    assert branching.low == pytest.approx(max(0.0, r - Z95 * se))
    assert branching.high == pytest.approx(r + Z95 * se)
    forced = measures["forced_share"]
    assert forced.value == pytest.approx(3 / 5)
    assert forced.low is not None
    assert 0 <= forced.low <= 0.6 <= (forced.high or 0) <= 1
    histogram = charts(games)["branching_histogram"]
    assert histogram == [
        {"actions": 1, "decisions": 3},
        {"actions": 2, "decisions": 1},
        {"actions": 3, "decisions": 1},
    ]


def test_branching_by_progress_has_twenty_bins() -> None:
    # 20 decisions: decision i falls in bin i; its legal actions are i + 1.
    games = [game([(1, 0)], legal=tuple(range(1, 21))), game([(0, 1)], legal=tuple(range(1, 21)))]
    bins = charts(games)["branching"]
    assert [b["progress"] for b in bins] == pytest.approx([(i + 0.5) / 20 for i in range(20)])
    assert [b["mean"] for b in bins] == [float(i + 1) for i in range(20)]
    # Shorter games spread over the bins: 2 decisions go to bins 5 and 15.
    short = charts([game([(1, 0)], legal=(4, 6))])["branching"]
    assert [(b["progress"], b["mean"]) for b in short] == [(0.275, 4), (0.775, 6)]


def test_score_spread_and_winning_margin() -> None:
    games = [game([(5, 1, 3)]), game([(2, 2, 0)])]
    measures = measure_all(games)
    assert measures["score_spread"].value == 3  # (5 - 1 + 2 - 0) / 2
    assert measures["winning_margin"].value == 1  # (2 + 0) / 2
    assert charts(games)["scores_by_seat"] == {"0": [5, 2], "1": [1, 2], "2": [3, 0]}


def test_one_game_has_values_but_no_intervals_for_means() -> None:
    measures = measure_all([game([(1, 0), (2, 1)])])
    assert measures["rounds"].low is None
    assert measures["rounds"].high is None
    assert measures["ties"].low is not None  # a share still has its Wilson interval
    assert measure_all([]) == {}


def test_measures_need_one_player_count() -> None:
    with pytest.raises(GamesFileError, match="one player count"):
        measure_all([game([(1, 0)]), game([(1, 0, 0)])])


# ------------------------------------------------------------------ comparison


def test_comparison_of_identical_sets_finds_nothing() -> None:
    games = [game([(1, 0), (0, 2), (3, 2)]), game([(0, 1), (2, 1)]), game([(0, 3), (1, 4)])]
    diffs = compare(measure_all(games), measure_all(games))
    assert set(diffs) == set(measure_all(games))
    for d in diffs.values():
        assert d.difference == 0
        assert not d.significant


def test_comparison_marks_a_difference_whose_interval_excludes_zero() -> None:
    a = [game([(1, 0)], legal=(2, 2), rounds=4 + i % 2) for i in range(30)]
    b = [game([(1, 0)], legal=(5, 5), rounds=8 + i % 2) for i in range(30)]
    diffs = compare(measure_all(a), measure_all(b))
    rounds = diffs["rounds"]
    assert rounds.difference == 4
    se = math.sqrt(2 * (0.25 * 30 / 29) / 30)  # the same spread in both sets
    assert (rounds.low, rounds.high) == pytest.approx((4 - Z95 * se, 4 + Z95 * se))
    assert rounds.significant
    assert diffs["branching"].significant  # 2 against 5, no spread at all
    assert not diffs["win_share_0"].significant  # seat 0 wins every game in both
    # Newcombe's interval for shares: seat 0 wins 30 of 30 in A and 10 of 30 in B.
    c = [game([(1, 0)] if i < 10 else [(0, 1)], legal=(2, 2)) for i in range(30)]
    share = compare(measure_all(a), measure_all(c))["win_share_0"]
    wa, wb = wilson(30, 30), wilson(10, 30)
    low = (wb.estimate - wa.estimate) - math.sqrt(
        (wb.estimate - wb.low) ** 2 + (wa.high - wa.estimate) ** 2
    )
    assert share.difference == pytest.approx(-2 / 3)
    assert share.low == pytest.approx(low)
    assert share.significant
    assert compare(measure_all(a), measure_all(c))["balance"].significant


# ------------------------------------------------------------- saved summaries


def test_summaries_round_trip_through_a_games_file(tmp_path: Path) -> None:
    games = [game([(1, 0), (0, 2), (3, 2)], ticks=7), game([(1, 1), (2, 1)], first=None)]
    header = {
        "variant": "x", "name": "x", "family": "klunker", "title": "X", "content_hash": "ab",
        "seed": 0, "games": 2, "bots": ["random"], "players": [2],
    }  # fmt: skip
    path = tmp_path / "games.jsonl"
    write_games([GamesSection(header, games)], path)
    (section,) = read_games(path)
    assert section.games == games
    assert section.header == header


def test_saved_games_report_each_bots_win_rate_in_every_form(tmp_path: Path) -> None:
    """The report of hand-built games, recomputed from a saved file: the per-bot win
    rates (greedy won 2 of its 6 seat-games, random 1 of 3) in text, Markdown and JSON."""
    from cardshop.audit import AuditReport, report_from_games

    bots = ("greedy", "random", "greedy")
    games = [
        game([(5, 1, 2)], bots=bots),
        game([(1, 4, 3)], bots=bots),
        game([(2, 0, 6)], bots=bots),
    ]
    header = {
        "variant": "x", "name": "x", "family": "klunker", "title": "X", "content_hash": "ab",
        "seed": 0, "games": 3, "bots": ["greedy", "random"], "players": [3],
    }  # fmt: skip
    path = tmp_path / "games.jsonl"
    write_games([GamesSection(header, games)], path)
    report = report_from_games(path)
    assert isinstance(report, AuditReport)
    greedy, random_ = str(wilson(2, 6)), str(wilson(1, 3))
    text = report.to_text()
    assert f"greedy  {greedy}" in text
    assert f"random  {random_}" in text
    assert f"| 3 | {greedy} | {random_} |" in report.to_markdown()
    (pc,) = report.to_dict()["variants"][0]["player_counts"]
    rates = {r["bot"]: (r["rate"], r["low"], r["high"]) for r in pc["charts"]["win_rate_by_bot"]}
    assert rates["greedy"] == pytest.approx(_iv(2, 6), abs=1e-6)
    # One bot on every seat: no per-bot lines.
    header["bots"] = ["random"]
    write_games([GamesSection(header, [game([(1, 0, 0)])])], path)
    assert "each bot" not in report_from_games(path).to_text()


def test_a_saved_comparison_marks_its_significant_differences(tmp_path: Path) -> None:
    """Two sections of hand-built games: B's games last 4 rounds longer, seat 0 wins
    every game in both; only the first difference is marked, in text and Markdown."""
    from cardshop.audit import AuditError, ComparisonReport, report_from_games

    header = {
        "variant": "a", "name": "a", "family": "klunker", "title": "A", "content_hash": "ab",
        "seed": 0, "games": 30, "bots": ["random"], "players": [2],
    }  # fmt: skip
    a = [game([(1, 0)], rounds=4 + i % 2) for i in range(30)]
    b = [game([(1, 0)], rounds=8 + i % 2) for i in range(30)]
    path = tmp_path / "both.jsonl"
    write_games([GamesSection(header, a), GamesSection({**header, "variant": "b"}, b)], path)
    report = report_from_games(path)
    assert isinstance(report, ComparisonReport)
    lines = report.to_text().splitlines()
    (rounds,) = [line for line in lines if "Rounds" in line]
    (share,) = [line for line in lines if "Win share, first player  " in line]
    assert rounds.startswith("  * Rounds")
    assert "B-A 4.00 [" in rounds
    assert share.startswith("    Win share")  # 100% in both: no mark
    markdown = report.to_markdown()
    assert "| Rounds | 4.50 | 8.50 | **4.00 [" in markdown
    # A file whose sections are of two families is refused, as such a comparison is.
    other = {**header, "variant": "b", "family": "wuhltisch"}
    write_games([GamesSection(header, a), GamesSection(other, b)], path)
    with pytest.raises(AuditError, match="families 'klunker' and 'wuhltisch'"):
        report_from_games(path)
    assert "| Win share, first player | 100.0% | 100.0% | 0.0% [" in markdown


def _line(**changes: Any) -> dict[str, Any]:
    data = game([(1, 0), (3, 2)]).to_dict()
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "is a JSON object"),
        (_line(extra=1), "unknown key 'extra'"),
        ({k: v for k, v in _line().items() if k != "ranks"}, "'ranks' is missing"),
        (_line(players=0), "'players' must be a whole number 1..64"),
        (_line(scores=[1]), "'scores' must be a list of 2 numbers"),
        (_line(scores=[1, True]), "'scores' must hold whole numbers"),
        (_line(winners=[1]), "'winners' must list the seats of rank 1"),
        (_line(termination="draw"), "'termination'"),
        (_line(decisions=5), "'decisions' must be a whole number 1..1"),
        (_line(legal=[0]), "'legal' must hold whole numbers within 1.."),
        (_line(round_scores=[[9, 9]]), "last row of 'round_scores' must be the scores"),
        (_line(first_player=2), "'first_player' must be a whole number 0..1"),
        (_line(bots=["random"]), "'bots' must name the bot of each of 2 seats"),
    ],
)
def test_a_bad_summary_is_refused_with_its_key(data: Any, message: str) -> None:
    with pytest.raises(GamesFileError, match=message.replace("(", r"\(")):
        GameSummary.from_dict(data, "games.jsonl:2")


def test_a_bad_games_file_is_refused_naming_the_line(tmp_path: Path) -> None:
    header = {
        "format": "cardshop-games/1", "variant": "x", "name": "x", "family": "klunker",
        "title": "X", "content_hash": "ab", "seed": 0, "games": 1, "bots": ["random"],
        "players": [2],
    }  # fmt: skip
    good = json.dumps(game([(1, 0)]).to_dict())
    cases = {
        "": "empty: no header line",
        good: ":1: a saved-games file starts with a header line",
        json.dumps(header) + "\n{not json": ":2: not JSON",
        json.dumps(header) + "\n[]": ":2: each line must be a JSON object",
        json.dumps({**header, "format": "x"}): "not a saved-games file",
        json.dumps({**header, "games": -1}): "'games' must be within",
        json.dumps({**header, "players": [3]}) + "\n" + good: ":2: a game of 2 players",
        "\n".join([json.dumps(header)] * 3): ":3: more than 2 sections",
        json.dumps({**header, "secret": 1}): "unknown header key 'secret'",
        "[" * 100_000: "nested too deeply|not JSON",
    }
    for i, (text, message) in enumerate(cases.items()):
        path = tmp_path / f"g{i}.jsonl"
        path.write_text(text)
        with pytest.raises(GamesFileError, match=message):
            read_games(path)
    with pytest.raises(GamesFileError, match="not a regular file"):
        read_games(tmp_path)
    with pytest.raises(GamesFileError, match="cannot read"):
        read_games(tmp_path / "missing.jsonl")
    (tmp_path / "bin.jsonl").write_bytes(b"\xff\xfe")
    with pytest.raises(GamesFileError, match="not a text file"):
        read_games(tmp_path / "bin.jsonl")


# ------------------------------------------------------- collecting from games


SHORT_WUHLTISCH = "extends: wuhltisch\nname: wuhltisch-short\nrounds: 2\n"


@pytest.mark.parametrize(
    ("variant", "players"), [("klunker-en", 3), ("wuhltisch", 2), ("klunker-zh", 3)]
)
def test_a_record_gives_the_summary_collected_while_playing(variant: str, players: int) -> None:
    """Running scores of a turn-based game, a simultaneous one and a match; a record
    replays to the same summary. (Reglamentacja: tests/test_audit.py, every family.)"""
    rules = cardshop.parse_variant(SHORT_WUHLTISCH) if variant == "wuhltisch" else variant
    g = cardshop.new_game(rules, players, seed=5)
    bots = [make_bot("random", g.variant, seed) for seed in range(players)]
    tracker = Tracker(g, bots, ["random"] * players)
    recorder = Recorder(g, bots=["random"] * players)
    while not g.is_over:
        recorder.add(driver.step(g, tracker.players))
        tracker.after_step()
    summary = tracker.summary()
    result = g.result()
    assert summary.scores == result.scores
    assert summary.decisions == len(g.moves)
    assert summary.steps == len(steps_of(g))  # counted while playing
    assert summary.round_scores[-1] == result.scores
    assert len(summary.round_scores) >= 2  # running scores were read along the way
    assert all(x >= 1 for x in summary.legal)
    assert summary_from_record(recorder.record()) == summary
