"""scipy's filters and transforms that are affine in their data, read as scipy's own
matrix along the axis (:func:`dgraph.frontends.scipy_modules._affine_along`):
``scipy.signal``'s ``lfilter``, ``filtfilt``, ``sosfilt``, ``savgol_filter``,
``detrend``, ``resample``; ``scipy.ndimage``'s n-d ``gaussian_filter`` and
``uniform_filter``; ``scipy.fft`` (NumPy's transforms, ``dct``/``dst`` probed). Values
equal scipy's own; Jacobians equal central differences of scipy's own functions (exact
but for rounding: the maps are affine)."""

import numpy as np
import scipy.fft
import scipy.ndimage as nd
import scipy.signal as ss

import dgraph

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
