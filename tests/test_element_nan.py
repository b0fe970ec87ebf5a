"""IEEE's NaN and infinity tests at the element level: sympy takes a real symbol for a
finite number, so it decided ``x != x`` (``isnan``, ``nan_to_num``) false and ``x == inf``
false, and ``nan_to_num(log(r))`` read as ``log(r)``: NaN Jacobian entries where a ratio
is negative, unchecked where the point had none. Now ``isnan``/``isinf`` tests sympy cannot
fold, printed as such in the generated NumPy and C; values against JAX's (its
``nan_to_num``: the replaced entries' derivative 0). A condition over many entries (an
``any``) is one vertex, not distributed through every condition built on it."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from dgraph.codegen.function import make_function
from dgraph.core.expand import SYMPY
from dgraph.frontends.json_format import from_json
from dgraph.methods import accumulate

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = pytest.importorskip("jax.numpy")

from dgraph.frontends.jaxpr import from_jax  # noqa: E402
from tests import jax_reference as jref  # noqa: E402

RATIOS = np.array([0.7, -1.2, 2.0, 0.3, 0.5])  # two negative ratios: log's NaN
POSITIVE = np.abs(RATIOS)  # where nothing is replaced
TEXT = {"python": "numpy.isnan(", "c": "isnan("}


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


def _log_ratios(p):
    return jnp.nan_to_num(jnp.log(p[1:] / p[:-1]), nan=0.0, neginf=0.0) * p[1:]


def _numpy_nan_to_num(p):
    return np.nan_to_num(np.log(p[1:] / p[:-1]), nan=0.0, neginf=0.0) * p[1:]


def _numpy_self_compared(p):
    y = np.log(p[1:] / p[:-1])
    return np.where((y != y) | np.isneginf(y), 0.0, y) * p[1:]


# make_function's choice for each Jacobian below (the same generated text), named so that
# no call builds and compares every candidate's program: the choice is codegen's
# (tests/test_codegen_choice.py)
CHOSEN = "reverse"


# each reading (JAX's nan_to_num, NumPy's, NumPy's y != y: the same isnan test in the
# element graph) in one language, each language for a JAX and a NumPy reading
@pytest.mark.parametrize(
    ("f", "lang"),
    [(_log_ratios, "c"), (_numpy_nan_to_num, "python"), (_numpy_self_compared, "c")],
)
def test_nan_to_num_of_log_ratios_differentiates_as_jax(f, lang) -> None:
    """Made at a point with no negative ratio, called at one with two: JAX's Jacobian (0
    where NaN is replaced), and the code tests for NaN (main: NaN rows for JAX and
    ``y != y``, ``np.nan_to_num`` refused)."""
    jacobian = jref.jacfwd(_log_ratios)
    made = make_function(f, "jacobian", lang, point=[POSITIVE], method=CHOSEN)
    for p in (RATIOS, POSITIVE):
        want = np.asarray(jacobian(p))
        np.testing.assert_allclose(np.asarray(made(p)), want, rtol=1e-12, atol=1e-15)
    assert TEXT[lang] in made.source


@pytest.mark.parametrize("lang", ["python", "c"])
def test_the_hessian_of_a_nan_to_num_element_graph_is_jax_s(lang) -> None:
    """The element graph's Hessian (Dixon's Hessian graph of its partials), made at a
    positive point: JAX's at one with negative ratios (main: NaN rows)."""

    def f(p):
        return jnp.sum(jnp.nan_to_num(jnp.log(p[1:] / p[:-1]), nan=0.0, neginf=0.0) * p[1:] ** 2)

    graph = from_jax(f, POSITIVE, level="element")
    made = make_function(graph, "hessian", lang, method="markowitz")  # the choice
    want = np.asarray(jref.hessian(f)(RATIOS))
    np.testing.assert_allclose(np.asarray(made(RATIOS)), want, rtol=1e-12, atol=1e-14)
    assert TEXT[lang] in made.source


