"""Session 41's C special functions, the Bessel functions of order 0 and 1
(``dgraph.codegen.c_bessel``), ``spence``, ``ellipk`` and ``ellipe``
(``dgraph.codegen.c_special_more``), against mpmath (40 digits) and SciPy: the worst
error of each, and SciPy's own against mpmath, relative to max(|f|, the amplitude
min(1, √(2/(π|x|)))) for J and Y (near a zero the absolute error counts), to |f| for the
others; on a near grid and a far one (up to 1e300 in size).

    python benchmarks/special_accuracy.py
"""

from __future__ import annotations

import ctypes

import mpmath
import numpy as np
import scipy.special as sps

from dgraph.codegen.c import compiler
from dgraph.codegen.c_special import special_definitions
from dgraph.codegen.native_build import shared_library

NAMES = ("j0", "j1", "y0", "y1", "k0", "k1", "k0e", "k1e", "spence", "ellipk", "ellipe")
_MP = {
    "j0": lambda v: mpmath.besselj(0, v),
    "j1": lambda v: mpmath.besselj(1, v),
    "y0": lambda v: mpmath.bessely(0, v),
    "y1": lambda v: mpmath.bessely(1, v),
    "k0": lambda v: mpmath.besselk(0, v),
    "k1": lambda v: mpmath.besselk(1, v),
    "k0e": lambda v: mpmath.besselk(0, v) * mpmath.exp(v),
    "k1e": lambda v: mpmath.besselk(1, v) * mpmath.exp(v),
    "spence": lambda v: mpmath.polylog(2, 1 - v),
    "ellipk": mpmath.ellipk,
    "ellipe": mpmath.ellipe,
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
    bessel = name in ("j0", "j1", "y0", "y1")
    amplitude = np.minimum(1.0, np.sqrt(2 / (np.pi * np.abs(x)))) if bessel else 0.0
    scale = np.maximum(np.abs(want), amplitude)
    scale = np.where(scale > 0, scale, 1.0)
    error = np.abs(got - want) / scale
    k = int(np.argmax(error))
    return float(error[k]), float(x[k])


def main() -> None:
    rng = np.random.default_rng(0)
    positive = np.sort(np.concatenate([10 ** rng.uniform(-5, 2, 600), rng.uniform(0, 30, 400)]))
    parameter = np.concatenate([rng.uniform(-5, 1, 600), 1 - 10 ** rng.uniform(-16, 0, 400)])
    print("x: 1,000 points in (1e-5, 100), 100 in (100, 1e300); m: 1,000 in (-5, 1), 100")
    print("in (-1e300, -100)")
    for name in NAMES:
        elliptic = name.startswith("ellip")
        x = parameter if elliptic else positive
        far = (-1 if elliptic else 1) * 10 ** rng.uniform(2, 300, 100)
        with mpmath.workdps(40):
            want = np.array([float(_MP[name](mpmath.mpf(float(v)))) for v in x])
            want_far = np.array([float(_MP[name](mpmath.mpf(float(v)))) for v in far])
        c, s = c_values(name, x), getattr(sps, name)(x)
        c_far, s_far = c_values(name, far), getattr(sps, name)(far)
        (ce, cx), (se, sx) = worst(name, c, want, x), worst(name, s, want, x)
        (cf, _), (sf, sfx) = worst(name, c_far, want_far, far), worst(name, s_far, want_far, far)
        vs, _ = worst(name, c, s, x)
        print(
            f"{name:6s} near: C {ce:.1e} (x={cx:.4g}), SciPy {se:.1e} (x={sx:.4g}), C vs SciPy"
            f" {vs:.1e}; far: C {cf:.1e}, SciPy {sf:.1e} (x={sfx:.3g})"
        )


if __name__ == "__main__":
    main()
