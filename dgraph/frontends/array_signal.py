"""``np.convolve`` and ``np.correlate`` of traced 1-D arrays, as NumPy defines them
(numpy.convolve: ``(a * v)[k] = Σⱼ a[k − j] v[j]``): one shifted slice of the longer
operand per entry of the shorter, scaled by that entry and summed — the tracer's slices,
products and sums, so every derivative order is theirs. A constant kernel's zero entries
add no term. The shorter operand is the kernel (convolution commutes, as NumPy swaps them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["convolve", "correlate"]

MAX_TERMS = 4096  # entries of the shorter operand: one slice each


def _mode(mode: Any, what: str) -> str:
    names = {0: "valid", 1: "same", 2: "full"}
    mode = names.get(mode, mode) if not isinstance(mode, bool) else mode
    if mode not in ("full", "same", "valid"):
        raise InputError(f"{what}: mode must be 'full', 'same' or 'valid', not {mode!r}")
    return mode


def _vector(x: Any, what: str) -> Any:
    if np.ndim(x) != 1 or np.shape(x)[0] == 0:
        raise InputError(f"{what}: the operands must be non-empty 1-D arrays")
    return x if hasattr(x, "tape") else np.asarray(x, dtype=float)


def convolve(a: Any, v: Any, mode: Any = "full") -> Any:
    """``np.convolve(a, v, mode)`` of 1-D arrays, either or both traced."""
    mode = _mode(mode, "numpy.convolve")
    a, v = _vector(a, "numpy.convolve"), _vector(v, "numpy.convolve")
    if np.shape(v)[0] > np.shape(a)[0]:
        a, v = v, a
    n, m = np.shape(a)[0], np.shape(v)[0]
    if m > MAX_TERMS:
        raise InputError(
            f"numpy.convolve of two operands longer than {MAX_TERMS} entries is not supported"
        )
    if mode == "valid":
        padded, length = a, n - m + 1
    else:
        padded, length = np.pad(a, m - 1), n + m - 1
    out = None
    for j in range(m):
        if not hasattr(v, "tape") and v[j] == 0.0:
            continue
        start = m - 1 - j
        term = v[j] * padded[start : start + length]
        out = term if out is None else out + term
    if out is None:
        out = np.zeros(length) + 0.0 * padded[:length]
    if mode == "same":
        first = (m - 1) // 2
        out = out[first : first + n]
    return out


def correlate(a: Any, v: Any, mode: Any = "valid") -> Any:
    """``np.correlate(a, v, mode)`` of real 1-D arrays: ``convolve(a, v[::-1], mode)``,
    reversed where ``v`` is the longer (NumPy's order of the lags)."""
    mode = _mode(mode, "numpy.correlate")
    a, v = _vector(a, "numpy.correlate"), _vector(v, "numpy.correlate")
    if np.shape(v)[0] > np.shape(a)[0]:
        return convolve(v, a[::-1], mode)[::-1]
    return convolve(a, v[::-1], mode)
