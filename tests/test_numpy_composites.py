"""NumPy functions built of other NumPy operations in traced code
(dgraph.frontends.numpy_composites): each Hessian against JAX's (jax.numpy's function of
the same name) at a 0-d input where the function takes one, a 1-d and a 2-d one; values
off the smooth part (``heaviside`` at 0 and NaN, ``sinc`` at and beside 0); a mutated
definition caught (``sinc``, ``pinv`` and ``svd`` beside them). Each was refused on main
("numpy.triu on an array that depends on the inputs", …)."""

from __future__ import annotations

import itertools

import numpy as np
import numpy.polynomial.polynomial as P
import pytest
from numpy.polynomial import chebyshev
from numpy.polynomial.legendre import legval
from numpy.polynomial.polynomial import polyval

import dgraph
from dgraph.errors import InputError
from dgraph.frontends import from_function
from tests import jax_reference as jref

jax = pytest.importorskip("jax")
jnp = jax.numpy


def _both(body):
    """The same code with np and with jnp: (NumPy program, JAX reference)."""
    return (lambda x: body(np, x)), (lambda x: body(jnp, x))


W = np.array([1.0, 2.0, 0.5])
PAIRS = {
    "triu_tril": _both(lambda m, x: m.sum(m.triu(m.outer(x, x) ** 2, 1))
                       + m.sum(m.tril(m.outer(x, x[::-1]) ** 3, -1))),
    "cross": _both(lambda m, x: m.sum(m.cross(m.reshape(x[:6], (2, 3)), m.sin(x[-3:])) ** 2)),
    "kron": _both(lambda m, x: m.sum(m.kron(x[:2], x[2:]) ** 2)
                  + m.sum(m.kron(m.reshape(x[:4], (2, 2)), m.reshape(x[-4:], (2, 2))) ** 3)),
    "append_column_stack": _both(lambda m, x: m.sum(m.append(x, 1.0) ** 3 * x[0])
                                 + m.sum(m.column_stack([x[:3], x[3:6] ** 2]) ** 3)),
    "ediff1d": _both(lambda m, x: m.sum(m.ediff1d(x, to_begin=x[:1] ** 2) ** 3)),
    "trapezoid": _both(lambda m, x: m.trapezoid(x**3, dx=0.5)
                       + m.sum(m.trapezoid(m.reshape(x[:6], (2, 3)) ** 2, x[:3] ** 2 + 1.0))
                       + m.sum(m.trapezoid(m.reshape(x[:6], (2, 3)) ** 2, axis=0))),
    "average": _both(lambda m, x: m.average(x**2, weights=m.arange(1.0, x.size + 1.0)) ** 2
                     + m.sum(m.average(m.reshape(x[:6], (2, 3)) ** 3, axis=1, weights=W) ** 2)),
    "vdot_inner": _both(lambda m, x: m.vdot(x, x**2) ** 2
                        + m.sum(m.inner(m.reshape(x[:6], (2, 3)), m.reshape(x[:6], (2, 3))) ** 2)),
    "polyval": _both(lambda m, x: m.sum(m.polyval(x[:3], x) ** 2)
                     + m.sum(m.polyval(m.array([1.0, -2.0, 0.5]), x) ** 3)),
    # each k, other axes, a 3-d array: position-weighted so a wrong rotation is seen
    "rot90": _both(lambda m, x: sum(m.sum(m.rot90(m.reshape(x, (3, 3)) ** 2, k) * W[:, None]
                                          * m.arange(1.0, 4.0)) for k in range(-1, 4))
                   + m.sum(m.rot90(m.reshape(x[:8], (2, 2, 2)), 1, (2, 0)) ** 3
                           * m.arange(1.0, 9.0).reshape(2, 2, 2))),
    "meshgrid": _both(lambda m, x: m.sum(m.meshgrid(x[:2], x[2:5] ** 2)[0]
                                         * m.arange(6.0).reshape(3, 2)
                                         + m.meshgrid(x[:2], x[2:5])[1] ** 3)
                      + m.sum(m.meshgrid(x[:3], x[3:5], x[5:], indexing="ij")[2] ** 2
                              * m.arange(24.0).reshape(3, 2, 4))),
    # split's list (unequal pieces), array_split's uneven sections, hsplit/vsplit of rows
    "split": _both(lambda m, x: sum(m.sum(p ** (i + 2)) * (i + 1)
                                    for i, p in enumerate(m.split(x, [2, 5])))
                   + sum(m.sum(p**3) * (i + 1) for i, p in enumerate(m.array_split(x, 4)))
                   + m.sum(m.hsplit(m.reshape(x, (3, 3)), 3)[1] ** 2 * W[:, None])
                   + m.sum(m.vsplit(m.reshape(x, (3, 3)), [1])[1] ** 3 * W)),
    # wrapped phases unwrapped (corrections of whole periods: the derivative passes), axis 0
    "unwrap": _both(lambda m, x: m.sum(m.unwrap(m.arctan2(m.sin(5 * x), m.cos(5 * x))) ** 2
                                       * m.arange(1.0, 10.0))
                    + m.sum(m.unwrap(m.reshape(6 * x, (3, 3)), axis=0) ** 3 * W[:, None])),
}  # fmt: skip


