import numpy as np

INPUTS = "mu:6x2,ls:6x2,th:6,op:6"
G = np.stack(np.meshgrid(np.linspace(0, 1, 16), np.linspace(0, 1, 16)), axis=-1).reshape(-1, 2)


def f(mu, ls, th, op):
    c, s = np.cos(th), np.sin(th)
    R = np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)
    S = np.exp(-2.0 * ls)
    P = np.einsum("kij,kj,klj->kil", R, S, R)
    d = G[None, :, :] - mu[:, None, :]
    q = np.einsum("kpi,kij,kpj->kp", d, P, d)
    a = 1.0 / (1.0 + np.exp(-op))
    return np.sum(a[:, None] * np.exp(-0.5 * q), axis=0)


def POINT(rng):
    return [rng.uniform(0.2, 0.8, (6, 2)), np.log(rng.uniform(0.05, 0.2, (6, 2))),
            rng.normal(size=6), rng.normal(size=6)]  # fmt: skip
