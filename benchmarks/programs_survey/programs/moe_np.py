import numpy as np

INPUTS = "x:6x4,Wg:4x3,We:3x4x4"


def f(x, Wg, We):
    logits = x @ Wg
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = p / p.sum(axis=1, keepdims=True)
    k = np.argmax(logits, axis=1)  # top-1 gate
    gate = p[np.arange(x.shape[0]), k]
    y = np.einsum("ni,nij->nj", x, We[k])
    return gate[:, None] * y


def POINT(rng):
    x = rng.normal(size=(6, 4))
    x[2] = 0.0  # all three logits tie at 0: argmax picks expert 0
    return [x, rng.normal(size=(4, 3)), 0.5 * rng.normal(size=(3, 4, 4))]