def _infinities(x, xp=jnp):
    y = xp.where(x > 1.0, xp.inf, xp.where(x < -1.0, -xp.inf, x))  # sentinels
    a = xp.where(xp.isinf(y), 2.0 * x, x**2)
    b = xp.where(xp.isposinf(y), xp.sin(x), xp.where(xp.isfinite(y), xp.cos(x), x**3))
    return a + b + xp.nan_to_num(y, posinf=3.0, neginf=-3.0) * x


@pytest.mark.parametrize(  # each reading (JAX's, NumPy's) in one language
    ("f", "lang"), [(_infinities, "c"), (lambda x: _infinities(x, np), "python")]
)
def test_isinf_isposinf_and_isfinite_hold_at_run_time(f, lang) -> None:
    """``isinf``, ``isposinf``, ``isfinite`` and ``nan_to_num``'s ``posinf``/``neginf``
    on infinite sentinels: JAX's Jacobian on both sides of them (main: ``y == inf`` read
    false, an infinite Jacobian, or the point check's refusal)."""
    x = np.array([2.0, -3.0, 0.5, -0.2])
    want = np.asarray(jref.jacfwd(_infinities)(x))
    made = make_function(f, "jacobian", lang, point=[x], method="forward")  # the choice
    np.testing.assert_allclose(np.asarray(made(x)), want, rtol=1e-12, atol=1e-15)
    assert ("numpy.isinf(" if lang == "python" else "isinf(") in made.source
    finite = np.array([0.1, -0.4, 0.5, 0.9])
    want = np.asarray(jref.jacfwd(_infinities)(finite))
    np.testing.assert_allclose(np.asarray(made(finite)), want, rtol=1e-12, atol=1e-15)


def _any_nan(x, fill):
    a = jnp.log(x)  # NaN at a negative entry
    return jnp.where(jnp.any(jnp.isnan(a)), fill, a) * x  # jnp.percentile's first step


def test_a_condition_over_every_entry_is_one_vertex_whatever_the_size() -> None:
    """``where(any(isnan(a)), fill, a)`` (``jnp.percentile``'s, before its sort): the
    ``any`` is one 0/1 vertex read by each entry, so the graph grows linearly: edges
    ≤ 6n (inlined: n²) and the expressions' operations ×4 from n = 12 to 48 (sympy
    distributed an inlined ``any`` of flags through each entry's condition: past 12
    CPU-minutes at n = 12). Its Jacobian is JAX's: all 0 with a negative entry (main:
    the log's)."""
    totals = {}
    for n in (12, 48):
        x = np.linspace(0.5, 2.0, n)
        graph = from_jax(lambda x: _any_nan(x, jnp.nan), x, level="element")
        flags = [v for v in graph.vertices if v.endswith("_flag")]
        assert len(flags) == 1 and graph.n_edges <= 6 * n
        totals[n] = sum(sympy.count_ops(graph.expr(v)) for v in graph.vertices)
    assert totals[48] <= 4.5 * totals[12]
    x = np.linspace(0.5, 2.0, 12)
    x[3] = -1.0
    graph = from_jax(lambda x: _any_nan(x, 0.0), np.abs(x), level="element")
    got = accumulate(graph, "forward", verify=False).evaluate(x)
    want = np.asarray(jref.jacfwd(lambda x: _any_nan(x, 0.0))(x))
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, atol=0)


def test_ieee_comparisons_of_an_entry_with_itself_and_with_infinities() -> None:
    """Each comparison as the element level reads it, of an entry with itself, ±inf, NaN
    and a number (either side), against NumPy's at NaN, ±inf and numbers (sympy folds
    ``x <= x`` and ``x < inf`` true, ``x == -inf`` false)."""
    comparisons = {
        "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
        "gt": np.greater, "ge": np.greater_equal,
    }  # fmt: skip
    x = sympy.Symbol("x", real=True)
    others = (x, sympy.oo, -sympy.oo, sympy.nan, sympy.Integer(1))
    for name, compare in comparisons.items():
        for other in others:
            for a, b in ((x, other), (other, x)):
                held = SYMPY[name](a, b)
                test = sympy.lambdify([x], held, modules="numpy")
                for value in (np.nan, np.inf, -np.inf, 1.0, 1.5, -2.0):
                    left, right = (value if e is x else float(e) for e in (a, b))
                    with np.errstate(invalid="ignore"):
                        assert bool(test(np.float64(value))) == compare(left, right), (held, value)


