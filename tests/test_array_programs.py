"""Hypothesis-drawn array programs: the array level's Jacobian equals its element-level
expansion's and JAX's.

A program is a few operations over 0-d, 1-d and 2-d arrays (elementwise functions and
arithmetic with NumPy broadcasting, ``where``, ``maximum``, powers, sums, a max,
transposes, slices, reversals, concatenations, reshapes, products), drawn operation by
operation (tests/strategies.py's convention: the structure is drawn, not a seed, so a
failure shrinks to fewer, simpler operations). Its graph at the array level
(``from_jax(level="array")``), accumulated by a drawn method, gives a Jacobian from its
blocks (:func:`dgraph.core.block_values.jacobian_blocks`); the element level
(``from_jax``'s default) gives one from scalar partials; JAX's ``jax.jvp`` columns the
reference.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

jax = pytest.importorskip("jax")
jnp = jax.numpy

from dgraph import from_jax  # noqa: E402
from dgraph.blocks import to_matrix  # noqa: E402
from dgraph.core.block_values import jacobian_blocks, vertex_values  # noqa: E402
from dgraph.errors import InputError  # noqa: E402
from dgraph.methods import accumulate  # noqa: E402

SHAPES = ((), (3,), (2, 3))
UNARY = {
    "sin": jnp.sin,
    "tanh": jnp.tanh,
    "square": lambda a: a**2,
    "cube": lambda a: a**3,
    "hypot1": lambda a: jnp.sqrt(a * a + 1),
    "neg": lambda a: -a,
    "scale": lambda a: 2.5 * a,
    "sum-last": lambda a: jnp.sum(a, axis=-1) if a.ndim else a,
    "sum": jnp.sum,
    "max": jnp.max,
    "transpose": lambda a: a.T,
    "reverse": lambda a: a[::-1] if a.ndim else a,
    "slice": lambda a: a[..., 1:] if a.ndim and a.shape[-1] > 1 else a,
    "concat": lambda a: jnp.concatenate([a, 2 * a]) if a.ndim else a,
    "flat": lambda a: a.reshape(-1),
    "pick": lambda a: a[..., jnp.array([1, 0, 1])] if a.ndim and a.shape[-1] >= 2 else a,
}
BINARY = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "sub": lambda a, b: a - b,
    "div": lambda a, b: a / (b * b + 1),
    "maximum": jnp.maximum,
    "where": lambda a, b: jnp.where(a > b, a, b * b),
    "dot": lambda a, b: a @ b,
}


def _apply(step: tuple, values: list) -> jax.Array:
    """One drawn operation on earlier values; where the operands' shapes do not fit it,
    the second operand summed to a number first (always fits)."""
    name, i, j = step
    a = values[i % len(values)]
    if name in UNARY:
        return UNARY[name](a)
    b = values[j % len(values)]
    if name == "dot":
        fits = a.ndim >= 1 and b.ndim == 1 and a.shape[-1] == b.shape[0]
    else:
        try:
            fits = np.broadcast_shapes(a.shape, b.shape) == a.shape or not a.ndim
        except ValueError:
            fits = False
    if not fits:
        return BINARY["mul" if name == "dot" else name](a, jnp.sum(b))
    return BINARY[name](a, b)


@st.composite
def array_programs(draw, max_inputs: int = 2, max_steps: int = 4):
    """A function of 1 or 2 arrays (shapes drawn from 0-d, 1-d, 2-d) and a point."""
    shapes = draw(st.lists(st.sampled_from(SHAPES), min_size=1, max_size=max_inputs))
    names = list(UNARY) + list(BINARY)
    steps = draw(
        st.lists(
            st.tuples(st.sampled_from(names), st.integers(0, 9), st.integers(0, 9)),
            min_size=1,
            max_size=max_steps,
        )
    )
    rng = np.random.default_rng(draw(st.integers(0, 3)))
    point = [rng.uniform(-1.0, 1.0, s) + 0.0 for s in shapes]

    def f(*inputs):
        values = list(inputs)
        for step in steps:
            values.append(_apply(step, values))
        return values[-1] + sum(jnp.sum(jnp.sin(x)) for x in inputs)  # every input read

    return f, point, steps


def _named(f, n: int):
    """``f`` with parameters named a, b (names that no output takes)."""
    return (lambda a: f(a)) if n == 1 else (lambda a, b: f(a, b))


def _indices(name: str, base: str) -> tuple[int, ...]:
    """An element's index from its vertex name (``a``, ``a2``, ``a_1_2``)."""
    digits = name[len(base) :].lstrip("_")
    return tuple(int(k) for k in digits.split("_")) if digits else ()


def jax_jacobian(f, point) -> np.ndarray:
    """(outputs, all inputs side by side), from ``jax.jvp`` column by column (jitted once
    for every column)."""
    jvp = jax.jit(lambda *tangents: jax.jvp(f, tuple(point), tangents)[1])
    columns = []
    for i, a in enumerate(point):
        for j in range(a.size):
            tangents = [np.zeros(b.shape) for b in point]
            tangents[i] = np.eye(a.size)[j].reshape(a.shape)
            columns.append(np.ravel(jvp(*tangents)))
    return np.stack(columns, axis=1)


def array_jacobian(f, point, method: str) -> np.ndarray:
    g = from_jax(f, *point, level="array")
    (y,) = g.outputs
    es = accumulate(g, method, verify=False)
    blocks = jacobian_blocks(es, vertex_values(g, dict(zip(g.inputs, point, strict=True))))
    parts = []
    for x, a in zip(g.inputs, point, strict=True):
        got = blocks.get((y, x))
        size = int(np.prod(g.shape(y)))
        parts.append(np.zeros((size, a.size)) if got is None else to_matrix(*got).toarray())
    return np.hstack(parts)


def element_jacobian(f, point) -> np.ndarray | None:
    """The element-level graph's Jacobian, rows and columns in C order of each array."""
    try:
        g = from_jax(f, *point)
    except InputError:  # an operation the element level refuses in one line (gather)
        return None
    es = accumulate(g, "forward", verify=False)
    flat = np.concatenate([a.ravel() for a in point])
    by_name = dict(zip(g.inputs, range(len(g.inputs)), strict=True))
    order_in = []
    for p, a in zip("ab", point, strict=False):
        mine = sorted((n for n in g.inputs if n[0] == p), key=lambda n, p=p: _indices(n, p))
        assert len(mine) == a.size
        order_in += [by_name[n] for n in mine]
    values = np.empty(len(g.inputs))
    values[order_in] = flat
    J = np.asarray(es.evaluate(values), dtype=float)
    rows = sorted(range(len(g.outputs)), key=lambda r: _indices(g.outputs[r], "y"))
    return J[rows][:, order_in]


@settings(max_examples=25, deadline=None)
@given(array_programs(), st.sampled_from(["forward", "reverse", "markowitz"]))
def test_array_level_equals_element_level_and_jax(program, method) -> None:
    f, point, _ = program
    with jax.enable_x64(True):
        f = _named(f, len(point))
        reference = jax_jacobian(f, point)
        np.testing.assert_allclose(
            array_jacobian(f, point, method), reference, rtol=1e-9, atol=1e-12
        )
        elements = element_jacobian(f, point)
        if elements is not None:
            np.testing.assert_allclose(elements, reference, rtol=1e-9, atol=1e-12)