def _array_api_products(m, x):
    M23, M32 = m.reshape(x[:6], (2, 3)), m.reshape(x[3:], (3, 2))
    A, B = m.reshape(x[:4], (2, 2)), m.reshape(x[5:], (2, 2))
    return (
        m.sum(m.vecdot(M23, x[3:6] ** 2))
        + m.sum(m.vecdot(m.reshape(x[:6], (3, 2)), M32, axis=0) ** 2 * W[:2])
        + m.sum(m.linalg.vecdot(x[:3], x[6:]) ** 2)
        + m.sum(m.matvec(m.reshape(x[:8], (2, 2, 2)), x[7:]) ** 3 * W[:2])
        + m.sum(m.vecmat(x[:2] ** 2, m.reshape(x[1:7], (2, 3))) ** 2 * W)
        + m.sum(m.linalg.matmul(M23, M32) ** 2)
        + m.sum(m.linalg.outer(x[:2], x[5:8] ** 2) * W)
        + m.linalg.tensordot(A, B**2)
        + m.sum(m.linalg.multi_dot([A, B, x[2:4]]) ** 2)
    )


def _array_api_axes(m, x):
    M23 = m.reshape(x[:6], (2, 3))
    return (
        m.sum(m.linalg.trace(m.reshape(x[:8], (2, 2, 2)) ** 2) * W[:2])
        + m.sum(m.linalg.diagonal(m.reshape(x, (3, 3)), offset=1) ** 3 * W[:2])
        + m.sum(m.linalg.cross(M23, x[6:]) ** 3)
        + m.sum(m.matrix_transpose(M23**2) * m.arange(6.0).reshape(3, 2))
        + m.sum(
            m.cumulative_sum(M23, axis=1, include_initial=True) ** 2 * m.arange(8.0).reshape(2, 4)
        )
        + m.sum(m.cumulative_prod(x, include_initial=True) * m.arange(10.0))
        + m.sum(m.astype(x, m.float64) ** 3)
    )


def _array_api_solves(m, x):
    T = m.reshape(m.tile(x[:4], 4), (2, 2, 2, 2)) + 3 * m.eye(4).reshape(2, 2, 2, 2)
    return m.sum(m.linalg.svdvals(m.reshape(x[:6], (2, 3))) ** 2 * W[:2]) + m.sum(
        m.linalg.tensorsolve(T, m.reshape(x[5:], (2, 2))) ** 2
    )


CHOSEN = np.array([[0, 1, 2], [2, 0, 1], [1, 1, 0]])


