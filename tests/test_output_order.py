"""Outputs follow the function's return order in every builder and every Jacobian layout
(dense rows, the tensor dict, sparse CSR rows), whatever order they were computed in."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph import from_function, from_jax
from dgraph.codegen.function import make_function

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def lighthouse(nu, gamma, omega, t):
    """Graphax's Lighthouse (graphax/examples, tested in tests/examples/example_test.py,
    ExampleTests.test_Lighthouse at .02 for all four): the second output reads the
    first, so the first is finished after the second's operands."""
    y1 = nu * jnp.tan(omega * t) / (gamma - jnp.tan(omega * t))
    y2 = gamma * y1
    return y1, y2


def reversed_jax(x, y):
    """Outputs returned in an order unlike their computation: the last computed first,
    one that is read by another in the middle, the first computed last."""
    a = jnp.sin(x)
    b = jnp.cos(y)
    c = a * b
    return c, b, a * 2.0


def reversed_numpy(x, y):
    a = np.sin(x)
    b = np.cos(y)
    c = a * b
    return c, b, a * 2.0


def _jax_reference(f, point):
    with jax.enable_x64(True):
        rows = jax.jit(jax.jacfwd(f, argnums=tuple(range(len(point)))))(*map(jnp.float64, point))
    return np.array([[float(entry) for entry in row] for row in rows])


def _numpy_reference(f, point, h=1e-6):
    point = np.asarray(point, dtype=float)
    columns = []
    for k in range(len(point)):
        step = np.zeros_like(point)
        step[k] = h
        columns.append((np.array(f(*(point + step))) - np.array(f(*(point - step)))) / (2 * h))
    return np.array(columns).T


def _dense(graph, point, sparse):
    """The Jacobian of the generated function, rows in ``graph.outputs`` order."""
    J = make_function(graph, sparse=sparse)
    if not graph.is_tensor:
        out = J(np.array(point))
        return out.toarray() if hasattr(out, "toarray") else np.asarray(out)
    if sparse:  # one CSR array: rows are the outputs, in order
        return J.stacked(*point).toarray()
    out = J(*point)  # scalars here: a tuple over the outputs of tuples over the inputs
    rows = out if len(graph.outputs) > 1 else (out,)
    return np.array(
        [[np.asarray(b).item() for b in (row if len(graph.inputs) > 1 else (row,))] for row in rows]
    )


POINT_4 = (0.02, 0.02, 0.02, 0.02)


@pytest.mark.parametrize("level", ["element", "array"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(
    ("f", "point", "expected"),
    [(lighthouse, POINT_4, ["y0", "y1"]), (reversed_jax, (0.7, 1.3), ["f0", "f1", "f2"])],
)
def test_jax_outputs_in_return_order(f, point, expected, level, sparse):
    graph = from_jax(f, *point, level=level)
    assert graph.outputs == expected
    np.testing.assert_allclose(_dense(graph, point, sparse), _jax_reference(f, point), rtol=1e-10)


@pytest.mark.parametrize("level", ["element", "array"])
@pytest.mark.parametrize("sparse", [False, True])
def test_numpy_outputs_in_return_order(level, sparse):
    point = (0.7, 1.3)
    graph = from_function(reversed_numpy, level=level)
    assert graph.outputs == ["f0", "f1", "f2"]
    np.testing.assert_allclose(
        _dense(graph, point, sparse), _numpy_reference(reversed_numpy, point), rtol=1e-7
    )


@pytest.mark.parametrize("level", ["element", "array"])
def test_dict_outputs_keep_their_order(level):
    def f(x, y):
        a = np.sin(x)
        b = np.cos(y)
        return {"q": a * b, "p": a}

    assert from_function(f, level=level).outputs == ["q", "p"]
