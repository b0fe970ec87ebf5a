"""The element level as an expansion of the array level (issue 53 item 1): every program
the array level reads, the element level reads, with JAX's Jacobian (``stop_gradient``
and custom derivative rules included); the upwind step and the limiter that the element
tracer refused; the size limit; shape-() graphs unchanged. The array-level corpus of
tests/test_rules_vs_jax.py (every operation, every shape) is read at the element level
there, in the test that checks its array level against the same JAX reference."""

from __future__ import annotations

import numpy as np
import pytest

from dgraph.codegen.function import make_function
from dgraph.core.expand import EDGE_LIMIT, expand, scalar_edges
from dgraph.core.numeric import edge_values, vertex_values
from dgraph.core.value_check import sweep_reference
from dgraph.errors import InputError
from dgraph.frontends import from_function
from dgraph.frontends.json_format import from_json
from dgraph.methods import accumulate

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = pytest.importorskip("jax.numpy")

from dgraph.frontends.jaxpr import from_jax  # noqa: E402
from tests import jax_reference as jref  # noqa: E402
from tests.peers.harness import _close_grid, _reference, array_graph, x64  # noqa: E402
from tests.test_rules_vs_jax import ARRAY_ONLY  # noqa: E402 (refused at the element level)


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


def _jacobian(graph, args) -> np.ndarray:
    """The element graph's Jacobian at ``args`` (flattened, inputs side by side)."""
    point = np.concatenate([np.ravel(a) for a in args])
    es = accumulate(graph, "forward", verify=False)
    return np.asarray(es.evaluate(point), dtype=float)


def _swept(graph, args) -> np.ndarray:
    """The element graph's Jacobian at ``args`` by the tangent sweep of its partials'
    values (:func:`~dgraph.core.value_check.sweep_reference`): what its edges say, without
    eliminating (forward elimination of a few thousand vertices costs seconds; that it
    equals the sweep is tests/test_elimination.py's and the verifier's business). The
    sweep carries a dense tangent of every input per vertex: a graph wider than that
    (Simple_50x50: 5,000 inputs, 15,000 vertices) is swept with sparse tangents
    (:func:`_sparse_swept`)."""
    point = np.concatenate([np.ravel(a) for a in args])
    if len(graph.inputs) * len(graph.vertices) > 10**7:
        return _sparse_swept(graph, point)
    _, jac, _ = sweep_reference(graph, point[None, :])
    return jac[0]


def _sparse_swept(graph, point: np.ndarray) -> np.ndarray:
    """The tangent sweep dx_v = Σ c_vu dx_u at ``point`` with each vertex's tangent kept
    as its entries that any input reaches (by input position), summed in the order the
    dense sweep sums them: the same Jacobian where the labels are finite (Simple_50x50:
    each vertex reads two of the 5,000 inputs, where a dense tangent has 5,000 entries)."""
    labels = edge_values(graph, vertex_values(graph, point))
    tangent: dict[str, dict[int, float]] = {x: {j: 1.0} for j, x in enumerate(graph.inputs)}
    for v in graph.order():
        if v in tangent:
            continue
        row: dict[int, float] = {}
        for u in graph.predecessors(v):
            c = float(labels[graph.symbol(u, v)])
            for j, d in tangent[u].items():
                row[j] = row.get(j, 0.0) + c * d
        tangent[v] = row
    jac = np.zeros((len(graph.outputs), len(graph.inputs)))
    for i, y in enumerate(graph.outputs):
        for j, d in tangent[y].items():
            jac[i, j] = d
    return jac


def _upwind(xp):
    def upwind(u, x):
        return xp.where(u > 0, u * (x - xp.roll(x, 1)), u * (xp.roll(x, -1) - x))

    return upwind


def _limiter(xp):
    def limiter(u):  # minmod of the one-sided differences, with np.maximum
        left, right = u - xp.roll(u, 1), xp.roll(u, -1) - u
        return xp.maximum(0.0, xp.minimum(left, right)) + xp.minimum(0.0, xp.maximum(left, right))

    return limiter


def _jax_jacobian(f, args) -> np.ndarray:
    jac = jref.jacfwd(f, tuple(range(len(args))))(*map(jnp.asarray, args))  # stored, or jitted
    return np.hstack(
        [np.asarray(j).reshape(-1, np.size(a)) for j, a in zip(jac, args, strict=True)]
    )


