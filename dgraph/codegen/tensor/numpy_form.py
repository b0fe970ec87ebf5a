"""The printed form of a NumPy function body (its statements stay as they are): a
symmetric sparse Jacobian's values (a Hessian's) computed with less memory traffic.

- A gather at constant positions that step evenly (``v[K]``, ``K`` = a, a + s, …) is a
  slice, a view: no index array read, no copy.
- A scatter's positions that step evenly in a few runs are written through slices
  (``view += data``, not ``numpy.add.at``).
- A scatter-add whose base is a scatter's result read nowhere else adds into it (no
  copy).
- Each temporary is deleted after its last use, so that the allocator hands its memory,
  still in cache, to the next statement (at 10⁴ unknowns a hundred temporaries of
  10⁵ entries each would otherwise all live until the function returns; at 10⁶ each
  new array would be fresh pages).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import ir
from ..array_passes import node_shapes
from ..ir import ArrayStatement, Call, Index, Name, Node, Scatter, ScatterAdd
from ..python import NumPyArrayPrinter
from .constants import Constants

__all__ = ["RUNS", "numpy_body", "runs", "strided_runs"]

RUNS = 8
"""The most slices one scatter part (or the Hessian's mirror) is written as."""

_SHAPE_ONLY = ("ravel", "reshape", "asarray")


@dataclass(frozen=True)
class Positions(Node):
    """Constant positions printed as Python: a ``slice``, or a tuple of ``(slice,
    slice)`` runs (the part's entries at the second go to the first)."""

    text: str


class _Printer(NumPyArrayPrinter):
    def _print_Positions(self, node: Positions) -> tuple[str, int]:
        return node.text, 9


def runs(*arrays: np.ndarray, limit: int = RUNS) -> list[tuple[int, int]] | None:
    """The cuts ``[lo, hi)`` of the equally long integer ``arrays`` into runs along which
    each steps by a constant positive amount (greedily, each run as long as it goes);
    None where more than ``limit`` are needed or an array is empty."""
    n = arrays[0].size
    if n == 0:
        return None
    if n == 1:
        return [(0, 1)]
    steps = np.stack([np.diff(a.astype(np.int64)) for a in arrays])  # (k, n - 1)
    changes = np.flatnonzero(np.any(steps[:, 1:] != steps[:, :-1], axis=0)) + 1
    cuts: list[tuple[int, int]] = []
    lo = 0
    while lo < n:
        if len(cuts) == limit:
            return None
        if lo == n - 1:
            cuts.append((lo, n))
            break
        # the steps from lo stay those of steps[:, lo] up to the next change after lo
        k = int(np.searchsorted(changes, lo, side="right"))
        end = int(changes[k]) if k < changes.size else n - 1  # first step that differs
        if np.any(steps[:, lo] <= 0):
            return None
        cuts.append((lo, end + 1))
        lo = end + 1
    return cuts


def _slice(a: np.ndarray, lo: int, hi: int) -> tuple[int, int, int]:
    """``a[lo:hi]`` (evenly stepping, positive step) as slice bounds."""
    start = int(a[lo])
    step = int(a[lo + 1] - a[lo]) if hi - lo > 1 else 1
    return start, start + step * (hi - lo - 1) + 1, step


def _text(start: int, stop: int, step: int) -> str:
    return f"{start}:{stop}" if step == 1 else f"{start}:{stop}:{step}"


def strided_runs(*arrays: np.ndarray, limit: int = RUNS) -> list[tuple[str, ...]] | None:
    """The equally long integer ``arrays`` as at most ``limit`` runs of slices: per run,
    the slice of the entries' own places (``lo:hi:p``) and each array's slice there
    (all stepping evenly); the entries taken by residue mod a period p of 1 to 4 (two
    diagonals interleaved in a band's rows: p = 2). None where none fits."""
    n = arrays[0].size
    for period in range(1, 5):
        found: list[tuple[str, ...]] = []
        for r in range(min(period, n)):
            sub = [a[r::period] for a in arrays]
            cuts = runs(*sub, limit=limit - len(found))
            if cuts is None:
                break
            for lo, hi in cuts:
                own = _text(r + period * lo, r + period * (hi - 1) + 1, period)
                found.append((own, *(_text(*_slice(a, lo, hi)) for a in sub)))
        else:
            if found:
                return found
    return None


def _positions(a: np.ndarray) -> Positions | None:
    """A scatter part's positions ``a`` as a slice, or runs of ``(slice, slice)`` pairs
    (positions, then the part's entries that go there); None where they do not fit."""
    cuts = strided_runs(a)
    if cuts is None:
        return None
    if len(cuts) == 1 and cuts[0][0] == f"0:{a.size}":
        start, stop, step = _slice(a, 0, a.size)
        return Positions(f"slice({start}, {stop}, {step})")
    pairs = [f"({_as_slice(at)}, {_as_slice(own)})" for own, at in cuts]
    return Positions(f"({', '.join(pairs)},)")


def _as_slice(text: str) -> str:
    return f"slice({text.replace(':', ', ')})"


def numpy_body(
    statements: list[ArrayStatement],
    constants: Constants,
    env: dict,
    ends: set[str],
) -> list[str]:
    """The printed lines of ``statements`` (a NumPy function's body returning ``ends``)
    in the form of the module docstring; as printed plainly where a statement stores in
    place or is a loop."""
    printer = _Printer()
    plain = [printer.statement(s) for s in statements]
    if any(s.at or isinstance(s.value, (ir.Loop, ir.While, ir.Cond)) for s in statements):
        return plain
    protected = set(ends)  # the results and what they are views of: never views themselves
    for s in reversed(statements):
        v = s.value
        shaped = isinstance(v, Call) and v.func in _SHAPE_ONLY and v.args
        if s.target in protected and shaped and isinstance(v.args[0], Name):
            protected.add(v.args[0].id)
    made = {s.target: s.value for s in statements}
    reads = [ir.names_in(s.value) for s in statements]
    uses: dict[str, int] = {}
    last: dict[str, int] = {}
    for i, names in enumerate(reads):
        for name in names:
            uses[name] = uses.get(name, 0) + 1
            last[name] = i
    out: list[str] = []
    for i, s in enumerate(statements):
        shapes = node_shapes(s.value, env)
        value = _rewritten(s, shapes, constants, protected, made, uses, last, i)
        out.append(printer.statement(ArrayStatement(s.target, value)))
        dead = sorted(n for n in reads[i] if last[n] == i and n in made and n not in ends)
        if dead:
            out.append(f"    del {', '.join(dead)}")
    return out


def _rewritten(
    s: ArrayStatement,
    shapes: dict,
    constants: Constants,
    protected: set[str],
    made: dict[str, Node],
    uses: dict[str, int],
    last: dict[str, int],
    i: int,
) -> Node:
    arrays = constants.arrays

    def index(node: Node) -> np.ndarray | None:
        if isinstance(node, Name) and node.id in arrays:
            a = arrays[node.id]
            return a if a.ndim == 1 and a.dtype.kind in "iu" else None
        return None

    def flat(node: Node) -> Node:
        a = index(node)
        found = None if a is None else _positions(a)
        return node if found is None else found

    def replace(n: Node) -> Node | None:
        if isinstance(n, Index) and len(n.items) == 1 and s.target not in protected:
            a = index(n.items[0])
            shape = shapes.get(id(n.value))
            if a is not None and isinstance(shape, tuple) and len(shape) >= 1:
                cuts = runs(a, limit=1)
                if cuts is not None:
                    start, stop, step = _slice(a, *cuts[0])
                    inner = ir.rebuilt(n.value, replace)
                    return Index(inner, (ir.Slice(start, stop, None if step == 1 else step),))
            return None
        if isinstance(n, Scatter):
            return Scatter(n.size, flat(n.flat), ir.rebuilt(n.data, replace))
        if isinstance(n, ScatterAdd):
            parts = tuple((flat(f), ir.rebuilt(d, replace)) for f, d in n.parts)
            base = n.base
            if (
                n is s.value
                and isinstance(base, Name)
                and isinstance(made.get(base.id), (Scatter, ScatterAdd))
                and uses.get(base.id) == 1
                and last.get(base.id) == i
                and base.id not in protected
                and sum(isinstance(m, Name) and m.id == base.id for m in ir.walk(n)) == 1
            ):  # its base a scatter's vector read only here: add into it
                return Call("_scatter_add_into", (base, *(x for p in parts for x in p)))
            return ScatterAdd(ir.rebuilt(base, replace), parts)
        return None

    return ir.rebuilt(s.value, replace)
