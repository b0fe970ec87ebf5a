"""The orthogonal-polynomial series of ``numpy.polynomial`` (``chebyshev``, ``legendre``,
``hermite``, ``hermite_e``, ``laguerre``) of traced coefficients or points: each
``<kind>val(x, c)`` by Clenshaw's recurrence in the operations NumPy's own function
performs (its values, to the code generator's rounding), each ``<kind>der(c, m, scl)``
as the constant matrix NumPy's ``<kind>der`` makes of the identity, applied to ``c``
(the derivative of a series is linear in its coefficients). NumPy's functions convert ``c`` with
``np.array``, which a traced array refuses (a Chebyshev fit's coefficients, a spectral
method's unknowns).

References
----------
Clenshaw, C. W. (1955). A note on the summation of Chebyshev series. *Mathematical Tables
and Other Aids to Computation* 9(51), 118-120.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.polynomial as P

from ..errors import InputError

__all__ = ["SERIES"]

# One step of each kind's recurrence, (c_i, c0, c1, x, x2, nd) -> (c0, c1), and its last
# line, (c0, c1, x, x2) -> value, as numpy/polynomial/<kind>.py writes them (x2: 2x).
_Step = Callable[[Any, Any, Any, Any, Any, int], tuple[Any, Any]]
_Last = Callable[[Any, Any, Any, Any], Any]
_KINDS: dict[str, tuple[str, _Step, _Last]] = {
    "chebyshev": (
        "cheb",
        lambda ci, c0, c1, x, x2, nd: (ci - c1, c0 + c1 * x2),
        lambda c0, c1, x, x2: c0 + c1 * x,
    ),
    "legendre": (
        "leg",
        lambda ci, c0, c1, x, x2, nd: (
            ci - c1 * ((nd - 1) / nd),
            c0 + c1 * x * ((2 * nd - 1) / nd),
        ),
        lambda c0, c1, x, x2: c0 + c1 * x,
    ),
    "hermite": (
        "herm",
        lambda ci, c0, c1, x, x2, nd: (ci - c1 * (2 * (nd - 1)), c0 + c1 * x2),
        lambda c0, c1, x, x2: c0 + c1 * x2,
    ),
    "hermite_e": (
        "herme",
        lambda ci, c0, c1, x, x2, nd: (ci - c1 * (nd - 1), c0 + c1 * x),
        lambda c0, c1, x, x2: c0 + c1 * x,
    ),
    "laguerre": (
        "lag",
        lambda ci, c0, c1, x, x2, nd: (
            ci - (c1 * (nd - 1)) / nd,
            c0 + (c1 * ((2 * nd - 1) - x)) / nd,
        ),
        lambda c0, c1, x, x2: c0 + c1 * (1 - x),
    ),
}


def _value(kind: str) -> Callable[..., Any]:
    """``numpy.polynomial.<kind>.<prefix>val(x, c, tensor=True)``."""
    _, step, last = _KINDS[kind]

    def val(x: Any, c: Any, tensor: bool = True) -> Any:
        if np.ndim(c) == 0:
            c = np.reshape(c, (1,))
        if isinstance(x, (tuple, list)):
            x = np.asarray(x)
        if tensor and np.ndim(x) and np.ndim(c) > 1:  # each point against each series
            c = np.reshape(c, np.shape(c) + (1,) * np.ndim(x))
        x2 = 2 * x if kind in ("chebyshev", "hermite") else None  # the others read x
        n = np.shape(c)[0]
        if n == 1:
            c0, c1 = c[0], 0
        elif n == 2:
            c0, c1 = c[0], c[1]
        else:
            c0, c1, nd = c[-2], c[-1], n
            for i in range(3, n + 1):
                nd -= 1
                c0, c1 = step(c[-i], c0, c1, x, x2, nd)
        return last(c0, c1, x, x2)

    return val


def _derivative(kind: str) -> Callable[..., Any]:
    """``numpy.polynomial.<kind>.<prefix>der(c, m=1, scl=1, axis=0)``: NumPy's own
    derivative of the identity's columns (a constant matrix) applied to ``c``."""
    prefix = _KINDS[kind][0]
    own = getattr(getattr(P, kind), f"{prefix}der")

    def der(c: Any, m: int = 1, scl: Any = 1, axis: int = 0) -> Any:
        if np.ndim(c) == 0 or axis != 0 or int(m) < 0:
            raise InputError(
                f"numpy.polynomial.{kind}.{prefix}der: coefficients along axis 0 and m >= 0"
            )
        matrix = own(np.eye(np.shape(c)[0]), int(m), scl, axis=0)
        return np.tensordot(matrix, c, axes=([1], [0]))

    return der


SERIES: dict[str, dict[str, Callable[..., Any]]] = {
    f"numpy.polynomial.{kind}": {
        f"{prefix}val": _value(kind),
        f"{prefix}der": _derivative(kind),
    }
    for kind, (prefix, _, _) in _KINDS.items()
}
"""Each series module's functions of traced arrays, by module and name."""
