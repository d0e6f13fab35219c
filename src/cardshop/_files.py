"""Output files that are complete or absent: never cut short by an error or a signal."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__ = ["atomic_output", "write_text_atomic"]


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
