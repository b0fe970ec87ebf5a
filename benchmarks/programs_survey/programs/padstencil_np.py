import numpy as np

INPUTS = "u:16"


def f(u, h=0.1):
    ur = np.pad(u, 2, mode="reflect")
    lap4 = (-ur[:-4] + 16 * ur[1:-3] - 30 * ur[2:-2] + 16 * ur[3:-1] - ur[4:]) / (12 * h**2)
    ue = np.pad(u, 1, mode="edge")
    adv = (ue[2:] - ue[:-2]) / (2 * h)
    uw = np.pad(u, (1, 2), mode="wrap")
    d2 = np.diff(u, n=2, prepend=u[0], append=u[-1])
    d1 = np.diff(uw, prepend=0.0)
    sym = np.pad(u[:4], (2, 1), mode="symmetric")
    return np.concatenate([lap4 - u * adv, d2**2, d1[:5] * u[:5], sym])
