import numpy as np
from scipy.interpolate import CubicSpline

INPUTS = "x:20"
XK = np.linspace(0.0, 4.0, 9)
SPL = CubicSpline(XK, np.sin(XK) + 0.1 * XK**2)


def f(x):
    # a tabulated potential (linear) and a fitted one (cubic spline) at positions x
    lin = np.interp(x, XK, np.cos(XK))
    return np.sum(lin**2) + np.sum(SPL(x) ** 2) + np.sum(SPL(x, 1))


def POINT(rng):
    x = rng.uniform(0.2, 3.8, size=20)
    x[0] = XK[3]  # on a knot
    return [x]
