"""Session 44 (left44b): index data of rank 2 passed as a parameter.

A mesh's triangles ``T`` (m, 3) in FEM assembly, a graph's edges (E, 2), a batch of
embedding ids (B, k): ``E[T.astype(int)]`` and ``np.take(E, T.astype(int), axis=0)``
were refused by the NumPy reader ("a data-dependent index ... along one axis") and
``E[T]`` by the JAX reader ("gather with an index that depends on the inputs"). Both now
read them as the one ``take_dynamic`` at ``T``'s flat positions, its axes laid back by a
reshape, the positions read from the parameter at each call (never baked in). Their
transposes, FEM assembly and segment sums at index data (``np.add.at(r, T.astype(int),
v)``, ``np.bincount(t, weights=v, minlength=n)``, JAX's ``r.at[T].add(v)``), were refused
too; they are now one ``scatter_add_dynamic``.
"""

import numpy as np

import dgraph

P = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [2, 0], [2, 1]], dtype=float)  # 6 nodes
T0 = np.array([[0, 1, 2], [1, 3, 2], [1, 4, 3], [4, 5, 3]], dtype=float)  # 4 triangles
T1 = np.array([[0, 1, 3], [0, 3, 2], [1, 4, 5], [1, 5, 3]], dtype=float)  # other ones
W = np.array([1.0, 2.0, 3.0])  # a weight per corner


def dense(m):
    return m.toarray() if hasattr(m, "toarray") else np.asarray(m)


def corners(E, e, T):
    """A vector of the rows of E and entries of e at the triangles' corners."""
    t = T.astype(int)
    rows = np.sum(E[t] ** 2 * W[None, :, None], axis=2)  # (m, 3, 2) -> (m, 3)
    return np.ravel(rows * np.sin(e[t]) + np.take(E, t, axis=0)[:, :, 0] ** 3)


def corners_jacobian(E, e, T):
    """Its Jacobian in closed form (np.add.at at the corners)."""
    t = T.astype(int)
    m = t.shape[0]
    dE, de = np.zeros((m, 3, 6, 2)), np.zeros((m, 3, 6))
    for a in range(m):
        for k in range(3):
            p = t[a, k]
            dE[a, k, p] += 2 * E[p] * W[k] * np.sin(e[p])
            dE[a, k, p, 0] += 3 * E[p, 0] ** 2
            de[a, k, p] += np.sum(E[p] ** 2) * W[k] * np.cos(e[p])
    return dE.reshape(3 * m, 12), de.reshape(3 * m, 6)


def test_rank2_index_data_gather_jacobians_read_the_triangles_at_run_time():
    """``E[T]`` (m, 3, d), ``e[T]`` (m, 3) and ``np.take(E, T, axis=0)`` with ``T`` a
    parameter: the Jacobian (py, sparse, C) against the closed form at the point and
    called again with other triangles."""
    rng = np.random.default_rng(5)
    E, e = rng.normal(size=(6, 2)), rng.normal(size=6)
    for lang, sparse in (("python", False), ("python", True), ("c", False)):
        G = dgraph.make_function(
            corners, "jacobian", lang, params=["T"], point=[E, e, T0], sparse=sparse
        )
        assert G.generated.verified, lang
        for T in (T0, T1):
            want = corners_jacobian(E, e, T)
            got = G(E, e, T)
            np.testing.assert_allclose(dense(got[0]).reshape(12, 12), want[0], atol=1e-13)
            np.testing.assert_allclose(dense(got[1]).reshape(12, 6), want[1], atol=1e-13)


def geometry(T):
    """Each triangle's area and the gradients of its three hat functions (constants)."""
    X = P[T.astype(int)]
    B = np.stack([X[:, 1] - X[:, 0], X[:, 2] - X[:, 0]], axis=2)
    G = np.linalg.inv(B).transpose(0, 2, 1) @ np.array([[-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]])
    return 0.5 * np.abs(np.linalg.det(B)), G


def energy(u, T, A, G):
    """A P1 Dirichlet energy plus a quartic term, summed over the triangles T."""
    ue = u[T.astype(int)]
    g = np.einsum("eij,ej->ei", G, ue)
    return 0.5 * np.sum(A * np.sum(g**2, axis=1)) + 0.25 * np.sum(ue**4)


def energy_hessian(u, T, A, G):
    """The stiffness matrix assembled (np.add.at) plus 3u² per corner."""
    t = T.astype(int)
    K = A[:, None, None] * np.einsum("eki,ekj->eij", G, G)
    H = np.zeros((6, 6))
    np.add.at(H, (t[:, :, None], t[:, None, :]), K)
    np.add.at(H, (t, t), 3 * u[t] ** 2)
    return H


