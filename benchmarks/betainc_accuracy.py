"""The generated C's regularized incomplete beta ``dgraph_betainc`` (dgraph.codegen.c_special)
against SciPy's ``special.betainc`` and mpmath's (40 digits) on a grid: a and b from 1e-2
to 1e3 (21 values each, log-spaced), x from 1e-300 to 1e-1 (25 values), from 1 - 1e-1 to
1 - 1e-16 (16) and 40 uniform in (0, 1): 36,162 points. The worst relative error, the
error relative to max(|value|, 1e-300) below 1e-300 (subnormals), overall and by region.

Then Student's t CDF (``scipy.special.stdtr``, made of it) through ``make_function``: its
gradient and Hessian against the t density and its slope (closed forms) at t = 0, ±1e-9,
1e-6 and across the series' switch at min(1, √df/10) and the tails' at t² = df.

Usage: ``python benchmarks/betainc_accuracy.py [--points N]`` (N: how many of the grid's
points mpmath checks, a random sample; all of them by default, about a minute)."""

from __future__ import annotations

import argparse
import ctypes
import time

import mpmath
import numpy as np
from scipy import special, stats

import dgraph
from dgraph.codegen.c import compiler
from dgraph.codegen.c_special import special_definitions
from dgraph.codegen.native_build import shared_library

CALL = "dgraph_betainc(a[k], b[k], x[k])"
FLOOR = 1e-300


def c_betainc():
    """``dgraph_betainc`` over three arrays, compiled with -O2."""
    text = "\n".join(
        [
            "#include <math.h>",
            *special_definitions(CALL),
            "void run(long n, const double *a, const double *b, const double *x, double *y)",
            f"{{ for (long k = 0; k < n; ++k) y[k] = {CALL}; }}",
        ]
    )
    library = shared_library(compiler(), ("-O2",), text, ".c", ("-lm",))

    def run(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
        y = np.empty_like(x)
        pointer = lambda v: ctypes.c_void_p(v.ctypes.data)  # noqa: E731
        library.run(ctypes.c_long(x.size), pointer(a), pointer(b), pointer(x), pointer(y))
        return y

    return run


def grid() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    shapes = 10 ** np.linspace(-2, 3, 21)
    a, b = (v.ravel() for v in np.meshgrid(shapes, shapes, indexing="ij"))
    rng = np.random.default_rng(0)
    xs = np.concatenate(
        [
            10 ** -np.linspace(1, 300, 25),
            1 - 10 ** -np.linspace(1, 16, 16),
            rng.uniform(0, 1, 40),
            [0.5],
        ]
    )
    return np.repeat(a, xs.size), np.repeat(b, xs.size), np.tile(xs, a.size)


def relative(y: np.ndarray, want: np.ndarray) -> np.ndarray:
    return np.abs(y - want) / np.maximum(np.abs(want), FLOOR)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", type=int, default=0)
    n = parser.parse_args().points
    a, b, x = grid()
    y = c_betainc()(a, b, x)
    scipy = special.betainc(a, b, x)
    rel = relative(y, scipy)
    k = int(np.argmax(rel))
    print(f"points {x.size}; vs SciPy worst {rel[k]:.2e} at a={a[k]:.4g} b={b[k]:.4g} x={x[k]:.4g}")
    for floor in (1e-250,):
        print(f"  vs SciPy, values above {floor:g}: {relative(y, scipy)[scipy > floor].max():.2e}")
    pick = np.arange(x.size)
    if n:
        pick = np.random.default_rng(1).choice(x.size, n, replace=False)
    start = time.process_time()
    with mpmath.workdps(40):
        exact = np.array(
            [
                float(
                    mpmath.betainc(
                        mpmath.mpf(a[i]), mpmath.mpf(b[i]), 0, mpmath.mpf(x[i]), regularized=True
                    )
                )
                for i in pick
            ]
        )
    seconds = time.process_time() - start
    for name, values in (("C", y[pick]), ("SciPy", scipy[pick])):
        r = relative(values, exact)
        k = int(np.argmax(r))
        print(
            f"vs mpmath ({pick.size} points, {seconds:.0f} CPU-s): {name} worst {r[k]:.2e}"
            f" at a={a[pick][k]:.4g} b={b[pick][k]:.4g} x={x[pick][k]:.4g};"
            f" above 1e-12: {int(np.sum(r > 1e-12))}, above 1e-13: {int(np.sum(r > 1e-13))}"
        )
        big = np.maximum(a[pick], b[pick]) >= 100
        print(
            f"  {name}: max(a, b) < 100: {r[~big].max():.2e}; max(a, b) >= 100: {r[big].max():.2e}"
        )


def student_t() -> None:
    t = np.array([0.0, -1e-9, 1e-6, 0.07, -0.071, 0.099, 0.11, 0.99, -1.01, 1.58, 3.0, -40.0])
    for df in (0.5, 2.5, 30.0, 1000.0):
        F = dgraph.make_function(
            lambda t, df=df: np.sum(special.stdtr(df, t)), "value_gradient_hessian", point=[t]
        )
        _, gradient, hessian = F(t)
        density = stats.t.pdf(t, df)
        slope = -(df + 1.0) * t / (df + t * t) * density
        g = np.max(np.abs(gradient - density) / density)
        h = np.max(np.abs(np.diag(hessian) - slope) / np.maximum(np.abs(slope), 1e-300))
        print(f"stdtr df={df:g}: gradient worst relative {g:.1e}, Hessian {h:.1e}")


if __name__ == "__main__":
    student_t()
    main()
