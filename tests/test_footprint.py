"""The count of array entries a program holds at once (dgraph/codegen/tensor/footprint.py)
finds each statement's names and shapes once per program, not once per block that reads
it: the generated module's blocks share their vertex values' statements."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph.codegen import ir
from dgraph.codegen.tensor import footprint


def _by_hand(n: int) -> list[ir.ArrayStatement]:
    """tests/test_eigh_scale.py's program: at ``c``, 3n² entries held."""
    x, a, b = ir.Name("x"), ir.Name("a"), ir.Name("b")
    return [
        ir.ArrayStatement("a", ir.BinOp("*", ir.Const(2.0), x)),
        ir.ArrayStatement("b", ir.Call("einsum", (ir.Const("i,j->ij"), a, a))),
        ir.ArrayStatement("c", ir.BinOp("*", ir.Call("sin", (b,)), b)),
        ir.ArrayStatement("d", ir.Call("reshape", (ir.Name("c"), ir.Const((n * n,))))),
        ir.ArrayStatement("e", ir.Call("sum", (ir.Name("d"),))),
        ir.ArrayStatement("f", ir.Call("cos", (a,))),
    ]


def _counted(monkeypatch) -> list[int]:
    """The ids of the statements' values whose shapes the count looks up."""
    seen: list[int] = []
    inner = footprint.node_shapes

    def node_shapes(node, env):
        seen.append(id(node))
        return inner(node, env)

    monkeypatch.setattr(footprint, "node_shapes", node_shapes)
    return seen


def test_a_memo_finds_each_statement_once_and_the_same_counts(monkeypatch):
    """Three overlapping runs of one program's statements with one memo: each statement's
    shapes looked up once (6 statements, 11 read), each count (peak, where, largest)
    what it is without the memo."""
    n = 10
    s = _by_hand(n)
    runs = [s[:5], [s[0], s[5]], s[:3]]
    shapes = {"x": (n,)}
    alone = [footprint.peak_entries(run, shapes) for run in runs]
    assert alone == [(3 * n * n, "c", (n, n)), (2 * n, "f", (n,)), (3 * n * n, "c", (n, n))]
    seen = _counted(monkeypatch)
    memo: dict = {}
    assert [footprint.peak_entries(run, shapes, memo) for run in runs] == alone
    assert sorted(seen) == sorted(id(t.value) for t in s)  # once each, not 11 times
    seen.clear()
    assert [footprint.peak_entries(run, shapes) for run in runs] == alone
    assert len(seen) == sum(map(len, runs))  # without the memo: once per run


def test_a_statement_counted_again_where_what_it_reads_changed_shape():
    """The memo's facts hold for the shapes they were found at: ``c = sin(b)·b`` counted
    where ``b`` is n × n, then read where another statement makes ``b`` (2n) × (2n), is
    counted at the new shape (3·(2n)² at ``c``), as without the memo; a new statement
    (another object) is looked up afresh, never by a reused id."""
    n = 4
    s = _by_hand(n)
    memo: dict = {}
    assert footprint.peak_entries(s[:3], {"x": (n,)}, memo)[0] == 3 * n * n
    wider = ir.ArrayStatement("b", ir.Call("einsum", (ir.Const("i,j->ij"), *[ir.Name("x")] * 2)))
    want = (3 * (2 * n) ** 2, "c", (2 * n, 2 * n))
    assert footprint.peak_entries([wider, s[2]], {"x": (2 * n,)}, memo) == want
    assert footprint.peak_entries([wider, s[2]], {"x": (2 * n,)}) == want
    assert footprint.peak_entries(s[:3], {"x": (n,)}, memo)[0] == 3 * n * n  # and back


def test_a_loops_entries_found_once_per_shape(monkeypatch):
    """A loop over the n rows of ``a = x ⊗ y`` (n × m), its body ``b = sin(s)·s`` (2m
    made): at the loop a, the body's 2m and the stacked ys (n·m), 2nm + 2m. Counted
    twice at m = n and once at m = 2n with one memo: the loop's body counted once per
    shape of ``a`` (2 times, 3 without the memo), each count the memo-less one."""
    n = 6
    x, y, a, s = ir.Name("x"), ir.Name("y"), ir.Name("a"), ir.Name("s")
    body = ir.LoopBody(
        ("s",), (ir.ArrayStatement("b", ir.BinOp("*", ir.Call("sin", (s,)), s)),), ("b",)
    )
    statements = [
        ir.ArrayStatement("a", ir.Call("einsum", (ir.Const("i,j->ij"), x, y))),
        ir.ArrayStatement("l", ir.Loop((), (a,), (), body, n)),
        ir.ArrayStatement("f", ir.Call("sum", (ir.Item(ir.Name("l"), 0),))),
    ]
    runs = [{"x": (n,), "y": (m,)} for m in (n, n, 2 * n)]
    want = [(2 * n * m + 2 * m, "l", (n, m)) for m in (n, n, 2 * n)]
    calls: list[int] = []
    inner = footprint._loop_entries

    def loop_entries(loop, found):
        calls.append(id(loop))
        return inner(loop, found)

    monkeypatch.setattr(footprint, "_loop_entries", loop_entries)
    assert [footprint.peak_entries(statements, shapes) for shapes in runs] == want
    assert len(calls) == 3
    calls.clear()
    memo: dict = {}
    assert [footprint.peak_entries(statements, shapes, memo) for shapes in runs] == want
    assert len(calls) == 2


