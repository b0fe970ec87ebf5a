from scipy.special import logsumexp

INPUTS = "a:8,b:8"
PARAMS = "b"


def f(a, b):
    # a weighted log-sum-exp (importance weights, one of them 0)
    return logsumexp(a, b=b) + 0.5 * logsumexp(a**2 / 4)


def POINT(rng):
    b = rng.uniform(0.1, 1.0, size=8)
    b[2] = 0.0
    return [rng.normal(size=8), b]
