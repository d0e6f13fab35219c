"""The HTML report (cardshop.report): input checks, escaping, the page's contents, the
chart specs against plotly's schema, the atomic write, and the missing extra.

The page in a real browser is tested in tests/test_report_browser.py. Reports here are
built by hand after the contract of ``cardshop audit --json`` (schema cardshop-audit/2).
"""

from __future__ import annotations

import copy
import html
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import cardshop
from cardshop.report import ReportError, render_html, write_html

HOSTILE = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">&amp;"\''

MEASURES: dict[str, tuple[str, str, str]] = {
    "balance": ("Balance across seats", "share", "1 when every seat wins equally often"),
    "first_player_advantage": ("First-player advantage", "share", "seat 0's win rate over fair"),
    "skill_gap_win_rate": ("Skill gap (wins)", "share", "the stronger bot's win rate"),
    "ties": ("Ties", "share", "share of games with a shared win"),
    "rounds": ("Rounds", "rounds", "rounds per game"),
    "decisions": ("Decisions", "decisions", "decisions per game"),
    "branching": ("Branching factor", "count", "legal actions per decision"),
    "forced_share": ("Forced decisions", "share", "share of decisions with one legal action"),
    "lead_changes": ("Lead changes", "count", "times the leader changed per game"),
    "drama": ("Drama", "share", "share of games the winner was ever behind"),
    "score_spread": ("Score spread", "points", "winner's score minus the last's"),
}


def _player_count(rng: random.Random, players: int, games: int, ticks: bool) -> dict[str, Any]:
    bots = ["random"] * (players - 1) + ["greedy"]
    measures = {}
    for key, (label, unit, meaning) in MEASURES.items():
        value = rng.random() if unit == "share" else rng.uniform(1, 40)
        measures[key] = {
            "label": label,
            "value": value,
            "low": value * 0.9,
            "high": value * 1.1,
            "unit": unit,
            "meaning": meaning,
        }
    measures["capped"] = {
        "label": "Capped games",
        "value": 0.0,
        "low": None,
        "high": None,
        "unit": "share",
        "meaning": "share of games stopped by the round cap",
    }
    rate = 1 / players
    return {
        "players": players,
        "games": games,
        "measures": measures,
        "charts": {
            "scores_by_seat": {
                str(s): [rng.randint(0, 60) + 5 * s for _ in range(games)] for s in range(players)
            },
            "length": {
                "rounds": [rng.randint(8, 20) for _ in range(games)],
                "decisions": [rng.randint(40, 120) for _ in range(games)],
                "ticks": [rng.randint(50, 90) for _ in range(games)] if ticks else None,
            },
            "win_rate_by_seat": [
                {"seat": s, "rate": rate, "low": rate - 0.05, "high": rate + 0.06}
                for s in range(players)
            ],
            "win_rate_by_bot": [
                {"bot": b, "rate": r, "low": r - 0.07, "high": r + 0.07}
                for b, r in (("random", 0.2), ("greedy", 0.6))[: len(set(bots))]
            ],
            "lead_changes": [rng.randint(0, 6) for _ in range(games)],
            "drama": [rng.choice([0, 0, 0, 3, 7, 12]) for _ in range(games)],
            "branching": [
                {
                    "progress": 0.025 + 0.05 * i,
                    "mean": 8 - 0.3 * i,
                    "low": 7.6 - 0.3 * i,
                    "high": 8.4 - 0.3 * i,
                }
                for i in range(20)
            ],
            "branching_histogram": [
                {"actions": a, "decisions": rng.randint(1, 50)} for a in range(1, 12)
            ],
        },
    }


def _variant(
    rng: random.Random, name: str, title: str, counts: list[int], games: int, ticks: bool = False
) -> dict[str, Any]:
    return {
        "variant": name,
        "family": "klunker",
        "title": title,
        "bots": ["random", "random", "greedy"],
        "invariants": [
            {"name": "cards are conserved", "held": True, "detail": "checked after every move"},
        ],
        "player_counts": [_player_count(rng, n, games, ticks) for n in counts],
    }


