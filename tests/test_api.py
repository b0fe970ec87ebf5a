"""The top-level API in the conventions users know: ``jacobian`` (FastDifferentiation.jl,
JAX), ``make_function`` in one step, ``as_matrix``, codegen from an expression set, and
``draw`` at top level; ``import dgraph`` stays light."""

from __future__ import annotations

import shutil
import subprocess
import sys

import numpy as np
import pytest
import sympy

import dgraph
from dgraph.codegen import generate
from dgraph.errors import DGraphError


def polar(r, theta):
    return r * sympy.cos(theta), r * sympy.sin(theta), r**2 * theta


def _sympy_jacobian(point):
    r, t = sympy.symbols("r theta", real=True)
    J = sympy.Matrix(polar(r, t)).jacobian([r, t])
    return np.array(J.subs({r: point[0], t: point[1]}).evalf(), dtype=float)


def test_jacobian_of_a_function_agrees_with_sympy():
    es = dgraph.jacobian(polar, "reverse")
    assert es.verified and es.graph.inputs == ["r", "theta"]
    values = es.as_matrix(values=True)
    assert values.shape == (3, 2)
    r, t = sympy.symbols("r theta", real=True)
    got = values.subs({r: 1.5, t: 0.3})
    assert np.allclose(np.array(got.evalf(), dtype=float), _sympy_jacobian((1.5, 0.3)))


def test_as_matrix_is_noncommutative_with_zeros_where_no_path(two_blocks_graph):
    es = dgraph.accumulate(two_blocks_graph, "markowitz")
    M = es.as_matrix()
    assert M.shape == (len(es.graph.outputs), len(es.graph.inputs))
    for i, y in enumerate(es.graph.outputs):
        for j, x in enumerate(es.graph.inputs):
            assert (M[i, j] == 0) == ((y, x) not in es.jacobian)
    assert not any(s.is_commutative for s in M.free_symbols)


@pytest.mark.parametrize("mode", ["jacobian", "jvp", "vjp"])
def test_make_function_in_one_step(mode):
    point, v, w = np.array([1.5, 0.3]), np.array([0.2, -1.0]), np.array([1.0, 2.0, -0.5])
    J = _sympy_jacobian(point)
    f = dgraph.make_function(polar, mode)
    assert f.generated.verified and f.mode == mode
    want = {"jacobian": J, "jvp": J @ v, "vjp": w @ J}[mode]
    args = {"jacobian": (point,), "jvp": (point, v), "vjp": (point, w)}[mode]
    assert np.allclose(f(*args), want, rtol=1e-12)
    batch = np.stack([point, point])
    assert f(batch, *args[1:]).shape[0] == 2


def test_make_function_from_an_expression_set_keeps_its_method(sin_graph):
    es = dgraph.accumulate(sin_graph, "forward")
    f = dgraph.make_function(es)
    assert f.generated.expression_set is es and "method forward" in f.source
    assert np.allclose(f([1.0, 0.5]), [[np.sin(0.5) ** 2, np.sin(1.0)]])
    with pytest.raises(DGraphError, match="not both"):
        generate(es, method="reverse")


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_make_function_in_c(sin_graph):
    f = dgraph.make_function(sin_graph, "jacobian", "c", method="reverse")
    assert f.lang == "c" and f.generated.verified
    assert np.allclose(f([1.0, 0.5]), [[np.sin(0.5) ** 2, np.sin(1.0)]])


def test_bad_requests_are_refused(sin_graph):
    with pytest.raises(DGraphError, match="unknown mode 'hessian'"):
        dgraph.make_function(sin_graph, "hessian")
    with pytest.raises(DGraphError, match="unknown language 'fortran'"):
        dgraph.make_function(sin_graph, lang="fortran")
    with pytest.raises(DGraphError, match="give a DGraph or a function"):
        dgraph.jacobian(42)


def test_draw_and_steps_at_top_level(sin_graph):
    from dgraph.render.drawing import draw
    from dgraph.render.stepviews import steps

    assert dgraph.draw is draw and dgraph.steps is steps
    assert "<svg" in dgraph.draw(sin_graph).svg()
    with pytest.raises(AttributeError, match="no attribute 'drw'"):
        dgraph.drw  # noqa: B018


def test_import_dgraph_stays_light():
    code = (
        "import sys, dgraph; heavy = ('graphviz', 'scipy', 'jax', 'casadi', 'dgraph.codegen',"
        " 'dgraph.render.drawing'); print([m for m in heavy if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_graph_that_has_been_evaluated_still_goes_through_searches(sin_graph):
    """Issue 30: evaluating compiles functions cached on the graph; a search's child process
    pickles its result (with the graph), which must leave those caches behind."""
    import pickle

    dgraph.accumulate(sin_graph, "reverse").evaluate([1.0, 2.0])
    assert "numeric" in sin_graph.derived
    copy = pickle.loads(pickle.dumps(sin_graph))
    assert "numeric" not in copy.derived
    assert copy.edge_symbols == sin_graph.edge_symbols
    assert dgraph.accumulate(sin_graph, "best", budget=2).mults == 3
    assert dgraph.compare(sin_graph, budget=2).to_dict()["best"]


def test_output_names_never_read_as_an_input():
    """Issue 30: with an input y, outputs are f0, f1 (not y_0, whose dy_0/dy misreads)."""
    x, y, f = sympy.symbols("x y f")
    assert dgraph.from_sympy([x * y, x + y], [x, y]).outputs == ["f0", "f1"]
    assert dgraph.from_sympy([x * f, x + f], [x, f]).outputs == ["y0", "y1"]
    assert dgraph.from_sympy({"speed": x * y}, [x, y]).outputs == ["speed"]
    assert dgraph.from_function(lambda y, f: (y * f, y + f)).outputs == ["g0", "g1"]
