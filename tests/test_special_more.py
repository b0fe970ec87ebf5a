"""scipy.special's ``spence``, ``ellipk`` and ``ellipe``, each one elementwise operation
(``spence`` was the hostile corpus's refused example): C's ``dgraph_<name>`` against
SciPy and mpmath on grids with the tails, the switches and the zero of spence at 1; a
changed coefficient caught; the Jacobian at both levels against the closed forms, the
Hessian against mpmath's derivatives, at spence's x = 1 and the integrals' m = 0 too
(where the formulas are 0/0); generated Python, C, CUDA (on the host) and JAX (spence;
ellipk refused in one line)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sps

import dgraph
from dgraph.codegen.c import compiler
from dgraph.codegen.c_special import special_definitions
from dgraph.errors import DGraphError
from tests.test_c_special import _c_function

mpmath = pytest.importorskip("mpmath")

NAMES = ("spence", "ellipk", "ellipe")
needs_cc = pytest.mark.skipif(compiler() is None, reason="needs a C compiler")

_RNG = np.random.default_rng(41)
_SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0, 0.5, 2.0, 1e-300, 1e300]
GRIDS = {
    "spence": np.concatenate(
        [
            _RNG.uniform(0, 3, 300),
            10 ** _RNG.uniform(-300, 300, 200),
            1 + _RNG.uniform(-1e-6, 1e-6, 50),  # its zero at 1
            _SPECIAL,
        ]
    ),
    "ellipk": np.concatenate(
        [
            _RNG.uniform(-5, 1, 300),
            1 - 10 ** _RNG.uniform(-16, 0, 150),  # K's logarithmic pole at 1
            -(10 ** _RNG.uniform(-300, 300, 150)),
            _SPECIAL,
        ]
    ),
}
GRIDS["ellipe"] = GRIDS["ellipk"]
# the worst relative error against SciPy's (RESULTS.md session 41): E's AGM sum cancels
# a little for m far below 0 (3e-14 of mpmath's at -1e294)
LIMITS = {"spence": 5e-15, "ellipk": 5e-15, "ellipe": 1e-13}


def _worst(y: np.ndarray, want: np.ndarray) -> float:
    finite = np.isfinite(want)
    np.testing.assert_array_equal(y[~finite], want[~finite])
    scale = np.where(want[finite] != 0, np.abs(want[finite]), 1.0)
    return float(np.max(np.abs(y[finite] - want[finite]) / scale))


def _c(name: str, definitions: list[str] | None = None):
    call = f"dgraph_{name}(x[k])"
    return _c_function(definitions or special_definitions(call), call)


@needs_cc
@pytest.mark.parametrize("name", NAMES)
def test_c_values_equal_scipy(name: str) -> None:
    x = GRIDS[name]
    assert _worst(_c(name)(0, x), getattr(sps, name)(x)) < LIMITS[name]


@needs_cc
def test_c_spence_keeps_its_digits_at_its_zero() -> None:
    """spence(1 + d) = -d + d²/4 - …: relative to mpmath's to 1e-15 (u = -log x, no 1 - x)."""
    x = 1 + np.array([1e-15, -3e-13, 2e-10, -1e-7])
    with mpmath.workdps(40):
        want = np.array([float(mpmath.polylog(2, 1 - mpmath.mpf(v))) for v in x])
    np.testing.assert_allclose(_c("spence")(0, x), want, rtol=1e-15)


_MUTATIONS = {  # a Bernoulli number, the AGM's c_0² = m, the sum's weight 2^(n-1)
    "spence": ("1.0 / 42", "1.0 / 41"),
    "ellipk": ("b = sqrt(a * b)", "b = sqrt(a * b * (1.0 + 1e-9))"),
    "ellipe": ("sum = 0.5 * m", "sum = 0.5 * m * (1.0 + 1e-9)"),
}


@needs_cc
@pytest.mark.parametrize("name", NAMES)
def test_a_changed_coefficient_is_caught(name: str) -> None:
    old, new = _MUTATIONS[name]
    right = special_definitions(f"dgraph_{name}(x[k])")
    wrong = [line.replace(old, new) for line in right]
    assert wrong != right
    x = GRIDS[name]
    assert _worst(_c(name, wrong)(0, x), getattr(sps, name)(x)) > 1e-11


# -- derivatives -------------------------------------------------------------------------


def _program(x):
    return np.sum(
        sps.spence(x) * x + sps.ellipk(0.5 * x) * sps.ellipe(x - 1.0) + sps.ellipe(0.3 * x) ** 2
    )


def _gradient(x: np.ndarray) -> np.ndarray:
    """By the closed forms: spence' = log x/(1 - x), A&S 17.3.29 and 17.3.30."""

    def dk(m):
        return (sps.ellipe(m) - (1 - m) * sps.ellipk(m)) / (2 * m * (1 - m))

    def de(m):
        return (sps.ellipe(m) - sps.ellipk(m)) / (2 * m)

    u, v, w = 0.5 * x, x - 1.0, 0.3 * x
    return (
        sps.spence(x) + x * np.log(x) / (1 - x)
        + 0.5 * dk(u) * sps.ellipe(v) + sps.ellipk(u) * de(v)
        + 2 * sps.ellipe(w) * 0.3 * de(w)
    )  # fmt: skip


