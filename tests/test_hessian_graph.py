"""Dixon's Hessian graph (dgraph.core.hessian_graph): its Jacobian is the Hessian of λᵀy,
checked against the worked example f = x·y + sin x, sympy.hessian on drawn programs and
jax.hessian on AlphaGrad's functions; its pattern is the true Hessian's where no value
cancels; the existing methods, verification and code generation run on it unchanged."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dgraph
from dgraph.core.graph import DGraph
from dgraph.core.hessian_graph import adjoint_names, hessian_graph, mirror, weight_parameters
from dgraph.core.paths import path_counts
from dgraph.errors import GraphError
from dgraph.frontends import from_sympy, from_trace

from .strategies import programs

ROOT = Path(__file__).resolve().parents[1]
x, y, z = sympy.symbols("x y z")


def _pattern(H: DGraph) -> set[tuple[int, int]]:
    """The structural pattern of H(g)'s Jacobian: the (row, column) pairs a path joins."""
    return {(H.outputs.index(a), H.inputs.index(b)) for a, b in path_counts(H)}


def test_worked_example_x_y_plus_sin_x():
    g = from_sympy(x * y + sympy.sin(x), [x, y])
    H = hessian_graph(g)
    assert H.inputs == ["x", "y"] and H.outputs == ["x_bar", "y_bar"]
    for method in ("forward", "reverse", "markowitz"):
        es = dgraph.accumulate(H, method)
        assert es.verified
        value = es.evaluate([0.5, 0.3])
        assert value[0, 0] == pytest.approx(-0.4794, abs=1e-4)
        assert np.allclose(value, [[-np.sin(0.5), 1.0], [1.0, 0.0]])
    # a product gives no (a, a) edge: the y-y entry is structurally zero
    assert _pattern(H) == {(0, 0), (0, 1), (1, 0)}


def test_nonlinear_edges_only_where_a_second_partial_is_nonzero():
    g = from_trace("inputs: a, b, c\noutputs: f\nv = a*b\nw = v + c\nf = sin(w)")
    H = hessian_graph(g)
    names = adjoint_names(g)
    nonlinear = {(u, v) for u, v in H.edges() if u in g and v in names.values()}
    # sin(w) gives w -> w_bar; a*b gives b -> a_bar and a -> b_bar; the sum gives none
    assert ("w", "w_bar") in nonlinear and ("b", "a_bar") in nonlinear
    assert not any(u == "c" for u, _ in nonlinear)
    assert ("a", "a_bar") not in nonlinear and ("v", "v_bar") not in nonlinear
    sigma, adjoints = mirror(H)
    assert adjoints == {v for v in H.vertices if v.endswith("_bar")}
    for u, v in H.edges():  # symmetric: each edge's mirror is an edge with an equal label
        if u in sigma and v in sigma:
            assert H.nx.has_edge(sigma[v], sigma[u])
            assert sympy.simplify(H.partial(u, v) - H.partial(sigma[v], sigma[u])) == 0


def _sympy_hessian(g: DGraph, lam: dict[str, float]) -> sympy.Matrix:
    values = g.values()
    lagrangian = sum(lam[out] * values[out] for out in g.outputs)
    return sympy.hessian(lagrangian, [sympy.Symbol(v, real=True) for v in g.inputs])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(max_inputs=3, max_statements=6), st.data())
def test_equals_sympy_hessian_on_drawn_programs(g, data):
    """H(g)'s Jacobian is sympy's Hessian of λᵀy, for given and for parameter weights."""
    lam = {out: data.draw(st.sampled_from([1, -2, 0.5]), label=out) for out in g.outputs}
    given_weights = data.draw(st.booleans(), label="weights given")
    H = hessian_graph(g, lam if given_weights else None)
    es = dgraph.accumulate(H, "reverse")
    assert es.verified
    point = np.linspace(0.3, 0.9, len(g.inputs))
    params = None
    if not given_weights and len(g.outputs) > 1:
        assert weight_parameters(g, H) == {out: f"{out}_bar" for out in g.outputs}
        assert H.parameters == tuple(weight_parameters(g, H).values())
        params = [lam[out] for out in g.outputs]
    elif not given_weights:
        lam = {g.outputs[0]: 1}
    got = es.evaluate(point, params)
    want = _sympy_hessian(g, lam)
    subs = {sympy.Symbol(v, real=True): float(p) for v, p in zip(g.inputs, point, strict=True)}
    expected = np.array(want.subs(subs).evalf(), dtype=float)
    assert np.allclose(got, expected, rtol=1e-9, atol=1e-9)
    # only structurally nonzero entries are present: a zero of sympy's Hessian has no path
    pattern = _pattern(H)
    for i, j in np.argwhere(expected != 0):
        assert (i, j) in pattern


