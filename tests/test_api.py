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


def test_jacobian_takes_params_as_make_function_does():
    """``dgraph.jacobian(loss, point=[w, X, y], params=["X", "y"])``: a logistic loss over
    a data matrix was refused ("method 'markowitz' takes no option 'params'") while
    make_function and hessian took params=. The verified set's code gives JAX's
    gradient at other data."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    from tests import jax_reference as jref

    def loss(w, X, y, xp=np):
        return xp.mean(xp.logaddexp(0.0, -y * (X @ w))) + 0.01 * xp.dot(w, w)

    rng = np.random.default_rng(0)
    # 3 rows of data (6 had the code's primal program cost 1.5 times as much)
    w, X, y = rng.normal(size=3), rng.normal(size=(3, 3)), np.sign(rng.normal(size=3))
    es = dgraph.jacobian(lambda w, X, y: loss(w, X, y), point=[w, X, y], params=["X", "y"])
    assert es.verified and len(es.graph.inputs) == 3
    X2 = X[::-1] * 0.5
    with jax.enable_x64(True):
        want = jref.grad(lambda w: loss(w, X2, y, jnp))(w)  # stored (tests/jax_reference.py)
    got = dgraph.make_function(es)(w, np.concatenate([X2.ravel(), y]))
    np.testing.assert_allclose(np.ravel(got), want, rtol=1e-12)
    with pytest.raises(DGraphError, match="params= are for a Python function"):
        dgraph.jacobian(es.graph, params=["X"])


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
    with pytest.raises(DGraphError, match="unknown mode 'hess'"):
        dgraph.make_function(sin_graph, "hess")
    with pytest.raises(DGraphError, match="unknown language 'fortran'"):
        dgraph.make_function(sin_graph, lang="fortran")
    with pytest.raises(DGraphError, match=r"unknown language array\(\[1\., 1\.\]\)"):
        dgraph.make_function(lambda x: 2 * x, "jacobian", np.ones(2))  # a point as lang
    with pytest.raises(DGraphError, match="give a DGraph or a function"):
        dgraph.jacobian(42)
    with pytest.raises(DGraphError, match=r"give the point as point=\[x\] \(a ndarray"):
        dgraph.jacobian(lambda x: 2 * x, np.ones(2))  # jax.jacobian's habit: a point


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


# -- one set of conventions at every level (issue 53 item 6) ------------------------------


def _two_by_two(x, c):
    """Two outputs, two arguments: jax.jacobian gives a tuple of tuples."""
    import jax.numpy as jnp

    return jnp.sin(x) * c, jnp.sum(x * x * c)


def _flat(block) -> np.ndarray:
    if hasattr(block, "toarray"):
        return block.toarray()
    return np.asarray(block.todense() if hasattr(block, "todense") else block)


@pytest.mark.parametrize("lang", ["python", "jax"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_tensor_jacobian_is_jax_jacobian_s_pytree(lang, sparse):
    """Outputs × inputs as tuples of tuples, as ``jax.jacobian(f, argnums=(0, 1))``; a dense
    block of shape y.shape + x.shape, a sparse one (y.size, x.size); ``stacked`` the one
    matrix; value_and_jacobian's value the outputs' arrays."""
    jax = pytest.importorskip("jax")
    from tests import jax_reference as jref

    x, c = np.array([0.3, -0.2, 0.9]), np.array([2.0, 0.5, 1.5])
    g = dgraph.from_jax(_two_by_two, x, c, level="array")
    J = dgraph.make_function(g, lang=lang, sparse=sparse)
    with jax.enable_x64(True):
        want = jref.jacobian(_two_by_two, argnums=(0, 1))(x, c)
        got = J(x, c)
        value, again = dgraph.make_function(g, "value_and_jacobian", lang, sparse=sparse)(x, c)
        assert isinstance(got, tuple) and len(got) == 2
        for row, same, want_row in zip(got, again, want, strict=True):
            assert isinstance(row, tuple) and len(row) == 2
            for block, other, expected in zip(row, same, want_row, strict=True):
                expected = np.asarray(expected)
                shape = (max(expected.size // 3, 1), 3) if sparse else expected.shape
                assert np.shape(block) == shape
                flat = _flat(block).reshape(expected.shape)
                np.testing.assert_allclose(flat, expected, rtol=1e-13)
                np.testing.assert_allclose(_flat(other).reshape(expected.shape), flat)
        for part, expected in zip(value, _two_by_two(x, c), strict=True):
            np.testing.assert_allclose(np.asarray(part), np.asarray(expected), rtol=1e-14)
        if sparse:
            whole = J.stacked(x, c)
            assert whole.shape == (4, 6)
            blocks = [[_flat(b).reshape(-1, 3) for b in row] for row in got]
            np.testing.assert_allclose(_flat(whole), np.block(blocks))
    if not sparse:
        with pytest.raises(DGraphError, match="one sparse matrix"):
            J.stacked(x, c)


@pytest.mark.parametrize("lang", ["python", "jax"])
def test_tensor_jvp_and_vjp_are_arrays_or_tuples_as_jax_s(lang):
    """jvp: J·v per output (a tuple over the two outputs); vjp: wᵀ·J per input (a tuple over
    the two inputs); one input and one output give the bare array."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    x, c = np.array([0.3, -0.2, 0.9]), np.array([2.0, 0.5, 1.5])
    v, dc, w = np.array([1.0, -1.0, 0.5]), np.array([0.1, 0.2, 0.3]), np.array([0.5, 1.0, 2.0])
    g = dgraph.from_jax(_two_by_two, x, c, level="array")
    jvp, vjp = (dgraph.make_function(g, mode, lang) for mode in ("jvp", "vjp"))
    with jax.enable_x64(True):
        _, tangents = jax.jvp(_two_by_two, (x, c), (v, dc))
        _, pull = jax.vjp(_two_by_two, x, c)
        bars = pull((w, 3.0))
        got_t, got_b = jvp(x, c, v, dc), vjp(x, c, w, 3.0)
        one = dgraph.from_jax(jnp.sin, x, level="array")
        alone = (
            dgraph.make_function(one, "jvp", lang)(x, v),
            dgraph.make_function(one, "vjp", lang)(x, w),
        )
    for got, want in ((got_t, tangents), (got_b, bars)):
        assert isinstance(got, tuple) and len(got) == 2
        for a, b in zip(got, want, strict=True):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-13)
    np.testing.assert_allclose(np.asarray(alone[0]), np.cos(x) * v, rtol=1e-14)
    np.testing.assert_allclose(np.asarray(alone[1]), np.cos(x) * w, rtol=1e-14)


