import numpy as np

INPUTS = "p:3,K:21,F"
PARAMS = "K,F"
BETA = 0.5
T = 2.0


def f(p, K, F):
    alpha, rho, nu = p[0], p[1], p[2]
    fk = F * K
    lfk = np.log(F / K)
    fkb = fk ** ((1 - BETA) / 2)
    z = nu / alpha * fkb * lfk
    xz = np.log((np.sqrt(1 - 2 * rho * z + z**2) + z - rho) / (1 - rho))
    zx = np.where(np.abs(z) < 1e-12, 1.0, z / np.where(np.abs(z) < 1e-12, 1.0, xz))
    den = fkb * (1 + (1 - BETA) ** 2 / 24 * lfk**2 + (1 - BETA) ** 4 / 1920 * lfk**4)
    corr = 1 + ((1 - BETA) ** 2 / 24 * alpha**2 / fkb**2 + rho * BETA * nu * alpha / (4 * fkb)
                + (2 - 3 * rho**2) / 24 * nu**2) * T  # fmt: skip
    return alpha / den * zx * corr


def POINT(rng):
    K = np.linspace(0.02, 0.06, 21)  # K[10] == F: the at-the-money strike, z == 0
    return [np.array([0.04, -0.3, 0.5]), K, np.array(0.04)]
