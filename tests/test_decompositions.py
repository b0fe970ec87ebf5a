"""Determinants and decompositions (``dgraph.blocks.decompositions``) through generated code:
``jvp``/``vjp`` in NumPy and JAX and the Hessian against JAX; singular vectors at a
repeated singular value not verified. The rules themselves are checked operation by
operation in tests/test_rules_vs_jax.py and mutated in tests/test_value_check_mutations.py."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from dgraph import accumulate, from_jax, hessian, make_function  # noqa: E402
from dgraph.blocks import decompositions  # noqa: E402
from dgraph.blocks.arrays import ArrayOp  # noqa: E402
from dgraph.codegen.python import load_python  # noqa: E402
from dgraph.codegen.tensor.module import tensor_module  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402
from dgraph.frontends import jaxpr_rewrites  # noqa: E402

X = np.random.default_rng(7).uniform(0.2, 1.2, 16)


def _every(x):
    """slogdet, det (n = 4: its lu), qr and svd (values and vectors) of one 4×3 matrix."""
    tall = x[:12].reshape(4, 3) + 3 * jnp.eye(4, 3)
    square = jnp.concatenate([tall, x[12:].reshape(4, 1)], axis=1)
    u, s, vt = jnp.linalg.svd(tall.T, full_matrices=False)
    q, r = jnp.linalg.qr(tall)
    logdet, det = jnp.linalg.slogdet(square)[1], jnp.linalg.det(square)
    return jnp.concatenate([jnp.stack([logdet, det]), s, u[:, 0] * vt[0, 0], q[:, 1], r[0]])


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


@pytest.mark.parametrize("mode", ["vjp"])  # jvp: benchmarks/linalg_matrix.py
def test_jvp_and_vjp_equal_jax(mode: str) -> None:
    J = np.asarray(jax.jit(jax.jacfwd(_every))(X))
    made = make_function(_every, mode, point=[X])
    rng = np.random.default_rng(8)
    if mode == "jvp":
        v = rng.standard_normal(X.size)
        np.testing.assert_allclose(np.asarray(made(X, v)), J @ v, rtol=1e-9, atol=1e-12)
    else:
        w = rng.standard_normal(J.shape[0])
        np.testing.assert_allclose(np.asarray(made(X, w)), w @ J, rtol=1e-9, atol=1e-12)


def test_jax_code_equals_jax() -> None:
    """The JAX printer's ``linalg`` calls (a tuple's parts: qr, svd, slogdet)."""

    def f(x):
        a = x.reshape(3, 2) + jnp.eye(3, 2)
        u = jnp.linalg.svd(a, full_matrices=False)[0]
        return jnp.concatenate([jnp.linalg.qr(a)[1][0], u[0], jnp.linalg.slogdet(a.T @ a)[1][None]])

    x = X[:6]
    es = accumulate(from_jax(f, x, level="array"), "forward", verify=False)
    jacobian = load_python(tensor_module(es, "jax", False)).jacobian
    # the printed code and the reference in one jitted program (one compilation, not one
    # per eager operation)
    got, want = jax.jit(lambda x: (jacobian(x), jax.jacfwd(f)(x)))(x)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_hessian_through_slogdet_and_inv() -> None:
    """JAX's gradient of these reads ``slogdet``'s solve and solves ``x·A = b`` (a row
    solve by Aᵀ, refused before): the generated Hessian equals ``jax.hessian``."""

    def f(x):
        a = x.reshape(2, 2) + 2 * jnp.eye(2)
        return jnp.linalg.slogdet(a)[1] + jnp.sum(jnp.linalg.inv(a))

    x = X[:4]
    np.testing.assert_allclose(hessian(f, x)(x), jax.jit(jax.hessian(f))(x), rtol=1e-9, atol=1e-12)


def test_singular_vectors_at_a_repeated_singular_value_are_not_verified() -> None:
    """Where two singular values are equal the vectors have no derivative: the rule gives
    infinities and NaN there, as JAX's does, and the function made is not verified (the
    user's point is not finite; it raised before the check told that apart)."""
    a = np.diag([2.0, 2.0, 1.0])
    with pytest.warns(UserWarning, match="NOT verified"):
        J = make_function(lambda m: jnp.linalg.svd(m)[0], point=[a])
    assert not J.generated.verified
    assert not np.isfinite(np.asarray(J(a))).all()


