import numpy as np

INPUTS = "c:4,a:3,b:3,p:2,x:10"
PARAMS = "x"


def f(c, a, b, p, x):
    fit = np.vander(x, 4) @ c  # a cubic at the data's abscissae
    normal = np.cross(a, b)
    r = np.hypot(p[0], p[1])
    ang = np.mod(np.arctan2(p[1], p[0]), 2 * np.pi)  # in [0, 2 pi)
    moments = np.vander(a, 3, increasing=True).ravel()
    return np.concatenate([fit, normal, [r, ang], moments])


def POINT(rng):
    return [rng.normal(size=4), np.array([1.0, 0.5, 2.0]), np.array([2.0, 1.0, 4.0]),
            np.array([-1.0, 0.0]), np.linspace(-1, 1, 10)]  # fmt: skip  # parallel a, b; angle pi
