"""Hessians of long programs (issue 55): the passes of a build visit each statement, move
or label a bounded number of times, not once per other one. Held by counts, not by time:
an elimination's forgotten blocks found from each move's edges (not every edge after
every move), a NumPy body's short elementwise runs skipped whole, no grid looked for in
an index array too short to print by pieces, slices and pads of a long program's JAX
reference moved by NumPy (no XLA compile per offset), and a loop body's optimization and
shapes found once however many programs carry it. benchmarks/long_programs.py --hessians
gives the build's CPU seconds."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from dgraph import blocks
from dgraph.blocks import Sparse
from dgraph.codegen import array_passes
from dgraph.codegen.array_passes import array_shapes, optimize_statements
from dgraph.codegen.ir import (
    ArrayProgram,
    BinOp,
    Call,
    Index,
    Item,
    Loop,
    LoopBody,
    Name,
    Slice,
)
from dgraph.codegen.ir import ArrayStatement as S
from dgraph.codegen.tensor import blockops, grid_numpy, numpy_strips
from dgraph.codegen.tensor.numpy_strips import Printed, stripped
from dgraph.elimination import kernel
from dgraph.elimination.labeled import LabeledGraph
from dgraph.frontends import from_function


def _chain(x, w):
    for _ in range(6):
        x = x + np.tanh(x * w)
    return np.sum(x * x)


def _full_scan(state: LabeledGraph):
    """``state``'s algebra settling as before: every edge looked at after every move."""
    algebra = state.algebra

    def settle(succ, change=None):
        live = {id(label) for out in succ.values() for label in out.values()}
        for key in [key for key in algebra.tensor if key not in live]:
            del algebra.tensor[key]

    algebra.settle = settle
    return state


def _kept(state: LabeledGraph) -> list:
    """The labels whose blocks the algebra keeps (by the label's identity), in order."""
    return [label for label, _ in state.algebra.tensor.values()]


