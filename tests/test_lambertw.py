"""scipy.special's ``lambertw`` (principal branch, real argument ≥ −1/e), as users write it,
``lambertw(x).real`` or ``np.real(lambertw(x))``: one elementwise operation whose
derivative is W' = e^(−W)/(1 + W) (was refused, naming SciPy's private ``_lambertw``).
Values and derivatives against mpmath; the C and JAX evaluations (Halley's iteration,
:mod:`dgraph.codegen.lambertw_code`) against SciPy, and a changed one caught."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sps

import dgraph
from dgraph.codegen.c import compiler
from dgraph.codegen.c_special import special_definitions
from dgraph.codegen.lambertw_code import jax_lambertw
from tests.test_c_special import _c_function

mpmath = pytest.importorskip("mpmath")

X = np.array([-0.3, 0.0, 0.3, 2.5, 40.0])
GRID = np.concatenate(
    [
        -np.exp(-1.0) + np.logspace(-4, -0.5, 40),  # toward the branch point
        np.linspace(-0.25, 3.0, 60),  # the three starts' switches
        np.logspace(0.5, 300, 60),
        [0.0, -0.0, 1e-300, -1e-300, np.inf, np.nan, -0.5, -np.inf],  # NaN below -1/e
    ]
)


def _w(x: float) -> tuple[float, float, float]:
    """W, W' and W'' by mpmath (W' = W/(x(1 + W)), 1 at 0; W'' = −W'²(W + 2)/(W + 1))."""
    with mpmath.workdps(30):
        w = mpmath.lambertw(x).real
        d = mpmath.exp(-w) / (1 + w)
        return float(w), float(d), float(-(d**2) * (w + 2) / (w + 1))


def quantile_like(x):
    return np.real(sps.lambertw(x)) * (1.0 + x) + sps.lambertw(x).real


def _worst(y: np.ndarray, want: np.ndarray) -> float:
    finite = np.isfinite(want)
    np.testing.assert_array_equal(y[~finite], want[~finite])
    scale = np.where(want[finite] != 0, np.abs(want[finite]), 1.0)
    return float(np.max(np.abs(y[finite] - want[finite]) / scale))


def _scipy(x: np.ndarray) -> np.ndarray:
    return np.where(x < -np.exp(-1.0), np.nan, sps.lambertw(x).real)


def test_jacobian_and_hessian_against_mpmath() -> None:
    fn = dgraph.make_function(quantile_like, "jacobian", point=[X], method="paths")  # the choice's
    assert fn.generated.verified  # at the user's point (x = 0 among them) too
    w, d, dd = np.array([_w(v) for v in X]).T
    np.testing.assert_allclose(np.diag(fn(X)), d * (2.0 + X) + w, rtol=1e-14)
    H = dgraph.hessian(lambda x: np.sum(np.real(sps.lambertw(x)) * x), X)
    np.testing.assert_allclose(np.diag(H(X)), dd * X + 2 * d, rtol=1e-13, atol=1e-15)


def test_jax_evaluation_equals_scipy() -> None:
    jax = pytest.importorskip("jax")
    with jax.enable_x64(True):
        y = np.asarray(jax_lambertw(jax.numpy)(GRID))
    assert _worst(y, _scipy(GRID)) < 1e-14  # near -1/e the last digits follow x's rounding


@pytest.mark.skipif(compiler() is None, reason="needs a C compiler")
def test_c_evaluation_equals_scipy_and_a_changed_step_is_caught() -> None:
    right = special_definitions("dgraph_lambertw(x[k])")
    assert _worst(_c_function(right, "dgraph_lambertw(x[k])")(0, GRID), _scipy(GRID)) < 5e-15
    wrong = [line.replace("k < 4", "k < 1") for line in right]  # one Halley step
    assert wrong != right
    assert _worst(_c_function(wrong, "dgraph_lambertw(x[k])")(0, GRID), _scipy(GRID)) > 1e-11


@pytest.mark.parametrize("lang", ["c", "jax"])
def test_generated_code_computes_w(lang: str) -> None:
    if lang == "c" and compiler() is None:
        pytest.skip("needs a C compiler")
    jax = pytest.importorskip("jax")
    with jax.enable_x64(True):
        fn = dgraph.make_function(  # paths: the method the choice gives (the same code)
            quantile_like, "value_and_jacobian", lang, point=[X], method="paths"
        )
        value, J = fn(X)
    assert fn.generated.verified
    np.testing.assert_allclose(value, quantile_like(X), rtol=1e-15)
    w, d, _ = np.array([_w(v) for v in X]).T
    np.testing.assert_allclose(np.diag(np.asarray(J)), d * (2.0 + X) + w, rtol=1e-14)