def sample_report(
    *,
    compare: bool = False,
    title: str = "Klunker (English)",
    counts: tuple[int, ...] = (3, 4),
    games: int = 40,
    ticks: bool = False,
    seed: int = 7,
) -> dict[str, Any]:
    """An audit report after the contract; two variants and a comparison if ``compare``."""
    rng = random.Random(seed)
    variants = [_variant(rng, "klunker-en", title, list(counts), games, ticks)]
    comparison = None
    if compare:
        variants.append(_variant(rng, "gentle.yaml", "Gentle payouts", list(counts), games, ticks))
        comparison = {
            "a": "klunker-en",
            "b": "gentle.yaml",
            "player_counts": [
                {
                    "players": n,
                    "measures": {
                        key: {
                            "label": label,
                            "a": 0.5,
                            "b": 0.56,
                            "difference": 0.06,
                            "low": 0.01 if key == "balance" else -0.02,
                            "high": 0.11,
                            "significant": key == "balance",
                        }
                        for key, (label, _, _) in MEASURES.items()
                    },
                }
                for n in counts
            ],
        }
    return {
        "schema": "cardshop-audit/2",
        "cardshop": cardshop.__version__,
        "seed": seed,
        "games": games,
        "variants": variants,
        "comparison": comparison,
    }


def _specs(page: str) -> dict[str, Any]:
    m = re.search(
        r'<script type="application/json" id="cardshop-charts">(.*?)</script>', page, re.S
    )
    assert m is not None
    specs: dict[str, Any] = json.loads(m[1])
    return specs


# ---------------------------------------------------------------- the page


def test_page_holds_header_tables_and_one_container_per_chart() -> None:
    report = sample_report(counts=(3, 4))
    page = render_html(report)
    assert page.startswith("<!DOCTYPE html>")
    assert "Audit of klunker-en" in page
    assert "Klunker (English)" in page
    assert "<dd>7</dd>" in page  # the seed
    assert "40 per player count" in page
    for n in (3, 4):
        assert f'id="players-{n}"' in page
        for key in MEASURES:
            section = page.split(f'id="players-{n}"')[1].split("</section>")[0]
            assert f'data-measure="{key}"' in section
    # 8 charts per player count, each with a spec of the same key
    containers = re.findall(r'data-spec="([^"]+)"', page)
    assert len(containers) == 16
    assert sorted(containers) == sorted(_specs(page))
    assert "Comparison" not in page


def test_values_and_intervals_are_formatted_by_unit() -> None:
    report = sample_report(counts=(4,))
    m = report["variants"][0]["player_counts"][0]["measures"]
    m["balance"].update(value=0.9312, low=0.8801, high=0.9705)
    m["rounds"].update(value=14.26, low=13.9, high=14.61)
    page = render_html(report)
    row = page.split('data-measure="balance"')[1].split("</tr>")[0]
    assert "93.1%" in row
    assert "[88.0%, 97.0%]" in row
    row = page.split('data-measure="rounds"')[1].split("</tr>")[0]
    assert "14.3" in row
    assert "[13.9, 14.6]" in row
    assert "rounds per game" in row  # the meaning, as a column
    row = page.split('data-measure="capped"')[1].split("</tr>")[0]
    assert "0.0%" in row
    assert "—" in row  # no interval


def test_the_meaning_is_the_rows_tooltip() -> None:
    page = render_html(sample_report(counts=(4,)))
    assert '<tr data-measure="ties" title="share of games with a shared win">' in page


def test_comparison_overlays_both_variants_and_marks_significant_differences() -> None:
    page = render_html(sample_report(compare=True, counts=(4,)))
    assert "Comparison of klunker-en and gentle.yaml" in page
    assert "Difference (B &minus; A)" in page
    row = page.split('<tr data-measure="balance" class=significant>')[1].split("</tr>")[0]
    assert "+6.0 pp" in row
    assert "[+1.0 pp, +11.0 pp]" in row
    assert "✱ yes" in row
    row = page.split("<table class=comparison>")[1].split('data-measure="ties"')[1]
    assert row.split("</tr>")[0].endswith("<td>no</td>")
    specs = _specs(page)
    for chart in ("length", "win_seat", "win_bot", "lead_changes", "drama"):
        names = {t["name"] for t in specs[f"4-{chart}"]["data"]}
        assert names == {"A: klunker-en", "B: gentle.yaml"}, chart
    boxes = specs["4-scores"]["data"]
    assert len(boxes) == 8  # 4 seats of 2 variants, grouped side by side
    assert {b["offsetgroup"] for b in boxes} == {"0", "1"}
    assert specs["4-lead_changes"]["layout"]["barmode"] == "overlay"


