import numpy as np

INPUTS = "u:17,lam:"


def cheb(N):
    """Trefethen's Chebyshev differentiation matrix on N + 1 points."""
    x = np.cos(np.pi * np.arange(N + 1) / N)
    c = np.hstack([2.0, np.ones(N - 1), 2.0]) * (-1.0) ** np.arange(N + 1)
    X = np.tile(x, (N + 1, 1)).T
    D = np.outer(c, 1.0 / c) / (X - X.T + np.eye(N + 1))
    return D - np.diag(np.sum(D, axis=1)), x


def f(u, lam):
    D, _ = cheb(16)
    r = D @ (D @ u) + lam * np.exp(u)  # Bratu: u'' + lam e^u = 0
    return np.concatenate([u[:1], r[1:-1], u[-1:]])


def POINT(rng):
    x = np.cos(np.pi * np.arange(17) / 16)
    return [0.3 * (1 - x**2), np.array(1.0)]
