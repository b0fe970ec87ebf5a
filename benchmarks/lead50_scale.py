"""Session 50 (lead): `np.unwrap` and `numpy.polynomial.chebyshev.chebval` of traced arrays at
scale: the gradient of a scalar loss made (CPU-s, trace, check, code) and called (CPU-ms,
median of 5), at n = 10^4, 10^5, 10^6 entries, and the growth exponents between sizes.

    PYTHONPATH=. python benchmarks/lead50_scale.py
"""

from __future__ import annotations

import time

import numpy as np

import dgraph

C = np.array([0.4, -1.3, 0.8, 0.25, -0.6, 1.1, 0.3, -0.2])


def unwrap_loss(x):
    return np.sum(np.unwrap(np.arctan2(np.sin(3 * x), np.cos(3 * x))) ** 2)


def series_loss(x):
    return np.sum(np.polynomial.chebyshev.chebval(x, C) ** 2)


def measure(f, n: int) -> tuple[float, float]:
    x = np.linspace(-0.9, 0.9, n) + 1e-3 * np.sin(np.arange(n))
    start = time.process_time()
    made = dgraph.make_function(f, "jacobian", point=[x])
    make = time.process_time() - start
    assert made.generated.verified
    calls = []
    for _ in range(5):
        start = time.process_time()
        made(x)
        calls.append(time.process_time() - start)
    return make, 1e3 * float(np.median(calls))


def main() -> None:
    sizes = (10**4, 10**5, 10**6)
    for f in (unwrap_loss, series_loss):
        rows = [measure(f, n) for n in sizes]
        for n, (make, call) in zip(sizes, rows, strict=True):
            print(f"{f.__name__:12s} n={n:>8d} make {make:6.2f} CPU-s  call {call:8.2f} CPU-ms")
        for k in (1, 2):
            grow = [np.log10(rows[k][j] / rows[k - 1][j]) for j in (0, 1)]
            step = f"{sizes[k - 1]}->{sizes[k]}"
            print(f"{f.__name__:12s} {step}: make n^{grow[0]:.2f}, call n^{grow[1]:.2f}")


if __name__ == "__main__":
    main()
