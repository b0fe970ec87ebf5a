"""The Hessian of ``Σ log1p(|rfft x|²/n) + Σ c·eigvalsh(diag(0..n-1) + 0.1 x xᵀ)``
(real_programs10's ``jax_rfft_eigvalsh``): its sparse block products split into diagonal
parts (:func:`dgraph.blocks.split_product`, one einsum each, no pattern of the pairs
that meet), the constant ``diag(c)``'s narrowed block formed from its n nonzeros only,
and Markowitz's sum of two Kronecker blocks refused above its limit; values equal
``jax.hessian``'s."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import dgraph
from dgraph import blocks
from dgraph.blocks import arrays as block_arrays
from dgraph.codegen.tensor import blockops
from dgraph.elimination import kernel
from tests import jax_reference as jref

jax.config.update("jax_enable_x64", True)


def _program(n: int):
    c = np.linspace(1.0, 2.0, n)

    def f(x):
        power = jnp.abs(jnp.fft.rfft(x)) ** 2 / n
        lam = jnp.linalg.eigvalsh(jnp.diag(jnp.arange(n) * 1.0) + 0.1 * jnp.outer(x, x))
        return jnp.sum(jnp.log1p(power)) + jnp.sum(c * lam)

    x = np.random.default_rng(n).normal(size=n)
    return f, x


_HESSIANS: dict[int, np.ndarray] = {}


def _jax_hessian(n: int) -> np.ndarray:
    """``jax.hessian`` of :func:`_program` ``(n)`` at its point, jitted (one compilation,
    not one per eager operation: 115 compiles a test before) and kept per n: the tests of
    one n compare with the same one."""
    if n not in _HESSIANS:
        f, x = _program(n)
        _HESSIANS[n] = np.asarray(jref.hessian(f)(jnp.asarray(x)))  # stored, or jitted
    return _HESSIANS[n]


def _pairs_seen(monkeypatch) -> list[int]:
    """The pairs of every product the code generator pairs entry by entry."""
    seen: list[int] = []
    original = blockops._refuse_many_pairs

    def spy(cols_a, rows_b, a, b):
        seen.append(blockops._pair_count(cols_a, rows_b, int(np.prod(a.in_shape))))
        return original(cols_a, rows_b, a, b)

    monkeypatch.setattr(blockops, "_refuse_many_pairs", spy)
    return seen


def test_no_product_pairs_order_n_cubed_entries(monkeypatch):
    """At n = 32 the sparse products of the gradient's block of ``(S + Sᵀ)·x`` (2n² - n
    entries) by the Kronecker blocks of ``V·C·Vᵀ`` (n³ entries) paired 2n³ - n² =
    64,512 entries each, their indices kept in the module; split, nothing pairs n³. (The
    Hessian at n = 32 equals JAX's: this test and :func:`test_below_the_threshold_the_pairs_stay`
    at n = 16 make it as a plain ``dgraph.hessian`` does, the spies only watching.)"""
    n = 32
    seen = _pairs_seen(monkeypatch)
    f, x = _program(n)
    H = dgraph.hessian(f, x, sparse=True)
    assert max(seen, default=0) < n**3
    text = H.generated.text
    assert "bincount" not in text  # no segment sum of pairs
    want = _jax_hessian(n)
    got = H(x).toarray()
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-11 * np.abs(want).max())


def test_below_the_threshold_the_pairs_stay(monkeypatch):
    """Below :data:`~dgraph.blocks.SPLIT_FROM` pairs the product keeps
    the code it had (n = 16: 2·16³ - 16² = 7,936 pairs), and the values are the same."""
    n = 16
    seen = _pairs_seen(monkeypatch)
    f, x = _program(n)
    H = dgraph.hessian(f, x, sparse=True)
    assert 2 * n**3 - n * n in seen
    want = _jax_hessian(n)
    np.testing.assert_allclose(H(x).toarray(), want, rtol=1e-11, atol=1e-11 * np.abs(want).max())


def test_parts_of_a_symmetric_product_block(monkeypatch):
    """``∂(Σ_j (S_kj + S_jk) x_j)/∂S_ij``: entries where i = k or j = k, two parts of n²
    values, every entry in one of them; their sum times a Kronecker block equals the
    sparse product's values."""
    n = 6
    rows, cols = [], []
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if i == k or j == k:
                    rows.append(k)
                    cols.append(i * n + j)
    a = blocks.sparse((n,), (n, n), np.array(rows), np.array(cols))
    found = blocks.diagonal_parts(a)
    assert found is not None and len(found) == 2
    assert sorted(np.concatenate([p.positions for p in found]).tolist()) == list(range(a.nnz))
    assert [p.block.stored for p in found] == [n * n, n * n]
    # a matrix product's block by its left factor: d(P·Q)/dP, Q given (n³ entries)
    q = np.random.default_rng(0).normal(size=(n, n))
    b = blocks.Labelled((n, n), (n, n), (((0,), 0), ((2,), 0)), (((0,), 0), ((1,), 0)),
                        (n, n, n), (1, 2))  # fmt: skip
    va = np.random.default_rng(1).normal(size=a.nnz)
    monkeypatch.setattr(blocks, "SPLIT_FROM", 1)  # split at this small size
    monkeypatch.setattr(blocks, "SMALL", 0)
    split = blocks.split_product(a, b)
    got = blocks.multiply_values(a, b, va, q)
    assert split is not None and len(split.terms) == 2
    dense_a = np.zeros((n, n * n))
    dense_a[rows, cols] = va
    want = dense_a @ blocks.to_matrix(b, q).toarray()
    np.testing.assert_allclose(blocks.to_matrix(got.block, got.values).toarray(), want,
                               atol=1e-12)  # fmt: skip


