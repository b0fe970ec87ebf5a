"""A loop's generated ``jacobian`` (issue 54): the body's sparse blocks multiplied into
the carried tangent (or cotangent) matrix by slots of their rows' entries — gathers of
whole rows, no scatter — where the rows hold about as many entries each, by a segment
sum where they do not; values against ``jax.jacfwd``."""

from __future__ import annotations

import re

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import dgraph  # noqa: E402
from dgraph.codegen.python import load_python  # noqa: E402
from dgraph.codegen.tensor.loop_blocks import by_rows  # noqa: E402
from dgraph.codegen.tensor.module import tensor_program  # noqa: E402
from dgraph.methods import accumulate  # noqa: E402


def test_slots_hold_each_rows_entries_in_order():
    rows = np.array([2, 0, 2, 1, 0, 2])  # row 0: entries 1, 4; row 1: 3; row 2: 0, 2, 5
    slots = by_rows(rows, 4)  # row 3 has none
    positions = np.array([p for p, _ in slots])
    filled = np.array([f for _, f in slots])
    assert positions.tolist() == [[1, 3, 0, 0], [4, 0, 2, 0], [0, 0, 5, 0]]
    assert filled.tolist() == [[1, 1, 1, 0], [1, 0, 1, 0], [0, 0, 1, 0]]
    assert by_rows(np.array([0] * 8 + [1, 2]), 3) is None  # 8 slots for 10 entries
    assert by_rows(np.zeros(0, dtype=int), 3) is None


def _step(kind: str):
    def step(u, d):
        if kind == "open":  # ends with 2 entries a row: the third slot padded there
            lap = jnp.concatenate([u[1:], jnp.zeros(1)]) + jnp.concatenate([jnp.zeros(1), u[:-1]])
            return u + 0.1 * (d * (lap - 2.0 * u) + u - u**3)
        # one row reads every entry, the others one: slots would be 16 × 16, a segment sum
        return (0.9 * u).at[0].add(0.01 * d * jnp.sum(u**2))

    return step


def _integrate(kind: str, steps: int, xs: bool):
    def f(u, d, *rest):
        def body(c, x):
            return _step(kind)(c, d) + (0.01 * x if xs else 0.0), None

        return jax.lax.scan(body, u, rest[0] if xs else None, length=steps)[0]

    return f


@pytest.mark.parametrize(("kind", "xs"), [("open", False), ("open", True), ("skewed", True)])
def test_jacobian_loops_multiply_sparse_blocks_by_their_entries(kind, xs):
    """16 cells, 3 steps: the adjoint loop (no xs) and the tangent loop (xs), NumPy and
    JAX (jitted); each equals jax.jacfwd, where a padded slot's gathered row is masked."""
    u0, d0 = np.linspace(0.2, 0.8, 16), np.array(0.3)
    args = (u0, d0, *([np.linspace(0.0, 1.0, 48).reshape(3, 16)] if xs else []))
    f = _integrate(kind, 3, xs)
    with jax.enable_x64(True):
        g = dgraph.from_jax(f, *args, level="array", name="rd")
        want = jax.jit(jax.jacfwd(f, argnums=tuple(range(len(args)))))(*args)
        es = accumulate(g, "forward", verify=False)
        for lang in ("python", "jax"):
            text = tensor_program(es, lang).text
            sweep = "tangent" if xs else "adjoint"
            assert f"Loop rd (3 steps): the {sweep} sweep" in text
            body = text[text.index(f"def _{'loop' if xs else 'adjoint'}_rd_body") :]
            body = body[: body.index("return")]
            slots = len(re.findall(r"\(-1, 1\)\) \* _t\d+\[_t\d+\]", body))
            masked = body.count("where(_t")
            summed = "segment_sum(" in body or "bincount(" in body
            if kind == "open":  # 3 slots, the third masked at both ends (and no scatter)
                assert (masked, summed) == (1, False)
                assert xs or slots == 3
            else:  # row 0 of ∂u'/∂u holds 16 entries, the others 1: a segment sum
                assert summed
            got = load_python(text).jacobian
            got = jax.jit(got)(*args) if lang == "jax" else got(*args)
            leaves = jax.tree_util.tree_leaves
            for a, b in zip(leaves(got), leaves(want), strict=True):
                np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("xs", [False, True])
