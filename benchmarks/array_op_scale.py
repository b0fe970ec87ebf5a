"""Scale of two array operations' graphs (issue 54, what the last stop left unmeasured):
a CNN layer's ``conv_general_dilated`` block (one entry per product the convolution
reads), a scatter-add / gather at constant positions (positions kept in the
operation's parameters) and ``sort`` (a run-time permutation block: ``make_function`` of
each mode timed too). For each size, in its own subprocess: the seconds of
``from_jax(..., level="array")`` (``read_s``) and with every edge's block made
(``seconds``), the rise of peak RSS over the process after its imports
(``ru_maxrss``), and the blocks' entries; then the growth exponent k of seconds and MB ~
entries^k between the two largest sizes.

    python benchmarks/array_op_scale.py                       # both, default sizes
    python benchmarks/array_op_scale.py --kind sort           # one family, default sizes
    python benchmarks/array_op_scale.py --only conv 32        # one size, in this process
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time

CONV_SIDES = (16, 32, 64)  # image side; 16 channels in and out, 3 x 3 kernel, batch 1
SCATTER_SIZES = (10_000, 100_000, 1_000_000)
SORT_SIZES = (10_000, 100_000, 1_000_000)  # sum(w * sort(x)**2): its Jacobian, jvp, vjp made


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(kind: str, size: int) -> dict:
    import jax
    import jax.numpy as jnp
    import numpy as np

    jax.config.update("jax_enable_x64", True)
    from dgraph import from_jax

    rng = np.random.default_rng(0)
    if kind == "conv":
        x = rng.normal(size=(1, 16, size, size))
        w = rng.normal(size=(16, 16, 3, 3))

        def f(x, w):
            return jax.lax.conv_general_dilated(x, w, (1, 1), "SAME")

        args = (x, w)
    elif kind == "sort":
        return _measure_sort(size, rng)
    else:
        idx = rng.integers(0, size // 2, size)

        def f(x, u):
            return jnp.sin(x.at[idx].add(u)[idx])

        args = (rng.normal(size=size // 2), rng.normal(size=size))
    jax.make_jaxpr(f)(*args)  # tracing counted in the baseline
    base = _rss_mb()
    start = time.perf_counter()
    g = from_jax(f, *args, level="array")
    read = time.perf_counter() - start
    entries = sum(g.block(u, v).nnz for u, v in g.edges())  # the blocks made when first asked
    seconds = time.perf_counter() - start
    return {
        "kind": kind,
        "size": size,
        "read_s": round(read, 2),
        "seconds": round(seconds, 2),
        "peak_mb": round(_rss_mb() - base, 1),
        "block_entries": int(entries),
    }


def _measure_sort(size: int, rng) -> dict:
    """``make_function`` (checked) of sum(w * sort(x)**2) in each mode, n = ``size``."""
    import jax
    import jax.numpy as jnp

    from dgraph import from_jax, make_function

    w, x = rng.normal(size=size), rng.normal(size=size)

    def f(x):
        return jnp.sum(w * jnp.sort(x) ** 2)

    jax.make_jaxpr(f)(x)
    base = _rss_mb()
    start, cpu = time.perf_counter(), time.process_time()
    g = from_jax(f, x, level="array")
    read = time.perf_counter() - start
    entries = sum(g.block(u, v).nnz for u, v in g.edges())
    found = {}
    for mode in ("jacobian", "jvp", "vjp"):
        begin = time.perf_counter()
        made = make_function(g, mode)
        found[f"{mode}_s"] = round(time.perf_counter() - begin, 2)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    error = float(abs(made(x, 1.0) - jax.grad(f)(x)).max())
    return {
        "kind": "sort",
        "size": size,
        "read_s": round(read, 2),
        "seconds": round(seconds, 2),
        "cpu_s": round(cpu, 2),
        **found,
        "peak_mb": round(_rss_mb() - base, 1),
        "block_entries": int(entries),
        "vjp_error": error,
    }


def _exponent(rows: list[dict], key: str) -> float | None:
    a, b = rows[-2], rows[-1]
    if a[key] <= 0 or b[key] <= 0:
        return None
    return math.log(b[key] / a[key]) / math.log(b["block_entries"] / a["block_entries"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs=2, metavar=("KIND", "SIZE"))
    parser.add_argument("--kind", choices=("conv", "scatter", "sort"), help="one family only")
    args = parser.parse_args()
    if args.only:
        print(json.dumps(measure(args.only[0], int(args.only[1]))))
        return
    for kind, sizes in (("conv", CONV_SIDES), ("scatter", SCATTER_SIZES), ("sort", SORT_SIZES)):
        if args.kind not in (None, kind):
            continue
        rows = []
        for size in sizes:
            cmd = [sys.executable, __file__, "--only", kind, str(size)]
            done = subprocess.run(cmd, capture_output=True, text=True)
            if done.returncode != 0:
                print(json.dumps({"kind": kind, "size": size, "failed": done.stderr[-300:]}))
                continue
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(json.dumps(rows[-1]), flush=True)
        if len(rows) >= 2:
            k_time, k_mb = _exponent(rows, "seconds"), _exponent(rows, "peak_mb")
            print(f"{kind}: growth exponent of seconds {k_time:.2f}, of peak MB {k_mb:.2f}")


if __name__ == "__main__":
    main()
