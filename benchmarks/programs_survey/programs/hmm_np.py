import numpy as np
from scipy.special import logsumexp

INPUTS = "A:3x3,m:3,obs:120"
PARAMS = "obs"


def f(A, m, obs):
    logT = A - logsumexp(A, axis=1, keepdims=True)
    loge = -0.5 * (obs[:, None] - m[None, :]) ** 2 - 0.5 * np.log(2 * np.pi)
    alpha = np.log(np.ones(3) / 3) + loge[0]
    for k in range(1, 120):
        alpha = logsumexp(alpha[:, None] + logT, axis=0) + loge[k]
    return -logsumexp(alpha)


def POINT(rng):
    return [rng.normal(size=(3, 3)), np.array([-2.0, 0.0, 2.0]), 2.0 * rng.normal(size=120)]
