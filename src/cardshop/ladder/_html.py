"""A ladder as one self-contained HTML page: tables, a ratings chart and a heat map.

plotly.js (the ``report`` extra) is inlined as in the audit report, and the page's
Content-Security-Policy lets it load nothing from anywhere.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from typing import TYPE_CHECKING, Any

from cardshop.report._html import plotly_js

if TYPE_CHECKING:
    from cardshop.ladder._result import LadderResult

__all__ = ["page"]

CSS = """
body { font-family: system-ui, sans-serif; margin: 0; color: #222; }
main { max-width: 70rem; margin: 0 auto; padding: 1rem 2rem 3rem; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #ccc; padding: .3rem .6rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.chart { width: 100%; height: 28rem; }
footer { margin-top: 3rem; color: #666; font-size: .85rem; }
"""

BOOT = """
(function () {
  "use strict";
  var specs = JSON.parse(document.getElementById("cardshop-charts").textContent);
  var config = {displaylogo: false, responsive: true, showLink: false};
  var nodes = document.querySelectorAll("div.chart[data-spec]");
  var promises = [];
  nodes.forEach(function (node) {
    var spec = specs[node.getAttribute("data-spec")];
    promises.push(Plotly.newPlot(node, spec.data, spec.layout, config).then(function () {
      node.setAttribute("data-rendered", "true");
    }));
  });
  Promise.all(promises).then(function () {
    document.body.setAttribute("data-charts-rendered", String(promises.length));
  });
})();
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(raw, escaped)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _csp(scripts: list[str]) -> str:
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"
        for s in scripts
    )
    return (
        f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; "
        "img-src data: blob:; font-src data:; base-uri 'none'; form-action 'none'"
    )


def _specs(result: LadderResult) -> dict[str, Any]:
    order = result.order()
    names = [result.bots[i] for i in order]
    ratings = {
        "data": [
            {
                "type": "scatter",
                "mode": "markers",
                "x": [result.ratings[i] for i in order],
                "y": names,
                "error_x": {
                    "type": "data",
                    "symmetric": False,
                    "array": [result.rating_high[i] - result.ratings[i] for i in order],
                    "arrayminus": [result.ratings[i] - result.rating_low[i] for i in order],
                },
                "hovertemplate": "%{y}: %{x:.0f}<extra></extra>",
            }
        ],
        "layout": {
            "title": {"text": "Ratings (Elo-like points, 95% intervals)"},
            "xaxis": {"title": {"text": "rating"}, "zeroline": True},
            "yaxis": {"autorange": "reversed", "type": "category"},
            "margin": {"l": 120},
        },
    }
    z = [[result.wins[a][b] for b in order] for a in order]
    text = [
        [
            ""
            if result.wins[a][b] is None
            else f"{100 * (result.wins[a][b] or 0):.0f}% "
            f"[{100 * (result.win_low[a][b] or 0):.0f}, {100 * (result.win_high[a][b] or 0):.0f}]"
            for b in order
        ]
        for a in order
    ]
    heat = {
        "data": [
            {
                "type": "heatmap",
                "z": z,
                "x": names,
                "y": names,
                "text": text,
                "texttemplate": "%{text}",
                "zmin": 0,
                "zmax": 1,
                "colorscale": "RdBu",
                "hovertemplate": "%{y} ahead of %{x}: %{text}<extra></extra>",
            }
        ],
        "layout": {
            "title": {"text": "Win rates: row ahead of column (ties half)"},
            "xaxis": {"type": "category", "side": "top"},
            "yaxis": {"type": "category", "autorange": "reversed"},
            "margin": {"l": 120},
        },
    }
    return {"ratings": ratings, "wins": heat}


def _tables(result: LadderResult) -> tuple[str, str]:
    order = result.order()
    rows = "".join(
        f"<tr><td>{place}. {_e(result.bots[i])}</td><td>{result.ratings[i]:+.0f}</td>"
        f"<td>{result.rating_low[i]:+.0f} to {result.rating_high[i]:+.0f}</td></tr>"
        for place, i in enumerate(order, start=1)
    )
    ratings = (
        f"<table id=ratings><tr><th>Bot</th><th>Rating</th><th>95% interval</th></tr>{rows}</table>"
    )
    head = "".join(f"<th>{_e(result.bots[b])}</th>" for b in order)
    body = "".join(
        f"<tr><td>{_e(result.bots[a])}</td>"
        + "".join(f"<td>{_e(result._win(a, b))}</td>" for b in order)
        + "</tr>"
        for a in order
    )
    wins = f"<table id=wins><tr><th>ahead of</th>{head}</tr>{body}</table>"
    return ratings, wins


def page(result: LadderResult) -> str:
    """The HTML page of a ladder (raises ``ReportError`` without plotly)."""
    js, plotly_version = plotly_js()
    plotly_script = js.replace("</script", "<\\/script")
    scripts = [plotly_script, BOOT]
    ratings, wins = _tables(result)
    title = f"cardshop ladder: {result.variant}, {result.players} players"
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{_csp(scripts)}">'
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body><main>"
        f"<h1>{_e(title)}</h1><p>{_e(result._games_line())}.</p>"
        "<noscript><p>The charts need JavaScript; the tables do not.</p></noscript>"
        "<h2>Ratings</h2><p>Plackett-Luce log-strengths as Elo-like points (the bots' "
        "mean is 0), with 95% bootstrap intervals over the deals.</p>"
        f'<div class=chart id=chart-ratings data-spec="ratings" role=img '
        f'aria-label="Ratings"></div>{ratings}'
        "<h2>Win rates</h2><p>The share of the games with both bots in which the row's "
        "bot finished ahead of the column's (ties count half), with 95% intervals.</p>"
        f'<div class=chart id=chart-wins data-spec="wins" role=img '
        f'aria-label="Win rates"></div>{wins}'
        f"<h2>Cycles</h2><p id=cycles>{_e(result.cycles_text())}</p>"
        f"<footer>plotly.js from plotly {_e(plotly_version)}; how to read this page: the "
        "cardshop documentation, “Ladder” (docs/ladder.md).</footer></main>"
        f'<script type="application/json" id="cardshop-charts">{_script_json(_specs(result))}'
        f"</script><script>{plotly_script}</script><script>{BOOT}</script></body></html>\n"
    )