def test_dense_step_products_go_through_blas_from_their_size(monkeypatch, xs):
    """A dense step (``tanh(W·u)``): its 16 × 16 block times the carried matrix is an
    ``einsum`` through BLAS (``optimize=True``) from ``BLAS_ENTRIES`` matrix entries (256
    < 4,096 by default: NumPy's own loops), in the tangent loop (xs) and the adjoint loop
    (none); the values equal ``jax.jacfwd``'s either way."""
    from dgraph.codegen.tensor import region_steps

    W = np.cos(np.arange(256.0)).reshape(16, 16) / 4

    def f(u, d, *rest):
        def body(c, x):
            return c + 0.1 * d * jnp.tanh(W @ c) + (0.01 * x if xs else 0.0), None

        return jax.lax.scan(body, u, rest[0] if xs else None, length=3)[0]

    args = (np.linspace(0.2, 0.8, 16), np.array(0.3))
    args += (np.linspace(0.0, 1.0, 48).reshape(3, 16),) if xs else ()
    with jax.enable_x64(True):
        g = dgraph.from_jax(f, *args, level="array", name="rd")
        want = jax.jit(jax.jacfwd(f, argnums=tuple(range(len(args)))))(*args)
        es = accumulate(g, "forward", verify=False)
        assert "optimize=True" not in tensor_program(es, "python").text
        monkeypatch.setattr(region_steps, "BLAS_ENTRIES", 0)
        for lang in ("python", "jax"):
            text = tensor_program(es, lang).text
            assert f"Loop rd (3 steps): the {'tangent' if xs else 'adjoint'} sweep" in text
            # through BLAS: einsum's optimize, or NumPy's matmul (a product it prints so)
            blas = r"einsum\('ab,(bw->aw|aw->bw)'.*optimize=True"
            assert re.search(blas if lang == "jax" else f"{blas}|numpy\\.matmul\\(", text)
            got = load_python(text).jacobian
            got = jax.jit(got)(*args) if lang == "jax" else got(*args)
            leaves = jax.tree_util.tree_leaves
            for a, b in zip(leaves(got), leaves(want), strict=True):
                np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-13)


def test_the_delta_form_carries_its_pattern():
    """JAX writes a labelled block as its values broadcast times an identity per pair of
    axes (:func:`~dgraph.codegen.tensor.delta_form.delta_form`), with the pattern of its
    entries, which the program keeps under the block's name; :func:`block_entries` reads
    the entries from it, equal to the dense block NumPy makes of the same form: two pairs
    on axes (0, 3) and (1, 2), the values transposed and spread; a diagonal of one number;
    none where the program keeps no pattern or a pass made the statement something
    else; no form in NumPy nor for a block that is not labelled."""
    from dgraph.blocks import Labelled
    from dgraph.codegen.evaluate import ArrayEvaluator
    from dgraph.codegen.ir import ArrayProgram, ArrayStatement, Call, Const, Name
    from dgraph.codegen.tensor.delta_form import delta_form
    from dgraph.codegen.tensor.loop_blocks import block_entries

    V = np.arange(1.0, 13.0).reshape(4, 3)  # label 1 (4), label 0 (3): the value's order
    pairs = Labelled((3, 4), (4, 3), (((0,), 0), ((1,), 0)), (((1,), 0), ((0,), 0)), (3, 4), (1, 0))
    one = Labelled((5,), (5,), (((0,), 0),), (((0,), 0),), (5,), ())
    form, pattern = delta_form("jax", pairs, Name("v"), (3, 4, 4, 3))
    diagonal, pattern_one = delta_form("jax", one, Name("c"), (5, 5))
    statements = [ArrayStatement("J", form), ArrayStatement("I", diagonal)]
    statements.append(ArrayStatement("S", Call("reshape", (Name("v"), Const((3, 4))))))
    program = ArrayProgram("body", ("v", "c"), ((4, 3), ()), ("v", "c"), statements, ["J"])
    spread = Call("reshape", (Name("v"), Const((3, 4, 1, 1))))  # J's spread, another shape
    statements.append(ArrayStatement("K", Call("broadcast_to", (spread, Const((3, 4, 2, 1))))))
    other = Call("reshape", (Name("v"), Const((1, 1, 4, 3))))  # J's shape, another spread
    statements.append(ArrayStatement("M", Call("broadcast_to", (other, form.args[1]))))
    program.deltas = {"J": pattern, "I": pattern_one} | {k: pattern for k in "SKM"}
    dense = ArrayEvaluator().run(statements, {"v": V, "c": np.float64(2.0)})
    want = V.T.reshape(3, 4, 1, 1) * np.eye(4).reshape(1, 4, 4, 1) * np.eye(3).reshape(3, 1, 1, 3)
    np.testing.assert_array_equal(dense["J"], want)
    size, flat, entries, entry_of, n = block_entries(program, "J")
    values = ArrayEvaluator().value(entries, {"v": V})
    got = np.zeros(size)
    got[flat] = values[entry_of]
    assert (size, n, flat.size) == (144, 12, 12)
    np.testing.assert_array_equal(got.reshape(want.shape), want)
    assert np.all(np.diff(flat) > 0)  # row-major: each row's entries in order
    size, flat, _, entry_of, n = block_entries(program, "I")
    assert (size, n) == (25, 1) and flat.tolist() == [0, 6, 12, 18, 24] and not entry_of.any()
    np.testing.assert_array_equal(dense["I"], 2.0 * np.eye(5))
    assert block_entries(program, "S") is None  # a pattern kept, not the form's statement
    assert block_entries(program, "K") is None and block_entries(program, "M") is None
    program.deltas = {}
    assert block_entries(program, "J") is None  # the form without its pattern
    assert delta_form("python", pairs, Name("v"), (3, 4, 4, 3)) is None
    assert delta_form("jax", object(), Name("v"), (3, 4, 4, 3)) is None


