import numpy as np

INPUTS = "llh:6x3"
A_WGS = 6378137.0
F_WGS = 1 / 298.257223563
E2 = F_WGS * (2 - F_WGS)
REF = np.array([0.7, -1.3, 50.0])


def ecef(lat, lon, h):
    N = A_WGS / np.sqrt(1 - E2 * np.sin(lat) ** 2)
    return np.stack([(N + h) * np.cos(lat) * np.cos(lon), (N + h) * np.cos(lat) * np.sin(lon),
                     (N * (1 - E2) + h) * np.sin(lat)], axis=-1)  # fmt: skip


def f(llh):
    """GNSS points (lat, lon in radians, height in m) to local east-north-up coordinates
    around a reference station, and back to latitude by 4 fixed-point Bowring steps."""
    X = ecef(llh[:, 0], llh[:, 1], llh[:, 2])
    X0 = ecef(REF[0], REF[1], REF[2])
    la, lo = REF[0], REF[1]
    Renu = np.array(
        [
            [-np.sin(lo), np.cos(lo), 0.0],
            [-np.sin(la) * np.cos(lo), -np.sin(la) * np.sin(lo), np.cos(la)],
            [np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)],
        ]
    )
    enu = (X - X0) @ Renu.T
    p = np.hypot(X[:, 0], X[:, 1])
    lat = np.arctan2(X[:, 2], p * (1 - E2))
    for _ in range(4):
        N = A_WGS / np.sqrt(1 - E2 * np.sin(lat) ** 2)
        h = p / np.cos(lat) - N
        lat = np.arctan2(X[:, 2], p * (1 - E2 * N / (N + h)))
    return np.concatenate([enu.ravel() / 1e3, lat])


def POINT(rng):
    return [REF + np.column_stack([1e-3 * rng.normal(size=6), 1e-3 * rng.normal(size=6),
                                   100 * rng.normal(size=6)])]  # fmt: skip
