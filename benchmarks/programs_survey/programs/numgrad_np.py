import numpy as np

INPUTS = "u:32,k:5"


def f(u, k, L=1.0):
    # a Ginzburg-Landau energy on a grid, a smoothing residual and a sinc sum
    x = np.linspace(0.0, L, u.size)
    du = np.gradient(u, x, edge_order=2)
    energy = np.trapezoid(0.5 * du**2 + 0.25 * (u**2 - 1) ** 2, x)
    smooth = np.convolve(u, k / np.sum(k), mode="same")
    return energy + np.trapezoid((smooth - u) ** 2, x) + 0.1 * np.sum(np.sinc(u))


def POINT(rng):
    u = np.tanh(np.linspace(-3, 3, 32)) + 0.05 * rng.normal(size=32)
    u[16] = 0.0  # sinc at 0
    return [u, np.array([1.0, 2.0, 3.0, 2.0, 1.0])]
