"""The Dask options that simulate, verify, tune and ladder share, and their client."""

from __future__ import annotations

import logging
from typing import Annotated, Any

import typer

from cardshop.cli._app import paragraph
from cardshop.core.errors import SetupError

__all__ = ["DaskAddress", "DaskTimeout", "check_dask_timeout", "dask_client"]

DaskAddress = Annotated[
    str | None,
    typer.Option("--dask", help="Share the work over a Dask cluster: its scheduler's address."),
]
DaskTimeout = Annotated[
    float,
    typer.Option("--dask-timeout", help="Seconds to wait for the Dask scheduler before giving up."),
]


def check_dask_timeout(timeout: float) -> None:
    """A :class:`SetupError` unless ``timeout`` (--dask-timeout) is above 0; commands check
    it before any work, whether or not --dask is given."""
    if not timeout > 0:
        raise SetupError(f"--dask-timeout must be a number of seconds above 0, not {timeout}")


def dask_client(address: str, timeout: float, option: str = "--dask") -> Any:
    """A client of the scheduler at ``address``, or a :class:`SetupError` within ``timeout``
    seconds; ``option`` is the command-line option the errors name."""
    try:
        from distributed import Client
    except ImportError:
        raise SetupError(
            f"{option} needs the 'distributed' extra: python -m pip install "
            '".[distributed]" in a clone of cardshop'
        ) from None
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)  # the error below says it once, in one paragraph
    try:
        return Client(address, timeout=timeout)  # type: ignore[no-untyped-call]
    except Exception as exc:  # OSError, TimeoutError, ValueError for a malformed address
        reason = paragraph(str(exc)) or type(exc).__name__
        raise SetupError(
            f"{option}: cannot reach a Dask scheduler at {address!r} within {timeout:g} s: {reason}"
        ) from None
    finally:
        quiet.setLevel(level)
