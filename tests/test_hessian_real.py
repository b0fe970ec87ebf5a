"""Real second-order programs that benchmarks/real_programs_hessian.py found failing,
restated small: each Hessian against jax.hessian of the same code in jax.numpy."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
jax.config.update("jax_enable_x64", True)

import dgraph  # noqa: E402
from tests import jax_reference as jref  # noqa: E402
from tests.jax_reference import Reference as Ref  # noqa: E402

RNG = np.random.default_rng(7)
X = RNG.normal(size=(9, 3))
Y = np.sign(RNG.normal(size=9))


def logistic_np(w):
    return np.sum(np.logaddexp(0.0, -Y * (X @ w))) + 0.05 * np.dot(w, w)


def logistic_jnp(w):
    return jnp.sum(jnp.logaddexp(0.0, -Y * (X @ w))) + 0.05 * jnp.dot(w, w)


@pytest.mark.parametrize("w", [np.zeros(3), np.array([0.3, -1.2, 0.7])])
def test_logaddexp_hessian_also_at_ties(w):
    """np.logaddexp (logistic regression's loss): w = 0 makes every pair of arguments
    equal, where max's derivative is a convention; the Hessian is the smooth one."""
    H = dgraph.hessian(logistic_np, w, sparse=True)
    want = np.asarray(jref.hessian(logistic_jnp)(jnp.asarray(w)))  # stored, or jitted
    assert np.allclose(H(w).toarray(), want, rtol=1e-10, atol=1e-12)
    assert H(w).nnz == 9  # dense 3 x 3


def test_logaddexp_values_large_arguments():
    """No overflow where exp(a) alone would: logaddexp(800, 801)."""
    g = dgraph.make_function(lambda x: np.logaddexp(x[:1], x[1:]), point=[np.zeros(2)])
    J = g(np.array([800.0, 801.0]))
    s = 1 / (1 + np.exp(1.0))
    assert np.allclose(J, [[s, 1 - s]])


GX = np.linspace(0.0, 1.0, 3)
GY = np.sin(4 * GX)


def gp_slogdet_np(t):
    K = t[1] ** 2 * np.exp(-0.5 * (GX[:, None] - GX[None, :]) ** 2 / t[0] ** 2) + t[2] * np.eye(3)
    _sign, logdet = np.linalg.slogdet(K)
    return 0.5 * GY @ np.linalg.solve(K, GY) + 0.5 * logdet


def gp_slogdet_jnp(t):
    K = t[1] ** 2 * jnp.exp(-0.5 * (GX[:, None] - GX[None, :]) ** 2 / t[0] ** 2) + t[2] * jnp.eye(3)
    return 0.5 * GY @ jnp.linalg.solve(K, GY) + 0.5 * jnp.linalg.slogdet(K)[1]


def test_slogdet_gp_hessian():
    """np.linalg.slogdet (a GP's log marginal likelihood), unpacked as NumPy's pair: its
    Hessian is JAX's."""
    t = np.array([0.3, 1.1, 0.05])
    H = dgraph.hessian(gp_slogdet_np, t)
    want = np.asarray(jref.hessian(gp_slogdet_jnp)(jnp.asarray(t)))
    assert np.allclose(H(t), want, rtol=1e-8, atol=1e-10)
    logdet = dgraph.make_function(lambda A: np.linalg.slogdet(A).logabsdet, point=[np.eye(2)])
    assert np.allclose(np.ravel(logdet(np.diag([2.0, -3.0]))), [0.5, 0, 0, -1 / 3])


def chained_fori(x):
    def body(i, acc):
        return acc + 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2

    return jax.lax.fori_loop(0, x.shape[0] - 1, body, 0.0)


def decaying_scan(x):
    def step(c, xi):
        c = 0.5 * c + jnp.sin(xi) * c[::-1]
        return c, jnp.sum(c**2)

    c, ys = jax.lax.scan(step, x[:3], x[3:].reshape(-1, 3))
    return jnp.concatenate([c, ys])


@pytest.mark.usefixtures("loops_as_regions")
def test_long_loop_reads_reachability(monkeypatch):
    """A loop whose exact patterns would cost steps × inputs above REACH_LIMIT is read
    with its blocks' reachability (a chained Rosenbrock in a fori_loop of 40,000 steps
    took minutes before its gradient's refusal): with the limit at 0, the Jacobians of
    loops are still JAX's, and so is the fori_loop's Hessian (its gradient's reverse
    sweep writes at the stacked counter, known before the program runs; refused before)."""
    from dgraph.core import regions

    monkeypatch.setattr(regions, "REACH_LIMIT", 0)
    x = np.linspace(-0.8, 0.9, 12)
    jacobian, gradient, hessian = jref.references(  # JAX's three, stored or one compile
        [
            Ref("jacfwd", decaying_scan, (x,)),
            Ref("grad", chained_fori, (x[:5],)),
            Ref("hessian", chained_fori, (x[:5] + 0.1,)),
        ]
    )
    J = dgraph.make_function(decaying_scan, point=[x])
    assert np.allclose(J(x), jacobian, rtol=1e-10, atol=1e-12)
    g = dgraph.make_function(chained_fori, point=[x[:5]])
    assert np.allclose(g(x[:5]), gradient, rtol=1e-10)
    H = dgraph.hessian(chained_fori, x[:5])
    np.testing.assert_allclose(H(x[:5] + 0.1), hessian, rtol=1e-10, atol=1e-12)
