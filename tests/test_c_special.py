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
from dgraph.codegen.c import compiler
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


def _c_polygamma(definitions: list[str]):
    harness = "\n".join(
        [
            "#include <math.h>",
            *definitions,
            "void run(long count, double n, const double *x, double *y)",
            "{ for (long k = 0; k < count; ++k) y[k] = dgraph_polygamma(n, x[k]); }",
        ]
    )
    library = shared_library(compiler(), ("-O2",), harness, ".c", ("-lm",))

    def call(n: int, x: np.ndarray) -> np.ndarray:
        y = np.empty_like(x)
        library.run(ctypes.c_long(x.size), ctypes.c_double(n), _address(x), _address(y))
        return y

    return call


def _worst(y: np.ndarray, expected: np.ndarray) -> float:
    """The largest error relative to |polygamma|, at least 1e-3 (near its zeros:
    digamma's at 1.4616..., the even orders' between negative poles); poles, ±inf and NaN
    as SciPy's."""
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(y[~finite], expected[~finite])
    scale = np.maximum(np.abs(expected[finite]), 1e-3)
    return float(np.max(np.abs(y[finite] - expected[finite]) / scale))


DEFINITIONS = special_definitions("dgraph_polygamma(")


@needs_cc
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4])
def test_polygamma_in_c_equals_scipy(n: int) -> None:
    """Orders 0–4 on 1,500 points from 1e-10 to 1e10 and down to -1e4, the poles, ±0,
    ±inf and NaN: SciPy's values, within 1e-12 of |polygamma| (at least 1e-3)."""
    y = _c_polygamma(DEFINITIONS)(n, GRID)
    assert _worst(y, special.polygamma(n, GRID)) < 1e-12


@needs_cc
def test_a_wrong_series_is_caught() -> None:
    """B_2 written 1/7 instead of 1/6: the comparison above fails."""
    wrong = [line.replace("1.0 / 6,", "1.0 / 7,") for line in DEFINITIONS]
    assert wrong != DEFINITIONS
    y = _c_polygamma(wrong)(1, GRID)
    assert _worst(y, special.polygamma(1, GRID)) > 1e-6


def test_only_what_is_called_is_defined() -> None:
    assert special_definitions("y = lgamma(x);") == []
    digamma = "\n".join(special_definitions("y = dgraph_digamma(x);", "static __device__"))
    assert digamma.startswith("#define DGRAPH_SPECIAL static __device__")
    assert "double dgraph_polygamma(" in digamma and "double dgraph_digamma(" in digamma
    assert "dgraph_digamma" not in "\n".join(special_definitions("dgraph_polygamma(1, x)"))


jax = pytest.importorskip("jax")
jnp = jax.numpy
X = np.random.default_rng(2).uniform(0.2, 1.2, 6)


def _loglik(x):
    return jnp.sum(jax.scipy.special.gammaln(x**2 + 1) * x)


def _digamma(x):
    return jax.scipy.special.digamma(x**2 + 1) * x


@needs_cc
@pytest.mark.parametrize("sparse", [False, True])
def test_digamma_derivatives_in_c_equal_jax(sparse: bool) -> None:
    """A Jacobian of digamma (trigamma in it) and a Hessian of gammaln (digamma, trigamma)
    in C, dense and as C values: verified, equal to JAX's. Both were refused ("cannot
    print polygamma")."""
    with jax.enable_x64(True):
        J = dgraph.make_function(_digamma, "jacobian", point=[X], lang="c", sparse=sparse)
        H = dgraph.make_function(_loglik, "hessian", point=[X], lang="c", sparse=sparse)
        expected_j, expected_h = jax.jacfwd(_digamma)(X), jax.hessian(_loglik)(X)
    for fn, expected in ((J, expected_j), (H, expected_h)):
        assert fn.generated.verified and "dgraph_polygamma(" in fn.generated.text
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
