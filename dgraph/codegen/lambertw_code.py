"""Lambert's W (principal branch, real argument) in the generated code: NumPy calls SciPy
(its real part), JAX and C evaluate it by Halley's iteration.

SciPy's ``special.lambertw`` is complex and JAX has none, so the modules that call W
define ``_lambertw`` themselves (:data:`NUMPY_HELPER`, :data:`JAX_HELPER`; the evaluator of
the array programs runs the same functions) and the C file ``dgraph_lambertw``
(:data:`C_LAMBERTW`). All are NaN below −1/e, where W is complex, as the operation is
(:func:`~dgraph.blocks.special_more.lambertw_value`).

Halley's iteration for w·eʷ − x = 0 (Corless et al. 1996, eq. 5.9) converges cubically:
from the series at the branch point, w ≈ −1 + p − p²/3 + 11p³/72 with p = √(2(e·x + 1))
below x = −1/4 (eq. 4.22), ``log1p(x)`` up to 3, and the asymptotic log x − log log x +
log log x / log x above (eq. 4.19), three steps reach SciPy's values to 3e-15 relative
from −1/e + 1e-4 to 1e308 (four are taken). At the branch point itself the derivative is
infinite, and the last digits of any evaluation there follow the rounding of x.

References
----------
Corless, R. M., Gonnet, G. H., Hare, D. E. G., Jeffrey, D. J. and Knuth, D. E. (1996). On
the Lambert W function. *Advances in Computational Mathematics* 5, 329-359.
"""

from __future__ import annotations

import inspect
import math
import textwrap
import types
from typing import Any

__all__ = ["C_LAMBERTW", "HELPER", "JAX_HELPER", "NUMPY_HELPER", "helper_lines", "jax_lambertw"]

HELPER = "_lambertw"  # the name the array programs call (dgraph.codegen.printing.CALLS)
BRANCH = -math.exp(-1.0)  # −1/e rounded


def _lambertw(x):  # JAX's; printed into the generated modules as it is written here
    """W(x), Lambert's principal branch, by Halley's iteration; NaN below -1/e."""
    x = jnp.asarray(x)  # noqa: F821  (the generated module's jax.numpy)
    p = jnp.sqrt(jnp.maximum(2.0 * (2.718281828459045 * x + 1.0), 0.0))  # noqa: F821
    near = -1.0 + p * (1.0 + p * (-1.0 / 3.0 + p * (11.0 / 72.0)))
    big = jnp.log(jnp.maximum(x, 3.0))  # noqa: F821
    far = big - jnp.log(big) + jnp.log(big) / big  # noqa: F821
    middle = jnp.log1p(jnp.clip(x, -0.25, 3.0))  # noqa: F821
    w = jnp.where(x < -0.25, near, jnp.where(x > 3.0, far, middle))  # noqa: F821
    for _ in range(4):
        ew = jnp.exp(w)  # noqa: F821
        f = w * ew - x
        moving = (w != -1.0) & (f != 0.0)
        w1 = jnp.where(moving, w + 1.0, 1.0)  # noqa: F821
        w = jnp.where(moving, w - f / (ew * w1 - (w + 2.0) * f / (2.0 * w1)), w)  # noqa: F821
    w = jnp.where(x == jnp.inf, jnp.inf, w)  # noqa: F821
    return jnp.where(x < -0.36787944117144233, jnp.nan, w)  # noqa: F821


JAX_HELPER: list[str] = textwrap.dedent(inspect.getsource(_lambertw)).splitlines()
JAX_HELPER[0] = f"def {HELPER}(x):"  # the comment after it is for this file only
JAX_HELPER = [line.split("  # noqa")[0].rstrip() for line in JAX_HELPER]

NUMPY_HELPER: list[str] = [
    f"def {HELPER}(x):",
    '    """W(x), Lambert\'s principal branch: SciPy\'s real part, NaN below -1/e."""',
    "    x = numpy.asarray(x, dtype=float)",
    "    with numpy.errstate(invalid='ignore'):",
    "        w = scipy.special.lambertw(x).real",
    f"    return numpy.where(x < {BRANCH!r}, numpy.nan, w)",
]


def helper_lines(lang: str, body: str) -> list[str]:
    """The definition of ``_lambertw`` a module of ``lang`` (``python``: NumPy, else JAX)
    needs where ``body`` calls it (none elsewhere), with two blank lines after it."""
    if f"{HELPER}(" not in body:
        return []
    return [*(NUMPY_HELPER if lang == "python" else JAX_HELPER), "", ""]


def jax_lambertw(jnp: types.ModuleType) -> Any:
    """The JAX helper as a function over ``jnp`` (the evaluator's JAX module)."""
    return types.FunctionType(_lambertw.__code__, {"jnp": jnp, "__builtins__": __builtins__})


C_LAMBERTW = r"""
/* W(x), Lambert's principal branch (w exp(w) = x), as SciPy's special.lambertw(x).real
 * for x >= -1/e; NaN below. Halley's iteration (Corless et al. 1996, eq. 5.9) from the
 * branch point's series, log1p(x), or log x - log log x (eqs. 4.22, 4.19). */
DGRAPH_SPECIAL double dgraph_lambertw(double x)
{
    if (!(x >= -0.36787944117144233)) return NAN;
    if (x == INFINITY) return INFINITY;
    double w;
    if (x < -0.25) {
        const double p = sqrt(fmax(2.0 * (2.718281828459045 * x + 1.0), 0.0));
        w = -1.0 + p * (1.0 + p * (-1.0 / 3.0 + p * (11.0 / 72.0)));
    } else if (x > 3.0) {
        const double big = log(x);
        w = big - log(big) + log(big) / big;
    } else {
        w = log1p(x);
    }
    for (int k = 0; k < 4; ++k) {
        const double ew = exp(w), f = w * ew - x;
        if (w == -1.0 || f == 0.0) break;
        const double w1 = w + 1.0;
        w -= f / (ew * w1 - (w + 2.0) * f / (2.0 * w1));
    }
    return w;
}
"""
