"""Scalars where a NumPy body streams arrays it need not (the printed form of a Hessian's
values, :mod:`.numpy_form`), each rewrite giving the same doubles:

- a constant array of one value (a factor 100 broadcast to the operand's shape, folded)
  that meets an operand of the result's shape in ``+ - * /`` is that value, a number:
  no 8 bytes an entry read per call (:func:`uniform_scalars`);
- a product by a number of a product by a number read nowhere else is one product by
  their product, where one of the two is a power of two at least 1 in magnitude (its
  product rounds as the two did): ``2 * (100 * (2 * s))`` is ``400 * s``, one pass
  instead of three (:func:`scales_folded`); equal products then merge;
- a vector that broadcasts one value (``broadcast_to`` of one entry) met by a number in
  ``+ - * /`` is that entry met by the number, broadcast after: one value computed, no
  vector of them written and read (:func:`broadcasts_late`).
"""

from __future__ import annotations

import math

import numpy as np

from .. import ir
from ..array_passes import node_shapes, optimize_statements
from ..ir import ArrayStatement, BinOp, Call, Const, Name, Node, UnaryOp
from .constants import Constants

__all__ = [
    "broadcasts_late",
    "distinct",
    "distinct_constant",
    "scales_folded",
    "uniform_scalars",
    "uniform_value",
]

_ELEMENTWISE = ("+", "-", "*", "/")


def distinct(a: np.ndarray) -> bool:
    """Whether the non-negative integers ``a`` are all different (a mask, not a sort:
    10⁶ positions in milliseconds)."""
    if a.size < 2:
        return True
    if int(a.min()) < 0:
        return np.unique(a).size == a.size
    seen = np.zeros(int(a.max()) + 1, dtype=bool)
    seen[a] = True
    return int(np.count_nonzero(seen)) == a.size


def distinct_constant(constants: Constants, name: str) -> bool:
    """:func:`distinct` of the integer constant ``name``, found once per constant (a
    body asks it of the same positions for several statements: 10⁶ to 10⁷ entries)."""
    a = constants.arrays[name]
    known = constants.__dict__.setdefault("distinct_found", {})
    found = known.get(name)
    if found is None or found[0] != id(a):  # by the array's id: no reference kept
        found = known[name] = (id(a), distinct(a))
    return found[1]


def uniform_value(array: np.ndarray) -> float | None:
    """The one finite value of a float64 array all of whose entries are it, bit for bit
    (``-0.0`` is not ``0.0``); None for any other array."""
    if array.dtype != np.float64 or array.size == 0:
        return None
    flat = array.reshape(-1)
    first = flat[:1].view(np.int64)[0]
    if not math.isfinite(float(flat[0])) or not np.all(flat.view(np.int64) == first):
        return None
    return float(flat[0])


def uniform_scalars(
    statements: list[ArrayStatement], constants: Constants, env: dict
) -> list[ArrayStatement]:
    """Each float constant of one value, an operand of ``+ - * /`` whose other operand
    has the result's shape (so the value broadcasts to the same array), as that number."""
    values: dict[str, float | None] = {}

    def value(node: Node) -> float | None:
        if not (isinstance(node, Name) and node.id in constants.arrays):
            return None
        if node.id not in values:
            values[node.id] = uniform_value(constants.arrays[node.id])
        return values[node.id]

    out = []
    for s in statements:
        if s.at or not any(value(n) is not None for n in ir.walk(s.value)):
            out.append(s)
            continue
        shapes = node_shapes(s.value, env)

        def replace(n: Node, shapes=shapes) -> Node | None:
            if not (isinstance(n, BinOp) and n.op in _ELEMENTWISE):
                return None
            whole = shapes.get(id(n))
            if not whole:  # unknown or 0-d: a number would change the result's type
                return None
            sides = [n.left, n.right]
            for k in (0, 1):
                v = value(sides[k])
                if v is not None and shapes.get(id(sides[1 - k])) == whole:
                    sides[k] = Const(v)
            if sides == [n.left, n.right]:
                return None
            left, right = (ir.rebuilt(x, replace) for x in sides)
            return BinOp(n.op, left, right)

        made = ir.rebuilt(ir.rebuilt(s.value, replace), _numbers_joined)
        out.append(ArrayStatement(s.target, made, s.at))
    replace = None  # type: ignore[assignment]  # it calls itself: no cycle holding the
    return out  # module's constants (``value``) while cyclic collection is paused


