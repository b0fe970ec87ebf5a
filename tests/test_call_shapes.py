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
from dgraph.codegen.ir import ArrayProgram, ArrayStatement, Call, Const, Index, Name
from dgraph.codegen.shapes import Shaped, ShapeInference

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
