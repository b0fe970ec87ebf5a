"""Refusals survey44 left (benchmarks/RESULTS.md, session 44, defects 4, 6 and 7), one
small test each, values against closed forms (JAX's agree: benchmarks/RESULTS.md)."""

import numpy as np
import pytest

import dgraph
from dgraph.frontends import from_python


def test_jax_det_of_a_stack_of_matrices():
    """``jnp.linalg.det`` of a stack of 4×4 matrices over two batch axes: "triangular_solve:
    only one square matrix is supported" (its custom rule was read). Now one ``det`` per
    matrix, as NumPy's reader reads ``np.linalg.det`` of a stack:
    ``d(det²)/dA = 2·det²·A⁻ᵀ``, matrix by matrix."""
    jnp = pytest.importorskip("jax.numpy")

    def f(A):
        return jnp.linalg.det(A) ** 2

    A = np.random.default_rng(0).normal(size=(2, 3, 4, 4))
    J = np.asarray(dgraph.make_function(f, "jacobian", point=[A])(A))
    d = np.linalg.det(A)
    want = np.zeros((2, 3, 2, 3, 4, 4))
    for i, j in np.ndindex(2, 3):
        want[i, j, i, j] = 2 * d[i, j] ** 2 * np.linalg.inv(A[i, j]).T
    np.testing.assert_allclose(J, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())


def test_numpy_interp_on_a_table_from_the_inputs():
    """``np.interp(u, np.cumsum(softmax(w)), grid)`` (inverse-CDF sampling): "numpy.interp
    with ... xp ... that depend on the inputs is not supported". Now read as ``jnp.interp``
    computes it (the segment by ``searchsorted``, clipped; takes at it): JAX's Jacobian,
    the table's derivative included; ``right=`` past the table's end."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    grid = np.linspace(-2.0, 2.0, 8)

    def f(w, u, np=np):
        p = np.exp(w - np.max(w))
        cdf = np.cumsum(p / np.sum(p))
        return np.interp(u, cdf, grid * w[0], right=3.0)

    w = np.random.default_rng(3).normal(size=8)
    u = np.array([0.0, 0.13, 0.5, 0.77, 0.97, 1.5])  # below cdf[0], inside, past the end
    graph = from_python(f, point=[w, u], level="array")
    got = dgraph.make_function(graph, "jacobian")(w, u)
    with jax.enable_x64(True):
        want = jax.jit(jax.jacfwd(lambda w, u: f(w, u, np=jnp), argnums=(0, 1)))(
            w, u
        )  # one compile
    for g, x in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(x), rtol=1e-12, atol=1e-14)


def test_numpy_lstsq_of_a_matrix_from_the_inputs():
    """``np.linalg.lstsq(A, b, rcond=None)[0]`` with ``A`` an input: refused by design
    ("use np.linalg.pinv(a) @ b"). Now read as ``jnp.linalg.lstsq`` computes it (the
    reduced SVD, NumPy's cutoff): for full column rank ``x = G·Aᵀb``, ``G = (AᵀA)⁻¹``,
    ``dx/db = G·Aᵀ`` and ``dx/dA[p, q] = G[:, q]·r[p] − (G·Aᵀ)[:, p]·x[q]``, ``r = b − A·x``.
    The other entries of the result (the rank would depend on the inputs) may be
    unpacked; read, they are refused."""
    from dgraph.errors import InputError

    rng = np.random.default_rng(4)
    A, b = rng.normal(size=(6, 3)), rng.normal(size=6)
    F = dgraph.make_function(
        lambda A, b: np.linalg.lstsq(A, b, rcond=None)[0], "jacobian", point=[A, b]
    )
    A2, b2 = rng.normal(size=(6, 3)), rng.normal(size=6)  # the graph, at another point
    JA, Jb = F(A2, b2)
    G = np.linalg.inv(A2.T @ A2)
    x = G @ A2.T @ b2
    r = b2 - A2 @ x
    np.testing.assert_allclose(np.asarray(Jb), G @ A2.T, rtol=1e-11, atol=1e-13)
    want = np.einsum("iq,p->ipq", G, r) - np.einsum("ip,q->ipq", G @ A2.T, x)
    np.testing.assert_allclose(np.asarray(JA), want, rtol=1e-11, atol=1e-13)
    with pytest.raises(InputError, match=r"its solution \[0\] is read"):
        dgraph.jacobian(lambda A, b: np.linalg.lstsq(A, b)[1], point=[A, b])

    def unpacked(A, b):  # the usual idiom: the other entries unpacked, unused
        x, _residuals, _rank, _s = np.linalg.lstsq(A, b, rcond=None)
        return x

    U = dgraph.make_function(unpacked, "jacobian", point=[A, b])
    np.testing.assert_allclose(np.asarray(U(A2, b2)[1]), G @ A2.T, rtol=1e-11, atol=1e-13)

    def used(A, b):
        x, _residuals, rank, _s = np.linalg.lstsq(A, b, rcond=None)
        return x * rank

    with pytest.raises(InputError, match=r"its solution \[0\] is read"):
        dgraph.jacobian(used, point=[A, b])
