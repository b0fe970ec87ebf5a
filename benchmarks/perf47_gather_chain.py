"""Session 47 (perf47): XLA's CPU compile of a chain of gathers, ``t = Σ_j take(t, K_j)·c_j``
(5 gathers a link, a (9, 1) array), at the quick options of dgraph's JAX pieces
(optimization level 0, LLVM's expensive passes off, one module), with XLA's older emitters
(``older``) or its own (``new``), CPU-s of the first call for each number of links:

    python benchmarks/perf47_gather_chain.py older 2,4,6,8
    python benchmarks/perf47_gather_chain.py new 2,4,6,8
"""

import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)


def main() -> None:
    older = sys.argv[1] == "older"
    options = {
        "xla_backend_optimization_level": 0,
        "xla_llvm_disable_expensive_passes": True,
        "xla_cpu_parallel_codegen_split_count": 1,
    }
    if older:
        options["xla_cpu_use_fusion_emitters"] = False
    rng = np.random.default_rng(0)
    indices = [np.array(rng.integers(0, 9, 9)) for _ in range(5)]
    factors = [rng.normal(size=(9, 1)) for _ in range(5)]
    for links in map(int, sys.argv[2].split(",")):

        def f(t, links=links):
            for _ in range(links):
                t = sum(jnp.take(t, k, axis=0) * c for k, c in zip(indices, factors, strict=True))
            return t

        start = time.process_time()
        jax.block_until_ready(jax.jit(f, compiler_options=options)(np.ones((9, 1))))
        print(f"{sys.argv[1]} {links} links: {time.process_time() - start:.2f} CPU-s", flush=True)


if __name__ == "__main__":
    main()
