"""The files dgraph reads and writes: it reads only regular files of bounded size, and
writes an output whole or not at all (a temporary file beside it, then ``os.replace``).
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import InputError

__all__ = ["MAX_BYTES", "check_file", "output_path", "read_text", "staged", "write_atomic"]

MAX_BYTES = 200 * 2**20  # no graph or problem file dgraph can handle comes near this


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def check_file(path: str | Path, limit: int = MAX_BYTES) -> Path:
    """``path`` if it is a regular file of at most ``limit`` bytes; anything else (missing,
    a directory, a pipe, a device, a huge file) is a one-line :class:`InputError`.

    Only ``stat`` looks at it, so a pipe is refused before anything could block on it.
    """
    path = Path(path)
    try:
        status = path.stat()
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({_why(exc)})") from None
    if stat.S_ISDIR(status.st_mode):
        raise InputError(f"{path}: is a directory, not a file")
    if not stat.S_ISREG(status.st_mode):
        raise InputError(f"{path}: not a regular file (a pipe or a device?)")
    if status.st_size > limit:
        raise InputError(f"{path}: larger than {limit // 2**20} MB; refusing to read it")
    return path


def read_text(path: str | Path, limit: int = MAX_BYTES) -> str:
    """The UTF-8 text of a file :func:`check_file` accepts (binary: an :class:`InputError`)."""
    path = check_file(path, limit)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):  # swapped since stat
                raise InputError(f"{path}: not a regular file (a pipe or a device?)")
            data = file.read(limit + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({_why(exc)})") from None
    if len(data) > limit:
        raise InputError(f"{path}: larger than {limit // 2**20} MB; refusing to read it")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as Python's text mode reads it


def output_path(text: str | Path, suffixes: Iterable[str] | None = None) -> Path:
    """``text`` as a path an output can be written to, checked before any work is done:
    a known suffix (when ``suffixes`` are given), an existing directory to hold it, and
    no directory, pipe or device in its place."""
    path = Path(text)
    if suffixes is not None:
        allowed = tuple(suffixes)
        if path.suffix.lower() not in allowed:
            raise InputError(
                f"{path}: unknown format {path.suffix or '(none)'}; use {' '.join(allowed)}"
            )
    if path.is_dir():
        raise InputError(f"{path}: cannot write it (it is a directory)")
    if path.exists() and not path.is_file():
        raise InputError(f"{path}: cannot write it (not a regular file)")
    parent = path.parent
    if not parent.is_dir():
        raise InputError(f"{path}: cannot write it (no directory {str(parent)!r})")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{path}: cannot write it (permission denied in {str(parent)!r})")
    return path


def write_atomic(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` (text as UTF-8) to ``path`` through a temporary file in the same
    directory and ``os.replace``, so a failure leaves no partial file."""
    path = Path(path)
    payload = data.encode() if isinstance(data, str) else data
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies
    except OSError as exc:
        raise InputError(f"{path}: cannot write it ({_why(exc)})") from None
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(payload)
        os.replace(temporary, path)
    except BaseException as exc:
        temporary.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InputError(f"{path}: cannot write it ({_why(exc)})") from None
        raise
    return path


@contextmanager
def staged(directory: str | Path) -> Iterator[Path]:
    """A temporary directory inside ``directory``: what the block saves there moves into
    ``directory`` when the block succeeds and is deleted when it fails, so a writer that
    makes several files (or only knows how to save to a path) leaves none half-written."""
    directory = Path(directory)
    try:
        temporary = Path(tempfile.mkdtemp(prefix=".dgraph-", dir=directory))
    except OSError as exc:
        raise InputError(f"{directory}: cannot write in it ({_why(exc)})") from None
    try:
        yield temporary
        names = sorted(os.listdir(temporary))
        for name in names:
            target = directory / name
            if target.is_dir() or (target.exists() and not target.is_file()):
                raise InputError(f"{target}: cannot write it (not a regular file)")
        for name in names:
            os.replace(temporary / name, directory / name)
    except OSError as exc:
        raise InputError(f"{directory}: cannot write in it ({_why(exc)})") from None
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
