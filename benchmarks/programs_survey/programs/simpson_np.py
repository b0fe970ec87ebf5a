import numpy as np
from scipy.integrate import simpson

INPUTS = "c:3,t:9"


def f(c, t):
    # a damped oscillation's energy integrated on a moving (traced) grid
    y = c[0] * np.exp(-c[1] * t) * np.cos(c[2] * t)
    e_trap = np.trapezoid(y**2, t)
    e_simp = simpson(y**2, x=t)
    mean = np.trapezoid(y, dx=0.25)  # uniform spacing given as dx
    return e_trap, e_simp, mean


def POINT(rng):
    return [
        np.array([1.0, 0.3, 2.0]),
        np.linspace(0.0, 2.0, 9) + np.r_[0, 0.02 * rng.normal(size=7), 0],
    ]