@pytest.mark.parametrize("make", [_upwind, _limiter])
def test_upwind_and_limiter_read_at_both_levels(make) -> None:
    """``np.where`` and ``np.maximum`` on vectors (the element tracer refused them: "a branch
    on a value that depends on the inputs"): NumPy and JAX, array and element level, one
    Jacobian, JAX's."""
    rng = np.random.default_rng(3)
    args = (rng.uniform(-1, 1, 7), rng.uniform(-1, 1, 7))[: 2 if make is _upwind else 1]
    shapes = [a.shape for a in args]
    expected = _jax_jacobian(make(jnp), args)
    element = from_function(make(np), sizes=shapes)
    assert element.traced_with == "numpy" and not element.is_tensor
    np.testing.assert_allclose(_jacobian(element, args), expected, rtol=1e-12, atol=1e-14)
    array = from_function(make(np), sizes=shapes, level="array")
    np.testing.assert_allclose(_jacobian(array.elements(), args), expected, rtol=1e-12)
    jax_element = from_jax(make(jnp), *args)
    np.testing.assert_allclose(_jacobian(jax_element, args), expected, rtol=1e-12, atol=1e-14)
    assert accumulate(element, "reverse").verified


def test_an_expansion_over_the_limit_is_refused_in_one_line() -> None:
    """A running sum of 500 has 125,250 scalar edges: over the default 100,000, refused
    naming the array level; the array graph is two vertices; a larger limit reads it."""
    f, x = (lambda x: jnp.cumsum(x)), np.ones(500)
    with pytest.raises(InputError, match=r'125,250 scalar edges.*level="array"') as info:
        from_jax(f, x)
    assert "\n" not in str(info.value)
    array = from_jax(f, x, level="array")
    assert len(array.vertices) == 2 and scalar_edges(array) == 125_250
    with pytest.raises(InputError, match="over the limit of 10"):
        array.elements(limit=10)
    small = from_jax(f, np.ones(30), limit=465)
    assert small.n_edges == 465 and len(small.outputs) == 30


def test_the_limit_counts_the_edges_the_expansion_adds() -> None:
    """cumlogsumexp's element level shifts each entry by a running max, a vertex of two
    edges read with partial 0, which its triangular block does not hold: at 20 entries
    the blocks bound 210 scalar edges, the expansion makes 267, and a limit between the
    two refuses it (main: read, 267 edges over a limit of 250)."""
    f, x = jax.lax.cumlogsumexp, np.linspace(-1.0, 1.0, 20)
    array = from_jax(f, x, level="array")
    assert scalar_edges(array) == 210
    assert array.elements().n_edges == 267
    with pytest.raises(InputError, match=r"267 scalar edges, over the limit of 250"):
        array.elements(limit=250)
    assert array.elements(limit=267).n_edges == 267


def test_the_expansion_of_a_shape_0_graph_is_the_identity() -> None:
    """Scalars expand to themselves: same vertices, roles and edges, partials equal; a
    scalar graph is its own expansion."""

    def f(x, y):
        return jnp.sin(x) * y + jnp.exp(x)

    array = from_jax(f, 0.3, 0.8, level="array")
    graph = array.elements()
    assert graph.vertices == array.vertices and graph.edges() == array.edges()
    assert [graph.role(v) for v in graph.vertices] == [array.role(v) for v in array.vertices]
    assert graph.elements() is graph
    np.testing.assert_allclose(
        _jacobian(graph, (0.3, 0.8)), _jax_jacobian(f, (0.3, 0.8)), rtol=1e-12
    )


def test_a_dense_contraction_is_one_vertex_per_entry() -> None:
    """``tanh(W @ x)``: each entry of ``W @ x`` one vertex with an edge from every input
    (its partials the row of W), not a chain of binary adds; a zero of W makes no edge."""
    w = np.arange(12.0).reshape(3, 4)  # w[0, 0] = 0: no edge x0 -> the first entry
    g = from_jax(lambda x: jnp.tanh(w @ x), np.ones(4))
    assert len(g.intermediates) == 3 and g.n_edges == 11 + 3
    first = g.intermediates[0]
    assert "x0" not in g.predecessors(first)
    assert [float(g.partial(x, first)) for x in g.predecessors(first)] == [1.0, 2.0, 3.0]


