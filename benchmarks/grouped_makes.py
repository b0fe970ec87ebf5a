"""Does one make of several idioms cost less than one make each (session 55, hessrep55)?

Measuring only (never part of the suite). Each case runs in a process of its own, after
one small make of its kind (the process's first make pays for imports, JAX's and
dgraph's first traces and compiles, paid once per pytest worker in the suite), and
prints the CPU seconds (``time.process_time``) of its makes, with the suite's XLA flags
(``tests/xla_compile.py``) unless ``XLA_FLAGS`` is set::

    PYTHONPATH=. python benchmarks/grouped_makes.py CASE

CASE is one of :data:`CASES`: ``*-separate`` makes each function as the tests do,
``*-grouped`` the same functions as one make (Jacobians: one function returning their
outputs as a tuple, one per method the tests name; Hessians: the sum of each function
of its own slice of one concatenated argument, a block-diagonal Hessian); ``fixed``
times small makes (the fixed part of a make), ``remake`` the same loop Hessian made
again from a new function object of the same code (what a repeated make costs).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import types
from collections.abc import Callable
from typing import Any

from tests import xla_compile

os.environ.setdefault("XLA_FLAGS", f"{xla_compile.FLAGS} {xla_compile.PROBED}")  # the suite's

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

import dgraph  # noqa: E402
import tests.test_complex_fft as fft  # noqa: E402
import tests.test_cond_in_loop as loops  # noqa: E402

LOOPS = {  # mode: the functions of tests/test_cond_in_loop.py made at X in that mode
    "hessian": ("fori_cond", "while_fixed", "cond_cond_fori"),
    "hvp": ("fori_cond", "switch_fori", "loop_in_loop"),
}


def _cpu(make: Callable[[], Any]) -> float:
    """The CPU seconds of ``make()``, whose made function must be verified."""
    start = time.process_time()
    made = make()
    spent = time.process_time() - start
    assert made.generated.verified
    return spent


def _sliced_sum(fs: list[Callable[..., Any]], n: int) -> Callable[..., Any]:
    """``x -> Σ_k f_k(x[k n : (k + 1) n])``: its Hessian is block diagonal, f_k's the
    k-th block."""

    def grouped(x: Any) -> Any:
        return sum(f(x[k * n : (k + 1) * n]) for k, f in enumerate(fs))

    return grouped


def _tuple_of(fs: list[Callable[..., Any]]) -> Callable[..., Any]:
    return lambda x: tuple(f(x) for f in fs)


def _warm_loops() -> None:
    def small(x: Any) -> Any:
        return jax.lax.fori_loop(0, 2, lambda i, c: c * x[i] + jnp.sin(x[i]), 1.0)

    dgraph.make_function(small, "hessian", point=(np.ones(2),))


def _warm_plain() -> None:
    dgraph.make_function(lambda x: jnp.sum(jnp.sin(x) ** 2), "hessian", point=(np.ones(3),))
    dgraph.make_function(lambda x: jnp.abs(jnp.fft.rfft(x)), "jacobian", point=(np.ones(4),))


def loops_separate() -> float:
    _warm_loops()
    cpu = 0.0
    for mode, names in LOOPS.items():
        for name in names:
            f = getattr(loops, name)
            cpu += _cpu(lambda f=f, mode=mode: dgraph.make_function(f, mode, point=(loops.X,)))
    return cpu


def loops_grouped() -> float:
    _warm_loops()
    cpu = 0.0
    for mode, names in LOOPS.items():
        f = _sliced_sum([getattr(loops, name) for name in names], loops.N)
        x = np.tile(loops.X, len(names))
        cpu += _cpu(lambda f=f, mode=mode, x=x: dgraph.make_function(f, mode, point=(x,)))
    return cpu


def _by_method() -> dict[tuple, list[str]]:
    """tests/test_complex_fft.py's Jacobian cases by the method the test names and
    their point."""
    found: dict[tuple, list[str]] = {}
    for name, (_, x) in fft.CASES.items():
        found.setdefault((fft.CHOSEN[name], tuple(x)), []).append(name)
    return found


def fft_jacobians_separate() -> float:
    _warm_plain()
    cpu = 0.0
    for name, (f, x) in fft.CASES.items():
        method = fft.CHOSEN[name]
        cpu += _cpu(lambda f=f, x=x, m=method: dgraph.make_function(f, point=(x,), method=m))
    return cpu


def fft_jacobians_grouped() -> float:
    _warm_plain()
    cpu = 0.0
    for (method, x), names in _by_method().items():
        f = _tuple_of([fft.CASES[name][0] for name in names])
        x = np.array(x)
        cpu += _cpu(lambda f=f, x=x, m=method: dgraph.make_function(f, point=(x,), method=m))
    return cpu


def _six() -> list[str]:
    return [name for name, (_, x) in fft.CASES.items() if x.size == 6]


def fft_hessians_separate() -> float:
    _warm_plain()
    cpu = 0.0
    for name in _six():
        f, x = fft.CASES[name]
        s = fft._weighted(f, x)
        cpu += _cpu(lambda s=s, x=x: dgraph.make_function(s, "hessian", point=(x,)))
    return cpu


def fft_hessians_grouped() -> float:
    _warm_plain()
    names = _six()
    f = _sliced_sum([fft._weighted(*fft.CASES[name]) for name in names], 6)
    x = np.concatenate([fft.CASES[name][1] for name in names])
    return _cpu(lambda: dgraph.make_function(f, "hessian", point=(x,)))


def fixed() -> str:
    """Median CPU-s of 10 small makes each (new functions: nothing of them cached)."""
    _warm_plain()
    found = {"hessian (JAX)": [], "jacobian (JAX)": [], "jacobian (NumPy)": []}
    for k in range(10):
        w = 1.0 + k
        f = lambda x, w=w: jnp.sum(jnp.sin(x) ** 2 * w)  # noqa: E731
        g = lambda x, w=w: jnp.sin(x) * x * w  # noqa: E731
        h = lambda x, w=w: np.sin(x) * x * w  # noqa: E731
        found["hessian (JAX)"].append(
            _cpu(lambda f=f: dgraph.make_function(f, "hessian", point=(np.ones(3),)))
        )
        found["jacobian (JAX)"].append(
            _cpu(lambda g=g: dgraph.make_function(g, point=(np.ones(3),)))
        )
        found["jacobian (NumPy)"].append(
            _cpu(lambda h=h: dgraph.make_function(h, point=(np.ones(3),)))
        )
    return ", ".join(f"{k} {statistics.median(v):.3f}" for k, v in found.items())


def remake() -> str:
    """fori_cond's dense Hessian made three times, each from a new function object."""
    _warm_loops()
    f = loops.fori_cond
    times = []
    for _ in range(3):
        g = types.FunctionType(f.__code__, f.__globals__, f.__name__, None, f.__closure__)
        times.append(_cpu(lambda g=g: dgraph.make_function(g, "hessian", point=(loops.X,))))
    return " ".join(f"{t:.3f}" for t in times)


CASES = {
    "loops-separate": loops_separate,
    "loops-grouped": loops_grouped,
    "fft-jacobians-separate": fft_jacobians_separate,
    "fft-jacobians-grouped": fft_jacobians_grouped,
    "fft-hessians-separate": fft_hessians_separate,
    "fft-hessians-grouped": fft_hessians_grouped,
    "fixed": fixed,
    "remake": remake,
}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        sys.exit(f"usage: python benchmarks/grouped_makes.py {{{'|'.join(CASES)}}}")
    found = CASES[sys.argv[1]]()
    print(sys.argv[1], f"{found:.2f}" if isinstance(found, float) else found)
