"""``cholesky``, ``triangular_solve`` and ``linear_solve`` blocks applied by their rules
(:class:`dgraph.blocks.Applied`): a gradient's rows by the cotangent rule, a tangent's
columns by the tangent rule, never the n²×n² block: the rules against the dense block,
a GP's gradient against ``jax.grad`` with its index arrays and price counted, and a
mutated cotangent rule caught by the checks."""

from __future__ import annotations

import itertools
import re
from types import SimpleNamespace

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy
jsl = pytest.importorskip("jax.scipy.linalg")

import dgraph  # noqa: E402
from dgraph.blocks import Applied, dense, multiply  # noqa: E402
from dgraph.blocks import linalg as L  # noqa: E402
from dgraph.codegen.tensor import blockops, linalg_code  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

RNG = np.random.default_rng(22)


def _op(primitive: str, shape: tuple[int, ...], **param) -> SimpleNamespace:
    return SimpleNamespace(primitive=primitive, shape=shape, param=param)


def _cases(n: int = 5) -> list[tuple[SimpleNamespace, list[np.ndarray], int]]:
    """Each operation of :data:`~dgraph.blocks.linalg.APPLIED` with each flag, operand by
    operand: cholesky, triangular_solve (sides, triangles, transposed, unit diagonal) and
    linear_solve (columns, a vector, rows, a vector read as a row)."""
    a = RNG.normal(size=(n, n)) + 3 * np.eye(n)
    cases = [(_op("cholesky", (n, n)), [a @ a.T], 0)]
    for left, lower, transposed, unit in itertools.product((True, False), repeat=4):
        b = RNG.normal(size=(n, 3) if left else (3, n))
        flags = dict(left_side=left, lower=lower, transpose_a=transposed, unit_diagonal=unit)
        cases += [(_op("triangular_solve", b.shape, **flags), [a, b], k) for k in (0, 1)]
    for shape, rows in (((n, 2), False), ((n,), False), ((n,), True), ((2, n), True)):
        b = RNG.normal(size=shape)
        cases += [(_op("linear_solve", shape, rows=rows), [a, b], k) for k in (0, 1)]
    return cases


@pytest.mark.parametrize("case", _cases(), ids=lambda c: f"{c[0].primitive}-{c[2]}")
def test_the_rules_apply_the_dense_block(case):
    """Rows by the cotangent rule and columns by the tangent rule are the dense block's
    products (the tangent on every basis direction), and the rules by magnitudes bound
    |w|ᵀ·|J| and |J|·|v| entry by entry."""
    op, args, k = case
    values = L.values(op, k, args)
    assert isinstance(values, L.Applier)
    block = np.asarray(values).reshape(int(np.prod(op.shape)), -1)
    rows = RNG.normal(size=(3, block.shape[0]))
    columns = RNG.normal(size=(2, block.shape[1]))
    scale = np.abs(rows) @ np.abs(block)
    assert np.abs(values.applied_rows(rows) - rows @ block).max() <= 1e-13 * scale.max()
    assert np.allclose(values.applied_columns(columns), columns @ block.T, rtol=0, atol=1e-12)
    magnitudes = np.abs(values)
    assert (magnitudes.applied_rows(np.abs(rows)) >= scale * (1 - 1e-12)).all()
    bound = magnitudes.applied_columns(np.abs(columns))
    assert (bound >= np.abs(columns) @ np.abs(block).T * (1 - 1e-12)).all()


def test_the_product_is_priced_by_the_rules():
    """At n = 30 a row times cholesky's block costs the inverse and three n³ products
    (1.08·10⁵ multiplications), two columns the inverse and two tangents, not the
    810,000 entries' products plus the block's values (the tangent on n² directions,
    7.3·10⁷); two such blocks are each other's dense factors, their values counted."""
    n = 30
    op = _op("cholesky", (n, n))
    block = L.operand_block(op, 0, [(n, n)])
    assert isinstance(block, Applied)
    assert tuple(multiply(dense((), (n, n)), block)) == (4 * n**3, dense((), (n, n)))
    assert tuple(multiply(block, dense((n, n), (2,)))) == (7 * n**3, dense((n, n), (2,)))
    values = n**3 + n * n * 3 * n**3
    assert multiply(block, block).cost == n**6 + 2 * values


N = 30
_Y = RNG.normal(size=N)
_X = RNG.normal(size=2 * N)