def _near_identity(n: int):
    """det(3·I + x as an n×n matrix), x of n² entries."""
    return lambda x: jnp.linalg.det(3 * jnp.eye(n) + x.reshape(n, n))


def _same_hessian(f, x) -> None:
    """dgraph's Hessian at x equals JAX's (relative 1e-10): forward over forward, jitted
    (``expm``'s reference compiled in 0.9 CPU-s, against 1.4 for ``jax.hessian``'s
    forward over reverse; the same values to rounding)."""
    got = hessian(f, x)(x)
    got = np.asarray(got.toarray() if hasattr(got, "toarray") else got)
    want = np.asarray(jax.jit(jax.jacfwd(jax.jacfwd(f)))(x)).reshape(got.shape)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-10 * np.abs(want).max())


def _primitives(f, x) -> Counter:
    """The operations of JAX's gradient of f read at the array level, inside the regions
    (``cond`` branches, loop bodies) too."""
    found: Counter = Counter()
    graphs = [from_jax(jax.grad(f), x, level="array")]
    while graphs:
        g = graphs.pop()
        ops = [g.op(v) for v in g.nx if g.op(v) is not None]
        while ops:
            op = ops.pop()
            found[op.primitive] += 1
            ops += [y for y in op.operands if isinstance(y, ArrayOp)]
            region = op.param.get("region") if op.primitive in ("cond", "loop") else None
            bodies = getattr(region, "branches", None) or [getattr(region, "body", None)]
            graphs += [b.graph for b in bodies if b is not None]
    return found


@pytest.mark.parametrize("n", [5])  # n = 4: the pivoting test below; one lu whatever n ≥ 4
def test_hessian_of_det_reads_lu_as_one_operation(n: int) -> None:
    """JAX's gradient of ``det`` (n ≥ 4) reads ``lu``'s factors, pivots and permutation
    as data: one ``lu`` operation and its pivots and permutation (before: JAX's
    elimination unrolled, n row swaps at argmax positions), and the Hessian is JAX's."""
    x = np.random.default_rng(n).normal(size=n * n) * 0.3
    found = _primitives(_near_identity(n), x)
    assert found["lu"] == 1 and found["lu_permutation"] >= 1, found
    assert found["take_dynamic"] <= 2 and found["argmax"] == 0, found
    _same_hessian(_near_identity(n), x)


def test_hessian_of_det_where_pivoting_swaps_rows() -> None:
    """A first pivot of 1e-3: LAPACK swaps rows (pivots not 0, 1, 2, 3), and so does the
    reading."""
    m = np.random.default_rng(9).uniform(0.5, 1.5, (4, 4))
    m[0] *= 1e-3
    assert not np.array_equal(np.asarray(jax.lax.linalg.lu(m)[1]), np.arange(4))
    _same_hessian(lambda x: jnp.linalg.det(x.reshape(4, 4)), m.ravel())


def test_hessian_through_lu_factor() -> None:
    """``lu_factor``'s factors themselves (a function of them, cubed: a Hessian with
    second derivatives of the factors) at a point that pivots."""
    m = np.random.default_rng(10).uniform(0.5, 1.5, (3, 3))
    m[0] *= 1e-2
    _same_hessian(lambda x: jnp.sum(jax.scipy.linalg.lu_factor(x.reshape(3, 3))[0] ** 3), m.ravel())


def _lu_solved(x):
    """``lu_solve`` of ``lu_factor``'s pair (a permuted right-hand side: the gather at
    ``lu_pivots_to_permutation`` of the pivots) for two right-hand sides."""
    m = x.reshape(3, 3)
    packed = jax.scipy.linalg.lu_factor(m)
    return jax.scipy.linalg.lu_solve(packed, jnp.stack([x[:3], x[3:6] ** 2], axis=1)).ravel()


def test_lu_solve_of_lu_factor_jacobian_and_hessian() -> None:
    """``lu_solve((lu, piv), b)`` at a point whose pivoting swaps rows: the Jacobian
    (NumPy and JAX code) equals ``jax.jacfwd``'s, the Hessian of its sum of squares
    ``jax.hessian``'s (on main the permutation was opaque and the gather refused)."""
    m = np.random.default_rng(13).uniform(0.5, 1.5, (3, 3))
    m[0] *= 1e-2
    x = m.ravel()
    assert not np.array_equal(np.asarray(jax.scipy.linalg.lu_factor(m)[1]), np.arange(3))
    want = np.asarray(jax.jit(jax.jacfwd(_lu_solved))(x))  # one compile
    for language in ("python", "jax"):
        got = np.asarray(make_function(_lu_solved, "jacobian", language, point=[x])(x))
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-10 * np.abs(want).max())
    _same_hessian(lambda x: jnp.sum(_lu_solved(x) ** 2), x)


