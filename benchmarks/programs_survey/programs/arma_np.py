import numpy as np

INPUTS = "th:3,y:400"
PARAMS = "y"


def f(th, y):
    phi, theta, ls = th[0], th[1], th[2]
    e = [y[0]]
    for t in range(1, 400):
        e.append(y[t] - phi * y[t - 1] - theta * e[-1])
    e = np.stack(e)
    s2 = np.exp(2 * ls)
    return 0.5 * np.sum(e**2) / s2 + 400 * ls + 200 * np.log(2 * np.pi)


def POINT(rng):
    return [np.array([0.5, 0.3, 0.0]), rng.normal(size=400)]
