"""A symmetric sparse Jacobian (a Hessian: the Jacobian of a gradient) computed for its
entries on and below the diagonal only, then mirrored.

:func:`narrowed` rewrites a sparse module's statements so that only the entries of the
final values vector that ``keep`` marks are computed: the demand for entries is carried
back from the values, through the scatter-adds that assemble them, the gathers of block
products' pairs and the elementwise statements between, and every statement that feeds
only some of its entries computes those alone, as a shorter vector (its readers' index
arrays renumbered here, once). A statement whose operation is not elementwise (a slice,
a reduction, an einsum) is computed whole. :func:`mirror_positions` gives the gather
that then fills the entries above the diagonal from their mirror images, so that the
matrix is symmetric bit for bit.
"""

from __future__ import annotations

import math
import weakref
import zlib
from collections.abc import Mapping

import numpy as np

from ...errors import DGraphError
from .. import ir
from ..array_passes import array_shapes, node_shapes
from ..ir import (
    ArrayProgram,
    ArrayStatement,
    AsType,
    BinOp,
    Call,
    Const,
    Formula,
    Index,
    Name,
    Node,
    Scatter,
    ScatterAdd,
    SegmentSum,
    UnaryOp,
)
from .constants import Constants
from .entries import every, fills

__all__ = ["mirror_positions", "mirrored_entries", "narrowed"]

_SHAPE_ONLY = ("ravel", "reshape", "asarray")  # the same entries in the same C order
_ELEMENTWISE = ("where",)  # besides NumPy's and SciPy's ufuncs
# A statement more of whose entries than this are demanded is computed whole: narrowed,
# it would save under a tenth of its operation and cost a gather wherever it or an
# operand is read at other places (the minimal surface at 10⁶ unknowns: 37 statements
# of the lower triangle's program need all but 1 to 3 in 10³ of their entries).
WHOLE_ABOVE = 0.9


def mirror_positions(
    rows: np.ndarray, cols: np.ndarray, n: int, tril: bool
) -> tuple[np.ndarray, np.ndarray]:
    """For a symmetric pattern (entries ``rows``, ``cols``): the position whose value
    each entry takes (its own on and below the diagonal, its mirror image's above) and
    the mask of the lower ones; ``tril``: the lower entries' positions only.

    Raises
    ------
    DGraphError
        The pattern is not symmetric (a bug).
    """
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    if rows.size and (min(rows.min(), cols.min()) < 0 or max(rows.max(), cols.max()) >= n):
        # not an n × n pattern (a block of another shape): SciPy's transposition below
        # trusts its indices, and writes past its arrays for any outside [0, n)
        raise DGraphError("the Hessian's pattern is not symmetric: a bug, please report it")
    keep = rows >= cols
    if tril:
        return np.flatnonzero(keep), keep
    if _row_major(rows, cols):
        return np.where(keep, np.arange(rows.size), _transposed(rows, cols, n)), keep
    keys = rows * n + cols
    order = np.argsort(keys, kind="stable")
    at, found = _looked_up(keys[order], cols * n + rows)
    if not bool(found.all()):
        raise DGraphError("the Hessian's pattern is not symmetric: a bug, please report it")
    return np.where(keep, np.arange(keys.size), order[at]), keep


def mirrored_entries(
    rows: np.ndarray, cols: np.ndarray, n: int, first: int = 0
) -> np.ndarray | None:
    """The positions of a row-major pattern's entries whose mirror image is in it, its
    rows from ``first`` on the square (n × n) part (``value_and_jacobian``'s first row:
    the value's gradient, kept); None where every entry's is (one transposition,
    :func:`_mirror_images`). A Hessian's entry whose image is not in its pattern is zero,
    as that image is: the blocks' union may hold more than the nonzeros."""
    square = rows >= first
    r, c = rows[square] - first, cols[square]
    if _mirror_images(r, c, n) is not None:
        return None
    kept = np.ones(rows.size, dtype=bool)
    kept[square] = _looked_up(r * n + c, c * n + r)[1]  # row-major: the keys sorted
    return np.flatnonzero(kept)


