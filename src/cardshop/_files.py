"""Output files that are complete or absent: never cut short by an error or a signal."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

__all__ = ["atomic_output", "read_text_bounded", "write_text_atomic"]


def _file_mode(path: Path) -> int:
    """The permissions of ``path`` if it exists, else those of a new file (umask applied)."""
    with contextlib.suppress(OSError):
        return path.stat().st_mode & 0o7777
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str], newline: str | None = None) -> Iterator[IO[str]]:
    """Write a text file so that it is complete or absent, never cut short.

    The text goes to a temporary file in the same folder, which replaces ``path``
    (``os.replace``) only when the ``with`` block ends without an error; on an error
    or a signal the temporary file is removed and ``path`` is left as it was.
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        os.chmod(tmp, _file_mode(target))  # as an ordinary new file (mkstemp makes it 0600)
        with open(fd, "w", encoding="utf-8", newline=newline) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` through :func:`atomic_output`. Raises ``OSError``."""
    with atomic_output(path) as f:
        f.write(text)


def read_text_bounded(
    path: str | os.PathLike[str],
    limit: int,
    error: Callable[[str], Exception],
    *,
    what: str,
    kind: str,
    too_large: str,
) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes.

    Never blocks on a FIFO (opened non-blocking, then refused by ``fstat``) and never
    reads more than ``limit + 1`` bytes. Every problem raises ``error(message)``, the
    message starting with the path (cut to 200 characters): "cannot read {what}",
    "not a regular file; {kind} a JSON Lines file", "{too_large} is larger than
    {limit} bytes", or "not a text file".
    """
    name = str(path)[:200]
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else str(exc)
        raise error(f"{name}: cannot read {what}: {why}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{name}: not a regular file; {kind} a JSON Lines file")
        if info.st_size > limit:
            raise error(f"{name}: {too_large} is larger than {limit} bytes")
        with os.fdopen(fd, "rb", closefd=False) as f:
            raw = f.read(limit + 1)
    except OSError as exc:
        raise error(f"{name}: cannot read {what}: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(raw) > limit:
        raise error(f"{name}: {too_large} is larger than {limit} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{name}: not a text file (UTF-8 JSON Lines expected)") from None
