"""The report's charts as plotly.js figure specs (plain JSON-able dicts).

The specs are built by hand rather than through ``plotly.graph_objects``: the page
only needs plotly.js, and plain dicts keep rendering fast. ``tests/test_report.py``
checks every spec against plotly's own schema.

Text from the report (variant names, bot specs) is HTML-escaped before it goes into a
spec: plotly.js reads a few HTML tags in labels, and shows ``&lt;`` as ``<``, so an
escaped name shows exactly as written and never becomes markup.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cardshop.report._model import Charts, Rate

__all__ = ["CHARTS", "Series", "chart_specs"]

COLOURS = ("#3366cc", "#e6550d")  # variant A, variant B: distinct for colour-blind readers too
BANDS = ("rgba(51, 102, 204, 0.2)", "rgba(230, 85, 13, 0.2)")  # their intervals

CHARTS: tuple[tuple[str, str], ...] = (
    ("scores", "Final scores per seat"),
    ("length", "Game length"),
    ("win_seat", "Win rate per seat"),
    ("win_bot", "Win rate per bot"),
    ("lead_changes", "Lead changes per game"),
    ("drama", "Drama: how far behind the eventual winner was"),
    ("branching", "Branching factor over the course of a game"),
    ("choices", "Legal actions per decision"),
)
"""The charts of one player count, in page order: (id, title)."""


@dataclass(frozen=True, slots=True)
class Series:
    """One variant's charts at one player count, and how the page names it."""

    name: str
    charts: Charts
    players: int
    length_unit: str = "round"
    """What the variant's family counts a game's length in: the length chart's words."""


def _esc(text: str) -> str:
    return html.escape(text, quote=False)  # plotly.js reads &lt; &gt; &amp;, not &quot;


def _base(title: str, xtitle: str, ytitle: str, **extra: Any) -> dict[str, Any]:
    layout: dict[str, Any] = {
        "title": {"text": _esc(title)},
        "xaxis": {"title": {"text": xtitle}, "automargin": True},
        "yaxis": {"title": {"text": ytitle}, "automargin": True, "rangemode": "tozero"},
        "margin": {"l": 60, "r": 20, "t": 50, "b": 50},
        "legend": {"orientation": "h", "y": -0.25},
        "height": 380,
        "template": None,
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#f7f7f7",
        "font": {"family": "system-ui, sans-serif", "size": 12},
    }
    layout.update(extra)
    return layout


def _rate_bars(series: Sequence[Series], pick: str, title: str, xtitle: str) -> dict[str, Any]:
    data = []
    for i, s in enumerate(series):
        rates: tuple[Rate, ...] = getattr(s.charts, pick)
        data.append(
            {
                "type": "bar",
                "name": _esc(s.name),
                "x": [_esc(r.key) for r in rates],
                "y": [r.rate for r in rates],
                "error_y": {
                    "type": "data",
                    "symmetric": False,
                    "array": [max(0.0, r.high - r.rate) for r in rates],
                    "arrayminus": [max(0.0, r.rate - r.low) for r in rates],
                    "visible": True,
                    "color": "#222222",
                },
                "marker": {"color": COLOURS[i % 2]},
                "hovertemplate": "%{x}: %{y:.1%}<extra>" + _esc(s.name) + "</extra>",
            }
        )
    layout = _base(title, xtitle, "win rate", barmode="group")
    layout["yaxis"]["tickformat"] = ".0%"
    if series:  # a bot's rate is per seat it played, so 1/N is fair for both charts
        fair = 1 / series[0].players
        layout["shapes"] = [
            {
                "type": "line",
                "xref": "paper",
                "x0": 0,
                "x1": 1,
                "y0": fair,
                "y1": fair,
                "line": {"dash": "dash", "color": "#777777", "width": 1},
            }
        ]
        layout["annotations"] = [
            {
                "xref": "paper",
                "x": 1,
                "y": fair,
                "yanchor": "bottom",
                "xanchor": "right",
                "text": f"fair share 1/{series[0].players}",
                "showarrow": False,
                "font": {"color": "#555555", "size": 11},
            }
        ]
    return {"data": data, "layout": layout}


def _histograms(
    series: Sequence[Series], pick: str, title: str, xtitle: str, bin_size: float | None
) -> dict[str, Any]:
    data = []
    for i, s in enumerate(series):
        trace: dict[str, Any] = {
            "type": "histogram",
            "name": _esc(s.name),
            "x": list(getattr(s.charts, pick)),
            "marker": {"color": COLOURS[i % 2]},
            "opacity": 0.6 if len(series) > 1 else 0.85,
        }
        if bin_size is not None:
            trace["xbins"] = {"size": bin_size}
        data.append(trace)
    return {"data": data, "layout": _base(title, xtitle, "games", barmode="overlay")}


def _scores(series: Sequence[Series]) -> dict[str, Any]:
    data = []
    for i, s in enumerate(series):
        for n, (seat, scores) in enumerate(s.charts.scores_by_seat):
            data.append(
                {
                    "type": "box",
                    "name": _esc(s.name),
                    "x0": f"seat {seat}",
                    "y": list(scores),
                    "boxmean": True,
                    "offsetgroup": str(i),
                    "legendgroup": str(i),
                    "showlegend": n == 0,
                    "marker": {"color": COLOURS[i % 2]},
                }
            )
    layout = _base("Final scores per seat", "seat", "final score", boxmode="group")
    layout["xaxis"]["type"] = "category"
    return {"data": data, "layout": layout}


