"""A loop region's value and Jacobian blocks as one :class:`~dgraph.codegen.ir.Loop`.

A ``scan`` region (:class:`~dgraph.core.regions.Region`) is printed as a loop whose body
is the generated value-and-Jacobian program of the region's body graph
(:func:`~dgraph.codegen.tensor.module.tensor_program`, mode ``value_and_jacobian``),
followed by the tangent sweep: the derivatives of the carries with respect to every
active operand are carried alongside the carries (``D ← J_c·D + J_k·S_k + J_x·S_x``,
``S`` the seeds: an operand's columns of the identity), the ys' per step stacked as ys.
This is the region's own value rule (:meth:`~dgraph.core.regions.Region.block_value`:
the chain product of the body Jacobians bracketed from the right) written as code, once
per region whatever its trip count; each edge's block is read from it. Where the
region's patterns allow, the sweep carries ``D·C`` (a column per colour of the input
columns, :mod:`.loop_columns`), not ``D``: a few columns where no row of the region's
blocks reads many inputs, and each block's entries are read at their colours. The sweep
carries the rows of the outputs the graph reads alone, with the carries they read
(:func:`read_outputs`): a loop's running sum that only its own carry reads (the value of
a chained Rosenbrock, whose gradient reads its ys) is not carried, so its ys compress.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...blocks import Block
from ...blocks.arrays import ArrayOp
from ...core.regions import Region, regions_of
from ...errors import DGraphError, InputError
from .. import ir
from ..ir import (
    ArrayStatement,
    AsType,
    BinOp,
    Call,
    Const,
    Index,
    Item,
    Loop,
    LoopBody,
    Name,
    Node,
    While,
)
from .branches import emit_cond
from .loop_blocks import adjoint_jacobian, chain_choice, note, sparse_product
from .loop_columns import loop_colours, operand_columns
from .region_steps import (
    body_operation,
    colour_seed,
    invariant,
    matrix_product,
    reshaped_to,
    without_copies,
)
from .step_writes import StepWrites, step_writes

__all__ = ["read_outputs", "refuse_unprinted", "region_block", "region_value"]


def refuse_unprinted(graph, langs=("c",)) -> None:
    """Raise InputError in one line where ``graph`` holds a loop that has no code yet in
    one of ``langs`` (inside loop bodies and branches too): never a wrong program. Every
    region prints in every target now; the check stays for the next kind."""
    others = sorted(set(langs) - {"python", "jax"})
    found, graphs = [], [graph]
    while graphs:  # the regions inside loop bodies and branches too
        for v, region in regions_of(graphs.pop()):
            found.append((v, region))
            inner = region.branches if region.kind == "cond" else [region.body]
            graphs += [b.graph for b in inner]
    for v, region in found:
        allowed = {"c", "cuda"}  # every region prints in C and CUDA (tensor/c_values.py)
        refused = sorted(set(others) - allowed)
        if region.kind != "scan" and refused:
            raise InputError(
                f"{graph.name or 'the graph'}: code generation of a"
                f" {region.kind if region.kind == 'cond' else region.kind + '_loop'} ({v!r})"
                f" in {refused[0]} is not supported yet"
            )


def read_outputs(graph) -> dict[int, set[int]]:
    """Per loop region of ``graph`` (by identity), the outputs a vertex of the graph
    holds: the only ones whose derivatives a block of the graph can read (an output no
    vertex holds, a loop's running value that only its own carry reads, needs no tangent
    rows; a region read as the operand of another operation, a value alone, counts none)."""
    found: dict[int, set[int]] = {}
    for v, region in regions_of(graph):
        found.setdefault(id(region), set()).add(graph.op(v).param["output"])
    return found


def _needed(r: Region, reads: set[int] | None, read_by) -> list[bool]:
    """Per region output, whether the sweep carries its tangent rows: those the graph
    reads (``reads``; None: every one) and, backwards through the steps, every carry a
    needed output reads (``read_by(o, c)``: whether body output o reads carry c)."""
    outs = len(r.out_shapes)
    needed = [reads is None or j in reads for j in range(outs)]
    grown = True
    while grown:
        grown = False
        for c in range(r.n_carry):
            if not needed[c] and any(needed[o] and read_by(o, c) for o in range(outs)):
                needed[c] = grown = True
    return needed


class _Lowered:
    """A region's loop statement and where its outputs and tangents are."""

    def __init__(
        self,
        loop: Name | None,
        region: Region,
        columns: list[tuple[int, int]],
        found=None,
        colour: np.ndarray | None = None,
        pattern=None,
    ) -> None:
        self.loop = loop
        self.region = region
        self.columns = columns  # operand k -> its tangent columns (lo, hi)
        self.found = found  # (values, Jacobian rows) an adjoint loop made, by output
        self.colour = colour  # input column -> its column in the tangents (None: itself)
        self.pattern = pattern  # the region's blocks side by side, where colour is

    def value(self, j: int) -> Node:
        r = self.region
        if self.found is not None:
            return Call("reshape", (self.found[0][j], Const(tuple(r.out_shapes[j]))))
        at = j if j < r.n_carry else 2 * r.n_carry + (j - r.n_carry)
        return Call("reshape", (Item(self.loop, at), Const(tuple(r.out_shapes[j]))))

    def tangent(self, j: int) -> Node:
        """d(output j)/d(active operands), (size of output j, width)."""
        r = self.region
        if self.found is not None:
            return self.found[1][j]
        if j < r.n_carry:
            return Item(self.loop, r.n_carry + j)
        stacked = Item(self.loop, 2 * r.n_carry + r.n_ys + (j - r.n_carry))
        return Call("reshape", (stacked, Const((math.prod(r.out_shapes[j]), -1))))


