"""digamma and polygamma in generated C and CUDA (dgraph.codegen.c_special): the C
definition against SciPy's ``special.polygamma``, a wrong series caught, and the
derivatives of ``gammaln``/``digamma`` programs against JAX in C, in C values and in CUDA
compiled on the host."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
import sympy
from scipy import special

import dgraph
from dgraph.cli import main
from dgraph.codegen.c import compiler, load_c
from dgraph.codegen.c_special import special_definitions
from dgraph.codegen.cuda import cxx_compiler, load_cuda_host
from dgraph.codegen.generate import generate
from dgraph.codegen.native_build import shared_library
from dgraph.frontends import from_sympy

needs_cc = pytest.mark.skipif(compiler() is None, reason="needs a C compiler")

_RNG = np.random.default_rng(0)
GRID = np.concatenate(
    [
        _RNG.uniform(0, 1, 300),
        _RNG.uniform(0, 30, 300),
        10 ** _RNG.uniform(-10, 10, 300),
        -_RNG.uniform(0, 50, 300),
        -(10 ** _RNG.uniform(-8, 4, 300)),
        [0.5, 1, 2, -0.5, 0.0, -0.0, -1.0, -3.0, np.inf, -np.inf, np.nan, 1e300, 1e-300],
    ]
)


def _address(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


def _c_function(definitions: list[str], call: str):
    """``call`` (C text of ``n`` and ``x[k]``) at every entry of an array, compiled."""
    harness = "\n".join(
        [
            "#include <math.h>",
            *definitions,
            "void run(long count, double n, const double *x, double *y)",
            f"{{ for (long k = 0; k < count; ++k) y[k] = {call}; }}",
        ]
    )
    library = shared_library(compiler(), ("-O2",), harness, ".c", ("-lm",))

    def run(n: int, x: np.ndarray) -> np.ndarray:
        y = np.empty_like(x)
        library.run(ctypes.c_long(x.size), ctypes.c_double(n), _address(x), _address(y))
        return y

    return run


def _worst(y: np.ndarray, expected: np.ndarray, floor: float) -> float:
    """The largest error relative to |expected|, at least ``floor`` (near polygamma's
    zeros: digamma's at 1.4616..., the even orders' between negative poles); poles, ±inf
    and NaN as SciPy's."""
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(y[~finite], expected[~finite])
    scale = np.maximum(np.abs(expected[finite]), floor)
    return float(np.max(np.abs(y[finite] - expected[finite]) / scale))


