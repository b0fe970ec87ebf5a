"""``scipy.signal.lfilter`` (and ``sosfilt``, ``filtfilt``) whose coefficients or initial
state depend on the inputs, as the loop it is: scipy's direct form II transposed
(``scipy/signal/_lfilter.c``, ``lfilter``'s docstring), with ``b`` and ``a`` divided by
``a[0]`` and both padded to ``K = max(len(a), len(b))`` taps,

    y[n]     = b[0]·x[n] + z[0][n−1]
    z[i][n]  = b[i+1]·x[n] + z[i+1][n−1] − a[i+1]·y[n]     (z[K−1] ≡ 0),

one step per sample along ``axis`` of an n-d ``x`` (every other axis at once), carrying
the K − 1 delays ``z`` from ``zi`` (zeros where not given; ``zf`` is the last ``z``).
The step reads ``a``: the recursion's coefficients are values, so it is a loop region
(the tracer's :func:`~.array_tracer.scan`, as the JAX reader reads ``lax.scan``), held
once whatever the length. Constant coefficients and state stay scipy's own affine map
(:mod:`.scipy_modules`, probed), and taps ``b`` alone of 1-d data its FIR-then-IIR form.

``sosfilt`` is that filter of each second-order section in turn (scipy's cascade; each
section's ``a0`` divided out as ``lfilter`` does, where scipy requires it to be 1).
``filtfilt`` (scipy's default ``padtype="odd"``, ``method="pad"``) is that filter run
forward and then backward over ``x`` extended by its odd reflection, each run started at
``lfilter_zi(b, a)`` times the run's first sample: ``lfilter_zi`` solves
``(I − Aᵀ)·zi = b[1:] − a[1:]·b[0]`` with ``A`` the companion matrix of ``a`` (scipy's
``lfilter_zi``), a traced solve where ``a`` or ``b`` is traced.

References
----------
Oppenheim, A. V. and Schafer, R. W. (2010). *Discrete-Time Signal Processing*, 3rd ed.,
§6.5 (transposed direct forms).

Gustafsson, F. (1996). Determining the initial states in forward-backward filtering.
*IEEE Trans. Signal Process.* 44(4), 988–992.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InputError
from . import scipy_modules

__all__ = ["functions"]

_WHAT = "scipy.signal.lfilter"
_CONSTANT = (int, float, np.number, np.ndarray, list, tuple, type(None))


def _traced(value: Any) -> bool:
    """Whether ``value`` is the tracer's (a NumPy array reached while ``f`` runs is a
    view of NumPy's own class, a constant)."""
    return not isinstance(value, _CONSTANT)


def _taps(c: Any, what: str) -> Any:
    if np.iscomplexobj(c) and not _traced(c):
        raise InputError(f"{what} of complex coefficients is not supported")
    if np.ndim(c) == 0:
        c = np.reshape(c, (1,))
    if np.ndim(c) != 1 or np.shape(c)[0] == 0:
        raise InputError(f"{what}: the coefficients b and a must be non-empty 1-d arrays")
    return c if _traced(c) else np.asarray(c, dtype=float)


def _axis(axis: Any, ndim: int, what: str) -> int:
    """``axis`` of an array of ``ndim`` axes, from 0; one line where there is none."""
    try:
        axis = operator.index(axis)
    except TypeError:
        raise InputError(f"{what}: axis must be an integer, not {axis!r}") from None
    if not -ndim <= axis < ndim:
        raise InputError(f"{what}: axis {axis} of an array of {ndim} axes")
    return axis % ndim


def _padded(c: Any, k: int) -> Any:
    n = np.shape(c)[0]
    return c if n == k else np.concatenate([c, np.zeros(k - n)])


def _moved_state(zi: Any, shape: tuple[int, ...], axis: int, k: int, what: str) -> Any:
    """``zi`` with the filter's axis first: ``(K − 1, *others)``, as scipy requires it."""
    wanted = (*shape[:axis], k - 1, *shape[axis + 1 :])
    if tuple(np.shape(zi)) != wanted:
        raise InputError(f"{what}: zi of shape {tuple(np.shape(zi))}; this filter needs {wanted}")
    return np.moveaxis(zi, axis, 0)


