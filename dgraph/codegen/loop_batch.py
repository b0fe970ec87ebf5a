"""A loop's statements that read no changing carry, evaluated for every step at once.

A :class:`~dgraph.codegen.ir.Loop` evaluated step by step (:class:`~.evaluate.ArrayEvaluator`)
costs each node's Python call a step. Its statements that read only the step's slices of
the xs, the invariants, carries the body passes on unchanged and integer counters
(``c + k``: ``c₀ + t·k`` at step t) are functions of the step alone: their values at every
step are the same array functions on arrays one axis longer, the steps first (the
loop-invariant and vectorizable part of a loop, as a compiler hoists and vectorizes it:
K. Kennedy and J. R. Allen, *Optimizing Compilers for Modern Architectures*, Morgan
Kaufmann, 2001, ch. 5). Batched: arithmetic, comparisons and casts (each operand's axes
aligned on the right, as NumPy broadcasts each step's), NumPy's ufuncs and ``where``,
``reshape``, ``ravel``, ``asarray`` and sympy formulas (elementwise); a node of another
kind that reads a step's value leaves its statement, and those reading it, to the steps.

NumPy's functions on longer arrays may take other SIMD paths than on one step's (a
last-bit difference in a transcendental function), so this serves evaluations whose
values only screen (the cancellation pass's drawn points:
:mod:`dgraph.codegen.tensor.cancel`), not the constant folding, whose bits are the
printed statement's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import DGraphError
from . import ir

__all__ = ["batched_loop"]

BATCH_ENTRIES = 4_000_000  # steps × statements' entries held stacked, in all

_ELEMENTWISE_CALLS = frozenset({"where", "asarray"})


class _Unbatched(Exception):
    """A node the batch leaves to the steps."""


def batched_loop(ev: Any, node: ir.Loop, values: list) -> tuple | None:
    """The loop's value (as ``ev._eval_Loop`` gives it) with its batched statements
    evaluated for every step at once and the rest step by step; None where none is
    batched or the body stores into an array (NumPy only)."""
    body, steps = node.body, node.length
    if ev.jax or steps < 2 or any(s.at for s in body.statements):
        return None
    targets = [s.target for s in body.statements]
    if len(set(targets)) != len(targets) or set(targets) & set(body.arguments):
        return None
    init, rest = values[: node.carries], values[node.carries :]
    xs, invariants = rest[: len(node.xs)], rest[len(node.xs) :]
    carries = body.arguments[: node.carries]
    slices = body.arguments[node.carries : node.carries + len(xs)]
    stacked: dict[str, np.ndarray] = {}
    kept = body.arguments[node.carries + len(xs) :]
    same: dict[str, Any] = dict(zip(kept, invariants, strict=True))
    for name, x in zip(slices, xs, strict=True):
        x = np.asarray(x)
        stacked[name] = x[::-1] if node.reverse else x
    by_target = {s.target: s for s in body.statements}
    for c, name in enumerate(carries):
        start = np.asarray(init[c])
        k = _counted(by_target.get(body.results[c]), name)
        if body.results[c] == name:
            same[name] = init[c]
        elif k is not None and start.shape == () and start.dtype.kind in "iu":
            stacked[name] = start + np.arange(steps, dtype=np.int64) * k
    left = []
    batched = held = 0
    for s in body.statements:
        try:
            with np.errstate(all="ignore"):
                value, per_step = ir.fold(s.value, _Combine(ev, stacked, same, steps))
        except (_Unbatched, DGraphError, ValueError, TypeError, IndexError, ArithmeticError):
            left.append(s)
            continue
        if per_step and held + np.size(value) > BATCH_ENTRIES:
            left.append(s)
            continue
        (stacked if per_step else same)[s.target] = value
        held += np.size(value) if per_step else 0
        batched += 1
    if not batched:
        return None
    return _steps(ev, node, init, xs, invariants, left, stacked, same)


def _steps(ev, node: ir.Loop, init, xs, invariants, left, stacked, same) -> tuple:
    """The loop's steps over the statements ``left``, the batched values read at each."""
    body = node.body
    read = set(body.results[: node.carries])
    for s in left:
        read |= ir.names_in(s.value)
    views = [n for n in read if n in stacked]
    constant = {n: v for n, v in same.items() if n in read}
    ys_stacked = [body.results[node.carries + j] in stacked for j in range(node.ys)]
    run = ev._compiled(left)
    carries, ys = list(init), [[] for _ in range(node.ys)]
    for t in range(node.length):
        r = node.length - 1 - t if node.reverse else t
        env = dict(zip(body.arguments, [*carries, *(x[r] for x in xs), *invariants], strict=True))
        env.update(constant)
        env.update((n, stacked[n][t, ...]) for n in views)
        run(env)
        carries = [env[n] if n in env else same[n] for n in body.results[: node.carries]]
        for j, name in enumerate(body.results[node.carries :]):
            if not ys_stacked[j]:
                ys[j].append(env[name] if name in env else same[name])
    out = []
    for j, name in enumerate(body.results[node.carries :]):
        if ys_stacked[j]:
            out.append(stacked[name][::-1] if node.reverse else stacked[name])
        else:
            out.append(ev.xp.stack(ys[j][::-1] if node.reverse else ys[j]))
    return (*carries, *out)


