"""Interleaved vectors of a NumPy body kept as their planes (a band's diagonals), the
same doubles.

A block of a few entries per row (the Jacobian of ``x[i+1] - x[i]**2`` by ``(x[i],
x[i+1])``) is a vector whose entries ``r, r + p, r + 2p, …`` are one diagonal: written
plainly it is assembled by strided writes (a pass over the whole vector per diagonal),
scaled as a whole, then read back by strided slices. Where each of the vector's uses
reads one residue class mod p (a gather at evenly stepping positions in one class, a
scatter part, a product by a number) the vector is never made: each plane is its own
contiguous vector (a class the vector holds one number on is that number), and the
uses read the planes. :func:`planes_split`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import ir
from ..array_passes import node_shapes
from ..ir import ArrayStatement, BinOp, Call, Const, Index, Name, Node, ScatterAdd, UnaryOp
from .constants import Constants
from .numpy_scalars import distinct, distinct_constant, uniform_value

__all__ = ["planes_split", "scatter_bases"]

PERIODS = (2, 3, 4)
_OPS = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}


@dataclass
class _Planar:
    """A vector of ``size`` entries as ``period`` planes: per residue a node (a vector) or
    a number; ``source``: the vector it is derived from (None: assembled here)."""

    period: int
    size: int
    planes: list = field(default_factory=list)
    source: str | None = None
    rule: Callable[[Node], Node] | None = None  # a derived plane from the source's


def _vector(node: Node) -> str | None:
    """The name ``node`` is, or is the ``ravel`` of."""
    if isinstance(node, Call) and node.func == "ravel" and len(node.args) == 1:
        node = node.args[0]
    return node.id if isinstance(node, Name) else None


def _class_of(a: np.ndarray, p: int) -> tuple[int, int, int] | None:
    """``(r, j0, j1)`` where the positions ``a`` are ``r + p j`` for ``j = j0 … j1 - 1``
    in order; None for any others."""
    if a.size == 0 or (a.size > 1 and not np.all(np.diff(a.astype(np.int64)) == p)):
        return None
    r = int(a[0]) % p
    j0 = (int(a[0]) - r) // p
    return r, j0, j0 + a.size


def _sizes(size: int, p: int) -> list[int]:
    return [len(range(r, size, p)) for r in range(p)]


def planes_split(
    statements: list[ArrayStatement], constants: Constants, env: dict, ends: set[str]
) -> tuple[list[ArrayStatement], dict]:
    """``statements`` with each interleaved vector whose every use reads one plane kept
    as its planes (module docstring), and ``env`` with the planes' shapes."""
    if not ir.straight_line(statements):
        return statements, env

    def index(node: Node) -> np.ndarray | None:
        if isinstance(node, Name) and node.id in constants.arrays:
            a = constants.arrays[node.id]
            return a if a.ndim == 1 and a.dtype.kind in "iu" else None
        return None

    found = _sources(statements, constants, env, ends, index)
    if not found:
        return statements, env
    found = _kept(statements, found, index)
    if not found:
        return statements, env
    return _rewritten(statements, found, constants, env, index)


def _sources(statements, constants, env, ends, index) -> dict[str, _Planar]:
    """The vectors that are planes: assembled by a scatter-add of a constant base whose
    parts each fill one whole residue class (the base one number on each class), or a
    number ``+ - * /`` such a vector, or its ``ravel``."""
    found: dict[str, _Planar] = {}
    for s in statements:
        v, t = s.value, s.target
        if t in ends or not (isinstance(env.get(t), tuple) and len(env[t]) == 1):
            continue
        if isinstance(v, ScatterAdd) and isinstance(v.base, Name):
            base = constants.arrays.get(v.base.id)
            if base is not None and base.ndim == 1 and base.dtype == np.float64:
                made = _assembled(v, base, env, index)
                if made is not None:
                    found[t] = made
            continue
        if isinstance(v, Call) and v.func == "ravel" and _vector(v) in found:
            src = found[_vector(v)]
            found[t] = _Planar(src.period, src.size, list(src.planes), _vector(v), _same)
            continue
        made = _scaled(v, found)
        if made is not None:
            found[t] = made
    return found