def _hessian_diagonal(x: np.ndarray) -> np.ndarray:
    """mpmath's second derivative of :func:`_program`'s terms (40 digits)."""

    def term(t):
        return (
            mpmath.polylog(2, 1 - t) * t
            + mpmath.ellipk(t / 2) * mpmath.ellipe(t - 1)
            + mpmath.ellipe(0.3 * t) ** 2
        )

    with mpmath.workdps(40):
        return np.array([float(mpmath.diff(term, mpmath.mpf(v), 2)) for v in x])


X = np.array([0.3, 0.9, 1.7, 0.6])
# make_function's choice for these programs' Jacobians (the same generated text), named so
# that no call builds and compares every candidate: the choice is codegen's
# (tests/test_codegen_choice.py). _program's Hessian names it too: the choice gives paths
# in another pass order (other text, the same values to mpmath's 1e-12), and comparing
# the candidates cost 5 of this test's 6 s.
CHOSEN = "paths"


@pytest.mark.parametrize("level", ["array", "element"])
def test_jacobian_and_hessian(level: str) -> None:
    graph = dgraph.from_function(_program, sizes=[X.size], point=[X], level=level)
    es = dgraph.accumulate(graph, "reverse")
    assert es.verified
    np.testing.assert_allclose(np.asarray(es.evaluate(X)).reshape(-1), _gradient(X), rtol=1e-13)
    if level == "array":
        H = np.asarray(dgraph.hessian(_program, X, method=CHOSEN)(X))
        np.testing.assert_allclose(H, np.diag(_hessian_diagonal(X)), rtol=1e-12, atol=1e-14)


def test_at_the_points_where_the_formulas_are_zero_over_zero() -> None:
    """spence at x = 1 (slope −1, curvature 1/2), K and E at m = 0 (slopes ±π/8,
    curvatures 9π/64 and −3π/64, mpmath's): the degree-2 Taylor branch of each
    derivative."""

    def f(x):
        return sps.spence(x[0]) + sps.ellipk(x[1]) + sps.ellipe(x[2])

    x = np.array([1.0, 0.0, 0.0])
    es = dgraph.accumulate(dgraph.from_function(f, sizes=[3], point=[x]), "reverse")
    np.testing.assert_allclose(np.asarray(es.evaluate(x)).reshape(-1), [-1, np.pi / 8, -np.pi / 8])
    H = np.asarray(dgraph.hessian(f, x, method=CHOSEN)(x))
    with mpmath.workdps(30):
        want = [float(mpmath.diff(g, 0, 2)) for g in (mpmath.ellipk, mpmath.ellipe)]
    np.testing.assert_allclose(want, [9 * np.pi / 64, -3 * np.pi / 64], rtol=1e-15)
    np.testing.assert_allclose(H, np.diag([0.5, *want]), rtol=1e-14)


# -- generated code ----------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["python", "c"])
def test_generated_code(lang: str) -> None:
    if lang == "c" and compiler() is None:
        pytest.skip("needs a C compiler")
    fn = dgraph.make_function(_program, "value_and_jacobian", point=[X], lang=lang, method=CHOSEN)
    value, J = fn(X)
    assert fn.generated.verified
    if lang == "c":
        assert all(f"dgraph_{name}(" in fn.generated.text for name in NAMES)
    np.testing.assert_allclose(float(np.asarray(value).reshape(-1)[0]), _program(X), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(J).reshape(-1), _gradient(X), rtol=1e-13)


@needs_cc
def test_hessian_in_c() -> None:
    fn = dgraph.make_function(_program, "hessian", point=[X], lang="c", method=CHOSEN)
    assert fn.generated.verified
    H = fn(X)
    H = H.toarray() if hasattr(H, "toarray") else np.asarray(H)
    np.testing.assert_allclose(H, np.diag(_hessian_diagonal(X)), rtol=1e-12, atol=1e-14)


def test_cuda_device_functions_on_the_host() -> None:
    from dgraph.codegen.cuda import cxx_compiler, load_cuda_host
    from dgraph.codegen.generate import generate

    if cxx_compiler() is None:
        pytest.skip("needs a C++ compiler")
    graph = dgraph.from_function(_program, sizes=[X.size], point=[X])
    gen = generate(graph, "cuda", "reverse", ("jacobian",))
    assert gen.verified and all(f"dgraph_{name}(" in gen.text for name in NAMES)
    J = load_cuda_host(gen.text).jacobian(X[None, :]).reshape(-1)
    np.testing.assert_allclose(J, _gradient(X), rtol=1e-13)


def test_generated_jax() -> None:
    """spence through jax.scipy.special's; JAX has no ellipk: refused in one line."""
    jax = pytest.importorskip("jax")

    def g(x):
        return np.sum(sps.spence(x) * x)

    with jax.enable_x64(True):
        # the method: the choice's (the same generated text; the choice is codegen's,
        # tests/test_codegen_choice.py), so that no candidate's JAX program is checked
        fn = dgraph.make_function(g, "jacobian", point=[X], lang="jax", method="forward")
        got = np.asarray(fn(X)).reshape(-1)
    assert fn.generated.verified
    np.testing.assert_allclose(got, sps.spence(X) + X * np.log(X) / (1 - X), rtol=1e-13)
    with pytest.raises(DGraphError, match=r"cannot print math\.ellipk \(no jax\.numpy"):
        dgraph.make_function(_program, "jacobian", point=[X], lang="jax")
