"""``cumsum``'s block as the running sum it is (:class:`~dgraph.blocks.cumulative.
CumsumPattern`: shape, axis, direction; its triangles counted, listed only where asked
for), and products with it printed as ``cumsum`` along the axis
(:mod:`dgraph.codegen.tensor.blockops`): the block's counts and explicit form against
``jax.jacfwd`` of ``lax.cumsum`` on 1-d, 2-d and 3-d arrays along each axis, both
directions; its products with dense blocks and with another running sum; Jacobians and
Hessians through cumsum (NumPy and JAX, dense and sparse, 1-d, 2-d along each axis,
reversed) against ``jax.jacfwd`` / ``jax.hessian``, their code without the triangle
products (no pairs, no dense triangle); a running sum made wrong on purpose (the other
way, or one entry short) refused by dgraph's own check."""

from __future__ import annotations

import functools
import math
import re

import numpy as np
import pytest

import dgraph
from dgraph.blocks import Labelled, dense, multiply, multiply_values, to_matrix
from dgraph.blocks.arrays import ArrayOp, operand_block
from dgraph.errors import VerificationError
from tests import jax_reference as jref

from .dense import dense as _dense

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

CASES = [((7,), 0), ((4, 5), 0), ((4, 5), 1), ((2, 3, 4), 1), ((2, 3, 4), 2)]


def _block(shape, axis, reverse):
    op = ArrayOp("cumsum", ("x",), (("axis", axis), ("reverse", reverse)), shape)
    x = np.random.default_rng(sum(shape) + axis).normal(size=shape)
    want = jref.jacfwd(lambda a: jax.lax.cumsum(a, axis=axis, reverse=reverse))(jnp.asarray(x))
    return operand_block(op, 0, [shape]), np.asarray(want).reshape(x.size, x.size)


def _pattern(matrix) -> np.ndarray:
    return np.asarray(matrix != 0)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize(("shape", "axis"), CASES)
def test_the_block_is_counted_not_listed(shape, axis, reverse):
    block, want = _block(shape, axis, reverse)
    size, length = math.prod(shape), shape[axis]
    assert block.stored == 1  # main: size·(length + 1)/2 entries stored
    assert block.nnz == size * (length + 1) // 2 == np.count_nonzero(want)
    assert "cols" not in vars(block)  # no index array made
    # products with dense blocks either side: dense, free (ones), no triangle listed
    for lead in ((), (3,)):
        cost, found = multiply(dense(lead, shape), block)
        assert (cost, found.nnz) == (0, math.prod(lead) * size)
        cost, found = multiply(block, dense(shape, lead))
        assert (cost, found.nnz) == (0, math.prod(lead) * size)
    assert "cols" not in vars(block)
    # the explicit form where asked for: the pattern, its transpose, the dense matrix
    np.testing.assert_array_equal(to_matrix(block).toarray(), want)
    np.testing.assert_array_equal(block.dense(), want)
    np.testing.assert_array_equal(block.transposed().dense(), want.T)
    # two running sums along the axis: the pattern and values of the explicit product
    for other in (block, block.transposed()):
        cost, found = multiply(block, other)
        explicit = want @ other.dense()
        np.testing.assert_array_equal(_pattern(to_matrix(found).toarray()), _pattern(explicit))
        assert cost == 0 and isinstance(found, Labelled) == (other is not block)
        ones = (np.ones(block.nnz), np.ones(other.nnz))
        product = multiply_values(block, other, *ones)
        np.testing.assert_array_equal(to_matrix(*product).toarray(), explicit)


def _cumsum_energy(x):
    return jnp.sum(jnp.exp(0.1 * jnp.cumsum(x))) + jnp.sum(jnp.sin(x))


def _two_axes(x):  # along axis 1 both ways, and along axis 0
    c = jnp.cumsum(x, axis=1)
    r = jax.lax.cumsum(x, axis=1, reverse=True)
    return jnp.sum(jnp.tanh(c) * r) + jnp.sum(jnp.exp(0.05 * jnp.cumsum(x, axis=0) ** 2))