def _per_block(monkeypatch) -> None:
    """Each block counted, as where the sum of what every statement makes is over the
    bound or unknown (footprint.entries_at_most: here it is far below it)."""
    from dgraph.codegen.tensor import module

    monkeypatch.setattr(module, "entries_at_most", lambda *args: None)


def test_the_generated_modules_blocks_count_each_statement_once(monkeypatch):
    """A sparse module of two inputs and two outputs (four blocks reading shared vertex
    values, then the whole program once more after its loops over slices, module._chunked):
    the refusal's count looks up each statement's shapes once for the program, and finds
    what it finds without the memo; the module's Jacobian is JAX's."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    from dgraph.codegen.python import load_python
    from dgraph.codegen.tensor.module import tensor_program
    from dgraph.frontends.jaxpr import from_jax
    from dgraph.methods import accumulate

    from . import jax_reference as jref

    def f(x, y):
        v = jnp.sin(x * y)
        return v * jnp.exp(x), jnp.cumsum(v + y)

    x, y = np.linspace(0.3, 0.9, 4), np.linspace(1.1, 1.7, 4)
    seen = _counted(monkeypatch)
    calls: list[tuple[list, dict, tuple]] = []
    inner = footprint.peak_entries

    def peak_entries(statements, shapes, memo=None):
        got = inner(statements, shapes, memo)
        calls.append((list(statements), dict(shapes), got))
        return got

    monkeypatch.setattr(footprint, "peak_entries", peak_entries)
    _per_block(monkeypatch)
    with jax.enable_x64(True):
        es = accumulate(from_jax(f, x, y, level="array"), "forward")
        program = tensor_program(es, "python", sparse=True)
        want = jref.jacfwd(f, argnums=(0, 1))(x, y)  # jitted: one compile
    counted = {id(s.value) for statements, _, _ in calls for s in statements}
    assert len(calls) == 5 and sum(len(st) for st, _, _ in calls) > len(counted)
    assert sorted(seen) == sorted(counted)  # each once: the blocks share the Writer's memo
    for statements, shapes, got in calls:  # each block's count as without the memo
        assert inner(statements, shapes) == got
    module = load_python(program.text)
    for k, row in enumerate(module.jacobian(x, y)):
        for j, block in enumerate(row):
            np.testing.assert_allclose(block.toarray(), np.asarray(want[k][j]), rtol=1e-12)


def test_the_count_after_the_narrowing_reuses_the_values_counted_before(monkeypatch):
    """A NumPy sparse Hessian is counted before its cancellation pass (each block) and
    again after the narrowing (:func:`~dgraph.codegen.tensor.module._chunked`): the
    optimized program's statements are new, most of their values the nodes counted
    before, so the last count looks up fewer values than it has statements (the memo
    kept by value), and finds what it finds without the memo; the Hessian is JAX's."""
    import jax
    import jax.numpy as jnp

    import dgraph
    from dgraph.codegen.tensor import module

    from . import jax_reference as jref

    def f(x):
        v = jnp.sin(x) * x[::-1]
        return jnp.sum(v**2) + jnp.sum(jnp.exp(v) * x)

    x = np.linspace(0.2, 0.9, 5)
    seen = _counted(monkeypatch)
    calls: list[tuple[int, int, bool, bool]] = []
    inner = module.refuse_large_program

    def spy(statements, shapes, what, memo=None):
        before = len(seen)
        inner(statements, shapes, what, memo)
        looked_up = len(seen) - before
        same = footprint.peak_entries(statements, shapes, memo) == footprint.peak_entries(
            statements, shapes
        )
        calls.append((len(statements), looked_up, memo is not None, same))

    monkeypatch.setattr(module, "refuse_large_program", spy)
    _per_block(monkeypatch)
    with jax.enable_x64(True):
        h = dgraph.hessian(f, x, sparse=True)
        want = np.asarray(jref.hessian(f)(jnp.asarray(x)))
    statements, looked_up, memo, same = calls[-1]  # _chunked's, after the narrowing
    assert len(calls) >= 2 and memo and same
    assert looked_up < statements / 2
    np.testing.assert_allclose(h(x).toarray(), want, rtol=1e-12, atol=1e-13)


