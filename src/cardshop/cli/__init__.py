"""The ``cardshop`` command line (typer + rich; the ``cli`` extra).

Each group of commands lives in its own module and registers on :data:`app`.
User errors (every :class:`~cardshop.CardshopError`) print one paragraph on
stderr and exit with code 2, never a traceback.
"""

from __future__ import annotations

import click
import typer

from cardshop.cli._app import app, user_errors

# Command modules register themselves on ``app`` when imported.
from cardshop.cli import _basic  # noqa: F401  isort: skip
from cardshop.cli import _audit  # noqa: F401  isort: skip
from cardshop.cli import _play  # noqa: F401  isort: skip
from cardshop.cli import _simulate  # noqa: F401  isort: skip

__all__ = ["app", "run", "user_errors"]


def run(argv: list[str] | None = None) -> int:
    """Run the CLI with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    try:
        result = app(args=argv, prog_name="cardshop", standalone_mode=False)
    except click.exceptions.UsageError as exc:
        exc.show()
        return 2
    except click.exceptions.Abort:
        typer.echo("Aborted.", err=True)
        return 1
    except click.exceptions.ClickException as exc:
        exc.show()
        return exc.exit_code
    return result if isinstance(result, int) else 0