def _numbers_joined(node: Node) -> Node | None:
    """``a * (b * x)`` (numbers ``a``, ``b``, in either order) as ``(a·b) * x`` where
    one of them is ±2ᵏ: the same doubles (a product by it is exact), one product fewer
    (a uniform constant, now a number, scaling a negated or doubled part); None (as it
    is, its operands looked at) for anything else."""
    if not (isinstance(node, BinOp) and node.op == "*"):
        return None
    left, right = (ir.rebuilt(x, _numbers_joined) for x in (node.left, node.right))
    for number, inner in ((left, right), (right, left)):
        a = ir.number(number)
        if a is None or not (isinstance(inner, BinOp) and inner.op == "*"):
            continue
        for k, x in ((inner.left, inner.right), (inner.right, inner.left)):
            b = ir.number(k)
            if b is not None and (_two_power(a) or _two_power(b)):
                return BinOp("*", Const(a * b), x)
    return node if (left, right) == (node.left, node.right) else BinOp("*", left, right)


def _two_power(c: float) -> bool:
    """Whether ``c`` is ±2ᵏ, k ≥ 0: a product by it is exact (short of overflow)."""
    m, e = math.frexp(abs(c))
    return m == 0.5 and e >= 1


def _scaled(node: Node) -> tuple[float, str] | None:
    """``(c, a)`` where ``node`` is ``c * a``, ``a * c`` or ``-a`` (a a name, c a number;
    ``a ** 1`` is ``a``)."""

    def name(n: Node) -> str | None:
        if isinstance(n, BinOp) and n.op == "**" and ir.number(n.right) == 1.0:
            n = n.left
        return n.id if isinstance(n, Name) else None

    if isinstance(node, UnaryOp) and node.op == "-" and name(node.operand):
        return -1.0, name(node.operand)
    if isinstance(node, BinOp) and node.op == "*":
        for c, a in ((node.left, node.right), (node.right, node.left)):
            k = ir.number(c)
            if k is not None and name(a) is not None:
                return k, name(a)
    return None


def scales_folded(
    statements: list[ArrayStatement], env: dict, ends: set[str]
) -> list[ArrayStatement]:
    """Each product by a number of a name that is itself a product by a number, read
    only there and not a result, as one product by the product of the numbers, where
    they round as one (:func:`_two_power` of either); then equal statements merged and
    the unread ones dropped. Shapes of the names stay."""
    if not ir.straight_line(statements):
        return statements
    uses = ir.reads(statements)
    scale: dict[str, tuple[float, str]] = {}
    out = []
    for s in statements:
        found = _scaled(s.value)
        if found is not None:
            c, a = found
            inner = scale.get(a)
            while (
                inner is not None
                and uses.get(a) == 1
                and a not in ends
                and (_two_power(c) or _two_power(inner[0]))
                and env.get(a) == env.get(s.target)
            ):
                c, a = c * inner[0], inner[1]
                inner = scale.get(a)
            scale[s.target] = (c, a)
            if (c, a) != found:
                value = UnaryOp("-", Name(a)) if c == -1.0 else BinOp("*", Const(c), Name(a))
                s = ArrayStatement(s.target, Name(a) if c == 1.0 else value, s.at)
        out.append(s)
    return optimize_statements(out, list(ends)) if out != statements else out


def broadcasts_late(
    statements: list[ArrayStatement], env: dict, ends: set[str]
) -> list[ArrayStatement]:
    """Each statement ``t = b op c`` (``op`` one of ``+ - * /``, either side first) whose
    ``b`` is a name bound to ``broadcast_to(e, shape)`` of an ``e`` of one entry and
    ``c`` a number, as ``t = broadcast_to(e op c, shape)``: the same doubles (each entry
    was the one value met by the number), one operation instead of a pass over the
    vector. ``env``: the names' shapes; a broadcast read nowhere then (and not one of
    the results ``ends``) is dropped."""
    one: dict[str, Call] = {}  # names bound to a broadcast of one value
    out = []
    for s in statements:
        value = s.value
        if not s.at and isinstance(value, BinOp) and value.op in _ELEMENTWISE:
            sides = [value.left, value.right]
            for k in (0, 1):
                b, c = sides[k], sides[1 - k]
                if isinstance(b, Name) and b.id in one and ir.number(c) is not None:
                    inner, shape = one[b.id].args
                    met = BinOp(value.op, inner, c) if k == 0 else BinOp(value.op, c, inner)
                    value = Call("broadcast_to", (met, shape))
                    s = ArrayStatement(s.target, value, s.at)
                    break
        if not s.at and _one_broadcast(value, env):
            one[s.target] = value  # type: ignore[assignment]
        out.append(s)
    read = set(ends).union(*(ir.names_in(s.value) for s in out))
    return [s for s in out if s.target not in one or s.target in read]


def _one_broadcast(node: Node, env: dict) -> bool:
    """Whether ``node`` is ``broadcast_to(e, shape)`` of an ``e`` of one entry."""
    if not (isinstance(node, Call) and node.func == "broadcast_to" and len(node.args) == 2):
        return False
    if not isinstance(node.args[1], Const):
        return False
    shape = node_shapes(node, env).get(id(node.args[0]))
    return isinstance(shape, tuple) and math.prod(shape) == 1
