import numpy as np
from scipy.special import rel_entr, softmax

INPUTS = "z:6,p:6"
PARAMS = "p"


def f(z, p):
    # KL(p || softmax(z)) by rel_entr, p with a zero entry
    q = softmax(z)
    return np.sum(rel_entr(p, q))


def POINT(rng):
    p = np.array([0.3, 0.0, 0.2, 0.1, 0.25, 0.15])
    return [rng.normal(size=6), p]
