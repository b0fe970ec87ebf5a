"""A Python function given to ``make_function`` / ``jacobian`` is read by the reader its
code asks for (:func:`dgraph.frontends.from_python`): JAX functions from their jaxpr, at
the element level where there is one, else the array level (loops, branches)."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
from dgraph.errors import InputError
from dgraph.frontends import from_python

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jax.config.update("jax_enable_x64", True)

from tests import jax_reference as jref  # noqa: E402

X = np.array([0.7, -1.2, 0.4, 1.5, 0.9, -0.3])


def softmax(x):
    return jax.nn.softmax(x)


def rolled(x):
    return jnp.roll(x, 2) * x + jnp.clip(x, -0.5, 0.5)


def set_at(x):  # no JAX name in its code: the NumPy tracer refuses .at, JAX reads it
    return x.at[1].set(x[0] * x[2])


def newton(x):
    def cond(s):
        return jnp.abs(s[0] ** 2 - s[1]).max() > 1e-12

    def body(s):
        return (s[0] - (s[0] ** 2 - s[1]) / (2 * s[0]), s[1])

    return jax.lax.while_loop(cond, body, (jnp.full_like(x, 2.0), x**2 + 1))[0]


def branch(x):
    return jax.lax.cond(x.sum() > 0, jnp.sin, lambda v: v**3, x)


@pytest.mark.parametrize("f", [softmax, rolled, set_at, newton, branch])
def test_make_function_of_a_jax_function_agrees_with_jax(f):
    J = np.asarray(jref.jacfwd(f)(X))  # stored, or jitted
    J_made = dgraph.make_function(f, point=[X], method="forward")  # no choice to make: cheap
    np.testing.assert_allclose(J_made(X), J, atol=1e-13)
    w = np.linspace(-1.0, 1.0, len(J))
    vjp = dgraph.make_function(f, "vjp", point=[X], method="reverse")(X, w)
    vjp = vjp[-1] if isinstance(vjp, tuple) else vjp
    np.testing.assert_allclose(np.asarray(vjp), w @ J, atol=1e-13)


def test_the_reader_and_level_chosen():
    g = from_python(softmax, sizes=[6], level=None)
    assert (g.traced_with, g.is_tensor, len(g.inputs)) == ("jax", False, 6)
    loop = from_python(newton, point=[X], level=None)
    assert loop.is_tensor and loop.inputs == ["x"]
    assert any("read at the array level" in n and "loop" in n for n in loop.notes)
    np.testing.assert_array_equal(loop.point["x"], X)  # the user's point, not the ones read at
    assert from_python(softmax, sizes=[6]).point is None


def test_a_numpy_function_keeps_the_tracers_message():
    def branchy(x):
        return x[0] if x[0] > 0 else -x[0]  # a Python branch on a traced value

    with pytest.raises(InputError, match=r"write it with numpy\.where"):
        dgraph.make_function(branchy, sizes=[2])


def test_past_the_edge_limit_a_numpy_function_is_read_at_the_array_level():
    def residual(u):
        return u[:-2] - 2 * u[1:-1] + u[2:] + 0.1 * np.exp(u[1:-1])

    u = np.linspace(0.0, 1.0, 10_000)  # 129,974 scalar edges: over the limit of 100,000
    g = from_python(residual, point=[u], level=None)
    assert g.is_tensor and g.traced_with == "numpy" and g.inputs == ["u"]
    assert "129,974 scalar edges" in g.notes[-1]
    with pytest.raises(InputError, match="over the limit"):
        from_python(residual, point=[u])  # the element level, asked for


def where(x):
    return jnp.where(x > 0, x**2, jnp.sin(x))


def test_a_large_function_is_read_at_the_array_level_by_default():
    # 2000 entries: 8,000 scalar edges, within EDGE_LIMIT but over DEFAULT_EDGE_LIMIT, so a
    # level named by no one is the array level (make_function of its element level: over a
    # minute of CPU, of its array level half a second; benchmarks/jacobian_levels.py)
    from dgraph.core.expand import DEFAULT_EDGE_LIMIT, EDGE_LIMIT

    x = np.linspace(-1.0, 1.0, 2000)
    g = from_python(where, point=[x], level=None)
    assert g.is_tensor and g.inputs == ["x"] and g.traced_with == "jax"
    assert DEFAULT_EDGE_LIMIT < 8_000 <= EDGE_LIMIT
    assert "8,000 scalar edges" in g.notes[-1] and 'level="element", on' in g.notes[-1]
    assert "the command line --level element, reads it" in g.notes[-1]  # survey37b
    J = dgraph.make_function(where, point=[x], sparse=True)  # the same default
    assert J.generated.__class__.__name__ == "TensorGenerated"
    np.testing.assert_allclose(J(x).diagonal(), np.where(x > 0, 2 * x, np.cos(x)), atol=1e-15)
    # a few dozen entries stay at the element level: one scalar vertex per entry
    small = from_python(where, point=[x[:48]], level=None)
    assert not small.is_tensor and len(small.inputs) == 48 and not small.notes


def running(x):
    return jax.lax.cumlogsumexp(x) + jnp.cumprod(jax.nn.sigmoid(-x))


def test_the_default_level_counts_the_element_levels_own_edges():
    """The survey's logcumsumexp_cumprod at 20 entries: its blocks bound 500 scalar edges,
    its element level has 555 (cumlogsumexp's running max: a vertex of two edges, read
    with partial 0, per entry), over DEFAULT_EDGE_LIMIT, so the default reads the array
    level (main: the element level, 555 edges; make_function 4.2-4.5 CPU-s against 0.8,
    benchmarks/cumulative_build.py); at 18 entries, 463 edges, the element level."""
    from dgraph.core.expand import DEFAULT_EDGE_LIMIT, scalar_edges

    x = np.random.default_rng(20_000).normal(size=20)
    assert scalar_edges(from_python(running, point=[x], level="array")) == DEFAULT_EDGE_LIMIT
    assert from_python(running, point=[x], level="element").n_edges == 555
    g = from_python(running, point=[x], level=None)
    assert g.is_tensor and "555 scalar edges, over the 500" in g.notes[-1]
    J = dgraph.make_function(running, point=[x])
    s = 1 / (1 + np.exp(x))  # sigmoid(-x): J[i, j] = exp(x_j - y_i) - prod_{k<=i} s_k (1 - s_j)
    y, p = np.logaddexp.accumulate(x), np.cumprod(s)
    expected = np.tril(np.exp(x[None, :] - y[:, None]) - p[:, None] * (1 - s[None, :]))
    np.testing.assert_allclose(J(x), expected, rtol=1e-13, atol=1e-15)
    small = from_python(running, point=[x[:18]], level=None)
    assert not small.is_tensor and small.n_edges == 463 and not small.notes


def namespaced(x, xp=jnp):  # array-API style: JAX only through a default, unseen by uses_jax
    return xp.tanh(x) * xp.cos(x)


def test_a_function_given_jax_as_a_default_is_read_by_jax_at_either_level():
    """The NumPy tracer refuses ``jnp.tanh`` of its traced values and JAX reads the
    function instead; over the default's edge limit JAX's "no element level" was taken
    for its failure, and the NumPy tracer's message raised ("Argument TracedArray ... is
    not a valid JAX type"); now read at the array level, as a JAX function named so is."""
    x = np.linspace(-1.0, 1.0, 400)  # over DEFAULT_EDGE_LIMIT scalar edges
    g = from_python(namespaced, point=[x], level=None)
    assert g.is_tensor and g.traced_with == "jax"
    J = dgraph.make_function(namespaced, point=[x], sparse=True)
    want = (1 - np.tanh(x) ** 2) * np.cos(x) - np.tanh(x) * np.sin(x)
    np.testing.assert_allclose(J(x).diagonal(), want, atol=1e-15)