ERFINV_GRID = np.concatenate(
    [
        _RNG.uniform(-1, 1, 600),
        1 - 10 ** _RNG.uniform(-16, -1, 300),
        -1 + 10 ** _RNG.uniform(-16, -1, 300),
        10 ** _RNG.uniform(-300, -1, 100),
        [0.0, 1.0, -1.0, 1.5, -2.0, np.nan, np.inf, 0.5, 0.4999999],
    ]
)
# both tails down to the subnormals (below Phi(-37) = 6e-300: the asymptotic series), the
# middle (erfinv of an exact 2p - 1) and its edges at 1/4 and 3/4
NDTRI_GRID = np.concatenate(
    [
        _RNG.uniform(0, 1, 600),
        10 ** _RNG.uniform(-323, -1, 600),
        1 - 10 ** _RNG.uniform(-16, -1, 300),
        [0.0, 1.0, -0.5, 1.5, np.nan, np.inf, 0.25, 0.75, 0.2499999, 0.7500001, 5e-324, 1e-300],
    ]
)
BESSEL_GRID = np.concatenate(
    [
        _RNG.uniform(-40, 40, 600),
        10 ** _RNG.uniform(-10, 3, 400),
        -(10 ** _RNG.uniform(-10, 3, 200)),
        [0.0, 29.999999, 30.0, 30.0000001, 700, 1e300, np.inf, -np.inf, np.nan],
    ]
)
# E1 and Ei: both sides of E1's switch at 1, down to 1e-300 and up to where e^(+-x)
# leaves the doubles (Ei beyond 709.78: SciPy's inf, the C's finite), Ei's series and
# asymptotic series around 40; SciPy's Ei loses digits within 1e-5 of its root x0
# (2e-5 relative at x0 + 1e-12; the C keeps them: tests/test_exponential_integrals.py)
_EI_ROOT = 0.3725074107813666
_E1_GRID = np.concatenate(
    [_RNG.uniform(0, 2, 600), 10 ** _RNG.uniform(-300, 2.85, 600), _RNG.uniform(30, 50, 300)]
)
_E1_GRID = _E1_GRID[np.abs(_E1_GRID - _EI_ROOT) > 1e-5]
EXP1_GRID = np.concatenate(
    [_E1_GRID, [0.0, -0.0, -1.0, 1.0, 40.0, 700.0, 745.0, np.inf, -np.inf, np.nan, 5e-324]]
)
EXPI_GRID = np.concatenate([_E1_GRID, -_E1_GRID, [0.0, -0.0, 1.0, 40.0, 709.0, -745.0]])
EXPI_GRID = np.concatenate([EXPI_GRID, [np.inf, -np.inf, np.nan, 5e-324]])
# Dawson's: its series below 0.2, Rybicki's sum to 10, the asymptotic series beyond
DAWSN_GRID = np.concatenate(
    [
        _RNG.uniform(-12, 12, 900),
        10 ** _RNG.uniform(-300, 10, 300),
        -(10 ** _RNG.uniform(-300, 10, 300)),
        [0.0, -0.0, 0.2, 0.19999999, 10.0, 9.9999999, 1e308, np.inf, -np.inf, np.nan],
    ]
)
INCOMPLETE_GRID = np.concatenate(
    [
        10 ** _RNG.uniform(-8, 5, 900),
        _RNG.uniform(0, 50, 300),
        [0.0, 1e-300, 2.5, 3.5, 40.0, 41.0, 1e4, 1.01e4, 1e300, np.inf, -1.0, np.nan],
    ]
)
ZETA_GRID = np.concatenate(
    [
        10 ** _RNG.uniform(-6, 6, 600),
        _RNG.uniform(0, 30, 300),
        [0.0, -1.0, -2.5, -0.5, 1.0, 9.999, 10.0, 1e300, np.inf, np.nan],
    ]
)
# name: (the call, SciPy's function of (n, x), the points, the relative floor, the
# mutation the comparison must catch)
CASES = {
    "polygamma": (
        "dgraph_polygamma(n, x[k])",
        special.polygamma,
        GRID,
        1e-3,
        ("1.0 / 6,", "1.0 / 7,"),
    ),
    "erfinv": (
        "dgraph_erfinv(x[k])",
        lambda n, x: special.erfinv(x),
        ERFINV_GRID,
        1e-300,
        ("(1.0 - a) - erfc(y)", "(1.0 - a) - erfc(y) * (1 + 1e-9)"),
    ),
    "ndtri": (
        "dgraph_ndtri(x[k])",
        lambda n, x: special.ndtri(x),
        NDTRI_GRID,
        1e-300,
        ("term *= -(2 * j - 1) * w;", "term *= -(2 * j - 1.01) * w;"),
    ),
    "exp1": (
        "dgraph_exp1(x[k])",
        lambda n, x: special.exp1(x),
        EXP1_GRID,
        1e-300,
        ("b = x + n + 2.0 * k;", "b = x + n + 2.01 * k;"),
    ),
    "expi": (
        "dgraph_expi(x[k])",
        lambda n, x: special.expi(x),
        EXPI_GRID,
        1e-300,
        ("if (x <= 40.0)", "if (x <= 4.0)"),
    ),
    "dawsn": (
        "dgraph_dawsn(x[k])",
        lambda n, x: special.dawsn(x),
        DAWSN_GRID,
        1e-300,
        ("h = 0.2,", "h = 0.4,"),
    ),
    "expn": (
        "dgraph_expn(n, x[k])",
        lambda n, x: special.expn(n, x),
        EXP1_GRID,
        1e-300,
        ("psi += 1.0 / k;", "psi += 1.0 / (k + 0.01);"),
    ),
    "i0e": (
        "dgraph_i0e(x[k])",
        lambda n, x: special.i0e(x),
        BESSEL_GRID,
        1e-300,
        ("(mu - (2.0 * k - 1)", "(mu - (2.0 * k - 1.01)"),
    ),
    "i1e": (
        "dgraph_i1e(x[k])",
        lambda n, x: special.i1e(x),
        BESSEL_GRID,
        1e-300,
        ("q / (k * (double)(k + order))", "q / (k * (double)(k + order + 1e-9))"),
    ),
    "gammainc": (
        "dgraph_gammainc(n, x[k])",
        special.gammainc,
        INCOMPLETE_GRID,
        1e-290,  # below, subnormal values: fewer digits
        ("term *= x / (a + n);", "term *= x / (a + n + 1e-7);"),
    ),
    "gammaincc": (
        "dgraph_gammaincc(n, x[k])",
        special.gammaincc,
        INCOMPLETE_GRID,
        1e-290,  # below, subnormal values: fewer digits
        ("double b = x + 1.0 - a,", "double b = x + 1.0 - a * (1 + 1e-7),"),
    ),
    "zeta": (
        "dgraph_zeta(n, x[k])",
        special.zeta,
        ZETA_GRID,
        1e-300,
        ("1.0 / 42,", "1.0 / 43,"),
    ),
}
ORDERS = [("polygamma", n) for n in range(5)]
ORDERS += [(name, 0) for name in ("erfinv", "ndtri", "i0e", "i1e", "exp1", "expi", "dawsn")]
# the incomplete gammas' shapes a (below and above Stirling's from 20), zeta's exponents
ORDERS += [(name, a) for name in ("gammainc", "gammaincc") for a in (0.3, 2.5, 40.0, 1e4)]
ORDERS += [("zeta", s) for s in (1.5, 2.0, 3.0, 30.0, 200.0)]
ORDERS += [("expn", n) for n in (0, 2, 3, 10, 100)]
_MUTATED_AT = {"polygamma": 1, "gammainc": 2.5, "gammaincc": 2.5, "zeta": 30.0, "expn": 3}


