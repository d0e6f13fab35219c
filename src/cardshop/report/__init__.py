"""The HTML audit report: one self-contained page of measures and charts.

``render_html(report)`` turns an audit report dict (``AuditReport.to_dict()``, the
output of ``cardshop audit --json``; schema ``cardshop-audit/2``) into one HTML file
that opens offline: the styles, the chart data and plotly.js are all inside it, and its
Content-Security-Policy lets it load nothing from anywhere. ``write_html`` writes that
page to a file, whole or not at all. docs/report.md explains each chart.

Needs the ``report`` extra (``python -m pip install ".[report]"``: plotly, whose bundled
plotly.js draws the charts); importing this module does not import plotly.

A malformed report raises :class:`ReportError` naming the key (``variants[0].
player_counts[0].charts.drama[3]: expected a number, got a string``); every string of
the report is escaped, so a variant's title shows as written and never runs as markup.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from typing import Any

from cardshop.report._html import INSTALL, page
from cardshop.report._model import SCHEMAS, ReportError, read_report
from cardshop.support.files import write_text_atomic

__all__ = ["SCHEMAS", "ReportError", "check_available", "render_html", "write_html"]

ReportError.__module__ = __name__  # shown and documented as cardshop.report.ReportError


def check_available() -> None:
    """Raise :class:`ReportError` naming the extra to install if plotly is missing.

    Cheap (plotly is looked up, not imported): a command can call it before a long
    audit rather than fail when the page is written.
    """
    if importlib.util.find_spec("plotly") is None:
        raise ReportError(
            f"an HTML report needs the 'report' extra (plotly is not installed): {INSTALL}"
        )


def render_html(report: Mapping[str, Any]) -> str:
    """The HTML page of an audit report dict (see docs/report.md).

    Raises :class:`ReportError` if the report is malformed (the message names the key)
    or if plotly, of the ``report`` extra, is not installed.
    """
    return page(read_report(report))


def write_html(report: Mapping[str, Any], path: str | os.PathLike[str]) -> None:
    """Write the HTML page of ``report`` to ``path`` (UTF-8): the whole file or nothing.

    The page goes to a new file beside ``path`` that replaces it once complete, so an
    error never leaves a page cut short, and a malformed report writes nothing. Raises
    :class:`ReportError` as :func:`render_html` does, and ``OSError`` if the file cannot
    be written.
    """
    text = render_html(report)
    write_text_atomic(path, text)
