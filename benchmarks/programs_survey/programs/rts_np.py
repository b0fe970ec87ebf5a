import numpy as np

INPUTS = "y:15,x0:2"
F = np.array([[1.0, 0.1], [0.0, 1.0]])
Q = np.array([[1e-3, 0.0], [0.0, 1e-2]])
H = np.array([1.0, 0.0])
R = 0.05


def f(y, x0):
    m, P = x0, np.eye(2)
    ms, Ps, mp, Pp = [], [], [], []
    for t in range(len(y)):
        m_, P_ = F @ m, F @ P @ F.T + Q
        S = H @ P_ @ H + R
        K = P_ @ H / S
        m = m_ + K * (y[t] - H @ m_)
        P = P_ - np.outer(K, K) * S
        ms.append(m), Ps.append(P), mp.append(m_), Pp.append(P_)
    out = [ms[-1]]
    m, P = ms[-1], Ps[-1]
    for t in range(len(y) - 2, -1, -1):
        G = Ps[t] @ F.T @ np.linalg.inv(Pp[t + 1])
        m = ms[t] + G @ (m - mp[t + 1])
        P = Ps[t] + G @ (P - Pp[t + 1]) @ G.T
        out.append(m)
    return np.stack(out[::-1])[:, 0]


def POINT(rng):
    t = np.arange(15) * 0.1
    return [np.sin(2 * t) + 0.2 * rng.normal(size=15), np.array([0.0, 1.0])]