def _nll(x):
    """A GP's negative log marginal likelihood (Matérn-3/2, benchmarks/real_programs3.py's
    ``gp_solve_triangular``)."""
    X = x.reshape(N, 2)
    d = jnp.linalg.norm(X[:, None, :] - X[None, :, :] + 1e-9, axis=-1)
    s = jnp.sqrt(3.0) * d / 0.7
    K = (1 + s) * jnp.exp(-s) + 0.1 * jnp.eye(N)
    chol = jnp.linalg.cholesky(K)
    a = jsl.solve_triangular(chol, _Y, lower=True)
    return 0.5 * a @ a + jnp.sum(jnp.log(jnp.diag(chol)))


_KEPT: dict[str, object] = {}


def _nll_gradient() -> np.ndarray:
    """``jax.grad(_nll)`` at ``_X``, jitted (one compilation, not one per eager
    operation) and kept: the tests of the GP's gradient compare with the same one."""
    if "gradient" not in _KEPT:
        with jax.enable_x64(True):
            _KEPT["gradient"] = jref.grad(_nll)(jnp.asarray(_X))
    return _KEPT["gradient"]  # type: ignore[return-value]


@pytest.fixture(scope="module")
def nll_numpy():
    """``make_function(_nll, "jacobian", point=[_X])``, the NumPy module: made once for
    the tests that read it (its text, price and values) without changing how it is made."""
    return dgraph.make_function(_nll, "jacobian", point=[_X])


def test_a_gps_gradient_applies_its_linalg_blocks(nll_numpy):
    """At 30 points the gradient equals ``jax.grad``; its module's largest index array is
    the triangle's 465 entries (on main: the sparse row times cholesky's dense block,
    418,500 pairs, three arrays of them) and no n²-direction basis (``eye(900)``) is made;
    its price is the rules' (145,395 multiplications; main priced 454,095 without the
    blocks' values)."""
    made = nll_numpy
    want = _nll_gradient()
    got = np.asarray(made(_X))
    assert np.abs(got - want).max() <= 1e-10 * np.abs(want).max()
    text = made.generated.text
    sizes = [
        int(np.prod([int(t) for t in m.group(1).split(",") if t.strip()]))
        for m in re.finditer(r"_array\('[^']*', numpy\.int\d+, \(([\d, ]+)\)", text)
    ]
    assert max(sizes) == N * (N + 1) // 2
    assert sum(sizes) < 1000
    assert f"eye({N * N})" not in text
    assert made.generated.expression_set.mults <= 6 * N**3


def _gp_vector(x):
    """The solve's vector itself (an output of N entries): jvp and vjp."""
    X = x.reshape(N, 2)
    K = jnp.exp(-jnp.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)) + 0.5 * jnp.eye(N)
    return jsl.solve_triangular(jnp.linalg.cholesky(K), _Y, lower=True)


@pytest.mark.parametrize("mode", ["jvp", "vjp"])
def test_tangents_and_cotangents_through_the_rules(mode):
    """``jvp`` applies the blocks to a column (the tangent rule), ``vjp`` to a row (the
    cotangent rule): both equal JAX's, priced 140,865 multiplications each (on main,
    through the blocks' values on the n² basis directions: 828,015 and 449,565)."""
    made = dgraph.make_function(_gp_vector, mode, point=[_X])
    v = RNG.normal(size=_X.shape if mode == "jvp" else (N,))
    with jax.enable_x64(True):
        x = jnp.asarray(_X)
        if mode == "jvp":  # jitted: one compilation, not one per eager operation
            want = np.asarray(jax.jit(lambda x, v: jax.jvp(_gp_vector, (x,), (v,))[1])(x, v))
        else:
            want = np.asarray(jax.jit(lambda x, v: jax.vjp(_gp_vector, x)[1](v)[0])(x, v))
    got = np.asarray(made(_X, v))
    assert np.abs(got - want).max() <= 1e-10 * np.abs(want).max()
    assert made.generated.sweep_mults <= 6 * N**3
    assert f"eye({N * N})" not in made.generated.text


def _no_half(op, k, args, bar, result, xp=L.NumPyOps, rule=L.cotangent):
    """cholesky's cotangent with φ's diagonal not halved (a wrong rule)."""
    if op.primitive != "cholesky":
        return rule(op, k, args, bar, result, xp)
    li = xp.inv(result)
    return xp.matmul(xp.matmul(xp.swap(li), xp.tril(xp.matmul(xp.swap(result), bar))), li)


