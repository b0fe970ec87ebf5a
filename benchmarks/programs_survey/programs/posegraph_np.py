import numpy as np

INPUTS = "poses:5x3,meas:6x3,edges:6x2"
PARAMS = "meas,edges"


def rot(th):
    c, s = np.cos(th), np.sin(th)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)  # (..., 2, 2)


def wrap(a):
    return np.arctan2(np.sin(a), np.cos(a))


def f(poses, meas, edges):
    # 2-D pose-graph SLAM residuals (Grisetti et al. 2010): relative poses in the frame of
    # the first pose, angle errors wrapped; the first pose is the anchor
    i, j = edges[:, 0].astype(int), edges[:, 1].astype(int)
    pi, pj = poses[i], poses[j]
    dt = np.einsum("...ji,...j->...i", rot(pi[:, 2]), pj[:, :2] - pi[:, :2])  # R_i^T (t_j - t_i)
    e_t = np.einsum("...ji,...j->...i", rot(meas[:, 2]), dt - meas[:, :2])
    e_th = wrap(pj[:, 2] - pi[:, 2] - meas[:, 2])
    anchor = poses[0]
    return np.concatenate([e_t.ravel(), e_th, 10.0 * anchor])


def POINT(rng):
    poses = np.array([[0, 0, 0], [1, 0, np.pi / 2], [1, 1, np.pi], [0, 1, -np.pi / 2],
                      [0.1, 0.05, 0.02]])  # fmt: skip
    edges = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [4, 0], [1, 3]], float)
    meas = np.array([[1, 0, np.pi / 2], [1, 0, np.pi / 2], [1, 0, np.pi / 2], [1, 0, np.pi / 2],
                     [0, 0, 0], [1.4, 0.0, np.pi]])  # fmt: skip
    meas = meas + 0.02 * rng.normal(size=(6, 3))
    return [poses + 0.01 * rng.normal(size=(5, 3)), meas, edges]
