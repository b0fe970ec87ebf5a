"""``lax.cumprod`` and ``lax.cumlogsumexp`` of real floats as one array operation each
(dgraph/blocks/cumulative.py), not JAX's ``associative_scan`` (log n levels of strided
slices, pads and sums: 1,700 equations at 400 unknowns): the graph's vertex counts, and
Hessians through the triangular block equal ``jax.hessian``'s (a zero entry included:
cumprod's rule divides by nothing)."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax
jax.config.update("jax_enable_x64", True)  # the references in doubles

import dgraph  # noqa: E402
from dgraph.frontends import from_jax  # noqa: E402
from tests import jax_reference as jref  # noqa: E402


@pytest.mark.parametrize("name", ["cumlogsumexp", "cumprod"])
def test_a_running_operation_is_one_vertex(name):
    """At 50 unknowns: the input, one operation, the output (main: the scan's levels,
    some 150 vertices)."""
    f = getattr(lax, name)
    x = np.linspace(0.5, 1.5, 50)
    g = from_jax(lambda x: f(x), x, level="array")
    ops = [g.op(v).primitive for v in g.nx if g.op(v) is not None]
    assert ops == [name]
    assert len(g.vertices) == 2


def _logsumexp_sum(x):
    return jnp.sum(lax.cumlogsumexp(x))


def _product_sum(x):
    return jnp.sum(lax.cumprod(x))


def _reversed_both(x):
    return jnp.sum(jnp.sin(lax.cumprod(x, reverse=True)) * lax.cumlogsumexp(x, reverse=True))


@pytest.mark.parametrize(
    "f, x",
    [
        (_logsumexp_sum, np.array([0.3, -1.2, 2.0, 0.7, -0.4, 1.1])),
        (_product_sum, np.array([0.9, 0.0, -0.7, 1.2, 0.0, 1.1])),  # two zeros, four not
        (_reversed_both, np.array([0.9, 0.0, -0.7, 1.2, 0.5])),
    ],
    ids=["cumlogsumexp", "cumprod-zeros", "reversed"],
)
def test_hessian_through_a_running_operation_is_jax(f, x):
    """The Hessian by elimination, verified, equals ``jax.hessian`` (values at 1e-12)."""
    H = dgraph.hessian(f, x)
    got = np.asarray(H(x))
    ref = np.asarray(jref.hessian(f)(jnp.asarray(x)))
    assert H.generated.verified
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12 * abs(ref).max())


def test_the_running_max_is_never_compared_by_sympy(monkeypatch):
    """cumlogsumexp's element level shifts entry j by ``stop_gradient(max(shift, x_j))``,
    a Max of the Max before it. No sympy Max compares its arguments (``_find_localzeros``)
    while the Jacobian's code is made (main: 460 at n = 6, ``held``'s ``replace`` and
    ``xreplace`` rebuilding each nested Max as a Max), and the Jacobian is JAX's at
    values whose exponentials overflow unshifted."""
    from sympy.functions.elementary.miscellaneous import MinMaxBase

    compared = []
    found = MinMaxBase._find_localzeros.__func__

    def counted(cls, values, **options):
        compared.append(len(values))
        return found(cls, values, **options)

    monkeypatch.setattr(MinMaxBase, "_find_localzeros", classmethod(counted))

    x = np.array([710.0, -3.0, 720.0, 0.5, 715.0, 2.0])
    made = dgraph.make_function(
        lax.cumlogsumexp, "jacobian", "python", method="forward", point=[x]
    )  # the method the choice gives (the same code)
    assert len(compared) == 0
    ref = np.asarray(jref.jacfwd(lax.cumlogsumexp)(jnp.asarray(x)))
    np.testing.assert_allclose(np.asarray(made(x)), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("shape", "axis"), [((50,), None), ((6, 5), 0), ((6, 5), 1), ((2, 3, 4), -1)]
)
def test_numpy_cumprod_is_one_vertex(shape, axis):
    """np.cumprod of a traced array is the same one ``cumprod`` operation as lax.cumprod
    (main: one slice and one multiplication per position, and a concatenate: 150
    vertices at 50 unknowns, a stick-breaking Hessian of 300 unknowns 23.7 CPU-s, now
    5.9); its Jacobian equals ``jax.jacfwd`` of jnp.cumprod along each axis."""
    from dgraph.frontends import from_function

    x = np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)
    g = from_function(lambda u: np.cumprod(u, axis=axis), sizes=[shape], level="array")
    ops = [g.op(v).primitive for v in g.nx if g.op(v) is not None]
    assert ops.count("cumprod") == 1 and "mul" not in ops and "concatenate" not in ops
    J = dgraph.make_function(
        lambda u: np.cumprod(u.reshape(shape), axis=axis),
        "jacobian",
        method="forward",  # the method the choice gives (the same code)
        point=[x.ravel()],
    )
    want = np.asarray(jref.jacfwd(lambda u: jnp.cumprod(u, axis=axis))(jnp.asarray(x)))
    np.testing.assert_allclose(np.asarray(J(x.ravel())).reshape(want.shape), want, rtol=1e-12)


def test_a_numpy_stick_breaking_hessian_is_jax():
    """The stick-breaking log-likelihood of benchmarks/real_programs14.py (σ, np.cumprod
    of 1 − v, logs): its sparse Hessian (dense pattern) equals ``jax.hessian`` of the
    same program in jnp."""
    counts = np.arange(1.0, 13.0) % 5 + 1

    def f(x, xp=np):
        v = 1.0 / (1.0 + xp.exp(-x))
        rest = xp.cumprod(1.0 - v)
        weights = v * xp.concatenate([xp.ones(1), rest[:-1]])
        return -xp.sum(counts * xp.log(weights)) + 0.5 * xp.sum(x**2)

    x = np.linspace(-1.0, 1.0, 12)
    H = dgraph.hessian(f, x, sparse=True)
    assert H.generated.verified
    ref = np.asarray(jref.hessian(lambda z: f(z, jnp))(jnp.asarray(x)))
    np.testing.assert_allclose(H(x).toarray(), ref, rtol=1e-12, atol=1e-12 * abs(ref).max())


@pytest.mark.parametrize(
    ("shape", "axis", "keepdims"),
    [((12,), None, False), ((6, 5), 0, False), ((6, 5), 1, True), ((2, 3, 4), (0, 2), False)],
)
def test_numpy_prod_is_one_reduction(shape, axis, keepdims):
    """np.prod of a traced array is one ``reduce_prod`` (as jnp.prod), not a slice and a
    multiplication per position (main: its gradient at 5,000 unknowns 17.8 CPU-s, now
    0.3; a Hessian at 300 19.9 → 2.2 CPU-s); Jacobian and Hessian equal JAX's, with a
    zero entry (prefix times suffix products: no division)."""
    from dgraph.frontends import from_function

    size = int(np.prod(shape))
    x = np.linspace(0.5, 1.5, size)
    x[3] = 0.0

    def f(u, xp=np):
        return xp.prod(u.reshape(shape), axis=axis, keepdims=keepdims)

    g = from_function(f, sizes=[(size,)], level="array")
    ops = [g.op(v).primitive for v in g.nx if g.op(v) is not None]
    assert ops.count("reduce_prod") == 1 and "mul" not in ops
    # the method the choice gives, its code the same; the whole product's (axis None)
    # the choice ships in another pass order: left to it
    J = dgraph.make_function(f, "jacobian", method=None if axis is None else "paths", point=[x])
    want = np.asarray(jref.jacfwd(lambda u: f(u, jnp))(jnp.asarray(x)))
    np.testing.assert_allclose(np.asarray(J(x)).reshape(want.shape), want, rtol=1e-12)
    if axis is None:  # the Hessian once
        H = dgraph.hessian(lambda u: np.sum(np.sin(f(u))), x)
        ref = np.asarray(jref.hessian(lambda u: jnp.sum(jnp.sin(f(u, jnp))))(jnp.asarray(x)))
        np.testing.assert_allclose(np.asarray(H(x)), ref, rtol=1e-11, atol=1e-12)