@pytest.mark.parametrize("where", ["values", "code", "both"])
def test_a_mutated_cotangent_is_caught(monkeypatch, where):
    """The rule wrong in the values (the expression set's check against JAX), in the code
    (the code's check against the expression set), or in both (JAX): refused."""
    if where in ("values", "both"):
        monkeypatch.setattr(L, "cotangent", _no_half)
    if where in ("code", "both"):
        monkeypatch.setattr(blockops, "cotangent", _no_half)
    with pytest.raises(DGraphError, match=r"did not verify|check FAILED"):
        dgraph.make_function(_nll, "jacobian", point=[_X])


def _counting_inverses(monkeypatch) -> list[int]:
    """Every n×n inverse the values compute (NumPy's, the check's magnitudes included)."""
    calls = [0]
    plain = L.NumPyOps.inv

    def counted(a):
        calls[0] += 1
        return plain(a)

    monkeypatch.setattr(L.NumPyOps, "inv", staticmethod(counted))
    return calls


def test_the_jax_module_solves_triangles_and_numpys_inverts(nll_numpy):
    """The GP's gradient at 30 points: the JAX module applies L⁻¹ and L⁻ᵀ by
    ``jax.scipy.linalg.solve_triangular`` (4 calls; main printed ``jnp.linalg.inv``,
    two of them), the NumPy module keeps its two inverses (faster there); both equal
    ``jax.grad``."""
    want = _nll_gradient()
    with jax.enable_x64(True):
        made = dgraph.make_function(_nll, "jacobian", point=[_X], lang="jax")
        assert made.source.count("jax.scipy.linalg.solve_triangular(") == 4
        assert "linalg.inv(" not in made.source
        assert "import jax.scipy.linalg" in made.source
        got = np.asarray(jax.jit(made)(jnp.asarray(_X)))
    assert np.abs(got - want).max() <= 1e-10 * np.abs(want).max()
    made = nll_numpy
    assert made.source.count("numpy.linalg.inv(") == 2
    assert "solve_triangular" not in made.source
    assert np.abs(np.asarray(made(_X)) - want).max() <= 1e-10 * np.abs(want).max()


def test_the_checks_keep_one_inverse_per_block(monkeypatch):
    """The GP's gradient and sparse Hessian at 30 points: the value checks apply each
    linalg block to rows and columns through one kept inverse (and one of its
    magnitudes): the gradient computes 6 inverses (main 12), the Hessian 24 (main 600,
    one per row applied); both equal JAX's."""
    calls = _counting_inverses(monkeypatch)
    made = dgraph.make_function(_nll, "jacobian", point=[_X])
    assert calls[0] <= 8, calls
    calls[0] = 0
    hess = dgraph.hessian(_nll, _X, sparse=True)
    assert calls[0] <= 40, calls
    with jax.enable_x64(True):
        want = np.asarray(jref.hessian(_nll)(jnp.asarray(_X)))
    got = hess(_X)
    got = got.toarray() if hasattr(got, "toarray") else np.asarray(got)
    assert np.abs(got - want).max() <= 1e-9 * np.abs(want).max()
    assert made is not None


def _spectral_cases(n: int = 5) -> list[tuple[SimpleNamespace, list[np.ndarray]]]:
    """``det`` and ``logabsdet`` of a general matrix, ``eigh``'s values and vectors of a
    symmetric one (distinct eigenvalues)."""
    a = RNG.normal(size=(n, n)) + 2 * np.eye(n)
    s = a + a.T
    return [
        (_op("det", ()), [a]),
        (_op("logabsdet", ()), [a]),
        (_op("eigh_values", (n,)), [s]),
        (_op("eigh_vectors", (n, n)), [s]),
    ]


def _jax_block(op, a: np.ndarray) -> np.ndarray:
    """JAX's Jacobian of the operation at ``a`` (flat result × flat operand), the
    eigenvectors' columns signed as NumPy's; eigh's along symmetric directions only
    (``jnp.linalg.eigh`` symmetrizes its input). Jitted (one compilation, not one per
    eager operation) and kept per operation and matrix: the tests of one case with one
    row and with several compare with the same one."""
    key = (op.primitive, op.shape, a.tobytes())
    if key not in _KEPT:
        _KEPT[key] = _jax_block_made(op, a)  # type: ignore[index]
    return _KEPT[key]  # type: ignore[index,return-value]