def peer_at_the_element_level(case) -> None:
    """The peer tools' test functions (tests/peers/) the array level reads: expanded, the
    Jacobian is JAX's at the peer's point (softmax's ``stop_gradient`` shift, asdex's
    straight-through and sparser-than-primal custom rules included); refused only over the
    size limit, in one line naming the array level. Run by tests/test_peers.py right after
    the case's array-level runs, so that the worker that ran them has JAX's reference
    (kept per case by tests/peers/harness.py) and does not compile it again. The element
    graph is that array graph expanded as ``from_jax`` expands its own (``expand`` at the
    default limit): the function is traced once, not again for the element level."""
    with x64():
        args = tuple(np.asarray(a, dtype=np.float64) for a in case.args())
        keys, blocks = _reference(case, args)
        try:
            array = array_graph(case, args)  # the one its array-level runs read
        except InputError:
            return  # the array level refuses it (tests/test_peers.py checks how)
        try:  # from_jax(case.fn, *args)'s element level, without tracing the function again
            graph = expand(array, EDGE_LIMIT)
        except InputError as exc:
            assert "\n" not in str(exc) and 'level="array"' in str(exc), exc
            only = any(f"'{name}' has no element level" in str(exc) for name in ARRAY_ONLY)
            assert "over the limit" in str(exc) or only, exc
            return
        want = [
            [blocks[keys.index(y)][j].reshape(-1, a.size) for j, a in enumerate(args)]
            for y in array.outputs
        ]
        got = _swept(graph, args)
    assert _close_grid(got, want) is None, (got, want)


def _held(stop):
    """Three programs that hold a value out of differentiation with ``stop`` (JAX's
    ``stop_gradient``, or the identity for the derivative of the values)."""

    def times(x):
        return stop(x) * x

    def shifted(x):  # softmax's shift, without the normalization that cancels it
        return jnp.exp(x - stop(jnp.max(x))) * x

    def held_sum(x):
        return jnp.sin(x) * stop(jnp.sum(x**2))

    return {"x*sg(x)": (times, 0.7), "shifted exp": (shifted, np.array([0.3, -1.2, 2.1]))} | {
        "sin(x)*sg(sum(x²))": (held_sum, np.array([0.5, -1.0, 2.0]))
    }


@pytest.mark.parametrize("name", list(_held(jax.lax.stop_gradient)))
def test_stop_gradient_at_the_element_level(name) -> None:
    """A value under ``stop_gradient`` that depends on the inputs: the vertices that
    read it compute it (``stop_gradient(...)`` in their expression: the value of its
    argument) and its derivative is 0 (an edge of partial 0 from a vertex only it reads),
    so the Jacobian is jax.jacfwd's, not the derivative of the values; verified (against
    JAX's jvp); written to JSON, it reads back with the same Jacobian."""
    f, x = _held(jax.lax.stop_gradient)[name]
    plain, _ = _held(lambda v: v)[name]
    graph = from_jax(f, x)
    assert not graph.is_tensor
    text = graph.to_json()
    assert "stop_gradient(" in text
    expected = np.asarray(jref.jacfwd(f)(x)).reshape(np.size(f(x)), -1)
    assert not np.allclose(np.asarray(jref.jacfwd(plain)(x)).reshape(expected.shape), expected)
    np.testing.assert_allclose(_jacobian(graph, (x,)), expected, rtol=1e-12, atol=1e-14)
    values = vertex_values(graph, np.ravel(x))
    np.testing.assert_allclose([values[y] for y in graph.outputs], np.ravel(f(x)), rtol=1e-14)
    assert accumulate(graph, "reverse").verification.status == "verified"
    np.testing.assert_allclose(_jacobian(from_json(text), (x,)), expected, rtol=1e-12, atol=1e-14)


