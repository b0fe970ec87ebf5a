"""The array tracer's window sums written as differences of a running sum: ``cs =
np.cumsum(x); cs[k:] - cs[:-k]`` traced as the window sums it is, as
:mod:`.jaxpr_prefix_sums` reads JAX's (the reasons are there: a block holds its pattern,
not the signs that cancel the two triangles).

:func:`windows_of` follows each operand of a traced ``sub`` back through the selections
of the tape (slices, takes, reshapes, flips, transposes) to a ``cumsum`` and reads the
positions each entry selects by evaluating those selections on the entries' numbers;
where both reach the same running sum the tracer writes the windows' entries taken from
its operand, signed, and summed into their places (:func:`~.array_tracer` ``_segment_sums``:
a ``take`` and a ``scatter_add``), whose Jacobian block is the windows' intervals of ones.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ..blocks import FORGETS
from ..blocks.arrays import ArrayOp, evaluate
from .jaxpr_prefix_sums import RunningSum, Windows, windows_between

__all__ = ["windows_of"]

#: the tape's operations each of whose output entries is one entry of their operand
SELECTIONS = frozenset(
    {"slice", "take", "reshape", "squeeze", "transpose", "rev", "broadcast_in_dim",
     "expand_dims"}
)  # fmt: skip
#: the most selections followed back from one operand
MOST_STEPS = 16


def windows_of(a: Any, b: Any) -> Windows | None:
    """The window sums ``a - b`` is, for two traced arrays of one shape that select
    entries of the same running sum (module docstring); None for any other pair. The
    windows' ``operand`` is the running sum's operand's name on the tape."""
    tape = a.tape
    found_a, found_b = _positions(tape, a.name), _positions(tape, b.name)
    if found_a is None or found_b is None or found_a[0] != found_b[0]:
        return None
    (_, op, pa), (_, _, pb) = found_a, found_b
    if pa.shape != pb.shape or not str(op.operands[0]).startswith("%"):
        return None
    param = dict(op.param)
    run = RunningSum(op.operands[0], int(param["axis"]), bool(param.get("reverse", False)))
    windows = windows_between(run, tuple(op.shape), pa, pb)
    if windows is None or windows.index.size == 0:
        return None
    return windows


def _entry(tape: Any, name: str) -> ArrayOp | None:
    """The operation that computed the tape's array ``name`` (None: an argument)."""
    if not name.startswith("%"):
        return None
    return tape.entries[int(name[1:])][1]


def _positions(tape: Any, name: str) -> tuple[str, ArrayOp, np.ndarray] | None:
    """The running sum the array ``name`` selects from (its name and operation) and the
    flat position in it of each of its entries; None where it is no selection of one."""
    chain: list[ArrayOp] = []
    op = _entry(tape, name)
    while op is not None and op.primitive in SELECTIONS and len(chain) < MOST_STEPS:
        if len(op.operands) != 1 or not isinstance(op.operands[0], str):
            return None
        chain.append(op)
        name = op.operands[0]
        op = _entry(tape, name)
    if op is None or op.primitive != "cumsum" or len(op.operands) != 1:
        return None
    positions = _numbered(tuple(op.shape))
    try:
        for step in reversed(chain):
            positions = evaluate(step, {step.operands[0]: positions})
    except Exception:  # a selection not evaluated on numbers here: not followed (as written)
        return None
    return name, op, np.rint(positions).astype(np.int64)


@functools.lru_cache(maxsize=2)
def _numbered(shape: tuple[int, ...]) -> np.ndarray:
    """The flat position of each entry of an array of ``shape``, as doubles (read-only,
    made once per shape: a program's many selections of one running sum)."""
    found = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    found.flags.writeable = False
    return found


FORGETS.append(_numbered.cache_clear)
