from typing import NamedTuple

import numpy as np

INPUTS = "g:3,V0:,Iext:40"
PARAMS = "Iext"


class Params(NamedTuple):
    C: float = 1.0
    ENa: float = 50.0
    EK: float = -77.0
    EL: float = -54.4


DEFAULT = Params()


def vtrap(x, y):
    # x / (exp(x / y) - 1), its limit y at x = 0 (guarded twice, as for gradients)
    safe = np.where(np.abs(x) < 1e-6, 1.0, x)
    return np.where(np.abs(x) < 1e-6, y - x / 2, safe / np.expm1(safe / y))


class HH:
    """Hodgkin-Huxley membrane (1952), forward Euler."""

    def __init__(self, p=DEFAULT, dt=0.02):
        self.p, self.dt = p, dt

    def rates(self, V):
        am = 0.1 * vtrap(-(V + 40.0), 10.0)
        bm = 4.0 * np.exp(-(V + 65.0) / 18.0)
        ah = 0.07 * np.exp(-(V + 65.0) / 20.0)
        bh = 1.0 / (1.0 + np.exp(-(V + 35.0) / 10.0))
        an = 0.01 * vtrap(-(V + 55.0), 10.0)
        bn = 0.125 * np.exp(-(V + 65.0) / 80.0)
        return am, bm, ah, bh, an, bn

    def __call__(self, g, V, Iext):
        p = self.p
        am, bm, ah, bh, an, bn = self.rates(V)
        m, h, n = am / (am + bm), ah / (ah + bh), an / (an + bn)
        out = []
        for t in range(Iext.shape[0]):
            INa = g[0] * m**3 * h * (V - p.ENa)
            IK = g[1] * n**4 * (V - p.EK)
            IL = g[2] * (V - p.EL)
            am, bm, ah, bh, an, bn = self.rates(V)
            V = V + self.dt * (Iext[t] - INa - IK - IL) / p.C
            m = m + self.dt * (am * (1 - m) - bm * m)
            h = h + self.dt * (ah * (1 - h) - bh * h)
            n = n + self.dt * (an * (1 - n) - bn * n)
            out.append(V)
        return np.stack(out)


model = HH()


def f(g, V0, Iext):
    return model(g, V0, Iext)


def POINT(rng):
    Iext = np.where(np.arange(40) >= 5, 10.0, 0.0)
    return [np.array([120.0, 36.0, 0.3]), np.array(-40.0), Iext]  # V0 at am's removable pole
