"""What a study gives a designer: a variant file, a JSON report, an HTML page.

* :func:`tuned_yaml`: a variant that ``extends:`` the base and sets only the tuned
  knobs (a list that holds a knob is written whole: ``extends`` replaces lists), each
  line commented with the objectives' measures before, after and on the confirmation
  (fresh seeds), with 95% intervals, and the verdict. A base outside the file's
  folder, which a variant may not extend, is replaced by its built-in ancestor and
  every key the tuned variant differs in (or by every key): the file loads anywhere;
* :func:`to_dict`: the whole study as JSON-ready data (schema ``cardshop-tune/1``);
* :func:`render_html`: one self-contained page built like the audit report's
  (:mod:`cardshop.report`: plotly.js inlined, a Content-Security-Policy that loads
  nothing): the knobs, the objectives before, after and on fresh seeds, the
  optimisation history, the measures with their intervals, and the Pareto front.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from cardshop.core.errors import (
    VariantError,
    format_path,
)
from cardshop.core.loader import (
    MAX_EXTENDS_CHAIN,
    _looks_like_path,
    builtin_variants,
    load_variant,
    variant_from_data,
)
from cardshop.core.source import (
    KeyPath,
    load_yaml,
    read_text,
)
from cardshop.measures import Measure
from cardshop.support.files import write_text_atomic
from cardshop.tuning.matrix import matrix_text
from cardshop.tuning.spec import TuneSpec, apply_knobs
from cardshop.tuning.study import Candidate, Confirmation, TuneResult, matrices_data

__all__ = ["TUNE_SCHEMA", "render_html", "to_dict", "tuned_yaml", "write_html"]

TUNE_SCHEMA = "cardshop-tune/1"


def _relative_ref(result: TuneResult, out: Path | None) -> str | None:
    """How a file at ``out`` names the base: its built-in name, or a path relative to
    ``out``'s folder when the base lies in that folder or below; None otherwise (the
    loader lets a variant extend only built-ins and files inside its own folder)."""
    ref = result.loaded.base_ref
    if ref in builtin_variants():
        return ref
    target = Path(ref).resolve()
    folder = None if out is None else out.resolve().parent
    if folder is None or not target.is_relative_to(folder):
        return None
    return target.relative_to(folder).as_posix()


def _builtin_ancestor(ref: str) -> str | None:
    """The built-in variant that the ``extends`` chain of the file ``ref`` ends at (None:
    the chain ends at a file that extends nothing)."""
    path = Path(ref).resolve()
    for _ in range(MAX_EXTENDS_CHAIN + 1):
        text, _ = read_text(path, str(path))
        data = load_yaml(text, str(path)).data
        parent = data.get("extends") if isinstance(data, dict) else None
        if not isinstance(parent, str) or not parent:
            return None
        if not _looks_like_path(parent):
            return parent
        path = (path.parent / parent).resolve()
    return None


def _differences(data: Any, parent: Any) -> dict[Any, Any]:
    """What a variant extending ``parent`` must set to be ``data``: every key whose value
    differs, mappings key by key (``extends`` merges them), anything else whole."""
    out: dict[Any, Any] = {}
    for key, value in data.items():
        if key in ("name", "title", "extends"):
            continue
        if key not in parent or parent[key] != value:
            if isinstance(value, dict) and isinstance(parent.get(key), dict):
                out[key] = _differences(value, parent[key])
            else:
                out[key] = value
    return out


def _scalar(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _comment(result: TuneResult) -> str:
    parts = []
    for o in result.spec.objectives:
        for n in result.loaded.players:
            before = result.before[n].get(o.measure)
            after = result.after[n].get(o.measure)
            if before is None or after is None:
                continue
            confirmed = result.confirmed.get(n, {}).get(o.measure)
            again = "" if confirmed is None else f" -> {confirmed.text()}"
            parts.append(f"{o.measure} ({n}p) {before.text()} -> {after.text()}{again}")
    return "; ".join(parts)


def matrices(result: TuneResult) -> dict[str, Any]:
    """The win-rate matrices of the study: for each matrix objective (by its index)
    and player count, the target and the matrices measured on the base's games, the
    tuned candidate's (the search's games) and its confirmation's (fresh seeds)."""
    before = matrices_data(result.loaded, result.base)
    after = matrices_data(result.loaded, result.best)
    confirmed = {} if result.confirmation is None else result.confirmation.matrices
    out: dict[str, Any] = {}
    for j, counts in after.items():
        out[j] = {}
        for n, tuned in counts.items():
            out[j][n] = {
                "bots": tuned["bots"],
                "target": tuned["target"],
                "base": before.get(j, {}).get(n),
                "tuned": tuned,
                "confirmation": confirmed.get(j, {}).get(n),
            }
    return out