def _assembled(v: ScatterAdd, base: np.ndarray, env, index) -> _Planar | None:
    shapes = None
    for p in PERIODS:
        sizes = _sizes(base.size, p)
        planes: list = [None] * p
        for f, d in v.parts:
            a = index(f)
            cls = None if a is None else _class_of(a, p)
            if cls is None or cls[1] != 0 or cls[2] != sizes[cls[0]] or planes[cls[0]]:
                break
            shapes = shapes or node_shapes(v, env)
            if shapes.get(id(d)) != (sizes[cls[0]],):
                break
            planes[cls[0]] = d
        else:
            levels = [uniform_value(base[r::p]) for r in range(p)]
            if any(b is None for b in levels) or all(q is None for q in planes):
                continue
            for r in range(p):
                if planes[r] is None:
                    planes[r] = levels[r]
                elif levels[r] != 0.0 or str(levels[r]) == "-0.0":
                    planes[r] = BinOp("+", Const(levels[r]), planes[r])
            return _Planar(p, base.size, planes)
    return None


def _scaled(v: Node, found: dict[str, _Planar]) -> _Planar | None:
    """The planes of ``c op x`` / ``x op c`` / ``-x`` for a planar vector x: numbers
    computed here, the others by a rule from the source's plane."""
    if isinstance(v, UnaryOp) and v.op == "-" and _vector(v.operand) in found:
        src = found[_vector(v.operand)]
        planes = [-q if isinstance(q, float) else None for q in src.planes]
        return _Planar(src.period, src.size, planes, _vector(v.operand), _negated)
    if not (isinstance(v, BinOp) and v.op in _OPS):
        return None
    for k, (c, x) in enumerate(((v.left, v.right), (v.right, v.left))):
        number = ir.number(c)
        if number is None or _vector(x) not in found:
            continue
        src = found[_vector(x)]
        planes: list = []
        for q in src.planes:
            if not isinstance(q, float):
                planes.append(None)
                continue
            pair = (number, q) if k == 0 else (q, number)
            with np.errstate(all="ignore"):
                value = float(_OPS[v.op](np.float64(pair[0]), np.float64(pair[1])))
            if not np.isfinite(value):
                return None
            planes.append(value)

        def rule(q: Node, op=v.op, c=c, k=k) -> Node:
            return BinOp(op, c, q) if k == 0 else BinOp(op, q, c)

        return _Planar(src.period, src.size, planes, _vector(x), rule)
    return None


def _same(q: Node) -> Node:
    return q


def _negated(q: Node) -> Node:
    return UnaryOp("-", q)


def _uses_ok(node: Node, found: dict[str, _Planar], index) -> set[str]:
    """The planar names ``node`` reads otherwise than one plane at a time."""
    bad: set[str] = set()
    handled: set[int] = set()
    for n in ir.walk(node):
        if isinstance(n, Index) and len(n.items) == 1 and _vector(n.value) in found:
            src = found[_vector(n.value)]
            a = index(n.items[0])
            cls = None if a is None else _class_of(a, src.period)
            if cls is not None and not isinstance(src.planes[cls[0]], float):
                handled.update(id(m) for m in ir.walk(n.value))
        if isinstance(n, ScatterAdd):
            for f, d in n.parts:
                if _vector(d) in found and _split_part(f, found[_vector(d)], index) is not None:
                    handled.update(id(m) for m in ir.walk(d))
    for n in ir.walk(node):
        if isinstance(n, Name) and n.id in found and id(n) not in handled:
            bad.add(n.id)
    return bad


def _split_part(f: Node, src: _Planar, index) -> list[tuple[np.ndarray, int]] | None:
    """A scatter part's positions per plane, or None (repeated positions; a number's
    positions not one evenly stepping run)."""
    a = index(f)
    if a is None or a.size != src.size or not distinct(a):
        return None
    out = []
    for r in range(src.period):
        at = a[r :: src.period]
        if not at.size:
            continue
        steps = np.diff(at.astype(np.int64))
        if isinstance(src.planes[r], float) and not (at.size == 1 or np.all(steps == steps[0])):
            return None
        if isinstance(src.planes[r], float) and at.size > 1 and steps[0] <= 0:
            return None
        out.append((at, r))
    return out


