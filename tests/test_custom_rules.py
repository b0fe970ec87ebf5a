"""Custom derivative rules and the crashes of issue 52 at the array level.

``custom_jvp``/``custom_vjp`` functions are differentiated by their rule, as
``jax.jacfwd``/``jax.jacrev`` differentiate them, not by their primal computation: each
case's generated Jacobian (python and jax, dense and sparse in turn; C where its
vocabulary reaches) equals JAX's, and its value JAX's. The rule-based cases re-state asdex's
``custom_jvp`` test (``tests/test_jacobian.py``, a function ``x * sum(x)`` whose rule
returns ``2 * t``) and the straight-through estimator. Then: softmax-like modules with a
``-inf`` constant, JAX dense code with 0-d inputs, and PRNG keys folded as constants.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from dgraph.blocks import scoped
from dgraph.cli import main
from dgraph.errors import InputError

jax = pytest.importorskip(
    "jax", reason="JAX is not installed (pip install 'jacobian-accumulation[jax]')"
)
jnp = pytest.importorskip("jax.numpy")
from dgraph.codegen.function import make_function  # noqa: E402
from dgraph.frontends.jaxpr import from_jax  # noqa: E402
from tests.peers.harness import densified  # noqa: E402

jax.config.update("jax_enable_x64", True)


@jax.custom_jvp
def _times_sum(x):
    return x * jnp.sum(x)


@_times_sum.defjvp
def _times_sum_rule(primals, tangents):
    (x,), (t,) = primals, tangents
    return _times_sum(x), 2.0 * t


@jax.custom_jvp
def _round_through(x):
    return jnp.round(x)


@_round_through.defjvp
def _round_through_rule(primals, tangents):
    return _round_through(primals[0]), tangents[0]


@jax.custom_vjp
def _sin_scaled(x):
    return jnp.sin(x)


def _sin_scaled_fwd(x):
    return jnp.sin(x), jnp.cos(x)


def _sin_scaled_bwd(cos_x, ct):
    return (3.0 * cos_x * ct,)


_sin_scaled.defvjp(_sin_scaled_fwd, _sin_scaled_bwd)


@jax.custom_vjp
def _two_in_two_out(x, y):
    return x * y, jnp.exp(x)


def _two_fwd(x, y):
    return (x * y, jnp.exp(x)), (x, y)


def _two_bwd(res, cts):
    x, y = res
    a, b = cts
    return (2.0 * y * a + b, x * a)


_two_in_two_out.defvjp(_two_fwd, _two_bwd)


@jax.custom_jvp
def _outer_rule_calls_relu(x):
    return jnp.sin(x)


@_outer_rule_calls_relu.defjvp
def _outer_rule(primals, tangents):
    (x,), (t,) = primals, tangents
    return jnp.sin(x), jax.nn.relu(x) * t  # the rule itself calls a custom_jvp function


def _steps_by_index(x):
    n = jnp.arange(3)  # an integer operand of the custom call
    return _with_int(x, n)


@jax.custom_jvp
def _with_int(x, n):
    return x * n


@_with_int.defjvp
def _with_int_rule(primals, tangents):
    (x, n), (t, _) = primals, tangents
    return x * n, -t


@partial(jax.custom_jvp, nondiff_argnums=(1,))
def _power(x, k):
    return x**k


@_power.defjvp
def _power_rule(k, primals, tangents):
    return _power(primals[0], k), 5.0 * tangents[0]


@jax.custom_vjp
def _second_not_differentiated(x, y):
    return x * y


_second_not_differentiated.defvjp(
    lambda x, y: (x * y, (x, y)), lambda res, ct: (7.0 * res[1] * ct, None)
)


@jax.custom_jvp
def _symbolic_zeros(x):
    return jnp.sin(x)


def _symbolic_zeros_rule(primals, tangents):
    (x,), (t,) = primals, tangents
    zero = type(t) is jax.custom_derivatives.SymbolicZero
    return jnp.sin(x), jnp.zeros_like(x) if zero else 2.0 * t


_symbolic_zeros.defjvp(_symbolic_zeros_rule, symbolic_zeros=True)


@jax.custom_jvp
def _constant_primal(x):
    return jnp.zeros_like(x) + 1.0  # folds to a constant: the rule alone differentiates


_constant_primal.defjvp(lambda p, t: (_constant_primal(p[0]), 3.0 * t[0]))


X = np.array([0.0, 1.3, -0.4])  # an exact 0: relu's rule and its primal's differ there

# name: (function, arguments, the JAX derivative used)
CASES = {
    "asdex custom_jvp x*sum(x), rule 2t": (_times_sum, (X,), jax.jacfwd),
    "relu at 0": (jax.nn.relu, (X,), jax.jacfwd),
    "relu6 and silu": (lambda x: jax.nn.relu6(x) * jax.nn.silu(x), (X,), jax.jacfwd),
    "straight-through custom_jvp": (_round_through, (X + 0.2,), jax.jacfwd),
    "straight-through stop_gradient": (
        lambda x: x + jax.lax.stop_gradient(jnp.round(x) - x),
        (X + 0.2,),
        jax.jacfwd,
    ),
    "custom_vjp bwd 3 cos ct": (_sin_scaled, (X,), jax.jacrev),
    "custom_vjp two in, two out": (
        lambda x, y: jnp.concatenate(_two_in_two_out(x, y)),
        (X, X[::-1] + 1.0),
        jax.jacrev,
    ),
    "custom inside a program": (
        lambda x: jnp.sin(_times_sum(x)) * jax.nn.relu(x) + _sin_scaled(x),
        (X,),
        jax.jacrev,
    ),
    "rule calling a custom function": (_outer_rule_calls_relu, (X,), jax.jacfwd),
    "custom_jvp with an integer operand": (_steps_by_index, (X,), jax.jacfwd),
    "nondiff_argnums": (lambda x: _power(x, 3), (X,), jax.jacfwd),
    "custom_vjp, None for an operand": (
        lambda x: _second_not_differentiated(x, jnp.cos(x)),
        (X,),
        jax.jacrev,
    ),
    "a constant primal, a rule 3t": (lambda x: _constant_primal(x) * x, (X,), jax.jacfwd),
    "symbolic zeros": (_symbolic_zeros, (X,), jax.jacfwd),
    "inside jax.checkpoint": (
        jax.checkpoint(lambda x: jnp.sum(jax.nn.relu(x - 0.3) ** 2) * x),
        (X,),
        jax.jacfwd,
    ),
    "softplus": (lambda x: jax.nn.softplus(x) * jnp.sum(x), (X,), jax.jacfwd),
}


def _dense(J, graph, args) -> np.ndarray:
    """``make_function``'s Jacobian (the array for one output and one input, else
    ``jax.jacobian``'s tuples; dense or sparse blocks) as one matrix, outputs by rows,
    inputs by columns."""
    by_output = J if len(graph.outputs) > 1 else (J,)
    rows = []
    for y, row in zip(graph.outputs, by_output, strict=True):
        size = int(np.prod(graph.shape(y)))
        row = row if len(graph.inputs) > 1 else (row,)
        blocks = [_array(b).reshape(size, np.size(a)) for b, a in zip(row, args, strict=True)]
        rows.append(np.hstack(blocks))
    return np.vstack(rows)


def _array(block) -> np.ndarray:
    """A block as a NumPy array: SciPy's sparse by ``toarray``, JAX's BCOO densified in
    NumPy (:func:`tests.peers.harness.densified`: its ``todense``'s sum at the indices,
    without an XLA scatter compiled for each shape), a dense block as it is."""
    if hasattr(block, "toarray"):
        return block.toarray()
    return densified(block) if hasattr(block, "todense") else np.asarray(block)


_EXPECTED: dict[tuple, tuple] = {}


def _expected(f, args, derivative):
    """JAX's Jacobian, one matrix; jitted: one program, compiled once, not each primitive
    of the tangent (or adjoint) program on its own. Kept per function, arguments and
    transform (read-only): the array-level and the element-level test of a case compare
    with the same one."""
    key = (id(f), derivative, tuple((np.shape(a), np.asarray(a).tobytes()) for a in args))
    if key not in _EXPECTED:
        jac = jax.jit(derivative(f, argnums=tuple(range(len(args)))))(*args)
        want = np.hstack(
            [np.asarray(j).reshape(-1, np.size(a)) for j, a in zip(jac, args, strict=True)]
        )
        want.flags.writeable = False
        _EXPECTED[key] = (f, want)  # f held: its id is not reused while kept
    return _EXPECTED[key][1]


_GRAPHS: dict[tuple, tuple] = {}


def _array_graph(f, args):
    """``from_jax(f, *args, level="array")``, kept per function and arguments: the case's
    Jacobian and primal-value tests read one graph (and its JAX reference), as a user's
    calls of ``make_function`` on one graph would."""
    key = (id(f), tuple((np.shape(a), np.asarray(a).tobytes()) for a in args))
    if key not in _GRAPHS:
        _GRAPHS[key] = (f, from_jax(f, *args, level="array"))  # f held: its id not reused
    return _GRAPHS[key][1]


BOTH_LAYOUTS = ((False, True), (False, True))
"""Python's and JAX's layouts (dense, sparse) a check generates: every pair."""


def _check_all_languages(f, args, derivative, c: bool = True, layouts=BOTH_LAYOUTS):
    """Every generated Jacobian (``layouts``: Python's, JAX's) equals JAX's; returns the
    graph."""
    g = _array_graph(f, args)
    want = _expected(f, args, derivative)
    with scoped():  # the builds of one graph share its JAX reference checks
        for lang, sparses in zip(("python", "jax"), layouts, strict=True):
            for sparse in sparses:
                J = make_function(g, lang=lang, sparse=sparse)(*args)
                np.testing.assert_allclose(_dense(J, g, args), want, rtol=1e-12, atol=1e-14)
        if c:
            S = make_function(g, lang="c", sparse=True)(*args)
            np.testing.assert_allclose(_dense(S, g, args), want, rtol=1e-12, atol=1e-14)
    return g


def _in_turn(name: str, cases=None) -> tuple[tuple[bool], tuple[bool]]:
    """Python dense and JAX sparse for every other case of ``cases`` (the rule cases by
    default), Python sparse and JAX dense for the rest: each case in both languages and
    both layouts, each language in each layout on half the cases. A function is read into
    the graph (``from_jax``), which every language and layout then prints alike; the
    cases whose code in one pair reaches a library line no other does keep every pair
    (:data:`EVERY_PAIR`)."""
    if name in EVERY_PAIR:
        return BOTH_LAYOUTS
    first = list(CASES if cases is None else cases).index(name) % 2 == 1
    return (first,), (not first,)


EVERY_PAIR = {"relu at 0", "attention", "sin(a) * b + a"}
"""Cases checked in every language and layout all the same: the only ones whose code in
one pair reaches a library line none of the others does: relu's in JAX sparse (an exact
zero's condition, :func:`dgraph.codegen.array_passes._exact`; coverage, session 56),
attention's in JAX dense (an einsum folded into its producer's statement,
:mod:`dgraph.codegen.tensor.fuse`) and ``sin(a) * b + a``'s in JAX sparse (two blocks read
from one device array, :mod:`dgraph.codegen.tensor.module`; coverage, session 65)."""


@pytest.mark.parametrize("name", list(CASES))
def test_custom_rules_give_jax_s_jacobian(name):
    f, args, derivative = CASES[name]
    c = name != "inside jax.checkpoint"  # C: no einsum
    _check_all_languages(f, args, derivative, c=c, layouts=_in_turn(name))


@pytest.mark.parametrize("name", list(CASES))
def test_custom_rules_keep_the_primal_value(name):
    f, args, _ = CASES[name]
    g = _array_graph(f, args)
    values = make_function(g, mode="value_and_jacobian")(*args)[0]
    values = values if len(g.outputs) > 1 else (values,)
    np.testing.assert_allclose(
        np.concatenate([np.ravel(v) for v in values]),
        np.ravel(f(*args)),
        rtol=1e-14,
        atol=1e-15,
    )


def test_the_rule_not_the_primal():
    """The two cases where the primal's derivative is not JAX's: 2·I, and 0 at relu's kink."""
    g = from_jax(_times_sum, X, level="array")
    J = make_function(g)(X)
    np.testing.assert_array_equal(J, 2.0 * np.eye(3))
    g = from_jax(jax.nn.relu, X, level="array")
    np.testing.assert_array_equal(np.diag(make_function(g)(X)), [0.0, 1.0, 0.0])
    assert len(g.intermediates) + len(g.outputs) == 2  # the rule's select_n and the sum


