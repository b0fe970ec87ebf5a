"""Idioms of the second survey (``benchmarks/idioms_survey2.py``, session 36) that dgraph
refused or failed, each checked against JAX's derivatives or a formula written out."""

from __future__ import annotations

import functools
import sys

import numpy as np
import pytest
import scipy
import sympy

import dgraph
from dgraph.core import extremes
from tests import jax_reference as jref

jax = pytest.importorskip("jax", reason="JAX is not installed")
jnp = jax.numpy
lax = jax.lax

_X = np.array([0.31, -0.69, 1.13, 0.52, -0.41, 0.93])
# _CHOSEN: the tests whose point is a frontend or a rule, not the choice, name the method
# make_function's choice gives them (the same generated text, compared when the method was
# named): the choice is codegen's (tests/test_codegen_choice.py), and building and costing
# every candidate's program is most of what making them costs.


@pytest.fixture(autouse=True)
def _float64():
    with jax.enable_x64(True):
        yield


def test_symbolic_jacobian_zeroes_steps():
    """sympy's Jacobian of a sign times a square holds ``DiracDelta``; as the graph's
    partials, a step's derivative is zero."""
    x = sympy.Symbol("x", real=True)
    found = extremes.jacobian([sympy.sign(x) * x**2, sympy.cbrt(x) * sympy.Abs(x)], [x])
    assert not found.has(sympy.DiracDelta)
    assert sympy.simplify(found[0] - 2 * x * sympy.sign(x)) == 0


def test_select_clamp_cbrt_jacobian():
    """``lax.select_n`` + ``lax.clamp`` + ``lax.cbrt``: the cheapest Jacobian program was
    sympy's whole Jacobian, whose ``DiracDelta`` no printer prints ("cannot print
    DiracDelta")."""

    def v(x):
        return lax.select_n(x > 0.2, x**2, jnp.sin(x)) + lax.clamp(-0.5, x, 0.8) + lax.cbrt(x + 2)

    got = dgraph.make_function(v, "jacobian", point=[_X])(_X)
    np.testing.assert_allclose(np.asarray(got), jref.jacfwd(v)(_X), rtol=1e-12, atol=1e-14)


_EDGES = {  # scipy.special's own values at the ends of each piece, and NaN-free infinities
    "erfcx": (np.array([-30.0, -3.0, 0.0, 2.0, 24.9, 25.1, 100.0, 1e5, np.inf]),),
    "rel_entr": (np.array([0, 0, 1, -1, 1, 2.0]), np.array([0, 1, 0, 1, -1, 3.0])),
    "kl_div": (np.array([0, 0, 1, -1, 1, 2.0]), np.array([0, 1, 0, 1, -1, 3.0])),
    "huber": (np.array([-1, 0, 0.5, 0.5, 2.0]), np.array([1, 0, 0.5, -3, 1.0])),
    "pseudo_huber": (np.array([-1, 0, 0, 0.5, 2.0]), np.array([1, 0, 2, -3, 1.0])),
    "boxcox": (np.array([0.5, 0, 2, 3, 0.1]), np.array([0.3, 0.0, 1e-20, -1, 2.0])),
    "boxcox1p": (np.array([0.5, 0, 2, -0.5, 0.1]), np.array([0.3, 0.0, 1e-20, -1, 2.0])),
}


@pytest.mark.parametrize("name", sorted(_EDGES))
def test_scipy_special_composites_equal_scipy(name):
    """Each new composite of scipy.special (was refused: 'scipy.special.huber on an array
    that depends on the inputs is not supported') equals scipy's ufunc on every piece."""
    sps = pytest.importorskip("scipy.special")
    from dgraph.frontends.scipy_special import COMPOSITE_UFUNCS

    with np.errstate(all="ignore"):
        got = COMPOSITE_UFUNCS[name](lambda _, a: sps.erfc(a), *_EDGES[name])
        want = getattr(sps, name)(*_EDGES[name])
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)