def _selections(m, x):
    M = m.reshape(x, (3, 3))
    jitted = {} if m is np else {"mode": "clip"}  # jnp.choose's 'raise' is not jit-able
    sized = (lambda k: {}) if m is np else (lambda k: {"size": k})  # jnp.compress's, jitted
    return (m.sum(m.choose(CHOSEN, [M, M**2, x[:3] ** 3], **jitted) * M)
            + m.sum(m.delete(M, np.array([0, 2]), axis=1) ** 3 * W[:, None])
            + m.sum(m.delete(x, np.array([1, 4])) ** 2 * m.arange(7.0))
            + m.sum(m.resize(x[:4], (2, 5)) ** 2 * m.arange(10.0).reshape(2, 5))
            + m.sum(m.compress(np.array([True, False, True]), M, axis=0, **sized(2)) ** 3 * W)
            + m.sum(m.extract(np.eye(3) > 0, M, **sized(3)) ** 3)
            + m.sum(m.diagflat(x[:3] ** 2) @ M * M)
            + m.sum(m.dstack([M, M**2]) ** 2 * m.arange(18.0).reshape(3, 3, 2))
            + m.sum(m.atleast_3d(x[:2]) ** 3)
            + m.sum(m.logspace(x[0], x[1], 4) * W[0])
            + m.sum(m.geomspace(x[2] + 2.0, x[3] + 3.0, 5) ** 2)
            + m.sum(m.take(x, np.array([1, 13, -4]), mode="wrap") ** 3 * W)
            + m.sum(m.take(M, np.array([0, 5]), axis=1, mode="clip") ** 2))  # fmt: skip


def _roundings(m, x):
    fix = getattr(m, "fix", m.trunc)  # jax.numpy.fix: removed in JAX 0.10
    return (m.sum(x * fix(3 * x) + x**2 * m.trunc(2.5 * x) + m.signbit(x - 0.3) * x**3)
            + m.sum(m.divmod(5 * x, 0.7)[1] ** 2 * x + m.divmod(5 * x, 0.7)[0] * x**2)
            + m.sum(m.modf(4 * x)[0] ** 2 + m.modf(4 * x)[1] * x)
            + m.sum(m.floor_divide(x**2, 0.3) * x)
            + m.nanprod(m.where(x > 0.9, m.nan, x + 1.5)) + m.sum(m.nancumsum(x) ** 2 * x)
            + m.sum(m.nancumprod(m.reshape(x + 0.5, (3, 3)), axis=1) * W))  # fmt: skip


def _broadcasts(m, x):
    a, b = m.broadcast_arrays(x[:3, None], x[3:7])
    kept = m.where(x > 0.5, m.nan, x)  # nanargmax/nanargmin pick entries by position
    real = m.iscomplexobj(x) is False and m.isrealobj(x) is True
    integral = m.polyint(x[:4], 2, k=m.stack([x[4], 1.0]))
    return (m.sum(a * b**2) + x[m.nanargmax(kept)] ** 3 + x[m.nanargmin(kept)] * x[0]
            + m.sum(integral**2 * m.arange(1.0, 7.0)) * real)  # fmt: skip


ARRAY_API_PAIRS = {  # NumPy 2's array-API names (dgraph.frontends.numpy_array_api)
    "array_api_products": _both(_array_api_products),
    "array_api_axes": _both(_array_api_axes),
    "array_api_solves": _both(_array_api_solves),
    # more NumPy functions of dgraph.frontends.numpy_selections, numpy_composites.UFUNCS,
    # numpy_statistics, np.take's modes (refused or failing at the array level before)
    "selections": _both(_selections),
    "roundings": _both(_roundings),
    "broadcasts": _both(_broadcasts),
}  # fmt: skip
UFUNC_PAIRS = {  # also at a 0-d input
    "logaddexp2": _both(lambda m, x: m.logaddexp2(x, 0.2 * x**2) ** 2),
    "deg2rad_rad2deg": _both(lambda m, x: m.sin(m.deg2rad(30 * x)) * m.rad2deg(x) ** 2
                             + m.radians(x) * m.degrees(x**2)),
    "heaviside": _both(lambda m, x: m.heaviside(x - 0.1, 0.5) * x**3),
}  # fmt: skip


