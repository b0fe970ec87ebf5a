"""CPU seconds of a sparse Hessian build whose function stacks and tiles (session 57).

    python benchmarks/stack_reference.py N [--write FILE]

``make_function(g, "hessian", "python", point=[x], sparse=True)`` of a chain of ``N``
unknowns whose residuals are stacked (``jnp.stack``: JAX 0.10's ``stack`` primitive, its
gradient ``unstack``) and whose ends are tiled (``jnp.tile``). Prints the build's CPU
seconds (``time.process_time``), the share of them in the check's JAX reference
(``_jax_jvp``), whether that reference was compiled (``jitted``), the build's
verification and nnz; ``--write`` writes the generated module's text."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("n", type=int)
    parser.add_argument("--write")
    a = parser.parse_args()
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import numpy as np

    import dgraph
    from dgraph.core import value_check

    def g(x):
        u, w = x[:-1], x[1:]
        r = jnp.stack([u * w - 1.0, jnp.sin(u) - w, u**2], axis=0)
        return jnp.sum(r**2) + jnp.sum(jnp.tile(x[:2], 2) ** 2)

    spent = [0.0]
    inner = value_check._jax_jvp

    def timed(*args, **kwargs):
        t0 = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[0] += time.process_time() - t0

    value_check._jax_jvp = timed
    x = np.linspace(0.1, 1.0, a.n)
    t0 = time.process_time()
    H = dgraph.make_function(g, "hessian", "python", point=[x], sparse=True)
    total = time.process_time() - t0
    reference = H.gradient.generated.expression_set.graph.jvp_reference
    if a.write:
        Path(a.write).write_text(H.gradient.generated.text)
    h = H(x)
    print(
        json.dumps(
            {
                "n": a.n,
                "total": round(total, 3),
                "jax ref": round(spent[0], 3),
                "jitted": reference.jitted,
                "verified": bool(H.generated.verified),
                "nnz": int(h.nnz),
            }
        )
    )


if __name__ == "__main__":
    main()