def _inner_edge(state: LabeledGraph) -> tuple[str, str, str]:
    """An intermediate in the middle of the graph, one predecessor and one successor."""
    inner = [v for v in state.intermediates() if state.pred[v] and state.succ[v]]
    v = inner[len(inner) // 2]
    return next(iter(state.pred[v])), v, next(iter(state.succ[v]))


def test_an_elimination_forgets_the_blocks_a_full_scan_does_and_counts_once(monkeypatch):
    """After every vertex, front and back edge elimination, naming and copy, the labels
    with blocks are those a scan of every edge keeps, in the same order; the edges are
    counted once (the first move), not after each move."""
    graph = from_function(_chain, sizes=[(4,), (4,)], level="array")
    counted = collections.Counter()

    class Counting(collections.Counter):
        def __init__(self, *args, **kwargs):
            counted["built"] += 1
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(kernel, "Counter", Counting, raising=False)
    mine, reference = LabeledGraph(graph), _full_scan(LabeledGraph(graph))
    assert mine.algebra.tensor and mine.algebra.keeps
    for direction in ("forward", "backward"):  # a front and a back edge elimination
        i, v, k = _inner_edge(mine)
        move = (direction, (v, k) if direction == "forward" else (i, v))
        mine.apply(move)
        reference.apply(move)
        assert _kept(mine) == _kept(reference)
    assert counted["built"] == 1
    mine.name_references()  # labels changed outside a move: counted again at the next
    reference.name_references()
    copy = mine.copy()
    order = mine.intermediates()
    for v in order:
        for state in (mine, reference, copy):
            state.eliminate_vertex(v)
        assert _kept(mine) == _kept(reference)
        assert _kept(copy) == _kept(reference)
        live = {id(label) for out in mine.succ.values() for label in out.values()}
        assert set(mine.algebra.tensor) <= live  # kept by identity
    assert len(order) > 10 and counted["built"] <= 3  # the first, after naming, the copy's
    assert mine.done() and mine.entries() == reference.entries()


def _printed(target, value):
    names = {value.id} if isinstance(value, Name) else set()
    return Printed(target, value, [f"    {target} = ..."], [], names)


def test_a_short_elementwise_run_is_looked_at_once_not_from_each_statement(monkeypatch):
    """A run of vectors below FROM entries is skipped whole (a run from a statement inside
    it has its length too), and a run long enough after it is still done by blocks."""
    n, steps = 9, 200
    shapes = {"u_": (n + 1,), "a0": (n,)}
    body = [_printed("a0", Index(Name("u_"), (Slice(1, n + 1),)))]
    for k in range(1, steps):
        shapes[f"a{k}"] = (n,)
        body.append(_printed(f"a{k}", Call("sin", (Name(f"a{k - 1}"),))))
    runs = collections.Counter()
    real = numpy_strips._run

    def counted(*args):
        runs["calls"] += 1
        return real(*args)

    monkeypatch.setattr(numpy_strips, "_run", counted)
    assert stripped(body, {f"a{steps - 1}"}, shapes) is None  # 9 entries: below FROM
    assert runs["calls"] == 1  # from each statement: 200 runs, 20,000 statements looked at
    monkeypatch.setattr(numpy_strips, "FROM", 2 * n)  # a run of 2n entries after the first
    shapes |= {"w_": (2 * n + 1,)} | {f"b{k}": (2 * n,) for k in range(6)}
    tail = [_printed("b0", Index(Name("w_"), (Slice(1, 2 * n + 1),)))]
    tail += [_printed(f"b{k}", Call("exp", (Name(f"b{k - 1}"),))) for k in range(1, 6)]
    lines = stripped(body + tail, {"b5"}, shapes)
    assert lines is not None and f"_strips(_strip, {2 * n}, " in "\n".join(lines)


def test_no_grid_is_looked_for_in_an_index_too_short_for_pieces(monkeypatch):
    """An index array of fewer than LEAST entries prints at its index (one piece would
    be too small): ``pieces`` is not asked; from LEAST entries on it is."""
    asked = []
    real = grid_numpy.pieces
    monkeypatch.setattr(grid_numpy, "pieces", lambda a, **kw: asked.append(a.size) or real(a, **kw))
    short = np.arange(grid_numpy.LEAST - 1)
    assert grid_numpy._split(short) is None and not asked
    found = grid_numpy._split(np.arange(grid_numpy.LEAST))
    assert asked == [grid_numpy.LEAST] and found is not None and len(found) == 1


def _loop_program() -> ArrayProgram:
    """A loop whose body computes ``sin(x)`` twice (merged once optimized)."""
    x, s = Name("x"), Name("s")
    body = LoopBody(
        ("x", "s"),
        (
            S("n", BinOp("+", Call("sin", (x,)), s)),
            S("y", BinOp("*", Call("sin", (x,)), s)),
        ),
        ("n", "y"),
    )
    loop = Loop((Name("x0"),), (Name("xs"),), (), body, 4)
    statements = [S("L", loop), S("c", Item(Name("L"), 0)), S("ys", Item(Name("L"), 1))]
    return ArrayProgram("f", ("x0", "xs"), ((3,), (4, 3)), ("x0", "xs"), statements, ["c", "ys"])


def test_a_loop_body_optimized_once_is_not_optimized_again(monkeypatch):
    """Optimizing a program whose loop body the pass gave already leaves the body as it
    is without a pass over it (a symmetric Hessian's narrowed programs carry the loops
    of the whole one); the program comes back equal."""
    program = _loop_program()
    once = optimize_statements(program.statements, program.results)
    body = once[0].value.body
    assert len(body.statements) == 3  # sin(x) computed once
    seen = []
    real = array_passes.common_subexpressions

    def counted(statements, results, prefix="_c"):
        seen.append(len(statements))
        return real(statements, results, prefix)

    monkeypatch.setattr(array_passes, "common_subexpressions", counted)
    again = optimize_statements(once, program.results)
    assert again == once and again[0].value.body is body
    assert seen == [len(once)]  # the program's statements alone, not the body's 3


def test_a_loop_body_is_shaped_once_per_argument_shapes(monkeypatch):
    """The shapes of a loop body are found once for its arguments' shapes, however many
    times the programs holding it are shaped."""
    program = _loop_program()
    shaped = []
    real = array_passes.array_shapes

    def counted(p, known=None):
        shaped.append(p.name)
        return real(p, known)

    monkeypatch.setattr(array_passes, "array_shapes", counted)
    first = array_shapes(program)
    second = array_shapes(program)
    assert first == second and first["ys"] == (4, 3) and first["c"] == (3,)
    assert shaped.count("body") == 1


def _slices(K: int, n: int):
    def f(x):
        import jax.numpy as jnp

        total = 0.0
        for k in range(K):
            total = total + jnp.sum(jnp.sin(x[k : n - K + k] * (1.0 + 0.01 * k)) * x[K - k : n - k])
        return total

    return f


def test_a_long_reference_moves_slices_and_pads_by_numpy_bit_for_bit(monkeypatch):
    """``run_eagerly`` of J·v of a gradient reading K slices (their transposes pads) gives
    JAX's own values bit for bit, and binds no slice or pad to XLA (each offset would be
    a compile of its own), nor its arithmetic (each shape would be: jaxpr_numpy.py)."""
    jax = pytest.importorskip("jax")
    from dgraph.frontends import jaxpr_arrays
    from dgraph.frontends.jaxpr_arrays import run_eagerly, x64

    K, n = 6, 40
    bound = collections.Counter()
    real = jaxpr_arrays.bind_equation

    def counted(eqn, args):
        bound[eqn.primitive.name] += 1
        return real(eqn, args)

    taken = collections.Counter()
    numpy_equation = jaxpr_arrays.numpy_equation

    def by_numpy(eqn, args):
        out = numpy_equation(eqn, args)
        taken[eqn.primitive.name] += out is not None
        return out

    monkeypatch.setattr(jaxpr_arrays, "bind_equation", counted)
    monkeypatch.setattr(jaxpr_arrays, "numpy_equation", by_numpy)
    with x64(jax):
        gradient = jax.grad(_slices(K, n))
        x = np.linspace(0.1, 0.9, n)
        v = np.cos(np.arange(n) * 0.7)
        closed = jax.make_jaxpr(lambda x, v: jax.jvp(gradient, (x,), (v,)))(x, v)
        kinds = collections.Counter(e.primitive.name for e in closed.jaxpr.eqns)
        got = run_eagerly(closed.jaxpr, closed.consts, [x, v])
        want = jax.jvp(gradient, (x,), (v,))
    assert kinds["pad"] >= K and taken["sin"] and taken["mul"]  # NumPy ran the arithmetic
    assert bound["slice"] == 0 and bound["pad"] == 0 and not any(bound.values())
    for a, b in zip(got, want, strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))


