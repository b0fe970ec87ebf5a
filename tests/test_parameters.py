"""Parameters (issue 28): names a function uses that are not differentiated. The graph keeps
them in its labels, the Jacobian has columns for the inputs only, verification and the
check of generated code draw them at random, and generated functions take them last."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy

from dgraph import accumulate
from dgraph.bench.pendulum import n_link_pendulum
from dgraph.cli import main
from dgraph.codegen.c import compiler, load_c
from dgraph.codegen.cuda import cxx_compiler, load_cuda_host
from dgraph.codegen.generate import generate
from dgraph.codegen.python import load_python
from dgraph.errors import InputError
from dgraph.frontends import from_function, from_json, from_sympy, from_trace

q, u, m, length, g = sympy.symbols("q u m l g")
RHS = [u, -g / length * sympy.sin(q) - u * m / length**2]


LANGS = ("python", "c", "jax")


def _reference(exprs, inputs, params):
    """sympy's Jacobian of ``exprs`` as a function of (x, p), for comparison."""
    jac = sympy.Matrix(exprs).jacobian(inputs)
    return sympy.lambdify([inputs, params], jac, "numpy")


def test_jacobian_has_columns_for_inputs_only():
    graph = from_sympy(RHS, [q, u], params=[m, length, g])
    assert graph.inputs == ["q", "u"] and graph.parameters == ("m", "l", "g")
    es = accumulate(graph, "reverse")
    assert set(es.jacobian) <= {(y, x) for y in graph.outputs for x in ("q", "u")}
    assert es.verified
    point, params = np.array([0.3, -0.7]), np.array([1.3, 0.8, 9.81])
    expected = _reference(RHS, [q, u], [m, length, g])(point, params)
    assert np.allclose(es.evaluate(point, params), expected, rtol=1e-13)


def test_evaluate_needs_the_parameters():
    es = accumulate(from_sympy(RHS, [q, u], params=[m, length, g]), "forward")
    with pytest.raises(InputError, match=r"parameters \(m, l, g\): give their values"):
        es.evaluate([0.1, 0.2])


@pytest.mark.parametrize(
    ("method", "lang"),  # CUDA once: its C++ compile costs a second, its printer is C's
    [
        *((method, lang) for method in (None, "reverse", "symbolic") for lang in LANGS),
        (None, "cuda"),
    ],
)
def test_generated_code_takes_parameters_last(lang, method):
    if lang == "c" and compiler() is None:
        pytest.skip("no C compiler")
    if lang == "cuda" and cxx_compiler() is None:
        pytest.skip("no C++ compiler for the host build")
    if lang == "jax":
        pytest.importorskip("jax")
    graph = from_sympy(RHS, [q, u], params=[m, length, g])
    gen = generate(graph, lang, method, modes=("jacobian", "jvp", "vjp", "value_and_jacobian"))
    assert gen.verified and len(gen.check.parameters) == len(gen.check.points) == 4
    rng = np.random.default_rng(1)
    x, p = rng.uniform(-1, 1, (5, 2)), rng.uniform(0.5, 2, (5, 3))
    reference = _reference(RHS, [q, u], [m, length, g])  # lambdified once, called per point
    expected = np.stack([reference(a, b) for a, b in zip(x, p, strict=True)])
    if lang == "c":
        module = load_c(gen.text)
    elif lang == "cuda":  # the same file compiled as C++, point by point
        module = load_cuda_host(gen.text)
    elif lang == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)
        module = load_python(gen.text)
    else:
        module = load_python(gen.text)
    assert np.allclose(np.asarray(module.jacobian(x, p)), expected, rtol=1e-12)
    # one parameter vector for a whole batch broadcasts
    one = np.asarray(module.jacobian(x, p[0]))
    assert np.allclose(one[0], expected[0], rtol=1e-12)
    v = rng.normal(size=(5, 2))
    assert np.allclose(np.asarray(module.jvp(x, v, p)), np.einsum("bij,bj->bi", expected, v))
    value, jac = module.value_and_jacobian(x, p)
    assert np.allclose(np.asarray(jac), expected, rtol=1e-12)
    assert np.allclose(np.asarray(value), np.asarray(module.primal(x, p)), rtol=1e-14)


def test_value_and_jacobian_shares_the_primal_values():
    pendulum = n_link_pendulum(2)
    graph = from_sympy(pendulum.rhs, pendulum.states, params=pendulum.params)
    gen = generate(graph, "python", "markowitz", modes=("jacobian", "value_and_jacobian"))
    both, jac, primal = (gen.programs[k] for k in ("value_and_jacobian", "jacobian", "primal"))
    assert gen.verified
    assert jac.mults <= both.mults < jac.mults + primal.mults