def _matrix_comment(result: TuneResult) -> list[str]:
    """The tuned candidate's win-rate matrices against their targets, as comments."""
    lines = []
    for j, counts in matrices(result).items():
        objective = result.spec.objectives[int(j)]
        for n, found in counts.items():
            tolerance = 0 if objective.tolerance is None else objective.tolerance
            lines.append(
                f"# Win-rate matrix (objective {j}, {n} players, tolerance {tolerance}), "
                "the tuned variant on the search's games:"
            )
            lines += matrix_text(found["tuned"], "#   ")
            again = found.get("confirmation")
            dev = None if again is None else again.get("deviation")
            if dev is not None and dev["high"] is not None:
                lines.append(
                    f"#   on fresh seeds: mean |measured - target| {dev['value']:.3f} "
                    f"[{dev['low']:.3f}, {dev['high']:.3f}]"
                )
    return lines


def _judged(result: TuneResult) -> str:
    """The verdict on the targets, and what it was judged on."""
    if result.confirmation is None:
        return "Not confirmed on fresh seeds (the study was stopped first): targets not judged."
    if result.met:
        return "Every target met on the confirmation's games."
    if result.search_met:
        return (
            "Not every target met on the confirmation's games (the search's games, which "
            "chose this candidate, met them all)."
        )
    return "Not every target met on the confirmation's games."


def _with_knobs(
    tree: dict[Any, Any], data: dict[str, Any], values: dict[KeyPath, Any]
) -> dict[KeyPath, list[KeyPath]]:
    """Put each knob's value in ``tree`` (what the file writes), down to its key or to
    the list that holds it (a list is written whole: ``extends`` replaces lists); the
    knob paths by the written key they are in, for the comments."""
    tuned = apply_knobs(data, values)
    marks: dict[KeyPath, list[KeyPath]] = {}
    for path in values:
        written: KeyPath = ()
        node: Any = data
        for part in path:
            written = (*written, part)
            node = _at(node, (part,))
            if isinstance(node, list):
                break
        holder = tree
        for part in written[:-1]:
            holder = holder.setdefault(part, {})
        holder[written[-1]] = _at(tuned, written)
        marks.setdefault(written, []).append(path)
    return marks


def _loads_as(tree: dict[Any, Any], ancestor: str, expected: dict[str, Any]) -> bool:
    """Whether a variant extending ``ancestor`` with ``tree`` is ``expected``."""
    try:
        return variant_from_data({"extends": ancestor, **tree}).to_data(all_keys=True) == expected
    except VariantError:
        return False


