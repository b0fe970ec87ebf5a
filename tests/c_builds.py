"""How the suite's processes build generated C and C++: without optimization.

The tests build C for its values, never its speed (benchmarks/ time the optimized code),
so dgraph's builds in a test process (``make_function``'s, ``load``'s, ``load_c``'s,
``load_cuda_host``'s) turn ``-O2`` into ``-O0``: for one 58 KB Hessian text gcc takes
0.15 CPU-s at -O0 and 1.13 at -O2, and the suite's 92 texts of three C-heavy files 7.0-7.4
CPU-s against 14.1-14.7 (benchmarks/RESULTS.md, session 57). It is the same text and the
same IEEE arithmetic (x86-64's SSE2; neither level contracts a multiply and an add, and
the host build keeps ``-ffp-contract=off``), as tests/xla_compile.py does for XLA.

A module that tests the ``-O2`` users get says so with ``pytestmark =
pytest.mark.c_optimized`` (tests/test_codegen_c_values.py: code wrong only when
optimized is caught there); the command line, which tests run as a process, builds as it
does for a user."""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator

import pytest

UNOPTIMIZED = ("-O0",)
_BUILDERS = ("dgraph.codegen.c", "dgraph.codegen.tensor.c_values", "dgraph.codegen.cuda")


def _unoptimized(shared_library):
    """``shared_library`` with ``-O2`` given as :data:`UNOPTIMIZED`."""

    def build(compiler, flags, *args, **keywords):
        flags = tuple(f for flag in flags for f in (UNOPTIMIZED if flag == "-O2" else (flag,)))
        return shared_library(compiler, flags, *args, **keywords)

    return build


@contextlib.contextmanager
def unoptimized() -> Iterator[None]:
    """dgraph's C and C++ builds at :data:`UNOPTIMIZED` instead of ``-O2`` inside."""
    with pytest.MonkeyPatch.context() as patch:
        for name in _BUILDERS:
            module = importlib.import_module(name)
            patch.setattr(module, "shared_library", _unoptimized(module.shared_library))
        yield
