"""Sparse Jacobians of JAX functions read at the element and at the array level: which
level the default path should read at a given size.

    python benchmarks/jacobian_levels.py [NAME ...] [--n 200 2000 20000] [--jobs 2] [--cpu 300]

Each function takes one vector of n entries (the MLP layer one of 200 whatever n) and is
the kind users write: a branch by ``where``, a 5-tap convolution, softmax, logsumexp and
norms over rows of ``x.reshape(-1, 10)``, a running maximum, pad and roll, a matvec, cumsum
and cumprod, a sum of squares, ``x * sin(x)``, a 2-D Laplacian stencil and an MLP layer.

For each level the graph is built explicitly (``dgraph.from_jax(f, x0, level=...)``) and
``dgraph.make_function(graph, "jacobian", sparse=True)`` made from it; the CPU seconds of
both together (``time.process_time``, each measurement in its own subprocess) and the
median of 5 calls of the result are printed, with the scalar edges of the element level
(``dgraph.core.expand.scalar_edges`` of the array graph: what the limit counts), and the
Jacobian's nonzeros. The element level is measured up to n = 2000 (above ``EDGE_LIMIT``
it is refused, ``refused``); ``default`` is ``dgraph.make_function(f, "jacobian",
point=[x0], sparse=True)``, no level named, and the level it read. At n <= 200 the
result of every level is compared with ``jax.jacfwd`` (max |J - J_ref| / max |J_ref|).
"""

from __future__ import annotations

import argparse
import json
import resource
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

MLP = 200  # the MLP layer's size, whatever n
# Jacobians with n(n+1)/2 stored entries (a running sum, product, maximum: at the array
# level cummax's block is the whole triangle too), run up to --triangle-max only: at
# 20000 one holds 2·10⁸ entries (cummax's build passed 12 GB)
TRIANGLES = ("cummax", "cumsum", "cumprod")


def functions(n: int, jnp, jax) -> dict:
    """The functions, each of one vector (of ``n`` entries, the MLP's of ``MLP``)."""
    rng = np.random.default_rng(2)
    k = np.array([0.1, -0.4, 1.0, 0.3, -0.2])
    w = rng.standard_normal((MLP, MLP)) / np.sqrt(MLP)
    b = rng.standard_normal(MLP)

    def stencil(x):
        u = x.reshape(-1, 50)
        c = u[1:-1, 1:-1]
        return (4 * c - u[:-2, 1:-1] - u[2:, 1:-1] - u[1:-1, :-2] - u[1:-1, 2:]) * c

    return {
        "where": lambda x: jnp.where(x > 0, x**2, jnp.sin(x)),
        "conv": lambda x: jnp.convolve(x, jnp.asarray(k), mode="same"),
        "softmax": lambda x: jax.nn.softmax(x.reshape(-1, 10), axis=1),
        "logsumexp": lambda x: jax.nn.logsumexp(x.reshape(-1, 10), axis=1),
        "norms": lambda x: jnp.linalg.norm(x.reshape(-1, 10), axis=1),
        "cummax": lambda x: jax.lax.cummax(x),
        "pad_roll": lambda x: jnp.roll(jnp.pad(x, 2), 1)[2:-2] * x,
        "matvec": lambda x: jnp.tanh(x.reshape(-1, 10) @ jnp.arange(10.0)),
        "cumsum": lambda x: jnp.cumsum(x),
        "cumprod": lambda x: jnp.cumprod(1 + 0.01 * x),
        "sum_sq": lambda x: jnp.sum(x**2),
        "x_sin": lambda x: x * jnp.sin(x),
        "stencil": stencil,
        "mlp": lambda x: jnp.tanh(jnp.asarray(w) @ x + jnp.asarray(b)),
    }