def test_a_backward_rule_that_is_not_linear_is_one_line():
    @jax.custom_vjp
    def clipped(x):
        return x

    clipped.defvjp(lambda x: (x, None), lambda _, ct: (jnp.where(ct > 0, ct, 0.0),))
    with pytest.raises(InputError) as info:
        from_jax(lambda x: clipped(jnp.sin(x)), X, level="array")
    assert "custom_vjp backward rule of 'clipped'" in str(info.value)  # was of ''
    assert "\n" not in str(info.value)


SOFTMAX_LIKE = {
    "softmax": (jax.nn.softmax, [(3, 4)]),
    "log_softmax": (lambda x: jax.nn.log_softmax(x, axis=0), [(3, 4)]),
    "attention": (lambda x: jax.nn.softmax(x @ x.T / 2.0, axis=-1) @ x, [(3, 4)]),
    "layer_norm": (
        lambda x: (
            (x - jnp.mean(x, -1, keepdims=True)) / jnp.sqrt(jnp.var(x, -1, keepdims=True) + 1e-5)
        ),
        [(3, 4)],
    ),
    "max of -inf": (lambda x: jnp.maximum(x, -jnp.inf) * 2.0, [(4,)]),
}


@pytest.mark.parametrize("name", list(SOFTMAX_LIKE))
def test_modules_with_infinite_constants_run(name):
    f, shapes = SOFTMAX_LIKE[name]
    args = [np.random.default_rng(5).uniform(-1, 1, s) for s in shapes]
    _check_all_languages(
        f, args, jax.jacfwd, c=name == "max of -inf", layouts=_in_turn(name, SOFTMAX_LIKE)
    )


