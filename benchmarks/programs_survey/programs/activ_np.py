import numpy as np

INPUTS = "x:10,W:10x4"


def relu6(x):
    return np.clip(x, 0.0, 6.0)


def hard_swish(x):
    return x * relu6(x + 3.0) / 6.0


def mish(x):
    return x * np.tanh(np.logaddexp(0.0, x))


def f(x, W):
    h = hard_swish(x) @ W
    return np.concatenate([relu6(x), mish(h), hard_swish(h)])


def POINT(rng):
    x = np.array([-4.0, -3.0, -1.0, 0.0, 0.5, 2.0, 3.0, 5.0, 6.0, 7.0])  # every kink
    return [x, 0.3 * rng.normal(size=(10, 4))]
