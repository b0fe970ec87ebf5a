"""One rule table for the shapes of calls (:mod:`dgraph.codegen.call_shapes`): the passes'
inference (:func:`~dgraph.codegen.array_passes.array_shapes`) and the C printers'
(:class:`~dgraph.codegen.shapes.ShapeInference`) give NumPy's shapes and the same shape on
every statement of generated programs."""

from __future__ import annotations

import collections
import sys
from pathlib import Path

import numpy as np
import pytest

from dgraph.codegen.array_passes import array_shapes
from dgraph.codegen.ir import ArrayProgram, ArrayStatement, Call, Const, Index, Name, Seq
from dgraph.codegen.shapes import Shaped, ShapeError, ShapeInference

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

_CALLS = {  # the call and its operand's shape
    "prod_axes": (Call("prod", (Name("a"),), (("axis", Const((0,))),)), (4, 3)),
    "prod": (Call("prod", (Name("a"),)), (4, 3)),
    "cumprod": (Call("cumprod", (Name("a"),)), (4, 3)),
    "cumprod_axis": (Call("cumprod", (Name("a"),), (("axis", Const(-1)),)), (4, 3)),
    "expand_dims": (Call("expand_dims", (Name("a"), Const(-1))), (4, 3)),
    "moveaxis": (Call("moveaxis", (Name("a"), Const(0), Const(-1))), (4, 3, 2)),
    "swapaxes": (Call("swapaxes", (Name("a"), Const(0), Const(2))), (4, 3, 2)),
    "frexp": (Index(Call("frexp", (Name("a"),)), (Const(1),)), (4, 3)),
    "tril": (Call("tril", (Name("a"),), (("k", Const(-1)),)), (4, 3)),
    "clip": (Call("clip", (Name("a"), Const(0.7), Const(1.2))), (4, 3)),
    "matmul": (Call("matmul", (Name("a"), Call("transpose", (Name("a"),)))), (4, 3)),
}


@pytest.mark.parametrize("name", sorted(_CALLS))
def test_both_inferences_give_numpys_shape_and_the_printers_its_type(name):
    """Each call of the shared table, against NumPy run on an array (main: the C
    printers' inference had no rule for prod, cumprod, expand_dims, moveaxis, swapaxes,
    frexp, tril, clip, matmul: 'no shape rule for the array function ...')."""
    node, shape = _CALLS[name]
    a = np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)
    call = node if isinstance(node, Call) else node.value
    args = [arg.value if isinstance(arg, Const) else a.T for arg in call.args[1:]]
    want = getattr(np, call.func)(a, *args, **{k: v.value for k, v in call.keywords})
    want = np.asarray(want[node.items[0].value] if isinstance(node, Index) else want)
    program = ArrayProgram("f", ("a",), (shape,), ("a",), [ArrayStatement("y", node)], ["y"])
    assert array_shapes(program)["y"] == want.shape
    got = ShapeInference({"a": Shaped(shape, np.dtype(float))}).of(node)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)


@pytest.mark.parametrize("family", ["det_hessian", "cumprod_jacobian"])
def test_both_inferences_agree_on_every_statement_of_generated_programs(family):
    """Every statement of the programs a det sparse Hessian and a cumprod·prod Jacobian
    generate: both inferences know its shape and give the same one
    (main: the C printers' refused 32 statements of the det Hessian (tril, triu, clip,
    matmul, linalg.inv) and 5 of the cumprod Jacobian, where the passes' knew them; the
    passes' did not know 5 the printers' knew: an index with ``...``)."""
    import shape_parity

    found = shape_parity.programs(shape_parity.FAMILIES[family])
    assert found
    tally: collections.Counter = collections.Counter()
    for program in found:
        tally += shape_parity.compare(program)
    assert set(tally) == {"agree"}, tally
    assert tally["agree"] >= 14


def _f(func, *args, **keywords):
    return Call(func, args, tuple((k, Const(v)) for k, v in keywords.items()))