def test_a_numpy_function_over_the_edges_is_traced_once(monkeypatch):
    """With no level named, the element level is the array trace expanded; over the
    default's edges the array level is that same trace (traced twice before), with the
    user's point and the note, and the graph the array level's own reading gives."""
    from dgraph.frontends import array_tracer

    def f(x, w):
        return np.tanh(np.outer(x, w) @ w).sum() + x @ x

    x, w = np.linspace(0.1, 1.0, 40), np.linspace(-1.0, 1.0, 30)
    traced = []
    original = array_tracer.trace_arrays

    def counted(*args, **kwargs):
        traced.append(args[1])
        return original(*args, **kwargs)

    monkeypatch.setattr(array_tracer, "trace_arrays", counted)
    monkeypatch.setattr(dgraph.frontends.functions, "trace_arrays", counted)
    g = from_python(f, point=[x, w], level=None)
    assert traced == [[(40,), (30,)]]
    assert g.is_tensor and any("read at the array level" in n for n in g.notes)
    np.testing.assert_array_equal(g.point["w"], w)
    array = from_python(f, point=[x, w], level="array")
    assert g.to_json() == array.to_json()


def test_from_function_takes_its_arguments_sizes_from_point():
    """``from_function(f, point=[x, y])`` reads each argument at its example's shape, as
    ``from_python`` and ``dgraph.jacobian`` do (before session 62 it read every argument
    as a scalar and refused ``x[1:]``, its hint naming the point= it was given)."""
    from dgraph.frontends import from_function

    def f(x, y):
        return np.sum(x[1:] * x[:-1]) * y

    x = np.array([0.5, 1.0, -2.0, 1.5])
    g = from_function(f, point=[x, 2.0])
    assert g.inputs == from_function(f, sizes=[4, 0]).inputs
    assert [float(v) for v in g.point.values()] == [*x, 2.0]
    grad = [2.0 * x[1], 2.0 * (x[0] + x[2]), 2.0 * (x[1] + x[3]), 2.0 * x[2], f(x, 1.0)]
    values = dgraph.make_function(g, "jacobian")(np.array([*x, 2.0]))
    np.testing.assert_allclose(np.ravel(values), grad, rtol=1e-14)