def test_an_entry_on_no_diagonal_is_not_split():
    a = blocks.sparse((4,), (4, 4), np.array([0, 1]), np.array([5, 2]))  # (0,(1,1)), (1,(0,2))
    assert blocks.diagonal_parts(a) is None


def test_narrowed_by_a_diagonal_keeps_its_n_squared_entries(monkeypatch):
    """``diag(c) @ Vᵀ``'s block by V: n² entries kept of the labelled block's n³, found
    without the pattern of all n³ (:func:`~dgraph.blocks.pattern` is never asked for it)."""
    n = 12
    asked: list[int] = []
    original = blocks._pattern

    def spy(b):
        found = original(b)
        asked.append(found[0].size)
        return found

    monkeypatch.setattr(blocks, "_pattern", spy)
    from dgraph.blocks.arrays import ArrayOp, Const

    c = np.diag(np.arange(1.0, n + 1))
    op = ArrayOp(
        "dot_general",
        (Const.of(c), "v"),
        (("dimension_numbers", (((1,), (1,)), ((), ()))),),
        (n, n),
    )
    shapes = [(n, n), (n, n)]
    block = block_arrays.labelled_block(op, 1, shapes)
    found = block_arrays.narrowed(op, 1, shapes, block)
    assert found is not None and found.block.nnz == n * n
    assert n**3 not in asked


def test_markowitz_sum_above_the_limit_is_refused_and_reverse_kept(monkeypatch):
    """With the union limit below n³ (n = 16: its products below
    :data:`~dgraph.blocks.SPLIT_FROM` pairs, as at the 24 this ran at, and JAX's
    programs of that size compiled once for the file), Markowitz's sum of the two
    Kronecker blocks is refused before it is formed; the Hessian is built by another
    method and equals JAX's."""
    n = 16
    monkeypatch.setattr(kernel, "UNION_MOST", n**3 - 1)
    refused: list[str] = []
    original = kernel._refuse_large_union

    def spy(a, b):
        try:
            original(a, b)
        except dgraph.errors.SearchTooLarge as e:
            refused.append(str(e))
            raise

    monkeypatch.setattr(kernel, "_refuse_large_union", spy)
    f, x = _program(n)
    H = dgraph.hessian(f, x, sparse=True)
    assert refused and "\n" not in refused[0] and "would not fit in memory" in refused[0]
    want = _jax_hessian(n)
    np.testing.assert_allclose(H(x).toarray(), want, rtol=1e-11, atol=1e-11 * np.abs(want).max())


