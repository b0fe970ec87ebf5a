"""scipy.special's Bessel functions of order 0 and 1, ``j0``, ``j1``, ``y0``, ``y1``,
``k0``, ``k1``, ``k0e``, ``k1e``, each one elementwise operation (they were refused:
"scipy.special.j0 on an array"): C's ``dgraph_<name>`` against SciPy on a grid with the
tails, the switches, the zeros, 0, ±inf and NaN, and against mpmath beside the first
zeros; a changed coefficient caught; the Jacobian and the Hessian at both levels against
the recurrences written with SciPy's own functions (J₁'(0) = 1/2); generated Python, C
and CUDA (on the host); generated JAX refused in one line (JAX has none of them); JSON."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sps

import dgraph
from dgraph.codegen.c import compiler
from dgraph.codegen.c_special import special_definitions
from dgraph.errors import DGraphError
from tests.test_c_special import _c_function

NAMES = ("j0", "j1", "y0", "y1", "k0", "k1", "k0e", "k1e")
needs_cc = pytest.mark.skipif(compiler() is None, reason="needs a C compiler")

_RNG = np.random.default_rng(41)
_POSITIVE = np.concatenate(
    [
        _RNG.uniform(0, 2, 200),
        _RNG.uniform(2, 25, 400),  # the recurrence
        _RNG.uniform(25, 80, 200),  # Hankel's series
        10 ** _RNG.uniform(-300, 300, 200),
        [1e-300, 1e-8, 0.5, 1.0, 1.0 - 1e-16, 2.0, 2.0 + 4e-16, 25.0 - 4e-15, 25.0, 700.0],
        [705.0, 1e4, 1e15],
    ]
)
GRID = np.concatenate([_POSITIVE, -_POSITIVE[::7], [0.0, -0.0, np.inf, -np.inf, np.nan]])
# J and Y against SciPy up to 200: beyond, SciPy's phase x − π/4 loses the digits of x
# (1e-6 off at 1e10, every digit at 1e16); mpmath's there
NEAR = GRID[~(np.abs(GRID) > 200.0)]
FAR = np.array([210.0, 1e3, 1e5, 1e8, 1e10, 1e15, 3e16, 1e44, 7e244, 1e300])
_MPMATH = {"j0": (0, "besselj"), "j1": (1, "besselj"), "y0": (0, "bessely"), "y1": (1, "bessely")}


def _envelope(name: str, x: np.ndarray) -> np.ndarray:
    """The size the error of J and Y is measured against: |f| or, where smaller, the
    amplitude min(1, √(2/(π|x|))) (near a zero the absolute error counts); K's: |f|."""
    if name.startswith("k"):
        return np.zeros_like(x)
    return np.minimum(1.0, np.sqrt(2.0 / (np.pi * np.maximum(np.abs(x), 1e-300))))


def _worst(name: str, y: np.ndarray, want: np.ndarray, x: np.ndarray) -> float:
    """The largest error relative to max(|want|, the envelope); the infinities and NaN
    (Y and K below 0 and at 0) equal to SciPy's."""
    finite = np.isfinite(want)
    np.testing.assert_array_equal(y[~finite], want[~finite])
    scale = np.maximum(np.abs(want[finite]), _envelope(name, x[finite]))
    scale = np.where(scale > 0, scale, 1.0)  # K and J underflowing to 0: absolute
    return float(np.max(np.abs(y[finite] - want[finite]) / scale))


def _c(name: str, definitions: list[str] | None = None):
    call = f"dgraph_{name}(x[k])"
    return _c_function(definitions or special_definitions(call), call)


@needs_cc
@pytest.mark.parametrize("name", NAMES)
def test_c_values_equal_scipy(name: str) -> None:
    """Within 3e-14 of SciPy's over 1e-300 to 1e300 (J and Y: to 200) and below 0
    (RESULTS.md session 41: the worst at each function)."""
    x = GRID if name.startswith("k") else NEAR
    y = _c(name)(0, x)
    assert _worst(name, y, getattr(sps, name)(x), x) < 3e-14


@needs_cc
@pytest.mark.parametrize("name", sorted(_MPMATH))
def test_c_far_out_against_mpmath(name: str) -> None:
    """From 210 to 1e300 J and Y within 1e-14 of mpmath's (sin and cos of x itself)."""
    mpmath = pytest.importorskip("mpmath")
    order, function = _MPMATH[name]
    with mpmath.workdps(40):
        want = np.array([float(getattr(mpmath, function)(order, mpmath.mpf(v))) for v in FAR])
    assert _worst(name, _c(name)(0, FAR), want, FAR) < 1e-14


