"""Session 45: a where's untaken case guarded (dgraph.core.untaken).

``python benchmarks/untaken_branches.py``: each idiom's jacobian, vjp and hessian
(``make_function``, NumPy and JAX versions) against ``jax.jacfwd`` / ``jax.jacfwd`` of
``jax.jacfwd`` (JAX's select of tangents: the untaken case left out) at a point where the
untaken case's partials are not finite; ``(unverified)`` where dgraph says so.
``python benchmarks/untaken_branches.py N``: a where in an N-entry residual's sparse
Jacobian, its build and per-call CPU-s (median of 3 calls).
"""

import sys
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

jax.config.update("jax_enable_x64", True)
warnings.simplefilter("ignore")


def idioms(xp):
    w = xp.where
    return {
        "sqrt": (lambda x: xp.sum(w(x > 0, xp.sqrt(x), 0.0) * x), [-1.0, 4.0, 0.5, 2.0]),
        "softplus": (lambda x: xp.sum(w(x > 20, x, xp.log1p(xp.exp(x)))), [1e3, -3.0, 1.0, 25.0]),
        "sigmoid": (
            lambda x: xp.sum(w(x >= 0, 1 / (1 + xp.exp(-x)), xp.exp(x) / (1 + xp.exp(x))) ** 2),
            [-1e3, 800.0, 1.0, -2.0],
        ),
        "entropy": (lambda x: xp.sum(w(x > 0, x * xp.log(x), 0.0)), [-0.5, 2.0, 0.3, 1.5]),
        "nested": (
            lambda x: xp.sum(w(x < 0, 0.0, w(x < 1, xp.sqrt(x), xp.log(x - 1) + 1))),
            [-1.0, 0.5, 3.0, 0.25],
        ),
        "acosh": (lambda x: xp.sum(w(x > 1, xp.arccosh(x), x)), [0.5, 2.0, -3.0, 1.5]),
        "safediv": (
            lambda x: xp.sum(w(x[:3] != 0, x[3:] / x[:3], 0.0) ** 2),
            [0.0, 2.0, -1.0, 1.0, 3.0, 0.5],
        ),
        "sinc": (lambda x: xp.sum(w(xp.abs(x) < 1e-8, 1.0, xp.sin(x) / x)), [0.0, 2.0, -1.0]),
        "elu": (lambda x: xp.sum(w(x > 0, x, xp.expm1(x)) ** 2), [800.0, -2.0, 0.5]),
        "pow": (lambda x: xp.sum(w(x > 0, x**1.5, 0.0)), [-1.0, 2.0, 0.0]),
    }


def survey():
    ref = idioms(jnp)
    for name, (f, x) in idioms(np).items():
        x = np.array(x)
        fj = ref[name][0]
        J, H = np.asarray(jax.jacfwd(fj)(x)), np.asarray(jax.jacfwd(jax.jacfwd(fj))(x))
        for lib, g in (("np", f), ("jax", fj)):
            out = []
            for mode, want in (("jacobian", J), ("vjp", J), ("hessian", H)):
                made = dgraph.make_function(g, mode, point=[x])
                got = made(x, np.ones(())) if mode == "vjp" else made(x)
                ok = np.allclose(np.asarray(got).reshape(want.shape), want, rtol=1e-9, atol=1e-12)
                note = "" if made.generated.verified is True else " (unverified)"
                out.append(f"{mode} {'ok' if ok else 'WRONG'}{note}")
            print(f"| {name} | {lib} | {' / '.join(out)} |")


def residual(u):
    r = np.where(u > 0, np.sqrt(u) * np.log1p(u), 0.0)
    return r + np.roll(u, 1) - 2 * u + np.roll(u, -1)


def scale(n):
    u = np.random.default_rng(0).uniform(-1, 1, n)
    c = time.process_time()
    J = dgraph.make_function(residual, "jacobian", sparse=True, point=[u])
    build = time.process_time() - c
    calls = []
    for _ in range(3):
        c = time.process_time()
        J(u)
        calls.append(time.process_time() - c)
    print(f"| {n} | {build:.2f} | {sorted(calls)[1] * 1e3:.1f} | {J.generated.verified} |")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        scale(int(sys.argv[1]))
    else:
        survey()
