"""What NumPy and JAX modules differ by beyond their statements' text: the printer of
array statements (:class:`~dgraph.codegen.python.NumPyArrayPrinter`,
:class:`~dgraph.codegen.jaxcode.JaxArrayPrinter`), the imports and the helpers a module
defines."""

from __future__ import annotations

from dataclasses import dataclass

from ..jaxcode import JaxArrayPrinter
from ..printing import ArrayPrinter
from ..python import NumPyArrayPrinter
from .grid_numpy import GRID_HELPER

__all__ = ["DIALECTS", "Dialect"]

# A call's temporaries over 128 KiB are mapped and unmapped by glibc's malloc at each call
# (and faulted in again, page by page) until the process frees one mapped block: glibc
# then raises its mmap and trim thresholds to that block's size (mallopt(3), "dynamic
# threshold"). A NumPy module made in a process that did nothing large before (a script
# that imports it) ran the minimal surface's Hessian at 10⁴ unknowns in 3.3 ms a call,
# 523 page faults, against 1.2 ms and none with the 16 MiB array below made (never
# touched) and let go at import. Elsewhere than glibc it allocates nothing it keeps.
_ALLOCATOR = [
    "# a 16 MiB array made and let go: glibc's malloc then keeps a call's temporaries in its heap",
    "numpy.empty(1 << 21)",
]


@dataclass(frozen=True)
class Dialect:
    """One target language of the generated Jacobian."""

    lang: str

    @property
    def printer(self) -> ArrayPrinter:
        return NumPyArrayPrinter() if self.lang == "python" else JaxArrayPrinter()

    def imports(self, sparse: bool, special: bool, linalg: bool = False) -> list[str]:
        """``linalg``: the body calls ``scipy.linalg.<f>`` (:mod:`.linalg_code`: JAX's
        ``solve_triangular``, ``sqrtm`` in both)."""
        lines = ["import base64", "import zlib", "", "import numpy"]
        if self.lang == "python":
            lines += ["import scipy.linalg"] if linalg else []
            lines += ["import scipy.sparse"] if sparse else []
            lines += ["import scipy.special"] if special else []
        else:
            lines += ["import jax", "import jax.numpy as jnp"]
            lines += ["import jax.scipy.linalg"] if linalg else []
            lines += ["import jax.scipy.special"] if special else []
            lines += ["from jax.experimental import sparse as jsparse"] if sparse else []
        return lines

    def at_import(self) -> list[str]:
        """Statements a module runs when it is imported (NumPy's: :data:`_ALLOCATOR`)."""
        return list(_ALLOCATOR) if self.lang == "python" else []

    def helpers(self) -> list[str]:
        if self.lang != "python":
            return []
        return [
            "def _scatter(size, flat, data):",
            '    """A vector of zeros with ``data`` at ``flat``: an index array, a slice, or',
            '    runs ((slice, slice) pairs: data at the second goes to the first)."""',
            "    out = numpy.zeros(size)",
            "    if flat.__class__ is tuple:",
            "        for at, part in flat:",
            "            out[at] = data[part]",
            "    else:",
            "        out[flat] = data",
            "    return out",
            "",
            "",
            "def _scatter_add(base, *parts):",
            '    """A copy of ``base`` with each ``data`` added at its ``flat`` (parts: flat,',
            '    data, flat, data, ...)."""',
            "    return _scatter_add_into(numpy.array(base, dtype=float), *parts)",
            "",
            "",
            "def _scatter_add_into(out, *parts):",
            '    """``out`` with each ``data`` added at its ``flat``, in place: an index array',
            '    (numpy.add.at), a slice or runs as for _scatter (through views)."""',
            "    for flat, data in zip(parts[::2], parts[1::2]):",
            "        if flat.__class__ is slice:",
            "            view = out[flat]",
            "            view += data",
            "        elif flat.__class__ is tuple:",
            "            for at, part in flat:",
            "                view = out[at]",
            "                view += data[part]",
            "        else:",
            "            numpy.add.at(out, flat, data)  # faster than out[flat] += data",
            "    return out",
            "",
            "",
            *GRID_HELPER,
        ]


DIALECTS = {"python": Dialect("python"), "jax": Dialect("jax")}
