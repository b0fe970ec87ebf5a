"""Session 59 (mesh59): a Python loop over mesh elements read as one batched element
(:mod:`dgraph.frontends.jaxpr_unrolled_sums`), and masks combined by ``np.logical_xor``,
``^`` and ``np.logical_and.reduce`` (the array tracer's masks)."""

import numpy as np
import pytest

import dgraph

jax = pytest.importorskip("jax")
jnp = jax.numpy
from tests import jax_reference as jref  # noqa: E402

REST = np.array([[i >> 2 & 1, i >> 1 & 1, i & 1] for i in range(8)], float)  # a cube
TETS = np.array(
    [[0, 3, 1, 7], [0, 1, 5, 7], [0, 2, 3, 7], [0, 6, 2, 7], [0, 5, 4, 7], [0, 4, 6, 7]]
)  # det 1


def _tet_energy(tets, xp):
    """A neo-Hookean energy written as FEM users write it: a loop over the tets, each
    with its rest shape's inverse and volume (constants that differ per tet) and ``det``."""

    def f(x):
        x = x.reshape(-1, 3)
        e = 0.0
        for t in tets:
            dm = (REST[t[1:]] - REST[t[0]]).T
            F = (x[t[1:]] - x[t[0]]).T @ np.linalg.inv(dm)
            J = xp.linalg.det(F)
            e = e + np.linalg.det(dm) / 6 * (0.5 * (xp.sum(F * F) - 3) + 5 * (J - 1) ** 2)
        return e

    return f


def _stacked_energy(x):
    """:func:`_tet_energy` with jax.numpy, every tet at once."""
    x = x.reshape(-1, 3)
    dm = np.swapaxes(REST[TETS[:, 1:]] - REST[TETS[:, :1]], 1, 2)
    F = jnp.swapaxes(x[TETS[:, 1:]] - x[TETS[:, :1]], 1, 2) @ np.linalg.inv(dm)
    J = jnp.sum(F[:, 0] * jnp.cross(F[:, 1], F[:, 2]), axis=-1)  # det by rows (cheaper to compile)
    terms = 0.5 * (jnp.sum(F * F, axis=(1, 2)) - 3) + 5 * (J - 1) ** 2
    return jnp.sum(np.linalg.det(dm) / 6 * terms)


def _point(seed=0):
    return (REST * 1.1 + 0.05 * np.random.default_rng(seed).standard_normal(REST.shape)).ravel()


def test_a_loop_over_tets_is_one_batched_element_and_its_hessian_is_jaxs():
    x, y = _point(), _point(1)  # y: the code, not the point's numbers
    H = dgraph.hessian(_tet_energy(TETS, np), x)
    assert H.generated.verified
    with jax.enable_x64(True):  # JAX's Hessian of the energy written with arrays
        reference = jref.hessian(_stacked_energy)
        want, other = np.asarray(reference(x)), np.asarray(reference(y))
    np.testing.assert_allclose(H(x), want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    np.testing.assert_allclose(H(y), other, rtol=1e-12, atol=1e-12 * np.abs(other).max())


def test_the_gradient_graph_does_not_grow_with_the_elements():
    # base: one copy of the element's adjoint per tet (the gradient graph of 6 tets had
    # 4 times the vertices of... 1330 for 48); batched, one element's whatever the count
    from dgraph.codegen.hessian import hessian_source

    sizes = [len(hessian_source(_tet_energy(TETS[:n], np), point=[_point()]).graph.vertices)
             for n in (4, 6)]  # fmt: skip
    assert sizes[0] == sizes[1]


def test_alike_terms_among_others_keep_their_own_constants():
    # springs of two kinds (stiffness and rest length per spring, a constant each), a
    # term of another program kept as written, and a JAX function: the sum is the same
    edges = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (1, 3)]
    k = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    rest = [1.0, 1.1, 0.9, 1.2, 1.4, 1.5]

    def f(x):
        x = x.reshape(-1, 2)
        e = jnp.sum(x[:, 1] ** 4)  # kept: no other term is alike
        for (i, j), ki, li in zip(edges, k, rest, strict=True):
            e = e + ki * (jnp.sqrt(jnp.sum((x[i] - x[j]) ** 2)) - li) ** 2
        return e

    x = np.array([[0.0, 0.1], [1.0, 0.0], [1.1, 0.9], [0.1, 1.0]]).ravel()
    H = dgraph.hessian(f, x)
    assert H.generated.verified
    with jax.enable_x64(True):
        want = np.asarray(jref.hessian(f)(x))
    np.testing.assert_allclose(H(x), want, rtol=1e-12, atol=1e-12)


def _masks(x):
    """Masks combined the ways NumPy allows, each choosing x² or 3x."""
    a, b = x > 0, x > 0.5
    chosen = [
        a ^ b,  # np.logical_xor and np.bitwise_xor of booleans are the same
        np.logical_xor(a, np.array([1, 0, 1, 0], bool)),  # with a constant
        np.logical_and.reduce([x > -1, x < 1, x != 0.25]),  # np.all of the masks stacked:
    ]  # np.all(np.stack([m1, m2]), axis=0) was a raw TypeError of sympy
    return np.stack([np.sum(np.where(m, x**2, 3 * x)) for m in chosen])


def test_xor_and_reduced_masks_are_masks():
    # base: a TypeError for ^, "numpy.logical_xor ... is not supported", and
    # "numpy.logical_and.reduce ... is not supported"
    x = np.array([0.3, -0.5, 1.2, -1.1])
    J = dgraph.make_function(_masks, "jacobian", point=[x])
    assert J.generated.verified
    a, b = x > 0, x > 0.5
    chosen = [a ^ b, a ^ np.array([1, 0, 1, 0], bool), (x > -1) & (x < 1) & (x != 0.25)]
    want = np.stack([np.where(m, 2 * x, 3.0) for m in chosen])
    np.testing.assert_allclose(J(x), want, rtol=1e-14)
    operator = dgraph.from_function(lambda x: np.where((x > 0) ^ (x > 0.5), x, 0.0), sizes=[4])
    for xor in (np.logical_xor, np.bitwise_xor):  # read as ^ is
        g = dgraph.from_function(
            lambda x, xor=xor: np.where(xor(x > 0, x > 0.5), x, 0.0), sizes=[4]
        )
        assert g == operator
