"""The graph's values at the user's point against the function's own
(dgraph.frontends.point_values): a reading made wrong on purpose is refused in one line;
randomness, single precision and functions NumPy cannot run claim nothing."""

from __future__ import annotations

import numpy as np
import pytest

import dgraph
import dgraph.core.expand as expand
from dgraph.errors import InputError
from dgraph.frontends import from_function
from dgraph.frontends.point_values import check_point_values

X = np.array([1.0, 1.0, 0.0, 0.5, -0.5, -2.0])


def _f(x):
    a, b = x[:3], x[3:]
    return np.where(a > 0.5, a * b, np.sin(a) + b), np.sum(np.exp(b))


def test_the_graph_of_another_function_is_refused() -> None:
    graph = from_function(_f, sizes=[6], point=[X])  # its own: no refusal
    check_point_values(graph, _f, [X], "f")

    def other(x):
        y, s = _f(x)
        return y.at[1].set(0) if hasattr(y, "at") else np.where(np.arange(3) == 1, 0.0, y), s

    with pytest.raises(InputError, match=r"^f: read wrongly: at the point, output entry 1 "):
        check_point_values(graph, other, [X], "f")


def test_a_select_read_wrongly_on_purpose_is_refused(monkeypatch) -> None:
    """The element level's select with its cases swapped: make_function refuses it in
    one line naming the first entry that differs (before, verified: the check's
    differences are of the graph itself)."""
    select = expand.SYMPY["select_n"]
    monkeypatch.setitem(expand.SYMPY, "select_n", lambda p, *cases: select(p, *cases[::-1]))
    with pytest.raises(InputError, match="read wrongly: at the point, output entry 0 of"):
        dgraph.make_function(_f, "jacobian", "python", point=[X])


def test_array_level_reading_is_compared_too() -> None:
    def f(x):
        return np.cumsum(np.tanh(x) * x[::-1])

    graph = from_function(f, sizes=[6], point=[X], level="array")
    assert graph.is_tensor
    check_point_values(graph, f, [X], "f")
    with pytest.raises(InputError, match="6 entries differ"):
        check_point_values(graph, lambda x: f(x) + 1.0, [X], "f")


def test_what_cannot_be_compared_claims_nothing() -> None:
    graph = from_function(lambda x: np.sin(x) * 2.0, sizes=[6], point=[X])
    rng = np.random.default_rng(0)
    check_point_values(graph, lambda x: np.sin(x) + rng.normal(size=6), [X], "f")  # random
    check_point_values(graph, lambda x: np.sin(x[:3]), [X], "f")  # another size
    check_point_values(graph, lambda x: {"y": x}, [X], "f")  # not numbers

    def tracer_only(x):
        raise TypeError("needs the tracer")

    check_point_values(graph, tracer_only, [X], "f")


def test_single_precision_is_compared_at_its_own_precision() -> None:
    graph = from_function(lambda x: np.exp(x) * 1e3, sizes=[6], point=[X])
    check_point_values(graph, lambda x: (np.exp(x) * 1e3).astype(np.float32), [X], "f")
    with pytest.raises(InputError, match="read wrongly"):
        check_point_values(graph, lambda x: (np.exp(x) * 1.01e3).astype(np.float32), [X], "f")


def test_a_finite_value_read_as_nan_is_refused() -> None:
    """The graph of log(x) at a point with a negative entry, checked against
    nan_to_num(log(x)): NaN where the function gives a number."""
    y = np.array([0.5, -1.0, 2.0])
    graph = from_function(lambda x: np.log(x), sizes=[3], point=[y])
    with np.errstate(all="ignore"):
        check_point_values(graph, lambda x: np.log(x), [y], "f")  # NaN on both sides
        with pytest.raises(InputError, match="output entry 1 of the graph is nan where"):
            check_point_values(graph, lambda x: np.nan_to_num(np.log(x)), [y], "f")


def test_a_jax_function_read_wrongly_at_the_element_level_is_refused(monkeypatch) -> None:
    """An element level read from JAX with its select's cases swapped on purpose: the
    graph's values at the point are not JAX's (JAX's ``jvp`` checks only where the graph is
    finite), refused in one line; read as it is, the same function passes."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    def f(x):
        return jnp.where(x > 0.5, x * x, jnp.sin(x))

    with jax.enable_x64(True):
        dgraph.make_function(f, "jacobian", "python", point=[X])
        select = expand.SYMPY["select_n"]
        monkeypatch.setitem(expand.SYMPY, "select_n", lambda p, *c: select(p, *c[::-1]))
        with pytest.raises(InputError, match="read wrongly: at the point, output entry 0 of"):
            dgraph.make_function(f, "jacobian", "python", point=[X])


def test_an_output_that_cancels_to_rounding_is_not_refused() -> None:
    """A residual at its solution: sympy's element level folds ``sum(x*x) - dot(x, x)`` to
    0 where NumPy gives 5.7e-14. Its rounding is measured against the terms computed
    (the largest vertex value, 941), not against the outputs (all below 1e-13: refused
    before)."""
    y = np.random.default_rng(1).uniform(1.0, 2.0, 200)

    def residual(x):
        return np.array([np.sum(x) - np.sum(x[::-1]), np.sum(x * x) - np.dot(x, x)])

    graph = from_function(residual, sizes=[200], point=[y])
    assert not graph.is_tensor
    check_point_values(graph, residual, [y], "f")
    with pytest.raises(InputError, match="read wrongly"):
        check_point_values(graph, lambda x: residual(x) + 0.1, [y], "f")
