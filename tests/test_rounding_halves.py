"""``round`` at halves: ``jnp.round`` and ``numpy.round`` take a half to even,
``lax.round``'s default (``AWAY_FROM_ZERO``) away from zero. The element level read
every half up (``floor(x + 1/2)``: 2.5 → 3 for ``jnp.round``) and the array level read
``lax.round`` as NumPy's (2.5 → 2, −0.5 → 0); generated code gave those at run time,
points the value check at the user's point never saw."""

import warnings

import numpy as np
import pytest
import sympy

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

import dgraph  # noqa: E402
from dgraph import from_jax, from_trace  # noqa: E402
from dgraph.core.elementary import rint  # noqa: E402
from dgraph.core.parse import format_expression, parse_expression  # noqa: E402
from dgraph.frontends.json_format import from_json  # noqa: E402

HALVES = np.array([2.5, -0.5, 1.5, -1.5, 0.49999999999999994, -2.5000000000000004, 3.5, -0.3])
POINT = np.array([0.3, 1.2, -2.7, 3.1, 0.2, -0.8, 2.2, 5.3])
EVEN = [2.0, -0.0, 2.0, -2.0, 0.0, -3.0, 4.0, -0.0]  # numpy.round(HALVES)
AWAY = [3.0, -1.0, 2.0, -2.0, 0.0, -3.0, 4.0, -0.0]  # lax.round(HALVES)


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


@pytest.mark.parametrize(
    "f, level, expected",
    [
        (lambda x: jnp.round(x) * x, "element", EVEN),
        (lambda x: jnp.round(x) * x, "array", EVEN),
        (lambda x: lax.round(x) * x, "element", AWAY),
        (lambda x: lax.round(x) * x, "array", AWAY),
        (lambda x: np.round(x) * x, "element", EVEN),
    ],
    ids=["jnp-element", "jnp-array", "lax-element", "lax-array", "numpy-element"],
)
def test_round_at_halves_is_the_function_s(f, level, expected) -> None:
    """∂(round(x)·x)/∂x = diag(round(x)) (round's derivative 0, as JAX's): the
    generated Jacobian at halves holds each rounding's own values."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        source = from_jax(f, POINT, level="array") if level == "array" else f
        made = dgraph.make_function(
            source, "jacobian", **({} if level == "array" else {"point": [POINT]})
        )
    assert made.generated.verified is True
    np.testing.assert_array_equal(np.diag(made(HALVES)), expected)


# halves, the largest double below ½, then ±inf and NaN, which NumPy's rint passes through
EDGES = np.array([2.5, -0.5, 0.49999999999999994, -0.3, np.inf, -np.inf, np.nan])
EDGES_POINT = np.array([0.3, 1.2, -2.7, 3.1, 0.4, -1.3, 2.6])


@pytest.mark.parametrize("lang", ["c", "jax"])
def test_rint_printed_is_numpy_s_at_halves_inf_nan(lang) -> None:
    """The element level's ``round`` is one function, ``rint``, printed ``nearbyint`` in
    C and ``jnp.rint`` in JAX: the generated Jacobian's diagonal is NumPy's rounding at
    halves, ±inf and NaN, −0.5 and −0.3 to −0 (the Piecewise of ``floor`` gave +0)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = dgraph.make_function(
            lambda x: jnp.round(x) * x, "jacobian", lang, point=[EDGES_POINT]
        )
    assert made.generated.verified is True
    assert ("nearbyint(" if lang == "c" else "jnp.rint(") in made.generated.text
    got, want = np.diag(np.asarray(made(EDGES))), np.rint(EDGES)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_rint_hessian_of_the_element_level() -> None:
    """The Hessian of Σ round(x)·x² from its element level (Dixon's Hessian graph of
    ``rint(x)·x²``): 2·rint(x) on the diagonal, rint's derivative 0 twice over."""
    graph = from_jax(lambda x: jnp.sum(jnp.round(x) * x**2), EDGES_POINT, level="element")
    made = dgraph.make_function(graph, "hessian")
    assert made.generated.verified is True
    H = made(EDGES)
    np.testing.assert_array_equal(np.diag(H), 2 * np.rint(EDGES))
    finite = H[:4, :4]
    np.testing.assert_array_equal(finite, np.diag(np.diag(finite)))


def test_rint_at_a_half_is_a_break() -> None:
    """At a half the element level's rint jumps: the value check names it (not a
    Piecewise's tie) and leaves the user's point not verified, as floor's at 2."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = dgraph.make_function(
            lambda x: jnp.round(x) * x, "jacobian", point=[np.array([2.5, 0.3])]
        )
    assert made.generated.verified is False
    assert "its rint (y0) is at its break there (a half)" in made.generated.check.detail


def test_rint_of_numbers_text_and_json() -> None:
    """rint of a number is exact (a double's binary value: the largest below ½ to 0, the
    one above −2.5 to −3), ±inf and NaN its own; its derivative 0; a trace reads
    ``rint`` and its graph's JSON reads back the same expressions and partials."""
    cases = {2.5: 2, -0.5: 0, 1.5: 2, -1.5: -2, 0.49999999999999994: 0, 3.5: 4, -0.3: 0}
    cases[-2.5000000000000004] = -3
    assert {x: rint(sympy.Float(x)) for x in cases} == cases
    assert (rint(sympy.Rational(-7, 2)), rint(sympy.Rational(5, 2))) == (-4, 2)
    assert (rint(sympy.oo), rint(-sympy.oo), rint(sympy.nan)) == (sympy.oo, -sympy.oo, sympy.nan)
    a = sympy.Symbol("a", real=True)
    assert sympy.diff(rint(a) * a**2, a) == 2 * a * rint(a)
    assert parse_expression(format_expression(rint(a / 2) + a), ["a"]) == rint(a / 2) + a
    g = from_trace("inputs: a\noutputs: y\ny = rint(a)*a**2", "statement")
    h = from_json(g.to_json())
    assert h.expr("y") == g.expr("y") == rint(a) * a**2
    assert h.partial("a", "y") == g.partial("a", "y") == 2 * a * rint(a)