def _positional(f, k: int):
    """``Σ sum(f(x))`` over ``k`` (1 or 3) plain positional parameters, one input each."""
    if k == 1:
        return lambda x: np.sum(f(x))
    assert k == 3
    return lambda x, y, z: np.sum(f(x)) + np.sum(f(y)) + np.sum(f(z))


def _hessian_vs_jax(f, g, *points, method: str | None = None) -> None:
    """At the array level (main took some of these at the element level only, one vertex
    per entry), the Hessian of ``Σ_k sum(f(x_k))`` over one argument per point of
    ``points`` (a 0-d, a 1-d and a 2-d one: one build, its Hessian's diagonal blocks each
    point's, the others 0) against JAX's of the same sum (one jitted program, forward over
    forward: it compiles in about 0.8 of ``jax.hessian``'s CPU, the same values to
    rounding).
    ``method``: the one make_function's choice gives the Hessian (the same generated
    text), named so that the tests, of the frontend, do not build and cost every
    candidate's program (the choice is codegen's, tests/test_codegen_choice.py)."""
    argnums = tuple(range(len(points)))
    with jax.enable_x64(True):
        total = lambda *xs: sum(jnp.sum(g(x)) for x in xs)  # noqa: E731
        args = tuple(jnp.asarray(x) for x in points)
        (want,) = jref.references([jref.Reference("forward_hessian", total, args, argnums)])
    made = dgraph.hessian(_positional(f, len(points)), *points, sparse=True, method=method)
    got = made(*points)
    assert made.generated.expression_set.graph.is_tensor  # read at the array level
    assert made.generated.verified
    if len(points) == 1:
        got = ((got,),)
    for i, j in itertools.product(argnums, argnums):
        block = got[i][j].toarray()
        np.testing.assert_allclose(
            block, np.asarray(want[i][j]).reshape(block.shape), rtol=1e-11, atol=1e-12
        )


HESSIAN_METHODS = {"triu_tril": "reverse", "vdot_inner": "markowitz"}  # the others' is forward


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_composite_hessians_equal_jax(name: str) -> None:
    f, g = PAIRS[name]
    _hessian_vs_jax(f, g, np.linspace(-0.8, 1.1, 9), method=HESSIAN_METHODS.get(name, "forward"))


@pytest.mark.parametrize("name", sorted(ARRAY_API_PAIRS))
def test_array_api_names_equal_jax(name: str) -> None:
    """Stacks, axes, ``include_initial``, take's modes: refused at the array level before
    ("numpy.vecdot on an array that depends on the inputs", "_take() got an unexpected
    keyword argument 'mode'"); one point (each is a composition of operations the other
    tests cover at many, Hessians included: the gradient here, a compile of JAX's gradient
    costing a third of its Hessian's)."""
    f, g = ARRAY_API_PAIRS[name]
    x = np.linspace(-0.8, 1.1, 9)
    with jax.enable_x64(True):
        (want,) = jref.references(
            [jref.Reference("value_and_grad", lambda x: jnp.sum(g(x)), (jnp.asarray(x),))]
        )
    graph = from_function(lambda x: np.sum(f(x)), sizes=[x.shape], level="array")
    made = dgraph.make_function(graph, "value_and_jacobian", method="reverse")  # the choice's
    value, gradient = made(x)
    assert made.generated.verified
    np.testing.assert_allclose(value, float(want[0]), rtol=1e-13)
    np.testing.assert_allclose(gradient, want[1], rtol=1e-11, atol=1e-12 * np.abs(want[1]).max())


