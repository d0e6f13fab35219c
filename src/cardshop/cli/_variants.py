"""Commands that describe or weigh the variant format: ``schema``."""

from __future__ import annotations

import json

from cardshop.cli._app import app, console
from cardshop.core.loader import schema as variant_schema


@app.command()
def schema() -> None:
    """Print the JSON Schema of the variant format (for editor completion and checks)."""
    console.print(json.dumps(variant_schema(), indent=2), markup=False)
