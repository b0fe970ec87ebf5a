import numpy as np

INPUTS = "z:4,R:40x4"
PARAMS = "R"


def f(z, R, lam=5.0, q=0.1):
    # a long-only portfolio: mean log growth, maximum drawdown of the wealth path and the
    # 10% quantile of the daily return (historical VaR)
    w = np.exp(z - np.max(z))
    w = w / w.sum()
    r = R @ w
    wealth = np.cumprod(1.0 + r)
    peak = np.maximum.accumulate(wealth)
    mdd = np.max(1.0 - wealth / peak)
    var = -np.quantile(r, q)
    return -np.mean(np.log1p(r)) + lam * mdd + var


def POINT(rng):
    R = 0.01 * rng.normal(size=(40, 4)) + 0.0005
    return [np.array([0.0, 0.3, -0.2, 0.1]), R]
