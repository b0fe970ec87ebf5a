"""``np.pad`` of a traced array wider than the axis (NumPy reflects or wraps again and
again), and so ``scipy.signal.convolve2d`` / ``correlate2d`` with ``boundary`` ``wrap`` or
``symm`` of a kernel longer than the image (was refused by ``np.pad``'s line): both
linear, so each Jacobian column is NumPy's or scipy's own value at a unit vector."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal

import dgraph


def _jacobian(f, point):
    es = dgraph.jacobian(f, point=point)
    assert es.verified
    flat = np.concatenate([np.ravel(p) for p in point])
    return np.asarray(es.evaluate(flat), dtype=float)


def _units(shape):
    return [e.reshape(shape) for e in np.eye(int(np.prod(shape)))]


@pytest.mark.parametrize("mode", ["reflect", "symmetric", "wrap"])
def test_a_pad_wider_than_the_axis_is_numpys(mode):
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    width = ((5, 0), (1, 7))
    found = _jacobian(lambda u: np.pad(u, width, mode=mode), [x])
    expected = np.stack([np.ravel(np.pad(e, width, mode=mode)) for e in _units((2, 3))], 1)
    np.testing.assert_array_equal(found, expected)


@pytest.mark.parametrize("boundary", ["wrap", "symm"])
def test_convolve2d_of_a_kernel_longer_than_the_image_is_scipys(boundary):
    """Kernel (5, 2) on a (2, 3) image, a full convolution and a same correlation, image
    and kernel traced: the columns are scipy's values at unit images and kernels."""
    rng = np.random.default_rng(8)
    img, ker = rng.normal(size=(2, 3)), rng.normal(size=(5, 2))
    for g, mode in ((scipy.signal.convolve2d, "full"), (scipy.signal.correlate2d, "same")):

        def f(u, k, g=g, mode=mode):
            return g(u, k, mode, boundary=boundary)

        columns = [f(e, ker) for e in _units(img.shape)]
        columns += [f(img, e) for e in _units(ker.shape)]
        expected = np.stack([np.ravel(c) for c in columns], 1)
        np.testing.assert_allclose(_jacobian(f, [img, ker]), expected, rtol=0, atol=1e-14)
