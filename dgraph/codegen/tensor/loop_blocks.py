"""A loop region's Jacobian in generated code: the body's sparse blocks by their entries,
and the chain DP's choice of a tangent or an adjoint sweep.

Inside a loop region's ``jacobian`` code (:mod:`.regions`) each step updates the tangent
matrix ``D`` (rows the carry's entries, columns every active input's) by the body's
blocks, ``D ← Σ J_block·D_input``. A body block that the body program scatters into a
dense array from a sparse pattern (a stencil's: 3 entries a row) is multiplied by its
entries instead: a gather of D's rows at the pattern's columns, a multiply by the
entries, summed into the pattern's rows — nnz·w multiplications a step, not m·n·w (a
1-D stencil on 1,000 cells: 3·10³ entries against 10⁶). The sum is by slots of the rows'
entries (:func:`by_rows`: per slot a gather of whole rows, no scatter) where the rows
hold about as many entries each, else a segment sum. JAX writes a labelled block as its
values broadcast times an identity per pair of axes (the delta form,
:mod:`.delta_form`); its entries are read from the pattern the body program keeps for
it (:func:`block_entries`), so a diagonal block is a multiply of the rows, not JAX's
dense ``einsum`` (a Newton step's on 2,000 unknowns: 338 ms a call
before). C's value program takes the same products (its printer gathers whole rows); a
block filled at or above :data:`SPARSE_BELOW` is multiplied dense, NumPy's and JAX's by
``einsum`` (BLAS from ``region_steps.BLAS_ENTRIES``), C's by one ``dgraph_matmul`` call.

The region's Jacobian is the chain ``M_T ⋯ M_1`` of seed 002 (Naumann, *Matrix-Free
Jacobian Chaining*): :func:`chain_choice` prices the homogeneous tangent sweep (w columns
through every factor) and adjoint sweep (the carries' rows back through every factor, a
tape of the T states), runs the dynamic program (:func:`dgraph.chain.solve`) on the
chain's first factors for its bracketing, and the code runs the cheaper sweep
(:func:`adjoint_jacobian` for the adjoint: a forward loop keeping the states, then
``W ← W·J_t`` backwards).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...chain import ChainProblem, solve
from ...core.regions import Region
from .. import ir
from ..ir import (
    ArrayProgram,
    ArrayStatement,
    BinOp,
    Call,
    Const,
    Index,
    Item,
    Loop,
    LoopBody,
    Name,
    Node,
    Scatter,
    SegmentSum,
    Seq,
)
from .delta_form import delta_entries
from .region_steps import matrix_product

__all__ = [
    "DP_FACTORS",
    "MAX_SLOTS",
    "PADDED_BELOW",
    "SPARSE_BELOW",
    "adjoint_jacobian",
    "block_entries",
    "by_rows",
    "chain_choice",
    "sparse_product",
]

DP_FACTORS = 6  # the dynamic program runs on this many of the chain's (equal) factors

SPARSE_BELOW = 0.2  # a block filled below this fraction is multiplied by its entries

PADDED_BELOW = 2  # slots of a row layout may hold this many times the entries, at most

MAX_SLOTS = 16  # and at most this many entries a row (each slot is a term of the code)


def sparse_product(
    program: ArrayProgram,
    block: str,
    rows_out: int,
    width: int,
    tangent: Node,
    constant,
    transpose: bool = False,
) -> Node | None:
    """``J·D`` for the body block named ``block`` (``rows_out`` rows) and the tangent
    matrix ``tangent`` (its input's entries × ``width``) by the block's entries, or None
    where the block is not a sparse pattern's scatter or JAX's delta form (then the caller
    multiplies it dense). ``constant(array)`` names an index array the loop passes in.
    ``transpose``: ``Jᵀ·W`` instead, ``W`` over the block's rows (an adjoint step). A
    gather at every position in order (a diagonal block's rows, its entries) is left out:
    the array itself."""
    found = block_entries(program, block)
    if found is None:
        return None
    size_all, flat, entries, entry_of, n_entries = found
    if flat.size >= SPARSE_BELOW * size_all or not width or size_all % rows_out:
        return None
    cols_in = size_all // rows_out
    rows, cols = flat // cols_in, flat % cols_in
    size, tangent_rows = rows_out, cols_in
    if transpose:
        rows, cols, size, tangent_rows = cols, rows, cols_in, rows_out

    def gathered(array: Node, at: np.ndarray, length: int) -> Node:
        if at.size == length and np.array_equal(at, np.arange(length)):
            return array  # every entry in order: no gather
        return Index(array, (constant(at),))

    def entries_at(at: np.ndarray) -> Node:  # one entry: broadcast against D's rows
        return entries if n_entries == 1 else gathered(entries, at, n_entries)

    slots = by_rows(rows, size)
    if slots is not None:  # each row's entries in slots: gathers of whole rows, no scatter
        total: Node | None = None
        for position, filled in slots:
            at = position if entry_of is None else entry_of[position]
            value = Call("reshape", (entries_at(at), Const((-1, 1))))
            term: Node = BinOp("*", value, gathered(tangent, cols[position], tangent_rows))
            if not filled.all():  # a padded slot: zero, whatever the row it gathers holds
                term = Call("where", (constant(filled[:, None]), term, Const(0.0)))
            total = term if total is None else BinOp("+", total, term)
        return total
    if entry_of is not None:
        entries = entries_at(entry_of)
    ids = (rows[:, None] * width + np.arange(width)).reshape(-1)
    gathered_rows = Index(tangent, (constant(cols),))
    products = Call(
        "ravel", (BinOp("*", Call("reshape", (entries, Const((-1, 1)))), gathered_rows),)
    )
    total = SegmentSum(products, constant(ids), size * width)
    return Call("reshape", (total, Const((size, width))))


def block_entries(
    program: ArrayProgram, block: str
) -> tuple[int, np.ndarray, Node, np.ndarray | None, int] | None:
    """The body block ``block``'s sparse form, where its statement is a scatter of a
    pattern into zeros (NumPy's, C's) or JAX's delta form (values broadcast times an
    identity per pair of axes, its pattern kept by the program:
    :func:`~.delta_form.delta_entries`): its dense size, the pattern's flat positions, a
    vector of entries, which of them each position holds (None: the vector in the
    pattern's order) and the vector's length; None otherwise."""
    found = next((s for s in program.statements if s.target == block), None)
    if found is None or found.at:
        return None
    value = found.value
    if (
        isinstance(value, Call)
        and value.func == "reshape"
        and isinstance(value.args[0], Scatter)
        and isinstance(value.args[0].flat, Name)
        and value.args[0].flat.id in program.constants
    ):
        scatter = value.args[0]
        flat = np.asarray(program.constants[scatter.flat.id], dtype=np.int64).reshape(-1)
        return scatter.size, flat, Call("ravel", (scatter.data,)), None, flat.size
    return delta_entries(program, block)


def by_rows(rows: np.ndarray, size: int) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """A sparse pattern's entries (``rows[e]`` the row of entry e) grouped in slots: slot
    s holds, for every row r < ``size``, the position of r's s-th entry (0 where r has
    fewer) and whether it has one; None where the slots would hold more than
    :data:`PADDED_BELOW` times the entries or more than :data:`MAX_SLOTS` of them.

    ``J·D`` is then ``Σ_s e[slot_s] · D[cols[slot_s]]``: per slot a gather of whole rows
    of ``D`` and a multiply, no scatter (a sparse matrix in ELLPACK's layout)."""
    counts = np.bincount(rows, minlength=size)
    n_slots = int(counts.max()) if rows.size else 0
    if not n_slots or n_slots > MAX_SLOTS or n_slots * size > PADDED_BELOW * rows.size:
        return None
    order = np.argsort(rows, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(rows.size) - starts[rows[order]]
    position = np.zeros((n_slots, size), dtype=np.int64)
    filled = np.zeros((n_slots, size), dtype=bool)
    position[slot, rows[order]] = order
    filled[slot, rows[order]] = True
    return list(zip(position, filled, strict=True))


def _adjoint_fits(r: Region) -> bool:
    """A scan without xs or ys whose carries are all floats in and out: the region's
    blocks are then the carries' rows of the chain alone (what the adjoint loop forms)."""
    b = r.body
    carries = range(r.n_consts, r.n_consts + r.n_carry)
    return (
        r.kind == "scan"
        and r.n_xs == 0
        and r.n_ys == 0
        and all(b.floats[i] for i in carries)
        and all(isinstance(o, str) for o in b.outputs)
    )


def chain_choice(r: Region, width: int) -> dict:
    """How the region's Jacobian is swept: the chain's homogeneous tangent and adjoint
    costs in fma (``width`` columns or the carries' rows through T factors of the body's
    |E| entries), the dynamic program's optimum and bracketing on its first
    :data:`DP_FACTORS` factors, and the sweep the code runs (the cheaper homogeneous one
    that the code has: an adjoint only for a scan without xs or ys)."""
    b = r.body
    pattern = b.jacobian(None)
    rows = b.n_out if _adjoint_fits(r) else None
    k_size = sum(math.prod(b.shapes[i]) for i in range(r.n_consts) if b.floats[i])
    n = b.n_in
    edges = int(pattern.nnz)
    steps = int(r.length or 0)
    tangent = width * steps * edges
    out: dict = {"region": r.name or "loop", "steps": steps, "tangent fma": tangent}
    if rows is None or not steps:
        out.update(sweep="tangent", why="the adjoint loop is for scans without xs or ys")
        return out
    adjoint = rows * steps * edges
    q = min(steps, DP_FACTORS)
    square = (n, n, edges + k_size)  # the step over (c, k), k carried by an identity
    problem = ChainProblem.from_factors([square] * (q - 1) + [(rows, n, edges)])
    solution = solve(problem)
    out.update(
        {
            "adjoint fma": adjoint,
            "dp factors": q,
            "dp fma": solution.cost,
            "dp bracketing": solution.bracketing(),
            "sweep": "adjoint" if adjoint < tangent else "tangent",
        }
    )
    return out


def note(choice: dict) -> str:
    """The choice in one sentence (the generated function's docstring)."""
    text = (
        f"Loop {choice['region']} ({choice['steps']} steps): the {choice['sweep']} sweep"
        f" (tangent {choice['tangent fma']:,} fma"
    )
    if "adjoint fma" in choice:
        text += (
            f", adjoint {choice['adjoint fma']:,}; the chain DP on {choice['dp factors']}"
            f" factors: {choice['dp bracketing']}"
        )
    return text + ")"


def adjoint_jacobian(
    w,
    r: Region,
    operands: list[Node],
    program: ArrayProgram,
    blocks: dict,
    values: list[str],
    arguments: dict[str, str],
    columns: list[tuple[int, int]],
    width: int,
    fresh: Callable[[], str],
) -> tuple[list[Node], list[Node]]:
    """The region's outputs and their Jacobian rows (each (size, width), the tangent
    loop's layout) by the adjoint sweep: a forward loop keeping every state, then a loop
    backwards carrying ``Wᵀ`` (the carries' entries × the outputs' rows): ``Wᵀ ← A_tᵀ·Wᵀ``,
    ``K̄ += K_tᵀ·Wᵀ`` with the body's blocks at the stored state."""
    b, nk, nc = r.body, r.n_consts, r.n_carry
    carries = list(range(nk, nk + nc))
    sizes = [math.prod(b.out_shapes[c]) for c in range(nc)]
    n_rows = sum(sizes)
    at = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    inner = [s for s in program.statements]
    constants = sorted(program.constants)
    const_nodes = [w.constants.add(program.constants[c]) for c in constants]
    ks = [Call("reshape", (operands[i], Const(tuple(b.shapes[i])))) for i in range(nk)]
    c0 = [Call("reshape", (operands[i], Const(tuple(b.shapes[i])))) for i in carries]
    arg = [arguments[x] for x in b.inputs]
    names = [arg[i] for i in carries] + [arg[i] for i in range(nk)] + constants
    forward = LoopBody(tuple(names), tuple(inner), (*values[:nc], *(arg[i] for i in carries)))
    label = f"_{r.name}" if r.name else ""
    states = w.emit(
        Loop(tuple(c0), (), (*ks, *const_nodes), forward, int(r.length)), f"loop{label}"
    )
    active_k = [i for i in range(nk) if columns[i][1] > columns[i][0]]
    wt = [fresh() for _ in range(nc)]
    kb = [fresh() for _ in active_k]
    indices: list[tuple[str, Node]] = []

    def index(array: np.ndarray) -> Name:
        indices.append((fresh(), w.constants.index(array)))
        return Name(indices[-1][0])

    def pulled(i: int) -> Node | None:
        """Σ over the carries' outputs o of ∂c_o/∂(input i)ᵀ · Wᵀ_o."""
        total = None
        for o in range(nc):
            key = (b.outputs[o], b.inputs[i])
            if key not in blocks:
                continue
            term = sparse_product(program, blocks[key], sizes[o], n_rows, Name(wt[o]), index, True)
            if term is None:
                matrix = Call("reshape", (Name(blocks[key]), Const((sizes[o], -1))))
                entries = sizes[o] * math.prod(b.shapes[i])
                term = matrix_product(matrix, Name(wt[o]), entries, transposed=True)
            total = term if total is None else BinOp("+", total, term)
        return total

    extra, results = [], []
    for i in carries:
        size = math.prod(b.shapes[i])
        total = pulled(i)
        target = fresh()
        extra.append(ArrayStatement(target, total or Call("zeros", (Const((size, n_rows)),))))
        results.append(target)
    for i, name in zip(active_k, kb, strict=True):
        total = pulled(i)
        target = fresh()
        extra.append(
            ArrayStatement(target, Name(name) if total is None else BinOp("+", Name(name), total))
        )
        results.append(target)
    step_names = [*wt, *kb, *(arg[i] for i in carries), *(arg[i] for i in range(nk))]
    step_names += constants + [n for n, _ in indices]
    step = LoopBody(tuple(step_names), (*inner, *extra), tuple(results))
    seeds = []
    for o in range(nc):
        seed = np.zeros((sizes[o], n_rows))
        seed[np.arange(sizes[o]), at[o] + np.arange(sizes[o])] = 1.0
        seeds.append(w.constants.add(seed))
    zeros = [Call("zeros", (Const((math.prod(b.shapes[i]), n_rows)),)) for i in active_k]
    xs = tuple(Item(states, nc + c) for c in range(nc))
    invariants = (*ks, *const_nodes, *(node for _, node in indices))
    back = w.emit(
        Loop((*seeds, *zeros), xs, invariants, step, int(r.length), True), f"adjoint{label}"
    )
    parts = []  # the Jacobian's columns, operand by operand (the tangent's layout)
    for k, (lo, hi) in enumerate(columns):
        if hi == lo:
            continue
        i = k  # a scan's operands are its body's inputs
        at_w = carries.index(i) if i in carries else nc + active_k.index(i)
        parts.append(Call("transpose", (Item(back, at_w),)))
    full = (
        parts[0]
        if len(parts) == 1
        else Call("concatenate", (Seq(tuple(parts)),), (("axis", Const(1)),))
    )
    whole = w.emit(full)
    value_nodes = [Item(states, c) for c in range(nc)]
    rows = [Index(whole, (ir.Slice(int(at[o]), int(at[o + 1])),)) for o in range(nc)]
    return value_nodes, rows
