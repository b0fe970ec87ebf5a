import numpy as np

INPUTS = "x:20x2,EA:37"
PARAMS = "EA"
_top = [(i, i + 1) for i in range(9)]
_bot = [(10 + i, 11 + i) for i in range(9)]
_vert = [(i, 10 + i) for i in range(10)]
_diag = [(i, 11 + i) for i in range(9)]
BARS = np.array(_top + _bot + _vert + _diag)
X0 = np.array([[i, 1.0] for i in range(10)] + [[i, 0.0] for i in range(10)])
L0 = np.linalg.norm(X0[BARS[:, 1]] - X0[BARS[:, 0]], axis=1)


def f(x, EA):
    d = x[BARS[:, 1]] - x[BARS[:, 0]]
    L = np.linalg.norm(d, axis=1)
    strain = (L - L0) / L0
    load = np.sum(0.01 * x[:10, 1])
    return 0.5 * np.sum(EA * L0 * strain**2) + load


def POINT(rng):
    return [X0 + 0.02 * rng.normal(size=X0.shape), 1.0 + rng.uniform(size=37)]