def region_value(w, op: ArrayOp, operands: list[Node], program_of) -> Node:
    """The value of the region output ``op`` computes (its loop emitted once)."""
    lowered = _lowered(w, op, operands, program_of)
    return lowered.value(op.param["output"])


def region_block(
    w, op: ArrayOp, k: int, block: Block, operands: list[Node], program_of
) -> Node | None:
    """The values of d(output)/d(operand k) in ``block``'s layout (dense: the array of
    shape ``out.shape + in.shape``; sparse: one per pattern entry), or None when no
    derivative flows from operand k."""
    lowered = _lowered(w, op, operands, program_of)
    lo, hi = lowered.columns[k]
    if hi == lo:
        return None
    j = op.param["output"]
    r = lowered.region
    if getattr(lowered, "colour", None) is not None:
        return _compressed_block(w, lowered, j, k, block)
    full = Index(lowered.tangent(j), (ir.Slice(None, None), ir.Slice(lo, hi)))
    if hasattr(block, "value"):  # dense
        shape = (*r.out_shapes[j], *r.operand_shapes[k])
        return Call("reshape", (full, Const(tuple(shape))))
    flat = np.asarray(block.rows, dtype=np.int64) * (hi - lo) + np.asarray(block.cols)
    return Index(Call("ravel", (full,)), (w.constants.index(flat),))


def _compressed_block(w, lowered: _Lowered, j: int, k: int, block: Block) -> Node:
    """:func:`region_block` from a compressed sweep (:mod:`.loop_columns`): entry
    (row, col) at ``(row, colour[col])``; an entry outside the region's pattern (none of
    the region's own blocks holds one) is zero."""
    r, colour = lowered.region, lowered.colour
    lo, hi = lowered.columns[k]
    held = int(colour.max()) + 1
    size = math.prod(r.out_shapes[j])
    at = sum(math.prod(s) for s in r.out_shapes[:j])
    pattern = lowered.pattern
    if hasattr(block, "value"):  # dense
        rows, cols = np.divmod(np.arange(size * (hi - lo)), hi - lo)
    else:
        rows, cols = np.asarray(block.rows, np.int64), np.asarray(block.cols, np.int64)
    flat = rows * held + np.maximum(colour[lo + cols], 0)  # -1: outside the pattern
    values: Node = Index(Call("ravel", (lowered.tangent(j),)), (w.constants.index(flat),))
    inside = np.asarray(pattern[at + rows, lo + cols]).reshape(-1).astype(bool)
    if not inside.all():
        values = BinOp("*", values, w.constants.add(inside.astype(float)))
    if hasattr(block, "value"):
        return Call("reshape", (values, Const((*r.out_shapes[j], *r.operand_shapes[k]))))
    return values