def test_hessian_of_a_batched_solve() -> None:
    """A batch of triangular systems, refused here before (at the array level every
    linear-algebra operation is of one matrix): read one solve per matrix
    (:mod:`dgraph.frontends.jaxpr_stacks`), its Hessian equals JAX's. (A batched det is
    computed per matrix before JAX differentiates: tests/test_left45.py.)"""
    x = np.random.default_rng(11).normal(size=2 * 16) * 0.3
    solve = jax.scipy.linalg.solve_triangular
    _same_hessian(
        lambda x: jnp.sum(
            solve(3 * jnp.eye(4) + x.reshape(2, 4, 4), jnp.ones((2, 4, 1)), lower=True) ** 2
        ),
        x,
    )


def _tridiagonal(x):
    """A batch of two tridiagonal systems of order 4, two right-hand sides each."""
    dl = jnp.concatenate([jnp.zeros((2, 1)), x[:6].reshape(2, 3)], axis=1)
    du = jnp.concatenate([x[6:12].reshape(2, 3), jnp.zeros((2, 1))], axis=1)
    d = 4.0 + x[12:20].reshape(2, 4)
    b = jnp.stack([x[:8].reshape(2, 4), x[12:20].reshape(2, 4) ** 2], axis=-1)
    return jax.lax.linalg.tridiagonal_solve(dl, d, du, b)


def test_tridiagonal_solve_jacobian_and_hessian() -> None:
    """``lax.linalg.tridiagonal_solve`` (refused before: "primitive 'tridiagonal_solve' is
    not supported"), read as the solve of its dense matrix: the Jacobian (NumPy, C) is
    ``jax.jacfwd``'s, the Hessian of its sum of squares ``jax.hessian``'s."""
    x = np.random.default_rng(17).uniform(-0.5, 0.5, 20)
    want = np.asarray(jax.jit(jax.jacfwd(lambda x: _tridiagonal(x).ravel()))(x))
    for language in ("python", "c"):
        made = make_function(lambda x: _tridiagonal(x).ravel(), "jacobian", language, point=[x])
        got = np.asarray(made(x))
        assert made.generated.verified
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.abs(want).max())
    _same_hessian(lambda x: jnp.sum(_tridiagonal(x) ** 2), x)


@pytest.mark.parametrize("n", [4, 10])  # 10: a block of 10⁴ entries, applied as a matrix
def test_a_wrong_derivative_of_lu_is_caught(monkeypatch, n: int) -> None:
    """``lu``'s rule made 0.1 % wrong (its values kept): the Hessian of det is not
    verified against JAX's, so none is returned."""
    right = decompositions._lu

    def wrong(n, a, d, packed, xp):
        return xp.mul(right(n, a, d, packed, xp), 1.001)

    monkeypatch.setattr(decompositions, "_lu", wrong)
    x = np.random.default_rng(12).normal(size=n * n) * 0.3
    with pytest.raises(DGraphError, match="did not verify"):
        hessian(_near_identity(n), x)


def test_a_wrong_derivative_of_the_unrolled_lu_is_caught(monkeypatch) -> None:
    """A non-square ``lu`` is read as JAX's elimination unrolled: its factors' derivative
    made 0.1 % wrong (their values kept), the Hessian is not verified."""
    right = jaxpr_rewrites.unrolled_lu

    def wrong(a):
        factors, pivots, permutation = right(a)
        return [factors + 1e-3 * (factors - jax.lax.stop_gradient(factors)), pivots, permutation]

    def f(x):
        return jnp.sum(jax.lax.linalg.lu(x.reshape(4, 3) + 2 * jnp.eye(4, 3))[0] ** 3)

    x = np.random.default_rng(12).normal(size=12) * 0.3
    _same_hessian(f, x)
    monkeypatch.setattr(jaxpr_rewrites, "unrolled_lu", wrong)
    with pytest.raises(DGraphError, match="did not verify"):
        hessian(f, x)


