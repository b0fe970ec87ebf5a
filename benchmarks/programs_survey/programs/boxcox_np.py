import numpy as np
from scipy.special import boxcox

INPUTS = "lam:,b:2,x:30,y:30"
PARAMS = "x,y"


def f(lam, b, x, y):
    # Box-Cox regression (Box & Cox 1964): the profile log-likelihood of lam with the
    # Jacobian term (lam - 1) sum log y, the residual variance concentrated out
    z = boxcox(y, lam)
    r = z - b[0] - b[1] * x
    n = y.size
    return 0.5 * n * np.log(np.mean(r**2)) - (lam - 1.0) * np.sum(np.log(y))


def POINT(rng):
    x = np.linspace(0, 2, 30)
    y = np.exp(0.5 + 0.8 * x + 0.1 * rng.normal(size=30))
    return [np.array(0.0), np.array([0.5, 0.8]), x, y]  # lam exactly 0: the log branch
