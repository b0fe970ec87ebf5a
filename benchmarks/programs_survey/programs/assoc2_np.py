import numpy as np

INPUTS = "a:24,b:24,u:24"


def f(a, b, u):
    # a second-order linear recurrence y_t = a_t y_{t-1} + b_t y_{t-2} + u_t
    y1, y2, out = 0.0, 0.0, []
    for t in range(a.shape[0]):
        y = a[t] * y1 + b[t] * y2 + u[t]
        y1, y2 = y, y1
        out.append(y)
    ys = np.stack(out)
    return np.sum(ys**2) / a.shape[0]


def POINT(rng):
    return [0.5 + 0.1 * rng.normal(size=24), -0.3 + 0.1 * rng.normal(size=24),
            rng.normal(size=24)]  # fmt: skip
