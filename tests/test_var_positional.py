"""A function of ``*xs`` given several arguments (``lambda *xs: op(*xs)``, as JAX's own
autodiff tests write an operation of ``nargs`` arguments): read as one parameter per
argument, ``xs0, xs1, ...`` (:mod:`dgraph.frontends.var_positional`). It was refused:
"point= gives 3 shapes for 1 arguments"."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import dgraph
from dgraph.frontends.var_positional import spread

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _f(*xs):
    return xs[0] * jnp.sin(xs[1]) - 2.0 * xs[2]


def _point() -> list[np.ndarray]:
    """n-d, 1-d and 0-d arguments, broadcast together."""
    rng = np.random.default_rng(3)
    return [rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, 3), np.float64(0.4)]


def _expected(x0: np.ndarray, x1: np.ndarray) -> list[np.ndarray]:
    """∂y/∂x0, ∂y/∂x1, ∂y/∂x2 of :func:`_f`, in ``jax.jacobian``'s layout."""
    d0 = np.einsum("ik,jl->ijkl", np.eye(2), np.diag(np.sin(x1)))
    d1 = np.einsum("ij,jl->ijl", x0 * np.cos(x1), np.eye(3))
    return [d0, d1, np.full((2, 3), -2.0)]


def test_jacobian_of_star_args_in_argument_order() -> None:
    """Each argument its own input, in order: the made function's blocks are ∂y/∂xs[k]
    (an order mixed up would put sin where cos belongs)."""
    x0, x1, x2 = point = _point()
    with jax.enable_x64(True):
        es = dgraph.jacobian(_f, point=point)
        fn = dgraph.make_function(_f, "jacobian", point=point)
        got = fn(x0, x1, x2)
    assert es.verified and fn.generated.verified
    assert {v.split("_")[0] for v in es.graph.inputs} == {"xs0", "xs1", "xs2"}
    for block, want in zip(got, _expected(x0, x1), strict=True):
        np.testing.assert_allclose(np.asarray(block), want, rtol=1e-13, atol=1e-15)


def test_spread_names_and_keeps_other_functions() -> None:
    def g(a, *xs, scale=1.0):
        return a

    assert list(inspect.signature(spread(g, 3)).parameters) == [
        "a", "xs0", "xs1", "scale"
    ]  # fmt: skip
    assert spread(g, 1) is g and spread(g, None) is g and spread(_expected, 5) is _expected