def _lowered(w, op: ArrayOp, operands: list[Node], program_of) -> _Lowered:
    r: Region = op.param["region"]
    cache: dict[int, Any] = w.__dict__.setdefault("regions", {})
    if id(r) not in cache:
        emit = emit_cond if r.kind == "cond" else _emit
        cache[id(r)] = (r, emit(w, r, operands, program_of))
    return cache[id(r)][1]


TANGENT_LIMIT = 10**8
"""The most entries the generated tangent sweep of a loop may hold (the carried tangents
and the stacked ys' rows, each a row per entry and a column per input entry, or per
colour where the sweep is compressed, :mod:`.loop_columns`: 800 MB of doubles, the limit
of a dense Jacobian, ``codegen.tensor.function.DENSE_LIMIT``). A loop carrying a
200 × 200 array of a 200 × 200 input held 40,000 × 40,000 (12 GB) and was killed for
memory."""


def _bounded(r: Region, width: int, held: int, needed: list[bool]) -> None:
    """Refuse, in one line, a tangent sweep whose tangents (``held`` columns of the
    ``width`` input entries, the ``needed`` outputs' rows) exceed :data:`TANGENT_LIMIT`,
    before any is made."""
    b = r.body
    outs = range(len(r.out_shapes))
    floats = [j for j in outs if b.out_offsets[j] is not None and needed[j]]
    carried = sum(math.prod(b.out_shapes[j]) for j in floats if j < r.n_carry)
    stacked = sum(math.prod(r.out_shapes[j]) for j in floats if j >= r.n_carry)
    entries = (carried + stacked) * held
    if entries <= TANGENT_LIMIT:
        return
    columns = f"{width:,} input entries"
    if held < width:
        columns = f"{held:,} colours of {width:,} input entries"
    raise InputError(
        f"{r.name or r.kind}: the generated loop carries its tangents"
        f" {'compressed' if held < width else 'dense'}, {carried + stacked:,} entries ×"
        f" {columns} = {entries:,}, over {TANGENT_LIMIT:,}: ask for jvp or vjp (matrix-free"
        " sweeps through the loop)"
    )


