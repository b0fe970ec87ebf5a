import numpy as np

INPUTS = "q:4"
LINKS = np.array([0.4, 0.35, 0.3, 0.2])


def f(q):
    """Yoshikawa manipulability sqrt(det(J Jᵀ)) of a planar 4R arm's position Jacobian,
    minus a joint-limit barrier (the cost an IK solver maximises)."""
    th = np.cumsum(q)
    c, s = np.cos(th), np.sin(th)
    # d x / d q_j = -Σ_{i>=j} L_i sin(th_i): reversed cumulative sums
    Jx = -np.cumsum((LINKS * s)[::-1])[::-1]
    Jy = np.cumsum((LINKS * c)[::-1])[::-1]
    J = np.stack([Jx, Jy])
    w = np.sqrt(np.linalg.det(J @ J.T))
    barrier = np.sum(np.log(np.pi**2 - q**2))
    return w + 0.01 * barrier
