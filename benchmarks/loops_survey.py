"""A mini-survey of loops as users write them in NumPy and JAX (session 36): explicit
Euler into a preallocated array (by entries, rows and columns), in-place slice updates
(explicit heat steps, ``+=``, a 2-d Jacobi sweep), a matrix from ``np.eye`` accumulated
into and solved, a fixed count of Newton steps, a list appended to, an
implicit Euler step (a solve per step), an early exit on a tolerance (refused: a branch on
the inputs), tuple unpacking, a counted while, recursion, ``lax.fori_loop`` and a
``lax.while_loop`` to a tolerance. Each Hessian (``dgraph.hessian``) against central
differences of the function (JAX's by forward-over-forward: a ``while_loop`` has no
reverse mode in JAX), and the C Hessian against it: ok / WRONG / the one line of a
refusal.

    python benchmarks/loops_survey.py
"""

import warnings

import jax
import jax.numpy as jnp
import numpy as np

import dgraph

warnings.filterwarnings("ignore")
jax.config.update("jax_enable_x64", True)
X = np.array([0.3, -0.7, 1.1, 0.5])


def euler_inplace(p):
    y = np.zeros((20, 2))
    y[0] = [1.0, 0.0]
    for i in range(19):
        y[i + 1, 0] = y[i, 0] + 0.05 * y[i, 1]
        y[i + 1, 1] = y[i, 1] - 0.05 * (p[0] * np.sin(y[i, 0]) + p[1] * y[i, 1])
    return np.sum(y**2) + p[2] * p[3]


def newton_fixed(p):
    z = np.ones(4)
    for _ in range(15):
        z = z - (z**3 + p * z - 2.0) / (3 * z**2 + p)
    return np.sum(z**2)


def list_append(p):
    out = []
    s = 0.0
    for i in range(4):
        s = s + p[i] ** 2
        out.append(s * np.cos(p[i]))
    return np.sum(np.array(out) ** 2)


def implicit_euler(p):
    A = np.array([[0.0, 1.0], [-1.0, -0.1]])
    y = np.array([p[0], p[1]])
    for _ in range(10):
        y = np.linalg.solve(np.eye(2) - 0.1 * (A + p[2] * np.diag(np.cos(y))), y)
    return np.sum(y**2) + p[3] ** 3


def early_exit(p):
    z = 1.0
    for _ in range(50):
        dz = (z**3 - p[0]) / (3 * z**2)
        z = z - dz
        if abs(dz) < 1e-12:
            break
    return z * np.sum(p**2)


def tuple_unpack_loop(p):
    a, b = p[0], p[1]
    for _ in range(5):
        a, b = b, a + b * p[2]
    return a * b + p[3]


def while_counter(p):
    i, acc = 0, 0.0
    while i < 6:
        acc = acc + np.sin(p[i % 4] * i)
        i += 1
    return acc**2


def recursion(p):
    def r(k):
        return p[0] if k == 0 else np.tanh(r(k - 1) * p[k % 4])

    return r(8) ** 2


def jnp_fori(p):
    def body(i, s):
        return s * jnp.cos(p[i % 4]) + p[(i + 1) % 4]

    return jax.lax.fori_loop(0, 7, body, 1.0) ** 2


def jnp_while_tol(p):
    def cond(c):
        return jnp.abs(c[1]) > 1e-10

    def body(c):
        z, _ = c
        dz = (z**3 - 2.0 - p[0] ** 2) / (3 * z**2)
        return (z - dz, dz)

    z, _ = jax.lax.while_loop(cond, body, (1.5, 1.0))
    return z * jnp.sum(p**2)


# in-place writes (second part, six unknowns)
X6 = np.array([0.3, -0.7, 1.1, 0.5, 0.2, -0.4])


def col_writes(p):
    y = np.zeros((2, 5))
    y[:, 0] = p[:2]
    for i in range(4):
        y[:, i + 1] = y[:, i] + 0.1 * np.array([y[1, i], -p[2] * np.sin(y[0, i])])
    return np.sum(y**2)


def heat_slices(p):
    u = p.copy()
    for _ in range(5):
        u[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u**3)


def heat_augmented(p):
    u = np.array(p)
    for _ in range(5):
        u[1:-1] += 0.2 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u**3)


def ellipsis_write(p):
    out = np.empty(6)
    out[...] = p * 2.0
    out[::2] *= p[1::2]
    return np.sum(np.sin(out))


def diag_accum(p):
    A = np.eye(3) * 2.0
    for k in range(3):
        A[k, k] += p[k] ** 2
        A[k, (k + 1) % 3] -= p[k + 3]
    return np.sum(np.linalg.solve(A, np.ones(3)))


def jacobi_2d(p):
    u = np.zeros((4, 4))
    u[0, :] = p[:4]
    u[:, 0] = p[2:]
    for _ in range(3):
        u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    return np.sum(u**2)


def copy_then_write(p):
    s = p.copy()
    s[0] = s[0] * s[1]
    s[-1] += s[0]
    t = s.copy()
    t[2:4] = np.tanh(t[2:4])
    return np.sum(t * s)


def swap_rows(p):
    M = p.reshape(2, 3).copy()
    M[[0, 1]] = M[[1, 0]]
    M[:, 0], M[:, 2] = M[:, 2].copy(), M[:, 0].copy()
    return np.sum(M * np.arange(6.0).reshape(2, 3) * M)


def running_max_loop(p):
    best = p[0]
    acc = 0.0
    for k in range(1, 6):
        best = np.maximum(best, p[k])
        acc = acc + best * p[k]
    return acc


def list_of_rows(p):
    rows = [p[:3]]
    for k in range(3):
        rows.append(np.roll(rows[-1], 1) * p[3 + k])
    return np.sum(np.vstack(rows) ** 2)


def differences(f, x, h=1e-4):
    n = x.size
    e = np.eye(n) * h
    H = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            ups = f(x + e[i] + e[j]) - f(x + e[i] - e[j])
            H[i, j] = (ups - f(x - e[i] + e[j]) + f(x - e[i] - e[j])) / (4 * h * h)
    return H


PROGRAMS = [euler_inplace, newton_fixed, list_append, implicit_euler, early_exit,
            tuple_unpack_loop, while_counter, recursion, jnp_fori, jnp_while_tol]  # fmt: skip


WRITES = [col_writes, heat_slices, heat_augmented, ellipsis_write, diag_accum, jacobi_2d,
          copy_then_write, swap_rows, running_max_loop, list_of_rows]  # fmt: skip


def cell(f, X=X) -> str:
    try:
        h = np.asarray(dgraph.hessian(f, X)(X))
    except Exception as exc:
        return f"{type(exc).__name__}: {str(exc)[:200]}"
    if f.__name__.startswith("jnp"):
        r = np.asarray(jax.jacfwd(jax.jacfwd(f))(X))  # while_loop: forward mode only
    else:
        r = differences(lambda v: float(f(v)), X)
    err = np.abs(h - r).max() / max(1, np.abs(r).max())
    res = "ok" if err < 1e-5 else f"WRONG {err:.1e}"
    try:
        hc = np.asarray(dgraph.make_function(f, "hessian", lang="c", point=[X])(X))
        res += " c-ok" if np.allclose(hc, h, rtol=1e-9, atol=1e-12) else " c-WRONG"
    except Exception as exc:
        res += f" c: {type(exc).__name__}: {str(exc)[:100]}"
    return res


def main() -> None:
    for f in PROGRAMS:
        print(f"{f.__name__:20s} {cell(f)}")
    for f in WRITES:
        print(f"{f.__name__:20s} {cell(f, X6)}")


if __name__ == "__main__":
    main()