def _counted(statement: ir.ArrayStatement | None, carry: str) -> Any:
    """The integer k where ``statement`` is ``carry + k``: a counter; else None."""
    if statement is None or not isinstance(statement.value, ir.BinOp):
        return None
    value = statement.value
    if value.op != "+":
        return None
    for a, k in ((value.left, value.right), (value.right, value.left)):
        if isinstance(a, ir.Name) and a.id == carry and isinstance(k, ir.Const):
            number = np.asarray(k.value)
            if number.shape == () and number.dtype.kind in "iu":
                return k.value
    return None


class _Combine:
    """:func:`ir.fold`'s combine on batched values: (value, whether per step)."""

    def __init__(self, ev, stacked: dict, same: dict, steps: int) -> None:
        self.ev, self.stacked, self.same, self.steps = ev, stacked, same, steps

    def __call__(self, n: ir.Node, kids: list) -> tuple[Any, bool]:
        if isinstance(n, ir.Name):
            if n.id in self.stacked:
                return self.stacked[n.id], True
            if n.id in self.same:
                return self.same[n.id], False
            raise _Unbatched
        values = [v for v, _ in kids]
        if not any(per_step for _, per_step in kids):
            return self.ev._method(n)(n, values), False
        if isinstance(n, (ir.BinOp, ir.UnaryOp, ir.AsType, ir.Formula)):
            return self._elementwise(n, kids), True
        if (isinstance(n, ir.Call) and not n.keywords) or _dtype_only(n):
            return self._call(n, kids), True
        raise _Unbatched

    def _aligned(self, kids: list) -> list:
        """Each per-step operand with its step axes aligned on the right of the widest
        step's (as NumPy broadcasts one step's operands)."""
        rank = max(np.ndim(v) - per_step for v, per_step in kids)
        out = []
        for v, per_step in kids:
            if per_step:
                v = np.asarray(v)
                v = v.reshape((self.steps, *(1,) * (rank + 1 - v.ndim), *v.shape[1:]))
            out.append(v)
        return out

    def _elementwise(self, n: ir.Node, kids: list) -> Any:
        aligned = self._aligned(kids)
        shape = np.broadcast_shapes(*(np.shape(v) for v in aligned))
        if int(np.prod(shape)) > BATCH_ENTRIES:
            raise _Unbatched
        found = self.ev._method(n)(n, aligned)
        if np.shape(found)[:1] != (self.steps,):
            raise _Unbatched
        return found

    def _call(self, n: ir.Call, kids: list) -> Any:
        name = n.func
        x, per_step = kids[0]
        if name == "reshape" and len(n.args) == 2 and per_step and not kids[1][1]:
            shape = kids[1][0]
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            return np.reshape(x, (self.steps, *shape))
        if name == "ravel" and len(n.args) == 1:
            return np.reshape(x, (self.steps, -1))
        function = self.ev._function(name)
        if name in _ELEMENTWISE_CALLS or isinstance(function, np.ufunc):
            return self._elementwise(n, kids)
        raise _Unbatched


def _dtype_only(n: ir.Node) -> bool:
    """An ``asarray(x, dtype=...)``."""
    keywords = [k for k, _ in n.keywords] if isinstance(n, ir.Call) else []
    return isinstance(n, ir.Call) and n.func == "asarray" and keywords == ["dtype"]
