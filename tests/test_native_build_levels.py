"""A large generated C text is compiled at -O1 (dgraph.codegen.native_build.levelled):
GCC's -O2 on one very long function (a 50-step loop's C Hessian) had not finished after
135 CPU-s, -O1 took 24 (benchmarks/RESULTS.md, session 41). The flags given to the
compiler for a small and a large text; a large text's library computes what Python
computes."""

from __future__ import annotations

import ctypes
import subprocess

import pytest

from dgraph.codegen import native_build
from dgraph.codegen.c import compiler
from dgraph.errors import DGraphError

pytestmark = pytest.mark.c_optimized  # the levels asked for, as users ask (tests/c_builds.py)


def _command(monkeypatch, text: str, flags: tuple[str, ...]) -> list[str]:
    """The compiler's command line for ``text`` (the build stopped there)."""
    seen: list[list[str]] = []

    def run(command, **kwargs):
        seen.append(command)
        return subprocess.CompletedProcess(command, 1, "", "error: stopped by the test")

    monkeypatch.setattr(native_build.subprocess, "run", run)
    with pytest.raises(DGraphError, match="stopped by the test"):
        native_build.shared_library("cc", flags, text, ".c", ("-lm",))
    return seen[0]


def test_a_small_text_keeps_its_level(monkeypatch) -> None:
    command = _command(monkeypatch, "int f(void) { return 1; }\n", ("-O2",))
    assert "-O2" in command and "-O1" not in command


@pytest.mark.parametrize("level", ["-O2", "-O3"])
def test_a_large_text_is_built_at_O1(monkeypatch, level: str) -> None:
    text = "int f(void) { return 1; }\n" + " " * native_build.LARGE_SOURCE
    command = _command(monkeypatch, text, (level, "-ffp-contract=off"))
    assert "-O1" in command and level not in command and "-ffp-contract=off" in command


@pytest.mark.skipif(compiler() is None, reason="no C compiler")
def test_a_large_text_s_library_computes_python_s_values() -> None:
    """A recurrence of 2,000 statements in one function, the text over LARGE_SOURCE
    characters (a comment: the compile stays short): built at -O1, its value is the one
    Python's floats give, bit for bit."""
    count = 2_000
    body = "".join(f"    x = x * {1 + k % 7 * 1e-6!r} + {k % 5 * 1e-9!r};\n" for k in range(count))
    pad = "/*" + " " * native_build.LARGE_SOURCE + "*/\n"
    text = f"{pad}double f(double x)\n{{\n{body}    return x;\n}}\n"
    assert len(text) > native_build.LARGE_SOURCE
    library = native_build.shared_library(compiler(), ("-O2",), text, ".c", ("-lm",))
    library.f.restype, library.f.argtypes = ctypes.c_double, [ctypes.c_double]
    x = 0.75
    for k in range(count):
        x = x * (1 + k % 7 * 1e-6) + k % 5 * 1e-9
    assert library.f(0.75) == x