def _emit(w, r: Region, operands: list[Node], program_of: Callable) -> _Lowered:
    """The region's loop: its value and tangent sweep (module docstring)."""
    b = r.body
    if list(b.graph.inputs) != list(b.inputs):
        raise DGraphError(f"{r.name}: a loop body whose graph inputs are not its inputs")
    nested = [out for out in b.outputs if isinstance(out, ArrayOp)]  # no derivative
    program, keys = program_of(b.graph, nested)  # computed by the program, after it
    ends = len(keys) + len(b.graph.outputs)
    results = dict(zip(b.graph.outputs, program.results[len(keys) : ends], strict=True))
    computed = dict(zip(map(id, nested), program.results[ends:], strict=True))
    blocks = dict(zip(keys, program.results[: len(keys)], strict=True))
    nc, nk, first = r.n_carry, r.n_consts, r.n_cond_consts
    columns = operand_columns(r)  # by operand (a while loop's condition constants first)
    width = columns[-1][1] if columns else 0
    arguments = dict(zip(b.inputs, program.arguments, strict=True))
    taken = {s.target for s in program.statements} | set(program.arguments)
    fresh = (f"_t{n}" for n in range(1 << 30) if f"_t{n}" not in taken)
    extra: list[ArrayStatement] = []
    body_of_output: list[str] = []
    for o, out in enumerate(b.outputs):
        if isinstance(out, str):
            body_of_output.append(results[out])
            continue
        if isinstance(out, ArrayOp):  # a counter, a mask, a nested region's value
            body_of_output.append(computed[id(out)])
            continue
        target = next(fresh)  # a number: its value alone
        value = body_operation(out, arguments, b.out_shapes[o], r.name)
        extra.append(ArrayStatement(target, value))
        body_of_output.append(target)
    reads = None if w.region_reads is None else w.region_reads.get(id(r))

    def read_by(o: int, c: int) -> bool:  # body output o reads carry c
        i, out = nk + c, b.outputs[o]
        if not isinstance(out, str) or not b.floats[i] or (out, b.inputs[i]) not in blocks:
            return False
        return not _zeros(program, blocks[(out, b.inputs[i])])

    needed = _needed(r, reads, read_by)  # the outputs whose tangent rows are carried
    found_colours = loop_colours(r, columns, needed)  # the columns the sweep carries
    colour, pattern = found_colours or (np.arange(width), None)
    held = int(colour.max()) + 1 if width else 0  # -1: a column no output reads
    if r.kind == "scan" and not w.constants.keep_arrays:  # NumPy, JAX: the chain DP's sweep
        choice = chain_choice(r, width)  # priced uncompressed (the adjoint loop's choice)
        w.__dict__.setdefault("loop_notes", []).append(note(choice))
        if choice["sweep"] == "adjoint":
            found = adjoint_jacobian(
                w,
                r,
                operands,
                program,
                blocks,
                body_of_output,
                arguments,
                columns,
                width,
                lambda: next(fresh),
            )
            return _Lowered(None, r, columns, found)
    _bounded(r, width, held, needed)
    tangent_in: dict[int, str] = {}  # body input i -> the name of its tangent
    for i in range(len(b.inputs)):
        if nk <= i < nk + nc or columns[first + i][1] > columns[first + i][0]:
            tangent_in[i] = next(fresh)
    tangents_out = []
    indices: list[tuple[str, Node]] = []  # the sparse products' index arrays, passed in

    def index(array: np.ndarray) -> Name:
        indices.append((next(fresh), w.constants.index(array)))
        return Name(indices[-1][0])

    writes = None
    if r.kind == "scan":  # the steps' writes at positions
        writes = step_writes(
            program, _tables(w, r, operands[first:], arguments), lambda: next(fresh)
        )
    for o, out in enumerate(b.outputs):
        size = math.prod(b.out_shapes[o])
        total: Node | None = None
        rows: dict[int, Node] = {}  # the tangent rows at a group's position, by group
        for i, name in tangent_in.items():
            if not needed[o] or not b.floats[i] or (out, b.inputs[i]) not in blocks:
                continue
            block = blocks[(out, b.inputs[i])]
            if not held or _zeros(program, block):  # no term: n × 0 tangents (no operand is
                continue  # differentiated: a loop under a custom rule), or n × width zeros
            if writes is not None and _rows(writes, block, size, b.shapes[i], name, rows):
                continue
            term = None
            if writes is not None and _identity(program, block, size):
                term = Name(name)  # 1.0·D: D itself
            if term is None and w.sparse_products:  # NumPy, JAX and C's value programs
                term = sparse_product(program, block, size, held, Name(name), index)
            if term is None:
                matrix = Call("reshape", (Name(block), Const((size, -1))))
                term = matrix_product(matrix, Name(name), size * math.prod(b.shapes[i]))
            total = term if total is None else ir.BinOp("+", total, term)
        if rows and writes is not None:

            def named(node: Node) -> Name:  # a statement of its own (C's scatters read names)
                extra.append(ArrayStatement(next(fresh), node))
                return Name(extra[-1].target)

            total = _rows_added(writes, total, rows, size, held, index, named)
        target = next(fresh)
        extra.append(ArrayStatement(target, total or Call("zeros", (Const((size, held)),))))
        tangents_out.append(target)
    at = [columns[first + i] for i in range(len(b.inputs))]  # by body input
    sizes = [math.prod(shape) for shape in b.shapes]
    seeds = [  # a const's or a carry's (an xs slice's: made each step, below)
        colour_seed(colour[lo : lo + sizes[i]] if hi > lo else [], held, sizes[i])
        for i, (lo, hi) in enumerate(at)
    ]
    cond_operands_of = operands[:first]
    operands = operands[first:]  # by body input
    init = [*(reshaped_to(operands[nk + c], b.shapes[nk + c]) for c in range(nc))]
    init += [w.constants.add(seeds[nk + c]) for c in range(nc)]
    xs_in = range(nk + nc, len(b.inputs))
    xs = [operands[i] for i in xs_in]
    xs_t = [i for i in xs_in if i in tangent_in]
    seeding: list[ArrayStatement] = []  # each step's seed of an xs slice, made in the body
    if w.constants.keep_arrays:  # C: the stacked seeds, a constant
        xs += [
            w.constants.add(_stacked_seeds(r, b.shapes[i], colour, held, at[i][0])) for i in xs_t
        ]
        seed_names = [tangent_in[i] for i in xs_t]
    else:
        columns_of = next(fresh)
        seed_names = []
        for i in xs_t:
            xs.append(w.constants.index(_seed_columns(r, b.shapes[i], colour, at[i][0])))
            seed_names.append(next(fresh))
            test = BinOp("==", Name(seed_names[-1]), Name(columns_of))
            seeding.append(ArrayStatement(tangent_in[i], AsType(test, "float")))
    ks_t = [i for i in range(nk) if i in tangent_in]
    invariants = [reshaped_to(operands[i], b.shapes[i]) for i in range(nk)]
    invariants += [w.constants.add(seeds[i]) for i in ks_t]
    constants = sorted(program.constants)
    invariants += [w.constants.add(program.constants[c]) for c in constants]
    names = [arguments[b.inputs[nk + c]] for c in range(nc)]
    names += [tangent_in[nk + c] for c in range(nc)]
    names += [arguments[b.inputs[i]] for i in xs_in] + seed_names
    names += [arguments[b.inputs[i]] for i in range(nk)] + [tangent_in[i] for i in ks_t]
    names += constants + [n for n, _ in indices]
    invariants += [node for _, node in indices]
    if seeding:
        names.append(columns_of)
        invariants.append(w.constants.index(np.arange(held)))
    outs = [*body_of_output[:nc], *tangents_out[:nc], *body_of_output[nc:], *tangents_out[nc:]]
    statements = program.statements if writes is None else writes.statements
    inner = [without_copies(s) for s in statements] + seeding
    if r.kind == "while":
        cond_operands = [
            reshaped_to(x, s) for x, s in zip(cond_operands_of, r.operand_shapes, strict=False)
        ]
        cond_names = [next(fresh) for _ in cond_operands]
        invariants += cond_operands
        names += cond_names
        known = dict(zip(r.cond_inputs, [*cond_names, *names[:nc]], strict=True))
        arrays = invariant(w.constants, names, invariants, lambda: next(fresh))
        test = body_operation(r.cond, known, (), r.name, arrays)
        cond = LoopBody(tuple(names), (ArrayStatement("_ok", test),), ("_ok",))
        body = LoopBody(tuple(names), (*inner, *extra), tuple(outs))
        loop: Node = While(tuple(init), tuple(invariants), cond, body)
    else:
        body = LoopBody(tuple(names), (*inner, *extra), tuple(outs))
        loop = Loop(tuple(init), tuple(xs), tuple(invariants), body, int(r.length), r.reverse)
    name = w.emit(loop, f"loop_{r.name}" if r.name else "loop")
    if pattern is None:
        return _Lowered(name, r, columns)
    return _Lowered(name, r, columns, colour=colour, pattern=pattern)


