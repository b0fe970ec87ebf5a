import numpy as np

INPUTS = "q0:4,q1:4,s:5"


def qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array(
        [
            w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        ]
    )


def to_matrix(q):
    w, x, y, z = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def f(q0, q1, s):
    """Keyframe animation: slerp between two unit quaternions (shortest arc), composed
    with a fixed offset, as rotation matrices at five times."""
    q0 = q0 / np.linalg.norm(q0)
    q1 = q1 / np.linalg.norm(q1)
    d = q0 @ q1
    q1 = np.where(d < 0, -q1, q1)
    d = np.abs(d)
    om = np.arccos(np.clip(d, -1.0, 1.0))
    so = np.sin(om)
    off = np.array([np.cos(0.2), 0.0, np.sin(0.2), 0.0])
    mats = []
    for k in range(5):
        q = (np.sin((1 - s[k]) * om) * q0 + np.sin(s[k] * om) * q1) / so
        mats.append(to_matrix(qmul(off, q)))
    return np.stack(mats)


def POINT(rng):
    return [rng.normal(size=4), rng.normal(size=4), np.linspace(0.1, 0.9, 5)]
