"""NumPy statements whose gathers or scatters are at grid positions
(:mod:`.grid_index`), printed piece by piece through strided views: no index array read.

- An elementwise statement whose gathers (``v[K]``) are at such positions, all pieces
  1-D, is computed into a new vector with one call a piece writing into the vector's
  view there (``numpy.multiply(v[1:99], c[0:98], out=t[0:98])``), every operand viewed
  at the piece (the gathered vectors at the values, the others at the places): no copy
  of a gathered operand. With n-D pieces each gather is copied into a vector through
  the views (NumPy's ufunc walks an n-D view row by row, some 50 ns a row; a copy's
  loop far less), then the statement runs on whole vectors.
- A scatter (or scatter-add) to such positions writes (adds) each piece of its data into
  the view of its vector there; a scatter-add only through 1-D views and only where no
  position is there twice in a part (proved from each piece's strides, checked over the
  part), so that adding through a view adds what ``numpy.add.at`` adds, in the same
  order per position. A part at other positions is written at its index.

NumPy's loop runs along the innermost axis of a view, so a piece whose last axis is short
(two neighbours per row) is cut into one piece per index of that axis. A statement is
printed so only with at most :data:`LIMIT` pieces of :data:`LEAST` entries on average:
each piece is a call.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from .. import ir
from ..ir import (
    ArrayStatement,
    BinOp,
    Call,
    Index,
    Name,
    Node,
    Scatter,
    ScatterAdd,
    SegmentSum,
    UnaryOp,
)
from .grid_index import Grid, Piece, fit, pieces

__all__ = ["GRID_HELPER", "grid_lines", "view"]

LIMIT = 32
"""The most pieces (after cutting short axes) one statement is printed in."""
SHORT = 16
"""A last axis shorter than this is cut into pieces."""
LEAST = 2048
"""The fewest entries per piece, on average, worth a call each."""

GRID_HELPER = [
    "def _grid(x, offset, shape, strides):",
    "    \"\"\"The view of ``x``'s entries in C order (a vector's, or an array's as its",
    '    ravel\'s) at ``offset + Σ strides·i`` over ``shape`` (in entries of ``x``)."""',
    "    if x.flags.c_contiguous:",
    "        step = x.itemsize",
    "        strides = tuple(s * step for s in strides)",
    "        return numpy.ndarray(shape, x.dtype, x, offset * step, strides)",
    "    if x.ndim != 1:",
    "        x = numpy.ravel(x)",
    "    strides = tuple(s * x.strides[0] for s in strides)",
    "    return numpy.lib.stride_tricks.as_strided(x[offset:], shape, strides)",
]

_RAVEL = re.compile(r"numpy\.ravel\(([A-Za-z_][A-Za-z_0-9]*)\)")
_UFUNCS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "**": "power"}


def view(x: str, g: Grid) -> str | None:
    """The text of the view of the vector ``x`` (its text) at the grid ``g``: a slice,
    a reshaped slice, or the module helper ``_grid``; None for a negative stride."""
    if any(s < 0 for s in g.strides):
        return None
    o = g.offset
    if len(g.shape) == 1:
        n, s = g.shape[0], g.strides[0]
        if s == 0 or n == 1:
            return f"{x}[{o}:{o + 1}]"
        stop = o + s * (n - 1) + 1
        return f"{x}[{o}:{stop}]" if s == 1 else f"{x}[{o}:{stop}:{s}]"
    contiguous = [int(np.prod(g.shape[k + 1 :])) for k in range(len(g.shape))]
    if list(g.strides) == contiguous:
        return f"numpy.reshape({x}[{o}:{o + g.size}], {g.shape})"
    flat = _RAVEL.fullmatch(x)  # _grid reads an array's entries as its ravel's itself
    return f"_grid({flat.group(1) if flat else x}, {o}, {g.shape}, {g.strides})"


def _cut(found: list[Piece]) -> list[Piece]:
    """Each piece whose last axis is short cut into one piece per index of that axis
    (again while the new last axis is short), in order."""
    out = []
    todo = list(found)
    while todo:
        p = todo.pop(0)
        if len(p.own.shape) < 2 or p.own.shape[-1] >= SHORT:
            out.append(p)
            continue
        todo[0:0] = [
            Piece(
                Grid(p.own.offset + j * p.own.strides[-1], p.own.shape[:-1], p.own.strides[:-1]),
                Grid(p.at.offset + j * p.at.strides[-1], p.at.shape[:-1], p.at.strides[:-1]),
            )
            for j in range(p.own.shape[-1])
        ]
    return out


