import numpy as np
from scipy.stats import norm

INPUTS = "b:2,g:2,log_s:,a:,x:20,w:20,y:20,sel:20"
PARAMS = "x,w,y,sel"


def f(b, g, log_s, a, x, w, y, sel):
    # Heckman's selection model by full maximum likelihood (Heckman 1979)
    s, rho = np.exp(log_s), np.tanh(a)
    zg = g[0] + g[1] * w
    e = (y - b[0] - b[1] * x) / s
    ll_sel = norm.logpdf(e) - log_s + norm.logcdf((zg + rho * e) / np.sqrt(1 - rho**2))
    ll_out = norm.logcdf(-zg)
    return -np.sum(np.where(sel > 0, ll_sel, ll_out))


def POINT(rng):
    x, w = rng.normal(size=20), rng.normal(size=20)
    sel = (0.3 + w + rng.normal(size=20) > 0).astype(float)
    y = np.where(sel > 0, 1.0 + 0.5 * x + rng.normal(size=20), 0.0)
    return [np.array([1.0, 0.5]), np.array([0.3, 1.0]), np.array(0.0), np.array(0.0), x, w, y, sel]
