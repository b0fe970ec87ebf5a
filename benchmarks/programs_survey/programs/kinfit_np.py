import numpy as np

INPUTS = "th:3,T:12,lk:12"
PARAMS = "T,lk"
R = 8.314


def f(th, T, lk):
    """Least squares of a modified Arrhenius law ln k = ln A + b ln T − Ea/(R T) against
    measured ln k, Ea in kJ/mol, with a weak prior on b."""
    lnA, b, Ea = th[0], th[1], th[2]
    pred = lnA + b * np.log(T) - Ea * 1e3 / (R * T)
    return 0.5 * np.sum((pred - lk) ** 2) + 0.5 * (b / 2.0) ** 2


def POINT(rng):
    T = np.linspace(600, 1500, 12)
    lk = 25.0 + 0.7 * np.log(T) - 80e3 / (8.314 * T) + 0.05 * rng.normal(size=12)
    return [np.array([24.0, 0.5, 75.0]), T, lk]