def test_cancellation_pass_in_slices_equals_the_whole_evaluation(monkeypatch):
    """At n = 32 with the slices forced small (a run from 10⁴ entries, 2,048 a slice: 2 of
    the 32 rows, 16 slices), the cancellation pass evaluates the n × n × n run of eigh's
    second derivative a slice at a time (:mod:`dgraph.codegen.tensor.slices`): one region
    of its 30 statements, left only through the n × n Hessian; every value it finds at
    the drawn point has the same bits as the whole evaluation's, each bound is no smaller
    than the values' own error can be (the largest of the slices': at most the whole
    one's), and the Hessian equals JAX's.

    The generated code (its loops from 10⁴ entries too: :mod:`dgraph.codegen.tensor.slice_loops`)
    computes the run in one loop over the same row slices (16 steps): no statement
    outside the loop's body makes an array of n³ entries, the body holds the run's
    statements, the eigen decomposition is computed once, before it (mutation: every
    step reading the first step's slices fails the comparison with JAX)."""
    from dgraph.codegen.tensor import cancel, slice_loops, slices

    monkeypatch.setattr(slices, "CHUNK_FROM", 10**4)
    monkeypatch.setattr(slices, "CHUNK_ENTRIES", 2048)
    monkeypatch.setattr(slice_loops, "LOOP_FROM", 10**4)
    n = 32
    regions, compared = [], []
    original = cancel._at_a_point

    def spy(w, nodes, seed, fixed=None, needed=None, scalar=False, schedule=None):
        found = cancel._schedule(w, nodes, *(needed or cancel._needed(w, nodes)))
        regions.extend(r for kind, r in found if kind == "region")
        sliced = original(w, nodes, seed, dict(fixed or {}), needed, scalar, schedule)
        with monkeypatch.context() as m:
            m.setattr(slices, "CHUNK_FROM", 10**12)  # no region: the whole arrays
            whole = original(w, nodes, seed, dict(fixed or {}), needed, scalar)
        compared.append((sliced, whole))
        return sliced

    monkeypatch.setattr(cancel, "_at_a_point", spy)
    f, x = _program(n)
    H = dgraph.hessian(f, x, sparse=True)
    assert regions and all(r.blocks == n and r.rows == 2 for r in regions)
    assert max(len(r.indices) for r in regions) >= 20
    assert all(all(len(shape) == 2 for shape in r.exits.values()) for r in regions)
    assert compared
    for sliced, whole in compared:
        for a, b in zip(sliced[2], whole[2], strict=True):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(sliced[3], whole[3], strict=True):
            assert 0 < np.max(a) <= np.max(b)
        assert {k: v.shape for k, v in sliced[1].items()} == {
            k: v.shape for k, v in whole[1].items()
        }
    text = H.generated.text
    lines = text[text.index("def _jacobian_lower") :].split("\n")
    loops = [line for line in lines if line.startswith("    for ") and "range(16)" in line]
    assert len(loops) == 1
    body = [line for line in lines if line.startswith("        ") and "=" in line]
    assert len(body) >= 20 and any("matmul" in line for line in body)
    outer = [line for line in lines if line.startswith("    ") and not line.startswith("     ")]
    assert not any(f"{n}, {n}, {n})" in line or str(n**3) in line for line in outer)
    assert not any("eigh" in line for line in body)
    want = _jax_hessian(n)
    np.testing.assert_allclose(H(x).toarray(), want, rtol=1e-11, atol=1e-11 * np.abs(want).max())


def test_the_count_of_entries_held_at_once():
    """:func:`~dgraph.codegen.tensor.footprint.peak_entries` by hand: ``a = 2x`` (n),
    ``b = a ⊗ a`` (n²), ``c = sin(b)·b`` (n² made, and sin's n² on the way), ``d =
    reshape(c)`` (a view), ``e = Σ d`` (1): at ``c``, b and c's two arrays, 3n² (a let go
    after b, its last reader; the argument x not counted)."""
    from dgraph.codegen import ir
    from dgraph.codegen.tensor import footprint

    n = 10
    x, a, b = ir.Name("x"), ir.Name("a"), ir.Name("b")
    statements = [
        ir.ArrayStatement("a", ir.BinOp("*", ir.Const(2.0), x)),
        ir.ArrayStatement("b", ir.Call("einsum", (ir.Const("i,j->ij"), a, a))),
        ir.ArrayStatement("c", ir.BinOp("*", ir.Call("sin", (b,)), b)),
        ir.ArrayStatement("d", ir.Call("reshape", (ir.Name("c"), ir.Const((n * n,))))),
        ir.ArrayStatement("e", ir.Call("sum", (ir.Name("d"),))),
    ]
    peak, where, largest = footprint.peak_entries(statements, {"x": (n,)})
    assert (peak, where, largest) == (3 * n * n, "c", (n, n))