def _pieces(c: Any, node: Node) -> list[Piece] | None:
    """:func:`_split` of the index constant ``node``, found once per body."""
    cache = c.__dict__.setdefault("grid_pieces", {})
    if node.id not in cache:
        cache[node.id] = _split(c.index(node))
    return cache[node.id]


def _split(a: np.ndarray) -> list[Piece] | None:
    """The index array ``a`` as pieces to print (short axes cut), None where too many
    or too small to be worth a call each (fewer than :data:`LEAST` entries: even one
    piece is, so none is looked for)."""
    if np.size(a) < LEAST:
        return None
    found = pieces(a, limit=LIMIT)
    if found is None:
        return None
    found = _cut(found)
    if (
        any(min(p.at.strides) < 0 for p in found)
        or len(found) > LIMIT
        or a.size < LEAST * len(found)
    ):
        return None
    return found


def _at(a: np.ndarray, own: Grid) -> Grid | None:
    """The grid of ``a``'s values at the places ``own`` (None where not one)."""
    return fit(a[own.indices()].reshape(own.shape))


class _Leaves:
    """The operands of one elementwise statement of ``n`` entries: the gathers at grid
    positions (their vector's text and index), the vectors of ``n`` entries read at the
    same places (their text), and numbers."""

    def __init__(self, c: Any, n: int) -> None:
        self.c, self.n = c, n
        self.gathers: list[tuple[str, Name]] = []  # the vector's text, the index constant
        self.flats: list[str] = []

    def vector(self, node: Node) -> str | None:
        """The text of ``node`` where it is a vector (or a flattened array) of ``n``
        entries that is a name or a constant; None otherwise."""
        inner = node.args[0] if isinstance(node, Call) and node.func == "ravel" else node
        if isinstance(node, Call) and (node.keywords or len(node.args) != 1):
            return None
        if not isinstance(inner, Name):
            return None
        a = self.c.constants.arrays.get(inner.id)
        shape = a.shape if a is not None else self.c.env.get(inner.id)
        if not isinstance(shape, tuple) or int(np.prod(shape)) != self.n:
            return None
        if len(shape) != 1 and inner is node:
            return None
        return self.c.printer.doprint(node)

    def walk(self, node: Node) -> Node | None:
        """``node`` with its leaves as placeholders ``{k}``; None where one is not such."""
        if ir.number(node) is not None:
            return node
        if isinstance(node, Index) and len(node.items) == 1:
            a = self.c.index(node.items[0])
            shape = self.c.shape(node.value)
            if a is None or a.size != self.n or shape is None or len(shape) != 1:
                return None
            self.gathers.append((self.c.printer.doprint(node.value), node.items[0]))
            return Name(f"{{g{len(self.gathers) - 1}}}")
        text = self.vector(node)
        if text is not None:
            self.flats.append(text)
            return Name(f"{{f{len(self.flats) - 1}}}")
        if isinstance(node, BinOp) and node.op in _UFUNCS:
            left, right = self.walk(node.left), self.walk(node.right)
            return None if left is None or right is None else BinOp(node.op, left, right)
        if isinstance(node, UnaryOp) and node.op == "-":
            inner = self.walk(node.operand)
            return None if inner is None else UnaryOp("-", inner)
        if (
            isinstance(node, Call)
            and not node.keywords
            and isinstance(getattr(np, node.func, None), np.ufunc)
        ):
            args = [self.walk(a) for a in node.args]
            return None if any(a is None for a in args) else Call(node.func, tuple(args))
        return None


def _common(c: Any, indexes: list[Name]) -> list[tuple[Piece, list[Grid]]] | None:
    """Pieces of the first index constant, each with the grid of every one's values at
    its places; None where one is not a grid there."""
    found = _pieces(c, indexes[0])
    if found is None:
        return None
    out = []
    for p in found:
        grids = [p.at] + [_at(c.index(a), p.own) for a in indexes[1:]]
        if any(g is None or min(g.strides) < 0 for g in grids):
            return None
        out.append((p, grids))
    return out


