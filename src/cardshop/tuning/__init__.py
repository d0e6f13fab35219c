"""Tune a variant automatically: knobs, objectives, a search that races its candidates.

::

    import cardshop
    result = cardshop.tune("examples/tune-klunker.yaml")
    print(result.best.values, result.met)

:mod:`cardshop.tuning.spec` reads the spec, :mod:`cardshop.tuning.racing` holds the
statistics, :mod:`cardshop.tuning.study` runs the search (optuna, the ``tune`` extra),
:mod:`cardshop.tuning.matrix` holds the win-rate matrix objective between bots,
:mod:`cardshop.tuning.output` writes the tuned variant, JSON and HTML, and
:mod:`cardshop.audit.precision` plays an audit until its intervals are narrow enough.
docs/tuning.md is the guide.
"""

from __future__ import annotations

from cardshop.tuning.output import TUNE_SCHEMA, render_html, to_dict, tuned_yaml, write_html
from cardshop.tuning.spec import Budget, Knob, Objective, TuneError, TuneSpec, load_spec
from cardshop.tuning.study import Candidate, TuneInterrupted, TuneResult, tune

__all__ = [
    "TUNE_SCHEMA",
    "Budget",
    "Candidate",
    "Knob",
    "Objective",
    "TuneError",
    "TuneInterrupted",
    "TuneResult",
    "TuneSpec",
    "load_spec",
    "render_html",
    "to_dict",
    "tune",
    "tuned_yaml",
    "write_html",
]
