"""The scalar path's passes on array programs (dgraph.codegen.array_passes): common
subexpressions, dead statements and operation counts of an ArrayProgram, and the tensor
pipeline that runs them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.special
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from dgraph.cli import main
from dgraph.codegen.array_passes import (
    array_shapes,
    common_subexpressions,
    count_array_ops,
    dead_statements,
    optimize,
    optimize_statements,
)
from dgraph.codegen.counting import Ops
from dgraph.codegen.ir import (
    ArrayProgram,
    BinOp,
    Call,
    Const,
    Formula,
    Index,
    Name,
    Scatter,
    ScatterAdd,
    SegmentSum,
    Slice,
    UnaryOp,
)
from dgraph.codegen.ir import ArrayStatement as S
from dgraph.codegen.python import NumPyArrayPrinter
from dgraph.codegen.tensor.dialect import DIALECTS
from dgraph.codegen.tensor.module import tensor_program
from dgraph.methods import accumulate
from tests import jax_reference as jref

sys.path.insert(0, str(Path(__file__).parent))
from test_codegen_arrays import GRAPHS, moves

X, Y = Name("x"), Name("y")


def _exp(node):
    return Call("exp", (node,))


def _lines(statements) -> list[str]:
    printer = NumPyArrayPrinter()
    return [printer.statement(s).strip() for s in statements]


def _run(statements, results, arguments: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The statements' NumPy printing run on ``arguments`` (copies: a store changes its
    array); the values of ``results``."""
    space: dict = {"numpy": np, "scipy": scipy}
    exec("\n".join(DIALECTS["python"].helpers()), space)
    space.update({k: np.array(v) for k, v in arguments.items()})
    exec("\n".join(_lines(statements)), space)
    return [np.asarray(space[r]) for r in results]


# -- common subexpressions ---------------------------------------------------------------


def test_a_subexpression_computed_twice_becomes_one_statement():
    statements = [
        S("a", BinOp("+", _exp(X), _exp(X))),
        S("b", BinOp("*", BinOp("*", _exp(X), Y), Name("a"))),
        S("c", BinOp("*", Y, _exp(X))),  # the same product, operands the other way round
    ]
    out = common_subexpressions(statements, ["b", "c"])
    assert _lines(out) == [
        "_c1 = numpy.exp(x)",
        "a = _c1 + _c1",
        "c = y * _c1",
        "b = c * a",
    ]


def test_a_statement_equal_to_an_earlier_one_reads_its_name_but_a_result_stays():
    statements = [
        S("a", _exp(X)),
        S("b", BinOp("*", Const(1.0), _exp(X))),  # a leaf's copy of the same value
        S("r", _exp(X)),  # a result: the caller may change it, never an alias
        S("s", BinOp("+", Name("b"), Name("r"))),
    ]
    assert _lines(common_subexpressions(statements, ["r", "s"])) == [
        "a = numpy.exp(x)",
        "r = numpy.exp(x)",
        "s = a + r",
    ]


def test_a_formula_is_the_node_it_prints_as():
    f = Formula(sympy.exp(sympy.Symbol("_a0", real=True)), ((sympy.Symbol("_a0", real=True), X),))
    statements = [S("a", _exp(X)), S("b", BinOp("*", Const(2.0), f))]
    assert _lines(common_subexpressions(statements, ["a", "b"])) == [
        "a = numpy.exp(x)",
        "b = 2.0 * a",
    ]


