"""``conv_general_dilated`` at the array level (issue 54): each operand's block has exactly
the entries JAX's Jacobian has (one per product the convolution reads), a constant
kernel's zeros left out; the generated Jacobian in NumPy, JAX, C and CUDA (host threads)
and the element-level graph equal ``jax.jacfwd``. The rules themselves, block by block,
are in tests/test_rules_vs_jax.py (its ``conv_general_dilated`` cases)."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.blocks import CONSTANT, Sparse  # noqa: E402
from dgraph.codegen.c import compiler  # noqa: E402
from dgraph.codegen.cuda import cxx_compiler  # noqa: E402
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
        size = g.shape(operand)
        part = ref[:, at : at + int(np.prod(size))]
        at += int(np.prod(size))
        assert isinstance(block, Sparse)
        assert block.nnz == np.count_nonzero(part)  # random values: no entry is 0 by chance
        rows, cols = np.nonzero(part)
        width = part.shape[1]
        np.testing.assert_array_equal(block.rows * width + block.cols, rows * width + cols)


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
