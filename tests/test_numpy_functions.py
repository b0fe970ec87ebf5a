"""NumPy-style Python functions in: numpy ufuncs, math functions, indexing and vector
inputs traced; the Jacobian agrees with central differences of the function itself."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest
import sympy

import dgraph
from dgraph.cli import main
from dgraph.errors import InputError
from dgraph.frontends import from_function
from dgraph.frontends.functions import inspects_expressions


def pendulum(q, p, g):
    """Two coupled pendulums: energy and the first angle's acceleration."""
    delta = q[0] - q[1]
    kinetic = 0.5 * np.sum(p**2)
    potential = -g * (2 * math.cos(q[0]) + np.cos(q[1]))
    coupling = np.abs(np.sin(delta)) * p[0] * p[1]
    return kinetic + potential + coupling, -g * np.sin(q[0]) / (1 + np.cos(delta) ** 2)


def layer(x):
    """A small dense layer with a constant matrix, a ReLU-like max and np.where."""
    w = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])
    h = np.tanh(w @ x + 0.1)
    gate = np.where(x[0] > 1.0, x[1], x[2])  # a condition on a traced value
    return np.concatenate([h, [max(h[0], h[1]) * gate, np.arctan2(x[0], x[2])]])


def products(x, k):
    """np.cumprod and np.prod (running products along an axis), math and sympy functions
    of elements, and a traced array times a traced scalar."""
    return np.cumprod(x) * k + np.prod(x) * math.exp(x[0]) + sympy.sin(x[1]) * np.sin(x) * x[0]


CASES = [(pendulum, [2, 2, 0]), (layer, [3]), (products, [3, 0])]


def _differences(f, sizes, point, h=1e-6):
    def flat(z):
        args, k = [], 0
        for n in sizes:
            args.append(z[k : k + n] if n else z[k])
            k += max(n, 1)
        out = f(*args)
        parts = out if isinstance(out, (tuple, list)) else [out]
        return np.concatenate([np.ravel(np.asarray(o, dtype=float)) for o in parts])

    cols = [(flat(point + h * e) - flat(point - h * e)) / (2 * h) for e in np.eye(len(point))]
    return np.stack(cols, axis=-1)


@pytest.mark.parametrize("f,sizes", CASES, ids=[f.__name__ for f, _ in CASES])
def test_jacobian_agrees_with_differences_of_the_function(f, sizes):
    g = from_function(f, sizes=sizes)
    es = dgraph.accumulate(g, "markowitz")
    assert es.verified
    rng = np.random.default_rng(5)
    for _ in range(3):
        point = rng.uniform(0.3, 1.7, size=len(g.inputs))
        expected = _differences(f, sizes, point)
        np.testing.assert_allclose(es.evaluate(point), expected, rtol=1e-6, atol=1e-7)


def test_inputs_and_intermediates_take_the_function_s_names():
    g = from_function(pendulum, sizes=[2, 2, 0])
    assert g.inputs == ["q0", "q1", "p0", "p1", "g"]
    assert g.outputs == ["y0", "y1"]
    # the array trace expanded: one vertex per operation, each local variable's named
    assert {"delta", "kinetic", "potential", "coupling"} <= set(g.intermediates)
    assert str(g.expr("delta")) == "q0 - q1"


def test_what_cannot_be_traced_is_one_clear_error():
    def branches(x):
        return x * 2 if x > 0 else -x

    with pytest.raises(InputError, match="branch on a value that depends on the inputs"):
        from_function(branches)

    def rounds(x):
        return float(np.array([x, x])) * 2  # float() of two entries: NumPy refuses it too

    with pytest.raises(InputError, match="float"):
        from_function(rounds)

    def unknown(x):
        return np.spacing(x) + x

    with pytest.raises(InputError, match=r"numpy\.spacing"):
        from_function(unknown)


def test_sympy_functions_still_trace_as_before():
    g = from_function(lambda a, b: sympy.Piecewise((a * b, a > 0), (b, True)) + sympy.sin(a))
    assert g.inputs == ["a", "b"] and len(g.outputs) == 1


