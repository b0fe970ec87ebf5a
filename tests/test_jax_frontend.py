"""JAX functions in: one vertex per jaxpr equation, and the Jacobian agrees with
``jax.jacfwd`` at random points."""

from __future__ import annotations

import json

import numpy as np
import pytest

import dgraph
from dgraph.errors import InputError

jax = pytest.importorskip(
    "jax", reason="JAX is not installed (pip install 'jacobian-accumulation[jax]')"
)
jnp = pytest.importorskip("jax.numpy")
from dgraph.frontends.jaxpr import from_jax  # noqa: E402

jax.config.update("jax_enable_x64", True)


def _scalar_mix(x, y):
    a = jnp.sin(x) * y + x**2 / y
    b = jnp.where(x > 0, a, -a)
    c = jnp.arctan2(a, y) + jax.lax.erf(x) + jax.lax.rsqrt(y * y + 1.0)
    return jnp.tanh(a) + jnp.maximum(x, y), jnp.sqrt(jnp.abs(b)) + jax.nn.sigmoid(x) + c


def _vectors(v, w):
    return jnp.sum(v**2) * v[0] + jnp.dot(v, w), v[1:] * 2.0 * w[0]


def _matrix(x):
    a = jnp.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    h = jnp.tanh(a @ x + 0.1)
    return jnp.log1p(jnp.exp(h)).sum() + jnp.max(x) * jnp.min(h)


def _calls(x, y):
    return jax.nn.softplus(x) * jax.nn.relu(y) + jax.jit(lambda a: a**3)(x), jnp.expm1(y) ** 1.5


CASES = [
    (_scalar_mix, (0.7, 1.3)),
    (_vectors, (np.ones(3), np.ones(3))),
    (_matrix, (np.ones(3),)),
    (_calls, (0.4, 0.9)),
]


def _jax_jacobian(f, args, point):
    """jax.jacfwd of ``f`` with every input and output flattened, at ``point``; jitted once
    per function and argument shapes, so that the methods and points of one case run one
    compiled program (a jit of a new closure is a new function to JAX, compiled again)."""
    shapes = tuple(np.shape(a) for a in args)
    key = (f, shapes)
    if key not in _JACOBIANS:
        sizes = [int(np.prod(s)) for s in shapes]

        def flat(z):
            parts, k = [], 0
            for n, s in zip(sizes, shapes, strict=True):
                parts.append(z[k : k + n].reshape(s))
                k += n
            out = jax.tree_util.tree_leaves(f(*parts))
            return jnp.concatenate([jnp.ravel(o) for o in out])

        _JACOBIANS[key] = jax.jit(jax.jacfwd(flat))
    return np.asarray(_JACOBIANS[key](jnp.asarray(point)))


_JACOBIANS: dict = {}


@pytest.mark.parametrize("f,args", CASES, ids=[f.__name__ for f, _ in CASES])
@pytest.mark.parametrize("method", ["forward", "reverse", "markowitz", "zhou"])
def test_jacobian_agrees_with_jax(f, args, method):
    g = from_jax(f, *args)
    es = dgraph.accumulate(g, method)
    assert es.verified
    rng = np.random.default_rng(7)
    for _ in range(3):
        point = rng.uniform(0.2, 1.5, size=len(g.inputs))
        np.testing.assert_allclose(
            np.asarray(es.evaluate(point), dtype=float),
            _jax_jacobian(f, args, point),
            rtol=1e-10,
            atol=1e-12,
        )


def test_one_vertex_per_equation_named_by_its_place():
    def f(x, y):
        a = jnp.sin(x)  # equation 1
        b = a * y  # 2
        unused = jnp.cos(y)  # 3: times 0 below, so no output uses it
        # 4: add; 5: mul by 0 (folded); 6: exp; 7: mul by 2 (the output f1); 8: add 0
        return b + x, unused * 0.0 + 2.0 * jnp.exp(x)

    g = from_jax(f, 1.0, 2.0)
    assert g.inputs == ["x", "y"] and g.outputs == ["f0", "f1"]
    assert g.intermediates == ["v1", "v2", "v6"]
    assert str(g.expr("v2")) == "v1*y" and str(g.expr("f1")) == "2*v6"
    assert str(g.expr("v6")) == "exp(x)" and str(g.expr("f0")) == "v2 + x"
    # cos(y) * 0.0 has no derivative: the array reader inlines it as a constant operand,
    # so v3 is no vertex at either level (the element reader used to note it as dead)
    assert "v3" not in g.vertices and "v3" not in from_jax(f, 1.0, 2.0, level="array").vertices


def test_names_follow_parameters_and_the_returned_structure():
    g = from_jax(lambda q, p: {"energy": q[0] * p + q[1], "force": -q * p}, np.ones(2), 1.0)
    assert g.inputs == ["q0", "q1", "p"]
    assert g.outputs == ["energy", "force0", "force1"]


