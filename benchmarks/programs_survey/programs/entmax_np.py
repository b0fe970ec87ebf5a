import numpy as np

INPUTS = "z:3x5,y:3"
PARAMS = "y"


def entmax15(z):
    # Peters, Niculae & Martins (2019): exact 1.5-entmax by sorting
    z = z / 2
    zs = -np.sort(-z, axis=-1)
    n = z.shape[-1]
    rho = np.arange(1, n + 1)
    mean = np.cumsum(zs, axis=-1) / rho
    mean_sq = np.cumsum(zs**2, axis=-1) / rho
    ss = rho * (mean_sq - mean**2)
    delta = (1 - ss) / rho
    delta_nz = np.clip(delta, 0, None)
    tau = mean - np.sqrt(delta_nz)
    support = np.sum(tau <= zs, axis=-1, keepdims=True)
    tau_star = np.take_along_axis(tau, support - 1, axis=-1)
    return np.clip(z - tau_star, 0, None) ** 2


def f(z, y):
    p = entmax15(z)
    onehot = np.arange(z.shape[1]) == y[:, None].astype(int)
    # the entmax loss's gradient is p - onehot; here its squared error to the target
    return np.sum((p - onehot) ** 2)


def POINT(rng):
    z = rng.normal(size=(3, 5))
    z[1] = [1.0, 1.0, 0.0, -2.0, 0.5]
    return [z, np.array([0.0, 1.0, 4.0])]