@pytest.mark.parametrize("name", sorted(UFUNC_PAIRS))
def test_composite_ufuncs_equal_jax_at_0d_1d_2d(name: str) -> None:
    f, g = UFUNC_PAIRS[name]
    _hessian_vs_jax(
        f,
        g,
        np.array(0.7),
        np.linspace(-0.8, 1.1, 5),
        np.linspace(-0.9, 0.6, 6).reshape(2, 3),
        method="forward",  # named: the choice is codegen's (as above)
    )


def test_sinc_equals_jax_at_0d_1d_2d_and_at_zero(monkeypatch) -> None:
    """Off 0 and at 0 exactly (``sin(πx)/(πx)`` is 0/0 there, its second derivative
    ``−π²/3``) against JAX; beside 0 (the Maclaurin part, where JAX's ``sin(y)/y`` loses
    half its digits) against mpmath's; a 2-d argument of a broadcast difference."""
    f, g = _both(lambda m, x: m.sinc(x) * (1.0 + x) + m.sinc(0.5 * x**2) ** 2)
    _hessian_vs_jax(f, g, np.array(0.7), np.array([-0.8, 0.0, 0.45, 1.1, 2.0]),
                    np.linspace(-0.9, 0.7, 6).reshape(2, 3), method="markowitz")  # fmt: skip
    shifted = _both(lambda m, x: m.sinc(x[:, None] - m.arange(3.0)[None, :] + x[0]) @ x[:3])
    _hessian_vs_jax(*shifted, np.array([0.3, -1.2, 0.6, 2.0]), method="markowitz")
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    s = lambda t: mpmath.sin(mpmath.pi * t) / (mpmath.pi * t) if t else mpmath.mpf(1)  # noqa: E731
    near = np.array([1e-4, -3e-4, 2e-5])
    got = np.diag(dgraph.hessian(lambda x: np.sum(f(x)), near, method="markowitz")(near))
    want = [float(mpmath.diff(lambda t: s(t) * (1 + t) + s(t**2 / 2) ** 2, t, 2)) for t in near]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    from dgraph.frontends import array_tracer

    monkeypatch.setitem(array_tracer._FUNCTIONS, np.sinc, lambda x: np.sin(x) / x)  # no π
    with pytest.raises(InputError, match="read wrongly"):  # the value check at the point
        dgraph.hessian(lambda x: np.sum(np.sinc(x) ** 2), np.linspace(0.1, 1.1, 4))


def test_polynomial_polyval_equals_jax_in_each_import_form(monkeypatch) -> None:
    """``numpy.polynomial.polynomial.polyval(x, c)`` (lowest degree first) reached as
    ``np.polynomial.polynomial``, as a module alias and imported by name: traced
    coefficients, a traced argument, both, a 0-d argument, 2-d coefficients (``tensor``:
    one polynomial per column); JAX's ``polyval`` of the reversed coefficients. Main read
    it at the element level only (NumPy's converts ``c`` by ``np.array``): 16 s of CPU for
    25 coefficients, cubic in them."""
    t = np.linspace(-1.0, 1.0, 5)

    def body(x):
        c = x[:4]
        C = np.reshape(x[1:7], (3, 2))
        return (np.sum(np.polynomial.polynomial.polyval(t, c) ** 2)
                + np.sum(P.polyval(x, [0.5, -1.0, 2.0]) ** 3)
                + polyval(x[0], c) ** 2 + polyval(0.3, x[2:5])
                + np.sum(polyval(x[3:6], C) * np.arange(6.0).reshape(2, 3)))  # fmt: skip

    def reference(x):
        c = x[:4]
        C = jnp.reshape(x[1:7], (3, 2))
        rows = jnp.stack([jnp.polyval(C[::-1, j], x[3:6]) for j in range(2)])
        return (jnp.sum(jnp.polyval(c[::-1], t) ** 2)
                + jnp.sum(jnp.polyval(jnp.array([2.0, -1.0, 0.5]), x) ** 3)
                + jnp.polyval(c[::-1], x[0]) ** 2 + jnp.polyval(x[2:5][::-1], 0.3)
                + jnp.sum(rows * jnp.arange(6.0).reshape(2, 3)))  # fmt: skip

    _hessian_vs_jax(body, reference, np.linspace(-0.8, 1.1, 9), method="forward")
    from dgraph.frontends import numpy_composites

    right = numpy_composites.POLYNOMIAL["polyval"]
    monkeypatch.setitem(numpy_composites.POLYNOMIAL, "polyval", lambda x, c: right(x, c[::-1]))
    with pytest.raises(InputError, match="read wrongly"):  # highest degree first: caught
        dgraph.hessian(lambda x: np.sum(body(x)), np.linspace(-0.8, 1.1, 9), sparse=True)