def test_stores_and_what_reads_a_stored_array_are_kept_apart():
    """A statement with ``at`` writes into an array: never merged, never dropped while its
    array is needed; what reads that array before and after the store differs."""
    statements = [
        S("buf", Call("zeros", (Const((3,)),))),
        S("p", BinOp("*", Name("buf"), X)),
        S("buf", BinOp("*", _exp(Y), Const(2.0)), (Const(0),)),
        S("buf", BinOp("*", _exp(Y), Const(2.0)), (Const(1),)),
        S("q", BinOp("*", Name("buf"), X)),
        S("r", BinOp("+", Name("p"), Name("q"))),
    ]
    out = optimize_statements(statements, ["r"])
    assert _lines(out) == [
        "buf = numpy.zeros((3,))",
        "p = buf * x",
        "_c1 = numpy.exp(y) * 2.0",
        "buf[0] = _c1",
        "buf[1] = _c1",
        "q = buf * x",
        "r = p + q",
    ]
    args = {"x": np.array([0.5, 1.0, 2.0]), "y": np.array(0.25)}
    assert np.array_equal(_run(out, ["r"], args)[0], _run(statements, ["r"], args)[0])


def test_a_scatter_is_computed_once_and_a_store_into_a_given_buffer_is_kept():
    scatter = Scatter(4, Name("K"), _exp(X))
    statements = [
        S("unused", ScatterAdd(Name("a"), ((Name("K"), _exp(Y)),))),
        S("a", BinOp("+", scatter, Const(1.0))),
        S("b", BinOp("*", scatter, Const(3.0))),
        S("out", BinOp("-", Name("b"), Name("a")), (Const(Ellipsis),)),  # the caller's: kept
    ]
    out = optimize_statements(statements, [])
    assert _lines(out) == [
        "_c1 = _scatter(4, K, numpy.exp(x))",
        "a = _c1 + 1.0",
        "b = _c1 * 3.0",
        "out[...] = b - a",
    ]
    args = {"x": np.array([0.1, 0.2]), "K": np.array([3, 0]), "out": np.zeros(4)}
    before = _run(statements[1:], ["out"], args)[0]
    assert np.array_equal(_run(out, ["out"], args)[0], before)
    e1, e2 = np.exp(0.1), np.exp(0.2)
    assert before.tolist() == pytest.approx([2 * e2 - 1, -1, -1, 2 * e1 - 1])


# -- dead statements ---------------------------------------------------------------------


def test_dead_statements_go():
    statements = [
        S("a", _exp(X)),
        S("b", BinOp("*", Name("a"), Y)),  # read only by dead ones
        S("c", BinOp("+", Name("b"), Y)),
        S("d", BinOp("-", Name("a"), Y)),
    ]
    assert [s.target for s in dead_statements(statements, ["d"])] == ["a", "d"]
    assert dead_statements(statements, []) == []


def test_a_store_into_an_array_nothing_needs_goes_with_it():
    statements = [
        S("t", Call("zeros", (Const((2,)),))),
        S("t", _exp(X), (Const(0),)),
        S("u", BinOp("*", X, Y)),
    ]
    assert [s.target for s in dead_statements(statements, ["u"])] == ["u"]
    assert [s.target for s in dead_statements(statements, ["t"])] == ["t", "t"]


# -- counting ----------------------------------------------------------------------------


def test_the_counts_of_a_small_program():
    a, b = sympy.symbols("a b", real=True)
    statements = [
        S("p", Call("einsum", (Const("ij,jk->ik"), X, Y))),  # (4,3)(3,5): 60 mults, 40 adds
        S("q", BinOp("+", _exp(Name("p")), Name("v"))),  # 20 calls, 20 adds ((4,5) + (5,))
        S("r", Call("sum", (Name("q"),), (("axis", Const(0)),))),  # 15 adds
        S("s", BinOp("*", Const(1.0), UnaryOp("-", Name("r")))),  # free: a copy, a negation
        S("t", BinOp("**", Name("r"), Const(3))),  # 2 mults an entry: 10
        S("u", Formula(sympy.sin(a) * b, ((a, Name("r")), (b, Name("s"))))),  # 5 calls, 5 mults
        S("w", BinOp("/", Index(Name("u"), (Name("K"),)), Name("t"))),  # a gather, 5 divs
        S("z", SegmentSum(Name("w"), Name("K"), 3)),  # 5 entries into 3 sums: 2 adds
        S("e", ScatterAdd(Name("z"), ((Name("J"), Name("w")),))),  # 5 adds
        S("m", BinOp("<", Name("e"), Call("maximum", (Name("e"), Const(0.0))))),  # 3 + 3
        S("f", BinOp("*", Const(2.0), Const(3.0))),  # a constant: folded
    ]
    program = ArrayProgram(
        "f", ("x", "y", "v"), ((4, 3), (3, 5), (5,)), ("x", "y", "v"), statements, ["m"]
    )
    program.constant_shapes.update({"K": (5,), "J": (5,)})
    count = count_array_ops(program)
    assert count.complete
    assert count.ops == Ops(mults=75, adds=82, divs=5, calls=25, compares=6)
    shapes = array_shapes(program)
    assert (shapes["p"], shapes["q"], shapes["w"], shapes["z"]) == ((4, 5), (4, 5), (5,), (3,))


