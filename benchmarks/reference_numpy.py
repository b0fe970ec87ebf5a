"""CPU seconds of the value check's reference ``J·v`` of a problem's gradient
(benchmarks/hessian_functions.py), traced and run at two points, compiled
(``REFERENCE_NUMPY_MOST`` off) or run by NumPy (``REFERENCE_JIT_MOST`` 0: operation by
operation, which is NumPy alone for a program NumPy takes whole), one fresh process each.

    PYTHONPATH=. python benchmarks/reference_numpy.py PROBLEM TARGET {compiled,numpy,auto}
"""

from __future__ import annotations

import sys
import time

sys.path.insert(0, "benchmarks")

import jax
import numpy as np
from hessian_functions import PROBLEMS, point, size_for

from dgraph.frontends import jaxpr_arrays
from dgraph.frontends.jaxpr_arrays import JaxJvp, x64
from dgraph.frontends.jaxpr_numpy import numpy_program


def main(name: str, target: int, mode: str) -> None:
    if mode == "compiled":
        jaxpr_arrays.REFERENCE_NUMPY_MOST = -1
    elif mode == "numpy":
        jaxpr_arrays.REFERENCE_JIT_MOST = 0
    x = point(name, size_for(name, target))
    f = jax.grad(PROBLEMS[name])
    reference = JaxJvp(f, ["x"], ["y"])
    rng = np.random.default_rng(0)
    start = time.process_time()
    reference({"x": x}, {"x": rng.normal(size=x.shape)})
    first = time.process_time()
    reference({"x": x + 0.1}, {"x": rng.normal(size=x.shape)})
    second = time.process_time()
    with x64(jax):
        closed = jax.make_jaxpr(lambda p, t: jax.jvp(f, (p,), (t,)))(x, x)
    print(
        f"{name} n={x.size} equations={reference.equations} numpy_takes_all="
        f"{numpy_program(closed.jaxpr)} {mode}: compiled={reference.jitted}"
        f" first {first - start:.3f} second {second - first:.3f} total {second - start:.3f} CPU-s"
    )


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
