"""The build of dgraph's Hessian of ``det`` (n ≥ 4: JAX's gradient reads ``lu`` as data)
and of ``expm`` (its ``lu`` inside a ``cond``), CPU s of this process and of its waited
children, and the Hessian's largest error against ``jax.hessian`` relative to its largest
entry.

    python benchmarks/lu_hessians.py det 4
    python benchmarks/lu_hessians.py expm 4
"""

import resource
import sys
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)


def cpu() -> tuple[float, float]:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time(), children.ru_utime + children.ru_stime


def main(what: str, n: int) -> None:
    x0 = np.random.default_rng(0).normal(size=n * n) * 0.3
    if what == "det":
        f = lambda x: jnp.linalg.det(jnp.eye(n) * 3 + x.reshape(n, n))  # noqa: E731
    else:
        f = lambda x: jnp.sum(jax.scipy.linalg.expm((jnp.eye(n) * 3 + x.reshape(n, n)) * 0.1))  # noqa: E731
    own, kids = cpu()
    h = dgraph.hessian(f, x0)
    own2, kids2 = cpu()
    H = h(x0)
    H = H.toarray() if hasattr(H, "toarray") else np.asarray(H)
    ref = np.asarray(jax.hessian(f)(x0))
    err = np.abs(H - ref).max() / np.abs(ref).max()
    print(
        f"{what}({n}) build {own2 - own:.2f} CPU-s (this process) + {kids2 - kids:.2f}"
        f" (children) rel err {err:.1e}"
    )


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
