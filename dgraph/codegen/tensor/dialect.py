"""What NumPy and JAX code print differently: the array module's name, sympy's printer,
segment sums (NumPy's ``bincount``, JAX's ``segment_sum``), scattering a block into the
dense Jacobian (an assignment; JAX's ``.at[].set``), and the sparse result (SciPy's CSR
array; JAX's BCOO)."""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from ...errors import DGraphError
from .. import jaxcode, python

__all__ = ["DIALECTS", "Dialect"]


@dataclass(frozen=True)
class Dialect:
    """One target language of the generated Jacobian."""

    lang: str
    xp: str  # the array module's name in the generated text

    def formula(self, expr: sympy.Expr) -> str:
        """A sympy expression in the generated code's variable names."""
        where = f"the generated jacobian() for {self.lang}"
        for inverse in sorted(expr.atoms(sympy.erfinv), key=sympy.count_ops):  # inner first
            call = f"{self.special('erfinv')}({self.formula(inverse.args[0])})"
            expr = expr.xreplace({inverse: sympy.Symbol(call, real=True)})
        if self.lang == "python":
            text = python._print(python._Printer(), expr, "jacobian")
        else:
            text = jaxcode._print(jaxcode._Printer(), expr, "jacobian")
        if "_math_" in text:
            raise DGraphError(f"{where}: cannot print {expr} on arrays")
        return text

    def special(self, name: str) -> str:
        """A special function (``erf``) on arrays."""
        return f"scipy.special.{name}" if self.lang == "python" else f"jax.scipy.special.{name}"

    def segment_sum(self, data: str, ids: str, n: int) -> str:
        """Entry k of the result: the sum of ``data`` where ``ids`` is k."""
        if self.lang == "python":
            return f"numpy.bincount({ids}, weights={data}, minlength={n})"
        return f"jax.ops.segment_sum({data}, {ids}, num_segments={n})"

    def scatter(self, size: int, flat: str, data: str) -> str:
        """A vector of ``size`` zeros with ``data`` at ``flat`` (each position once)."""
        if self.lang == "python":
            return f"_scatter({size}, {flat}, {data})"
        return f"jnp.zeros({size}).at[{flat}].set({data})"

    def scatter_add(self, base: str, parts: list[tuple[str, str]]) -> str:
        """A copy of the vector ``base`` with each part's ``data`` added at its ``flat``
        positions (each position once a part): one copy, however many parts (at 10⁶
        unknowns each copy is some 50 MB)."""
        if self.lang == "python":
            return f"_scatter_add({base}, {', '.join(f'{f}, {d}' for f, d in parts)})"
        return f"jnp.asarray({base})" + "".join(f".at[{f}].add({d})" for f, d in parts)

    def sparse(self, data: str, pattern: tuple[str, str], shape: tuple[int, int]) -> str:
        """The sparse (m, n) result: ``pattern`` is CSR's (indices, indptr) for NumPy and
        BCOO's (nnz, 2) indices (and nothing) for JAX."""
        if self.lang == "python":
            return f"scipy.sparse.csr_array(({data}, {pattern[0]}, {pattern[1]}), shape={shape})"
        return (
            f"jsparse.BCOO(({data}, {pattern[0]}), shape={shape}, indices_sorted=True,"
            " unique_indices=True)"
        )

    def empty_sparse(self, shape: tuple[int, int]) -> str:
        if self.lang == "python":
            return f"scipy.sparse.csr_array({shape})"
        return f"jsparse.BCOO((jnp.zeros(0), jnp.zeros((0, 2), jnp.int32)), shape={shape})"

    def imports(self, sparse: bool, special: bool) -> list[str]:
        lines = ["import base64", "import zlib", "", "import numpy"]
        if self.lang == "python":
            lines += ["import scipy.sparse"] if sparse else []
            lines += ["import scipy.special"] if special else []
        else:
            lines += ["import jax", "import jax.numpy as jnp"]
            lines += ["import jax.scipy.special"] if special else []
            lines += ["from jax.experimental import sparse as jsparse"] if sparse else []
        return lines

    def helpers(self) -> list[str]:
        if self.lang != "python":
            return []
        return [
            "def _scatter(size, flat, data):",
            '    """A vector of zeros with ``data`` at ``flat``."""',
            "    out = numpy.zeros(size)",
            "    out[flat] = data",
            "    return out",
            "",
            "",
            "def _scatter_add(base, *parts):",
            '    """A copy of ``base`` with each ``data`` added at its ``flat`` (parts: flat,',
            '    data, flat, data, ...)."""',
            "    out = numpy.array(base, dtype=float)",
            "    for flat, data in zip(parts[::2], parts[1::2]):",
            "        numpy.add.at(out, flat, data)  # faster than out[flat] += data",
            "    return out",
        ]


DIALECTS = {"python": Dialect("python", "numpy"), "jax": Dialect("jax", "jnp")}