def test_literals_keep_their_value_and_constants_fold():
    g = from_jax(lambda x: 0.1 * x + jnp.sqrt(4.0) * x**3, 1.0)
    exprs = [str(g.expr(v)) for v in g.order()[1:]]
    assert "0.1*x" in exprs[0] and any("2*" in e for e in exprs)
    assert any("folded" in n for n in g.notes)


def test_every_equation_keeps_the_operations_that_simplify_away():
    """``x * 1`` and ``1 ** y`` make no vertex by default; with ``every_equation`` each is
    a vertex with an edge from its operand (partials 1 and 0), as AlphaGrad counts the
    jaxpr, and the Jacobian is unchanged."""

    def f(x, y):
        return jnp.sin(x) * jnp.ones(()) / y + jnp.power(jnp.ones(()), y) * x

    plain, every = from_jax(f, 0.5, 2.0), from_jax(f, 0.5, 2.0, every_equation=True)
    assert plain.intermediates == ["v1", "v3"]  # v5 = 1 * x is x
    assert every.intermediates == ["v1", "v2", "v3", "v4", "v5"]
    assert every.partial("v1", "v2") == 1 and every.partial("y", "v4") == 0
    assert every.expr("v4") == 1 and every.predecessors("v4") == ["y"]
    assert every.predecessors("v5") == ["x", "v4"]
    point = np.array([0.5, 2.0])
    jacobians = [dgraph.accumulate(g, "reverse").evaluate(point) for g in (plain, every)]
    assert np.allclose(*jacobians) and np.allclose(
        jacobians[0], jax.jit(jax.jacfwd(lambda z: f(*z)))(point)
    )
    assert (plain.n_edges, every.n_edges) == (5, 9)


def test_a_vertex_cast_to_another_float_type_keeps_its_value():
    """A cast of a vertex is a move: its value passes unchanged (a vertex symbol is a sympy
    Boolean too, and was once read as a condition, 1 where it holds)."""
    g = from_jax(lambda x: jnp.sin(x).astype(jnp.float32) * 3.0, 1.0)
    es = dgraph.accumulate(g, "reverse")
    for x in (0.3, 1.1):
        assert float(es.evaluate(np.array([x]))[0, 0]) == pytest.approx(3 * np.cos(x), rel=1e-12)


@pytest.mark.parametrize(
    "f,args,message",
    [
        (lambda x: x.at[jnp.argmax(x)].apply(jnp.sin), (np.ones(3),), "not supported"),
        (lambda: 1.0, (), "example arguments"),
    ],
)
def test_what_it_cannot_take_is_one_clear_error(f, args, message):
    with pytest.raises(InputError, match=message):
        from_jax(f, *args)


def test_an_output_no_derivative_reaches_has_a_zero_jacobian():
    """JAX's answer, not a refusal: the element level's generated code (an empty kernel)
    returns zeros, and a note says the output does not depend on the inputs."""
    g = from_jax(lambda x, y: 3.0 + 0.0 * jnp.ones(()), 1.0, 2.0)
    assert any("does not depend on the inputs" in n for n in g.notes)
    for lang in ("python", "c"):
        got = dgraph.make_function(g, "jacobian", lang)(np.array([1.0, 2.0]))
        assert np.asarray(got).tolist() == [[0.0, 0.0]]


def test_the_numbering_is_reproducible():
    first = from_jax(_scalar_mix, 0.5, 0.5)
    again = from_jax(_scalar_mix, 2.0, 3.0)
    assert first == again


