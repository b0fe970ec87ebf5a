import numpy as np

INPUTS = "raw:4x16,rgb_raw:4x16x3,t:16"
PARAMS = "t"


def f(raw, rgb_raw, t):
    # NeRF volume rendering of 4 rays (Mildenhall et al. 2020): alpha compositing with the
    # transmittance as an exclusive cumulative product
    sigma = np.where(raw > 0, raw, 0.0)  # ReLU density (0 at the kink, as jax.nn.relu)
    rgb = 1.0 / (1.0 + np.exp(-rgb_raw))
    delta = np.concatenate([np.diff(t), [1e10]])
    alpha = 1.0 - np.exp(-sigma * delta[None, :])
    trans = np.cumprod(
        np.concatenate([np.ones((raw.shape[0], 1)), 1.0 - alpha + 1e-10], axis=-1), axis=-1
    )[:, :-1]
    w = alpha * trans
    color = np.sum(w[..., None] * rgb, axis=-2)
    depth = np.sum(w * t, axis=-1)
    acc = np.sum(w, axis=-1)
    return {"acc": acc, "depth": depth, "rgb": color}  # keys sorted: JAX's order too


def POINT(rng):
    raw = rng.normal(size=(4, 16))
    raw[:, :3] = 0.0  # empty space: the ReLU at its kink
    raw[1] = -1.0  # a ray through nothing at all
    return [raw, rng.normal(size=(4, 16, 3)), np.linspace(2.0, 6.0, 16)]