def test_rank2_index_data_hessian_of_a_p1_energy_and_the_jax_reader():
    """The Hessian of a P1 energy with the triangles as data, against the assembled
    stiffness at the point and at other triangles; the JAX reader's ``E[T]`` (a gather
    with positions of rank 2) gives the same Jacobian."""
    u = np.random.default_rng(1).normal(size=6)
    (A0, G0), (A1, G1) = geometry(T0), geometry(T1)
    H = dgraph.hessian(energy, u, T0, A0, G0, params=["T", "A", "G"])
    for T, A, G in ((T0, A0, G0), (T1, A1, G1)):
        np.testing.assert_allclose(dense(H(u, T, A, G)), energy_hessian(u, T, A, G), atol=1e-12)

    import jax.numpy as jnp

    def jcorners(E, e, T):
        t = T.astype(int)
        rows = jnp.sum(E[t] ** 2 * W[None, :, None], axis=2)
        return jnp.ravel(rows * jnp.sin(e[t]) + jnp.take(E, t, axis=0)[:, :, 0] ** 3)

    rng = np.random.default_rng(5)
    E, e = rng.normal(size=(6, 2)), rng.normal(size=6)
    J = dgraph.make_function(jcorners, "jacobian", "python", params=["T"], point=[E, e, T0])
    assert J.generated.verified
    for T in (T0, T1):
        want = corners_jacobian(E, e, T)
        got = J(E, e, T)
        np.testing.assert_allclose(dense(got[0]).reshape(12, 12), want[0], atol=1e-13)
        np.testing.assert_allclose(dense(got[1]).reshape(12, 6), want[1], atol=1e-13)


def assembled(u, T, A, G):
    """The residual K u + c·u³ (c: corners per node) and its Jacobian, assembled here."""
    t = T.astype(int)
    K = np.zeros((6, 6))
    np.add.at(K, (t[:, :, None], t[:, None, :]), A[:, None, None] * np.einsum("eki,ekj->eij", G, G))
    c = np.bincount(t.ravel(), minlength=6)
    return K @ u + c * u**3, K + np.diag(3 * c * u**2), c


def residual(u, T, A, G):
    """FEM assembly at triangles given as data: np.add.at of the element residuals."""
    t = T.astype(int)
    ue = u[t]
    re = np.einsum("eij,ej->ei", A[:, None, None] * np.einsum("eki,ekj->eij", G, G), ue)
    r = np.zeros(6)
    np.add.at(r, t, re + ue**3)
    return r


def objective(u, T, A, G):
    """Half the squared residual, its segment sums by np.bincount at the corners."""
    t = T.astype(int)
    ue = u[t]
    re = np.einsum("eij,ej->ei", A[:, None, None] * np.einsum("eki,ekj->eij", G, G), ue)
    r = np.bincount(np.ravel(t), weights=np.ravel(re + ue**3), minlength=6)
    return 0.5 * np.sum(r**2)


def test_scatter_add_at_index_data_jacobian_hessian_and_the_jax_reader():
    """``np.add.at(r, T.astype(int), v)`` and ``np.bincount(t, weights=v, minlength=n)``
    with ``v`` depending on the inputs and ``T`` a parameter: the Jacobian (py, sparse, C)
    and the Hessian of ``|r|²/2`` (``J'J + diag(r·6cu)``) against the assembly here, at
    the point and at other triangles; JAX's ``r.at[T].add(v)`` likewise."""
    u = np.random.default_rng(1).normal(size=6)
    cases = [(T, *geometry(T)) for T in (T0, T1)]
    for lang, sparse in (("python", False), ("python", True), ("c", False)):
        J = dgraph.make_function(
            residual, "jacobian", lang, params=["T", "A", "G"], point=[u, *cases[0]], sparse=sparse
        )
        assert J.generated.verified, lang
        for case in cases:
            np.testing.assert_allclose(dense(J(u, *case)), assembled(u, *case)[1], atol=1e-12)
    H = dgraph.hessian(objective, u, *cases[0], params=["T", "A", "G"])
    for case in cases:
        r, jac, c = assembled(u, *case)
        np.testing.assert_allclose(
            dense(H(u, *case)), jac.T @ jac + np.diag(6 * r * c * u), atol=1e-12
        )

    import jax.numpy as jnp

    def jresidual(u, T, A, G):
        t = T.astype(int)
        ue = u[t]
        re = jnp.einsum("eij,ej->ei", A[:, None, None] * jnp.einsum("eki,ekj->eij", G, G), ue)
        return jnp.zeros(6).at[t].add(re + ue**3)

    J = dgraph.make_function(
        jresidual, "jacobian", "python", params=["T", "A", "G"], point=[u, *cases[0]]
    )
    assert J.generated.verified
    for case in cases:
        np.testing.assert_allclose(dense(J(u, *case)), assembled(u, *case)[1], atol=1e-12)


def test_a_sparse_pattern_at_index_data_is_noted_and_closing_over_them_narrows_it():
    """A sparse Jacobian at index data holds every entry a call's positions could reach
    (here all 6 × 6 of e's), with a warning that says so; closed over, the triangles'
    own pattern (the corners each row reads), with the same values."""
    import warnings

    rng = np.random.default_rng(7)
    e = rng.normal(size=6)

    def at_corners(e, T):
        return np.sin(e[T.astype(int)]).sum(axis=1)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wide = dgraph.make_function(
            at_corners, "jacobian", params=["T"], point=[e, T0], sparse=True
        )
    assert any("index data T could reach" in str(w.message) for w in caught)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        own = dgraph.make_function(lambda e: at_corners(e, T0), "jacobian", point=[e], sparse=True)
    assert not any("index data" in str(w.message) for w in caught)
    a, b = wide(e, T0), own(e)
    want = np.zeros((4, 6))
    for row, corner in enumerate(T0.astype(int)):
        want[row, corner] = np.cos(e[corner])
    np.testing.assert_allclose(dense(a), want, rtol=1e-14)
    np.testing.assert_allclose(dense(b), want, rtol=1e-14)
    assert b.nnz == 12 and a.nnz > b.nnz
