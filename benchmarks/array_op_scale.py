"""Scale of array operations' graphs (issue 54, what the last stop left unmeasured):
a CNN layer's ``conv_general_dilated`` block (its entries one per product the convolution
reads; the block holds the convolution, not the entries), a scatter-add / gather at
constant positions (positions kept in the operation's parameters) and ``sort`` (a
run-time permutation block: ``make_function`` of each mode timed too). For each size, in
its own subprocess: the seconds of ``from_jax(..., level="array")`` (``read_s``) and with
every edge's block made (``seconds``), the rise of peak RSS over the process after its
imports (``ru_maxrss``), and the blocks' entries; then the growth exponent k of seconds
and MB ~ entries^k between the two largest sizes.

``layer``: a ResNet layer (64 → 64 channels, 56 × 56, 3 × 3, "SAME", then ``tanh``): the
graph, then the ``jvp`` and ``vjp`` modules generated (NumPy and JAX: seconds, peak RSS,
text and constants), each run once against ``jax.jvp`` / ``jax.vjp`` (largest relative
error, seconds of a second call), then ``make_function``'s checked path (accumulated,
verified, the code checked), and ``jax.jit`` of ``jax.jvp`` / ``jax.vjp`` per call.

    python benchmarks/array_op_scale.py                       # all, default sizes
    python benchmarks/array_op_scale.py --kind sort           # one family, default sizes
    python benchmarks/array_op_scale.py --only conv 32        # one size, in this process
    python benchmarks/array_op_scale.py --only layer 56       # the layer, in this process
    python benchmarks/array_op_scale.py --only layers 56      # two such layers
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
LAYER_SIDE = 56  # a ResNet stage's image side, 64 channels


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


def layer(side: int, channels: int = 64, depth: int = 1) -> dict:
    """The layer's graph and sweeps (the module docstring), as one row; ``depth`` such
    layers one after the other (their kernels one input each)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    jax.config.update("jax_enable_x64", True)
    from dgraph import from_jax, make_function
    from dgraph.codegen.python import load_python
    from dgraph.codegen.tensor.sweeps import sweep_module

    rng = np.random.default_rng(0)
    scale = 1 / (3 * channels**0.5)
    args = (rng.normal(size=(1, channels, side, side)),)
    args += tuple(rng.normal(size=(channels, channels, 3, 3)) * scale for _ in range(depth))

    def f(x, *kernels):
        for w in kernels:
            x = jnp.tanh(jax.lax.conv_general_dilated(x, w, (1, 1), "SAME"))
        return x

    tangents = tuple(rng.normal(size=a.shape) for a in args)
    bar = rng.normal(size=(1, channels, side, side))
    want_jvp = np.asarray(jax.jvp(f, args, tangents)[1])
    want_vjp = [np.asarray(b) for b in jax.vjp(f, *args)[1](bar)]
    base = _rss_mb()
    start = time.perf_counter()
    g = from_jax(f, *args, level="array")
    blocks = [g.block(a, b) for a, b in g.edges()]
    row = {
        "kind": "layer" if depth == 1 else f"{depth} layers",
        "size": side,
        "graph_s": round(time.perf_counter() - start, 2),
        "block_entries": int(sum(b.nnz for b in blocks)),
        "held": int(sum(getattr(b, "held", b.stored) for b in blocks)),
    }
    for lang in ("python", "jax"):
        for mode in ("jvp", "vjp"):
            start = time.perf_counter()
            sweep = sweep_module(g, mode, lang)
            built = time.perf_counter() - start
            module = load_python(sweep.text)
            constants = sum(a.size for k, a in vars(module).items() if k.startswith("_K"))

            def call(module=module, mode=mode):
                return module.jvp(*args, *tangents) if mode == "jvp" else module.vjp(*args, bar)

            got = jax.block_until_ready(call())
            start = time.perf_counter()
            got = jax.block_until_ready(call())
            ran = time.perf_counter() - start
            pairs = [(got, want_jvp)] if mode == "jvp" else list(zip(got, want_vjp, strict=True))
            error = max(float(np.abs(np.asarray(a) - b).max() / np.abs(b).max()) for a, b in pairs)
            row[f"{lang}_{mode}"] = {
                "build_s": round(built, 2),
                "text_kb": round(len(sweep.text) / 1024, 1),
                "constants": int(constants),
                "mults": sweep.mults,
                "call_s": round(ran, 3),
                "rel_error": float(f"{error:.1e}"),
            }
    row["peak_mb"] = round(_rss_mb() - base, 1)
    for mode in ("jvp", "vjp"):  # the checked path: accumulated, verified, code checked
        start = time.perf_counter()
        made = make_function(g, mode, lang="python")
        row[f"checked_{mode}_s"] = round(time.perf_counter() - start, 2)
        row[f"checked_{mode}_verified"] = bool(made.generated.verified)
    row["peak_mb_checked"] = round(_rss_mb() - base, 1)
    jvp = jax.jit(lambda args, tangents: jax.jvp(f, args, tangents)[1])
    vjp = jax.jit(lambda args, bar: jax.vjp(f, *args)[1](bar))
    for name, call in (("jvp", lambda: jvp(args, tangents)), ("vjp", lambda: vjp(args, bar))):
        jax.block_until_ready(call())
        start = time.perf_counter()
        jax.block_until_ready(call())
        row[f"jax_jit_{name}_call_s"] = round(time.perf_counter() - start, 3)
    return row


def _exponent(rows: list[dict], key: str) -> float | None:
    a, b = rows[-2], rows[-1]
    if a[key] <= 0 or b[key] <= 0:
        return None
    return math.log(b[key] / a[key]) / math.log(b["block_entries"] / a["block_entries"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs=2, metavar=("KIND", "SIZE"))
    parser.add_argument(
        "--kind", choices=("conv", "scatter", "sort", "layer"), help="one family only"
    )
    args = parser.parse_args()
    if args.only:
        kind, size = args.only[0], int(args.only[1])
        if kind in ("layer", "layers"):
            print(json.dumps(layer(size, depth=1 if kind == "layer" else 2)))
        else:
            print(json.dumps(measure(kind, size)))
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
    for kind in ("layer", "layers") if args.kind in (None, "layer") else ():
        cmd = [sys.executable, __file__, "--only", kind, str(LAYER_SIDE)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        print(done.stdout.strip().splitlines()[-1] if done.returncode == 0 else done.stderr[-300:])


if __name__ == "__main__":
    main()