def test_an_order_over_jaxpr_equations_replays_from_the_command_line(tmp_path, capsys):
    from dgraph.cli import main

    model = tmp_path / "model.py"
    model.write_text(
        "import jax.numpy as jnp\n\n\ndef spring(q, k):\n"
        "    return k * jnp.sum((q[1:] - q[:-1]) ** 2)\n"
    )
    spec = f"{model}:spring"
    assert main(["structure", spec, "--inputs", "q:3,k", "--json"]) == 0
    structure = json.loads(capsys.readouterr().out)
    inner = structure["intermediates"]
    assert inner == ["v3_0", "v3_1", "v4_0", "v4_1", "v5"]  # sub, integer_pow, reduce_sum
    # equations 5, 3, 4: every element of an equation in turn
    argv = ["accumulate", spec, "--inputs", "q:3,k", "-m", "vertex", "--order", "5,3,4"]
    assert main([*argv, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    steps = [s["target"] for s in result["steps"]]
    assert steps == ["v5", "v3_0", "v3_1", "v4_0", "v4_1"] and result["verified"]
    assert main(["accumulate", spec, "--inputs", "q:3,k", "-m", "vertex", "--order", "6"]) == 2
    assert "equation 6 has no intermediate vertex" in capsys.readouterr().err


def _rotation(q):
    """jnp.eye (iota, eq, a bool-to-float conversion) and matrix products; a dict whose
    outputs are computed in another order than JAX returns them (sorted keys)."""
    t = jnp.eye(2)
    for k in range(2):
        c, s = jnp.cos(q[k]), jnp.sin(q[k])
        t = t @ jnp.array([[c, -s], [s, c]])
    return {"z_last": t[1, 1] * q[0], "a_first": t[0, 0] + t[0, 1]}


def test_constant_matrices_and_dict_outputs_in_jax_order():
    g = from_jax(_rotation, np.ones(2))
    assert g.outputs == ["a_first", "z_last"]  # jax flattens a dict by sorted keys
    es = dgraph.accumulate(g, "reverse")
    point = np.array([0.3, 1.1])
    np.testing.assert_allclose(
        es.evaluate(point), _jax_jacobian(_rotation, (np.ones(2),), point), rtol=1e-12
    )


def test_params_of_a_jax_function_are_the_graphs_parameters(tmp_path):
    """``params=`` (and ``--params``) for a JAX function (issue 54 item 5): the data
    batch and the stiffness stay symbols in the partials, the Jacobian has columns for
    ``q`` only, and generated code takes their values last, equal to JAX's gradient."""
    from dgraph import make_function
    from dgraph.cli import main

    def spring(q, data, k):
        return k * jnp.sum((q[1:] - q[:-1]) ** 2) + jnp.dot(data, q)

    q, data, k = np.array([0.3, 1.1, -0.4]), np.array([0.5, -1.0, 2.0]), 2.5
    graph = from_jax(spring, q, data, k, params=["data", "k"])
    assert graph.inputs == ["q0", "q1", "q2"]
    assert graph.parameters == ("data0", "data1", "data2", "k")
    J = make_function(graph)
    with jax.enable_x64(True):
        want = jax.jit(jax.grad(spring))(jnp.asarray(q), jnp.asarray(data), k)  # one compilation
    np.testing.assert_allclose(np.ravel(J(q, np.append(data, k))), want, rtol=1e-12)
    arrays = from_jax(spring, q, data, k, params=["data", "k"], level="array")
    assert arrays.inputs == ["q"] and arrays.parameter_shapes == {"data": (3,), "k": ()}
    np.testing.assert_allclose(make_function(arrays)(q, data, k), want, rtol=1e-12)
    model = tmp_path / "spring.py"
    model.write_text(
        "import jax.numpy as jnp\n\ndef spring(q, k):\n"
        "    return k * jnp.sum((q[1:] - q[:-1]) ** 2)\n"
    )
    assert main(["structure", f"{model}:spring", "--inputs", "q:3", "--params", "k"]) == 0


def test_outputs_keep_the_order_the_function_returns_them_in():
    """An output that does not depend on the inputs was added before the others, so the
    graph's outputs (and a stacked Jacobian's rows) were not in return order:
    make_function of ``lambda x: (x*x, c)`` gave the constant's zero rows first
    (hessian_methods_survey: value_and_grad of an affine f)."""
    x = np.array([0.3, -0.2, 0.5])

    def f(x):
        return x * x, jnp.array([1.0, 2.0, 3.0]), jnp.sin(x[0])

    g = from_jax(f, x, level="array")
    assert g.outputs == ["y0", "y1", "y2"]
    J = np.asarray(dgraph.make_function(f, "jacobian", point=[x])(x))
    want = np.vstack([np.diag(2 * x), np.zeros((3, 3)), [[np.cos(x[0]), 0.0, 0.0]]])
    np.testing.assert_allclose(J, want, rtol=1e-14, atol=0)


def test_debug_prints_and_callbacks_are_read_as_nothing(capfd):
    """``jax.debug.print`` and ``jax.debug.callback`` (effects without values, in a scan's
    body too) were an IndexError traceback; they are read as nothing: the Jacobian in
    python and C and the Hessian equal JAX's."""

    def f(x):
        jax.debug.print("x0 = {}", x[0])
        jax.debug.callback(lambda v: None, x)
        step = lambda c, t: (jax.debug.print("c = {}", c) or c * t + jnp.sin(c), c)  # noqa: E731
        return jnp.sin(x) * x + jax.lax.scan(step, x[0], x)[1]

    x = np.array([0.3, 0.5, 0.7])
    want = np.asarray(jax.jit(jax.jacfwd(f))(jnp.asarray(x)))
    for lang in ("python", "c"):
        made = dgraph.make_function(f, "jacobian", lang, point=[x], method="forward")
        assert made.generated.verified
        np.testing.assert_allclose(made(x), want, rtol=1e-13, atol=1e-15)
    g = lambda x: jnp.sum(f(x) ** 2)  # noqa: E731
    made = dgraph.hessian(g, x)
    assert made.generated.verified
    np.testing.assert_allclose(made(x), np.asarray(jax.jit(jax.hessian(g))(x)), rtol=1e-12)