def tuned_yaml(result: TuneResult, out: str | Path | None = None) -> str:
    """The tuned variant's YAML, to be written at ``out``.

    It ``extends:`` the base (by name, or by a path relative to ``out``'s folder) and
    sets the tuned knobs. When the base is a file outside that folder, which the file
    could not extend, it extends the base's built-in ancestor instead and sets every
    key in which the tuned variant differs from it (or, when the base's chain has no
    built-in, sets every key and extends nothing): it loads wherever it is.
    """
    base = result.loaded.base
    spec = result.spec
    values = result.tuned_values()
    data = base.to_data(all_keys=True)
    name = spec.name or f"{base.name}-tuned"
    title = (base.title or base.name) + " (tuned)"
    games = result.best.games // max(1, len(result.loaded.players))
    if result.best.summaries:  # the spec's bots' games, without the matrices' line-ups
        games = sum(map(len, result.best.summaries.values())) // len(result.best.summaries)
    steps = "base -> tuned"
    if result.confirmation is not None:
        fresh = result.confirmation.games // max(1, len(result.loaded.players))
        steps += f" -> tuned again on fresh seeds ({fresh:,} games per player count)"
    lines = [
        f"# Tuned by cardshop tune from {result.loaded.source} (seed {spec.seed}, "
        f"study {result.study_name}).",
        f"# Measures over {games:,} games per player count, bots "
        f"{', '.join(spec.bots)}, 95% intervals: {steps}.",
        f"# Objectives: {_comment(result)}",
        *_matrix_comment(result),
        f"# {_judged(result)}",
    ]
    ref = _relative_ref(result, None if out is None else Path(out))
    tree: dict[Any, Any] = {"name": name, "title": title}
    if ref is not None:
        marks = _with_knobs(tree, data, values)
    else:
        tuned = {**apply_knobs(data, values), "name": name, "title": title}
        ancestor = _builtin_ancestor(result.loaded.base_ref)
        if ancestor is not None:
            tree.update(_differences(tuned, load_variant(ancestor).to_data(all_keys=True)))
            marks = _with_knobs(tree, data, values)
            if not _loads_as(tree, ancestor, tuned):  # a key extends cannot drop
                ancestor = None
        if ancestor is None:
            tree = {"name": name, "title": title, **tuned}
            marks = _with_knobs(tree, data, values)
        where = (
            f"extends its built-in ancestor {ancestor} and sets every key in which it differs"
            if ancestor is not None
            else "sets every key of the tuned variant"
        )
        lines.append(
            f"# The base, {result.loaded.base_ref}, lies outside this file's folder, which "
            f"a variant may not extend: this file {where}."
        )
        ref = ancestor
    if ref is not None:
        lines.append(f"extends: {_scalar(ref)}")

    def render(node: dict[Any, Any], indent: str, prefix: KeyPath) -> None:
        for key, value in node.items():
            here = (*prefix, key)
            label = (
                key
                if isinstance(key, int)
                else _scalar(key)
                if not str(key).isidentifier()
                else key
            )
            if isinstance(value, dict) and value and here not in marks:
                lines.append(f"{indent}{label}:")
                render(value, indent + "  ", here)
                continue
            text = f"{indent}{label}: {_scalar(_plain(value))}"
            notes = [
                f"{format_path(p)} was {_scalar(_at(data, p))}, tuned {_scalar(values[p])}"
                for p in marks.get(here, [])
            ]
            lines.append(text + (f"  # {'; '.join(notes)}" if notes else ""))

    render(tree, "", ())
    return "\n".join(lines) + "\n"


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            (int(k) if isinstance(k, str) and k.isdigit() else k): _plain(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _at(data: Any, path: KeyPath) -> Any:
    node = data
    for part in path:
        if isinstance(node, dict) and part not in node:
            part = str(part)
        node = node[part]
    return node


# ------------------------------------------------------------------- JSON


def _measures(ms: dict[str, Measure]) -> dict[str, Any]:
    return {k: m.to_dict() for k, m in ms.items()}


def to_dict(result: TuneResult) -> dict[str, Any]:
    """The study as JSON-ready data."""
    spec = result.spec
    return {
        "schema": TUNE_SCHEMA,
        "spec": result.loaded.source,
        "base": result.loaded.base.name,
        "family": result.loaded.base.family,
        "study": result.study_name,
        "storage": result.storage,
        "seed": spec.seed,
        "racing": spec.racing,
        "alpha": spec.alpha,
        "bots": list(spec.bots),
        "players": list(result.loaded.players),
        "stopped": result.stopped,
        "met": result.met,
        "search_met": result.search_met,
        "games": result.games,
        "cpu_seconds": round(result.cpu_seconds, 2),
        "wall_seconds": round(result.wall_seconds, 2),
        "knobs": [
            {
                "path": k.label,
                "kind": k.kind,
                "base": k.base_value,
                "tuned": result.best.values[k.label],
            }
            for k in result.loaded.knobs
        ],
        "objectives": [o.model_dump(mode="json", exclude_none=True) for o in spec.objectives],
        "best": result.best.to_dict(),
        "front": [c.to_dict() for c in result.front],
        "trials": [c.to_dict() for c in [result.base, *result.trials]],
        "before": {str(n): _measures(m) for n, m in result.before.items()},
        "after": {str(n): _measures(m) for n, m in result.after.items()},
        "confirmation": None if result.confirmation is None else _confirmation(result),
        "matrices": matrices(result),
        "confirmations": [
            {"trial": c.number, "games": c.games, "met": c.meets(spec)}
            for c in result.confirmations
        ],
    }


def _confirmation(result: TuneResult) -> dict[str, Any]:
    c = result.confirmation
    assert c is not None
    return {
        "trial": c.number,
        "seeds": "fresh: never used by the search",
        "games": c.games,
        "met": c.meets(result.spec),
        "met_by_objective": list(c.met),
        "measures": {str(n): _measures(m) for n, m in c.measures.items()},
    }


# ------------------------------------------------------------------- HTML


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _layout(title: str, x: str, y: str) -> dict[str, Any]:
    return {
        "title": {"text": _e(title)},
        "xaxis": {"title": {"text": _e(x)}},
        "yaxis": {"title": {"text": _e(y)}, "zeroline": True},
        "margin": {"l": 60, "r": 20, "t": 50, "b": 50},
        "legend": {"orientation": "h"},
    }


def _history(data: dict[str, Any]) -> dict[str, Any]:
    """Each candidate's loss of the first objective, as measured, by trial; the best so far."""
    traces = []
    name = data["objectives"][0]["measure"]
    for state, symbol in (("complete", "circle"), ("dropped", "x")):
        rows = [t for t in data["trials"] if t["state"] == state and t["measured"]]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"{state} (base: trial -1)" if state == "complete" else state,
                "marker": {"symbol": symbol, "size": 9},
                "x": [t["trial"] for t in rows],
                "y": [t["measured"][0] for t in rows],
                "text": [f"{json.dumps(t['values'])}, {t['games']:,} games" for t in rows],
            }
        )
    best, running = [], float("inf")
    done = [t for t in data["trials"] if t["state"] == "complete" and t["losses"]]
    for t in sorted(done, key=lambda t: t["trial"]):
        running = min(running, t["losses"][0])
        best.append(running)
    traces.append(
        {
            "type": "scatter",
            "mode": "lines",
            "name": "best so far",
            "line": {"shape": "hv"},
            "x": sorted(t["trial"] for t in done),
            "y": best,
        }
    )
    return {
        "data": traces,
        "layout": _layout(f"Optimisation history: loss of {name}", "trial", "loss"),
    }


