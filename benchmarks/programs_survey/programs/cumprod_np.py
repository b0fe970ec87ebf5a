import numpy as np

INPUTS = "h:60"


def f(h):
    S = np.cumprod(1.0 - h)
    return np.concatenate([S, np.prod(h[:10], keepdims=True)])


def POINT(rng):
    h = rng.uniform(0.0, 0.2, size=60)
    h[20] = 1.0  # certain failure: 1 - h == 0
    h[3] = 0.0  # and one hazard exactly 0 inside the product
    return [h]
