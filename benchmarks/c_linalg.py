"""Per call, the C module of a Jacobian with linear algebra (:mod:`dgraph.codegen.c_linalg`'s
helpers) against the NumPy module of the same function, in one process.

    python benchmarks/c_linalg.py [N ...]     (default 4 16 64)

Programs at n: ``solve`` (``jnp.linalg.solve(A(x), b∘x)``, A n×n depending on x),
``cho_solve`` (``cho_factor``/``cho_solve`` of an SPD matrix depending on x) and
``slogdet`` (``slogdet(A(x))[1]·x``); each sparse ``jacobian`` generated for ``lang="c"``
and ``lang="python"``. Per call: CPU seconds (``time.process_time``) of a batch of calls
over their count, the median of ``--rounds`` batches, C and NumPy alternated; and
max |J_C - J_jax| / max |J_jax|.
"""

from __future__ import annotations

import argparse
import sys
import time


def _functions(n: int):
    import jax
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(0)
    b0, bv = rng.normal(size=(n, n)), rng.normal(size=n)

    def solve(x):
        a = b0 + jnp.diag(x) * 3.0 + jnp.outer(x, x) * 0.1
        return jnp.linalg.solve(a, bv * x)

    def cho_solve(x):
        s = b0 @ b0.T + jnp.outer(x, x) + n * jnp.eye(n)
        return jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(s, lower=True), x)

    def slogdet(x):
        return jnp.linalg.slogdet(b0 + jnp.diag(x) * 3.0)[1] * x

    return {"solve": solve, "cho_solve": cho_solve, "slogdet": slogdet}, rng.normal(size=n) + 2


def _per_call(fn, x, seconds: float = 0.2) -> float:
    """CPU seconds a call: a batch sized to about ``seconds``."""
    fn(x)
    count, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        fn(x)
        count += 1
    return (time.process_time() - start) / count


def main(argv: list[str]) -> None:
    import jax
    import numpy as np

    import dgraph

    jax.config.update("jax_enable_x64", True)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[4, 16, 64])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    print("| program | n | C (µs/call) | NumPy (µs/call) | NumPy / C | rel. error vs JAX |")
    print("|---|---|---|---|---|---|")
    for n in args.sizes:
        functions, x = _functions(n)
        for name, f in functions.items():
            c = dgraph.make_function(f, "jacobian", "c", point=[x], sparse=True)
            py = dgraph.make_function(f, "jacobian", "python", point=[x], sparse=True)
            times: dict[str, list[float]] = {"c": [], "py": []}
            for _ in range(args.rounds):
                times["c"].append(_per_call(c, x))
                times["py"].append(_per_call(py, x))
            tc, tp = (float(np.median(times[k])) for k in ("c", "py"))
            ref = np.asarray(jax.jacobian(f)(x))
            err = np.abs(c(x).toarray() - ref).max() / np.abs(ref).max()
            print(f"| {name} | {n} | {tc * 1e6:.1f} | {tp * 1e6:.1f} | {tp / tc:.2f} | {err:.1e} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