def test_a_graph_with_ieee_tests_reads_back_from_its_json() -> None:
    """``isnan``, ``isinf`` and ``isfinite`` in vertex expressions: written to JSON and
    read back, the same Jacobian (main: "unknown function 'isfinite'")."""

    def f(p):
        r = _log_ratios(p)
        return jnp.where(jnp.isfinite(r / p[:-1]), r, 0.0) + jnp.isinf(p[1:]) * p[1:]

    graph = from_jax(f, POSITIVE, level="element")
    again = from_json(graph.to_json())
    want = np.asarray(jref.jacfwd(f)(RATIOS))
    for g in (graph, again):
        got = accumulate(g, "forward", verify=False).evaluate(RATIOS)
        np.testing.assert_allclose(np.asarray(got, dtype=float), want, atol=1e-15)


@pytest.mark.parametrize("lang", ["python", "c"])
def test_an_infinity_no_derivative_reads_is_checked_at_the_users_point(lang) -> None:
    """``np.max(where=mask, initial=0)``: the masked entries are ``-inf`` inside, read by
    no derivative; the element level's check passed the user's point over ("values or
    partials are not finite at the given point": not verified) where the array level's
    checked it. Now checked there too, and the Jacobian is the mask's argmax indicator."""
    from dgraph.frontends import from_python

    def f(x):
        M = x.reshape(3, 4)
        return np.max(M, axis=0, where=M > 0.3, initial=0.0).sum()

    x = np.array([0.56, 0.87, 0.30, 0.86, 0.42, 0.5, 0.78, 0.49, 0.58, 0.22, 0.73, 0.58])
    made = make_function(from_python(f, point=[x], level="element"), "jacobian", lang)
    assert made.generated.verified
    M = x.reshape(3, 4)
    want = np.zeros((3, 4))
    want[np.argmax(np.where(M > 0.3, M, -np.inf), axis=0), np.arange(4)] = 1.0
    np.testing.assert_array_equal(np.asarray(made(x)).reshape(3, 4), want)


def test_a_nan_inside_reads_the_array_level_where_no_level_is_named() -> None:
    """``jnp.nansum(jnp.where(x > 0.5, x, nan) ** 2)``: the element level (the default
    for 6 entries) multiplied the where's zero by NaN — NaN entries, not verified; the
    array level keeps the zeros structural, as ``jax.jacfwd`` and ``jax.grad``. At
    x = 0.5 the function jumps (0 below, 0.25 above): JAX's value there is its
    convention, not verified (session 65); the random point agrees."""
    from dgraph.frontends import from_python

    def f(x):
        return jnp.nansum(jnp.where(x > 0.5, x, jnp.nan) ** 2)

    x = np.array([0.3, 0.5, 0.7, 0.2, 0.9, 0.6])
    graph = from_python(f, point=[x], level=None)  # as make_function(f, point=[x]) reads it
    assert graph.is_tensor and any("a vertex is NaN" in n for n in graph.notes)
    made = make_function(graph, "jacobian")
    detail = made.generated.check.detail
    assert not made.generated.verified and "its gt" in detail and "at its break" in detail
    assert "agrees with JAX's jvp at a random point" in detail, detail
    np.testing.assert_array_equal(np.asarray(made(x)), np.asarray(jax.grad(f)(x)))
    np.testing.assert_array_equal(np.asarray(made(x)), [0.0, 0.0, 1.4, 0.0, 1.8, 1.2])