def _length(series: Sequence[Series]) -> dict[str, Any]:
    lengths = f"{series[0].length_unit}s" if series else "rounds"
    panels = [("rounds", lengths), ("decisions", "decisions")]
    if any(s.charts.ticks is not None for s in series):
        panels.append(("ticks", "ticks"))
    gap = 0.06
    width = (1 - gap * (len(panels) - 1)) / len(panels)
    layout = _base("Game length", "", "games", barmode="overlay")
    data = []
    for p, (pick, label) in enumerate(panels):
        suffix = "" if p == 0 else str(p + 1)
        start = p * (width + gap)
        layout[f"xaxis{suffix}"] = {
            "domain": [start, start + width],
            "title": {"text": f"{label} per game"},
            "anchor": f"y{suffix}",
            "automargin": True,
        }
        if p:
            layout[f"yaxis{suffix}"] = {"anchor": f"x{suffix}", "rangemode": "tozero"}
        for i, s in enumerate(series):
            values = getattr(s.charts, pick)
            if values is None:
                continue
            data.append(
                {
                    "type": "histogram",
                    "name": _esc(s.name),
                    "x": list(values),
                    "xaxis": f"x{suffix}",
                    "yaxis": f"y{suffix}",
                    "legendgroup": str(i),
                    "showlegend": p == 0,
                    "marker": {"color": COLOURS[i % 2]},
                    "opacity": 0.6 if len(series) > 1 else 0.85,
                }
            )
    return {"data": data, "layout": layout}


def _branching(series: Sequence[Series]) -> dict[str, Any]:
    data: list[dict[str, Any]] = []
    for i, s in enumerate(series):
        bins = s.charts.branching
        colour = COLOURS[i % 2]
        banded = [b for b in bins if b.low is not None and b.high is not None]
        if banded:
            x = [b.progress for b in banded]
            data.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "x": x + x[::-1],
                    "y": [b.high for b in banded] + [b.low for b in banded][::-1],
                    "fill": "toself",
                    "fillcolor": BANDS[i % 2],
                    "line": {"width": 0, "color": colour},
                    "hoverinfo": "skip",
                    "legendgroup": str(i),
                    "showlegend": False,
                    "name": _esc(s.name) + " 95% interval",
                }
            )
        data.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": _esc(s.name),
                "x": [b.progress for b in bins],
                "y": [b.mean for b in bins],
                "line": {"color": colour},
                "legendgroup": str(i),
                "hovertemplate": "%{x:.0%} played: %{y:.2f} legal actions<extra>"
                + _esc(s.name)
                + "</extra>",
            }
        )
    layout = _base(
        "Branching factor over the course of a game",
        "share of the game played",
        "legal actions per decision",
    )
    layout["xaxis"].update({"tickformat": ".0%", "range": [0, 1]})
    return {"data": data, "layout": layout}


NARROW = 60
"""A branching histogram whose legal actions span at most this many gets a bar per count."""


def _choices(series: Sequence[Series]) -> dict[str, Any]:
    """The distribution of the number of legal actions at a decision, as shares."""
    data = []
    for i, s in enumerate(series):
        counts = s.charts.branching_histogram
        trace: dict[str, Any] = {
            "type": "histogram",
            "name": _esc(s.name),
            "x": [actions for actions, _ in counts],
            "y": [decisions for _, decisions in counts],
            "histfunc": "sum",
            "histnorm": "probability",
            "marker": {"color": COLOURS[i % 2]},
            "opacity": 0.6 if len(series) > 1 else 0.85,
        }
        data.append(trace)
    values = [a for s in series for a, _ in s.charts.branching_histogram]
    if values and max(values) - min(values) <= NARROW:
        for trace in data:  # one bar per number of legal actions
            trace["xbins"] = {"start": min(values) - 0.5, "end": max(values) + 0.5, "size": 1}
    layout = _base(
        "Legal actions per decision",
        "legal actions at a decision (1: forced)",
        "share of decisions",
        barmode="overlay",
    )
    layout["yaxis"]["tickformat"] = ".0%"
    return {"data": data, "layout": layout}


def chart_specs(series: Sequence[Series]) -> dict[str, dict[str, Any]]:
    """The figure spec of every chart in :data:`CHARTS` for one player count.

    ``series`` holds one entry for an audit and two for a comparison, which are
    drawn over each other (boxes and bars side by side, histograms see-through).
    """
    return {
        "scores": _scores(series),
        "length": _length(series),
        "win_seat": _rate_bars(series, "win_rate_by_seat", "Win rate per seat", "seat"),
        "win_bot": _rate_bars(series, "win_rate_by_bot", "Win rate per bot", "bot"),
        "lead_changes": _histograms(
            series, "lead_changes", "Lead changes per game", "lead changes in a game", 1
        ),
        "drama": _histograms(
            series,
            "drama",
            "Drama: how far behind the eventual winner was",
            "the winner's worst deficit (points); 0 = never behind",
            None,
        ),
        "branching": _branching(series),
        "choices": _choices(series),
    }