def test_a_deep_statement_is_counted_in_one_pass(monkeypatch):
    """Whether a node is a folded constant is known from one pass over its statement (it
    walked each node's subtree: a chain of depth d, d²/2 nodes); a shared subtree is
    walked once. Each level: (v + 2·3)·x, 4 adds and 4 mults, the constant 2·3 free."""
    from dgraph.codegen import ir

    x, node = Name("x"), Name("x")
    shared = BinOp("*", Const(2.0), Const(3.0))
    for _ in range(300):
        node = BinOp("*", BinOp("+", node, shared), x)
    walked = []
    walk = ir.walk
    monkeypatch.setattr(ir, "walk", lambda n: walked.append(n) or walk(n))
    program = ArrayProgram("f", ("x",), ((4,),), ("x",), [S("y", node)], ["y"])
    count = count_array_ops(program)
    assert count.complete and len(walked) <= 2  # not a walk per node (601 of them)
    assert count.ops == Ops(mults=1200, adds=1200)


def test_what_has_no_shape_is_named_not_guessed():
    program = ArrayProgram(
        "f", ("x",), ((2,),), ("x",), [S("a", BinOp("*", X, Name("unknown")))], ["a"]
    )
    count = count_array_ops(program)
    assert count.ops == Ops() and count.uncounted == ("a: *",)
    assert count_array_ops(program, {"unknown": (3, 2)}).ops == Ops(mults=6)


# -- random programs ---------------------------------------------------------------------

_LEAVES = [X, Y, Const(2.0), Const(0.5)]


@st.composite
def _programs(draw):
    """Straight-line programs over x, y (shape (3,)): nested elementwise operations, with
    a pool of earlier subtrees drawn again (what CSE merges), stores into a buffer, some
    statements no result reads, and comparisons, booleans added as they are or times
    1.0 (``c + c`` is a logical or, ``1.0 * c + c`` is 2)."""
    pool: list = list(_LEAVES)
    booleans: list = []
    names: list[str] = []
    statements = [S("buf", Call("zeros", (Const((3,)),)))]
    for k in range(draw(st.integers(1, 8))):
        kinds = ["binop", "call", "neg", "copy", "store", "gather", "compare"]
        kind = draw(st.sampled_from(kinds + (["boolean"] if booleans else [])))
        a = draw(st.sampled_from(pool))
        b = draw(st.sampled_from(pool))
        if kind == "binop":
            node = BinOp(draw(st.sampled_from(["+", "-", "*"])), a, b)
        elif kind == "call":
            node = Call(draw(st.sampled_from(["sin", "exp", "tanh"])), (a,))
        elif kind == "neg":
            node = UnaryOp("-", a)
        elif kind == "copy":
            node = BinOp("*", Const(1.0), a)
        elif kind == "compare":
            booleans.append(BinOp("<", a, b))
            if draw(st.booleans()):
                statements.append(S(f"c{k}", booleans[-1]))
                booleans.append(Name(f"c{k}"))
            continue
        elif kind == "boolean":
            p, q = (draw(st.sampled_from(booleans)) for _ in range(2))
            p, q = (BinOp("*", Const(1.0), c) if draw(st.booleans()) else c for c in (p, q))
            node = BinOp("*", Const(1.0), BinOp("+", p, q))
        elif kind == "gather":
            node = BinOp("+", Index(draw(st.sampled_from([X, Y])), (Name("K"),)), b)
        else:
            at = (Const(draw(st.integers(0, 2))),)
            statements.append(S("buf", Call("sum", (BinOp("*", a, b),)), at))
            continue
        pool.append(node)
        name = f"s{k}"
        statements.append(S(name, node))
        names.append(name)
        pool.append(Name(name))
        pool.append(BinOp("+", Name("buf"), Name(name)))  # reads the stored array
    results = draw(st.lists(st.sampled_from(names), max_size=3, unique=True)) if names else []
    return statements, [*results, "buf"]