def _tables(w, r: Region, operands: list[Node], arguments: dict[str, str]) -> dict:
    """Per body argument that is a step's slice of a module constant, that constant."""
    b, found = r.body, {}
    for i in range(r.n_consts + r.n_carry, len(b.inputs)):
        x = operands[i]
        if isinstance(x, Name) and x.id in w.constants.arrays:
            found[arguments[b.inputs[i]]] = w.constants.arrays[x.id]
    return found


def _rows(writes: StepWrites, block: str, size: int, shape, tangent: str, rows: dict) -> bool:
    """Add ``block``·D (D the tangent ``tangent`` of an input of one entry) to ``rows``
    at each group's position where the block is zero outside them; whether it was."""
    if size != writes.n or math.prod(shape) != 1 or block not in writes.zero:
        return False
    entries = [writes.at(block, g) for g in sorted(writes.zero[block])]
    if any(e is None for e in entries):
        return False
    for g, e in zip(sorted(writes.zero[block]), entries, strict=True):
        term = BinOp("*", Call("reshape", (e, Const((1, 1)))), Name(tangent))
        rows[g] = term if g not in rows else BinOp("+", rows[g], term)
    return True


def _rows_added(
    writes: StepWrites, total: Node | None, rows: dict, size: int, held: int, index, named
) -> Node:
    """``total`` (zeros where None) with ``rows`` added at their groups' positions: the
    tangent's entries a step writes, each row ``held`` wide."""
    base = total if total is not None else Call("zeros", (Const((size, held)),))
    columns = index(np.arange(held))
    parts = []
    for g in sorted(rows):
        flat = BinOp("+", BinOp("*", writes.groups[g], Const(held)), columns)
        parts.append((named(flat), named(Call("ravel", (rows[g],)))))
    added = ir.ScatterAdd(Call("ravel", (base,)), tuple(parts))
    return Call("reshape", (added, Const((size, held))))