def test_scipy_special_composites_hessian():
    """The Hessian of a sum of ``rel_entr``, ``kl_div``, ``huber``, ``pseudo_huber``,
    ``boxcox``, ``boxcox1p`` and ``erfcx`` of the inputs is JAX's of the same formulas."""
    sps = pytest.importorskip("scipy.special")
    jsps = jax.scipy.special

    def f(x):
        p, q, y = sps.expit(x), sps.expit(x[::-1]), x**2 + 0.5
        return np.sum(
            sps.rel_entr(p, q)
            + sps.kl_div(p, q)
            + sps.huber(0.5, x)
            + sps.pseudo_huber(0.7, x)
            + sps.boxcox(y, 0.3)
            + sps.boxcox1p(y, -0.4)
            + sps.erfcx(x)
        )

    def f_jax(x):
        p, q, y = jax.nn.sigmoid(x), jax.nn.sigmoid(x[::-1]), x**2 + 0.5
        huber = jnp.where(jnp.abs(x) <= 0.5, 0.5 * x**2, 0.5 * (jnp.abs(x) - 0.25))
        pseudo = 0.49 * (jnp.sqrt(1 + (x / 0.7) ** 2) - 1)
        boxcox = jnp.expm1(0.3 * jnp.log(y)) / 0.3 + jnp.expm1(-0.4 * jnp.log1p(y)) / -0.4
        return jnp.sum(
            jsps.rel_entr(p, q)
            + jsps.kl_div(p, q)
            + huber
            + pseudo
            + boxcox
            + jnp.exp(x**2) * jsps.erfc(x)
        )

    got = dgraph.hessian(f, _X, method="reverse")(_X)  # the choice's method (_CHOSEN)
    np.testing.assert_allclose(np.asarray(got), jref.hessian(f_jax)(_X), rtol=1e-10, atol=1e-12)


_A3 = np.array([[1.0, 0.2, -0.3], [0.4, 0.9, 0.1], [-0.2, 0.5, 1.2]])
_B3 = np.array([1.0, -0.5, 0.3])


def _spd(x, xp):
    L = xp.array([[1.2 + x[0] ** 2, 0.0, 0.0], [x[1], 1.1 + x[2] ** 2, 0.0], [x[3], x[4], 1.3]])
    return L @ L.T + x[5] ** 2 * xp.eye(3)


def test_scipy_linalg_solvers_jacobian():
    """scipy.linalg's ``solve(assume_a='pos'/'sym', lower=)``, ``det``, ``inv``,
    ``cho_factor``/``cho_solve``, ``lu_factor``/``lu_solve(trans=1)``, ``solve_triangular``
    (``trans``, ``unit_diagonal``) of traced matrices (were refused: 'converting an array
    that depends on the inputs to a NumPy array'): JAX's Jacobian of jax.scipy.linalg's."""
    sl = pytest.importorskip("scipy.linalg")
    jsl = jax.scipy.linalg

    def v(x):
        S, M = _spd(x, np), _A3 + np.outer(x[:3], x[3:]) * 0.2  # M: not symmetric
        return np.concatenate(
            [
                sl.solve(S, _B3, assume_a="pos"),
                sl.solve(M, _B3, assume_a="sym", lower=True),
                np.stack([sl.det(M)]),
                sl.inv(M)[1],
                sl.cho_solve(sl.cho_factor(S), x[3:]),
                sl.cho_solve(sl.cho_factor(S, lower=True), _B3),
                sl.lu_solve(sl.lu_factor(M), x[:3], trans=1),
                sl.solve_triangular(M, x[3:], lower=True),
                sl.solve_triangular(M, _B3, trans=1, unit_diagonal=True),
            ]
        )

    def v_jax(x):
        M = jnp.asarray(_A3) + jnp.outer(x[:3], x[3:]) * 0.2
        sym = jnp.tril(M) + jnp.tril(M, -1).T
        return jnp.concatenate(
            [
                jnp.linalg.solve(_spd(x, jnp), _B3),
                jnp.linalg.solve(sym, _B3),
                jnp.stack([jsl.det(M)]),
                jsl.inv(M)[1],
                jnp.linalg.solve(_spd(x, jnp), x[3:]),
                jnp.linalg.solve(_spd(x, jnp), _B3),
                jnp.linalg.solve(M.T, x[:3]),
                jsl.solve_triangular(M, x[3:], lower=True),
                jsl.solve_triangular(M, _B3, trans=1, unit_diagonal=True),
            ]
        )

    got = dgraph.make_function(v, "jacobian", point=[_X], method="forward")(_X)  # _CHOSEN
    np.testing.assert_allclose(np.asarray(got), jref.jacfwd(v_jax)(_X), rtol=1e-10, atol=1e-12)


def test_scipy_linalg_refusals_are_one_line():
    """``sqrtm`` of a traced matrix with a negative eigenvalue (no real root), ``expm``
    of a vector, and an LU factor read other than by ``lu_solve``."""
    sl = pytest.importorskip("scipy.linalg")
    cases = {
        "principal square root is not real": lambda x: sl.sqrtm(
            -np.eye(2) - np.outer(x[:2], x[:2])
        ).ravel(),
        "expm needs square matrices": lambda x: sl.expm(x[:4]),
        "read by scipy.linalg.lu_solve only": lambda x: sl.lu_factor(x[:4].reshape(2, 2))[0][0],
    }
    for needle, v in cases.items():
        with pytest.raises(dgraph.errors.DGraphError, match=needle):
            dgraph.make_function(v, "jacobian", point=[_X])


