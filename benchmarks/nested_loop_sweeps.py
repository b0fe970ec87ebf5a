"""Session 61 (loops61): a loop in a loop's body is swept at every outer step; the CPU-s
of one tangent sweep of the outer loop (the value check's, magnitudes and values at
once: ``tangent_sweep(region, operands, None, True)``), for outer × inner steps:

    PYTHONPATH=$TREE python benchmarks/nested_loop_sweeps.py 10x10,30x30,100x30 3

The function: two ``fori_loop``s, the inner one a recurrence over a carried vector of
three (``d ← 0.5·d + sin(x[j]·d)·x[i]``, no sum: a region whatever ``MAP_LIMIT``), the
outer one adding it to its own carry. Each size is built once (``from_jax``), then its
outer loop swept ``runs`` times, each sweep from fresh regions (the runs they keep and,
where the tree has it, their sweeps' shared setup cleared); prints per size the median
CPU-s (``time.process_time``), the sweeps it made (outer and inner) and the trajectories
it stepped through (session 62, sweep62: an inner loop's run at each outer step kept and
swept, not stepped again), a digest of its blocks (the same on every tree), then the
growth exponents against outer × inner.
"""

from __future__ import annotations

import hashlib
import math
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)

import dgraph  # noqa: E402
from dgraph.blocks.arrays import operand_value  # noqa: E402
from dgraph.core import region_sweep, regions  # noqa: E402
from dgraph.core.block_values import vertex_values  # noqa: E402


def nested(outer: int, inner: int):
    """The program of ``outer`` × ``inner`` steps."""

    def f(x):
        def step(i, c):
            def inner_step(j, d):
                return 0.5 * d + jnp.sin(x[j % 4] * d) * x[i % 4]

            return c + 0.1 * lax.fori_loop(0, inner, inner_step, c)

        return jnp.sum(lax.fori_loop(0, outer, step, x[:3]))

    return f


def swept(outer: int, inner: int, runs: int) -> tuple[float, list[int], str]:
    """The median CPU-s of the outer loop's sweep, the sweeps one makes and the
    trajectories it steps through, a digest."""
    x = np.array([0.3, -0.2, 0.5, 0.1])
    g = dgraph.from_jax(nested(outer, inner), x, level="array")
    values = vertex_values(g, {g.inputs[0]: x}, {})
    found = regions.regions_of(g)
    v, r = max(found, key=lambda vr: vr[1].length or 0)  # the outer loop
    args = [np.asarray(operand_value(u, values)) for u in g.op(v).operands]
    count = [0, 0]
    plain, steps = region_sweep.tangent_sweep, region_sweep._Steps

    def counted(*a, **k):
        count[0] += 1
        return plain(*a, **k)

    class Stepped(steps):  # a trajectory stepped through (kept runs: once per outer step)
        def __init__(self, *a, **k):
            count[1] += 1
            super().__init__(*a, **k)

    times, digest = [], ""
    for _ in range(runs):
        for each in [r, *_inner(r)]:  # as a fresh value check finds them
            each._runs.clear()
            if hasattr(each, "_sweep_parts"):
                each._sweep_parts = None
        count[:] = [0, 0]
        regions.tangent_sweep, region_sweep._Steps = counted, Stepped
        start = time.process_time()
        run = counted(r, args, None, True)
        times.append(time.process_time() - start)
        regions.tangent_sweep, region_sweep._Steps = plain, steps
        h = hashlib.sha1()
        for key in sorted(run["jacobian"]):
            for m in (run["jacobian"][key], run["magnitudes"][key]):
                h.update(np.ascontiguousarray(_dense(m)).tobytes())
        digest = h.hexdigest()[:12]
    return float(np.median(times)), count, digest


def _inner(r) -> list:
    """The loops in ``r``'s body."""
    return [inner for _, inner in regions.regions_of(r.body.graph)]


def _dense(m) -> np.ndarray:
    return m.toarray() if hasattr(m, "toarray") else np.asarray(m)


def main() -> None:
    sizes = [tuple(int(n) for n in s.split("x")) for s in sys.argv[1].split(",")]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    found = []
    for outer, inner in sizes:
        cpu, (sweeps, stepped), digest = swept(outer, inner, runs)
        found.append(cpu)
        print(
            f"{outer}x{inner} median {cpu:.3f} CPU-s, {sweeps} sweeps, {stepped} trajectories"
            f" stepped, blocks {digest}"
        )
    slopes = [
        math.log(found[k + 1] / found[k])
        / math.log(sizes[k + 1][0] * sizes[k + 1][1] / (sizes[k][0] * sizes[k][1]))
        for k in range(len(sizes) - 1)
    ]
    print("exponents (outer × inner)", " ".join(f"{s:.2f}" for s in slopes))


if __name__ == "__main__":
    main()