def test_code_of_a_stop_gradient_file_is_not_verified_by_differences() -> None:
    """Read back from JSON, a graph with ``stop_gradient`` has no JAX jvp; central
    differences of its values move what ``stop_gradient`` holds, so they are no
    reference for its Jacobian: the generated code is right, checked against the
    graph's partials, and *not verified* against a reference (never *wrong*, never a pass)."""
    f, x = _held(jax.lax.stop_gradient)["x*sg(x)"]
    graph = from_json(from_jax(f, x).to_json())
    with pytest.warns(UserWarning, match="NOT verified"):
        generated = make_function(graph, lang="python")
    np.testing.assert_allclose(generated(np.array([x])).reshape(1, 1), [[x]], rtol=1e-14)
    check = generated.generated.check
    assert not check.ran and "stop_gradient" in check.detail


@jax.custom_jvp
def _times_sum(x):
    return x * jnp.sum(x)


@_times_sum.defjvp
def _times_sum_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _times_sum(x), 2.0 * t  # asdex's rule: sparser than the primal's derivative


@jax.custom_jvp
def _round_through(x):
    return jnp.round(x)


@_round_through.defjvp
def _round_through_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return jnp.round(x), t * jnp.cos(x)  # a rule that reads the primal point


@jax.custom_vjp
def _sin_scaled(x):
    return jnp.sin(x)


def _sin_scaled_fwd(x):
    return jnp.sin(x), jnp.cos(x)


def _sin_scaled_bwd(c, g):
    return (3.0 * c * g,)


_sin_scaled.defvjp(_sin_scaled_fwd, _sin_scaled_bwd)


@pytest.mark.parametrize(
    "f,primal,derivative",
    [
        (_times_sum, lambda x: x * jnp.sum(x), jax.jacfwd),
        (lambda x: _round_through(x) * x, lambda x: jnp.round(x) * x, jax.jacfwd),
        (lambda x: _sin_scaled(x) + x**2, lambda x: jnp.sin(x) + x**2, jax.jacrev),
    ],
    ids=["custom_jvp 2t", "custom_jvp t*cos(x) through round", "custom_vjp 3 cos"],
)
def test_a_custom_rule_unlike_its_primal_at_the_element_level(f, primal, derivative) -> None:
    """A ``custom_jvp``/``custom_vjp`` rule whose derivative differs from its primal's:
    the element level's vertices compute the primal's value and their partials are the
    rule's (the rule's tangent map as expressions), so the Jacobian is JAX's, not the
    primal's; verified against JAX's jvp."""
    x = np.array([0.3, -1.2, 2.1])
    graph = from_jax(f, x)
    expected = np.asarray(derivative(f)(x))
    assert not np.allclose(np.asarray(jref.jacfwd(primal)(x)), expected)
    np.testing.assert_allclose(_jacobian(graph, (x,)), expected, rtol=1e-12, atol=1e-14)
    values = vertex_values(graph, x)
    np.testing.assert_allclose([values[y] for y in graph.outputs], f(x), rtol=1e-13)
    assert accumulate(graph, "forward").verification.status == "verified"


def test_a_held_reduction_is_one_vertex() -> None:
    """softmax's shift ``stop_gradient(max(x))``, broadcast to every element: one vertex
    ``stop_gradient(Max(x0, ..., x5))`` whose in-edges have partial 0, read by each
    element (inlined, each of the 6 would read all 6 inputs); the Jacobian is JAX's."""
    x = np.linspace(-1.0, 1.0, 6)
    graph = from_jax(jax.nn.softmax, x)
    held = [v for v in graph.vertices if str(graph.expr(v) or "").startswith("stop_gradient(")]
    assert len(held) == 1 and graph.predecessors(held[0]) == graph.inputs
    assert all(graph.partial(u, held[0]) == 0 for u in graph.inputs)
    assert len(graph.successors(held[0])) == 6 and graph.n_edges == 42
    expected = np.asarray(jref.jacfwd(jax.nn.softmax)(x))
    np.testing.assert_allclose(_jacobian(graph, (x,)), expected, rtol=1e-12, atol=1e-14)


