import numpy as np

INPUTS = "cam:6,X:20x3,obs:20x2"
PARAMS = "obs"
FOCAL = 500.0


def rodrigues(w):
    th = np.sqrt(np.dot(w, w))
    k = w / th
    Kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(th) * Kx + (1 - np.cos(th)) * (Kx @ Kx)


def f(cam, X, obs):
    R = rodrigues(cam[:3])
    Pc = X @ R.T + cam[3:]
    proj = FOCAL * Pc[:, :2] / Pc[:, 2:3]
    return proj - obs


def POINT(rng):
    X = rng.normal(size=(20, 3)) + np.array([0.0, 0.0, 8.0])
    return [
        np.concatenate([0.1 * rng.normal(size=3) + 0.05, 0.1 * rng.normal(size=3)]),
        X,
        rng.normal(size=(20, 2)),
    ]
