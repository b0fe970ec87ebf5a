"""Session 49 (lead): a spline made outside the function at n queries from the inputs.
``sum(w · spl(x)²)`` with ``spl = CubicSpline`` of 200 knots (scipy.interpolate, read as
the interval by ``searchsorted`` and Horner's rule): the gradient by
``make_function(f, "vjp")`` at x, CPU-s to make it and per call, the worst error against
the closed form ``2·w·spl(x)·spl(x, 1)`` (scipy's own derivative).

Session 50 (search50): ``--knots M`` (default 200) sets the spline's knots, and each line
also gives the CPU-ms of one call of the generated gradient and of scipy's own evaluation
of the same closed form (``spl(x)`` and ``spl(x, 1)``, then the arithmetic), each the
median of 5 timings of enough calls to take 0.2 s, and their ratio; a first make at
2,000 other queries, untimed, takes the one-time costs (imports, caches).

``--interp``: ``np.interp`` of the same knots' values instead of the spline, its
reference NumPy's ``np.interp`` and the segment's slope (0 outside the knots).

``python benchmarks/lead49_spline_scale.py [--knots M] [--interp] N [N ...]``

Columns: n, knots, make CPU-s, make CPU-ms per query, call CPU-ms, scipy CPU-ms, call /
scipy, relative error, verified.
"""

import statistics
import sys
import time
import warnings

import numpy as np
from scipy.interpolate import CubicSpline

import dgraph


def spline(knots: int) -> CubicSpline:
    xk = np.linspace(0.0, 10.0, knots)
    return CubicSpline(xk, np.sin(xk) * np.exp(-0.1 * xk))


def interpolated(knots: int):
    """``np.interp`` of the spline's knots and values, called as the spline is (``nu`` 1:
    the segment's slope, 0 outside the knots)."""
    xk = np.linspace(0.0, 10.0, knots)
    yk = np.sin(xk) * np.exp(-0.1 * xk)
    slopes = np.diff(yk) / np.diff(xk)

    def call(x, nu=0):
        if nu == 0:
            return np.interp(x, xk, yk)
        k = np.clip(np.searchsorted(xk, x, side="right") - 1, 0, knots - 2)
        return np.where((x < xk[0]) | (x > xk[-1]), 0.0, slopes[k])

    return call


def per_call(run, budget: float = 0.2, repeats: int = 5) -> float:
    """CPU-ms of one call of ``run()``: the median of ``repeats`` timings of a batch of
    calls that takes about ``budget`` CPU-s."""
    t = time.process_time()
    run()
    once = max(time.process_time() - t, 1e-5)
    count = max(1, int(budget / once))
    times = []
    for _ in range(repeats):
        t = time.process_time()
        for _ in range(count):
            run()
        times.append((time.process_time() - t) / count)
    return 1e3 * statistics.median(times)


def main(argv: list[str]) -> None:
    warnings.simplefilter("ignore")
    knots = 200
    if argv[:1] == ["--knots"]:
        knots, argv = int(argv[1]), argv[2:]
    spl = spline(knots)
    if argv[:1] == ["--interp"]:
        spl, argv = interpolated(knots), argv[1:]

    def f(x):
        return np.sum(np.cos(x) * spl(x) ** 2)

    def closed_form(x):  # scipy's own: the spline and its derivative, then the arithmetic
        s, d = spl(x), spl(x, 1)
        return -np.sin(x) * s**2 + 2 * np.cos(x) * s * d

    warm = np.random.default_rng(1).uniform(-1.0, 11.0, size=2000)
    dgraph.make_function(f, "vjp", point=[warm])  # one-time costs (imports, caches) first
    for n in map(int, argv):
        x = np.random.default_rng(0).uniform(-1.0, 11.0, size=n)
        t = time.process_time()
        made = dgraph.make_function(f, "vjp", point=[x])
        build = time.process_time() - t
        w = np.ones(())
        g = made(x, w)
        call = per_call(lambda: made(x, w))  # noqa: B023 (timed here, in this iteration)
        scipy_call = per_call(lambda: closed_form(x))  # noqa: B023
        want = closed_form(x)
        error = np.abs(np.reshape(g, n) - want).max() / np.abs(want).max()
        print(
            n,
            knots,
            round(build, 2),
            f"{1e3 * build / n:.3f}",
            f"{call:.3f}",
            f"{scipy_call:.3f}",
            f"{call / scipy_call:.2f}",
            f"{error:.1e}",
            made.generated.verified,
            flush=True,
        )


if __name__ == "__main__":
    main(sys.argv[1:])
