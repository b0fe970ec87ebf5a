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
