"""The array passes' value numbering (dgraph/codegen/array_passes.py, ``_Numbering``):
its fast keys are the keys the fields give, and a loop's body is printed once for its
key however many rounds of merging number the loop (counted, never timed)."""

from __future__ import annotations

import numpy as np
import sympy

from dgraph.codegen import array_passes, ir
from dgraph.codegen.array_passes import _fields_key, _generic_key, _Numbering, optimize_statements
from dgraph.codegen.ir import ArrayStatement as S
from dgraph.codegen.ir import (
    AsType,
    BinOp,
    Call,
    Cond,
    Const,
    Formula,
    Index,
    Item,
    Loop,
    LoopBody,
    Name,
    Scatter,
    Slice,
    UnaryOp,
)

X, Y = Name("x"), Name("y")
A = sympy.Symbol("_a0", real=True)


def _body() -> LoopBody:
    """A fresh body object each call (equal text: equal keys)."""
    return LoopBody(("c", "w"), (S("n", BinOp("*", Call("sin", (Name("c"),)), Name("w"))),), ("n",))


def _nodes() -> list:
    """A node of every kind the fast paths take, and of some they leave to the fields."""
    loop = Loop((X,), (), (Y,), _body(), 3)
    return [
        X,
        Const(2), Const(2.0), Const(True), Const("ij,j->i"), Const(None), Const((3, 4)),
        Const(np.arange(3.0)), Const(-0.0),
        BinOp("+", X, Y), BinOp("-", Y, X), BinOp("*", X, X), BinOp("<", X, Y),
        UnaryOp("-", X),
        Call("exp", (X,)), Call("reshape", (X, Const((3, 1)))),
        Call("sum", (X,), (("axis", Const(0)),)), Call("zeros", (Const((3,)),)),
        Call("einsum", (Const("i,i->"), X, Y)),
        AsType(X, "float"), Item(X, 1),
        Index(X, (Slice(0, 2, None),)), Index(X, (Const(1), Name("K"))), Slice(None, 3, 2),
        Scatter(4, Name("K"), X), Formula(sympy.exp(A) * 2, ((A, X),)),
        loop, Item(loop, 0),
        Cond(BinOp(">", X, Const(0.0)), (X, Y), (_body(), _body())),
    ]  # fmt: skip


def test_the_fast_keys_are_the_keys_of_the_fields():
    """For each kind: the key ``_fields_key`` makes is the one ``_generic_key`` makes
    from the node's fields (the same tuple, down to the types of its parts), so the fast
    paths merge exactly what the fields say is equal."""
    numbers = _Numbering(set())
    for node in _nodes():
        numbers.number(node)
        kids = node.children()
        k = [numbers.of[id(c)] for c in kids]
        fast, generic = _fields_key(node, k, kids), _generic_key(node, k, kids)
        assert fast == generic and repr(fast) == repr(generic), node
    # 2 and 2.0 and True are different constants (different dtypes); equal trees one number
    assert len({numbers.number(Const(v)) for v in (2, 2.0, True)}) == 3
    assert numbers.number(BinOp("+", Y, X)) == numbers.number(BinOp("+", X, Y))
    assert numbers.number(BinOp("-", X, Y)) != numbers.number(BinOp("-", Y, X))
    s1 = Call("sum", (X,), (("axis", Const(0)),))
    assert numbers.number(s1) != numbers.number(Call("sum", (X,), (("axis", Const(1)),)))
    assert numbers.number(s1) != numbers.number(Call("sum", (X,), (("keepdims", Const(0)),)))


def test_a_loop_body_is_printed_once_however_many_rounds_number_it(monkeypatch):
    """Two loops of equal bodies (two objects) and a chain that takes three rounds of
    merging: the second loop reads the first's name, and each body is printed once for
    its key (before: once a round, each loop statement numbered again each round)."""
    printed: list[int] = []
    plain = LoopBody.__repr__

    def counted(self):
        printed.append(id(self))
        return plain(self)

    monkeypatch.setattr(LoopBody, "__repr__", counted)
    one = lambda k: BinOp("*", Const(1.0), Call("exp", (Name(k),)))  # noqa: E731
    statements = [
        S("L1", Loop((X,), (), (Y,), _body(), 3)),
        S("L2", Loop((X,), (), (Y,), _body(), 3)),
        S("a", Call("exp", (Item(Name("L1"), 0),))),
        S("b", Call("exp", (Item(Name("L2"), 0),))),  # = a once L2 is L1
        S("c", BinOp("+", one("a"), Name("a"))),
        S("d", BinOp("+", one("b"), Name("b"))),  # = c once b is a
        S("r", BinOp("*", Name("c"), Name("d"))),
    ]
    rounds = []
    merge = array_passes.common_subexpressions
    monkeypatch.setattr(
        array_passes, "common_subexpressions", lambda *a: rounds.append(1) or merge(*a)
    )
    out = optimize_statements(statements, ["r"])
    assert [s.target for s in out] == ["L1", "a", "c", "r"]
    assert ir.names_in(out[-1].value) == {"c"}
    assert len(rounds) >= 2
    assert len(printed) == len(set(printed)) == 2  # each body object once


def test_a_statement_is_shaped_once_while_the_shapes_it_reads_stay(monkeypatch):
    """array_shapes, count_array_ops and node_shapes on the same statements: each node's
    shape found once while the names it reads keep their shapes (types included); found
    again, right, where one changes (counted, never timed)."""
    shaped = []
    shape = array_passes._shape
    monkeypatch.setattr(
        array_passes, "_shape", lambda n, *a: shaped.append(type(n).__name__) or shape(n, *a)
    )
    einsum = Call("einsum", (Const("i,j->ij"), X, Name("y")))
    statements = [S("y", BinOp("*", Call("exp", (X,)), Const(2.0))), S("z", einsum)]

    def program(n):
        return ir.ArrayProgram("f", ("x",), ((n,),), ("x",), list(statements), ["z"])

    assert array_passes.array_shapes(program(3))["z"] == (3, 3)
    first = len(shaped)
    assert first == 8  # x, exp, 2.0, product; the subscripts, x, y, einsum
    assert array_passes.array_shapes(program(3))["z"] == (3, 3)
    counted = array_passes.count_array_ops(program(3))
    assert counted.ops.mults == 3 + 9 and counted.ops.calls == 3
    assert len(shaped) == first  # nothing shaped again
    assert array_passes.array_shapes(program(4))["z"] == (4, 4)
    assert len(shaped) == 2 * first
    found = array_passes.node_shapes(einsum, {"x": (np.int64(4),), "y": (4,)})
    assert type(found[id(X)][0]) is np.int64  # equal shapes of other types: found again
    assert len(shaped) == 2 * first + 4
    found[id(X)] = "changed"  # the caller's own dict: what is kept stays
    assert array_passes.node_shapes(einsum, {"x": (np.int64(4),), "y": (4,)})[id(X)] == (4,)