def test_polyder_equals_jax_in_both_orders(monkeypatch) -> None:
    """``np.polyder(p)`` and ``np.polyder(p, 2)`` (highest degree first) and
    ``numpy.polynomial.polynomial.polyder(c, m, scl)`` (lowest first) of traced
    coefficients, evaluated by their ``polyval``; JAX's ``polyder`` judges. Main read them
    at the element level only (NumPy's converts ``p`` by ``np.asarray``): over 110 s of
    CPU for the Jacobian at 100 coefficients (benchmarks/real_programs11.py); now 1.5."""
    t = np.linspace(-1.0, 1.0, 5)

    def body(x):
        return (np.polyval(np.polyder(x), t) ** 2 + np.polyval(np.polyder(x, 2), t)
                + P.polyval(t, P.polyder(x, 2, scl=0.5)) * np.sin(t)
                + P.polyval(t, np.polynomial.polynomial.polyder(x[:2], 3)))  # fmt: skip

    def reference(x):
        return (jnp.polyval(jnp.polyder(x), t) ** 2 + jnp.polyval(jnp.polyder(x, 2), t)
                + jnp.polyval(jnp.polyder(x[::-1], 2) * 0.25, t) * jnp.sin(t))  # fmt: skip

    _hessian_vs_jax(body, reference, np.linspace(-0.8, 1.1, 7), method="forward")
    from dgraph.frontends import numpy_composites

    monkeypatch.setitem(numpy_composites.POLYNOMIAL, "polyder", lambda c, m=1, scl=1: c[1:])
    with pytest.raises(InputError, match="read wrongly"):  # the factors j left out: caught
        dgraph.hessian(lambda x: np.sum(body(x)), np.linspace(-0.8, 1.1, 7), sparse=True)


def test_svd_and_pinv_equal_jax(monkeypatch) -> None:
    """``np.linalg.pinv`` of a tall, a wide and a square matrix (through
    ``np.linalg.svd(full_matrices=False)``), ``np.linalg.svd``'s values alone and its
    triple where the signs of the vectors cancel (rank-one parts ``s₀·u₀·v₀ᵀ``); a pinv
    off by 1e-4 caught; a vector and ``full_matrices=True`` of a tall matrix one line.
    Main refused them ("numpy.linalg.pinv on an array that depends on the inputs")."""
    weights = np.arange(1.0, 13.0)
    base = np.eye(4, 3) * np.array([3.0, 2.0, 1.0]) + np.arange(12.0).reshape(4, 3) / 20

    def body(m, x):
        tall = m.reshape(0.3 * m.sin(x), (4, 3)) + base  # singular values about 3, 2, 1
        wide = m.transpose(tall) ** 2
        square = m.reshape(x[:9], (3, 3)) + 2 * m.eye(3)
        u, s, vt = m.linalg.svd(tall, full_matrices=False)
        return (m.sum(m.linalg.pinv(tall) * m.reshape(weights, (3, 4))) ** 2
                + m.sum(m.linalg.pinv(wide) ** 2)
                + m.sum(m.linalg.pinv(square) * m.reshape(x[:9], (3, 3)))
                + m.sum(m.linalg.svd(wide, compute_uv=False) ** 3)
                + m.sum(s[0] * m.outer(u[:, 0], vt[0]) * m.reshape(weights, (4, 3))))  # fmt: skip

    f, g = _both(body)
    x = np.linspace(-0.8, 1.1, 12)
    made = dgraph.hessian(f, x, method="forward")  # the choice's
    with jax.enable_x64(True):
        want = np.asarray(jref.forward_hessian(g)(jnp.asarray(x)))
    assert made.generated.expression_set.graph.is_tensor  # read at the array level
    assert made.generated.verified
    np.testing.assert_allclose(made(x), want, rtol=1e-9, atol=1e-10)
    from dgraph.frontends import array_tracer

    right = array_tracer._FUNCTIONS[np.linalg.pinv]
    monkeypatch.setitem(array_tracer._FUNCTIONS, np.linalg.pinv, lambda a: right(a) * 1.0001)
    with pytest.raises(InputError, match="read wrongly"):
        dgraph.hessian(lambda x: np.sum(np.linalg.pinv(np.reshape(x, (3, 2))) ** 2), x[:6])
    with pytest.raises(InputError, match=r"numpy.linalg.svd of shape \(4,\)"):
        from_function(lambda x: np.sum(np.linalg.svd(x)[1]), sizes=[(4,)], level="array")
    with pytest.raises(InputError, match=r"reduced \(full_matrices=False\)"):
        from_function(lambda x: np.sum(np.linalg.svd(np.reshape(x, (3, 2)))[0]), sizes=[(6,)],
                      level="array")  # fmt: skip