@needs_cc
@pytest.mark.parametrize("name, n", ORDERS)
def test_special_functions_in_c_equal_scipy(name: str, n: float) -> None:
    """polygamma of orders 0–4 on 1,500 points from 1e-10 to 1e10 and down to -1e4;
    erfinv up to 1e-16 from ±1 and down to 1e-300; ndtri from 5e-324 to 1 - 1e-16; i0e
    and i1e to ±1e3 and across the switch at 30; exp1 and expi from 1e-300 to 709 (expi
    of both signs), expn of orders 0-100 on exp1's points, dawsn to ±1e10 across its
    switches at 0.2 and 10; the incomplete
    gammas from 1e-8 to 1e5 and zeta from 1e-6 to 1e6 and below 0; poles, ±0, ±inf and
    NaN: SciPy's values within 1e-12 of |value| (polygamma's at least 1e-3)."""
    call, reference, x, floor, _ = CASES[name]
    y = _c_function(special_definitions(call), call)(n, x)
    assert _worst(y, reference(n, x), floor) < 1e-12


@needs_cc
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_wrong_definition_is_caught(name: str) -> None:
    """Each definition with one coefficient or term changed (polygamma's B_2 as 1/7):
    the comparison above fails."""
    call, reference, x, floor, (old, new) = CASES[name]
    right = special_definitions(call)
    wrong = [line.replace(old, new) for line in right]
    assert wrong != right
    n = _MUTATED_AT.get(name, 0)
    y = _c_function(wrong, call)(n, x)
    assert _worst(y, reference(n, x), floor) > 1e-9


def test_only_what_is_called_is_defined() -> None:
    assert special_definitions("y = lgamma(x);") == []
    i1e = "\n".join(special_definitions("dgraph_i1e(x)"))
    assert "dgraph_bessel_ie(" in i1e and "dgraph_i0e" not in i1e and "polygamma" not in i1e
    digamma = "\n".join(special_definitions("y = dgraph_digamma(x);", "static __device__"))
    assert digamma.startswith("#define DGRAPH_SPECIAL static __device__")
    assert "double dgraph_polygamma(" in digamma and "double dgraph_digamma(" in digamma
    assert "dgraph_digamma" not in "\n".join(special_definitions("dgraph_polygamma(1, x)"))


jax = pytest.importorskip("jax")
jnp = jax.numpy

from tests import jax_reference as jref  # noqa: E402

X = np.random.default_rng(2).uniform(0.2, 1.2, 6)


def _loglik(x):
    return jnp.sum(jax.scipy.special.gammaln(x**2 + 1) * x)


def _von_mises(x):  # a von Mises log-likelihood, kappa = x[2]
    return jnp.sum(x[0] * jnp.cos(x - x[1]) - jnp.log(jax.scipy.special.i0e(x[2])) - x[2])


