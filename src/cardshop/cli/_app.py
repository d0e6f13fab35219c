"""The typer application and the error policy shared by every command."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer
from rich.console import Console

from cardshop._errors import CardshopError

__all__ = ["app", "console", "err_console", "user_errors"]

app = typer.Typer(
    name="cardshop",
    help="Play, simulate and audit Klunker-family card games defined in YAML.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)

P = ParamSpec("P")
R = TypeVar("R")


def fail(message: str) -> typer.Exit:
    """Print a user error as one paragraph and return the exit to raise (code 2)."""
    err_console.print(f"cardshop: error: {' '.join(message.split())}", markup=False)
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
