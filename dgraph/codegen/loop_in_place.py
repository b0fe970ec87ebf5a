"""A NumPy loop's carried vectors updated in place where the old carry is dead.

A step that writes a few entries of a carried vector is a
:class:`~dgraph.codegen.ir.ScatterAdd` onto it (:mod:`.tensor.step_writes`): a copy of
the vector and the adds, functional as JAX's ``.at[].add`` (which XLA does in place in
a loop's carry). NumPy copies the n entries each step unless the add goes into the
carry itself, which is correct where nothing reads the old carry afterwards: no later
statement of the step reads it (nor a view of it), no result of the step is it or a view
of it, and the new carry is the sum's result alone (no other result shares it; so the
array the next step gets is its own). The loop then starts from a copy of the initial
value (a module constant must not be written) and adds into its carry each step
(``_scatter_add_into``).
"""

from __future__ import annotations

import dataclasses

from .ir import (
    AsType,
    BinOp,
    Call,
    Formula,
    Index,
    Loop,
    Name,
    Node,
    Scatter,
    ScatterAdd,
    SegmentSum,
    UnaryOp,
    walk,
)

__all__ = ["in_place"]

_VIEWS = ("reshape", "ravel", "asarray")
_NEW = frozenset(("einsum", "where", "zeros", "full", "take", "concatenate", "stack", "sum"))


def in_place(loop: Loop) -> tuple[Loop, set[int]]:
    """``loop`` with each scatter-add onto a dead carried vector written into it, and
    the carries (by index) that must start as a copy of their initial value."""
    body = loop.body
    carries = {a: k for k, a in enumerate(body.arguments[: loop.carries])}
    root: dict[str, str] = {}  # a view's name -> the name whose memory it may share

    def base(node: Node) -> str | None:
        while isinstance(node, Call) and node.func in _VIEWS and node.args:
            node = node.args[0]
        return root.get(node.id, node.id) if isinstance(node, Name) else None

    statements = list(body.statements)
    for s in statements:
        if not s.at and (found := base(s.value)) is not None:
            root[s.target] = found
    read_after: dict[str, int] = {}  # a root -> the last statement that reads it
    for j, s in enumerate(statements):
        for n in _names(s.value, *s.at):
            read_after[root.get(n, n)] = j
    results = [root.get(r, r) for r in body.results]

    def shares(t, a: str) -> bool:  # t reads a and may hold its memory (not a new array)
        if t.target in root or not any(root.get(n, n) == a for n in _names(t.value, *t.at)):
            return False
        return t.at or not _new(t.value)

    rewritten, owned = {}, set()
    for j, s in enumerate(statements):
        scatter = s.value
        shaped = isinstance(scatter, Call) and scatter.func == "reshape"
        if shaped:
            scatter = scatter.args[0]
        if s.at or not isinstance(scatter, ScatterAdd):
            continue
        a = base(scatter.base)
        k = carries.get(a)
        if k is None or k in owned or read_after.get(a, -1) > j or a in results:
            continue
        if any(i != j and shares(t, a) for i, t in enumerate(statements)):
            continue  # another view of the carry (a slice): it would see the adds
        if results.count(s.target) != 1 or results.index(s.target) != k:
            continue
        parts = [x for part in scatter.parts for x in part]
        into: Node = Call("_scatter_add_into", (scatter.base, *parts))
        if shaped:
            into = Call("reshape", (into, *s.value.args[1:]), s.value.keywords)
        rewritten[j] = dataclasses.replace(s, value=into)
        owned.add(k)
    if not rewritten:
        return loop, set()
    statements = [rewritten.get(j, s) for j, s in enumerate(statements)]
    body = dataclasses.replace(body, statements=tuple(statements))
    return dataclasses.replace(loop, body=body), owned


def _new(value: Node) -> bool:
    """Whether ``value`` is a new array in NumPy, never a view of what it reads: an
    operation's result, or a gather at integer arrays (not a slice)."""
    if isinstance(value, (BinOp, UnaryOp, ScatterAdd, Scatter, SegmentSum, Formula, AsType)):
        return True
    if isinstance(value, Index):
        return all(isinstance(i, Name) for i in value.items)
    return isinstance(value, Call) and value.func in _NEW


def _names(*nodes: Node) -> set[str]:
    return {n.id for node in nodes for n in walk(node) if isinstance(n, Name)}