def _linear_cases():
    si, ssig, snd = (
        pytest.importorskip(m) for m in ("scipy.integrate", "scipy.signal", "scipy.ndimage")
    )
    t = np.array([0.0, 0.3, 0.5, 1.1, 1.6, 2.0])
    k = np.array([0.25, 0.5, -0.25])
    return {
        "trapezoid": lambda y: np.stack([si.trapezoid(y, t), si.trapezoid(y, dx=0.5)]),
        "simpson": lambda y: np.stack([si.simpson(y, x=t), si.simpson(y[:5], dx=0.5)]),
        "cumulative_trapezoid": lambda y: np.concatenate(
            [si.cumulative_trapezoid(y, t, initial=0.0), si.cumulative_trapezoid(y, dx=0.3)]
        ),
        "signal": lambda y: np.concatenate(
            [
                ssig.convolve(y, k, mode="same"),
                ssig.fftconvolve(y, k, mode="valid"),
                ssig.correlate(y, k),
                ssig.correlate(k, y, mode="same"),
            ]
        ),
        "ndimage": lambda y: np.concatenate(
            [snd.convolve1d(y, k, mode=m) for m in ("reflect", "nearest", "wrap", "mirror")]
            + [
                snd.correlate1d(y, k, mode="constant", cval=0.7),
                snd.gaussian_filter1d(y.reshape(2, 3), 0.8, axis=0).ravel(),
            ]
        ),
    }


_LINEAR_METHODS = {  # the choice's method for each (_CHOSEN)
    "trapezoid": "reverse",
    "simpson": "forward",
    "cumulative_trapezoid": "markowitz",
    "signal": "forward",
    "ndimage": "forward",
}


@pytest.mark.parametrize(
    "name", ["trapezoid", "simpson", "cumulative_trapezoid", "signal", "ndimage"]
)
def test_scipy_linear_maps_of_the_inputs(name):
    """scipy.integrate's, scipy.signal's and scipy.ndimage's linear (affine) maps of
    ``y = sin(x)`` with constant abscissae, kernels, weights (were refused: 'converting an
    array that depends on the inputs to a NumPy array'): the value is scipy's, and the
    Jacobian's column ``j`` is scipy's map of ``cos(x_j) e_j`` less that of zero."""
    L = _linear_cases()[name]
    value_and_jacobian = dgraph.make_function(
        lambda x: L(np.sin(x)), "value_and_jacobian", point=[_X], method=_LINEAR_METHODS[name]
    )
    value, got = value_and_jacobian(_X)
    zero = L(np.zeros(6))
    want = np.stack([L(np.cos(_X[j]) * np.eye(6)[j]) - zero for j in range(6)], axis=1)
    np.testing.assert_allclose(np.asarray(value), L(np.sin(_X)), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-14)


def _lazy_fftconvolve(y):
    """``scipy.signal`` named through ``import scipy`` (SciPy imports it when named)."""
    return scipy.signal.fftconvolve(np.sin(y), np.array([0.25, 0.5, -0.25]), mode="same")


def test_a_scipy_submodule_imported_by_naming_it(monkeypatch):
    """``import scipy`` then ``scipy.signal.fftconvolve(...)`` with ``scipy.signal`` not yet
    imported: read on the first trace (survey57j: refused, 'converting an array that
    depends on the inputs to a NumPy array', until a later trace found it imported)."""
    for name in [m for m in sys.modules if m.split(".")[:2] == ["scipy", "signal"]]:
        monkeypatch.delitem(sys.modules, name)  # imported afresh, as in a new process
    monkeypatch.delattr(scipy, "signal", raising=False)
    got = dgraph.make_function(_lazy_fftconvolve, point=[_X], method="forward")(_X)
    k = np.array([0.25, 0.5, -0.25])
    want = np.stack([np.convolve(np.eye(6)[j], k, "same") for j in range(6)], 1) * np.cos(_X)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-14)


def test_scipy_distances_hessian():
    """``cdist`` (euclidean, sqeuclidean, cityblock, chebyshev, minkowski, cosine) and
    ``pdist`` of traced points: JAX's Hessian of the same formulas."""
    distance = pytest.importorskip("scipy.spatial.distance")
    Q = np.array([[0.3, 0.1], [1.0, -0.5]])
    metrics = [
        ("euclidean", {}),
        ("sqeuclidean", {}),
        ("cityblock", {}),
        ("chebyshev", {}),
        ("minkowski", {"p": 3.0}),
        ("cosine", {}),
    ]

    def f(x):
        P = x.reshape(3, 2)
        total = np.sum(distance.pdist(P) ** 2)
        for m, kw in metrics:
            total = total + np.sum(distance.cdist(P, Q, m, **kw) ** 2)
        return total

    def f_jax(x):
        d = x.reshape(3, 2)[:, None, :] - Q[None]
        P, total = x.reshape(3, 2), 0.0
        rows, cols = np.triu_indices(3, 1)
        total = jnp.sum((P[rows] - P[cols]) ** 2)
        dot = P @ Q.T
        norms = jnp.linalg.norm(P, axis=1)[:, None] * np.linalg.norm(Q, axis=1)[None]
        for D in [
            jnp.sqrt(jnp.sum(d**2, -1)),
            jnp.sum(d**2, -1),
            jnp.sum(jnp.abs(d), -1),
            jnp.max(jnp.abs(d), -1),
            jnp.sum(jnp.abs(d) ** 3, -1) ** (1 / 3),
            1 - dot / norms,
        ]:
            total = total + jnp.sum(D**2)
        return total

    got = dgraph.hessian(f, _X, method="markowitz")(_X)  # the choice's method (_CHOSEN)
    np.testing.assert_allclose(np.asarray(got), jref.hessian(f_jax)(_X), rtol=1e-9, atol=1e-11)


