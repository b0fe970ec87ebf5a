import numpy as np

INPUTS = "F:6x3,r:6x3"
PARAMS = "r"


def f(F, r):
    # net torque of forces at lever arms, its squared norm and the forces' spread
    tau = np.sum(np.cross(r, F), axis=0)
    mags = np.linalg.norm(F, axis=1)
    return tau @ tau + np.var(mags)