def _kept(statements, found: dict[str, _Planar], index) -> dict[str, _Planar]:
    """The planar vectors none of whose uses needs the vector itself (a vector and the
    one it is derived from stand or fall together)."""
    found = dict(found)
    while True:
        bad: set[str] = set()
        for s in statements:
            if s.target in found and found[s.target].source is not None:
                continue  # its read of its source is the derivation itself
            bad |= _uses_ok(s.value, found, index)
        for t, planar in found.items():
            if planar.source is not None and (planar.source not in found or t in bad):
                bad.update((t, planar.source))
        bad &= set(found)
        if not bad:
            return found
        for t in bad:
            found.pop(t)


def _rewritten(statements, found: dict[str, _Planar], constants: Constants, env, index):
    env = dict(env)
    taken = set(env) | {s.target for s in statements}
    plane_of: dict[str, list] = {}
    out: list[ArrayStatement] = []

    def name(hint: str) -> str:
        k, made = 0, hint
        while made in taken:
            k, made = k + 1, f"{hint}_{k + 1}"
        taken.add(made)
        return made

    def replace(n: Node) -> Node | None:
        if isinstance(n, Index) and len(n.items) == 1 and _vector(n.value) in plane_of:
            planes = plane_of[_vector(n.value)]
            r, j0, j1 = _class_of(index(n.items[0]), found[_vector(n.value)].period)
            plane = planes[r]
            size = env[plane.id][0] if isinstance(plane, Name) else None
            if j0 == 0 and size == j1:
                return plane
            return Index(plane, (ir.Slice(j0, j1, None),))
        if isinstance(n, ScatterAdd):
            parts = []
            for f, d in n.parts:
                if _vector(d) not in plane_of:
                    parts.append((f, ir.rebuilt(d, replace)))
                    continue
                planes = plane_of[_vector(d)]
                for at, r in _split_part(f, found[_vector(d)], index):
                    q = planes[r]
                    parts.append((constants.index(at), Const(q) if isinstance(q, float) else q))
            return ScatterAdd(ir.rebuilt(n.base, replace), tuple(parts))
        return None

    for s in statements:
        if s.target not in found:
            out.append(ArrayStatement(s.target, ir.rebuilt(s.value, replace), s.at))
            continue
        planar = found[s.target]
        source = plane_of.get(planar.source) if planar.source else None
        planes = []
        for r, q in enumerate(planar.planes):
            if isinstance(q, float):
                planes.append(q)
                continue
            q = planar.rule(source[r]) if source is not None else ir.rebuilt(q, replace)
            if isinstance(q, Name) or _vector(q) is not None:
                planes.append(q)
                continue
            t = name(f"{s.target}_p{r}")
            env[t] = (len(range(r, planar.size, planar.period)),)
            out.append(ArrayStatement(t, q))
            planes.append(Name(t))
        plane_of[s.target] = planes
    return out, env


def scatter_bases(
    statements: list[ArrayStatement], constants: Constants, ends: set[str]
) -> list[ArrayStatement]:
    """Each scatter-add into a scatter read nowhere else (``_scatter_add(_scatter(m, K,
    d), ...)``: a vector of zeros, values set at K, others added) as one scatter-add of
    a constant base of zeros whose first part is the scatter's: an assembly
    (:func:`.numpy_form._assembly`) that writes each entry once, no vector of zeros
    made and written over. The scatter's positions distinct, so that setting them is
    adding them to zero."""
    if not ir.straight_line(statements):
        return statements
    uses = ir.reads(statements)
    made = {s.target: s.value for s in statements}
    merged: set[str] = set()
    out = []
    for s in statements:
        v = s.value
        base = v.base.id if isinstance(v, ScatterAdd) and isinstance(v.base, Name) else None
        inner = made.get(base) if base else None
        if (
            isinstance(inner, ir.Scatter)
            and uses.get(base) == 1
            and base not in ends
            and isinstance(inner.flat, Name)
            and _distinct_index(constants, inner.flat.id)
        ):
            zeros = constants.add(np.zeros(inner.size))
            s = ArrayStatement(s.target, ScatterAdd(zeros, ((inner.flat, inner.data), *v.parts)))
            merged.add(base)
        out.append(s)
    return [s for s in out if s.target not in merged] if merged else statements


def _distinct_index(constants: Constants, name: str) -> bool:
    a = constants.arrays.get(name)
    return (
        a is not None
        and a.ndim == 1
        and a.dtype.kind in "iu"
        and distinct_constant(constants, name)
    )