def test_a_max_over_many_elements_is_one_max_of_them(monkeypatch):
    """``jnp.max`` of 40 elements, and softmax's ``max(-inf, max(x))`` shift of 20: one
    Max of the inputs (nested ones flattened, -inf folded away), written without sympy's
    pairwise comparisons (quadratic: 85 s to build softmax of 300; refused here past two
    arguments, so any n > 2 tests it), and JAX's Jacobian (softmax's is dense: n² entries,
    hence the smaller n)."""
    import sympy

    for f, n in ((lambda x: jnp.max(x) * x, 40), (jax.nn.softmax, 20)):
        x = np.linspace(-1.0, 1.0, n) ** 2 + np.arange(n) * 1e-6  # one largest entry
        with monkeypatch.context() as m:  # sympy's pairwise comparison never runs
            m.setattr(sympy.Max, "_find_localzeros", classmethod(_compared))
            graph = from_jax(f, x)
        maxima = [graph.expr(v) for v in graph.vertices if isinstance(graph.expr(v), sympy.Max)]
        maxima += [
            a
            for v in graph.vertices
            if graph.expr(v) is not None
            for a in sympy.preorder_traversal(graph.expr(v))
            if isinstance(a, sympy.Max)
        ]
        assert maxima and all(len(m.args) == n for m in maxima)
        with jax.enable_x64(True):
            want = np.asarray(jref.jacfwd(f)(jnp.asarray(x)))
        np.testing.assert_allclose(_swept(graph, (x,)), want, rtol=1e-10, atol=1e-14)


def _compared(cls, values, **options):
    """sympy's pairwise comparison of a Max's arguments, refused past two of them."""
    if len(values) > 2:
        raise AssertionError(f"{cls.__name__} of {len(values)} elements compared pairwise")
    return set(values)


def _select_on_conditions(x, xp=np):
    a, b = x[:3], x[3:]
    mask = xp.where(a > 0.5, b > 0, b < -1)  # a select among conditions
    return xp.where(mask, a * b, xp.sin(a) + b)


@pytest.mark.parametrize("f", [_select_on_conditions, lambda x: _select_on_conditions(x, jnp)])
def test_a_select_among_conditions_is_a_condition(f) -> None:
    """``where(where(c, a > 0, b < -1), u, v)``: the inner select a Piecewise of conditions
    made sympy take the outer one's ``Ne(·, 0)`` as true, always ``u`` (NumPy: a generated
    Jacobian off by 1.5, not caught; JAX: refused, and the expression set wrong); now
    ``(c & (a > 0)) | (~c & (b < -1))``, every entry as JAX at points on each side."""
    x = np.array([1.0, 1.0, 0.0, 0.5, -0.5, -2.0])
    want = np.asarray(jref.jacfwd(lambda x: _select_on_conditions(x, jnp))(x))
    made = make_function(f, "jacobian", "python", point=[x])
    np.testing.assert_allclose(np.asarray(made(x)).reshape(want.shape), want, atol=1e-15)
    graph = from_function(_select_on_conditions, sizes=[6], level="element")
    np.testing.assert_allclose(_jacobian(graph, [x]), want, atol=1e-15)


def test_conditions_in_arithmetic_and_ieee_tests_at_the_element_level() -> None:
    """NumPy's ``x * (x > 0.5)`` and ``1 + isnan(x)`` (a condition used as its 0 or 1)
    were refused at the element level ("unsupported operand type(s) for *"), and the
    derivative of ``isfinite`` (JAX's ``logsumexp(where=)`` guards its maximum with it) was
    "no derivative of isfinite(...)": now 0, as every IEEE test's. Both levels' Jacobians
    equal JAX's."""
    x = np.array([0.3, 0.45, 0.6, 0.75, 0.9])

    def program(xp):
        def f(x):
            masked = x * (x > 0.5) + (1.0 + xp.isnan(x)) * x**2
            finite = xp.where(xp.isfinite(xp.log(x - 0.4)), xp.log(xp.abs(x - 0.4)) * x, x)
            return masked + finite

        return f

    want = np.asarray(jref.jacfwd(program(jnp))(jnp.asarray(x)))  # stored, or jitted
    for level in ("element", "array"):
        graph = from_function(program(np), sizes=[(5,)], level=level)
        got = make_function(graph, "jacobian", method="forward")(x)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    lse = lambda x: jax.nn.logsumexp(x, where=x > 0.4)  # noqa: E731
    made = make_function(from_jax(lse, x, level="element"), "jacobian", method="forward")
    np.testing.assert_allclose(np.ravel(made(x)), np.asarray(jref.grad(lse)(x)), rtol=1e-14)
