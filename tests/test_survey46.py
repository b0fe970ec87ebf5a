"""Defects the session-46 survey of held-out-style programs found
(``benchmarks/programs_survey``, ``common.NAMES46``), one small test each."""

import numpy as np

import dgraph
from dgraph.codegen.tensor.function import TensorGenerated


def test_bincount_counts_of_index_data_are_a_passive_value():
    """``np.bincount(g.astype(int), minlength=k)`` with ``g`` a parameter (a random-
    intercept model's group sizes beside its per-group sums ``bincount(weights=r)``):
    refused before ("numpy.bincount with indices that depend on the inputs"); now each
    group's count, read again at each call's labels. Against the closed form
    ``d(s_j²/(1 + n_j))/db_i = 2 s_j / (1 + n_j)`` for ``i`` in group ``j``."""

    def f(b, g):
        gi = g.astype(int)
        return np.bincount(gi, weights=b, minlength=3) ** 2 / (1.0 + np.bincount(gi, minlength=3))

    b = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    jac = dgraph.make_function(f, "jacobian", params=["g"], point=[b, np.zeros(5)])
    assert jac.generated.verified
    for g in (np.array([0.0, 2, 2, 0, 2]), np.array([1.0, 1, 2, 0, 1])):
        gi = g.astype(int)
        s, n = np.bincount(gi, weights=b, minlength=3), np.bincount(gi, minlength=3)
        want = np.zeros((3, 5))
        want[gi, np.arange(5)] = 2 * s[gi] / (1 + n[gi])
        np.testing.assert_allclose(np.asarray(jac(b, g)), want, rtol=1e-14, atol=1e-14)


def test_scipy_simpson_at_abscissae_that_depend_on_the_inputs():
    """``scipy.integrate.simpson(y, x=t)`` on a moving grid ``t`` (refused before: "with
    abscissae that depend on the inputs"). Simpson's rule on unequal spacings, and
    Cartwright's last interval for an even count (6 points: both), are exact for a
    quadratic ``p``: the integral is ``P(t_end) - P(t_0)``, so the gradient in ``t`` is
    ``-p(t_0)`` first, ``p(t_end)`` last and 0 between."""
    import scipy.integrate

    def p(t):
        return 1.0 + 2.0 * t - 3.0 * t**2

    t = np.sort(np.random.default_rng(6).uniform(0.0, 2.0, 6))
    graph = dgraph.from_function(lambda t: scipy.integrate.simpson(p(t), x=t), sizes=[6],
                                 level="array")  # fmt: skip
    grad = dgraph.make_function(graph, "jacobian")
    assert grad.generated.verified
    want = np.zeros(6)
    want[0], want[-1] = -p(t[0]), p(t[-1])
    np.testing.assert_allclose(np.ravel(grad(t)), want, rtol=1e-13, atol=1e-13)


def test_top_k_by_a_slice_of_argsort():
    """``x[np.argsort(-x)[:k]]`` and ``np.argsort(x)[::-1][:k]`` (a top-k): positions
    still, refused before ("a data-dependent index is supported at positions from
    np.argsort"). The weighted top-3 sum's gradient is its weight at each of the three
    largest entries, read again at the call's point."""

    def f(x):
        return np.sum(x[np.argsort(x)[::-1][:3]] * np.array([3.0, 2.0, 1.0])) + np.sum(
            x[np.argsort(-x)[:1]] ** 2
        )

    grad = dgraph.make_function(f, "jacobian", point=[np.array([0.3, -1.2, 0.7, 2.0])])
    assert grad.generated.verified
    y = np.array([1.5, 0.2, -0.3, 0.9])  # another order: 0, 3, 1 largest
    np.testing.assert_allclose(np.ravel(grad(y)), [3.0 + 2 * 1.5, 1.0, 0.0, 2.0], rtol=1e-15)


