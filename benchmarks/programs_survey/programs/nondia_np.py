INPUTS = "x:20"


def f(x):
    # CUTEst NONDIA (Shanno 1978): an arrowhead Hessian, written with a loop
    s = (x[0] - 1.0) ** 2
    for i in range(1, x.shape[0]):
        s = s + 100.0 * (x[0] - x[i - 1] ** 2) ** 2
    return s


def POINT(rng):
    return [-1.0 + 0.1 * rng.normal(size=20)]
