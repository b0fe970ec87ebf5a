"""JAX traces per Hessian call: how many times ``jax.make_jaxpr`` is called, from where,
and the CPU time of those calls, over the hessian and hvp calls of
``make_function_fixed_cost.py``'s corpus (one warm process; a warm-up pass at another
constant first). A count does not depend on the machine's load, so old and new code
compare exactly where CPU times on a busy machine do not.

    PYTHONPATH=. python benchmarks/hessian_repeated_traces.py
    PYTHONPATH=/tmp/base python benchmarks/hessian_repeated_traces.py

A second ``make_jaxpr`` of the same function at arguments of the same shapes is a hit in
JAX's own trace cache (``f`` is not run again): it costs the call's wrapping, not a
trace; this script counts such calls too.
"""

from __future__ import annotations

import collections
import contextlib
import sys
import time
import traceback
import warnings
from pathlib import Path

import jax

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_function_fixed_cost as corpus

MODES = ("hessian", "hvp")


def main() -> None:
    warnings.simplefilter("ignore")
    for _, mode, job in corpus._jobs(7.0):
        if mode in MODES:
            with contextlib.suppress(Exception):
                job()
    make_jaxpr = jax.make_jaxpr
    calls: collections.Counter[str] = collections.Counter()
    seconds: collections.Counter[str] = collections.Counter()

    def counted(fun, *a, **k):
        traced = make_jaxpr(fun, *a, **k)

        def call(*args, **kwargs):
            frame = traceback.extract_stack(limit=2)[0]
            where = f"{frame.filename.split('dgraph/')[-1]}:{frame.name}"
            t = time.process_time()
            try:
                return traced(*args, **kwargs)
            finally:
                calls[where] += 1
                seconds[where] += time.process_time() - t

        return call

    jax.make_jaxpr = counted
    made, t = 0, time.process_time()
    try:
        for _, mode, job in corpus._jobs(1.5):
            if mode in MODES:
                job()
                made += 1
    finally:
        jax.make_jaxpr = make_jaxpr
    total = time.process_time() - t
    print(f"{made} calls, {total:.2f} CPU-s; make_jaxpr calls by caller (CPU-ms):")
    for where, n in calls.most_common():
        print(f"  {n:5d}  {1000 * seconds[where]:8.1f}  {where}")


if __name__ == "__main__":
    main()
