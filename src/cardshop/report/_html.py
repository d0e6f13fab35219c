"""The page: header, measure tables and chart containers around inlined plotly.js."""

from __future__ import annotations

import base64
import hashlib
import html
import importlib
import json
from typing import Any

from cardshop.report._charts import CHARTS, Series, chart_specs
from cardshop.report._model import Difference, Measure, PlayerCount, Report, ReportError

__all__ = ["INSTALL", "page", "plotly_js"]

INSTALL = 'python -m pip install ".[report]" in a clone of cardshop'


def plotly_js() -> tuple[str, str]:
    """The plotly.js bundle shipped with the ``plotly`` package, and plotly's version."""
    try:
        offline = importlib.import_module("plotly.offline")
        plotly = importlib.import_module("plotly")
    except ImportError:
        raise ReportError(
            f"an HTML report needs the 'report' extra (plotly is not installed): {INSTALL}"
        ) from None
    return str(offline.get_plotlyjs()), str(plotly.__version__)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _script_json(value: Any) -> str:
    """JSON that is safe inside a ``<script>`` element: no ``<``, ``>`` or ``&``."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text


def _number(value: float | None, unit: str, signed: bool = False) -> str:
    if value is None:
        return "—"
    sign = "+" if signed else ""
    if unit == "share":
        return f"{100 * value:{sign}.1f}{' pp' if signed else '%'}"
    size = abs(value)
    digits = 0 if size >= 100 else 1 if size >= 10 else 2 if size >= 0.1 or size == 0 else 3
    return f"{value:{sign}.{digits}f}"


def _interval(low: float | None, high: float | None, unit: str, signed: bool = False) -> str:
    if low is None or high is None:
        return "—"
    return f"[{_number(low, unit, signed)}, {_number(high, unit, signed)}]"


def _unit_note(unit: str) -> str:
    return "" if unit in ("share", "ratio") else f" <span class=unit>{_e(unit)}</span>"


CSS = """
:root { color-scheme: light; --a: #3366cc; --b: #e6550d; --line: #d0d0d0; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0;
  color: #1b1b1b; background: #fff; }
main { max-width: 1200px; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
h1 { font-size: 1.6rem; margin: 0.5rem 0; } h2 { border-bottom: 2px solid var(--line);
  padding-bottom: .2rem; margin-top: 2.5rem; } h3 { margin: 1.5rem 0 .5rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; }
table { border-collapse: collapse; margin: .5rem 0; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .6rem; text-align: left;
  vertical-align: top; }
td.num { text-align: right; white-space: nowrap; }
th { background: #f3f3f3; }
td.meaning { color: #444; max-width: 32rem; }
.unit { color: #777; font-size: .85em; }
.swatch { display: inline-block; width: .8em; height: .8em; border-radius: 2px;
  margin-right: .3em; vertical-align: -.05em; }
.sig { font-weight: 700; color: #b00020; }
tr.significant td { background: #fff4e5; }
div.warnings { background: #fff8e1; border-left: 4px solid #f0ad00; padding: .2rem .8rem;
  margin: .5rem 0; } div.warnings ul { margin: .2rem 0 .4rem; }
.held { color: #1a7f37; } .broken { color: #b00020; font-weight: 700; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr));
  gap: 1rem; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: .3rem; }
figcaption { font-size: .85rem; color: #555; padding: .2rem .4rem; }
.chart { min-height: 380px; }
nav a { margin-right: 1rem; }
footer { margin-top: 3rem; color: #666; font-size: .85rem; }
"""

BOOT = """
(function () {
  "use strict";
  var specs = JSON.parse(document.getElementById("cardshop-charts").textContent);
  var config = {displaylogo: false, responsive: true, showLink: false,
                modeBarButtonsToRemove: ["sendDataToCloud"]};
  var done = 0;
  var nodes = document.querySelectorAll("div.chart[data-spec]");
  var promises = [];
  nodes.forEach(function (node) {
    var spec = specs[node.getAttribute("data-spec")];
    promises.push(Plotly.newPlot(node, spec.data, spec.layout, config).then(function () {
      done += 1;
      node.setAttribute("data-rendered", "true");
    }));
  });
  Promise.all(promises).then(function () {
    document.body.setAttribute("data-charts-rendered", String(done));
  }, function (error) {
    document.body.setAttribute("data-charts-failed", String(error));
    console.error("cardshop report: a chart failed to render", error);
  });
})();
"""


def _csp(scripts: list[str]) -> str:
    """A Content-Security-Policy that runs only the page's own scripts and loads nothing."""
    hashes = " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"
        for s in scripts
    )
    return (
        "default-src 'none'; "
        f"script-src {hashes}; "
        "style-src 'unsafe-inline'; "
        "img-src data: blob:; "
        "font-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def _names(report: Report) -> list[str]:
    if len(report.variants) == 1:
        return [report.variants[0].variant]
    return [f"A: {v.variant}" for v in report.variants[:1]] + [
        f"B: {v.variant}" for v in report.variants[1:]
    ]


def _header(report: Report, names: list[str], plotly_version: str) -> str:
    if len(report.variants) == 1:
        title = f"Audit of {report.variants[0].variant}"
    else:
        title = f"Comparison of {report.variants[0].variant} and {report.variants[1].variant}"
    rows = []
    for i, (v, name) in enumerate(zip(report.variants, names, strict=True)):
        swatch = f'<span class=swatch style="background: var(--{"ab"[i]})"></span>'
        bots = ", ".join(_e(b) for b in v.bots) or "—"
        rows.append(
            f"<tr><td>{swatch}{_e(name)}</td><td>{_e(v.title)}</td><td>{_e(v.family)}</td>"
            f"<td>{bots}</td></tr>"
        )
    note = (
        "<p class=partial><strong>Partial report:</strong> the audit was stopped before "
        "its end; it holds the games played until then.</p>"
        if report.partial
        else ""
    )
    for v, name in zip(report.variants, names, strict=True):
        if v.replays > 1:
            of = f"{_e(name)}: " if len(report.variants) > 1 else ""
            note += (
                f"<p class=replays>{of}each simulated game's deal was played {v.replays} "
                "times by the same bots in the same seats, seeded anew: the luck measures "
                "read every replay, every other figure the first game of each deal.</p>"
            )
    several = len(report.variants) > 1
    warned = [
        f"<li>{_e(name) + ': ' if several else ''}{_e(warning)}</li>"
        for v, name in zip(report.variants, names, strict=True)
        for warning in v.warnings
    ]
    if warned:
        note += (
            "<div class=warnings><p><strong>Variant warnings</strong> (shown; they do not "
            f"fail the audit):</p><ul>{''.join(warned)}</ul></div>"
        )
    return (
        f"<header><h1>{_e(title)}{' (partial)' if report.partial else ''}</h1>{note}"
        "<table class=variants><thead><tr><th>Variant</th><th>Title</th><th>Family</th>"
        f"<th>Bots by seat</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        "<dl class=facts>"
        f"<dt>Seed</dt><dd>{_e(report.seed)}</dd>"
        f"<dt>Games</dt><dd>{_e(report.games)} per player count</dd>"
        f"<dt>Intervals</dt><dd>95% confidence intervals</dd>"
        f"<dt>Written by</dt><dd>cardshop {_e(report.version)} "
        f"(report schema {_e(report.schema)}, plotly.js from plotly {_e(plotly_version)})</dd>"
        "</dl></header>"
    )


def _measure_cells(measure: Measure | None) -> str:
    if measure is None:
        return "<td class=num>—</td><td class=num>—</td>"
    if measure.meaning.startswith("all replays identical"):  # luck with deterministic bots
        return "<td class=num>none</td><td class=num>—</td>"
    unit = measure.unit
    return (
        f"<td class=num>{_number(measure.value, unit)}{_unit_note(unit)}</td>"
        f"<td class=num>{_interval(measure.low, measure.high, unit)}</td>"
    )


def _measures_table(counts: list[PlayerCount | None], names: list[str]) -> str:
    keys: dict[str, Measure] = {}
    for count in counts:
        if count is not None:
            for key, measure in count.measures:
                keys.setdefault(key, measure)
    by_variant = [dict(c.measures) if c is not None else {} for c in counts]
    if len(counts) == 1:
        head = "<th>Measure</th><th>Value</th><th>95% interval</th>"
    else:
        head = "<th>Measure</th>" + "".join(f"<th>{_e(n)}</th><th>95% interval</th>" for n in names)
    rows = []
    for key, first in keys.items():
        cells = "".join(_measure_cells(m.get(key)) for m in by_variant)
        rows.append(
            f'<tr data-measure="{_e(key)}" title="{_e(first.meaning)}">'
            f"<td>{_e(first.label)}</td>{cells}<td class=meaning>{_e(first.meaning)}</td></tr>"
        )
    return (
        f"<table class=measures><thead><tr>{head}<th>Meaning</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _comparison_table(diffs: tuple[tuple[str, Difference], ...], units: dict[str, str]) -> str:
    rows = []
    for key, d in diffs:
        unit = d.unit if d.unit is not None else units.get(key, "")
        mark = (
            '<span class=sig title="the interval excludes 0">✱ yes</span>'
            if d.significant
            else "no"
        )
        rows.append(
            f'<tr data-measure="{_e(key)}"{" class=significant" if d.significant else ""}>'
            f"<td>{_e(d.label)}</td>"
            f"<td class=num>{_number(d.a, unit)}</td><td class=num>{_number(d.b, unit)}</td>"
            f"<td class=num>{_number(d.difference, unit, signed=True)}</td>"
            f"<td class=num>{_interval(d.low, d.high, unit, signed=True)}</td>"
            f"<td>{mark}</td></tr>"
        )
    return (
        "<table class=comparison><thead><tr><th>Measure</th><th>A</th><th>B</th>"
        "<th>Difference (B &minus; A)</th><th>95% interval</th><th>Significant</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        "<p>A difference is marked significant when its 95% interval excludes zero; "
        "differences of shares are in percentage points (pp).</p>"
    )


CAPTIONS = {
    "scores": "Boxes: quartiles and median of the final scores; the dashed line inside "
    "is the mean; whiskers reach the farthest scores within 1.5 box heights.",
    "length": "How many games lasted how long.",
    "win_seat": "Share of games each seat won, with its 95% interval; the dashed line is "
    "the share of a perfectly fair game.",
    "win_bot": "Win rate per seat of each bot kind (its wins over the games times the "
    "seats it played), with its 95% interval; the dashed line is a fair share.",
    "lead_changes": "How often the leading player changed in a game, game by game.",
    "drama": "How far behind the eventual winner was at worst; games with 0 were "
    "led by the winner throughout.",
    "branching": "Mean legal actions per decision at each stage of the game, with its "
    "95% band; 1 means a forced move.",
    "choices": "How the decisions of all games spread over the number of legal actions "
    "offered; the bar at 1 is the share of forced decisions.",
}


def _invariants(report: Report, names: list[str]) -> str:
    parts = []
    for v, name in zip(report.variants, names, strict=True):
        if not v.invariants:
            parts.append(f"<p>{_e(name)}: no invariants checked.</p>")
            continue
        items = "".join(
            f"<li><span class={'held' if inv.held else 'broken'}>"
            f"{'held' if inv.held else 'BROKEN'}</span> {_e(inv.name)}"
            f"{(': ' + _e(inv.detail)) if inv.detail else ''}</li>"
            for inv in v.invariants
        )
        checked = f"<p>{_e(v.checked)}.</p>" if v.checked else ""
        parts.append(f"<h3>{_e(name)}</h3>{checked}<ul>{items}</ul>")
    return "<section id=invariants><h2>Invariants</h2>" + "".join(parts) + "</section>"


def _graded(report: Report, names: list[str]) -> str:
    """The "Graded skill" section: each step's win share with its interval (empty
    without a graded ladder)."""
    parts = []
    for v, name in zip(report.variants, names, strict=True):
        for g in v.graded:
            rows = "".join(
                f"<tr><td>{_e(s.stronger)} &gt; {_e(s.weaker)}</td><td>{s.games}</td>"
                f"<td>{100 * s.win_share:.1f}% [{100 * s.win_low:.1f}%, "
                f"{100 * s.win_high:.1f}%]</td><td>{100 * s.fair:.1f}%</td>"
                f"<td>{'yes' if s.significant else 'no'}</td></tr>"
                for s in g.steps
            )
            verdict = "holds" if g.holds else "does not hold"
            parts.append(
                f"<h3>{_e(name)}, {g.players} players</h3>"
                f"<p>Rungs {_e(', '.join(g.rungs))}; {g.deals} deals x {g.players} seats per "
                f"step. The graded ladder <strong>{verdict}</strong>.</p>"
                "<table class=graded><thead><tr><th>Step</th><th>Games</th>"
                "<th>Win share [95% CI]</th><th>Fair</th><th>Significant</th></tr></thead>"
                f"<tbody>{rows}</tbody></table>"
            )
    if not parts:
        return ""
    return "<section id=graded><h2>Graded skill</h2>" + "".join(parts) + "</section>"


def page(report: Report) -> str:
    """The whole HTML page of a checked report."""
    js, plotly_version = plotly_js()
    names = _names(report)
    units = report.units()
    players = sorted({c.players for v in report.variants for c in v.player_counts})
    comparison = dict(report.comparison.player_counts) if report.comparison else {}
    specs: dict[str, Any] = {}
    sections = []
    for n in players:
        counts = [
            next((c for c in v.player_counts if c.players == n), None) for v in report.variants
        ]
        series = [
            Series(name=name, charts=c.charts, players=n, length_unit=v.length_unit)
            for name, c, v in zip(names, counts, report.variants, strict=True)
            if c is not None
        ]
        body = [f'<section id="players-{n}"><h2>{n} players</h2>']
        games = ", ".join(
            f"{_e(name)}: {c.games}" for name, c in zip(names, counts, strict=True) if c
        )
        body.append(f"<p>Games played: {games}.</p><h3>Measures</h3>")
        body.append(_measures_table(counts, names))
        if n in comparison:
            body.append("<h3>Comparison</h3>" + _comparison_table(comparison[n], units))
        body.append("<h3>Charts</h3><div class=charts>")
        for chart, spec in chart_specs(series).items():
            key = f"{n}-{chart}"
            specs[key] = spec
            title = dict(CHARTS)[chart]
            body.append(
                f'<figure><div class=chart id="chart-{key}" data-spec="{key}" '
                f'role="img" aria-label="{_e(title)}"></div>'
                f"<figcaption>{_e(CAPTIONS[chart])}</figcaption></figure>"
            )
        body.append("</div></section>")
        sections.append("".join(body))
    plotly_script = js.replace("</script", "<\\/script")
    scripts = [plotly_script, BOOT]
    nav = "".join(f'<a href="#players-{n}">{n} players</a>' for n in players)
    graded = _graded(report, names)
    if graded:
        nav += "<a href=#graded>Graded skill</a>"
    title = " vs ".join(v.variant for v in report.variants)
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{_csp(scripts)}">'
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>cardshop audit: {_e(title)}</title><style>{CSS}</style></head>"
        "<body><main>"
        f"{_header(report, names, plotly_version)}"
        f"<nav>{nav}<a href=#invariants>Invariants</a></nav>"
        "<noscript><p>The charts need JavaScript; the tables above and below do not.</p>"
        "</noscript>"
        f"{''.join(sections)}{graded}{_invariants(report, names)}"
        "<footer>How to read this report: the cardshop documentation, “Reading the "
        "charts” (docs/report.md).</footer></main>"
        f'<script type="application/json" id="cardshop-charts">{_script_json(specs)}</script>'
        f"<script>{plotly_script}</script><script>{BOOT}</script></body></html>\n"
    )
