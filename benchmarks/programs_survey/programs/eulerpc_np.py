import numpy as np

INPUTS = "ang:3,t:3,P:20x3"
PARAMS = "P"


def Rx(a):
    return np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])


def Ry(a):
    return np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])


def Rz(a):
    return np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])


def f(ang, t, P):
    """A point cloud posed by ZYX Euler angles and a translation, projected by a pinhole
    camera at z = 5 (the residual of a PnP fit)."""
    R = Rz(ang[0]) @ Ry(ang[1]) @ Rx(ang[2])
    X = P @ R.T + t
    z = X[:, 2] + 5.0
    return np.stack([X[:, 0] / z, X[:, 1] / z], axis=1)
