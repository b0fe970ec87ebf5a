"""Compiling a generated C or C++ text into a shared library loaded with ctypes, once per
process for each text: the library of a byte-identical text, built by the same compiler
with the same flags, is the one already loaded (a SHA-256 of all three names it).

A generated file is compiled where it is checked (:mod:`dgraph.codegen.check`) and again
where it is loaded for use (``make_function``, ``load_c``, ``load_cuda_host``); the
second build would be the first one's bytes. ctypes never unloads a library, so keeping
each one costs nothing the process did not already hold. A failed build is not kept."""

from __future__ import annotations

import ctypes
import hashlib
import subprocess
import tempfile
from pathlib import Path

from ..errors import DGraphError

_LOADED: dict[str, ctypes.CDLL] = {}


def first_error(stderr: str) -> str:
    """A compiler's first line that says ``error`` (g++ opens with "In instantiation of"
    context lines), else its first line."""
    lines = stderr.strip().splitlines() or ["unknown error"]
    return next((line for line in lines if "error" in line), lines[0])


def shared_library(
    compiler: str,
    flags: tuple[str, ...],
    text: str,
    suffix: str = ".c",
    libraries: tuple[str, ...] = (),
    what: str = "C",
) -> ctypes.CDLL:
    """``text`` compiled by ``compiler`` as ``compiler flags -shared -fPIC -o lib.so
    file<suffix> libraries`` in a temporary directory and loaded; the library loaded
    before for the same compiler, flags, suffix, libraries and text when there is one.
    A DGraphError naming the compiler's first error line (``what``: "C" or "C++")."""
    key = hashlib.sha256(
        "\0".join([compiler, *flags, "|", suffix, *libraries, "|", text]).encode()
    ).hexdigest()
    library = _LOADED.get(key)
    if library is not None:
        return library
    with tempfile.TemporaryDirectory(prefix="dgraph-") as tmp:
        source, built = Path(tmp, "generated" + suffix), Path(tmp, "generated.so")
        source.write_text(text)
        command = [compiler, *flags, "-shared", "-fPIC", "-o", str(built), str(source)]
        done = subprocess.run([*command, *libraries], capture_output=True, text=True)
        if done.returncode != 0:
            raise DGraphError(f"the {what} compiler failed: {first_error(done.stderr)}")
        library = ctypes.CDLL(str(built))
    _LOADED[key] = library
    return library
