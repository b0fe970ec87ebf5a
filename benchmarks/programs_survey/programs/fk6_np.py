import numpy as np

INPUTS = "q:6"
DH_A = np.array([0.0, -0.425, -0.392, 0.0, 0.0, 0.0])
DH_D = np.array([0.089, 0.0, 0.0, 0.109, 0.095, 0.082])
DH_AL = np.array([np.pi / 2, 0.0, 0.0, np.pi / 2, -np.pi / 2, 0.0])


def dh(theta, a, d, alpha):
    ct, st = np.cos(theta), np.sin(theta)
    ca, sa = np.cos(alpha), np.sin(alpha)
    return np.array(
        [
            [ct, -st * ca, st * sa, a * ct],
            [st, ct * ca, -ct * sa, a * st],
            [0.0, sa, ca, d],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


def f(q):
    T = np.eye(4)
    for i in range(6):
        T = T @ dh(q[i], DH_A[i], DH_D[i], DH_AL[i])
    return T[:3, 3], T[:3, :3]