def _identity(program, name: str, size: int) -> bool:
    """Whether the body block ``name`` is the identity of ``size`` rows (a scatter of
    ones onto its diagonal): its product with D is D."""
    found = [s for s in program.statements if s.target == name]
    if len(found) != 1 or found[0].at:
        return False
    value = _unshaped(found[0].value, size * size)
    if isinstance(value, BinOp) and value.op == "*":  # 1.0·I
        for one, other in ((value.left, value.right), (value.right, value.left)):
            if ir.number(_unshaped(one, 1)) == 1.0:
                value = _unshaped(other, size * size)
    if isinstance(value, Call) and value.func == "eye":  # eye(size) (JAX's dialect)
        plain = all(k == "dtype" for k, _ in value.keywords)
        return [ir.number(a) for a in value.args] == [size] and plain
    if not (isinstance(value, ir.Scatter) and value.size == size * size):
        return False
    flat, data = value.flat, value.data
    if not (isinstance(flat, Name) and isinstance(data, Name)):
        return False
    positions = program.constants.get(flat.id)
    ones = program.constants.get(data.id)
    if positions is None or ones is None:
        return False
    positions, ones = np.asarray(positions).reshape(-1), np.asarray(ones).reshape(-1)
    diagonal = np.arange(size) * (size + 1)
    return np.array_equal(positions, diagonal) and ones.size == size and bool(np.all(ones == 1))


def _unshaped(node: Node, size: int) -> Node:
    """``node`` past reshapes and broadcasts that keep its ``size`` entries."""
    while (
        isinstance(node, Call)
        and node.func in ("reshape", "broadcast_to")
        and len(node.args) == 2
        and isinstance(node.args[1], Const)
        and math.prod(np.atleast_1d(node.args[1].value)) == size
    ):
        node = node.args[0]
    return node


def _zeros(program, name: str) -> bool:
    """Whether the body program's block ``name`` is ``zeros(...)`` (its one statement,
    no store into it): an input the output reads through no derivative."""
    found = [s for s in program.statements if s.target == name]
    if len(found) != 1 or found[0].at:
        return False
    return isinstance(found[0].value, Call) and found[0].value.func == "zeros"


def _seed_columns(r: Region, shape, colour: np.ndarray, at: int) -> np.ndarray:
    """Each step's seed of an xs slice as the columns of its ones, (steps, size, 1): the
    loop body compares them with every column (``S_t = (cols_t == arange(held))``), so
    the code holds T·size integers, not the T·size·held entries of the stacked seeds
    (:func:`_stacked_seeds`; 4 of 128 MB each in the gradient of a 2,000-step scan). A
    column is its ``colour`` (itself where the sweep is not compressed)."""
    size = math.prod(shape)
    steps = np.arange(int(r.length), dtype=np.int64)[:, None] * size
    return colour[at + steps + np.arange(size)].reshape(int(r.length), size, 1)


def _stacked_seeds(r: Region, shape, colour: np.ndarray, held: int, at: int) -> np.ndarray:
    """Each step's seed of an xs slice: its rows of the stacked operand's columns (each
    column its ``colour``), ``held`` columns."""
    size = math.prod(shape)
    out = np.zeros((int(r.length), size, held))
    for s in range(int(r.length)):
        found = colour[at + s * size + np.arange(size)]
        kept = found >= 0  # -1: an entry no output reads
        out[s, np.arange(size)[kept], found[kept]] = 1.0
    return out