@settings(max_examples=200, deadline=None)
@given(_programs())
def test_random_programs_compute_the_same_after_the_passes(drawn):
    statements, results = drawn
    args = {"x": np.array([0.3, -1.2, 2.0]), "y": np.array([1.5, 0.25, -0.7])}
    args["K"] = np.array([2, 0, 1])
    before = _run(statements, results, args)
    out = optimize_statements(statements, results)
    after = _run(out, results, args)
    for u, v in zip(before, after, strict=True):
        assert np.array_equal(u, v, equal_nan=True)
    program = ArrayProgram("f", ("x", "y"), ((3,), (3,)), ("x", "y"), statements, results)
    program.constant_shapes["K"] = (3,)
    passed = optimize(program)
    assert passed.statements == out
    assert count_array_ops(passed).ops.total <= count_array_ops(program).ops.total
    assert optimize(passed).statements == out  # nothing left to merge or drop


# -- the tensor pipeline -----------------------------------------------------------------


def test_the_tensor_pipeline_merges_a_derivative_that_is_the_value():
    """``moves``: d e / d b = exp(b) is the vertex e's value, computed once."""
    g = moves()[0]
    program = tensor_program(accumulate(g, "forward"), "python")
    text = "\n".join(_lines(program.statements))
    assert text.count("numpy.exp(") == 1
    # exp of a (4, 6) broadcast: 24 calls; one product of 24 entries (z·e: the moves' ones
    # are the number 1, not a second product); 24 entries summed into 6 (bincount): 18
    # adds; the copies and the transposing einsum are free
    assert count_array_ops(program).ops == Ops(mults=24, adds=18, calls=24)


@pytest.mark.parametrize("build", GRAPHS, ids=lambda b: b.__name__)
@pytest.mark.parametrize("lang", ["python", "jax"])
def test_tensor_programs_are_at_the_passes_fixed_point(build, lang):
    g = build()[0]
    program = tensor_program(accumulate(g, "forward"), lang)
    assert optimize(program).statements == program.statements
    assert count_array_ops(program).complete


