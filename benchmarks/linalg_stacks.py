"""Making and calling the gradient (NumPy or JAX) or the sparse Hessian (NumPy) of
``sum(eigvalsh(A + Aᵀ)²)`` of K stacked 3 × 3 matrices ``A``, CPU s of this process (the
median of 5 calls), and the gradient's largest error against its closed form
``Σ_j 2 w_j v_j v_jᵀ``, symmetrized.

    python benchmarks/linalg_stacks.py numpy 1000
    python benchmarks/linalg_stacks.py jax 1000
    python benchmarks/linalg_stacks.py hessian 1000
"""

import sys
import time

import numpy as np

import dgraph


def program(what: str, k: int):
    """The function, in NumPy or in ``jax.numpy``."""
    if what == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)
        xp = jax.numpy
    else:
        xp = np

    def f(x):
        a = x.reshape(k, 3, 3)
        return xp.sum(xp.linalg.eigvalsh(a + xp.swapaxes(a, -1, -2)) ** 2)

    return f


def closed_form(x: np.ndarray, k: int) -> np.ndarray:
    """The gradient: ``2 w_j v_j v_jᵀ`` summed over j, plus its transpose."""
    a = x.reshape(k, 3, 3)
    w, v = np.linalg.eigh(a + np.swapaxes(a, -1, -2))
    g = np.einsum("kj,kij,klj->kil", 2 * w, v, v)
    return (g + np.swapaxes(g, -1, -2)).reshape(-1)


def main(what: str, k: int) -> None:
    x = np.random.default_rng(0).normal(size=9 * k)
    kind = "hessian" if what == "hessian" else "jacobian"
    options = {"sparse": True} if kind == "hessian" else {}
    start = time.process_time()
    made = dgraph.make_function(program(what, k), kind, point=[x], **options)
    make = time.process_time() - start
    calls = []
    for _ in range(5):
        start = time.process_time()
        got = made(x)
        calls.append(time.process_time() - start)
    line = f"{what} K={k} verified={made.generated.verified} make={make:.3f}"
    line += f" call={np.median(calls):.5f}"
    if kind == "jacobian":
        line += f" error={np.abs(np.ravel(got) - closed_form(x, k)).max():.1e}"
    else:
        line += f" nnz={got.nnz}"
    print(line, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
