"""CPU seconds of the point check (dgraph/frontends/point_values.py) against the read it
follows: a 2-D nonlinear diffusion residual in NumPy on m×m grids, read at the array
level at a point.

    python benchmarks/point_values_scale.py [M ...]   (default 100 316 1000)
"""

from __future__ import annotations

import resource
import sys
import time

import numpy as np

from dgraph.frontends import from_python
from dgraph.frontends.point_values import check_point_values


def residual(u):
    m = round(np.sqrt(u.size))
    U = u.reshape(m, m)
    P = np.pad(U, 1)
    lap = P[:-2, 1:-1] + P[2:, 1:-1] + P[1:-1, :-2] + P[1:-1, 2:] - 4 * U
    return (lap * (1 + U**2) + np.exp(U) * 0.1 - np.sin(U)).reshape(-1)


def main(sizes: list[int]) -> None:
    print("unknowns  read with the check (CPU-s)  the check alone  peak RSS (GB)")
    for m in sizes:
        x = np.random.default_rng(0).uniform(0.1, 0.9, m * m)
        start = time.process_time()
        graph = from_python(residual, point=[x], level="array")
        read = time.process_time() - start
        start = time.process_time()
        check_point_values(graph, residual, [x], "residual")
        alone = time.process_time() - start
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        print(f"{m * m:>9,}  {read:>28.3f}  {alone:>15.3f}  {rss:>13.2f}")


if __name__ == "__main__":
    args = sys.argv[1:]
    if any(not a.isdigit() for a in args):
        sys.exit(f"usage: {__doc__.strip().splitlines()[-1].strip()}")
    main([int(a) for a in args] or [100, 316, 1000])