SCALARS = {
    "sum(sin(x) + y)": (lambda x, y: jnp.sum(jnp.sin(x) + y), (np.full(3, 0.7), np.array(0.4))),
    "sin(a) * b + a": (lambda a, b: jnp.sin(a) * b + a, (np.array(0.5), np.array(2.0))),
    "a * sin(x)": (lambda a, x: a * jnp.sin(x), (np.array(0.5), np.ones(3))),
}


@pytest.mark.parametrize("name", list(SCALARS))
def test_zero_dimensional_inputs(name):
    f, args = SCALARS[name]
    # C: no one-entry subscripts yet
    _check_all_languages(f, args, jax.jacfwd, c=False, layouts=_in_turn(name, SCALARS))


KEYED = {
    "permutation": lambda x: jnp.sin(x[jax.random.permutation(jax.random.PRNGKey(0), 5)]),
    "normal": lambda x: jnp.sin(x) * jax.random.normal(jax.random.PRNGKey(1), x.shape),
    "typed key": lambda x: x**2 * jax.random.uniform(jax.random.key(2), x.shape),
}


@pytest.mark.parametrize("name", list(KEYED))
def test_prng_keys_fold_as_constants(name):
    x = np.linspace(0.1, 0.9, 5)
    layouts = _in_turn(name, KEYED)
    g = _check_all_languages(
        KEYED[name], (x,), jax.jacfwd, c=name != "permutation", layouts=layouts
    )
    assert any("folded" in note for note in g.notes)


