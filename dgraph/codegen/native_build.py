"""Compiling a generated C or C++ text into a shared library loaded with ctypes, once per
process for each text: the library of a byte-identical text, built by the same compiler
with the same flags, is the one already loaded (a SHA-256 of all three names it).

A generated file is compiled where it is checked (:mod:`dgraph.codegen.check`) and again
where it is loaded for use (``make_function``, ``load_c``, ``load_cuda_host``); the
second build would be the first one's bytes. ctypes never unloads a library, so keeping
each one costs nothing the process did not already hold. A failed build is not kept.

A text over :data:`LARGE_SOURCE` characters is built at ``-O1`` where ``-O2`` or ``-O3``
is asked: GCC's ``-O2`` passes grow faster than linearly in one function's size, and a
generated Hessian of a 50-step loop (one 1.9 MB function, 49,000 lines) was not built
at ``-O2`` after 135 CPU-s (stopped at 12 minutes); it is in 24 CPU-s at ``-O1``
(benchmarks/RESULTS.md, session 41). Neither level implies ``-ffast-math``: both keep
IEEE semantics, so the values are the same operations in the same order."""

from __future__ import annotations

import ctypes
import hashlib
import subprocess
import tempfile
from pathlib import Path

from ..errors import DGraphError

_LOADED: dict[str, ctypes.CDLL] = {}

#: the size (characters) past which a text is compiled at -O1 rather than -O2 or -O3
LARGE_SOURCE = 400_000


def levelled(flags: tuple[str, ...], text: str) -> tuple[str, ...]:
    """``flags`` with ``-O2``/``-O3`` read as ``-O1`` when ``text`` is over
    :data:`LARGE_SOURCE` characters (see the module docstring), else as given."""
    if len(text) <= LARGE_SOURCE:
        return flags
    return tuple("-O1" if f in ("-O2", "-O3") else f for f in flags)


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
    A DGraphError naming the compiler's first error line (``what``: "C" or "C++").
    A large text's optimization level is lowered (:func:`levelled`)."""
    flags = levelled(tuple(flags), text)
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