def test_c_loops_multiply_sparse_blocks_by_their_entries():
    """C's tangent loop multiplies a sparse body block by its entries as NumPy's does
    (the rows of the carried tangents at the pattern's columns, a padded slot masked):
    no dense product of the 16 × 16 block a step (a contraction over its 16 columns, a
    loop nest ``k2 < 16``, dense before); values equal jax.jacfwd's."""
    args = (np.linspace(0.2, 0.8, 16), np.array(0.3), np.linspace(0.0, 1.0, 48).reshape(3, 16))
    f = _integrate("open", 3, True)
    with jax.enable_x64(True):
        h = dgraph.make_function(lambda u, d, x: f(u, d, x), "jacobian", "c", point=list(args))
        want = jax.jit(jax.jacfwd(f, argnums=(0, 1, 2)))(*args)
    assert h.generated.verified
    assert "k2 < 16L" not in h.source and "_rows" in h.source
    for a, b in zip(h(*args), want, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-13)


def test_c_loops_multiply_dense_blocks_by_dgraph_matmul(monkeypatch):
    """A dense step (``tanh(W·u)``: its block 16 × 16, full, at or above
    ``SPARSE_BELOW``) multiplied into the carried tangents through BLAS in NumPy
    (``einsum(..., optimize=True)`` from ``BLAS_ENTRIES`` = 0 entries here, 4,096 by
    default: the products of 64 cells and more), which C refused; now one
    ``dgraph_matmul`` call a product, the helper defined once; values equal
    jax.jacfwd's. W is not symmetric: a product of the block's transpose is caught."""
    from dgraph.codegen.tensor import region_steps
    from dgraph.codegen.tensor.loop_blocks import SPARSE_BELOW

    monkeypatch.setattr(region_steps, "BLAS_ENTRIES", 0)
    W = np.cos(np.arange(256.0) ** 1.5).reshape(16, 16) / 4
    assert np.count_nonzero(W) >= SPARSE_BELOW * W.size and not np.allclose(W, W.T)

    def f(u, d, x):
        def body(c, x):
            return c + 0.1 * d * jnp.tanh(W @ c) + 0.01 * x, None

        return jax.lax.scan(body, u, x)[0]

    args = (np.linspace(0.2, 0.8, 16), np.array(0.3), np.linspace(0.0, 1.0, 48).reshape(3, 16))
    with jax.enable_x64(True):
        h = dgraph.make_function(f, "jacobian", "c", point=list(args))
        want = jax.jit(jax.jacfwd(f, argnums=(0, 1, 2)))(*args)
    assert h.generated.verified
    assert h.source.count("void dgraph_matmul(") == 1
    assert re.search(r"dgraph_matmul\(16L, 16L, \d+L, ", h.source)  # the block times D
    for a, b in zip(h(*args), want, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-13)
