"""Breaks in loop bodies, jumps and sorted ties (session 66): the value check's status of
functions at a point where an operation inside a ``scan``/``fori_loop``/``while_loop``
body or a ``cond`` branch is at its break, where ``floor``/``round``/``fmod`` jump, where
``sort``/``top_k``/``median``/``argmax`` see tied entries, and NumPy functions
(central differences) at 0; and the cost of the scan for breaks on large functions.

    python benchmarks/loop_breaks.py cases      # the table: status (element, array), J, JAX's J
    python benchmarks/loop_breaks.py scale N    # CPU-s of make_function at 10^N entries
                                                 # (smooth, random point), median of 3

Run it with ``PYTHONPATH`` at the code to measure (this checkout or a base's).
"""

from __future__ import annotations

import statistics
import sys
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import dgraph
from dgraph import from_function, from_jax

jax.config.update("jax_enable_x64", True)
warnings.simplefilter("ignore")

W3 = np.arange(1.0, 4.0)


def _scan_relu(x):
    c, ys = lax.scan(lambda c, xt: (c + jax.nn.relu(xt) * 2.0, c), 0.0, x)
    return c + jnp.sum(ys)


def _scan_carry(x):
    ys = lax.scan(lambda c, xt: (jax.nn.relu(c + xt),) * 2, 0.5, x)[1]
    return jnp.sum(ys)


def _fori_max(x):
    return lax.fori_loop(0, 3, lambda i, c: c + jnp.maximum(x[0], x[1]) * (i + 1.0) + c * 0.1, 0.0)


def _fori_where(x):
    return jnp.sum(lax.fori_loop(0, 2, lambda i, c: jnp.where(c > 0, c, -c) + 1.0, x))


def _while_relu(x):
    body = lambda s: (s[0] + 1, s[1] + jax.nn.relu(x[0]) + 0.1 * x[1])  # noqa: E731
    return lax.while_loop(lambda s: s[0] < 3, body, (0, 0.0))[1]


def _while_trips(x):
    body = lambda c: (c[0] + 1.0, c[1] * x[1])  # noqa: E731
    return lax.while_loop(lambda c: c[0] < x[0], body, (0.0, 1.0))[1]


def _cond_relu(x):
    return jnp.sum(lax.cond(x[1] > 0, lambda x: jax.nn.relu(x) * 2.0, lambda x: -x, x))


def _scan_cubed(x):
    return lax.scan(lambda c, t: (c + jax.nn.relu(t) ** 3 + t, None), 0.0, x)[0]


def _fori_index(x):
    return lax.fori_loop(0, x.shape[0], lambda i, c: c + jnp.sin(x[i]) * c + x[i], 1.0)


JAX_CASES = {  # name: (function, point, has a derivative there)
    "scan: relu(x_t), x_1 = 0": (_scan_relu, [0.3, 0.0, -0.2], False),
    "scan: relu(carry) = 0 at trip 0": (_scan_carry, [-0.5, 0.2, 0.1], False),
    "fori: max(x0, x1) tie": (_fori_max, [0.7, 0.7], False),
    "fori: where(c > 0, c, -c) at 0": (_fori_where, [0.0, 0.5], False),
    "while: relu(x0) at 0": (_while_relu, [0.0, 0.5], False),
    "while: c < x0 ties (trips jump)": (_while_trips, [2.0, 1.5], False),
    "cond branch: relu at 0": (_cond_relu, [0.0, 0.5], False),
    "floor(x)·x at 1": (lambda x: jnp.sum(jnp.floor(x) * x), [1.0, 0.5], False),
    "ceil(x) + x² at 1": (lambda x: jnp.sum(jnp.ceil(x) + x**2), [1.0, 0.5], False),
    "round(x) + x at 0.5": (lambda x: jnp.sum(jnp.round(x) + x), [0.5, 0.2], False),
    "fmod(x, 0.5) at 1": (lambda x: jnp.sum(jnp.fmod(x, 0.5)), [1.0, 0.2], False),
    "sort tie": (lambda x: jnp.sort(x) @ W3, [0.5, 0.5, 0.1], False),
    "argsort-gather tie": (lambda x: x[jnp.argsort(x)] @ W3, [0.5, 0.5, 0.1], False),
    "top_k tie": (lambda x: lax.top_k(x, 2)[0] @ W3[::2], [0.5, 0.5, 0.1], False),
    "median tie (odd)": (lambda x: jnp.median(x * W3[[0, 1, 0]]), [0.5, 0.25, 0.1], False),
    "percentile tie": (lambda x: jnp.percentile(x, 30.0), [0.5, 0.5, 0.1, 0.9], False),
    "argmax-gather tie": (lambda x: (x * W3)[jnp.argmax(x)], [0.5, 0.5, 0.1], False),
    "scan: relu³(x_t) at 0": (_scan_cubed, [0.0, 0.5], True),
    "fori: x[i] (counter i < 0 at 0)": (_fori_index, [0.3, 0.0, -0.2], True),
    "floor(x)·x at 0.5": (lambda x: jnp.sum(jnp.floor(x) * x), [0.5, 0.25], True),
    "sort, no tie": (lambda x: jnp.sort(x) @ W3, [0.5, 0.4, 0.1], True),
    "sum of sort at a tie": (lambda x: jnp.sum(jnp.sort(x)), [0.5, 0.5, 0.1], True),
    "median tie of the middle two": (
        lambda x: jnp.median(x * jnp.array([1.0, 2.0, 1.0, 1.0])),
        [0.5, 0.25, 0.1, 0.9],
        True,
    ),
}
NUMPY_CASES = {
    "|x|³ at 0": (lambda x: np.sum(np.abs(x) ** 3), [0.0, 0.0], True),
    "x⁴ at 0": (lambda x: np.sum(x**4), [0.0, 0.0], True),
    "|x|^1.5 at 0": (lambda x: np.sum(np.abs(x) ** 1.5), [0.0, 0.0], True),
    "|x|³ + x at (0, 0.5)": (lambda x: np.sum(np.abs(x) ** 3 + x), [0.0, 0.5], True),
    "|x| + x at (0, 0.5)": (lambda x: np.sum(np.abs(x) + x), [0.0, 0.5], False),
    "maximum(x, 0) + x² at 0": (lambda x: np.sum(np.maximum(x, 0) + x**2), [0.0, 0.5], False),
    "max(x) tie + x0²": (lambda x: np.max(x) + x[0] ** 2, [0.3, 0.3], False),
}