def _elementwise(s: ArrayStatement, c: Any, n: int | None = None) -> list[str] | None:
    """The lines of an elementwise statement of ``n`` entries (its target's size where
    None) whose gathers are at grids, piece by piece (module docstring)."""
    shape = c.env.get(s.target) if n is None else (n,)
    if not (isinstance(shape, tuple) and len(shape) == 1):
        return None
    n = shape[0]
    leaves = _Leaves(c, n)
    tree = leaves.walk(s.value)
    if tree is None or not leaves.gathers:
        return None
    if all(_slice_only(c, k) for _, k in leaves.gathers):
        return None  # printed as slices already
    t = s.target
    parts = _common(c, [k for _, k in leaves.gathers])
    if parts is not None and all(len(p.own.shape) == 1 for p, _ in parts):
        lines = [f"    {t} = numpy.empty({n})"]
        for p, grids in parts:
            texts = {
                f"g{k}": view(x, g)
                for k, ((x, _), g) in enumerate(zip(leaves.gathers, grids, strict=True))
            }
            texts |= {f"f{k}": view(x, p.own) for k, x in enumerate(leaves.flats)}
            lines.append(_write(c, tree, texts, view(t, p.own)))
        return lines
    lines, texts = [], {f"f{k}": x for k, x in enumerate(leaves.flats)}
    for k, (x, index) in enumerate(leaves.gathers):
        found = _pieces(c, index)
        if found is None:
            return None
        texts[f"g{k}"] = f"_gathered{k}"
        lines.append(f"    _gathered{k} = numpy.empty({n})")
        lines += [_copy(view(f"_gathered{k}", p.own), view(x, p.at)) for p in found]
    k = _into(tree)
    if k is None:
        lines.append(f"    {t} = {c.printer.doprint(_filled(tree, texts))}")
    else:  # into the gathered copy: no new vector
        lines.append(_write(c, tree, texts, f"_gathered{k}").replace("    ", f"    {t} = ", 1))
    done = ", ".join(f"_gathered{k}" for k in range(len(leaves.gathers)))
    return [*lines, f"    del {done}"]


def _into(tree: Node) -> int | None:
    """The ``k`` of a gathered copy ``{gk}`` that the arithmetic at ``tree``'s top reads
    directly, once in ``tree``, so that its result can be written into that copy; None
    where there is none (or the operation is a power: ``x ** 2`` prints as NumPy's square,
    ``numpy.power`` is another loop)."""
    if isinstance(tree, BinOp) and tree.op in ("+", "-", "*", "/"):
        operands = (tree.left, tree.right)
    elif isinstance(tree, UnaryOp) and tree.op == "-":
        operands = (tree.operand,)
    else:
        return None
    names = [n.id for n in ir.walk(tree) if isinstance(n, Name)]
    for o in operands:
        if isinstance(o, Name) and o.id.startswith("{g") and names.count(o.id) == 1:
            return int(o.id[2:-1])
    return None


def _copy(into: str, source: str) -> str:
    """The line writing the view ``source`` into the view ``into``."""
    return f"    {into}{'' if into.endswith(']') else '[...]'} = {source}"


def _filled(tree: Node, texts: dict[str, str]) -> Node:
    """``tree`` with its placeholders ``{k}`` replaced by the texts."""

    def fill(node: Node) -> Node | None:
        if isinstance(node, Name) and node.id.startswith("{"):
            return Name(texts[node.id[1:-1]])
        return None

    return ir.rebuilt(tree, fill)


def _write(c: Any, tree: Node, texts: dict[str, str], out: str) -> str:
    """The line computing ``tree`` (its leaves ``texts``) into the view ``out``."""
    value = _filled(tree, texts)
    if isinstance(value, BinOp) and value.op in _UFUNCS:
        args, func = (value.left, value.right), _UFUNCS[value.op]
    elif isinstance(value, UnaryOp):
        args, func = (value.operand,), "negative"
    elif isinstance(value, Call):
        args, func = value.args, value.func
    else:
        return f"    {out}[...] = {c.printer.doprint(value)}"
    call = Call(func, tuple(args), (("out", Name(out)),))
    return f"    {c.printer.doprint(call)}"


def _slice_only(c: Any, node: Name) -> bool:
    """Whether the index constant ``node`` steps evenly upwards (a slice, which the body
    prints itself); found once per body."""
    cache = c.__dict__.setdefault("grid_slices", {})
    if node.id not in cache:
        step = np.diff(c.index(node).astype(np.int64))
        cache[node.id] = step.size == 0 or (step[0] > 0 and bool(np.all(step == step[0])))
    return cache[node.id]


