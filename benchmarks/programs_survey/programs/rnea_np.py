import numpy as np

INPUTS = "q:3,qd:3,qdd:3"
L = np.array([0.6, 0.5, 0.3])
M = np.array([3.0, 2.0, 1.0])
G = 9.81


def f(q, qd, qdd):
    """Recursive Newton-Euler inverse dynamics of a planar 3R arm (point masses at link
    ends), in the base frame."""
    th = np.cumsum(q)
    w = np.cumsum(qd)
    wd = np.cumsum(qdd)
    p = np.zeros(2)
    a = np.array([0.0, G])  # gravity as a base acceleration
    pos, acc = [], []
    for i in range(3):
        e = np.array([np.cos(th[i]), np.sin(th[i])])
        n = np.array([-e[1], e[0]])
        p = p + L[i] * e
        a = a + L[i] * (wd[i] * n - w[i] ** 2 * e)
        pos.append(p)
        acc.append(a)
    f_next = np.zeros(2)
    tau = [None] * 3
    torque_next = 0.0
    for i in (2, 1, 0):
        fi = M[i] * acc[i] + f_next
        base = pos[i - 1] if i > 0 else np.zeros(2)
        r = pos[i] - base
        torque = torque_next + r[0] * (M[i] * acc[i][1]) - r[1] * (M[i] * acc[i][0])
        torque = torque + r[0] * f_next[1] - r[1] * f_next[0]
        tau[i] = torque
        f_next = fi
        torque_next = torque - (r[0] * f_next[1] - r[1] * f_next[0]) + (r[0] * fi[1] - r[1] * fi[0])
    return np.array(tau)
