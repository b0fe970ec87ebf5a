"""How many array entries a program being generated holds at once, counted from its
statements' shapes before anything is evaluated, and the one-line refusal above
:data:`PEAK_MOST`.

The cancellation pass (:mod:`.cancel`) evaluates the program at drawn points, the code
check runs it once more, and every call of the generated code holds its arrays: a
program whose intermediates grow faster than its result (the Hessian of
``Σ c·eigvalsh(D + 0.1 x xᵀ)`` holds some ten arrays of n × n² entries: 1.07 GB each at
n = 512) would need more memory than the machine has, and is refused here instead of
swapping or being killed.

The count (:func:`peak_entries`) walks the statements in order: the entries of every
array a statement makes that is still read later (each let go after its last reader,
as the evaluators and the generated NumPy code let it go), plus, at each statement,
the entries of every array its expression makes on the way (its operations' results;
reshapes, transposes and other views make none). A loop (a run of large arrays a slice
of rows at a time, :mod:`.slice_loops`) holds its body's count for one step and its
stacked ys. The names no statement makes (arguments, constants) are not counted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from ...errors import DGraphError
from ..array_passes import loop_arguments, node_shapes
from ..ir import (
    ArrayStatement,
    Call,
    Const,
    Index,
    Item,
    Loop,
    Name,
    Node,
    Seq,
    Slice,
    SparseMatrix,
    names_in,
)

__all__ = [
    "PEAK_MOST",
    "Total",
    "entries_at_most",
    "peak_entries",
    "read_argument",
    "refuse_large_program",
]

# the most array entries a program may hold at once (3.2 GB of doubles). The process's
# peak follows the count: the eigvalsh Hessian at n = 384 (count 4.07 n³ = 2.3·10⁸, 1.8 GB
# of doubles) built at 1.89 GB of RSS, its cancellation pass evaluated in slices
# (:mod:`.slices`: the bounds' evaluation held 2.6 times the count before); that Hessian
# is refused from n = 462 (4.07 n³ > 4·10⁸), n = 512 at 5.4·10⁸. Counted with its n³ run
# a loop over row slices (:mod:`.slice_loops`), it holds a few n² (n = 512: built at 0.62
# GB of RSS, one call and JAX's checks included)
PEAK_MOST = 4 * 10**8

# operations whose result is a view of their operand (no entries made)
_VIEWS = frozenset(
    {"reshape", "ravel", "transpose", "broadcast_to", "expand_dims", "swapaxes", "squeeze"}
)


def _size(shape) -> int:
    """The entries of an array of ``shape`` (0 where it is not an array's shape)."""
    if not isinstance(shape, tuple) or not all(isinstance(d, int) for d in shape):
        return 0
    return math.prod(shape)


def _view(node: Node) -> bool:
    """Whether ``node`` makes no entries of its own (a name, a view of its operand, a
    sparse matrix around its values: those are counted where they are made; a list of
    operands and a slice inside an index: a ``concatenate``'s entries are counted at it).
    Without the list, a program with one ``concatenate`` had no bound
    (:func:`entries_at_most`: a list has no array's shape) and each block's check walked
    its statements again (:func:`peak_entries`)."""
    if isinstance(node, (Name, Const, Item, SparseMatrix, Seq, Slice)):
        return True  # an item of a loop's results: counted at the loop
    if isinstance(node, Call) and node.func in _VIEWS:
        return True
    return isinstance(node, Index) and all(isinstance(i, Const) for i in node.items)


def _made(node: Node, found: dict) -> int:
    """The entries the operations of ``node`` make (views and leaves make none)."""
    total = 0
    todo = [node]
    while todo:
        n = todo.pop()
        todo.extend(n.children())
        if not _view(n):
            total += _size(found.get(id(n)))
    return total


def peak_entries(
    statements: Sequence[ArrayStatement],
    shapes: Mapping[str, tuple],
    memo: dict[int, _Facts] | None = None,
) -> tuple[int, str | None, tuple | None]:
    """The most array entries ``statements`` hold at once (the module docstring), the
    statement where they do, and the shape of the largest array made there; ``shapes``:
    the arguments' and the constants' shapes. A shape not found counts 0.

    ``memo``: a dict the caller keeps across calls over statements of one program, as
    :func:`~.module.tensor_program` counts each block's statements and then the
    optimized program after the narrowing: a statement's value's names, its nodes'
    shapes and the entries it makes are found once, not once per block that reads it
    (kept by the value: the optimized statements are new, most values the same nodes).
    They depend on the value and the shapes of the names it reads alone: where those
    differ from the ones they were found at, they are found again.
    """
    memo = {} if memo is None else memo
    facts = [_facts(s, memo) for s in statements]
    env = dict(shapes)
    last: dict[str, int] = {}
    for k, (s, f) in enumerate(zip(statements, facts, strict=True)):
        for name in f.value_reads:
            last[name] = k
        if s.at:
            for a in s.at:
                for name in names_in(a):
                    last[name] = k
            last[s.target] = k
    alive: dict[str, int] = {}
    held, peak, where, largest = 0, 0, None, None
    for k, (s, f) in enumerate(zip(statements, facts, strict=True)):
        read = [env.get(name) for name in f.value_reads]  # the shapes it is counted at
        if f.found is None or f.read != read:
            f.found, f.read = node_shapes(s.value, env), read
            f.made = _made(s.value, f.found)
            f.looped = _loop_entries(s.value, f.found) if isinstance(s.value, Loop) else None
        found, looped = f.found, f.looped
        here = held + f.made
        if looped is not None:
            here += looped[0] + looped[1]
        if here > peak:
            peak, where = here, s.target
            sizes = [v for v in found.values() if _size(v)]
            largest = max(sizes, key=_size, default=None)
        if s.at:
            continue
        shape = found.get(id(s.value))
        env[s.target] = shape
        root = s.value
        made = (
            0
            if isinstance(root, (Name, SparseMatrix))
            or (isinstance(root, Call) and root.func in _VIEWS)
            else looped[1]
            if looped is not None
            else _size(shape)
        )
        held += made - alive.pop(s.target, 0)
        if last.get(s.target, -1) > k:
            alive[s.target] = made
        else:
            held -= made  # read by none after it
        for name in f.value_reads:
            if last.get(name) == k and name in alive:
                held -= alive.pop(name)
    return peak, where, largest


class _Facts:
    """What :func:`peak_entries` reads of one statement's value: the names it reads, its
    nodes' shapes, the entries its operations make and its loop's (:func:`_loop_entries`),
    and the shapes of the names it reads that those were found at."""

    __slots__ = ("found", "looped", "made", "read", "value", "value_reads")

    def __init__(self, value: Node) -> None:
        self.value = value  # held: the ids below stay this value's nodes'
        self.value_reads = tuple(sorted(names_in(value)))
        self.found: dict | None = None
        self.made = 0
        self.looped: tuple[int, int] | None = None
        self.read: list | None = None


def _facts(s: ArrayStatement, memo: dict[int, _Facts]) -> _Facts:
    """The :class:`_Facts` of ``s``'s value, from ``memo`` where it holds this value's
    (kept by the value, not the statement: the optimized program's statements are new,
    most of their values the same nodes)."""
    f = memo.get(id(s.value))
    if f is None or f.value is not s.value:
        f = memo[id(s.value)] = _Facts(s.value)
    return f


def _loop_entries(loop: Loop, found: dict) -> tuple[int, int] | None:
    """A loop's entries held at once by its body (one step's: :func:`peak_entries` of the
    body, its arguments slices and invariants not counted) and its stacked ys (all the
    steps'); None where a shape is not found (the loop then counts as it did: none)."""
    try:
        shapes = loop_arguments(loop, lambda n: found.get(id(n)))
    except TypeError:
        return None
    body = loop.body
    inner = dict(zip(body.arguments, shapes, strict=True))
    peak, _, _ = peak_entries(list(body.statements), inner)
    stacked = found.get(id(loop))
    if not isinstance(stacked, list):
        return None
    return peak, sum(_size(y) for y in stacked[loop.carries :])


class Total:
    """The entries every statement of a program being written makes, summed over its
    statements so far (:func:`entries_at_most`), each counted once however many blocks'
    checks ask: kept by the caller across calls; ``known`` False once a shape is not
    found or a loop is met (then no bound)."""

    __slots__ = ("counted", "env", "known", "last", "total")

    def __init__(self) -> None:
        self.counted = 0  # statements summed
        self.last: ArrayStatement | None = None  # the last of them (it must stay there)
        self.env: dict[str, tuple] = {}  # the shapes of the names they made
        self.total = 0
        self.known = True


def entries_at_most(
    statements: Sequence[ArrayStatement], shape_of: Callable[[str], tuple | None], total: Total
) -> int | None:
    """An upper bound on the entries any part of ``statements`` holds at once, whatever
    statements it leaves out (:func:`peak_entries` of any of their subsequences counts
    at most every array their operations make); ``shape_of``: a constant's shape (None:
    not a constant). Summed from
    where ``total`` stopped: linear in the statements over all calls, where each call of
    :func:`peak_entries` walks the statements it is given (a block's, every block: a
    scalar program's 240 entries walked 1,000 statements each). None where a shape is
    not found, a loop is met, or the statements are not the ones summed before."""
    if total.counted and (
        total.counted > len(statements) or statements[total.counted - 1] is not total.last
    ):
        total.known = False  # rewritten: not the statements summed
    for s in statements[total.counted :]:
        if not total.known:
            break
        total.known = _summed(s, shape_of, total)
    total.counted = len(statements)
    total.last = statements[-1] if statements else None
    return total.total if total.known else None


def _summed(s: ArrayStatement, shape_of: Callable[[str], tuple | None], total: Total) -> bool:
    """Add the entries ``s`` makes (every node that is not a view: its shape's) to
    ``total``; False where a shape is not found or ``s`` is a loop."""
    value = s.value
    if isinstance(value, Loop):
        return False
    read = read_argument(value)
    if read is not None:
        total.env[read[0]] = read[1]
    names = set(names_in(value)).union(*(names_in(a) for a in s.at))
    env = {n: total.env[n] if n in total.env else shape_of(n) for n in names}
    found = node_shapes(value, env)
    todo = [value]
    while todo:
        n = todo.pop()
        todo.extend(n.children())
        if _view(n):
            continue
        shape = found.get(id(n))
        if not isinstance(shape, tuple) or not all(isinstance(d, int) for d in shape):
            return False
        total.total += _size(shape)
    shape = found.get(id(value))
    if not s.at:
        if not isinstance(shape, tuple):
            return False
        total.env[s.target] = shape
    return True


def read_argument(value: Node) -> tuple[str, tuple] | None:
    """The argument and its shape where ``value`` reads one (``reshape(asarray(x),
    shape)``, as :func:`~.module.read_input` writes it)."""
    if (
        isinstance(value, Call)
        and value.func == "reshape"
        and isinstance(value.args[0], Call)
        and value.args[0].func == "asarray"
        and isinstance(value.args[0].args[0], Name)
        and isinstance(value.args[1], Const)
    ):
        return value.args[0].args[0].id, tuple(value.args[1].value)
    return None


def refuse_large_program(
    statements: Sequence[ArrayStatement],
    shapes: Mapping[str, tuple],
    what: str,
    memo: dict[int, _Facts] | None = None,
) -> None:
    """One line (:class:`~dgraph.errors.DGraphError`) where ``statements`` would hold
    more than :data:`PEAK_MOST` array entries at once (:func:`peak_entries`), before any
    of them is evaluated; ``what``: what they compute, for the message; ``memo``:
    as :func:`peak_entries` keeps it."""
    peak, where, largest = peak_entries(statements, shapes, memo)
    if peak > PEAK_MOST:
        shape = "" if largest is None else f", the largest {'×'.join(map(str, largest))}"
        raise DGraphError(
            f"{what} would hold {peak:,} array entries at once ({8 * peak / 2**30:.1f} GiB"
            f" of doubles at {where}{shape}), more than {PEAK_MOST:,}: its code would not"
            " fit in memory"
        )