# each function's C text with one coefficient changed: Hankel's 8k, Miller's start, the
# trapezoid's step, the series' ψ sums, K₁'s 1/x
_MUTATIONS = {
    "j0": ("(8.0 * k * a)", "(8.001 * k * a)"),
    "j1": ("(1.3 * a + 40.0)", "(1.3 * a + 4.0)"),
    "y0": ("2.0 * s0 / norm", "2.0 * s0"),
    "y1": ("harmonic + harmonic + (order", "harmonic + (order"),
    "k0": ("0.5 / sqrt(x)", "0.9 / sqrt(x)"),
    "k1": ("1.0 / x + log_half", "1.0 / x + 0.999 * log_half"),
    "k0e": ("fmin(0.2, ", "fmin(0.6, "),
    "k1e": ("(order ? cosh(t) : 1.0)", "(order ? cosh(0.999 * t) : 1.0)"),
}


@needs_cc
@pytest.mark.parametrize("name", NAMES)
def test_a_changed_coefficient_is_caught(name: str) -> None:
    old, new = _MUTATIONS[name]
    right = special_definitions(f"dgraph_{name}(x[k])")
    wrong = [line.replace(old, new) for line in right]
    assert wrong != right
    x = GRID if name.startswith("k") else NEAR
    y = _c(name, wrong)(0, x)
    assert _worst(name, y, getattr(sps, name)(x), x) > 1e-11


@needs_cc
def test_c_beside_the_first_zeros_against_mpmath() -> None:
    """At 1e-6 … 1e-12 from the first zeros of J₀, J₁, Y₀, Y₁ the absolute error is a few
    ulps (the relative one grows as 1/|f| there, by the recurrence's cancellation)."""
    mpmath = pytest.importorskip("mpmath")
    zeros = {"j0": (0, mpmath.besselj), "j1": (1, mpmath.besselj)}
    zeros |= {"y0": (0, mpmath.bessely), "y1": (1, mpmath.bessely)}
    roots = {"j0": 2.404825557695773, "j1": 3.8317059702075125}
    roots |= {"y0": 0.8935769662791675, "y1": 2.197141326031017}
    offsets = np.array([1e-6, -1e-8, 1e-10, -1e-12])
    for name, (order, f) in zeros.items():
        x = roots[name] + offsets
        with mpmath.workdps(40):
            want = np.array([float(f(order, mpmath.mpf(float(v)))) for v in x])
        got = _c(name)(0, x)
        assert np.max(np.abs(got - want)) < 1e-15, name


# -- derivatives -------------------------------------------------------------------------


def _program(x):
    j0, j1, y0, y1, k0, k1, k0e, k1e = (getattr(sps, n) for n in NAMES)
    return np.sum(
        j0(x) * x + j1(x) ** 2 + y0(x) + y1(x) * k0(x) + k1(x) + k0e(x) * k1e(x) + j1(2 * x)
    )