def _profile(x):  # the survey's cumsum_profile (benchmarks/real_programs7.py)
    c = np.cumsum(np.exp(x))
    p = c / c[-1]
    t = np.linspace(0, 1, x.size)
    return np.sum((p - t) ** 2) + np.sum(np.diff(p, n=2) ** 2) - 1e-3 * np.sum(np.log(np.diff(c)))


def _profile_jax(x):
    c = jnp.cumsum(jnp.exp(x))
    p = c / c[-1]
    t = jnp.linspace(0, 1, x.size)
    return (
        jnp.sum((p - t) ** 2)
        + jnp.sum(jnp.diff(p, n=2) ** 2)
        - 1e-3 * jnp.sum(jnp.log(jnp.diff(c)))
    )


def _numpy_axes(x):
    return np.sum(np.cumsum(x, axis=1) ** 3) + np.sum(np.sin(np.cumsum(x, axis=0)))


def _numpy_axes_jax(x):
    return jnp.sum(jnp.cumsum(x, axis=1) ** 3) + jnp.sum(jnp.sin(jnp.cumsum(x, axis=0)))


def _flipped(x):
    return np.sum(np.log1p(np.flip(np.cumsum(np.flip(x))) ** 2)) + np.sum(np.cos(np.cumsum(x)))


def _flipped_jax(x):
    r = jnp.flip(jnp.cumsum(jnp.flip(x)))
    return jnp.sum(jnp.log1p(r**2)) + jnp.sum(jnp.cos(jnp.cumsum(x)))


HESSIANS = {  # f, its JAX twin, shape, index entries per Hessian entry at most (main: 3.3-69)
    "jax 1-d": (_cumsum_energy, _cumsum_energy, (60,), 4),
    "jax 2-d along axis 1 both ways, and axis 0": (_two_axes, _two_axes, (3, 24), 4),
    "numpy profile": (_profile, _profile_jax, (60,), 12),
    "numpy 2-d each axis": (_numpy_axes, _numpy_axes_jax, (3, 24), 2),
    "numpy flip-cumsum-flip": (_flipped, _flipped_jax, (60,), 6),
}


def _index_entries(text: str) -> int:
    """The entries of the integer arrays the generated NumPy module holds (its pairs'
    indices and patterns)."""
    found = re.findall(r"_array\('[^']*', numpy\.int\d+, \((\d+),\)", text)
    return sum(int(size) for size in found)


# each function once, dense or sparse: every pair of frontend (NumPy, JAX) and storage
# met, and of storage and 1-d or 2-d (the gradient's text, asserted on, is one program
# for both storages)
SPARSE_HESSIANS = {"jax 2-d along axis 1 both ways, and axis 0", "numpy profile"}
HESSIAN_RUNS = [(name, name in SPARSE_HESSIANS) for name in HESSIANS]


