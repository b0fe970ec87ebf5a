import numpy as np

INPUTS = "X:21x2,U:20"
H = 0.05


def rhs(x, u):
    return np.stack([x[:, 1], -9.81 * np.sin(x[:, 0]) - 0.1 * x[:, 1] + u], axis=1)


def f(X, U):
    x = X[:-1]
    for _ in range(2):  # two RK4 substeps per shooting interval
        k1 = rhs(x, U)
        k2 = rhs(x + 0.5 * H * k1, U)
        k3 = rhs(x + 0.5 * H * k2, U)
        k4 = rhs(x + H * k3, U)
        x = x + H / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return (X[1:] - x).ravel()