def _jax_block_made(op, a: np.ndarray) -> np.ndarray:
    n = a.shape[0]
    f = {
        "det": jnp.linalg.det,
        "logabsdet": lambda m: jnp.linalg.slogdet(m)[1],
        "eigh_values": lambda m: jnp.linalg.eigh(m)[0],
        "eigh_vectors": lambda m: jnp.linalg.eigh(m)[1],
    }[op.primitive]
    with jax.enable_x64(True):
        block = np.asarray(jref.jacobian(f)(jnp.asarray(a)))
        if op.primitive == "eigh_vectors":
            signs = np.sign(np.sum(np.linalg.eigh(a)[1] * np.asarray(f(jnp.asarray(a))), axis=0))
            block = block * signs[None, :, None, None]
    return block.reshape(int(np.prod(op.shape)), n * n)


@pytest.mark.parametrize("rows", [1, 3])
@pytest.mark.parametrize("case", _spectral_cases(), ids=lambda c: c[0].primitive)
def test_det_and_eigh_rules_apply_the_dense_block(case, rows):
    """det, logabsdet and eigh's blocks are Applied (main: dense n²-direction blocks):
    one or several rows by the cotangent rule and columns by the tangent rule equal the
    products with the dense block (the tangent on every basis direction), which equals
    JAX's Jacobian (eigh's on symmetric directions); the rules by magnitudes bound
    |w|ᵀ·|J| and |J|·|v|."""
    op, args = case
    n = args[0].shape[0]
    assert isinstance(L.operand_block(op, 0, [(n, n)]), Applied)
    values = L.values(op, 0, args)
    assert isinstance(values, L.Applier)
    basis = np.eye(n * n).reshape(n * n, n, n)
    block = np.moveaxis(L.tangent(op, 0, args, basis, values.result), 0, -1)
    block = block.reshape(-1, n * n)
    want = _jax_block(op, args[0])
    sym = (np.eye(n * n) + np.eye(n * n).reshape(n, n, n, n).swapaxes(2, 3).reshape(n * n, -1)) / 2
    read = block @ sym if op.primitive.startswith("eigh") else block
    assert np.abs(read - want).max() <= 1e-10 * np.abs(want).max()
    assert (
        np.abs(np.asarray(values).reshape(block.shape) - block).max() <= 1e-12 * np.abs(block).max()
    )
    w = RNG.normal(size=(rows, block.shape[0]))
    v = RNG.normal(size=(rows, block.shape[1]))
    scale = np.abs(w) @ np.abs(block)
    assert np.abs(values.applied_rows(w) - w @ block).max() <= 1e-12 * scale.max()
    assert np.abs(values.applied_columns(v) - v @ block.T).max() <= 1e-12 * np.abs(block).max() * n
    magnitudes = np.abs(values)
    assert (magnitudes.applied_rows(np.abs(w)) >= scale * (1 - 1e-12)).all()
    bound = magnitudes.applied_columns(np.abs(v))
    assert (bound >= np.abs(v) @ np.abs(block).T * (1 - 1e-12)).all()


M = 12
_A = RNG.normal(size=M * M)


def _spd(x):
    a = x.reshape(M, M)
    return a @ a.T + M * jnp.eye(M)


_PROGRAMS = {
    "det": lambda x: jnp.linalg.det(x.reshape(M, M) / M + jnp.eye(M)),
    "slogdet": lambda x: jnp.linalg.slogdet(x.reshape(M, M) + M * jnp.eye(M))[1],
    "eigh": lambda x: (
        jnp.sum(jnp.linalg.eigh(_spd(x))[0] * jnp.arange(M))
        + jnp.sum(jnp.linalg.eigh(_spd(x))[1] ** 4)
    ),
}


@pytest.mark.parametrize("which", sorted(_PROGRAMS))
def test_gradients_through_det_slogdet_eigh(which):
    """At 12×12 the gradients equal ``jax.grad``, their modules make no n²-direction
    basis (``eye(144)``, main: det, slogdet, eigh) and are priced within 8·n³
    multiplications, eigh's two decompositions 12·n³ (main: slogdet 21,312 = n³ + n⁴
    unpriced values; eigh's n⁵ values). (``jnp.linalg.inv`` is a ``linear_solve`` of the
    identity, Applied already.)"""
    f = _PROGRAMS[which]
    made = dgraph.make_function(f, "jacobian", point=[_A])
    with jax.enable_x64(True):
        want = np.asarray(jref.grad(f)(jnp.asarray(_A)))
    got = np.asarray(made(_A))
    assert np.abs(got - want).max() <= 1e-10 * np.abs(want).max()
    assert f"eye({M * M})" not in made.generated.text
    assert made.generated.mults <= (12 if which == "eigh" else 8) * M**3