@pytest.mark.parametrize(("name", "sparse"), HESSIAN_RUNS)
def test_hessians_through_cumsum_against_jax(name, sparse):
    f, ref, shape, most = HESSIANS[name]
    x = np.random.default_rng(2).uniform(-0.5, 0.5, shape)
    H = dgraph.make_function(f, "hessian", "python", point=[x], sparse=sparse)
    want = np.asarray(jref.hessian(ref)(jnp.asarray(x))).reshape(x.size, x.size)
    got = _dense(H(x)).reshape(want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    text = H.gradient.generated.text
    # main: the triangles multiplied pair by pair, ~n³/3 pairs' indices for n unknowns
    assert _index_entries(text) <= most * x.size**2
    assert "numpy.cumsum(" in text and "einsum('ik,kj->ij'" not in text


@pytest.mark.parametrize("lang", ["jax", "c"])
def test_running_sums_in_jax_and_c(lang):
    """The JAX and C printers write the same running sums (JAX's ``cumsum``, C's loop
    along the axis), not the pairs (JAX's segment sums; C's scatter of pair products)."""
    x = np.random.default_rng(4).uniform(-0.5, 0.5, 60)
    H = dgraph.make_function(_cumsum_energy, "hessian", lang, point=[x], sparse=True)
    want = np.asarray(jref.hessian(_cumsum_energy)(jnp.asarray(x)))
    got = _dense(H(jnp.asarray(x) if lang == "jax" else x))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    text = H.gradient.generated.text
    if lang == "jax":
        assert "segment_sum" not in text and "cumsum" in text
    else:  # the forward cumsum's loop and the derivative's: main one
        assert text.count("for (long j = 1; j < 60L; j++)") >= 2


def _stored(f, x) -> list[int]:
    from dgraph.methods.registry import traced_function

    graph = traced_function(f, point=[x])
    return [
        graph.block(u, v).stored
        for u, v in graph.edges()
        if getattr(graph.op(v), "primitive", None) == "cumsum"
    ]


JACOBIANS = {  # f, its JAX twin, shape
    "numpy sin 1-d": (lambda x: np.cumsum(np.sin(x)), lambda x: jnp.cumsum(jnp.sin(x)), (50,)),
    "numpy squares axis 0": (
        lambda x: np.cumsum(x**2, axis=0),
        lambda x: jnp.cumsum(x**2, axis=0),
        (30, 40),
    ),
    "numpy squares axis 1": (
        lambda x: np.cumsum(x**2, axis=1),
        lambda x: jnp.cumsum(x**2, axis=1),
        (30, 40),
    ),
    "numpy flip-cumsum-flip axis 1": (
        lambda x: np.flip(np.cumsum(np.flip(np.sin(x), 1), axis=1), 1),
        lambda x: jnp.flip(jnp.cumsum(jnp.flip(jnp.sin(x), 1), axis=1), 1),
        (30, 40),
    ),
}


@pytest.mark.parametrize(  # each storage on 1-d and on 2-d arrays; each axis
    ("name", "sparse"),
    [(name, k % 2 == 1) for k, name in enumerate(JACOBIANS)] + [("numpy sin 1-d", True)],
)
def test_jacobians_through_cumsum_against_jax(name, sparse):
    f, ref, shape = JACOBIANS[name]
    x = np.random.default_rng(5).normal(size=shape)
    assert _stored(f, x) == [1]  # main: n(n+1)/2 per lane
    J = dgraph.make_function(f, "jacobian", point=[x], sparse=sparse)
    want = np.asarray(jref.jacfwd(ref)(jnp.asarray(x))).reshape(x.size, x.size)
    np.testing.assert_allclose(_dense(J(x)).reshape(want.shape), want, rtol=1e-13, atol=1e-13)


def _wrong_way(emit, x, axis, forward, running_sum):
    return running_sum(emit, x, axis, not forward)


def _one_short(emit, x, axis, forward, running_sum):  # each entry without its own term
    from dgraph.codegen.ir import BinOp

    return emit(BinOp("-", running_sum(emit, x, axis, forward), emit(x)))


@pytest.mark.parametrize("mutation", [_wrong_way, _one_short])
def test_a_wrong_running_sum_is_refused(mutation, monkeypatch):
    """The running sum printed the wrong way, or one entry short, is caught by dgraph's
    own check of the generated code (never handed out as a Hessian)."""
    from dgraph.codegen.tensor import blockops

    right = blockops.running_sum
    monkeypatch.setattr(blockops, "running_sum", lambda *a: mutation(*a, running_sum=right))
    x = np.random.default_rng(6).uniform(-0.5, 0.5, 12)
    with pytest.raises(VerificationError):
        dgraph.make_function(_cumsum_energy, "hessian", "python", point=[x])


def test_no_dense_triangle_where_dense_products_pay(monkeypatch):
    """With the dense products' threshold lowered to 10³ pairs (main then multiplies the
    triangles by ``einsum('ik,kj->ij')`` with a 40 × 40 triangle of ones, the test of
    tests/test_dense_products.py before this change), the cumsum energy's Hessian is
    running sums: no such einsum; its values JAX's."""
    import dgraph.blocks as blocks

    monkeypatch.setattr(blocks, "DENSE_PAIRS_FROM", 1000)
    x = np.random.default_rng(3).uniform(-1, 1, 40)
    H = dgraph.make_function(_cumsum_energy, "hessian", "python", point=[x], sparse=True)
    text = H.gradient.generated.text
    assert "einsum('ik,kj->ij'" not in text and "numpy.cumsum(" in text
    want = np.asarray(jref.hessian(_cumsum_energy)(jnp.asarray(x)))
    np.testing.assert_allclose(H(x).toarray(), want, rtol=1e-12, atol=1e-12 * np.abs(want).max())


def test_a_triangle_too_large_to_list_is_refused_before_it_is_made():
    """A trapezoidal cost of np.cumsum's path (benchmarks/real_programs14.py's
    trapezoid_collocation) at 20,000 unknowns: its Hessian's products list cumsum's
    triangle (2·10⁸ entries) where no rule keeps them compact; each method is dropped
    before the list is made (main: killed at 23.6 GB), one line naming the sizes. At 40
    unknowns the same program's dense Hessian equals JAX's."""
    from dgraph.blocks.cumulative import EXPLICIT_LIMIT
    from dgraph.errors import DGraphError

    program = _trapezoid_cost
    n = 20_000
    with pytest.raises(DGraphError) as e:
        dgraph.hessian(program(n), np.full(n, 0.3), sparse=True)
    line = str(e.value)
    assert "\n" not in line and f"over {EXPLICIT_LIMIT:,}" in line
    assert "cumsum along axis 0 of shape (20000,)" in line and "200,010,000" in line
    x = np.linspace(-0.5, 0.5, 40)
    H = dgraph.hessian(program(40), x, sparse=True)
    ref = np.asarray(jref.hessian(program(40, jnp))(jnp.asarray(x)))
    np.testing.assert_allclose(H(x).toarray(), ref, rtol=1e-11, atol=1e-11 * abs(ref).max())


def _trapezoid_cost(n, xp=np):
    h = 2.0 / (n - 1)

    def f(u):
        x = 1.0 + h * xp.cumsum(u - xp.sin(xp.arange(n) * h))
        running = x**2 + 0.5 * u**2 + 0.1 * x**4
        return xp.sum(running[1:] + running[:-1]) * h / 2 + 10.0 * (x[-1] - 0.5) ** 2

    return f


@pytest.mark.parametrize("lang", ["python", "c"])
def test_an_hvp_whose_hessian_cannot_be_priced(lang, monkeypatch):
    """An hvp never forms the Hessian, but its check accumulated forward mode's
    expression set, which does: the trapezoidal cost's hvp at 8,000 unknowns was refused
    ("a sum of two blocks (8000,) x (8000,) … 32,004,000 entries"). Now the sweep is
    checked against the graph's own tangent sweep, and that against JAX's jvp. Here the
    triangle's limit is lowered to 1,000 entries so that 60 unknowns refuse as 8,000 did;
    H·t equals JAX's, the check says what it compared, and the expression set refuses
    when read, as it did."""
    from dgraph.blocks import cumulative
    from dgraph.errors import SearchTooLarge

    monkeypatch.setattr(cumulative, "EXPLICIT_LIMIT", 1000)
    n = 60
    x, t = np.linspace(-0.5, 0.5, n), np.cos(np.arange(n))
    hvp = dgraph.make_function(_trapezoid_cost(n), "hvp", lang, point=[x])
    want = np.asarray(jref.hessian(_trapezoid_cost(n, jnp))(jnp.asarray(x))) @ t
    np.testing.assert_allclose(hvp(x, t), want, rtol=1e-11, atol=1e-11 * abs(want).max())
    generated = hvp.generated
    assert generated.verified and "against the graph's tangent sweep" in generated.check.detail
    with pytest.raises(SearchTooLarge):
        generated.expression_set  # noqa: B018


def test_a_wrong_running_sum_in_an_unpriced_hvp_is_refused(monkeypatch):
    """The same hvp with its running sum printed one entry short: the graph's tangent
    sweep it is checked against catches it (never handed out)."""
    from dgraph.blocks import cumulative
    from dgraph.codegen.tensor import blockops

    monkeypatch.setattr(cumulative, "EXPLICIT_LIMIT", 1000)
    right = blockops.running_sum
    monkeypatch.setattr(blockops, "running_sum", lambda *a: _one_short(*a, running_sum=right))
    x = np.linspace(-0.5, 0.5, 60)
    with pytest.raises(VerificationError):
        dgraph.make_function(_trapezoid_cost(60), "hvp", "python", point=[x])


def _curly(x):  # CUTEst's CURLY10 shape, window k = 3: q_i = cs[min(i + 4, n)] - cs[i]
    n = x.shape[0]
    cs = jnp.cumsum(jnp.concatenate([jnp.zeros(1), x]))
    q = cs[jnp.minimum(jnp.arange(n) + 4, n)] - cs[:n]
    return jnp.sum((q**2 - 20.0) * q**2 - 0.1 * q)


def _slices(x, xp=np):  # shifted slices both ways round (negative windows)
    cs = xp.cumsum(x)
    return xp.sum(xp.sin(cs[3:] - cs[:-3]) ** 2) + xp.sum((cs[:-5] - cs[5:]) ** 4)


def _reversed_rows(x):  # along axis 1 of a 2-d array, the running sum from the end
    r = jax.lax.cumsum(x, axis=1, reverse=True)
    return jnp.sum(jnp.exp(0.1 * (r[:, :-4] - r[:, 4:])) ** 2)


WINDOWS = {  # f, its JAX twin, shape (main: the Hessians dense, 2,500 / 2,500 / 9,800)
    "jax CURLY gathers": (_curly, _curly, (50,)),
    "numpy slices both ways": (_slices, functools.partial(_slices, xp=jnp), (50,)),
    "jax 2-d reversed along axis 1": (_reversed_rows, _reversed_rows, (2, 70)),
}


@pytest.mark.parametrize("name", list(WINDOWS))
def test_window_sums_by_cumsum_differences_are_exact(name):
    """``cs[a] - cs[b]`` of one running sum is read as the window sum it is
    (:mod:`dgraph.frontends.jaxpr_prefix_sums`): the sparse Hessian holds exactly the
    entries ``jax.hessian`` finds nonzero (its rounding, ~1e-16 of the largest, aside),
    with JAX's values."""
    f, ref, shape = WINDOWS[name]
    x = np.random.default_rng(6).uniform(0.2, 1.0, shape)
    H = dgraph.hessian(f, x, sparse=True)(x)
    want = np.asarray(jref.hessian(ref)(jnp.asarray(x))).reshape(x.size, x.size)
    np.testing.assert_allclose(H.toarray(), want, rtol=1e-10, atol=1e-12 * np.abs(want).max())
    assert H.nnz == np.count_nonzero(np.abs(want) > 1e-9 * np.abs(want).max())


@pytest.mark.parametrize("xp", [jnp, np], ids=["jax", "numpy"])
def test_a_window_sums_jacobian_lists_no_triangle(xp, monkeypatch):
    """The Jacobian of CURLY's window sums, read by JAX and by the array tracer, with the
    triangles' limit lowered to 1,000 entries so that n = 300 refuses as n = 10⁴ did
    (main: refused; 2,000 builds in 0.7 CPU-s, 200,000 in 1.5): 4n - 6 entries, its
    product with a vector JAX's jvp."""
    from dgraph.blocks import cumulative

    monkeypatch.setattr(cumulative, "EXPLICIT_LIMIT", 1000)
    n = 300
    upper = np.minimum(np.arange(n) + 4, n)

    def q(x, xp=xp):
        cs = xp.cumsum(xp.concatenate([xp.zeros(1), x]))
        return cs[upper] - cs[:n]

    x, t = np.linspace(0.1, 1.0, n), np.cos(np.arange(n))
    J = dgraph.make_function(q, "jacobian", point=[x], sparse=True)(x)
    assert J.nnz == 4 * n - 6
    _, want = jax.jvp(functools.partial(q, xp=jnp), (jnp.asarray(x),), (jnp.asarray(t),))
    np.testing.assert_allclose(J @ t, np.asarray(want), rtol=1e-12, atol=1e-12)