def test_cli_codegen_reports_the_array_programs_operations(tmp_path, capsys):
    g = moves()[0]
    (tmp_path / "g.json").write_text(g.to_json())
    out = tmp_path / "jac.py"
    assert main(["codegen", str(tmp_path / "g.json"), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "jacobian: 24 mults, 18 adds, 0 divs, 24 calls (the array program" in text
    assert main(["codegen", str(tmp_path / "g.json"), "-o", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["functions"]["jacobian"]["mults"] == 24 and summary["uncounted"] == 0


_ITEMS = st.one_of(
    st.builds(
        Slice,
        st.none() | st.integers(-4, 4),
        st.none() | st.integers(-4, 4),
        st.none() | st.sampled_from([-2, -1, 1, 2, 3]),
    ),
    st.integers(-3, 3).map(Const),
    st.sampled_from([Name("i"), Name("ii"), Name("iii"), Name("iiii")]),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 4), min_size=1, max_size=4),
    st.lists(_ITEMS, min_size=1, max_size=4),
    st.lists(st.lists(st.integers(1, 3), max_size=2), min_size=4, max_size=4),
)
def test_an_index_shape_is_numpys_without_gathering(value, items, index_shapes):
    """The indexing rule (slices, integers, integer arrays, advanced indices adjacent or
    apart, broadcast) gives NumPy's shape, or fails where NumPy raises."""
    shapes = {"i" * (k + 1): tuple(s) for k, s in enumerate(index_shapes)}
    statement = S("y", Index(Name("x"), tuple(items)))
    program = ArrayProgram("f", ("x",), (tuple(value),), ("x",), [statement], ["y"],
                           constant_shapes=shapes)  # fmt: skip
    key = []
    for item in items:
        if isinstance(item, Slice):
            key.append(slice(item.lower, item.upper, item.step))
        elif isinstance(item, Const):
            key.append(item.value)
        else:
            key.append(np.zeros(shapes[item.id], np.intp))
    try:
        want = np.zeros(value)[tuple(key)].shape
    except (IndexError, ValueError):
        want = None
    assert array_shapes(program)["y"] == want


def test_an_index_shape_is_found_without_a_stand_in_of_its_size():
    """10¹² positions: NumPy's stand-in result would need a terabyte (MemoryError); the
    rule gives the shape from the index's shape alone (a Hessian's index at 10⁶ unknowns
    holds 10⁷ entries, gathered once per shape found)."""
    program = ArrayProgram("f", ("x",), ((7_000_000, 3),), ("x",),
                           [S("y", Index(Name("x"), (Name("k"), Slice(0, 2))))], ["y"],
                           constant_shapes={"k": (10**6, 10**6)})  # fmt: skip
    assert array_shapes(program)["y"] == (10**6, 10**6, 2)


def test_a_gather_s_shape_is_found_without_gathering():
    """``v[k]`` with one integer array ``k``: its shape, then ``v``'s other axes, found
    by the rule alone (an index of 10¹² entries would need a terabyte to gather)."""
    from dgraph.codegen.array_passes import _index_shape
    from dgraph.codegen.ir import Name

    def shape_of(shape):
        return lambda node: shape

    assert _index_shape((5,), (Name("k"),), shape_of((10**12,))) == (10**12,)
    assert _index_shape((3, 4), (Name("k"),), shape_of((2, 7))) == (2, 7, 4)
    assert _index_shape((3, 4), (Name("k"),), shape_of(())) == (4,)
    assert _index_shape((3, 4), (Name("k"),), shape_of(None)) is None


_NOT_ELEMENTWISE = {  # the call, then the operands' shapes (one 2-D matrix, a 1-D vector)
    "argmax": (Call("argmax", (Name("a"),)), (4, 3)),
    "argmax_axis": (Call("argmax", (Name("a"),), (("axis", Const(0)),)), (4, 3)),
    "argmin_axis": (Call("argmin", (Name("a"),), (("axis", Const(-1)),)), (4, 3)),
    "prod_axes": (Call("prod", (Name("a"),), (("axis", Const((0,))),)), (4, 3)),
    "prod": (Call("prod", (Name("a"),)), (4, 3)),
    "cumprod": (Call("cumprod", (Name("a"),)), (4, 3)),
    "moveaxis": (Call("moveaxis", (Name("a"), Const(0), Const(-1))), (4, 3, 2)),
    "frexp": (Index(Call("frexp", (Name("a"),)), (Const(1),)), (4, 3)),
}


@pytest.mark.parametrize("name", sorted(_NOT_ELEMENTWISE))
def test_reductions_and_moves_are_shaped_as_numpy_computes_them(name):
    """``argmax`` (no axis: a 0-d position), ``argmin``, ``prod``, ``cumprod``, ``moveaxis``
    and ``frexp``'s parts: NumPy's shapes (main took them as elementwise: argmax of 4×3
    as 4×3, and an LU's pivots' parity as a vector, into which the NumPy form wrote in
    place: ``numpy.add(t, K, out=t)`` on a NumPy scalar, a TypeError)."""
    node, shape = _NOT_ELEMENTWISE[name]
    program = ArrayProgram("f", ("a",), (shape,), ("a",), [S("y", node)], ["y"])
    a = np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)
    kw = dict(node.keywords) if isinstance(node, Call) else {}
    call = node if isinstance(node, Call) else node.value
    args = [ir_value.value for ir_value in call.args[1:]]
    want = getattr(np, call.func)(a, *args, **{k: v.value for k, v in kw.items()})
    want = want[node.items[0].value] if isinstance(node, Index) else want
    assert array_shapes(program)["y"] == np.shape(want)


def test_a_triangular_solve_is_shaped_as_its_right_hand_side():
    """``solve_triangular(T, b)``: b's shape (main: T's and b's broadcast, 5×5 for a
    vector b of 5)."""
    solve = Call("scipy.linalg.solve_triangular", (Name("t"), Name("b")))
    program = ArrayProgram("f", ("t", "b"), ((5, 5), (5,)), ("t", "b"), [S("y", solve)], ["y"])
    assert array_shapes(program)["y"] == (5,)


def test_an_arg_extreme_or_product_drops_its_axis_as_a_reduction():
    """``argmax``/``argmin``/``prod`` over an axis drop it (they were taken for elementwise
    functions: ``argmax`` of a (3, 8) stack over axis 0 had shape (3, 8), and an einsum
    reading it failed to count, a traceback from ``make_function``)."""
    stack = ArrayProgram("f", ("x",), ((3, 8),), ("x",), [
        S("a", Call("argmax", (X,), (("axis", Const(0)),))),
        S("b", Call("argmin", (X, Const(1)))),
        S("c", Call("prod", (X,), (("axis", Const((0, 1))),))),
        S("d", Call("argmax", (X,))),
        S("e", Call("einsum", (Const("a,ab->ab"), Name("a"), Call("ones", (Const((8, 2)),))))),
    ], ["e"])  # fmt: skip
    shapes = array_shapes(stack)
    assert [shapes[k] for k in "abcde"] == [(8,), (3,), (), (), (8, 2)]
    assert count_array_ops(stack).ops.mults == 16


def test_a_margin_by_argmax_and_select_differentiates_as_jax():
    """A multiclass smoothed hinge (the best wrong class by ``jnp.argmax``, a gather by
    ``jnp.take_along_axis``, three pieces by ``jnp.select``: benchmarks/real_programs6.py's
    argmax_margin_select), its gradient against JAX's at a point on all three pieces."""
    import jax
    import jax.numpy as jnp

    import dgraph

    onehot = np.eye(4)[[0, 2, 1]]

    def f(x):
        S = x.reshape(3, 4)
        true = jnp.sum(S * onehot, axis=1)
        j = jnp.argmax(jnp.where(onehot > 0, -jnp.inf, S), axis=1)
        m = 1.0 - true + jnp.take_along_axis(S, j[:, None], axis=1)[:, 0]
        return jnp.mean(jnp.select([m <= 0, m < 1], [0.0 * m, 0.5 * m**2], m - 0.5))

    x = np.array(
        [3.0, 0.0, 0.5, -1.0, 0.2, -0.1, 0.9, 0.3, 0.5, -0.7, 1.2, 0.1]
    )  # m: -1.5, 0.4, 2.9
    with jax.enable_x64(True):
        want = np.asarray(jref.jacrev(f)(jnp.asarray(x)))
    made = dgraph.make_function(f, "jacobian", "python", point=[x])
    np.testing.assert_allclose(np.ravel(made(x)), want, rtol=1e-12, atol=1e-14)
