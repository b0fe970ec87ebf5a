"""A tensor graph and its element-by-element expansion give the same Jacobian."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

jnp = pytest.importorskip("jax.numpy")

from dgraph.blocks import to_matrix  # noqa: E402
from dgraph.core.block_values import jacobian_blocks, vertex_values  # noqa: E402
from dgraph.frontends import from_jax  # noqa: E402
from dgraph.methods import accumulate  # noqa: E402

_C = np.linspace(0.5, 1.5, 9).reshape(3, 3)

# each keeps the running value v of shape (2, 3); x is the input
_STEPS = {
    "sin": lambda v, x: jnp.sin(v),
    "tanh": lambda v, x: jnp.tanh(v) * x,
    "exp": lambda v, x: jnp.exp(0.3 * v),
    "times input": lambda v, x: v * x,
    "matmul": lambda v, x: v @ _C,
    "row sums": lambda v, x: v + jnp.sum(v, axis=1, keepdims=True),
    "shift": lambda v, x: jnp.pad(v[:, 1:], ((0, 0), (0, 1))) + v,
    "flip": lambda v, x: v[::-1] - x,
    "transpose": lambda v, x: (v.T @ jnp.ones((2, 2))).T * v,
    "softmax": lambda v, x: (
        jnp.exp(v - jnp.max(v, axis=1, keepdims=True))
        / jnp.sum(jnp.exp(v - jnp.max(v, axis=1, keepdims=True)), axis=1, keepdims=True)
    ),
    "concat": lambda v, x: jnp.concatenate([v[:, :1] * 2.0, v[:, 1:]], axis=1),
}


def _program(names):
    def f(x):
        v = x
        for name in names:
            v = _STEPS[name](v, x)
        return v

    return f


def _tensor_jacobian(es, x):
    values = vertex_values(es.graph, {es.graph.inputs[0]: x})
    ((_, part),) = jacobian_blocks(es, values).items()
    return to_matrix(*part).toarray()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(sorted(_STEPS)), min_size=1, max_size=4), st.integers(0, 99))
def test_the_two_levels_give_the_same_jacobian(names, seed):
    f = _program(names)
    x = np.random.default_rng(seed).uniform(0.5, 1.5, (2, 3))
    tensor = from_jax(f, x, level="array")
    es = accumulate(tensor, "reverse")
    assert es.verified
    element = accumulate(from_jax(f, x), "reverse")
    expected = np.asarray(element.evaluate(x.ravel()))
    assert np.allclose(_tensor_jacobian(es, x), expected, rtol=1e-9, atol=1e-12)


def test_the_stencil_graph_does_not_grow_with_the_grid():
    """exp of a 5-point Laplacian (zero boundary): the same vertices and edges at 5 x 5
    and 60 x 60. Its Jacobian diag(exp(0.1 L u)) · 0.1 L: forward folds the constants
    into L and pays one multiplication per nonzero of L, 5 n² - 4 n; reverse scales the
    diagonal by 0.1 and by -4 (2 n²) and sums the shifted copies (additions only)."""

    def residual(u):
        p = jnp.pad(u, 1)
        lap = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u
        return jnp.exp(0.1 * lap) - u

    sizes = {n: from_jax(residual, np.ones((n, n)), level="array") for n in (5, 60)}
    assert len(sizes[5]) == len(sizes[60]) and sizes[5].n_edges == sizes[60].n_edges
    n = 60
    forward, reverse = (accumulate(sizes[n], m) for m in ("forward", "reverse"))
    assert forward.verified and forward.mults == 5 * n * n - 4 * n
    assert reverse.verified and reverse.mults == 2 * n * n


def test_stop_gradient_is_kept_by_the_numerical_check():
    """x * stop_gradient(x): the derivative is stop_gradient(x) alone; JAX's jvp says
    so, and central differences of the program (the graph without its JAX reference)
    keep the stopped value, so both checks agree."""
    import jax

    from dgraph import make_function

    def f(x):
        return x * jax.lax.stop_gradient(jnp.sin(x))

    x = np.linspace(0.5, 1.0, 4)
    g = from_jax(f, x, level="array")
    es = accumulate(g, "forward")
    assert es.verified and "agrees with JAX's jvp at the user's point" in es.verification.detail
    generated = make_function(es.graph, "jacobian").generated
    assert generated.verified and "along a random direction" in generated.check.detail
    plain = g.copy()
    plain.set_jvp_reference(None)
    es = accumulate(plain, "forward")
    assert es.verified and "agrees with central differences" in es.verification.detail