def _scatter(s: ArrayStatement, c: Any, fresh: set[str], i: int, form: Any) -> list[str] | None:
    """A scatter or scatter-add statement, each part at grid positions written through
    views, the others at their index (``numpy.add.at`` for a scatter-add, as the module
    helper adds), each part's data with its gathers at grids through views; None where
    nothing is at a grid or a part at other positions is printed as runs of slices."""
    v = s.value
    parts = [(v.flat, v.data)] if isinstance(v, Scatter) else list(v.parts)
    t = s.target
    plans = []
    for flat, data in parts:
        a = c.index(flat)
        if a is None or a.size == 0:
            return None
        found = None if _slice_only(c, flat) else _pieces(c, flat)
        if found is not None and not all(p.at.distinct() for p in found):
            found = None
        if isinstance(v, ScatterAdd) and found and any(len(p.own.shape) > 1 for p in found):
            found = None  # NumPy adds through an n-D view row by row: slower than add.at
        if found is not None and len(found) > 1 and np.bincount(a).max() > 1:
            found = None
        if found is None and form.runs(a):
            return None  # the body prints these positions as slices
        computed = _elementwise(ArrayStatement("_part", data), c, a.size)
        plans.append((flat, found, data, computed))
    if all(found is None and computed is None for _, found, _, computed in plans):
        return None
    if isinstance(v, Scatter):
        lines = [f"    {t} = numpy.zeros({v.size})"]
    else:
        shape, base = c.env.get(t), c.vector(v.base)  # a name under its ravel: itself
        if not (isinstance(shape, tuple) and len(shape) == 1):
            return None
        if (
            isinstance(base, Name)
            and base.id in fresh
            and c.shape(base) == shape
            and base.id not in c.protected
            and c.dying(base.id, v, i)
        ):
            lines = [f"    {t} = {base.id}"]
        else:
            lines = [f"    {t} = numpy.array({c.printer.doprint(base)}, dtype=float)"]
    for flat, found, data, computed in plans:
        text = _Leaves(c, c.index(flat).size).vector(data)
        if computed is not None:
            lines += computed
            text = "_part"
        elif text is None:
            lines += _summed_part(c, data, form)
            text = "_part"
        if found is None:
            k = c.printer.doprint(flat)
            add = isinstance(v, ScatterAdd)
            lines.append(f"    numpy.add.at({t}, {k}, {text})" if add else f"    {t}[{k}] = {text}")
        for p in found or ():
            into, source = view(t, p.at), view(text, p.own)
            if isinstance(v, Scatter):
                lines.append(_copy(into, source))
            else:
                lines.append(f"    numpy.add({into}, {source}, out={into})")
        if text == "_part":
            lines.append("    del _part")
    return lines


def _summed_part(c: Any, data: Node, form: Any) -> list[str]:
    """The lines computing a scatter's part ``data`` into ``_part``; a sum of three terms
    or more (the parts of a sum at the same positions, :func:`~.triangle._joined`)
    accumulated in place, term by term, not through a new vector per addition (the same
    doubles, in the same order)."""
    terms: list[tuple[str, Node]] = []
    node = data
    while isinstance(node, BinOp) and node.op in ("+", "-"):
        terms.append((node.op, node.right))
        node = node.left
    if len(terms) < 2:
        return [f"    _part = numpy.ravel({c.printer.doprint(form(data))})"]
    op, second = terms.pop()
    first = form(BinOp(op, node, second))
    lines = [f"    _part = numpy.ravel({c.printer.doprint(first)})"]
    for op, term in reversed(terms):
        func = "add" if op == "+" else "subtract"
        term = form(term)
        flat = c.shape(term) is not None and len(c.shape(term)) == 1  # a vector: as it is
        term_text = c.printer.doprint(term if flat else Call("ravel", (term,)))
        lines.append(f"    numpy.{func}(_part, {term_text}, out=_part)")
    return lines


def grid_lines(s: ArrayStatement, c: Any, fresh: set[str], i: int, form: Any) -> list[str] | None:
    """The lines of statement ``s`` (the ``i``-th of a NumPy body, ``c`` its printing
    context, ``fresh`` the new vectors made so far) computed piece by piece through views
    of grid positions (module docstring); ``form``: a scatter's data as the body prints
    it. None where it has no such positions or they do not fit."""
    if s.at:
        return None
    if isinstance(s.value, (Scatter, ScatterAdd)):
        return _scatter(s, c, fresh, i, form)
    if isinstance(s.value, SegmentSum):
        return _segment_sum(s, c)
    return _elementwise(s, c)


def _segment_sum(s: ArrayStatement, c: Any) -> list[str] | None:
    """A segment sum whose data has gathers at grids: the data computed piece by piece
    first (:func:`_elementwise`), then summed by ``numpy.bincount`` as the body does."""
    v = s.value
    ids = c.index(v.ids)
    if ids is None:
        return None
    computed = _elementwise(ArrayStatement("_part", v.data), c, ids.size)
    if computed is None:
        return None
    summed = f"numpy.bincount({c.printer.doprint(v.ids)}, weights=_part, minlength={v.n})"
    return [*computed, f"    {s.target} = {summed}", "    del _part"]