def run_one(n: int, name: str, level: str) -> dict:
    """One build (``level`` element, array or default) and its calls, in this process."""
    import jax
    import jax.numpy as jnp

    import dgraph
    from dgraph.core.expand import scalar_edges
    from dgraph.errors import InputError

    jax.config.update("jax_enable_x64", True)
    f = functions(n, jnp, jax)[name]
    size = MLP if name == "mlp" else n
    x = np.random.default_rng(1).uniform(-0.8, 0.8, size)
    out = {"name": name, "n": size, "level": level}
    t0 = time.process_time()
    try:
        if level == "default":
            J = dgraph.make_function(f, "jacobian", point=[x], sparse=True)
            tensor = type(J.generated).__name__ == "TensorGenerated"
            out["read"] = "array" if tensor else "element"
        else:
            graph = dgraph.from_jax(f, x, level=level)
            J = dgraph.make_function(graph, "jacobian", sparse=True)
    except InputError as exc:
        out["refused"] = str(exc)[:120]
        array = dgraph.from_jax(f, x, level="array")
        out["scalar_edges"] = scalar_edges(array)
        return out
    out["build_s"] = time.process_time() - t0
    if level == "element":
        out["scalar_edges"] = graph.n_edges
    else:
        out["scalar_edges"] = scalar_edges(dgraph.from_jax(f, x, level="array"))
    calls = []
    for _ in range(5):
        t0 = time.perf_counter()
        got = J(x)
        calls.append(time.perf_counter() - t0)
    out["call_s"] = float(np.median(calls))
    dense = got.toarray() if hasattr(got, "toarray") else np.asarray(got)
    out["nnz"] = int(got.nnz) if hasattr(got, "nnz") else int(np.count_nonzero(dense))
    if size <= 200:
        ref = np.asarray(jax.jacfwd(f)(jnp.asarray(x))).reshape(dense.shape)
        out["rel_error"] = float(np.abs(dense - ref).max()) / max(float(np.abs(ref).max()), 1e-300)
    return out


def measure(n: int, name: str, level: str, cpu: float) -> dict:
    """``run_one`` in a subprocess stopped after ``cpu`` CPU seconds (RLIMIT_CPU: the
    same limit whatever the machine's load)."""
    command = [sys.executable, __file__, "--one", str(n), name, level]

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu), int(cpu) + 5))

    done = subprocess.run(command, capture_output=True, text=True, preexec_fn=limited, check=False)
    lines = done.stdout.strip().splitlines()
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return {"name": name, "n": n, "level": level, "refused": f"over {cpu:.0f} CPU-s"}
    if done.returncode or not lines:
        why = (done.stderr.strip().splitlines() or ["failed"])[-1][:100]
        return {"name": name, "n": n, "level": level, "refused": why}
    return json.loads(lines[-1])


def row(r: dict) -> str:
    level = r["level"] + (f" ({r['read']})" if "read" in r else "")
    if "refused" in r:
        edges = f"{r['scalar_edges']:,}" if "scalar_edges" in r else ""
        return f"| {r['name']} | {r['n']} | {level} | {r['refused']} | | {edges} | | |"
    error = f"{r['rel_error']:.1e}" if "rel_error" in r else ""
    return (
        f"| {r['name']} | {r['n']} | {level} | {r['build_s']:.2f} | {r['call_s'] * 1e3:.3f}"
        f" | {r['scalar_edges']:,} | {r['nnz']:,} | {error} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--n", nargs="+", type=int, default=[200, 2000, 20000])
    parser.add_argument("--levels", nargs="+", default=["element", "array", "default"])
    parser.add_argument("--element-max", type=int, default=2000, help="largest n for element")
    parser.add_argument("--triangle-max", type=int, default=2000, help="largest n for those")
    parser.add_argument("--jobs", type=int, default=1, help="subprocesses at once")
    parser.add_argument("--cpu", type=float, default=300, help="CPU-s limit per build")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)  # n name level: a worker
    opts = parser.parse_args()
    if opts.one:
        print(json.dumps(run_one(int(opts.one[0]), opts.one[1], opts.one[2])))
        return
    names = opts.names or list(functions(MLP, None, None).keys())
    runs = [
        (n, name, level)
        for n in opts.n
        for name in names
        for level in opts.levels
        if not (level == "element" and n > opts.element_max)
        if not (name in TRIANGLES and n > opts.triangle_max)
        if not (name == "mlp" and n != opts.n[0])  # one size whatever n
    ]
    print(
        "| function | n | level (read) | make_function CPU-s | call ms | scalar edges | nnz"
        " | rel. error vs jacfwd |"
    )
    print("|---|---|---|---|---|---|---|---|")
    with ThreadPoolExecutor(opts.jobs) as pool:
        for r in pool.map(lambda a: measure(*a, opts.cpu), runs):
            print(row(r), flush=True)


if __name__ == "__main__":
    main()
