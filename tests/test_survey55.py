"""Defects found by survey55's held-out-style programs (benchmarks/programs_survey/,
``NAMES55``), one small test each, against closed forms."""

import numpy as np

import dgraph


def test_numpy_float_types_of_a_traced_scalar():
    # was refused ("converting an array that depends on the inputs to a NumPy array or a
    # number"): np.float64(loss) ends an objective as float(loss) does (float() was read);
    # the float types stay NumPy's as dtypes and in isinstance
    def f(x):
        buf = np.zeros(3, dtype=np.float32)
        buf[0] = x[0]
        assert isinstance(np.float64(2.0), np.float64)
        return np.float64(np.sum(x**2)) + np.float32(x[1:2] ** 3) + np.sum(buf * x)

    x = np.array([0.3, -1.2, 0.7])
    G = dgraph.make_function(f, "jacobian", point=[x])
    assert G.generated.verified
    want = 2 * x + np.array([2 * x[0], 3 * x[1] ** 2, 0.0])
    np.testing.assert_allclose(np.ravel(G(x)), want, rtol=1e-14)


def test_hessian_of_an_even_power_of_abs_at_zero():
    # was 0 where a residual is exactly 0 (|u|'s rule sign(0) = 0 differentiated again;
    # not verified): a Huber / smooth-L1 loss 0.5 |r|**2 and |r|**4 are smooth there, their
    # second derivatives 1 and 0; now |u|**(2k) is read as u**(2k)
    def huber(r, delta=1.0):
        a = np.abs(r)
        quadratic = 0.5 * a**2 + np.square(np.abs(r)) * 0.25
        return np.sum(np.where(a <= delta, quadratic, delta * (a - 0.5 * delta)) + a**4)

    r = np.array([0.0, 0.3, -2.0])
    H = dgraph.hessian(huber, r)
    assert H.generated.verified
    want = np.where(np.abs(r) <= 1.0, 1.5, 0.0) + 12 * r**2
    np.testing.assert_allclose(np.asarray(H(r)), np.diag(want), rtol=1e-13, atol=1e-13)