def test_error_bars_span_the_intervals() -> None:
    report = sample_report(counts=(4,))
    bots = report["variants"][0]["player_counts"][0]["charts"]["win_rate_by_bot"]
    bots[:] = [{"bot": "greedy", "rate": 0.6, "low": 0.5, "high": 0.75}]
    bar = _specs(render_html(report))["4-win_bot"]["data"][0]
    assert bar["x"] == ["greedy"]
    assert bar["y"] == [0.6]
    assert bar["error_y"]["array"] == pytest.approx([0.15])
    assert bar["error_y"]["arrayminus"] == pytest.approx([0.1])


def test_ticks_get_a_panel_only_when_the_family_has_ticks() -> None:
    without = _specs(render_html(sample_report(counts=(4,))))["4-length"]
    with_ticks = _specs(render_html(sample_report(counts=(4,), ticks=True)))["4-length"]
    assert "xaxis3" not in without["layout"]
    assert len(without["data"]) == 2
    assert "xaxis3" in with_ticks["layout"]
    assert len(with_ticks["data"]) == 3


def test_every_chart_spec_is_valid_for_plotly() -> None:
    go = pytest.importorskip("plotly.graph_objects", reason="the report extra is not installed")
    for compare in (False, True):
        for key, spec in _specs(render_html(sample_report(compare=compare, ticks=True))).items():
            go.Figure(spec)  # raises ValueError naming any property plotly does not know
            assert spec["data"], key


def test_the_branching_distribution_is_a_share_of_decisions_per_count_of_actions() -> None:
    report = sample_report(counts=(3,))
    charts = report["variants"][0]["player_counts"][0]["charts"]
    charts["branching_histogram"] = [
        {"actions": 3, "decisions": 5},
        {"actions": 1, "decisions": 2},
        {"actions": 2, "decisions": 13},
    ]
    (trace,) = _specs(render_html(report))["3-choices"]["data"]
    assert (trace["x"], trace["y"]) == ([1, 2, 3], [2, 13, 5])  # sorted by legal actions
    assert (trace["histfunc"], trace["histnorm"]) == ("sum", "probability")
    assert trace["xbins"] == {"start": 0.5, "end": 3.5, "size": 1}  # one bar per count
    # Thousands of legal actions apart: plotly picks the bins.
    charts["branching_histogram"] = [
        {"actions": 1, "decisions": 9},
        {"actions": 4000, "decisions": 1},
    ]
    (wide,) = _specs(render_html(report))["3-choices"]["data"]
    assert "xbins" not in wide
    # A report without the series (it is optional in the schema) draws an empty chart.
    del charts["branching_histogram"]
    (empty,) = _specs(render_html(report))["3-choices"]["data"]
    assert empty["x"] == []
    charts["branching_histogram"] = [{"actions": 0, "decisions": 1}]
    with pytest.raises(ReportError, match=r"branching_histogram\[0\]\.actions: 0 is outside"):
        render_html(report)


def test_extra_keys_are_ignored() -> None:
    report = sample_report(counts=(4,))
    report["extra"] = {"anything": [1, 2]}
    report["variants"][0]["player_counts"][0]["measures"]["new_one"] = {
        "label": "A new measure",
        "value": 3.0,
        "low": 2.0,
        "high": 4.0,
        "unit": "ratio",
        "meaning": "shown as any other",
        "more": True,
    }
    assert 'data-measure="new_one"' in render_html(report)


def test_a_player_count_without_games_renders_empty_charts() -> None:
    report = sample_report(counts=(4,))
    count = report["variants"][0]["player_counts"][0]
    count["games"] = 0
    count["charts"] = {
        "scores_by_seat": {},
        "length": {"rounds": [], "decisions": [], "ticks": None},
        "win_rate_by_seat": [],
        "win_rate_by_bot": [],
        "lead_changes": [],
        "drama": [],
        "branching": [{"progress": 0.5, "mean": 1.0, "low": None, "high": None}],
        "branching_histogram": [],
    }
    specs = _specs(render_html(report))
    assert len(specs) == 8
    assert specs["4-choices"]["data"][0]["x"] == []
    assert specs["4-scores"]["data"] == []
    assert specs["4-win_seat"]["data"][0]["x"] == []
    assert len(specs["4-branching"]["data"]) == 1  # the mean, and no band without bounds