def _before_after(data: dict[str, Any], measure: str, n: str) -> dict[str, Any] | None:
    rows = [
        (label, data[key][n].get(measure))
        for label, key in (("base", "before"), ("tuned", "after"))
    ]
    confirmed = (data.get("confirmation") or {}).get("measures", {}).get(n, {}).get(measure)
    if confirmed is not None:
        rows.append(("tuned, fresh seeds", confirmed))
    if any(m is None for _, m in rows):
        return None
    values = [m["value"] for _, m in rows]
    err_plus = [None if m["high"] is None else m["high"] - m["value"] for _, m in rows]
    err_minus = [None if m["low"] is None else m["value"] - m["low"] for _, m in rows]
    trace = {
        "type": "bar",
        "x": [label for label, _ in rows],
        "y": values,
        "error_y": {"type": "data", "array": err_plus, "arrayminus": err_minus, "visible": True},
        "name": measure,
    }
    layout = _layout(f"{measure}, {n} players (95% intervals)", "variant", measure)
    for o in data["objectives"]:
        if o["measure"] == measure and "target" in o:
            t, tol = o["target"], o.get("tolerance", 0)
            if isinstance(t, list):  # a win-rate matrix: its deviation's target is 0
                t = 0
            layout["shapes"] = [
                {
                    "type": "rect",
                    "xref": "paper",
                    "x0": 0,
                    "x1": 1,
                    "y0": t - tol,
                    "y1": t + tol,
                    "fillcolor": "rgba(26,127,55,0.12)",
                    "line": {"width": 0},
                }
            ]
    return {"data": [trace], "layout": layout}


def _front(data: dict[str, Any]) -> dict[str, Any] | None:
    objectives = data["objectives"]
    if len(objectives) < 2:
        return None
    done = [t for t in data["trials"] if t["state"] == "complete"]
    on = {t["trial"] for t in data["front"]}
    traces = []
    for label, rows in (
        ("front", [t for t in done if t["trial"] in on]),
        ("others", [t for t in done if t["trial"] not in on]),
    ):
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": label,
                "x": [t["losses"][0] for t in rows],
                "y": [t["losses"][1] for t in rows],
                "text": [json.dumps(t["values"]) for t in rows],
                "marker": {"size": 10},
            }
        )
    a, b = objectives[0]["measure"], objectives[1]["measure"]
    return {
        "data": traces,
        "layout": _layout("Pareto front (losses)", f"loss of {a}", f"loss of {b}"),
    }


