import numpy as np

INPUTS = "beta:2,log_tau:,log_sigma:,X:24x2,y:24,g:24"
PARAMS = "X,y,g"


def f(beta, log_tau, log_sigma, X, y, g, n_groups=5):
    # random-intercept model y = X beta + u_g + e, u_g integrated out group by group
    tau2, s2 = np.exp(2 * log_tau), np.exp(2 * log_sigma)
    gi = g.astype(int)
    r = y - X @ beta
    n_j = np.bincount(gi, minlength=n_groups)
    sum_r = np.bincount(gi, weights=r, minlength=n_groups)
    sum_r2 = np.bincount(gi, weights=r**2, minlength=n_groups)
    # Sherman-Morrison for each group's covariance s2 I + tau2 11^T
    quad = (sum_r2 - tau2 * sum_r**2 / (s2 + n_j * tau2)) / s2
    logdet = (n_j - 1) * np.log(s2) + np.log(s2 + n_j * tau2)
    return 0.5 * np.sum(quad + logdet) + 0.5 * y.size * np.log(2 * np.pi)


def POINT(rng):
    g = np.repeat(np.arange(5), [6, 5, 5, 4, 4]).astype(float)
    X = np.column_stack([np.ones(24), rng.normal(size=24)])
    y = X @ np.array([1.0, 0.5]) + rng.normal(size=5)[g.astype(int)] + 0.3 * rng.normal(size=24)
    return [np.array([0.8, 0.4]), np.array(-0.2), np.array(-1.0), X, y, g]
