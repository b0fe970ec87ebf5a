import math


def residual(x, k, s0, s1):
    # k*s0 = sin(x), x*s0 + s1 = 1
    return math.sin(x) - k * s0, 1 - x * s0 - s1