def functions(scan: Callable[..., Any]) -> dict[str, Callable[..., Any]]:
    """``lfilter``, ``sosfilt`` and ``filtfilt`` of ``scipy.signal``, loops through ``scan`` (the
    tracer's twin of ``lax.scan``) where a coefficient or ``zi`` depends on the inputs."""

    def recursion(b: Any, a: Any, x: Any, axis: int, z0: Any) -> tuple[Any, Any]:
        """The filter along ``axis`` from the delays ``z0`` (first axis the delays'):
        ``y`` and the last delays."""
        k = max(np.shape(a)[0], np.shape(b)[0])
        b, a = _padded(b, k) / a[0], _padded(a, k) / a[0]
        moved = np.moveaxis(x, axis, 0)
        others = tuple(np.shape(moved)[1:])
        if k == 1:
            return b[0] * x, z0
        if z0 is None:
            z0 = np.zeros((k - 1, *others))
        column = (k - 1,) + (1,) * len(others)
        taps = [b[0], np.reshape(b[1:], column), np.reshape(a[1:], column)]  # once, not a step

        def step(b0: Any, b1: Any, a1: Any, z: Any, xt: Any) -> tuple[list[Any], list[Any]]:
            y = b0 * xt + z[0]
            later = np.concatenate([z[1:], np.zeros((1, *others))]) if k > 2 else 0.0
            return [b1 * xt + later - a1 * y], [y]

        (zf,), (y,) = scan(step, taps, [z0], [moved], _WHAT)
        return np.moveaxis(y, 0, axis), zf

    def lfilter(b: Any, a: Any, x: Any, axis: int = -1, zi: Any = None) -> Any:
        traced = [_traced(v) for v in (b, a, zi)]
        if not any(traced):
            return scipy_modules.SIGNAL["lfilter"](b, a, x, axis=axis, zi=zi)
        b, a = _taps(b, _WHAT), _taps(a, _WHAT)
        ndim = np.ndim(x)
        axis = _axis(axis, ndim, _WHAT)
        if traced == [True, False, False] and ndim == 1 and zi is None:  # FIR then IIR
            return scipy_modules.SIGNAL["lfilter"](b, a, x)
        k = max(np.shape(a)[0], np.shape(b)[0])
        z0 = None if zi is None else _moved_state(zi, tuple(np.shape(x)), axis, k, _WHAT)
        y, zf = recursion(b, a, x, axis, z0)
        if zi is None:
            return y
        return y, np.moveaxis(zf, 0, axis)

    def filtfilt(b: Any, a: Any, x: Any, axis: int = -1, padtype: Any = "odd",
                 padlen: Any = None, method: str = "pad", irlen: Any = None) -> Any:  # fmt: skip
        if not (_traced(b) or _traced(a)):
            return scipy_modules.SIGNAL["filtfilt"](
                b, a, x, axis=axis, padtype=padtype, padlen=padlen, method=method, irlen=irlen
            )
        if method != "pad":
            raise InputError(f"{_FILTFILT} with method={method!r} of coefficients that depend"
                             " on the inputs is not supported: method='pad' is")  # fmt: skip
        b, a = _taps(b, _FILTFILT), _taps(a, _FILTFILT)
        ndim = np.ndim(x)
        axis = _axis(axis, ndim, _FILTFILT)
        k = max(np.shape(a)[0], np.shape(b)[0])
        edge, ext = _extended(x, axis, padtype, padlen, k)
        if k == 1:
            raise InputError(f"{_FILTFILT} of one tap: scipy's lfilter_zi needs two or more")
        zi = np.reshape(_steady_state(b, a, k), (1,) * axis + (k - 1,) + (1,) * (ndim - axis - 1))
        first = np.take(ext, [0], axis=axis)
        y, _ = recursion(b, a, ext, axis, np.moveaxis(zi * first, axis, 0))
        y = np.flip(y, axis=axis)
        y, _ = recursion(b, a, y, axis, np.moveaxis(zi * np.take(y, [0], axis=axis), axis, 0))
        y = np.flip(y, axis=axis)
        n = np.shape(y)[axis]
        return np.take(y, np.arange(edge, n - edge), axis=axis) if edge else y

    def sosfilt(sos: Any, x: Any, axis: int = -1, zi: Any = None) -> Any:
        """scipy's cascade: ``lfilter`` of each second-order section in turn (``zi``: one
        pair of delays per section, its shape ``(n_sections, ..., 2, ...)``)."""
        if not (_traced(sos) or _traced(zi)):
            return scipy_modules.SIGNAL["sosfilt"](sos, x, axis=axis, zi=zi)
        if np.ndim(sos) != 2 or np.shape(sos)[1] != 6 or np.iscomplexobj(sos):
            raise InputError(f"{_SOS}: sos must be a real array of shape (n_sections, 6)")
        ndim = np.ndim(x)
        axis = _axis(axis, ndim, _SOS)
        shape = tuple(np.shape(x))
        if zi is not None and tuple(np.shape(zi)) != (
            wanted := (np.shape(sos)[0], *shape[:axis], 2, *shape[axis + 1 :])
        ):
            raise InputError(
                f"{_SOS}: zi of shape {tuple(np.shape(zi))}; this filter needs {wanted}"
            )
        y, last = x, []
        for k in range(np.shape(sos)[0]):
            z0 = None if zi is None else np.moveaxis(zi[k], axis, 0)
            y, zf = recursion(sos[k, :3], sos[k, 3:], y, axis, z0)
            last.append(np.moveaxis(zf, 0, axis))
        return y if zi is None else (y, np.stack(last))

    return {"lfilter": lfilter, "filtfilt": filtfilt, "sosfilt": sosfilt}