A = Name("a")
_ARGUMENTS = {  # NumPy's other ways of passing the same parameters, and broadcasting
    "take_negative_axis": _f("take", A, Const(np.array([2, 0])), axis=-1),
    "take_positional_axis": _f("take", A, Const(np.array([2, 0])), Const(1)),
    "einsum_size_one_axis": _f(
        "einsum", Const("ij,ij->ij"), _f("sum", A, axis=1, keepdims=True), A
    ),
    "einsum_spaces": _f("einsum", Const("ij, kj -> ik"), A, A),
    "pad_one_width": _f("pad", A, Const(1)),
    "pad_one_pair": _f("pad", A, Const(((1, 2),))),
    "transpose_axes": _f("transpose", _f("reshape", A, Const((2, 2, 3))), axes=(1, 0, 2)),
    "concatenate_positional_axis": _f("concatenate", Seq((A, A)), Const(1)),
    "stack_positional_axis": _f("stack", Seq((A, A)), Const(-1)),
    "reshape_shape": _f("reshape", A, shape=(3, -1)),
    "broadcast_to_shape": _f("broadcast_to", _f("sum", A, axis=0), shape=(2, 4, 3)),
}


def _numpy(node, a):
    """``node`` run by NumPy on ``a`` (the IR evaluator: NumPy's own calls)."""
    from dgraph.codegen.evaluate import ArrayEvaluator

    return np.asarray(ArrayEvaluator().run([ArrayStatement("y", node)], {"a": a})["y"])


@pytest.mark.parametrize("name", sorted(_ARGUMENTS))
def test_both_inferences_read_numpys_arguments_as_numpy_does(name):
    """Axes passed by position or by keyword, a negative axis, pad widths NumPy
    broadcasts, an einsum with spaces or an axis of length 1 broadcast: both inferences
    give NumPy's shape (main: the passes' gave transpose(axes=) (3, 2, 2), concatenate
    along a positional axis 1 (8, 3), stack along -1 (2, 4, 3) and the printers' einsum
    (4, 1) where NumPy gives (2, 2, 3), (4, 6), (4, 3, 2) and (4, 3); the passes' knew no
    shape for the other seven)."""
    node = _ARGUMENTS[name]
    a = np.linspace(0.5, 1.5, 12).reshape(4, 3)
    want = _numpy(node, a)
    program = ArrayProgram("f", ("a",), ((4, 3),), ("a",), [ArrayStatement("y", node)], ["y"])
    assert array_shapes(program)["y"] == want.shape
    got = ShapeInference({"a": Shaped((4, 3), np.dtype(float))}).of(node)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)


_REFUSED = {  # calls NumPy refuses
    "reshape": _f("reshape", A, Const((5,))),
    "concatenate": _f("concatenate", Seq((A, _f("transpose", A))), axis=0),
    "stack": _f("stack", Seq((A, _f("transpose", A)))),
    "transpose": _f("transpose", A, Const((0, 0))),
    "einsum": _f("einsum", Const("ij,ij->ij"), A, _f("transpose", A)),
}


@pytest.mark.parametrize("name", sorted(_REFUSED))
def test_a_call_numpy_refuses_has_no_shape_in_either_inference(name):
    """The passes' shape is unknown (None) and the printers' is one ShapeError line
    naming the call (main: the passes' gave reshape (5,), concatenate (7, 3), stack
    (2, 4, 3), transpose (4, 4), einsum (4, 4); the printers' the same but for reshape,
    refused, and einsum, (4, 3))."""
    node = _REFUSED[name]
    with pytest.raises(ValueError):
        _numpy(node, np.ones((4, 3)))
    program = ArrayProgram("f", ("a",), ((4, 3),), ("a",), [ArrayStatement("y", node)], ["y"])
    assert array_shapes(program)["y"] is None
    with pytest.raises(ShapeError, match=name) as caught:
        ShapeInference({"a": Shaped((4, 3), np.dtype(float))}).of(node)
    assert "\n" not in str(caught.value)
