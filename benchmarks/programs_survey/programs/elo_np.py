import numpy as np

INPUTS = "r:6,h:,games:30x3"
PARAMS = "games"


def f(r, h, games, scale=400.0):
    i = games[:, 0].astype(int)
    j = games[:, 1].astype(int)
    s = games[:, 2]  # 1 win, 0.5 draw, 0 loss for the home player i
    d = (r[i] + h - r[j]) * np.log(10.0) / scale
    p = 1.0 / (1.0 + np.exp(-d))
    ll = s * np.log(p) + (1.0 - s) * np.log1p(-p)
    return -np.sum(ll) + 1e-5 * np.sum(r**2)


def POINT(rng):
    i = rng.integers(0, 6, 30)
    j = (i + 1 + rng.integers(0, 5, 30)) % 6
    s = rng.choice([0.0, 0.5, 1.0], 30)
    return [rng.normal(1500.0, 100.0, 6), np.array(35.0), np.column_stack([i, j, s])]
