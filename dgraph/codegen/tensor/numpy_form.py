"""The printed form of a NumPy function body (its statements stay as they are): a
symmetric sparse Jacobian's values (a Hessian's) computed with less memory traffic and
fewer passes, the same doubles.

- A gather at constant positions that step evenly (``v[K]``, ``K`` = a, a + s, …) is a
  slice, a view: no index array read, no copy; at other constant positions it is
  ``numpy.take``, whose loop is simpler than fancy indexing's.
- A scatter's positions that step evenly in a few runs are written through slices
  (``view += data``, not ``numpy.add.at``); a scatter-add of a constant base at such
  positions is a new vector written once per entry (:func:`_assembly`).
- Arithmetic whose operand is a new vector that no later statement reads (nor a name
  that may share its memory) is done in place (``out=``), and a scatter-add adds into
  such a base instead of a copy (onto a constant of zeros: into ``numpy.zeros``);
  arithmetic on a ``numpy.take`` is written into the taken copy.
- Each temporary is deleted after its last use, so that the allocator hands its memory,
  still in cache, to the next statement instead of every temporary living until the
  function returns.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from .. import ir
from ..array_passes import array_shapes, loop_arguments, node_shapes
from ..ir import ArrayStatement, BinOp, Call, Index, Name, Node, Scatter, ScatterAdd, UnaryOp
from ..python import NumPyArrayPrinter
from .constants import Constants
from .grid_numpy import grid_lines
from .numpy_assembly import Mirror, Write, written
from .numpy_pad import pad_lines
from .numpy_planes import planes_split, scatter_bases
from .numpy_scalars import (
    broadcasts_late,
    distinct_constant,
    scales_folded,
    uniform_scalars,
    uniform_value,
)
from .numpy_segments import segment_lines
from .numpy_strips import Assembly, Printed, stripped
from .slice_loops import LOOP_PREFIX

__all__ = ["RUNS", "numpy_body", "runs", "strided_runs", "text"]

RUNS = 8
"""The most slices one scatter part (or the Hessian's mirror) is written as."""
PREFIX = 4096  # :func:`runs` looks at this many entries first: the greedy cuts of a prefix
# are the whole array's up to the prefix's last cut (each earlier one ends where a step
# changes inside the prefix), so more than ``limit`` cuts there, or a step not positive where
# one starts, rejects the whole; an index array of 10⁶ entries and more that is no runs (most
# of those asked about) is then rejected without a pass over it (several per module)

_SHAPE_ONLY = ("ravel", "reshape", "asarray")


@dataclass(frozen=True)
class Positions(Node):
    """Constant positions printed as Python: a ``slice``, or a tuple of ``(slice,
    slice)`` runs (the part's entries at the second go to the first)."""

    text: str


class _Printer(NumPyArrayPrinter):
    vectors: set[str] = frozenset()  # type: ignore[assignment]
    """Names of arrays of one axis (not broadcasts): their ``ravel`` inside an expression
    prints as the name. ``numpy.ravel`` of a vector is a new view, some 0.5 µs a call,
    and the generated bodies hold it around most operands (a Hessian's forward sweep at
    10⁴ unknowns: 149 a call); NumPy reads the same entries either way. A statement that
    is only a ``ravel`` keeps it (its name is then a view of the ravel's own, as before)."""

    def _print_Positions(self, node: Positions) -> tuple[str, int]:
        return node.text, 9

    def _print_Call(self, node) -> tuple[str, int]:
        if node.func == "ravel" and len(node.args) == 1 and not node.keywords:
            x = node.args[0]
            if isinstance(x, Name) and x.id in self.vectors:
                return x.id, 9
        return super()._print_Call(node)

    def statement(self, s: ArrayStatement) -> str:
        v = s.value
        if isinstance(v, Call) and v.func == "ravel" and not s.at:
            vectors, self.vectors = self.vectors, frozenset()
            try:
                return super().statement(s)
            finally:
                self.vectors = vectors
        return super().statement(s)


def runs(*arrays: np.ndarray, limit: int = RUNS) -> list[tuple[int, int]] | None:
    """The cuts ``[lo, hi)`` of the equally long integer ``arrays`` into runs along which
    each steps by a constant positive amount (greedily, each run as long as it goes);
    None where more than ``limit`` are needed or an array is empty."""
    n = arrays[0].size
    if n == 0:
        return None
    if n == 1:
        return [(0, 1)]
    if n > 2 * PREFIX and runs(*(a[:PREFIX] for a in arrays), limit=limit) is None:
        return None  # the prefix's cuts are the whole's up to its last one (see PREFIX)
    if len(arrays) == 1:  # one array: its steps as a row, no stacked copy
        steps = np.diff(arrays[0].astype(np.int64, copy=False))[None, :]
        changes = np.flatnonzero(steps[0, 1:] != steps[0, :-1]) + 1
    else:
        steps = np.stack([np.diff(a.astype(np.int64, copy=False)) for a in arrays])  # (k, n - 1)
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


def _slice(a: np.ndarray, lo: int, hi: int) -> slice:
    """``a[lo:hi]`` (evenly stepping, positive step) as a slice."""
    start = int(a[lo])
    step = int(a[lo + 1] - a[lo]) if hi - lo > 1 else 1
    return slice(start, start + step * (hi - lo - 1) + 1, step)


def text(s: slice) -> str:
    """A slice as written inside brackets: ``a:b`` or ``a:b:s``."""
    return f"{s.start}:{s.stop}" if s.step == 1 else f"{s.start}:{s.stop}:{s.step}"


def strided_runs(*arrays: np.ndarray, limit: int = RUNS) -> list[tuple[slice, ...]] | None:
    """The equally long integer ``arrays`` as at most ``limit`` runs of slices: per run,
    the slice of the entries' own places (``lo:hi:p``) and each array's slice there
    (all stepping evenly); the entries taken by residue mod a period p of 1 to 4 (two
    diagonals interleaved in a band's rows: p = 2). None where none fits."""
    n = arrays[0].size
    for period in range(1, 5):
        found: list[tuple[slice, ...]] = []
        for r in range(min(period, n)):
            sub = [a[r::period] for a in arrays]
            cuts = runs(*sub, limit=limit - len(found))
            if cuts is None:
                break
            for lo, hi in cuts:
                own = slice(r + period * lo, r + period * (hi - 1) + 1, period)
                found.append((own, *(_slice(a, lo, hi) for a in sub)))
        else:
            if found:
                return found
    return None


def _whole(s: slice, n: int) -> bool:
    return s.start == 0 and s.step == 1 and s.stop == n


def _positions(a: np.ndarray) -> Positions | None:
    """A scatter part's positions ``a`` as a slice, or runs of ``(slice, slice)`` pairs
    (positions, then the part's entries that go there); None where they do not fit."""
    cuts = strided_runs(a)
    if cuts is None:
        return None
    if len(cuts) == 1 and _whole(cuts[0][0], a.size):
        return Positions(repr(cuts[0][1]))
    return Positions(f"({', '.join(f'({at!r}, {own!r})' for own, at in cuts)},)")


def numpy_body(
    statements: list[ArrayStatement],
    constants: Constants,
    env: dict,
    ends: set[str],
    later: dict[str, np.ndarray] | None = None,
    mirror: Mirror | None = None,
    outside: frozenset[str] | set[str] = frozenset(),
) -> list[str]:
    """The printed lines of ``statements`` (a NumPy function's body returning ``ends``)
    in the form of the module docstring; as printed plainly where a statement stores in
    place or is a loop (but a run's loop over row slices, :mod:`.slice_loops`: the parts
    around it and its body so, :func:`_around_loops`). ``later``: per
    statement, positions of its vector the caller writes after the body (a Hessian's
    entries above the diagonal), left unset; ``mirror``: how they are written, by the
    assembly where it can (``mirror.done``); ``outside``: names made before the
    statements, let go after their last reader here."""
    later = later or {}
    if _chunk_loops(statements):
        return _around_loops(statements, constants, env, ends, later, mirror)
    printer = _Printer()
    plain = [printer.statement(s) for s in statements]
    if not ir.straight_line(statements):
        return plain
    statements = uniform_scalars(statements, constants, env)
    statements = broadcasts_late(statements, env, ends)
    statements = scatter_bases(statements, constants, ends)
    statements, env = planes_split(statements, constants, env, ends)
    statements = scales_folded(statements, env, ends)
    env = dict(env)
    for s in statements:  # names the passes above made (a common subexpression): shaped
        if s.target not in env and not s.at:
            env[s.target] = node_shapes(s.value, env).get(id(s.value))
    printer.vectors = _vectors(statements, constants, env)
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
    fresh: set[str] = set()  # names of float arrays their statement made anew
    context = _Context(printer, constants, env, protected, made, uses, last)
    printed: list[Printed] = []
    for i, s in enumerate(statements):
        at = later.get(s.target)
        kept: list[Assembly] = []
        value = None  # the node printed as ``target = value``, where it is
        lines = _assembly(s, context, i, fresh, at, None if at is None else mirror, kept)
        if lines is None:
            lines = pad_lines(s, context, i, fresh)
        if lines is None:
            lines = segment_lines(s, context)
        if lines is None:
            lines = _grid_lines(s, context, i, fresh)
        if lines is None:
            value = _unit_dropped(_rewritten(s.value, s.target, context, i, fresh), context)
            value = _in_place(value, context, fresh, i)
            made_new = _makes_new(value) or _renamed(value, context, fresh, i)
            if made_new and not _boolean(value, context):
                fresh.add(s.target)
            new = s.target in fresh and not isinstance(value, Name)  # a rename shares
            _record_shares(s.target, value, new, context)
            lines = _into_taken(s.target, value, context, fresh)
            if lines is None:
                lines = [printer.statement(ArrayStatement(s.target, value))]
            else:
                value = None
        else:
            fresh.add(s.target)
            first = lines[0].strip().split(" = ")
            if len(first) == 2 and first[0] == s.target and first[1].isidentifier():
                context.share(s.target, first[1])  # the array of a name it wrote into
        dead = sorted(
            n for n in reads[i] if last[n] == i and (n in made or n in outside) and n not in ends
        )
        assembly = kept[0] if kept else None
        printed.append(Printed(s.target, value, lines, dead, reads[i], assembly))
    found = stripped(printed, ends, _Shapes(env, constants))
    if found is not None:
        return found
    out: list[str] = []
    for p in printed:
        out += p.lines
        if p.dead:
            out.append(f"    del {', '.join(p.dead)}")
    return out


def _chunk_loops(statements: list[ArrayStatement]) -> bool:
    """Whether ``statements`` are assignments and loops over slices of rows (runs of
    large arrays, :mod:`.slice_loops`: no carries, under its names), at least one loop;
    a program's own loops keep their plain printing."""
    loops = [s for s in statements if isinstance(s.value, ir.Loop)]
    return (
        bool(loops)
        and all(not s.at and not isinstance(s.value, (ir.While, ir.Cond)) for s in statements)
        and all(
            s.target.startswith(LOOP_PREFIX) and s.value.carries == 0 and not s.value.reverse
            for s in loops
        )
    )


def _around_loops(
    statements: list[ArrayStatement],
    constants: Constants,
    env: dict,
    ends: set[str],
    later: dict[str, np.ndarray],
    mirror: Mirror | None,
) -> list[str]:
    """The lines of straight-line statements and loops over row slices: each run of
    assignments between loops in the form of the module docstring (the names a later
    statement reads kept), each loop's body so too, in a nested function; a name let
    go after the part that reads it last."""
    reads = [ir.names_in(s.value) for s in statements]
    read_from: list[set[str]] = [set() for _ in range(len(statements) + 1)]
    for i in range(len(statements) - 1, -1, -1):
        read_from[i] = read_from[i + 1] | reads[i]
    cuts = [i for i, s in enumerate(statements) if isinstance(s.value, ir.Loop)]
    out: list[str] = []
    alive: set[str] = set()  # made by an earlier part, not let go
    start = 0
    for c in [*cuts, len(statements)]:
        part = statements[start:c]
        if part:
            kept = (read_from[c] | ends) & {s.target for s in part}
            going = {n for n in alive if n not in read_from[c] and n not in ends}
            out += numpy_body(part, constants, env, kept | ends, later, mirror, going)
            alive = (alive - going) | kept
        if c < len(statements):
            out += _loop_lines(statements[c], constants, env)
            alive.add(statements[c].target)
        end = min(c + 1, len(statements))
        dead = sorted(n for n in alive if n not in ends and n not in read_from[end])
        if dead:
            out.append(f"    del {', '.join(dead)}")
            alive -= set(dead)
        start = c + 1
    return out


def _loop_lines(s: ArrayStatement, constants: Constants, env: dict) -> list[str]:
    """``s.target = loop`` (no carries): its body a nested function in the form of the
    module docstring, called on each step's slices of the xs and the invariants; each
    y's slices stacked."""
    loop, target = s.value, s.target
    body = loop.body
    found = node_shapes(loop, env)
    shapes = loop_arguments(loop, lambda n: found.get(id(n)))
    inner = array_shapes(body.program(shapes))
    printer = _Printer()
    name, t = f"_{target}_body", f"_{target}_t"
    lines = [f"    def {name}({', '.join(body.arguments)}):"]
    for line in numpy_body(list(body.statements), constants, inner, set(body.results)):
        lines += ["    " + part for part in line.split("\n")]
    results = ", ".join(body.results) + ("," if len(body.results) == 1 else "")
    xs = ", ".join(printer.doprint(x) for x in loop.xs) + ("," if len(loop.xs) == 1 else "")
    invariants = ", ".join(printer.doprint(x) for x in loop.invariants)
    invariants += "," if len(loop.invariants) == 1 else ""
    lines += [
        f"        return ({results})",
        f"    _{target}_xs = ({xs})",
        f"    _{target}_invariants = ({invariants})",
        f"    _{target}_ys = tuple([] for _ in range({len(body.results)}))",
        f"    for {t} in range({loop.length}):",
        f"        _{target}_out = {name}(*(x[{t}] for x in _{target}_xs), *_{target}_invariants)",
        f"        for _y, _v in zip(_{target}_ys, _{target}_out):",
        "            _y.append(_v)",
        f"    {target} = tuple(numpy.stack(_y) for _y in _{target}_ys)",
        f"    del {name}, _{target}_xs, _{target}_invariants, _{target}_ys, _{target}_out",
    ]
    return lines


def _vectors(statements: list[ArrayStatement], constants: Constants, env: dict) -> set[str]:
    """The names of ``statements`` and of the module ``constants`` whose arrays have one
    axis and are not broadcasts (:attr:`_Printer.vectors`); a name a statement writes
    partly (``at``) or that a statement binds twice is left out."""
    bound: dict[str, int] = {}
    for s in statements:
        bound[s.target] = bound.get(s.target, 0) + 1
    out = {name for name, a in constants.arrays.items() if a.ndim == 1}
    for s in statements:
        shape = env.get(s.target)
        if s.at or bound[s.target] > 1 or not (isinstance(shape, tuple) and len(shape) == 1):
            continue
        if isinstance(s.value, Call) and s.value.func in ("broadcast_to", "lax.dynamic_slice"):
            continue
        if ir.number(s.value) is not None:
            continue  # a number where one entry is meant: its ravel is the array
        out.add(s.target)
    return out - {s.target for s in statements if s.at or bound[s.target] > 1}


@dataclass
class _Shapes:
    """Each name's shape: the body's names', then the module constants' (those the
    body's printing added too)."""

    env: dict
    constants: Constants

    def get(self, name: str):
        if name in self.env:
            return self.env[name]
        a = self.constants.arrays.get(name)
        return None if a is None else a.shape


def _into_taken(target: str, value: Node, c: _Context, fresh: set[str]) -> list[str] | None:
    """Arithmetic on a ``numpy.take`` of a float vector (``take(v, K) * w``) as the take
    first, then the operation written into the taken copy: no second new vector, the same
    doubles. None where ``value`` is not such an operation or the shapes differ."""
    if isinstance(value, BinOp) and value.op in _UFUNCS:
        operands, func = [value.left, value.right], _UFUNCS[value.op]
    elif isinstance(value, UnaryOp) and value.op == "-":
        operands, func = [value.operand], "negative"
    else:
        return None
    shape = c.env.get(target)
    for k, o in enumerate(operands):
        if not (isinstance(o, Call) and o.func == "take" and len(o.args) == 2):
            continue
        v, index = o.args
        floats = isinstance(v, Name) and (
            v.id in fresh
            or (v.id in c.constants.arrays and c.constants.arrays[v.id].dtype == np.float64)
        )
        a = c.index(index)
        if not floats or a is None or c.shape(v) is None or len(c.shape(v)) != 1:
            continue
        if shape != (a.size,) or any(c.shape(x) not in ((), shape) for x in operands if x is not o):
            continue
        operands[k] = Name("_taken")
        call = Call(func, tuple(operands), (("out", Name("_taken")),))
        return [
            f"    _taken = {c.printer.doprint(o)}",
            c.printer.statement(ArrayStatement(target, call)),
            "    del _taken",
        ]
    return None


def _record_shares(target: str, value: Node, new: bool, c: _Context) -> None:
    """The names ``target`` may share memory with: the array an in-place operation or
    ``_scatter_add_into`` wrote into where ``value`` makes a new array (``new``), every
    name ``value`` reads otherwise (a view, a reshape: assumed to share)."""
    if new:
        into = _out(value)
        if into is None and isinstance(value, Call) and value.func == "_scatter_add_into":
            first = value.args[0]
            into = first.id if isinstance(first, Name) else None
        if into is not None:
            c.share(target, into)
        return
    for name in ir.names_in(value):
        c.share(target, name)


def _grid_lines(s: ArrayStatement, c: _Context, i: int, fresh: set[str]) -> list[str] | None:
    """Statement ``s`` through views of its grid positions (:mod:`.grid_numpy`)."""

    def form(data: Node) -> Node:  # a name another part reads too is not written into
        data = _unit_dropped(_rewritten(data, "_part", c, i, fresh), c)
        return _in_place(data, c, fresh, i, s.value)

    form.runs = lambda a: _positions(a) is not None  # type: ignore[attr-defined]
    return grid_lines(ArrayStatement(s.target, _unit_dropped(s.value, c)), c, fresh, i, form)


@dataclass
class _Context:
    """What the rewrite of one body reads: its printer, the module constants, the
    names' shapes, the names never to be views, each name's statement, how many
    statements read it and the last that does."""

    printer: _Printer
    constants: Constants
    env: dict
    protected: set[str]
    made: dict[str, Node]
    uses: dict[str, int]
    last: dict[str, int]
    shares: dict[str, set[str]] = field(default_factory=dict)

    def share(self, name: str, other: str) -> None:
        """Record that ``name`` may share memory with ``other`` (a view of it, or the
        array an in-place operation wrote into): one group of names for both."""
        group = self.shares.get(name, {name}) | self.shares.get(other, {other})
        for member in group:
            self.shares[member] = group

    def index(self, node: Node) -> np.ndarray | None:
        """A 1-D integer constant's entries; None for anything else."""
        if isinstance(node, Name) and node.id in self.constants.arrays:
            a = self.constants.arrays[node.id]
            return a if a.ndim == 1 and a.dtype.kind in "iu" else None
        return None

    def vector(self, node: Node) -> Node:
        """The name under ``node`` where it only flattens or broadcasts a vector to its
        own size (:func:`_vector_of`); ``node`` itself otherwise."""
        return _vector_of(node, self)

    def dying(self, name: str, node: Node, i: int) -> bool:
        """Whether statement ``i`` may write into ``name``'s array: it is the last to
        read ``name``, reads it once (in ``node``), and no name that may share its memory
        is read at ``i`` or later; never a result."""
        once = sum(isinstance(m, Name) and m.id == name for m in ir.walk(node)) == 1
        if not once or self.last.get(name) != i or name in self.protected:
            return False
        others = self.shares.get(name, {name}) - {name}
        return all(self.last.get(m, -1) < i for m in others)

    def shape(self, node: Node) -> tuple[int, ...] | None:
        if isinstance(node, Name):
            shape = self.env.get(node.id)
            return shape if isinstance(shape, tuple) else None
        if ir.number(node) is not None:
            return ()
        if isinstance(node, Call) and node.func == "ravel" and len(node.args) == 1:
            inner = self.shape(node.args[0])
            return None if inner is None else (int(np.prod(inner)),)
        if isinstance(node, Index) and len(node.items) == 1 and isinstance(node.items[0], ir.Slice):
            inner, s = self.shape(node.value), node.items[0]
            if inner is not None and len(inner) == 1:
                return (len(range(*slice(s.lower, s.upper, s.step).indices(inner[0]))),)
        return None


_FRESH = (BinOp, UnaryOp, ir.Formula, Scatter, ScatterAdd)
_COMPARE = ("<", "<=", ">", ">=", "==", "!=")
_UFUNCS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide"}


def _makes_new(value: Node) -> bool:
    """Whether a statement of this value makes a new float array (or writes into one)."""
    if isinstance(value, BinOp):
        return value.op not in _COMPARE
    if isinstance(value, Call):
        if value.func in ("zeros", "ones") and not value.keywords:
            return True  # a new vector of doubles (a scatter-add then adds into it)
        made = value.func in ("_scatter_add_into", "take")
        return made or any(k == "out" for k, _ in value.keywords)
    if isinstance(value, ir.Formula) and value.expr.is_Symbol:
        return False  # its one operand itself, printed as a name: writing into it writes there
    return isinstance(value, _FRESH)


def _boolean(node: Node, c: _Context, depth: int = 0) -> bool:
    """Whether ``node`` is an array of booleans (a comparison, or a gather, flattening or
    rename of one): no float result may be written into it (``numpy.multiply(mask, t,
    out=mask)`` cannot cast)."""
    if depth > 64:
        return False
    if isinstance(node, BinOp):
        return node.op in _COMPARE
    if isinstance(node, Name):
        if node.id in c.constants.arrays:
            return c.constants.arrays[node.id].dtype == np.bool_
        made = c.made.get(node.id)
        return made is not None and _boolean(made, c, depth + 1)
    if isinstance(node, Call) and node.func in ("take", "ravel", "reshape") and node.args:
        return _boolean(node.args[0], c, depth + 1)
    if isinstance(node, ir.Index):
        return _boolean(node.value, c, depth + 1)
    return False


def _unit_dropped(node: Node, c: _Context) -> Node:
    """``node`` with each product by the number 1.0 and power 1 left out (the same
    doubles), but for a product that makes doubles of booleans (``1.0 * (a == b)``)."""

    def replace(n: Node) -> Node | None:
        if isinstance(n, BinOp) and n.op == "**" and ir.number(n.right) == 1.0:
            return ir.rebuilt(n.left, replace)
        if isinstance(n, BinOp) and n.op == "*":
            for one, other in ((n.left, n.right), (n.right, n.left)):
                if isinstance(one, ir.Const) and isinstance(one.value, float) and one.value == 1.0:
                    return None if _boolean(other, c) else ir.rebuilt(other, replace)
        return None

    return ir.rebuilt(node, replace)


def _in_place(value: Node, c: _Context, fresh: set[str], i: int, whole: Node | None = None) -> Node:
    """Each arithmetic operation in ``value`` written into the array of an operand
    that a statement made anew, that only this statement reads and whose shape is the
    result's (``numpy.multiply(a, t, out=t)``): no new array, the same doubles.
    ``whole``: the statement ``value`` is part of (a scatter's part), which must read
    the operand once (default ``value``)."""
    whole = value if whole is None else whole

    def replace(n: Node) -> Node | None:
        if isinstance(n, UnaryOp) and n.op == "-":
            operands, func = (n.operand,), "negative"
        elif isinstance(n, BinOp) and n.op in _UFUNCS:
            operands, func = (n.left, n.right), _UFUNCS[n.op]
        else:
            return None
        shapes = [c.shape(o) for o in operands]
        for operand, shape in zip(operands, shapes, strict=True):
            target = operand
            if isinstance(target, Call) and target.func == "ravel" and len(target.args) == 1:
                target = target.args[0]  # a vector's ravel is itself
            if (
                isinstance(target, Name)
                and target.id in fresh
                and shape  # a 0-d result is a NumPy scalar, no array to write into
                and c.shape(target) == shape
                and all(s in ((), shape) for s in shapes)
                and c.dying(target.id, whole, i)
            ):
                inner = tuple(ir.rebuilt(o, replace) for o in operands)
                return Call(func, inner, (("out", target),))
        return None

    rewritten = ir.rebuilt(value, replace)
    replace = None  # type: ignore[assignment]  # it calls itself: no cycle holding the
    return rewritten  # context (the module's constants) while cyclic collection is paused


def _rewritten(value: Node, target: str, c: _Context, i: int, fresh: set[str]) -> Node:
    """``value`` with its gathers at evenly stepping positions as slices (unless
    ``target`` must not be a view), its scatters' positions as slices or runs, and a
    scatter-add into a dying new vector (of ``fresh``) made in place."""

    def flat(node: Node) -> Node:
        a = c.index(node)
        found = None if a is None else _positions(a)
        return node if found is None else found

    def replace(n: Node) -> Node | None:
        if isinstance(n, Index) and len(n.items) == 1 and target not in c.protected:
            a = c.index(n.items[0])  # along the first axis, as a slice is
            cuts = None if a is None else runs(a, limit=1)
            if cuts is not None:
                s = _slice(a, *cuts[0])
                inner = ir.rebuilt(n.value, replace)
                return Index(inner, (ir.Slice(s.start, s.stop, None if s.step == 1 else s.step),))
        if isinstance(n, Index) and len(n.items) == 1 and c.index(n.items[0]) is not None:
            inner = ir.rebuilt(n.value, replace)  # numpy.take: a third faster than v[K]
            return Call("take", (inner, n.items[0]), (("axis", ir.Const(0)),))
        if isinstance(n, Index):
            return None
        if isinstance(n, Scatter):
            return Scatter(n.size, flat(n.flat), ir.rebuilt(n.data, replace))
        if isinstance(n, ScatterAdd):
            parts = tuple((flat(f), ir.rebuilt(d, replace)) for f, d in n.parts)
            base = _vector_of(n.base, c)
            if (
                n is value
                and isinstance(base, Name)
                and base.id in fresh
                and c.shape(base) is not None
                and len(c.shape(base)) == 1
                and base.id not in c.protected
                and c.dying(base.id, n, i)
            ):  # its base a new vector read only here: add into it
                return Call("_scatter_add_into", (base, *(x for p in parts for x in p)))
            zeros = _zeros(n.base, c)
            if zeros is not None:  # a constant base of zeros: a new vector, not its copy
                return Call("_scatter_add_into", (zeros, *(x for p in parts for x in p)))
            return ScatterAdd(ir.rebuilt(n.base, replace), parts)
        return None

    rewritten = ir.rebuilt(value, replace)
    replace = None  # type: ignore[assignment]  # it calls itself: no cycle holding the
    return rewritten  # context (the module's constants) while cyclic collection is paused


def _zeros(node: Node, c: _Context) -> Node | None:
    """``numpy.zeros(n)`` where ``node`` is a constant float vector of ``n`` zeros (the
    base of a scatter-add: a new vector of zeros costs no read of the constant); None
    otherwise."""
    a = c.constants.arrays.get(node.id) if isinstance(node, Name) else None
    if a is None or a.ndim != 1 or a.dtype != np.float64 or a.any():
        return None
    return Call("zeros", (ir.Const(a.size),))


def _vector_of(node: Node, c: _Context) -> Node:
    """The name under ``node`` where ``node`` only flattens a vector or broadcasts it to
    its own size (``broadcast_to(ravel(x), (n,))`` of ``x`` of ``n`` entries); ``node``
    itself otherwise."""
    inner, shape = node, c.shape(node)
    if isinstance(inner, Call) and inner.func == "broadcast_to" and len(inner.args) == 2:
        to = inner.args[1]
        shape = to.value if isinstance(to, ir.Const) and isinstance(to.value, tuple) else None
        inner = inner.args[0]
    while isinstance(inner, Call) and inner.func == "ravel" and len(inner.args) == 1:
        inner = inner.args[0]
    ok = isinstance(inner, Name) and shape is not None and c.shape(inner) == tuple(shape)
    return inner if ok else node


def _assembly(
    s: ArrayStatement,
    c: _Context,
    i: int,
    fresh: set[str],
    later: np.ndarray | None,
    mirror: Mirror | None = None,
    kept: list[Assembly] | None = None,
) -> list[str] | None:
    """A scatter-add of a constant base whose parts land at evenly stepping positions,
    no two parts at one, as writes: each part's runs once into a new vector (plus the
    base's values there, a constant, where not all zero), the base's values alone at
    the positions no part reaches — each entry written once, instead of a copy of the
    base and a pass of additions per part; ``later``: positions the caller writes
    afterwards (left unset here), unless ``mirror`` says how and the pieces' vectors
    can fill them (:func:`.numpy_assembly.written`); ``kept``: the assembly's pieces
    appended there (for :mod:`.numpy_strips`). None where it does not fit."""
    v = s.value
    if not (isinstance(v, ScatterAdd) and isinstance(v.base, Name)):
        return None
    base = c.constants.arrays.get(v.base.id)
    if base is None or base.ndim != 1 or base.dtype.kind != "f":
        return None
    covered = np.zeros(base.size, dtype=bool)
    placed = []
    for f, d in v.parts:
        a = c.index(f)
        apart = a is not None and distinct_constant(c.constants, f.id)  # type: ignore[attr-defined]
        cuts = strided_runs(a) if apart else None
        if cuts is None:
            return None
        pieces = []  # (own, at, whether another part got there first)
        for own, at in cuts:
            state = covered[a[own]]
            changes = [0, *(np.flatnonzero(state[1:] != state[:-1]) + 1).tolist(), state.size]
            for lo, hi in itertools.pairwise(changes):
                pieces.append((_sub(own, lo, hi), _sub(at, lo, hi), bool(state[lo])))
        covered[a] = True
        placed.append((a, pieces, d))
    if later is not None:
        covered[later] = True
    rest = np.flatnonzero(~covered)
    left = strided_runs(rest) if rest.size else []
    if left is None or sum(len(p[1]) for p in placed) > 2 * RUNS:
        return None
    t = s.target
    lines = [f"    {t} = numpy.empty({base.size})"]
    writes: list[Write | str] = []
    for a, pieces, d in placed:
        node = _unit_dropped(_rewritten(d, "_part", c, i, fresh), c)
        node = _in_place(node, c, fresh, i, v)  # not into a name another part reads
        data = c.printer.doprint(node)
        number = isinstance(d, ir.Const)  # a number (a plane of one value): never sliced
        # in several pieces, it is computed once first (a name, or its ravel, is read as it is)
        once = len(pieces) == 1 or number or _view_of_name(node)
        if not once:
            writes.append(f"    _part = {data}")
            data = "_part"
        for own, at, added in pieces:
            whole = number or _whole(own, a.size)
            source = data if whole else f"{data}[{text(own)}]"
            values = base[a[own]]
            one = None if added or not values.any() else uniform_value(values)
            const = None if added or not values.any() else repr(one)
            if const is not None and one is None:
                const = c.constants.add(values).id
            out = _out(node) if once and whole and not number else None
            printed = d if number else node if once and whole else None
            given = None if const is None else Name(const) if one is None else ir.Const(one)
            writes.append(Write(at, source, const, added, out, number, printed, given))
        if not once:
            writes.append("    del _part")
    runs = None if mirror is None else strided_runs(mirror.upper, mirror.source)
    found, done = written(t, writes, None if runs is None else [(a, b) for _, a, b in runs])
    if mirror is not None:
        mirror.done = done
    lines += found
    filled = []  # the base's values where no part lands
    for own, at in left:
        values = base[rest[own]]
        if np.all(values == values[0]):
            filled.append(f"    {t}[{text(at)}] = {float(values[0])!r}")
        else:
            filled.append(f"    {t}[{text(at)}] = {c.constants.add(values).id}")
    if kept is not None:
        copies = [(a, b) for _, a, b in runs] if done and runs else None
        kept.append(Assembly(t, base.size, writes, filled, copies))
    return lines + filled


def _renamed(value: Node, c: _Context, fresh: set[str], i: int) -> bool:
    """Whether ``value`` is the name of a new vector (of ``fresh``) that statement ``i``,
    which only renames it, is the last to read: the new name's array is as new."""
    return isinstance(value, Name) and value.id in fresh and c.dying(value.id, value, i)


def _view_of_name(node: Node) -> bool:
    """Whether ``node`` is a name or its ``ravel``: read, nothing computed."""
    if isinstance(node, Call) and node.func == "ravel" and len(node.args) == 1:
        node = node.args[0]
    return isinstance(node, Name)


def _out(node: Node) -> str | None:
    """The new vector an in-place operation writes into (``out=``), if any."""
    if isinstance(node, Call):
        out = dict(node.keywords).get("out")
        return out.id if isinstance(out, Name) else None
    return None


def _sub(s: slice, lo: int, hi: int) -> slice:
    """Entries ``lo:hi`` of the entries slice ``s`` takes, as a slice."""
    return slice(s.start + lo * s.step, s.start + (hi - 1) * s.step + 1, s.step)