MODELS = """
import jax, jax.numpy as jnp

def softmax(x):
    return jax.nn.softmax(x, axis=-1)

def scalars(a, b):
    return jnp.sum(jnp.sin(a) + b)

def permuted(x):
    return jnp.sin(x[jax.random.permutation(jax.random.PRNGKey(0), x.shape[0])])

def straight_through(x):
    return x + jax.lax.stop_gradient(jnp.round(x) - x)
"""

# each exited 1 with "internal error" (or was refused) before
CLI = {
    "softmax-python": ["softmax", "--inputs", "x:3x4", "-o", "j.py"],
    "softmax-jax": ["softmax", "--inputs", "x:3x4", "--lang", "jax", "-o", "j.py"],
    "scalars-jax": [
        "scalars",
        "--inputs",
        "a:3,b",
        "--level",
        "array",
        "--lang",
        "jax",
        "-o",
        "j.py",
    ],
    "permutation": ["permuted", "--inputs", "x:5", "--level", "array", "-o", "j.py"],
    "straight-through": ["straight_through", "--inputs", "x:4", "--level", "array", "-o", "j.py"],
}


@pytest.mark.parametrize("case", list(CLI))
def test_cli_codegen(case, tmp_path, monkeypatch, capsys):
    (tmp_path / "models.py").write_text(MODELS)
    monkeypatch.chdir(tmp_path)
    name, *rest = CLI[case]
    code = main(["codegen", f"models.py:{name}", *rest])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert (tmp_path / "j.py").stat().st_size > 0 and "checked" in out


