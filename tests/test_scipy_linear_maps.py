"""scipy's filters and transforms that are affine in their data, read as scipy's own
matrix along the axis (:func:`dgraph.frontends.scipy_modules._affine_along`):
``scipy.signal``'s ``lfilter``, ``filtfilt``, ``sosfilt``, ``savgol_filter``,
``detrend``, ``resample``; ``scipy.ndimage``'s n-d ``gaussian_filter`` and
``uniform_filter``; ``scipy.fft`` (NumPy's transforms, ``dct``/``dst`` probed). Values
equal scipy's own; Jacobians equal central differences of scipy's own functions (exact
but for rounding: the maps are affine)."""

import numpy as np
import pytest
import scipy.fft
import scipy.ndimage as nd
import scipy.signal as ss

import dgraph
from dgraph.errors import InputError

X = np.array([0.3, 1.2, 0.7, 2.0, 0.9, 1.6, -0.4, 0.8, 1.1, 0.2, 0.5, 1.9])
SOS = np.array([[0.2, 0.3, 0.0, 1.0, -0.5, 0.0], [1.0, 0.1, 0.2, 1.0, 0.3, 0.1]])


def filtered(x):
    image = np.reshape(x, (3, 4))
    return np.concatenate(
        [
            ss.lfilter([0.2, 0.3], [1.0, -0.5], x),
            ss.filtfilt([0.2, 0.3], [1.0, -0.5], x, padlen=3),
            ss.sosfilt(SOS, x),
            ss.savgol_filter(x, 5, 2, deriv=1, mode="nearest"),
            np.ravel(ss.detrend(image, axis=1)),
            ss.resample(x, 8),
            np.ravel(nd.gaussian_filter(image, (0.8, 1.3), mode="constant", cval=0.5)),
            np.ravel(nd.uniform_filter(image, 3, mode="wrap")),
            np.abs(scipy.fft.rfft(x)) ** 2,
            scipy.fft.dct(x, norm="ortho"),
            scipy.fft.idst(image, type=1, axis=0).ravel(),
        ]
    )


def test_filters_and_transforms_equal_scipys_own():
    made = dgraph.make_function(filtered, "value_and_jacobian", point=[X])
    value, jacobian = made(X)
    np.testing.assert_allclose(value, filtered(X), rtol=1e-12, atol=1e-13)
    h = 1e-6
    columns = [(filtered(X + h * e) - filtered(X - h * e)) / (2 * h) for e in np.eye(X.size)]
    np.testing.assert_allclose(jacobian, np.transpose(columns), rtol=1e-7, atol=1e-7)
    assert made.generated.verified


KNOTS = np.linspace(0.0, 1.0, 6)
QUERIES = np.array([0.15, 0.5, 0.77, 1.1])


def interpolated(y):
    import scipy.interpolate as si

    spline = si.CubicSpline(KNOTS, y, bc_type="natural")
    table = np.stack([y, y**2], axis=1)  # a 2-column table along its first axis
    t = np.r_[0.0, 0.0, 0.0, np.linspace(0.0, 1.0, 4), 1.0, 1.0, 1.0]
    return np.concatenate(
        [
            spline(QUERIES),
            spline.derivative()(QUERIES[:2]),
            np.reshape(spline.integrate(0.1, 0.9), (1,)),
            si.interp1d(KNOTS, y, kind="cubic")(QUERIES[:3]),
            np.ravel(si.make_interp_spline(KNOTS, table, k=3)(QUERIES[:2])),
            si.BSpline(t, y, 3)(QUERIES[:3]),
        ]
    )


def test_interpolants_of_data_from_the_inputs_equal_scipys_own():
    y = np.array([0.3, 1.2, 0.7, 2.0, 0.9, 1.6])
    made = dgraph.make_function(interpolated, "value_and_jacobian", point=[y])
    value, jacobian = made(y)
    np.testing.assert_allclose(value, interpolated(y), rtol=1e-12, atol=1e-13)
    h = 1e-6
    columns = [(interpolated(y + h * e) - interpolated(y - h * e)) / (2 * h) for e in np.eye(6)]
    np.testing.assert_allclose(jacobian, np.transpose(columns), rtol=1e-7, atol=1e-7)
    assert made.generated.verified


def test_an_interpolant_not_linear_in_its_data_is_refused_in_one_line():
    import scipy.interpolate as si

    y = np.linspace(0.5, 2.0, 30)  # past the element level
    grid = np.linspace(0.0, 1.0, 30)
    with pytest.raises(InputError, match="PchipInterpolator is not linear in data") as e:
        dgraph.make_function(lambda v: np.sum(si.PchipInterpolator(grid, v)(QUERIES)), point=[y])
    assert "\n" not in str(e.value)


W33 = np.array([[0.1, -0.4, 0.2], [0.5, 1.0, -0.3], [0.0, 0.25, 0.7]])
W23 = np.array([[1.0, -2.0, 0.5], [0.3, 0.0, -1.1]])


def filtered_nd(x):
    """survey61: ndimage's n-d correlate and convolve (every mode, even weights, origins),
    sobel, prewitt and laplace."""
    image = np.reshape(x, (3, 4))
    return np.concatenate(
        [
            np.ravel(nd.correlate(image, W33)),  # mode "reflect"
            np.ravel(nd.correlate(image, W33, mode="wrap")),
            np.ravel(nd.convolve(image, W33, mode="constant", cval=-1.0)),
            np.ravel(nd.convolve(image, W23, mode="nearest", origin=(0, -1))),
            np.ravel(nd.correlate(image, W23, mode="mirror", origin=(-1, 1))),
            np.ravel(nd.sobel(image, axis=0)),
            np.ravel(nd.prewitt(image, 1, mode=["wrap", "constant"], cval=0.2)),
            np.ravel(nd.laplace(image, mode="nearest")),
        ]
    )


def test_ndimage_nd_filters_equal_scipys_own():
    made = dgraph.make_function(filtered_nd, "value_and_jacobian", point=[X])
    value, jacobian = made(X)
    np.testing.assert_allclose(value, filtered_nd(X), rtol=1e-12, atol=1e-13)
    exact = np.transpose([filtered_nd(e) - filtered_nd(0 * e) for e in np.eye(X.size)])
    np.testing.assert_allclose(jacobian, exact, rtol=1e-12, atol=1e-12)  # affine maps
    assert made.generated.verified


@pytest.mark.parametrize(
    "call, named",
    [
        (lambda u: nd.map_coordinates(u, [u[0] * 0 + 0.5, u[1]], order=1), "map_coordinates"),
        (lambda u: nd.median_filter(u, 3), "median_filter"),
    ],
)
def test_ndimage_resampling_and_rank_filters_refused_naming_them(call, named):
    image = np.reshape(X, (3, 4))
    with pytest.raises(InputError, match=f"scipy.ndimage.{named} of an array that depends") as e:
        dgraph.make_function(lambda x: np.ravel(call(np.reshape(x, (3, 4)))), point=[image.ravel()])
    assert "\n" not in str(e.value)
