import numpy as np

INPUTS = "theta:3,t:12,y:12"
PARAMS = "t,y"


def residual(theta, t, y):
    a, b, c = theta[0], theta[1], theta[2]
    return a * np.exp(-b * t) + c - y


def jac(theta, t):
    a, b = theta[0], theta[1]
    e = np.exp(-b * t)
    return np.stack([e, -a * t * e, np.ones_like(t)], axis=1)


def f(theta, t, y, mu=1e-3):
    # one Levenberg-Marquardt step (a solve of J^T J + mu I), then the loss where it lands
    r = residual(theta, t, y)
    J = jac(theta, t)
    step = np.linalg.solve(J.T @ J + mu * np.eye(3), J.T @ r)
    return 0.5 * np.sum(residual(theta - step, t, y) ** 2)


def POINT(rng):
    t = np.linspace(0.0, 3.0, 12)
    y = 2.0 * np.exp(-1.3 * t) + 0.5 + 0.01 * rng.normal(size=12)
    return [np.array([1.5, 1.0, 0.3]) + 0.05 * rng.normal(size=3), t, y]
