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
reads). Only the entries of the pattern are computed; the rest of J is set to zero. The
Jacobian of an array function's gradient graph (``codegen --mode hessian -o h.c``) also
gets ``hessian(…, H)``: that J with each entry above the diagonal its mirror image's below,
symmetric by construction.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import replace
from typing import Any

import numpy as np

from ...errors import DGraphError
from .c_values import (
    CTYPES_ARGUMENTS,
    FUNCTION,
    CValues,
    c_inputs,
    c_type,
    compile_values,
    packed_call,
)

__all__ = ["DENSE_FUNCTION", "dense_hessian", "dense_values", "load_dense"]

DENSE_FUNCTION = "jacobian"


def _arguments(values: CValues, result: str = "J") -> list[str]:
    """The dense function's parameters: ``jacobian_values``'s without ``data``, then the
    pattern and ``J``."""
    args = [f"const double *restrict in{k}" for k in range(len(values.inputs))]
    args += [f"const {c_type(a.dtype)} *restrict {n}" for n, a in values.constants.items()]
    return [
        *args,
        "const int64_t *restrict indices",
        "const int64_t *restrict indptr",
        f"double *restrict {result}",
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


def dense_hessian(values: CValues) -> CValues:
    """:func:`dense_values`' ``values`` (a gradient graph's square Jacobian) with
    ``hessian(in…, K…, indices, indptr, H)`` after it: ``jacobian``'s H, each entry above
    the diagonal taken from its mirror image below."""
    m, n = values.shape
    if m != n or f"void {DENSE_FUNCTION}(" not in values.text:
        raise DGraphError("a dense C Hessian is made of a square dense jacobian's values")
    names = [f"in{k}" for k in range(len(values.inputs))] + list(values.constants)
    lines = [
        "",
        f"/* hessian(): the dense {n} x {n} Hessian H, row major, symmetric by construction:",
        " * jacobian()'s, each entry above the diagonal its mirror image's below. */",
        f"void hessian({', '.join(_arguments(values, 'H'))})",
        "{",
        f"    {DENSE_FUNCTION}({', '.join([*names, 'indices', 'indptr', 'H'])});",
        f"    for (long long i = 0; i < {n}LL; i++)",
        f"        for (long long j = i + 1; j < {n}LL; j++) H[i * {n}LL + j] = H[j * {n}LL + i];",
        "}",
        "",
    ]
    made = replace(values, text=values.text.rstrip("\n") + "\n" + "\n".join(lines))
    x = [np.random.default_rng(0).uniform(0.5, 1.5, s) for s in values.input_shapes]
    J, H = load_dense(made)(*x), load_dense(made, name="hessian")(*x)
    if not np.array_equal(H, np.tril(J) + np.tril(J, -1).T, equal_nan=True):
        raise DGraphError("the C hessian() is not jacobian()'s lower triangle mirrored")
    return made


def load_dense(
    values: CValues, flags: tuple[str, ...] = ("-O2",), name: str = DENSE_FUNCTION
) -> Any:
    """Compile :func:`dense_values`' text and return ``jacobian(*inputs)``: the dense
    m × n J that its C ``jacobian`` writes (``name="hessian"``: :func:`dense_hessian`'s
    H)."""
    count = len(values.inputs) + len(values.constants) + 3
    if count <= CTYPES_ARGUMENTS:
        function = compile_values(values.text, flags, name)
        function.argtypes = [ctypes.c_void_p] * count
        call = function
    else:  # more pointers than ctypes passes: one array of them
        function = compile_values(values.text + packed_call(name, count), flags, f"{name}_packed")
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
        arrays = c_inputs(inputs, names, sizes)
        J = np.empty(shape)
        call(*[a.ctypes.data for a in arrays], *fixed, J.ctypes.data)
        return J

    jacobian._keep = (function, constants, indices, indptr)  # type: ignore[attr-defined]
    return jacobian
