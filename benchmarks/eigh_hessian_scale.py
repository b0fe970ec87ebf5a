"""The ``hmed`` cell of real_programs10's ``jax_rfft_eigvalsh`` at one size:
``dgraph.hessian(f, x, sparse=True)`` built and called once (CPU seconds,
``time.process_time``, after a warm-up at the program's small size), the process's peak
RSS, the largest error against ``jax.hessian``, and ``jax.jit(jax.hessian(f))``'s second
call in the same run (wall seconds). One size a process, so that each peak is its own.
``--no-jax``: without JAX's Hessian (at n = 384 it alone would hold some 3 GB; the
Hessian is then checked by dgraph's own code check only). ``--hvp K``: instead of JAX's
Hessian, K of its columns, each a Hessian-vector product ``jax.jvp(jax.grad(f), (x,),
(e_j,))`` (jitted; columns spread over 0 .. n-1), after the peak RSS is read: the
largest error of those columns of dgraph's Hessian against them. A size refused in one
line (the code's arrays past ``PEAK_MOST``) is reported with the CPU seconds and the
peak RSS until the refusal.

``--count``: only the count the early refusal reads
(:func:`~dgraph.codegen.tensor.footprint.peak_entries` of the statements it is given,
from shapes), then stop. ``--lang jax``: the JAX code's Hessian (``lang="jax"``; the call
timed to its values on the host); ``--dense``: the dense Hessian (``sparse=False``).

    python benchmarks/eigh_hessian_scale.py N [--no-jax | --hvp K | --count] [--lang L] [--dense]
"""

from __future__ import annotations

import contextlib
import resource
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import real_programs10 as rp

import dgraph


def main() -> None:
    n = int(sys.argv[1])
    lang = sys.argv[sys.argv.index("--lang") + 1] if "--lang" in sys.argv else "python"
    sparse = "--dense" not in sys.argv
    build, small, _ = rp.PROGRAMS["jax_rfft_eigvalsh"]
    f, xs, _, ref = build(n)
    fs, xss, _, _ = build(small)
    dgraph.hessian(fs, *xss, sparse=sparse, lang=lang)(xss[0])  # warm-up: imports, tracing
    t0 = time.process_time()
    if "--count" in sys.argv:
        _count(f, xs, n, t0, lang)
        return
    try:
        H = dgraph.hessian(f, *xs, sparse=sparse, lang=lang)
    except dgraph.DGraphError as e:
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
        print(f"n={n} refused after {time.process_time() - t0:.2f} CPU-s rss={rss:.2f}GB: {e}")
        return
    t1 = time.process_time()
    got = _host(H(xs[0]))
    t2 = time.process_time()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6
    if "--no-jax" in sys.argv:
        nnz = np.count_nonzero(got)
        print(f"n={n} build={t1 - t0:.2f} call={t2 - t1:.2f} CPU-s rss={rss:.2f}GB nnz={nnz}")
        return
    x = jnp.asarray(xs[0])
    if "--hvp" in sys.argv:
        k = int(sys.argv[sys.argv.index("--hvp") + 1])
        columns = np.linspace(0, n - 1, k).astype(int)
        hvp = jax.jit(lambda v: jax.jvp(jax.grad(ref), (x,), (v,))[1])
        want = np.stack([np.asarray(hvp(jnp.eye(n)[j])) for j in columns], axis=1)
        part = got[:, columns]
        err = np.abs(part - want).max() / np.abs(want).max()
        print(
            f"n={n} build={t1 - t0:.2f} call={t2 - t1:.2f} CPU-s rss={rss:.2f}GB"
            f" relerr_hvp({k} columns)={err:.1e}"
        )
        return
    hess = jax.jit(jax.hessian(ref))
    want = np.asarray(hess(x).block_until_ready())
    t3 = time.perf_counter()
    hess(x).block_until_ready()
    jax_s = time.perf_counter() - t3
    err = np.abs(got - want).max() / np.abs(want).max()
    print(
        f"n={n} build={t1 - t0:.2f} call={t2 - t1:.2f} CPU-s rss={rss:.2f}GB"
        f" relerr={err:.1e} jax_call={jax_s:.2f}s"
    )


def _host(H) -> np.ndarray:
    """A Hessian as a dense NumPy array on the host (a SciPy CSR's, a BCOO's, JAX's
    array waited for)."""
    if hasattr(H, "toarray"):
        return H.toarray()
    if hasattr(H, "todense"):
        H = H.todense()
    return np.asarray(H)


class _Counted(Exception):
    pass


def _count(f, xs, n: int, t0: float, lang: str = "python") -> None:
    """The early refusal's count for ``f`` at ``xs`` (``--count``)."""
    from dgraph.codegen.tensor import footprint, module

    def spy(statements, shapes, what, memo=None):
        peak, where, largest = footprint.peak_entries(statements, shapes)
        print(
            f"n={n} count={peak:,} ({peak / n**3:.2f} n^3, {peak / n**2:.1f} n^2) at {where},"
            f" largest {largest}, after {time.process_time() - t0:.1f} CPU-s"
        )
        raise _Counted

    module.refuse_large_program = spy
    with contextlib.suppress(_Counted):
        dgraph.hessian(f, *xs, sparse="--dense" not in sys.argv, lang=lang)


if __name__ == "__main__":
    jax.config.update("jax_enable_x64", True)
    main()
