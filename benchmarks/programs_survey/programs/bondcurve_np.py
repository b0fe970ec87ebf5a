import numpy as np

INPUTS = "z:8"
KNOTS = np.array([0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0])
COUPONS = np.array([0.02, 0.03, 0.025, 0.04, 0.035])
MATURITIES = np.array([1.0, 2.5, 4.0, 6.5, 10.0])


def f(z):
    """Prices of five semi-annual coupon bonds off a zero curve interpolated linearly in the
    zero rates at the cash-flow times (continuous compounding); J = key-rate durations."""
    prices = []
    for cpn, mat in zip(COUPONS, MATURITIES, strict=True):
        times = np.arange(mat, 0.0, -0.5)[::-1]
        zt = np.interp(times, KNOTS, z)
        df = np.exp(-zt * times)
        cf = np.full(times.shape, 100.0 * cpn / 2)
        cf[-1] += 100.0
        prices.append(np.sum(cf * df))
    return np.array(prices)


def POINT(rng):
    return [0.02 + 0.002 * np.sqrt(KNOTS) + 0.001 * rng.normal(size=8)]