def test_the_command_line_takes_vector_inputs_and_shows_expressions(tmp_path, capsys):
    model = tmp_path / "model.py"
    model.write_text(
        "import math\n\nimport numpy as np\n\n\ndef spring(q, k):\n"
        "    stretch = q[1:] - q[:-1]\n"
        "    return k * np.sum(stretch**2) + math.sin(q[0])\n"
    )
    assert main(["structure", f"{model}:spring", "--inputs", "q:3,k", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["inputs"] == ["q0", "q1", "q2", "k"]
    assert "sin(q0)" in data["expressions"].values()
    assert all(v in data["expressions"] for v in data["intermediates"] + data["outputs"])


def test_the_command_line_loads_a_file_with_a_dataclass(tmp_path, capsys):
    """``@dataclass`` looks its class's module up in ``sys.modules`` (string annotations,
    ``from __future__ import annotations``): main loaded the file unregistered ("importing
    it failed: AttributeError: 'NoneType' object has no attribute '__dict__'"); the name is
    free again afterwards, and a file named like a loaded module (``numpy.py``) still
    imports that module."""
    source = (
        "from __future__ import annotations\n\nfrom dataclasses import dataclass\n\n"
        "import numpy as np\n\n\n@dataclass\n"
        "class Spring:\n    k: float\n    rest: float = 1.0\n\n"
        "    def energy(self, q):\n        return self.k * np.sum((np.diff(q) - self.rest) ** 2)\n"
        "\n\nmodel = Spring(k=2.0)\n\n\ndef f(q):\n    return model.energy(q)\n"
    )
    for name in ("springs_model", "numpy"):
        (tmp_path / f"{name}.py").write_text(source)
        out = tmp_path / f"{name}_jac.py"
        args = ["codegen", f"{tmp_path / name}.py:f", "--inputs", "q:3", "-o", str(out)]
        assert main(args) == 0, capsys.readouterr().err
        space: dict = {}
        exec(compile(out.read_text(), str(out), "exec"), space)
        q = np.array([0.0, 1.5, 2.0])
        # f = 2 Σ (Δq − 1)²: ∂f/∂q = 4 (Δq − 1) at the right end of each Δq, minus at the left
        d = 4 * (np.diff(q) - 1.0)
        np.testing.assert_allclose(space["jacobian"](q).ravel(), [-d[0], d[0] - d[1], d[1]])
        assert "springs_model" not in sys.modules and sys.modules["numpy"] is np


def test_a_deep_function_traces_without_recursing_through_its_expression():
    """The local variables that name vertices are read without sympy's free_symbols,
    which recursed through the whole expression (RecursionError at about 500 levels)."""

    def recurrence(a, b):
        x = a
        for _ in range(1500):
            x = x * b + a
        return x

    g = from_function(recurrence)
    assert len(g.intermediates) == 2 * 1500 - 1 and g.outputs == ["y"]


def test_a_deep_numpy_recurrence_traces():
    """Each traced operation tells a constant result by ``is_Number``, not by sympy's
    free_symbols, which walked the whole expression at every step (RecursionError)."""

    def recurrence(x):
        y = x[0]
        for _ in range(1500):
            y = np.sin(y) * x[1]
        return y

    g = from_function(recurrence, sizes=[2])
    assert len(g.intermediates) == 2 * 1500 - 1 and g.n_edges == 3 * 1500


def _running_sum(steps):
    def running(x):
        y = x[0]
        for _ in range(steps):
            t = np.sin(y) * x[1]
            y = y + t  # sympy would make a new sum of every term so far
        return y

    return running


def _averaged(steps):
    def averaged(x):
        y = x[0]
        for _ in range(steps):
            y = 0.5 * (y + np.cos(y) * x[1])  # sympy distributes 0.5 over the sum
        return y

    return averaged


@pytest.mark.parametrize("make", [_running_sum, _averaged])
def test_a_running_sum_traces_to_a_graph_linear_in_its_steps(make):
    """Each partial sum is also an operand elsewhere, so sympy's flattening made a sum of
    every term so far at every step (1,500 steps: 1.1 million edges); the tracer's tape
    makes one vertex per operation. The growth is measured from 100 steps to 500 (the
    flattened sums' 125,000 edges at 500 steps against the bound's 5,000)."""
    g = from_function(make(500), sizes=[2])
    assert g.n_edges < 10 * 500
    assert g.n_edges - from_function(make(100), sizes=[2]).n_edges < 10 * 400


@pytest.mark.parametrize("make", [_running_sum, _averaged])
def test_a_taped_function_has_the_jacobian_of_the_function(make):
    f, sizes = make(60), [2]
    g = from_function(f, sizes=sizes)
    longest = max(len(g.expr(v).args) for v in g.intermediates + g.outputs if g.expr(v).is_Add)
    assert longest <= 2  # one vertex per operation: no sum of the terms so far
    es = dgraph.accumulate(g, "reverse")
    assert es.verified
    for point in ([0.3, 0.7], [1.1, -0.4]):
        point = np.array(point)
        expected = _differences(f, sizes, point)
        np.testing.assert_allclose(es.evaluate(point), expected, rtol=1e-5, atol=1e-8)


def test_a_running_sum_is_one_vertex_per_operation():
    """``n_inputs`` is one vector argument of the array trace, expanded: 10 steps of the
    running sum are 10 two-term sums (sympy's flattening made them sums of 2 to 11 terms
    when the element tracer read it)."""
    g = from_function(_running_sum(10), n_inputs=2)
    assert g.inputs == ["x0", "x1"]
    sums = [v for v in g.intermediates + g.outputs if g.expr(v).is_Add]
    assert sorted(len(g.expr(v).args) for v in sums) == [2] * 10


def test_a_numpy_function_beside_a_jax_one_is_traced_as_numpy():
    """The reader is chosen per function (issue 40 item 4): the whole module used to be
    read with JAX when it imported it, and NumPy's ufuncs on JAX's tracers failed."""
    pytest.importorskip("jax", reason="JAX is not installed")
    from pathlib import Path

    from dgraph.frontends import load, load_function, uses_jax

    spec = str(Path(__file__).parent / "hostile" / "mixed_model.py") + ":pendulum"
    f = load_function(spec)
    assert not uses_jax(f) and uses_jax(load_function(spec.replace("pendulum", "spring")))
    g = load(spec, inputs="x:4")
    assert g.traced_with == "numpy" and g.notes == []
    es = dgraph.accumulate(g, "reverse")
    assert es.verified
    point = np.array([0.4, -0.3, 1.5, 9.8])
    np.testing.assert_allclose(es.evaluate(point), _differences(f, [4], point), rtol=1e-6)


# -- issue 40 item 3: the running sums of the issue, on every tracing route


def _pairs_sum(steps):
    """The issue's case: ``s = s + x[k]*x[k+1]``, a sum that is never used in between."""

    def running(x):
        s = 0
        for k in range(steps):
            s = s + x[k] * x[k + 1]
        return s

    return running, [steps + 1]


def _sine_sum(steps):
    def running(x):
        s = 0
        for k in range(steps):
            s += np.sin(x[k])
        return s

    return running, [steps]


def _sympy_running_sum(steps):
    """Scalar parameters and sympy's own functions: called with plain sympy symbols, every
    partial sum was a new flattened sum (300 steps: 46,350 edges; 1,500 steps: about 40 s
    in sympy alone); the tracer's values take them now."""

    def running(a, b):
        y = a
        for _ in range(steps):
            y = y + sympy.sin(y) * b
        return y

    return running, [0, 0]


RUNNING = [_pairs_sum, _sine_sum, _sympy_running_sum]


@pytest.mark.parametrize("make", RUNNING, ids=[m.__name__ for m in RUNNING])
def test_the_issue_s_running_sums_trace_to_graphs_linear_in_their_steps(make):
    """500 steps, and the growth from 100 steps to 500 (flattened sums: about n²/2
    edges, 125,000 at 500 steps)."""
    graphs = {}
    for n in (100, 500):
        f, sizes = make(n)
        graphs[n] = from_function(f, sizes=sizes)
    assert all(g.traced_with == "numpy" for g in graphs.values())
    assert graphs[500].n_edges <= 5 * 500  # sin, product, sum: 5 edges a step at most
    assert graphs[500].n_edges - graphs[100].n_edges <= 5 * 400


@pytest.mark.parametrize("make", RUNNING, ids=[m.__name__ for m in RUNNING])
def test_the_issue_s_running_sums_have_the_function_s_jacobian(make):
    f, sizes = make(120)
    g = from_function(f, sizes=sizes)
    es = dgraph.accumulate(g, "reverse")
    assert es.verified
    rng = np.random.default_rng(3)
    point = rng.uniform(0.2, 1.2, size=len(g.inputs))
    if make is _sympy_running_sum:  # sympy's sin of a float is a sympy Float
        expected = _differences(lambda a, b: float(f(a, b)), [0, 0], point)
    else:
        expected = _differences(f, sizes, point)
    np.testing.assert_allclose(es.evaluate(point), expected, rtol=1e-6, atol=1e-8)


def test_a_function_that_differentiates_is_called_with_plain_sympy_symbols():
    """``sympy.diff`` of a traced value would differentiate its tape symbol (zero): a
    function whose code uses such names is called with sympy symbols first."""

    def force(q, v):
        energy = v**2 / 2 - sympy.cos(q) * v
        return sympy.diff(energy, q)

    g = from_function(force)
    assert g.traced_with == "sympy"
    es = dgraph.accumulate(g, "reverse")
    np.testing.assert_allclose(
        es.evaluate([0.3, 2.0]), [[np.cos(0.3) * 2.0, np.sin(0.3)]], rtol=1e-12
    )
    assert from_function(lambda q, v: v**2 / 2 - sympy.cos(q) * v).traced_with == "numpy"
    # sympy beyond its elementwise functions, even by a name dgraph does not list
    assert inspects_expressions(lambda a: sympy.expand_trig(sympy.sin(2 * a)))
    assert not inspects_expressions(lambda a, b: sympy.Max(sympy.sin(a), b) * sympy.pi)


def _named(x, y):
    """Counts its calls; its locals name the graph's intermediates."""
    _named.calls += 1
    s = np.sin(x * y)
    area = s * x + y
    return area * area


def _named_arrays(u):
    _named_arrays.calls += 1
    t = np.tanh(u)
    w = t * u
    return w.sum()


@pytest.mark.parametrize(
    ("f", "options", "expected"),
    [
        (_named, {}, ["x", "y", "t1", "s", "t2", "area", "f"]),
        (_named_arrays, {"sizes": [(3,)], "level": "array"}, ["u", "t", "w", "y"]),
    ],
)
def test_traced_once_and_named_by_the_program_not_the_clock(monkeypatch, f, options, expected):
    """One call of ``f``; its variables name the vertices whatever the clock says (a
    clock that jumps 100 s a reading: once, names depended on a first call's time)."""
    import itertools
    import time

    f.calls = 0
    plain = from_function(f, **options)
    assert f.calls == 1
    ticks = itertools.count()
    for clock in ("perf_counter", "monotonic", "time"):
        monkeypatch.setattr(time, clock, lambda: 100.0 * next(ticks))
    slowed = from_function(f, **options)
    assert f.calls == 2
    assert plain.order() == slowed.order() == expected


def test_names_kept_under_another_tracer():
    """A tracer set before (a debugger, coverage) stays set and still sees ``f`` run."""
    import sys

    seen = []

    def tracer_(frame, event, arg):
        if frame.f_code is _named.__code__:
            seen.append(event)
        return tracer_

    _named.calls = 0
    previous = sys.gettrace()
    sys.settrace(tracer_)
    try:
        g = from_function(_named)
        assert sys.gettrace() is tracer_
    finally:
        sys.settrace(previous)
    assert g.order() == ["x", "y", "t1", "s", "t2", "area", "f"]
    assert seen[0] == "call" and seen[-1] == "return"


def test_a_traced_array_times_a_traced_scalar():
    """``np.sin(x) * x[0]`` (an array times one of its elements) is one elementwise
    product at both levels; the element tracer recursed until Python's limit on it when
    ``binary=`` or a ``math`` call sent the function there."""
    for kwargs in ({}, {"binary": True}):
        g = from_function(lambda x: np.sin(x) * x[0] + math.exp(x[1]), sizes=[2], **kwargs)
        assert g.inputs == ["x0", "x1"] and g.outputs == ["y0", "y1"]
        point = np.array([0.3, -0.8])
        expected = _differences(lambda x: np.sin(x) * x[0] + math.exp(x[1]), [2], point)
        got = dgraph.accumulate(g, "forward").evaluate(point)
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)
    array = from_function(lambda x: np.sin(x) * x[0], sizes=[2], level="array")
    assert [array.op(v).primitive for v in array.order()[1:]] == [
        "sin",
        "slice",
        "squeeze",
        "broadcast_in_dim",
        "mul",
    ]


def test_binary_makes_every_sum_and_product_two_operands():
    """``binary=`` at the element level: a reduction's n-ary sum becomes a chain of
    two-operand vertices, with the same Jacobian."""

    def f(x):
        return np.sum(x * np.sin(x)) * x[0]

    n_ary, binary = (from_function(f, sizes=[5], binary=b) for b in (False, True))
    assert max(len(n_ary.predecessors(v)) for v in n_ary.intermediates) == 5
    assert max(len(binary.predecessors(v)) for v in binary.vertices if v not in binary.inputs) == 2
    point = np.linspace(0.2, 1.0, 5)
    expected = _differences(f, [5], point)
    for g in (n_ary, binary):
        es = dgraph.accumulate(g, "reverse")
        assert es.verified
        np.testing.assert_allclose(es.evaluate(point), expected, rtol=1e-6, atol=1e-8)


def test_params_of_an_array_function_are_the_graph_s_parameters():
    """``params=`` (a scalar and a vector): inputs of the array trace whose elements become
    the element-level graph's parameters, symbols in its labels, no column."""

    def f(x, k, w):
        return k * np.sin(x) + w * x[0] + np.cos(k)

    g = from_function(f, sizes=[2, 0, 2], params=["k", "w"])
    assert g.inputs == ["x0", "x1"] and g.parameters == ("k", "w0", "w1")
    assert not set(g.parameters) & set(g.vertices)
    k, w = 0.7, np.array([1.5, -2.0])
    J = dgraph.accumulate(g, "forward").evaluate([0.3, 0.9], params=[k, *w])
    expected = _differences(lambda x: f(x, k, w), [2], np.array([0.3, 0.9]))
    np.testing.assert_allclose(J, expected, rtol=1e-6, atol=1e-8)


def test_a_vector_function_that_builds_sympy_matrices_is_sympy_s_to_read():
    """A function that works on sympy expressions (``Matrix``, ``inv``) is called with
    plain sympy symbols, a vector as an object array of them; its Jacobian is the
    function's."""

    def f(x, k):
        m = sympy.Matrix([[x[0], x[1]], [k, x[0] * x[1]]])
        return list(m.inv() * sympy.Matrix([1, 2]))

    g = from_function(f, sizes=[2, 0], params=["k"])
    assert g.traced_with == "sympy" and g.inputs == ["x0", "x1"] and g.parameters == ("k",)
    k, point = 0.5, np.array([1.3, 0.4])
    expected = _differences(lambda x: [float(v) for v in f(x, k)], [2], point)
    J = dgraph.accumulate(g, "reverse").evaluate(point, params=[k])
    np.testing.assert_allclose(J, expected, rtol=1e-6, atol=1e-8)
