"""Branches as regions: a ``cond`` / ``switch`` whose branches are graphs of their own.

``lax.switch(i, branches, *operands)`` (``lax.cond`` is the two-branch case) runs one
branch, chosen at run time by the index ``i`` (clamped to the branches, as JAX does). It
is one :class:`Branches` region: each output of the equation is a tensor vertex
computing ``ArrayOp("cond", operands, (("region", R), ("output", j)))`` (operand 0 the
index, a nested operation no derivative flows through; then the branches' operands), and
each branch is a :class:`~dgraph.core.regions.Body`, read by the same reader as the
program around it.

* structure: the block of output j over operand k is the union of the branches' blocks:
  it holds whichever branch runs;
* values at a point: the taken branch's Jacobian there, alone. The untaken branches are
  never evaluated, so a NaN or an infinity in one of them (``log`` of a negative number)
  does not reach the derivative — unlike a ``select`` that multiplies it by zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..blocks import Block
from .kept_runs import KeptRuns, nbytes
from .lazy import LazyModule
from .regions import Body, PatternBlocks

__all__ = ["Branches"]

sp = LazyModule("scipy.sparse")


@dataclass(eq=False)
class Branches(PatternBlocks):
    """A ``cond`` / ``switch`` held once: ``branches[b]`` the graph of branch b, each over
    the same inputs (operands 1..) and with the same outputs.

    ``operand_shapes`` and ``active`` cover every operand, the index first; an operand
    is active when it is a vertex (a derivative may flow from it)."""

    branches: list[Body]
    operand_shapes: list[tuple[int, ...]]
    out_shapes: list[tuple[int, ...]]
    active: list[bool]
    name: str = ""
    kind: str = "cond"

    def __post_init__(self) -> None:
        self._runs = KeptRuns()  # by operands: the taken branch's values (KEPT_BYTES)
        self._pattern: dict[tuple[int, int], sp.csr_array] | None = None
        # operand k -> branch input (None: the index)
        self.body_input: list[int | None] = [None, *range(len(self.operand_shapes) - 1)]

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_runs"] = KeptRuns()
        return state

    # -- facts ------------------------------------------------------------------------------

    def describe(self) -> str:
        sizes = ", ".join(str(len(b.graph)) for b in self.branches)
        return f"cond ({len(self.branches)} branches of {sizes} vertices; taken at run time)"

    def label(self) -> str:
        """The region's blocks in a few words: one branch's Jacobian, chosen at run time."""
        sizes = " | ".join(f"{len(b.graph)}" for b in self.branches)
        return f"taken branch of {len(self.branches)} ({sizes} vertices)"

    def taken(self, args: Sequence[np.ndarray]) -> int:
        """The branch these operands run (the index clamped, as ``lax.switch`` does)."""
        index = int(np.asarray(args[0]).reshape(-1)[0])
        return min(max(index, 0), len(self.branches) - 1)

    # -- values ---------------------------------------------------------------------------

    def forward(self, args: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The outputs of the taken branch."""
        return self._run(args)["outputs"]

    def _run(self, args: Sequence[np.ndarray]) -> dict:
        # the operands' bytes, and the branches' versions (a branch changed: run again)
        parts = [b",".join(b"%d" % b.graph.version for b in self.branches)]
        for a in args:
            a = np.asarray(a)
            parts.append(a.dtype.str.encode() + repr(a.shape).encode() + a.tobytes())
        key = b"|".join(parts)
        run = self._runs.get(key)
        if run is None:
            b = self.taken(args)
            body = self.branches[b]
            inputs = [np.asarray(a).reshape(s) for a, s in zip(args[1:], body.shapes, strict=True)]
            values = body.values(inputs)
            outputs = [
                np.asarray(o).reshape(s)
                for o, s in zip(body.results(values), self.out_shapes, strict=True)
            ]
            run = {"branch": b, "values": values, "outputs": outputs, "key": key}
            self._runs.put(key, run)
        return run

    def block_value(self, j: int, k: int, args: Sequence[np.ndarray], block: Block) -> np.ndarray:
        """The taken branch's ∂(output j)/∂(operand k) at these operands, in the block's
        layout (zero where the taken branch has no entry of the union pattern)."""
        return self._handed(j, k, args, block, absolute=False)

    def block_magnitude(
        self, j: int, k: int, args: Sequence[np.ndarray], block: Block
    ) -> np.ndarray:
        """The scale of :meth:`block_value`'s rounding: the taken branch's Jacobian of
        its blocks' magnitudes (:meth:`~dgraph.core.regions.Body.jacobian`)."""
        return self._handed(j, k, args, block, absolute=True)

    def _handed(
        self, j: int, k: int, args: Sequence[np.ndarray], block: Block, absolute: bool
    ) -> np.ndarray:
        run = self._run(args)
        field = "magnitudes" if absolute else "jacobian"
        body = self.branches[run["branch"]]
        if field not in run:
            run[field] = _readable(body.jacobian(run["values"], absolute))
            self._runs.grew(run["key"], nbytes(run[field]))
        jac = run[field]
        at = self._corner(body, j, k)
        if hasattr(block, "value"):  # dense
            shape = (*self.out_shapes[j], *self.operand_shapes[k])
            if at is None:  # no derivative flows from operand k to output j here
                return np.zeros(shape)
            rows, cols = math.prod(self.out_shapes[j]), math.prod(body.shapes[self.body_input[k]])
            part = jac[at[0] : at[0] + rows, at[1] : at[1] + cols]
            return (part.toarray() if sp.issparse(part) else np.array(part)).reshape(shape)
        if at is None:
            return np.zeros(block.rows.size)
        return np.asarray(jac[block.rows + at[0], block.cols + at[1]]).reshape(-1).astype(float)

    # -- structure ---------------------------------------------------------------------------

    def _patterns(self) -> dict[tuple[int, int], sp.csr_array]:
        if self._pattern is None:
            found: dict[tuple[int, int], Any] = {}
            for body in self.branches:
                jp = sp.csr_array(body.jacobian(None))
                for j in range(len(self.out_shapes)):
                    for k in range(1, len(self.operand_shapes)):
                        part = self._part(body, jp, j, k)
                        if part is None or not part.nnz:
                            continue
                        total = found.get((j, k))
                        found[(j, k)] = part if total is None else total + part
            for key, m in found.items():
                m = sp.csr_array(m)
                m.data = np.ones_like(m.data)
                m.eliminate_zeros()
                found[key] = m
            self._pattern = found
        return self._pattern

    def _part(self, body: Body, jac: sp.csr_array, j: int, k: int) -> sp.csr_array | None:
        """Rows of output j and columns of operand k of a branch's flat Jacobian (None
        where no derivative flows between them in that branch)."""
        at = self._corner(body, j, k)
        if at is None:
            return None
        rows, cols = math.prod(self.out_shapes[j]), math.prod(body.shapes[self.body_input[k]])
        return sp.csr_array(jac[at[0] : at[0] + rows][:, at[1] : at[1] + cols])

    def _corner(self, body: Body, j: int, k: int) -> tuple[int, int] | None:
        """Where output j's rows and operand k's columns start in a branch's flat
        Jacobian (None where no derivative flows between them in that branch)."""
        i = self.body_input[k]
        if i is None or not self.active[k] or not body.floats[i]:
            return None
        rows_at, cols_at = body.out_offsets[j], body.in_offsets[i]
        if rows_at is None or cols_at is None:
            return None
        return rows_at, cols_at


DENSE_MOST = 1 << 16
"""Entries of a branch's Jacobian at a point held as a dense array (512 KiB): a loop body's
branch is read block by block at every step, and a dense array's entries are read in
place, where a sparse matrix's slicing costs some 0.3 ms a block."""


def _readable(jac: Any) -> Any:
    """A branch's Jacobian at a point as it is read block by block: dense up to
    :data:`DENSE_MOST` entries (the same numbers), else CSR."""
    if math.prod(jac.shape) <= DENSE_MOST:
        return jac.toarray() if sp.issparse(jac) else np.asarray(jac)
    return sp.csr_array(jac)
