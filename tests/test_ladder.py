"""The rating ladder (cardshop.ladder, cardshop ladder): line-ups, paired deals,
rotations, the Plackett-Luce fit, the win-rate matrix, cycles, checkpoints, JSON."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("choix")
pytest.importorskip("numpy")

import cardshop
from cardshop.core.errors import SetupError
from cardshop.ladder import (
    ELO,
    CheckpointError,
    LadderError,
    LadderResult,
    count_games,
    lineups,
    rotated,
    run_ladder,
)
from cardshop.ladder._model import cycles, fit, rankings, strengths
from cardshop.simulation import game_seed
from dask_support import DASK, loopback_cluster

VARIANT = "klunker-en"
CHEAP = ["random", "greedy", "baseline"]


@pytest.fixture(scope="module")
def small() -> LadderResult:
    """3 bots at 3 seats of klunker-en: one line-up, 4 deals, 3 rotations."""
    return run_ladder(VARIANT, CHEAP, players=3, deals=4, seed=5, workers=1, resamples=30)


# ---------------------------------------------------------------- synthetic games


def plackett_luce(rng: random.Random, strength: list[float], items: list[int]) -> list[int]:
    """A finishing order of ``items`` drawn from Plackett-Luce with log-strengths."""
    left, order = list(items), []
    while left:
        weights = [math.exp(strength[i]) for i in left]
        pick = rng.choices(range(len(left)), weights=weights)[0]
        order.append(left.pop(pick))
    return order


def synthetic_deals(
    strength: list[float], deals: int, seats: int, seed: int
) -> list[list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]]:
    """Games grouped by deal, as fit() takes them: every set of ``seats`` bots per deal."""
    rng = random.Random(seed)
    n = len(strength)
    out = []
    for d in range(deals):
        games = []
        for k, lineup in enumerate(lineups(n, seats)):
            order = plackett_luce(rng, strength, list(lineup))
            ranks = tuple(order.index(b) + 1 for b in lineup)
            games.append((lineup, ranks, (k, d, 0)))
        out.append(games)
    return out


def test_the_fit_recovers_a_planted_order_and_its_intervals_hold_the_truth() -> None:
    truth = [0.0, 0.4, 0.8, 1.2, 1.6]
    model = fit(5, synthetic_deals(truth, 150, 3, seed=1), seed=3, resamples=40)
    order = sorted(range(5), key=lambda i: model.ratings[i])
    assert order == [0, 1, 2, 3, 4]
    mean = sum(truth) / len(truth)
    for i, t in enumerate(truth):
        points = ELO * (t - mean)
        assert model.rating_low[i] <= points <= model.rating_high[i], (i, points, model)
        assert model.rating_low[i] < model.ratings[i] < model.rating_high[i]


def test_the_fit_is_the_maximum_likelihood_estimate_of_choix() -> None:
    import choix

    truth = [0.0, 1.0, 0.5]
    data = [
        r
        for deal in synthetic_deals(truth, 40, 2, seed=2)
        for s, k, _ in deal
        for r in rankings(s, k, 0)
    ]
    virtual = [(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)]
    ml = choix.opt_rankings(3, data + virtual, alpha=0.0)
    ours = strengths(3, data)
    assert ours == pytest.approx(list(ml - ml.mean()), abs=1e-3)


def test_a_bot_that_always_wins_has_a_finite_rating() -> None:
    deals = [[((0, 1), (1, 2), (0, d, 0)), ((1, 0), (2, 1), (0, d, 1))] for d in range(30)]
    model = fit(2, deals, seed=0, resamples=20)
    assert math.isfinite(model.ratings[0])
    assert model.ratings[0] - model.ratings[1] > 600  # 61 wins to 1, virtual games included
    assert model.wins[0][1] == 1.0


def test_ties_count_half_in_the_matrix_and_are_ordered_at_random_in_the_fit() -> None:
    games = [((0, 1), (1, 1), (0, d, 0)) for d in range(200)]
    model = fit(2, [[g] for g in games], seed=0, resamples=10)
    assert model.wins[0][1] == 0.5
    firsts = Counter(rankings((0, 1), (1, 1), 0, 0, d, 0)[0][0] for d in range(200))
    assert 60 < firsts[0] < 140  # both orders, seeded
    assert rankings((0, 1), (1, 1), 0, 0, 7, 0) == rankings((0, 1), (1, 1), 0, 0, 7, 0)


def test_a_planted_cycle_is_found_and_none_in_a_transitive_case() -> None:
    rng = random.Random(4)

    def deals(beats: dict[tuple[int, int], float]) -> list[list[tuple]]:  # type: ignore[type-arg]
        out = []
        for d in range(60):
            games = []
            for k, (a, b) in enumerate(beats):
                for r in range(2):
                    a_first = rng.random() < beats[(a, b)]
                    seats = (a, b) if r == 0 else (b, a)
                    first = a if a_first else b
                    ranks = tuple(1 if s == first else 2 for s in seats)
                    games.append((seats, ranks, (k, d, r)))
            out.append(games)
        return out

    rock_paper_scissors = {(0, 1): 0.8, (1, 2): 0.8, (2, 0): 0.8}
    model = fit(3, deals(rock_paper_scissors), seed=1, resamples=40)
    assert cycles(model.win_low) == [(0, 2, 1)] or cycles(model.win_low) == [(0, 1, 2)]
    found = cycles(model.win_low)[0]
    assert all(model.win_low[a][b] > 0.5 for a, b in zip(found, found[1:] + found[:1], strict=True))
    transitive = {(0, 1): 0.8, (1, 2): 0.8, (0, 2): 0.9}
    assert cycles(fit(3, deals(transitive), seed=1, resamples=40).win_low) == []


# ------------------------------------------------------------- line-ups and deals


def test_lineups_are_the_sets_of_bots_or_one_against_the_rest() -> None:
    assert lineups(4, 3) == [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]
    assert lineups(2, 4) == [(0, 1, 1, 1), (1, 0, 0, 0)]
    assert len(lineups(3, 5)) == 6
    with pytest.raises(SetupError, match="line-ups"):
        lineups(14, 7)


def test_rotation_balances_the_seats(small: LadderResult) -> None:
    assert rotated((0, 1, 2), 1) == (2, 0, 1)
    for lineup in range(len(small.lineups)):
        for deal in range(small.deals):
            games = [g for g in small.games if g.lineup == lineup and g.deal == deal]
            assert len(games) == small.players
            seats = Counter((b, s) for g in games for s, b in enumerate(g.seats))
            assert set(seats.values()) == {1}
            assert {b for b, _ in seats} == set(small.lineups[lineup])


def test_every_line_up_and_rotation_plays_the_same_deals() -> None:
    ladder = run_ladder(
        VARIANT, ["random", "greedy"], players=3, deals=3, seed=9, workers=1, resamples=0
    )
    assert len(ladder.lineups) == 2
    by_deal: dict[int, set[int]] = {}
    for g in ladder.games:
        by_deal.setdefault(g.deal, set()).add(g.seed)
    assert by_deal == {d: {game_seed(9, d)} for d in range(3)}
    # The same seed deals the same cards: the games start from the same position.
    starts = {d: cardshop.new_game(VARIANT, 3, game_seed(9, d)).to_json() for d in range(3)}
    assert starts[0] == cardshop.new_game(VARIANT, 3, game_seed(9, 0)).to_json()
    assert len(set(starts.values())) == 3


def test_the_matrix_sums_to_one_and_counts_the_games(small: LadderResult) -> None:
    n = len(small.bots)
    for a in range(n):
        assert small.wins[a][a] is None
        for b in range(n):
            if a != b:
                assert small.wins[a][b] + small.wins[b][a] == pytest.approx(1.0)  # type: ignore[operator]
                assert small.win_low[a][b] <= small.wins[a][b] <= small.win_high[a][b]  # type: ignore[operator]
                assert small.pair_games[a][b] == small.played
    assert small.played == 1 * 4 * 3


def test_process_workers_give_the_same_result(small: LadderResult) -> None:
    again = run_ladder(VARIANT, CHEAP, players=3, deals=4, seed=5, workers=2, resamples=30)
    assert again == small


@DASK
def test_a_dask_cluster_gives_the_same_result(small: LadderResult) -> None:
    with loopback_cluster() as (_cluster, client):
        again = run_ladder(
            VARIANT, CHEAP, players=3, deals=4, seed=5, executor=client, resamples=30
        )
    assert again == small


# ---------------------------------------------------------------------- checkpoint


def test_a_stopped_run_resumes_from_its_checkpoint(tmp_path: Path, small: LadderResult) -> None:
    path = tmp_path / "ladder.jsonl"
    seen = 0

    def stop_midway(n: int) -> None:
        nonlocal seen
        seen += n
        if seen >= 6:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_ladder(
            VARIANT,
            CHEAP,
            players=3,
            deals=4,
            seed=5,
            workers=1,
            resamples=30,
            checkpoint=path,
            progress=stop_midway,
        )
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + 2  # the header and two deals of three games
    with path.open("a") as f:
        f.write("[[0,2,0,1")  # a line cut short by the stop
    played: list[int] = []
    resumed = run_ladder(
        VARIANT,
        CHEAP,
        players=3,
        deals=4,
        seed=5,
        workers=1,
        resamples=30,
        checkpoint=path,
        progress=played.append,
    )
    assert resumed == small
    assert played[0] == 6  # the games found in the checkpoint, then the rest
    assert sum(played) == small.played
    assert len(path.read_text().splitlines()) == 1 + 4


def test_a_rerun_with_more_deals_plays_only_the_new_ones(
    tmp_path: Path, small: LadderResult
) -> None:
    path = tmp_path / "ladder.jsonl"
    kwargs = {"players": 3, "seed": 5, "workers": 1, "resamples": 30, "checkpoint": path}
    first = run_ladder(VARIANT, CHEAP, deals=2, **kwargs)  # type: ignore[arg-type]
    assert first.played == 6
    played: list[int] = []
    more = run_ladder(VARIANT, CHEAP, deals=4, progress=played.append, **kwargs)  # type: ignore[arg-type]
    assert more == small
    assert played[0] == 6
    fewer = run_ladder(VARIANT, CHEAP, deals=2, **kwargs)  # type: ignore[arg-type]
    assert fewer == first


def test_a_checkpoint_of_another_ladder_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ladder.jsonl"
    run_ladder(
        VARIANT,
        ["random", "greedy"],
        players=3,
        deals=1,
        seed=1,
        workers=1,
        resamples=0,
        checkpoint=path,
    )
    before = path.read_text()
    with pytest.raises(CheckpointError, match=r"another ladder.*seed"):
        run_ladder(
            VARIANT,
            ["random", "greedy"],
            players=3,
            deals=1,
            seed=2,
            workers=1,
            resamples=0,
            checkpoint=path,
        )
    assert path.read_text() == before
    path.write_text(before + "not json\n")
    with pytest.raises(CheckpointError, match="line 4"):
        run_ladder(
            VARIANT,
            ["random", "greedy"],
            players=3,
            deals=1,
            seed=1,
            workers=1,
            resamples=0,
            checkpoint=path,
        )


# ---------------------------------------------------------------------------- JSON


def test_json_round_trip(small: LadderResult) -> None:
    assert LadderResult.from_json(small.to_json()) == small
    light = LadderResult.from_json(small.to_json(games=False))
    assert light.games == []
    assert light.ratings == small.ratings
    assert light.to_markdown() == small.to_markdown()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(schema="cardshop-ladder/99"), "schema"),
        (lambda d: d.pop("ratings"), "missing key"),
        (lambda d: d.update(bots=["x"] * 13), "bots"),
        (lambda d: d.update(players=10**9), "players"),
        (lambda d: d.update(ratings=[1e400, 0, 0]), "ratings"),
        (lambda d: d.update(wins=[[None, 2, 0], [0, None, 0], [0, 0, None]]), "wins"),
        (lambda d: d.update(wins=[[None]]), "wins"),
        (lambda d: d.update(games=[[0, 0, 0, 1, [0, 1, 7], [1, 2, 3], [0, 0, 0]]]), "games"),
        (lambda d: d.update(games={"a": 1}), "games"),
        (lambda d: d.update(cycles=[[0, 1]]), "cycles"),
        (lambda d: d.update(lineups=[[0, 1, 2]] * 1001), "lineups"),
        (lambda d: d.update(deals=True), "deals"),
    ],
)
def test_hostile_json_is_refused(small: LadderResult, change, message: str) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(small.to_json())
    change(data)
    with pytest.raises(LadderError, match=message):
        LadderResult.from_json(json.dumps(data))


def test_json_that_is_not_a_ladder_is_refused() -> None:
    for text in ("[]", "nope", "[" * 100_000, '{"schema": "cardshop-ladder/1"}'):
        with pytest.raises(LadderError):
            LadderResult.from_json(text)


# --------------------------------------------------------------------- rendering


def test_text_markdown_and_html(small: LadderResult) -> None:
    text = small.to_text()
    assert "Ratings (Elo-like points" in text
    assert "No significant cycle" in text
    markdown = small.to_markdown()
    assert "| 1 | `greedy` |" in markdown
    pytest.importorskip("plotly")
    page = small.to_html()
    assert page.startswith("<!DOCTYPE html>")
    assert 'data-spec="ratings"' in page
    assert 'data-spec="wins"' in page
    assert '"heatmap"' in page
    assert "src=" not in page.split("<script>")[0]  # nothing loaded from elsewhere


def test_html_without_plotly_names_the_extra(
    small: LadderResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "plotly", None)
    monkeypatch.setitem(sys.modules, "plotly.offline", None)
    with pytest.raises(cardshop.CardshopError, match="'report' extra"):
        small.to_html()


# ------------------------------------------------------------------------ checks


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bots": ["random"]}, "2 to 12 bots"),
        ({"bots": ["random", "nosuch"]}, "'nosuch'.*greedy"),
        ({"bots": ["random", "random"]}, "named twice"),
        ({"players": 9}, "3 to 5 players"),
        ({"deals": 0}, "deals"),
        ({"engine": "kernel"}, "kernel"),
        ({"resamples": -1}, "resamples"),
        ({"workers": 0}, "workers"),
    ],
)
def test_bad_arguments_are_refused_before_any_game(kwargs: dict, message: str) -> None:  # type: ignore[type-arg]
    args: dict = {"bots": ["random", "greedy"], "deals": 1, "workers": 1}  # type: ignore[type-arg]
    args.update(kwargs)
    bots = args.pop("bots")
    with pytest.raises(SetupError, match=message):
        run_ladder(VARIANT, bots, **args)


def test_without_choix_the_ladder_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "choix", None)
    with pytest.raises(SetupError, match=r"'ladder' extra \(choix"):
        run_ladder(VARIANT, ["random", "greedy"], deals=1, workers=1)


def test_count_games() -> None:
    assert count_games(VARIANT, "random,greedy,baseline", players=4, deals=10) == 6 * 10 * 4
    assert count_games(VARIANT, ["random", "greedy"], deals=2) == 2 * 2 * 3


# ---------------------------------------------------------------------------- CLI


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # A hang guard: these runs take seconds.
    return subprocess.run(
        [sys.executable, "-m", "cardshop", "ladder", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )


def test_the_command_ranks_bots_and_writes_its_files(tmp_path: Path) -> None:
    proc = cli(
        VARIANT,
        "--bots",
        "random,greedy",
        "--players",
        "3",
        "--deals",
        "3",
        "--seed",
        "4",
        "--workers",
        "1",
        "--resamples",
        "20",
        "--json",
        "out.json",
        "--markdown",
        "out.md",
        "--checkpoint",
        "ck.jsonl",
        "-q",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert "1. greedy" in proc.stdout
    result = LadderResult.from_json((tmp_path / "out.json").read_text())
    assert result.played == 2 * 3 * 3
    assert result == run_ladder(
        VARIANT, ["random", "greedy"], players=3, deals=3, seed=4, workers=1, resamples=20
    )
    assert (tmp_path / "out.md").read_text() == result.to_markdown()
    assert (tmp_path / "ck.jsonl").exists()


def test_the_command_refuses_an_unknown_bot_in_one_paragraph(tmp_path: Path) -> None:
    proc = cli(VARIANT, "--bots", "random,nosuch", "--deals", "2", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("cardshop: error: ")
    assert "'nosuch'" in lines[0]
    assert "greedy" in lines[0]
    assert "Traceback" not in proc.stderr
