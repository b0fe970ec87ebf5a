"""The cancellation pass's rounding bound is each entry's own running error bound
(:mod:`dgraph.codegen.bounds`), not the largest value the program computes: a softmax's
entries ≈ 10⁻⁵ beside a diagonal of 2·10⁹ are not asked, and the values the bounded
evaluation gives are the plain evaluation's, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
jss = pytest.importorskip("jax.scipy.special")

import dgraph  # noqa: E402
from dgraph.codegen import ir  # noqa: E402
from dgraph.codegen.evaluate import ArrayEvaluator  # noqa: E402
from tests import jax_reference as jref  # noqa: E402


def test_a_student_t_loss_with_softmax_weights_asks_no_entry(monkeypatch):
    """real_programs5's ``student_t_loglik`` with a stiff ridge (1e9·Σx²): its Hessian is
    dense (the softmax couples every pair: entries ≈ p_i·p_j ≈ 10⁻⁵), none is 0. On main
    each of the n² − n off-diagonal entries fell under 1e-12 × the largest value (the
    ridge's 2·10⁹) at all three points and went to the polynomials (89,700 asked, three
    times, at n = 300; at n = 1,000 the same for the benchmark's own program, 14 CPU-s).
    Here the first point asks none: no later point, no polynomials; the Hessian is
    jax.hessian's, dense."""
    from dgraph.codegen.tensor import cancel, poly_values

    n, nu = 300, 4.0
    y = np.random.default_rng(3).normal(size=n)

    def nll(x):
        z = (y - x) / 0.7
        ll = -(nu + 1) / 2 * jnp.log1p(z**2 / nu)
        p = jax.nn.softmax(x)
        return -jnp.sum(ll) + jnp.sum(jss.xlogy(p, p)) + 1e9 * jnp.sum(x**2)

    asked, polynomials = [], []
    near = cancel._near_zero

    def counted(*args):
        found = near(*args)
        asked.append(None if found is None else int(found.sum()))
        return found

    monkeypatch.setattr(cancel, "_near_zero", counted)
    of = poly_values.PolyValues.of

    def polys(self, nodes):
        polynomials.append(len(nodes))
        return of(self, nodes)

    monkeypatch.setattr(poly_values.PolyValues, "of", polys)
    x = np.random.default_rng(4).normal(size=n)
    H = dgraph.hessian(nll, x, sparse=True)(x)
    with jax.enable_x64(True):
        ref = np.asarray(jref.hessian(nll)(jnp.asarray(x)))
    assert H.nnz == np.count_nonzero(ref) == n * n
    np.testing.assert_allclose(H.toarray(), ref, rtol=1e-8, atol=0)
    assert asked == [0] and polynomials == []


def _program():
    """x → r: a difference, a quotient, exp, an einsum, a gather and a scatter-add."""
    B, C, N = ir.BinOp, ir.Call, ir.Name
    return [
        ir.ArrayStatement("d", B("-", B("+", N("x"), ir.Const(1.0)), N("x"))),
        ir.ArrayStatement("q", B("/", C("exp", (N("x"),)), N("d"))),
        ir.ArrayStatement("m", C("einsum", (ir.Const("a,b->ab"), N("q"), N("x")))),
        ir.ArrayStatement("g", ir.Index(C("ravel", (N("m"),)), (N("K"),))),
        ir.ArrayStatement("r", ir.ScatterAdd(N("q"), ((N("P"), N("g")),))),
    ]


def test_bounded_values_are_the_plain_values_and_bounds_follow_the_rules():
    """Each statement's value with bounds has the plain evaluator's bits; its bound
    (units of the roundoff) is the running error bound: e(a ± b) = |v| + ea + eb,
    e(a/b) = |v| + (ea + |v|·eb)/|b|, e(exp a) = |v| + |v|·ea, an einsum's the einsum of
    the errors by the magnitudes plus that of the magnitudes, a gather's moved, a
    scatter-add's its parts' errors plus their magnitudes and the base's where added."""
    from dgraph.codegen.bounds import Bounded, BoundEvaluator, bound_of, plain, run_bounded

    x = np.random.default_rng(0).uniform(-2, 2, 4)
    K = np.array([0, 5, 15, 6], dtype=np.int64)
    P = np.array([3, 1, 1, 0], dtype=np.int64)
    plain_env = ArrayEvaluator().run(_program(), {"x": x, "K": K, "P": P})
    env = {"x": Bounded.exact(x), "K": K, "P": P}
    ev, plainly = BoundEvaluator(), ArrayEvaluator()
    for s in _program():
        run_bounded(ev, plainly, s, env)
        assert isinstance(env[s.target], Bounded)
        np.testing.assert_array_equal(plain(env[s.target]), plain_env[s.target])
    e = {n: bound_of(env[n]) for n in "dqmgr"}
    v = plain_env
    np.testing.assert_allclose(e["d"], np.abs(v["d"]) + np.abs(x + 1.0), rtol=1e-15)
    ex = np.exp(x)
    want_q = np.abs(v["q"]) + (ex + np.abs(v["q"]) * e["d"]) / np.abs(v["d"])
    np.testing.assert_allclose(e["q"], want_q, rtol=1e-15)
    want_m = np.abs(v["m"]) + np.outer(e["q"], np.abs(x))
    np.testing.assert_allclose(e["m"], want_m, rtol=1e-15)
    np.testing.assert_array_equal(e["g"], e["m"].ravel()[K])
    added = np.zeros(4)
    np.add.at(added, P, np.abs(v["g"]))
    want_r = e["q"].copy()
    np.add.at(want_r, P, e["g"])
    want_r += np.where(added > 0, added + np.abs(v["q"]), 0.0)
    np.testing.assert_allclose(e["r"], want_r, rtol=1e-15)
