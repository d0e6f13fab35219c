"""Output files that are complete or absent: never cut short by an error or a signal.

Every output file of cardshop (``simulate --json/--csv``, ``play --record``, game
records, HTML reports, saved games) is written by :func:`atomic_output`, which
decides by what the path names (symlinks followed):

* nothing yet, or a regular file: a temporary file beside it, renamed over it when
  complete; a symlink keeps pointing at the new file;
* a character device (``/dev/null``, ``/dev/full``, a terminal, ``/dev/stdout``) or a
  FIFO (a named pipe, ``>(...)`` in a shell): the text is written straight into it,
  as a shell's ``>`` does. The device is never replaced; a FIFO that no process
  reads is refused rather than waited on;
* anything else (a folder, a block device, a socket): refused with an ``OSError``
  naming the path.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

__all__ = ["atomic_output", "check_writable", "read_text_bounded", "write_text_atomic"]


def _refuse(path: Path, mode: int) -> OSError:
    if stat.S_ISDIR(mode):
        return IsADirectoryError(errno.EISDIR, "it is a folder; name a file", str(path))
    kind = "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else ""
    return OSError(
        errno.EINVAL,
        f"not a regular file, a character device or a FIFO{f' ({kind})' if kind else ''}",
        str(path),
    )


def _output(path: Path) -> tuple[bool, Path]:
    """``(True, path)`` to stream into a device or FIFO, ``(False, real path)`` to
    write a file atomically; raises ``OSError`` for anything else."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False, Path(os.path.realpath(path))
    if stat.S_ISREG(mode):
        return False, Path(os.path.realpath(path))
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return True, path
    raise _refuse(path, mode)


def _open_stream(path: Path) -> int:
    """A descriptor writing into the device or FIFO ``path`` (never one left waiting)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO without a reader
            raise OSError(errno.ENXIO, "a FIFO that no process reads", str(path)) from None
        raise
    os.set_blocking(fd, True)
    return fd


def check_writable(path: str | os.PathLike[str]) -> None:
    """Raise ``OSError`` now if :func:`atomic_output` could not write ``path``: a
    refused kind of file, or a folder where no file can be made. A FIFO is not
    opened (that would end its reader's input)."""
    stream, target = _output(Path(path))
    if stream:
        if stat.S_ISCHR(os.stat(path).st_mode) and not os.access(path, os.W_OK):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(fd)
    os.unlink(tmp)


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
    or a signal the temporary file is removed and ``path`` is left as it was. A
    character device or a FIFO is written straight into, never replaced; any other
    kind of file is refused (``OSError``; see the module docstring).
    """
    stream, target = _output(Path(path))
    if stream:
        with open(_open_stream(target), "w", encoding="utf-8", newline=newline) as out:
            yield out
        return
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        os.chmod(tmp, _file_mode(target))  # as an ordinary new file (mkstemp makes it 0600)
        with open(fd, "w", encoding="utf-8", newline=newline) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        with contextlib.suppress(FileNotFoundError):  # swapped for a device meanwhile?
            mode = os.lstat(target).st_mode
            if not stat.S_ISREG(mode):
                raise _refuse(target, mode)
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
