import numpy as np

INPUTS = "x:12,w:8,h:8,d:7"
B = 3.0


def rq_spline(x, w, h, d, min_w=1e-3, min_d=1e-3):
    # Durkan et al. (2019): monotone rational-quadratic spline on [-B, B], identity outside
    K = w.size
    wn = np.exp(w - np.max(w))
    wn = min_w + (1 - min_w * K) * wn / np.sum(wn)
    hn = np.exp(h - np.max(h))
    hn = min_w + (1 - min_w * K) * hn / np.sum(hn)
    cw = np.concatenate([[-B], -B + 2 * B * np.cumsum(wn)[:-1], [B]])
    ch = np.concatenate([[-B], -B + 2 * B * np.cumsum(hn)[:-1], [B]])
    deriv = np.concatenate([[1.0], min_d + np.logaddexp(0.0, d), [1.0]])
    inside = (x > -B) & (x < B)
    xc = np.clip(x, -B, B)
    idx = np.clip(np.searchsorted(cw, xc, side="right") - 1, 0, K - 1)
    xk, wk = cw[idx], cw[idx + 1] - cw[idx]
    yk, hk = ch[idx], ch[idx + 1] - ch[idx]
    dk, dk1 = deriv[idx], deriv[idx + 1]
    s = hk / wk
    t = (xc - xk) / wk
    den = s + (dk1 + dk - 2 * s) * t * (1 - t)
    y = yk + hk * (s * t**2 + dk * t * (1 - t)) / den
    logdet = (
        2 * np.log(s)
        + np.log(dk1 * t**2 + 2 * s * t * (1 - t) + dk * (1 - t) ** 2)
        - 2 * np.log(den)
    )
    return np.where(inside, y, x), np.where(inside, logdet, 0.0)


def f(x, w, h, d):
    y, logdet = rq_spline(x, w, h, d)
    return np.sum(0.5 * y**2 - logdet)  # a flow's negative log-likelihood


def POINT(rng):
    x = rng.normal(size=12)
    x[:4] = [-1.5, 0.0, 3.0, 4.0]  # on a knot (uniform bins), the middle, the edge, outside
    return [x, np.zeros(8), 0.3 * rng.normal(size=8), 0.3 * rng.normal(size=7)]