PROGRAMS = {  # (function, mode, the dgraph function its C calls)
    "digamma": (
        lambda x: jax.scipy.special.digamma(x**2 + 1) * x,
        "jacobian",
        "dgraph_polygamma(",
    ),
    "gammaln": (_loglik, "hessian", "dgraph_polygamma("),
    # digamma's Hessian: polygamma at order n + 1, the order an operand of the tensor
    # program (refused on main: "no shape rule for special.polygamma", "cannot print
    # polygamma of order dgraph_operand_0_ + 1")
    "digamma_hessian": (
        lambda x: jnp.sum(jax.scipy.special.digamma(x**2 + 1) * x),
        "hessian",
        "dgraph_polygamma(",
    ),
    "erfinv": (lambda x: jax.scipy.special.erfinv(x / 3) * x, "jacobian", "dgraph_erfinv("),
    "i0e_i1e": (
        lambda x: jax.scipy.special.i0e(3 * x) * x + jax.scipy.special.i1e(x**2 - 0.4),
        "jacobian",
        "dgraph_i1e(",
    ),
    "von_mises": (_von_mises, "hessian", "dgraph_i1e("),
}


# name x sparse, all pairs of mode x sparse and of each function printed (polygamma,
# erfinv, i0e and i1e) x sparse: each program once, erfinv's (its one program) both ways
_SPARSE = [("digamma", True), ("digamma_hessian", True), ("erfinv", False), ("erfinv", True)]
_SPARSE += [("gammaln", False), ("i0e_i1e", False), ("von_mises", True)]


@needs_cc
@pytest.mark.parametrize(("name", "sparse"), _SPARSE)
def test_special_derivatives_in_c_equal_jax(name: str, sparse: bool) -> None:
    """Jacobians and Hessians whose derivatives call digamma, trigamma, erfinv, i0e or
    i1e, in C, dense and as C values: verified, equal to JAX's. Each was refused
    ("cannot print polygamma", "… i0e")."""
    f, mode, called = PROGRAMS[name]
    with jax.enable_x64(True):
        fn = dgraph.make_function(f, mode, point=[X], lang="c", sparse=sparse)
        expected = (jref.hessian if mode == "hessian" else jref.jacfwd)(f)(X)
    assert fn.generated.verified and called in fn.generated.text
    got = fn(X)
    got = got.toarray() if hasattr(got, "toarray") else np.asarray(got)
    np.testing.assert_allclose(got.reshape(expected.shape), expected, rtol=1e-12, atol=1e-13)


@pytest.mark.skipif(cxx_compiler() is None, reason="needs a C++ compiler")
def test_polygamma_in_cuda_on_the_host_equals_scipy() -> None:
    """The CUDA file's device functions, compiled as C++ on the host: the Jacobian of
    loggamma(a*b) + digamma(a) (digamma, trigamma) equals SciPy's at 20 points."""
    a, b = sympy.symbols("a b")
    graph = from_sympy([sympy.loggamma(a * b) + sympy.digamma(a)], [a, b])
    gen = generate(graph, "cuda", "reverse", ("jacobian",))
    assert gen.verified and "static __device__ __host__" in gen.text
    x = np.random.default_rng(3).uniform(0.3, 3.0, (20, 2))
    got = load_cuda_host(gen.text).jacobian(x)
    expected = np.stack(
        [
            x[:, 1] * special.digamma(x[:, 0] * x[:, 1]) + special.polygamma(1, x[:, 0]),
            x[:, 0] * special.digamma(x[:, 0] * x[:, 1]),
        ],
        axis=-1,
    )
    np.testing.assert_allclose(got.reshape(20, 2), expected, rtol=1e-13)


@needs_cc
def test_the_cli_writes_c_for_a_trace_with_lgamma(tmp_path) -> None:
    """``dgraph codegen f.trace --lang c`` of lgamma(a*b) + erf(a)*loggamma(b): exit 0,
    the file defines digamma and its Jacobian equals SciPy's (main: exit 2, "cannot
    print polygamma")."""
    trace = tmp_path / "lg.trace"
    trace.write_text("inputs: a, b\noutputs: y\ny = lgamma(a*b) + erf(a)*loggamma(b)\n")
    out = tmp_path / "lg.c"
    assert main(["codegen", str(trace), "--lang", "c", "-o", str(out)]) == 0
    a, b = 0.7, 1.9
    got = load_c(out).jacobian(np.array([a, b]))
    expected = [
        b * special.digamma(a * b) + 2 / np.sqrt(np.pi) * np.exp(-(a**2)) * special.gammaln(b),
        a * special.digamma(a * b) + special.erf(a) * special.digamma(b),
    ]
    np.testing.assert_allclose(np.ravel(got), expected, rtol=1e-13)