def test_heaviside_values_at_zero_and_nan() -> None:
    f = dgraph.make_function(lambda x: np.heaviside(x, 0.25) * x, "value_and_jacobian",
                             point=[np.array([-1.0, 0.5, 2.0])], method="forward")  # fmt: skip
    value, _ = f(np.array([-1.0, 0.0, np.nan]))
    np.testing.assert_array_equal(value, np.heaviside([-1.0, 0.0, np.nan], 0.25) * [-1, 0, np.nan])


def test_a_mutated_definition_is_caught(monkeypatch) -> None:
    from dgraph.frontends import numpy_composites

    monkeypatch.setitem(numpy_composites.UFUNCS, "deg2rad", lambda a: a * (np.pi / 360))
    f = UFUNC_PAIRS["deg2rad_rad2deg"][0]
    with pytest.raises(InputError, match="read wrongly"):  # the value check at the point
        dgraph.hessian(lambda x: np.sum(f(x)), np.linspace(-0.8, 1.1, 5), method="forward")


@pytest.mark.parametrize(
    "f, needle",
    [
        (lambda x: np.cross(np.reshape(x, (2, 2)), x[:3]), "two 3-vectors or two 2-vectors"),
        (lambda x: np.triu(x), "fewer than 2 axes"),
        (lambda x: np.average(x, weights=x, returned=True)[0], "returned=True"),
        (lambda x: np.polyder(x, 4), "order 4 of 4 coefficients leaves none"),
    ],
)
def test_what_they_do_not_cover_is_one_line(f, needle: str) -> None:
    """At the array level (the Hessian of a one-vector function may still be taken at
    the element level)."""
    with pytest.raises(InputError, match=needle):
        from_function(lambda x: np.sum(f(x)), sizes=[(4,)], level="array")


SERIES = [("chebyshev", "cheb"), ("legendre", "leg"), ("hermite", "herm"),
          ("hermite_e", "herme"), ("laguerre", "lag")]  # fmt: skip


