import numpy as np

INPUTS = "x:4,tobs:12,obs:12"
PARAMS = "tobs,obs"


def f(x, tobs, obs):
    """Fitting a planar orbit (period P, e, ω, M0) to observed true anomalies (an
    astrometric fit's objective): Kepler solved by 10 Newton steps, wrapped angle
    residuals by arctan2 of sin/cos."""
    P, e, w, M0 = x[0], x[1], x[2], x[3]
    M = M0 + 2 * np.pi * tobs / P
    E = M + e * np.sin(M)
    for _ in range(10):
        E = E - (E - e * np.sin(E) - M) / (1 - e * np.cos(E))
    nu = 2 * np.arctan2(np.sqrt(1 + e) * np.sin(E / 2), np.sqrt(1 - e) * np.cos(E / 2))
    d = nu + w - obs
    res = np.arctan2(np.sin(d), np.cos(d))
    return 0.5 * np.sum(res**2)


def POINT(rng):
    tobs = np.sort(rng.uniform(0, 30, 12))
    return [np.array([11.0, 0.3, 0.4, 1.0]), tobs, rng.uniform(-np.pi, np.pi, 12)]