def test_a_sparse_matrix_holds_its_values_not_its_shape():
    """A sparse J around its values (a 200 × 200 stencil's Jacobian: 199,200 values in a
    40,000 × 40,000 CSR) counts the values, made once: counted as its dense shape
    (1.6·10⁹), the sparse NumPy Jacobian of examples/10_arrays.ipynb was refused once
    every program's runs were looped (module._chunked)."""
    nnz, n = 5 * 200 * 200 - 4 * 200, 200 * 200
    statements = [
        ir.ArrayStatement("v", ir.BinOp("*", ir.Const(2.0), ir.Name("x"))),
        ir.ArrayStatement(
            "J", ir.SparseMatrix(ir.Name("v"), ir.Name("idx"), ir.Name("ptr"), (n, n))
        ),
    ]
    shapes = {"x": (nnz,), "idx": (nnz,), "ptr": (n + 1,)}
    peak, where, _ = footprint.peak_entries(statements, shapes)
    assert peak == nnz and where == "v"
    footprint.refuse_large_program(statements, shapes, "J")  # not refused


def test_the_sum_of_what_every_statement_makes_bounds_the_count(monkeypatch):
    """entries_at_most sums each statement once across calls (summed from where it
    stopped) and bounds the count of the program and of every part of it; a loop or a
    shape not found gives no bound."""
    statements = _by_hand(5)
    shapes = {"x": (5,)}
    seen = _counted(monkeypatch)
    total = footprint.Total()
    first = footprint.entries_at_most(statements[:3], shapes.get, total)
    assert first == 5 + 25 + 25 + 25  # 2·x; the outer product; sin(b), sin(b)·b
    whole = footprint.entries_at_most(statements, shapes.get, total)
    assert len(seen) == len(statements)  # each statement's shapes looked up once
    assert whole >= footprint.peak_entries(statements, shapes)[0]
    for part in (statements[:3], statements[1:3], statements[::2]):
        assert whole >= footprint.peak_entries(part, shapes)[0]
    assert footprint.entries_at_most(statements, {}.get, footprint.Total()) is None  # x?
    rewritten = [*statements[:-1], ir.ArrayStatement("f", ir.Call("cos", (ir.Name("b"),)))]
    assert footprint.entries_at_most(rewritten, shapes.get, total) is None


def test_a_long_scalar_programs_code_counts_each_statement_once(monkeypatch):
    """The code of a scalar program of 150 statements and 6 outputs at the array level
    (36 blocks, each reading much of the program): the refusal's count sums each
    statement once (footprint.entries_at_most), where each block's count walked the
    statements it reads (module._refuse_large: quadratic in the outputs); the code's
    Jacobian is the blocks' (the expression set's, verified)."""
    from dgraph.blocks import to_matrix
    from dgraph.codegen.python import load_python
    from dgraph.codegen.tensor import module
    from dgraph.core.block_values import jacobian_blocks, vertex_values
    from dgraph.frontends import from_function
    from dgraph.methods import accumulate

    from .test_block_jvp import _cse_program

    g = from_function(_cse_program(150), sizes=[()] * 6, level="array")
    es = accumulate(g, "markowitz")
    assert es.verified
    walked = []
    inner = module.refuse_large_program

    def counting(statements, shapes, what, memo=None):
        walked.append(len(statements))
        return inner(statements, shapes, what, memo)

    monkeypatch.setattr(module, "refuse_large_program", counting)
    seen = _counted(monkeypatch)
    program = module.tensor_program(es, "python")
    statements = len(program.statements)
    assert len(seen) <= 3 * statements and sum(walked) <= 3 * statements
    x = np.random.default_rng(2).uniform(0.5, 1.5, 6)
    got = load_python(program.text).jacobian(*x)
    blocks = jacobian_blocks(es, vertex_values(g, dict(zip(g.inputs, x, strict=True))))
    for (y, v), part in blocks.items():
        k, j = g.outputs.index(y), g.inputs.index(v)
        want = 0.0 if part is None else to_matrix(*part)[0, 0]
        np.testing.assert_allclose(got[k][j], want, rtol=1e-12, atol=1e-14)


def test_a_concatenate_and_a_slice_keep_the_bound():
    """A ``concatenate`` (its operands a list) and a slice inside an index make no entries
    of their own: the program still has a bound (entries_at_most), where before one
    ``concatenate`` left it with none and each block's check walked the statements again
    (a rigid body's 20 RK4 steps: 8 % of its Jacobian's build)."""
    x, a = ir.Name("x"), ir.Name("a")
    statements = [
        ir.ArrayStatement("a", ir.BinOp("*", ir.Const(2.0), x)),
        ir.ArrayStatement("b", ir.Call("concatenate", (ir.Seq((a, x)),), (("axis", ir.Const(0)),))),
        ir.ArrayStatement("c", ir.Call("sin", (ir.Index(ir.Name("b"), (ir.Slice(1, 4),)),))),
    ]
    shapes = {"x": (5,)}
    found = footprint.entries_at_most(statements, shapes.get, footprint.Total())
    assert found == 5 + 10 + 3 + 3  # 2·x; the concatenate; the slice (a view, counted); sin
    assert found >= footprint.peak_entries(statements, shapes)[0]
