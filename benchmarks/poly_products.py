"""The polynomial-array products of one CUTEst problem's sparse Hessian build (the
cancellation pass's ``poly_arrays.multiply``), timed in CPU seconds, against another
implementation of the module (e.g. main's file) on the same operands.

    PYTHONPATH=.:SIF2JAX_DIR python benchmarks/poly_products.py SPIN2LS \\
        [--reference OTHER/poly_arrays.py] [--reps 3] [--least 0.3]

First ``dgraph.hessian(f, y0, sparse=True)`` is built once (its CPU seconds printed),
keeping the operands of every product that took at least ``--least`` CPU seconds; then
each kept product is repeated ``--reps`` times (this module's ``multiply`` and the
reference's alternating, in this process), medians printed, and the two results compared
array for array (positions, factor keys, coefficients bit for bit, taint). sif2jax is
installed apart, as for ``benchmarks/cutest.py``.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time


def _load(path: str):
    spec = importlib.util.spec_from_file_location("reference_poly_arrays", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _same(x, y) -> bool:
    import numpy as np

    return (
        tuple(x.shape) == tuple(y.shape)
        and np.array_equal(x.pos, y.pos)
        and x.fac.shape == y.fac.shape
        and np.array_equal(x.fac, y.fac)
        and np.array_equal(x.coef.view(np.int64), y.coef.view(np.int64))
        and np.array_equal(x.taint, y.taint)
    )


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="a sif2jax unconstrained problem, e.g. SPIN2LS")
    parser.add_argument("--reference", help="another poly_arrays.py to compare with")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--least", type=float, default=0.3, help="CPU s of a product kept")
    opts = parser.parse_args(argv)

    import jax

    jax.config.update("jax_enable_x64", True)
    import numpy as np
    import sif2jax

    import dgraph
    from dgraph.codegen.tensor import poly_arrays, poly_values

    problem = {p.name: p for p in sif2jax.unconstrained_minimisation_problems}[opts.name]
    y0 = np.asarray(problem.y0, dtype=np.float64).ravel()
    kept, spent = [], [0.0, 0]

    def timed(a, b):
        t = time.process_time()
        out = poly_arrays.multiply(a, b)
        t = time.process_time() - t
        spent[0] += t
        spent[1] += 1
        if t >= opts.least:
            kept.append((a, b))
        return out

    poly_values.multiply = timed
    t = time.process_time()
    dgraph.hessian(lambda y: problem.objective(y, problem.args), y0, sparse=True)
    print(f"{opts.name}: build CPU s {time.process_time() - t:.2f}, {spent[1]} products "
          f"{spent[0]:.2f} CPU s, {len(kept)} of them >= {opts.least} s", flush=True)  # fmt: skip
    reference = _load(opts.reference) if opts.reference else None
    if reference is not None:
        reference._NUMBERS = poly_arrays._NUMBERS  # one numbering of the number unknowns
    for a, b in kept:
        mine, theirs = [], []
        for _ in range(opts.reps):
            t = time.process_time()
            ours = poly_arrays.multiply(a, b)
            mine.append(time.process_time() - t)
            if reference is not None:
                t = time.process_time()
                other = reference.multiply(a, b)
                theirs.append(time.process_time() - t)
                assert _same(ours, other), "the two implementations differ"
                del other
        line = (f"  {a.shape} x {b.shape}: {a.rows:,} x {b.rows:,} rows -> {ours.rows:,} "
                f"x {ours.fac.shape[1]}; CPU s median {statistics.median(mine):.2f}")  # fmt: skip
        if theirs:
            slow, fast = statistics.median(theirs), statistics.median(mine)
            line += f", reference {slow:.2f} (ratio {slow / fast:.2f}), same arrays"
        print(line, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
