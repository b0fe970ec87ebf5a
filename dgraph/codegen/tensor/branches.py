"""A ``cond`` region's value and Jacobian blocks as one :class:`~dgraph.codegen.ir.Cond`.

Each branch of a :class:`~dgraph.core.branches.Branches` region is printed as the
generated value-and-Jacobian program of its graph
(:func:`~dgraph.codegen.tensor.module.tensor_program`, mode ``value_and_jacobian``),
followed by the derivatives of its outputs with respect to every active operand
(``D_j = Σ_i J_ji·S_i``, ``S_i`` operand i's seed: its columns of the identity). The
index chooses the branch at run time; only that branch runs, so the untaken branches'
values (a NaN among them) never reach the derivative. Each edge's block is read from the
taken branch's ``D_j`` (zero outside its own pattern, inside the union's). An output no
derivative reaches (an index, a mask, a nested cond's or loop's value: a Hessian's
residuals) is computed by the branch's program and returned as doubles, as the graph's
values are, so that every branch returns the same types (``lax.switch`` asks it: one
branch's integer zero, another's converted predicate). The same program places a cond
inside a loop's body (:mod:`.regions`, :mod:`.loop_sweeps`) and inside a branch.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ...blocks.arrays import ArrayOp
from ...blocks.arrays import Const as ArrayConst
from ...core.branches import Branches
from ...errors import DGraphError
from .. import ir
from ..ir import ArrayStatement, AsType, Call, Cond, Const, Item, LoopBody, Name, Node
from .region_steps import MATRIX, body_operation, identity_seed, reshaped_to, without_copies

__all__ = ["emit_cond"]


class _LoweredCond:
    """A cond's statement and where its outputs and tangents are."""

    def __init__(self, name: Name, region: Branches, columns: list[tuple[int, int]]) -> None:
        self.loop = name
        self.region = region
        self.columns = columns  # operand k -> its tangent columns (lo, hi)

    def value(self, j: int) -> Node:
        shape = Const(tuple(self.region.out_shapes[j]))
        return Call("reshape", (Item(self.loop, j), shape))

    def tangent(self, j: int) -> Node:
        """d(output j)/d(active operands), (size of output j, width)."""
        return Item(self.loop, len(self.region.out_shapes) + j)


def emit_cond(w, r: Branches, operands: list[Node], program_of: Callable) -> _LoweredCond:
    """The region's :class:`~dgraph.codegen.ir.Cond` statement (module docstring)."""
    width, columns = 0, []
    for k, shape in enumerate(r.operand_shapes):
        i = r.body_input[k]
        size = math.prod(shape) if i is not None and r.active[k] and r.branches[0].floats[i] else 0
        columns.append((width, width + size))
        width += size
    seeded = [i for i in range(len(r.operand_shapes) - 1) if columns[i + 1][1] > columns[i + 1][0]]
    made = [_branch(r, b, program_of, width, seeded) for b in range(len(r.branches))]
    taken = set().union(*(m[2] for m in made))
    fresh = (f"_o{n}" for n in range(1 << 30) if f"_o{n}" not in taken)
    # the operands every branch takes: the region's, the seeds, each branch's constants
    shared = [
        reshaped_to(operands[1 + i], r.branches[0].shapes[i]) for i in range(len(operands) - 1)
    ]
    for i in seeded:
        lo, hi = columns[1 + i]
        shared.append(w.constants.add(identity_seed(hi - lo, width, lo, True)))
    constants = [(b, c) for b, m in enumerate(made) for c in sorted(m[3])]
    shared += [w.constants.add(made[b][3][c]) for b, c in constants]
    parts = []
    for b, (arguments, body, _, _) in enumerate(made):
        own = [c if cb == b else next(fresh) for cb, c in constants]
        parts.append(LoopBody((*arguments, *own), body.statements, body.results))
    index = operands[0]
    node = Cond(index, tuple(shared), tuple(parts))
    name = w.emit(node, f"cond_{r.name}" if r.name else "cond")
    return _LoweredCond(name, r, columns)


def _branch(r: Branches, b: int, program_of: Callable, width: int, seeded: list[int]):
    """Branch b's arguments (its inputs, then the seeds' names), its body (values, then
    tangents), the names it uses and its program's constants."""
    body = r.branches[b]
    if list(body.graph.inputs) != list(body.inputs):
        raise DGraphError(f"{r.name}: a cond branch whose graph inputs are not its inputs")
    nested = [out for out in body.outputs if isinstance(out, ArrayOp)]  # no derivative
    program, keys = program_of(body.graph, nested)  # computed by the program, after it
    ends = len(keys) + len(body.graph.outputs)
    results = dict(zip(body.graph.outputs, program.results[len(keys) : ends], strict=True))
    computed = dict(zip(map(id, nested), program.results[ends:], strict=True))
    blocks = dict(zip(keys, program.results[: len(keys)], strict=True))
    arguments = dict(zip(body.inputs, program.arguments, strict=True))
    taken = {s.target for s in program.statements} | set(program.arguments)
    taken |= set(program.constants)
    fresh = (f"_t{n}" for n in range(1 << 30) if f"_t{n}" not in taken)
    seeds = {i: next(fresh) for i in seeded}
    extra: list[ArrayStatement] = []
    values: list[str] = []
    constants = dict(program.constants)

    def as_float(node: Node) -> str:  # one dtype in every branch (JAX's switch asks it)
        extra.append(ArrayStatement(next(fresh), AsType(node, "float")))
        return extra[-1].target

    for o, out in enumerate(body.outputs):
        if isinstance(out, str) and out in body.inputs and not body.floats[body.inputs.index(out)]:
            values.append(as_float(Name(results[out])))  # an integer operand passed through
            continue
        if isinstance(out, str):
            values.append(results[out])
            continue
        if isinstance(out, ArrayOp):  # reading the body's inputs, vertices, regions
            values.append(as_float(Name(computed[id(out)])))
            continue
        if isinstance(out, ArrayConst) and np.asarray(out.value).size > 1:
            target = next(fresh)  # a constant array: an argument like the program's constants
            constants[target] = np.asarray(out.value).reshape(body.out_shapes[o])
            values.append(target)
            continue
        # no derivative reaches it: its value alone
        values.append(as_float(body_operation(out, arguments, body.out_shapes[o], r.name)))
    tangents = []
    for o, out in enumerate(body.outputs):
        size = math.prod(body.out_shapes[o])
        total: Node | None = None
        for i, seed in seeds.items():
            # a block's output is a vertex's name (a nested output, never hashed: its
            # operations may share parts, which hashing walks once per path)
            if not isinstance(out, str) or (out, body.inputs[i]) not in blocks:
                continue
            matrix = Call("reshape", (Name(blocks[(out, body.inputs[i])]), Const((size, -1))))
            term = Call("einsum", (MATRIX, matrix, Name(seed)))
            total = term if total is None else ir.BinOp("+", total, term)
        target = next(fresh)
        extra.append(ArrayStatement(target, total or Call("zeros", (Const((size, width)),))))
        tangents.append(target)
    statements = (*(without_copies(s) for s in program.statements), *extra)
    names = (*program.arguments, *seeds.values())
    part = LoopBody(names, statements, (*values, *tangents))
    used = taken | set(seeds.values()) | {s.target for s in extra} | set(constants)
    return names, part, used, constants
