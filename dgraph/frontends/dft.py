"""The discrete Fourier transform as constant matrices, for the readers that write an
``fft`` as a linear map (the JAX reader's :mod:`~dgraph.frontends.jaxpr_complex`, the
NumPy tracer's :mod:`~dgraph.frontends.array_complex`): one builder, so both read the
same numbers.

``y_k = Σ_j x_j e^{−2πijk/n}`` is ``C x − i S x`` with ``C = cos(2πjk/n)`` and
``S = sin(2πjk/n)`` (Cooley and Tukey, Math. Comp. 19 (1965), compute the same sums fast;
the derivative of the DFT is the DFT itself, so a dense product is all a derivative
needs). The inverse of a Hermitian spectrum of ``n//2 + 1`` entries (``irfft``) is
``x_j = (1/n) Σ_k w_k (Re Y_k cos(2πjk/n) − Im Y_k sin(2πjk/n))``, ``w_k`` 1 for ``k = 0``
and ``k = n/2``, else 2 (the imaginary parts of those two ignored, as ``numpy.fft.irfft``
and ``jnp.fft.irfft`` do).
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError

__all__ = ["FFT_MOST", "check_length", "irfft_matrices", "matrices"]

FFT_MOST = 4096
"""The longest transformed axis read: its DFT matrices are two dense n × n constants (n =
4096: 2 × 128 MiB of doubles)."""


def check_length(n: int, where: str) -> None:
    """One line where an axis of length ``n`` is longer than :data:`FFT_MOST`."""
    if n > FFT_MOST:
        raise InputError(
            f"{where}: fft of length {n}: at most {FFT_MOST} (its DFT matrices are dense"
            " n × n constants)"
        )


def matrices(n: int, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """``cos(2πjk/n)`` and ``sin(2πjk/n)`` for ``k < rows``, ``j < n`` (``jk`` reduced
    mod ``n`` first, so the angle is below 2π; at a multiple of π/2 the exact 0 and ±1, so
    the DC and Nyquist bins of a real signal have imaginary parts exactly 0, as the FFT's)."""
    k, j = np.arange(rows)[:, None], np.arange(n)[None, :]
    r = (k * j) % n
    angle = 2.0 * np.pi * r / n
    c, s = np.cos(angle), np.sin(angle)
    quarter = (4 * r) % n == 0
    q = (4 * r // n)[quarter]
    c[quarter] = np.array([1.0, 0.0, -1.0, 0.0])[q]
    s[quarter] = np.array([0.0, 1.0, 0.0, -1.0])[q]
    return c, s


def irfft_matrices(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``A`` and ``B`` (n × (n//2 + 1)) with ``irfft(Y, n) = A Re Y + B Im Y``."""
    c, s = matrices(n, n // 2 + 1)
    weight = np.full(n // 2 + 1, 2.0)
    weight[0] = 1.0
    if n % 2 == 0:
        weight[-1] = 1.0
    return (c * weight[:, None]).T / n, -(s * weight[:, None]).T / n
