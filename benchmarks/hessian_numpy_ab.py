"""Generated NumPy Hessian modules timed against each other and asdex in one process,
calls interleaved by round (issue 55's per-call A/B of NumPy modules: one module's text
against another's; ``hessian_module_ab.py`` is JAX's).

    python benchmarks/hessian_numpy_ab.py PROBLEM SIZE REPS ROUNDS SPEC [SPEC ...]

SPEC: ``asdex`` (``jax.jit(asdex.hessian(f, x))``, its BCOO's values waited for) or the
path of a NumPy module's text (``benchmarks/hessian_phases.py PROBLEM SIZE --write
FILE``), optionally ``PATH:function`` (default ``jacobian``; ``jacobian_tril``: the
lower triangle). Before timing, each module's result is compared with the first
module's of the same function: pattern and values bit for bit. Each round calls every
candidate REPS times in turn; printed per candidate: the median and least wall time of
a call, the median CPU time (``time.process_time``: every thread's) and, against asdex,
the ratios of the wall medians and least times.
"""

from __future__ import annotations

import sys
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def main(argv: list[str]) -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import numpy as np
    from hessian import _flat
    from hessian_functions import size_for

    name, n, reps, rounds = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    _, flat, x, w, _ = _flat(name, size_for(name, n))
    args = (np.asarray(x),) if w is None else (np.asarray(x), np.asarray(w))
    calls = {}
    for spec in argv[4:]:
        if spec == "asdex":
            import asdex

            jargs = tuple(jnp.asarray(a) for a in args)
            f = jax.jit(asdex.hessian(flat, *jargs))
            calls[spec] = lambda f=f, a=jargs: f(*a).data.block_until_ready()
            continue
        path, _, function = spec.partition(":")
        module = types.ModuleType("generated")
        exec(compile(Path(path).read_text(), path, "exec"), module.__dict__)
        fn = getattr(module, function or "jacobian")
        calls[spec] = lambda fn=fn: fn(*args)
    first: dict[str, object] = {}
    for spec, call in calls.items():
        got = call()
        if spec == "asdex":
            continue
        function = spec.partition(":")[2] or "jacobian"
        if function not in first:
            first[function] = got
            continue
        a = first[function]
        same = (
            np.array_equal(a.indices, got.indices)
            and np.array_equal(a.indptr, got.indptr)
            and np.array_equal(a.data, got.data)
        )
        print(f"{spec}: the same as the first {function}, bit for bit: {same}", flush=True)
    wall = {s: [] for s in calls}
    cpu = {s: [] for s in calls}
    for _ in range(rounds):
        for spec, call in calls.items():
            for _ in range(reps):
                t0, c0 = time.perf_counter(), time.process_time()
                call()
                wall[spec].append(time.perf_counter() - t0)
                cpu[spec].append(time.process_time() - c0)
    for spec in calls:
        median, least = np.median(wall[spec]) * 1e3, min(wall[spec]) * 1e3
        line = f"{spec:45s} wall median {median:7.2f} least {least:7.2f} ms"
        line += f"  CPU median {np.median(cpu[spec]) * 1e3:7.2f} ms"
        if "asdex" in calls and spec != "asdex":
            base, low = np.median(wall["asdex"]) * 1e3, min(wall["asdex"]) * 1e3
            line += f"  ÷ asdex: median {median / base:.2f} least {least / low:.2f}"
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