def test_sizes_or_an_example_point_make_a_vector_argument():
    """sizes= (or point=, example arguments) for dgraph.jacobian and make_function of a
    Python function; without them an argument that is indexed is refused, naming sizes=."""

    def f(x, a):
        return x[0] * x[1] * a, sympy.sin(x[1])

    es = dgraph.jacobian(f, sizes=[2, 0])
    assert es.graph.inputs == ["x0", "x1", "a"] and es.verified
    same = dgraph.jacobian(f, point=[np.array([1.0, 2.0]), 3.0])
    assert same.graph.inputs == ["x0", "x1", "a"]
    assert set(same.graph.point) == {"x0", "x1", "a"} and float(same.graph.point["a"]) == 3.0
    J = dgraph.make_function(f, sizes=[2, 0])
    assert np.allclose(J([1.0, 2.0, 3.0]), [[6.0, 3.0, 2.0], [0.0, np.cos(2.0), 0.0]])
    assert np.allclose(
        dgraph.make_function(f, point=[[1.0, 2.0], 3.0])([1.0, 2.0, 3.0]), J([1.0, 2.0, 3.0])
    )
    for call in (dgraph.jacobian, dgraph.make_function):
        with pytest.raises(DGraphError, match="sizes=") as raised:
            call(f)
        assert "\n" not in str(raised.value)
    with pytest.raises(DGraphError, match="for a Python function"):
        dgraph.jacobian(dgraph.bundled("naumann_sin.trace"), sizes=[1])
    with pytest.raises(DGraphError, match="for a Python function"):
        dgraph.make_function(dgraph.bundled("naumann_sin.trace"), point=[1.0])


def test_sizes_with_parameters_cover_every_argument():
    """params= with sizes=: the parameters' values come last, as for a graph's; with
    point= alone the sizes of parameters are unknown, so sizes= is asked for."""
    J = dgraph.make_function(lambda x, k: [k * x[0] * x[1]], params=["k"], sizes=[2, 0])
    assert np.allclose(J([0.5, 2.0], [3.0]), [[6.0, 1.5]])
    with pytest.raises(DGraphError, match="give sizes= for every argument"):
        dgraph.make_function(lambda x, k: k * x, params=["k"], point=[1.0])


def test_hessian_of_a_graph_needs_no_arguments():
    """``dgraph.hessian(graph)``: a graph has its own inputs (it was refused with
    "params=, sizes= and point= are for a Python function", none of them given)."""
    x, y = sympy.symbols("x y")
    h = dgraph.hessian(dgraph.from_sympy(x**2 * sympy.sin(y), [x, y]))
    got = np.asarray(h(np.array([0.5, 2.0])))
    want = [[2 * np.sin(2.0), 2 * 0.5 * np.cos(2.0)], [2 * 0.5 * np.cos(2.0), -0.25 * np.sin(2.0)]]
    np.testing.assert_allclose(got, want, rtol=1e-14)


def test_an_element_level_vjp_of_one_output_takes_a_scalar_cotangent():
    """JAX's vjp of a scalar function takes a scalar cotangent; the element level's took
    only shape (1,) ("w needs shape (1,) or (B, 1), not ()"), the array level's ()."""
    x = np.array([0.3, -0.2, 0.9])
    vjp = dgraph.make_function(lambda x: np.sum(np.sin(x) ** 2), "vjp", point=[x])
    want = 2 * np.sin(x) * np.cos(x) * 2.0
    np.testing.assert_allclose(vjp(x, 2.0), want, rtol=1e-14)
    np.testing.assert_allclose(vjp(x, np.array([2.0])), want, rtol=1e-14)
