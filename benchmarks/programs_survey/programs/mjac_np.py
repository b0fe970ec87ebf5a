import numpy as np

INPUTS = "q:6"
# a UR5-like arm (standard DH): the geometric Jacobian from the joint axes and origins
A = np.array([0.0, -0.425, -0.392, 0.0, 0.0, 0.0])
D = np.array([0.089, 0.0, 0.0, 0.109, 0.095, 0.082])
ALPHA = np.array([np.pi / 2, 0.0, 0.0, np.pi / 2, -np.pi / 2, 0.0])


def dh(theta, a, d, alpha):
    ct, st = np.cos(theta), np.sin(theta)
    ca, sa = np.cos(alpha), np.sin(alpha)
    return np.array(
        [
            [ct, -st * ca, st * sa, a * ct],
            [st, ct * ca, -ct * sa, a * st],
            [0, sa, ca, d],
            [0, 0, 0, 1],
        ]
    )


def f(q):
    T = np.eye(4)
    zs, ps = [T[:3, 2]], [T[:3, 3]]
    for i in range(6):
        T = T @ dh(q[i], A[i], D[i], ALPHA[i])
        zs.append(T[:3, 2])
        ps.append(T[:3, 3])
    pe = ps[-1]
    cols = [np.concatenate([np.cross(zs[i], pe - ps[i]), zs[i]]) for i in range(6)]
    J = np.column_stack(cols)
    return J
