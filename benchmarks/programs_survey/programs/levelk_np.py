import math

import numpy as np

INPUTS = "lam:,tau:,P:3x3,counts:3"
PARAMS = "P,counts"


def softmax(z):
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


def f(lam, tau, P, counts, K=4):
    s = np.ones(3) / 3.0  # level 0 plays uniformly
    levels = [s]
    for _ in range(1, K):
        s = softmax(lam * (P @ s))  # a logit best response to the level below
        levels.append(s)
    w = np.stack([np.exp(-tau) * tau**h / math.factorial(h) for h in range(K)])
    mix = (w / np.sum(w)) @ np.stack(levels)
    return -np.sum(counts * np.log(mix))


def POINT(rng):
    P = np.array([[3.0, 0.0, 5.0], [5.0, 1.0, 0.0], [0.0, 4.0, 2.0]])
    return [np.array(0.8), np.array(1.5), P, np.array([30.0, 45.0, 25.0])]