def test_json_round_trip_renders_the_same_page() -> None:
    report = sample_report(compare=True)
    assert render_html(json.loads(json.dumps(report))) == render_html(report)


# ---------------------------------------------------------------- escaping


def test_every_report_string_is_escaped() -> None:
    report = sample_report(compare=True, title=HOSTILE, counts=(4,))
    v = report["variants"][0]
    v["variant"] = HOSTILE
    v["family"] = HOSTILE
    v["bots"] = [HOSTILE]
    v["invariants"][0]["detail"] = HOSTILE
    pc = v["player_counts"][0]
    pc["measures"][HOSTILE] = {
        "label": HOSTILE,
        "value": 1.0,
        "low": None,
        "high": None,
        "unit": HOSTILE,
        "meaning": HOSTILE,
    }
    pc["charts"]["win_rate_by_bot"][0]["bot"] = HOSTILE
    report["comparison"]["player_counts"][0]["measures"]["ties"]["label"] = HOSTILE
    page = render_html(report)
    body = page.split("<body>", 1)[1].split('<script type="application/json"', 1)[0]
    head = page.split("<body>", 1)[0]
    assert "<script" not in body
    assert html.escape(HOSTILE, quote=True) in head  # the <title>
    assert "<img" not in body
    assert "onerror=" not in body.replace("onerror=&quot;", "")
    assert html.escape(HOSTILE, quote=True) in body
    # the chart data hold no raw markup either: names are escaped for plotly's labels,
    # and the JSON has no "<" at all
    data = page.split('id="cardshop-charts">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data
    names = {t["name"] for spec in json.loads(data).values() for t in spec["data"]}
    assert "A: " + html.escape(HOSTILE, quote=False) in names  # plotly shows it as written


def test_the_page_may_load_nothing_and_run_only_its_own_scripts() -> None:
    page = render_html(sample_report(counts=(4,)))
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert csp is not None
    assert "default-src 'none'" in csp[1]
    assert "unsafe-inline" not in csp[1].split("script-src")[1].split(";")[0]
    assert re.findall(r"<script[ >]", page).count("<script ") == 1  # the JSON data only
    assert not re.search(r"<(script|link|img|iframe)[^>]*\s(src|href)=", page)


# ---------------------------------------------------------------- malformed input


def _broken(path: str, value: Any, compare: bool = False) -> dict[str, Any]:
    report = sample_report(compare=compare, counts=(4,))
    node: Any = report
    parts = [int(p) if p.isdigit() else p for p in path.split("/")]
    for part in parts[:-1]:
        node = node[part]
    if value is KeyError:
        del node[parts[-1]]
    else:
        node[parts[-1]] = value
    return report


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        ("schema", "cardshop-audit/1", "at schema: 'cardshop-audit/1' is not a schema"),
        ("seed", KeyError, "at <top level>: the key 'seed' is missing"),
        ("games", "40", "at games: expected a whole number, got a string"),
        ("variants", [], "at variants: no variant"),
        ("variants", {"a": 1}, "at variants: expected a list, got an object"),
        ("variants/0/title", 3, "at variants[0].title: expected a string, got a number"),
        ("variants/0/bots/1", None, "at variants[0].bots[1]: expected a string, got null"),
        (
            "variants/0/player_counts/0/players",
            True,
            "players: expected a whole number, got a boolean",
        ),
        (
            "variants/0/player_counts/0/measures/balance/value",
            "high",
            "measures.balance.value: expected a number, got a string",
        ),
        (
            "variants/0/player_counts/0/measures/balance/value",
            float("nan"),
            "measures.balance.value: expected a finite number",
        ),
        ("variants/0/player_counts/0/measures/ties", KeyError, None),  # a measure may be absent
        (
            "variants/0/player_counts/0/measures/ties/label",
            KeyError,
            "measures.ties: the key 'label' is missing",
        ),
        (
            "variants/0/player_counts/0/charts/drama/3",
            "deep",
            "at variants[0].player_counts[0].charts.drama[3]: expected a number, got a string",
        ),
        ("variants/0/player_counts/0/charts/scores_by_seat/x", [1], "'x' is not a seat number"),
        ("variants/0/player_counts/0/charts/length/rounds", "12", "expected a list, got a string"),
        ("variants/0/player_counts/0/charts/length/ticks", KeyError, None),  # optional
        (
            "variants/0/player_counts/0/charts/win_rate_by_seat/0/seat",
            "0",
            "win_rate_by_seat[0].seat: expected a whole number",
        ),
        (
            "variants/0/player_counts/0/charts/branching/2",
            [0.1, 3],
            "branching[2]: expected an object, got a list",
        ),
        (
            "comparison/player_counts/0/measures/balance/significant",
            "yes",
            "comparison.player_counts[0].measures.balance.significant: expected true or false",
        ),
        ("variants/0/title", "x" * 10_001, "a string of 10001 characters, more than 10000"),
    ],
)
def test_a_malformed_report_names_the_key(path: str, value: Any, expected: str | None) -> None:
    report = _broken(path, value, compare=path.startswith("comparison"))
    if expected is None:
        assert "<!DOCTYPE html>" in render_html(report)
        return
    with pytest.raises(ReportError, match=re.escape(expected)) as caught:
        render_html(report)
    assert isinstance(caught.value, cardshop.CardshopError)
    assert str(caught.value).startswith("malformed audit report at ")


