"""The build's work grows with the program, not faster (issue 55: every default path
answers a 100-operation function in seconds; asdex's CUTEst set built in seconds each).
Counted, not timed: the operands the jaxpr reader's constant propagation looks at, the
equations it compiles into jitted programs; values against the Hessian by hand (the
unrolled spline) or ``jax.hessian``."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.frontends import jaxpr_arrays  # noqa: E402
from dgraph.frontends.jaxpr import from_jax  # noqa: E402


def _spline_sum(m: int):
    """VANDANMSLS's shape: a piecewise cubic of constants (``jnp.where``: a nested call)
    unrolled ``m`` times, each a coefficient of the input."""

    def basis(t):
        return jnp.where(t <= 0.3, (0.3 - t) ** 3, jnp.where(t >= 0.7, (t - 0.7) ** 2, 0.1 * t))

    def f(a):
        knots = jnp.linspace(0.0, 1.0, m)
        total = 0.0
        for k in range(m):
            total = total + a[k % a.size] ** 2 * basis(knots[k] * 0.5 + 0.25)
        return total

    return f


def _spline_hessian(m: int, x: np.ndarray) -> np.ndarray:
    """:func:`_spline_sum`'s Hessian by hand (NumPy): diagonal, entry i twice the sum of
    the basis values at the terms of coefficient a[i]."""
    t = np.linspace(0.0, 1.0, m) * 0.5 + 0.25
    basis = np.where(t <= 0.3, (0.3 - t) ** 3, np.where(t >= 0.7, (t - 0.7) ** 2, 0.1 * t))
    return np.diag(2 * np.bincount(np.arange(m) % x.size, weights=basis, minlength=x.size))


def _read(monkeypatch, f, x) -> tuple[object, list]:
    """The graph of ``jax.grad(f)`` and the readers that read it."""
    readers: list = []
    prefold = jaxpr_arrays._Reader.prefold

    def spy(self, eqns, env):
        readers.append(self)
        return prefold(self, eqns, env)

    monkeypatch.setattr(jaxpr_arrays._Reader, "prefold", spy)
    return from_jax(jax.grad(f), x, level="array"), readers


@pytest.mark.parametrize("m", [12, 48])
def test_constant_work_is_looked_at_once_and_compiled_per_kind(monkeypatch, m):
    """The operands looked at are at most twice the program's (they were once per call
    on constants: quadratic), and no jitted program folds the repeated scalar operations
    (they were recompiled in programs of up to 512 equations, one after each call)."""
    f = _spline_sum(m)
    x = np.linspace(0.5, 1.5, 4)
    g, readers = _read(monkeypatch, f, x)
    (top,) = {id(r): r for r in readers}.values()
    with jax.enable_x64(True):
        closed = jax.make_jaxpr(jax.grad(f))(x)
    operands = sum(len(e.invars) for e in closed.jaxpr.eqns)
    assert operands > 8 * m  # the unrolled program
    assert top.looked <= 2 * operands + 64  # the nested bodies' own, a few each
    compiled = sum(len(eqns) for eqns, _ in top.prefold_programs.values())
    assert compiled <= 16  # the nested body's few, once: not growing with m
    assert top.folded >= 6 * m
    want = _spline_hessian(m, x)
    got = dgraph.accumulate(g, "forward").evaluate([x])[0]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def test_distinct_operations_on_constants_are_still_compiled_together(monkeypatch):
    """A batch of operations each of its own kind (shape or primitive) is one program: the
    transcendental ones and what reads them (the slices, the iota, the square root are
    NumPy's, as JAX binds them: :mod:`dgraph.frontends.jaxpr_exact`)."""

    def f(x):
        w = jnp.arange(1.0, 6.0)
        v = jnp.sin(w[:3]) + jnp.cos(w[2:]) * jnp.exp(w[1:4]) / jnp.sqrt(w[:3] + 1.0)
        return jnp.sum(v * x**3)

    x = np.array([0.3, -0.7, 1.1])
    g, readers = _read(monkeypatch, f, x)
    top = readers[0]
    programs = [eqns for eqns, _ in top.prefold_programs.values()]
    names = {e.primitive.name for eqns in programs for e in eqns}
    assert len(programs) == 1 and len(programs[0]) >= 6 and {"sin", "cos", "exp"} <= names
    assert not names & {"slice", "iota", "sqrt"}
    with jax.enable_x64(True):
        want = np.asarray(jax.jit(jax.hessian(f))(jnp.asarray(x)))  # one compile
    got = dgraph.accumulate(g, "forward").evaluate([x])[0]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