def _array_api_sum(x, xp=np):
    w = xp.asarray([x[0] ** 2, 1.0, x[1]])
    return xp.sum(xp.sin(x[:3]) * w) + xp.sum(
        xp.linalg.eigvalsh(xp.outer(x[:3], x[:3]) + 2 * xp.eye(3))
    )


def test_module_as_a_default_argument():
    """Array-API style ``def g(x, xp=np)`` whose ``xp.asarray`` gathers traced scalars (was
    refused: 'converting an array that depends on the inputs to a NumPy array'), and a
    module held in a closure cell: JAX's Hessian of the same function with ``xp=jnp``."""
    sl = pytest.importorskip("scipy.linalg")

    def f(x):
        return _array_api_sum(x) + sl.det(np.outer(x[3:], x[3:]) + np.eye(3))

    def f_jax(x):
        return _array_api_sum(x, jnp) + jnp.linalg.det(jnp.outer(x[3:], x[3:]) + jnp.eye(3))

    got = dgraph.hessian(f, _X, method="reverse")(_X)  # the choice's method (_CHOSEN)
    np.testing.assert_allclose(np.asarray(got), jref.hessian(f_jax)(_X), rtol=1e-10, atol=1e-12)
    assert _array_api_sum.__defaults__ == (np,)  # restored


def _expm_jax(x, shape):
    return jax.vmap(jax.scipy.linalg.expm)(x.reshape((-1, *shape[-2:]))).ravel()


@functools.cache
def _expm_jacobian(shape):
    """JAX's Jacobian of :func:`_expm_jax`, jitted once per shape (the two 3 × 3 cases
    share its compilation)."""
    return jax.jit(jax.jacfwd(lambda x: _expm_jax(x, shape)))


@pytest.mark.parametrize(
    "shape, scale, method",  # method: the choice's (_CHOSEN)
    [((3, 3), 0.1, "forward"), ((3, 3), 20.0, "forward"), ((2, 2, 2), 1.0, "markowitz")],
    ids=["unscaled", "squared", "stack"],
)
def test_scipy_linalg_expm_equals_jax(shape, scale, method):
    """``scipy.linalg.expm`` by scaling and squaring with Padé's [13/13] (it was refused):
    values within 1e-12 of scipy's (whose degree and squarings differ), the Jacobian of
    JAX's ``expm`` (the same approximant) at norms needing no squaring, several, and for a
    stack of matrices."""
    sl = pytest.importorskip("scipy.linalg")
    x = np.random.default_rng(1).standard_normal(int(np.prod(shape))) * scale
    fn = dgraph.make_function(
        lambda x: sl.expm(x.reshape(shape)).ravel(), "value_and_jacobian", point=[x], method=method
    )
    value, J = fn(x)
    assert fn.generated.verified
    expected = sl.expm(x.reshape(shape)).ravel()
    np.testing.assert_allclose(value, expected, rtol=0, atol=1e-12 * np.max(np.abs(expected)))
    reference = _expm_jacobian(shape)(x)
    np.testing.assert_allclose(J, reference, rtol=0, atol=1e-13 * np.max(np.abs(reference)))


def test_scipy_linalg_expm_hessian_equals_jax():
    """The Hessian equals JAX's, forward over forward (its program compiles in about two
    thirds of ``jax.hessian``'s forward over reverse; the values: the test above)."""
    sl = pytest.importorskip("scipy.linalg")
    x = np.random.default_rng(2).standard_normal(9)
    want = np.asarray(jref.forward_hessian(lambda x: jnp.sum(_expm_jax(x, (3, 3)) ** 2))(x))
    f = lambda x: np.sum(sl.expm(x.reshape(3, 3)) ** 2)  # noqa: E731
    made = dgraph.hessian(f, x, method="reverse")  # the choice's (_CHOSEN)
    assert made.generated.verified
    got = made(x)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * np.abs(want).max())