def _looked_up(keys: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``wanted``: its position among the sorted ``keys`` (clipped) and
    whether it is there."""
    at = np.minimum(np.searchsorted(keys, wanted), max(keys.size - 1, 0))
    found = keys[at] == wanted if keys.size else np.zeros(wanted.size, dtype=bool)
    return at, found


def _row_major(rows: np.ndarray, cols: np.ndarray) -> bool:
    """Whether the entries are in row-major order, each once."""
    if rows.size < 2:
        return True
    step = rows[1:] - rows[:-1]
    return bool(np.all((step > 0) | ((step == 0) & (cols[1:] > cols[:-1]))))


def _transposed(rows: np.ndarray, cols: np.ndarray, n: int) -> np.ndarray:
    """For a row-major pattern: each entry's mirror image's position (:func:`_mirror_images`).

    Raises
    ------
    DGraphError
        The pattern is not symmetric (a bug).
    """
    images = _mirror_images(rows, cols, n)
    if images is None:
        raise DGraphError("the Hessian's pattern is not symmetric: a bug, please report it")
    return images


def _mirror_images(rows: np.ndarray, cols: np.ndarray, n: int) -> np.ndarray | None:
    """For a row-major pattern: each entry's mirror image's position, by one
    transposition of the matrix holding each entry's position (SciPy's linear
    ``csr_tocsc``: the transpose of a symmetric pattern is the pattern, in row-major
    order, so its k-th value is the position of entry k's mirror image); None where the
    pattern is not symmetric."""
    import scipy.sparse  # here: importing dgraph stays light

    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    at = np.arange(rows.size, dtype=np.int64)
    matrix = scipy.sparse.csr_array((at, cols, indptr), shape=(n, n))
    matrix.has_canonical_format = True
    turned = matrix.T.tocsr()  # compressed columns read as rows: the transpose
    if not (np.array_equal(turned.indptr, indptr) and np.array_equal(turned.indices, cols)):
        return None
    return np.asarray(turned.data, dtype=np.int64)


class _Narrow:
    """A statement computed at some of its entries (``positions``, of ``size`` flat
    places): their number, and each flat place's rank among them (-1: not computed),
    made when a reader first reads other places than ``positions`` (most statements
    along an elementwise chain are read at their own places alone: no rank is made).
    The rewrite is held weakly (it holds its statements: no cycle to outlive the call
    with the module's constants and the masks while cyclic collection is paused)."""

    def __init__(self, work: _Narrowing, positions: np.ndarray, size: int) -> None:
        self.work, self.positions, self.size = weakref.proxy(work), positions, size
        self.count = int(positions.size)

    @property
    def rank(self) -> np.ndarray:
        return self.work.rank(self.positions, self.size, keep=True)


class _Narrowing:
    """The rewrite of one program: its statements' node shapes, the module constants,
    the narrowed statements so far; ``join``: whether a scatter-add narrowed inside the
    program sums its parts at the same positions first (:meth:`scattered`)."""

    def __init__(self, program: ArrayProgram, constants: Constants, join: bool = True) -> None:
        self.join = join
        env = array_shapes(program)
        self.sizes = {k: math.prod(v) for k, v in env.items() if isinstance(v, tuple)}
        self.shapes: dict[int, object] = {}
        for s in program.statements:
            self.shapes.update(node_shapes(s.value, env))
        self.constants = constants
        self.arrays = constants.arrays
        self.narrow: dict[str, _Narrow] = {}
        self._by_need: dict[tuple[int, int], list[tuple[np.ndarray, np.ndarray]]] = {}
        self._ranks: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._kept: dict[int, np.ndarray] = {}  # by id: the positions statements compute
        # by index constant and size: the places a gather read whole marks (read-only;
        # statements reading a vector at the same index whole mark it once)
        self._marks: dict[tuple[str, int], np.ndarray] = {}

    def positions(self, need: np.ndarray) -> np.ndarray:
        """The positions ``need`` marks, one array for equal masks (statements along an
        elementwise chain need the same entries: their places then match by identity)."""
        key = (need.size, zlib.crc32(np.ascontiguousarray(need).view(np.uint8)))
        for mask, positions in self._by_need.get(key, ()):
            if np.array_equal(mask, need):
                return positions
        positions = np.flatnonzero(need)
        self._by_need.setdefault(key, []).append((need, positions))
        return positions

    def rank(self, positions: np.ndarray, size: int, keep: bool = False) -> np.ndarray:
        """Each of ``size`` flat places' rank among ``positions`` (-1: not among them),
        made once per positions array that ``keep`` asked to be kept (a statement's)."""
        found = self._ranks.get(id(positions))
        if found is not None and found[0] is positions and found[1].size == size:
            return found[1]
        rank = np.full(size, -1, dtype=np.int32 if size < 2**31 else np.int64)
        rank[positions] = every(positions.size)
        if keep:
            self._ranks[id(positions)] = (positions, rank)
        return rank

    def release(self, done: int, last: Mapping[str, int]) -> None:
        """Forget the ranks (:meth:`rank`) of the positions that no statement after the
        ``done``-th reads (its narrowed vectors' readers all rewritten): each a vector of
        the statement's whole size, held to the narrowing's end before (the minimal
        surface at 10⁶ unknowns: 8 of them, 130 MiB). A rank asked for again is made
        again."""
        live = {id(n.positions) for name, n in self.narrow.items() if last.get(name, -1) > done}
        for key in [key for key in self._ranks if key not in live]:
            del self._ranks[key]

    def size(self, node: Node) -> int | None:
        shape = self.shapes.get(id(node))
        return math.prod(shape) if isinstance(shape, tuple) else None

    def index(self, node: Node) -> np.ndarray | None:
        """A constant index array's entries, flat; None for anything else."""
        if isinstance(node, Name) and node.id in self.arrays:
            array = self.arrays[node.id]
            return array.ravel() if array.dtype.kind in "iu" else None
        return None

    def same_entries(self, node: Node) -> bool:
        """Whether ``node`` is its first operand's entries in the same C order: a ravel, a
        reshape, or a broadcast to as many entries (``broadcast_to(ravel(t), (n,))`` of
        ``t`` of ``n`` entries, as a scatter-add's base is written: a broadcast that
        stretches no axis only adds axes of one)."""
        if not isinstance(node, Call) or not node.args:
            return False
        if node.func in _SHAPE_ONLY:
            return True
        size = self.size(node)
        return node.func == "broadcast_to" and size is not None and self.size(node.args[0]) == size

    # -- which entries are needed ------------------------------------------------------

    def fits(self, node: Node, n: int) -> bool:
        """Whether each flat entry of ``node`` (``n`` of them) can be computed alone:
        elementwise operations of operands of ``n`` entries or one, ravels and
        reshapes, gathers of a vector at constant positions, scatters of such values
        at constant positions."""
        if self.size(node) != n:
            return False
        if isinstance(node, (Scatter, ScatterAdd, SegmentSum)):
            base = node.base if isinstance(node, ScatterAdd) else None
            if base is not None and not self.fits(base, n):
                return False
            return all(
                self.index(flat) is not None and self.fits(data, self.size(data) or -1)
                for flat, data in _parts(node)
            )
        if isinstance(node, (Name, Const)):
            return True
        if isinstance(node, Index):
            return self.gather(node)
        if self.same_entries(node):
            return not node.keywords and self.fits(node.args[0], n)  # type: ignore[attr-defined]
        if isinstance(node, Call):
            if node.keywords or not _ufunc(node.func):
                return False
            operands = node.args
        elif isinstance(node, (BinOp, UnaryOp, AsType)):
            operands = node.children()
        elif isinstance(node, Formula):
            operands = tuple(o for _, o in node.operands)
        else:
            return False
        return all(self.size(o) == 1 or self.fits(o, n) for o in operands)

    def push(self, node: Node, need: np.ndarray | None, demand: dict) -> None:
        """Add to ``demand`` the entries of the statements ``node`` reads that its
        entries ``need`` (None: all) read; ``need`` only where ``node`` fits."""
        stack: list[tuple[Node, np.ndarray | None]] = [(node, need)]
        while stack:
            n, need = stack.pop()
            if isinstance(n, Name):
                if n.id not in self.arrays:
                    _add(demand, n.id, need if self.sizes.get(n.id) != 1 else None)
            elif self.gather(n):
                stack.append((n.value, self.marks(n, need)))  # type: ignore[attr-defined]
            elif isinstance(n, (ScatterAdd, Scatter, SegmentSum)):
                if isinstance(n, ScatterAdd):
                    stack.append((n.base, need))
                for flat, data in _parts(n):
                    index = self.index(flat)
                    part = None if index is None or need is None else need[index]
                    stack.append((data, part))
                    stack.append((flat, None))
            elif self.same_entries(n) and need is not None:
                stack.append((n.args[0], need))
                stack.extend((a, None) for a in n.args[1:])
            else:
                for c in n.children():
                    same = need is not None and self.size(c) == need.size
                    stack.append((c, need if same else None))

    def marks(self, node: Index, need: np.ndarray | None) -> np.ndarray:
        """The places of the vector the gather ``node`` reads that its entries ``need``
        (None: all) read; read whole, made once per index constant and size."""
        index = self.index(node.items[0])
        size = self.size(node.value)
        if need is not None:
            marks = np.zeros(size, dtype=bool)  # type: ignore[arg-type]
            marks[index[need]] = True  # type: ignore[index]
            return marks
        key = (node.items[0].id, size)  # type: ignore[attr-defined]
        marks = self._marks.get(key)
        if marks is None:
            marks = np.zeros(size, dtype=bool)  # type: ignore[arg-type]
            marks[index] = True
            marks.setflags(write=False)  # shared: a demand copies it (``_add``)
            self._marks[key] = marks
        return marks

    # -- the rewrite -------------------------------------------------------------------

    def read(self, name: str, places: np.ndarray) -> Node:
        """The narrowed vector ``name`` at its ``places`` (all, in order: itself)."""
        if fills(places, self.narrow[name].count):
            return Name(name)
        return Index(Name(name), (self.constants.index(places),))

    def renumbered(self, node: Node) -> Node:
        """A statement computed whole: its gathers of narrowed vectors read their new
        places."""
        if not (ir.names_in(node) & self.narrow.keys()):
            return node

        def replace(n: Node) -> Node | None:
            if self.gather(n) and ir.names_in(n) & self.narrow.keys():
                flat = n.items[0]  # type: ignore[attr-defined]
                out = self.take(n.value, self.index(flat))  # type: ignore[attr-defined,arg-type]
                shape = self.arrays[flat.id].shape  # v[K] has K's shape: take's is flat
                return out if len(shape) == 1 else Call("reshape", (out, Const(shape)))
            return None

        return ir.rebuilt(node, replace)

    def gather(self, node: Node) -> bool:
        """Whether ``node`` is ``v[K]``: a vector that :meth:`fits` at the positions of
        an index constant."""
        if not isinstance(node, Index) or len(node.items) != 1:
            return False
        shape = self.shapes.get(id(node.value))
        return (
            self.index(node.items[0]) is not None
            and isinstance(shape, tuple)
            and len(shape) == 1
            and self.fits(node.value, shape[0])
        )

    def take(self, node: Node, positions: np.ndarray) -> Node:
        """The flat entries ``positions`` of ``node`` (which :meth:`fits`), a vector."""
        if isinstance(node, Const):
            return node
        if self.size(node) == 1:  # broadcast: as it is, a vector of one where not 0-d
            shape = self.shapes.get(id(node))
            return node if isinstance(shape, tuple) and len(shape) <= 1 else Call("ravel", (node,))
        if isinstance(node, Name):
            if node.id in self.narrow:
                narrow = self.narrow[node.id]
                if positions is narrow.positions:  # the entries it computes, in order
                    return Name(node.id)
                return self.read(node.id, narrow.rank[positions])
            whole = fills(positions, self.size(node))
            if whole:
                return node if len(self.shapes[id(node)]) == 1 else Call("ravel", (node,))  # type: ignore[arg-type]
            if node.id in self.arrays:
                return self.constants.add(np.ravel(self.arrays[node.id])[positions])
            return Index(Call("ravel", (node,)), (self.constants.index(positions),))
        if isinstance(node, Index):
            inner = self.index(node.items[0])[positions]  # type: ignore[index]
            # a gather of one value (``ravel(r)[K]``, K all 0) keeps its index: the value
            # alone would be one entry where ``positions`` asks for several
            if self.gather(node) and self.size(node.value) != 1:
                return self.take(node.value, inner)
            return Index(node.value, (self.constants.index(inner),))
        if self.same_entries(node):
            return self.take(node.args[0], positions)  # type: ignore[attr-defined]
        if isinstance(node, (Scatter, ScatterAdd, SegmentSum)):
            return self.scattered(node, positions)
        if isinstance(node, Call):
            return Call(node.func, tuple(self.take(a, positions) for a in node.args))
        if isinstance(node, BinOp):
            return BinOp(node.op, self.take(node.left, positions), self.take(node.right, positions))
        if isinstance(node, UnaryOp):
            return UnaryOp(node.op, self.take(node.operand, positions))
        if isinstance(node, AsType):
            return AsType(self.take(node.operand, positions), node.dtype)
        if isinstance(node, Formula):
            return Formula(node.expr, tuple((s, self.take(o, positions)) for s, o in node.operands))
        raise DGraphError(f"narrowed: no rule for a {type(node).__name__} (a bug)")

    def scattered(self, node: Node, positions: np.ndarray, root: bool = False) -> Node:
        """A scatter's entries at ``positions``: its parts' entries that land there; a
        scatter-add's parts at the same positions summed first (:func:`_joined`) where
        ``root`` (the assembling scatter, which :meth:`root` sums alike for the whole
        matrix) or ``join``, else added in their order, each entry the whole
        statement's bit for bit (a statement one program narrows the other may compute
        whole)."""
        count = int(positions.size)
        kept = self._kept.get(id(positions)) is positions  # a statement's: kept for its readers
        rank = self.rank(positions, self.size(node) or 0, keep=kept)
        parts = []
        for flat, data in _parts(node):
            index = self.index(flat)
            ranks = rank[index]  # type: ignore[index]
            hit = np.flatnonzero(ranks >= 0)
            if hit.size:
                placed = self.constants.index(ranks[hit])
                parts.append((placed, self.take(data, hit)))
        if isinstance(node, ScatterAdd):
            base = self.take(node.base, positions)
            if not parts:
                return base
            return ScatterAdd(base, _joined(parts) if root or self.join else tuple(parts))
        if not parts:
            return Call("zeros", (Const(count),))
        if isinstance(node, Scatter):
            return Scatter(count, *parts[0])
        return SegmentSum(parts[0][1], parts[0][0], count)

    def root(self, node: Node, need: np.ndarray) -> Node:
        """The assembling scatter with only its parts' entries that land where ``need``
        marks; the vector keeps its length and places (the others its base's values)."""
        parts = []
        for flat, data in _parts(node):
            index = self.index(flat)
            hit = np.flatnonzero(need[index])  # type: ignore[index]
            if hit.size:
                parts.append((self.constants.index(index[hit]), self.take(data, hit)))  # type: ignore[index]
        if isinstance(node, ScatterAdd):
            base = self.renumbered(node.base)
            return ScatterAdd(base, _joined(parts)) if parts else Call("array", (base,))
        if not parts:
            return Call("zeros", (Const(node.size),))  # type: ignore[union-attr]
        return Scatter(node.size, *parts[0])  # type: ignore[union-attr]


def narrowed(
    program: ArrayProgram,
    values: str,
    keep: np.ndarray,
    constants: Constants,
    compact: bool = False,
    join: bool = True,
) -> tuple[list[ArrayStatement], bool]:
    """``program``'s statements with only the entries ``keep`` marks of the vector
    ``values`` computed, and whether ``values`` is then those entries alone, in order
    (compact) rather than a vector of its own length whose other entries are its base's
    or zero (where it is assembled by a scatter at constant positions, ``Scatter`` or
    ``ScatterAdd``, whose parts are narrowed). The statements as they were (not
    compact) where nothing can be narrowed or a statement stores in place. ``compact``:
    a vector assembled by such a scatter is made compact too (its parts' positions
    renumbered among the kept entries: the lower triangle's own program, no gather of
    the whole matrix's values), where each of its entries can be computed alone
    (``_Narrowing.fits``: its base's too) and nothing but its reshapes to ``values``
    reads it. ``join`` False: a scatter-add read inside the program adds its parts in
    their order (not :func:`_joined`), so that each entry it computes is the whole
    statement's bit for bit, as where two programs narrowed from the same one (the
    whole matrix's and the lower triangle's) must agree to the last bit."""
    statements = program.statements
    by_name = {s.target: s for s in statements}
    if any(s.at for s in statements) or values not in by_name:
        return statements, False
    keep = np.asarray(keep, dtype=bool)
    work = _Narrowing(program, constants, join)
    root = _assembled(values, by_name)
    top = by_name[root].value
    placed = isinstance(top, (Scatter, ScatterAdd)) and all(
        work.index(flat) is not None for flat, _ in _parts(top)
    )
    chain = _chain(values, root, by_name)
    if (
        compact
        and placed
        and work.size(top) is not None
        and work.fits(top, work.size(top))  # type: ignore[arg-type]
        and _read_only_by(statements, chain, values)
    ):
        return _compact_root(statements, work, root, top, keep, chain), True
    demand: dict[str, np.ndarray | None] = {} if placed else {values: keep.copy()}
    plans: dict[str, np.ndarray | None] = {}
    for s in reversed(statements):
        if placed and s.target == root:
            for flat, data in _parts(top):
                work.push(data, keep[work.index(flat)], demand)  # type: ignore[index]
            if isinstance(top, ScatterAdd):
                work.push(top.base, None, demand)
            continue
        _plan(work, s, demand, plans, values)
    if not placed and plans.get(values) is None:
        return statements, False
    out = []
    last = _last_readers(statements)
    for k, s in enumerate(statements):
        if placed and s.target == root:
            out.append(ArrayStatement(s.target, work.root(top, keep)))
        else:
            out.append(ArrayStatement(s.target, _planned(work, s, plans.get(s.target))))
        work.release(k, last)
    return out, not placed


def _plan(
    work: _Narrowing,
    s: ArrayStatement,
    demand: dict[str, np.ndarray | None],
    plans: dict[str, np.ndarray | None],
    values: str | None = None,
) -> None:
    """Plan ``s``, read backwards: the entries of it demanded, or None (all of them) where
    it cannot be narrowed or more than :data:`WHOLE_ABOVE` of its entries are demanded
    (little or nothing saved; ``values`` narrowed even then); its operands' demand
    pushed."""
    need = demand.get(s.target)
    size = work.sizes.get(s.target)
    whole = need is not None and s.target != values and _mostly(need)
    if need is None or size is None or whole or not work.fits(s.value, size):
        need = None
    plans[s.target] = need
    work.push(s.value, need, demand)


def _mostly(need: np.ndarray) -> bool:
    """Whether more than :data:`WHOLE_ABOVE` of the entries are marked."""
    return bool(need.all()) or np.count_nonzero(need) > WHOLE_ABOVE * need.size


def _planned(work: _Narrowing, s: ArrayStatement, need: np.ndarray | None) -> Node:
    """``s``'s value as :func:`_plan` planned it: its demanded entries alone (recorded
    in ``work.narrow`` for its readers), or all of them renumbered."""
    if need is None:
        return work.renumbered(s.value)
    positions = work.positions(need)
    work._kept[id(positions)] = positions
    value = work.take(s.value, positions)
    work.narrow[s.target] = _Narrow(work, positions, need.size)
    return value


def _chain(values: str, root: str, by_name: Mapping[str, ArrayStatement]) -> list[str]:
    """The names from ``root`` to ``values`` through ``ravel``/``reshape``, in order."""
    names = [values]
    while names[-1] != root:
        names.append(by_name[names[-1]].value.args[0].id)  # type: ignore[attr-defined]
    return names[::-1]


def _read_only_by(statements: list[ArrayStatement], chain: list[str], values: str) -> bool:
    """Whether each name of ``chain`` but ``values`` is read by the next one alone."""
    inner = set(chain[:-1])
    readers = [s.target for s in statements if ir.names_in(s.value) & inner]
    return readers == chain[1:]


def _compact_root(
    statements: list[ArrayStatement],
    work: _Narrowing,
    root: str,
    top: Node,
    keep: np.ndarray,
    chain: list[str],
) -> list[ArrayStatement]:
    """``statements`` narrowed (:func:`narrowed`) with the assembling scatter ``root``
    computing the entries ``keep`` marks alone, in order, and its reshapes to the values
    vector flat ones."""
    demand: dict[str, np.ndarray | None] = {}
    plans: dict[str, np.ndarray | None] = {}
    lower = np.flatnonzero(keep)
    for s in reversed(statements):
        if s.target in chain:
            if s.target == root:
                for flat, data in _parts(top):
                    work.push(data, keep[work.index(flat)], demand)  # type: ignore[index]
                if isinstance(top, ScatterAdd):
                    work.push(top.base, keep, demand)
            continue
        _plan(work, s, demand, plans)
    out = []
    last = _last_readers(statements)
    for k, s in enumerate(statements):
        need = plans.get(s.target)
        if s.target == root:
            value = work.scattered(top, lower, root=True)
        elif s.target in chain:
            value = Call("ravel", (Name(chain[chain.index(s.target) - 1]),))
        else:
            value = _planned(work, s, need)
        out.append(ArrayStatement(s.target, value))
        work.release(k, last)
    return out


def _last_readers(statements: list[ArrayStatement]) -> dict[str, int]:
    """Each name's last reader: the index of the last statement whose value reads it."""
    last: dict[str, int] = {}
    for k, s in enumerate(statements):
        for name in ir.names_in(s.value):
            last[name] = k
    return last


def _joined(parts: list[tuple[Node, Node]]) -> tuple[tuple[Node, Node], ...]:
    """A scatter-add's parts, those at the same positions summed first (one pass over
    the vector instead of one each). Not the same doubles as the parts added one by one
    (``b + (x + y)`` against ``(b + x) + y``): the assembling scatter's alone, which the
    whole matrix's program (:meth:`_Narrowing.root`) and the lower triangle's
    (:func:`_compact_root`) join alike."""
    at: dict[Node, list[Node]] = {}
    for flat, data in parts:
        at.setdefault(flat, []).append(data)
    return tuple((flat, _summed(data)) for flat, data in at.items())


def _summed(terms: list[Node]) -> Node:
    """The sum of ``terms``, each negated one (``-1.0 * x``, as a scaling distributed
    over a sum's parts leaves it) subtracted rather than negated and added (the same
    doubles: ``a + (-1.0·b)`` is ``a − b``, ``(−a) + (−b)`` is ``−(a + b)``)."""
    if len(terms) == 1:
        return terms[0]
    plus, minus = [], []
    for t in terms:
        negated = _negated(t)
        if negated is None:
            plus.append(t)
        else:
            minus.append(negated)
    if not plus:
        return BinOp("*", Const(-1.0), _summed(minus))
    total = plus[0]
    for t in plus[1:]:
        total = BinOp("+", total, t)
    for t in minus:
        total = BinOp("-", total, t)
    return total


def _negated(node: Node) -> Node | None:
    """``x`` where ``node`` is ``-1.0 * x``, ``x * -1.0`` or ``-x``; None otherwise."""
    if isinstance(node, UnaryOp) and node.op == "-":
        return node.operand
    if isinstance(node, BinOp) and node.op == "*":
        for one, other in ((node.left, node.right), (node.right, node.left)):
            if ir.number(one) == -1.0:
                return other
    return None


def _assembled(root: str, by_name: Mapping[str, ArrayStatement]) -> str:
    """The statement whose vector ``root`` is (through ``ravel``/``reshape``)."""
    value = by_name[root].value
    while isinstance(value, Call) and value.func in _SHAPE_ONLY and value.args:
        inner = value.args[0]
        if not isinstance(inner, Name) or inner.id not in by_name:
            break
        root, value = inner.id, by_name[inner.id].value
    return root


def _ufunc(func: str) -> bool:
    """Whether ``func`` (as a statement names it: ``exp``, ``special.erf``) is an
    elementwise function."""
    if func in _ELEMENTWISE:
        return True
    module, _, name = func.rpartition(".")
    if module == "special":
        import scipy.special

        return isinstance(getattr(scipy.special, name, None), np.ufunc)
    return not module and isinstance(getattr(np, name, None), np.ufunc)


def _parts(n: Node) -> list[tuple[Node, Node]]:
    if isinstance(n, ScatterAdd):
        return list(n.parts)
    if isinstance(n, Scatter):
        return [(n.flat, n.data)]
    return [(n.ids, n.data)]  # type: ignore[attr-defined]  # a segment sum


def _vector_name(node: Node) -> str | None:
    while isinstance(node, Call) and node.func in _SHAPE_ONLY:
        node = node.args[0]
    return node.id if isinstance(node, Name) else None


def _add(demand: dict, name: str, need: np.ndarray | None) -> None:
    if need is None:
        demand[name] = None
    elif name not in demand:
        demand[name] = need.copy()
    elif demand[name] is not None:
        demand[name] |= need
