"""scipy.special's ``exp1``, ``expi`` and ``dawsn``, each one elementwise operation (they
were refused: "scipy.special.dawsn on an array"): values and derivatives against JAX's
``jax.scipy.special`` at 0-d, 1-d and n-d points, at both levels; generated Python, C, JAX
and CUDA (on the host); C's Ei through its root, where SciPy's loses its digits; JSON;
and JAX programs that call them (``exp1``'s custom rule does not trace: JAX's own
Hessian of it fails, and dgraph's reading of it raised JAX's TracerArrayConversionError)."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
import scipy.special as sps

import dgraph
from dgraph.codegen.c import compiler

jax = pytest.importorskip("jax")
jnp = jax.numpy
jsps = jax.scipy.special

from tests import jax_reference as jref  # noqa: E402

NAMES = ("exp1", "expi", "dawsn")
SHAPES = {"0-d": (), "1-d": (3,), "n-d": (2, 3)}
# E1 of x > 0; Ei and Dawson's of both signs
_SIGNED = {"exp1": False, "expi": True, "dawsn": True}


def _point(name: str, shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(7)
    x = rng.uniform(0.2, 3.0, shape)
    return x * rng.choice([-1.0, 1.0], shape) if _SIGNED[name] else x


def _jax(name: str):
    """JAX's function; E1 as -Ei(-x) (x > 0) where JAX differentiates it twice: its own
    exp1's rule has no second derivative."""
    if name == "exp1":
        return lambda x: -jsps.expi(-x)
    return getattr(jsps, name)


def _program(name: str, xp, special):
    f = getattr(special, name) if xp is np else _jax(name)
    return lambda x: xp.sum(f(x) * xp.cos(x) + f(0.5 * x) ** 2)


def _term(name: str):
    """The one scalar term ``h`` of ``name``'s program, which is ``Σ h(x_i)``."""
    f = _jax(name)
    return lambda s: f(s) * jnp.cos(s) + f(0.5 * s) ** 2


@functools.cache
def _references(name: str) -> dict[str, tuple[float, np.ndarray, np.ndarray | None]]:
    """JAX's value, gradient and (``n-d``) Hessian of ``name``'s program at its point of
    each shape, kept for both levels. The program is ``Σ h(x_i)`` of one scalar ``h``, so
    its gradient is ``h'`` entry by entry and its Hessian ``diag(h'')``: JAX's ``h``,
    ``h'`` and ``h''`` (``jvp`` of ``value_and_grad``) at every shape's entries at once,
    one jitted program per name (not one per shape)."""
    points = {shape: _point(name, SHAPES[shape]) for shape in sorted(SHAPES)}
    flat = np.concatenate([x.reshape(-1) for x in points.values()])
    with jax.enable_x64(True):
        first = jax.value_and_grad(_term(name))
        both = jax.vmap(lambda s: jax.jvp(first, (s,), (jnp.ones_like(s),)))
        (h, dh), (_, d2h) = jax.jit(both)(flat)
    h, dh, d2h = np.asarray(h), np.asarray(dh), np.asarray(d2h)
    found, start = {}, 0
    for shape, x in points.items():
        part = slice(start, start + x.size)
        start += x.size
        hessian = np.diag(d2h[part]) if shape == "n-d" else None
        found[shape] = (float(h[part].sum()), dh[part], hessian)
    return found


def _reference(name: str, shape: str) -> tuple[float, np.ndarray, np.ndarray | None]:
    """JAX's value, gradient and (``n-d``) Hessian of ``name``'s program at its point."""
    return _references(name)[shape]


