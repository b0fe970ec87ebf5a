"""The C Bessel functions of order 0 and 1 (``dgraph.codegen.c_bessel``) against mpmath
(40 digits) and SciPy on a log grid: the worst error of each, and SciPy's own against
mpmath, relative to max(|f|, the amplitude min(1, √(2/(π|x|)))) for J and Y (near a zero
the absolute error counts) and to |f| for K.

    python benchmarks/bessel_accuracy.py
"""

from __future__ import annotations

import ctypes

import mpmath
import numpy as np
import scipy.special as sps

from dgraph.codegen.c import compiler
from dgraph.codegen.c_special import special_definitions
from dgraph.codegen.native_build import shared_library

NAMES = ("j0", "j1", "y0", "y1", "k0", "k1", "k0e", "k1e")
_MP = {
    "j0": lambda v: mpmath.besselj(0, v),
    "j1": lambda v: mpmath.besselj(1, v),
    "y0": lambda v: mpmath.bessely(0, v),
    "y1": lambda v: mpmath.bessely(1, v),
    "k0": lambda v: mpmath.besselk(0, v),
    "k1": lambda v: mpmath.besselk(1, v),
    "k0e": lambda v: mpmath.besselk(0, v) * mpmath.exp(v),
    "k1e": lambda v: mpmath.besselk(1, v) * mpmath.exp(v),
}


def c_values(name: str, x: np.ndarray) -> np.ndarray:
    call = f"dgraph_{name}(x[k])"
    harness = ["void run(long n, const double *x, double *y)"]
    harness.append(f"{{ for (long k = 0; k < n; ++k) y[k] = {call}; }}")
    text = "\n".join(["#include <math.h>", *special_definitions(call), *harness])
    lib = shared_library(compiler(), ("-O2",), text, ".c", ("-lm",))
    y = np.empty_like(x)
    lib.run(ctypes.c_long(x.size), ctypes.c_void_p(x.ctypes.data), ctypes.c_void_p(y.ctypes.data))
    return y


def worst(name: str, got: np.ndarray, want: np.ndarray, x: np.ndarray) -> tuple[float, float]:
    """The worst relative error and the x where it is."""
    amplitude = 0.0 if name.startswith("k") else np.minimum(1.0, np.sqrt(2 / (np.pi * x)))
    scale = np.maximum(np.abs(want), amplitude)
    scale = np.where(scale > 0, scale, 1.0)
    error = np.abs(got - want) / scale
    k = int(np.argmax(error))
    return float(error[k]), float(x[k])


def main() -> None:
    rng = np.random.default_rng(0)
    x = np.sort(np.concatenate([10 ** rng.uniform(-5, 2, 600), rng.uniform(0, 30, 400)]))
    far = 10 ** rng.uniform(2, 300, 100)
    print(f"{len(x)} points in (1e-5, 100), {len(far)} in (100, 1e300)")
    for name in NAMES:
        with mpmath.workdps(40):
            want = np.array([float(_MP[name](mpmath.mpf(float(v)))) for v in x])
            want_far = np.array([float(_MP[name](mpmath.mpf(float(v)))) for v in far])
        c, s = c_values(name, x), getattr(sps, name)(x)
        c_far, s_far = c_values(name, far), getattr(sps, name)(far)
        (ce, cx), (se, sx) = worst(name, c, want, x), worst(name, s, want, x)
        (cf, _), (sf, sfx) = worst(name, c_far, want_far, far), worst(name, s_far, want_far, far)
        vs, _ = worst(name, c, s, x)
        print(
            f"{name:4s} to 100: C {ce:.1e} (x={cx:.4g}), SciPy {se:.1e} (x={sx:.4g}), C vs SciPy"
            f" {vs:.1e}; 100 to 1e300: C {cf:.1e}, SciPy {sf:.1e} (x={sfx:.3g})"
        )


if __name__ == "__main__":
    main()
