"""Sparse patterns of the session-61 programs (survey61): ``python pattern61.py NAME ...``
— the stored entries of ``make_function(f, sparse=True)`` (the Hessian's for a scalar
program) against the union of JAX's nonzeros (jax.jacfwd / jax.hessian of the JAX
version) at the user's point and three random ones; WIDE where more are stored."""

import sys
import time
import warnings

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)
from common import SCALAR, flat_fn, load, point  # noqa: E402

import dgraph  # noqa: E402
from dgraph.codegen.tensor.function import TensorGenerated  # noqa: E402

warnings.simplefilter("ignore")


def stored(M):
    if isinstance(M, tuple):
        return sum(stored(b) for b in M)
    if hasattr(M, "nse"):  # BCOO
        return int(M.nse)
    return int(M.nnz)


def main():
    for name in sys.argv[1:]:
        mod_np, mod_jax, specs, params = load(name)
        f = (mod_np or mod_jax).f
        scalar = name in SCALAR
        pts = [point(mod_np, mod_jax, specs, s) for s in (0, 1, 2, 3)]
        union = None
        for pt in pts:
            g, xf, _, _ = flat_fn(mod_jax.f, specs, params, pt)
            ref = jax.hessian(lambda x, g=g: g(x)[0])(xf) if scalar else jax.jacfwd(g)(xf)
            nz = np.asarray(ref) != 0
            union = nz if union is None else union | nz
        t0 = time.process_time()
        try:
            G = dgraph.make_function(f, "hessian" if scalar else "jacobian", sparse=True,
                                     params=params, point=pts[0])  # fmt: skip
            if isinstance(G.generated, TensorGenerated):
                M = G(*pts[1])
            else:
                _, xf, pf, _ = flat_fn(mod_jax.f, specs, params, pts[1])
                M = G(xf, pf) if params else G(xf)
            n = stored(M)
            true = int(union.sum())
            tag = "exact" if n == true else ("WIDE" if n > true else "NARROW")
            msg = f"{tag} stored {n} true {true} of {union.size}"
        except Exception as e:
            msg = f"ERROR {type(e).__name__}: {str(e)[:200]}"
        print(f"{name:10s} {'hess' if scalar else 'jac':4s} {time.process_time() - t0:6.2f}s {msg}",
              flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
