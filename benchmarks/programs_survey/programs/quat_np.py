import numpy as np

INPUTS = "q:4,v:3"


def f(q, v):
    q = q / np.linalg.norm(q)
    w, r = q[0], q[1:]
    t = 2.0 * np.cross(r, v)
    return v + w * t + np.cross(r, t)
