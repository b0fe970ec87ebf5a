"""The sparse Hessian of a function with a top-level ``lax.while_loop`` whose trip count the
values decide (Newton's iteration to a tolerance): nonzeros, build CPU-s, per call CPU-s
and the largest error against JAX at points of different trip counts. Run on two
checkouts (``PYTHONPATH``) to read before → after; one size per process (a clean build).

    python benchmarks/while_hessian.py [--lang=python|jax|c] PROGRAM N
    python benchmarks/while_hessian.py --steps PROGRAM N   # body steps of the gradient

Build CPU-s are this process's; the C compiler's (a child process) are printed beside
them. A call's CPU-s include JAX's threads (``jax.block_until_ready``); the first call
(JAX's compilation) is not timed.

Programs: ``newton_tol`` (z³ + z = x solved by Newton to |residual| ≤ 1e-12, Σ z²: the
``newton_while_loop`` program of ``real_programs4.py`` to a tolerance instead of eight
steps) and ``damped_tol`` (damped Newton, half steps, to 1e-3: 13 to 18 trips, every one
of which moves the derivative) and ``creep_tol`` (a twentieth of Newton's step, to 1e-10: 379
to 540 trips). The reference is ``jax.hessian`` of the same steps by
``fori_loop`` at each point's own trip count (counted by the while_loop itself), and
below 300 unknowns also ``jax.jacfwd(jax.jacfwd(f))`` of the while_loop.
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

jax.config.update("jax_enable_x64", True)

import dgraph  # noqa: E402
from dgraph.errors import DGraphError  # noqa: E402


def _program(damping: float, tol: float, cap: int = 100, steps: list | None = None):
    """f, its trip count (jitted) and the same steps by ``fori_loop``; ``steps``: a list
    that a callback in the body appends to at every body step run."""

    def step(z, x):
        if steps is not None:
            jax.debug.callback(lambda: steps.append(1))
        return z - damping * (z**3 + z - x) / (3 * z**2 + 1)

    def loop(x):
        def more(s):
            z, k = s
            return (jnp.max(jnp.abs(z**3 + z - x)) > tol) & (k < cap)

        return lax.while_loop(more, lambda s: (step(s[0], x), s[1] + 1), (x, 0))

    def f(x):
        return jnp.sum(loop(x)[0] ** 2)

    def fixed(trips: int):
        return lambda x: jnp.sum(lax.fori_loop(0, trips, lambda i, z: step(z, x), x) ** 2)

    return f, jax.jit(lambda x: loop(x)[1]), fixed


PROGRAMS = {
    "newton_tol": (1.0, 1e-12),
    "damped_tol": (0.5, 1e-3),
    "creep_tol": (0.05, 1e-10, 2000),
}


def body_steps(name: str, x: np.ndarray, points: tuple) -> list[int]:
    """Body steps of one call of JAX's gradient of the program with its loop given
    dgraph's reverse sweep (made at ``x``; None where forward mode is kept), counted by a
    callback in the body at each point: the forward loop's, the checkpoints' or
    recomputation's, and the pullbacks'."""
    from dgraph.frontends.jaxpr_reverse_while import reverse_loops

    steps: list = []
    f = _program(*PROGRAMS[name], steps=steps)[0]
    reversed_ = reverse_loops(jax, f, [x], x.size)
    if reversed_ is None:
        return []
    grad = jax.jit(jax.grad(reversed_))
    counts = []
    for p in points:
        steps.clear()
        jax.block_until_ready(grad(p))
        counts.append(len(steps))
    return counts


def _dense(h) -> np.ndarray:
    return np.asarray(h.todense() if hasattr(h, "todense") else h.toarray())


def _children() -> float:
    """CPU-s of the child processes waited for (the C compiler)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def built(f, lang: str, x: np.ndarray):
    """``f``'s sparse Hessian made in ``lang`` at ``x``, the build's CPU-s and the C
    compiler's (child processes); None, with the refusal printed, where it is refused."""
    start, children = time.process_time(), _children()
    try:
        h = dgraph.make_function(f, "hessian", lang, point=[x], sparse=True)
    except (DGraphError, MemoryError) as e:
        line = str(e).splitlines()[0][:200]
        print(f"refused after {time.process_time() - start:.2f} CPU-s: {line}")
        return None
    return h, time.process_time() - start, _children() - children


def main(argv: list[str]) -> None:
    lang = "python"
    rest = []
    for a in argv:
        if a == "--steps":
            continue
        if a.startswith("--lang="):
            lang = a.split("=", 1)[1]
        else:
            rest.append(a)
    name, n = rest[0], int(rest[1])
    f, trips, fixed = _program(*PROGRAMS[name])
    x = np.linspace(-1.5, 1.5, n)
    points = (x, 3 * x + 0.1, 0.2 * x)
    print(f"dgraph from {Path(dgraph.__file__).parent}; {name} n={n} lang={lang}")
    if "--steps" in argv:
        print(
            f"trips {[int(trips(p)) for p in points]}; body steps of JAX's gradient a"
            f" call {body_steps(name, x, points) or 'none: forward mode kept'}"
        )
        return
    made = built(f, lang, x)
    if made is None:
        return
    h, build, compiler = made
    got = h(x)
    calls = []
    for _ in range(5):
        t = time.process_time()
        jax.block_until_ready(h(x))  # JAX's call returns before its work is done
        calls.append(time.process_time() - t)
    errors, counts = [], []
    for p in points:
        k = int(trips(p))
        want = np.asarray(jax.jit(jax.hessian(fixed(k)))(p))
        H = _dense(h(p))
        err = float(np.abs(H - want).max() / max(1.0, np.abs(want).max()))
        if n < 300:
            ff = np.asarray(jax.jit(jax.jacfwd(jax.jacfwd(f)))(p))
            err = max(err, float(np.abs(H - ff).max() / max(1.0, np.abs(ff).max())))
        errors.append(err)
        counts.append(k)
    nnz = got.nse if hasattr(got, "nse") else got.nnz
    print(
        f"nnz {nnz}; build {build:.2f} CPU-s (+{compiler:.2f} in child processes);"
        f" per call {statistics.median(calls) * 1e3:.2f} ms CPU (median of 5);"
        f" verified {h.generated.verified}; trips {counts}; max rel error {max(errors):.1e}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
