"""scipy.interpolate's splines made outside a function, at queries from the inputs
(:mod:`dgraph.frontends.scipy_splines`): values equal scipy's own calls, Jacobians equal
scipy's own derivatives (``spl(x, 1)``, the segment's slope), the generated code
verified; kinds not read are refused in one line."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.interpolate import (
    Akima1DInterpolator,
    CubicSpline,
    PchipInterpolator,
    PPoly,
    UnivariateSpline,
    interp1d,
    make_interp_spline,
)

import dgraph
from dgraph.errors import DGraphError

XK = np.linspace(0.0, 2.0, 7)
YK = np.sin(2 * XK) + XK
SPLINE = CubicSpline(XK, YK)
CLAMPED = make_interp_spline(XK, YK, k=3, bc_type="natural")
YP = np.cos(np.pi * XK)
PERIODIC = make_interp_spline(XK, YP, k=3, bc_type="periodic")
LINEAR = interp1d(XK, YK, bounds_error=False, fill_value=(-1.0, 5.0))
CUBIC = interp1d(XK, YK, kind="cubic", fill_value="extrapolate")
PCHIP = PchipInterpolator(XK, YK)
BOUNDED = PchipInterpolator(XK, YK, extrapolate=False)  # NaN outside [0, 2]
VALUES = CubicSpline(XK, np.stack([YK, YK**2]), axis=1)  # values (2, 7): axis 1
SMOOTHED = UnivariateSpline(XK, YK, s=0.01, ext=3)  # FITPACK's, its end values outside
# away from the knots (the derivatives jump there) and the linear table's ends (its fill)
X = np.array([-0.3, 0.1, 0.45, 0.9, 1.7, 1.95, 2.4])


def f(x):
    return (
        SPLINE(x) ** 2
        + SPLINE(x, 1)
        + SPLINE.derivative(2)(x) * x
        + CLAMPED(x)
        + PERIODIC(x)
        + LINEAR(x) * CUBIC(x)
        + PCHIP(x)
        + VALUES(x)[1]
    )


def slope_of_linear(x):
    """interp1d's linear segment's slope (the one on the left at a knot), 0 outside."""
    i = np.clip(np.searchsorted(XK, x) - 1, 0, len(XK) - 2)
    inside = (x >= XK[0]) & (x <= XK[-1])
    return np.where(inside, np.diff(YK)[i] / np.diff(XK)[i], 0.0)


def derivative(x):
    """f' from scipy's own derivatives of each spline."""
    d = SPLINE(x, 1)
    return (
        2 * SPLINE(x) * d
        + SPLINE(x, 2)
        + SPLINE(x, 3) * x
        + SPLINE(x, 2)
        + CLAMPED(x, 1)
        + PERIODIC(x, 1)
        + slope_of_linear(x) * CUBIC(x)
        + LINEAR(x) * make_interp_spline(XK, YK, k=3)(x, 1)  # interp1d's cubic
        + PCHIP(x, 1)
        + VALUES(x, 1)[1]
    )


def test_splines_made_outside_the_function_at_queries_from_the_inputs():
    made = dgraph.make_function(f, "value_and_jacobian", sizes=[X.size], point=[X])
    value, jacobian = made(X)
    np.testing.assert_allclose(value, f(X), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(jacobian, np.diag(derivative(X)), rtol=1e-12, atol=1e-12)
    assert made.generated.verified
    other = np.array([0.2, 0.7, 1.1, 1.5, 1.8, 2.1, -0.1])  # the same code elsewhere
    np.testing.assert_allclose(made(other)[1], np.diag(derivative(other)), rtol=1e-12, atol=1e-12)


def test_a_spline_that_does_not_extrapolate_is_nan_outside_as_scipy_s():
    inside = np.clip(X, 0.05, 1.95)
    made = dgraph.make_function(
        lambda x: BOUNDED(x) * x, "value_and_jacobian", sizes=[X.size], point=[inside]
    )
    value, jacobian = made(X)
    np.testing.assert_allclose(value, BOUNDED(X) * X, rtol=1e-14, equal_nan=True)
    assert np.isnan(value[[0, -1]]).all() and np.isnan(jacobian[[0, -1], [0, -1]]).all()
    assert made.generated.verified


def test_integrals_to_bounds_fitpack_s_splines_and_splines_made_inside():
    def g(x):
        made_inside = Akima1DInterpolator(XK, YK)  # of constants, inside the function
        return np.stack([SPLINE.integrate(0.0, x[0]), SMOOTHED(x[1]), made_inside(x[2])])

    x = np.array([1.3, 2.4, 0.7])  # 2.4: beyond SMOOTHED's knots, where it is constant
    made = dgraph.make_function(g, "value_and_jacobian", sizes=[3], point=[x])
    value, jacobian = made(x)
    np.testing.assert_allclose(value, g(x), rtol=1e-13)
    want = [SPLINE(x[0]), 0.0, Akima1DInterpolator(XK, YK)(x[2], 1)]
    np.testing.assert_allclose(jacobian, np.diag(want), atol=1e-12)
    assert made.generated.verified


@pytest.mark.parametrize(
    ("spline", "message"),
    [
        (interp1d(XK, YK, kind="nearest"), "interp1d of kind 'nearest' at queries that depend"),
        (PPoly(SPLINE.c, XK[::-1]), "decreasing breakpoints at queries that depend on the"),
    ],
)
def test_what_is_not_read_is_refused_in_one_line(spline, message):
    with pytest.raises(DGraphError) as e:
        dgraph.make_function(lambda x: spline(x) * x, sizes=[3], point=[X[:3]])
    assert message in str(e.value) and "\n" not in str(e.value)


def test_a_refused_integral_names_the_spline_not_sympy_s_route():
    """``.integrate(`` is also a sympy method's name, so sympy's route reads ``f`` first;
    it fails calling ``f`` with symbols, and the refusal named is the spline's."""
    with pytest.raises(DGraphError) as e:
        dgraph.make_function(lambda x: PERIODIC.integrate(0.0, x[0]), sizes=[2], point=[X[:2]])
    message = str(e.value)
    assert "BSpline.integrate with bounds that depend on the inputs" in message
    assert "extrapolate='periodic'" in message and "symbols" not in message


def test_integrals_of_splines_that_do_not_extrapolate_follow_scipy_s_rules():
    """Beyond the breaks a ``PPoly``'s integral is NaN, a ``BSpline``'s bounds are
    clipped to its base interval (derivative 0 there)."""
    clipped = make_interp_spline(XK, YP, k=3)
    clipped.extrapolate = False

    def g(x):
        return np.stack([BOUNDED.integrate(0.0, x[0]), clipped.integrate(x[1], 0.5)])

    inside, outside = np.array([1.3, 0.2]), np.array([2.5, -0.4])
    made = dgraph.make_function(g, "value_and_jacobian", sizes=[2], point=[inside])
    value, jacobian = made(inside)
    np.testing.assert_allclose(value, g(inside), rtol=1e-13)
    np.testing.assert_allclose(jacobian, np.diag([BOUNDED(1.3), -clipped(0.2)]), atol=1e-12)
    value, jacobian = made(outside)
    np.testing.assert_allclose(value, g(outside), rtol=1e-13, equal_nan=True)
    assert np.isnan(value[0]) and jacobian[1, 1] == 0.0
    assert made.generated.verified
