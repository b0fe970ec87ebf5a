import numpy as np

INPUTS = "x:10x2,m:10"
PARAMS = "m"
H = 0.5
RHO0 = 1000.0


def w_cubic(r, h=H):
    # Monaghan's cubic spline kernel in 2-D, support 2h
    q = r / h
    s = 10.0 / (7.0 * np.pi * h**2)
    return s * np.where(
        q < 1.0,
        1 - 1.5 * q**2 + 0.75 * q**3,
        np.where(q < 2.0, 0.25 * (2 - q) ** 3, 0.0),
    )


def f(x, m):
    # SPH density summation and a Tait equation of state
    d = x[:, None, :] - x[None, :, :]
    r = np.sqrt(np.sum(d**2, axis=-1) + 1e-12)
    rho = np.sum(m[None, :] * w_cubic(r), axis=1)
    p = 50.0 * ((rho / RHO0) ** 7 - 1.0)
    return rho, p


def POINT(rng):
    x = rng.uniform(0, 1.2, size=(10, 2))
    x[1] = x[0] + np.array([0.5, 0.0])  # exactly q = 1 (up to the 1e-12)
    x[2] = x[0] + np.array([0.0, 1.0])  # exactly at the support radius
    return [x, np.full(10, 400.0)]