@pytest.mark.parametrize("level", ["array", "element"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("name", NAMES)
def test_values_and_derivatives_equal_jax(name: str, shape: str, level: str) -> None:
    x = _point(name, SHAPES[shape])
    f = _program(name, np, sps)
    size = x.shape if x.ndim > 1 else x.size if x.ndim else 0
    graph = dgraph.from_function(f, sizes=[size], point=[x], level=level)
    es = dgraph.accumulate(graph, "reverse")
    assert es.verified
    value, want, hessian = _reference(name, shape)
    assert f(x) == pytest.approx(value, rel=1e-13)
    np.testing.assert_allclose(np.asarray(es.evaluate(x.reshape(-1))).reshape(-1), want, rtol=1e-12)
    if level == "array" and hessian is not None:
        got = dgraph.hessian(f, x)(x)
        np.testing.assert_allclose(np.asarray(got).reshape(hessian.shape), hessian, rtol=1e-11)


X = np.array([0.3, 1.7, 4.0, 0.05])


def _derivatives(x: np.ndarray) -> np.ndarray:
    """d/dx of E1(x) + Ei(x) + F(x): -e^(-x)/x + e^x/x + 1 - 2x F(x)."""
    return -np.exp(-x) / x + np.exp(x) / x + 1 - 2 * x * sps.dawsn(x)


def _three(x):
    return sps.exp1(x) + sps.expi(x) + sps.dawsn(x)


@pytest.mark.parametrize("lang", ["python", "c", "jax"])
def test_generated_code(lang: str) -> None:
    if lang == "c" and compiler() is None:
        pytest.skip("needs a C compiler")
    context = jax.enable_x64(True) if lang == "jax" else _nothing()
    with context:
        fn = dgraph.make_function(
            _three, "value_and_jacobian", point=[X], lang=lang, method="paths"
        )
        value, J = fn(X)
    assert fn.generated.verified
    if lang == "c":
        assert all(f"dgraph_{name}(" in fn.generated.text for name in NAMES)
    np.testing.assert_allclose(np.asarray(value), _three(X), rtol=1e-14)
    J = J.toarray() if hasattr(J, "toarray") else np.asarray(J)
    np.testing.assert_allclose(np.diag(J), _derivatives(X), rtol=1e-13)


def _nothing():
    import contextlib

    return contextlib.nullcontext()


def test_cuda_device_functions_on_the_host() -> None:
    """The CUDA file's ``dgraph_exp1``, ``dgraph_expi``, ``dgraph_dawsn`` (device
    functions), compiled as C++ on the host."""
    from dgraph.codegen.cuda import cxx_compiler, load_cuda_host
    from dgraph.codegen.generate import generate

    if cxx_compiler() is None:
        pytest.skip("needs a C++ compiler")
    graph = dgraph.from_function(_three, sizes=[X.size], point=[X])
    gen = generate(graph, "cuda", "reverse", ("jacobian",))
    assert gen.verified and all(f"dgraph_{name}(" in gen.text for name in NAMES)
    J = load_cuda_host(gen.text).jacobian(X[None, :]).reshape(X.size, X.size)
    np.testing.assert_allclose(np.diag(J), _derivatives(X), rtol=1e-13)


@pytest.mark.skipif(compiler() is None, reason="needs a C compiler")
def test_c_expi_keeps_its_digits_through_its_root() -> None:
    """Ei's root x0 = 0.37250741078...: within 1e-5 of it the series' sum cancels to
    Ei's size; C's ``dgraph_expi`` sums log(x/x0) + Σ (x^k − x0^k)/(k·k!) there, within
    1e-14 of mpmath's Ei (SciPy's: 2e-5 off at x0 + 1e-12)."""
    mpmath = pytest.importorskip("mpmath")
    from dgraph.codegen.c_special import special_definitions
    from tests.test_c_special import _c_function

    root = 0.3725074107813666
    x = root + np.array([1e-12, -3e-11, 4e-9, -2e-7, 1e-5, 0.2, -0.2])
    call = "dgraph_expi(x[k])"
    got = _c_function(special_definitions(call), call)(0, x)
    with mpmath.workdps(40):
        want = np.array([float(mpmath.ei(mpmath.mpf(float(v)))) for v in x])
    np.testing.assert_allclose(got, want, rtol=1e-14)
    assert abs(sps.expi(x[0]) / want[0] - 1) > 1e-6  # SciPy's is not: the test tells them apart


def test_element_graph_reads_back_from_json() -> None:
    graph = dgraph.from_function(_three, sizes=[2], point=[np.array([0.4, 1.3])])
    again = dgraph.from_json(graph.to_json())
    assert [str(again.expr(v)) for v in again.order()] == [
        str(graph.expr(v)) for v in graph.order()
    ]
    assert dgraph.accumulate(again, "reverse").verified


def _jax_program(x):
    return jnp.sum(jsps.exp1(x) * x + jsps.expi(x - 1.0) ** 2 + jsps.dawsn(x) * x)


def _jax_program_hessian(x: np.ndarray) -> np.ndarray:
    """The diagonal of the Hessian of :func:`_jax_program`, written out (JAX's own
    ``hessian`` of ``exp1`` fails: its rule converts a traced order to NumPy)."""
    e, y = np.exp(-x), x - 1.0
    ei, dei = sps.expi(y), np.exp(y) / y
    f = sps.dawsn(x)
    df = 1 - 2 * x * f
    d2f = -2 * f - 2 * x * df
    return (e - e / x) + 2 * dei**2 + 2 * ei * (dei - np.exp(y) / y**2) + 2 * df + x * d2f


def test_jax_programs_that_call_them() -> None:
    """JAX's ``exp1`` (its custom_jvp call ``expn(1, x)``) and ``expi`` read as the
    operations, ``exp1``'s gradient's ``expn(0, x)`` as e^(-x)/x; ``dawsn`` as JAX's
    composite."""
    x = np.array([0.3, 1.7, 4.0])
    with jax.enable_x64(True):
        graph = dgraph.from_jax(_jax_program, x, level="array")
        primitives = {graph.op(v).primitive for v in graph.nx if graph.op(v) is not None}
        fn = dgraph.make_function(_jax_program, "jacobian", "python", point=[x])
        want = np.asarray(jref.jacrev(_jax_program)(x))
        H = dgraph.hessian(_jax_program, x)
        got = np.asarray(H(x))
    assert {"exp1", "expi"} <= primitives and "dawsn" not in primitives
    assert fn.generated.verified
    np.testing.assert_allclose(np.asarray(fn(x)).reshape(-1), want, rtol=1e-12)
    np.testing.assert_allclose(got, np.diag(_jax_program_hessian(x)), rtol=1e-10, atol=1e-14)


def test_a_jax_hessian_of_exp1_is_dgraphs_not_jaxs() -> None:
    """JAX itself cannot take it (so the check is by differences, and says so)."""
    x = np.array([0.5, 2.0])

    def f(x):
        return jnp.sum(jsps.exp1(x))

    with jax.enable_x64(True):
        with pytest.raises(TypeError):
            jax.jit(jax.hessian(f))(x)  # refused while tracing: nothing compiled
        H = dgraph.hessian(f, x)
        got = np.diag(np.asarray(H(x)))
    np.testing.assert_allclose(got, np.exp(-x) * (1 / x + 1 / x**2), rtol=1e-12)
    assert math.isfinite(got.sum())


# -- E_n(x) of a constant whole order -------------------------------------------------


def _expn_program(x):
    return np.sum(sps.expn(3, x) * x + sps.expn(2, x * x) + sps.expn(0, x + 1.0))


def _expn_hessian(x: np.ndarray) -> np.ndarray:
    """The diagonal of :func:`_expn_program`'s Hessian, by ∂E_n/∂x = −E_(n−1)."""
    E = sps.expn
    first = E(1, x) * x - 2 * E(2, x)
    second = -2 * E(1, x * x) + 4 * x * x * E(0, x * x)
    y = x + 1.0
    third = np.exp(-y) * (1 / y + 2 / y**2 + 2 / y**3)  # (e^(-y)/y)''
    return first + second + third


def _expn_point(shape: str) -> np.ndarray:
    return np.random.default_rng(8).uniform(0.2, 3.0, SHAPES[shape])


def _expn_jax(x):
    return jnp.sum(jsps.expn(3, x) * x + jsps.expn(2, x * x) + jsps.expn(0, x + 1.0))


@functools.cache
def _expn_gradients() -> dict[str, np.ndarray]:
    """JAX's gradient of :func:`_expn_jax` at each shape's point, flattened: the program
    is a sum over entries of one scalar term, so its gradient at the points' entries
    concatenated is theirs concatenated (one jitted program, not one per shape)."""
    points = {shape: _expn_point(shape).reshape(-1) for shape in sorted(SHAPES)}
    with jax.enable_x64(True):
        flat = np.asarray(jref.jacrev(_expn_jax)(np.concatenate(list(points.values()))))
    cuts = np.cumsum([x.size for x in points.values()])[:-1]
    return dict(zip(points, np.split(flat, cuts), strict=True))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_expn_values_and_derivatives_equal_jax(shape: str) -> None:
    """Orders 3, 2 and 0 (E_0 = e^(-x)/x): the Jacobian against JAX's ``expn`` (its rule
    runs once), the Hessian against the recurrence."""
    x = _expn_point(shape)
    graph = dgraph.from_function(_expn_program, sizes=[x.shape], point=[x], level="array")
    es = dgraph.accumulate(graph, "reverse")
    assert es.verified

    want = _expn_gradients()[shape]
    got = np.asarray(es.evaluate(x.reshape(-1))).reshape(-1)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    if shape == "1-d":
        H = np.asarray(dgraph.hessian(_expn_program, x)(x))
        np.testing.assert_allclose(H, np.diag(_expn_hessian(x)), rtol=1e-12, atol=1e-15)


def test_expn_in_c() -> None:
    if compiler() is None:
        pytest.skip("needs a C compiler")
    x = np.array([0.3, 1.7, 4.0])
    fn = dgraph.make_function(_expn_program, "hessian", point=[x], lang="c")
    assert fn.generated.verified and "dgraph_expn(" in fn.generated.text
    got = np.asarray(fn(x).toarray() if hasattr(fn(x), "toarray") else fn(x))
    np.testing.assert_allclose(got, np.diag(_expn_hessian(x)), rtol=1e-12, atol=1e-15)


def test_jax_expn_is_read_as_the_operation() -> None:
    """``jax.scipy.special.expn(3, x)``: its custom_jvp call read as ``expn`` (its rule
    leaked JAX's TracerArrayConversionError); a Hessian JAX itself cannot take."""
    x = np.array([0.4, 1.1, 2.5])

    def f(x):
        return jnp.sum(jsps.expn(3, x) * x)

    with jax.enable_x64(True):
        graph = dgraph.from_jax(f, x, level="array")
        H = np.asarray(dgraph.hessian(f, x)(x))
    assert "expn" in {graph.op(v).primitive for v in graph.nx if graph.op(v) is not None}
    want = sps.expn(1, x) * x - 2 * sps.expn(2, x)
    np.testing.assert_allclose(H, np.diag(want), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    "f, message",
    [
        (lambda x: np.sum(sps.expn(x, 2.0)), "expn with an order that depends on the inputs"),
        (lambda x: np.sum(sps.expn(2.5, x)), "expn of an order that is not a whole number"),
        (lambda x: np.sum(sps.expn(-1, x)), "expn of an order that is not a whole number"),
    ],
    ids=["traced-order", "fractional-order", "negative-order"],
)
def test_expn_misuse_is_one_line(f, message: str) -> None:
    from dgraph.errors import InputError

    with pytest.raises(InputError, match=message):
        dgraph.from_function(f, sizes=[2], point=[np.array([1.0, 2.0])], level="array")


def test_jax_exp1_with_an_axis_of_length_1() -> None:
    """JAX's ``exp1`` of an array with an axis of length 1 calls ``expn(1, x)`` between a
    squeeze and a broadcast (its body no longer one call: it was refused as "an order
    that is not a constant whole number", JAX's lax_scipy_special_functions_test's
    ``exp1_2x1x4``): dE1/dx = -e^(-x)/x, verified."""
    x = np.random.default_rng(9).uniform(0.3, 2.5, (2, 1, 3))
    with jax.enable_x64(True):
        fn = dgraph.make_function(lambda x: jsps.exp1(x), "jacobian", point=[x])
        got = np.asarray(fn(x)).reshape(x.size, x.size)
    assert fn.generated.verified
    np.testing.assert_allclose(got, np.diag(-np.exp(-x.ravel()) / x.ravel()), rtol=1e-12)


def test_a_wrong_exp1_order_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The order read wrong on purpose (E2 for E1): the value check refuses the result."""
    from dgraph.errors import DGraphError
    from dgraph.frontends import jaxpr_extra

    monkeypatch.setattr(jaxpr_extra, "_literal_order", lambda eqn: 2)
    x = np.array([[0.4], [1.3]])
    with jax.enable_x64(True), pytest.raises(DGraphError, match="did not verify"):
        dgraph.make_function(lambda x: jsps.exp1(x), "jacobian", point=[x])
