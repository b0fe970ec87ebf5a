"""One survey program's ``med`` or ``hmed`` cell at one size, CPU seconds: ``med`` is
``make_function(f, "jacobian")`` built and called once, ``hmed``
``dgraph.hessian(f, x, sparse=True)``; ``time.process_time`` after a warm-up at the
program's small size, the largest error against JAX; ``--profile``: the top of a cProfile.

    python benchmarks/quad_scale.py MODULE NAME MODE N [--profile]

e.g. ``python benchmarks/quad_scale.py real_programs7 inplace_updates med 1000``.
"""

from __future__ import annotations

import cProfile
import importlib
import pstats
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import dgraph


def _build(f, xs, mode):
    if mode == "hmed":
        return dgraph.hessian(f, *xs, sparse=True)
    return dgraph.make_function(f, "jacobian", point=list(xs))


def _error(mode, got, ref, xs):
    jx = tuple(map(jnp.asarray, xs))
    if mode == "hmed":
        want = np.asarray(jax.hessian(ref)(jx[0]))
        got = got.toarray()
    else:
        want = np.asarray(jax.jacfwd(ref)(*jx))
        got = np.asarray(got[0] if isinstance(got, tuple) else got)
    want = want.reshape(got.shape)
    return np.abs(got - want).max() / max(np.abs(want).max(), 1e-300)


def main() -> None:
    module, name, mode, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    rp = importlib.import_module(module)
    build, small, _ = rp.PROGRAMS[name]
    f, xs, _, ref = build(n)
    fs, xss, _, _ = build(small)
    _build(fs, xss, mode)(*xss)  # warm-up: imports, JAX's tracing
    profile = cProfile.Profile(time.process_time) if "--profile" in sys.argv else None
    t0 = time.process_time()
    if profile:
        profile.enable()
    made = _build(f, xs, mode)
    t1 = time.process_time()
    got = made(*xs)
    t2 = time.process_time()
    if profile:
        profile.disable()
    err = _error(mode, got, ref, xs)
    print(
        f"{name} {mode} n={n} build={t1 - t0:.2f} call={t2 - t1:.2f}"
        f" total={t2 - t0:.2f} CPU-s relerr={err:.2e}"
    )
    if profile:
        stats = pstats.Stats(profile)
        for arg in sys.argv:
            if arg.startswith("--dump="):
                stats.dump_stats(arg[7:])
        stats.sort_stats("cumulative").print_stats(45)
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    jax.config.update("jax_enable_x64", True)
    main()
