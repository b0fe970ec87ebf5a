"""A tensor graph's dense Jacobian in C: the sparse values' program
(:mod:`.c_values`) and one more function that spreads them over the dense matrix.

The C file of a tensor graph's Jacobian is the value program of its sparse pattern,
``jacobian_values(in…, K…, data)``, with the constants and the pattern in the index file
beside it. A caller who wants J itself (``dgraph codegen model.py:f -o jac.c`` without
``--sparse``) gets, in the same file::

    void jacobian(const double *in0, ..., const T *K.., ...,
                  const int64_t *indices, const int64_t *indptr, double *J)

which fills the m × n J (row major, zeros off the pattern) from ``jacobian_values`` and
the pattern (the index file's ``indices`` and ``indptr``, which ``jacobian_values_load``
reads). Only the entries of the pattern are computed; the rest of J is set to zero.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import replace
from typing import Any

import numpy as np

from ...errors import DGraphError
from .c_values import CTYPES_ARGUMENTS, FUNCTION, CValues, _compile, _ctype, _packed

__all__ = ["DENSE_FUNCTION", "dense_values", "load_dense"]

DENSE_FUNCTION = "jacobian"


def _arguments(values: CValues) -> list[str]:
    """The dense function's parameters: ``jacobian_values``'s without ``data``, then the
    pattern and ``J``."""
    args = [f"const double *restrict in{k}" for k in range(len(values.inputs))]
    args += [f"const {_ctype(a.dtype)} *restrict {n}" for n, a in values.constants.items()]
    return [
        *args,
        "const int64_t *restrict indices",
        "const int64_t *restrict indptr",
        "double *restrict J",
    ]


def dense_values(values: CValues) -> CValues:
    """``values`` (a ``jacobian``'s, not a sweep's or ``value_and_jacobian``'s) with the
    dense ``jacobian`` function (module docstring) at the end of its text."""
    if values.function != FUNCTION or values.value_size:
        raise DGraphError("a dense C Jacobian is made of a jacobian's values only")
    m, n = values.shape
    names = [f"in{k}" for k in range(len(values.inputs))] + list(values.constants)
    nnz = values.nnz
    lines = [
        "",
        f"/* {DENSE_FUNCTION}(): the dense {m} x {n} Jacobian J, row major, zeros off the pattern",
        " * (indices, indptr: the CSR pattern of the index file, as jacobian_values_load"
        " reads it). */",
        f"void {DENSE_FUNCTION}({', '.join(_arguments(values))})",
        "{",
        f"    double *data = {f'malloc({nnz}L * sizeof(double))' if nnz else 'NULL'};",
        f"    {FUNCTION}({', '.join([*names, 'data'])});",
        f"    for (long long k = 0; k < {m * n}LL; k++) J[k] = 0.0;",
        f"    for (long long r = 0; r < {m}LL; r++)",
        "        for (int64_t k = indptr[r]; k < indptr[r + 1]; k++)",
        f"            J[r * {n}LL + indices[k]] = data[k];",
        "    free(data);",
        "}",
        "",
    ]
    return replace(values, text=values.text.rstrip("\n") + "\n" + "\n".join(lines))


def load_dense(values: CValues, flags: tuple[str, ...] = ("-O2",)) -> Any:
    """Compile :func:`dense_values`' text and return ``jacobian(*inputs)``: the dense
    m × n J that its C ``jacobian`` writes."""
    count = len(values.inputs) + len(values.constants) + 3
    if count <= CTYPES_ARGUMENTS:
        function = _compile(values.text, flags, DENSE_FUNCTION)
        function.argtypes = [ctypes.c_void_p] * count
        call = function
    else:  # more pointers than ctypes passes: one array of them
        function = _compile(
            values.text + _packed(DENSE_FUNCTION, count), flags, f"{DENSE_FUNCTION}_packed"
        )
        function.argtypes = [ctypes.c_void_p]

        def call(*pointers: int) -> None:
            function(ctypes.cast((ctypes.c_void_p * count)(*pointers), ctypes.c_void_p))

    constants = [np.ascontiguousarray(a) for a in values.constants.values()]
    indices = np.ascontiguousarray(values.indices, dtype=np.int64)
    indptr = np.ascontiguousarray(values.indptr, dtype=np.int64)
    fixed = [a.ctypes.data for a in (*constants, indices, indptr)]
    sizes = [math.prod(s) for s in values.input_shapes]
    names, shape = values.inputs, values.shape

    def jacobian(*inputs: Any) -> np.ndarray:
        if len(inputs) != len(names):
            raise DGraphError(f"jacobian takes {len(names)} inputs {names}, not {len(inputs)}")
        arrays = [np.ascontiguousarray(x, dtype=np.float64) for x in inputs]
        for name, a, size in zip(names, arrays, sizes, strict=True):
            if a.size != size:
                raise DGraphError(f"input {name}: {a.size} entries, not {size}")
        J = np.empty(shape)
        call(*[a.ctypes.data for a in arrays], *fixed, J.ctypes.data)
        return J

    jacobian._keep = (function, constants, indices, indptr)  # type: ignore[attr-defined]
    return jacobian