def _status(make, x) -> tuple[str, np.ndarray | None]:
    try:
        made = make()
        return made.generated.check.status, np.ravel(made(x))
    except Exception as exc:  # a cell of the table
        return type(exc).__name__, None


def cases() -> None:
    print("| case | derivative exists | element | array | dgraph J | JAX's J |")
    print("|---|---|---|---|---|---|")
    for name, (f, x, smooth) in JAX_CASES.items():
        x = np.array(x)
        want = np.ravel(jax.jacfwd(f)(jnp.asarray(x)))
        element, got = _status(lambda f=f, x=x: dgraph.make_function(f, point=[x]), x)
        array, got_a = _status(
            lambda f=f, x=x: dgraph.make_function(from_jax(f, x, level="array")), x
        )
        got = got_a if got is None else got
        shown = "—" if got is None else np.array2string(got, precision=3)
        print(
            f"| {name} | {'yes' if smooth else 'no'} | {element} | {array} | {shown} |"
            f" {np.array2string(want, precision=3)} |"
        )
    for name, (f, x, smooth) in NUMPY_CASES.items():
        x = np.array(x)
        element, got = _status(lambda f=f, x=x: dgraph.make_function(f, point=[x]), x)
        array, _ = _status(
            lambda f=f, x=x: dgraph.make_function(from_function(f, point=[x], level="array")), x
        )
        shown = "—" if got is None else np.array2string(got, precision=3)
        print(f"| NumPy {name} | {'yes' if smooth else 'no'} | {element} | {array} | {shown} | |")


def _big(x):
    return jnp.where(x > 0.5, x**2, jnp.maximum(x, 0.2)) * jnp.sin(x)


def _big_scan(x):
    """100 steps of a 10^(N-2)-entry body with a relu and a max (no tie at a random
    point): the body is walked at every trip."""
    rows = x.reshape(100, -1)

    def body(c, xt):
        c = 0.9 * c + jax.nn.relu(xt - 0.5) * jnp.maximum(xt, 0.2)
        return c, None

    return lax.scan(body, jnp.zeros(rows.shape[1]), rows)[0]


def scale(n: int) -> None:
    """CPU-s (process_time, median of 3 after one warm-up) of ``make_function`` at a
    random point (no break: the scan for one alone) of the lead's 10^N-entry function
    (session 65's; ``"jacobian", sparse=True``) and of a 100-step scan of its size
    (``"jvp"``: its dense Jacobian is refused)."""
    rng = np.random.default_rng(0)
    x = rng.uniform(0.0, 1.0, n)
    for name, f, mode in (("where-max", _big, "jacobian"), ("scan-relu", _big_scan, "jvp")):
        sparse = {"sparse": True} if mode == "jacobian" else {}
        dgraph.make_function(from_jax(f, x[:100], level="array"), mode, **sparse)
        spent, status = [], ""
        for _ in range(3):
            start = time.process_time()
            made = dgraph.make_function(from_jax(f, x, level="array"), mode, **sparse)
            spent.append(time.process_time() - start)
            status = made.generated.check.status
        print(f"n={n} {name}: median {statistics.median(spent):.3f} CPU-s {spent}, {status}")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "cases"
    if what == "cases":
        cases()
    else:
        scale(10 ** int(sys.argv[2]))
