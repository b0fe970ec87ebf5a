import numpy as np

INPUTS = "w:8x3"
R0 = np.array([[0.36, 0.48, -0.8], [-0.8, 0.6, 0.0], [0.48, 0.64, 0.6]])


def hat(w):
    z = np.zeros_like(w[..., 0])
    return np.stack([np.stack([z, -w[..., 2], w[..., 1]], -1),
                     np.stack([w[..., 2], z, -w[..., 0]], -1),
                     np.stack([-w[..., 1], w[..., 0], z], -1)], -2)  # fmt: skip


def f(w):
    th = np.linalg.norm(w, axis=-1)[..., None, None]
    K = hat(w)
    R = np.eye(3) + np.sin(th) / th * K + (1 - np.cos(th)) / th**2 * K @ K  # Rodrigues
    E = np.einsum("ji,njk->nik", R0, R)  # R0^T R
    c = np.clip((np.trace(E, axis1=1, axis2=2) - 1.0) / 2.0, -1.0, 1.0)
    phi = np.arccos(c)
    v = np.stack([E[:, 2, 1] - E[:, 1, 2], E[:, 0, 2] - E[:, 2, 0], E[:, 1, 0] - E[:, 0, 1]], -1)
    return (phi / (2.0 * np.sin(phi)))[:, None] * v


def POINT(rng):
    return [rng.normal(size=(8, 3))]
