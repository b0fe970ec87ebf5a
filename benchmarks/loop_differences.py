"""CPU-s of the value check's central differences of a program with a loop read from
NumPy code (no JAX ``jvp``: the reference is Richardson differences of the graph's own
program), inside one verified ``dgraph.jacobian``, by size:
``python benchmarks/loop_differences.py PROGRAM N`` prints ``PROGRAM N total_cpu_s
differences_cpu_s calls``, after a warm-up at N = 12 in the same process. ``calls``: the
calls of the differences (one a direction; each step's six shifts run one by one before
session 64, since then every step's shifts in one batched run of the loop).

Programs: those of ``benchmarks/readers63.py`` (``iir``, ``iirnd``, ``filtfilt``,
``convwrap``). Run it with ``PYTHONPATH`` at the tree measured, alternating two trees in
the same minutes."""

from __future__ import annotations

import sys
import time
import warnings

import readers63

import dgraph.core.value_check as value_check

_spent = [0.0, 0]
_differences = value_check._differences


def _timed(*args, **kwargs):
    start = time.process_time()
    try:
        return _differences(*args, **kwargs)
    finally:
        _spent[0] += time.process_time() - start
        _spent[1] += 1


value_check._differences = _timed


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    program, size = sys.argv[1], int(sys.argv[2])
    readers63.run(program, 12)  # warm-up
    _spent[:] = [0.0, 0]
    cpu, _ = readers63.run(program, size)
    print(f"{program} {size} {cpu:.3f} {_spent[0]:.3f} {_spent[1]}")
