"""JAX derivative references for the tests, jitted.

Eager ``jax.hessian(g)(x)`` runs op by op and compiles one small XLA program per new
primitive and shape; under ``jax.jit`` the whole transform compiles once, which is several
times cheaper for the reference programs of the tests (same values). Use these only for
functions that take arrays and return arrays (no Python branching on values). Each
transform is kept per function, so a test that calls one at several points of one shape
compiles it once (the last 64 kept: each holds its compiled program).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import jax
import numpy as np

__all__ = [
    "assert_hessian",
    "forward_hessian",
    "hessian",
    "jacfwd",
    "jacobian",
    "jacrev",
    "value_gradient_hessian",
]

Argnums = int | Sequence[int]


def _argnums(argnums: Argnums) -> int | tuple[int, ...]:
    return argnums if isinstance(argnums, int) else tuple(argnums)


@functools.lru_cache(maxsize=64)  # bounded: a test's functions are new objects
def _jitted(transform: str, g: Callable[..., Any], argnums: int | tuple[int, ...]) -> Any:
    return jax.jit(getattr(jax, transform)(g, argnums=argnums))


def hessian(g: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """``jax.jit(jax.hessian(g, argnums))``."""
    return _jitted("hessian", g, _argnums(argnums))


def jacfwd(g: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """``jax.jit(jax.jacfwd(g, argnums))``."""
    return _jitted("jacfwd", g, _argnums(argnums))


def jacrev(g: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """``jax.jit(jax.jacrev(g, argnums))``."""
    return _jitted("jacrev", g, _argnums(argnums))


def jacobian(g: Callable[..., Any], argnums: Argnums = 0) -> Callable[..., Any]:
    """``jax.jit(jax.jacobian(g, argnums))`` (reverse mode, as ``jax.jacobian``)."""
    return _jitted("jacobian", g, _argnums(argnums))


@functools.lru_cache(maxsize=64)  # bounded: a test's functions are new objects
def value_gradient_hessian(g: Callable[..., Any]) -> Callable[..., Any]:
    """``x -> (g(x), jax.grad(g)(x), jax.hessian(g)(x))`` of a scalar ``g`` as one jitted
    program: the Hessian is ``jax.hessian``'s ``jacfwd(jacrev(g))``, and the value and
    gradient are its forward pass's primal outputs, so XLA compiles the Hessian's program
    alone (not three programs, the Hessian's holding the other two)."""

    def gradient(x: Any) -> tuple[Any, tuple[Any, Any]]:
        value, grad = jax.value_and_grad(g)(x)
        return grad, (value, grad)

    def all_three(x: Any) -> tuple[Any, Any, Any]:
        hess, (value, grad) = jax.jacfwd(gradient, has_aux=True)(x)
        return value, grad, hess

    return jax.jit(all_three)


def gradient_and_hessian_by_mode(g: Callable[..., Any], x: Any) -> dict[str, Any]:
    """JAX's gradient and Hessian of ``g`` at ``x`` as ``{"jacobian": …, "hessian": …}``
    (NumPy arrays), from one jitted :func:`value_gradient_hessian` program (the gradient is
    the Hessian's forward pass), not one per mode."""
    with jax.enable_x64(True):
        _, gradient, hessian_ = value_gradient_hessian(g)(x)
    return {"jacobian": np.asarray(gradient), "hessian": np.asarray(hessian_)}


@functools.lru_cache(maxsize=64)  # bounded: a test's functions are new objects
def forward_hessian(g: Callable[..., Any]) -> Callable[..., Any]:
    """``jax.jit(jax.jacfwd(jax.jacfwd(g)))``: forward over forward (JAX's reverse mode
    refuses a while_loop)."""
    return jax.jit(jax.jacfwd(jax.jacfwd(g)))


def assert_hessian(
    f: Callable[..., Any],
    f_jax: Callable[..., Any],
    x: Any,
    rtol: float = 1e-10,
    method: str | None = None,
):
    """``dgraph.hessian(f, x)`` (a NumPy program) equals ``jax.hessian`` of its JAX twin at
    ``x``, and so do the values, to ``rtol`` (absolute: ``rtol`` of the largest entry).
    ``method``: the Hessian's, as :func:`dgraph.hessian` takes it (None: its choice)."""
    import dgraph

    value, _, want = value_gradient_hessian(f_jax)(jax.numpy.asarray(x))
    assert np.isclose(f(x), float(value), rtol=1e-12)
    want = np.asarray(want)
    got = dgraph.hessian(f, x, method=method)(x)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * np.abs(want).max())
