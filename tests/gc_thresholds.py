"""The cyclic collector's thresholds for a test process: young collections less often.

A worker's heap grows through the run (the test modules, sympy's enlarged caches, JAX's
compiled programs, module fixtures) to a million objects and more, and at CPython's default
thresholds (700, 10, 10) every tenth middle collection may walk all of it again: in a
sample of six test files (elimination, nc_algebra, zhou, hessian_arrays, codegen_arrays,
rules_vs_jax; ``-n 0``, one process), 8.0 of 119 CPU-s went to 3,554 + 288 + 17 collections,
6.1 of them to the 17 full ones. At (2000, 20, 100) the same files spent 4.6 s in
1,978 + 136 + 12 (the full ones left are mostly explicit ``gc.collect()`` calls), with the
peak RSS 1,513 → 1,662 MB ((10000, 20, 100): 5.1 s, 1,665 MB). Only when cyclic
garbage is freed changes: reference counting frees everything else as before, and the
end's collections (:mod:`tests.final_collect`) still find every finalizer's exception.
The library's own pauses (:func:`dgraph.core.collector.collector_paused`) are unchanged,
and so is every new interpreter the tests start (the command line, notebook kernels);
the search's children, forked from a worker, inherit the worker's thresholds.
"""

from __future__ import annotations

import gc

THRESHOLDS = (2_000, 20, 100)


def configure(config) -> None:
    """Set :data:`THRESHOLDS` in this process (each worker, and the controller)."""
    gc.set_threshold(*THRESHOLDS)