def _alphagrad():
    spec = importlib.util.spec_from_file_location(
        "alphagrad_functions", ROOT / "benchmarks" / "alphagrad_functions.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["PropaneCombustion"])  # all six: benchmarks/hessian_counts.py
def test_equals_jax_hessian_and_its_pattern_on_alphagrad(name):
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    from . import jax_reference as jref

    jax.config.update("jax_enable_x64", True)
    f, args = _alphagrad().FUNCTIONS[name]
    g = dgraph.from_jax(f, *args)
    H = hessian_graph(g)
    lam = np.linspace(0.5, 1.5, len(g.outputs))
    es = dgraph.accumulate(H, "markowitz")
    assert es.verified

    def lagrangian(v):
        return sum(w * o for w, o in zip(lam, f(*v), strict=True))

    hessian = jref.hessian(lagrangian)  # stored (tests/jax_reference.py)
    nonzero = set()
    for scale in (1.0, 1.07, 0.93):
        point = np.array(args, dtype=float) * scale
        want = np.asarray(hessian(jnp.array(point)))
        assert np.allclose(es.evaluate(point, lam), want, rtol=1e-10, atol=1e-12)
        nonzero |= {(int(i), int(j)) for i, j in np.argwhere(want != 0)}
    assert _pattern(H) == nonzero


def test_real_world_graph_value_and_generated_code():
    from dgraph.bench.realworld import REAL_WORLD

    g = REAL_WORLD["reaction-rates"]()
    lam = {out: k + 1.0 for k, out in enumerate(g.outputs)}
    H = hessian_graph(g, lam)
    lagrangian = sum(lam[out] * g.values()[out] for out in g.outputs)
    point = np.array([1500.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6])  # T in kelvin
    subs = {sympy.Symbol(v, real=True): p for v, p in zip(g.inputs, point, strict=True)}
    want = np.array(sympy.hessian(lagrangian, list(subs)).subs(subs).evalf(), dtype=float)
    # the rates' weighted sum cancels terms across outputs: the pattern holds the values'
    assert {(int(i), int(j)) for i, j in np.argwhere(want != 0)} <= _pattern(H)
    J = dgraph.make_function(H, "jacobian", method="reverse")
    assert np.allclose(J(point), want, rtol=1e-9, atol=1e-15)


def test_names_never_clash():
    g = from_trace("inputs: x, x_bar\noutputs: y\ny = x*x_bar")
    H = hessian_graph(g)
    assert H.outputs == ["x_bar2", "x_bar_bar2"]
    assert set(mirror(H)[1]) == {"x_bar2", "x_bar_bar2"}
    assert dgraph.accumulate(H, "reverse").evaluate([2.0, 3.0]).tolist() == [[0, 1], [1, 0]]
    # parameters are names too; several outputs' weights become parameters
    g = from_sympy({"p": x * z, "q": sympy.exp(x)}, [x], params=[z])
    H = hessian_graph(g)
    assert H.parameters == ("z", "p_bar", "q_bar") and H.outputs == ["x_bar"]
    assert weight_parameters(g, H) == {"p": "p_bar", "q": "q_bar"}
    assert weight_parameters(g, hessian_graph(g, {"p": 1, "q": 2})) == {}
    es = dgraph.accumulate(H, "reverse")
    assert es.evaluate([0.0], [5.0, 2.0, 3.0]).tolist() == [[3.0]]


def test_linear_and_unused_inputs_give_zero_rows():
    g = from_trace("inputs: a, b, c\noutputs: f\nf = 2*a + b*b")
    H = hessian_graph(g)
    assert _pattern(H) == {(1, 1)}
    es = dgraph.accumulate(H, "forward")
    assert es.verified and es.evaluate([1.0, 2.0, 3.0]).tolist() == [
        [0, 0, 0],
        [0, 2, 0],
        [0, 0, 0],
    ]


@pytest.mark.parametrize(
    "weights, message",
    [
        ({"f": 1.0, "h": 2.0}, "'h' is not an output"),
        ({}, "no weight for the output 'f'"),
        ({"f": float("nan")}, "not a finite number"),
        ({"f": True}, "not a finite number"),
        ({"f": "1"}, "not a finite number"),
        ([1.0], "must map"),
    ],
)
def test_bad_weights_are_refused_in_one_line(weights, message):
    g = from_trace("inputs: a\noutputs: f\nf = a*a")
    with pytest.raises(GraphError, match=message):
        hessian_graph(g, weights)


def test_tensor_graph_is_refused():
    g = from_trace("inputs: a\noutputs: f\nf = a*a").as_tensor()
    with pytest.raises(GraphError, match="scalar graph"):
        hessian_graph(g)


def test_compare_and_verify_run_on_it_unchanged():
    H = hessian_graph(from_sympy(sympy.sin(x * y) + x**3 * y, [x, y]))
    comparison = dgraph.compare(H, ["forward", "markowitz", "vertex-optimal", "zhou"])
    assert comparison.results and all(es.verified for es in comparison.results.values())
    assert dgraph.verify(comparison.cheapest).ok
    point = [0.4, -0.3]
    want = [[6 * 0.4 * -0.3 - 0.09 * np.sin(-0.12), 3 * 0.16 + np.cos(-0.12) - 0.12 * np.sin(0.12)]]
    assert np.allclose(comparison.cheapest.evaluate(point)[0], want[0])


def test_a_label_that_is_unknown_is_refused():
    g = DGraph("no-labels")
    g.add_vertex("a", "input")
    g.add_vertex("v", "intermediate")
    g.add_vertex("f", "output", expr=sympy.Symbol("v") ** 2)
    g.add_edge("a", "v")
    g.add_edge("v", "f")
    with pytest.raises(GraphError, match="edge a -> v has no label"):
        hessian_graph(g)