def test_parts_of_a_scalars_block(monkeypatch):
    """A scalar's block (``out_shape == ()``: a gradient row, as a scan's summed
    log-likelihood gives at n = 300) has one part, the input axes its own labels; split
    by a Kronecker block, its product equals the dense one. (``np.unravel_index`` of
    several entries into ``()`` was a ValueError from inside ``dgraph.hessian``.)"""
    n = 5
    cols = np.arange(0, n * n, 2)  # 13 of 25: the part stores at most twice its entries
    a = blocks.sparse((), (n, n), np.zeros(cols.size, dtype=np.int64), cols)
    found = blocks.diagonal_parts(a)
    assert found is not None and len(found) == 1
    assert found[0].places.tolist() == cols.tolist()
    q = np.random.default_rng(0).normal(size=(n, n))
    b = blocks.Labelled((n, n), (n, n), (((0,), 0), ((2,), 0)), (((0,), 0), ((1,), 0)),
                        (n, n, n), (1, 2))  # fmt: skip
    va = np.random.default_rng(1).normal(size=a.nnz)
    monkeypatch.setattr(blocks, "SPLIT_FROM", 1)
    monkeypatch.setattr(blocks, "SMALL", 0)
    assert blocks.split_product(a, b) is not None
    got = blocks.multiply_values(a, b, va, q)
    dense_a = np.zeros(n * n)
    dense_a[cols] = va
    want = dense_a @ blocks.to_matrix(b, q).toarray()
    np.testing.assert_allclose(blocks.to_matrix(got.block, got.values).toarray().ravel(), want,
                               atol=1e-12)  # fmt: skip
    s = blocks.sparse((), (), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64))
    assert blocks.diagonal_parts(s) is not None  # a scalar by a scalar: one value


def test_a_zero_bin_is_found_without_the_values_beside_the_spectrum():
    """The reference's zero-bin test (:func:`~dgraph.frontends.jaxpr_complex.zero_modulus`)
    evaluates only what a modulus reads: a value beside the spectrum (here a host
    callback, standing for ``eigvalsh`` above: 52 eager compilations, 0.8 CPU-s at each
    new n) is never computed, outside a call or inside one, and a zero bin is still found
    (x = 0) or not (a point with no zero bin)."""
    from dgraph.frontends.jaxpr_complex import zero_modulus

    seen: list[int] = []

    def side(y):
        seen.append(1)
        return np.asarray(y) * 2.0

    def f(x):
        shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
        inner = jax.jit(lambda z, y: (jnp.abs(z) ** 2, jax.pure_callback(side, shape, y)))
        power, other = inner(jnp.fft.rfft(x), x)
        beside = jax.pure_callback(side, shape, x)
        return jnp.sum(power) + jnp.sum(other) + jnp.sum(beside)

    x = np.random.default_rng(3).normal(size=8)
    assert zero_modulus(jax, f, [np.zeros(8)])
    assert not zero_modulus(jax, f, [x])
    assert not seen
    assert float(f(x)) == float(f(x)) and seen  # the callbacks run where f is evaluated


