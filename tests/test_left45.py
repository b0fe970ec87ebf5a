"""Session 45, left45: integer-array arguments read as index data (not differentiated,
read at each call), and the Hessian of JAX's det of a stack of matrices."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.errors import InputError

jnp = pytest.importorskip("jax.numpy")


def _energy_gradient(E: np.ndarray, T: np.ndarray) -> np.ndarray:
    """d/dE of sum(E[T]²): 2·E[i] times how often node i is in T (negative ids from the
    end, as NumPy and JAX index)."""
    return 2 * np.bincount(T.ravel() % len(E), minlength=len(E))[:, None] * E


def test_integer_array_arguments_are_index_data() -> None:
    """``E[T]`` with ``T`` an integer array (no ``astype``) was refused by both readers
    (JAX: "Indexer must have integer or boolean type, got ... float64"; NumPy: "a
    data-dependent index"). Now ``T`` is a parameter, not differentiated, read cast to
    integers: the made function takes other triangles at each call and refuses floats."""
    rng = np.random.default_rng(0)
    E = rng.random((6, 2))
    T = np.array([[0, 1, 2], [2, 3, 4], [1, 4, 5], [0, 2, 5]])
    other = np.array([[5, 1, 0], [2, 3, 3], [1, 0, -1], [4, 4, 4]])
    for f in (lambda E, T: jnp.sum(E[T] ** 2), lambda E, T: np.sum(E[T] ** 2)):
        J = dgraph.make_function(f, point=[E, T])
        graph = J.generated.graph
        assert graph.inputs == ["E_"] and tuple(graph.parameters) == ("T",)
        for triangles in (T, other):
            np.testing.assert_allclose(J(E, triangles), _energy_gradient(E, triangles), atol=1e-14)
        with pytest.raises(InputError, match="argument T was traced as an integer array"):
            J(E, T.astype(float))


def test_hessian_of_a_stacked_jax_det() -> None:
    """The Hessian of ``sum(det(A)²)``, ``A`` a (2, 4, 4) stack (n ≥ 4: JAX's det reads
    ``lu``), was refused ("triangular_solve: only one square matrix is supported"): JAX's
    gradient solved the whole stack. Against the closed form, per matrix with B = A⁻¹ and d = det A:
    ∂²(d²)/∂A_ij∂A_pq = 4d²·B_ji·B_qp − 2d²·B_jp·B_qi; zero across matrices."""
    A = np.random.default_rng(1).standard_normal((2, 4, 4))
    H = dgraph.hessian(lambda A: jnp.sum(jnp.linalg.det(A) ** 2), A)
    want = np.zeros((2, 4, 4, 2, 4, 4))
    for k in range(2):
        B, d2 = np.linalg.inv(A[k]), np.linalg.det(A[k]) ** 2
        want[k, :, :, k] = 4 * d2 * np.einsum("ji,qp->ijpq", B, B) - 2 * d2 * np.einsum(
            "jp,qi->ijpq", B, B
        )
    np.testing.assert_allclose(H(A), want, rtol=0, atol=1e-12 * np.abs(want).max())


def test_a_sparse_hessian_of_integer_index_data_has_the_point_s_pattern() -> None:
    """A sparse function of index data given as an integer array held every entry a call
    could reach (36 of a 6-node mesh's Hessian, 2,560,000 on a 40 × 40 mesh against
    10,882); it is made with the point's triangles closed over: their pattern, the same
    values, and another call's triangles refused in one line."""
    from tests.test_left44b import T0, T1, energy_hessian, geometry

    T, u = T0.astype(int), np.random.default_rng(1).normal(size=6)
    A, G = geometry(T0)
    H = dgraph.make_function(
        lambda u, T, A, G: (
            np.sum(0.25 * u[T] ** 4)
            + 0.5 * np.sum(A * np.sum(np.einsum("eij,ej->ei", G, u[T]) ** 2, axis=1))
        ),
        "hessian",
        sparse=True,
        point=[u, T, A, G],
        params=["A", "G"],
    )
    want = energy_hessian(u, T0, A, G)
    got = H(u, T, A, G)
    pairs = {(i, j) for tri in T for i in tri for j in tri}  # nodes sharing a triangle
    assert got.nnz == len(pairs) < 36
    np.testing.assert_allclose(got.toarray(), want, atol=1e-12)
    with pytest.raises(InputError, match="T is not the index data at the point"):
        H(u, T1.astype(int), A, G)


def test_index_data_past_the_union_limit_are_closed_over(monkeypatch) -> None:
    """A dense function whose index data's union over positions is past its limit (an hvp
    on an 80 × 80 mesh: 239,654,400 entries) was refused; given as an integer array, the
    index data are closed over instead, with a warning, and other ones refused at a call."""
    from dgraph.blocks import dynamic_take
    from tests.test_left44b import T0, T1, energy, energy_hessian, geometry

    monkeypatch.setattr(dynamic_take, "UNION_LIMIT", 20)  # a 6-node mesh's union: 72
    T, u, t = T0.astype(int), np.random.default_rng(2).normal(size=6), np.arange(6.0)
    A, G = geometry(T0)
    with pytest.warns(UserWarning, match="index data T are closed over"):
        hvp = dgraph.make_function(energy, "hvp", point=[u, T, A, G], params=["A", "G"])
    np.testing.assert_allclose(hvp(u, T, A, G, t), energy_hessian(u, T0, A, G) @ t, atol=1e-12)
    with pytest.raises(InputError, match="T is not the index data at the point"):
        hvp(u, T1.astype(int), A, G, t)