_SOS = "scipy.signal.sosfilt"


_FILTFILT = "scipy.signal.filtfilt"


def _steady_state(b: Any, a: Any, k: int) -> Any:
    """scipy's ``lfilter_zi(b, a)``: the delays of the step response's steady state, by
    the explicit solution of ``(I − Aᵀ)·zi = b[1:] − a[1:]·b[0]`` scipy's comment gives
    (``zi[0] = ΣB / Σa``, ``zi[j] = (a[0] + … + a[j])·zi[0] − (B[0] + … + B[j−1])``), with
    ``a`` and ``b`` divided by ``a[0]`` and padded to ``k``."""
    b, a = _padded(b, k) / a[0], _padded(a, k) / a[0]
    rhs = b[1:] - a[1:] * b[0]
    zi0 = np.sum(rhs) / np.sum(a)
    before = np.concatenate([np.zeros(1), np.cumsum(rhs)[: k - 2]]) if k > 2 else np.zeros(1)
    return np.cumsum(a)[: k - 1] * zi0 - before


def _extended(x: Any, axis: int, padtype: Any, padlen: Any, k: int) -> tuple[int, Any]:
    """scipy's ``_validate_pad``: ``x`` extended at both ends along ``axis`` by ``edge``
    entries (``3·k`` unless ``padlen``), an odd or even reflection or the end value."""
    if padtype not in ("odd", "even", "constant", None):
        raise InputError(f"{_FILTFILT}: padtype must be 'odd', 'even', 'constant' or None")
    edge = 0 if padtype is None else 3 * k if padlen is None else int(padlen)
    n = np.shape(x)[axis]
    if n <= edge or edge < 0:
        raise InputError(f"{_FILTFILT}: x of length {n} along axis {axis}; padlen is {edge}")
    if edge == 0:
        return 0, x

    def at(positions: Any) -> Any:
        return np.take(x, np.asarray(positions), axis=axis)

    first, last = at([0]), at([n - 1])
    left, right = at(np.arange(edge, 0, -1)), at(np.arange(n - 2, n - edge - 2, -1))
    if padtype == "odd":
        left, right = 2.0 * first - left, 2.0 * last - right
    elif padtype == "constant":
        left, right = at([0] * edge), at([n - 1] * edge)
    return edge, np.concatenate([left, x, right], axis=axis)