def test_hessian_of_expm() -> None:
    """``expm`` solves ``Q·X = P`` by ``lu`` inside a ``cond`` (and squares in a scan
    there): JAX's gradient carries the factors and the scan's per-step choices out of the
    branch as data (refused before). n = 3, of 1-norm 13.3: Padé of degree 13, squared
    once."""
    x = np.random.default_rng(13).normal(size=9) * 0.3

    def f(x):
        return jnp.sum(jax.scipy.linalg.expm(12 * jnp.eye(3) + x.reshape(3, 3)))

    _same_hessian(f, x)


def _lu_tangent_50_digits(a: np.ndarray, d: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """JAX's ``lu_jvp`` at the rows ``rows`` held, in 50 digits (mpmath): the factors of
    P·A without pivoting, ``X = L⁻¹·P·dA·U⁻¹``, ``dLU = L·tril(X, -1) + triu(X)·U``."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 50
    n = len(rows)
    pa, pd = (mp.matrix([[mp.mpf(float(m[r, j])) for j in range(n)] for r in rows]) for m in (a, d))
    lower, upper = mp.eye(n), mp.zeros(n, n)
    for i in range(n):
        for j in range(i, n):
            upper[i, j] = pa[i, j] - sum(lower[i, k] * upper[k, j] for k in range(i))
        for j in range(i + 1, n):
            done = sum(lower[j, k] * upper[k, i] for k in range(i))
            lower[j, i] = (pa[j, i] - done) / upper[i, i]
    x = lower**-1 * pd * upper**-1
    below = mp.matrix([[x[i, j] if i > j else 0 for j in range(n)] for i in range(n)])
    out = lower * below + (x - below) * upper
    return np.array(out.tolist(), dtype=float)


def test_lu_tangent_of_an_ill_conditioned_matrix_is_accurate() -> None:
    """6×6 matrices of condition 10¹⁰: ``lu``'s block applied to a direction agrees with
    the 50-digit tangent to 3e-9 relative (worst of three: 3.2e-10; with
    ``X = U·A⁻¹·dA·U⁻¹``, A⁻¹ read in place of ``L⁻¹·P``: 5.1e-8)."""
    from dgraph.blocks import linalg

    op = ArrayOp("lu", ("a",), (), (6, 6))
    for seed in range(3):
        rng = np.random.default_rng(seed)
        u, v = (np.linalg.qr(rng.normal(size=(6, 6)))[0] for _ in range(2))
        a = u @ np.diag(np.logspace(0, -10, 6)) @ v.T
        d = rng.normal(size=(6, 6))
        got = (linalg.values(op, 0, [a]).reshape(36, 36) @ d.ravel()).reshape(6, 6)
        want = _lu_tangent_50_digits(a, d, linalg.lu_data("lu_permutation", a))
        assert np.abs(got - want).max() <= 3e-9 * np.abs(want).max(), seed


# -- eigenvalues of nonsymmetric matrices and sqrtm (eig55) ------------------------------

_TURN = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
_A = np.random.default_rng(55).uniform(-1.0, 1.0, (3, 3)) + _TURN  # a complex pair
_P = _A @ _A.T / 3 + np.eye(3) + 0.5 * _TURN  # real parts of its eigenvalues positive


def _sylvester_jacobian(a: np.ndarray) -> np.ndarray:
    """∂sqrtm(A)/∂A by SciPy: X·dX + dX·X = dA solved (Bartels-Stewart) for each basis dA."""
    import scipy.linalg

    x, n = np.real(scipy.linalg.sqrtm(a)), len(a)
    columns = [scipy.linalg.solve_sylvester(x, x, e.reshape(n, n)) for e in np.eye(n * n)]
    return np.stack(columns, axis=-1).reshape(n, n, n, n)


def test_eigenvalues_through_numpy_and_scipy() -> None:
    """``np.linalg.eigvals`` of a stack, ``scipy.linalg.eigvals`` and ``np.linalg.eig``'s
    values (its vectors unread), read by the NumPy tracer: the Jacobian ``jax.jacfwd``'s
    of ``jnp.linalg.eigvals``."""
    import scipy.linalg

    stack = np.stack([_A, _P])

    def f(a):
        w, _ = np.linalg.eig(a[1])
        found = (np.linalg.eigvals(a).ravel(), scipy.linalg.eigvals(a[0]), w)
        return np.concatenate([part for z in found for part in (np.real(z), np.imag(z))])

    def fj(a):
        found = (jnp.linalg.eigvals(a).ravel(), *jnp.linalg.eigvals(a))
        return jnp.concatenate([part for z in found for part in (z.real, z.imag)])

    got = make_function(f, "jacobian", point=[stack])(stack)
    np.testing.assert_allclose(got, jax.jacfwd(fj)(stack), rtol=1e-9, atol=1e-12)


def test_sqrtm_solves_the_sylvester_equation() -> None:
    """``jax.scipy.linalg.sqrtm`` (JAX has no rule for its ``schur``) in NumPy and JAX
    code, and ``scipy.linalg.sqrtm``: the Jacobian SciPy's Sylvester solutions, the
    value SciPy's root; the vjp its transpose."""
    import scipy.linalg

    expected = _sylvester_jacobian(_P)
    for f, lang in (
        (lambda a: jax.scipy.linalg.sqrtm(a).real, "python"),
        (lambda a: jax.scipy.linalg.sqrtm(a).real, "jax"),
        (lambda a: scipy.linalg.sqrtm(a), "python"),
    ):
        got = make_function(f, "value_and_jacobian", lang, point=[_P])(_P)
        np.testing.assert_allclose(got[0], np.real(scipy.linalg.sqrtm(_P)), rtol=1e-10)
        np.testing.assert_allclose(got[1], expected, rtol=1e-8, atol=1e-12)
    bar = np.arange(9.0).reshape(3, 3)
    vjp = make_function(lambda a: scipy.linalg.sqrtm(a), "vjp", point=[_P])(_P, bar)
    np.testing.assert_allclose(vjp, np.einsum("ij,ijkl->kl", bar, expected), rtol=1e-8)


def test_logm_inverts_the_frechet_derivative_of_expm() -> None:
    """``scipy.linalg.logm`` of a nonsymmetric matrix (JAX has none): its value SciPy's,
    and ``L(expm)`` at X = log A applied to each column of the Jacobian gives back the
    direction (SciPy's ``expm_frechet``: d log is the inverse of d exp)."""
    import scipy.linalg

    made = make_function(lambda a: scipy.linalg.logm(a), "value_and_jacobian", point=[_P])
    value, jac = made(_P)
    np.testing.assert_allclose(value, np.real(scipy.linalg.logm(_P)), rtol=1e-10, atol=1e-13)
    for e in np.eye(9):
        tangent = (jac.reshape(9, 9) @ e).reshape(3, 3)
        back = scipy.linalg.expm_frechet(value, tangent, compute_expm=False)
        np.testing.assert_allclose(back, e.reshape(3, 3), atol=1e-12)
    # a defective matrix has no V·diag(λ)·V⁻¹: NaN, not V·diag(log λ)·V⁻¹'s wrong 0 where
    # logm's entry is 1/2; made there: refused in one line
    jordan = np.array([[2.0, 1.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]])
    assert scipy.linalg.logm(jordan)[0, 1] == pytest.approx(0.5)
    value, jac = made(jordan)
    assert np.isnan(value).all() and np.isnan(jac).all()
    with pytest.raises(DGraphError, match="logm of a defective matrix at the point"):
        make_function(lambda a: scipy.linalg.logm(a), point=[jordan])


def test_eig_refusals_and_a_repeated_eigenvalue() -> None:
    """Eigenvectors read, a Hessian, C code: one line each; at a repeated eigenvalue
    (the identity: no derivative) the expression set is not verified, JAX's number
    (diag(dA)) not taken for one."""
    with pytest.raises(DGraphError, match="eigenvectors of a nonsymmetric matrix"):
        make_function(lambda a: jnp.linalg.eig(a)[1].real, "jacobian", point=[_A])
    with pytest.raises(DGraphError, match="the Hessian of a function of a nonsymmetric"):
        make_function(lambda a: jnp.sum(jnp.linalg.eigvals(a).real ** 2), "hessian", point=[_A])
    with pytest.raises(DGraphError, match="no C helper"):
        make_function(lambda a: jnp.linalg.eigvals(a).real, "jacobian", "c", point=[_A])
    g = from_jax(lambda a: jnp.linalg.eigvals(a).real, np.eye(3), level="array")
    check = accumulate(g, "forward").verify()
    assert check.status == "not verified" and "repeated" in check.detail, check.detail
