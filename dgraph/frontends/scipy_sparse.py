"""A constant ``scipy.sparse`` matrix times a traced array (``A @ u``, ``A.dot(u)``, an
``spmatrix``'s ``A * u``, ``u @ A``) as NumPy operations of equal value: the stored
entries' gather ``u[col]`` scaled by ``data``, summed into their rows by
``np.bincount(row, weights=...)`` (per column of a 2-d ``u``) — a sparse product's own
definition (Saad, *Iterative Methods for Sparse Linear Systems*, 2003, §3.4), so the
tracer's gather and segment sum and their derivative rules are all there is, and the
Jacobian keeps ``A``'s pattern. While a function is traced (:func:`traced_products`),
SciPy's product dispatch takes traced operands to :func:`product`; everything else is
SciPy's own. ``scipy.sparse.linalg.spsolve(A, b)`` of a traced ``b`` is
``np.linalg.solve(A.toarray(), b)`` (:func:`spsolve`). A function that imports
``scipy.sparse`` in its body (``def f(x): import scipy.sparse as sp; ...``) is read as one
that imports it at module level: its code names the module, so it is imported before the
trace (:func:`import_named`), and ``scipy.sparse.linalg.spsolve`` itself dispatches while
the trace runs.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["LINALG", "import_named", "is_sparse", "product", "spsolve", "traced_products"]


def _sparse() -> Any:
    """``scipy.sparse`` where it is imported, else None (a sparse matrix needs it, and
    ``import dgraph`` stays without SciPy)."""
    return sys.modules.get("scipy.sparse")


def is_sparse(value: Any) -> bool:
    """Whether ``value`` is a ``scipy.sparse`` matrix or array."""
    sparse = _sparse()
    return sparse is not None and sparse.issparse(value)


def product(a: Any, u: Any, *, left: bool = False) -> Any:
    """``a @ u`` of a constant sparse ``a`` (2-d, real) and a traced ``u`` of 1 or 2 axes;
    ``left``: ``u @ a`` (``(aᵀ @ uᵀ)ᵀ``)."""
    if a.ndim != 2 or a.dtype.kind not in "biuf":
        raise InputError(
            f"a product with a {a.ndim}-d {a.dtype} scipy.sparse operand is not supported"
            " (a 2-d real one is)"
        )
    if left:
        return np.transpose(product(a.T, np.transpose(u)))
    shape = np.shape(u)
    m, n = a.shape
    if len(shape) not in (1, 2) or shape[0] != n:
        raise InputError(f"matmul: a scipy.sparse matrix of shape {a.shape} times shape {shape}")
    coo = _sparse().coo_array(a, dtype=float)
    coo.sum_duplicates()
    coo.eliminate_zeros()
    rows, cols, data = coo.row, coo.col, coo.data
    if not data.size:
        return np.zeros((m, *shape[1:]))
    if len(shape) == 1:
        return np.bincount(rows, weights=data * u[cols], minlength=m)
    scaled = data[:, None] * u[cols]
    columns = [np.bincount(rows, weights=scaled[:, j], minlength=m) for j in range(shape[1])]
    return np.stack(columns, axis=1)


#: the largest order ``spsolve`` densifies (a 4096² matrix of doubles is 128 MiB)
DENSE_LIMIT = 4096


def spsolve(a: Any, b: Any, permc_spec: Any = None, use_umfpack: bool = True) -> Any:
    """``scipy.sparse.linalg.spsolve(A, b)`` of a constant sparse ``A`` and a traced ``b``
    (a vector or a matrix of columns) as ``np.linalg.solve(A.toarray(), b)``: the same
    solution, its Jacobian ``A⁻¹`` dense as it is; a ``b`` of one column gives a vector,
    as SciPy's does."""
    if not is_sparse(a) or a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise InputError("scipy.sparse.linalg.spsolve needs a square scipy.sparse matrix")
    if a.shape[0] > DENSE_LIMIT:
        raise InputError(
            f"scipy.sparse.linalg.spsolve of a traced right-hand side with a matrix of order"
            f" {a.shape[0]} (over {DENSE_LIMIT}) is not supported: its Jacobian is dense"
        )
    x = np.linalg.solve(a.toarray(), b)
    return np.reshape(x, (-1,)) if np.ndim(b) == 2 and np.shape(b)[1] == 1 else x


