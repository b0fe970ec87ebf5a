import numpy as np

INPUTS = "q:3"
LINKS = np.array([0.5, 0.4, 0.25])


def rot2(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


def f(q):
    R = np.eye(2)
    p = np.zeros(2)
    joints = []
    for i in range(3):
        R = R @ rot2(q[i])
        p = p + R @ np.array([LINKS[i], 0.0])
        joints.append(p)
    phi = np.arctan2(R[1, 0], R[0, 0])
    return np.concatenate([np.stack(joints).ravel(), [phi]])
