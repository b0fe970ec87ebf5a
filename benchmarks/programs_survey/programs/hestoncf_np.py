import numpy as np

INPUTS = "th:5,K:9"
PARAMS = "K"
S0, RATE, TAU = 100.0, 0.02, 1.0
U, W = np.polynomial.legendre.leggauss(64)
UMAX = 120.0
NODES = 0.5 * UMAX * (U + 1.0)
WEIGHTS = 0.5 * UMAX * W


def cf(u, kappa, theta, sigma, rho, v0):
    """Heston's characteristic function of ln S_T (Albrecher et al.'s "little trap")."""
    iu = 1j * u
    d = np.sqrt((rho * sigma * iu - kappa) ** 2 + sigma**2 * (iu + u**2))
    g = (kappa - rho * sigma * iu - d) / (kappa - rho * sigma * iu + d)
    e = np.exp(-d * TAU)
    C = RATE * iu * TAU + kappa * theta / sigma**2 * (
        (kappa - rho * sigma * iu - d) * TAU - 2.0 * np.log((1 - g * e) / (1 - g))
    )
    D = (kappa - rho * sigma * iu - d) / sigma**2 * (1 - e) / (1 - g * e)
    return np.exp(C + D * v0 + iu * np.log(S0))


def f(th, K):
    """European calls by the Heston model's Gil-Pelaez integrals, 64 Gauss-Legendre nodes."""
    kappa, theta, sigma, rho, v0 = th[0], th[1], th[2], th[3], th[4]
    u = NODES
    lk = np.log(K)[:, None]
    phi = cf(u, kappa, theta, sigma, rho, v0)
    phi1 = cf(u - 1j, kappa, theta, sigma, rho, v0) / (S0 * np.exp(RATE * TAU))
    i1 = np.real(np.exp(-1j * u * lk) * phi1 / (1j * u))
    i2 = np.real(np.exp(-1j * u * lk) * phi / (1j * u))
    P1 = 0.5 + (i1 @ WEIGHTS) / np.pi
    P2 = 0.5 + (i2 @ WEIGHTS) / np.pi
    return S0 * P1 - K * np.exp(-RATE * TAU) * P2


def POINT(rng):
    return [np.array([1.5, 0.04, 0.5, -0.6, 0.04]), np.linspace(80.0, 120.0, 9)]
