"""Per call of generated NumPy Hessian modules, interleaved in one process (A/B of two
checkouts' printed forms), with asdex's ``jax.jit``-ed sparse Hessian as in
``benchmarks/hessian.py``.

    PYTHONPATH=CHECKOUT python benchmarks/hessian_ab.py write minsurf 10000 out.py
    python benchmarks/hessian_ab.py time minsurf 10000 200 3 main.py branch.py [--noasdex]

``write`` builds ``make_function(f, "hessian", "python", sparse=True)`` with the dgraph
importable from ``PYTHONPATH`` and saves its module text; ``time`` loads each text, checks
that they agree (same pattern, values to 1e-14), then per round times REPS calls of each
in turn (3 warm-up calls first): wall (``perf_counter``, waited for) and CPU
(``process_time``) median and least, per round and over all rounds. A 32 MB array is
allocated and freed first, as a build does before a module's first call, so that glibc's
heap keeps freed memory (no page faults per call; see RESULTS.md).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _problem(name: str, target: int):
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from hessian_functions import PROBLEMS, point, shape, size_for, weights

    side = size_for(name, target)
    f, s = PROBLEMS[name], shape(name, side)
    x, w = point(name, side).ravel(), weights(name, side)

    def g(u):
        return f(jnp.reshape(u, s))

    if w is None:

        def flat(u):
            return g(u)

    else:

        def flat(u, v):
            return jnp.dot(v, g(u))

    return g, flat, x, w


def write(name: str, target: int, out: str) -> None:
    import dgraph

    g, _, x, w = _problem(name, target)
    t0 = time.process_time()
    H = dgraph.make_function(g, "hessian", "python", point=[x], weights=w, sparse=True)
    print(f"build {time.process_time() - t0:.2f} CPU-s", file=sys.stderr)
    Path(out).write_text(H.generated.text)


def _timed(fn, reps: int) -> tuple[list[float], list[float]]:
    import jax

    for _ in range(3):
        jax.block_until_ready(fn())
    walls, cpus = [], []
    for _ in range(reps):
        c0, t0 = time.process_time(), time.perf_counter()
        jax.block_until_ready(fn())
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return walls, cpus


def _line(label: str, walls: list[float], cpus: list[float]) -> str:
    def us(t: list[float]) -> str:
        return f"median {statistics.median(t) * 1e6:9.1f} least {min(t) * 1e6:9.1f}"

    return f"{label:28s} wall {us(walls)}  cpu {us(cpus)} us"


def run(name: str, target: int, reps: int, rounds: int, modules: list[str], asdex: bool) -> None:
    np.ones(4_000_000)  # 32 MB allocated and freed: glibc's thresholds as after a build
    import jax
    import jax.numpy as jnp

    _, flat, x, w = _problem(name, target)
    args = (x,) if w is None else (x, w)
    fns = {}
    for path in modules:
        names: dict = {}
        exec(compile(Path(path).read_text(), path, "exec"), names)  # the generated module
        fns[Path(path).name] = (lambda f: lambda: f(*args))(names["jacobian"])
    first = [f() for f in fns.values()]
    for other in first[1:]:
        assert np.array_equal(first[0].indices, other.indices)
        scale = np.abs(first[0].data).max()
        assert np.abs(first[0].data - other.data).max() <= 1e-14 * scale
    if asdex:
        import asdex as ad

        jargs = tuple(jnp.asarray(a) for a in args)
        hess = jax.jit(ad.hessian(flat, *jargs))
        fns["asdex"] = lambda: hess(*jargs)
    total: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in fns}
    for r in range(rounds):
        for label, fn in fns.items():
            walls, cpus = _timed(fn, reps)
            total[label][0].extend(walls)
            total[label][1].extend(cpus)
            print(f"round {r} " + _line(label, walls, cpus), flush=True)
    for label, (walls, cpus) in total.items():
        print("all     " + _line(label, walls, cpus))
    print("load", Path("/proc/loadavg").read_text().strip())


def main(argv: list[str]) -> None:
    if argv[:1] == ["write"]:
        write(argv[1], int(argv[2]), argv[3])
    elif argv[:1] == ["time"]:
        modules = [a for a in argv[5:] if not a.startswith("--")]
        run(argv[1], int(argv[2]), int(argv[3]), int(argv[4]), modules, "--noasdex" not in argv)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