@pytest.mark.parametrize("lang", ["python", "jax"])
def test_stack_in_value_and_sweep_code(lang):
    """``stack`` had no value printer: jvp, vjp and value_and_jacobian raised."""

    def f(x, y):
        return jnp.stack([jnp.sin(x), x * y], axis=1)

    args = (np.full((2, 3), 0.3), np.full((2, 3), 0.5))
    g = from_jax(f, *args, level="array")
    value, J = make_function(g, mode="value_and_jacobian", lang=lang)(*args)
    np.testing.assert_allclose(np.asarray(value), f(*args), rtol=1e-15)
    np.testing.assert_allclose(np.asarray(J[0]), jax.jacfwd(f)(*args), rtol=1e-14)
    v = (np.ones((2, 3)), np.linspace(0, 1, 6).reshape(2, 3))
    out = make_function(g, mode="jvp", lang=lang)(*args, *v)
    np.testing.assert_allclose(np.asarray(out), jax.jvp(f, args, v)[1], rtol=1e-14)


IS_FINITE = {
    "logsumexp": jax.scipy.special.logsumexp,
    "nn.logsumexp": lambda x: jax.nn.logsumexp(x) * x,
    "isfinite": lambda x: jnp.where(jnp.isfinite(x), x, 0.0) * 2.0,
}


@pytest.mark.parametrize("name", list(IS_FINITE))
def test_is_finite_is_a_nested_predicate(name):
    """``is_finite`` (logsumexp's guard on its max) was 'not supported at the array level'."""
    layouts = _in_turn(name, IS_FINITE)
    _check_all_languages(IS_FINITE[name], (X,), jax.jacfwd, c=False, layouts=layouts)  # C: no max


@pytest.mark.parametrize("name", list(CASES))
def test_custom_rules_at_the_element_level(name):
    """The element level follows the rule as the array level does: every case's
    Jacobian is JAX's (asdex's ``x*sum(x)`` with the rule 2t included, where the
    primal's derivative differs), and its outputs' values the primal's."""
    from dgraph.core.numeric import vertex_values
    from dgraph.methods import accumulate

    f, args, derivative = CASES[name]
    graph = from_jax(f, *args)
    assert not graph.is_tensor
    point = np.concatenate([np.ravel(a) for a in args])
    got = np.asarray(accumulate(graph, "forward").evaluate(point), dtype=float)
    np.testing.assert_allclose(got, _expected(f, args, derivative), rtol=1e-12, atol=1e-14)
    values = vertex_values(graph, point)
    np.testing.assert_allclose(
        [values[y] for y in graph.outputs], np.ravel(f(*args)), rtol=1e-13, atol=1e-15
    )


def test_a_rule_whose_tangent_is_not_finite_keeps_the_primal_value():
    """``xlogy(x, x)`` and ``entr`` (a rule inside a rule) at ``x = 0``: the rule's
    tangent ``ẋ·log(x) + ẋ·x/x`` is ``0·(−inf) + 0·0/0`` there, which made the value nan
    and the reading "a dgraph bug". The value is the primal's (0), the derivative the
    rule's (not finite, as ``jax.jacfwd``'s), not verified; elsewhere ``log(x) + 1``."""
    import warnings

    x = np.array([0.0, 0.5, 1.5])
    for f, sign in ((lambda x: jax.scipy.special.xlogy(x, x), 1.0), (jax.scipy.special.entr, -1)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            made = make_function(f, "value_and_jacobian", point=[x])
        value, jacobian = made(x)
        np.testing.assert_allclose(value, sign * np.array([0.0, *(x[1:] * np.log(x[1:]))]))
        assert not np.isfinite(jacobian[0, 0]) and made.generated.verified is False
        np.testing.assert_allclose(np.diag(jacobian)[1:], sign * (np.log(x[1:]) + 1), rtol=1e-14)
    made = make_function(lambda x: jax.scipy.special.xlogy(x, x), point=[x + 0.25])
    assert made.generated.verified is True
    np.testing.assert_allclose(made(x + 0.25), np.diag(np.log(x + 0.25) + 1), rtol=1e-14)