def test_not_a_dict_at_all() -> None:
    values: tuple[object, ...] = (None, [], "report", 3)
    for value in values:
        with pytest.raises(ReportError, match="at <top level>: expected an object"):
            render_html(value)  # type: ignore[arg-type]


def test_series_are_bounded_before_any_work() -> None:
    report = sample_report(counts=(4,))
    charts = report["variants"][0]["player_counts"][0]["charts"]
    charts["lead_changes"] = [0] * 2_000_001
    with pytest.raises(ReportError, match=r"lead_changes: 2000001 items, more than the 2000000"):
        render_html(report)
    charts["lead_changes"] = [0] * 1_500
    charts["drama"] = [0] * 1_999_000  # each series may be long, but not all of them together
    with pytest.raises(ReportError, match=r"drama: the chart series hold more than 2000000"):
        render_html(report)
    report = sample_report(counts=(4,))
    report["variants"].append(copy.deepcopy(report["variants"][0]))
    report["variants"].append(copy.deepcopy(report["variants"][0]))
    with pytest.raises(ReportError, match=r"at variants: 3 items, more than the 2"):
        render_html(report)


# ---------------------------------------------------------------- writing


def test_write_html_writes_the_page(tmp_path: Path) -> None:
    report = sample_report(counts=(4,))
    target = tmp_path / "report.html"
    write_html(report, target)
    assert target.read_text(encoding="utf-8") == render_html(report)
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_a_malformed_report_writes_nothing_and_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(ReportError):
        write_html(_broken("variants/0/player_counts/0/charts/drama/0", "x"), target)
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_an_unwritable_place_raises_oserror_and_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_html(sample_report(counts=(4,)), tmp_path / "missing" / "report.html")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- the optional extra


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=900, check=False
    )  # a hang guard: it takes about a second


def test_importing_cardshop_does_not_import_plotly() -> None:
    done = _python(
        "import sys, cardshop, cardshop.audit, cardshop.report\n"
        "cardshop.report.check_available()  # finds plotly without importing it\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'plotly'))"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_without_the_extra_write_html_says_how_to_install_it(tmp_path: Path) -> None:
    target = tmp_path / "r.html"
    done = _python(
        "import json, sys\n"
        "sys.modules['plotly'] = None  # as if plotly were not installed\n"
        "from cardshop.report import ReportError, check_available, write_html\n"
        "try:\n    check_available()\n"
        "except ReportError as exc:\n    print('early:', exc)\n"
        f"report = json.loads({json.dumps(json.dumps(sample_report(counts=(4,))))})\n"
        f"try:\n    write_html(report, {str(target)!r})\n"
        "except ReportError as exc:\n    print(exc)\n"
    )
    assert done.returncode == 0, done.stderr
    early, late = done.stdout.splitlines()
    assert early.startswith("early: an HTML report needs the 'report' extra")
    assert 'python -m pip install ".[report]" in a clone of cardshop' in late
    assert "plotly is not installed" in late
    assert not target.exists()