def _diagonal(n: int, offset: int) -> Sparse:
    """A fresh block of the entries (i, i + offset) of an n × n matrix (its own arrays:
    no sum knows it, as a product of an elimination is new)."""
    rows = np.arange(max(0, -offset), min(n, n - offset))
    return blocks.sparse((n,), (n,), rows, rows + offset)


def test_a_term_held_in_the_sum_is_placed_by_a_look_up_not_a_merge(monkeypatch):
    """The code generator places a term held in the sum's pattern (the band) by looking
    its entries up, the band's own entries every place in order: the places a merge
    gives, with no merge."""
    n = 300
    band = _diagonal(n, -2)
    for offset in (-1, 0, 1, 2):
        band = blocks.add(band, _diagonal(n, offset))
    term = _diagonal(n, 1)
    reference = blockops._places(blockops._flagged_merge(band, term)[1], band.nnz)
    merges = collections.Counter()
    flagged_merge = blockops._flagged_merge

    def counting(a, b):
        merges["calls"] += 1
        return flagged_merge(a, b)

    monkeypatch.setattr(blockops, "_flagged_merge", counting)
    for first, second, order in ((band, term, 1), (term, band, -1)):
        places = blockops._merged(first, second, band)
        for mine, theirs in zip(places, reference[::order], strict=True):
            assert mine.dtype == theirs.dtype
            assert np.array_equal(mine, theirs)
    assert blockops.fills(places[1], band.nnz)
    assert merges["calls"] == 0


def _merged_entries(monkeypatch) -> list[int]:
    """A counter of the pattern entries block sums merge: SciPy's merges of two patterns
    (pricing's and the code generator's) and the sorts of pending unions' keys."""
    from dgraph.codegen.tensor import blockops

    merged = [0]
    pattern_matrix, flagged = blocks._pattern_matrix, blockops._flagged_merge
    union = getattr(blocks, "_sorted_union", None)

    def counted_matrix(s, counts=False, flag=None):
        if flag is not None:
            merged[0] += s.nnz
        return pattern_matrix(s, counts, flag)

    def counted_flagged(a, b):
        merged[0] += a.nnz + b.nnz
        return flagged(a, b)

    def counted_union(*keys):
        merged[0] += sum(k.size for k in keys)
        return union(*keys)

    monkeypatch.setattr(blocks, "_pattern_matrix", counted_matrix)
    monkeypatch.setattr(blockops, "_flagged_merge", counted_flagged)
    if union is not None:
        monkeypatch.setattr(blocks, "_sorted_union", counted_union)
    return merged


def test_a_band_of_many_terms_is_not_merged_again_per_term(monkeypatch):
    """A Hessian edge summing K band terms one at a time (one per eliminated vertex, the
    band growing to 2K - 1 diagonals): the terms are pending keys in log-structured
    levels, not each merged into the whole band, so the entries merged grow about
    linearly in K (here 1.3x from K = 16 to 32; re-merging the band per term, 3.4x),
    and the Hessian is JAX's."""
    jax = pytest.importorskip("jax")
    import dgraph
    from dgraph.frontends.jaxpr_arrays import x64
    from tests import jax_reference as jref

    merged = _merged_entries(monkeypatch)
    n, counts = 200, {}
    x = np.linspace(0.1, 0.9, n)
    with x64(jax):
        for K in (16, 32):
            merged[0] = 0
            H = dgraph.hessian(_slices(K, n), x, sparse=True)
            counts[K] = merged[0]
            if K == 16:
                continue
            got = H(x)
            want = np.asarray(jref.hessian(_slices(K, n))(x))
            assert got.nnz == np.count_nonzero(want)
            assert np.max(np.abs(got.toarray() - want)) <= 1e-13 * np.max(np.abs(want))
            assert H.generated.check.ok and H.generated.expression_set.verified
    assert counts[32] <= 2 * counts[16], counts