def test_numpy_roll_over_several_axes():
    """``np.roll(A, (1, -1), axis=(0, 1))`` (a 2-D periodic stencil), refused before
    ("numpy.roll over several axes"): against the closed form of
    ``Σ A ⊙ roll(A)``, whose gradient is ``roll(A) + roll⁻¹(A)``."""

    def f(A):
        return np.sum(A * np.roll(A, (1, -1), axis=(0, 1)))

    A = np.arange(12.0).reshape(3, 4) ** 1.5
    grad = dgraph.make_function(f, "jacobian", point=[A])
    assert grad.generated.verified
    want = np.roll(A, (1, -1), axis=(0, 1)) + np.roll(A, (-1, 1), axis=(0, 1))
    np.testing.assert_allclose(np.ravel(grad(A.reshape(-1))), want.reshape(-1), rtol=1e-14)


def test_numpy_fill_diagonal_of_a_traced_matrix():
    """``np.fill_diagonal(K, v)`` in place on a matrix computed from the inputs (a
    leave-one-out kernel density), refused at the array level before ("numpy.fill_diagonal
    on an array that depends on the inputs"). ``Σ K`` with ``K = A Aᵀ`` and its diagonal
    set to ``s²`` is ``|Σ_i a_i|² − Σ_i |a_i|² + n s²``: the gradient is
    ``2 (Σ_i a_i − a_k)`` in row ``a_k`` and ``2 n s`` in ``s``."""

    def f(A, s):
        K = A @ A.T
        np.fill_diagonal(K, s**2)
        return np.sum(K)

    A, s = np.array([[0.3, -1.2], [0.7, 2.0], [1.1, 0.4]]), np.array(1.5)
    grad = dgraph.make_function(f, "jacobian", point=[A, s])
    assert grad.generated.verified
    tensor = isinstance(grad.generated, TensorGenerated)  # else one flat vector, A then s
    got = grad(A, s) if tensor else (grad(np.append(A, s)),)
    want = np.append(2 * (A.sum(axis=0) - A), 2 * 3 * 1.5)
    np.testing.assert_allclose(np.concatenate([np.ravel(g) for g in got]), want, rtol=1e-14)


def test_numpy_linspace_between_ends_that_depend_on_the_inputs():
    """``np.linspace(a, b, 5)`` with traced ends (a domain's length as an input), refused
    before ("numpy.linspace on an array that depends on the inputs"). ``S = Σ y_k²`` with
    ``y_k = a + (b − a) k/4``: ``∂S/∂a = Σ 2 y_k (1 − k/4)``, ``∂S/∂b = Σ 2 y_k k/4``; the
    last entry is ``b`` itself, as NumPy's."""

    def f(ab):
        y = np.linspace(ab[0], ab[1], 5)
        return np.sum(y**2)

    graph = dgraph.from_function(f, sizes=[2], level="array")
    grad = dgraph.make_function(graph, "jacobian")
    assert grad.generated.verified
    a, b, k = -1.0, 2.5, np.arange(5) / 4
    y = a + (b - a) * k
    want = [np.sum(2 * y * (1 - k)), np.sum(2 * y * k)]
    np.testing.assert_allclose(np.ravel(grad(np.array([a, b]))), want, rtol=1e-14)

    def g(ab):  # constant ends keep NumPy's own linspace (dtype, axis): y_0 + y_2 + y_4
        picked = np.linspace(0, 4, 3, dtype=int)
        return np.sum(np.linspace(ab[0], ab[1], 5)[picked]) + np.sum(np.linspace(0, 1, 2, axis=-1))

    grad = dgraph.make_function(dgraph.from_function(g, sizes=[2], level="array"))
    np.testing.assert_allclose(np.ravel(grad(np.array([a, b]))), [1.5, 1.5], rtol=1e-14)


def test_numpy_flipud_and_fliplr_of_a_traced_matrix():
    """``np.flipud`` / ``np.fliplr`` of a matrix of the inputs, refused before ("numpy.flipud
    on an array that depends on the inputs"): ``Σ flipud(M)⊙W + Σ fliplr(M)⊙V`` has the
    gradient ``flipud(W) + fliplr(V)``."""
    W, V = np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(2, 3) ** 2

    def f(M):
        return np.sum(np.flipud(M) * W) + np.sum(np.fliplr(M) * V)

    grad = dgraph.make_function(dgraph.from_function(f, sizes=[(2, 3)], level="array"))
    assert grad.generated.verified
    M = np.ones((2, 3))
    np.testing.assert_allclose(np.ravel(grad(M)), np.ravel(np.flipud(W) + np.fliplr(V)))
