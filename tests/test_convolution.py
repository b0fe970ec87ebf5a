"""``conv_general_dilated`` at the array level (issue 54): each operand's block has exactly
the entries JAX's Jacobian has (one per product the convolution reads), counted without
forming them, a constant kernel's zeros left out; the generated Jacobian in NumPy, JAX, C
and CUDA (host threads) and the element-level graph equal ``jax.jacfwd``; ``jvp`` and
``vjp`` are convolutions (no index array of one entry per product) equal to ``jax.jvp`` and
``jax.vjp``, a layer after a layer too. The rules themselves, block by block, are in
tests/test_rules_vs_jax.py (its ``conv_general_dilated`` cases)."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.blocks import (  # noqa: E402
    CONSTANT,
    Sparse,
    _sparse_product,
    diagonal,
    multiply,
    to_matrix,
)
from dgraph.blocks.convolution import ConvPattern, ConvValues, KronPattern  # noqa: E402
from dgraph.codegen.c import compiler  # noqa: E402
from dgraph.codegen.cuda import cxx_compiler  # noqa: E402
from dgraph.codegen.python import load_python  # noqa: E402
from dgraph.codegen.tensor.sweeps import sweep_module  # noqa: E402
from dgraph.core.block_values import edge_values, vertex_values  # noqa: E402
from dgraph.core.expand import expand  # noqa: E402
from dgraph.frontends import from_jax  # noqa: E402
from tests.convolution_cases import CONVOLUTIONS, conv  # noqa: E402


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


def _point(name: str, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    sx, sw, _ = CONVOLUTIONS[name]
    return rng.uniform(0.5, 1.5, sx), rng.uniform(-1.5, -0.5, sw)


def _reference(f, x, w) -> np.ndarray:
    """JAX's Jacobian with respect to both operands, side by side: one ``jax.jvp`` per
    column, eager (each primitive compiled once per shape, not a vmapped program)."""
    args = (x, w)
    columns = []
    for i, a in enumerate(args):
        for j in range(a.size):
            tangents = [np.zeros(b.shape) for b in args]
            tangents[i] = np.eye(a.size)[j].reshape(a.shape)
            columns.append(np.ravel(jax.jvp(f, args, tuple(tangents))[1]))
    return np.stack(columns, axis=1)


def _dense(got, rows: int) -> np.ndarray:
    """A generated Jacobian (a block or a tuple of blocks, dense or sparse) as one matrix."""
    parts = got if isinstance(got, tuple) else (got,)
    out = []
    for p in parts:
        p = p.toarray() if hasattr(p, "toarray") else p.todense() if hasattr(p, "todense") else p
        out.append(np.asarray(p).reshape(rows, -1))
    return np.hstack(out)


@pytest.mark.parametrize("name", sorted(CONVOLUTIONS))
def test_each_block_has_exactly_the_entries_of_jax_jacobian(name):
    x, w = _point(name)
    f = conv(**CONVOLUTIONS[name][2])
    g = from_jax(f, x, w, level="array")
    (y,) = g.outputs
    ref = _reference(f, x, w)
    at = 0
    for operand in g.inputs:
        block = g.block(operand, y)
        assert isinstance(block, ConvPattern) and "cols" not in block.__dict__  # nothing made
        size = g.shape(operand)
        part = ref[:, at : at + int(np.prod(size))]
        at += int(np.prod(size))
        assert isinstance(block, Sparse)
        assert block.nnz == np.count_nonzero(part)  # random values: no entry is 0 by chance
        rows, cols = np.nonzero(part)
        width = part.shape[1]
        np.testing.assert_array_equal(block.rows * width + block.cols, rows * width + cols)
        kron = block.kron()  # the same pattern as a Kronecker product over axis groups
        assert kron.nnz == block.nnz
        np.testing.assert_array_equal(kron.rows * width + kron.cols, rows * width + cols)


def test_a_constant_kernel_leaves_its_zeros_out():
    """``x ⊛ [1, 0, -1]`` ("valid"): two entries per output, constant values."""
    x = np.linspace(0.5, 1.5, 7)
    kernel = jnp.array([1.0, 0.0, -1.0])
    g = from_jax(lambda x: jnp.convolve(x, kernel, mode="valid"), x, level="array")
    blocks = [g.block(u, v) for u, v in g.nx.edges if g.block(u, v).in_shape == (1, 1, 7)]
    (block,) = blocks
    assert block.nnz == 2 * 5 and block.kind == CONSTANT


def _both_layouts(x, w):
    """The grouped, strided, dilated 2-D convolution in NCHW/OIHW plus the same one in
    NHWC/HWIO on the transposed operands, inside a nonlinear function."""
    keywords = dict(CONVOLUTIONS["2-d-nchw-groups"][2])
    nchw = conv(**keywords)(x, w)
    keywords["dimension_numbers"] = ("NHWC", "HWIO", "NHWC")
    nhwc = conv(**keywords)(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0))
    return jnp.tanh(nchw) * nhwc.transpose(0, 3, 1, 2)


def _one_d(x, w):
    return jnp.sin(conv(**CONVOLUTIONS["1-d-ncw"][2])(x * x, w))


@pytest.mark.parametrize(
    "name, f, lang, sparse",
    [
        ("2-d-nchw-groups", _both_layouts, "jax", False),
        (
            "1-d-ncw",
            lambda x, w: jnp.sin(conv(**CONVOLUTIONS["1-d-ncw"][2])(x * x, w)),
            "jax",
            True,
        ),
        ("2-d-nchw-groups", _both_layouts, "c", True),
    ],
    ids=["jax-dense-2d", "jax-sparse-1d", "c-cuda-2d"],
)
def test_generated_code_equals_jax(name, f, lang, sparse):
    """The generated, verified Jacobian with respect to both operands (NumPy's, dense and
    sparse, for every case: tests/test_rules_vs_jax.py); C and the CUDA kernels on host
    threads where compilers are here."""
    if lang == "c" and compiler() is None:
        pytest.skip("no C compiler")
    x, w = _point(name)
    g = from_jax(f, x, w, level="array")
    ref = _reference(f, x, w)
    J = dgraph.make_function(g, "jacobian", lang=lang, sparse=sparse)
    assert J.generated.verified
    got = J.stacked(x, w).toarray() if lang == "c" else _dense(J(x, w), ref.shape[0])
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    if lang == "c" and cxx_compiler() is not None:
        cuda = J.generated.values.load_cuda_host()(x, w)
        np.testing.assert_allclose(cuda.toarray(), ref, rtol=1e-12, atol=1e-12)


def test_the_element_level_graph_equals_jax():
    x, w = _point("1-d-ncw")
    scalar = expand(from_jax(_one_d, x, w, level="array"))
    J = dgraph.make_function(scalar, "jacobian", lang="python", method="forward")
    got = np.asarray(J(np.concatenate([x.ravel(), w.ravel()])))
    ref = _reference(_one_d, x, w)
    np.testing.assert_allclose(got.reshape(ref.shape), ref, rtol=1e-12, atol=1e-12)


def test_a_product_with_a_diagonal_stays_a_convolution():
    """diag · ∂conv/∂x and ∂conv/∂x · diag: the same structured block, no pattern made."""
    x, w = _point("2-d-nchw-groups")
    g = from_jax(conv(**CONVOLUTIONS["2-d-nchw-groups"][2]), x, w, level="array")
    block = g.block(g.inputs[0], g.outputs[0])
    for upper, lower in ((diagonal(block.out_shape), block), (block, diagonal(block.in_shape))):
        cost, product = multiply(upper, lower)
        assert isinstance(product, ConvPattern) and cost == block.nnz
        assert "cols" not in product.__dict__
    assert product.rows.size == block.nnz == len(set(zip(product.rows, product.cols, strict=True)))


def _two_layers(x, w1, w2):
    """conv (NCHW → NHWC) → tanh → conv (NHWC/HWIO → NCHW, strided, padded, dilated)."""
    numbers = ("NCHW", "OIHW", "NHWC")
    h = jnp.tanh(jax.lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=numbers))
    numbers = ("NHWC", "HWIO", "NCHW")
    return jax.lax.conv_general_dilated(
        h, w2, (2, 1), ((1, 0), (0, 1)), rhs_dilation=(1, 2), dimension_numbers=numbers
    )


def test_a_convolution_after_a_convolution_is_a_product_per_axis():
    """The elimination's product of two layers' blocks (through the diagonal between):
    a KronPattern, no index array made, with the pattern, price and kind of the explicit
    sparse product, in either order."""
    rng = np.random.default_rng(4)
    args = (
        rng.normal(size=(2, 3, 6, 5)),
        rng.normal(size=(4, 3, 3, 3)),
        rng.normal(size=(2, 2, 4, 2)),
    )
    g = from_jax(_two_layers, *args, level="array")
    (h,) = (v for v in g.nx if v.startswith("conv"))
    (t,) = g.nx.successors(h)
    diag, last = g.block(h, t), g.block(t, "y")
    for source in g.inputs[:2]:
        first = g.block(source, h)
        _, inner = multiply(diag, first)
        cost, product = multiply(last, inner)
        _, outer = multiply(last, diag)
        cost_other, other = multiply(outer, first)
        assert isinstance(product, KronPattern) and "cols" not in product.__dict__
        assert product == other and cost == cost_other
        plain = [Sparse(b.out_shape, b.in_shape, b.rows, b.cols, b.kind) for b in (last, inner)]
        want_cost, want = _sparse_product(*plain)
        assert (cost, product.nnz, product.kind) == (want_cost, want.nnz, want.kind)
        np.testing.assert_array_equal(product.indptr, want.indptr)
        np.testing.assert_array_equal(product.cols, want.cols)


def _sweeps_against(g, args, want_jvp, want_vjp, tangents, bar, langs=("python",)) -> dict:
    """The generated ``jvp`` and ``vjp`` of ``g`` at ``args`` (in ``langs``) against the
    wanted ones; the longest index constant of each module."""
    largest = {}
    for lang in langs:
        for mode in ("jvp", "vjp"):
            module = load_python(sweep_module(g, mode, lang).text)
            got = module.jvp(*args, *tangents) if mode == "jvp" else module.vjp(*args, bar)
            want = [want_jvp] if mode == "jvp" else list(want_vjp)
            got = [got] if mode == "jvp" or len(args) == 1 else list(got)
            for a, b in zip(got, want, strict=True):
                np.testing.assert_allclose(np.asarray(a), b, rtol=1e-11, atol=1e-12)
            sizes = [v.size for k, v in vars(module).items() if k.startswith("_K")]
            largest[lang, mode] = max(sizes, default=0)
    return largest


def _jax_sweeps(f, args, tangents, bar):
    """``jax.jvp`` and ``jax.vjp`` of ``f``, one compiled program."""

    @jax.jit
    def both(args, tangents, bar):
        return jax.jvp(f, args, tangents)[1], jax.vjp(f, *args)[1](bar)

    jv, wj = both(tuple(args), tuple(tangents), bar)
    return np.asarray(jv), [np.asarray(b) for b in wj]


@pytest.mark.parametrize("name", sorted(CONVOLUTIONS))
def test_jvp_and_vjp_are_convolutions(name):
    """Each case (strides, padding, dilations, layouts, feature and batch groups): J·v
    and wᵀ·J equal the explicit blocks' (whose entries and values are JAX's Jacobian's:
    the test above, tests/test_rules_vs_jax.py), the JAX code for one case; no index array
    as long as a block's entries (the gathers that remain index one spatial axis)."""
    x, w = _point(name)
    f = conv(**CONVOLUTIONS[name][2])
    g = from_jax(f, x, w, level="array")
    (y,) = g.outputs
    rng = np.random.default_rng(5)
    tangents = [rng.normal(size=a.shape) for a in (x, w)]
    edges = edge_values(g, vertex_values(g, dict(zip(g.inputs, (x, w), strict=True))))
    matrices = [to_matrix(*edges[u, y]) for u in g.inputs]  # the values read per entry
    bar = rng.normal(size=g.shape(y))
    for u, m, t in zip(g.inputs, matrices, tangents, strict=True):  # applied by kernel taps
        held = edges[u, y][1]
        assert isinstance(held, ConvValues) and held.other.size < m.nnz
        np.testing.assert_allclose(held.applied(t.ravel()), m @ t.ravel(), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(
            held.applied_transposed(bar.ravel()), m.T @ bar.ravel(), rtol=1e-12, atol=1e-12
        )
    want_jvp = sum(m @ t.ravel() for m, t in zip(matrices, tangents, strict=True))
    want_vjp = [(m.T @ bar.ravel()).reshape(a.shape) for m, a in zip(matrices, (x, w), strict=True)]
    langs = ("python", "jax") if name == "2-d-nchw-groups" else ("python",)  # JAX compiles
    largest = _sweeps_against(
        g, (x, w), want_jvp.reshape(g.shape(y)), want_vjp, tangents, bar, langs
    )
    block = g.block(g.inputs[0], y)
    lay = block.layout
    axis = max(  # the longest spatial axis of the dilated, padded input, one zero appended
        (s - 1) * ld + 2 + lo + hi
        for (s, _, _), ld, (lo, hi) in zip(lay.spatial, lay.lhs_dilation, lay.padding, strict=True)
    )
    assert max(largest.values()) <= axis < block.nnz


def test_a_layer_after_a_layer_and_a_constant_kernel():
    """conv → tanh → conv (strided, padded) with both kernels inputs, then a constant
    stencil (``jnp.convolve``): the tangent and the adjoint pass through both."""
    rng = np.random.default_rng(7)
    x, w1, w2 = (
        rng.normal(size=(2, 3, 6, 5)),
        rng.normal(size=(4, 3, 3, 3)),
        rng.normal(size=(2, 2, 4, 2)),
    )

    def f(x, w1, w2):
        return jnp.convolve(jnp.ravel(_two_layers(x, w1, w2)), jnp.array([1.0, -2.0, 1.0]))

    args = (x, w1, w2)
    tangents = [rng.normal(size=a.shape) for a in args]
    bar = rng.normal(size=f(*args).shape)
    jv, wj = _jax_sweeps(f, args, tangents, bar)
    g = from_jax(f, *args, level="array")
    _sweeps_against(g, args, jv, wj, tangents, bar)


def test_make_function_checks_a_convolution_sweep():
    """The checked path (``make_function``): both sweeps verified, equal to JAX's."""
    x, w = _point("2-d-nhwc-same")
    f = conv(**CONVOLUTIONS["2-d-nhwc-same"][2])
    g = from_jax(f, x, w, level="array")
    v, u = np.ones_like(x), np.ones_like(w)
    jvp = dgraph.make_function(g, "jvp", lang="python")
    vjp = dgraph.make_function(g, "vjp", lang="python")
    assert jvp.generated.verified and vjp.generated.verified
    bar = np.ones(g.shape(g.outputs[0]))
    jv, wj = _jax_sweeps(f, (x, w), (v, u), bar)
    np.testing.assert_allclose(jvp(x, w, v, u), jv, rtol=1e-12)
    for a, b in zip(vjp(x, w, bar), wj, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)
