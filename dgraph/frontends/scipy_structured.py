"""``scipy.linalg``'s structured matrices of traced arrays and their solves, as the dense
matrices they stand for (``scipy/linalg/_special_matrices.py``, ``_basic.py``): the
constructors ``toeplitz``, ``circulant`` and ``hankel`` (one take of the traced entries at
constant positions), and ``solve_banded``, ``solveh_banded``, ``solve_toeplitz``,
``solve_circulant`` (``np.linalg.solve`` of that matrix: the same solution, whose derivative
is the implicit function theorem's) up to order :data:`DENSE_LIMIT`, and ``lstsq``
(``np.linalg.lstsq``'s). A banded solve of a longer system is refused in one line: its
dense matrix and Jacobian would be too large.

>>> import numpy as np
>>> LINALG["toeplitz"](np.array([1.0, 2.0, 3.0]), np.array([1.0, 4.0])).tolist()
[[1.0, 4.0], [2.0, 1.0], [3.0, 2.0]]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError
from .scipy_sparse import DENSE_LIMIT

__all__ = ["LINALG"]


def _toeplitz(c: Any, r: Any = None) -> Any:
    """``A[i, j] = c[i - j]`` on and below the diagonal, ``r[j - i]`` above (``r`` is
    ``c`` where not given: real entries)."""
    c = np.ravel(c)
    r = c if r is None else np.ravel(r)
    m, n = np.shape(c)[0], np.shape(r)[0]
    values = np.concatenate([c[::-1], r[1:]])
    i, j = np.indices((m, n))
    return np.take(values, m - 1 - i + j)


def _circulant(c: Any) -> Any:
    """``A[i, j] = c[(i - j) mod n]``."""
    c = np.ravel(c)
    n = np.shape(c)[0]
    i, j = np.indices((n, n))
    return np.take(c, (i - j) % n)


def _hankel(c: Any, r: Any = None) -> Any:
    """``A[i, j] = c[i + j]`` where ``i + j < len(c)``, else ``r[i + j - len(c) + 1]``
    (``r`` zeros where not given)."""
    c = np.ravel(c)
    m = np.shape(c)[0]
    r = np.zeros(m) if r is None else np.ravel(r)
    n = np.shape(r)[0]
    values = np.concatenate([c, r[1:]])
    i, j = np.indices((m, n))
    return np.take(values, i + j)


def _order(n: int, what: str) -> None:
    if n > DENSE_LIMIT:
        raise InputError(
            f"scipy.linalg.{what} of order {n:,} (over {DENSE_LIMIT:,}) is not supported: it"
            " is read as a dense solve"
        )


def _banded(ab: Any, lower: int, upper: int, n: int) -> Any:
    """The dense matrix of ``ab``'s diagonal ordered form: ``A[i, j] = ab[upper + i - j, j]``
    for ``-upper ≤ i - j ≤ lower``, zero elsewhere."""
    i, j = np.indices((n, n))
    band = (i - j >= -upper) & (i - j <= lower)
    rows = np.where(band, upper + i - j, 0)
    return np.where(band, np.take(np.ravel(ab), rows * n + j), 0.0)


def _solve_banded(l_and_u: Any, ab: Any, b: Any, overwrite_ab: bool = False,
                  overwrite_b: bool = False, check_finite: bool = True) -> Any:  # fmt: skip
    lower, upper = (int(k) for k in l_and_u)
    n = np.shape(ab)[-1]
    _order(n, "solve_banded")
    if np.shape(ab)[0] != lower + upper + 1:
        raise InputError(
            f"scipy.linalg.solve_banded: ab has {np.shape(ab)[0]} rows, not {lower + upper + 1}"
        )
    return np.linalg.solve(_banded(ab, lower, upper, n), b)


def _solveh_banded(ab: Any, b: Any, overwrite_ab: bool = False, overwrite_b: bool = False,
                   lower: bool = False, check_finite: bool = True) -> Any:  # fmt: skip
    """The symmetric matrix of ``ab``'s upper (``ab[u + i - j, j] = A[i, j]``, ``i ≤ j``)
    or lower (``ab[i - j, j] = A[i, j]``, ``i ≥ j``) form, solved."""
    u, n = np.shape(ab)[0] - 1, np.shape(ab)[-1]
    _order(n, "solveh_banded")
    half = _banded(ab, u, 0, n) if lower else _banded(ab, 0, u, n)
    return np.linalg.solve(half + np.swapaxes(half, -1, -2) - half * np.eye(n), b)


def _solve_toeplitz(c_or_cr: Any, b: Any, check_finite: bool = True) -> Any:
    c, r = c_or_cr if isinstance(c_or_cr, tuple) else (c_or_cr, None)
    _order(np.size(c), "solve_toeplitz")
    return np.linalg.solve(_toeplitz(c, r), b)


def _solve_circulant(c: Any, b: Any, singular: str = "raise", tol: Any = None,
                     caxis: int = -1, baxis: int = 0, outaxis: int = 0) -> Any:  # fmt: skip
    if np.ndim(c) != 1 or (caxis, baxis, outaxis) != (-1, 0, 0) or singular != "raise":
        raise InputError("scipy.linalg.solve_circulant of one vector c, default axes, only")
    _order(np.size(c), "solve_circulant")
    return np.linalg.solve(_circulant(c), b)


def _lstsq(a: Any, b: Any, cond: Any = None, *args: Any, **kwargs: Any) -> Any:
    """``np.linalg.lstsq``'s (solution, residues, rank, singular values); scipy's
    ``overwrite_*``, ``check_finite`` and ``lapack_driver`` change no value."""
    return np.linalg.lstsq(a, b, rcond=cond)


#: ``scipy.linalg``'s functions, by name
LINALG: dict[str, Callable[..., Any]] = {
    "toeplitz": _toeplitz,
    "circulant": _circulant,
    "hankel": _hankel,
    "solve_banded": _solve_banded,
    "solveh_banded": _solveh_banded,
    "solve_toeplitz": _solve_toeplitz,
    "solve_circulant": _solve_circulant,
    "lstsq": _lstsq,
}