def _det_untransposed(op, k, args, bar, result, xp=L.NumPyOps, rule=L.cotangent):
    """logabsdet's cotangent with A⁻¹ where A⁻ᵀ belongs (a wrong rule)."""
    if op.primitive != "logabsdet":
        return rule(op, k, args, bar, result, xp)
    return xp.scale(xp.column(xp.column(bar)), xp.inv(args[0]))


def _eigh_unscaled(op, k, args, bar, result, xp=L.NumPyOps, rule=L.cotangent):
    """eigh_vectors' cotangent with F's transpose (a sign flipped: a wrong rule)."""
    if op.primitive != "eigh_vectors":
        return rule(op, k, args, bar, result, xp)
    w, v = (xp.part(xp.eigh(args[0]), i) for i in (0, 1))
    f = xp.swap(L._gaps(w, op.shape[0], xp))
    return xp.matmul(xp.matmul(v, xp.scale(f, xp.matmul(xp.swap(v), bar))), xp.swap(v))


@pytest.mark.parametrize("which", ["slogdet", "eigh"])
@pytest.mark.parametrize("where", ["values", "code"])
def test_a_mutated_det_or_eigh_cotangent_is_caught(monkeypatch, which, where):
    """logabsdet's or eigh_vectors' cotangent wrong in the values (checked against JAX)
    or in the code (checked against the values): refused."""
    wrong = _det_untransposed if which == "slogdet" else _eigh_unscaled
    for module in [L] if where == "values" else [blockops, linalg_code]:
        monkeypatch.setattr(module, "cotangent", wrong)
    with pytest.raises(DGraphError, match=r"did not verify|check FAILED"):
        dgraph.make_function(_PROGRAMS[which], "jacobian", point=[_A])


def _triangle_selection(n: int) -> object:
    """The block of ``where(tril mask, L, 0)`` in L: one entry on each row of the lower
    triangle (n(n+1)/2 of the n² rows)."""
    from dgraph.blocks import GENERAL, sparse

    flat = np.flatnonzero(np.tril(np.ones((n, n))).ravel())
    return sparse((n, n), (n, n), flat, flat, GENERAL)


def test_a_triangles_rows_of_a_dense_block_stay_dense(monkeypatch):
    """The GP's sparse Hessian meets a triangle's selection times cholesky's block (and
    times the dense products made of it). At 40×40 (820 of 1,600 rows) the product is a
    dense block, priced by the rows' rule or by its pairs (820·1,600), and no pattern of
    the dense factor is formed; main held it as a 1,312,000-entry pattern made from the
    2,560,000 entries of the dense factor's (at 120 points: 10⁸ entries, over 13 GB, the
    Hessian's HANG)."""
    from dgraph import blocks as B

    n = 40
    formed = []
    plain = B.as_sparse
    monkeypatch.setattr(B, "as_sparse", lambda b: formed.append(b.nnz) or plain(b))
    select = _triangle_selection(n)
    cholesky = L.operand_block(_op("cholesky", (n, n)), 0, [(n, n)])
    rule = n**3 + n * n * 3 * n**3  # the inverse, then a row of n² each
    for lower, price in ((cholesky, rule), (dense((n, n), (n, n)), 820 * n * n)):
        cost, product = multiply(select, lower)
        assert product == dense((n, n), (n, n)) and not isinstance(product, Applied)
        assert cost == price
    assert max(formed, default=0) < n * n, formed


@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_a_determinants_sparse_hessian_runs_and_equals_jaxs(scale):
    """The sparse Hessian of ``scale·det(X/4 + I)``, X 4×4: its NumPy module runs and
    equals ``jax.hessian`` (main: the LU's pivots, each an ``argmax``, were shaped as
    vectors, so their parity was, and ``numpy.add(t, K, out=t)`` on that NumPy scalar
    raised a TypeError from the generated module)."""

    def f(x):
        return scale * jnp.linalg.det(x.reshape(4, 4) / 4 + jnp.eye(4))

    x = np.random.default_rng(8).normal(size=16)
    hess = dgraph.hessian(f, x, sparse=True)
    with jax.enable_x64(True):
        want = np.asarray(jref.hessian(f)(jnp.asarray(x)))
    got = hess(x)
    got = got.toarray() if hasattr(got, "toarray") else np.asarray(got)
    assert np.abs(got - want).max() <= 1e-10 * np.abs(want).max()
