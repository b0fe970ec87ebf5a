"""Loops as regions (issue 54, item 1): a time integrator as ``lax.scan``.

A 1-D reaction-diffusion step on a ring of N cells, ``u + dt·(D·Δu + a·u - b·u³)``, run
for T steps by ``lax.scan``; read by ``dgraph.from_jax(..., level="array")`` the loop is
one region vertex whose body is a graph of its own. For each T this prints the graph's
vertices and edges (the same for every T), the build time, the region's block structure
(the pattern of the chain product of T body Jacobians), the seconds of dgraph's Jacobian
(a tangent sweep through the T steps over the body's blocks) and of ``jax.jacfwd`` (jit),
and their largest difference relative to the largest entry (in all, and per input).

    python benchmarks/scan_regions.py                 # N = 1000, T = 10 and 10000
    python benchmarks/scan_regions.py --cells 200 --steps 10 500

``--calls`` instead times one call each (after a first, compiling one) of dgraph's
generated ``jvp`` and ``vjp`` (matrix-free sweeps through the loop, NumPy and jitted JAX)
against ``jax.jvp`` and ``jax.vjp``, and dgraph's Jacobian (the graph's own tangent sweep;
the generated ``jacobian`` module at 10 steps) against ``jax.jacfwd`` and ``jax.jacrev``
(jitted), each compared with JAX's values. ``--memory`` runs each ``vjp`` variant in a
subprocess of its own and reports its seconds (a first call, a second and, compiled, the
median of ``MEDIAN_OF`` calls after the first) and peak resident memory (``ru_maxrss``, and
its growth past the setup): dgraph's vjp keeping every state, under ``--tape`` (100)
states (binomial checkpointing), the same bound by equidistant checkpointing (K
checkpoints and a segment of ⌈T/K⌉ states), binomial under 2K states (the equidistant
one's memory), ``jax.vjp``, and ``jax.vjp`` of the scan split into ``--tape`` segments
of ``jax.checkpoint``-ed inner scans (a state kept per segment, each segment's
recomputed). ``--variants`` picks some (by their index in ``VARIANTS``).

    python benchmarks/scan_regions.py --calls --steps 10 10000
    python benchmarks/scan_regions.py --memory --steps 10000 --tape 100
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import tracemalloc

import jax
import jax.numpy as jnp
import numpy as np

from dgraph.core.block_values import dense_jacobian
from dgraph.core.regions import regions_of
from dgraph.frontends import from_jax
from dgraph.methods import accumulate

jax.config.update("jax_enable_x64", True)


def reaction_diffusion(steps: int, dt: float = 0.1):
    def f(u, d, a, b):
        def step(u, _):
            lap = jnp.roll(u, 1) + jnp.roll(u, -1) - 2.0 * u
            return u + dt * (d * lap + a * u - b * u**3), None

        return jax.lax.scan(step, u, None, length=steps)[0]

    return f


def run(cells: int, steps: int) -> dict:
    rng = np.random.default_rng(0)
    u = rng.uniform(0.2, 0.8, cells)
    params = (np.array(0.2), np.array(0.3), np.array(0.5))
    f = reaction_diffusion(steps)
    start = time.perf_counter()
    g = from_jax(f, u, *params, level="array")
    build = time.perf_counter() - start
    ((_, region),) = regions_of(g)
    blocks = {f"{x}->{y}": (type(g.block(x, y)).__name__, g.block(x, y).nnz) for x, y in g.edges()}
    start = time.perf_counter()
    es = accumulate(g, "forward", verify=False)
    J = dense_jacobian(es, np.concatenate([u, [float(p) for p in params]]))
    ours = time.perf_counter() - start
    jac = jax.jit(jax.jacfwd(f, argnums=(0, 1, 2, 3)))
    start = time.perf_counter()
    parts = jax.block_until_ready(jac(u, *params))
    theirs = time.perf_counter() - start
    ref = np.hstack([np.asarray(p).reshape(cells, -1) for p in parts])
    scale = max(1.0, float(np.abs(ref).max()))
    columns = {"u": slice(0, cells), "d": cells, "a": cells + 1, "b": cells + 2}
    by_input = {
        x: float(np.abs(J[:, c] - ref[:, c]).max() / max(np.abs(ref[:, c]).max(), 1e-300))
        for x, c in columns.items()
    }
    exact = _long_double_columns(u, [float(p) for p in params], steps)
    against_long = {
        x: (
            float(np.abs(J[:, cells + i] - exact[:, i]).max()),
            float(np.abs(ref[:, cells + i] - exact[:, i]).max()),
        )
        for i, x in enumerate("dab")
    }
    return {
        "cells": cells,
        "steps": steps,
        "vertices": len(g),
        "edges": g.n_edges,
        "body vertices": len(region.body.graph),
        "build s": round(build, 3),
        "blocks": blocks,
        "dgraph jacobian s": round(ours, 2),
        "jax.jacfwd s (jit, with compile)": round(theirs, 2),
        "largest difference / largest entry": float(np.abs(J - ref).max() / scale),
        "per input, difference / its largest entry": by_input,
        "largest entry per input": {x: float(np.abs(ref[:, c]).max()) for x, c in columns.items()},
        "parameter columns, |dgraph - long double|, |jax - long double|": against_long,
    }


def _long_double_columns(u0, params, steps: int, dt: float = 0.1) -> np.ndarray:
    """∂u_T/∂(d, a, b) by a tangent sweep in NumPy's long double: a reference for the
    parameter columns, which are small and rounding-dominated once the state settles."""
    L = np.longdouble
    d, a, b = (L(p) for p in params)
    u = np.asarray(u0, dtype=L)
    tangents = np.zeros((3, u.size), dtype=L)
    h = L(dt)
    for _ in range(steps):
        lap = np.roll(u, 1) + np.roll(u, -1) - 2 * u
        dlap = np.roll(tangents, 1, axis=1) + np.roll(tangents, -1, axis=1) - 2 * tangents
        local = d * dlap + (a - 3 * b * u**2) * tangents
        tangents = tangents + h * (local + np.stack([lap, u, -(u**3)]))
        u = u + h * (d * lap + a * u - b * u**3)
    return tangents.T.astype(float)


def _point(cells: int):
    rng = np.random.default_rng(0)
    u = rng.uniform(0.2, 0.8, cells)
    return u, (np.array(0.2), np.array(0.3), np.array(0.5))


def _timed(call, *args, repeat: int = 3) -> tuple[float, float, object]:
    """Seconds of a first call (a jitted function's compile included) and the least of
    ``repeat`` more (the machine is shared: the least is the least disturbed)."""
    start = time.perf_counter()
    jax.block_until_ready(call(*args))
    first = time.perf_counter() - start
    best = float("inf")
    for _ in range(1 if first > 2 else repeat):  # a slow call: once more
        start = time.perf_counter()
        out = jax.block_until_ready(call(*args))
        best = min(best, time.perf_counter() - start)
    return first, best, out


def _difference(got, want) -> float:
    got = np.concatenate([np.ravel(np.asarray(a)) for a in jax.tree_util.tree_leaves(got)])
    want = np.concatenate([np.ravel(np.asarray(a)) for a in jax.tree_util.tree_leaves(want)])
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-300))


def calls(cells: int, steps: int, modules_only: bool = False, langs=("jax", "python")) -> dict:
    """Per call: dgraph's generated jvp and vjp (NumPy, JAX jitted) against jax.jvp and
    jax.vjp (jitted), dgraph's Jacobian against jax.jacfwd and jax.jacrev (jitted)."""
    from dgraph.codegen.function import make_function
    from dgraph.codegen.python import load_python
    from dgraph.codegen.tensor.sweeps import sweep_module

    u, params = _point(cells)
    args = (u, *params)
    f = reaction_diffusion(steps)
    g = from_jax(f, *args, level="array")
    rng = np.random.default_rng(1)
    v = (rng.normal(size=cells), *(np.array(rng.normal()) for _ in params))
    w = rng.normal(size=cells)
    out: dict = {"cells": cells, "steps": steps}
    ref_jvp = jax.jit(lambda *a: jax.jvp(f, a[:4], a[4:])[1])
    ref_vjp = jax.jit(lambda *a: jax.vjp(f, *a[:4])[1](a[4]))
    times = {}
    if modules_only:
        return _modules(g, f, args, cells, steps, out, langs)
    times["jax.jvp"] = _timed(ref_jvp, *args, *v)
    times["jax.vjp"] = _timed(ref_vjp, *args, w)
    for mode, given, ref in (("jvp", v, "jax.jvp"), ("vjp", (w,), "jax.vjp")):
        for lang in ("python", "jax"):
            text = sweep_module(g, mode, lang).text
            function = getattr(load_python(text), mode)
            if lang == "jax":
                function = jax.jit(function)
            name = f"dgraph {mode} ({'NumPy' if lang == 'python' else 'JAX, jit'})"
            times[name] = _timed(function, *args, *given)
            out[f"{name} difference"] = _difference(times[name][2], times[ref][2])
    jac = {
        "jax.jacfwd": jax.jit(jax.jacfwd(f, argnums=(0, 1, 2, 3))),
        "jax.jacrev": jax.jit(jax.jacrev(f, argnums=(0, 1, 2, 3))),
    }
    for name, function in jac.items():
        times[name] = _timed(function, *args)
    want = times["jax.jacfwd"][2]
    start = time.perf_counter()
    es = accumulate(g, "forward", verify=False)
    J = dense_jacobian(es, np.concatenate([u, [float(p) for p in params]]))
    times["dgraph jacobian (graph's tangent sweep)"] = (None, time.perf_counter() - start, J)
    ref = np.hstack([np.asarray(p).reshape(cells, -1) for p in want])
    out["dgraph jacobian difference"] = float(np.abs(J - ref).max() / np.abs(ref).max())
    if steps <= 100:  # the generated module multiplies dense body Jacobians: small T only
        for lang in ("python", "jax"):
            J = make_function(g, "jacobian", lang=lang, method="forward")
            call = jax.jit(J._function) if lang == "jax" else J
            times[f"dgraph jacobian module ({lang})"] = _timed(call, *args)
    for name, (first, second, _) in times.items():
        out[name] = {"first s": None if first is None else _g(first), "s": _g(second)}
    base = {"jvp": "jax.jvp", "vjp": "jax.vjp"}
    for name, entry in times.items():
        if name.startswith(("dgraph jvp", "dgraph vjp")):
            key = base["jvp" if " jvp" in name else "vjp"]
            out[name]["/ " + key] = round(entry[1] / times[key][1], 2)
        elif name.startswith("dgraph jacobian"):
            for key in jac:
                out[name]["/ " + key] = round(entry[1] / times[key][1], 2)
    return out


def _modules(g, f, args, cells: int, steps: int, out: dict, langs=("jax", "python")) -> dict:
    """The generated ``jacobian`` modules (JAX jitted, and NumPy; the loop's sweep as the
    chain DP chose) against jax.jacfwd and jax.jacrev (jitted), in one run: one call each
    after a first, or the least of three where a call takes under 2 s."""
    from dgraph.codegen.python import load_python
    from dgraph.codegen.tensor.module import tensor_program

    es = accumulate(g, "forward", verify=False)
    text = tensor_program(es, "jax").text
    doc = text[text.index('"""J') :]
    out["docstring"] = doc[: doc.index("\n")]
    times = {}
    if "jax" in langs:
        times["dgraph jacobian module (jax)"] = _timed(jax.jit(load_python(text).jacobian), *args)
    if "python" in langs:
        module = load_python(tensor_program(es, "python").text)
        times["dgraph jacobian module (numpy)"] = _timed(module.jacobian, *args)
    times |= {
        "jax.jacfwd": _timed(jax.jit(jax.jacfwd(f, argnums=(0, 1, 2, 3))), *args),
        "jax.jacrev": _timed(jax.jit(jax.jacrev(f, argnums=(0, 1, 2, 3))), *args),
    }
    for name, (first, best, _) in times.items():
        out[name] = {"first s": _g(first), "s": _g(best)}
        if name.startswith("dgraph"):
            for ref in ("jax.jacfwd", "jax.jacrev"):
                out[name]["/ " + ref] = round(best / times[ref][1], 2)
            out[name]["difference"] = _difference(times[name][2], times["jax.jacrev"][2])
    return out


VARIANTS = (
    "dgraph vjp",
    "dgraph vjp tape",
    "dgraph vjp tape equidistant",
    "dgraph vjp tape 2K",
    "jax.vjp",
    "jax.vjp checkpointed segments",
)


#: Calls after the first whose median ``--memory`` reports (compiled variants; NumPy's: one).
MEDIAN_OF = 7


def memory(variant: str, cells: int, steps: int, tape: int, lang: str) -> dict:
    """One vjp variant, in this process: its seconds (first call, compile included, and a
    second) and peak resident memory."""
    from dgraph.codegen.python import load_python
    from dgraph.codegen.tensor import loop_sweeps
    from dgraph.codegen.tensor.sweeps import sweep_module

    u, params = _point(cells)
    args = (u, *params)
    f = reaction_diffusion(steps)
    w = np.random.default_rng(1).normal(size=cells)
    if variant.startswith("dgraph"):
        g = from_jax(f, *args, level="array")
        bound = None if variant == "dgraph vjp" else tape * (2 if variant.endswith("2K") else 1)
        if variant.endswith("equidistant"):
            loop_sweeps.CHECKPOINTS = "equidistant"
        text = sweep_module(g, "vjp", lang, bound).text
        call = load_python(text).vjp
    elif variant == "jax.vjp":
        call = _pullback(f)
    else:
        call = _pullback(segmented(steps, tape))
    temp = None
    if lang == "jax" or not variant.startswith("dgraph"):  # compiled first, apart
        call = jax.jit(call).lower(*args, w).compile()
        temp = call.memory_analysis().temp_size_in_bytes / 2**20
    else:
        tracemalloc.start()
    before = _rss_mb()
    first, second, got = _timed(call, *args, w, repeat=1)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if temp is None:
        temp = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    seconds = [second]
    for _ in range(MEDIAN_OF - 1 if lang == "jax" or not variant.startswith("dgraph") else 0):
        start = time.perf_counter()
        jax.block_until_ready(call(*args, w))
        seconds.append(time.perf_counter() - start)
    want = _pullback(f)(*args, w)
    return {
        "variant": variant + (f" ({lang})" if variant.startswith("dgraph") else ""),
        "steps": steps,
        "tape": tape,
        "first s": _g(first),
        "s": _g(second),
        f"median s of {len(seconds)}": _g(float(np.median(seconds))),
        "peak MB (maxrss)": round(peak, 1),
        "rss before the calls MB": round(before, 1),
        "working memory MB (XLA temp / NumPy traced peak)": round(temp, 2),
        "difference": _difference(got, want),
    }


def _pullback(f):
    return lambda *a: jax.vjp(f, *a[:4])[1](a[4])


def segmented(steps: int, segments: int, dt: float = 0.1):
    """The same integrator as ``segments`` scans of ⌈steps/segments⌉ steps, each under
    ``jax.checkpoint`` (the first steps - segments·⌊…⌋ run before them): jax.vjp keeps a
    state per segment and recomputes each segment's in its reverse."""
    s = -(-steps // segments)
    q, rem = steps // s, steps - (steps // s) * s

    def f(u, d, a, b):
        def step(u, _):
            lap = jnp.roll(u, 1) + jnp.roll(u, -1) - 2.0 * u
            return u + dt * (d * lap + a * u - b * u**3), None

        @jax.checkpoint
        def segment(u, _):
            return jax.lax.scan(step, u, None, length=s)[0], None

        if rem:
            u = jax.lax.scan(step, u, None, length=rem)[0]
        return jax.lax.scan(segment, u, None, length=q)[0]

    return f


def _g(seconds: float) -> float:
    return float(f"{seconds:.4g}")


def _rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        pages = int(handle.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=1000)
    parser.add_argument("--steps", type=int, nargs="+", default=[10, 10_000])
    parser.add_argument("--calls", action="store_true", help="per call, against JAX")
    parser.add_argument("--memory", action="store_true", help="vjp variants, subprocesses")
    parser.add_argument("--tape", type=int, default=100)
    parser.add_argument("--modules-only", action="store_true", help="with --calls")
    parser.add_argument("--module-langs", nargs="+", default=["jax", "python"])
    parser.add_argument("--variant", choices=VARIANTS, help=argparse.SUPPRESS)
    parser.add_argument("--lang", default="jax", choices=("python", "jax"))
    parser.add_argument("--variants", type=int, nargs="+", help="with --memory: which")
    args = parser.parse_args()
    if args.variant:
        print(json.dumps(memory(args.variant, args.cells, args.steps[0], args.tape, args.lang)))
        return
    if args.memory:
        for t in args.steps:
            runs = [(v, "jax") for v in VARIANTS]
            runs[4:4] = [("dgraph vjp", "python"), ("dgraph vjp tape", "python")]
            if args.variants:
                runs = [(v, lang) for v, lang in runs if VARIANTS.index(v) in args.variants]
            for variant, lang in runs:
                command = [sys.executable, __file__, "--variant", variant, "--lang", lang]
                command += ["--cells", str(args.cells), "--steps", str(t), "--tape", str(args.tape)]
                done = subprocess.run(command, capture_output=True, text=True)
                print(done.stdout.strip() or done.stderr.strip().splitlines()[-1], flush=True)
        return
    if args.calls:
        for t in args.steps:
            result = calls(args.cells, t, args.modules_only, args.module_langs)
            print(json.dumps(result), flush=True)
        return
    results = [run(args.cells, t) for t in args.steps]
    for r in results:
        print(r, flush=True)
    same = len({(r["vertices"], r["edges"]) for r in results}) == 1
    print(f"same vertices and edges for every T: {same}")


if __name__ == "__main__":
    main()
