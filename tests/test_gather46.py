"""Session 46 (gather46): a take ``u[T]`` and a scatter-add at index data ``T`` in the
dense modes multiply as a gather and a segment sum, never forming the union's one-hot
(n × positions entries: ``arange(n)[:, None] == T.ravel()``, 80 ms an hvp call on a
40 × 40 mesh), with the values they had at the point's triangles and at others."""

import ast

import numpy as np

import dgraph


def grid(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An m × m grid's triangles (int64), their areas and hat-function gradients."""
    xs, ys = np.meshgrid(np.linspace(0, 1, m), np.linspace(0, 1, m))
    P = np.stack([xs.ravel(), ys.ravel()], 1)
    a = (np.arange(m - 1)[:, None] * m + np.arange(m - 1)).ravel()
    T = np.concatenate([np.stack([a, a + 1, a + m + 1], 1), np.stack([a, a + m + 1, a + m], 1)])
    X = P[T]
    B = np.stack([X[:, 1] - X[:, 0], X[:, 2] - X[:, 0]], 2)
    G = np.linalg.inv(B).transpose(0, 2, 1) @ np.array([[-1.0, 1, 0], [-1, 0, 1]])
    return T, 0.5 * np.abs(np.linalg.det(B)), G


def energy(u, T, A, G):
    """A P1 Dirichlet energy plus a quartic term over the triangles T."""
    ue = u[T]
    g = np.einsum("eij,ej->ei", G, ue)
    return 0.5 * np.sum(A * np.sum(g**2, axis=1)) + 0.25 * np.sum(ue**4)


def residual(u, T, A, G):
    """Its gradient, assembled by np.add.at at the triangles."""
    ue = u[T]
    r = np.zeros_like(u)
    np.add.at(r, T, np.einsum("eij,ej->ei", A[:, None, None] * (G.transpose(0, 2, 1) @ G), ue))
    np.add.at(r, T, ue**3)
    return r


def stiffness(u, T, A, G):
    """The energy's Hessian, the residual's Jacobian: K + diag(3u²) per corner."""
    H = np.zeros((u.size, u.size))
    np.add.at(H, (T[:, :, None], T[:, None, :]), A[:, None, None] * (G.transpose(0, 2, 1) @ G))
    np.add.at(H, (T, T), 3 * u[T] ** 2)
    return H


def cases(m: int) -> list[tuple]:
    """The point's triangles and the same reordered, corners rotated (other index data)."""
    T, A, G = grid(m)
    k = np.random.default_rng(1).permutation(len(T))
    return [(T, A, G), (T[k][:, [1, 2, 0]], A[k], G[k][:, :, [1, 2, 0]])]


def one_hot_free(source: str) -> bool:
    """Whether the generated module compares nothing for equality (the one-hot is the
    only ``==`` these programs have: positions against an ``arange``)."""
    tree = ast.parse(source)
    return not any(
        isinstance(node, ast.Compare) and any(isinstance(o, ast.Eq) for o in node.ops)
        for node in ast.walk(tree)
    )


def test_sweeps_at_index_data_gather_and_scatter_add_without_a_one_hot():
    """hvp of the energy (a take, and the gradient's scatter-add, in the tangent sweep)
    and vjp of the residual (a scatter-add's adjoint is a gather, a take's a segment
    sum) against the assembled stiffness, at the point's and at other triangles."""
    (T, A, G), other = cases(6)
    rng = np.random.default_rng(0)
    u, t = rng.normal(size=36), rng.normal(size=36)
    hvp = dgraph.make_function(energy, "hvp", point=[u, T, A, G], params=["A", "G"])
    vjp = dgraph.make_function(residual, "vjp", point=[u, T, A, G], params=["A", "G"])
    assert hvp.generated.verified and vjp.generated.verified
    assert one_hot_free(hvp.source) and one_hot_free(vjp.source)
    for case in ((T, A, G), other):
        H = stiffness(u, *case)
        np.testing.assert_allclose(hvp(u, *case, t), H @ t, atol=1e-12)
        np.testing.assert_allclose(vjp(u, t, *case), t @ H, atol=1e-12)


def corner_norms(E, T):
    """Each triangle corner's squared norm: a take of a 2-D array, (m, 3, 2)."""
    return np.sum(E[T] ** 2, axis=2)


def test_a_dense_hessian_at_index_data_sums_at_the_positions_without_a_one_hot():
    """The energy's dense Hessian on a 10 × 10 mesh (a union of 100 × 486 entries, past
    the small blocks' sparse products): ``Sᵀ·D·S`` by segment sums, not ``onehot @ X``,
    against the assembled stiffness at the point's and at other triangles; the dense
    Jacobian of a 2-D array's take (its positions split as the corners (m, 3) are),
    against its closed form ``2 E[T]`` at each corner's node."""
    (T, A, G), other = cases(10)
    u = np.random.default_rng(2).normal(size=100)
    H = dgraph.hessian(energy, u, T, A, G, params=["A", "G"])
    assert H.generated.verified and one_hot_free(H.gradient.source)
    E = np.random.default_rng(3).normal(size=(100, 2))
    J = dgraph.make_function(corner_norms, "jacobian", point=[E, T])
    assert J.generated.verified and one_hot_free(J.source)
    for case in ((T, A, G), other):
        np.testing.assert_allclose(H(u, *case), stiffness(u, *case), atol=1e-12)
        want = np.zeros((len(T), 3, 100, 2))
        a, k = np.indices(T.shape)
        want[a, k, case[0]] = 2 * E[case[0]]
        np.testing.assert_allclose(J(E, case[0]), want, atol=1e-12)


def test_the_dense_price_at_index_data_counts_the_gathers_as_printed():
    """The price of a product with a take's or a scatter-add's union block (a
    :class:`~dgraph.blocks.OneHot`) is what the code prints for it, a gather or a
    segment sum (no multiplication), not the union's n · 3m products per vector: the
    energy's Hessian on an 8 × 8 mesh costs its 36 per triangle (the base: 1,264,200),
    the residual's Jacobian its products of constants and gathers alone (0; the base:
    1,279,488); the values still the assembled stiffness."""
    (T, A, G), _ = cases(8)
    u = np.random.default_rng(2).normal(size=64)
    H = dgraph.hessian(energy, u, T, A, G, params=["A", "G"])
    J = dgraph.make_function(residual, "jacobian", point=[u, T, A, G], params=["A", "G"])
    assert H.gradient.generated.mults == 36 * len(T) and J.generated.mults == 0
    assert H.generated.verified and J.generated.verified
    np.testing.assert_allclose(H(u, T, A, G), stiffness(u, T, A, G), atol=1e-12)
    np.testing.assert_allclose(J(u, T, A, G), stiffness(u, T, A, G), atol=1e-12)
