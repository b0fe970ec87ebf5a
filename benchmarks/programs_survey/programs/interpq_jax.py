import jax.numpy as jnp
import numpy as np
from scipy.interpolate import CubicSpline

XK = np.linspace(0.0, 4.0, 9)
SPL = CubicSpline(XK, np.sin(XK) + 0.1 * XK**2)
C = jnp.asarray(SPL.c)
XJ = jnp.asarray(XK)


def _spl(x, nu=0):
    i = jnp.clip(jnp.searchsorted(XK, x, side="right") - 1, 0, len(XK) - 2)
    t = x - XJ[i]
    c = C[:, i]
    if nu == 0:
        return ((c[0] * t + c[1]) * t + c[2]) * t + c[3]
    return (3 * c[0] * t + 2 * c[1]) * t + c[2]


def f(x):
    lin = jnp.interp(x, XK, np.cos(XK))
    return jnp.sum(lin**2) + jnp.sum(_spl(x) ** 2) + jnp.sum(_spl(x, 1))