#: ``scipy.sparse.linalg``'s functions, by name
LINALG: dict[str, Callable[..., Any]] = {"spsolve": spsolve}


def _names_sparse(f: Callable[..., Any]) -> bool:
    """Whether ``f``'s code (its nested functions' and comprehensions' too) imports
    ``scipy.sparse`` or a module of it, or imports ``scipy`` and reads ``sparse``."""
    code = getattr(getattr(f, "__func__", f), "__code__", None)
    stack = [code] if isinstance(code, types.CodeType) else []
    while stack:
        code = stack.pop()
        names = code.co_names
        if any(n.startswith("scipy.sparse") for n in names) or (
            "sparse" in names and any(n == "scipy" or n.startswith("scipy.") for n in names)
        ):
            return True
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return False


def import_named(f: Callable[..., Any]) -> None:
    """``scipy.sparse`` and ``scipy.sparse.linalg`` imported where ``f``'s body imports
    them itself: :func:`traced_products` then patches their classes and ``spsolve`` before
    the body runs, as for a module-level import (otherwise SciPy's own product would meet
    the traced operand; no SciPy import for a function that does not name it)."""
    if "scipy.sparse.linalg" not in sys.modules and _names_sparse(f):
        importlib.import_module("scipy.sparse.linalg")


def _dispatching(original: Callable[..., Any], traced: Callable[[Any], bool], left: bool):
    def dispatch(self: Any, other: Any) -> Any:
        if traced(other):
            return product(self, other, left=left)
        return original(self, other)

    return dispatch


#: SciPy's product entry points (``A @ u``, an ``spmatrix``'s ``A * u``, ``A.dot(u)``;
#: ``u @ A``), each defined on a format's base class and overridden by some (COO's)
_ENTRIES = {"_matmul_dispatch": False, "dot": False, "_rmatmul_dispatch": True}
_FORMATS = ("bsr", "coo", "csc", "csr", "dia", "dok", "lil")


def _owners() -> list[tuple[type, str]]:
    """Each (class, method) of :data:`_ENTRIES` that a sparse format's class defines (none
    where scipy.sparse is not imported)."""
    sparse = _sparse()
    if sparse is None:
        return []
    classes = {c for f in _FORMATS for kind in ("array", "matrix")
               for c in getattr(sparse, f"{f}_{kind}").__mro__}  # fmt: skip
    return sorted(((c, name) for c in classes for name in _ENTRIES if name in vars(c)),
                  key=lambda p: (p[0].__module__, p[0].__qualname__, p[1]))  # fmt: skip


@contextlib.contextmanager
def traced_products(traced: Callable[[Any], bool]) -> Iterator[None]:
    """While it is open, a sparse matrix's products with a value ``traced`` says is traced
    are :func:`product`'s (SciPy converts its operand with ``np.asarray`` first, which a
    traced array refuses)."""
    saved = [(c, name, vars(c)[name]) for c, name in _owners()]
    linalg = sys.modules.get("scipy.sparse.linalg")
    if linalg is not None:  # ``spsolve`` as a function body imports it, or reads it
        saved.append((linalg, "spsolve", linalg.spsolve))
    for c, name, method in saved:
        patched = _solving(method, traced) if name == "spsolve" else None
        setattr(c, name, patched or _dispatching(method, traced, _ENTRIES[name]))
    try:
        yield
    finally:
        for c, name, method in saved:
            setattr(c, name, method)


def _solving(original: Callable[..., Any], traced: Callable[[Any], bool]):
    """``scipy.sparse.linalg.spsolve`` that is :func:`spsolve` for a traced operand."""

    def solve(a: Any, b: Any, *args: Any, **kwargs: Any) -> Any:
        if traced(a) or traced(b):
            return spsolve(a, b, *args, **kwargs)
        return original(a, b, *args, **kwargs)

    return solve