def render_html(result: TuneResult | dict[str, Any]) -> str:
    """The study's HTML page (needs plotly, of the ``report`` extra)."""
    from cardshop.report._html import BOOT, CSS, _csp, _script_json, plotly_js

    data = result if isinstance(result, dict) else to_dict(result)
    js, version = plotly_js()
    specs: dict[str, Any] = {"history": _history(data)}
    for o in data["objectives"]:
        for n in data["after"]:
            chart = _before_after(data, o["measure"], n)
            if chart is not None:
                specs[f"{o['measure']}-{n}"] = chart
    front = _front(data)
    if front is not None:
        specs["front"] = front
    knob_rows = "".join(
        f"<tr><td>{_e(k['path'])}</td><td class=num>{_e(k['base'])}</td>"
        f"<td class=num>{_e(k['tuned'])}</td></tr>"
        for k in data["knobs"]
    )
    measure_rows = []
    for o in data["objectives"]:
        for n in data["after"]:
            b, a = data["before"][n].get(o["measure"]), data["after"][n].get(o["measure"])
            if b is None or a is None:
                continue
            c = (data.get("confirmation") or {}).get("measures", {}).get(n, {}).get(o["measure"])
            goal = (
                f"{0 if isinstance(o['target'], list) else o['target']} ± {o.get('tolerance', 0)}"
                if "target" in o
                else o.get("direction", "")
            )
            measure_rows.append(
                f"<tr><td>{_e(a['label'])}</td><td class=num>{_e(n)}</td><td>{_e(goal)}</td>"
                f"<td class=num>{_e(_fmt(b))}</td><td class=num>{_e(_fmt(a))}</td>"
                f"<td class=num>{_e('' if c is None else _fmt(c))}</td></tr>"
            )
    states: dict[str, int] = {}
    for t in data["trials"][1:]:
        states[t["state"]] = states.get(t["state"], 0) + 1
    facts = {
        "Spec": data["spec"],
        "Base variant": f"{data['base']} ({data['family']})",
        "Bots": ", ".join(data["bots"]),
        "Player counts": ", ".join(map(str, data["players"])),
        "Seed": data["seed"],
        "Racing": f"{'on' if data['racing'] else 'off'} (alpha {data['alpha']})",
        "Games played": f"{data['games']:,}",
        "CPU seconds": data["cpu_seconds"],
        "Trials": ", ".join(f"{v} {k}" for k, v in sorted(states.items())) or "none",
        "Stopped": data["stopped"],
        "Targets met (on the confirmation, fresh seeds)": (
            "not judged (stopped first)"
            if data.get("confirmation") is None
            else "yes"
            if data["met"]
            else "no"
        ),
        "Targets met on the search's games": "yes" if data.get("search_met") else "no",
        "plotly.js": version,
    }
    figures = "".join(
        f'<figure><div class=chart id="chart-{_e(key)}" data-spec="{_e(key)}" role="img" '
        f'aria-label="{_e(key)}"></div></figure>'
        for key in specs
    )
    plotly_script = js.replace("</script", "<\\/script")
    scripts = [plotly_script, BOOT]
    trial_rows = "".join(
        f"<tr><td class=num>{t['trial']}</td><td>{_e(json.dumps(t['values']))}</td>"
        f"<td>{_e(t['state'])}</td><td class=num>{t['games']:,}</td>"
        f"<td class=num>{_e(_losses_text(t['losses']))}</td>"
        f"<td>{_e(t['reason'] or '')}</td></tr>"
        for t in data["trials"]
    )
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{_csp(scripts)}">'
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>cardshop tune: {_e(data['base'])}</title><style>{CSS}</style></head>"
        f"<body><main><h1>Tuning {_e(data['base'])}</h1><dl class=facts>"
        + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in facts.items())
        + "</dl><h2>Knobs</h2><table><tr><th>knob</th><th>base</th><th>tuned</th></tr>"
        f"{knob_rows}</table><h2>Objectives (95% intervals)</h2><table><tr><th>measure</th>"
        "<th>players</th><th>goal</th><th>base</th><th>tuned (search)</th>"
        "<th>tuned (fresh seeds)</th></tr>"
        f"{''.join(measure_rows)}</table>{_matrix_html(data)}"
        f"<h2>Charts</h2><div class=charts>{figures}</div>"
        "<h2>Trials</h2><table><tr><th>trial</th><th>values</th><th>state</th><th>games</th>"
        f"<th>losses</th><th>note</th></tr>{trial_rows}</table>"
        "<footer>How to read this page: the cardshop documentation, “Tuning a variant” "
        "(docs/tuning.md).</footer></main>"
        f'<script type="application/json" id="cardshop-charts">{_script_json(specs)}</script>'
        f"<script>{plotly_script}</script><script>{BOOT}</script></body></html>\n"
    )


