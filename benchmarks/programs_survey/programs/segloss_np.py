import numpy as np

INPUTS = "pred:16,logits:12,e1:6x4,e2:6x4,target:16,same:6"
PARAMS = "target,same"


def smooth_l1(x, y, beta=1.0):
    d = np.abs(x - y)
    return np.where(d < beta, 0.5 * d**2 / beta, d - 0.5 * beta)


def dice(logits, mask, eps=1.0):
    p = 1.0 / (1.0 + np.exp(-logits))
    return 1.0 - (2.0 * np.sum(p * mask) + eps) / (np.sum(p) + np.sum(mask) + eps)


def contrastive(e1, e2, same, margin=1.0):
    d = np.sqrt(np.sum((e1 - e2) ** 2, axis=1) + 1e-12)
    return np.mean(same * d**2 + (1.0 - same) * np.maximum(margin - d, 0.0) ** 2)


def f(pred, logits, e1, e2, target, same):
    mask = (target[:12] > 0).astype(float)
    return np.mean(smooth_l1(pred, target)) + dice(logits, mask) + contrastive(e1, e2, same)


def POINT(rng):
    target = rng.normal(size=16)
    pred = target + rng.normal(size=16)
    pred[0] = target[0] + 1.0  # exactly at beta
    pred[1] = target[1]  # exactly 0
    e1 = rng.normal(size=(6, 4))
    e2 = e1 + 0.3 * rng.normal(size=(6, 4))
    e2[1] = e1[1]  # a dissimilar pair at distance 0
    same = np.array([1.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    return [pred, rng.normal(size=12), e1, e2, target, same]
