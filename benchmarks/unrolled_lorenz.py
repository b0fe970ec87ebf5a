"""Session 46: a Lorenz RK4 written as a Python loop (unrolled, about 60 scalar operations
a step), ``make_function``'s build CPU-s, its call time and its error against
``jax.jacfwd``: ``python benchmarks/unrolled_lorenz.py STEPS``."""

import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

jax.config.update("jax_enable_x64", True)


def rhs(s, p, xp=np):
    x, y, z = s[0], s[1], s[2]
    return xp.stack([p[0] * (y - x), x * (p[1] - z) - y, x * y - p[2] * z])


def f(q, steps=100, xp=np):
    s, p, h = q[:3], q[3:], 0.01
    for _ in range(steps):
        k1 = rhs(s, p, xp)
        k2 = rhs(s + h / 2 * k1, p, xp)
        k3 = rhs(s + h / 2 * k2, p, xp)
        k4 = rhs(s + h * k3, p, xp)
        s = s + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return s


def main(steps: int) -> None:
    q = np.array([1.0, 1.0, 1.0, 10.0, 28.0, 8 / 3])
    start = time.process_time()
    J = dgraph.make_function(lambda q: f(q, steps), point=[q])
    build = time.process_time() - start
    ref = jax.jacfwd(lambda q: f(q, steps, jnp))(q)
    err = np.abs(np.reshape(J(q), (3, 6)) - ref).max() / np.abs(ref).max()
    start = time.process_time()
    for _ in range(10):
        J(q)
    call = (time.process_time() - start) * 100
    print(f"{steps} build CPU-s {build:.2f} err {err:.1e} verified {J.generated.verified}")
    print(f"call ms {call:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