def test_a_loops_entries_counted_per_step():
    """:func:`~dgraph.codegen.tensor.footprint.peak_entries` of a loop of no carries by
    hand: ``a = x ⊗ x`` (n²), a loop of 5 steps over a's slices of 2 rows, its body
    ``b = sin(s)·s`` (sin's 2n and the product's 2n made), its stacked ys (n²): at the
    loop a, the body's 4n and the ys, n² + 4n + n²; a reshape of its item, a view."""
    from dgraph.codegen import ir
    from dgraph.codegen.tensor import footprint

    n, steps = 10, 5
    x, a, s = ir.Name("x"), ir.Name("a"), ir.Name("s")
    body = ir.LoopBody(
        ("s",), (ir.ArrayStatement("b", ir.BinOp("*", ir.Call("sin", (s,)), s)),), ("b",)
    )
    xs = ir.Call("reshape", (a, ir.Const((steps, n // steps, n))))
    statements = [
        ir.ArrayStatement("a", ir.Call("einsum", (ir.Const("i,j->ij"), x, x))),
        ir.ArrayStatement("l", ir.Loop((), (xs,), (), body, steps)),
        ir.ArrayStatement("e", ir.Call("reshape", (ir.Item(ir.Name("l"), 0), ir.Const((n, n))))),
        ir.ArrayStatement("f", ir.Call("sum", (ir.Name("e"),))),
    ]
    peak, where, _ = footprint.peak_entries(statements, {"x": (n,)})
    assert (peak, where) == (2 * n * n + 4 * n, "l")


def test_code_still_too_large_after_the_narrowing_is_refused(monkeypatch):
    """The statements of the generated code are counted again after the narrowing and
    the loops (:func:`dgraph.codegen.tensor.module._chunked`), before the code check
    runs them: with the early count taken out and the limit at 10⁴ entries (n = 16:
    the code holds n³ = 4,096 at once, and n² arrays beside), one line."""
    from dgraph.codegen.tensor import footprint, module

    monkeypatch.setattr(module, "_refuse_large", lambda *args: None)
    monkeypatch.setattr(footprint, "PEAK_MOST", 10**4)
    f, x = _program(16)
    with pytest.raises(dgraph.DGraphError) as e:
        dgraph.hessian(f, x, sparse=True)
    assert "\n" not in str(e.value) and "would not fit in memory" in str(e.value)


def _looped_small(monkeypatch, limit: int, n: int = 32) -> list[int]:
    """Loops from n³/4 entries (slices of 2 rows of n × n: 16 steps at n = 32), the
    limit at ``limit`` entries, and the counts of the entries held at once kept as they
    are taken."""
    from dgraph.codegen.tensor import footprint, module, slice_loops, slices

    monkeypatch.setattr(slice_loops, "LOOP_FROM", n**3 // 4)
    monkeypatch.setattr(slices, "CHUNK_ENTRIES", 2 * n * n)
    monkeypatch.setattr(footprint, "PEAK_MOST", limit)
    counted: list[int] = []
    original = module.refuse_large_program

    def spy(statements, shapes, what, memo=None):
        counted.append(footprint.peak_entries(statements, shapes)[0])
        return original(statements, shapes, what, memo)

    monkeypatch.setattr(module, "refuse_large_program", spy)
    return counted


@pytest.mark.parametrize(("lang", "sparse"), [("jax", True), ("jax", False), ("python", False)])
def test_jax_and_dense_hessians_are_looped(monkeypatch, lang, sparse):
    """At n = 32 with the loops from n³/4 entries (slices of 2 rows, 16 steps) and the
    limit at 5·10⁴ entries, the JAX Hessians (sparse and dense) and NumPy's dense one
    are written with the run of eigh's second derivative a loop over the slices (JAX: a
    scan) and counted as their code computes it, a slice at a time (under n³ = 32,768;
    whole, some 4 n³ = 131,072, they were refused from n = 462 at the real limit);
    values equal ``jax.hessian``'s (mutation: every step reading the first step's slices
    fails). (At n = 16 the product pairs stay, 2 n³ entries: no such run.)"""
    n = 32
    counted = _looped_small(monkeypatch, 5 * 10**4, n)
    f, x = _program(n)
    H = dgraph.hessian(f, x, sparse=sparse, lang=lang)
    assert counted and max(counted) < n**3
    assert H.generated.verified
    assert ("_jit_scan(" if lang == "jax" else "for __chunks") in H.source
    got = H(x)
    got = got.todense() if sparse else got
    want = _jax_hessian(n)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-11, atol=1e-11 * np.abs(want).max())


def test_only_the_looped_code_is_counted_looped(monkeypatch):
    """At n = 32 with the loops from n³/4 entries (slices of 2 rows) and the limit at
    5·10⁴ entries: the NumPy Hessian's run is counted as its code computes it, a slice
    at a time (under n³ = 32,768), C's values program, whose arrays are kept, as it holds
    the run, whole (some 4 n³ = 131,072): refused in one line before anything is
    evaluated (mutation: every code counted looped builds it)."""
    from dgraph.codegen.tensor import module

    counted = _looped_small(monkeypatch, 5 * 10**4)
    n = 32
    f, x = _program(n)
    with pytest.raises(dgraph.DGraphError) as e:
        dgraph.hessian(f, x, sparse=True, lang="c")
    assert "\n" not in str(e.value) and "would not fit in memory" in str(e.value)
    assert counted[-1] > 4 * n**3
    with monkeypatch.context() as m:  # the NumPy count alone: the build stopped there
        m.setattr(module, "drop_cancelled", _stop)
        m.setattr(module, "asked_later", lambda *args: None)
        with pytest.raises(_Stopped):
            dgraph.hessian(f, x, sparse=True)
    assert counted[-1] < n**3


class _Stopped(Exception):
    pass


def _stop(*args, **kwargs):
    raise _Stopped