def test_kanes_method_rhs_directly():
    """``kane.rhs()`` with the dynamicsymbols q, u as inputs and masses, lengths, g as
    parameters: the generated Jacobian agrees with sympy's of the same equations."""
    pendulum = n_link_pendulum(2)
    graph = from_sympy(pendulum.rhs, pendulum.states, params=pendulum.params)
    assert graph.inputs == ["q0", "q1", "u0", "u1"]
    assert graph.parameters == ("m0", "l0", "m1", "l1", "g")
    gen = generate(graph, "python")
    assert gen.verified
    module = load_python(gen.text)
    plain = {s: sympy.Symbol(s.func.__name__) for s in pendulum.states}
    exprs = [e.xreplace(plain) for e in pendulum.rhs]
    reference = _reference(exprs, list(plain.values()), pendulum.params)
    rng = np.random.default_rng(7)
    for _ in range(3):
        x, p = rng.uniform(-1, 1, 4), rng.uniform(0.5, 2, 5)
        assert np.allclose(module.jacobian(x, p), reference(x, p), rtol=1e-10, atol=1e-12)


def test_a_function_of_time_not_given_is_named():
    q1, u1 = sympy.symbols("q1 u1", cls=sympy.Function)
    t = sympy.Symbol("t")
    with pytest.raises(InputError, match=r"unknown function 'u1\(t\)'.*input or a parameter"):
        from_sympy([q1(t) * u1(t)], [q1(t)])


def test_a_derivative_left_in_an_output_is_refused():
    q1 = sympy.Function("q1")(sympy.Symbol("t"))
    with pytest.raises(InputError, match=r"contains the derivative Derivative\(q1\(t\), t\)"):
        from_sympy([q1.diff() * q1], [q1])


def test_unknown_names_say_how_to_declare_them():
    with pytest.raises(InputError, match=r"unknown name 'g'.*params= or --params"):
        from_sympy([g * q], [q])
    with pytest.raises(InputError, match=r"unknown name 'g' \(a parameter\?"):
        from_trace("inputs: q\noutputs: y\ny = g*sin(q)\n")


def test_function_trace_and_json_agree():
    def pendulum(q, u, m, length, g):
        return [u, -g / length * np.sin(q) - u * m / length**2]

    traced = from_function(pendulum, params=["m", "length", "g"])
    assert traced.parameters == ("m", "length", "g") and traced.inputs == ["q", "u"]
    body = "inputs: q, u\noutputs: y0, y1\ny0 = u\ny1 = -g/length*sin(q) - u*m/length**2\n"
    from_text = from_trace("parameters: m, length, g\n" + body)
    assert from_text.parameters == ("m", "length", "g")
    assert from_trace(body, params=["m", "length", "g"]) == from_text
    data = traced.to_dict()
    assert data["parameters"] == ["m", "length", "g"]
    assert from_json(json.dumps(data)) == traced
    point, params = np.array([0.4, 0.1]), np.array([2.0, 1.5, 9.81])
    values = [accumulate(h, "forward").evaluate(point, params) for h in (traced, from_text)]
    assert np.allclose(values[0], values[1])


def test_vector_parameter_of_a_function():
    def spring(x, k):
        return [k[0] * x[0] ** 2 + k[1] * np.sin(x[1])]

    graph = from_function(spring, sizes=[2, 2], params=["k"])
    assert graph.inputs == ["x0", "x1"] and graph.parameters == ("k0", "k1")
    jac = accumulate(graph, "reverse").evaluate([0.5, 0.25], [3.0, 2.0])
    assert np.allclose(jac, [[3.0, 2.0 * np.cos(0.25)]])


def test_command_line_params(tmp_path, capsys):
    module = tmp_path / "pend.py"
    module.write_text(
        "import numpy as np\n\n"
        "def pendulum(q, u, m, l, g):  # noqa: E741\n"
        "    return [u, -g / l * np.sin(q) - u * m / l**2]\n"
    )
    spec = f"{module}:pendulum"
    out = tmp_path / "jac.py"
    argv = ["codegen", spec, "--params", "m,l,g", "--mode", "value_and_jacobian"]
    assert main([*argv, "-o", str(out), "--json"]) == 0  # in this process: no import again
    assert json.loads(capsys.readouterr().out)["verified"] is True
    generated = load_python(out.read_text())
    assert generated.PARAMETERS == ("m", "l", "g")
    x, p = np.array([0.3, -0.7]), np.array([1.3, 0.8, 9.81])
    value, jac = generated.value_and_jacobian(x, p)
    assert np.allclose(jac, _reference(RHS, [q, u], [m, length, g])(x, p), rtol=1e-12)
    assert np.allclose(value, [x[1], -9.81 / 0.8 * np.sin(0.3) + 0.7 * 1.3 / 0.64])
    assert main(["structure", spec, "--params", "m,l,g", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inputs"] == ["q", "u"]
