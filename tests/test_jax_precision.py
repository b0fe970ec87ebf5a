"""A generated JAX module under both of JAX's precisions in one process.

The build checks a JAX module in doubles (x64 on); the user may call it with x64 off. JAX
remembers a NumPy constant's type per array while a trace that read it lives, so a
module's jitted function traced with x64 on, then with it off, lowered a float64
constant against float32 operands and failed to compile. The module's jitted functions
read 32-bit copies of its 64-bit constants with x64 off (``jit_arguments.BOUND``), so the
module the build checked is the one returned, and its first call in doubles runs the
program the check compiled."""

from __future__ import annotations

import functools
import logging

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

import dgraph  # noqa: E402
from dgraph.codegen.python import load_python  # noqa: E402

from .dense import dense as _dense  # noqa: E402

N = 8
X = np.random.default_rng(2).uniform(-1.0, 1.0, N)


def objective(x):
    """Rosenbrock plus a term whose module constants are float vectors and scalars."""
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2) + 2.5 * jnp.sum(
        jnp.sin(x) * x
    )


@functools.cache
def reference() -> np.ndarray:
    """``jax.hessian`` at ``X`` in doubles (one jitted program: op by op it compiles each)."""
    with jax.enable_x64(True):
        return np.asarray(jax.jit(jax.hessian(objective))(jnp.asarray(X)))


@pytest.fixture(scope="module")
def built():
    """The sparse JAX Hessian, built (and checked with x64 on) where x64 is off."""
    with jax.enable_x64(False):
        return dgraph.hessian(objective, X, sparse=True, lang="jax")


def test_built_in_doubles_then_called_with_x64_off_and_on(built):
    H = built
    with jax.enable_x64(False):
        single = H(X)
        assert single.data.dtype == np.float32
        np.testing.assert_allclose(_dense(single), reference(), rtol=1e-5, atol=1e-4)
        lower = H.gradient.generated.tril(X)  # the module's other jitted function
        np.testing.assert_allclose(_dense(lower), np.tril(reference()), rtol=1e-5, atol=1e-4)
        np.testing.assert_array_equal(_dense(jax.jit(H)(X)), _dense(single))
    with jax.enable_x64(True):
        double = H(X)
        assert double.data.dtype == np.float64
        np.testing.assert_allclose(_dense(double), reference(), rtol=1e-13, atol=1e-12)
    with jax.enable_x64(False):
        np.testing.assert_array_equal(_dense(H(X)), _dense(single))


def test_module_text_on_then_off_in_one_load(built):
    with jax.enable_x64(True):
        module = load_python(built.gradient.generated.text)
        double = _dense(module.jacobian(X))
    with jax.enable_x64(False):
        single = _dense(module.jacobian(X))
    assert single.dtype == np.float32 and double.dtype == np.float64
    np.testing.assert_allclose(single, double, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(double, reference(), rtol=1e-13, atol=1e-12)


def _compiled(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "Compiling jit(_jacobian" in r.getMessage()]


def test_first_call_in_doubles_runs_the_checked_program(caplog):
    with jax.enable_x64(True):
        H = dgraph.hessian(objective, X, sparse=True, lang="jax")
        with caplog.at_level(logging.WARNING), jax.log_compiles(True):
            H(X)
            H(jnp.asarray(X))
        assert _compiled(caplog) == []  # the check's program, traced and compiled once
    with jax.enable_x64(False), caplog.at_level(logging.WARNING), jax.log_compiles(True):
        H(X)
    assert len(_compiled(caplog)) == 1  # a new precision: one program of its own
