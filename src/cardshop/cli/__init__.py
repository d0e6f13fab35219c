"""The ``cardshop`` command line (typer + rich; the ``cli`` extra).

Each group of commands lives in its own module and registers on :data:`app`.
User errors (every :class:`~cardshop.CardshopError`) and typer's usage errors (an
unknown command or option, a missing argument, a value of the wrong type) print one
paragraph on stderr and exit with code 2, never a traceback.
"""

from __future__ import annotations

import typer

from cardshop.cli._app import app, err_console, paragraph, user_errors

# Command modules register themselves on ``app`` when imported.
from cardshop.cli import _basic  # noqa: F401  isort: skip
from cardshop.cli import _audit  # noqa: F401  isort: skip
from cardshop.cli import _play  # noqa: F401  isort: skip
from cardshop.cli import _records  # noqa: F401  isort: skip
from cardshop.cli import _simulate  # noqa: F401  isort: skip
from cardshop.cli import _ladder  # noqa: F401  isort: skip
from cardshop.cli import _depth  # noqa: F401  isort: skip
from cardshop.cli import _verify  # noqa: F401  isort: skip
from cardshop.cli import _serve  # noqa: F401  isort: skip
from cardshop.cli import _mcp  # noqa: F401  isort: skip
from cardshop.cli import _tune  # noqa: F401  isort: skip
from cardshop.cli import _variants  # noqa: F401  isort: skip

__all__ = ["app", "run", "user_errors"]


def _typer_error(exc: Exception) -> tuple[str, int] | None:
    """The one-paragraph message and exit code of an error typer raised, or None.

    typer raises the exceptions of the click copy it carries (not a public module),
    so they are recognised by their documented interface: an ``exit_code`` and
    ``format_message()``, and for usage errors the ``ctx`` whose usage line and
    command path complete the message.
    """
    code = getattr(exc, "exit_code", None)
    format_message = getattr(exc, "format_message", None)
    if not isinstance(code, int) or not callable(format_message):
        return None
    message = paragraph(str(format_message()))
    if not message.endswith((".", "!", "?")):
        message += "."
    ctx = getattr(exc, "ctx", None)
    if ctx is not None:
        message += f" {paragraph(ctx.get_usage())} (see '{ctx.command_path} --help')."
    else:
        message += " See 'cardshop --help'."
    return message, code


def run(argv: list[str] | None = None) -> int:
    """Run the CLI with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    try:
        result = app(args=argv, prog_name="cardshop", standalone_mode=False)
    except typer.Abort:
        err_console.print("cardshop: aborted", markup=False)
        return 1
    except Exception as exc:
        known = _typer_error(exc)
        if known is None:
            raise
        message, code = known
        err_console.print(f"cardshop: error: {message}", markup=False)
        return code
    return result if isinstance(result, int) else 0
