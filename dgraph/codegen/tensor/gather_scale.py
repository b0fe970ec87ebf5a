"""Chains of gathered scalings folded: ``r = p[K] * X`` then ``t = q[K] * r`` becomes
``t = (p * q)[K] * X``, the product taken on the short vectors before the one gather.

A forward sweep through a chain of elementwise vertices scales the nonzeros of a sparse
block row by row: each link gathers a vertex's partials at the block's row of every
nonzero (``K``, as long as the block has nonzeros) and multiplies. Where every statement
that reads ``r`` is such a scaling of ``r`` at the same ``K`` (or by a number), ``r``
itself is never needed: its readers gather the product of the short factors (one
multiply over the rows instead of a gather and a multiply over the nonzeros per link).

>>> from dgraph.codegen.ir import ArrayStatement as S, BinOp, Index, Name
>>> K = Name("K")
>>> r = S("r", BinOp("*", Index(Name("p"), (K,)), Name("x")))
>>> t = S("t", BinOp("*", Index(Name("q"), (K,)), Name("r")))
>>> shapes = {"K": (6,), "p": (3,), "q": (3,), "x": (6,), "r": (6,), "t": (6,)}
>>> [s.target for s in folded_scalings([r, t], ["t"], shapes)]
['t_k', 't']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ..ir import (
    ArrayStatement,
    BinOp,
    Call,
    Cond,
    Const,
    Index,
    Loop,
    Name,
    Node,
    While,
    number,
)

__all__ = ["folded_scalings"]


@dataclass(frozen=True)
class _Form:
    """A statement ``target = Π small[K] · Π numbers · carrier``: the index constant
    ``K`` (None where only numbers scale), the short factors (names, or numbers) and the
    vector scaled (its node and its name)."""

    index: str | None
    small: tuple[Node, ...]
    carrier: Node
    name: str


class _Uniform:
    """The value of each constant float array whose entries are one value (None for
    the others), looked at once per name."""

    def __init__(self, constants: Mapping[str, np.ndarray]) -> None:
        self.constants, self.found = constants, {}

    def get(self, name: str) -> float | None:
        if name not in self.found:
            a = self.constants.get(name)
            ok = a is not None and a.dtype.kind == "f" and a.size > 0
            self.found[name] = float(a.flat[0]) if ok and (a == a.flat[0]).all() else None
        return self.found[name]

    def of(self, node: Node) -> float | None:
        """The value of ``node`` where it is such a constant, flattened or gathered."""
        if isinstance(node, Index) and len(node.items) == 1:
            node = node.value
        if isinstance(node, Call) and node.func == "ravel" and len(node.args) == 1:
            node = node.args[0]
        return self.get(node.id) if isinstance(node, Name) else None


def _factors(node: Node) -> list[Node]:
    """The factors of a product ``a * b * ...`` (``node`` alone if it is none)."""
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        if isinstance(n, BinOp) and n.op == "*":
            todo += [n.right, n.left]
        else:
            out.append(n)
    return out


def _form(
    s: ArrayStatement,
    shapes: Mapping[str, object],
    uniform: _Uniform,
    gathers: Mapping[str, Index] | None = None,
) -> _Form | None:
    """The scaling ``s`` is, or None (module docstring); ``uniform``: the constant
    vectors of one value each, by name (a number, as a factor); ``gathers``: the names
    that are a gather ``p[K]`` (a common subexpression), read as that gather."""
    n = shapes.get(s.target)
    if s.at or not (isinstance(n, tuple) and len(n) == 1):
        return None
    index, small, carrier, short = None, [], None, None
    for f in _factors(s.value):
        if gathers and isinstance(f, Name) and f.id in gathers:
            f = gathers[f.id]
        if number(f) is not None or (isinstance(f, Name) and shapes.get(f.id) == ()):
            small.append(f)
            continue
        if (value := uniform.of(f)) is not None:
            small.append(Const(value))
            continue
        inner = f.args[0] if isinstance(f, Call) and f.func == "ravel" and f.args else f
        if (
            isinstance(f, Index)
            and len(f.items) == 1
            and isinstance(f.items[0], Name)
            and isinstance(f.value, Name)
        ):
            k, p = f.items[0].id, shapes.get(f.value.id)
            if (
                shapes.get(k) != n
                or not (isinstance(p, tuple) and len(p) == 1)
                or p[0] > n[0] + n[0] // 8
            ):
                return None
            if index not in (None, k) or short not in (None, p):
                return None
            index, short = k, p
            small.append(f.value)
        elif carrier is None and isinstance(inner, Name) and _size(shapes.get(inner.id)) == n[0]:
            if isinstance(f, Call) and (f.keywords or len(f.args) != 1):
                return None
            carrier = f
        else:
            return None
    if carrier is None or not small:
        return None
    name = carrier.args[0].id if isinstance(carrier, Call) else carrier.id
    return _Form(index, tuple(small), carrier, name)


def _size(shape: object) -> int | None:
    if not isinstance(shape, tuple) or not all(isinstance(d, int) for d in shape):
        return None
    out = 1
    for d in shape:
        out *= d
    return out


def _product(nodes: Iterable[Node]) -> Node:
    """The product of ``nodes``, their numbers multiplied into one (left out where 1)."""
    c, names = 1.0, []
    for n in nodes:
        value = number(n)
        if value is None:
            names.append(n)
        else:
            c *= value
    if not names:
        return Const(c)
    out = names[0]
    for n in names[1:]:
        out = BinOp("*", out, n)
    return out if c == 1.0 else BinOp("*", Const(c), out)


def folded_scalings(
    statements: list[ArrayStatement],
    results: Iterable[str],
    shapes: Mapping[str, object],
    constants: Mapping[str, np.ndarray] | None = None,
) -> list[ArrayStatement]:
    """``statements`` with each scaling (``p[K] * q[K] * c * X``) whose vector ``X`` is a
    scaling read only as the vector its readers scale, at the same ``K``, folded into
    those readers; ``X``'s statement then makes the product of its short factors
    (``X_k``, over the rows) instead. ``shapes``: each name's shape; ``constants``:
    the constant arrays by name (one of a single value, a float, scales as a number)."""
    targets = [s.target for s in statements]
    if len(set(targets)) != len(targets) or any(
        s.at or isinstance(s.value, (Loop, While, Cond)) for s in statements
    ):
        return statements  # a name written twice, a store or a loop: left as it is
    results = set(results)
    shapes = dict(shapes)
    uniform = _Uniform(constants or {})
    gathers = {
        s.target: s.value for s in statements if s.target not in results and _gather(s.value)
    }
    forms = {
        s.target: f for s in statements if (f := _form(s, shapes, uniform, gathers)) is not None
    }
    reads: Counter[str] = Counter()
    for s in statements:
        reads.update(n.id for n in _names(s.value))
    scaled: dict[str, list[_Form]] = {}
    for f in forms.values():
        scaled.setdefault(f.name, []).append(f)
    made = set(targets) | set(reads)  # every name written or read
    resolved: dict[str, _Form] = {}
    short: dict[str, Node] = {}  # a folded X: the product of its short factors
    out = []
    for s in statements:
        f = forms.get(s.target)
        if f is None:
            out.append(s)
            continue
        if f.name in short:
            inner = resolved[f.name]
            f = _Form(f.index or inner.index, (*f.small, short[f.name]), inner.carrier,
                      inner.name)  # fmt: skip
        resolved[s.target] = f
        readers = scaled.get(s.target, [])
        if (
            s.target not in results
            and readers
            and reads[s.target] == len(readers)
            and all(r.index in (None, f.index) or f.index is None for r in readers)
            and any(r.index is not None for r in [f, *readers])
            and _shares(f, readers, shapes)
        ):
            node = _product(f.small)
            if isinstance(node, (Name, Const)):
                short[s.target] = node
            else:
                name = _fresh(f"{s.target}_k", made)
                short[s.target] = Name(name)
                out.append(ArrayStatement(name, node))
                sizes = [shapes.get(n.id) for n in f.small if isinstance(n, Name)]
                shapes[name] = max((t for t in sizes if t), key=len, default=())
        elif f.name != forms[s.target].name:
            node = _product(f.small)
            if f.index is not None:
                if not isinstance(node, Name):
                    name = _fresh(f"{s.target}_k", made)
                    out.append(ArrayStatement(name, node))
                    node = Name(name)
                node = Index(node, (Name(f.index),))
            out.append(ArrayStatement(s.target, BinOp("*", node, f.carrier)))
        else:
            out.append(s)
    if not short:
        return statements
    read = Counter(n.id for s in out for n in _names(s.value))
    return [s for s in out if s.target not in gathers or read[s.target]]  # gathers folded


def _gather(node: Node) -> bool:
    """Whether ``node`` is a gather ``p[K]`` of a name at an index constant's positions."""
    return (
        isinstance(node, Index)
        and len(node.items) == 1
        and isinstance(node.items[0], Name)
        and isinstance(node.value, Name)
    )


def _shares(f: _Form, readers: list[_Form], shapes: Mapping[str, object]) -> bool:
    """Whether the short factors of ``f`` and of each reader have one shape (or are
    numbers), so that their product is elementwise."""
    short = {shapes.get(n.id) for n in f.small if isinstance(n, Name) and shapes.get(n.id) != ()}
    for r in readers:
        short |= {shapes.get(n.id) for n in r.small if isinstance(n, Name)} - {()}
    return len(short) <= 1


def _fresh(name: str, made: set[str]) -> str:
    """``name`` (or ``name`` with a number) not in ``made``, which it joins."""
    k, out = 0, name
    while out in made:
        k += 1
        out = f"{name}{k}"
    made.add(out)
    return out


def _names(node: Node) -> list[Name]:
    """Every name ``node`` reads, once per occurrence."""
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        if isinstance(n, Name):
            out.append(n)
        todo.extend(n.children())
    return out
