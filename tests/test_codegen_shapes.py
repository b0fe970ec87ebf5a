"""Shape inference of array nodes (dgraph.codegen.shapes): every node kind's shape and
dtype equal those of its value (the IR evaluator's, which gives the NumPy printing's bits),
without running the program; a node without a rule is one ShapeError (issue 53)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import sympy

from dgraph.codegen.evaluate import ArrayEvaluator
from dgraph.codegen.ir import (
    ArrayStatement,
    AsType,
    BinOp,
    Call,
    Const,
    Entries,
    Formula,
    Index,
    Name,
    Seq,
    Slice,
    UnaryOp,
)
from dgraph.codegen.shapes import Shaped, ShapeError, ShapeInference, program_shapes
from dgraph.errors import DGraphError

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _check(statements, env) -> dict:
    """Every target's inferred shape and dtype against its evaluated value."""
    inferred = ShapeInference({k: Shaped.of(v) for k, v in env.items()}).run(statements)
    values = ArrayEvaluator().run(statements, dict(env))
    for s in statements:
        value = np.asarray(values[s.target])
        assert inferred[s.target].shape == value.shape, s.target
        assert inferred[s.target].dtype == value.dtype, s.target
    return inferred


def test_every_statement_kind_of_the_c_values_program():
    from test_codegen_c_values import _every_kind

    program = _every_kind()
    inferred = program_shapes(program)
    env = {**program.constants, "x": np.ones(program.shapes[0])}
    values = ArrayEvaluator().run(program.statements, env)
    for s in program.statements:
        want = values[s.target]
        assert inferred[s.target].shape == want.shape, s.target
        if not hasattr(want, "toarray"):
            assert inferred[s.target].dtype == want.dtype, s.target
    assert inferred["n"].dtype == np.int64 and inferred["e"].shape == (10,)
    assert inferred["_K0"].value is program.constants["_K0"]  # constants: their arrays


def f(func, *args, **keywords):
    return Call(func, tuple(args), tuple(keywords.items()))


X, K, B = Name("x"), Name("k"), Name("b")
A0, A1 = sympy.symbols("a0 a1")
CASES = {
    "views": [
        Index(X, (Const(Ellipsis), Const(None), Slice(None, None, -2))),
        Index(X, (Const(-1), Slice(5, 1, -1))),
        f("transpose", X),
        f("broadcast_to", f("reshape", X, Const((4, 1, -1))), Const((2, 4, 3, 6))),
        f("flip", X, Const(0)),
    ],
    "gathers": [Index(f("ravel", X), (K,)), f("take", X, K, axis=Const(1)), f("take", X, K)],
    "reductions": [
        f("sum", X, axis=Const((0,)), keepdims=Const(True)),
        f("sum", K),
        f("sum", B, axis=Const(-1)),
        f("max", X, axis=Const(1)),
        f("min", K),
        f("cumsum", K),
        f("cumsum", X, axis=Const(0)),
    ],
    "joins": [
        f("concatenate", Seq((X, X)), axis=Const(-1)),
        f("concatenate", Seq((f("ravel", X), K))),
        f("concatenate", Seq((X, K)), axis=Const(None)),
        f("stack", Seq((X, X)), axis=Const(2)),
        f("pad", X, Const(((1, 0), (2, 3))), constant_values=Const(0.5)),
        f("pad", K, Const(1)),
    ],
    "einsums": [
        f("einsum", Const("ab,bc->ac"), X, f("transpose", X)),
        f("einsum", Const("ab,ab"), X, X),
        f("einsum", Const("ba"), X),
        f("einsum", Const("ab->b"), B),
    ],
    "elementwise": [
        BinOp("*", K, Const(2)),
        BinOp("/", K, Const(2)),
        BinOp("**", K, Const(2)),
        BinOp("+", K, Const(0.5)),
        BinOp("<", X, Const(1.0)),
        UnaryOp("-", K),
        f("exp", K),
        f("special.erf", X),
        f("maximum", X, Const(1)),
        f("heaviside", X, Const(0.5)),
        f("logical_and", B, B),
        f("where", B, K, Const(1.5)),
        f("where", B, K, Const(1)),
        f("round", X),
        AsType(BinOp("*", Const(3.0), X), "int"),
        f("asarray", X, dtype=Const(float)),
        f("asarray", Const((1, 2, 3))),
        Formula(A0 * A1 + 1, ((A0, K), (A1, K))),
        Formula(A0 / A1, ((A0, K), (A1, K))),
        Formula(sympy.Max(A0, A1) + sympy.exp(A0), ((A0, X), (A1, Const(2.0)))),
        Formula(sympy.Integer(3), ()),
        Entries((Index(X, (Const(0), Const(1))), Const(1.0)), (2, 1)),
    ],
    "made": [
        f("full", Const((2, 3)), Const(2.0)),
        f("full", Const(3), Const(2)),
        f("zeros", Const((2,))),
        f("ones", Const(5)),
        f("zeros_like", K),
        f("eye", Const(3), dtype=f("result_type", K)),
        f("arange", Const(7)),
        f("arange", Const(1), Const(8), Const(3)),
        f("arange", Const(0.5), Const(2.0), Const(0.5)),
        Call("array", (X,), (("dtype", Const(float)),)),
    ],
}


@pytest.mark.parametrize("name", list(CASES))
def test_node_kinds_and_array_functions(name):
    env = {
        "x": np.linspace(0.5, 1.5, 24).reshape(4, 6),
        "k": np.array([5, 1, 3], dtype=np.int32),
        "b": np.array([[True, False, True]]),
    }
    statements = [ArrayStatement(f"y{k}", node) for k, node in enumerate(CASES[name])]
    _check(statements, env)


def test_a_store_keeps_the_shape_of_its_target():
    statements = [
        ArrayStatement("y", f("zeros", Const((3, 2)))),
        ArrayStatement("y", Const(1.0), (Const(0), Const(1))),
    ]
    inferred = ShapeInference({}).run(statements)
    assert inferred["y"] == Shaped((3, 2), np.dtype(float))


def test_no_rule_and_bad_shapes_are_one_clear_error():
    inference = ShapeInference({"x": Shaped((4,), np.dtype(float))})
    with pytest.raises(ShapeError, match="no shape rule for the array function nonesuch"):
        inference.of(f("nonesuch", X))
    with pytest.raises(ShapeError, match=r"linalg\.inv"):
        inference.of(f("linalg.inv", X))
    with pytest.raises(DGraphError, match=r"cannot reshape 4 entries to \(3,\)"):
        inference.of(f("reshape", X, Const((3,))))
    with pytest.raises(DGraphError, match="y is not defined"):
        inference.of(Name("y"))


def test_the_c_values_printer_infers_shapes_without_evaluating():
    """c_values reads shapes from the inference, not from a run on random inputs."""
    source = (Path(__file__).resolve().parents[1] / "dgraph/codegen/tensor/c_values.py").read_text()
    assert "from ..shapes import" in source
    assert "ArrayEvaluator" not in source and "default_rng" not in source