def _derivatives(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The gradient and the Hessian's diagonal of :func:`_program` by A&S 9.1.27 and
    9.6.26, written with SciPy's functions."""
    j0, j1, y0, y1, k0, k1, k0e, k1e = (getattr(sps, n)(x) for n in NAMES)
    d_j1 = j0 - j1 / x
    d_y1, d_k1 = y0 - y1 / x, -k0 - k1 / x
    d_k0e, d_k1e = k0e - k1e, k1e - k0e - k1e / x
    dd_j1 = -j1 - d_j1 / x + j1 / x**2
    dd_y1 = -y1 - d_y1 / x + y1 / x**2
    dd_k1 = k1 - d_k1 / x + k1 / x**2
    dd_k0e, dd_k1e = d_k0e - d_k1e, d_k1e - d_k0e - d_k1e / x + k1e / x**2
    u = 2 * x
    ju0, ju1 = sps.j0(u), sps.j1(u)
    d_ju1 = ju0 - ju1 / u
    gradient = (
        -j1 * x + j0 + 2 * j1 * d_j1 - y1 + d_y1 * k0 - y1 * k1 + d_k1
        + d_k0e * k1e + k0e * d_k1e + 2 * d_ju1
    )  # fmt: skip
    second = (
        -2 * j1 - x * d_j1 + 2 * (d_j1**2 + j1 * dd_j1) - d_y1
        + dd_y1 * k0 - 2 * d_y1 * k1 - y1 * d_k1 + dd_k1
        + dd_k0e * k1e + 2 * d_k0e * d_k1e + k0e * dd_k1e + 4 * (-ju1 - d_ju1 / u + ju1 / u**2)
    )  # fmt: skip
    return gradient, second


X = np.array([0.3, 1.9, 3.3, 12.0, 30.0, 2.404825557695773])
# The methods below (method=) are make_function's choice for each call's Jacobian (of a
# Hessian's gradient graph for a Hessian; the same generated text), named so that no call
# builds and compares every candidate's program: the choice is codegen's
# (tests/test_codegen_choice.py).


# level x shape covered by two cases, each value once (the rules' Jacobians at 0-d, 1-d
# and n-d against JAX are tests/test_rules_vs_jax.py's); the Python Hessian (the element
# level's, from the array level's trace) is test_hessian_of_an_array_graph_is_its_element_levels'
@pytest.mark.parametrize(("shape", "level"), [((6,), "array"), ((2, 3), "element")])
def test_jacobian_equals_the_recurrences(shape: tuple[int, ...], level: str) -> None:
    x = X.reshape(shape)
    size = shape if len(shape) > 1 else shape[0]
    graph = dgraph.from_function(_program, sizes=[size], point=[x], level=level)
    es = dgraph.accumulate(graph, "reverse")
    assert es.verified
    got = np.asarray(es.evaluate(x.reshape(-1))).reshape(-1)
    np.testing.assert_allclose(got, _derivatives(X)[0], rtol=1e-13, atol=1e-15)


def test_j1_slope_at_zero_is_one_half() -> None:
    """J₁'(x) = J₀ − J₁/x is 0/0 at 0: 1/2 there, and J₁''(0) = 0 (J₁ is odd)."""
    x = np.array([0.0, 1.0])

    def f(x):
        return np.sum(sps.j1(x))

    es = dgraph.accumulate(dgraph.from_function(f, sizes=[2], point=[x]), "reverse")
    np.testing.assert_allclose(np.asarray(es.evaluate(x)).reshape(-1), [0.5, sps.j0(1) - sps.j1(1)])
    H = np.diag(np.asarray(dgraph.hessian(f, x, method="forward")(x)))
    assert H[0] == 0.0 and np.isclose(H[1], -sps.j1(1.0) - (sps.j0(1) - sps.j1(1)) + sps.j1(1))


# -- generated code ----------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["python", "c"])
def test_generated_code(lang: str) -> None:
    if lang == "c" and compiler() is None:
        pytest.skip("needs a C compiler")
    fn = dgraph.make_function(
        _program, "value_and_jacobian", point=[X], lang=lang, method="forward"
    )
    value, J = fn(X)
    assert fn.generated.verified
    if lang == "c":
        assert all(f"dgraph_{name}(" in fn.generated.text for name in NAMES)
    np.testing.assert_allclose(float(np.asarray(value).reshape(-1)[0]), _program(X), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(J).reshape(-1), _derivatives(X)[0], rtol=1e-13)


@needs_cc
def test_hessian_in_c() -> None:
    fn = dgraph.make_function(_program, "hessian", point=[X], lang="c", method="dstar")
    assert fn.generated.verified
    H = fn(X)
    H = H.toarray() if hasattr(H, "toarray") else np.asarray(H)
    np.testing.assert_allclose(H, np.diag(_derivatives(X)[1]), rtol=1e-12, atol=1e-14)


def test_cuda_device_functions_on_the_host() -> None:
    from dgraph.codegen.cuda import cxx_compiler, load_cuda_host
    from dgraph.codegen.generate import generate

    if cxx_compiler() is None:
        pytest.skip("needs a C++ compiler")
    graph = dgraph.from_function(_program, sizes=[X.size], point=[X])
    gen = generate(graph, "cuda", "reverse", ("jacobian",))
    assert gen.verified and all(f"dgraph_{name}(" in gen.text for name in NAMES)
    J = load_cuda_host(gen.text).jacobian(X[None, :]).reshape(-1)
    np.testing.assert_allclose(J, _derivatives(X)[0], rtol=1e-13)


def test_generated_jax_is_refused_in_one_line() -> None:
    """On one function (:func:`_program`'s is refused at the same first call, j0's, after
    its whole Jacobian is built: 1.2 CPU-s, this 0.08)."""
    pytest.importorskip("jax")
    with pytest.raises(DGraphError, match=r"cannot print math\.j0 \(no jax\.numpy function\)"):
        dgraph.make_function(lambda x: np.sum(sps.j0(x) * x), "jacobian", point=[X], lang="jax")


def test_hessian_of_several_arrays_is_refused_in_one_line() -> None:
    """JAX evaluates no array level with them, and the element level takes one vector."""

    def f(x, y):
        return np.sum(sps.k0(x) * y)

    with pytest.raises(DGraphError, match=r"Hessian of scipy\.special\.k0 .* one vector"):
        dgraph.hessian(f, np.array([1.0, 2.0]), np.array([3.0, 4.0]))


def test_element_graph_reads_back_from_json() -> None:
    graph = dgraph.from_function(_program, sizes=[3], point=[X[:3]])
    again = dgraph.from_json(graph.to_json())
    assert [str(again.expr(v)) for v in again.order()] == [
        str(graph.expr(v)) for v in graph.order()
    ]
    assert dgraph.accumulate(again, "reverse").verified


def test_hessian_of_an_array_graph_is_its_element_levels() -> None:
    """A tensor graph (the command line's reading of a NumPy function) with them: its
    Hessian from its element level, as the function's."""
    graph = dgraph.from_function(_program, sizes=[X.size], point=[X], level="array")
    fn = dgraph.make_function(graph, "hessian", lang="python", method="dstar")
    assert fn.generated.verified
    H = np.asarray(fn(X))
    np.testing.assert_allclose(H, np.diag(_derivatives(X)[1]), rtol=1e-12, atol=1e-14)


# -- jv, yv, kv, … of a constant whole order ---------------------------------------------

_WHOLE = [("jv", 0), ("jv", 1), ("jv", -1), ("yv", 3), ("yn", -2), ("kv", 4), ("kn", -3)]
_WHOLE += [("kve", 2), ("iv", -1), ("iv", 0), ("ive", 1)]


def _slope(name: str, n: int, x: np.ndarray) -> np.ndarray:
    """d/dx by SciPy's own jvp, yvp, kvp, ivp (A&S 9.1.30, 9.6.29), the scaled ones by the
    product rule."""
    if name == "kve":
        return np.exp(x) * (sps.kv(n, x) + sps.kvp(n, x))
    if name == "ive":
        return np.exp(-np.abs(x)) * (sps.ivp(n, x) - np.sign(x) * sps.iv(n, x))
    return {"jv": sps.jvp, "yv": sps.yvp, "yn": sps.yvp, "kv": sps.kvp, "kn": sps.kvp}.get(
        name, sps.ivp
    )(n, x)


@pytest.mark.parametrize("name, n", _WHOLE, ids=[f"{name}{n}" for name, n in _WHOLE])
def test_a_whole_order_is_read(name: str, n: int) -> None:
    """Y and K by the upward recurrence from orders 0 and 1 (stable: they grow with the
    order), J and I of the orders 0 and ±1; negative orders by reflection."""
    x = np.array([0.4, 1.3, 2.7, 6.0])

    def f(x):
        return np.sum(getattr(sps, name)(n, x))

    es = dgraph.accumulate(dgraph.from_function(f, sizes=[4], point=[x], level="array"), "reverse")
    assert es.verified
    np.testing.assert_allclose(
        np.asarray(es.evaluate(x)).reshape(-1), _slope(name, n, x), rtol=1e-13
    )


def test_whole_order_hessian() -> None:
    x = np.array([0.4, 1.3, 2.7, 6.0])

    def f(x):
        return np.sum(sps.kv(3, x) + sps.yn(2, x) * x)

    # the method: the choice's (its text in another pass order, the values the same to
    # 4e-15), named so that no candidate's program is built and compared (the choice was
    # 1.3 of this test's 1.7 CPU-s; the choice is tests/test_codegen_choice.py's)
    H = np.diag(np.asarray(dgraph.hessian(f, x, method="symbolic")(x)))
    want = sps.kvp(3, x, 2) + sps.yvp(2, x, 2) * x + 2 * sps.yvp(2, x)
    np.testing.assert_allclose(H, want, rtol=1e-12)


@pytest.mark.parametrize(
    "f, message",
    [
        (lambda x: np.sum(sps.jv(2, x)), r"jv of order 2: only the orders 0 and ±1"),
        (lambda x: np.sum(sps.kv(0.5, x)), r"kv: give one whole order n, not 0.5"),
        (lambda x: np.sum(sps.yv(x, 2.0)), r"yv with an order that depends on the inputs"),
    ],
    ids=["j-order-2", "fractional-order", "traced-order"],
)
def test_other_orders_are_one_line(f, message: str) -> None:
    from dgraph.errors import InputError

    with pytest.raises(InputError, match=message):
        dgraph.from_function(f, sizes=[2], point=[np.array([1.0, 2.0])], level="array")


def test_a_trace_calls_them_by_name() -> None:
    """Trace text (data, parsed): ``j0(x)``, ``k1e(x)``; ``y0`` and ``k1`` stay names
    a statement may assign, and an undeclared ``j0`` says how to declare it."""
    text = "inputs: x\ny0 = j0(x) * k1e(x)\nk1 = y0 * x\noutputs: k1\n"
    es = dgraph.accumulate(dgraph.from_trace(text), "reverse")
    x = 1.7
    want = (-sps.j1(x) * sps.k1e(x) + sps.j0(x) * (sps.k1e(x) - sps.k0e(x) - sps.k1e(x) / x)) * x
    want += sps.j0(x) * sps.k1e(x)
    assert float(np.asarray(es.evaluate(np.array([x]))).reshape(-1)[0]) == pytest.approx(want)
    from dgraph.errors import InputError

    with pytest.raises(InputError, match=r"'j0' is a function; .* declare a parameter"):
        dgraph.from_trace("inputs: x\ny = x * j0\noutputs: y\n")
