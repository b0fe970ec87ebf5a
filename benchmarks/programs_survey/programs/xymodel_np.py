import numpy as np

INPUTS = "theta:6x6,h:"


def f(theta, h, J=1.0, villain=0.1):
    # the XY model on a periodic lattice, a field along x and a Villain-like penalty on
    # the wrapped bond angles
    bonds = [theta - np.roll(theta, 1, axis=0), theta - np.roll(theta, -1, axis=1)]
    e = -J * sum(np.sum(np.cos(d)) for d in bonds) - h * np.sum(np.cos(theta))
    wrapped = [np.mod(d + np.pi, 2 * np.pi) - np.pi for d in bonds]
    return e + villain * sum(np.sum(w**2) for w in wrapped)


def POINT(rng):
    theta = rng.uniform(-np.pi, np.pi, size=(6, 6))
    theta[0] = 0.0  # a row aligned
    theta[1, 0] = np.pi  # a bond of exactly pi to the row above: the wrap's jump
    return [theta, np.array(0.0)]  # no field