def test_orthogonal_series_of_traced_coefficients_and_points() -> None:
    """``numpy.polynomial.<kind>.<prefix>val(x, c)`` and ``<prefix>der(c)`` of traced
    arrays, each kind (refused on main: "converting an array that depends on the
    inputs"): the values NumPy's to rounding (Clenshaw's recurrence as NumPy writes it),
    ∂/∂c NumPy's own Vandermonde matrix, ∂/∂x the series of ``<prefix>der(c)``, and the
    derivative's coefficients NumPy's."""
    kinds = [getattr(np.polynomial, kind) for kind, _ in SERIES]
    val, der, vander = (
        [getattr(m, f"{prefix}{what}") for m, (_, prefix) in zip(kinds, SERIES, strict=True)]
        for what in ("val", "der", "vander")
    )

    def f(c, x):
        parts = []
        for kind, prefix in SERIES:  # np.polynomial.<kind>: the tracer's module
            module = getattr(np.polynomial, kind)
            parts += [
                getattr(module, f"{prefix}val")(x, c),
                getattr(module, f"{prefix}der")(c, 2, 0.5),
            ]
        return np.concatenate(parts)

    c, x = np.array([0.4, -1.3, 0.8, 0.25, -0.6]), np.array([0.3, -0.2, 0.7])
    graph = from_function(f, sizes=[5, 3], level="array", point=[c, x])
    made = dgraph.make_function(graph, "value_and_jacobian", method="reverse")  # the choice's
    value, (dc, dx) = made(c, x)
    assert made.generated.verified
    for k in range(len(SERIES)):
        rows = slice(6 * k, 6 * k + 3), slice(6 * k + 3, 6 * k + 6)
        np.testing.assert_allclose(value[rows[0]], val[k](x, c), rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(value[rows[1]], der[k](c, 2, 0.5), rtol=1e-14, atol=1e-14)
        np.testing.assert_allclose(dc[rows[0]], vander[k](x, 4), rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(np.diag(dx[rows[0]]), val[k](x, der[k](c)), rtol=1e-13)
        np.testing.assert_allclose(dc[rows[1]], der[k](np.eye(5), 2, 0.5), atol=1e-14)


def test_orthogonal_series_in_each_import_form() -> None:
    """A series module imported (``from numpy.polynomial import chebyshev``) and a
    function imported from one (``from numpy.polynomial.legendre import legval``)."""

    def f(c, x):
        return chebyshev.chebval(x, c) * legval(x, c)

    c, x = np.array([0.4, -1.3, 0.8]), np.array([0.3, -0.2])
    graph = from_function(f, sizes=[3, 2], level="array", point=[c, x])
    made = dgraph.make_function(graph, method="reverse")  # the choice's
    dc, _ = made(c, x)
    a, b = chebyshev.chebval(x, c), legval(x, c)
    want = (
        chebyshev.chebvander(x, 2) * b[:, None]
        + np.polynomial.legendre.legvander(x, 2) * a[:, None]
    )
    np.testing.assert_allclose(dc, want, rtol=1e-13)
    assert made.generated.verified


def _written_in_place(x):
    x = np.require(np.asfortranarray(np.asarray_chkfinite(x)), float)  # conversions: x
    y = np.reshape(x, (3, 3)) * 1.0
    np.putmask(y, y > 0.5, y**2)
    np.put_along_axis(y, np.array([[0], [2], [1]]), x[:3, None] ** 3, axis=1)
    z = np.zeros(9)
    np.copyto(z, x**2, where=x < 0.3)
    np.place(z, z == 0, [0.25])
    return np.sum(y**2 * W) + np.sum(z * x)


def test_writes_in_place_against_differences() -> None:
    """``np.putmask``, ``np.put_along_axis``, ``np.copyto(where=)``, ``np.place`` at the
    array level, after ``np.asarray_chkfinite``, ``np.asfortranarray``, ``np.require``
    (refused before: "numpy.putmask on an array that depends on the inputs"):
    NumPy's values, the Jacobian central differences' of NumPy's own function."""
    x = np.linspace(-0.8, 1.1, 9)
    made = dgraph.make_function(
        from_function(_written_in_place, sizes=[9], level="array"),
        "value_and_jacobian",
        method="forward",  # the choice's
    )
    value, got = made(x)
    np.testing.assert_allclose(value, _written_in_place(x), rtol=1e-14)
    h = 1e-6
    want = [
        (_written_in_place(x + h * e) - _written_in_place(x - h * e)) / (2 * h) for e in np.eye(9)
    ]
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-8)
