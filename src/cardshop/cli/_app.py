"""The typer application and the error policy shared by every command."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, ParamSpec, TypeVar

import typer
from rich.console import Console

from cardshop.core.errors import CardshopError
from cardshop.support.about import VERSION, compiled
from cardshop.support.files import atomic_output

__all__ = ["app", "atomic_output", "console", "err_console", "fail", "user_errors"]

app = typer.Typer(
    name="cardshop",
    help="Play, simulate and audit shopping card games (every registered family) defined in YAML.",
    no_args_is_help=False,  # no command is a usage error: one paragraph, exit 2
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)

P = ParamSpec("P")
R = TypeVar("R")


def _show_version(value: bool) -> None:
    if value:
        build = "compiled" if compiled else "pure Python"
        console.print(f"cardshop {VERSION} ({build})", markup=False)
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Play, simulate and audit shopping card games (every registered family) defined in YAML."""


def paragraph(message: str) -> str:
    """``message`` as one line (runs of white space, newlines included, become one space)."""
    return " ".join(message.split())


def fail(message: str) -> typer.Exit:
    """Print a user error as one paragraph and return the exit to raise (code 2)."""
    err_console.print(f"cardshop: error: {paragraph(message)}", markup=False)
    return typer.Exit(2)


def user_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn a :class:`CardshopError` raised by a command into a one-paragraph message."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except CardshopError as exc:
            raise fail(str(exc)) from None

    return wrapper


def write_output(path: Path, text: str, option: str | None = None) -> None:
    """Write ``text`` to ``path`` atomically and say so; a file that cannot be written
    is a user error naming it (and the ``option`` that named it, where given)."""
    try:
        with atomic_output(path) as f:
            f.write(text)
    except OSError as exc:
        reason = exc.strerror or exc
        where = f"{option} {path}: cannot write: " if option else f"cannot write {path}: "
        raise fail(f"{where}{reason}") from None
    console.print(f"wrote {path}", markup=False)


def write_outputs(*outputs: tuple[Path | None, str]) -> None:
    """:func:`write_output` for each ``(path, text)`` whose path is given."""
    for path, text in outputs:
        if path is not None:
            write_output(path, text)