def _cell(m: dict[str, Any] | None) -> str:
    if m is None:
        return ""
    if m.get("low") is None or m.get("high") is None:
        return f"{m['value']:.3f}"
    return f"{m['value']:.3f} [{m['low']:.3f}, {m['high']:.3f}]"


def _matrix_html(data: dict[str, Any]) -> str:
    """A table per win-rate matrix objective and player count: each entry's target, and
    the win share measured on the base's games, the tuned variant's, and on fresh seeds."""
    parts = []
    for j, counts in (data.get("matrices") or {}).items():
        for n, found in counts.items():
            bots = found["bots"]
            head = "".join(f"<th>vs {_e(b)}</th>" for b in bots)
            rows = []
            for i, bot in enumerate(bots):
                cells = []
                for k in range(len(bots)):
                    t = found["target"][i][k]
                    if t is None:
                        cells.append("<td>-</td>")
                        continue
                    lines = [f"target {t}"]
                    for label in ("base", "tuned", "confirmation"):
                        m = found.get(label)
                        if m is not None and m["measured"][i][k] is not None:
                            name = "fresh seeds" if label == "confirmation" else label
                            lines.append(f"{name} {_cell(m['measured'][i][k])}")
                    cells.append(f"<td class=num>{'<br>'.join(map(_e, lines))}</td>")
                rows.append(f"<tr><th>{_e(bot)}</th>{''.join(cells)}</tr>")
            devs = []
            for label in ("base", "tuned", "confirmation"):
                m = found.get(label)
                if m is not None and m.get("deviation") is not None:
                    name = "fresh seeds" if label == "confirmation" else label
                    devs.append(f"{name} {_cell(m['deviation'])}")
            parts.append(
                f"<h2>Win-rate matrix (objective {_e(j)}, {_e(n)} players)</h2>"
                "<p>Each entry: the win share of one seat of the row's bot against the "
                "column's bot in every other seat, with its 95% interval. Mean |measured - "
                f"target|: {_e('; '.join(devs))}.</p>"
                f"<table><tr><th></th>{head}</tr>{''.join(rows)}</table>"
            )
    return "".join(parts)


def _losses_text(losses: list[float] | None) -> str:
    return "" if losses is None else ", ".join(f"{x:.4f}" for x in losses)


def _fmt(m: dict[str, Any]) -> str:
    return Measure("", "", m["value"], m["low"], m["high"], m["unit"], "", m["interval"]).text()


def write_html(result: TuneResult | dict[str, Any], path: str | Path) -> None:
    """Write the study's HTML page to ``path``, whole or not at all."""
    write_text_atomic(path, render_html(result))


def describe_confirmation(c: Candidate, found: Confirmation, spec: TuneSpec) -> str:
    """One line about a confirmation on fresh seeds, for progress output."""
    if not any(o.target is not None for o in spec.objectives):
        verdict = "no target to judge"
    else:
        verdict = "every target met" if found.meets(spec) else "not every target met"
    who = "the base" if c.number < 0 else f"trial {c.number}"
    return f"{who}: confirmed on fresh seeds, {found.games:,} games: {verdict}"


def describe(c: Candidate) -> str:
    """One line about a candidate, for progress output."""
    values = ", ".join(f"{k}={v}" for k, v in c.values.items())
    tail = f" losses {', '.join(f'{x:.4f}' for x in c.losses)}" if c.losses else ""
    note = f" ({c.reason})" if c.reason else ""
    return f"trial {c.number}: {values}: {c.state}, {c.games:,} games{tail}{note}"
