import numpy as np
from scipy.special import logsumexp

INPUTS = "emb:6x4,W:4x5,labels:6"
PARAMS = "labels"
MARGIN = np.float32(0.3)


def f(emb, W, labels, s=16.0, m=MARGIN, eps=1e-7):
    # Deng et al. (2019): additive angular margin on the target class
    e = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    w = W / np.linalg.norm(W, axis=0, keepdims=True)
    cos = np.clip(e @ w, -1 + eps, 1 - eps)
    theta = np.arccos(cos)
    onehot = labels[:, None].astype(int) == np.arange(W.shape[1])
    logits = s * np.where(onehot, np.cos(theta + m), cos)
    target = np.sum(np.where(onehot, logits, 0.0), axis=1)
    return np.mean(logsumexp(logits, axis=1) - target)


def POINT(rng):
    W = rng.normal(size=(4, 5))
    emb = rng.normal(size=(6, 4))
    emb[0] = 2.0 * W[:, 1]  # on its class's direction: cos = 1, clipped
    emb[1] = -W[:, 3]  # cos = -1 to class 3
    return [emb, W, np.array([1.0, 0.0, 2.0, 3.0, 4.0, 1.0])]
